//! PDQ's flow-level model (`protocol.name = "pdq"`, `engine = "fluid"`):
//! facts that follow from PDQ §3-§5 and the model's documented choices
//! (docs/fidelity-fluid.md, "Flow-level PDQ"), checked on a 1 Gbps star.

use dcflow_scenario::{RunOutput, Scenario};

/// Flows `(src, size bytes, start ms, deadline ms)` to host 0 of a star.
fn run(protocol: &str, flows: &[(u32, u64, f64, Option<f64>)]) -> RunOutput {
    let mut toml = format!(
        "engine = \"fluid\"\n[topology]\nkind = \"star\"\nhosts = 8\nlink_rate = \"1Gbps\"\n\
         [protocol]\nname = \"pdq\"\n{protocol}\n[workload]\npattern = \"explicit\"\n"
    );
    for &(src, size, start, deadline) in flows {
        toml += &format!("[[flows]]\nsrc = {src}\ndst = 0\nsize = \"{size}B\"\nstart = \"{start}ms\"\n");
        if let Some(d) = deadline {
            toml += &format!("deadline = \"{d}ms\"\n");
        }
    }
    dcflow_fluid::run(&Scenario::from_toml(&toml).unwrap()).unwrap()
}

fn finish(out: &RunOutput, f: usize) -> f64 {
    out.flows[f].finish_s.expect("finished")
}

/// Bits on the wire: 1444 B of payload per packet (mtu 1500 - 40 TCP/IP -
/// 16 PDQ), each packet carrying 56 B of headers (§5.4, footnote 11).
fn wire_bits(size: u64) -> f64 {
    (size + size.div_ceil(1444) * 56) as f64 * 8.0
}

/// PDQ Fig. 6 (§5.4): five ~1 MB flows, a smaller index slightly smaller.
fn fig6() -> Vec<(u32, u64, f64, Option<f64>)> {
    (0..5).map(|i| (i + 1, 1_000_000 + 1000 * i as u64, 0.0, None)).collect()
}

#[test]
fn fig6_flows_run_one_at_a_time_in_sjf_order_with_headers_and_one_handshake() {
    let out = run("", &fig6());
    let lone = run("", &fig6()[..1]);
    // One at a time: flow i ends when flow i-1's end plus its own wire time.
    for i in 1..5 {
        let gap = finish(&out, i) - finish(&out, i - 1);
        assert!((gap - wire_bits(1_000_000 + 1000 * i as u64) / 1e9).abs() < 1e-9, "flow {i}: {gap}");
    }
    // The first flow is a lone flow: handshake + wire time + one-way delay.
    assert!((finish(&out, 0) - finish(&lone, 0)).abs() < 1e-12);
    let overhead = finish(&lone, 0) - wire_bits(1_000_000) / 1e9;
    assert!(overhead > 0.0 && overhead < 1e-3, "handshake and delivery {overhead}");
    // §5.4: "PDQ completes at ~42 ms" against 40 ms ideal.
    let last = finish(&out, 4);
    assert!(last > 0.0415 && last < 0.0420, "all done at {last}");
}

#[test]
fn basic_pays_one_rtt_of_idle_link_per_flow_and_early_start_none() {
    let es = run("variant = \"es\"", &fig6());
    let basic = run("variant = \"basic\"", &fig6());
    let rtt = finish(&run("variant = \"basic\"", &fig6()[..1]), 0) - finish(&run("variant = \"es\"", &fig6()[..1]), 0);
    assert!(rtt > 0.0 && rtt < 1e-3, "rtt {rtt}");
    assert!((finish(&basic, 4) - finish(&es, 4) - 5.0 * rtt).abs() < 1e-9);
    // Early Start and Full are the same flow-level model (seamless switching).
    assert_eq!(finish(&es, 4), finish(&run("", &fig6()), 4));
}

#[test]
fn an_earlier_deadline_preempts_a_shorter_flow() {
    // A 100 KB flow without deadline, a 500 KB flow due at 10 ms, both at t = 0.
    let out = run("", &[(1, 100_000, 0.0, None), (2, 500_000, 0.0, Some(10.0))]);
    assert!(finish(&out, 1) < finish(&out, 0), "EDF before SJF (§3.3)");
    // Deadline-agnostic comparator: SJF.
    let sjf = run("comparator = \"sjf\"", &[(1, 100_000, 0.0, None), (2, 500_000, 0.0, Some(10.0))]);
    assert!(finish(&sjf, 0) < finish(&sjf, 1));
}

#[test]
fn early_termination_follows_the_variant() {
    // Two 1 MB flows due at 10 ms: only one fits (8.3 ms each).
    let flows = [(1, 1_000_000, 0.0, Some(10.0)), (2, 1_000_000, 0.0, Some(10.0))];
    let et = run("variant = \"es_et\"", &flows);
    assert_eq!((et.summary.deadline_met, et.summary.flows_terminated), (1, 1));
    // Terminated by condition 2 as soon as it cannot make it, long before 10 ms.
    let es = run("variant = \"es\"", &flows);
    assert_eq!((es.summary.deadline_met, es.summary.flows_terminated), (1, 0));
    assert!(finish(&es, 1) > 0.016, "without ET the late flow runs to completion");
}

#[test]
fn aging_lets_an_old_long_flow_keep_the_link() {
    // A 10 MB flow from t = 0; a 100 KB flow arrives at 50 ms, when the long
    // one has ~3.4 MB (~28 ms) left. Without aging the short flow preempts; with
    // α = 16 the long flow's key is divided by 2^8 by then (t = 0.5 x 100 ms)
    // and it keeps the link.
    let flows = [(1, 10_000_000, 0.0, None), (2, 100_000, 50.0, None)];
    let plain = run("", &flows);
    let aged = run("aging_alpha = 16.0", &flows);
    assert!(finish(&plain, 1) < finish(&plain, 0));
    assert!(finish(&aged, 0) < finish(&aged, 1));
    assert!(plain.flows[1].fct_s.unwrap() < 1.5e-3 && aged.flows[1].fct_s.unwrap() > 20e-3);
}

#[test]
fn size_estimation_switches_at_the_1ms_reevaluations() {
    // Flow 0 (1 MB) and flow 1 (300 KB) start together; both may send one
    // RTT later. Payload sent / estimate (KB) at each 1 ms re-evaluation:
    //   1 ms: flow 0 111 / 150, flow 1 0 / 50     -> flow 1 runs
    //   2 ms: flow 0 111 / 150, flow 1 120 / 150  -> tie, lower id: flow 0
    //   3 ms: flow 0 232 / 250, flow 1 120 / 150  -> flow 1
    //   4 ms: flow 0 232 / 250, flow 1 241 / 250  -> tie: flow 0
    //   5 ms: flow 0 352 / 400, flow 1 241 / 250  -> flow 1 finishes.
    // Flow 0 held the link for 3 ms - RTT before flow 1's end; under `size`
    // flow 1 runs first, so it ends exactly 3 ms - RTT later with estimation.
    let flows = [(1, 1_000_000, 0.0, None), (2, 300_000, 0.0, None)];
    let size = run("", &flows);
    let est = run("criticality = \"estimate\"", &flows);
    let rtt = finish(&run("variant = \"basic\"", &flows[1..]), 0) - finish(&run("variant = \"es\"", &flows[1..]), 0);
    let delay = finish(&est, 1) - finish(&size, 1);
    assert!((delay - (3e-3 - rtt)).abs() < 1e-9, "flow 1 is {delay} s later (RTT {rtt})");
    assert_eq!(est.summary.flows_completed, 2);
}

#[test]
fn what_the_flow_level_cannot_model_is_refused_by_key() {
    let base = "engine = \"fluid\"\n[topology]\nkind = \"star\"\nhosts = 4\n[protocol]\nname = \"pdq\"\n";
    for (key, line) in [("protocol.subflows", "subflows = 2"), ("protocol.max_flows", "max_flows = 4"), ("protocol.r_pdq", "r_pdq = 0.9")] {
        let err = Scenario::from_toml(&format!("{base}{line}\n")).expect_err(line);
        assert_eq!(err.key, key, "{err}");
    }
    // Packet-level keys are accepted (documented as having no flow-level meaning).
    Scenario::from_toml(&format!("{base}dampening = 2.0\nprobe_x = 0.5\nmin_rate = 0.0\n")).unwrap();
    // The same keys run on the packet engine.
    Scenario::from_toml("[topology]\nkind = \"star\"\nhosts = 4\n[protocol]\nname = \"pdq\"\nr_pdq = 0.9\n").unwrap();
}

/// `[fluid] recompute = "interval"` (a reading of §5.5's "time
/// scale of 1 ms"): rates change only at 1 ms steps, so each of Fig. 6's
/// flows starts at a step (the first once its handshake is done, the others
/// at the first step after the previous one ended: the link idles between).
#[test]
fn stepped_rates_start_every_flow_on_a_step() {
    let stepped = run("[fluid]\nrecompute = \"interval\"", &fig6());
    let start = |i: usize, one_way: f64| finish(&stepped, i) - wire_bits(1_000_000 + 1000 * i as u64) / 1e9 - one_way;
    // The first flow is ready after one RTT (< 1 ms) and starts at 1 ms.
    let one_way = finish(&stepped, 0) - 1e-3 - wire_bits(1_000_000) / 1e9;
    assert!(one_way > 0.0 && one_way < 1e-4, "one-way delay {one_way}");
    for i in 1..5 {
        let (s, previous_end) = (start(i, one_way), finish(&stepped, i - 1) - one_way);
        assert!((s * 1e3 - (s * 1e3).round()).abs() < 1e-6, "flow {i} starts at {s}, not on a step");
        assert!(s >= previous_end - 1e-12 && s < previous_end + 1e-3, "flow {i}: {s} after {previous_end}");
    }
    let events = run("", &fig6());
    assert!(finish(&stepped, 4) > finish(&events, 4), "idle steps cost time");
}
