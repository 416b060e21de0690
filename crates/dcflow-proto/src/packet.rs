//! What travels on the wire: one `Copy` struct for every protocol.
//!
//! The engine keeps packets in an arena and moves indices; endpoints and switch
//! agents see `&Packet` / `&mut Packet`. Protocol-specific scheduling headers are
//! the `Sched` enum (the "Repr" of the first brief): a closed set, no allocation.

use dcflow_core::{FlowId, Time};

/// IPv4 + TCP header bytes on every packet (no options). Data packets carry up to
/// `mtu - HEADER_BYTES` bytes of payload; pure ACKs are `HEADER_BYTES` long.
pub const HEADER_BYTES: u32 = 40;

#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum PacketKind {
    /// Connection set-up (carries a rate request for explicit-rate protocols).
    Syn,
    /// Receiver's answer to a SYN.
    SynAck,
    /// Payload bytes `[seq, seq + payload)`.
    Data,
    /// Acknowledgement: `seq` is the cumulative ack (next byte expected),
    /// `acked_seq` the start of the data packet that triggered it.
    Ack,
    /// Flow teardown (returns an explicit-rate allocation).
    Fin,
    /// Receiver's answer to a FIN.
    FinAck,
    /// Header-only packet that only carries a scheduling header (D3 rate
    /// request while paused, PDQ probe).
    Probe,
}

/// Per-protocol scheduling header (the wire `Repr`).
#[derive(Clone, Copy, Debug, PartialEq)]
pub enum Sched {
    None,
    /// Explicit-rate request/feedback of D3 / RCP_dc (D3 §4.3, §5, Fig. 6).
    Rate(crate::d3::RateHeader),
    /// PDQ's scheduling header (PDQ §3.1, footnote 11).
    Pdq(crate::pdq::PdqHeader),
    /// MERP's flow state (papers/003 §4.1).
    Merp(crate::merp::MerpHeader),
    /// Homa's packet types (Homa §3.1).
    Homa(crate::homa::HomaHeader),
    /// pHost's RTS / token / data fields (pHost §3).
    Phost(crate::phost::PhostHeader),
}

#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Packet {
    pub flow: FlowId,
    pub kind: PacketKind,
    /// True for packets from the receiver back to the sender (ACKs, SYN-ACK).
    pub reverse: bool,
    /// Data: first payload byte. Ack: cumulative ack.
    pub seq: u64,
    /// Ack only: `seq` of the data packet being acknowledged (selective info).
    pub acked_seq: u64,
    pub payload: u32,
    /// Bytes on the wire (payload + headers), what queues and links count.
    pub wire: u32,
    /// ECN-Capable Transport: marking queues may set CE on it instead of
    /// treating it like any other packet (DCTCP data packets set it).
    pub ecn_capable: bool,
    /// ECN Congestion Experienced, set by marking queues on ECN-capable packets.
    pub ecn_ce: bool,
    /// ECN-Echo on ACKs, copied by the receiver from the data's CE bit.
    pub ecn_echo: bool,
    /// Scheduling priority, lower is more important (pFabric: remaining flow
    /// size; strict-priority queues: the class).
    pub prio: u64,
    /// When the sender transmitted the data this packet is (or acknowledges):
    /// the timestamp option, so RTT samples need no per-packet sender state.
    pub sent_at: Time,
    /// A retransmission (RTT samples are not taken from it, Karn's rule).
    pub retransmit: bool,
    pub sched: Sched,
    /// Index of the next link on the packet's path; owned by the engine.
    pub hop: u8,
    /// The packet's path in the engine's path table; owned by the engine.
    pub route: u32,
    /// Which of its flow's paths the packet travels (M-PDQ subflow index,
    /// PDQ §6); 0 for single-path flows. Replies carry the index of the packet
    /// they answer, so they retrace the same path. Switches tell subflows
    /// apart by (flow, path).
    pub path: u8,
}

impl Packet {
    /// A packet of `kind` for `flow` with every optional field cleared.
    pub fn new(flow: FlowId, kind: PacketKind, reverse: bool, now: Time) -> Packet {
        Packet {
            flow,
            kind,
            reverse,
            seq: 0,
            acked_seq: 0,
            payload: 0,
            wire: HEADER_BYTES,
            ecn_capable: false,
            ecn_ce: false,
            ecn_echo: false,
            prio: 0,
            sent_at: now,
            retransmit: false,
            sched: Sched::None,
            hop: 0,
            path: 0,
            route: 0,
        }
    }
}
