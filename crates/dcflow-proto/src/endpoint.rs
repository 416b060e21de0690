//! The sans-IO endpoint contract (docs/architecture.md rule 1).
//!
//! An endpoint never reads a clock and never touches an event queue: `now` is
//! always an argument. Inputs are `handle_*`, outputs are `poll_*`. The engine
//! (or, later, a UDP socket driver) calls `handle_packet` / `handle_timeout`,
//! then drains `poll_transmit` and `poll_event` and re-arms a timer at
//! `poll_timeout`. Every protocol implements [`Endpoint`]; the hot path goes
//! through the closed enums in `lib.rs`, never through `dyn`.

use crate::packet::Packet;
use dcflow_core::{Bytes, Dur, FlowId, Rate, Time};

/// What an endpoint knows about its flow when it is created.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct FlowInfo {
    pub id: FlowId,
    pub size: Bytes,
    pub start: Time,
    /// Absolute deadline, if the flow has one.
    pub deadline: Option<Time>,
    /// Whether the sender knows the flow's size from its start (Karuna's
    /// type-2 flows; the workload's `known_size_fraction`).
    pub size_known: bool,
    /// Largest payload per packet (`mtu - HEADER_BYTES`).
    pub mss: u32,
    /// Rate of the sender's access link.
    pub line_rate: Rate,
    /// Round-trip propagation + processing + one MTU's serialization per hop on
    /// the flow's path with empty queues: the sender's initial RTT estimate.
    pub base_rtt: Dur,
    /// Ports on the forward path, each running the protocol's port agent,
    /// the sender's NIC first (the length of D3's allocation vector).
    pub agent_hops: u8,
    /// The receiving host (what a switch reads in the IP header; MERP's
    /// route control compares destinations, papers/003 Alg. 6).
    pub dst: u32,
}

impl FlowInfo {
    /// Bandwidth-delay product of the path in packets (at least 1).
    pub fn bdp_packets(&self) -> u32 {
        let bytes = self.line_rate.bytes_in(self.base_rtt).0;
        bytes.div_ceil(self.mss as u64 + crate::packet::HEADER_BYTES as u64).max(1) as u32
    }
    /// Number of data packets the flow needs.
    pub fn packets(&self) -> u64 {
        self.size.0.div_ceil(self.mss as u64).max(1)
    }
}

/// Something an endpoint reports to the engine.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum FlowEvent {
    /// Receiver: it now holds every byte of the flow (docs/outputs.md: `finish_s`).
    Delivered,
    /// Sender: every byte is acknowledged and teardown is done; it has nothing
    /// more to send and no timer to arm.
    Closed,
    /// Sender: the protocol gave up on the flow (early termination / quenching).
    Terminated,
}

/// Where a connection-based sender (PDQ, S3, MERP) is in its life.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Phase {
    /// SYN sent, waiting for the SYN-ACK.
    Connecting,
    Sending,
    /// TERM / FIN sent (all data acknowledged, or given up), waiting for its answer.
    Closing,
    Done,
}

/// The interface every host-side state machine implements.
/// What a sender's control loop holds at a sample (`[monitor] flows`), for
/// plots such as LPD Fig. 1(b)/(d): each field is None where the protocol
/// has no such state.
#[derive(Clone, Copy, Debug, Default, PartialEq)]
pub struct SenderState {
    /// Congestion window in bytes (the TCP family; pFabric's window).
    pub window_bytes: Option<u64>,
    /// DCTCP's α (DCTCP, D2TCP, L2DCT, LPD).
    pub alpha: Option<f64>,
    /// D2TCP's deadline imminence d (D2TCP; LPD's d and mld variants).
    pub imminence: Option<f64>,
    /// The rate the sender is allowed (D3 / RCP_dc allocation, PDQ and S3's
    /// R_S, MERP's asr), in bps.
    pub rate_bps: Option<u64>,
}

pub trait Endpoint {
    fn handle_packet(&mut self, now: Time, pkt: &Packet);
    fn handle_timeout(&mut self, now: Time);
    /// Next packet to hand to the NIC now, if any.
    fn poll_transmit(&mut self, now: Time) -> Option<Packet>;
    /// When `handle_timeout` should next be called, if ever.
    fn poll_timeout(&self) -> Option<Time>;
    fn poll_event(&mut self) -> Option<FlowEvent>;
}
