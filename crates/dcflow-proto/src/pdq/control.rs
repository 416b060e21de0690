//! The per-path sender variables of PDQ §3.1 and what the switches' replies
//! do to them. A PDQ sender has one set; an M-PDQ sender (§6) one per
//! subflow, since each subflow is a PDQ flow on its own path.

use super::header::{PdqHeader, NOBODY};
use crate::pacing::Pacer;
use crate::{Packet, Sched};
use dcflow_core::{Dur, Time};

/// How a paused sender times its probes from the replies' I_H.
#[derive(Clone, Copy, Debug, PartialEq)]
pub enum Probing {
    /// PDQ without Suppressed Probing: one probe per RTT.
    EveryRtt,
    /// PDQ's Suppressed Probing (§3.3.2): every I_H RTTs, at least one.
    Suppressed,
    /// S3 Eq. 2: every P_i, which the switches wrote into I_H in the flow's
    /// RTTs, never less than `min` RTTs: the head of a schedule's P_i (I_i
    /// = 1). A reply no S3 switch wrote P_i into (the flow is not in the
    /// pausing switch's list) carries I_H = 0, and a sender probing "every
    /// 0 RTTs" sent probes without end at one instant (stress matrix).
    S3 { min: f64 },
}

impl Probing {
    /// PDQ's rule for `variant`.
    pub fn pdq(variant: super::Variant) -> Probing {
        if variant.suppressed_probing() {
            Probing::Suppressed
        } else {
            Probing::EveryRtt
        }
    }
}

/// §3.1: "the sender maintains ... R_S^max, R_S, P_S, I_S, RTT_S", plus
/// the rate limiter and the timing of control packets and probes.
#[derive(Clone, Debug)]
pub(super) struct PathControl {
    /// R_S^max: the rate of the path's first link (bps).
    pub r_max: u64,
    /// R_S (bps).
    pub rate: u64,
    /// P_S.
    pub pause_by: u32,
    /// I_S, in RTTs.
    pub inter_probe: f64,
    /// RTT_S.
    pub srtt: Dur,
    /// A SYN, probe or TERM is to be sent.
    pub control_due: bool,
    pub control_sent_at: Time,
    /// Rate limiter: the next data packet may leave at its time.
    pub pacer: Pacer,
    /// When the last packet of any kind left (probes are timed from it).
    pub last_sent_at: Time,
    /// When routing last moved this path ([`PathControl::path_changed`]).
    pub path_changed_at: Time,
}

impl PathControl {
    /// Before the first reply: paused by nobody at rate 0, a SYN due.
    pub fn new(r_max: u64, base_rtt: Dur, start: Time) -> PathControl {
        PathControl {
            r_max,
            rate: 0,
            pause_by: NOBODY,
            inter_probe: 1.0,
            srtt: base_rtt,
            control_due: true,
            control_sent_at: Time::ZERO,
            pacer: Pacer::default(),
            last_sent_at: start,
            path_changed_at: Time::ZERO,
        }
    }

    /// Routing moved the path (no paper has a rule for it;
    /// docs/fidelity.md, "Routing"): a flow paused by a switch no longer on
    /// its path would stay paused for ever (only the pausing switch clears
    /// P_H), so the sender forgets who paused it, and replies to packets
    /// sent before the change, which carry the old path's decisions, are
    /// not taken ([`PathControl::feedback`]).
    pub fn path_changed(&mut self, now: Time) {
        self.pause_by = NOBODY;
        self.path_changed_at = now;
    }

    /// The scheduling header of a reply, unless it answers a packet sent
    /// before the path last changed.
    pub fn feedback(&self, pkt: &Packet) -> Option<PdqHeader> {
        match &pkt.sched {
            Sched::Pdq(h) if pkt.sent_at >= self.path_changed_at => Some(*h),
            _ => None,
        }
    }

    /// Take the switches' decision from a reply's header (§3.1: "the
    /// remaining variables are set to the fields in the scheduling header");
    /// I_S as `probing` says.
    pub fn take_feedback(&mut self, now: Time, h: &PdqHeader, probing: Probing) {
        let old = self.rate;
        if h.pause_by != NOBODY {
            self.rate = 0;
            self.pause_by = h.pause_by;
        } else {
            self.rate = h.rate.min(self.r_max);
            self.pause_by = NOBODY;
        }
        self.inter_probe = match probing {
            Probing::EveryRtt => 1.0,
            Probing::Suppressed => (h.inter_probe as f64).max(1.0),
            Probing::S3 { min } => (h.inter_probe as f64).max(min),
        };
        if self.rate != old {
            self.pacer.set_rate(now, self.rate);
        }
    }

    /// A paused path probes every I_S RTTs after its last packet (§3.1).
    pub fn next_probe_at(&self) -> Time {
        self.last_sent_at + self.srtt.mul_f64(self.inter_probe)
    }
}
