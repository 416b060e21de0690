//! The slice of the stress matrix that `make test` runs (optimized, under a
//! minute on 2 cores): every protocol on a 100-sender incast with deadlines,
//! on the lossy fat-tree at load 0.9 and on the fat-tree whose core link
//! and switch fail and recover, and on the 500-sender incast the protocols
//! of [`INCAST_500`]. `make stress` runs the whole matrix.

use dcflow_stress::matrix::{self, StressScenario};
use dcflow_stress::{run_matrix, slice_complaints, CellResult};

/// Cells of the slice that fail today, as (protocol, scenario), each with its
/// measured reason; the test says so when a listed cell passes, so that it
/// is removed here. Nothing else may fail.
const KNOWN_FAILURES: &[(&str, &str)] = &[
    // RCP_dc ends every flow, late: 2.9 x the fair makespan at 100 flows
    // (D3's capacity controller under a synchronized incast, and one
    // base-rate request per flow per RTT; docs/fidelity.md, "D3 and RCP_dc
    // at hundreds of flows").
    ("rcp", "incast-100-deadline"),
    // S3 ends every flow, late (2.4 x the fair makespan): without PDQ's
    // Early Start (S3 describes none; early_start_k = 0) the link idles for
    // about an RTT at every switch between flows (docs/fidelity-s3.md).
    ("s3", "fattree-0.9-loss"),
    // MERP ends every flow, late (1.5 x the fair makespan at load 0.9 with
    // loss, 1.2 x with the link failure): a postponed flow probes at
    // (1 - alpha)C, one DET per 320 us at alpha = 0.999, so the flow next in
    // line often learns it is second too late for early start and the link
    // idles about an RTT at each switch between short flows (as in Fig. 14:
    // 78% against the paper's 91.8%; docs/fidelity.md, "MERP").
    ("merp", "fattree-0.9-loss"),
    ("merp", "fattree-0.6-linkfail"),
    // pHost ends every flow, late (1.39 x the end bound, 2.8 x the fair
    // makespan): with the paper's free tokens (one BDP for every flow) the
    // 500 senders' first bursts, ~3,500 high-priority packets, queue at the
    // receiver's port for tens of ms; the destination's retransmission
    // rounds (9 MTU times) and downgrades fire long before its tokened
    // packets get past them, and the duplicates take the port. YAPS's rule
    // (free tokens only for flows of at most 8 packets) ends it in 1.15 x
    // the fair makespan at 200 senders (docs/fidelity-phost.md).
    ("phost", "incast-500-deadline"),
];

/// The protocols whose switches compute explicit rates, and pFabric: the
/// ones a 500-flow incast has livelocked. Not RCP_dc and D3 without
/// quenching, which fail there in the whole matrix (late, and stalled with
/// 451 hopeless flows at the base rate: docs/stress.md) and would take a
/// quarter of the slice's time to fail again.
const INCAST_500: &[&str] = &["d3-quench", "pdq-full", "m-pdq", "pfabric", "s3", "merp", "phost", "homa"];

fn run(protocols: &[&str], scenario: StressScenario) -> Vec<CellResult> {
    let protocols: Vec<_> =
        protocols.iter().map(|l| *matrix::protocol_named(l).unwrap_or_else(|| panic!("no protocol {l}"))).collect();
    run_matrix(&protocols, &[scenario], 2, &|_, _, _| {})
}

/// Release only (`make test-stress`): `cargo test --workspace` builds debug,
/// where the slice would take many minutes.
#[test]
#[cfg_attr(debug_assertions, ignore = "release only: make test-stress")]
fn the_slice_passes_but_for_the_known_failures() {
    let every: Vec<&str> = matrix::PROTOCOLS.iter().map(|p| p.label).collect();
    let mut cells = run(&every, matrix::incast(100, true, false));
    cells.extend(run(&every, matrix::poisson(matrix::Fabric::FatTree, 0.9, true)));
    cells.extend(run(&every, matrix::link_failure(0.6)));
    cells.extend(run(INCAST_500, matrix::incast(500, true, false)));

    let complaints = slice_complaints(&cells, KNOWN_FAILURES);
    assert!(complaints.is_empty(), "stress slice:\n{}", complaints.join("\n"));
}
