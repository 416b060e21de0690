//! Facts that hold for every run: the optimal oracle against brute force,
//! hand-computed max-min rates on a multi-bottleneck network, conservation,
//! no flow faster than ideal, no link over capacity, determinism, and the
//! scenario checks that keep engines and protocols apart.

use crate::common::*;
use dcflow_scenario::Scenario;

/// A tiny xorshift: the tests' instances must not depend on other crates' RNGs.
struct Rng(u64);
impl Rng {
    fn next(&mut self) -> u64 {
        self.0 ^= self.0 << 13;
        self.0 ^= self.0 >> 7;
        self.0 ^= self.0 << 17;
        self.0
    }
    fn pick(&mut self, n: u64) -> u64 {
        self.next() % n
    }
}

/// Largest number of jobs (size, deadline) one machine can finish on time,
/// by trying every subset (a subset is feasible iff EDF meets all of it).
fn brute_force(jobs: &[(u64, u64)]) -> usize {
    let mut best = 0;
    for mask in 0u32..1 << jobs.len() {
        let mut set: Vec<(u64, u64)> = (0..jobs.len()).filter(|i| mask >> i & 1 == 1).map(|i| jobs[i]).collect();
        set.sort_by_key(|&(_, d)| d);
        let mut t = 0;
        if set.iter().all(|&(p, d)| {
            t += p;
            t <= d
        }) {
            best = best.max(set.len());
        }
    }
    best
}

#[test]
fn optimal_matches_brute_force_on_random_instances() {
    let mut rng = Rng(0x5eed);
    for _ in 0..40 {
        let n = 2 + rng.pick(6) as usize;
        let jobs: Vec<(u64, u64)> = (0..n).map(|_| (1 + rng.pick(5), 1 + rng.pick(12))).collect();
        let flows: Vec<F> = jobs.iter().map(|&(p, d)| F(p as f64, 0.0, Some(d as f64))).collect();
        let out = run(&star("optimal", "", &flows));
        assert_eq!(out.summary.deadline_met as usize, brute_force(&jobs), "{jobs:?}");
        // Everything kept finishes on time; everything else was dropped.
        for f in &out.flows {
            assert!(f.met_deadline == Some(true) || f.terminated, "{jobs:?}");
        }
    }
}

/// Two bottlenecks in a line (custom topology): hosts a, b, c, d; switches
/// s1, s2; a-s1, b-s1, s1-s2 (1 Gbps), s2-c (1 Gbps), s2-d (0.25 Gbps).
/// Flows: x a->c, y b->d, z b->c. Progressive filling: s2->d fills first
/// (0.25 for y); then s1->s2 (1 Gbps, three flows) leaves (1 - 0.25) / 2 =
/// 0.375 for x and z, below s2->c's 0.5: s2->c is not a bottleneck.
#[test]
fn fair_is_max_min_on_a_multi_bottleneck_network() {
    let toml = r#"
        engine = "fluid"
        [topology]
        kind = "custom"
        link_rate = "1Gbps"
        nodes = [
            { name = "a", kind = "host" }, { name = "b", kind = "host" },
            { name = "c", kind = "host" }, { name = "d", kind = "host" },
            { name = "s1", kind = "switch" }, { name = "s2", kind = "switch" },
        ]
        links = [
            { a = "a", b = "s1" }, { a = "b", b = "s1" }, { a = "s1", b = "s2" },
            { a = "s2", b = "c" }, { a = "s2", b = "d", rate = "250Mbps" },
        ]
        [protocol]
        name = "fair"
        [workload]
        pattern = "explicit"
        [[flows]]
        src = 0
        dst = 2
        size = "375MB"
        [[flows]]
        src = 1
        dst = 3
        size = "250MB"
        [[flows]]
        src = 1
        dst = 2
        size = "750MB"
    "#;
    let s = Scenario::from_toml(toml).unwrap_or_else(|e| panic!("{e}"));
    let out = run(&s);
    // x: 375 MB = 3 Gb at 0.375 Gbps -> 8 s; y: 2 Gb at 0.25 -> 8 s;
    // z: 6 Gb, 3 Gb sent by 8 s, then alone at 1 Gbps: 3 more seconds -> 11 s.
    assert_close(&finishes(&out), &[8.0, 8.0, 11.0]);
}

fn random_scenario(protocol: &str, seed: u64) -> Scenario {
    let toml = format!(
        r#"
        engine = "fluid"
        seed = {seed}
        [topology]
        kind = "fat_tree"
        k = 4
        link_rate = "1Gbps"
        [protocol]
        name = "{protocol}"
        [workload]
        pattern = "all_to_all"
        arrival = "poisson"
        load = 0.8
        flows = 300
        size = {{ dist = "uniform", min = "2KB", max = "400KB" }}
        deadline = {{ dist = "exponential", mean = "5ms", min = "1ms" }}
        [monitor]
        interval = "200us"
        links = []
        "#
    );
    Scenario::from_toml(&toml).unwrap_or_else(|e| panic!("{e}"))
}

#[test]
fn every_discipline_conserves_bytes_and_never_beats_ideal() {
    for p in ["fair", "srpt", "sjf", "edf", "fifo", "reservation", "optimal", "s3", "merp", "rcp", "d3"] {
        let out = run(&random_scenario(p, 7));
        let s = &out.summary;
        assert_eq!(s.flows_completed + s.flows_terminated, s.flows_total, "{p}: every flow has an outcome");
        for f in &out.flows {
            match f.fct_s {
                Some(fct) => {
                    assert!(fct >= f.ideal_fct_s * (1.0 - 1e-9), "{p}: flow {} beat its ideal", f.id);
                    assert_eq!(f.bytes_delivered, f.size_bytes, "{p}: flow {}", f.id);
                }
                None => assert!(f.terminated && f.bytes_delivered <= f.size_bytes, "{p}"),
            }
        }
        assert_eq!(s.packets_sent, 0);
        assert!(s.events >= 2 * s.flows_completed, "{p}: arrivals and completions count");
    }
}

#[test]
fn monitored_links_never_exceed_capacity() {
    for p in ["fair", "srpt", "reservation", "d3"] {
        let mut s = random_scenario(p, 3);
        let topo = s.build_topology().unwrap();
        let names: Vec<String> = topo.links.iter().map(|l| l.name.clone()).collect();
        s.monitor.as_mut().unwrap().links = names;
        let out = run(&s);
        for row in out.timeseries.unwrap() {
            let l = topo.link_by_name(&row.name).unwrap();
            let cap = topo.links[l as usize].rate.as_bps_f64();
            assert!(row.throughput_bps <= cap * (1.0 + 1e-6), "{p}: {} at {}: {}", row.name, row.time_s, row.throughput_bps);
        }
    }
}

#[test]
fn same_scenario_same_flows_table() {
    for p in ["fair", "srpt", "d3"] {
        let a = run(&random_scenario(p, 11));
        let b = run(&random_scenario(p, 11));
        assert_eq!(a.flows, b.flows, "{p}");
    }
}

#[test]
fn engines_and_protocols_are_checked() {
    let base = "[topology]\nkind = \"star\"\nhosts = 3\n[workload]\npattern = \"aggregation\"\nflows = 2\n";
    let e = Scenario::from_toml(&format!("[protocol]\nname = \"srpt\"\n{base}")).unwrap_err();
    assert_eq!(e.key, "protocol.name");
    assert!(e.message.contains("engine = \"fluid\""), "{e}");
    let e = Scenario::from_toml(&format!("engine = \"fluid\"\n[protocol]\nname = \"tcp\"\n{base}")).unwrap_err();
    assert_eq!(e.key, "engine");
    assert!(e.message.contains("fair") && e.message.contains("d3"), "{e}");
    let e = Scenario::from_toml(&format!("engine = \"fluid\"\n[protocol]\nname = \"fair\"\nearly_terminaton = true\n{base}"))
        .unwrap_err();
    assert!(e.to_string().contains("early_terminaton"), "{e}");
    let e = Scenario::from_toml(&format!("engine = \"fluid\"\n[fluid]\nequilibrium_interval = \"0ms\"\n{base}")).unwrap_err();
    assert_eq!(e.key, "fluid.equilibrium_interval");
    assert!(Scenario::from_toml(&format!("engine = \"fluid\"\n[protocol]\nname = \"rcp\"\n{base}")).is_ok());
}
