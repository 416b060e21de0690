//! Unit tests of the S3 protocol on hand-built flow sets (FILTER and SLACK
//! alone are tested in [`super::schedule`]): the switch against the paper's
//! Fig. 4 and Table 2, Eq. 2's probe interval, pause and resume, and the
//! sender's rules (§4.2).

use super::{s3_switch, S3Config, S3_HEADER_BYTES};
use crate::agent::PortView;
use crate::endpoint::{Endpoint, FlowEvent};
use crate::packet::{PacketKind, Sched};
use crate::pdq::sender_tests::{info, reply};
use crate::pdq::tests::{C, ME, RTT};
use crate::pdq::header::{PdqHeader, NOBODY};
use crate::pdq::PdqSwitch;
use dcflow_core::{Bytes, Dur, Rate, Time};

/// S3's agent for a port whose switch id is `ME` (link id + 1).
fn switch() -> PdqSwitch {
    s3_switch(&S3Config::default(), ME - 1, Rate(C))
}

fn port() -> PortView {
    PortView { rate: Rate(C), queue_bytes: 0, tx_bytes: 0 }
}

/// A sender's header in the paper's units, one unit = 1 ms: `size` units
/// left, deadline `deadline` units after time 0.
fn hdr(size: u64, deadline: u64) -> PdqHeader {
    PdqHeader {
        rate: C,
        pause_by: NOBODY,
        deadline: Time::ZERO + Dur::ms(deadline),
        expected: Dur::ms(size),
        rtt: RTT,
        inter_probe: 0.0,
        crit: Dur::ms(size).0,
    }
}

/// Forward (Algorithm 1 of PDQ with S3's order) then reverse pass.
fn round_trip(s: &mut PdqSwitch, now: Time, flow: u64, mut h: PdqHeader, data: bool) -> PdqHeader {
    if data {
        s.on_data(now, &port(), flow, &mut h);
    } else {
        s.on_forward(now, &port(), flow, &mut h);
    }
    s.on_reverse(flow, &mut h);
    h
}

fn order(s: &PdqSwitch) -> Vec<u64> {
    s.list().iter().map(|e| e.flow).collect()
}

/// Fig. 4 (the instance of `schedule::tests::figure_4_filter_then_slack`)
/// arriving at a switch: the list ends up as S3's schedule, the four
/// schedulable flows f1, f3, f6, f7 in EDF order (FILTER alone kept three),
/// then f2, f4, f5; only the head sends; each flow's inter-probe time is
/// Eq. 2's 0.2 RTT_avg I_i with I_i its 1-based place.
#[test]
fn switch_orders_figure_4_and_sets_eq_2_probe_intervals() {
    let flows = [(1, 1, 2), (2, 4, 4), (3, 6, 7), (4, 7, 14), (5, 8, 15), (6, 3, 16), (7, 4, 17)];
    let mut s = switch();
    for &(f, size, d) in &flows {
        round_trip(&mut s, Time::ZERO, f, hdr(size, d), false);
    }
    assert_eq!(order(&s), [1, 3, 6, 7, 2, 4, 5]);
    for (place, &f) in order(&s).iter().enumerate() {
        let (_, size, d) = flows[f as usize - 1];
        let h = round_trip(&mut s, Time::ZERO, f, hdr(size, d), false);
        let expect_sending = place == 0;
        assert_eq!(h.pause_by == NOBODY, expect_sending, "flow {f} at place {place}");
        assert_eq!(h.rate, if expect_sending { C } else { 0 });
        // RTT_avg = RTT_H = RTT here, so I_H = 0.2 I_i in the flow's RTTs.
        let eq2 = 0.2 * (place + 1) as f32;
        assert!((h.inter_probe - eq2).abs() < 1e-6, "flow {f}: I_H {} vs {eq2}", h.inter_probe);
    }
}

/// Table 2 (A = (3, 7), B = (4, 8), C = (6, 6)) at a switch, C first: C is
/// accepted alone; A (placed ahead of C by SLACK) is held one RTT by PDQ's
/// Dampening, then accepted, and C is paused at its next packet; B waits
/// behind A (I_i = 2). When A leaves (TERM), B resumes.
#[test]
fn switch_pauses_and_resumes_in_table_2_order() {
    let (a, b, c) = (1, 2, 3);
    let mut s = switch();
    let t0 = Time::ZERO;
    assert_eq!(round_trip(&mut s, t0, c, hdr(6, 6), false).pause_by, NOBODY, "C alone is schedulable");
    let ha = round_trip(&mut s, t0 + Dur::us(1), a, hdr(3, 7), false);
    assert_eq!(ha.pause_by, ME, "dampened: C was accepted less than an RTT ago");
    round_trip(&mut s, t0 + Dur::us(2), b, hdr(4, 8), false);
    assert_eq!(order(&s), [a, b, c], "SLACK swaps C for A; B fits behind A");
    // One RTT later A's probe is accepted, and C's next data packet paused.
    let t1 = t0 + RTT + Dur::us(1);
    assert_eq!(round_trip(&mut s, t1, a, hdr(3, 7), false).pause_by, NOBODY);
    let hc = round_trip(&mut s, t1, c, hdr(6, 6), true);
    assert_eq!((hc.pause_by, hc.rate), (ME, 0), "C preempted");
    let hb = round_trip(&mut s, t1, b, hdr(4, 8), false);
    assert_eq!(hb.pause_by, ME);
    assert!((hb.inter_probe - 0.4).abs() < 1e-6, "B is second: 0.2 x 2, got {}", hb.inter_probe);
    // A done at 3 ms: its TERM leaves B at the head (C, 6 units left with 3
    // to its deadline, is not schedulable).
    let t2 = t0 + Dur::ms(3);
    s.on_term(a);
    let hb = round_trip(&mut s, t2, b, hdr(4, 8), false);
    assert_eq!((hb.pause_by, hb.rate), (NOBODY, C), "B resumes");
    assert_eq!(order(&s), [b, c]);
}

/// §4.2: the SYN carries the header (24 B on the wire) with R_i = the link
/// rate; paused, the sender sends a probe every P_i (Eq. 2, 0.4 RTT here,
/// below PDQ's one-RTT floor) and no data; accepted, it sends data at the
/// granted rate.
#[test]
fn sender_probes_every_p_i_while_paused_and_resumes() {
    let mut s = S3Config::default().sender(info(100_000, None));
    let syn = s.poll_transmit(Time::ZERO).unwrap();
    assert_eq!((syn.kind, syn.wire), (PacketKind::Syn, 40 + S3_HEADER_BYTES));
    let Sched::Pdq(h) = syn.sched else { panic!("S3 header") };
    assert_eq!((h.rate, h.pause_by), (C, NOBODY), "R_i starts at the link rate");
    let t = Time::ZERO + RTT;
    s.handle_packet(t, &reply(&syn, PacketKind::SynAck, Time::ZERO, ME, 0, 0.4));
    assert_eq!((s.rate(), s.paused_by()), (0, ME));
    // P_i has passed since the SYN: a probe at once, then one every P_i.
    assert_eq!(s.poll_transmit(t).unwrap().kind, PacketKind::Probe, "no data while paused");
    assert!(s.poll_transmit(t).is_none());
    let next = s.poll_timeout().unwrap();
    assert!(next.0.abs_diff((t + RTT.mul_f64(0.4)).0) <= 1, "P_i after the last packet: {next:?}");
    let probe = s.poll_transmit(next).unwrap();
    assert_eq!(probe.kind, PacketKind::Probe);
    let t2 = next + RTT;
    s.handle_packet(t2, &reply(&probe, PacketKind::Probe, Time::ZERO, NOBODY, C, 0.2));
    let d = s.poll_transmit(t2).unwrap();
    assert_eq!((d.kind, d.payload, d.wire), (PacketKind::Data, 1460 - S3_HEADER_BYTES, 1500));
    assert_eq!(s.poll_timeout(), Some(t2 + Rate(C).tx_time(Bytes(1500))), "paced at R_i");
}

/// A reply no S3 switch wrote P_i into (I_H = 0: the flow was not in the
/// pausing switch's list) must not make the sender probe "every 0 RTTs":
/// that sent probes without end at one instant (the stress matrix's
/// Poisson tree). It probes at the head of a schedule's P_i, 0.2 RTT.
#[test]
fn a_reply_without_p_i_probes_at_the_heads_interval() {
    let mut s = S3Config::default().sender(info(100_000, None));
    let syn = s.poll_transmit(Time::ZERO).unwrap();
    let t = Time::ZERO + RTT;
    s.handle_packet(t, &reply(&syn, PacketKind::SynAck, Time::ZERO, ME, 0, 0.0));
    assert_eq!(s.poll_transmit(t).unwrap().kind, PacketKind::Probe);
    assert!(s.poll_transmit(t).is_none(), "one probe, not a stream of them");
    let next = s.poll_timeout().unwrap();
    assert!(next > t, "the next probe is later: {next:?}");
    assert!(next.0.abs_diff((t + RTT.mul_f64(0.2)).0) <= RTT.0 / 100, "about 0.2 RTT later: {next:?}");
}

/// §4.2: a flow that cannot finish by its deadline even at full rate stops
/// at once; a paused flow that still can is not stopped (PDQ's third
/// condition, paused with less than an RTT left, is not S3's).
#[test]
fn early_termination_only_when_hopeless_at_full_rate() {
    // 1 MB needs 8 ms at 1 Gbps: hopeless with a 5 ms deadline.
    let mut s = S3Config::default().sender(info(1_000_000, Some(Time::ZERO + Dur::ms(5))));
    s.handle_timeout(Time::ZERO);
    assert_eq!(s.poll_event(), Some(FlowEvent::Terminated));
    assert_eq!(s.poll_transmit(Time::ZERO).unwrap().kind, PacketKind::Fin);
    // 10 KB (~80 us at line rate), deadline 900 us, paused.
    let d = Time::ZERO + Dur::us(900);
    let mut s = S3Config::default().sender(info(10_000, Some(d)));
    let syn = s.poll_transmit(Time::ZERO).unwrap();
    s.handle_packet(Time::ZERO + RTT, &reply(&syn, PacketKind::SynAck, Time::ZERO, ME, 0, 1.0));
    s.handle_timeout(Time(d.0 - RTT.0 + 1));
    assert!(s.poll_event().is_none(), "still makes it at full rate");
    let at = s.poll_timeout().unwrap();
    let last_chance = Time(d.0 - s.expected().0 + 1);
    assert!(at <= last_chance, "a timer checks the condition in time");
    s.handle_timeout(last_chance);
    assert_eq!(s.poll_event(), Some(FlowEvent::Terminated));
    // Without early_termination the flow runs on.
    let cfg = S3Config { early_termination: false, ..S3Config::default() };
    let mut s = cfg.sender(info(1_000_000, Some(Time::ZERO + Dur::ms(5))));
    s.handle_timeout(Time::ZERO + Dur::ms(6));
    assert!(s.poll_event().is_none());
}

/// §4.2: "if a packet suffers from a timeout, S3 will resend the packet
/// immediately ... the timeout time interval is twice RTTs".
#[test]
fn a_packet_unacknowledged_for_two_rtts_is_resent() {
    let mut s = S3Config::default().sender(info(3_000, None));
    let syn = s.poll_transmit(Time::ZERO).unwrap();
    let t = Time::ZERO + RTT;
    s.handle_packet(t, &reply(&syn, PacketKind::SynAck, Time::ZERO, NOBODY, C, 0.2));
    let first = s.poll_transmit(t).unwrap();
    assert!(!first.retransmit);
    let rto = s.srtt().mul_f64(2.0);
    for _ in 0..2 {
        let at = s.poll_timeout().unwrap();
        assert!(!s.poll_transmit(at).unwrap().retransmit);
    }
    assert_eq!(s.poll_timeout(), Some(t + rto), "the timer of the first packet");
    s.handle_timeout(t + rto);
    let again = s.poll_transmit(t + rto).unwrap();
    assert_eq!((again.kind, again.seq, again.retransmit), (PacketKind::Data, first.seq, true));
    assert_eq!(s.timeouts(), 1);
}

#[test]
fn config_parses_with_the_papers_defaults_and_validates() {
    let p: crate::ProtocolConfig = serde_json::from_str(r#"{"name": "s3"}"#).unwrap();
    match &p {
        crate::ProtocolConfig::S3(c) => {
            assert_eq!(*c, S3Config { early_termination: true, probe_factor: 0.2, rto_rtts: 2.0, early_start_k: 0.0 });
        }
        _ => panic!("wrong variant"),
    }
    assert!(p.runs_on_packets());
    assert!(p.symmetric_paths(), "ACKs retrace the data path for the reverse pass");
    let bad = S3Config { rto_rtts: 0.5, ..S3Config::default() };
    assert_eq!(bad.validate().unwrap_err().key, "rto_rtts");
}
