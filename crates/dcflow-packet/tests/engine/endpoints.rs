//! Releasing a quiet flow's endpoints changes nothing a run does
//! (`endpoints.rs`): a run that samples its flows keeps every endpoint to
//! the end, one that does not releases them, and both give the same flows
//! table and the same counts, lossy runs (retransmissions, timeouts, FINs
//! still in flight after a flow's outcome) included, and a drop while an
//! endpoint is being drained (a full queue, or MERP's push-out) does not
//! release it under the engine's feet.

use dcflow_scenario::{RunOutput, Scenario};

const LOSSY_FAT_TREE: &str = "[topology]\nkind = \"fat_tree\"\nk = 4\n\
    [workload]\npattern = \"all_to_all\"\narrival = \"poisson\"\nload = 0.6\nflows = 100\n\
    size = { dist = \"cdf\", name = \"data_mining\" }\n[faults]\nloss = 0.01\n";

fn run_on(seed: u64, sections: &str, protocol: &str, keep_endpoints: bool) -> RunOutput {
    let monitor = if keep_endpoints { "[monitor]\ninterval = \"1ms\"\nflows = true\n" } else { "" };
    let toml = format!("seed = {seed}\n[protocol]\nname = \"{protocol}\"\n{sections}{monitor}");
    dcflow_packet::run(&Scenario::from_toml(&toml).unwrap_or_else(|e| panic!("{e}"))).unwrap()
}

fn run(protocol: &str, keep_endpoints: bool) -> RunOutput {
    run_on(3, LOSSY_FAT_TREE, protocol, keep_endpoints)
}

#[test]
fn released_endpoints_change_nothing() {
    for protocol in ["dctcp", "pdq", "pfabric"] {
        let (kept, released) = (run(protocol, true), run(protocol, false));
        assert_eq!(kept.flows, released.flows, "{protocol}: flows table");
        let counts = |o: &RunOutput| {
            let s = &o.summary;
            (s.packets_sent, s.packets_dropped, s.retransmits, s.timeouts, s.packet_hops)
        };
        // (Not the event counts: the monitor's samples are events.)
        assert_eq!(counts(&kept), counts(&released), "{protocol}: sent, dropped, retransmits, timeouts, hops");
        assert!(released.summary.retransmits > 0, "{protocol}: the loss must cause retransmissions");
    }
}

/// 200 senders to one host with 1% loss on MERP's push-out queues: a
/// receiver's ACK pushes out the last packet its own flow had in the
/// network while the engine drains that receiver.
#[test]
fn a_drop_during_a_drain_keeps_the_endpoint() {
    let incast = "[topology]\nkind = \"star\"\nhosts = 201\n[workload]\npattern = \"aggregation\"\nflows = 200\n\
                  size = { dist = \"uniform\", min = \"2KB\", max = \"198KB\" }\n\
                  [faults]\nloss = 0.01\ndirection = \"both\"\n";
    let (kept, released) = (run_on(1, incast, "merp", true), run_on(1, incast, "merp", false));
    assert_eq!(released.summary.flows_completed, 200);
    assert_eq!(kept.flows, released.flows, "flows table");
}
