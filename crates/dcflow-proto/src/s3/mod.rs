//! S3: Size-aware Sequential Scheduling (Ruan, Wang, Huang, Pan, Xiong;
//! papers/001_c3e3c7fd3fd980ef.txt).
//!
//! "Similar to PDQ, S3 is deployed on the switch, sender and receiver sides"
//! (§4.2): S3 shares PDQ's machinery wherever the paper says so, and this
//! folder holds only what is S3's own.
//!
//! - Header (§4.2): R_i, S_i, D_i, P_i, RTT_i plus the flow's remaining size
//!   (the SYN "carries the flow information", §4.1; FILTER needs it). It is
//!   [`crate::pdq::PdqHeader`] (rate, pause_by, deadline, expected = remaining
//!   size as a time at the sender's line rate, rtt, inter_probe), charged
//!   [`S3_HEADER_BYTES`] on the wire: six 4-byte fields.
//! - [`schedule`]: FILTER (Alg. 1) and SLACK (Alg. 2): S3's set-level order.
//! - Sender (§4.2): PDQ's sender ([`crate::pdq::PdqSender`]) with S3's rules
//!   ([`S3Config::sender_rules`]): SYN, data at the granted rate, a probe every
//!   P_i while paused, the flow stopped when it cannot meet its deadline even
//!   at full rate, a packet resent when its 2-RTT timer expires.
//! - Receiver (§4.2): the shared [`crate::Receiver`] copies the header into
//!   each ACK.
//! - [`switch`] (§4.3): PDQ's flow controller ([`crate::pdq::PdqSwitch`]:
//!   Availbw, the two-phase acceptance, the rate controller, RTT_avg) over
//!   the flow list both share ([`crate::flow_list`]), ordered by S3's
//!   schedule instead of PDQ's pairwise comparator, with Eq. 2's
//!   inter-probe time P_i = 0.2 RTT_avg I_i.
//!
//! Every choice the paper leaves open is recorded, next to PDQ's choice for
//! the same question, in docs/fidelity-s3.md.

pub mod schedule;
pub mod switch;

pub use switch::{s3_switch, S3Order};

#[cfg(test)]
mod tests;

use crate::endpoint::FlowInfo;
use crate::pdq::{PdqConfig, PdqSender, Probing, SenderRules, Termination};
use dcflow_core::{ensure, ConfigError, Dur};
use serde::{Deserialize, Serialize};

/// Bytes the S3 scheduling header adds to every packet: the six fields of
/// §4.2 and §4.1 (R_i, S_i, D_i, P_i, RTT_i, remaining size), 4 bytes each
/// as PDQ's (PDQ footnote 11). §4.2 gives no size (docs/fidelity-s3.md).
pub const S3_HEADER_BYTES: u32 = 24;

/// `[protocol] name = "s3"`: the S3 protocol on the packet engine, and S3's
/// ideal FILTER + SLACK order on the flow-level engine. Defaults are the
/// paper's values.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields, default)]
pub struct S3Config {
    /// Stop a deadline flow as soon as it cannot finish by its deadline even
    /// at full rate (§4.2: "S3 sender stops the flows"). Default true.
    pub early_termination: bool,
    /// The constant of Eq. 2, P_i = 0.2 · RTT_avg · I_i.
    pub probe_factor: f64,
    /// Retransmission timer in RTTs (§4.2: "the timeout time interval is
    /// twice RTTs").
    pub rto_rtts: f64,
    /// PDQ's Early Start threshold K (PDQ §3.3.2), which S3 does not
    /// describe: 0 (default) hands the link to the next flow only once the
    /// current one has left, about one RTT of idle link per switch-over
    /// (docs/fidelity-s3.md).
    pub early_start_k: f64,
}

impl Default for S3Config {
    fn default() -> Self {
        S3Config { early_termination: true, probe_factor: 0.2, rto_rtts: 2.0, early_start_k: 0.0 }
    }
}

impl S3Config {
    /// How S3's sender differs from PDQ's (§4.2): its header, its Early
    /// Termination ("stops the flows" that cannot finish "even if they are
    /// not paused"), probes every P_i (Eq. 2) and a timer of twice the RTT.
    pub fn sender_rules(&self) -> SenderRules {
        SenderRules {
            header_bytes: S3_HEADER_BYTES,
            termination: self.early_termination.then_some(Termination::FullRate),
            probing: Probing::S3 { min: self.probe_factor },
            rto_rtts: self.rto_rtts,
            rto_min: Dur::ZERO,
        }
    }

    /// The sender of flow `info`: PDQ's sender (SYN, pacing at the granted
    /// rate, probes, TERM, loss recovery) under [`S3Config::sender_rules`].
    /// Its criticality key is PDQ's default (the remaining size as a time),
    /// which S3's switch does not read.
    pub fn sender(&self, info: FlowInfo) -> PdqSender {
        PdqSender::with_rules(info, &PdqConfig::default(), self.sender_rules())
    }

    /// Checks serde cannot express; keys are relative to `[protocol]`.
    pub fn validate(&self) -> Result<(), ConfigError> {
        ensure(
            self.probe_factor.is_finite() && self.probe_factor > 0.0,
            "probe_factor",
            "must be a number > 0 (S3 Eq. 2: 0.2)",
        )?;
        ensure(self.rto_rtts.is_finite() && self.rto_rtts >= 1.0, "rto_rtts", "must be a number >= 1 (S3 §4.2: 2)")?;
        ensure(
            self.early_start_k.is_finite() && self.early_start_k >= 0.0,
            "early_start_k",
            "must be a number >= 0 (0: no Early Start, S3's default; PDQ: 2)",
        )
    }
}
