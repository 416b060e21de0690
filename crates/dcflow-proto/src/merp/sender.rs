//! The MERP sender (papers/003 §4.1).
//!
//! It opens with a SYN; every reply carries the `asr` the switches granted
//! (Alg. 3). While `asr` exceeds Θ the flow sends DATA paced at `asr`;
//! otherwise it is postponed and sends DET probes (40 bytes) paced at
//! `asr`, which RateAdj keeps at (1 - α)C, or (n - 1)(1 - α)C for the next
//! flow in line. A BOOST starts DATA at once. A DATAACK granting no more
//! than Θ postpones the flow (MERP is preemptive, §4.1): it stops DATA and
//! probes. Data lost is resent after RTO = SRTT + 4 RTTVAR (§4.1).

use super::header::{self, MerpHeader};
use super::MerpConfig;
use crate::pacing::Pacer;
use crate::reliability::SegmentTracker;
use crate::rtt::RttEstimator;
use crate::{Endpoint, FlowEvent, FlowInfo, Packet, PacketKind, Sched, HEADER_BYTES};
use dcflow_core::{Bytes, Dur, Rate, Time};
use std::collections::VecDeque;

pub use crate::endpoint::Phase;

pub struct MerpSender {
    info: FlowInfo,
    theta: u64,
    phase: Phase,
    tracker: SegmentTracker,
    /// The `asr` of the latest reply (bps).
    asr: u64,
    /// The `esr` of the latest reply (bps; infinity before any), echoed in
    /// every packet so that every port on the path takes the path's
    /// smallest (docs/fidelity.md, "MERP").
    esr: f64,
    /// DATA (`asr` > Θ) or DET (postponed).
    data: bool,
    pacer: Pacer,
    /// When the next DET may leave.
    next_det_at: Time,
    rtt: RttEstimator,
    /// Before the first sample: the path's base RTT (the RTO is 3 of them).
    base_rtt: Dur,
    rto_min: Dur,
    /// A SYN or FIN is to be sent, and when the last one left.
    control_due: bool,
    /// Routing moved the flow: a SYN goes out again so that the new path's
    /// switches make it a row (they ignore DATA and DET of unknown flows).
    resyn: bool,
    control_sent_at: Time,
    events: VecDeque<FlowEvent>,
    timeouts: u64,
    probes: u64,
}

impl MerpSender {
    pub fn new(info: FlowInfo, cfg: &MerpConfig) -> MerpSender {
        MerpSender {
            info,
            theta: cfg.theta.0,
            phase: Phase::Connecting,
            tracker: SegmentTracker::new(info.size.0, info.mss),
            asr: 0,
            esr: f64::INFINITY,
            data: false,
            pacer: Pacer::default(),
            next_det_at: info.start,
            rtt: RttEstimator::default(),
            base_rtt: info.base_rtt,
            rto_min: cfg.rto_min,
            control_due: true,
            resyn: false,
            control_sent_at: info.start,
            events: VecDeque::new(),
            timeouts: 0,
            probes: 0,
        }
    }

    pub fn phase(&self) -> Phase {
        self.phase
    }

    /// Whether the flow sends DATA now (else it is postponed and probes).
    pub fn sending_data(&self) -> bool {
        self.phase == Phase::Sending && self.data
    }

    pub fn asr(&self) -> u64 {
        self.asr
    }

    pub fn retransmits(&self) -> u64 {
        self.tracker.retransmits()
    }

    pub fn timeouts(&self) -> u64 {
        self.timeouts
    }

    pub fn probes(&self) -> u64 {
        self.probes
    }

    /// §4.1: size, asr (initialized to the sender's link rate), esr
    /// (infinity, then the path's smallest as the last reply returned it)
    /// and Θ; and the fields the switches need besides (rest size, RTT,
    /// destination).
    fn packet(&self, now: Time, kind: PacketKind) -> Packet {
        let mut p = Packet::new(self.info.id, kind, false, now);
        p.sched = Sched::Merp(MerpHeader {
            size: self.info.size.0,
            rest: self.tracker.unsent(),
            asr: self.info.line_rate.0,
            esr: self.esr,
            theta: self.theta,
            rtt: self.srtt(),
            start: self.info.start,
            dst: self.info.dst,
            boost: false,
        });
        p.prio = header::priority(&p);
        p
    }

    /// See [`crate::Sender::path_changed`].
    pub fn path_changed(&mut self) {
        self.resyn = self.phase == Phase::Sending;
    }

    fn srtt(&self) -> Dur {
        self.rtt.srtt().unwrap_or(self.base_rtt)
    }

    /// §4.1: SRTT + 4 RTTVAR; before the first sample, 3 base RTTs (as
    /// the formula gives for a first sample equal to the base RTT).
    fn rto(&self) -> Dur {
        self.rtt.rto().unwrap_or(Dur(self.base_rtt.0 * 3)).max(self.rto_min)
    }

    /// Take the rate a reply grants: DATA above Θ, DET otherwise.
    fn grant(&mut self, now: Time, h: &MerpHeader) {
        self.asr = h.asr;
        self.esr = h.esr;
        self.data = h.asr > self.theta || h.boost;
        if self.asr > 0 {
            self.pacer.set_rate(now, self.asr);
        }
    }

    /// Time to send one DET at `asr`.
    fn det_gap(&self) -> Dur {
        Rate(self.asr.max(1)).tx_time(Bytes(HEADER_BYTES as u64))
    }
}

impl Endpoint for MerpSender {
    fn handle_packet(&mut self, now: Time, pkt: &Packet) {
        let Sched::Merp(h) = pkt.sched else { return };
        if !pkt.retransmit && matches!(pkt.kind, PacketKind::SynAck | PacketKind::Ack | PacketKind::Probe) {
            self.rtt.sample(now.since(pkt.sent_at));
        }
        match (pkt.kind, self.phase) {
            (PacketKind::SynAck, Phase::Connecting) => {
                self.phase = Phase::Sending;
                self.grant(now, &h);
            }
            (PacketKind::Ack, Phase::Sending) => {
                self.tracker.on_ack(pkt.seq, pkt.acked_seq);
                self.grant(now, &h);
            }
            (PacketKind::Probe | PacketKind::SynAck, Phase::Sending) => self.grant(now, &h),
            (PacketKind::FinAck, Phase::Closing) => {
                self.phase = Phase::Done;
                self.events.push_back(FlowEvent::Closed);
            }
            _ => {}
        }
        if self.phase == Phase::Sending && self.tracker.all_acked() {
            self.phase = Phase::Closing;
            self.control_due = true;
        }
    }

    fn handle_timeout(&mut self, now: Time) {
        let rto = self.rto();
        match self.phase {
            Phase::Connecting | Phase::Closing if !self.control_due && now >= self.control_sent_at + rto => {
                self.control_due = true;
                self.timeouts += 1;
            }
            Phase::Sending if self.tracker.expire(now, rto) > 0 => self.timeouts += 1,
            _ => {}
        }
    }

    fn poll_transmit(&mut self, now: Time) -> Option<Packet> {
        match self.phase {
            Phase::Connecting | Phase::Closing => {
                if !self.control_due {
                    return None;
                }
                self.control_due = false;
                self.control_sent_at = now;
                let kind = if self.phase == Phase::Connecting { PacketKind::Syn } else { PacketKind::Fin };
                Some(self.packet(now, kind))
            }
            Phase::Sending if self.resyn => {
                self.resyn = false;
                Some(self.packet(now, PacketKind::Syn))
            }
            Phase::Sending if self.data => {
                if now < self.pacer.next() || !self.tracker.has_pending() {
                    return None;
                }
                let s = self.tracker.next(now).expect("has_pending");
                let mut p = self.packet(now, PacketKind::Data);
                p.seq = s.seq;
                p.payload = s.len;
                p.wire += s.len;
                p.retransmit = s.retransmit;
                self.pacer.sent(now, p.wire, self.asr);
                Some(p)
            }
            Phase::Sending => {
                if now < self.next_det_at {
                    return None;
                }
                self.next_det_at = now + self.det_gap();
                self.probes += 1;
                Some(self.packet(now, PacketKind::Probe))
            }
            Phase::Done => None,
        }
    }

    fn poll_timeout(&self) -> Option<Time> {
        let rto = self.rto();
        match self.phase {
            Phase::Connecting | Phase::Closing if !self.control_due => Some(self.control_sent_at + rto),
            Phase::Connecting | Phase::Closing => None,
            Phase::Sending if self.resyn => Some(Time::ZERO),
            Phase::Sending => {
                let send = if self.data {
                    self.tracker.has_pending().then(|| self.pacer.next())
                } else {
                    Some(self.next_det_at)
                };
                [send, self.tracker.next_expiry(rto)].into_iter().flatten().min()
            }
            Phase::Done => None,
        }
    }

    fn poll_event(&mut self) -> Option<FlowEvent> {
        self.events.pop_front()
    }
}
