//! L2DCT on the packet engine (baselines.md "L2DCT"): least attained
//! service without switch changes, so a young flow takes the larger share.

use dcflow_scenario::{RunOutput, Scenario};

/// An old flow (20 MB from 0 ms) and a young one (20 MB from 50 ms) on one
/// 1 Gbps port, run until `stop_ms`.
fn old_and_young(protocol: &str, stop_ms: u32) -> RunOutput {
    let toml = format!(
        "seed = 1\nstop = \"{stop_ms}ms\"\n[topology]\nkind = \"star\"\nhosts = 3\nlink_rate = \"1Gbps\"\n\
         [protocol]\nname = \"{protocol}\"\n[workload]\npattern = \"explicit\"\n\
         [[flows]]\nsrc = 1\ndst = 0\nsize = \"20MB\"\nstart = \"0ms\"\n\
         [[flows]]\nsrc = 2\ndst = 0\nsize = \"20MB\"\nstart = \"50ms\"\n"
    );
    dcflow_packet::run(&Scenario::from_toml(&toml).unwrap_or_else(|e| panic!("{e}"))).unwrap()
}

/// The young flow's share of what both delivered in the 8 ms after it
/// starts, while it is younger than L2DCT's s_max (1 MB).
fn young_share(protocol: &str) -> f64 {
    let (before, after) = (old_and_young(protocol, 50), old_and_young(protocol, 58));
    let old = (after.flows[0].bytes_delivered - before.flows[0].bytes_delivered) as f64;
    let young = after.flows[1].bytes_delivered as f64;
    assert!(young < 1_000_000.0, "young flow still below s_max: {young}");
    young / (old + young)
}

/// The younger flow (fewer bytes sent) gets more than half the link under
/// L2DCT, and more than under DCTCP (which shares it equally once the young
/// flow's slow start is over).
#[test]
fn the_younger_flow_gets_the_larger_share() {
    let (l2dct, dctcp) = (young_share("l2dct"), young_share("dctcp"));
    assert!(l2dct > 0.5, "L2DCT young share {l2dct:.3}");
    assert!(l2dct > dctcp, "L2DCT {l2dct:.3} vs DCTCP {dctcp:.3}");
}
