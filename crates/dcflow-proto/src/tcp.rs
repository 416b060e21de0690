//! TCP senders: NewReno (RFC 5681 + RFC 6582 + RFC 6298) and DCTCP
//! (Alizadeh et al., SIGCOMM'10, §3), the baselines of PDQ, D3, S3, MERP, LPD.
//!
//! Sans-IO (DESIGN.md §Architecture rule 1): the sender never reads a clock,
//! `now` is an argument. It pairs with the shared [`Receiver`](crate::Receiver),
//! which ACKs every data packet with the cumulative ack in `seq`, echoes CE as
//! `ecn_echo` and echoes `sent_at` / `retransmit` (RTT samples, Karn's rule).
//!
//! Structure: one state machine for connection set-up, segmentation, the RTO
//! timer and NewReno loss recovery, parameterised by a closed congestion-control
//! enum [`Cc`]. The congestion-control variants only decide (a) per-ACK
//! bookkeeping ([`Cc::on_ack`]) and (b) the window after a congestion signal
//! ([`Cc::ssthresh_after`], the window-decrease hook). D2TCP (penalty
//! `p = alpha^d`, Vamanan et al. SIGCOMM'12) and L2DCT are meant to be added as
//! further `Cc` variants without touching the loss-recovery code.
//!
//! Units: the congestion window and ssthresh are kept in **bytes** of payload;
//! configuration gives them in packets (segments of `FlowInfo::mss` bytes).

use crate::endpoint::{Endpoint, FlowEvent, FlowInfo};
use crate::packet::{Packet, PacketKind};
use dcflow_core::{ensure, ConfigError, Dur, Time};
use serde::{Deserialize, Serialize};
use std::collections::VecDeque;

/// Upper bound of the backed-off RTO (RFC 6298 §2.5: "a maximum value MAY be
/// placed on RTO provided it is at least 60 seconds").
pub const MAX_RTO: Dur = Dur::secs(60);

fn default_rto_min() -> Dur {
    Dur::ms(10)
}

/// Options of the `tcp` protocol (TCP NewReno).
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields, default)]
pub struct TcpConfig {
    /// Lower bound of the retransmission timeout. Default `10ms`: D3 §6.1.2
    /// "Reducing the RTO to a lower value like 10ms [23]", the "TCP with small
    /// RTO_min" baseline of D3 and PDQ §5.1 (RFC 6298 §2.4 would say 1 s).
    pub rto_min: Dur,
    /// Retransmission timeout before the first RTT sample (RFC 6298 §2.1 uses
    /// 1 s for the Internet). Unset (the default) means
    /// `max(rto_min, 3 * FlowInfo::base_rtt)`: never below `rto_min`, and
    /// three unloaded RTTs so that a long first window on a slow path does
    /// not fire it spuriously.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub rto_init: Option<Dur>,
    /// Initial congestion window in packets. Default 2: D3 §4.5 "Most TCP
    /// implementations shipping today start with a send window of two packets".
    pub init_cwnd: u32,
    /// Duplicate ACKs that trigger fast retransmit. Default 3 (RFC 5681 §3.2).
    pub dupack_threshold: u32,
    /// Optional cap on the congestion window in packets (a receive window /
    /// ns-2 `window_`). Default: no cap.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub max_cwnd: Option<u32>,
    /// SYN / SYN-ACK exchange (one RTT) before the first data packet. Default
    /// true, as in the papers' TCP baselines.
    pub handshake: bool,
}

impl Default for TcpConfig {
    fn default() -> Self {
        TcpConfig {
            rto_min: default_rto_min(),
            rto_init: None,
            init_cwnd: 2,
            dupack_threshold: 3,
            max_cwnd: None,
            handshake: true,
        }
    }
}

impl TcpConfig {
    /// Check value ranges; keys are relative to the protocol section.
    pub fn validate(&self) -> Result<(), ConfigError> {
        ensure(self.rto_min > Dur::ZERO, "rto_min", "must be greater than 0s")?;
        if let Some(r) = self.rto_init {
            ensure(r > Dur::ZERO, "rto_init", "must be greater than 0s")?;
        }
        ensure(self.init_cwnd >= 1, "init_cwnd", "must be at least 1 packet")?;
        ensure(self.dupack_threshold >= 1, "dupack_threshold", "must be at least 1")?;
        if let Some(m) = self.max_cwnd {
            ensure(m >= 1, "max_cwnd", "must be at least 1 packet")?;
        }
        Ok(())
    }
}

/// Options of the `dctcp` protocol: every [`TcpConfig`] key plus DCTCP's gain.
/// The marking threshold K belongs to the switch queue configuration.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields, default)]
pub struct DctcpConfig {
    /// See [`TcpConfig::rto_min`].
    pub rto_min: Dur,
    /// See [`TcpConfig::rto_init`].
    #[serde(skip_serializing_if = "Option::is_none")]
    pub rto_init: Option<Dur>,
    /// See [`TcpConfig::init_cwnd`].
    pub init_cwnd: u32,
    /// See [`TcpConfig::dupack_threshold`].
    pub dupack_threshold: u32,
    /// See [`TcpConfig::max_cwnd`].
    #[serde(skip_serializing_if = "Option::is_none")]
    pub max_cwnd: Option<u32>,
    /// See [`TcpConfig::handshake`].
    pub handshake: bool,
    /// Weight of the newest marked fraction in `alpha <- (1-g) alpha + g F`.
    /// Default 1/16: DCTCP §3.1, "g = 1/16" used in all the paper's experiments.
    pub g: f64,
    /// Initial alpha. Default 1: RFC 8257 §3.3 "DCTCP.Alpha [is initialised] to
    /// 1" (the conservative choice: the first marks halve the window).
    pub alpha_init: f64,
}

impl Default for DctcpConfig {
    fn default() -> Self {
        DctcpConfig::from_tcp(&TcpConfig::default())
    }
}

impl DctcpConfig {
    /// DCTCP with the given TCP options and DCTCP's own defaults.
    pub fn from_tcp(t: &TcpConfig) -> DctcpConfig {
        DctcpConfig {
            rto_min: t.rto_min,
            rto_init: t.rto_init,
            init_cwnd: t.init_cwnd,
            dupack_threshold: t.dupack_threshold,
            max_cwnd: t.max_cwnd,
            handshake: t.handshake,
            g: 1.0 / 16.0,
            alpha_init: 1.0,
        }
    }
    /// The TCP part of the options.
    pub fn tcp(&self) -> TcpConfig {
        TcpConfig {
            rto_min: self.rto_min,
            rto_init: self.rto_init,
            init_cwnd: self.init_cwnd,
            dupack_threshold: self.dupack_threshold,
            max_cwnd: self.max_cwnd,
            handshake: self.handshake,
        }
    }
    pub fn validate(&self) -> Result<(), ConfigError> {
        self.tcp().validate()?;
        ensure(self.g > 0.0 && self.g <= 1.0, "g", "must be in (0, 1]")?;
        ensure((0.0..=1.0).contains(&self.alpha_init), "alpha_init", "must be in [0, 1]")
    }
}

/// A congestion signal handed to the window-decrease hook.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Signal {
    /// `dupack_threshold` duplicate ACKs: fast retransmit (RFC 5681 §3.2).
    DupAcks,
    /// The retransmission timer fired (RFC 5681 eq. 4; cwnd then drops to 1 MSS).
    Timeout,
    /// An ACK with ECN-Echo, at most once per window of data.
    Ecn,
}

/// DCTCP sender state (DCTCP §3.1 "Sender side").
#[derive(Clone, Debug, PartialEq)]
pub struct DctcpState {
    /// Estimate of the fraction of marked packets.
    pub alpha: f64,
    pub g: f64,
    /// Payload bytes acknowledged in the current observation window.
    acked: u64,
    /// ... of which carried ECN-Echo.
    marked: u64,
    /// The observation window ends when `snd_una` passes this sequence number.
    window_end: u64,
}

impl DctcpState {
    pub fn new(g: f64, alpha_init: f64) -> DctcpState {
        DctcpState { alpha: alpha_init, g, acked: 0, marked: 0, window_end: 0 }
    }
}

/// Congestion-control choice: a closed enum (DESIGN.md rule 3). Add D2TCP /
/// L2DCT as variants: they need only `on_ack` (state) and `ssthresh_after`.
#[derive(Clone, Debug, PartialEq)]
pub enum Cc {
    NewReno,
    Dctcp(DctcpState),
}

impl Cc {
    /// Whether data packets should be ECN-capable and ECN-Echo acted on.
    pub fn ecn_capable(&self) -> bool {
        matches!(self, Cc::Dctcp(_))
    }

    /// Per-ACK bookkeeping. `bytes` is the payload of the data packet this ACK
    /// acknowledges, `snd_una` the cumulative ack after processing it and
    /// `snd_max` the highest sequence number sent so far.
    fn on_ack(&mut self, bytes: u64, ecn_echo: bool, snd_una: u64, snd_max: u64) {
        match self {
            Cc::NewReno => {}
            Cc::Dctcp(d) => {
                // DCTCP §3.1: "the sender maintains an estimate of the fraction of
                // packets that are marked, called alpha, which is updated once
                // for every window of data (roughly one RTT)".
                d.acked += bytes;
                if ecn_echo {
                    d.marked += bytes;
                }
                if snd_una >= d.window_end && d.acked > 0 {
                    let f = d.marked as f64 / d.acked as f64;
                    d.alpha = (1.0 - d.g) * d.alpha + d.g * f;
                    d.acked = 0;
                    d.marked = 0;
                    d.window_end = snd_max;
                }
            }
        }
    }

    /// **The window-decrease hook**: the new ssthresh in bytes after `signal`,
    /// given the current window and the bytes in flight.
    fn ssthresh_after(&self, signal: Signal, cwnd: u64, flight: u64, mss: u64) -> u64 {
        match (self, signal) {
            // RFC 5681 eq. (4), RFC 6582 §3.2 step 2: max(FlightSize / 2, 2 SMSS).
            // DCTCP reacts to loss like TCP (DCTCP §3.1).
            (_, Signal::DupAcks | Signal::Timeout) => (flight / 2).max(2 * mss),
            // NewReno is not ECN-capable: ECN-Echo never reaches here.
            (Cc::NewReno, Signal::Ecn) => cwnd,
            // DCTCP §3.1 eq. (2): cwnd <- cwnd (1 - alpha/2); floor of 2 MSS as
            // Linux's dctcp_ssthresh.
            (Cc::Dctcp(d), Signal::Ecn) => {
                let w = (cwnd as f64 * (1.0 - d.alpha / 2.0)) as u64;
                w.max(2 * mss)
            }
        }
    }
}

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Phase {
    /// Nothing sent yet (waiting for `FlowInfo::start`).
    Idle,
    /// SYN sent, waiting for the SYN-ACK.
    SynSent,
    Established,
    Closed,
}

/// A TCP sender (NewReno or DCTCP) for one flow. See the module doc.
#[derive(Clone, Debug)]
pub struct TcpSender {
    info: FlowInfo,
    cc: Cc,
    mss: u64,
    size: u64,
    dupack_threshold: u32,
    max_cwnd: u64,
    handshake: bool,
    rto_min: Dur,
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
    srtt: Option<Dur>,
    rttvar: Dur,
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

    /// A sender with an explicit congestion-control state.
    pub fn with_cc(info: FlowInfo, cfg: &TcpConfig, cc: Cc) -> TcpSender {
        let mss = info.mss.max(1) as u64;
        let rto = cfg.rto_init.unwrap_or_else(|| cfg.rto_min.max(Dur(info.base_rtt.0.saturating_mul(3))));
        TcpSender {
            info,
            cc,
            mss,
            size: info.size.0,
            dupack_threshold: cfg.dupack_threshold.max(1),
            max_cwnd: cfg.max_cwnd.map_or(u64::MAX, |m| m.max(1) as u64 * mss),
            handshake: cfg.handshake,
            rto_min: cfg.rto_min,
            phase: Phase::Idle,
            snd_una: 0,
            snd_nxt: 0,
            snd_max: 0,
            cwnd: cfg.init_cwnd.max(1) as u64 * mss,
            ssthresh: u64::MAX,
            ca_acked: 0,
            dupacks: 0,
            in_recovery: false,
            recover: None,
            cwr_end: 0,
            partial_seen: false,
            srtt: None,
            rttvar: Dur::ZERO,
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
        self.srtt
    }
    pub fn rttvar(&self) -> Dur {
        self.rttvar
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
    /// DCTCP's alpha, if this is a DCTCP sender.
    pub fn alpha(&self) -> Option<f64> {
        match &self.cc {
            Cc::Dctcp(d) => Some(d.alpha),
            _ => None,
        }
    }
    /// Whether the sender's data packets are ECN-capable (DCTCP).
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
    fn rtt_sample(&mut self, r: Dur) {
        match self.srtt {
            None => {
                self.srtt = Some(r);
                self.rttvar = Dur(r.0 / 2);
            }
            Some(srtt) => {
                let err = srtt.0.abs_diff(r.0);
                self.rttvar = Dur((3 * self.rttvar.0 + err) / 4);
                self.srtt = Some(Dur((7 * srtt.0 + r.0) / 8));
            }
        }
        let rto = self.srtt.unwrap().0.saturating_add(self.rttvar.0.saturating_mul(4));
        self.rto = Dur(rto).max(self.rto_min).min(MAX_RTO.max(self.rto_min));
    }

    fn close(&mut self) {
        if self.phase != Phase::Closed {
            self.phase = Phase::Closed;
            self.rto_deadline = None;
            self.retx_queue.clear();
            self.events.push_back(FlowEvent::Closed);
        }
    }

    fn on_synack(&mut self, now: Time, pkt: &Packet) {
        if self.phase != Phase::SynSent {
            return; // duplicate SYN-ACK of a retransmitted SYN
        }
        if !pkt.retransmit {
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
        if !pkt.retransmit {
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
                    self.react_to_ecn(pkt);
                    return;
                }
            } else {
                self.dupacks = 0;
                self.grow(acked);
            }
            self.react_to_ecn(pkt);
            // RFC 6298 §5.2-5.3: restart the timer, or stop it if nothing is out.
            self.rto_deadline = if self.snd_nxt > self.snd_una { Some(now + self.rto) } else { None };
        } else if ack == self.snd_una && self.snd_max > self.snd_una {
            self.cc.on_ack(answered, pkt.ecn_echo, self.snd_una, self.snd_max);
            self.dupacks += 1;
            if self.in_recovery {
                // RFC 6582 §3.2 step 4: inflate by one MSS per further dupack.
                self.cwnd = self.cwnd.saturating_add(self.mss);
            } else if self.dupacks == self.dupack_threshold && self.recover.is_none_or(|r| ack > r) {
                self.enter_recovery();
            } else {
                self.react_to_ecn(pkt);
            }
        }
    }

    /// RFC 6582 §3.2 steps 1-2 (fast retransmit, enter fast recovery).
    fn enter_recovery(&mut self) {
        let flight = self.flight();
        self.ssthresh = self.cc.ssthresh_after(Signal::DupAcks, self.cwnd, flight, self.mss);
        self.cwnd = self.ssthresh + self.dupacks as u64 * self.mss;
        self.recover = Some(self.snd_max);
        self.in_recovery = true;
        self.partial_seen = false;
        self.ca_acked = 0;
        self.cwr_end = self.snd_max; // a loss reduction counts as this window's reduction
        self.fast_retransmits += 1;
        self.retx_queue.push_back(self.snd_una);
    }

    /// Slow start / congestion avoidance (RFC 5681 §3.1).
    fn grow(&mut self, acked: u64) {
        if self.cwnd < self.ssthresh {
            // Slow start, appropriate byte counting with L = 1 SMSS (RFC 3465).
            self.cwnd += acked.min(self.mss);
        } else {
            self.ca_acked += acked;
            if self.ca_acked >= self.cwnd {
                self.ca_acked -= self.cwnd;
                self.cwnd += self.mss;
            }
        }
        self.cwnd = self.cwnd.min(self.max_cwnd.max(self.mss));
    }

    /// ECN-Echo: reduce at most once per window of data (DCTCP §3.1,
    /// RFC 3168 §6.1.2), never during loss recovery.
    fn react_to_ecn(&mut self, pkt: &Packet) {
        if !pkt.ecn_echo || !self.cc.ecn_capable() || self.in_recovery || self.snd_una < self.cwr_end {
            return;
        }
        self.ssthresh = self.cc.ssthresh_after(Signal::Ecn, self.cwnd, self.flight(), self.mss);
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
                self.ssthresh = self.cc.ssthresh_after(Signal::Timeout, self.cwnd, flight, self.mss);
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
            _ => self.rto_deadline,
        }
    }

    fn poll_event(&mut self) -> Option<FlowEvent> {
        self.events.pop_front()
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use dcflow_core::{Bytes, Rate};

    const MSS: u64 = 1000;

    fn info(size: u64) -> FlowInfo {
        FlowInfo {
            id: 7,
            size: Bytes(size),
            start: Time::ZERO,
            deadline: None,
            mss: MSS as u32,
            line_rate: Rate::gbps(1),
            base_rtt: Dur::us(100),
            switch_hops: 1,
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
}
