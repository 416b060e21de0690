//! pHost's host agent driven directly (sans-IO): the mechanisms of pHost §3
//! one at a time, with YAPS's constants unless a test says otherwise.

use super::header::{PhostHeader, HIGH, LOW};
use super::{FreeTokensFor, PhostConfig, PhostHost};
use crate::endpoint::{FlowEvent, FlowInfo};
use crate::host::HostEndpoint;
use crate::packet::{Packet, PacketKind};
use dcflow_core::{Bytes, Dur, FlowId, Rate, Time};

const RATE: Rate = Rate::gbps(10);
const MTU: u32 = 1500;

/// One MTU's transmission time at 10 Gbps: 1.2 us, pHost's clock.
fn slot() -> Dur {
    RATE.tx_time(Bytes(MTU as u64))
}

fn info(id: FlowId, packets: u64, base_rtt: Dur) -> FlowInfo {
    FlowInfo {
        id,
        size: Bytes(packets * 1460),
        start: Time::ZERO,
        deadline: None,
        size_known: false,
        mss: 1460,
        line_rate: RATE,
        base_rtt,
        agent_hops: 2,
        dst: 0,
    }
}

/// Large flows wait for tokens (YAPS's free-token rule), so a destination's
/// choices are the only thing that moves them.
fn yaps() -> PhostConfig {
    PhostConfig { free_tokens: 8, free_tokens_for: FreeTokensFor::Short, downgrade_after: 8, ..PhostConfig::default() }
}

/// Everything `host` sends from `from` on, polling at each of its timeouts,
/// until `until`.
fn drain(host: &mut PhostHost, from: Time, until: Time) -> Vec<(Time, Packet)> {
    let mut out = Vec::new();
    let mut now = from;
    loop {
        host.handle_timeout(now);
        while let Some(p) = host.poll_transmit(now) {
            out.push((now, p));
        }
        match host.poll_timeout() {
            Some(t) if t <= until => now = t,
            _ => return out,
        }
    }
}

/// The RTS `src` would send for `info`, handed to a destination.
fn rts_of(cfg: &PhostConfig, info: FlowInfo) -> Packet {
    let mut src = PhostHost::new(cfg, RATE, MTU);
    src.start_flow(Time::ZERO, info);
    let rts = src.poll_transmit(Time::ZERO).unwrap();
    assert_eq!(rts.kind, PacketKind::Syn);
    rts
}

fn tokens(sent: &[(Time, Packet)]) -> Vec<FlowId> {
    sent.iter().filter(|(_, p)| p.kind == PacketKind::Probe).map(|(_, p)| p.flow).collect()
}

/// The data packet spending `token` of flow `f`.
fn data_for(token: &Packet, packets: u32) -> Packet {
    let h = PhostHeader::of(token);
    let mut d = Packet::new(token.flow, PacketKind::Data, false, Time::ZERO);
    d.seq = h.packet as u64 * 1460;
    d.payload = 1460;
    d.wire = 1500;
    d.sched = crate::packet::Sched::Phost(PhostHeader { token: h.token, packet: h.packet, count: packets, free: 0, bdp: 8 });
    d
}

/// A source sends its RTS, then its first BDP unscheduled at line rate, and
/// nothing more until tokens come (§3). The free packets go at the high
/// priority; the BDP here is 10 Gbps x 12 us = 10 packets.
#[test]
fn a_source_sends_its_first_bdp_on_free_tokens() {
    let cfg = PhostConfig::default();
    let mut host = PhostHost::new(&cfg, RATE, MTU);
    let flow = info(1, 100, Dur::us(12));
    assert_eq!(flow.bdp_packets(), 10);
    host.start_flow(Time::ZERO, flow);
    let sent = drain(&mut host, Time::ZERO, Time::ZERO + Dur::ms(1));
    assert_eq!(sent[0].1.kind, PacketKind::Syn);
    let data: Vec<&Packet> = sent.iter().map(|(_, p)| p).filter(|p| p.kind == PacketKind::Data).collect();
    assert_eq!(data.len(), 10);
    assert!(data.iter().enumerate().all(|(i, p)| p.seq == i as u64 * 1460 && p.prio == HIGH && !p.reverse));
    // Back to back after the RTS: one MTU time apart.
    let times: Vec<Time> = sent.iter().filter(|(_, p)| p.kind == PacketKind::Data).map(|(t, _)| *t).collect();
    assert!(times.windows(2).all(|w| w[1] - w[0] == slot()));
    // A token later, scheduled data at the low priority.
    let mut token = Packet::new(1, PacketKind::Probe, true, Time::ZERO);
    token.sched = crate::packet::Sched::Phost(PhostHeader { token: 10, packet: 10, count: 90, free: 0, bdp: 0 });
    let t = Time::ZERO + Dur::ms(2);
    host.handle_packet(t, &token);
    let p = host.poll_transmit(t).unwrap();
    assert_eq!((p.kind, p.seq, p.prio), (PacketKind::Data, 10 * 1460, LOW));
}

/// A destination tokens the flow with the fewest packets left first (SRPT,
/// §3), one token per MTU time; when that flow's source leaves
/// `downgrade_after` tokens unanswered, the destination downgrades it and
/// tokens the other flow (§3), until `downgrade_for` after its last token.
#[test]
fn tokens_go_shortest_first_and_skip_a_downgraded_source() {
    let cfg = yaps();
    let mut dst = PhostHost::new(&cfg, RATE, MTU);
    let t0 = Time::ZERO;
    dst.handle_packet(t0, &rts_of(&cfg, info(1, 100, Dur::us(12))));
    dst.handle_packet(t0, &rts_of(&cfg, info(2, 20, Dur::us(12))));
    let sent = drain(&mut dst, t0, t0 + Dur(slot().0 * 12));
    let order = tokens(&sent);
    // Flow 2's source never answers: 8 tokens (a ninth would leave 9
    // unanswered, counting from -1 as YAPS does), then flow 1 gets the
    // rest of the slots.
    assert_eq!(order[..8], [2; 8]);
    assert!(order[8..].iter().all(|&f| f == 1) && order.len() == 13, "{order:?}");
    let times: Vec<Time> = sent.iter().filter(|(_, p)| p.kind == PacketKind::Probe).map(|(t, _)| *t).collect();
    assert!(times.windows(2).all(|w| w[1] - w[0] == slot()));
    // 25 slots after its last token, flow 2 is forgiven and tokened again.
    let last2 = sent.iter().rfind(|(_, p)| p.flow == 2 && p.kind == PacketKind::Probe).unwrap().0;
    let later = drain(&mut dst, times[times.len() - 1] + slot(), last2 + Dur(slot().0 * 27));
    let back = later.iter().find(|(_, p)| p.flow == 2).expect("flow 2 tokened again").0;
    assert!(back >= last2 + Dur(slot().0 * 25) && back < last2 + Dur(slot().0 * 26), "{back:?} vs {last2:?}");
}

/// A token not spent within `token_expiry` MTU times of its arrival is
/// dropped (§3): the source's NIC was busy, or it served another flow.
#[test]
fn a_token_expires() {
    let cfg = yaps();
    let mut src = PhostHost::new(&cfg, RATE, MTU);
    src.start_flow(Time::ZERO, info(1, 100, Dur::us(12)));
    assert_eq!(src.poll_transmit(Time::ZERO).unwrap().kind, PacketKind::Syn);
    let mut token = Packet::new(1, PacketKind::Probe, true, Time::ZERO);
    token.sched = crate::packet::Sched::Phost(PhostHeader { token: 0, packet: 0, count: 100, free: 0, bdp: 0 });
    let t = Time::ZERO + Dur::us(5);
    src.handle_packet(t, &token);
    // 1.5 MTU times = 1.8 us at 10 Gbps: at 1.9 us it is gone.
    assert!(src.poll_transmit(t + Dur::ns(1900)).is_none());
    src.handle_packet(t, &token);
    assert_eq!(src.poll_transmit(t + Dur::ns(1700)).map(|p| p.kind), Some(PacketKind::Data));
}

/// Retransmission (§3): once every missing packet has been tokened, the
/// destination waits `resend_after` MTU times and tokens the packets still
/// missing again; the source sends them again (a retransmission), and the
/// flow is delivered and its source closed by the final ACK.
#[test]
fn a_lost_packet_is_tokened_again() {
    // No downgrade: the data of the round is handed over after it.
    let cfg = PhostConfig { downgrade_after: 100, ..yaps() };
    let (mut src, mut dst) = (PhostHost::new(&cfg, RATE, MTU), PhostHost::new(&cfg, RATE, MTU));
    let flow = info(1, 12, Dur::us(12));
    src.start_flow(Time::ZERO, flow);
    let rts = src.poll_transmit(Time::ZERO).unwrap();
    dst.handle_packet(Time::ZERO, &rts);
    let sent = drain(&mut dst, Time::ZERO, Time::ZERO + Dur(slot().0 * 12));
    assert_eq!(tokens(&sent).len(), 12, "one round: every packet once");
    // Every packet but #5 arrives.
    let mut now = Time::ZERO + Dur(slot().0 * 12);
    for (_, tok) in sent.iter().filter(|(_, p)| PhostHeader::of(p).packet != 5) {
        dst.handle_packet(now, &data_for(tok, 12));
    }
    assert!(dst.poll_event().is_none());
    // The round ended with the last token; 9 MTU times later #5 is tokened again.
    let last = sent.last().unwrap().0;
    let again = drain(&mut dst, now, last + Dur(slot().0 * 10));
    let (at, tok) = again.iter().find(|(_, p)| p.kind == PacketKind::Probe).expect("a new token");
    assert_eq!(PhostHeader::of(tok).packet, 5);
    assert!(*at >= last + Dur(slot().0 * 9));
    // The source had sent #5 on its first token (the copy that was lost) ...
    src.handle_packet(*at, &sent[5].1);
    let first = drain(&mut src, *at, *at + Dur::us(1));
    assert!(first.iter().any(|(_, p)| p.kind == PacketKind::Data && p.seq == 5 * 1460 && !p.retransmit));
    // ... and sends it again on the new one: a retransmission.
    now = *at + Dur::us(20);
    src.handle_packet(now, tok);
    let resent = src.poll_transmit(now).unwrap();
    assert_eq!((resent.seq, resent.retransmit), (5 * 1460, true));
    assert_eq!(src.retransmits(), 1);
    // ... the destination has the flow and ACKs it; the source closes.
    dst.handle_packet(now, &resent);
    assert_eq!(dst.poll_event(), Some((1, FlowEvent::Delivered)));
    let ack = dst.poll_transmit(now + Dur::us(1)).unwrap();
    assert_eq!((ack.kind, ack.reverse), (PacketKind::Ack, true));
    src.handle_packet(now, &ack);
    assert_eq!(src.poll_event(), Some((1, FlowEvent::Closed)));
}

/// A source serves, among the flows it holds live tokens for, the one with
/// the fewest packets left as its destination last told it (§3).
#[test]
fn a_source_spends_tokens_on_its_shortest_flow_first() {
    let cfg = yaps();
    let mut src = PhostHost::new(&cfg, RATE, MTU);
    for f in [1, 2] {
        src.start_flow(Time::ZERO, info(f, 100, Dur::us(12)));
    }
    let t = Time::ZERO + Dur::us(5);
    assert_eq!(drain(&mut src, Time::ZERO, t).len(), 2, "the two RTS");
    for (f, left) in [(1, 50), (2, 30)] {
        let mut token = Packet::new(f, PacketKind::Probe, true, t);
        token.sched = crate::packet::Sched::Phost(PhostHeader { token: 0, packet: 0, count: left, free: 0, bdp: 0 });
        src.handle_packet(t, &token);
    }
    let first = src.poll_transmit(t).unwrap();
    let second = src.poll_transmit(t + slot()).unwrap();
    assert_eq!((first.flow, second.flow), (2, 1));
}

#[test]
fn keys_are_checked() {
    let bad = PhostConfig { token_expiry: 0.0, ..PhostConfig::default() };
    assert_eq!(bad.validate().unwrap_err().key, "token_expiry");
    let bad = PhostConfig { free_tokens_for: FreeTokensFor::Short, free_tokens: 0, ..PhostConfig::default() };
    assert_eq!(bad.validate().unwrap_err().key, "free_tokens");
}

/// `wake_on`: a destination whose only flow is downgraded tokens it again
/// as soon as data answering its tokens arrives (`packet`), or only when
/// its downgrade timer ends (`timer`, YAPS's destination).
#[test]
fn an_idle_destination_wakes_on_data_or_only_on_its_timer() {
    for (wake_on, wakes_at_once) in [(super::WakeOn::Packet, true), (super::WakeOn::Timer, false)] {
        let cfg = PhostConfig { wake_on, ..yaps() };
        let mut dst = PhostHost::new(&cfg, RATE, MTU);
        dst.handle_packet(Time::ZERO, &rts_of(&cfg, info(1, 100, Dur::us(12))));
        let sent = drain(&mut dst, Time::ZERO, Time::ZERO + Dur(slot().0 * 10));
        assert_eq!(tokens(&sent).len(), 8, "then downgraded");
        let t = Time::ZERO + Dur(slot().0 * 10);
        dst.handle_packet(t, &data_for(&sent[7].1, 100));
        let next = drain(&mut dst, t, t + Dur(slot().0 * 40));
        let first = next.iter().find(|(_, p)| p.kind == PacketKind::Probe).expect("tokened again").0;
        let relax = sent[7].0 + Dur(slot().0 * 25);
        assert_eq!(first == t, wakes_at_once, "{wake_on:?}: first token at {first:?}, data at {t:?}");
        assert!(wakes_at_once || first >= relax, "{wake_on:?}: {first:?} before the downgrade's end {relax:?}");
    }
}
