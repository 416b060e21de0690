//! Sanity facts a reader can check by hand.

use dcflow_scenario::{RunOutput, Scenario};

fn run(toml: &str) -> RunOutput {
    let s = Scenario::from_toml(toml).unwrap_or_else(|e| panic!("{e}"));
    dcflow_packet::run(&s).unwrap()
}

/// One 1 MB flow alone on a 1 Gbps star finishes within a few percent of its
/// ideal plus the connection set-up the protocol needs before data flows.
#[test]
fn lone_flow_finishes_near_its_ideal_for_every_transport() {
    // Star, 1 Gbps, 0.1 us links, 25 us switch: base RTT = 2 x (0.2 + 25) us
    // + one 1500 B packet on two links (24 us) + one 40 B ACK on two (0.64 us).
    let base_rtt = 2.0 * 25.2e-6 + 24e-6 + 0.64e-6;
    // Round trips spent before data flows: TCP's handshake; RCP_dc / D3's
    // handshake plus the one-RTT pause of new flows (D3 §4.5); pFabric none.
    for (proto, setup_rtts) in [("tcp", 1.0), ("dctcp", 1.0), ("rcp", 2.0), ("d3", 2.0), ("pfabric", 0.0)] {
        let out = run(&format!(
            "[topology]\nkind = \"star\"\nhosts = 2\n[protocol]\nname = \"{proto}\"\n\
             [workload]\npattern = \"explicit\"\n[[flows]]\nsrc = 1\ndst = 0\nsize = \"1MB\"\n"
        ));
        let f = &out.flows[0];
        let fct = f.fct_s.unwrap();
        let target = f.ideal_fct_s + setup_rtts * base_rtt;
        assert!(fct >= f.ideal_fct_s, "{proto}: {fct} beat the ideal");
        assert!(fct <= target * 1.04, "{proto}: {fct} s vs ideal+setup {target} s");
    }
}

/// N long RCP_dc flows on one bottleneck share it equally (each within 3% of
/// their mean) and together keep it busy: at least 90% of its goodput. D3's
/// capacity controller (§4.4) cuts C by β·q/T for any queue it sees and grows
/// it back by α·(spare) per interval, so the link runs a few percent below
/// capacity (D3 §6.2 reports 0.95 Gbps for long flows).
#[test]
fn rcp_shares_a_bottleneck_equally() {
    let n = 4;
    let flows: String = (1..=n)
        .map(|src| format!("[[flows]]\nsrc = {src}\ndst = 0\nsize = \"5MB\"\n"))
        .collect();
    let out = run(&format!(
        "[topology]\nkind = \"star\"\nhosts = {}\n[protocol]\nname = \"rcp\"\n\
         [workload]\npattern = \"explicit\"\n[monitor]\ninterval = \"1ms\"\nflows = true\n{flows}",
        n + 1
    ));
    // Flow series count delivered payload: 1460 of every 1500 bytes on the wire.
    let goodput = 1e9 * 1460.0 / 1500.0;
    let rows = out.timeseries.unwrap();
    // Between 5 ms and 25 ms all four flows are active (each needs > 40 ms at 250 Mbps).
    let means: Vec<f64> = (0..n)
        .map(|id| {
            let samples: Vec<f64> = rows
                .iter()
                .filter(|r| r.series == "flow" && r.name == id.to_string() && r.time_s > 0.005 && r.time_s <= 0.025)
                .map(|r| r.throughput_bps)
                .collect();
            assert_eq!(samples.len(), 20);
            samples.iter().sum::<f64>() / samples.len() as f64
        })
        .collect();
    let total: f64 = means.iter().sum();
    let share = total / n as f64;
    for (id, mean) in means.iter().enumerate() {
        assert!((mean - share).abs() <= 0.03 * share, "flow {id}: {mean} bps vs the flows' mean {share}");
    }
    assert!(total >= 0.9 * goodput, "together {total} bps of {goodput}");
    assert_eq!(out.summary.packets_dropped, 0, "RCP_dc keeps queues short: no drops");
}

/// TCP incast: many synchronized senders into a small buffer overflow it and
/// suffer retransmission timeouts (the problem D3 §2.2 and PDQ §5.2.2 describe).
#[test]
fn tcp_incast_into_a_small_buffer_drops_and_times_out() {
    let out = run(
        "[topology]\nkind = \"star\"\nhosts = 41\nbuffer = \"32KB\"\n[protocol]\nname = \"tcp\"\n\
         [workload]\npattern = \"aggregation\"\nflows = 40\nsize = { dist = \"fixed\", value = \"64KB\" }\n",
    );
    let s = &out.summary;
    assert_eq!(s.flows_completed, 40, "TCP recovers every flow");
    assert!(s.packets_dropped > 0, "the buffer overflows");
    assert!(s.timeouts > 0, "some senders lose whole windows and time out");
    // The whole burst needs 40 x 64 KB / 1 Gbps = 20.5 ms; a flow that took a
    // timeout (RTO_min = 10 ms) finishes later than the burst plus one RTO_min.
    assert!(s.fct_max_s.unwrap() > 0.010 + 40.0 * 64e3 * 8.0 / 1e9);
}

/// `[faults] loss` drops packets on the bottleneck in both directions, and the
/// transports still deliver every byte.
#[test]
fn random_loss_is_injected_and_recovered_from() {
    for proto in ["tcp", "rcp", "pfabric", "pdq"] {
        let clean = format!(
            "[topology]\nkind = \"star\"\nhosts = 5\n[protocol]\nname = \"{proto}\"\n\
             [workload]\npattern = \"aggregation\"\nflows = 4\nsize = {{ dist = \"fixed\", value = \"500KB\" }}\n"
        );
        let lossy = format!("{clean}[faults]\nloss = 0.02\n");
        let (a, b) = (run(&clean).summary, run(&lossy).summary);
        assert_eq!(a.packets_dropped, 0, "{proto}: no loss without faults");
        assert!(b.packets_dropped > 0 && b.retransmits > 0, "{proto}: 2% loss drops and retransmits");
        assert_eq!(b.flows_completed, 4, "{proto}: every flow recovers");
    }
}

/// Loss on one direction only (`faults.direction`): data lost on the way in
/// (forward) or ACKs and PDQ replies lost on the way out (reverse); both drop
/// packets and every flow still completes.
#[test]
fn one_sided_loss_is_recovered_from() {
    for proto in ["tcp", "pdq"] {
        for direction in ["forward", "reverse"] {
            let out = run(&format!(
                "[topology]\nkind = \"star\"\nhosts = 5\n[protocol]\nname = \"{proto}\"\n\
                 [workload]\npattern = \"aggregation\"\nflows = 4\nsize = {{ dist = \"fixed\", value = \"500KB\" }}\n\
                 [faults]\nloss = 0.03\ndirection = \"{direction}\"\n"
            ));
            let s = out.summary;
            assert!(s.packets_dropped > 0, "{proto} {direction}: drops");
            assert_eq!(s.flows_completed, 4, "{proto} {direction}: every flow recovers");
        }
    }
}

/// A 64-sender burst into a 100 KB buffer (D3 §6.1.1's flow burst, past the
/// operating regime) completes every flow under D3 and RCP_dc: the capacity
/// controller recovers from the burst's queue, and a sender cut to the base
/// rate keeps asking for a new rate.
#[test]
fn explicit_rate_burst_completes_every_flow() {
    for proto in ["d3", "rcp"] {
        let out = run(&format!(
            "[topology]\nkind = \"star\"\nhosts = 3\nbuffer = \"100KB\"\nprop_delay = \"100us\"\n\
             [protocol]\nname = \"{proto}\"\n[workload]\npattern = \"aggregation\"\nflows = 64\n\
             size = {{ dist = \"uniform\", min = \"2KB\", max = \"50KB\" }}\n\
             deadline = {{ dist = \"exponential\", mean = \"30ms\", min = \"3ms\" }}\n"
        ));
        assert_eq!(out.summary.flows_completed, 64, "{proto}");
        // 64 x 26 KB on average is ~13.3 ms at 1 Gbps; it must not take 10x that.
        assert!(out.summary.sim_time_s < 0.15, "{proto}: {}", out.summary.sim_time_s);
    }
}

/// An explicit-rate sender never paces above its NIC, even when the routers
/// allocate more: a 2-packet response from a host that also sends a long
/// flow is not stuck behind a growing host queue (D3 Fig. 13's setting).
#[test]
fn explicit_rate_senders_never_outpace_their_nic() {
    for proto in ["d3", "rcp"] {
        let out = run(&format!(
            "stop = \"60ms\"\n[topology]\nkind = \"star\"\nhosts = 3\nbuffer = \"100KB\"\n\
             [protocol]\nname = \"{proto}\"\n[workload]\npattern = \"explicit\"\n\
             [[flows]]\nsrc = 1\ndst = 0\nsize = \"1GB\"\n\
             [[flows]]\nsrc = 1\ndst = 0\nsize = \"2900B\"\nstart = \"20ms\"\n"
        ));
        let short = &out.flows[1];
        // Set-up (two RTTs of ~100 us) plus a few packets of host queue.
        assert!(short.fct_s.unwrap() < 0.001, "{proto}: {:?}", short.fct_s);
    }
}
