//! What a MERP packet carries (papers/003 §4.1) and its priority (Table 2).
//!
//! Packet types map onto dcflow's kinds: SYN/SYNACK, DATA/DATAACK (Ack),
//! FIN/FINACK as their names say; DET is a `Probe`, DETACK its reply, and
//! BOOST a reply `Probe` with `boost` set. The fields ride in the 40-byte
//! header §6.1 gives every packet, so DET, ACKs and BOOST are 40 bytes.

use crate::{Packet, PacketKind, Sched};
use dcflow_core::{Dur, Time};

/// Table 2: SYN, SYNACK, BOOST high; DATA, DATAACK, FIN, FINACK middle;
/// DET, DETACK low (lower number = served first by the switch queue).
pub const PRIO_HIGH: u64 = 0;
pub const PRIO_MIDDLE: u64 = 1;
pub const PRIO_LOW: u64 = 2;
/// The number of priority classes MERP's switch queue needs.
pub const CLASSES: u32 = 3;

#[derive(Clone, Copy, Debug, PartialEq)]
pub struct MerpHeader {
    /// Flow size in bytes (§4.1: "flow size (size)").
    pub size: u64,
    /// Bytes not yet sent: how switches learn a flow's rest size `rs` (the
    /// paper's table holds it and does not say how it is kept). Not yet
    /// acknowledged would count a window of bytes already on the wire, and
    /// early start (Alg. 3: the first flow ends "within an RTT") would come
    /// an RTT late.
    pub rest: u64,
    /// Actual sending rate (bps): initialized to the sender's link rate,
    /// lowered by RateAdj (Alg. 3) at each port.
    pub asr: u64,
    /// Expected sending rate (bps): initialized to infinity, lowered by DRC
    /// (Alg. 1 line 9) to synchronize virtual deadlines along the path.
    pub esr: f64,
    /// Θ (bps): the detecting rate threshold (§4.1).
    pub theta: u64,
    /// The sender's smoothed RTT: the RTT of Alg. 3's early start test.
    pub rtt: Dur,
    /// When the flow arrived (its sender's start): the aT every port on
    /// the path records (Alg. 2 line 1 takes the SYN's arrival time, which
    /// differs from port to port by the hop delays; docs/fidelity.md).
    pub start: Time,
    /// The destination host (the IP header's): GMER's "f.dst" (Alg. 6).
    pub dst: u32,
    /// A reply `Probe` that is a BOOST (§4.3.3), not a DETACK.
    pub boost: bool,
}

/// The priority of a MERP packet (Table 2).
pub fn priority(pkt: &Packet) -> u64 {
    match pkt.kind {
        PacketKind::Syn | PacketKind::SynAck => PRIO_HIGH,
        PacketKind::Probe if matches!(pkt.sched, Sched::Merp(h) if h.boost) => PRIO_HIGH,
        PacketKind::Probe => PRIO_LOW,
        PacketKind::Data | PacketKind::Ack | PacketKind::Fin | PacketKind::FinAck => PRIO_MIDDLE,
    }
}

/// §4.2: the receiver copies `asr` and `esr` into its reply (the reply is
/// built from the packet, so they are there already); a DET whose `asr`
/// exceeds Θ is answered with a BOOST instead of a DETACK. Sets the reply's
/// priority.
pub fn shape_reply(reply: &mut Packet) {
    if let Sched::Merp(h) = &mut reply.sched {
        h.boost = reply.kind == PacketKind::Probe && h.asr > h.theta;
        reply.prio = priority(reply);
    }
}
