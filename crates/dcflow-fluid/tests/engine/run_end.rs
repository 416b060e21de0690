//! How a fluid run ends: `status`, and `sim_time_s` and
//! `utilization` over the first flow's start to the last outcome or `stop`.

use dcflow_scenario::{RunOutput, RunStatus, Scenario};

fn run(extra: &str, start: &str) -> RunOutput {
    let toml = format!(
        "engine = \"fluid\"\n{extra}\n[topology]\nkind = \"star\"\nhosts = 3\n[protocol]\nname = \"fair\"\n\
         [workload]\npattern = \"explicit\"\n[[flows]]\nsrc = 1\ndst = 0\nsize = \"1MB\"\nstart = \"{start}\"\n\
         [[flows]]\nsrc = 2\ndst = 0\nsize = \"500KB\"\nstart = \"{start}\"\n"
    );
    dcflow_fluid::run(&Scenario::from_toml(&toml).unwrap_or_else(|e| panic!("{e}"))).unwrap()
}

/// Fair sharing keeps the bottleneck full from the first start to the last
/// delivery (less the propagation tail), wherever the flows sit in time.
#[test]
fn completed_run_ends_with_its_last_flow_and_measures_from_the_first_start() {
    let (early, late) = (run("", "0s"), run("", "1s"));
    for out in [&early, &late] {
        let last = out.flows.iter().filter_map(|f| f.finish_s).fold(0.0, f64::max);
        assert_eq!(out.summary.status, RunStatus::Completed);
        assert_eq!(out.summary.sim_time_s, last);
        assert_eq!(out.summary.utilization_links, ["sw->h0"]);
        assert!(out.summary.utilization > 0.95, "{}", out.summary.utilization);
    }
    assert!((early.summary.utilization - late.summary.utilization).abs() < 1e-6);
}

#[test]
fn stop_ends_the_run_at_stop() {
    let out = run("stop = \"3ms\"", "0s");
    assert_eq!(out.summary.status, RunStatus::Stopped);
    assert_eq!(out.summary.sim_time_s, 0.003);
    assert!(out.summary.utilization > 0.95, "{}", out.summary.utilization);
}
