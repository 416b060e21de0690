//! M-PDQ (PDQ §6) on the packet engine, on BCube(2,3) as in §5.7 / Fig. 11:
//! 16 servers with 4 ports each, 2-port switches, 1 Gbps links.

use dcflow_core::Dur;
use dcflow_proto::ProtocolConfig;
use dcflow_scenario::{MonitorConfig, RunOutput, Scenario};
use std::path::PathBuf;

fn scenario(toml: &str) -> Scenario {
    Scenario::from_toml(toml).unwrap_or_else(|e| panic!("{e}"))
}

fn run(toml: &str) -> RunOutput {
    dcflow_packet::run(&scenario(toml)).unwrap()
}

fn bcube(protocol: &str, flows: &str) -> String {
    format!(
        "[topology]\nkind = \"bcube\"\nn = 2\nk = 3\n[protocol]\nname = \"pdq\"\n{protocol}\n\
         [workload]\npattern = \"explicit\"\n{flows}"
    )
}

fn flow(src: u32, dst: u32, size: &str, start: &str) -> String {
    format!("[[flows]]\nsrc = {src}\ndst = {dst}\nsize = \"{size}\"\nstart = \"{start}\"\n")
}

/// Every flow finished with exactly its bytes, never before its ideal.
fn check_conservation(out: &RunOutput) {
    for f in &out.flows {
        assert_eq!(f.bytes_delivered, f.size_bytes, "flow {} delivered {} of {}", f.id, f.bytes_delivered, f.size_bytes);
        let fct = f.fct_s.unwrap_or_else(|| panic!("flow {} unfinished", f.id));
        assert!(fct >= f.ideal_fct_s, "flow {} beat its ideal: {fct} < {}", f.id, f.ideal_fct_s);
    }
}

fn root() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../..")
}

/// `subflows = 1` is plain PDQ: the golden PDQ scenarios, with the key set
/// explicitly, reproduce their checked-in summaries exactly.
#[test]
fn one_subflow_is_single_path_pdq() {
    for name in ["pdq-star", "pdq-tree", "pdq-fattree"] {
        let dir = root().join("tests/golden");
        let text = std::fs::read_to_string(dir.join(format!("{name}.toml"))).unwrap();
        let mut s = scenario(&text);
        match &mut s.protocol {
            ProtocolConfig::Pdq(c) => {
                assert_eq!(c.subflows, 1, "default");
                c.subflows = 1;
            }
            _ => panic!("{name} is a PDQ scenario"),
        }
        let out = dcflow_packet::run(&s).unwrap();
        let got = serde_json::to_value(&out.summary).unwrap();
        let want: serde_json::Value =
            serde_json::from_str(&std::fs::read_to_string(dir.join(format!("{name}.json"))).unwrap()).unwrap();
        for (k, v) in want.as_object().unwrap() {
            if k == "wall_s" {
                continue;
            }
            let g = &got[k.as_str()];
            match (v.as_f64(), g.as_f64()) {
                (Some(a), Some(b)) => assert!((a - b).abs() <= 1e-9 * a.abs().max(1e-30), "{name}.{k}: {b} != {a}"),
                _ => assert_eq!(g, v, "{name}.{k}"),
            }
        }
    }
}

/// A lone 1 MB flow 0 -> 15 (every address digit differs, so BuildPathSet's
/// k+1 = 4 parallel paths are all shortest, 4 server hops, each leaving by
/// another server port): n subflows use n ports, so the flow finishes nearly
/// n times faster, less the fixed handshake and path delay.
#[test]
fn lone_flow_speeds_up_with_the_ports_it_uses() {
    let fct: Vec<f64> = (1..=4)
        .map(|n| {
            let out = run(&bcube(&format!("subflows = {n}"), &flow(0, 15, "1MB", "0ms")));
            check_conservation(&out);
            assert_eq!(out.summary.packets_dropped, 0);
            let f = &out.flows[0];
            // Within 25% of the multipath ideal (size / (n x 1 Gbps) + path
            // delay): the handshake RTT and per-packet header make the rest.
            assert!(f.fct_s.unwrap() <= f.ideal_fct_s * 1.25, "n = {n}: {f:?}");
            f.fct_s.unwrap()
        })
        .collect();
    eprintln!("lone 1 MB flow, FCT for 1..4 subflows: {fct:?}");
    for n in 1..4 {
        assert!(fct[n] < fct[n - 1], "more subflows, faster: {fct:?}");
    }
    // Measured 1.87, 2.63, 3.31 for 2, 3, 4 subflows (ideal 2, 3, 4 less
    // the ~0.7 ms of handshake and path delay every variant pays).
    let r3 = fct[0] / fct[2];
    assert!((2.4..=3.0).contains(&r3), "3 subflows speed-up {r3}");
    let r4 = fct[0] / fct[3];
    assert!((3.0..=4.0).contains(&r4), "4 subflows speed-up {r4}");
}

/// Load shifting (§6): flow A (0 -> 15, 6 MB, three subflows on paths 0-2)
/// and, from 2 ms, a more critical flow B (1 -> 8, 3 MB) whose subflow 1
/// shares one link (server 0's level-3 port) with A's subflow 0 only; every
/// other pair of their paths is link-disjoint. B pauses A's subflow 0; its
/// load moves to A's sending subflows, which carry it, and A completes
/// sooner than when shifting is off (the paused subflow keeps its load until
/// B is done).
#[test]
fn paused_subflow_load_moves_to_the_sending_ones() {
    let flows = flow(0, 15, "6MB", "0ms") + &flow(1, 8, "3MB", "2ms");
    let shifting = run(&bcube("subflows = 3", &flows));
    let frozen = run(&bcube("subflows = 3\nshift_period = 1e9", &flows));
    check_conservation(&shifting);
    check_conservation(&frozen);
    let a = shifting.flows[0].fct_s.unwrap();
    let a_frozen = frozen.flows[0].fct_s.unwrap();
    let b = shifting.flows[1].fct_s.unwrap();
    eprintln!("A: {a} s with shifting, {a_frozen} s without; B: {b} s (ideal {})", shifting.flows[1].ideal_fct_s);
    // Measured 21.4 ms vs 26.0 ms. With shifting, A's two sending subflows
    // carry its 6 MB less what subflow 0 sent before B: ~5.3 MB / 2 Gbps.
    assert!(a < 0.9 * a_frozen, "shifting {a} vs frozen {a_frozen}");
    // B is served first where it meets A (it is more critical).
    assert!(b < 1.2 * shifting.flows[1].ideal_fct_s + 1e-3, "B took {b}");
}

/// `subflow_paths = "ecmp"` (§6: "the switch uses flow-level ECMP to assign
/// subflows to paths"): each subflow hashes onto a shortest path. Servers 0
/// and 1 differ in one address digit, so they have one shortest path: ECMP
/// puts all four subflows on it and the flow is no faster than single-path
/// PDQ, while BuildPathSet's parallel paths (one direct, three detours of
/// two more hops) use four ports, and "shortest" keeps the direct one only.
#[test]
fn ecmp_subflows_share_the_only_shortest_path() {
    let fct = |protocol: &str| {
        let out = run(&bcube(protocol, &flow(0, 1, "1MB", "0ms")));
        check_conservation(&out);
        out.flows[0].fct_s.unwrap()
    };
    let single = fct("subflows = 1");
    let ecmp = fct("subflows = 4\nsubflow_paths = \"ecmp\"");
    let parallel = fct("subflows = 4");
    eprintln!("lone 1 MB flow 0 -> 1: {single} s single path, {ecmp} s 4 ECMP subflows, {parallel} s 4 parallel");
    assert!(ecmp > 0.95 * single, "one path, one port: {ecmp} vs {single}");
    assert!(parallel < 0.5 * single, "four ports: {parallel} vs {single}");
    // `subflow_paths = "shortest"` keeps BuildPathSet's direct paths only:
    // one here, so it is single-path PDQ on the same path, to the picosecond.
    assert_eq!(fct("subflows = 4\nsubflow_paths = \"shortest\""), single);
    // 0 -> 3 differ in two digits: two direct paths, two subflows.
    let two = run(&bcube("subflows = 4\nsubflow_paths = \"shortest\"", &flow(0, 3, "1MB", "0ms")));
    let two_parallel = run(&bcube("subflows = 2", &flow(0, 3, "1MB", "0ms")));
    check_conservation(&two);
    assert_eq!(two.flows[0].fct_s, two_parallel.flows[0].fct_s, "the two direct paths come first in BuildPathSet");
    let err = Scenario::from_toml(&bcube("subflow_paths = \"random\"", &flow(0, 1, "1MB", "0ms"))).unwrap_err();
    assert!(err.to_string().contains("expected one of `parallel`, `shortest`, `ecmp`"), "{err}");
}

/// The Fig. 11 scenario file (examples/mpdq-bcube.toml), shortened, with
/// every link monitored: flows deliver exactly their size, never beat their
/// (multipath) ideal, and no link carries more than its rate.
#[test]
fn fig11_scenario_keeps_the_invariants() {
    let text = std::fs::read_to_string(root().join("examples/mpdq-bcube.toml")).unwrap();
    let mut s = scenario(&text);
    s.workload.flows = Some(24);
    let topo = s.build_topology().unwrap();
    let interval = Dur::us(50);
    s.monitor = Some(MonitorConfig { interval, links: topo.links.iter().map(|l| l.name.clone()).collect(), flows: true });
    let out = dcflow_packet::run(&s).unwrap();
    assert_eq!(out.summary.flows_completed, out.summary.flows_total);
    check_conservation(&out);
    let secs = interval.as_secs_f64();
    for row in out.timeseries.as_ref().unwrap().iter().filter(|r| r.series == "link") {
        let rate = topo.links[topo.link_by_name(&row.name).unwrap() as usize].rate.as_bps_f64();
        assert!(row.throughput_bps * secs <= rate * secs + 8.0 + 1e-6, "link {} at {} bps", row.name, row.throughput_bps);
    }
}
