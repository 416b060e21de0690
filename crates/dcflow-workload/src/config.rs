//! The `[workload]` section and the top-level `[[flows]]` list of a scenario
//! (the README's scenario reference), and their validation.
//!
//! Every key has a default. Keys that only make sense for one pattern,
//! arrival process or distribution are optional here and filled in by
//! [`WorkloadConfig::resolved`] (in `validate`); giving one where it does not apply is an
//! error naming the key, so nothing is silently ignored.
//!
//! Error keys are dotted paths from the scenario root (`workload.size.min`,
//! `flows[3].src`): the check spans two root sections, and `flows` is both a
//! workload key (a count) and a root key (the explicit list), so a
//! section-relative key would be ambiguous.

use crate::cdf::{CdfFormat, CdfName};
use crate::trace::TraceFormat;
use dcflow_core::{Bytes, Dur, Rate};
use serde::{Deserialize, Serialize};
use std::path::PathBuf;

/// What the workload needs to know about the topology.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Context {
    /// Hosts are `0..hosts`.
    pub hosts: usize,
    /// Rate of a host's access link (for `load`).
    pub host_link_rate: Rate,
    /// Hosts per rack, for `staggered`; hosts `r*k .. (r+1)*k` share rack `r`.
    pub hosts_per_rack: Option<usize>,
}

/// Who sends to whom.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Pattern {
    /// Every flow goes to `receiver` from the other hosts, round-robin in host
    /// order: query aggregation (PDQ §5.2, D3 §6.1.1). Default flows: hosts - 1.
    #[default]
    Aggregation,
    /// Host `x` sends to `(x + stride) mod H` (Al-Fares et al. SIGCOMM'08,
    /// Hedera NSDI'10; PDQ §5.3). Default flows: one per host.
    Stride,
    /// With probability `p` to another host in the same rack, else to a
    /// uniformly random host in another rack (Hedera's staggered(ToRP), with
    /// the rack as the only level). Default flows: one per host.
    Staggered,
    /// A uniformly random permutation without fixed points. Default flows:
    /// one per host.
    Permutation,
    /// Source and destination uniform over hosts, distinct (random traffic
    /// for Poisson arrivals). Default flows: one per host.
    AllToAll,
    /// Flows from the scenario's `[[flows]]` list or a CSV `trace`.
    Explicit,
}

impl Pattern {
    pub(crate) fn name(self) -> &'static str {
        match self {
            Pattern::Aggregation => "aggregation",
            Pattern::Stride => "stride",
            Pattern::Staggered => "staggered",
            Pattern::Permutation => "permutation",
            Pattern::AllToAll => "all_to_all",
            Pattern::Explicit => "explicit",
        }
    }
}

/// When flows start.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Arrival {
    /// All flows start at `start`.
    #[default]
    Simultaneous,
    /// Exponential inter-arrival times after `start`, at `rate` flows/s or at
    /// the rate that offers `load` (see [`WorkloadConfig::arrival_rate`]).
    Poisson,
}

#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum SizeKind {
    Fixed,
    #[default]
    Uniform,
    Exponential,
    Pareto,
    Cdf,
}

/// `size = { dist = ..., ... }`. Keys per `dist`: fixed `value`; uniform
/// `min, max`; exponential `mean`; pareto `mean, shape`; cdf `name` or `file`
/// (with its `format`), and optionally `max` (sizes above it become `max`).
/// Default: uniform on [2KB, 198KB], PDQ §5.1's deadline-constrained flows.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct SizeConfig {
    pub dist: SizeKind,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub value: Option<Bytes>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub min: Option<Bytes>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub max: Option<Bytes>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub mean: Option<Bytes>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub shape: Option<f64>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub name: Option<CdfName>,
    /// CSV of `size_bytes,cumulative_probability`; opened as given (the caller
    /// makes a relative path relative to the scenario file).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub file: Option<PathBuf>,
    /// How `file` lays out its rows (default: dcflow's CSV). Absent unless
    /// given, so scenarios without it resolve (and fingerprint) as before.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub format: Option<CdfFormat>,
}

impl Default for SizeConfig {
    fn default() -> SizeConfig {
        SizeConfig {
            dist: SizeKind::Uniform,
            value: None,
            min: Some(Bytes::kb(2)),
            max: Some(Bytes::kb(198)),
            mean: None,
            shape: None,
            name: None,
            file: None,
            format: None,
        }
    }
}

#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum DeadlineKind {
    Exponential,
    Fixed,
    Uniform,
}

/// `deadline = { dist = ..., ... }`, relative to each flow's start. Keys per
/// `dist`: exponential `mean, min` (min defaults to 0); fixed `value`; uniform
/// `min, max`. `only_below`: only flows smaller than this get a deadline
/// (deadline flows are the short ones, as in D3 §6.1 and LPD).
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct DeadlineConfig {
    pub dist: DeadlineKind,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub mean: Option<Dur>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub min: Option<Dur>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub max: Option<Dur>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub value: Option<Dur>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub only_below: Option<Bytes>,
}

/// One `[[flows]]` entry (or one trace row).
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct ExplicitFlow {
    pub src: u32,
    pub dst: u32,
    pub size: Bytes,
    #[serde(default)]
    pub start: Dur,
    /// Relative to `start`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub deadline: Option<Dur>,
}

/// The `[workload]` section.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(default, deny_unknown_fields)]
pub struct WorkloadConfig {
    pub pattern: Pattern,
    /// Number of flows (default: per pattern, see [`Pattern`]; not with `explicit`).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub flows: Option<u32>,
    pub arrival: Arrival,
    /// Poisson only: offered load in (0, 1].
    #[serde(skip_serializing_if = "Option::is_none")]
    pub load: Option<f64>,
    /// Poisson only: total arrival rate in flows per second.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub rate: Option<f64>,
    pub size: SizeConfig,
    /// Absent: no deadlines.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub deadline: Option<DeadlineConfig>,
    /// With `deadline`: the share of generated flows that get one, each
    /// flow drawn on its own (default 1: every flow `only_below` admits).
    /// Karuna's type-1 flows (Chen et al., SIGCOMM'16) are the deadline flows.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub deadline_fraction: Option<f64>,
    /// The share of flows without a deadline whose size the sender knows
    /// when the flow starts: Karuna's type-2 flows; the others are type 3.
    /// Only `protocol.name = "karuna"` reads it, and it needs it.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub known_size_fraction: Option<f64>,
    /// Simultaneous: when every flow starts; Poisson: when arrivals begin.
    pub start: Dur,
    /// Aggregation only (default host 0).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub receiver: Option<u32>,
    /// Aggregation only: which hosts send, "in_order" (default: hosts 1..N,
    /// round the hosts) or "random" (a random order of the other hosts per
    /// seed, PDQ footnote 6: "randomly picked").
    #[serde(skip_serializing_if = "Option::is_none")]
    pub senders: Option<SenderOrder>,
    /// Stride only (default 1).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub stride: Option<u32>,
    /// Staggered only: probability of a same-rack destination (default 0.5).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub p: Option<f64>,
    /// Explicit only: a file of flows, by default a CSV trace
    /// `id,src,dst,size_bytes,start_s,deadline_s`.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub trace: Option<PathBuf>,
    /// With `trace` only: its format (default `dcflow`, the CSV above; or
    /// `hpcc`, `htsim`, `yaps`: other simulators' flow files, see `trace`).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub trace_format: Option<TraceFormat>,
    /// Poisson only: arrivals stop at `start + duration`. Without `flows`
    /// there is then no count limit.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub duration: Option<Dur>,
}

/// `workload.senders`: the order in which aggregation picks its senders.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum SenderOrder {
    #[default]
    InOrder,
    Random,
}

impl Default for WorkloadConfig {
    fn default() -> WorkloadConfig {
        WorkloadConfig {
            pattern: Pattern::Aggregation,
            flows: None,
            arrival: Arrival::Simultaneous,
            load: None,
            rate: None,
            size: SizeConfig::default(),
            deadline: None,
            deadline_fraction: None,
            known_size_fraction: None,
            start: Dur::ZERO,
            receiver: None,
            senders: None,
            stride: None,
            p: None,
            trace: None,
            trace_format: None,
            duration: None,
        }
    }
}
