//! D3 (Wilson, Ballani, Karagiannis, Rowstron, "Better Never than Late:
//! Meeting Deadlines in Datacenter Networks", SIGCOMM'11;
//! papers/002_237696418d7864bc.txt) and RCP_dc, which is D3 in fair-share
//! mode only (D3 §6.1: "we also operate D3 in fair share mode only ... We
//! term this RCP_dc"). The folder is named for D3 because D3 §4 defines the
//! protocol both run: one sender, one router, one header, with RCP_dc's
//! flows asking for rate 0.
//!
//! - [`header`]: the congestion header of §5, Fig. 6 ([`RateHeader`]): the
//!   desired rate r_{t+1} and the allocation vector [a_{t+1}].
//! - [`sender`]: rate control (§4.1): ask every router for a rate once per
//!   RTT, send at the minimum allocation; the base rate that pays for the
//!   header-only requests (§4.2); the first RTT's pause (§4.5); the desired
//!   rate of §5; quenching (§6.1.3).
//! - The receiver is the shared [`crate::Receiver`]: it copies the header,
//!   with every router's allocation, into the ACK.
//! - [`switch`]: the router's per-port agent ([`RateAllocator`]): rate
//!   request processing (§4.3, Snippet 1), the base rate for a new flow's
//!   first request (§4.5) and the capacity controller (§4.4).
//!
//! [`ExplicitRateConfig`] is `[protocol]` for both `name = "d3"` and
//! `name = "rcp"`; its defaults are D3's. Choices the paper leaves open are
//! listed in docs/fidelity.md ("RCP_dc and D3").

pub mod header;
pub mod sender;
pub mod switch;
#[cfg(test)]
mod tests;

pub use header::{RateHeader, MAX_HOPS, RATE_HEADER_BYTES};
pub use sender::RateSender;
pub use switch::RateAllocator;

use dcflow_core::{ensure, ConfigError, Dur, Rate};
use serde::{Deserialize, Serialize};

/// Configuration shared by `d3` and `rcp` (RCP_dc); the defaults are D3's.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields, default)]
pub struct ExplicitRateConfig {
    /// Capacity controller α (D3 footnote 4).
    pub alpha: f64,
    /// Capacity controller β (D3 footnote 4).
    pub beta: f64,
    /// Capacity controller interval T (D3 footnote 4).
    pub interval: Dur,
    /// Minimum allocation: one header-only request per RTT (D3 §4.2).
    pub base_rate: Rate,
    /// PDQ §5.1's fix: never let the fair share go negative.
    pub nonnegative_fair_share: bool,
    /// Flow quenching (D3 §6.1.3): give up when the desired rate exceeds the
    /// uplink or the deadline has passed. Off by default (Fig. 15 compares both).
    pub quenching: bool,
    /// Lower bound of the retransmission timeout (the timeout is 3 smoothed RTTs
    /// above it; D3 §5 gives no value, see docs/fidelity.md).
    pub rto_min: Dur,
    /// Upper bound of the controller's capacity C, in multiples of the link
    /// rate; None (default): no bound, as D3 §4.4 prints the controller. A
    /// flow that leaves a sliver of the link unused (a lone long flow at its
    /// NIC's rate) lets C grow without end, and the next burst is allocated
    /// from it (D3 Fig. 12; docs/fidelity.md, "Re-run of D3 Fig. 12").
    #[serde(skip_serializing_if = "Option::is_none")]
    pub capacity_max: Option<f64>,
}

impl Default for ExplicitRateConfig {
    fn default() -> Self {
        ExplicitRateConfig {
            alpha: 0.1,
            beta: 1.0,
            interval: Dur::us(800),
            // One 62-byte request packet (40 B headers + 22 B D3 header, §5)
            // per 300 us, the typical datacenter RTT D3 §4.5 quotes.
            base_rate: Rate::bps(1_650_000),
            nonnegative_fair_share: false,
            quenching: false,
            rto_min: Dur::ms(1),
            capacity_max: None,
        }
    }
}

impl ExplicitRateConfig {
    pub fn validate(&self) -> Result<(), ConfigError> {
        ensure(self.alpha >= 0.0 && self.alpha.is_finite(), "alpha", "must be a number >= 0 (D3: 0.1)")?;
        ensure(self.beta >= 0.0 && self.beta.is_finite(), "beta", "must be a number >= 0 (D3: 1)")?;
        ensure(self.interval > Dur::ZERO, "interval", "must be a positive time (D3: \"800us\")")?;
        ensure(self.base_rate > Rate::ZERO, "base_rate", "must be a positive rate")?;
        ensure(self.rto_min > Dur::ZERO, "rto_min", "must be a positive time")?;
        ensure(
            self.capacity_max.is_none_or(|m| m.is_finite() && m >= 1.0),
            "capacity_max",
            "must be a number >= 1 (multiples of the link rate; omit it for no bound)",
        )
    }
}

