//! D3's per-port counters N, D and A under loss, quenching and
//! retransmission: at any moment they equal the sums
//! over the flows each port carries, and when every flow has closed they are
//! back at zero. `run_audited` asks every port's agent to check this.

use dcflow_scenario::{RunOutput, Scenario};

/// A 60-sender incast with deadlines on a star, 2% loss on the bottleneck in
/// both directions: SYNs, FINs, requests and their answers are lost and sent
/// again, and quenched flows leave before or after their SYN-ACK.
fn incast(protocol: &str, quenching: bool, stop: Option<&str>) -> String {
    let stop = stop.map(|s| format!("stop = \"{s}\"\n")).unwrap_or_default();
    format!(
        "seed = 7\n{stop}[topology]\nkind = \"star\"\nhosts = 61\n\
         [protocol]\nname = \"{protocol}\"\nquenching = {quenching}\n\
         [workload]\npattern = \"aggregation\"\nflows = 60\n\
         size = {{ dist = \"uniform\", min = \"2KB\", max = \"198KB\" }}\n\
         deadline = {{ dist = \"exponential\", mean = \"20ms\", min = \"3ms\" }}\n\
         [faults]\nloss = 0.02\ndirection = \"both\"\n"
    )
}

fn audit(toml: &str) -> (RunOutput, Vec<String>) {
    let s = Scenario::from_toml(toml).unwrap_or_else(|e| panic!("{e}"));
    dcflow_packet::run_audited(&s).unwrap()
}

#[test]
fn counters_equal_the_flows_carried_under_loss_and_quenching() {
    for (protocol, quenching) in [("d3", true), ("d3", false), ("rcp", false)] {
        // Mid-run, at several instants, and after the run.
        for stop in [Some("2ms"), Some("9ms"), Some("40ms"), None] {
            let (out, violations) = audit(&incast(protocol, quenching, stop));
            assert!(violations.is_empty(), "{protocol} quenching={quenching} stop={stop:?}: {violations:?}");
            if stop.is_none() {
                let s = &out.summary;
                assert_eq!(s.flows_completed + s.flows_terminated, 60, "{protocol}: every flow ends");
                assert!(s.retransmits > 0, "{protocol}: the loss must bite");
                if quenching {
                    assert!(s.flows_terminated > 0, "quenching must bite");
                }
            }
        }
    }
}

/// At most: data and an ACK for each packet of each flow, plus a request at
/// the base rate's pace (one 62-byte packet per 300 us) for as long as the
/// flow lives and an answer to each, plus handshakes, with 10% for
/// retransmissions. More is a request storm.
fn request_storm_bound(out: &RunOutput) -> f64 {
    let requests_per_s = 1_650_000.0 / (62.0 * 8.0);
    let per_flow = |size: u64, fct: f64| 2.0 * ((size as f64 / 1460.0).ceil() + fct * requests_per_s + 2.0);
    out.flows.iter().map(|f| per_flow(f.size_bytes, f.fct_s.unwrap_or(0.0))).sum::<f64>() * 1.1
}

/// 110 and 200 simultaneous RCP_dc / D3 flows into one
/// 1 Gbps port all finish (2 of 110 did, the rest livelocked with the link
/// full of header-only requests), without a request storm.
#[test]
fn a_hundred_and_more_simultaneous_flows_all_finish() {
    for protocol in ["rcp", "d3"] {
        for n in [110, 200] {
            let toml = format!(
                "seed = 3\nstop = \"5s\"\n[topology]\nkind = \"star\"\nhosts = {}\n\
                 [protocol]\nname = \"{protocol}\"\n\
                 [workload]\npattern = \"aggregation\"\nflows = {n}\n\
                 size = {{ dist = \"uniform\", min = \"2KB\", max = \"198KB\" }}\n\
                 deadline = {{ dist = \"fixed\", value = \"1s\" }}\n",
                n + 1
            );
            let (out, violations) = audit(&toml);
            assert!(violations.is_empty(), "{violations:?}");
            let s = &out.summary;
            assert_eq!(s.flows_completed, n as u64, "{protocol} with {n} flows");
            let bound = request_storm_bound(&out);
            assert!((s.packets_sent as f64) < bound, "{protocol} {n}: {} packets, bound {bound:.0}", s.packets_sent);
        }
    }
}
