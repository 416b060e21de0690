//! How a run ends: the summary's `status`, `sim_time_s` and
//! `utilization` describe the interval in which flows had work, from the first
//! flow's start to the last flow's outcome, `stop`, or a stall.

use dcflow_scenario::{RunOutput, RunStatus, Scenario};

fn run(toml: &str) -> RunOutput {
    let s = Scenario::from_toml(toml).unwrap_or_else(|e| panic!("{e}"));
    dcflow_packet::run(&s).unwrap()
}

fn last_finish(out: &RunOutput) -> f64 {
    out.flows.iter().filter_map(|f| f.finish_s).fold(0.0, f64::max)
}

/// Four TCP flows into one aggregator (the README's demo with tcp) that take
/// no timeout: `rto_min` changes only the retransmission timers left armed
/// after the last flow, which must not change utilization or sim_time_s
/// (they did: 0.298 at 10 ms, 0.015 at 200 ms).
#[test]
fn utilization_ignores_timers_left_after_the_last_flow() {
    let tcp = |rto_min: &str| {
        run(&format!(
            "[topology]\nkind = \"star\"\nhosts = 9\n[protocol]\nname = \"tcp\"\nrto_min = \"{rto_min}\"\n\
             [workload]\npattern = \"aggregation\"\nflows = 4\n\
             size = {{ dist = \"uniform\", min = \"2KB\", max = \"198KB\" }}\n"
        ))
    };
    let (short, long) = (tcp("10ms"), tcp("200ms"));
    assert_eq!(short.flows, long.flows, "the same flows, finishing at the same times");
    assert_eq!(short.summary.timeouts, 0);
    for out in [&short, &long] {
        assert_eq!(out.summary.status, RunStatus::Completed);
        assert_eq!(out.summary.sim_time_s, last_finish(out), "the run ends with its last flow");
        assert_eq!(out.summary.utilization_links, ["sw->h0"], "the star's bottleneck, into the aggregator");
    }
    assert_eq!(short.summary.utilization, long.summary.utilization);
    // The bottleneck carried every payload byte (plus headers) in that time.
    let payload: u64 = short.flows.iter().map(|f| f.size_bytes).sum();
    let floor = payload as f64 * 8.0 / 1e9 / short.summary.sim_time_s;
    assert!((floor..=1.0).contains(&short.summary.utilization), "{} vs {floor}", short.summary.utilization);
}

/// Utilization is measured from the first flow's start: the same flow one
/// second later uses the link just as well.
#[test]
fn utilization_is_measured_from_the_first_start() {
    let one_flow = |start: &str| {
        run(&format!(
            "[topology]\nkind = \"star\"\nhosts = 2\n[protocol]\nname = \"rcp\"\n[workload]\npattern = \"explicit\"\n\
             [[flows]]\nsrc = 1\ndst = 0\nsize = \"500KB\"\nstart = \"{start}\"\n"
        ))
    };
    let (early, late) = (one_flow("0s"), one_flow("1s"));
    assert!(early.summary.utilization > 0.8, "{}", early.summary.utilization);
    assert!((early.summary.utilization - late.summary.utilization).abs() < 1e-6);
}

/// `stop` before the flows are done: status "stopped", the run ends at `stop`.
#[test]
fn stop_ends_the_run_at_stop() {
    let out = run(
        "stop = \"2ms\"\n[topology]\nkind = \"star\"\nhosts = 2\n[protocol]\nname = \"tcp\"\n\
         [workload]\npattern = \"explicit\"\n[[flows]]\nsrc = 1\ndst = 0\nsize = \"1MB\"\n",
    );
    assert_eq!(out.summary.status, RunStatus::Stopped);
    assert_eq!(out.summary.sim_time_s, 0.002);
    assert_eq!(out.summary.flows_completed, 0);
}

/// Two flows into h0, and every packet h2 sends is lost: h2's flow can never
/// progress. The run ends `stall` after the last progress (h1's flow's last
/// byte) with status "stalled", instead of retransmitting forever.
#[test]
fn a_run_without_progress_stalls() {
    let out = run(
        "stall = \"50ms\"\n[topology]\nkind = \"star\"\nhosts = 3\n[protocol]\nname = \"rcp\"\n\
         [workload]\npattern = \"explicit\"\n\
         [[flows]]\nsrc = 1\ndst = 0\nsize = \"100KB\"\n[[flows]]\nsrc = 2\ndst = 0\nsize = \"100KB\"\n\
         [faults]\nloss = 0.999999999999\nlinks = [\"h2->sw\"]\ndirection = \"forward\"\n",
    );
    assert_eq!(out.summary.status, RunStatus::Stalled);
    assert_eq!(out.summary.flows_completed, 1);
    assert_eq!(out.flows[1].bytes_delivered, 0);
    let stalled_at = last_finish(&out) + 0.050;
    assert!((out.summary.sim_time_s - stalled_at).abs() < 1e-12, "{} vs {stalled_at}", out.summary.sim_time_s);
}

/// Waiting for a later flow's start is not a stall: the guard only runs
/// while some started flow has no outcome.
#[test]
fn waiting_for_a_later_start_is_not_a_stall() {
    let out = run(
        "stall = \"50ms\"\n[topology]\nkind = \"star\"\nhosts = 3\n[protocol]\nname = \"rcp\"\n\
         [workload]\npattern = \"explicit\"\n\
         [[flows]]\nsrc = 1\ndst = 0\nsize = \"100KB\"\n\
         [[flows]]\nsrc = 2\ndst = 0\nsize = \"100KB\"\nstart = \"1s\"\n\
         [monitor]\ninterval = \"1ms\"\n",
    );
    assert_eq!(out.summary.status, RunStatus::Completed);
    assert_eq!(out.summary.flows_completed, 2);
    assert_eq!(out.summary.sim_time_s, last_finish(&out));
}
