//! pFabric's end host (Alizadeh et al., "pFabric: Minimal Near-Optimal
//! Datacenter Transport", SIGCOMM'13, §4.3).
//!
//! Every packet carries the flow's remaining size as its priority; switches
//! (the `pfabric` queue in dcflow-net) serve the most important packet first
//! and drop the least important on overflow, so the end host needs only
//! minimal rate control: start at line rate with a window of one
//! bandwidth-delay product, per-packet ACKs, and a small fixed retransmission
//! timeout. After a timeout the window falls to one packet and slow-starts back
//! (§4.3 "Rate control"); after `probe_after` consecutive timeouts the flow
//! sends one packet per RTO until something is acknowledged (probe mode).

use crate::endpoint::{Endpoint, FlowEvent, FlowInfo};
use crate::packet::{Packet, PacketKind, HEADER_BYTES};
use crate::reliability::SegmentTracker;
use dcflow_core::{ensure, ConfigError, Dur, Time};
use serde::{Deserialize, Serialize};

#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields, default)]
pub struct PfabricConfig {
    /// Initial and maximum window in packets; 0 = the path's bandwidth-delay
    /// product, pFabric's choice (§4.3: "the initial window is set to BDP").
    pub init_window: u32,
    /// Retransmission timeout as a multiple of the path's base RTT (pFabric
    /// §5 uses ~3 RTTs: 45 us at 10 Gbps with ~14 us RTT).
    pub rto_rtts: f64,
    /// Consecutive timeouts after which the flow enters probe mode (§4.3: 5).
    pub probe_after: u32,
}

impl Default for PfabricConfig {
    fn default() -> Self {
        PfabricConfig { init_window: 0, rto_rtts: 3.0, probe_after: 5 }
    }
}

impl PfabricConfig {
    pub fn validate(&self) -> Result<(), ConfigError> {
        ensure(self.rto_rtts > 0.0 && self.rto_rtts.is_finite(), "rto_rtts", "must be a positive number of RTTs")?;
        ensure(self.probe_after >= 1, "probe_after", "must be at least 1")
    }
}

pub struct PfabricSender {
    info: FlowInfo,
    tracker: SegmentTracker,
    max_window: u32,
    window: u32,
    rto: Dur,
    probe_after: u32,
    consecutive_timeouts: u32,
    timeouts: u64,
    closed: bool,
    event: Option<FlowEvent>,
}

impl PfabricSender {
    pub fn new(info: FlowInfo, cfg: &PfabricConfig) -> PfabricSender {
        let max_window = if cfg.init_window == 0 { info.bdp_packets() } else { cfg.init_window };
        PfabricSender {
            info,
            tracker: SegmentTracker::new(info.size.0, info.mss),
            max_window,
            window: max_window,
            rto: info.base_rtt.mul_f64(cfg.rto_rtts),
            probe_after: cfg.probe_after,
            consecutive_timeouts: 0,
            timeouts: 0,
            closed: false,
            event: None,
        }
    }
    pub fn retransmits(&self) -> u64 {
        self.tracker.retransmits()
    }
    pub fn timeouts(&self) -> u64 {
        self.timeouts
    }
    fn probing(&self) -> bool {
        self.consecutive_timeouts >= self.probe_after
    }
}

impl Endpoint for PfabricSender {
    fn handle_packet(&mut self, _now: Time, pkt: &Packet) {
        if pkt.kind != PacketKind::Ack || self.closed {
            return;
        }
        self.tracker.on_ack(pkt.seq, pkt.acked_seq);
        // Every ACK is progress: leave probe mode, slow-start back to the BDP window.
        self.consecutive_timeouts = 0;
        self.window = (self.window + 1).min(self.max_window);
        if self.tracker.all_acked() {
            self.closed = true;
            self.event = Some(FlowEvent::Closed);
        }
    }

    fn handle_timeout(&mut self, now: Time) {
        if self.closed || self.tracker.expire(now, self.rto) == 0 {
            return;
        }
        self.timeouts += 1;
        self.consecutive_timeouts += 1;
        self.window = 1;
    }

    fn poll_transmit(&mut self, now: Time) -> Option<Packet> {
        let limit = if self.probing() { 1 } else { self.window as usize };
        if self.closed || self.tracker.in_flight() >= limit {
            return None;
        }
        let s = self.tracker.next(now)?;
        let mut p = Packet::new(self.info.id, PacketKind::Data, false, now);
        p.seq = s.seq;
        p.payload = s.len;
        p.wire = HEADER_BYTES + s.len;
        p.retransmit = s.retransmit;
        // §3: "priority ... set to the remaining flow size".
        p.prio = self.tracker.remaining();
        Some(p)
    }

    fn poll_timeout(&self) -> Option<Time> {
        if self.closed {
            return None;
        }
        self.tracker.next_expiry(self.rto)
    }

    fn poll_event(&mut self) -> Option<FlowEvent> {
        self.event.take()
    }
}
