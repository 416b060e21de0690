//! Releasing a quiet flow's endpoints changes nothing a run does
//! (`endpoints.rs`): a run that samples its flows keeps every endpoint to
//! the end, one that does not releases them, and both give the same flows
//! table and the same counts, lossy runs (retransmissions, timeouts, FINs
//! still in flight after a flow's outcome) included.

use dcflow_scenario::{RunOutput, Scenario};

fn run(protocol: &str, keep_endpoints: bool) -> RunOutput {
    let monitor = if keep_endpoints { "[monitor]\ninterval = \"1ms\"\nflows = true\n" } else { "" };
    let toml = format!(
        "seed = 3\n[topology]\nkind = \"fat_tree\"\nk = 4\n[protocol]\nname = \"{protocol}\"\n\
         [workload]\npattern = \"all_to_all\"\narrival = \"poisson\"\nload = 0.6\nflows = 100\n\
         size = {{ dist = \"cdf\", name = \"data_mining\" }}\n[faults]\nloss = 0.01\n{monitor}"
    );
    dcflow_packet::run(&Scenario::from_toml(&toml).unwrap_or_else(|e| panic!("{e}"))).unwrap()
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
