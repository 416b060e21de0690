//! Invariants on every golden scenario (tests/golden/*.toml), with every link
//! and flow monitored: no flow finishes before its ideal FCT, completed flows
//! deliver exactly their size, no link carries more than its rate over any
//! monitor interval, and a run is a pure function of (scenario, seed).

use dcflow_core::Dur;
use dcflow_scenario::{MonitorConfig, RunOutput, Scenario};
use std::path::PathBuf;

const INTERVAL_US: u64 = 50;

fn golden_dir() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../../tests/golden")
}

fn golden_scenarios() -> Vec<(String, Scenario)> {
    let mut out: Vec<(String, Scenario)> = std::fs::read_dir(golden_dir())
        .expect("tests/golden exists")
        .filter_map(|e| {
            let path = e.ok()?.path();
            (path.extension()? == "toml").then_some(path)
        })
        .map(|path| {
            let text = std::fs::read_to_string(&path).unwrap();
            let s = Scenario::from_toml(&text).unwrap_or_else(|e| panic!("{}: {e}", path.display()));
            (path.file_name().unwrap().to_string_lossy().into_owned(), s)
        })
        .collect();
    out.sort_by(|a, b| a.0.cmp(&b.0));
    assert!(!out.is_empty(), "no golden scenarios found");
    out
}

/// The scenario with every link and every flow monitored.
fn watch_everything(mut s: Scenario) -> Scenario {
    let topo = s.build_topology().unwrap();
    s.monitor = Some(MonitorConfig {
        interval: Dur::us(INTERVAL_US),
        links: topo.links.iter().map(|l| l.name.clone()).collect(),
        flows: true,
    });
    s
}

fn check_invariants(name: &str, s: &Scenario, out: &RunOutput) {
    for f in &out.flows {
        assert!(f.bytes_delivered <= f.size_bytes, "{name}: flow {} over-delivered", f.id);
        if let Some(fct) = f.fct_s {
            assert!(fct >= f.ideal_fct_s, "{name}: flow {} beat its ideal: {fct} < {}", f.id, f.ideal_fct_s);
            assert_eq!(f.bytes_delivered, f.size_bytes, "{name}: flow {} finished short", f.id);
        }
    }
    let topo = s.build_topology().unwrap();
    let secs = Dur::us(INTERVAL_US).as_secs_f64();
    for row in out.timeseries.as_ref().unwrap().iter().filter(|r| r.series == "link") {
        let rate = topo.links[topo.link_by_name(&row.name).unwrap() as usize].rate.as_bps_f64();
        // Samples count exactly the bytes serialized by the sample time; the
        // rounding of a partly serialized packet to whole bytes gives 1 B slack.
        let limit = rate * secs + 8.0;
        assert!(
            row.throughput_bps * secs <= limit + 1e-6,
            "{name}: link {} carried {} bps at t={}",
            row.name,
            row.throughput_bps,
            row.time_s
        );
    }
}

#[test]
fn golden_runs_keep_the_invariants() {
    for (name, s) in golden_scenarios() {
        let s = watch_everything(s);
        let out = dcflow_packet::run(&s).unwrap();
        assert_eq!(out.summary.flows_completed, out.summary.flows_total, "{name}: every golden flow completes");
        check_invariants(&name, &s, &out);
    }
}

#[test]
fn same_seed_same_flows_other_seed_other_flows() {
    for (name, s) in golden_scenarios().into_iter().filter(|(n, _)| n.contains("fattree")) {
        let a = dcflow_packet::run(&s).unwrap().flows;
        let b = dcflow_packet::run(&s).unwrap().flows;
        assert_eq!(a, b, "{name}: same seed must give identical flows");
        let mut other = s.clone();
        other.seed += 1;
        let c = dcflow_packet::run(&other).unwrap().flows;
        assert_ne!(a, c, "{name}: another seed must give other flows");
    }
}
