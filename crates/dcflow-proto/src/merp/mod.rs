//! MERP (Zhang et al., "Efficient Data Center Flow Scheduling without
//! Starvation using Expansion Ratio", papers/003): rate control by
//! synchronized virtual deadlines (§3-4) and route control MEMR (§5).
//!
//! - [`header`]: the fields every MERP packet carries (§4.1) and the three
//!   priorities of Table 2.
//! - [`sender`]: SYN, then DATA while the granted `asr` exceeds Θ, else DET
//!   probes at `asr`; BOOST starts DATA at once; RTO = SRTT + 4 RTTVAR (§4.1).
//! - The receiver is the shared [`crate::Receiver`]: it copies `asr` and
//!   `esr` into every reply and answers a DET whose `asr` exceeds Θ with a
//!   BOOST (§4.2, [`header::reply_kind`]).
//! - [`switch`]: the per-port flow table, DRC (Alg. 1) on arrival, VDG
//!   (Alg. 2) on each SYN, RateAdj (Alg. 3) as a packet leaves the port.
//! - [`memr`]: GPE (Alg. 5), GMER (Alg. 6) and MEMR (Alg. 4), the per-flow
//!   path choice at SYN time (`topology.routing = "memr"`).
//!
//! Choices the paper leaves open are listed in docs/fidelity.md, "MERP".

pub mod header;
pub mod memr;
pub mod sender;
pub mod switch;
#[cfg(test)]
mod tests;

use dcflow_core::{ensure, ConfigError, Dur, Rate};
use serde::{Deserialize, Serialize};

pub use header::MerpHeader;
pub use sender::MerpSender;
pub use switch::MerpSwitch;

/// `[protocol] name = "merp"`. Defaults are §6.1's.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields, default)]
pub struct MerpConfig {
    /// α: the largest share of a link's capacity DATA may use (§4.3.3;
    /// §6.1: 0.999).
    pub alpha: f64,
    /// Θ: the detecting rate threshold (§4.1; §6.1: 0.8 Gbps). A sender
    /// sends DATA only when granted more.
    pub theta: Rate,
    /// Floor of the retransmission timeout SRTT + 4 RTTVAR (§4.1 gives
    /// none; 0 keeps the bare formula). Default 0.
    pub rto_min: Dur,
    /// Fluid engine only: drop deadline flows that cannot meet their
    /// deadline (the ideal disciplines' option; MERP has no deadlines).
    pub early_termination: bool,
}

impl Default for MerpConfig {
    fn default() -> Self {
        MerpConfig { alpha: 0.999, theta: Rate::mbps(800), rto_min: Dur::ZERO, early_termination: false }
    }
}

impl MerpConfig {
    pub fn validate(&self) -> Result<(), ConfigError> {
        ensure(self.alpha > 0.0 && self.alpha < 1.0, "alpha", format!("is {}; must be in (0, 1) (MERP §6.1: 0.999)", self.alpha))?;
        ensure(self.theta > Rate::ZERO, "theta", "must be a positive rate (MERP §6.1: \"0.8Gbps\")")
    }

    /// §4.4's bound on Θ for links of rate `c`: αC/2 <= Θ <= αC ("it should
    /// not be larger than αC ... it should not be too small"). Checked when
    /// a scenario sets `alpha` or `theta` itself.
    pub fn check_theta_bound(&self, c: Rate) -> Result<(), ConfigError> {
        let (lo, hi) = (self.alpha * c.as_bps_f64() / 2.0, self.alpha * c.as_bps_f64());
        let theta = self.theta.as_bps_f64();
        ensure(
            (lo..=hi).contains(&theta),
            "theta",
            format!(
                "is {}; MERP §4.4 asks alpha*C/2 <= theta <= alpha*C, here {} to {} for {c} links",
                self.theta,
                Rate::from_bps_f64(lo),
                Rate::from_bps_f64(hi)
            ),
        )
    }
}
