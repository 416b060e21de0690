//! The TCP sender state machine: set-up, segmentation, RTO, NewReno recovery.

use super::cc::{Cc, DctcpState, FlowProgress, Signal};
use super::config::{D2tcpConfig, DctcpConfig, L2dctConfig, LpdConfig, TcpConfig, MAX_RTO};
use super::karuna::{FlowType, KarunaConfig};
use super::pias::{PiasConfig, Tag};
use crate::endpoint::{Endpoint, FlowEvent, FlowInfo};
use crate::packet::{Packet, PacketKind};
use dcflow_core::{Dur, Time};
use std::collections::VecDeque;

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Phase {
    /// Nothing sent yet (waiting for `FlowInfo::start`).
    Idle,
    /// SYN sent, waiting for the SYN-ACK.
    SynSent,
    Established,
    Closed,
}

/// A TCP sender (NewReno, DCTCP, D2TCP, L2DCT or LPD) for one flow. See the module doc.
#[derive(Clone, Debug)]
pub struct TcpSender {
    info: FlowInfo,
    /// Switch priority class of each packet (TCP_pr's, PIAS', Karuna's; 0 otherwise).
    tag: Tag,
    cc: Cc,
    mss: u64,
    size: u64,
    dupack_threshold: u32,
    max_cwnd: u64,
    handshake: bool,
    /// RTT samples from ACKs of retransmissions too ([`TcpConfig::timestamps`]).
    timestamps: bool,
    rto_min: Dur,
    /// The flow's deadline when `stop_at_deadline` is set: the sender gives
    /// the flow up then ([`TcpConfig::stop_at_deadline`]).
    stop_at: Option<Time>,
    phase: Phase,

    // Sequence space (payload bytes, 0-based).
    /// Oldest unacknowledged byte.
    snd_una: u64,
    /// Next byte to send (rewound to `snd_una` by a timeout: go-back-N).
    snd_nxt: u64,
    /// Highest byte ever sent + 1; bytes below it are retransmissions.
    snd_max: u64,

    // Congestion control (bytes).
    cwnd: u64,
    ssthresh: u64,
    /// Bytes acked in congestion avoidance since the last +1 MSS (RFC 5681 §3.1
    /// byte counting: cwnd grows by one MSS per cwnd of acked bytes).
    ca_acked: u64,
    dupacks: u32,
    in_recovery: bool,
    /// RFC 6582 `recover`: highest byte sent when the last recovery or timeout
    /// began; a new fast retransmit needs a cumulative ack above it.
    recover: Option<u64>,
    /// DCTCP/ECN: no further ECN reduction until `snd_una` passes this.
    cwr_end: u64,
    /// Whether the first partial ACK of the current recovery was seen.
    partial_seen: bool,

    // RTO (RFC 6298).
    rtt: crate::rtt::RttEstimator,
    rto: Dur,
    rto_deadline: Option<Time>,

    /// Segments to retransmit ahead of new data (fast retransmit, partial ACKs).
    retx_queue: VecDeque<u64>,
    syn_pending: bool,
    syn_retransmit: bool,
    events: VecDeque<FlowEvent>,

    // Statistics.
    retransmits: u64,
    timeouts: u64,
    fast_retransmits: u64,
    packets_sent: u64,
}

impl TcpSender {
    /// A TCP NewReno sender.
    pub fn new(info: FlowInfo, cfg: &TcpConfig) -> TcpSender {
        TcpSender::with_cc(info, cfg, Cc::NewReno)
    }

    /// A DCTCP sender.
    pub fn dctcp(info: FlowInfo, cfg: &DctcpConfig) -> TcpSender {
        let cc = Cc::Dctcp(DctcpState::new(cfg.g, cfg.alpha_init));
        TcpSender::with_cc(info, &cfg.tcp(), cc)
    }

    /// A D2TCP sender: DCTCP's keys, the gamma-corrected decrease.
    pub fn d2tcp(info: FlowInfo, cfg: &D2tcpConfig) -> TcpSender {
        let cc = Cc::D2tcp(DctcpState::new(cfg.dctcp.g, cfg.dctcp.alpha_init), cfg.imminence);
        TcpSender::with_cc(info, &cfg.dctcp.tcp(), cc)
    }

    /// An LPD sender (papers/004 §IV).
    pub fn lpd(info: FlowInfo, cfg: &LpdConfig) -> TcpSender {
        let dctcp = &cfg.d2tcp.dctcp;
        let cc = Cc::Lpd(DctcpState::new(dctcp.g, dctcp.alpha_init), cfg.rule, cfg.d2tcp.imminence);
        TcpSender::with_cc(info, &dctcp.tcp(), cc)
    }

    /// An L2DCT sender (baselines.md "L2DCT").
    pub fn l2dct(info: FlowInfo, cfg: &L2dctConfig) -> TcpSender {
        let cc = Cc::L2dct(DctcpState::new(cfg.dctcp.g, cfg.dctcp.alpha_init), cfg.rule);
        TcpSender::with_cc(info, &cfg.dctcp.tcp(), cc)
    }

    /// A PIAS sender: DCTCP whose packets carry the MLFQ class of the bytes
    /// sent before them ([`super::pias`]).
    pub fn pias(info: FlowInfo, cfg: &PiasConfig) -> TcpSender {
        let cc = Cc::Dctcp(DctcpState::new(cfg.dctcp.g, cfg.dctcp.alpha_init));
        TcpSender::with_cc(info, &cfg.dctcp.tcp(), cc).tagged(cfg.tag())
    }

    /// A Karuna sender ([`super::karuna`]): MCP for a deadline flow, DCTCP
    /// otherwise, each in the classes of its type.
    pub fn karuna(info: FlowInfo, cfg: &KarunaConfig) -> TcpSender {
        let d = DctcpState::new(cfg.dctcp.g, cfg.dctcp.alpha_init);
        let cc = if FlowType::of(&info) == FlowType::Deadline { Cc::Mcp(d) } else { Cc::Dctcp(d) };
        TcpSender::with_cc(info, &cfg.dctcp.tcp(), cc).tagged(cfg.tag(&info))
    }

    fn tagged(self, tag: Tag) -> TcpSender {
        TcpSender { tag, ..self }
    }

    /// TCP_pr's class for this flow's packets (see
    /// [`TcpConfig::priority_deadlines`]); 0 without TCP_pr.
    fn priority_class(info: &FlowInfo, thresholds: &[Dur]) -> u64 {
        if thresholds.is_empty() {
            return 0;
        }
        let class = match info.deadline {
            None => thresholds.len() + 1,
            Some(d) => {
                let relative = d.since(info.start);
                thresholds.iter().position(|&t| relative <= t).unwrap_or(thresholds.len())
            }
        };
        class as u64
    }

    /// A sender with an explicit congestion-control state.
    pub fn with_cc(info: FlowInfo, cfg: &TcpConfig, cc: Cc) -> TcpSender {
        let mss = info.mss.max(1) as u64;
        let rto = cfg.rto_init.unwrap_or_else(|| cfg.rto_min.max(Dur(info.base_rtt.0.saturating_mul(3))));
        TcpSender {
            tag: Tag::Fixed(TcpSender::priority_class(&info, &cfg.priority_deadlines)),
            info,
            cc,
            mss,
            size: info.size.0,
            dupack_threshold: cfg.dupack_threshold.max(1),
            max_cwnd: cfg.max_cwnd.map_or(u64::MAX, |m| m.max(1) as u64 * mss),
            handshake: cfg.handshake,
            timestamps: cfg.timestamps,
            rto_min: cfg.rto_min,
            stop_at: if cfg.stop_at_deadline { info.deadline } else { None },
            phase: Phase::Idle,
            snd_una: 0,
            snd_nxt: 0,
            snd_max: 0,
            cwnd: cfg.init_cwnd.max(1) as u64 * mss,
            ssthresh: cfg.init_ssthresh.map_or(u64::MAX, |s| s.max(1) as u64 * mss),
            ca_acked: 0,
            dupacks: 0,
            in_recovery: false,
            recover: None,
            cwr_end: 0,
            partial_seen: false,
            rtt: crate::rtt::RttEstimator::default(),
            rto: rto.min(MAX_RTO.max(cfg.rto_min)),
            rto_deadline: None,
            retx_queue: VecDeque::new(),
            syn_pending: false,
            syn_retransmit: false,
            events: VecDeque::new(),
            retransmits: 0,
            timeouts: 0,
            fast_retransmits: 0,
            packets_sent: 0,
        }
    }

    pub fn info(&self) -> &FlowInfo {
        &self.info
    }
    pub fn cc(&self) -> &Cc {
        &self.cc
    }
    /// Congestion window in bytes (inflated during fast recovery).
    pub fn cwnd(&self) -> u64 {
        self.cwnd
    }
    /// Slow-start threshold in bytes (`u64::MAX` until the first congestion signal).
    pub fn ssthresh(&self) -> u64 {
        self.ssthresh
    }
    /// Current retransmission timeout (including backoff).
    pub fn rto(&self) -> Dur {
        self.rto
    }
    pub fn srtt(&self) -> Option<Dur> {
        self.rtt.srtt()
    }
    pub fn rttvar(&self) -> Dur {
        self.rtt.rttvar()
    }
    /// Oldest unacknowledged byte (= bytes acknowledged).
    pub fn snd_una(&self) -> u64 {
        self.snd_una
    }
    /// Payload bytes sent and not yet acknowledged.
    pub fn flight(&self) -> u64 {
        self.snd_nxt.saturating_sub(self.snd_una)
    }
    pub fn in_recovery(&self) -> bool {
        self.in_recovery
    }
    /// DCTCP's alpha, if this is an ECN-driven sender (DCTCP, D2TCP, LPD).
    pub fn alpha(&self) -> Option<f64> {
        self.cc.alpha()
    }
    /// Whether the sender's data packets are ECN-capable (DCTCP, D2TCP, LPD).
    pub fn ecn_capable(&self) -> bool {
        self.cc.ecn_capable()
    }
    pub fn is_closed(&self) -> bool {
        self.phase == Phase::Closed
    }
    /// Packets retransmitted (SYNs, fast retransmits, partial-ACK and
    /// go-back-N retransmissions after a timeout).
    pub fn retransmits(&self) -> u64 {
        self.retransmits
    }
    /// Retransmission-timer expirations (SYN or data).
    pub fn timeouts(&self) -> u64 {
        self.timeouts
    }
    /// Fast-retransmit episodes (entries into fast recovery).
    pub fn fast_retransmits(&self) -> u64 {
        self.fast_retransmits
    }
    /// Every packet handed out by `poll_transmit` (SYNs and data).
    pub fn packets_sent(&self) -> u64 {
        self.packets_sent
    }

    fn seg_len(&self, seq: u64) -> u64 {
        self.mss.min(self.size - seq)
    }

    fn data_packet(&mut self, now: Time, seq: u64, retransmit: bool) -> Packet {
        let len = self.seg_len(seq) as u32;
        let mut p = Packet::new(self.info.id, PacketKind::Data, false, now);
        p.prio = self.tag.class(seq);
        p.seq = seq;
        p.payload = len;
        p.wire = crate::packet::HEADER_BYTES + len;
        p.retransmit = retransmit;
        p.ecn_capable = self.cc.ecn_capable();
        if retransmit {
            self.retransmits += 1;
        }
        self.packets_sent += 1;
        if self.rto_deadline.is_none() {
            // RFC 6298 §5.1: start the timer when sending data if it is not running.
            self.rto_deadline = Some(now + self.rto);
        }
        p
    }

    /// RFC 6298 §2.2-2.3 and the `rto_min` floor (§2.4).
    pub(super) fn rtt_sample(&mut self, r: Dur) {
        self.rtt.sample(r);
        let rto = self.rtt.rto().expect("just sampled");
        self.rto = rto.max(self.rto_min).min(MAX_RTO.max(self.rto_min));
    }

    fn close(&mut self) {
        self.end(FlowEvent::Closed);
    }

    /// `stop_at_deadline`: the deadline has come with bytes unacknowledged;
    /// nothing more is sent and the flow is reported terminated.
    fn give_up(&mut self) {
        self.end(FlowEvent::Terminated);
    }

    /// Stop for good (once), reporting `how` the flow ended.
    fn end(&mut self, how: FlowEvent) {
        if self.phase != Phase::Closed {
            self.phase = Phase::Closed;
            self.rto_deadline = None;
            self.retx_queue.clear();
            self.events.push_back(how);
        }
    }

    fn on_synack(&mut self, now: Time, pkt: &Packet) {
        if self.phase != Phase::SynSent {
            return; // duplicate SYN-ACK of a retransmitted SYN
        }
        if !pkt.retransmit || self.timestamps {
            self.rtt_sample(now.since(pkt.sent_at));
        }
        self.phase = Phase::Established;
        self.rto_deadline = None;
        self.syn_pending = false;
        if self.size == 0 {
            self.close();
        }
    }

    fn on_ack(&mut self, now: Time, pkt: &Packet) {
        if self.phase != Phase::Established {
            return;
        }
        if self.size == 0 {
            self.close(); // an empty flow: any ACK completes it
            return;
        }
        // An ACK cannot acknowledge bytes never sent.
        let ack = pkt.seq.min(self.snd_max);
        if !pkt.retransmit || self.timestamps {
            self.rtt_sample(now.since(pkt.sent_at));
        }
        // Bytes of the data packet this ACK answers (the receiver ACKs each one).
        let answered = if pkt.acked_seq < self.size { self.seg_len(pkt.acked_seq) } else { 0 };

        if ack > self.snd_una {
            let acked = ack - self.snd_una;
            self.snd_una = ack;
            if self.snd_nxt < ack {
                self.snd_nxt = ack; // after go-back-N the receiver may be ahead
            }
            self.cc.on_ack(answered, pkt.ecn_echo, self.snd_una, self.snd_max);
            if self.snd_una >= self.size {
                self.close();
                return;
            }
            if self.in_recovery {
                if Some(ack) >= self.recover {
                    // RFC 6582 §3.2 step 3, full ACK: deflate the window.
                    self.in_recovery = false;
                    self.cwnd = self.ssthresh;
                    self.dupacks = 0;
                } else {
                    // Partial ACK: retransmit the next hole, deflate by the amount
                    // acked and add back one MSS; stay in recovery.
                    self.retx_queue.push_back(self.snd_una);
                    self.cwnd = self.cwnd.saturating_sub(acked) + self.mss.min(acked);
                    self.cwnd = self.cwnd.max(self.mss);
                    if !self.partial_seen {
                        // "Impatient" variant: reset the timer on the first partial ACK only.
                        self.partial_seen = true;
                        self.rto_deadline = Some(now + self.rto);
                    }
                    self.react_to_ecn(now, pkt);
                    return;
                }
            } else {
                self.dupacks = 0;
                self.grow(now, acked);
            }
            self.react_to_ecn(now, pkt);
            // RFC 6298 §5.2-5.3: restart the timer, or stop it if nothing is out.
            self.rto_deadline = if self.snd_nxt > self.snd_una { Some(now + self.rto) } else { None };
        } else if ack == self.snd_una && self.snd_max > self.snd_una {
            self.cc.on_ack(answered, pkt.ecn_echo, self.snd_una, self.snd_max);
            self.dupacks += 1;
            if self.in_recovery {
                // RFC 6582 §3.2 step 4: inflate by one MSS per further dupack.
                self.cwnd = self.cwnd.saturating_add(self.mss);
            } else if self.dupacks == self.dupack_threshold && self.recover.is_none_or(|r| ack > r) {
                self.enter_recovery(now);
            } else {
                self.react_to_ecn(now, pkt);
            }
        }
    }

    /// D2TCP's imminence d at `now`, if this sender's window rule uses it.
    pub fn imminence(&self, now: Time) -> Option<f64> {
        self.cc.imminence(&self.progress(now))
    }

    /// What the window rules of D2TCP and LPD look at.
    fn progress(&self, now: Time) -> FlowProgress {
        FlowProgress {
            now,
            start: self.info.start,
            deadline: self.info.deadline,
            size: self.size,
            remaining: self.size.saturating_sub(self.snd_una),
            sent: self.snd_max,
            cwnd: self.cwnd,
            rtt: self.rtt.srtt().unwrap_or(self.info.base_rtt),
            line_rate: self.info.line_rate.as_bps_f64() / 8.0,
        }
    }

    /// RFC 6582 §3.2 steps 1-2 (fast retransmit, enter fast recovery).
    fn enter_recovery(&mut self, now: Time) {
        let flight = self.flight();
        self.ssthresh = self.cc.ssthresh_after(Signal::DupAcks, flight, self.mss, &self.progress(now));
        self.cwnd = self.ssthresh + self.dupacks as u64 * self.mss;
        self.recover = Some(self.snd_max);
        self.in_recovery = true;
        self.partial_seen = false;
        self.ca_acked = 0;
        self.cwr_end = self.snd_max; // a loss reduction counts as this window's reduction
        self.fast_retransmits += 1;
        self.retx_queue.push_back(self.snd_una);
    }

    /// Slow start / congestion avoidance (RFC 5681 §3.1); the increase per
    /// window in congestion avoidance is the variant's.
    fn grow(&mut self, now: Time, acked: u64) {
        if self.cwnd < self.ssthresh {
            // Slow start, appropriate byte counting with L = 1 SMSS (RFC 3465).
            self.cwnd += acked.min(self.mss);
        } else {
            self.ca_acked += acked;
            if self.ca_acked >= self.cwnd {
                self.ca_acked -= self.cwnd;
                self.cwnd += self.cc.increase(self.mss, &self.progress(now));
            }
        }
        let cap = self.cc.window_cap(self.mss, &self.progress(now)).unwrap_or(u64::MAX);
        self.cwnd = self.cwnd.min(self.max_cwnd.min(cap).max(self.mss));
    }

    /// ECN-Echo: reduce at most once per window of data (DCTCP §3.1,
    /// RFC 3168 §6.1.2), never during loss recovery.
    fn react_to_ecn(&mut self, now: Time, pkt: &Packet) {
        if !pkt.ecn_echo || !self.cc.ecn_capable() || self.in_recovery || self.snd_una < self.cwr_end {
            return;
        }
        self.ssthresh = self.cc.ssthresh_after(Signal::Ecn, self.flight(), self.mss, &self.progress(now));
        self.cwnd = self.ssthresh;
        self.ca_acked = 0;
        self.cwr_end = self.snd_max.max(self.snd_una + 1);
    }

    /// RFC 6298 §5.4-5.6 and RFC 5681 eq. (4): the timer fired.
    fn on_rto(&mut self, now: Time) {
        self.timeouts += 1;
        self.rto = Dur(self.rto.0.saturating_mul(2)).min(MAX_RTO.max(self.rto_min));
        match self.phase {
            Phase::SynSent => {
                self.syn_pending = true;
                self.syn_retransmit = true;
            }
            Phase::Established => {
                let flight = self.flight();
                self.ssthresh = self.cc.ssthresh_after(Signal::Timeout, flight, self.mss, &self.progress(now));
                self.cwnd = self.mss;
                self.ca_acked = 0;
                self.snd_nxt = self.snd_una;
                self.in_recovery = false;
                self.dupacks = 0;
                self.recover = Some(self.snd_max);
                self.cwr_end = self.snd_max;
                self.retx_queue.clear();
            }
            Phase::Idle | Phase::Closed => {}
        }
        self.rto_deadline = Some(now + self.rto);
    }
}

impl Endpoint for TcpSender {
    fn handle_packet(&mut self, now: Time, pkt: &Packet) {
        if pkt.flow != self.info.id || !pkt.reverse {
            return;
        }
        match pkt.kind {
            PacketKind::SynAck => self.on_synack(now, pkt),
            PacketKind::Ack => self.on_ack(now, pkt),
            _ => {}
        }
    }

    fn handle_timeout(&mut self, now: Time) {
        if self.stop_at.is_some_and(|d| now >= d) {
            self.give_up();
            return;
        }
        if let Some(t) = self.rto_deadline {
            if now >= t {
                self.on_rto(now);
            }
        }
    }

    fn poll_transmit(&mut self, now: Time) -> Option<Packet> {
        if self.phase == Phase::Idle {
            if now < self.info.start {
                return None;
            }
            if self.handshake {
                self.phase = Phase::SynSent;
                self.syn_pending = true;
            } else {
                self.phase = Phase::Established;
            }
        }
        match self.phase {
            Phase::Idle | Phase::Closed => None,
            Phase::SynSent => {
                if !self.syn_pending {
                    return None;
                }
                self.syn_pending = false;
                let mut p = Packet::new(self.info.id, PacketKind::Syn, false, now);
                p.prio = self.tag.class(0);
                p.retransmit = self.syn_retransmit;
                if self.syn_retransmit {
                    self.retransmits += 1;
                }
                self.packets_sent += 1;
                if self.rto_deadline.is_none() {
                    self.rto_deadline = Some(now + self.rto);
                }
                Some(p)
            }
            Phase::Established => {
                while let Some(seq) = self.retx_queue.pop_front() {
                    if seq >= self.snd_una && seq < self.snd_max {
                        return Some(self.data_packet(now, seq, true));
                    }
                }
                if self.size == 0 {
                    // An empty flow without handshake: one empty data packet.
                    if self.snd_max == 0 && self.packets_sent == 0 {
                        return Some(self.data_packet(now, 0, false));
                    }
                    return None;
                }
                if self.snd_nxt >= self.size {
                    return None;
                }
                let len = self.seg_len(self.snd_nxt);
                // Window-limited; an empty pipe always admits one segment.
                let window = self.cwnd.min(self.max_cwnd);
                if self.flight() > 0 && self.flight() + len > window {
                    return None;
                }
                let seq = self.snd_nxt;
                let retransmit = seq < self.snd_max;
                self.snd_nxt += len;
                self.snd_max = self.snd_max.max(self.snd_nxt);
                Some(self.data_packet(now, seq, retransmit))
            }
        }
    }

    fn poll_timeout(&self) -> Option<Time> {
        match self.phase {
            Phase::Idle => Some(self.info.start),
            Phase::Closed => None,
            _ => match (self.rto_deadline, self.stop_at) {
                (Some(a), Some(b)) => Some(a.min(b)),
                (a, b) => a.or(b),
            },
        }
    }

    fn poll_event(&mut self) -> Option<FlowEvent> {
        self.events.pop_front()
    }
}
