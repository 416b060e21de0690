//! The PDQ scheduling header (§3.1, footnote 11).

use dcflow_core::{Dur, Time};

/// Bytes the scheduling header adds to every PDQ packet: "The 16-byte
/// scheduling header consists of 4 fields, each occupying 4 bytes: R_H, P_H,
/// D_H, and T_H. The PDQ receiver adds I_S and RTT_S to the header by reusing
/// the fields used by D_H and T_H" (footnote 11).
pub const PDQ_HEADER_BYTES: u32 = 16;

/// No switch: the empty `pauseby` value (∅ in the paper).
pub const NOBODY: u32 = 0;

/// The scheduling header, as values (the simulator keeps each field in its own
/// slot; on the wire it is [`PDQ_HEADER_BYTES`], see docs/fidelity-pdq.md).
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct PdqHeader {
    /// R_H: the sender writes its maximal sending rate R_S^max; switches lower
    /// it to what they grant; bits per second.
    pub rate: u64,
    /// P_H ("pauseby"): the id of the switch that paused the flow, or
    /// [`NOBODY`]. Switch ids are globally unique (link id + 1 of the port).
    pub pause_by: u32,
    /// D_H: the flow's absolute deadline ([`Time::MAX`] without one).
    pub deadline: Time,
    /// T_H: expected (remaining) transmission time at R_S^max
    /// ([`Dur`]`(u64::MAX)` when the sender does not know its size, §5.6).
    pub expected: Dur,
    /// RTT_H: the sender's RTT estimate (read by Algorithm 2 as RTT_i).
    pub rtt: Dur,
    /// I_H: inter-probe time in RTTs. The sender writes 0 forward; on the
    /// reverse path switches raise it to X × index (Algorithm 3).
    pub inter_probe: f32,
    /// The criticality key the comparator orders on after the deadline
    /// (smaller = more critical): T_H by default; random, size-estimated or
    /// aged keys otherwise (§5.6, §7). See [`crate::pdq::Criticality`].
    pub crit: u64,
}

impl PdqHeader {
    /// A header with every field at its "nothing known" value.
    pub const fn empty() -> PdqHeader {
        PdqHeader {
            rate: 0,
            pause_by: NOBODY,
            deadline: Time::MAX,
            expected: Dur(u64::MAX),
            rtt: Dur(0),
            inter_probe: 0.0,
            crit: u64::MAX,
        }
    }

    pub fn paused(&self) -> bool {
        self.pause_by != NOBODY
    }
}
