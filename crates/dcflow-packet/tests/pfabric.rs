//! pFabric end to end (Alizadeh et al., SIGCOMM'13): facts of its priority
//! scheduling a reader can check by hand.

use dcflow_scenario::{RunOutput, Scenario};

fn run(toml: &str) -> RunOutput {
    let s = Scenario::from_toml(toml).unwrap_or_else(|e| panic!("{e}"));
    dcflow_packet::run(&s).unwrap()
}

/// A 1 MB flow 1 -> 0 and three 30 KB flows 0 -> 1 share no data path: the
/// small flows' data meets only the large flow's ACKs (host 0's NIC, the
/// switch port to host 1). ACKs at the highest priority pass the small flows'
/// data, so the large flow is unaffected (within the 4% of the lone-flow
/// sanity test) and nothing is lost (3 windows of 7 packets fit the 24-slot
/// ports; the third small flow may still time out waiting for the other two,
/// as pFabric intends). ACKs carrying the large flow's remaining size would
/// wait behind all of that data instead, and the large flow would stall.
#[test]
fn reverse_path_data_does_not_hold_back_a_large_flows_acks() {
    let small: String = (0..3)
        .map(|_| "[[flows]]\nsrc = 0\ndst = 1\nsize = \"30KB\"\nstart = \"2ms\"\n".to_string())
        .collect();
    let out = run(&format!(
        "[topology]\nkind = \"star\"\nhosts = 2\n[protocol]\nname = \"pfabric\"\n\
         [workload]\npattern = \"explicit\"\n[[flows]]\nsrc = 1\ndst = 0\nsize = \"1MB\"\n{small}"
    ));
    let large = &out.flows[0];
    let fct = large.fct_s.unwrap();
    assert!(fct <= large.ideal_fct_s * 1.04, "{fct} s vs ideal {} s", large.ideal_fct_s);
    assert_eq!(out.summary.packets_dropped, 0);
    assert_eq!(out.summary.flows_completed, 4);
}

/// 50 senders into one 1 Gbps port, dcflow's default 4 MB buffer: SRPT is
/// work-conserving, so the last flow should end near the time the port needs
/// for all the bytes. With full-size probes the waiting flows' probes piled
/// up in the buffer, went out ahead of their own data when their turn came,
/// and 12 of the 50 flows had not finished after 300 ms (issue 12); with
/// pFabric's one-byte probes (§4.3) the incast ends at 1.17 x the fair
/// makespan.
#[test]
fn an_incast_of_waiting_flows_ends_near_the_ports_drain_time() {
    let out = run("seed = 12\nstop = \"300ms\"\n[protocol]\nname = \"pfabric\"\n[topology]\nkind = \"star\"\nhosts = 51\n\
                   [workload]\npattern = \"aggregation\"\nflows = 50\nsize = { dist = \"uniform\", min = \"2KB\", max = \"198KB\" }\n");
    assert_eq!(out.summary.flows_completed, 50);
    let bytes: u64 = out.flows.iter().map(|f| f.size_bytes).sum();
    let drain_s = bytes as f64 * 8.0 / 1e9;
    let last = out.summary.fct_max_s.unwrap();
    assert!(last < 1.3 * drain_s, "last flow at {last} s, {:.2} x the port's drain time", last / drain_s);
}
