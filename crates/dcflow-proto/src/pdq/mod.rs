//! PDQ: Preemptive Distributed Quick flow scheduling (Hong, Caesar, Godfrey,
//! SIGCOMM'12; papers/000_3a9a3bc15e17a2da.txt).
//!
//! - [`header`]: the 16-byte scheduling header (footnote 11) as [`PdqHeader`].
//! - [`sender`]: the PDQ sender of §3.1 (R_S, P_S, D_S, T_S, I_S, RTT_S; SYN /
//!   TERM; probes every I_S RTTs while paused; Early Termination; the rate
//!   limiter; loss recovery with [`crate::reliability::SegmentTracker`]).
//! - The receiver (§3.2) is the shared [`crate::Receiver`]: it copies the
//!   header into the ACK and caps R_H at its receive rate.
//! - [`switch`]: the per-output-port flow controller (§3.3.2, Algorithms 1-3,
//!   Early Start, Dampening, Suppressed Probing), rate controller (§3.3.3) and
//!   the 2κ flow list with the RCP fallback beyond the hard limit M (§3.3.1).
//!   The list itself is [`crate::flow_list`], which S3's switch shares; it
//!   also keeps the flows outside it, counted for RCP and ranked for
//!   Suppressed Probing's Index(ℓ).
//! - [`comparator`]: flow criticality (§3.3 EDF, then SJF on expected
//!   transmission time, then flow id), pluggable; the sender-side criticality
//!   keys of §5.6 (random, size estimation every 50 KB) and §7 (aging).
//!
//! - [`mpdq`]: Multipath PDQ (§6): a flow split into subflows over parallel
//!   paths, each a PDQ flow of its own to the switches, with load shifted from
//!   paused subflows to the sending one with the least remaining load, and one
//!   receive buffer (the shared receiver) for the whole flow.
//!
//! Variants (§5.1): `basic` (no Early Start, Early Termination or Suppressed
//! Probing), `es`, `es_et`, `full` (= ES + ET + SP). Fidelity choices are in
//! docs/fidelity-pdq.md.

pub mod comparator;
mod control;
pub mod header;
pub mod mpdq;
pub mod sender;
pub mod switch;

#[cfg(test)]
pub(crate) mod tests;
#[cfg(test)]
pub(crate) mod sender_tests;

pub use comparator::{Comparator, Criticality};
pub use header::{PdqHeader, PDQ_HEADER_BYTES};
pub use control::Probing;
pub use sender::{PdqSender, SenderRules, Termination};
pub use mpdq::{MpdqSender, PathInfo};
pub use crate::flow_list::subflow_id;
pub use switch::{PdqSwitch, SwitchParams};

use dcflow_core::{ensure, Bytes, ConfigError, Dur};
use serde::{Deserialize, Serialize};

/// PDQ variants of §5.1.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Variant {
    /// PDQ(Basic): none of Early Start, Early Termination, Suppressed Probing.
    Basic,
    /// PDQ(ES): Basic + Early Start.
    Es,
    /// PDQ(ES+ET): Basic + Early Start + Early Termination.
    EsEt,
    /// PDQ(Full): ES + ET + Suppressed Probing.
    Full,
}

impl Variant {
    pub fn early_start(self) -> bool {
        !matches!(self, Variant::Basic)
    }
    pub fn early_termination(self) -> bool {
        matches!(self, Variant::EsEt | Variant::Full)
    }
    pub fn suppressed_probing(self) -> bool {
        matches!(self, Variant::Full)
    }
}

/// `protocol.list`: how many flows a PDQ port keeps.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum ListSize {
    #[default]
    #[serde(rename = "2kappa")]
    TwoKappa,
    Unbounded,
}

/// `protocol.unlisted_index`: Index(ℓ) in Suppressed Probing's I_H = X ×
/// Index(ℓ) (§3.3.2) for a flow this switch pauses without storing it
/// (outside the 2κ list of §3.3.1). Algorithm 3 writes I_H only for listed
/// flows, whose index is below 2κ; the paper's overhead of "(1/X) Σ_{k=1}^n
/// 1/k = O(log n)" probes per RTT for n flows needs indices up to n.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum UnlistedIndex {
    /// The flow's rank in the order of every flow the switch knows of: the
    /// list's length plus its rank among the unlisted flows it saw recently.
    #[default]
    Rank,
    /// The list's length for every unlisted flow (at most 2κ, so X × index
    /// stays below one RTT unless κ >= 3).
    ListEnd,
}

/// `protocol.paused_elsewhere`: what Algorithm 1 does to R_H when a packet
/// arrives with P_H = another switch. The paper: "Remove the flow from the
/// list if it is in the list; return", leaving R_H as it came. When the
/// switch that paused the flow accepts it further down the same path, the
/// flow then sends at a rate this switch never granted, until its next
/// packet meets Algorithm 1 here an RTT later; at a sender's own NIC, which
/// every such probe passes first, several flows of one host then send at
/// once (docs/fidelity-pdq.md, "Flows paused elsewhere").
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum PausedElsewhere {
    /// Remove it and leave R_H untouched: Algorithm 1 to the letter.
    #[default]
    Untouched,
    /// Remove it and bound R_H by what Availbw would give it at its place
    /// in this port's order, pausing it here when that is nothing, so that
    /// §2.2's "the minimum of the sender NIC rate, the switch link rates
    /// ..." holds for every rate a sender takes.
    Cap,
}

/// `protocol.et_remaining`: the remaining size in Early Termination's
/// condition (2), Time + T_S > D_S (§3.1). T_S is "updated based on the
/// remaining flow size" whenever an ACK arrives, which reads as the bytes not
/// yet acknowledged; but bytes already in flight arrive without being sent
/// again, so for "can this flow still make its deadline" the bytes still to
/// send are the tighter reading. Both are measured in docs/fidelity-pdq.md,
/// "Fig. 3c".
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum EtRemaining {
    /// Bytes not yet acknowledged (T_S as the header carries it).
    #[default]
    Unacked,
    /// Bytes not yet sent, or declared lost and not yet resent.
    Unsent,
}

/// `protocol.subflow_criticality`: the T_H an M-PDQ subflow carries (§6
/// does not say; docs/fidelity-pdq.md "Fig. 11").
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum SubflowCriticality {
    /// The subflow's own remaining load over its R_S^max: each subflow is a
    /// PDQ flow of its own (§6: "The PDQ switch requires no additional
    /// modification").
    #[default]
    Own,
    /// The whole flow's unacknowledged bytes over the sum of its live
    /// subflows' R_S^max (§3's T of the flow, at the rate all its paths
    /// give it): every subflow of a flow is as critical as the flow.
    Flow,
}

/// `protocol.subflow_paths`: how M-PDQ's subflows get their paths.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum SubflowPaths {
    /// Distinct parallel paths: BCube's BuildPathSet (§6: "BCube
    /// address-based routing to derive multiple parallel paths"), elsewhere
    /// least-shared shortest paths.
    #[default]
    Parallel,
    /// The parallel paths that are shortest (on BCube, BuildPathSet's
    /// direct paths, one per differing address digit): §6's "parallel
    /// paths" restricted to the equal-cost ones its ECMP would use. A flow
    /// gets fewer subflows than asked when it has fewer such paths.
    Shortest,
    /// Flow-level ECMP per subflow (§6: "the switch uses flow-level ECMP to
    /// assign subflows to paths"): each subflow hashes onto a shortest path
    /// of its own; two subflows may share one.
    Ecmp,
}

/// `[protocol] name = "pdq"`. Defaults are the paper's values where it gives
/// one; the rest are documented in docs/fidelity-pdq.md.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields, default)]
pub struct PdqConfig {
    /// §5.1 variant: "basic" | "es" | "es_et" | "full" (default).
    pub variant: Variant,
    /// Early Start threshold K (§3.3.2: "we set K = 2"; S3 compares with 1.5).
    pub early_start_k: f64,
    /// Suppressed Probing constant X, in RTTs (§3.3.2: "X to 0.2 RTT_avg").
    pub probe_x: f64,
    /// Dampening period (§3.3.2), in multiples of the switch's average RTT:
    /// after accepting a paused flow, a switch accepts no other paused flow
    /// for this long. 0 disables dampening.
    pub dampening: f64,
    /// r_PDQ of the rate controller (§3.3.3) as a fraction of the link rate.
    pub r_pdq: f64,
    /// Smallest rate a switch grants, as a fraction of its link rate: Availbw
    /// (Algorithm 2) below it counts as 0, so the slivers a moving C leaves
    /// between the agreed R_i and C do not start flows at a few bps.
    pub min_rate: f64,
    /// Hard limit M on the flows a switch port stores (§3.3.1); flows beyond
    /// the M most critical are served by an RCP rate controller. None: no limit.
    pub max_flows: Option<u32>,
    /// Switch-side flow comparator (§3.3): "edf_sjf" (default) | "sjf".
    pub comparator: Comparator,
    /// Sender-side criticality key (§5.6): "size" (default, SJF on the
    /// expected transmission time) | "random" | "estimate".
    pub criticality: Criticality,
    /// Size estimation step (§5.6: "updates the flow criticality only for
    /// every 50 KByte it sends").
    pub estimate_step: Bytes,
    /// Aging rate α (§7, Fig. 12): the criticality key is divided by 2^(α t),
    /// t the flow's waiting time in units of `aging_unit`. 0 disables aging.
    pub aging_alpha: f64,
    /// Time unit of the aging exponent (§7: "in terms of 100 ms").
    pub aging_unit: Dur,
    /// Lower bound of the retransmission timeout (`rto_rtts` smoothed RTTs above it).
    pub rto_min: Dur,
    /// How many flows a switch port keeps in its list: "2kappa" (default,
    /// §3.3.1: "we store the 2κ most critical flows") or "unbounded" (every
    /// flow it has seen, within `max_flows`): a reading of §5.3's
    /// 9.3 KB of state for 0.23 MB / 12,000 flows, under which Suppressed
    /// Probing's X x index exceeds one RTT for the flows it should slow.
    pub list: ListSize,
    /// Index(ℓ) of Suppressed Probing for the flows outside the list:
    /// "rank" (default) | "list_end" (see [`UnlistedIndex`]).
    pub unlisted_index: UnlistedIndex,
    /// Algorithm 1 on a packet paused by another switch: "untouched"
    /// (default) | "cap" (see [`PausedElsewhere`]).
    pub paused_elsewhere: PausedElsewhere,
    /// The retransmission timeout in smoothed RTTs above `rto_min`. PDQ §3.1
    /// says only "resends a packet after a timeout"; default 3 (pFabric's
    /// RTO, §4.3), swept in docs/fidelity-pdq.md ("Fig. 9").
    pub rto_rtts: f64,
    /// Which remaining size Early Termination's condition (2) uses:
    /// "unacked" (default) | "unsent" (see [`EtRemaining`]).
    pub et_remaining: EtRemaining,
    /// M-PDQ (§6): subflows per flow, each on its own path (at most as many
    /// as the topology has distinct paths: BCube(n,k) has k+1). 1 (default)
    /// is single-path PDQ.
    pub subflows: u32,
    /// M-PDQ load shifting period in RTTs (§6: "the M-PDQ sender
    /// periodically shifts the load from the paused subflows to the sending
    /// one with the minimal remaining load"): every period, each subflow
    /// paused for a whole period moves one period's worth of its load.
    /// See docs/fidelity-pdq.md.
    pub shift_period: f64,
    /// M-PDQ: the criticality a subflow carries, "own" (default) | "flow".
    pub subflow_criticality: SubflowCriticality,
    /// M-PDQ: "parallel" (default, BuildPathSet on BCube) | "shortest" | "ecmp".
    pub subflow_paths: SubflowPaths,
}

impl Default for PdqConfig {
    fn default() -> Self {
        PdqConfig {
            variant: Variant::Full,
            early_start_k: 2.0,
            probe_x: 0.2,
            dampening: 1.0,
            r_pdq: 1.0,
            min_rate: 0.1,
            max_flows: None,
            comparator: Comparator::EdfSjf,
            criticality: Criticality::Size,
            estimate_step: Bytes(50_000),
            aging_alpha: 0.0,
            aging_unit: Dur::ms(100),
            rto_min: Dur::ms(1),
            rto_rtts: 3.0,
            et_remaining: EtRemaining::Unacked,
            list: ListSize::TwoKappa,
            unlisted_index: UnlistedIndex::Rank,
            paused_elsewhere: PausedElsewhere::Untouched,
            subflows: 1,
            shift_period: 1.0,
            subflow_criticality: SubflowCriticality::Own,
            subflow_paths: SubflowPaths::Parallel,
        }
    }
}

impl PdqConfig {
    /// Checks serde cannot express; keys are relative to `[protocol]`.
    pub fn validate(&self) -> Result<(), ConfigError> {
        let finite_nonneg = |v: f64| v.is_finite() && v >= 0.0;
        ensure(finite_nonneg(self.early_start_k), "early_start_k", "must be a number >= 0 (PDQ: 2)")?;
        ensure(finite_nonneg(self.probe_x), "probe_x", "must be a number >= 0 (PDQ: 0.2)")?;
        ensure(finite_nonneg(self.dampening), "dampening", "must be a number >= 0 (RTTs)")?;
        ensure(self.r_pdq > 0.0 && self.r_pdq <= 1.0, "r_pdq", "must be in (0, 1]")?;
        ensure(self.min_rate >= 0.0 && self.min_rate < 1.0, "min_rate", "must be in [0, 1)")?;
        ensure(self.max_flows != Some(0), "max_flows", "must be at least 1 (omit it for no limit)")?;
        ensure(self.estimate_step.0 > 0, "estimate_step", "must be a positive size (PDQ: \"50KB\")")?;
        ensure(finite_nonneg(self.aging_alpha), "aging_alpha", "must be a number >= 0")?;
        ensure(self.aging_unit > Dur::ZERO, "aging_unit", "must be a positive time (PDQ: \"100ms\")")?;
        ensure(self.rto_min > Dur::ZERO, "rto_min", "must be a positive time")?;
        ensure(self.rto_rtts.is_finite() && self.rto_rtts >= 1.0, "rto_rtts", "must be a number >= 1 (RTTs; default 3)")?;
        ensure((1..=255).contains(&self.subflows), "subflows", "must be an integer in 1..=255 (1: single-path PDQ)")?;
        ensure(finite_nonneg(self.shift_period), "shift_period", "must be a number >= 0 (RTTs; default 1)")
    }

    /// What the flow-level model (`engine = "fluid"`, PDQ §5.5) cannot
    /// honour: M-PDQ, the hard limit M with its RCP fallback, and a rate
    /// controller target below the link rate. The other packet-level keys
    /// (probe_x, unlisted_index, paused_elsewhere, dampening, min_rate, rto_min, shift_period,
    /// early_start_k's value) are accepted and have no flow-level meaning
    /// (docs/fidelity-fluid.md, "flow-level PDQ").
    pub fn validate_flow_level(&self) -> Result<(), ConfigError> {
        ensure(self.subflows == 1, "subflows", "must be 1 with engine = \"fluid\" (M-PDQ runs on the packet engine only)")?;
        ensure(self.max_flows.is_none(), "max_flows", "is not modelled by engine = \"fluid\" (omit it: no limit)")?;
        ensure(self.r_pdq == 1.0, "r_pdq", "must be 1 with engine = \"fluid\" (the flow-level model uses the full link rate)")
    }

    /// K as the switch uses it: 0 (no nearly-completed flow) without Early Start.
    pub fn effective_k(&self) -> f64 {
        if self.variant.early_start() {
            self.early_start_k
        } else {
            0.0
        }
    }
}
