//! The Homa host agent driven directly: a packet's fate is the test's.

use super::*;
use crate::endpoint::{FlowEvent, FlowInfo};
use crate::host::HostEndpoint;
use crate::packet::{Packet, PacketKind, Sched};
use dcflow_core::{Bytes, Dur, FlowId, Rate, Time};
use std::collections::BTreeMap;

const MSS: u32 = 1000;
const RTT_BYTES: u64 = 4000;

const MTU: u32 = MSS + crate::packet::HEADER_BYTES;

/// Two unscheduled levels split at 2000 B, six scheduled ones.
fn config() -> HomaConfig {
    HomaConfig { rtt_bytes: Some(Bytes(RTT_BYTES)), unscheduled_cutoffs: vec![Bytes(2000)], ..Default::default() }
}

fn host(cfg: HomaConfig) -> HomaHost {
    HomaHost::new(&cfg, Rate::gbps(10), MTU)
}

fn info(id: FlowId, size: u64, dst: u32) -> FlowInfo {
    FlowInfo {
        id,
        size: Bytes(size),
        start: Time::ZERO,
        deadline: None,
        size_known: false,
        mss: MSS,
        line_rate: Rate::gbps(10),
        base_rtt: Dur::us(4),
        agent_hops: 2,
        dst,
    }
}

/// Everything the host sends from `now` on as its NIC frees up and its
/// timer fires, for `within`.
fn drain(h: &mut HomaHost, now: &mut Time, within: Dur) -> Vec<Packet> {
    let until = *now + within;
    let mut out = Vec::new();
    loop {
        while let Some(p) = h.poll_transmit(*now) {
            out.push(p);
        }
        match h.poll_timeout() {
            Some(t) if t <= until => {
                *now = (*now).max(t);
                h.handle_timeout(*now);
            }
            _ => return out,
        }
    }
}

fn header(p: &Packet) -> HomaHeader {
    match p.sched {
        Sched::Homa(h) => h,
        other => panic!("not a Homa packet: {other:?}"),
    }
}

fn grants(ps: &[Packet]) -> Vec<(FlowId, u64, u8)> {
    ps.iter()
        .filter_map(|p| match header(p) {
            HomaHeader::Grant { offset, prio } => Some((p.flow, offset, prio)),
            _ => None,
        })
        .collect()
}

#[test]
fn unscheduled_bytes_go_at_once_at_the_cutoff_level_then_wait_for_grants() {
    let mut h = host(config());
    h.start_flow(Time::ZERO, info(1, 1500, 9));
    h.start_flow(Time::ZERO, info(2, 10_000, 9));
    let mut now = Time::ZERO;
    let sent = drain(&mut h, &mut now, Dur::us(100));
    // SRPT: the 1500 B message first, at level 0 (<= 2000 B); then RTTbytes
    // (4 packets) of the 10 KB one at level 1, and nothing more.
    let seen: Vec<(FlowId, u64, u64)> = sent.iter().map(|p| (p.flow, p.seq, p.prio)).collect();
    assert_eq!(seen, vec![(1, 0, 0), (1, 1000, 0), (2, 0, 1), (2, 1000, 1), (2, 2000, 1), (2, 3000, 1)]);
    assert!(sent.iter().all(|p| p.kind == PacketKind::Data && !p.reverse));
    // Back to back at line rate: 1040 B is 832 ns at 10 Gbps.
    assert_eq!(sent[1].sent_at.since(sent[0].sent_at), Dur::ns(832));
    assert_eq!(header(&sent[5]), HomaHeader::Data { size: 10_000, unscheduled: 4000 });
}

fn data(flow: FlowId, seq: u64, size: u64) -> Packet {
    let mut p = Packet::new(flow, PacketKind::Data, false, Time::ZERO);
    p.seq = seq;
    p.payload = MSS.min((size - seq) as u32);
    p.wire = p.payload + crate::packet::HEADER_BYTES;
    p.sched = Sched::Homa(HomaHeader::Data { size, unscheduled: RTT_BYTES.min(size) });
    p
}

#[test]
fn grants_go_in_srpt_order_to_the_overcommitted_few_at_the_lowest_levels() {
    let mut r = host(HomaConfig { overcommitment: 2, ..config() });
    let mut now = Time::ZERO;
    // Three scheduled messages announce themselves, longest first.
    r.handle_packet(now, &data(3, 0, 30_000));
    r.handle_packet(now, &data(2, 0, 20_000));
    r.handle_packet(now, &data(1, 0, 10_000));
    let out = drain(&mut r, &mut now, Dur::us(10));
    // Each arrival grants RTTbytes past what arrived to the two shortest:
    // the 30 KB one alone (level 7), then the 20 KB one first (6, 7), then
    // the 10 KB and 20 KB ones; the 30 KB message waits.
    assert_eq!(grants(&out), vec![(3, 5000, 7), (2, 5000, 6), (1, 5000, 6)]);
    // The next packet of the 20 KB message: one grant, one packet further,
    // at the level of its rank (second: 7).
    r.handle_packet(now, &data(2, 1000, 20_000));
    let out = drain(&mut r, &mut now, Dur::us(10));
    assert_eq!(grants(&out), vec![(2, 6000, 7)]);
    assert!(out.iter().all(|p| p.reverse && p.prio == 0), "grants go back at the top level");
}

#[test]
fn the_sender_sends_granted_bytes_at_the_granted_level() {
    let mut s = host(config());
    let mut now = Time::ZERO;
    s.start_flow(now, info(1, 8000, 9));
    assert_eq!(drain(&mut s, &mut now, Dur::us(20)).len(), 4);
    let mut g = Packet::new(1, PacketKind::Probe, true, now);
    g.sched = Sched::Homa(HomaHeader::Grant { offset: 6000, prio: 5 });
    s.handle_packet(now, &g);
    let out = drain(&mut s, &mut now, Dur::us(20));
    assert_eq!(out.iter().map(|p| (p.seq, p.prio)).collect::<Vec<_>>(), vec![(4000, 5), (5000, 5)]);
}

/// A small network: every packet takes `delay` to its host; `lose` decides
/// which packets vanish.
struct Net {
    hosts: Vec<HomaHost>,
    ends: BTreeMap<FlowId, (usize, usize)>,
    events: Vec<(usize, FlowId, FlowEvent)>,
}

impl Net {
    fn new(n: usize, cfg: HomaConfig) -> Net {
        Net { hosts: (0..n).map(|_| host(cfg.clone())).collect(), ends: BTreeMap::new(), events: Vec::new() }
    }
    fn start(&mut self, now: Time, id: FlowId, src: usize, dst: usize, size: u64) {
        self.ends.insert(id, (src, dst));
        self.hosts[src].start_flow(now, info(id, size, dst as u32));
    }
    /// Runs until nothing happens before `until`; returns every packet sent.
    fn run(&mut self, until: Time, mut lose: impl FnMut(&Packet) -> bool) -> Vec<Packet> {
        let delay = Dur::us(2);
        let mut wire: Vec<(Time, usize, Packet)> = Vec::new();
        let mut sent = Vec::new();
        let mut now = Time::ZERO;
        loop {
            for (i, h) in self.hosts.iter_mut().enumerate() {
                while let Some(p) = h.poll_transmit(now) {
                    sent.push(p);
                    let (src, dst) = self.ends[&p.flow];
                    if !lose(&p) {
                        wire.push((now + delay, if p.reverse { src } else { dst }, p));
                    }
                }
                while let Some((f, e)) = h.poll_event() {
                    self.events.push((i, f, e));
                }
            }
            let next_arrival = wire.iter().map(|w| w.0).min();
            let next_timer = self.hosts.iter().filter_map(|h| h.poll_timeout()).min();
            let Some(t) = next_arrival.into_iter().chain(next_timer).min().filter(|&t| t <= until) else {
                return sent;
            };
            now = t;
            let (due, rest): (Vec<_>, Vec<_>) = wire.into_iter().partition(|w| w.0 <= now);
            wire = rest;
            for (_, to, p) in due {
                self.hosts[to].handle_packet(now, &p);
            }
            for h in &mut self.hosts {
                if h.poll_timeout().is_some_and(|t| t <= now) {
                    h.handle_timeout(now);
                }
            }
        }
    }
    fn finished(&self, flow: FlowId) -> (bool, bool) {
        let has = |e| self.events.iter().any(|&(_, f, ev)| f == flow && ev == e);
        (has(FlowEvent::Delivered), has(FlowEvent::Closed))
    }
}

#[test]
fn messages_finish_and_the_receiver_runs_its_downlink_shortest_first() {
    let mut net = Net::new(4, config());
    net.start(Time::ZERO, 1, 1, 0, 40_000);
    net.start(Time::ZERO, 2, 2, 0, 20_000);
    net.start(Time::ZERO, 3, 3, 0, 3_000);
    let sent = net.run(Time::ZERO + Dur::ms(1), |_| false);
    for f in 1..=3 {
        assert_eq!(net.finished(f), (true, true), "flow {f}");
        assert_eq!(net.hosts[0].bytes_delivered(f), [40_000, 20_000, 3_000][f as usize - 1]);
    }
    let order: Vec<FlowId> = net.events.iter().filter(|e| e.2 == FlowEvent::Delivered).map(|e| e.1).collect();
    assert_eq!(order, vec![3, 2, 1]);
    assert_eq!(sent.iter().filter(|p| p.retransmit).count(), 0);
    assert_eq!(net.hosts.iter().map(|h| h.retransmits()).sum::<u64>(), 0);
}

#[test]
fn a_lost_packet_is_asked_for_again_with_resend() {
    let cfg = HomaConfig { resend_timeout: Some(Dur::us(50)), ..config() };
    let mut net = Net::new(2, cfg);
    net.start(Time::ZERO, 1, 1, 0, 12_000);
    let mut lost = false;
    let sent = net.run(Time::ZERO + Dur::ms(1), |p| {
        let drop = p.kind == PacketKind::Data && p.seq == 6000 && !lost;
        lost |= drop;
        drop
    });
    assert_eq!(net.finished(1), (true, true));
    let resends: Vec<HomaHeader> =
        sent.iter().map(header).filter(|h| matches!(h, HomaHeader::Resend { .. })).collect();
    // Everything else arrived: the receiver asks for the hole.
    assert_eq!(resends, vec![HomaHeader::Resend { offset: 6000, length: 1000, prio: 7 }]);
    let again: Vec<(u64, u64)> = sent.iter().filter(|p| p.retransmit).map(|p| (p.seq, p.prio)).collect();
    assert_eq!(again, vec![(6000, 7)]);
    assert_eq!(net.hosts[1].retransmits(), 1);
}

#[test]
fn a_sender_busy_with_a_shorter_message_answers_busy() {
    let mut s = host(config());
    let mut now = Time::ZERO;
    s.start_flow(now, info(1, 50_000, 9));
    s.start_flow(now, info(2, 20_000, 8));
    drain(&mut s, &mut now, Dur::us(20));
    // Both receivers grant everything; the sender works on the shorter one.
    for (flow, size) in [(1, 50_000), (2, 20_000)] {
        let mut g = Packet::new(flow, PacketKind::Probe, true, now);
        g.sched = Sched::Homa(HomaHeader::Grant { offset: size, prio: 7 });
        s.handle_packet(now, &g);
    }
    let mut r = Packet::new(1, PacketKind::Probe, true, now);
    r.sched = Sched::Homa(HomaHeader::Resend { offset: 0, length: 50_000, prio: 7 });
    s.handle_packet(now, &r);
    let first = s.poll_transmit(now + Dur::us(1)).unwrap();
    assert_eq!((first.flow, header(&first), first.reverse, first.prio), (1, HomaHeader::Busy, false, 0));
    let next = s.poll_transmit(now + Dur::us(2)).unwrap();
    assert_eq!(next.flow, 2, "SRPT keeps sending the shorter message");
    // The receiver takes BUSY as word from the sender: no RESEND at its next tick.
    let mut rx = host(HomaConfig { resend_timeout: Some(Dur::us(50)), ..config() });
    let mut t = Time::ZERO;
    rx.handle_packet(t, &data(1, 0, 50_000));
    drain(&mut rx, &mut t, Dur::us(40));
    rx.handle_packet(t, &first);
    let out = drain(&mut rx, &mut t, Dur::us(60));
    assert!(out.iter().all(|p| !matches!(header(p), HomaHeader::Resend { .. })), "{out:?}");
}

#[test]
fn a_message_whose_unscheduled_packets_all_vanish_is_sent_again() {
    let cfg = HomaConfig { resend_timeout: Some(Dur::us(50)), ..config() };
    let mut net = Net::new(2, cfg);
    net.start(Time::ZERO, 1, 1, 0, 9_000);
    let sent = net.run(Time::ZERO + Dur::ms(1), |p| p.kind == PacketKind::Data && !p.retransmit && p.seq < RTT_BYTES);
    // The receiver never heard of it; the sender's timer resends packet 0,
    // the receiver then grants and, at its next tick, asks for the hole.
    assert_eq!(net.finished(1), (true, true));
    let again: Vec<u64> = sent.iter().filter(|p| p.retransmit).map(|p| p.seq).collect();
    assert_eq!(again, vec![0, 1000, 2000, 3000]);
}

#[test]
fn determinism_same_inputs_same_packets() {
    let run = || {
        let mut net = Net::new(5, config());
        for (i, size) in [7_000u64, 33_000, 12_000, 2_500, 90_000, 1_000].into_iter().enumerate() {
            net.start(Time::ZERO, i as FlowId, 1 + i % 4, 0, size);
        }
        net.run(Time::ZERO + Dur::ms(2), |_| false).iter().map(|p| (p.flow, p.seq, p.sent_at, p.prio)).collect::<Vec<_>>()
    };
    assert_eq!(run(), run());
}

#[test]
fn config_checks_name_the_key() {
    let bad = |c: HomaConfig| c.validate().unwrap_err().key;
    assert_eq!(bad(HomaConfig { priorities: 9, ..Default::default() }), "priorities");
    assert_eq!(bad(HomaConfig { unscheduled_priorities: 9, ..Default::default() }), "unscheduled_priorities");
    assert_eq!(bad(HomaConfig { unscheduled_cutoffs: vec![Bytes(10), Bytes(5)], ..Default::default() }), "unscheduled_cutoffs");
    assert_eq!(bad(HomaConfig { resend_timeout: Some(Dur::ZERO), ..Default::default() }), "resend_timeout");
    assert_eq!(bad(HomaConfig { rtt_bytes: Some(Bytes(0)), ..Default::default() }), "rtt_bytes");
    assert!(HomaConfig::default().validate().is_ok());
    // Resolved against a workload of small messages: 7 unscheduled levels
    // (6 cutoffs), and the paper's overcommitment, the scheduled levels.
    let cfg = HomaConfig::default().resolved(&(1..=100).collect::<Vec<u64>>(), 10_000);
    assert_eq!((cfg.unscheduled_priorities, cfg.unscheduled_cutoffs.len()), (7, 6));
    assert!(cfg.validate().is_ok());
    let p = cfg.params(MTU);
    assert_eq!((p.prios.unscheduled_levels(), p.overcommitment, p.mss), (7, 1, MSS));
}
