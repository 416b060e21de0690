//! What the engine tests of the host-scheduled protocols (pHost, Homa)
//! share: a 1 Gbps star and the facts every receiver-driven protocol must
//! show on it. Each protocol's module says why they hold for it.

use dcflow_scenario::{RunOutput, Scenario};

pub fn run(toml: &str) -> RunOutput {
    let s = Scenario::from_toml(toml).unwrap_or_else(|e| panic!("{e}"));
    dcflow_packet::run(&s).unwrap()
}

/// Serialization of `bytes` at 1 Gbps (the star's links), in seconds.
pub fn at_1g(bytes: u64) -> f64 {
    bytes as f64 * 8.0 / 1e9
}

/// A lone flow of `bytes` (written `size`) from host 1 to host 0 of a
/// 3-host star under `protocol`: its data goes back to back at line rate
/// after `before` seconds. On the star's two equal hops the data takes the
/// first packet's serialization on the first link, every packet's on the
/// second, and the path's delays. (The engine's `ideal_fct` takes the first
/// of equal links as the bottleneck and so leaves out the first packet's
/// serialization before it.) Nothing is sent twice.
pub fn lone_flow_at_line_rate(protocol: &str, size: &str, bytes: u64, before: f64) {
    let out = run(&format!(
        "[topology]\nkind = \"star\"\nhosts = 3\n[protocol]\nname = \"{protocol}\"\n\
         [workload]\npattern = \"explicit\"\n[[flows]]\nsrc = 1\ndst = 0\nsize = \"{size}\"\n"
    ));
    let f = &out.flows[0];
    let wire = bytes + bytes.div_ceil(1460) * 40;
    let delays = 0.1e-6 + 25e-6 + 0.1e-6; // h1->sw, the switch, sw->h0
    let want = before + at_1g(1500.min(wire)) + at_1g(wire) + delays;
    let fct = f.fct_s.unwrap();
    assert!((fct - want).abs() < 1e-9, "{size}: FCT {fct} s, line rate gives {want} s");
    assert_eq!(f.bytes_delivered, f.size_bytes);
    assert_eq!(out.summary.retransmits, 0);
}

/// A 1 MB flow from host 1 and a 100 KB flow from host 2 into host 0, both
/// there from the start: the 100 KB flow finishes first, and the 1 MB one
/// ends when the port has carried both: the receiver's link stays busy (line
/// rate) to within one RTT.
pub fn shorter_first_at_line_rate(protocol: &str) {
    let out = run(&format!(
        "[topology]\nkind = \"star\"\nhosts = 3\n[protocol]\nname = \"{protocol}\"\n\
         [workload]\npattern = \"explicit\"\n\
         [[flows]]\nsrc = 1\ndst = 0\nsize = \"1MB\"\n[[flows]]\nsrc = 2\ndst = 0\nsize = \"100KB\"\n"
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
/// holds exactly its bytes, nothing is dropped, and the same scenario gives
/// the same run. Returns the run.
pub fn conserved_and_repeatable(protocol: &str) -> RunOutput {
    let toml = format!(
        "seed = 7\n[topology]\nkind = \"star\"\nhosts = 9\n[protocol]\nname = \"{protocol}\"\n\
         [workload]\npattern = \"all_to_all\"\nflows = 60\narrival = \"poisson\"\nload = 0.6\n\
         size = {{ dist = \"uniform\", min = \"1KB\", max = \"200KB\" }}\n"
    );
    let out = run(&toml);
    assert_eq!(out.summary.flows_completed, 60);
    assert!(out.flows.iter().all(|f| f.bytes_delivered == f.size_bytes));
    assert_eq!(out.summary.packets_dropped, 0);
    let again = run(&toml);
    let fcts = |o: &RunOutput| o.flows.iter().map(|f| f.fct_s).collect::<Vec<_>>();
    assert_eq!(fcts(&out), fcts(&again));
    assert_eq!(out.summary.packets_sent, again.summary.packets_sent);
    out
}
