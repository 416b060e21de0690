//! Per-output-port switch agents: the switch side of every protocol.
//!
//! The engine calls [`PortAgent::on_packet`] for each packet entering an output
//! port's queue, with a read-only [`PortView`] of that port. Agents rewrite the
//! packet's scheduling header in place and keep their own state; like the
//! endpoints they never read a clock (`now` is an argument) and need no timers:
//! periodic work (D3's capacity controller) is done lazily when a packet comes.

use crate::packet::Packet;
use crate::rate_alloc::RateAllocator;
use dcflow_core::{Rate, Time};

/// What an agent may see of its port.
#[derive(Clone, Copy, Debug)]
pub struct PortView {
    pub rate: Rate,
    /// Bytes waiting in the port's queue now.
    pub queue_bytes: u64,
    /// Bytes the port has finished transmitting since the run began.
    pub tx_bytes: u64,
}

/// The closed set of switch agents (DESIGN.md rule 3).
pub enum PortAgent {
    /// Plain forwarding (TCP, DCTCP, pFabric: their logic is in the queue).
    Forward,
    /// D3 / RCP_dc explicit rate allocation (D3 §4.3 Snippet 1, §4.4).
    Rate(RateAllocator),
}

impl PortAgent {
    /// `hop` is the index of this switch along the packet's path (0 = first switch).
    #[inline]
    pub fn on_packet(&mut self, now: Time, port: &PortView, hop: usize, pkt: &mut Packet) {
        match self {
            PortAgent::Forward => {}
            PortAgent::Rate(a) => a.on_packet(now, port, hop, pkt),
        }
    }
}
