//! M-PDQ: Multipath PDQ (§6).
//!
//! "When a flow arrives, the M-PDQ sender splits the flow into multiple
//! subflows, and sends a SYN packet for each subflow. To minimize the flow
//! completion time, the M-PDQ sender periodically shifts the load from the
//! paused subflows to the sending one with the minimal remaining load. ...
//! The PDQ switch requires no additional modification except ECMP. The M-PDQ
//! receiver maintains a single shared buffer for a multipath flow to
//! resequence out-of-order packet arrivals" (§6).
//!
//! - Subflow `i` travels path `i` of the flow (the engine routes on
//!   [`Packet::path`]); switches key their state on (flow, path)
//!   ([`crate::flow_list::subflow_id`]), so each subflow is a PDQ flow of its
//!   own with its own criticality: T_H = the subflow's remaining load / its
//!   R_S^max, or (`subflow_criticality = "flow"`) the flow's remaining bytes
//!   over the sum of its live subflows' R_S^max.
//! - Each subflow runs the §3.1 sender state machine (R_S, P_S, I_S, RTT_S,
//!   SYN / probes / TERM, the rate limiter) on its own path.
//! - Data is split at start into equal shares of segments (the subflow's
//!   *quota*); a subflow sending new data takes the next segment of the flow's
//!   byte stream, so sequence numbers are flow offsets and the shared
//!   receiver reassembles the flow from any mix of subflows.
//! - Load shifting, every `shift_period` RTTs: a subflow paused for a whole
//!   period hands its lost segments and one period's worth of its unsent
//!   quota to the sending subflow with the least remaining load. A subflow with no load left closes with a TERM (freeing
//!   its switch state) once nothing of it is in flight, unless a paused
//!   sibling still holds load it could receive.
//! - Reliability: one flow-level table of sent segments, each owned by the
//!   subflow that last sent it; a segment unacknowledged for that subflow's
//!   RTO is lost and resent by its owner (or whoever the load moves to).
//! - Early Termination is decided for the whole flow: T_S is the flow's
//!   remaining bytes over the sum of its live subflows' R_S^max.

use super::comparator::{aged, base_key, Criticality};
use super::header::{PdqHeader, NOBODY, PDQ_HEADER_BYTES};
use super::control::PathControl;
use super::{PdqConfig, SubflowCriticality};
use crate::endpoint::{FlowEvent, FlowInfo};
use crate::packet::{Packet, PacketKind, Sched, HEADER_BYTES};
use dcflow_core::{Bytes, Dur, Rate, Time};
use std::collections::VecDeque;

mod shifting;

/// What the sender knows of one of its paths.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct PathInfo {
    /// Rate of the path's first link (the subflow's R_S^max).
    pub line_rate: Rate,
    /// Empty-network round trip on the path (the subflow's first RTT_S).
    pub base_rtt: Dur,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum SubPhase {
    /// SYN sent, waiting for the SYN-ACK.
    Connecting,
    Sending,
    /// TERM sent (no load left, flow done, or Early Termination).
    Closing,
    Done,
}

#[derive(Clone, Copy, Debug)]
struct Seg {
    len: u32,
    sent_at: Time,
    /// The subflow that sent it last (and resends it if it is lost).
    sub: u8,
    acked: bool,
    lost: bool,
}

#[derive(Debug)]
struct Subflow {
    phase: SubPhase,
    /// R_S^max, R_S, P_S, I_S, RTT_S and the rate limiter on its path (§3.1).
    ctl: PathControl,
    /// Since when the switches have paused the subflow (None: not paused).
    paused_since: Option<Time>,
    /// Segments of new data assigned to this subflow and not sent yet.
    quota: u64,
    /// Flow offsets of this subflow's segments declared lost (may hold stale
    /// entries; `lost_bytes` is exact).
    lost: VecDeque<u64>,
    /// Bytes sent by this subflow, neither acknowledged nor declared lost.
    in_flight: u64,
    /// Bytes of this subflow's segments declared lost and not resent.
    lost_bytes: u64,
    /// New payload bytes this subflow sent (size estimation, §5.6).
    sent_bytes: u64,
}

impl Subflow {
    fn live(&self) -> bool {
        matches!(self.phase, SubPhase::Connecting | SubPhase::Sending)
    }
    fn paused(&self) -> bool {
        self.phase == SubPhase::Sending && self.ctl.rate == 0
    }
}

/// The M-PDQ sender of one flow (§6).
pub struct MpdqSender {
    info: FlowInfo,
    cfg: PdqConfig,
    /// Payload per data packet (the 16 B header rides inside the MTU).
    mss: u32,
    subs: Vec<Subflow>,
    /// Every byte below this offset is acknowledged; `segs[0]` starts here.
    cumulative: u64,
    /// Next byte of the flow never sent.
    next_new: u64,
    segs: VecDeque<Seg>,
    terminated: bool,
    /// When load was last shifted (§6 "periodically").
    last_shift: Time,
    /// Next subflow `poll_transmit` looks at first (round robin).
    rr: usize,
    retransmits: u64,
    timeouts: u64,
    probes: u64,
    shifts: u64,
    shifted_segments: u64,
    events: VecDeque<FlowEvent>,
}

impl MpdqSender {
    /// A sender striping `info`'s flow over `paths` (one subflow per path;
    /// fewer if the flow has fewer segments than paths).
    pub fn new(info: FlowInfo, cfg: &PdqConfig, paths: &[PathInfo]) -> MpdqSender {
        assert!(!paths.is_empty() && paths.len() <= 256, "M-PDQ needs 1..=256 paths");
        let mss = info.mss.saturating_sub(PDQ_HEADER_BYTES).max(1);
        let total = info.size.0.div_ceil(mss as u64).max(1);
        let n = (paths.len() as u64).min(total) as usize;
        let (base, extra) = (total / n as u64, total % n as u64);
        let subs = paths[..n]
            .iter()
            .enumerate()
            .map(|(i, p)| Subflow {
                phase: SubPhase::Connecting,
                ctl: PathControl::new(p.line_rate.0, p.base_rtt, info.start),
                paused_since: None,
                quota: base + u64::from((i as u64) < extra),
                lost: VecDeque::new(),
                in_flight: 0,
                lost_bytes: 0,
                sent_bytes: 0,
            })
            .collect();
        MpdqSender {
            info,
            cfg: cfg.clone(),
            mss,
            subs,
            cumulative: 0,
            next_new: 0,
            segs: VecDeque::new(),
            terminated: false,
            last_shift: info.start,
            rr: 0,
            retransmits: 0,
            timeouts: 0,
            probes: 0,
            shifts: 0,
            shifted_segments: 0,
            events: VecDeque::new(),
        }
    }

    pub fn subflows(&self) -> usize {
        self.subs.len()
    }
    pub fn retransmits(&self) -> u64 {
        self.retransmits
    }
    pub fn timeouts(&self) -> u64 {
        self.timeouts
    }
    pub fn probes(&self) -> u64 {
        self.probes
    }
    /// Load shifts done, and segments of quota they moved.
    pub fn shifts(&self) -> (u64, u64) {
        (self.shifts, self.shifted_segments)
    }
    pub fn phase(&self, sub: usize) -> SubPhase {
        self.subs[sub].phase
    }
    /// R_S of subflow `sub` (bps).
    pub fn rate(&self, sub: usize) -> u64 {
        self.subs[sub].ctl.rate
    }
    /// Bytes subflow `sub` still has to get acknowledged (its load).
    pub fn remaining(&self, sub: usize) -> u64 {
        let s = &self.subs[sub];
        let unsent = self.info.size.0 - self.next_new;
        (s.quota * self.mss as u64).min(unsent) + s.in_flight + s.lost_bytes
    }
    pub fn acked_bytes(&self) -> u64 {
        self.cumulative
    }

    fn size_known(&self) -> bool {
        self.cfg.criticality == Criticality::Size
    }
    fn all_acked(&self) -> bool {
        self.cumulative >= self.info.size.0
    }
    fn rto(&self, sub: usize) -> Dur {
        self.cfg.rto_min.max(self.subs[sub].ctl.srtt.mul_f64(self.cfg.rto_rtts))
    }

    /// T_H a subflow carries: its remaining load at its R_S^max, or with
    /// `subflow_criticality = "flow"` the flow's T_S (§6 leaves it open).
    fn expected(&self, sub: usize) -> Dur {
        match self.cfg.subflow_criticality {
            SubflowCriticality::Own => Rate(self.subs[sub].ctl.r_max.max(1)).tx_time(Bytes(self.remaining(sub))),
            SubflowCriticality::Flow => self.flow_expected(),
        }
    }

    fn header(&self, sub: usize, now: Time) -> PdqHeader {
        let s = &self.subs[sub];
        let t = self.expected(sub);
        let key = base_key(self.cfg.criticality, self.info.id, t, s.sent_bytes, self.cfg.estimate_step.0, s.ctl.r_max);
        PdqHeader {
            rate: s.ctl.r_max,
            pause_by: s.ctl.pause_by,
            deadline: self.info.deadline.unwrap_or(Time::MAX),
            expected: if self.size_known() { t } else { Dur(u64::MAX) },
            rtt: s.ctl.srtt,
            inter_probe: 0.0,
            crit: aged(key, self.cfg.aging_alpha, now.since(self.info.start), self.cfg.aging_unit),
        }
    }

    fn packet(&mut self, sub: usize, now: Time, kind: PacketKind) -> Packet {
        let mut p = Packet::new(self.info.id, kind, false, now);
        p.path = sub as u8;
        p.wire = HEADER_BYTES + PDQ_HEADER_BYTES;
        p.sched = Sched::Pdq(self.header(sub, now));
        self.subs[sub].ctl.last_sent_at = now;
        p
    }

    fn index(&self, seq: u64) -> Option<usize> {
        if seq < self.cumulative {
            return None;
        }
        let i = ((seq - self.cumulative) / self.mss as u64) as usize;
        (i < self.segs.len()).then_some(i)
    }

    fn has_work(&self, sub: usize) -> bool {
        let s = &self.subs[sub];
        s.lost_bytes > 0 || (s.quota > 0 && self.next_new < self.info.size.0)
    }

    /// The next segment subflow `sub` sends: one of its lost ones, else the
    /// next new segment of the flow (charged to its quota).
    fn next_segment(&mut self, sub: usize, now: Time) -> Option<(u64, u32, bool)> {
        while let Some(seq) = self.subs[sub].lost.pop_front() {
            let Some(k) = self.index(seq) else { continue };
            let seg = &mut self.segs[k];
            if seg.acked || !seg.lost || seg.sub as usize != sub {
                continue;
            }
            seg.lost = false;
            seg.sent_at = now;
            let len = seg.len;
            let s = &mut self.subs[sub];
            s.lost_bytes -= len as u64;
            s.in_flight += len as u64;
            self.retransmits += 1;
            return Some((seq, len, true));
        }
        let size = self.info.size.0;
        if self.subs[sub].quota == 0 || self.next_new >= size {
            return None;
        }
        let seq = self.next_new;
        let len = (size - seq).min(self.mss as u64) as u32;
        self.next_new += len as u64;
        self.segs.push_back(Seg { len, sent_at: now, sub: sub as u8, acked: false, lost: false });
        let s = &mut self.subs[sub];
        s.quota -= 1;
        s.in_flight += len as u64;
        s.sent_bytes += len as u64;
        Some((seq, len, false))
    }

    /// Segment `k` is acknowledged: take it off its owner's books.
    fn settle(&mut self, k: usize) {
        let seg = &mut self.segs[k];
        if seg.acked {
            return;
        }
        seg.acked = true;
        let s = &mut self.subs[seg.sub as usize];
        if seg.lost {
            s.lost_bytes -= seg.len as u64;
        } else {
            s.in_flight -= seg.len as u64;
        }
    }

    /// An ACK from any subflow: cumulative ack `cum` (one buffer for the whole
    /// flow) plus the segment starting at `acked_seq`.
    fn on_ack(&mut self, cum: u64, acked_seq: u64) {
        if let Some(k) = self.index(acked_seq) {
            self.settle(k);
        }
        let cum = cum.min(self.next_new);
        while self.cumulative < cum && !self.segs.is_empty() {
            self.settle(0);
            self.cumulative += self.segs.pop_front().expect("non-empty").len as u64;
        }
        while self.segs.front().is_some_and(|s| s.acked) {
            self.cumulative += self.segs.pop_front().expect("non-empty").len as u64;
        }
    }

    /// Declare every segment outstanding for its owner's RTO lost.
    fn expire(&mut self, now: Time) -> usize {
        let mut n = 0;
        for (k, seg) in self.segs.iter_mut().enumerate() {
            let sub = seg.sub as usize;
            let rto = self.cfg.rto_min.max(self.subs[sub].ctl.srtt.mul_f64(self.cfg.rto_rtts));
            if !seg.acked && !seg.lost && seg.sent_at + rto <= now {
                seg.lost = true;
                let s = &mut self.subs[sub];
                s.in_flight -= seg.len as u64;
                s.lost_bytes += seg.len as u64;
                s.lost.push_back(self.cumulative + k as u64 * self.mss as u64);
                n += 1;
            }
        }
        n
    }

    fn next_expiry(&self) -> Option<Time> {
        self.segs
            .iter()
            .filter(|s| !s.acked && !s.lost)
            .map(|s| s.sent_at + self.rto(s.sub as usize))
            .min()
    }

    fn take_feedback(&mut self, sub: usize, now: Time, h: &PdqHeader) {
        let s = &mut self.subs[sub];
        s.ctl.take_feedback(now, h, super::control::Probing::pdq(self.cfg.variant));
        if s.ctl.pause_by != NOBODY {
            s.paused_since.get_or_insert(now);
        } else {
            s.paused_since = None;
        }
    }

    fn live_rate_sum(&self) -> u64 {
        self.subs.iter().filter(|s| s.live()).map(|s| s.ctl.r_max).sum()
    }

    /// T_S of the whole flow: its unacknowledged bytes over the sum of its
    /// live subflows' R_S^max (the fastest it could still finish).
    fn flow_expected(&self) -> Dur {
        Rate(self.live_rate_sum().max(1)).tx_time(Bytes(self.info.size.0 - self.cumulative.min(self.info.size.0)))
    }

    fn all_paused(&self) -> bool {
        self.subs.iter().filter(|s| s.live()).all(|s| s.ctl.rate == 0)
    }

    fn min_srtt(&self) -> Dur {
        self.subs.iter().filter(|s| s.live()).map(|s| s.ctl.srtt).min().unwrap_or(Dur::ZERO)
    }

    /// Early Termination (§3.1) for the flow: (1) Time > D, (2) Time + T_S > D,
    /// (3) every live subflow paused and Time + RTT_S > D.
    fn should_terminate(&self, now: Time) -> bool {
        if !self.cfg.variant.early_termination() || self.terminated || !self.subs.iter().any(Subflow::live) {
            return false;
        }
        let Some(d) = self.info.deadline else { return false };
        now > d
            || (self.size_known() && now + self.flow_expected() > d)
            || (self.all_paused() && now + self.min_srtt() > d)
    }

    fn termination_check_at(&self) -> Option<Time> {
        if !self.cfg.variant.early_termination() || self.terminated || !self.subs.iter().any(Subflow::live) {
            return None;
        }
        let d = self.info.deadline?;
        let mut t = Time(d.0.saturating_add(1));
        if self.size_known() {
            t = t.min(Time(d.0.saturating_sub(self.flow_expected().0).saturating_add(1)));
        }
        if self.all_paused() {
            t = t.min(Time(d.0.saturating_sub(self.min_srtt().0).saturating_add(1)));
        }
        Some(t)
    }

    fn terminate(&mut self) {
        self.terminated = true;
        for i in 0..self.subs.len() {
            if self.subs[i].live() {
                self.close(i);
            }
        }
        self.events.push_back(FlowEvent::Terminated);
    }

    /// Housekeeping after any input: shift load, close idle subflows, check
    /// Early Termination.
    fn after_input(&mut self, now: Time) {
        if !self.all_acked() {
            self.shift(now);
        }
        self.close_idle();
        if self.should_terminate(now) {
            self.terminate();
        }
    }

    /// Routing moved subflow `path` ([`crate::Sender::path_changed`]).
    pub fn path_changed(&mut self, now: Time, path: u8) {
        if let Some(s) = self.subs.get_mut(path as usize) {
            s.ctl.path_changed(now);
        }
    }

    pub fn handle_packet(&mut self, now: Time, pkt: &Packet) {
        let sub = pkt.path as usize;
        if sub >= self.subs.len() {
            return;
        }
        if !pkt.retransmit && matches!(pkt.kind, PacketKind::SynAck | PacketKind::Ack | PacketKind::Probe) {
            let s = &mut self.subs[sub];
            let sample = now.since(pkt.sent_at);
            s.ctl.srtt = Dur((s.ctl.srtt.0 * 7 + sample.0) / 8);
        }
        let feedback = self.subs[sub].ctl.feedback(pkt);
        let phase = self.subs[sub].phase;
        match pkt.kind {
            PacketKind::SynAck if phase == SubPhase::Connecting => {
                self.subs[sub].phase = SubPhase::Sending;
                if let Some(h) = feedback {
                    self.take_feedback(sub, now, &h);
                }
            }
            PacketKind::Ack | PacketKind::Probe => {
                // ACKs carry the flow's cumulative ack: apply them whatever
                // state their subflow is in.
                if pkt.kind == PacketKind::Ack {
                    self.on_ack(pkt.seq, pkt.acked_seq);
                }
                if phase == SubPhase::Sending {
                    if let Some(h) = feedback {
                        self.take_feedback(sub, now, &h);
                    }
                }
            }
            PacketKind::FinAck if phase == SubPhase::Closing => {
                self.subs[sub].phase = SubPhase::Done;
                if !self.terminated && self.subs.iter().all(|s| s.phase == SubPhase::Done) {
                    self.events.push_back(FlowEvent::Closed);
                }
            }
            _ => {}
        }
        self.after_input(now);
    }

    pub fn handle_timeout(&mut self, now: Time) {
        for i in 0..self.subs.len() {
            let rto = self.rto(i);
            let s = &mut self.subs[i];
            if matches!(s.phase, SubPhase::Connecting | SubPhase::Closing) && !s.ctl.control_due && s.ctl.control_sent_at + rto <= now {
                s.ctl.control_due = true;
                self.timeouts += 1;
            }
        }
        if self.expire(now) > 0 {
            self.timeouts += 1;
        }
        self.after_input(now);
    }

    fn poll_sub(&mut self, i: usize, now: Time) -> Option<Packet> {
        let s = &self.subs[i];
        match s.phase {
            SubPhase::Connecting | SubPhase::Closing => {
                if !s.ctl.control_due {
                    return None;
                }
                let kind = if s.phase == SubPhase::Connecting { PacketKind::Syn } else { PacketKind::Fin };
                let s = &mut self.subs[i];
                s.ctl.control_due = false;
                s.ctl.control_sent_at = now;
                Some(self.packet(i, now, kind))
            }
            SubPhase::Sending if s.ctl.rate > 0 && self.has_work(i) => {
                if now < s.ctl.pacer.next() {
                    if now >= s.ctl.next_probe_at() {
                        self.probes += 1;
                        return Some(self.packet(i, now, PacketKind::Probe));
                    }
                    return None;
                }
                let (seq, len, retransmit) = self.next_segment(i, now)?;
                let mut p = self.packet(i, now, PacketKind::Data);
                p.seq = seq;
                p.payload = len;
                p.wire += len;
                p.retransmit = retransmit;
                let s = &mut self.subs[i];
                s.ctl.pacer.sent(now, p.wire, s.ctl.rate);
                Some(p)
            }
            SubPhase::Sending if s.ctl.rate > 0 => None,
            SubPhase::Sending => {
                if now < s.ctl.next_probe_at() {
                    return None;
                }
                self.probes += 1;
                Some(self.packet(i, now, PacketKind::Probe))
            }
            SubPhase::Done => None,
        }
    }

    pub fn poll_transmit(&mut self, now: Time) -> Option<Packet> {
        let n = self.subs.len();
        for k in 0..n {
            let i = (self.rr + k) % n;
            if let Some(p) = self.poll_sub(i, now) {
                self.rr = (i + 1) % n;
                return Some(p);
            }
        }
        None
    }

    fn sub_timeout(&self, i: usize) -> Option<Time> {
        let s = &self.subs[i];
        match s.phase {
            SubPhase::Connecting | SubPhase::Closing if !s.ctl.control_due => Some(s.ctl.control_sent_at + self.rto(i)),
            SubPhase::Connecting | SubPhase::Closing => None,
            SubPhase::Sending if s.ctl.rate > 0 => self.has_work(i).then(|| s.ctl.pacer.next().min(s.ctl.next_probe_at())),
            SubPhase::Sending => Some(s.ctl.next_probe_at()),
            SubPhase::Done => None,
        }
    }

    pub fn poll_timeout(&self) -> Option<Time> {
        let subs = (0..self.subs.len()).filter_map(|i| self.sub_timeout(i)).min();
        [subs, self.next_expiry(), self.termination_check_at()].into_iter().flatten().min()
    }

    pub fn poll_event(&mut self) -> Option<FlowEvent> {
        self.events.pop_front()
    }
}
