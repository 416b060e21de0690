//! Path choice at each switch and links that fail during a run.

use dcflow_scenario::{RunOutput, Scenario};

fn run(toml: &str) -> RunOutput {
    let s = Scenario::from_toml(toml).unwrap_or_else(|e| panic!("{e}\n{toml}"));
    dcflow_packet::run(&s).unwrap()
}

/// 15 hosts of a k = 4 fat tree send 300 KB each to host 0, starting
/// together: the flows from other pods cross the core.
fn fat_tree_incast(protocol: &str, extra: &str) -> String {
    format!(
        "seed = 3\n[topology]\nkind = \"fat_tree\"\nk = 4\n{extra}\n\
         [protocol]\nname = \"{protocol}\"\n\
         [workload]\npattern = \"aggregation\"\nflows = 15\nsize = {{ dist = \"fixed\", value = \"300KB\" }}\n"
    )
}

const PROTOCOLS: [&str; 6] = ["tcp", "dctcp", "pfabric", "pdq", "d3", "rcp"];

/// Hop-by-hop routing with ECMP hashes exactly as the per-flow path does:
/// a run that only routes hop by hop because a fault is scheduled after its
/// end gives the same flows, byte for byte, as the fixed-path run.
#[test]
fn hop_by_hop_ecmp_equals_fixed_paths() {
    for p in PROTOCOLS {
        let fixed = run(&fat_tree_incast(p, ""));
        let late_fault = "[[faults.events]]\nat = \"100s\"\nlink = \"core0->agg0_0\"\nstate = \"down\"\n";
        let routed = run(&format!("{}\n{late_fault}", fat_tree_incast(p, "")));
        assert_eq!(fixed.flows, routed.flows, "{p}");
        let (a, b) = (&fixed.summary, &routed.summary);
        assert_eq!((a.packets_sent, a.packets_dropped, a.packet_hops), (b.packets_sent, b.packets_dropped, b.packet_hops), "{p}");
    }
}

/// A core link fails mid-run and recovers: flows through it lose packets,
/// routing moves them after the convergence delay, and every flow completes
/// (TCP and DCTCP by retransmission, PDQ and D3 by their own loss recovery)
/// with exactly its bytes; the run is identical for a seed.
#[test]
fn flows_survive_a_link_failure() {
    let faults = "[faults]\nconvergence = \"1ms\"\n\
                  [[faults.events]]\nat = \"1ms\"\nlink = \"core0<->agg0_0\"\nstate = \"down\"\n\
                  [[faults.events]]\nat = \"20ms\"\nlink = \"core0<->agg0_0\"\nstate = \"up\"\n";
    for p in ["tcp", "dctcp", "pdq", "d3"] {
        let toml = format!("{}\n{faults}", fat_tree_incast(p, ""));
        let (out, violations) = dcflow_packet::run_audited(&Scenario::from_toml(&toml).unwrap()).unwrap();
        // The ports a rerouted flow left forget it (D3's counters, PDQ's lists).
        assert!(violations.is_empty(), "{p}: {violations:?}");
        let s = &out.summary;
        assert_eq!(s.flows_completed, 15, "{p}: {s:?}");
        assert!(s.packets_dropped_by_failure > 0, "{p}: the failure must hit a flow");
        assert!(s.reroutes > 0, "{p}: convergence must move a flow");
        assert!(s.packets_dropped >= s.packets_dropped_by_failure, "{p}");
        for f in &out.flows {
            assert_eq!(f.bytes_delivered, f.size_bytes, "{p}: flow {} delivered exactly its bytes", f.id);
            assert!(f.fct_s.unwrap() >= f.ideal_fct_s, "{p}: flow {} beat its ideal", f.id);
        }
        assert_eq!(run(&toml).flows, out.flows, "{p}: same seed, same run");
    }
}

/// A host whose only switch fails has no path left: its flows are reported
/// as `no_path` (terminated), not left to hang; the others complete.
#[test]
fn flows_without_a_path_are_reported() {
    let faults = "[[faults.events]]\nat = \"1ms\"\nnode = \"edge3_1\"\nstate = \"down\"\n";
    for p in ["tcp", "pdq"] {
        let out = run(&format!("{}\n{faults}", fat_tree_incast(p, "")));
        // Hosts 14 and 15 sit under edge3_1.
        for f in &out.flows {
            let cut = f.src == 14 || f.src == 15;
            assert_eq!(f.no_path, cut, "{p}: flow from host {}", f.src);
            assert_eq!(f.terminated, cut, "{p}");
            assert_eq!(f.finish_s.is_some(), !cut, "{p}");
        }
        assert_eq!(out.summary.status, dcflow_scenario::RunStatus::Completed, "{p}");
    }
}

/// Before routing converges, ECMP keeps hashing onto the dead link: with a
/// convergence delay longer than the run, the flows hashed there cannot
/// finish while the others do.
#[test]
fn ecmp_hashes_onto_a_dead_link_until_convergence() {
    let faults = "[faults]\nconvergence = \"1s\"\n\
                  [[faults.events]]\nat = \"0s\"\nlink = \"core0<->agg0_0\"\nstate = \"down\"\n";
    let out = run(&format!("stop = \"50ms\"\n{}\n{faults}", fat_tree_incast("tcp", "")));
    let done = out.flows.iter().filter(|f| f.finish_s.is_some()).count();
    assert!(done > 0 && done < 15, "{done} of 15 finished");
    assert_eq!(out.summary.reroutes, 0);
}

/// Every policy, under every protocol (those with switch state pin a path
/// per flow), moves all bytes and no flow beats its ideal.
#[test]
fn every_policy_conserves_bytes() {
    for routing in ["spray", "flowlet", "conga"] {
        for p in PROTOCOLS {
            let toml = format!(
                "seed = 5\n[topology]\nkind = \"leaf_spine\"\nleaves = 2\nspines = 2\nhosts_per_leaf = 4\nrouting = \"{routing}\"\n\
                 [protocol]\nname = \"{p}\"\n\
                 [workload]\npattern = \"all_to_all\"\narrival = \"poisson\"\nload = 0.6\nflows = 80\n\
                 size = {{ dist = \"uniform\", min = \"2KB\", max = \"400KB\" }}\n"
            );
            let out = run(&toml);
            assert_eq!(out.summary.flows_completed, 80, "{routing} {p}");
            for f in &out.flows {
                assert_eq!(f.bytes_delivered, f.size_bytes, "{routing} {p}");
                assert!(f.fct_s.unwrap() >= f.ideal_fct_s, "{routing} {p}: flow {} beat its ideal", f.id);
            }
        }
    }
}

/// The monitored link's series shows the failure: down (and carrying
/// nothing) from the failure to the recovery, up before and after.
#[test]
fn the_time_series_shows_the_failed_interval() {
    let toml = format!(
        "{}\n[monitor]\nlinks = [\"core0->agg0_0\"]\ninterval = \"1ms\"\n\
         [[faults.events]]\nat = \"2ms\"\nlink = \"core0<->agg0_0\"\nstate = \"down\"\n\
         [[faults.events]]\nat = \"6ms\"\nlink = \"core0<->agg0_0\"\nstate = \"up\"\n",
        fat_tree_incast("tcp", "")
    );
    let out = run(&toml);
    let rows: Vec<_> = out.timeseries.unwrap().into_iter().filter(|r| r.series == "link").collect();
    assert!(rows.len() > 6);
    // A change at a sample's instant comes first (samples at 2 ms: down; at 6 ms: up).
    for r in &rows {
        let down = r.time_s > 0.0015 && r.time_s < 0.0055;
        assert_eq!(r.up, Some(!down), "t = {}", r.time_s);
        if down && r.time_s > 0.0025 {
            assert_eq!(r.throughput_bps, 0.0, "t = {}", r.time_s);
        }
    }
}
