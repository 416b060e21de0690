//! PIAS and Karuna on the packet engine: the MLFQ lets a short flow pass a
//! long one without knowing sizes, Karuna's MCP sends a deadline
//! flow at the rate its deadline needs and leaves the rest,
//! and both conserve bytes and repeat themselves under a seed.

use dcflow_scenario::{RunOutput, Scenario};

fn run(toml: &str) -> RunOutput {
    dcflow_packet::run(&Scenario::from_toml(toml).unwrap_or_else(|e| panic!("{e}"))).unwrap()
}

/// A 50 KB flow into host 0 of a 1 Gbps star at 10 ms, beside a 20 MB
/// flow from 0 ms or alone: its FCT.
fn short_flow_fct(protocol: &str, beside_long: bool) -> f64 {
    let long = if beside_long { "[[flows]]\nsrc = 1\ndst = 0\nsize = \"20MB\"\n" } else { "" };
    let out = run(&format!(
        "seed = 1\n[topology]\nkind = \"star\"\nhosts = 3\n[protocol]\nname = \"{protocol}\"\n\
         [workload]\npattern = \"explicit\"\n{long}\
         [[flows]]\nsrc = 2\ndst = 0\nsize = \"50KB\"\nstart = \"10ms\"\n"
    ));
    out.flows.last().unwrap().fct_s.expect("finished")
}

/// Under PIAS the 50 KB flow stays in the top class (below the first
/// threshold, 67 KB) while the long flow has been demoted: it finishes
/// within 10% of its FCT alone (slow start included; strict priority does
/// not preempt, so a window may wait for one long-flow packet, 12 us at
/// 1 Gbps); under DCTCP it waits behind the long flow's standing queue.
#[test]
fn a_short_flow_beside_a_long_one_finishes_close_to_its_ideal() {
    let alone = short_flow_fct("pias", false);
    let (pias, dctcp) = (short_flow_fct("pias", true), short_flow_fct("dctcp", true));
    assert!(pias < 1.1 * alone, "PIAS {pias:.6} s vs alone {alone:.6} s");
    assert!(dctcp > 1.2 * alone, "DCTCP {dctcp:.6} s vs alone {alone:.6} s");
}

fn poisson(protocol: &str, extra: &str, seed: u64) -> String {
    format!(
        "seed = {seed}\n[topology]\nkind = \"leaf_spine\"\nleaves = 2\nhosts_per_leaf = 4\nspines = 2\nbuffer = \"200KB\"\n\
         [protocol]\nname = \"{protocol}\"\n[workload]\npattern = \"all_to_all\"\narrival = \"poisson\"\n\
         load = 0.7\nflows = 300\nsize = {{ dist = \"cdf\", name = \"web_search\", max = \"2MB\" }}\n{extra}"
    )
}

const KARUNA_TYPES: &str = "deadline = { dist = \"uniform\", min = \"5ms\", max = \"25ms\", only_below = \"200KB\" }\n\
                            deadline_fraction = 0.3\nknown_size_fraction = 0.5\n";

/// Every flow completes with exactly its bytes, none before its ideal.
#[test]
fn pias_and_karuna_conserve_bytes_under_load() {
    for (p, extra) in [("pias", ""), ("karuna", KARUNA_TYPES)] {
        let out = run(&poisson(p, extra, 1));
        assert_eq!(out.summary.flows_completed, out.summary.flows_total, "{p}: every flow completes");
        for f in &out.flows {
            assert_eq!(f.bytes_delivered, f.size_bytes, "{p}: flow {}", f.id);
            assert!(f.fct_s.unwrap() >= f.ideal_fct_s, "{p}: flow {} beat its ideal", f.id);
        }
        if p == "karuna" {
            let deadline = out.flows.iter().filter(|f| f.deadline_s.is_some()).count();
            assert!(deadline > 0 && deadline < out.flows.len(), "{p}: {deadline} deadline flows");
        }
    }
}

#[test]
fn pias_and_karuna_repeat_under_a_seed() {
    for (p, extra) in [("pias", ""), ("karuna", KARUNA_TYPES)] {
        let a = run(&poisson(p, extra, 3)).flows;
        assert_eq!(a, run(&poisson(p, extra, 3)).flows, "{p}: same seed, same flows");
        assert_ne!(a, run(&poisson(p, extra, 4)).flows, "{p}: another seed, other flows");
    }
}

/// A 2 MB deadline flow due in 40 ms (400 Mbps needed) beside a 20 MB flow
/// of unknown size on 1 Gbps: under Karuna the deadline flow meets its
/// deadline at about the rate it needs, not the link's, so it finishes
/// late in its window and the other flow keeps the rest; under PIAS (no
/// deadline awareness) it is demoted like any long flow.
#[test]
fn mcp_meets_the_deadline_with_the_bandwidth_it_needs() {
    let out = |p: &str, extra: &str| {
        run(&format!(
            "seed = 1\n[topology]\nkind = \"star\"\nhosts = 3\n[protocol]\nname = \"{p}\"\n\
             [workload]\npattern = \"explicit\"\n{extra}\
             [[flows]]\nsrc = 1\ndst = 0\nsize = \"20MB\"\n\
             [[flows]]\nsrc = 2\ndst = 0\nsize = \"2MB\"\nstart = \"5ms\"\ndeadline = \"40ms\"\n"
        ))
    };
    let karuna = out("karuna", "known_size_fraction = 0.0\n");
    let d = &karuna.flows[1];
    assert_eq!(d.met_deadline, Some(true), "{d:?}");
    let fct = d.fct_s.unwrap();
    assert!(fct > 0.5 * 0.040, "MCP took {fct:.4} s of its 40 ms: no faster than needed");
    // Meanwhile the long flow got most of the link.
    let long = &karuna.flows[0];
    assert!(long.fct_s.unwrap() < 0.2, "long flow {:?}", long.fct_s);
}
