//! Host-scheduled transports: one sans-IO agent per host instead of one
//! sender and one receiver per flow.
//!
//! Receiver-driven protocols schedule across every flow a host takes part in:
//! a pHost receiver issues one token at a time to the inbound flow with the
//! fewest remaining bytes (pHost §3), a Homa receiver grants the few
//! shortest inbound messages (Homa §3.4), and their senders pick which of
//! their flows to serve next. That state is per host, not per flow, so such
//! a protocol is a [`HostEndpoint`]: the engine hands it every flow the host
//! starts and every packet that reaches the host, and drains its packets,
//! timer and per-flow events exactly as it drives a per-flow [`Endpoint`]
//! (docs/architecture.md rule 1: `now` is always an argument, outputs are
//! polled, nothing here reads a clock or touches an event queue).
//!
//! The agent sends at most what its NIC can carry: it paces its own
//! transmissions at `line_rate` (as pHost's and Homa's hosts do), so the
//! packets it hands over find the host's port free.
//!
//! [`Endpoint`]: crate::Endpoint

use crate::endpoint::{FlowEvent, FlowInfo};
use crate::packet::Packet;
use dcflow_core::{FlowId, Time};

/// The interface of a host-scheduled protocol's per-host agent.
pub trait HostEndpoint {
    /// This host starts sending flow `info` (`info.dst` is the receiving host).
    fn start_flow(&mut self, now: Time, info: FlowInfo);
    /// A packet of any flow reached this host: data of a flow it receives, or
    /// control (tokens, grants, acknowledgements) of a flow it sends.
    fn handle_packet(&mut self, now: Time, pkt: &Packet);
    fn handle_timeout(&mut self, now: Time);
    /// Next packet to hand to the host's NIC now, if any.
    fn poll_transmit(&mut self, now: Time) -> Option<Packet>;
    /// When `handle_timeout` should next be called, if ever.
    fn poll_timeout(&self) -> Option<Time>;
    /// What happened to which flow: `Delivered` when this host, as receiver,
    /// holds every byte; `Closed` / `Terminated` for flows it sends.
    fn poll_event(&mut self) -> Option<(FlowId, FlowEvent)>;
    /// Bytes of `flow` this host has received in order (0 if it is not the
    /// flow's receiver or has forgotten a finished flow it reported).
    fn bytes_delivered(&self, flow: FlowId) -> u64;
    /// Data packets this host sent again, over all its flows.
    fn retransmits(&self) -> u64;
}

/// Every host-scheduled protocol's agent, as a closed enum so the engine's
/// hot path never goes through `dyn` (as [`crate::Sender`] does for the
/// per-flow senders). A new protocol adds a variant here and an arm in
/// [`crate::ProtocolConfig::host_agent`].
pub enum HostAgent {
    /// pHost (Gao et al., CoNEXT'15).
    Phost(crate::phost::PhostHost),
}

macro_rules! each_host_agent {
    ($self:expr, $a:ident => $e:expr) => {
        match $self {
            HostAgent::Phost($a) => $e,
        }
    };
}

impl HostEndpoint for HostAgent {
    #[inline]
    fn start_flow(&mut self, now: Time, info: FlowInfo) {
        each_host_agent!(self, a => a.start_flow(now, info))
    }
    #[inline]
    fn handle_packet(&mut self, now: Time, pkt: &Packet) {
        each_host_agent!(self, a => a.handle_packet(now, pkt))
    }
    #[inline]
    fn handle_timeout(&mut self, now: Time) {
        each_host_agent!(self, a => a.handle_timeout(now))
    }
    #[inline]
    fn poll_transmit(&mut self, now: Time) -> Option<Packet> {
        each_host_agent!(self, a => a.poll_transmit(now))
    }
    #[inline]
    fn poll_timeout(&self) -> Option<Time> {
        each_host_agent!(self, a => a.poll_timeout())
    }
    #[inline]
    fn poll_event(&mut self) -> Option<(FlowId, FlowEvent)> {
        each_host_agent!(self, a => a.poll_event())
    }
    fn bytes_delivered(&self, flow: FlowId) -> u64 {
        each_host_agent!(self, a => a.bytes_delivered(flow))
    }
    fn retransmits(&self) -> u64 {
        each_host_agent!(self, a => a.retransmits())
    }
}
