//! Homa end to end (Montazeri et al., SIGCOMM'18): the host agents on the
//! packet engine, over the `priority` switch queues.

use dcflow_scenario::{RunOutput, Scenario};

fn run(toml: &str) -> RunOutput {
    let s = Scenario::from_toml(toml).unwrap_or_else(|e| panic!("{e}"));
    dcflow_packet::run(&s).unwrap()
}

const STAR: &str = "[topology]\nkind = \"star\"\nhosts = 3\n[protocol]\nname = \"homa\"\n[workload]\npattern = \"explicit\"\n";

/// Serialization of `bytes` at 1 Gbps (the star's links), in seconds.
fn at_1g(bytes: u64) -> f64 {
    bytes as f64 * 8.0 / 1e9
}

/// Wire bytes of a `size`-byte message in 1460-byte payloads.
fn wire(size: u64) -> u64 {
    size + size.div_ceil(1460) * 40
}

/// A lone message goes at line rate from its first byte: the unscheduled
/// RTTbytes at once, and the grants for the rest arrive before they run
/// out. Its FCT is that of its packets back to back through the star: the
/// first packet's serialization on the sender's link, 25.2 us of switch
/// and propagation delay, and every byte on the receiver's link (equally
/// fast). The engine's `ideal_fct_s` is below that by the last packet's
/// shortfall from a full one: it puts the bottleneck on the first of the
/// two equal links. For a message inside RTTbytes and one many times larger.
#[test]
fn a_lone_message_goes_at_line_rate() {
    for (size, bytes) in [("3KB", 3000), ("1MB", 1_000_000)] {
        let out = run(&format!("{STAR}[[flows]]\nsrc = 1\ndst = 0\nsize = \"{size}\"\n"));
        let f = &out.flows[0];
        let fct = f.fct_s.unwrap();
        let exact = 25.2e-6 + at_1g(1500) + at_1g(wire(bytes));
        assert!((fct - exact).abs() < 1e-9, "{size}: FCT {fct} s, back to back {exact} s");
        assert_eq!(f.bytes_delivered, f.size_bytes);
        assert_eq!(out.summary.retransmits, 0);
    }
}

/// Two messages into one host, both there from the start: the receiver
/// grants the one with fewer bytes left at the higher scheduled level
/// (SRPT), so the 100 KB message finishes first, and the 1 MB one ends when
/// the port has carried both: the downlink stays busy to within one RTT.
#[test]
fn two_messages_to_one_host_the_shorter_first_at_line_rate() {
    let out = run(&format!(
        "{STAR}[[flows]]\nsrc = 1\ndst = 0\nsize = \"1MB\"\n[[flows]]\nsrc = 2\ndst = 0\nsize = \"100KB\"\n"
    ));
    let (large, small) = (&out.flows[0], &out.flows[1]);
    assert!(small.finish_s.unwrap() < large.finish_s.unwrap());
    let both = at_1g(wire(1_000_000) + wire(100_000));
    let rtt = 4.0 * at_1g(1500) + 20e-6; // a generous bound on one round trip
    let last = large.finish_s.unwrap();
    assert!(last < both + rtt, "last flow at {last} s, the port needs {both} s");
    assert_eq!(out.summary.flows_completed, 2);
}

/// Without loss every flow's receiver ends with exactly its size, and the
/// same run twice gives the same outputs.
#[test]
fn bytes_are_conserved_and_runs_repeat() {
    let toml = "seed = 7\n[topology]\nkind = \"star\"\nhosts = 9\n[protocol]\nname = \"homa\"\n\
                [workload]\npattern = \"all_to_all\"\narrival = \"poisson\"\nflows = 60\nload = 0.6\n\
                size = { dist = \"uniform\", min = \"1KB\", max = \"200KB\" }\n";
    let out = run(toml);
    assert_eq!(out.summary.flows_completed, 60);
    assert!(out.flows.iter().all(|f| f.bytes_delivered == f.size_bytes));
    assert_eq!(out.summary.packets_dropped, 0);
    // A granted message whose packets wait at the lowest level longer than
    // the resend timeout (2 ms: 250 KB at 1 Gbps) is asked for again
    // (§3.7): the copies arrive as duplicates and change nothing delivered.
    // Measured: one RESEND, for 7 packets.
    assert!(out.summary.retransmits <= 10, "{} retransmissions", out.summary.retransmits);
    let again = run(toml);
    let fcts = |o: &RunOutput| o.flows.iter().map(|f| f.fct_s).collect::<Vec<_>>();
    assert_eq!(fcts(&out), fcts(&again));
    assert_eq!(out.summary.packets_sent, again.summary.packets_sent);
}


/// The unscheduled levels of a workload (Homa §3.4) at RTTbytes 10 KB, the
/// paper's 10 Gbps value: web search's bytes are almost all in messages far
/// larger than RTTbytes, so it gets 1 unscheduled level and 7 scheduled, as
/// HomaSimulation's config gives W5; data mining, half of whose messages
/// are one packet, the same split.
#[test]
fn web_search_and_data_mining_get_one_unscheduled_level() {
    for size in ["{ dist = \"cdf\", name = \"web_search\" }", "{ dist = \"cdf\", name = \"data_mining\", max = \"30MB\" }"] {
        let s = Scenario::from_toml(&format!(
            "[topology]\nkind = \"star\"\nhosts = 9\n[protocol]\nname = \"homa\"\n\
             [workload]\npattern = \"all_to_all\"\narrival = \"poisson\"\nload = 0.8\nflows = 20000\nsize = {size}\n"
        ))
        .unwrap();
        let topo = s.build_topology().unwrap();
        let sizes: Vec<u64> = s.flow_specs(&topo).unwrap().iter().map(|f| f.size.0).collect();
        let dcflow_proto::ProtocolConfig::Homa(c) = s.protocol.for_run(&sizes, 10_000) else { panic!("homa") };
        assert_eq!((c.unscheduled_priorities, c.unscheduled_cutoffs.len()), (1, 0), "{size}");
    }
}
