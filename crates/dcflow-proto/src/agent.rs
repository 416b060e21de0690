//! Per-output-port switch agents: the switch side of every protocol.
//!
//! The engine calls [`PortAgent::on_packet`] for each packet entering an output
//! port's queue, with a read-only [`PortView`] of that port. Agents rewrite the
//! packet's scheduling header in place and keep their own state; like the
//! endpoints they never read a clock (`now` is an argument) and need no timers:
//! periodic work (D3's capacity controller) is done lazily when a packet comes.

use crate::packet::Packet;
use crate::d3::RateAllocator;
use dcflow_core::{FlowId, Rate, Time};

/// What an agent may see of its port.
#[derive(Clone, Copy, Debug)]
pub struct PortView {
    pub rate: Rate,
    /// Bytes waiting in the port's queue now.
    pub queue_bytes: u64,
    /// Bytes the port has finished transmitting since the run began.
    pub tx_bytes: u64,
}

/// The closed set of switch agents (docs/architecture.md rule 3).
pub enum PortAgent {
    /// Plain forwarding (TCP, DCTCP, pFabric: their logic is in the queue).
    Forward,
    /// D3 / RCP_dc explicit rate allocation (D3 §4.3 Snippet 1, §4.4).
    Rate(RateAllocator),
    /// PDQ's flow and rate controllers (PDQ §3.3, Algorithms 1-3).
    Pdq(crate::pdq::PdqSwitch),
    /// MERP's flow table, DRC, VDG and RateAdj (papers/003 §4.3).
    Merp(crate::merp::MerpSwitch),
}

impl PortAgent {
    /// `hop` is the index of this port along the packet's path (0 = the
    /// sender's own port).
    #[inline]
    pub fn on_packet(&mut self, now: Time, port: &PortView, hop: usize, pkt: &mut Packet) {
        match self {
            PortAgent::Forward => {}
            PortAgent::Rate(a) => a.on_packet(now, port, hop, pkt),
            PortAgent::Pdq(a) => a.on_packet(now, port, pkt),
            PortAgent::Merp(a) if !pkt.reverse => a.on_arrival(now, pkt),
            PortAgent::Merp(_) => {}
        }
    }

    /// A packet starts to leave the port (MERP's RateAdj, Alg. 3: "whenever
    /// a SYN, DATA, or DET packet leaves a MERP switch").
    #[inline]
    pub fn on_departure(&mut self, pkt: &mut Packet) {
        if let PortAgent::Merp(a) = self {
            a.on_departure(pkt);
        }
    }

    /// Check the agent's soft state against the flows that exist: `carried`
    /// says whether a flow still uses this port (it has not closed, and the
    /// port is on its path). `None` when consistent, else what is wrong.
    pub fn audit(&self, carried: &dyn Fn(FlowId) -> bool) -> Option<String> {
        match self {
            PortAgent::Rate(a) => a.audit(carried),
            PortAgent::Merp(a) => a.audit(carried),
            _ => None,
        }
    }

    /// Flow `flow` (path `path`) was moved off this port by a routing
    /// change: its state here goes, as if its FIN or TERM had passed
    /// (docs/fidelity.md, "Routing": the papers have no rule for a path
    /// change; D3 §4.4 counts on its counters being soft state, PDQ has no
    /// expiry and a stale accepted entry would hold the port's bandwidth).
    pub fn forget(&mut self, flow: FlowId, path: u8) {
        match self {
            PortAgent::Forward => {}
            PortAgent::Rate(a) => a.forget(flow),
            PortAgent::Pdq(a) => a.on_term(crate::pdq::subflow_id(flow, path)),
            PortAgent::Merp(a) => a.forget(flow),
        }
    }

    /// The capacity the port's controller allocates from, in bps: D3 /
    /// RCP_dc's C (D3 §4.4), PDQ and S3's rate controller C (PDQ §3.3.3).
    pub fn capacity_bps(&self) -> Option<f64> {
        match self {
            PortAgent::Rate(a) => Some(a.capacity()),
            PortAgent::Pdq(a) => Some(a.capacity()),
            _ => None,
        }
    }

    /// Whether the agent wants [`PortAgent::on_departure`] calls (MERP's
    /// RateAdj acts as a packet leaves; the other agents only as packets
    /// arrive).
    #[inline]
    pub fn wants_departure(&self) -> bool {
        matches!(self, PortAgent::Merp(_))
    }

    /// Whether the agent wants [`PortAgent::on_reverse_packet`] calls.
    #[inline]
    pub fn wants_reverse(&self) -> bool {
        matches!(self, PortAgent::Pdq(_))
    }

    /// A reverse packet (ACK) of a flow whose forward packets leave through
    /// this port, as it passes this port's switch on its way back (the engine
    /// calls it at the switch the ACK enters, for the port paired with the link
    /// the ACK arrived on). PDQ's Algorithm 3 runs here: it must update the
    /// state of the port the flow's data uses, not of the port the ACK leaves by.
    #[inline]
    pub fn on_reverse_packet(&mut self, _now: Time, pkt: &mut Packet) {
        if let PortAgent::Pdq(a) = self {
            a.on_reverse_packet(pkt);
        }
    }
}
