//! Unit tests of the TCP sender.

use super::*;
use serde::Deserialize;
use crate::endpoint::{Endpoint, FlowEvent, FlowInfo};
use crate::packet::{Packet, PacketKind};
use dcflow_core::{Dur, Time};
use dcflow_core::{Bytes, Rate};

const MSS: u64 = 1000;

fn info(size: u64) -> FlowInfo {
    FlowInfo {
        id: 7,
        size: Bytes(size),
        start: Time::ZERO,
        deadline: None,
        size_known: false,
        mss: MSS as u32,
        line_rate: Rate::gbps(1),
        base_rtt: Dur::us(100),
        agent_hops: 1,
        dst: 0,
    }
}

fn no_hs() -> TcpConfig {
    TcpConfig { handshake: false, ..TcpConfig::default() }
}

fn drain(s: &mut TcpSender, now: Time) -> Vec<Packet> {
    std::iter::from_fn(|| s.poll_transmit(now)).collect()
}

fn ack(cum: u64, acked_seq: u64, sent_at: Time) -> Packet {
    let mut a = Packet::new(7, PacketKind::Ack, true, sent_at);
    a.seq = cum;
    a.acked_seq = acked_seq;
    a
}

/// Ack every packet in order until cwnd reaches `target` bytes; returns now.
fn grow_to(s: &mut TcpSender, target: u64) -> Time {
    let mut now = Time::ZERO;
    let mut out = drain(s, now);
    while s.cwnd() < target {
        now += Dur::us(100);
        let mut next = Vec::new();
        for p in out {
            s.handle_packet(now, &ack(p.seq + p.payload as u64, p.seq, p.sent_at));
            next.extend(drain(s, now));
            if s.cwnd() >= target {
                break;
            }
        }
        out = next;
    }
    now
}

#[test]
fn handshake_then_initial_window_of_segments() {
    let mut s = TcpSender::new(info(2500), &TcpConfig::default());
    assert_eq!(s.poll_timeout(), Some(Time::ZERO));
    let syn = drain(&mut s, Time::ZERO);
    assert_eq!(syn.len(), 1);
    assert_eq!(syn[0].kind, PacketKind::Syn);
    let mut sa = Packet::new(7, PacketKind::SynAck, true, Time::ZERO);
    sa.sent_at = Time::ZERO;
    s.handle_packet(Time(100), &sa);
    assert_eq!(s.srtt(), Some(Dur(100)));
    let d = drain(&mut s, Time(100));
    assert_eq!(d.len(), 2, "init_cwnd = 2");
    assert_eq!((d[0].seq, d[0].payload, d[0].wire), (0, 1000, 1040));
    assert_eq!((d[1].seq, d[1].payload), (1000, 1000));
    s.handle_packet(Time(200), &ack(1000, 0, Time(100)));
    let d = drain(&mut s, Time(200));
    assert_eq!(d.len(), 1);
    assert_eq!((d[0].seq, d[0].payload, d[0].wire), (2000, 500, 540), "last segment is shorter");
    s.handle_packet(Time(300), &ack(2000, 1000, Time(100)));
    assert!(s.poll_event().is_none());
    s.handle_packet(Time(300), &ack(2500, 2000, Time(200)));
    assert_eq!(s.poll_event(), Some(FlowEvent::Closed));
    assert_eq!(s.poll_timeout(), None);
    assert!(s.poll_transmit(Time(300)).is_none());
}

#[test]
fn syn_is_retransmitted_with_backoff() {
    let cfg = TcpConfig { rto_init: Some(Dur::ms(1)), rto_min: Dur::ms(1), ..TcpConfig::default() };
    let mut s = TcpSender::new(info(1000), &cfg);
    assert_eq!(drain(&mut s, Time::ZERO).len(), 1);
    let t1 = s.poll_timeout().unwrap();
    assert_eq!(t1, Time::ZERO + Dur::ms(1));
    s.handle_timeout(t1);
    let p = drain(&mut s, t1);
    assert_eq!((p.len(), p[0].kind, p[0].retransmit), (1, PacketKind::Syn, true));
    assert_eq!(s.poll_timeout(), Some(t1 + Dur::ms(2)), "exponential backoff");
    assert_eq!((s.timeouts(), s.retransmits()), (1, 1));
}

#[test]
fn early_or_spurious_timeouts_are_ignored() {
    let mut s = TcpSender::new(info(10_000), &no_hs());
    let out = drain(&mut s, Time::ZERO);
    assert_eq!(out.len(), 2);
    let deadline = s.poll_timeout().unwrap();
    s.handle_timeout(Time(deadline.0 - 1));
    assert_eq!(s.timeouts(), 0);
    assert!(s.poll_transmit(Time(deadline.0 - 1)).is_none());
    assert_eq!(s.poll_timeout(), Some(deadline));
    s.handle_timeout(deadline);
    assert_eq!(s.timeouts(), 1);
    let p = drain(&mut s, deadline);
    assert_eq!(p.len(), 1, "cwnd = 1 MSS after a timeout");
    assert_eq!((p[0].seq, p[0].retransmit), (0, true));
    assert_eq!(s.cwnd(), MSS);
    assert_eq!(s.ssthresh(), 2 * MSS, "max(flight/2, 2 MSS)");
}

#[test]
fn cwnd_halves_on_fast_retransmit_and_recovers_with_newreno() {
    let mut s = TcpSender::new(info(1_000_000), &no_hs());
    let now = grow_to(&mut s, 20 * MSS);
    // Drain whatever the window allows so that flight == cwnd.
    drain(&mut s, now);
    let flight = s.flight();
    let una = s.snd_una();
    assert_eq!(flight, 20 * MSS);
    let t = now + Dur::us(10);
    // Segment `una` is lost; the next three arrive: three duplicate ACKs.
    for k in 1..=3 {
        s.handle_packet(t, &ack(una, una + k * MSS, now));
    }
    assert!(s.in_recovery());
    assert_eq!(s.fast_retransmits(), 1);
    assert_eq!(s.ssthresh(), flight / 2);
    assert_eq!(s.cwnd(), flight / 2 + 3 * MSS);
    let p = drain(&mut s, t);
    assert_eq!((p.len(), p[0].seq, p[0].retransmit), (1, una, true));
    assert_eq!(s.retransmits(), 1);
    // More dupacks inflate the window; new data goes out after half a window.
    for k in 4..=19 {
        s.handle_packet(t, &ack(una, una + k * MSS, now));
    }
    let p = drain(&mut s, t);
    assert_eq!(p.len(), 9, "cwnd 10+19 MSS minus flight 20 MSS");
    assert!(p.iter().all(|p| !p.retransmit));
    // Partial ACK (the retransmission filled the hole; assume una+5 lost too).
    s.handle_packet(t, &ack(una + 5 * MSS, una, t));
    assert!(s.in_recovery());
    let p = drain(&mut s, t);
    assert_eq!((p[0].seq, p[0].retransmit), (una + 5 * MSS, true));
    // Full ACK exits recovery with cwnd = ssthresh.
    let high = s.snd_una() + s.flight();
    s.handle_packet(t, &ack(una + 20 * MSS, una + 5 * MSS, t));
    assert!(!s.in_recovery());
    assert_eq!(s.cwnd(), flight / 2);
    assert!(high > una + 20 * MSS);
    assert_eq!(s.timeouts(), 0);
}

#[test]
fn rto_follows_rfc6298_and_never_drops_below_rto_min() {
    let cfg = TcpConfig { rto_min: Dur::us(1), ..no_hs() };
    let mut s = TcpSender::new(info(100_000), &cfg);
    s.rtt_sample(Dur::us(100));
    assert_eq!((s.srtt(), s.rttvar(), s.rto()), (Some(Dur::us(100)), Dur::us(50), Dur::us(300)));
    s.rtt_sample(Dur::us(200));
    // rttvar = 3/4 * 50 + 1/4 * 100 = 62.5; srtt = 7/8 * 100 + 1/8 * 200 = 112.5
    assert_eq!(s.rttvar(), Dur::ns(62_500));
    assert_eq!(s.srtt(), Some(Dur::ns(112_500)));
    assert_eq!(s.rto(), Dur::ns(112_500 + 4 * 62_500));

    let mut s = TcpSender::new(info(100_000), &no_hs());
    assert_eq!(s.rto(), Dur::ms(10), "rto_init = max(rto_min, 3 base_rtt)");
    for _ in 0..50 {
        s.rtt_sample(Dur::us(20));
        assert!(s.rto() >= Dur::ms(10));
    }
    assert_eq!(s.rto(), Dur::ms(10));
}

#[test]
fn dctcp_alpha_and_reduction_once_per_window() {
    let cfg = DctcpConfig { alpha_init: 0.0, handshake: false, ..DctcpConfig::default() };
    let mut s = TcpSender::dctcp(info(1_000_000), &cfg);
    assert!(s.ecn_capable());
    let now = grow_to(&mut s, 16 * MSS);
    drain(&mut s, now);
    let una = s.snd_una();
    let alpha0 = s.alpha().unwrap();
    assert_eq!(alpha0, 0.0);
    // Every ACK of the next window carries ECN-Echo.
    let w = s.flight() / MSS;
    let cwnd0 = s.cwnd();
    for k in 0..w {
        let mut a = ack(una + (k + 1) * MSS, una + k * MSS, now);
        a.ecn_echo = true;
        s.handle_packet(now + Dur::us(100), &a);
    }
    // First ACK: alpha was 0 so the window is unchanged by the reduction;
    // the window then ends and alpha -> g * F with F = 1.
    let alpha = s.alpha().unwrap();
    assert!(alpha > 0.0 && alpha < 2.0 / 16.0, "alpha = {alpha}");
    assert!(s.cwnd() < cwnd0 + w * MSS, "growth stopped by marks");
    assert_eq!(s.timeouts(), 0);

    // The first marked ACK cuts the window to cwnd (1 - alpha/2), once per window.
    let cfg = DctcpConfig { handshake: false, ..DctcpConfig::default() };
    let mut s = TcpSender::dctcp(info(1_000_000), &cfg);
    let now = grow_to(&mut s, 16 * MSS);
    drain(&mut s, now);
    let una = s.snd_una();
    let cwnd0 = s.cwnd();
    let mut a = ack(una + MSS, una, now);
    a.ecn_echo = true;
    s.handle_packet(now, &a);
    let alpha = s.alpha().unwrap();
    assert!(alpha > 0.1, "alpha decays from 1 only by (15/16) per unmarked window");
    let reduced = ((cwnd0 + MSS) as f64 * (1.0 - alpha / 2.0)) as u64;
    assert_eq!(s.cwnd(), reduced);
    let mut a = ack(una + 2 * MSS, una + MSS, now);
    a.ecn_echo = true;
    s.handle_packet(now, &a);
    assert_eq!(s.cwnd(), reduced, "at most one reduction per window");
}

#[test]
fn newreno_ignores_ecn_echo() {
    let mut s = TcpSender::new(info(100_000), &no_hs());
    let p = drain(&mut s, Time::ZERO);
    let mut a = ack(MSS, 0, p[0].sent_at);
    a.ecn_echo = true;
    s.handle_packet(Time(10), &a);
    assert_eq!(s.cwnd(), 3 * MSS);
    assert!(!s.ecn_capable());
}

#[test]
fn config_defaults_and_unknown_keys() {
    use serde::de::value::{Error, MapDeserializer};
    let empty: Vec<(&str, &str)> = vec![];
    let c = TcpConfig::deserialize(MapDeserializer::<_, Error>::new(empty.into_iter())).unwrap();
    assert_eq!(c, TcpConfig::default());
    assert_eq!((c.rto_min, c.init_cwnd, c.dupack_threshold, c.handshake), (Dur::ms(10), 2, 3, true));
    let c = TcpConfig::deserialize(MapDeserializer::<_, Error>::new(vec![("rto_min", "1ms")].into_iter())).unwrap();
    assert_eq!(c.rto_min, Dur::ms(1));
    let e = TcpConfig::deserialize(MapDeserializer::<_, Error>::new(vec![("rto_mn", "1ms")].into_iter()));
    assert!(e.unwrap_err().to_string().contains("rto_mn"));
    let e = TcpConfig::deserialize(MapDeserializer::<_, Error>::new(vec![("g", "1ms")].into_iter()));
    assert!(e.is_err(), "g is a DCTCP key");
    let d = DctcpConfig::default();
    assert_eq!(d.g, 1.0 / 16.0);
    assert!(d.validate().is_ok());
    assert_eq!(DctcpConfig { g: 0.0, ..d }.validate().unwrap_err().key, "g");
    assert_eq!(TcpConfig { init_cwnd: 0, ..TcpConfig::default() }.validate().unwrap_err().key, "init_cwnd");
    assert_eq!(TcpConfig { init_ssthresh: Some(0), ..TcpConfig::default() }.validate().unwrap_err().key, "init_ssthresh");
}

#[test]
fn slow_start_ends_at_the_initial_ssthresh() {
    // One window of 4 packets, each ACKed: unset (arbitrarily high, RFC
    // 5681 §3.1) it is slow start, one MSS per ACK; at an initial ssthresh
    // of 4 packets it is congestion avoidance, one MSS per window.
    let window_after_one_rtt = |init_ssthresh| {
        let cfg = TcpConfig { init_cwnd: 4, init_ssthresh, ..no_hs() };
        let mut s = TcpSender::new(info(1_000_000), &cfg);
        let out = drain(&mut s, Time::ZERO);
        assert_eq!(out.len(), 4);
        for p in &out {
            s.handle_packet(Time(100), &ack(p.seq + p.payload as u64, p.seq, p.sent_at));
        }
        (s.ssthresh(), s.cwnd())
    };
    assert_eq!(window_after_one_rtt(None), (u64::MAX, 8 * MSS));
    assert_eq!(window_after_one_rtt(Some(4)), (4 * MSS, 5 * MSS));
}

#[test]
fn timestamps_take_rtt_samples_from_retransmissions_karn_does_not() {
    // After a timeout the RTO is backed off; the ACK of the retransmitted
    // segment resets it with `timestamps`, and leaves it under Karn's rule.
    let rto_after_retransmission = |timestamps| {
        let cfg = TcpConfig { rto_min: Dur::us(200), timestamps, ..no_hs() };
        let mut s = TcpSender::new(info(10 * MSS), &cfg);
        let first = drain(&mut s, Time::ZERO);
        s.handle_packet(Time::ZERO + Dur::us(100), &ack(MSS, 0, first[0].sent_at));
        let _ = drain(&mut s, Time::ZERO + Dur::us(100));
        let fire = s.poll_timeout().expect("timer running");
        s.handle_timeout(fire);
        let retx = drain(&mut s, fire);
        assert!(retx[0].retransmit);
        let backed_off = s.rto();
        let mut a = ack(2 * MSS, MSS, retx[0].sent_at);
        a.retransmit = true;
        s.handle_packet(fire + Dur::us(100), &a);
        (backed_off, s.rto())
    };
    let (backed_off, karn) = rto_after_retransmission(false);
    assert_eq!(karn, backed_off);
    let (_, ts) = rto_after_retransmission(true);
    assert!(ts < backed_off, "{ts:?} < {backed_off:?}");
}

#[test]
fn waits_for_flow_start() {
    let mut i = info(1000);
    i.start = Time(500);
    let mut s = TcpSender::new(i, &TcpConfig::default());
    assert_eq!(s.poll_timeout(), Some(Time(500)));
    assert!(s.poll_transmit(Time(499)).is_none());
    s.handle_timeout(Time(500));
    assert_eq!(s.poll_transmit(Time(500)).unwrap().kind, PacketKind::Syn);
}

/// TCP_pr (D3 §6.1.1): a deadline at most a threshold's puts the flow's data
/// and SYN in that class, a later one in the next, none in the last.
#[test]
fn tcp_pr_classes_follow_the_deadline_from_the_start() {
    let cfg = TcpConfig { priority_deadlines: vec![Dur::ms(10), Dur::ms(30)], ..TcpConfig::default() };
    let class = |deadline: Option<Dur>| {
        let mut i = info(5 * MSS);
        i.start = Time::ZERO + Dur::ms(100);
        i.deadline = deadline.map(|d| i.start + d);
        let mut s = TcpSender::new(i, &cfg);
        let syn = drain(&mut s, i.start);
        syn[0].prio
    };
    assert_eq!(class(Some(Dur::ms(10))), 0);
    assert_eq!(class(Some(Dur::ms(11))), 1);
    assert_eq!(class(Some(Dur::ms(31))), 2);
    assert_eq!(class(None), 3);
    assert_eq!(cfg.priority_classes(), 4);
    let plain = TcpSender::new(info(5 * MSS), &no_hs()).poll_transmit(Time::ZERO).unwrap();
    assert_eq!(plain.prio, 0, "without TCP_pr every packet is in class 0");
    let bad = TcpConfig { priority_deadlines: vec![Dur::ms(30), Dur::ms(10)], ..TcpConfig::default() };
    assert_eq!(bad.validate().unwrap_err().key, "priority_deadlines");
}

/// Cut the window of a sender grown to 16 MSS with one marked ACK; returns
/// (window before, window after, alpha).
fn first_mark_cut(mut s: TcpSender) -> (u64, u64, f64) {
    let now = grow_to(&mut s, 16 * MSS);
    drain(&mut s, now);
    let una = s.snd_una();
    let mut a = ack(una + MSS, una, now);
    a.ecn_echo = true;
    let before = s.cwnd() + MSS; // the ACK's own growth comes first
    s.handle_packet(now, &a);
    (before, s.cwnd(), s.alpha().unwrap())
}

/// L2DCT (baselines.md "L2DCT"): a young flow (sent < s_min) is cut by
/// alpha^2.5 / 2, an old one (sent > s_max) by alpha^0.125 / 2.
#[test]
fn l2dct_cuts_young_flows_gently_and_old_ones_hard() {
    let mut cfg = L2dctConfig::default();
    cfg.dctcp.handshake = false;
    let (w0, w1, alpha) = first_mark_cut(TcpSender::l2dct(info(100_000_000), &cfg));
    assert_eq!(w1, (w0 as f64 * (1.0 - alpha.powf(2.5) / 2.0)) as u64, "young: weight w_max");
    // The same flow, counted as old: s_min and s_max far below what it sent.
    let mut old = cfg.clone();
    old.rule = L2dctRule { s_min: Bytes(1), s_max: Bytes(2), ..L2dctRule::default() };
    let (w0, w1, alpha) = first_mark_cut(TcpSender::l2dct(info(100_000_000), &old));
    assert_eq!(w1, (w0 as f64 * (1.0 - alpha.powf(0.125) / 2.0)) as u64, "old: weight w_min");
}

/// L2DCT's congestion-avoidance increase: w_c / w_max segments per window,
/// 1 MSS young and 0.05 MSS (50 B) old.
#[test]
fn l2dct_increase_follows_the_weight() {
    let young = FlowProgress {
        now: Time::ZERO, start: Time::ZERO, deadline: None, size: 10_000_000, remaining: 10_000_000, sent: 0,
        cwnd: 10 * MSS, rtt: Dur::us(100), line_rate: 125e6,
    };
    let old = FlowProgress { sent: 5_000_000, ..young };
    let cc = Cc::L2dct(DctcpState::new(1.0 / 16.0, 0.0), L2dctRule::default());
    assert_eq!(cc.increase(MSS, &young), MSS);
    assert_eq!(cc.increase(MSS, &old), 50);
}

/// baselines.md "D2TCP": T_c counts bytes not yet **sent**; past the
/// deadline d is `d_after_deadline` (2 as ns-3, 1 as Linux).
#[test]
fn d2tcp_imminence_counts_unsent_bytes_and_has_an_after_deadline_value() {
    let p = FlowProgress {
        now: Time::ZERO, start: Time::ZERO, deadline: Some(Time::ZERO + Dur::ms(1)), size: 150_000,
        remaining: 150_000, sent: 75_000, cwnd: 10_000, rtt: Dur::us(100), line_rate: 125e6,
    };
    // 75,000 B unsent at 0.75 x 10,000 B per 100 us: T_c = 1 ms = D.
    assert!((imminence(&p, ImminenceRange::default()) - 1.0).abs() < 1e-9);
    let late = FlowProgress { now: Time::ZERO + Dur::ms(2), ..p };
    assert_eq!(imminence(&late, ImminenceRange::default()), 2.0);
    let linux = ImminenceRange { d_after_deadline: 1.0, ..ImminenceRange::default() };
    assert_eq!(imminence(&late, linux), 1.0);
    // A lowered floor lets a lax flow's d go below 0.5 (papers/004 §II's 0.4).
    let lax = FlowProgress { deadline: Some(Time::ZERO + Dur::ms(4)), ..p };
    assert_eq!(imminence(&lax, ImminenceRange::default()), 0.5);
    let low = ImminenceRange { d_min: 0.1, ..ImminenceRange::default() };
    assert!((imminence(&lax, low) - 0.25).abs() < 1e-9);
    // T_c at the line rate: 75,000 B at 125 MB/s = 0.6 ms of the 1 ms left.
    let line = ImminenceRange { tc_rate: TcRate::LineRate, ..ImminenceRange::default() };
    assert!((imminence(&p, line) - 0.6).abs() < 1e-9);
}

/// `stop_at_deadline`: the sender wakes at the deadline, reports the flow
/// terminated and sends nothing more; without it, it runs on.
#[test]
fn stop_at_deadline_terminates_the_flow_at_its_deadline() {
    let mut i = info(1_000_000);
    i.deadline = Some(Time::ZERO + Dur::us(500));
    let cfg = TcpConfig { stop_at_deadline: true, rto_min: Dur::ms(1), ..no_hs() };
    let mut s = TcpSender::new(i, &cfg);
    assert_eq!(drain(&mut s, Time::ZERO).len(), 2);
    assert_eq!(s.poll_timeout(), i.deadline, "the deadline comes before the 1 ms RTO");
    s.handle_timeout(i.deadline.unwrap());
    assert_eq!(s.poll_event(), Some(FlowEvent::Terminated));
    assert!(s.is_closed() && s.poll_timeout().is_none());
    assert!(s.poll_transmit(i.deadline.unwrap()).is_none());
    let mut runs_on = TcpSender::new(i, &TcpConfig { rto_min: Dur::ms(1), ..no_hs() });
    drain(&mut runs_on, Time::ZERO);
    assert_eq!(runs_on.poll_timeout(), Some(Time::ZERO + Dur::ms(1)));
}
