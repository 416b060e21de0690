//! Unit tests of PDQ's sender (§3.1: probing, Early Termination), its
//! configuration and M-PDQ's sender (§6), driven by hand.

use super::header::NOBODY;
use super::tests::{C, ME, OTHER, RTT};
use super::{EtRemaining, PdqConfig, PdqSender, Variant};
use crate::endpoint::{Endpoint, FlowInfo};
use crate::packet::{Packet, PacketKind, Sched};
use dcflow_core::{Bytes, Dur, Rate, Time};

pub(crate) fn info(size: u64, deadline: Option<Time>) -> FlowInfo {
    FlowInfo {
        id: 0,
        size: Bytes(size),
        start: Time::ZERO,
        deadline,
        size_known: false,
        mss: 1460,
        line_rate: Rate(C),
        base_rtt: RTT,
        agent_hops: 1,
        dst: 0,
    }
}

/// The receiver's reply to `p` with a switch's decision in the header.
pub(crate) fn reply(p: &Packet, kind: PacketKind, at: Time, pause_by: u32, rate: u64, inter_probe: f32) -> Packet {
    let mut r = *p;
    r.kind = kind;
    r.reverse = true;
    if let Sched::Pdq(h) = &mut r.sched {
        h.pause_by = pause_by;
        h.rate = rate;
        h.inter_probe = inter_probe;
    }
    r.sent_at = p.sent_at;
    let _ = at;
    r
}

#[test]
fn sender_probes_every_i_s_rtts_while_paused() {
    let cfg = PdqConfig { variant: Variant::Full, ..Default::default() };
    let mut s = PdqSender::new(info(100_000, None), &cfg);
    let syn = s.poll_transmit(Time::ZERO).unwrap();
    assert_eq!(syn.kind, PacketKind::Syn);
    assert_eq!(syn.wire, 56, "40 B headers + the 16 B scheduling header");
    let Sched::Pdq(h) = syn.sched else { panic!() };
    assert_eq!(h.rate, C, "R_H = R_max");
    // Paused by switch 7 with I_H = 3 RTTs.
    let t = Time::ZERO + RTT;
    s.handle_packet(t, &reply(&syn, PacketKind::SynAck, t, ME, 0, 3.0));
    assert_eq!((s.rate(), s.paused_by(), s.inter_probe()), (0, ME, 3.0));
    assert!(s.poll_transmit(t).is_none(), "no data while paused");
    let next = s.poll_timeout().unwrap();
    assert_eq!(next, Time::ZERO + RTT.mul_f64(3.0), "3 RTTs after the last packet");
    let probe = s.poll_transmit(next).unwrap();
    assert_eq!(probe.kind, PacketKind::Probe);
    let Sched::Pdq(h) = probe.sched else { panic!() };
    assert_eq!(h.pause_by, ME, "P_H = P_S");
    // Accepted: data flows paced at R_S.
    let t2 = next + RTT;
    s.handle_packet(t2, &reply(&probe, PacketKind::Probe, t2, NOBODY, C / 2, 0.0));
    let d1 = s.poll_transmit(t2).unwrap();
    assert_eq!((d1.kind, d1.payload, d1.wire), (PacketKind::Data, 1444, 1500));
    assert!(s.poll_transmit(t2).is_none());
    assert_eq!(s.poll_timeout(), Some(t2 + Rate(C / 2).tx_time(Bytes(1500))));
    // Basic PDQ ignores I_H: one probe per RTT.
    let mut b = PdqSender::new(info(100_000, None), &PdqConfig { variant: Variant::Basic, ..Default::default() });
    let syn = b.poll_transmit(Time::ZERO).unwrap();
    b.handle_packet(t, &reply(&syn, PacketKind::SynAck, t, ME, 0, 3.0));
    assert_eq!(b.inter_probe(), 1.0);
}

#[test]
fn early_termination_conditions() {
    let cfg = PdqConfig { variant: Variant::EsEt, ..Default::default() };
    // (2): 1 MB needs 8 ms at 1 Gbps; a 5 ms deadline is hopeless at once.
    let mut s = PdqSender::new(info(1_000_000, Some(Time::ZERO + Dur::ms(5))), &cfg);
    s.handle_timeout(Time::ZERO);
    assert_eq!(s.poll_event(), Some(crate::endpoint::FlowEvent::Terminated));
    assert_eq!(s.poll_transmit(Time::ZERO).unwrap().kind, PacketKind::Fin, "TERM");
    // (3): paused with less than an RTT to the deadline.
    let d = Time::ZERO + Dur::us(900);
    let mut s = PdqSender::new(info(10_000, Some(d)), &cfg);
    let syn = s.poll_transmit(Time::ZERO).unwrap();
    s.handle_packet(Time::ZERO + RTT, &reply(&syn, PacketKind::SynAck, Time::ZERO, ME, 0, 0.0));
    assert!(s.poll_event().is_none());
    let at = s.poll_timeout().unwrap();
    assert!(at <= d, "a timer checks condition (3) before the deadline");
    s.handle_timeout(Time(d.0 - RTT.0 + 1));
    assert_eq!(s.poll_event(), Some(crate::endpoint::FlowEvent::Terminated));
    // ES alone never terminates.
    let mut s = PdqSender::new(info(1_000_000, Some(Time::ZERO + Dur::ms(5))), &PdqConfig { variant: Variant::Es, ..Default::default() });
    s.handle_timeout(Time::ZERO + Dur::ms(6));
    assert!(s.poll_event().is_none());
}

/// Condition (2) with `et_remaining`: 30 packets are in flight, unacked, when
/// the deadline is 0.6 ms away. The 100 KB not yet acknowledged need 0.8 ms at
/// 1 Gbps, the 56.7 KB not yet sent 0.45 ms: only the unacked reading
/// terminates (Fig. 3c).
#[test]
fn early_termination_counts_unacked_or_unsent_bytes() {
    let terminated = |et_remaining: EtRemaining| {
        let cfg = PdqConfig { variant: Variant::EsEt, et_remaining, ..Default::default() };
        let gap = Rate(C).tx_time(Bytes(1500));
        let sent_all = Time::ZERO + RTT + Dur(gap.0 * 30);
        let mut s = PdqSender::new(info(100_000, Some(sent_all + Dur::us(600))), &cfg);
        let syn = s.poll_transmit(Time::ZERO).unwrap();
        let mut now = Time::ZERO + RTT;
        s.handle_packet(now, &reply(&syn, PacketKind::SynAck, now, NOBODY, C, 0.0));
        for _ in 0..30 {
            assert_eq!(s.poll_transmit(now).unwrap().kind, PacketKind::Data);
            now += gap;
        }
        s.handle_timeout(now);
        s.poll_event() == Some(crate::endpoint::FlowEvent::Terminated)
    };
    assert!(terminated(EtRemaining::Unacked));
    assert!(!terminated(EtRemaining::Unsent));
}

#[test]
fn config_parses_and_validates() {
    let c: crate::ProtocolConfig =
        serde_json::from_str(r#"{"name": "pdq", "variant": "es_et", "early_start_k": 1.5}"#).unwrap();
    match &c {
        crate::ProtocolConfig::Pdq(p) => {
            assert_eq!(p.variant, Variant::EsEt);
            assert_eq!(p.early_start_k, 1.5);
        }
        _ => panic!(),
    }
    assert!(c.validate().is_ok());
    assert!(serde_json::from_str::<crate::ProtocolConfig>(r#"{"name": "pdq", "variant": "fast"}"#).is_err());
    assert!(serde_json::from_str::<crate::ProtocolConfig>(r#"{"name": "pdq", "k": 2}"#).is_err());
    let bad = PdqConfig { r_pdq: 0.0, ..Default::default() };
    assert_eq!(bad.validate().unwrap_err().to_string().split(':').next().unwrap().trim(), "r_pdq");
}

/// M-PDQ sender (§6), driven by hand: one SYN per subflow, each tagged with
/// its path; the subflows' T_H are their own shares; a subflow paused for a
/// shift period hands one period's worth of quota to the sending subflow
/// with the least remaining load; ACKs from any path settle the flow.
#[test]
fn mpdq_splits_shifts_from_paused_to_least_loaded_and_completes() {
    use super::mpdq::{MpdqSender, PathInfo, SubPhase};
    let cfg = PdqConfig { subflows: 3, ..PdqConfig::default() };
    let path = PathInfo { line_rate: Rate(C), base_rtt: RTT };
    // 30 segments of 960 B (MSS 976 less the 16 B PDQ header).
    let mut info = info(28_800, None);
    info.mss = 976;
    let mut s = MpdqSender::new(info, &cfg, &[path; 3]);
    assert_eq!(s.subflows(), 3);
    let syns: Vec<Packet> = std::iter::from_fn(|| s.poll_transmit(Time::ZERO)).collect();
    assert_eq!(syns.iter().map(|p| (p.kind, p.path)).collect::<Vec<_>>(), vec![(PacketKind::Syn, 0), (PacketKind::Syn, 1), (PacketKind::Syn, 2)]);
    assert_eq!((0..3).map(|i| s.remaining(i)).collect::<Vec<_>>(), vec![9600; 3], "equal shares");
    // Subflows 0 and 1 accepted; subflow 2 paused by switch OTHER.
    let t1 = Time::ZERO + RTT;
    s.handle_packet(t1, &reply(&syns[0], PacketKind::SynAck, t1, NOBODY, C, 1.0));
    s.handle_packet(t1, &reply(&syns[1], PacketKind::SynAck, t1, NOBODY, C, 1.0));
    s.handle_packet(t1, &reply(&syns[2], PacketKind::SynAck, t1, OTHER, 0, 1.0));
    assert_eq!((s.rate(0), s.rate(1), s.rate(2)), (C, C, 0));
    // Subflow 0 sends one packet, so subflow 1 has the least load.
    let d0 = s.poll_transmit(t1).unwrap();
    assert_eq!((d0.kind, d0.path, d0.seq), (PacketKind::Data, 0, 0));
    let d1 = s.poll_transmit(t1).unwrap();
    assert_eq!((d1.kind, d1.path, d1.seq), (PacketKind::Data, 1, 960), "the next segment of the flow, on path 1");
    // Half an RTT later subflow 2 has not been paused for a whole period.
    s.handle_packet(t1 + Dur::us(50), &ack_for(&d0, 960));
    assert_eq!(s.remaining(0), 8640);
    assert_eq!(s.shifts().0, 0);
    // Later (subflow 2 paused for more than a period) the next reply
    // triggers a shift of one period's worth (1 Gbps x ~RTT > the 10
    // segments it has) to subflow 0, the least loaded (tied with 1).
    let t3 = t1 + RTT + RTT + RTT;
    s.handle_packet(t3, &ack_for(&d1, 1920));
    assert_eq!(s.shifts().0, 1);
    assert_eq!(s.remaining(2), 0);
    assert_eq!(s.remaining(0), 8640 + 9600);
    assert_eq!(s.phase(2), SubPhase::Closing, "a paused subflow without load closes");
    // Drain: every data packet acknowledged on its own path.
    let mut t = t3;
    let mut acked = 1920;
    while acked < 28_800 {
        t += Dur::us(20);
        let sent: Vec<Packet> = std::iter::from_fn(|| s.poll_transmit(t)).collect();
        if sent.is_empty() {
            s.handle_timeout(t);
        }
        for p in sent.iter().filter(|p| p.kind == PacketKind::Data) {
            acked = acked.max(p.seq + p.payload as u64);
            s.handle_packet(t, &ack_for(p, acked));
        }
    }
    assert_eq!(s.acked_bytes(), 28_800);
    assert!((0..3).all(|i| s.phase(i) == SubPhase::Closing), "TERM on every live subflow");
}

/// `subflow_criticality` (§6 leaves it open): "own" gives each subflow its
/// own remaining load over its R_S^max, "flow" the whole flow's unacked
/// bytes over the sum of its live subflows' R_S^max. Equal at the split;
/// after subflow 0's first segment is acknowledged they differ.
#[test]
fn mpdq_subflow_criticality_is_own_share_or_whole_flow() {
    use super::mpdq::{MpdqSender, PathInfo};
    use super::SubflowCriticality;
    let expected = |p: &Packet| match p.sched {
        Sched::Pdq(h) => h.expected,
        _ => panic!("PDQ header"),
    };
    let at = |b: u64, r: u64| Rate(r).tx_time(Bytes(b));
    for crit in [SubflowCriticality::Own, SubflowCriticality::Flow] {
        let cfg = PdqConfig { subflows: 3, subflow_criticality: crit, ..PdqConfig::default() };
        let mut info = info(28_800, None);
        info.mss = 976;
        let mut s = MpdqSender::new(info, &cfg, &[PathInfo { line_rate: Rate(C), base_rtt: RTT }; 3]);
        let syns: Vec<Packet> = std::iter::from_fn(|| s.poll_transmit(Time::ZERO)).collect();
        assert!(syns.iter().all(|p| expected(p) == at(9600, C)), "{crit:?}: equal at the split");
        let t1 = Time::ZERO + RTT;
        for syn in &syns {
            s.handle_packet(t1, &reply(syn, PacketKind::SynAck, t1, NOBODY, C, 1.0));
        }
        let d0 = s.poll_transmit(t1).unwrap();
        assert_eq!((d0.kind, d0.path), (PacketKind::Data, 0));
        s.handle_packet(t1 + Dur::us(50), &ack_for(&d0, 960));
        let t2 = t1 + RTT;
        let next: Vec<(u8, Dur)> = std::iter::from_fn(|| s.poll_transmit(t2)).map(|p| (p.path, expected(&p))).collect();
        let want = match crit {
            // Subflow 0: 8 segments of quota + 1 in flight; the others 9 + 1.
            SubflowCriticality::Own => vec![(1, at(9600, C)), (2, at(9600, C)), (0, at(8640, C))],
            SubflowCriticality::Flow => vec![(1, at(27_840, 3 * C)), (2, at(27_840, 3 * C)), (0, at(27_840, 3 * C))],
        };
        assert_eq!(next, want, "{crit:?}");
    }
}

/// An ACK for data packet `d` with cumulative ack `cum`, on `d`'s path.
fn ack_for(d: &Packet, cum: u64) -> Packet {
    let mut a = reply(d, PacketKind::Ack, d.sent_at, NOBODY, C, 1.0);
    a.seq = cum;
    a.acked_seq = d.seq;
    a.path = d.path;
    a
}
