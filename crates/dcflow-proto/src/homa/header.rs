//! Homa's packet types (Homa §3.1, Fig. 3 and §3.7) as dcflow's scheduling
//! header.
//!
//! DATA travels as a [`PacketKind::Data`](crate::PacketKind::Data) packet
//! whose `seq` is the payload's offset in the message; the other types are
//! header-only [`PacketKind::Probe`](crate::PacketKind::Probe) packets. Every
//! control packet travels at the highest priority (level 0), as HomaSimulation
//! sends GRANTs: a grant stuck behind data would idle the sender.

/// What a Homa packet says.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum HomaHeader {
    /// DATA: part of a message of `size` bytes whose first `unscheduled`
    /// bytes the sender sends without waiting for grants (§3.3: the message
    /// length travels in every data packet, so a receiver learns a message
    /// from whichever packet arrives first; `unscheduled` is the sender's
    /// RTTbytes for the message, the window the receiver keeps granted).
    Data { size: u64, unscheduled: u64 },
    /// GRANT (§3.3, §3.4): the sender may send every byte below `offset`,
    /// its scheduled packets at priority `prio`.
    Grant { offset: u64, prio: u8 },
    /// RESEND (§3.7): send `[offset, offset + length)` again, at `prio`.
    Resend { offset: u64, length: u64, prio: u8 },
    /// BUSY (§3.7): the sender is alive but is sending other, shorter
    /// messages; the receiver waits instead of asking again.
    Busy,
    /// The receiver holds the whole message. Homa has no explicit ack: an
    /// RPC's response acknowledges its request (§3.8) and HomaModule sends
    /// ACK packets for that. dcflow's flows are one-way, so the receiver
    /// says it once, and again whenever a packet of the message turns up.
    Done,
}
