//! pHost end to end (Gao et al., CoNEXT'15): the host agents in the engine.

use dcflow_scenario::{RunOutput, Scenario};

fn run(toml: &str) -> RunOutput {
    let s = Scenario::from_toml(toml).unwrap_or_else(|e| panic!("{e}"));
    dcflow_packet::run(&s).unwrap()
}

const STAR: &str = "[topology]\nkind = \"star\"\nhosts = 3\n[protocol]\nname = \"phost\"\n[workload]\npattern = \"explicit\"\n";

/// Serialization of `bytes` at 1 Gbps (the star's links), in seconds.
fn at_1g(bytes: u64) -> f64 {
    bytes as f64 * 8.0 / 1e9
}

/// A lone flow: its RTS (40 bytes) goes first, then the data back to back
/// at line rate, the first BDP on free tokens and the rest on tokens that
/// arrive before the free ones run out. On the star's two equal hops the
/// data then takes the first packet's serialization on the first link,
/// every packet's on the second, and the path's delays: the flow's FCT is
/// that plus the RTS's serialization, for a flow inside the free tokens and
/// for one many times larger. (The engine's `ideal_fct` takes the first of
/// equal links as the bottleneck and so leaves out the first packet's
/// serialization before it.)
#[test]
fn a_lone_flow_takes_line_rate_after_its_rts() {
    for (size, bytes) in [("3KB", 3_000u64), ("1MB", 1_000_000)] {
        let out = run(&format!("{STAR}[[flows]]\nsrc = 1\ndst = 0\nsize = \"{size}\"\n"));
        let f = &out.flows[0];
        let packets = bytes.div_ceil(1460);
        let wire = bytes + packets * 40;
        let delays = 0.1e-6 + 25e-6 + 0.1e-6; // h1->sw, the switch, sw->h0
        let want = at_1g(40) + at_1g(1500.min(wire)) + at_1g(wire) + delays;
        let fct = f.fct_s.unwrap();
        assert!((fct - want).abs() < 1e-9, "{size}: FCT {fct} s, line rate gives {want} s");
        assert_eq!(f.bytes_delivered, f.size_bytes);
        assert_eq!(out.summary.retransmits, 0);
    }
}

/// Two flows into one host, both there from the start: the destination
/// tokens the one with fewer packets left first (SRPT), so the 100 KB flow
/// finishes first, and the 1 MB one ends when the port has carried both:
/// the receiver's link stays busy (line rate) to within one RTT.
#[test]
fn two_flows_to_one_host_the_shorter_first_at_line_rate() {
    let out = run(&format!(
        "{STAR}[[flows]]\nsrc = 1\ndst = 0\nsize = \"1MB\"\n[[flows]]\nsrc = 2\ndst = 0\nsize = \"100KB\"\n"
    ));
    let (large, small) = (&out.flows[0], &out.flows[1]);
    assert!(small.finish_s.unwrap() < large.finish_s.unwrap());
    let wire = |b: u64| b + b.div_ceil(1460) * 40;
    let both = at_1g(wire(1_000_000) + wire(100_000));
    let rtt = 4.0 * at_1g(1500) + 20e-6; // a generous bound on one round trip
    let last = large.finish_s.unwrap();
    assert!(last < both + rtt, "last flow at {last} s, the port needs {both} s");
    assert_eq!(out.summary.flows_completed, 2);
}

/// Sixty flows at load 0.6 among nine hosts: every flow ends, its receiver
/// holds exactly its bytes, nothing is lost (a retransmission round may send
/// a packet still in flight again: pHost re-tokens what has not arrived
/// after `resend_after`), and the same scenario gives the same run.
#[test]
fn bytes_are_conserved_and_runs_repeat() {
    let toml = "seed = 7\n[topology]\nkind = \"star\"\nhosts = 9\n[protocol]\nname = \"phost\"\n\
                [workload]\npattern = \"all_to_all\"\nflows = 60\narrival = \"poisson\"\nload = 0.6\n\
                size = { dist = \"uniform\", min = \"1KB\", max = \"200KB\" }\n";
    let out = run(toml);
    assert_eq!(out.summary.flows_completed, 60);
    assert!(out.flows.iter().all(|f| f.bytes_delivered == f.size_bytes));
    assert_eq!(out.summary.packets_dropped, 0);
    let again = run(toml);
    let fcts = |o: &RunOutput| o.flows.iter().map(|f| f.fct_s).collect::<Vec<_>>();
    assert_eq!(fcts(&out), fcts(&again));
    assert_eq!(out.summary.packets_sent, again.summary.packets_sent);
}
