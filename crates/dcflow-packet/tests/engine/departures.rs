//! A FIFO port that schedules its departures on admission, and a port that
//! reorders and decides its departures lazily, give the same run as one
//! that sends at `TxDone` events (`src/departures.rs`). A monitored run
//! sends at `TxDone` events at every port (the monitor samples the
//! queues), an unmonitored one schedules ahead or decides lazily wherever
//! it can, so the two must give the same flows and counts, byte for byte.
//! The leaf-spine's 40 Gbps hosts and 160 Gbps uplinks put departures and
//! arrivals on the same picosecond at every few hundred packets; the small
//! buffer makes them drop.

use dcflow_scenario::{RunOutput, Scenario};

const ALL_TO_ALL: &str = "pattern = \"all_to_all\"\narrival = \"poisson\"\nload = 0.7\nflows = 300\n\
    size = { dist = \"cdf\", name = \"web_search\" }";

/// `extra`: top-level keys and tables; `topology`: more keys of `[topology]`.
fn leaf_spine(protocol: &str, extra: &str, topology: &str, workload: &str, monitored: bool) -> RunOutput {
    let monitor = if monitored { "[monitor]\ninterval = \"100us\"\n" } else { "" };
    let toml = format!(
        "seed = 5\n{extra}\n[topology]\nkind = \"leaf_spine\"\nleaves = 4\nhosts_per_leaf = 8\nspines = 2\n\
         link_rate = \"40Gbps\"\nspine_link_rate = \"160Gbps\"\nprop_delay = \"0.2us\"\nproc_delay = \"0us\"\nbuffer = \"18KB\"\n{topology}\n\
         [protocol]\nname = \"{protocol}\"\n\
         [workload]\n{workload}\n{monitor}"
    );
    dcflow_packet::run(&Scenario::from_toml(&toml).unwrap_or_else(|e| panic!("{e}"))).unwrap()
}

fn counts(o: &RunOutput) -> (u64, u64, u64, u64, u64, f64) {
    let s = &o.summary;
    (s.packets_sent, s.packets_dropped, s.retransmits, s.timeouts, s.packet_hops, s.utilization)
}

fn same_run(protocol: &str, extra: &str, workload: &str) -> RunOutput {
    same_run_on(protocol, extra, "", workload)
}

fn same_run_on(protocol: &str, extra: &str, topology: &str, workload: &str) -> RunOutput {
    let sent_at_tx_done = leaf_spine(protocol, extra, topology, workload, true);
    let scheduled_ahead = leaf_spine(protocol, extra, topology, workload, false);
    assert_eq!(sent_at_tx_done.flows, scheduled_ahead.flows, "{protocol} {extra} {topology}: flows table");
    assert_eq!(
        counts(&sent_at_tx_done),
        counts(&scheduled_ahead),
        "{protocol} {extra} {topology}: sent, dropped, retransmits, timeouts, hops, utilization"
    );
    scheduled_ahead
}

#[test]
fn scheduling_departures_ahead_changes_nothing() {
    for protocol in ["tcp", "dctcp", "d2tcp", "l2dct", "lpd"] {
        let out = same_run(protocol, "", ALL_TO_ALL);
        assert!(out.summary.packets_dropped > 0, "{protocol}: the buffer never filled");
    }
}

/// The other protocols: FIFO ports with switch agents (sending at `TxDone`
/// events, in the same order), or queues that reorder (pFabric's, strict
/// priority: deciding lazily when unmonitored).
#[test]
fn the_monitor_changes_no_protocol_run() {
    for protocol in ["pias", "rcp", "d3", "pfabric", "pdq", "s3", "merp", "phost", "homa"] {
        same_run(protocol, "", ALL_TO_ALL);
    }
    same_run("karuna", "", &format!("{ALL_TO_ALL}\nknown_size_fraction = 0.5"));
    // Sprayed packet by packet, routed hop by hop: pFabric's ports still
    // decide lazily when unmonitored (the comparison with YAPS runs so).
    same_run_on("pfabric", "", "routing = \"spray\"", ALL_TO_ALL);
}

/// Random loss on the bottleneck links keeps those ports at `TxDone`
/// events (the loss is drawn as a packet leaves) while the others schedule
/// ahead; a run cut short at `stop`, in the middle of an incast whose last
/// link has a full buffer, counts the hops and the bytes of the packets
/// that had started by then: not those scheduled after it (FIFO), and all
/// those a port deciding lazily owed by then (pFabric).
#[test]
fn mixed_ports_and_a_stopped_run_change_nothing() {
    same_run("tcp", "[faults]\nloss = 0.02", ALL_TO_ALL);
    let incast = "pattern = \"aggregation\"\nreceiver = 0\nflows = 12\nsize = { dist = \"fixed\", value = \"1MB\" }";
    let stopped = same_run("dctcp", "stop = \"30us\"", incast);
    assert_eq!(stopped.summary.status, dcflow_scenario::RunStatus::Stopped);
    assert!(stopped.summary.packets_dropped > 0, "the incast's buffer never filled");
    // Stopped while the last link drains a burst of short flows: that port
    // owes departures due before the stop, which no event asked for yet.
    let burst = "pattern = \"aggregation\"\nreceiver = 0\nflows = 4\nsize = { dist = \"fixed\", value = \"20KB\" }";
    let stopped = same_run("pfabric", "stop = \"8us\"", burst);
    assert_eq!(stopped.summary.status, dcflow_scenario::RunStatus::Stopped);
}
