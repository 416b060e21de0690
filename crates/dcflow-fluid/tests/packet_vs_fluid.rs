//! PDQ Fig. 8's check: the flow-level model of RCP against the packet engine
//! on the same scenario. The gap is printed (`cargo test -- --nocapture`);
//! the assertion is loose: the fluid model has no queueing, no slow pacing
//! granularity and no capacity controller, so it may differ by tens of
//! percent per flow, but not in kind.

use dcflow_scenario::Scenario;

#[test]
fn rcp_fluid_tracks_rcp_packet_on_an_aggregation() {
    let toml = |engine: &str| {
        format!(
            r#"
            engine = "{engine}"
            seed = 3
            [topology]
            kind = "star"
            hosts = 9
            link_rate = "1Gbps"
            [protocol]
            name = "rcp"
            [workload]
            pattern = "aggregation"
            flows = 8
            size = {{ dist = "uniform", min = "20KB", max = "200KB" }}
            "#
        )
    };
    let packet = dcflow_packet::run(&Scenario::from_toml(&toml("packet")).unwrap()).unwrap();
    let fluid = dcflow_fluid::run(&Scenario::from_toml(&toml("fluid")).unwrap()).unwrap();
    let (p, f) = (packet.summary.fct_mean_s.unwrap(), fluid.summary.fct_mean_s.unwrap());
    let gap = (f - p) / p;
    println!("rcp mean FCT: packet {p:.6} s, fluid {f:.6} s, gap {:+.1}%", gap * 100.0);
    let (pm, fm) = (packet.summary.fct_max_s.unwrap(), fluid.summary.fct_max_s.unwrap());
    println!("rcp max FCT: packet {pm:.6} s, fluid {fm:.6} s, gap {:+.1}%", (fm - pm) / pm * 100.0);
    // All 8 flows share one 1 Gbps link: both engines are bound by the same
    // total bytes, so the last finish must agree closely; the mean depends on
    // how evenly the share is held and is allowed a wider band.
    assert!(((fm - pm) / pm).abs() < 0.10, "max FCT gap too large");
    assert!(gap.abs() < 0.15, "mean FCT gap too large");
}
