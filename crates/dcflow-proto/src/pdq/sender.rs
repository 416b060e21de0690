//! The PDQ sender (§3.1).
//!
//! State (§3.1): R_S (current sending rate, initially 0), P_S (the switch that
//! paused the flow, initially ∅), D_S (deadline), T_S (expected transmission
//! time, initially size / NIC rate), I_S (inter-probing time) and RTT_S
//! (exponentially averaged). The flow opens with a SYN and closes with a TERM
//! (our FIN; its FIN-ACK ends the flow). Every packet carries the scheduling
//! header: R_H = R_S^max, the other fields the sender's variables. Every
//! reply updates the state from the header. While R_S > 0, data goes out paced
//! at R_S (the rate limiter); while R_S = 0 the sender sends a header-only probe
//! every I_S RTTs. Lost data is resent by timer ([`SegmentTracker`]). With
//! Early Termination (variants `es_et`, `full`) a deadline flow sends TERM as
//! soon as any of §3.1's three conditions holds.

use super::control::{PathControl, Probing};
use super::comparator::{aged, base_key, Criticality};
use super::header::{PdqHeader, PDQ_HEADER_BYTES};
use super::mpdq::{MpdqSender, PathInfo};
use super::{EtRemaining, PdqConfig};
use crate::endpoint::{Endpoint, FlowEvent, FlowInfo};
use crate::packet::{Packet, PacketKind, Sched, HEADER_BYTES};
use crate::reliability::SegmentTracker;
use dcflow_core::{Bytes, Dur, Rate, Time};
use std::collections::VecDeque;

pub use crate::endpoint::Phase;

/// What S3's sender does differently from PDQ's (S3 §4.2: "Similar to PDQ").
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct SenderRules {
    /// Scheduling header bytes on every packet (PDQ footnote 11: 16).
    pub header_bytes: u32,
    /// Which Early Termination conditions stop a deadline flow (None: off).
    pub termination: Option<Termination>,
    pub probing: Probing,
    /// Retransmission timeout: max(`rto_min`, `rto_rtts` × RTT_S).
    pub rto_rtts: f64,
    pub rto_min: Dur,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Termination {
    /// PDQ §3.1: Time > D_S, Time + T_S > D_S, or R_S = 0 and Time + RTT_S > D_S.
    Pdq,
    /// S3 §4.2: the flow "can not finish before [its] deadline even if [it
    /// is] not paused": Time + T_S > D_S (which covers Time > D_S).
    FullRate,
}

impl SenderRules {
    /// PDQ's sender: 16-byte header, §3.1's Early Termination with the
    /// `es_et` / `full` variants, probes as [`Probing::pdq`], RTO `rto_rtts` RTTs.
    pub fn pdq(cfg: &PdqConfig) -> SenderRules {
        SenderRules {
            header_bytes: PDQ_HEADER_BYTES,
            termination: cfg.variant.early_termination().then_some(Termination::Pdq),
            probing: Probing::pdq(cfg.variant),
            rto_rtts: cfg.rto_rtts,
            rto_min: cfg.rto_min,
        }
    }
}

pub struct PdqSender {
    info: FlowInfo,
    cfg: PdqConfig,
    rules: SenderRules,
    tracker: SegmentTracker,
    phase: Phase,
    /// R_S^max, R_S, P_S, I_S, RTT_S and the rate limiter (§3.1).
    ctl: PathControl,
    /// Payload bytes sent for the first time (size estimation, §5.6).
    sent_bytes: u64,
    terminated: bool,
    timeouts: u64,
    probes: u64,
    events: VecDeque<FlowEvent>,
    /// M-PDQ (§6): when set, the flow is striped over several paths and
    /// every call goes to the multipath sender (the fields above are unused).
    multi: Option<Box<MpdqSender>>,
}

impl PdqSender {
    pub fn new(info: FlowInfo, cfg: &PdqConfig) -> PdqSender {
        Self::with_rules(info, cfg, SenderRules::pdq(cfg))
    }

    /// A sender with `rules` instead of PDQ's (S3's sender).
    pub fn with_rules(info: FlowInfo, cfg: &PdqConfig, rules: SenderRules) -> PdqSender {
        // The header rides inside the MTU: the shim layer (§7 "Deployment")
        // takes its bytes from the segment.
        let mss = info.mss.saturating_sub(rules.header_bytes).max(1);
        PdqSender {
            info,
            cfg: cfg.clone(),
            rules,
            tracker: SegmentTracker::new(info.size.0, mss),
            phase: Phase::Connecting,
            ctl: PathControl::new(info.line_rate.0, info.base_rtt, info.start),
            sent_bytes: 0,
            terminated: false,
            timeouts: 0,
            probes: 0,
            events: VecDeque::new(),
            multi: None,
        }
    }

    /// An M-PDQ sender (§6) with one subflow per path in `paths`; with one
    /// path it is the plain single-path sender.
    pub fn multipath(info: FlowInfo, cfg: &PdqConfig, paths: &[PathInfo]) -> PdqSender {
        let mut s = PdqSender::new(info, cfg);
        if paths.len() > 1 {
            s.multi = Some(Box::new(MpdqSender::new(info, cfg, paths)));
        }
        s
    }

    /// The multipath sender, if this flow uses M-PDQ.
    pub fn mpdq(&self) -> Option<&MpdqSender> {
        self.multi.as_deref()
    }

    pub fn retransmits(&self) -> u64 {
        match &self.multi {
            Some(m) => m.retransmits(),
            None => self.tracker.retransmits(),
        }
    }
    pub fn timeouts(&self) -> u64 {
        match &self.multi {
            Some(m) => m.timeouts(),
            None => self.timeouts,
        }
    }
    pub fn probes(&self) -> u64 {
        match &self.multi {
            Some(m) => m.probes(),
            None => self.probes,
        }
    }
    pub fn phase(&self) -> Phase {
        self.phase
    }
    /// R_S in bits per second (M-PDQ: the sum over the subflows).
    pub fn rate(&self) -> u64 {
        match &self.multi {
            Some(m) => (0..m.subflows()).map(|i| m.rate(i)).sum(),
            None => self.ctl.rate,
        }
    }
    /// P_S.
    /// See [`crate::Sender::path_changed`].
    pub fn path_changed(&mut self, now: Time, path: u8) {
        match &mut self.multi {
            Some(m) => m.path_changed(now, path),
            None => self.ctl.path_changed(now),
        }
    }

    pub fn paused_by(&self) -> u32 {
        self.ctl.pause_by
    }
    /// I_S in RTTs.
    pub fn inter_probe(&self) -> f64 {
        self.ctl.inter_probe
    }
    pub fn srtt(&self) -> Dur {
        self.ctl.srtt
    }

    fn size_known(&self) -> bool {
        self.cfg.criticality == Criticality::Size
    }

    /// T_S: "the remaining flow size divided by its maximal sending rate".
    pub fn expected(&self) -> Dur {
        self.at_max_rate(self.tracker.remaining())
    }

    /// T_S as Early Termination's condition (2) reads it (`et_remaining`).
    fn termination_expected(&self) -> Dur {
        match self.cfg.et_remaining {
            EtRemaining::Unacked => self.expected(),
            EtRemaining::Unsent => self.at_max_rate(self.tracker.to_send()),
        }
    }

    /// How long `bytes` take at R_S^max (§3.1's expected transmission time).
    fn at_max_rate(&self, bytes: u64) -> Dur {
        Rate(self.ctl.r_max.max(1)).tx_time(Bytes(bytes))
    }

    fn rto(&self) -> Dur {
        self.rules.rto_min.max(self.ctl.srtt.mul_f64(self.rules.rto_rtts))
    }

    /// The header every departing packet carries (§3.1).
    fn header(&self, now: Time) -> PdqHeader {
        let t = self.expected();
        let key = base_key(
            self.cfg.criticality,
            self.info.id,
            t,
            self.sent_bytes,
            self.cfg.estimate_step.0,
            self.ctl.r_max,
        );
        PdqHeader {
            rate: self.ctl.r_max,
            pause_by: self.ctl.pause_by,
            deadline: self.info.deadline.unwrap_or(Time::MAX),
            // A size-unaware sender (§5.6) cannot tell switches how long it
            // has left: it never looks nearly completed to Early Start.
            expected: if self.size_known() { t } else { Dur(u64::MAX) },
            rtt: self.ctl.srtt,
            inter_probe: 0.0,
            crit: aged(key, self.cfg.aging_alpha, now.since(self.info.start), self.cfg.aging_unit),
        }
    }

    fn packet(&mut self, now: Time, kind: PacketKind) -> Packet {
        let mut p = Packet::new(self.info.id, kind, false, now);
        p.wire = HEADER_BYTES + self.rules.header_bytes;
        p.sched = Sched::Pdq(self.header(now));
        self.ctl.last_sent_at = now;
        p
    }

    /// Early Termination (§3.1): TERM when (1) Time > D_S, (2) Time + T_S > D_S,
    /// or (3) R_S = 0 and Time + RTT_S > D_S. Only deadline flows, only with
    /// the `es_et` / `full` variants, and (2) only when the size is known.
    /// S3 (§4.2) stops a flow on (1) and (2) only.
    fn should_terminate(&self, now: Time) -> bool {
        let Some(rule) = self.rules.termination else { return false };
        if self.phase == Phase::Closing || self.phase == Phase::Done {
            return false;
        }
        let Some(d) = self.info.deadline else { return false };
        now > d
            || (self.size_known() && now + self.termination_expected() > d)
            || (rule == Termination::Pdq && self.ctl.rate == 0 && now + self.ctl.srtt > d)
    }

    /// When the next Early Termination condition can become true without any
    /// packet arriving.
    fn termination_check_at(&self) -> Option<Time> {
        let rule = self.rules.termination?;
        if !matches!(self.phase, Phase::Connecting | Phase::Sending) {
            return None;
        }
        let d = self.info.deadline?;
        let mut t = Time(d.0.saturating_add(1));
        if self.size_known() {
            t = t.min(Time(d.0.saturating_sub(self.termination_expected().0).saturating_add(1)));
        }
        if rule == Termination::Pdq && self.ctl.rate == 0 {
            t = t.min(Time(d.0.saturating_sub(self.ctl.srtt.0).saturating_add(1)));
        }
        Some(t)
    }

    fn terminate(&mut self) {
        self.terminated = true;
        self.phase = Phase::Closing;
        self.ctl.control_due = true;
        self.ctl.rate = 0;
        self.events.push_back(FlowEvent::Terminated);
    }

}

impl Endpoint for PdqSender {
    fn handle_packet(&mut self, now: Time, pkt: &Packet) {
        if let Some(m) = &mut self.multi {
            return m.handle_packet(now, pkt);
        }
        if !pkt.retransmit && matches!(pkt.kind, PacketKind::SynAck | PacketKind::Ack | PacketKind::Probe) {
            let sample = now.since(pkt.sent_at);
            self.ctl.srtt = Dur((self.ctl.srtt.0 * 7 + sample.0) / 8);
        }
        let feedback = self.ctl.feedback(pkt);
        match pkt.kind {
            PacketKind::SynAck if self.phase == Phase::Connecting => {
                self.phase = Phase::Sending;
                if let Some(h) = feedback {
                    self.ctl.take_feedback(now, &h, self.rules.probing);
                }
            }
            PacketKind::Ack | PacketKind::Probe if self.phase == Phase::Sending => {
                if pkt.kind == PacketKind::Ack {
                    self.tracker.on_ack(pkt.seq, pkt.acked_seq);
                }
                if let Some(h) = feedback {
                    self.ctl.take_feedback(now, &h, self.rules.probing);
                }
                if self.tracker.all_acked() {
                    self.phase = Phase::Closing;
                    self.ctl.control_due = true;
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
        if self.should_terminate(now) {
            self.terminate();
        }
    }

    fn handle_timeout(&mut self, now: Time) {
        if let Some(m) = &mut self.multi {
            return m.handle_timeout(now);
        }
        if self.should_terminate(now) {
            self.terminate();
        }
        let rto = self.rto();
        match self.phase {
            Phase::Connecting | Phase::Closing => {
                if !self.ctl.control_due && self.ctl.control_sent_at + rto <= now {
                    self.ctl.control_due = true;
                    self.timeouts += 1;
                }
            }
            Phase::Sending => {
                if self.tracker.expire(now, rto) > 0 {
                    self.timeouts += 1;
                }
            }
            Phase::Done => {}
        }
    }

    fn poll_transmit(&mut self, now: Time) -> Option<Packet> {
        if let Some(m) = &mut self.multi {
            return m.poll_transmit(now);
        }
        match self.phase {
            Phase::Connecting | Phase::Closing => {
                if !self.ctl.control_due {
                    return None;
                }
                self.ctl.control_due = false;
                self.ctl.control_sent_at = now;
                let kind = if self.phase == Phase::Connecting { PacketKind::Syn } else { PacketKind::Fin };
                Some(self.packet(now, kind))
            }
            Phase::Sending if self.ctl.rate > 0 && self.tracker.has_pending() => {
                if now < self.ctl.pacer.next() {
                    // A rate so low that no data leaves for I_S RTTs still gets
                    // a probe, so the flow keeps hearing from the switches.
                    if now >= self.ctl.next_probe_at() {
                        self.probes += 1;
                        return Some(self.packet(now, PacketKind::Probe));
                    }
                    return None;
                }
                let s = self.tracker.next(now).expect("has_pending");
                if !s.retransmit {
                    self.sent_bytes += s.len as u64;
                }
                let mut p = self.packet(now, PacketKind::Data);
                p.seq = s.seq;
                p.payload = s.len;
                p.wire += s.len;
                p.retransmit = s.retransmit;
                self.ctl.pacer.sent(now, p.wire, self.ctl.rate);
                Some(p)
            }
            Phase::Sending if self.ctl.rate > 0 => None,
            Phase::Sending => {
                // Paused: one probe every I_S RTTs (§3.1).
                if now < self.ctl.next_probe_at() {
                    return None;
                }
                self.probes += 1;
                Some(self.packet(now, PacketKind::Probe))
            }
            Phase::Done => None,
        }
    }

    fn poll_timeout(&self) -> Option<Time> {
        if let Some(m) = &self.multi {
            return m.poll_timeout();
        }
        let rto = self.rto();
        let et = self.termination_check_at();
        let t = match self.phase {
            Phase::Connecting | Phase::Closing if !self.ctl.control_due => Some(self.ctl.control_sent_at + rto),
            Phase::Connecting | Phase::Closing => None,
            Phase::Sending => {
                let send = if self.ctl.rate > 0 {
                    self.tracker.has_pending().then(|| self.ctl.pacer.next().min(self.ctl.next_probe_at()))
                } else {
                    Some(self.ctl.next_probe_at())
                };
                [send, self.tracker.next_expiry(rto)].into_iter().flatten().min()
            }
            Phase::Done => None,
        };
        [t, et].into_iter().flatten().min()
    }

    fn poll_event(&mut self) -> Option<FlowEvent> {
        if let Some(m) = &mut self.multi {
            return m.poll_event();
        }
        self.events.pop_front()
    }
}
