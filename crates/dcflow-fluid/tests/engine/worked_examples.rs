//! The papers' worked examples, exactly (one unit = one second, see common).

use crate::common::*;
/// PDQ Fig. 1 (§2.1): f_A = (size 1, deadline 1), f_B = (2, 4), f_C = (3, 6),
/// all at t = 0 ("Flow f_B will send with rate 2/4 = 0.5"; fair sharing
/// finishes them at 3, 5, 6).
fn pdq_fig1(protocol: &str) -> dcflow_scenario::RunOutput {
    run(&star(protocol, "", &[F(1.0, 0.0, Some(1.0)), F(2.0, 0.0, Some(4.0)), F(3.0, 0.0, Some(6.0))]))
}

#[test]
fn pdq_fig1_fair_sharing_finishes_at_3_5_6() {
    let out = pdq_fig1("fair");
    assert_close(&finishes(&out), &[3.0, 5.0, 6.0]);
    assert!(close(out.summary.fct_mean_s.unwrap(), 14.0 / 3.0)); // 4.67
    // "both flow f_A and f_B fail to meet their deadlines"
    assert_eq!(out.flows.iter().map(|f| f.met_deadline.unwrap()).collect::<Vec<_>>(), [false, false, true]);
}

#[test]
fn pdq_fig1_sjf_and_srpt_finish_at_1_3_6() {
    for p in ["sjf", "srpt"] {
        let out = pdq_fig1(p);
        assert_close(&finishes(&out), &[1.0, 3.0, 6.0]);
        assert!(close(out.summary.fct_mean_s.unwrap(), 10.0 / 3.0)); // 3.33
    }
}

#[test]
fn pdq_fig1_edf_and_optimal_meet_every_deadline() {
    for p in ["edf", "optimal"] {
        let out = pdq_fig1(p);
        assert_eq!(out.summary.app_throughput, Some(1.0), "{p}");
        assert_close(&finishes(&out), &[1.0, 3.0, 6.0]);
    }
}

/// PDQ Fig. 1d: D3-style reservations in arrival order B, A, C: B reserves
/// 2/4 = 0.5 and A (asking 1/1) cannot get its rate and misses.
#[test]
fn pdq_fig1d_reservation_in_order_b_a_c_fails_a() {
    let s = star("reservation", "", &[F(2.0, 0.0, Some(4.0)), F(1.0, 0.0, Some(1.0)), F(3.0, 0.0, Some(6.0))]);
    let out = run(&s);
    assert_eq!(out.flows[0].met_deadline, Some(true)); // B
    assert_eq!(out.flows[1].met_deadline, Some(false)); // A
}

/// S3 Table 2: A = (3, 7), B = (4, 8), C = (6, 6), one bottleneck, arrival
/// order C, B, A; no early termination (Fig. 2a's PS runs to t = 8).
fn s3_table2(protocol: &str) -> f64 {
    let flows = [F(6.0, 0.0, Some(6.0)), F(4.0, 0.0, Some(8.0)), F(3.0, 0.0, Some(7.0))];
    run(&star(protocol, "", &flows)).summary.app_throughput.unwrap()
}

#[test]
fn s3_table2_application_throughput() {
    assert_eq!(s3_table2("fair"), 0.0);
    assert!(close(s3_table2("fifo"), 1.0 / 3.0));
    assert!(close(s3_table2("edf"), 1.0 / 3.0));
    assert!(close(s3_table2("s3"), 2.0 / 3.0));
    assert!(close(s3_table2("optimal"), 2.0 / 3.0));
}

/// S3 Fig. 2(d): A preempts C, B goes at 3; C misses its deadline.
#[test]
fn s3_table2_s3_schedule_is_a_then_b_then_c() {
    let flows = [F(6.0, 0.0, Some(6.0)), F(4.0, 0.0, Some(8.0)), F(3.0, 0.0, Some(7.0))];
    // S3 stops C at once (§4.2, early_termination's default); A, B as above.
    let out = run(&star("s3", "", &flows));
    assert!(out.flows[0].terminated && out.flows[0].finish_s.is_none());
    assert_close(&finishes(&out)[1..], &[7.0, 3.0]);
    // Without early termination C runs last.
    let out = run(&star("s3", "early_termination = false", &flows));
    assert_close(&finishes(&out), &[13.0, 7.0, 3.0]);
}

/// MERP Table 1: A (arrives 0, size 3), B (arrives 3, size 3), C (arrives 0, size 4).
fn merp_table1(protocol: &str) -> dcflow_scenario::RunOutput {
    run(&star(protocol, "", &[F(3.0, 0.0, None), F(3.0, 3.0, None), F(4.0, 0.0, None)]))
}

fn max_expansion(out: &dcflow_scenario::RunOutput) -> f64 {
    out.summary.slowdown_max.unwrap()
}

#[test]
fn merp_table1_srpt_ps_and_merp() {
    let srpt = merp_table1("srpt");
    assert!(close(srpt.summary.fct_mean_s.unwrap(), 16.0 / 3.0));
    assert!(close(max_expansion(&srpt), 2.5));
    let ps = merp_table1("fair");
    assert!(close(ps.summary.fct_mean_s.unwrap(), 8.0));
    let merp = merp_table1("merp");
    assert!(close(max_expansion(&merp), 7.0 / 3.0));
    assert!(close(merp.summary.fct_mean_s.unwrap(), 17.0 / 3.0));
}
