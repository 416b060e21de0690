//! What pHost's packets carry (pHost §3): the RTS announcing a flow, the
//! token a destination grants for one packet, the data packet spending it,
//! and the ACK that closes the flow. They travel as dcflow's packet kinds
//! (RTS = `Syn`, token = `Probe` on the reverse path, data = `Data`, ACK =
//! `Ack`) with this header as their scheduling header.

use crate::packet::{Packet, PacketKind, Sched};
use dcflow_core::{FlowId, Time};

/// The pHost fields of a packet.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct PhostHeader {
    /// Token: its sequence number within the flow (free tokens are 0..k).
    /// Data: the sequence number of the token it spends, which tells the
    /// destination how far the source has got (YAPS
    /// `capability_seq_num_in_data`, the downgrade gap).
    pub token: u32,
    /// Token and data: the index of the data packet (0-based, MSS each).
    pub packet: u32,
    /// RTS and data: the flow's size in packets. Token: the packets the
    /// destination still misses, which the source orders its flows by.
    pub count: u32,
    /// RTS and data: the free tokens the flow started with.
    pub free: u32,
    /// RTS and data: the path's bandwidth-delay product in packets (the
    /// default downgrade threshold).
    pub bdp: u32,
}

/// Strict priority levels (lower is served first): pHost needs two (§3).
pub const HIGH: u64 = 0;
pub const LOW: u64 = 1;
/// Queue classes a pHost switch port needs.
pub const CLASSES: u32 = 2;

impl PhostHeader {
    /// The pHost header of `pkt` (every packet of a pHost flow has one).
    pub fn of(pkt: &Packet) -> PhostHeader {
        match pkt.sched {
            Sched::Phost(h) => h,
            _ => PhostHeader::default(),
        }
    }
}

/// A header-only control packet (RTS, token, ACK): always high priority.
pub fn control(flow: FlowId, kind: PacketKind, reverse: bool, now: Time, h: PhostHeader) -> Packet {
    let mut p = Packet::new(flow, kind, reverse, now);
    p.prio = HIGH;
    p.sched = Sched::Phost(h);
    p
}
