//! The explicit-rate sender of D3 and RCP_dc (D3 §4.1-§4.2, §4.5, §5, §6.1.3).
//!
//! The sender asks every router on its path for a rate once per RTT and sends
//! data paced at the minimum allocation (D3 §4.1). A request rides on a data
//! packet (22 extra header bytes, D3 §5) or, when no data packet leaves
//! within an RTT (the flow is held at the base rate, or granted too little
//! to send a packet per RTT), on a header-only packet. D3 flows ask for the
//! rate that meets their deadline (§5 "Calculating desired rate"); RCP_dc
//! flows ask for nothing and get the fair share. Lost data is resent by timer
//! ([`SegmentTracker`]).
//!
//! The base rate pays for the requests: it "allows them to send a
//! header-only packet per RTT" (§4.2), so header-only requests are paced at
//! the base rate and data at the rest of the allocation. Everything a flow
//! sends then fits the rate its routers granted. Sent on every answer
//! instead, N paused flows keep N requests circulating, and once those fill
//! the pipe (about 100 flows on a 1 Gbps star) the queue they build holds the
//! capacity controller's C at 0 and every flow at the base rate for good.

use super::header::{RateHeader, RATE_HEADER_BYTES};
use super::ExplicitRateConfig;
use crate::endpoint::{Endpoint, FlowEvent, FlowInfo};
use crate::pacing::Pacer;
use crate::packet::{Packet, PacketKind, Sched, HEADER_BYTES};
use crate::reliability::SegmentTracker;
use dcflow_core::{round_to_u64, Dur, Time};
use std::collections::VecDeque;

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Phase {
    Connecting,
    Sending,
    Closing,
    Done,
}

pub struct RateSender {
    info: FlowInfo,
    cfg: ExplicitRateConfig,
    /// D3 asks for its deadline rate; RCP_dc (and D3 flows without a deadline) ask 0.
    deadline_aware: bool,
    tracker: SegmentTracker,
    phase: Phase,
    /// The allocation: the minimum over the path (bps).
    rate: u64,
    /// A request is in flight since this time (one per RTT, §4.1).
    request_sent_at: Option<Time>,
    /// With no request in flight: since when the next one is due (its
    /// predecessor's answer came, or it timed out).
    request_due_at: Time,
    /// A control packet (SYN / FIN) to (re)send now.
    control_due: bool,
    control_sent_at: Time,
    /// Data pacing at the allocation less the base rate (§4.1): a new
    /// allocation applies from the moment it arrives, also to the gap after
    /// the packet already sent.
    pacer: Pacer,
    /// Header-only requests, paced at the base rate (§4.2).
    request_pacer: Pacer,
    srtt: Dur,
    terminated: bool,
    timeouts: u64,
    events: VecDeque<FlowEvent>,
}

impl RateSender {
    /// The allocation the sender paces at (bps; the base rate while paused).
    pub fn rate(&self) -> u64 {
        self.rate
    }

    pub fn new(info: FlowInfo, cfg: &ExplicitRateConfig, deadline_aware: bool) -> RateSender {
        RateSender {
            info,
            cfg: cfg.clone(),
            deadline_aware: deadline_aware && info.deadline.is_some(),
            tracker: SegmentTracker::new(info.size.0, info.mss),
            phase: Phase::Connecting,
            rate: 0,
            request_sent_at: None,
            request_due_at: Time::ZERO,
            control_due: true,
            control_sent_at: Time::ZERO,
            pacer: Pacer::default(),
            request_pacer: Pacer::default(),
            srtt: info.base_rtt,
            terminated: false,
            timeouts: 0,
            events: VecDeque::new(),
        }
    }

    pub fn retransmits(&self) -> u64 {
        self.tracker.retransmits()
    }
    pub fn timeouts(&self) -> u64 {
        self.timeouts
    }

    fn rto(&self) -> Dur {
        self.cfg.rto_min.max(self.srtt.mul_f64(3.0))
    }

    /// D3 §4.1 / §5: r = s/d at the start, then
    /// r_{t+1} = (remaining - s_t·rtt) / (deadline - 2·rtt); 0 without a deadline.
    /// Data goes at the allocation less the base rate, so a flow asks for
    /// that rate plus the base rate. Returns `None` when the deadline can no
    /// longer be met at any rate: it has passed, or data is left after this
    /// RTT and less than two RTTs are (the formula's rate grows without bound
    /// as d → 2·rtt). A flow whose remaining data goes out within this RTT at
    /// its current rate needs nothing more (0), however close the deadline.
    fn desired_rate(&self, now: Time) -> Option<u64> {
        if !self.deadline_aware {
            return Some(0);
        }
        let deadline = self.info.deadline.expect("deadline_aware implies a deadline");
        // Routers allocate, and the sender paces, bits on the wire: ask for
        // the rate that carries the remaining payload plus its headers.
        let wire_per_payload = (self.info.mss + HEADER_BYTES) as f64 / self.info.mss as f64;
        let remaining_bits = self.tracker.unsent() as f64 * 8.0 * wire_per_payload;
        let left = deadline.0 as f64 - now.0 as f64;
        if left <= 0.0 {
            return None;
        }
        let (num, den) = if self.phase == Phase::Connecting {
            (remaining_bits, left)
        } else {
            let rtt = self.srtt.0 as f64;
            (remaining_bits - self.data_rate() as f64 * rtt / 1e12, left - 2.0 * rtt)
        };
        if num <= 0.0 {
            return Some(0);
        }
        if den <= 0.0 {
            return None;
        }
        Some(round_to_u64(num / (den / 1e12)) + self.cfg.base_rate.0)
    }

    fn header(&self, desired: u64) -> RateHeader {
        let mut h = RateHeader::empty();
        h.desired = desired;
        h
    }

    /// Quenching (§6.1.3): terminate by sending a FIN that returns the allocation.
    fn quench(&mut self) {
        self.terminated = true;
        self.phase = Phase::Closing;
        self.control_due = true;
        self.events.push_back(FlowEvent::Terminated);
    }

    /// The desired rate for a new request, quenching the flow if it is hopeless.
    fn next_desired(&mut self, now: Time) -> Option<u64> {
        let desired = self.desired_rate(now);
        let hopeless = match desired {
            None => true,
            Some(r) => r > self.info.line_rate.0,
        };
        if hopeless && self.cfg.quenching {
            self.quench();
            return None;
        }
        Some(desired.unwrap_or(self.info.line_rate.0).min(self.info.line_rate.0))
    }

    fn control_packet(&mut self, now: Time) -> Option<Packet> {
        self.control_due = false;
        self.control_sent_at = now;
        let (kind, header) = if self.phase == Phase::Connecting {
            let Some(desired) = self.next_desired(now) else {
                return self.control_packet(now); // quenched: FIN now
            };
            let mut h = self.header(desired);
            h.new_flow = true;
            (PacketKind::Syn, h)
        } else {
            let mut h = self.header(0);
            h.leaving = true;
            (PacketKind::Fin, h)
        };
        let mut p = Packet::new(self.info.id, kind, false, now);
        p.wire = HEADER_BYTES + RATE_HEADER_BYTES;
        p.sched = Sched::Rate(header);
        Some(p)
    }

    fn take_feedback(&mut self, now: Time, h: &RateHeader) {
        // The capacity controller may allocate more than the link (C grows
        // while the link is under-used); a host never paces faster than its NIC.
        self.rate = h.min_alloc(self.info.agent_hops as usize).min(self.info.line_rate.0);
        self.pacer.set_rate(now, self.data_rate());
        self.request_sent_at = None;
        self.request_due_at = now;
    }

    /// The rate data is paced at: the allocation less the base rate that
    /// pays for the requests. A flow held at the base rate sends no data.
    fn data_rate(&self) -> u64 {
        self.rate.saturating_sub(self.cfg.base_rate.0)
    }

    fn has_data_to_send(&self) -> bool {
        self.data_rate() > 0 && self.tracker.has_pending()
    }

    /// When the request that is due goes out on a header-only packet: at the
    /// base rate's pace, unless a data packet leaves within an RTT of it to
    /// carry it (§4.1). `None` while a request is in flight or data will
    /// carry the next one.
    fn header_only_request_at(&self) -> Option<Time> {
        if self.request_sent_at.is_some() {
            return None;
        }
        let at = self.request_pacer.next().max(self.request_due_at);
        let data_carries_it = self.has_data_to_send() && self.pacer.next() <= at + self.srtt;
        (!data_carries_it).then_some(at)
    }
}

impl Endpoint for RateSender {
    fn handle_packet(&mut self, now: Time, pkt: &Packet) {
        if !pkt.retransmit {
            let sample = now.since(pkt.sent_at);
            // Exponential moving average of RTT samples (D3 §5), gain 1/8.
            self.srtt = Dur((self.srtt.0 * 7 + sample.0) / 8);
        }
        match pkt.kind {
            PacketKind::SynAck if self.phase == Phase::Connecting => {
                if let Sched::Rate(h) = &pkt.sched {
                    self.take_feedback(now, h);
                }
                self.phase = Phase::Sending;
            }
            PacketKind::Ack | PacketKind::Probe if self.phase == Phase::Sending => {
                if pkt.kind == PacketKind::Ack {
                    self.tracker.on_ack(pkt.seq, pkt.acked_seq);
                }
                if let Sched::Rate(h) = &pkt.sched {
                    self.take_feedback(now, h);
                }
                if self.tracker.all_acked() {
                    // The FIN returns whatever the routers hold for the flow,
                    // also for a request still on its way (it is ahead of the FIN).
                    self.phase = Phase::Closing;
                    self.control_due = true;
                }
            }
            PacketKind::FinAck if self.phase == Phase::Closing => {
                self.phase = Phase::Done;
                if !self.terminated {
                    self.events.push_back(FlowEvent::Closed);
                }
            }
            _ => {}
        }
    }

    fn handle_timeout(&mut self, now: Time) {
        let rto = self.rto();
        match self.phase {
            Phase::Connecting | Phase::Closing => {
                if !self.control_due && self.control_sent_at + rto <= now {
                    self.control_due = true;
                    self.timeouts += 1;
                }
            }
            Phase::Sending => {
                if self.tracker.expire(now, rto) > 0 {
                    self.timeouts += 1;
                }
                if self.request_sent_at.is_some_and(|t| t + rto <= now) {
                    self.request_sent_at = None;
                    self.request_due_at = now;
                }
            }
            Phase::Done => {}
        }
    }

    fn poll_transmit(&mut self, now: Time) -> Option<Packet> {
        match self.phase {
            Phase::Connecting | Phase::Closing if self.control_due => {
                return self.control_packet(now);
            }
            Phase::Sending => {}
            _ => return None,
        }
        let data_now = self.has_data_to_send() && now >= self.pacer.next();
        let header_only_now = self.header_only_request_at().is_some_and(|t| now >= t);
        if !data_now && !header_only_now {
            return None;
        }
        // A request rides on the next data packet when one is due (§4.1).
        let request = if self.request_sent_at.is_none() {
            let desired = self.next_desired(now);
            if self.phase != Phase::Sending {
                return self.control_packet(now); // quenched: FIN now
            }
            desired
        } else {
            None
        };
        let mut p = if data_now {
            let s = self.tracker.next(now).expect("has_pending");
            let mut p = Packet::new(self.info.id, PacketKind::Data, false, now);
            p.seq = s.seq;
            p.payload = s.len;
            p.wire = HEADER_BYTES + s.len;
            p.retransmit = s.retransmit;
            p
        } else {
            Packet::new(self.info.id, PacketKind::Probe, false, now)
        };
        if let Some(desired) = request {
            p.sched = Sched::Rate(self.header(desired));
            p.wire += RATE_HEADER_BYTES;
            self.request_sent_at = Some(now);
        }
        if data_now {
            self.pacer.sent(now, p.wire, self.data_rate());
        } else {
            self.request_pacer.sent(now, p.wire, self.cfg.base_rate.0);
        }
        Some(p)
    }

    fn poll_timeout(&self) -> Option<Time> {
        let rto = self.rto();
        match self.phase {
            Phase::Connecting | Phase::Closing if !self.control_due => Some(self.control_sent_at + rto),
            Phase::Sending => {
                let pacing = self.has_data_to_send().then_some(self.pacer.next());
                let request = self.request_sent_at.map(|t| t + rto);
                [pacing, request, self.header_only_request_at(), self.tracker.next_expiry(rto)]
                    .into_iter()
                    .flatten()
                    .min()
            }
            _ => None,
        }
    }

    fn poll_event(&mut self) -> Option<FlowEvent> {
        self.events.pop_front()
    }
}
