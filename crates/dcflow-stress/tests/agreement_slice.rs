//! The slice of the agreement matrix that `make test` runs (in release,
//! about 10 s on 2 cores): every pair on the k = 4 fat-tree at load 0.6
//! with web-search sizes, and on the leaf-spine at load 0.3 with capped
//! data-mining sizes. `make stress` runs the whole matrix (docs/stress.md,
//! "Agreement with the flow level").

use dcflow_stress::agreement::{self, Pair};
use dcflow_stress::matrix::Fabric;
use dcflow_stress::slice_complaints;

/// Cells of the slice that fail today, as (pair, scenario), each with its
/// measured reason; the test says so when a listed cell passes, so that it
/// is removed here. Nothing else may fail.
const KNOWN_FAILURES: &[(&str, &str)] = &[
    // RCP_dc and D3 (1.45 and 1.26 x fair): D3's capacity controller has no
    // upper bound (D3 §4.4) and winds up at ports that other links
    // bottleneck; the next flow there is granted C / N and the port's queue
    // grows to MBs before C falls to 0 (docs/fidelity.md, "The sender's own
    // link": capacity_max = 1.2 closes 1.39 -> 1.12 of the way on the
    // ordinary fat-tree workload there). The rest is D3's per-port share
    // counting flows bottlenecked elsewhere.
    ("rcp", "fattree-0.6-web_search"),
    ("d3", "fattree-0.6-web_search"),
    ("rcp", "leafspine-0.3-data_mining"),
    ("d3", "leafspine-0.3-data_mining"),
    // PDQ (1.3 x srpt): the hand-over between flows at every PDQ port (an
    // RTT, and Dampening's RTT), and a flow paused further on sending, for
    // an RTT, at a rate the switches before the pausing one never granted
    // (Algorithm 1's first line; paused_elsewhere = "cap" passes this cell:
    // docs/fidelity-pdq.md, "Flows paused elsewhere").
    ("pdq", "fattree-0.6-web_search"),
    // S3 with deadlines on data mining: the flows both engines complete
    // last under 1 ms at the flow level, where a handshake and one base
    // RTT (0.26-0.44 ms) are most of the gap (docs/stress.md).
    ("s3", "leafspine-0.3-data_mining"),
    // MERP: with more than two flows at a port its DETs exceed the (1 - α)C
    // left to them and the pushout queues drop them (MERP §4.3 accepts
    // this), so a postponed flow learns its turn late and the port idles
    // between flows (docs/fidelity.md, "The sender's own link", "Fig. 5").
    ("merp", "fattree-0.6-web_search"),
    ("merp", "leafspine-0.3-data_mining"),
];

/// Release only (`make test-stress`): `cargo test --workspace` builds debug,
/// where the slice would take minutes.
#[test]
#[cfg_attr(debug_assertions, ignore = "release only: make test-stress")]
fn every_pair_agrees_with_the_flow_level_but_for_the_known_failures() {
    let [web_search, data_mining] = agreement::SIZES else { panic!("two size distributions") };
    let scenarios =
        [agreement::scenario(Fabric::FatTree, 0.6, *web_search), agreement::scenario(Fabric::LeafSpine, 0.3, *data_mining)];
    let pairs: Vec<&'static Pair> = agreement::PAIRS.iter().collect();
    let cells = agreement::run_matrix(&pairs, &scenarios, 2, &|_, _, _| {});
    let complaints = slice_complaints(&cells, KNOWN_FAILURES);
    assert!(complaints.is_empty(), "agreement slice:\n{}", complaints.join("\n"));
}
