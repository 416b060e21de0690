//! The receiving endpoint shared by every transport.
//!
//! It acknowledges every data packet (no delayed ACKs, as in the papers'
//! simulators), with the cumulative ack plus the sequence number of the packet
//! that triggered it (enough for selective retransmission), echoes the CE mark
//! (ECN-Echo, for DCTCP-style senders) and the send timestamp (RTT samples),
//! and copies the scheduling header into the ACK: "the receiver copies the
//! scheduling header from each data packet to its corresponding ACK" (PDQ §3.2;
//! D3 §5 "Receivers respond ... with the allocated rate vector").
//!
//! Replies do not copy the data's priority: every reply (ACK, SYN-ACK,
//! FIN-ACK, probe echo) carries the highest, 0. pFabric's reference simulators
//! send ACKs at the top priority (e.g. the pHost/YAPS simulator's pFabric
//! builds every ACK with priority 0), so that a large flow's ACKs
//! are neither served after nor evicted by smaller flows' data on the reverse
//! path: an ACK carrying a multi-MB remaining size is the first packet a full
//! pFabric port drops. The strict-priority queue maps 0 to its top class.

use crate::endpoint::{Endpoint, FlowEvent, FlowInfo};
use crate::packet::{Packet, PacketKind};
use dcflow_core::Time;
use std::collections::VecDeque;

/// The priority of every reply: the most important (lower is more important).
pub const REPLY_PRIO: u64 = 0;

pub struct Receiver {
    info: FlowInfo,
    /// Every byte below this offset has arrived.
    cumulative: u64,
    /// Out-of-order ranges above `cumulative`, `(start, end)` with `end`
    /// exclusive, disjoint and sorted. A sorted vector, not a tree: there
    /// are seldom more than a few, and an arrival mostly extends the last
    /// one or finds none (a tree's look-ups cost TCP's receivers about 8%
    /// of a run; BENCHMARKS.md).
    ranges: Vec<(u64, u64)>,
    outbox: VecDeque<Packet>,
    delivered: bool,
    events: VecDeque<FlowEvent>,
    /// The most this receiver can take (bps): PDQ §3.2, "the PDQ receiver
    /// reduces R_H if it exceeds the maximal rate that receiver can process
    /// and receive". Defaults to the flow's line rate.
    max_rx_rate: u64,
}

impl Receiver {
    pub fn new(info: FlowInfo) -> Receiver {
        Receiver {
            info,
            cumulative: 0,
            ranges: Vec::new(),
            outbox: VecDeque::new(),
            delivered: false,
            events: VecDeque::new(),
            max_rx_rate: info.line_rate.0,
        }
    }

    /// Cap the explicit rates this receiver echoes (PDQ §3.2) at `rate`.
    pub fn set_max_rx_rate(&mut self, rate: dcflow_core::Rate) {
        self.max_rx_rate = rate.0;
    }

    /// Bytes received in order so far.
    pub fn cumulative(&self) -> u64 {
        self.cumulative
    }

    fn record(&mut self, start: u64, end: u64) {
        if end <= self.cumulative {
            return;
        }
        let mut start = start.max(self.cumulative);
        let mut end = end;
        // The ranges that touch [start, end] are a run `first..past`: the
        // ranges are disjoint and sorted, so their ends are sorted too.
        let first = self.ranges.partition_point(|&(_, e)| e < start);
        let past = self.ranges.partition_point(|&(s, _)| s <= end);
        if first < past {
            start = start.min(self.ranges[first].0);
            end = end.max(self.ranges[past - 1].1);
        }
        if start <= self.cumulative {
            // Every range lies above `cumulative`, so the run starts at 0.
            self.cumulative = end;
            self.ranges.drain(..past);
        } else if first < past {
            self.ranges[first] = (start, end);
            self.ranges.drain(first + 1..past);
        } else {
            self.ranges.insert(first, (start, end));
        }
    }

    fn reply(&self, pkt: &Packet, kind: PacketKind, now: Time) -> Packet {
        let mut ack = Packet::new(pkt.flow, kind, true, now);
        ack.seq = self.cumulative;
        ack.acked_seq = pkt.seq;
        ack.ecn_echo = pkt.ecn_ce;
        ack.sent_at = pkt.sent_at;
        ack.retransmit = pkt.retransmit;
        ack.prio = REPLY_PRIO;
        ack.sched = pkt.sched;
        // M-PDQ (§6): the reply retraces its subflow's path; the buffer above
        // (`cumulative`, `ranges`) is shared by every subflow of the flow.
        ack.path = pkt.path;
        if let crate::packet::Sched::Pdq(h) = &mut ack.sched {
            h.rate = h.rate.min(self.max_rx_rate);
        }
        crate::merp::header::shape_reply(&mut ack);
        ack
    }
}

impl Endpoint for Receiver {
    fn handle_packet(&mut self, now: Time, pkt: &Packet) {
        let kind = match pkt.kind {
            PacketKind::Syn => PacketKind::SynAck,
            PacketKind::Fin => PacketKind::FinAck,
            PacketKind::Probe => PacketKind::Probe,
            PacketKind::Data => {
                self.record(pkt.seq, pkt.seq + pkt.payload as u64);
                PacketKind::Ack
            }
            // Nothing a sender sends arrives with these kinds.
            PacketKind::SynAck | PacketKind::FinAck | PacketKind::Ack => return,
        };
        if !self.delivered && self.cumulative >= self.info.size.0 {
            self.delivered = true;
            self.events.push_back(FlowEvent::Delivered);
        }
        let reply = self.reply(pkt, kind, now);
        self.outbox.push_back(reply);
    }

    fn handle_timeout(&mut self, _now: Time) {}

    fn poll_transmit(&mut self, _now: Time) -> Option<Packet> {
        self.outbox.pop_front()
    }

    fn poll_timeout(&self) -> Option<Time> {
        None
    }

    fn poll_event(&mut self) -> Option<FlowEvent> {
        self.events.pop_front()
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use dcflow_core::{Bytes, Dur, Rate};

    fn info(size: u64) -> FlowInfo {
        FlowInfo {
            id: 0,
            size: Bytes(size),
            start: Time::ZERO,
            deadline: None,
            size_known: false,
            mss: 1000,
            line_rate: Rate::gbps(1),
            base_rtt: Dur::us(100),
            agent_hops: 1,
            dst: 0,
        }
    }

    fn data(seq: u64, len: u32) -> Packet {
        let mut p = Packet::new(0, PacketKind::Data, false, Time::ZERO);
        p.seq = seq;
        p.payload = len;
        p
    }

    #[test]
    fn reorders_and_delivers_once_everything_arrived() {
        let mut r = Receiver::new(info(3000));
        r.handle_packet(Time(1), &data(1000, 1000));
        assert_eq!(r.poll_transmit(Time(1)).unwrap().seq, 0, "hole at 0: cumulative ack stays 0");
        r.handle_packet(Time(2), &data(2000, 1000));
        assert_eq!(r.poll_transmit(Time(2)).unwrap().acked_seq, 2000);
        assert!(r.poll_event().is_none());
        r.handle_packet(Time(3), &data(0, 1000));
        let ack = r.poll_transmit(Time(3)).unwrap();
        assert_eq!((ack.kind, ack.seq, ack.reverse), (PacketKind::Ack, 3000, true));
        assert_eq!(r.poll_event(), Some(FlowEvent::Delivered));
        // A duplicate is acknowledged again but not delivered twice.
        r.handle_packet(Time(4), &data(0, 1000));
        assert!(r.poll_transmit(Time(4)).is_some());
        assert!(r.poll_event().is_none());
    }

    /// Arrivals in any order, with duplicates and ranges that overlap
    /// several held ones, advance the cumulative ack exactly to the first
    /// byte not yet received (checked against a byte map).
    #[test]
    fn the_cumulative_ack_is_the_first_missing_byte_whatever_the_order() {
        const SIZE: u64 = 4000;
        let mut x: u64 = 0x9e37_79b9_7f4a_7c15;
        let mut next = |n: u64| {
            x ^= x << 13;
            x ^= x >> 7;
            x ^= x << 17;
            x % n
        };
        for _ in 0..200 {
            let mut r = Receiver::new(info(SIZE));
            let mut held = vec![false; SIZE as usize];
            while r.cumulative() < SIZE {
                let seq = next(SIZE);
                let len = 1 + next(700).min(SIZE - seq - 1) as u32;
                r.handle_packet(Time(0), &data(seq, len));
                held[seq as usize..(seq + len as u64) as usize].iter_mut().for_each(|b| *b = true);
                let first_missing = held.iter().position(|&b| !b).unwrap_or(SIZE as usize) as u64;
                assert_eq!(r.cumulative(), first_missing);
            }
        }
    }

    #[test]
    fn echoes_ce_and_answers_syn_and_fin() {
        let mut r = Receiver::new(info(1000));
        let mut syn = Packet::new(0, PacketKind::Syn, false, Time(5));
        syn.sent_at = Time(5);
        r.handle_packet(Time(9), &syn);
        let synack = r.poll_transmit(Time(9)).unwrap();
        assert_eq!((synack.kind, synack.sent_at), (PacketKind::SynAck, Time(5)));
        let mut d = data(0, 1000);
        d.ecn_ce = true;
        r.handle_packet(Time(10), &d);
        assert!(r.poll_transmit(Time(10)).unwrap().ecn_echo);
        r.handle_packet(Time(11), &Packet::new(0, PacketKind::Fin, false, Time(11)));
        assert_eq!(r.poll_transmit(Time(11)).unwrap().kind, PacketKind::FinAck);
    }
    /// pFabric's reference simulators send ACKs at the highest priority; a
    /// reply that copied the data's priority (its flow's remaining size) would
    /// lose to smaller flows' data on the reverse path.
    #[test]
    fn replies_carry_the_highest_priority_not_the_datas() {
        let mut r = Receiver::new(info(5_000_000));
        for kind in [PacketKind::Syn, PacketKind::Data, PacketKind::Probe, PacketKind::Fin] {
            let mut p = Packet::new(0, kind, false, Time(1));
            p.prio = 4_999_000;
            p.payload = if kind == PacketKind::Data { 1000 } else { 0 };
            r.handle_packet(Time(2), &p);
            let reply = r.poll_transmit(Time(2)).unwrap();
            assert_eq!(reply.prio, REPLY_PRIO, "{:?}", reply.kind);
        }
    }
}
