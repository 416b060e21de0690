//! `[protocol]` options of `tcp`, `dctcp` (and `d2tcp`) and `lpd`.

use dcflow_core::{ensure, Bytes, ConfigError, Dur};
use serde::de::IgnoredAny;
use serde::{Deserialize, Serialize};
use std::collections::BTreeMap;

use super::l2dct::L2dctRule;

/// Upper bound of the backed-off RTO (RFC 6298 §2.5: "a maximum value MAY be
/// placed on RTO provided it is at least 60 seconds").
pub const MAX_RTO: Dur = Dur::secs(60);

fn default_rto_min() -> Dur {
    Dur::ms(10)
}

/// Options of the `tcp` protocol (TCP NewReno).
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields, default)]
pub struct TcpConfig {
    /// Lower bound of the retransmission timeout. Default `10ms`: D3 §6.1.2
    /// "Reducing the RTO to a lower value like 10ms [23]", the "TCP with small
    /// RTO_min" baseline of D3 and PDQ §5.1 (RFC 6298 §2.4 would say 1 s).
    pub rto_min: Dur,
    /// Retransmission timeout before the first RTT sample (RFC 6298 §2.1 uses
    /// 1 s for the Internet). Unset (the default) means
    /// `max(rto_min, 3 * FlowInfo::base_rtt)`: never below `rto_min`, and
    /// three unloaded RTTs so that a long first window on a slow path does
    /// not fire it spuriously.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub rto_init: Option<Dur>,
    /// Initial congestion window in packets. Default 2: D3 §4.5 "Most TCP
    /// implementations shipping today start with a send window of two packets".
    pub init_cwnd: u32,
    /// Duplicate ACKs that trigger fast retransmit. Default 3 (RFC 5681 §3.2).
    pub dupack_threshold: u32,
    /// Optional cap on the congestion window in packets (a receive window /
    /// ns-2 `window_`). Default: no cap.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub max_cwnd: Option<u32>,
    /// Initial slow-start threshold in packets. Default unset: arbitrarily
    /// high (RFC 5681 §3.1 "SHOULD be set arbitrarily high"), so slow start
    /// ends at the first loss or mark. A finite value is what some simulators
    /// start with (htsim's TcpSrc: 100 packets, docs/validation.md).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub init_ssthresh: Option<u32>,
    /// Take an RTT sample from every ACK, those answering retransmissions
    /// included, as the echoed timestamp of RFC 7323 §4 allows (htsim's
    /// TcpSrc does so, docs/validation.md). Default false: Karn's rule (RFC
    /// 6298 §3), no sample from a retransmission, so a backed-off RTO stays
    /// backed off until new data is acknowledged.
    #[serde(skip_serializing_if = "std::ops::Not::not")]
    pub timestamps: bool,
    /// SYN / SYN-ACK exchange (one RTT) before the first data packet. Default
    /// true, as in the papers' TCP baselines.
    pub handshake: bool,
    /// TCP_pr (D3 §6.1.1, §6.1.2): switch priority classes by deadline. With
    /// thresholds t_0 < t_1 < ..., a flow whose deadline (from its start) is
    /// at most t_k sends in class k (the first such k), a later deadline in
    /// class len, a flow without a deadline in class len + 1; replies keep
    /// class 0. Needs `topology.queue = "priority"` with enough classes.
    /// Default empty: every packet in one class.
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub priority_deadlines: Vec<Dur>,
    /// Give a deadline flow up at its deadline: the sender stops and reports
    /// the flow terminated (its `bytes_delivered` is what arrived in time).
    /// papers/004 §III-A: a flow that misses its deadline "is stopped by
    /// force"; baselines.md "D2TCP": the ns-3 implementation "stops sending a
    /// flow once its deadline has passed". Default false (TCP runs on).
    pub stop_at_deadline: bool,
}

impl Default for TcpConfig {
    fn default() -> Self {
        TcpConfig {
            rto_min: default_rto_min(),
            rto_init: None,
            init_cwnd: 2,
            dupack_threshold: 3,
            max_cwnd: None,
            init_ssthresh: None,
            timestamps: false,
            handshake: true,
            priority_deadlines: Vec::new(),
            stop_at_deadline: false,
        }
    }
}

impl TcpConfig {
    /// Check value ranges; keys are relative to the protocol section.
    pub fn validate(&self) -> Result<(), ConfigError> {
        ensure(self.rto_min > Dur::ZERO, "rto_min", "must be greater than 0s")?;
        if let Some(r) = self.rto_init {
            ensure(r > Dur::ZERO, "rto_init", "must be greater than 0s")?;
        }
        ensure(self.init_cwnd >= 1, "init_cwnd", "must be at least 1 packet")?;
        ensure(self.dupack_threshold >= 1, "dupack_threshold", "must be at least 1")?;
        if let Some(m) = self.max_cwnd {
            ensure(m >= 1, "max_cwnd", "must be at least 1 packet")?;
        }
        if let Some(s) = self.init_ssthresh {
            ensure(s >= 1, "init_ssthresh", "must be at least 1 packet")?;
        }
        let d = &self.priority_deadlines;
        ensure(
            d.first().is_none_or(|&t| t > Dur::ZERO) && d.windows(2).all(|w| w[0] < w[1]),
            "priority_deadlines",
            "must be increasing positive times, e.g. [\"20ms\"]",
        )
    }

    /// The switch priority classes these options use (1 without TCP_pr).
    pub fn priority_classes(&self) -> usize {
        if self.priority_deadlines.is_empty() {
            1
        } else {
            self.priority_deadlines.len() + 2
        }
    }
}

/// Options of the `dctcp` protocol: every [`TcpConfig`] key plus DCTCP's gain.
/// The marking threshold K belongs to the switch queue configuration.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields, default)]
pub struct DctcpConfig {
    /// See [`TcpConfig::rto_min`].
    pub rto_min: Dur,
    /// See [`TcpConfig::rto_init`].
    #[serde(skip_serializing_if = "Option::is_none")]
    pub rto_init: Option<Dur>,
    /// See [`TcpConfig::init_cwnd`].
    pub init_cwnd: u32,
    /// See [`TcpConfig::dupack_threshold`].
    pub dupack_threshold: u32,
    /// See [`TcpConfig::max_cwnd`].
    #[serde(skip_serializing_if = "Option::is_none")]
    pub max_cwnd: Option<u32>,
    /// See [`TcpConfig::init_ssthresh`].
    #[serde(skip_serializing_if = "Option::is_none")]
    pub init_ssthresh: Option<u32>,
    /// See [`TcpConfig::timestamps`].
    #[serde(skip_serializing_if = "std::ops::Not::not")]
    pub timestamps: bool,
    /// See [`TcpConfig::handshake`].
    pub handshake: bool,
    /// See [`TcpConfig::stop_at_deadline`].
    pub stop_at_deadline: bool,
    /// Weight of the newest marked fraction in `alpha <- (1-g) alpha + g F`.
    /// Default 1/16: DCTCP §3.1, "g = 1/16" used in all the paper's experiments.
    pub g: f64,
    /// Initial alpha. Default 1: RFC 8257 §3.3 "DCTCP.Alpha [is initialised] to
    /// 1" (the conservative choice: the first marks halve the window).
    pub alpha_init: f64,
}

impl Default for DctcpConfig {
    fn default() -> Self {
        DctcpConfig::from_tcp(&TcpConfig::default())
    }
}

impl DctcpConfig {
    /// DCTCP with the given TCP options and DCTCP's own defaults.
    pub fn from_tcp(t: &TcpConfig) -> DctcpConfig {
        DctcpConfig {
            rto_min: t.rto_min,
            rto_init: t.rto_init,
            init_cwnd: t.init_cwnd,
            dupack_threshold: t.dupack_threshold,
            max_cwnd: t.max_cwnd,
            init_ssthresh: t.init_ssthresh,
            timestamps: t.timestamps,
            handshake: t.handshake,
            stop_at_deadline: t.stop_at_deadline,
            g: 1.0 / 16.0,
            alpha_init: 1.0,
        }
    }
    /// The TCP part of the options.
    pub fn tcp(&self) -> TcpConfig {
        TcpConfig {
            rto_min: self.rto_min,
            rto_init: self.rto_init,
            init_cwnd: self.init_cwnd,
            dupack_threshold: self.dupack_threshold,
            max_cwnd: self.max_cwnd,
            init_ssthresh: self.init_ssthresh,
            timestamps: self.timestamps,
            handshake: self.handshake,
            priority_deadlines: Vec::new(),
            stop_at_deadline: self.stop_at_deadline,
        }
    }
    pub fn validate(&self) -> Result<(), ConfigError> {
        self.tcp().validate()?;
        ensure(self.g > 0.0 && self.g <= 1.0, "g", "must be in (0, 1]")?;
        ensure((0.0..=1.0).contains(&self.alpha_init), "alpha_init", "must be in [0, 1]")
    }
}

/// LPD's variants (papers/004): which penalty f of eq. (2) the window follows.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum LpdVariant {
    /// f = alpha / d with D2TCP's imminence factor d: the basic algorithm of
    /// §IV-A as §V-A runs it ("LPD"), and "LPD-d" of §VI.
    #[serde(alias = "lpd")]
    D,
    /// LPD-t, eq. (3): f = alpha t / t_max, t = deadline - start.
    T,
    /// LPD-e, eq. (4): f = alpha (t / t_max) (s / s_max). "In our
    /// evaluations, LPD-e will be used, if not explicitly stated otherwise."
    #[default]
    E,
    /// MLD (§VI): a non-linear f of alpha and D2TCP's d.
    Mld,
    /// LPD-s (§VI), for mean FCT: f = alpha s / s_max.
    S,
}

/// The rate D2TCP's T_c divides the bytes left by.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum TcRate {
    /// 3/4 W / RTT, DCTCP's mean sawtooth rate (baselines.md "D2TCP").
    #[default]
    Window,
    /// The flow's line rate: the reading under which dcflow's run of the
    /// motivating example gives papers/004 §III-B's d of about 0.6 and 0.4
    /// for flows 1 and 4 at 150-160 ms (docs/fidelity.md).
    LineRate,
}

/// How D2TCP's deadline imminence factor d is bounded (baselines.md "D2TCP":
/// both public implementations keep d in [0.5, 2]; past the deadline ns-3
/// uses d = 2 and Linux d = 1, the first reading is the default).
#[derive(Clone, Copy, Debug, PartialEq, Serialize, Deserialize)]
#[serde(default)]
pub struct ImminenceRange {
    pub d_min: f64,
    pub d_max: f64,
    /// d once the deadline has passed (not clamped to the range).
    pub d_after_deadline: f64,
    /// What T_c assumes the flow sends at (see [`TcRate`]). Default `window`.
    pub tc_rate: TcRate,
}

impl Default for ImminenceRange {
    fn default() -> Self {
        ImminenceRange { d_min: 0.5, d_max: 2.0, d_after_deadline: 2.0, tc_rate: TcRate::Window }
    }
}

impl ImminenceRange {
    fn validate(&self) -> Result<(), ConfigError> {
        ensure(self.d_min > 0.0, "d_min", "must be greater than 0")?;
        ensure(self.d_max >= self.d_min, "d_max", "must be at least d_min")?;
        ensure(self.d_after_deadline > 0.0, "d_after_deadline", "must be greater than 0")
    }
}

/// Keys that serde lets through `flatten` unrefused: the check refuses them.
pub(super) fn refuse_unknown(unknown: &BTreeMap<String, IgnoredAny>, protocol: &str, own: &str) -> Result<(), ConfigError> {
    match unknown.keys().next() {
        None => Ok(()),
        Some(key) => Err(ConfigError::new(
            key.clone(),
            format!("unknown key of `{protocol}`; allowed: {own}, rto_min, rto_init, init_cwnd, dupack_threshold, max_cwnd, init_ssthresh, timestamps, handshake, stop_at_deadline, g, alpha_init"),
        )),
    }
}

/// Options of the `l2dct` protocol: DCTCP's keys plus L2DCT's weight rule.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
#[serde(default)]
pub struct L2dctConfig {
    #[serde(flatten)]
    pub rule: L2dctRule,
    #[serde(flatten)]
    pub dctcp: DctcpConfig,
    #[serde(flatten, skip_serializing)]
    unknown: BTreeMap<String, IgnoredAny>,
}

impl L2dctConfig {
    pub fn validate(&self) -> Result<(), ConfigError> {
        refuse_unknown(&self.unknown, "l2dct", "w_max, w_min, s_min, s_max")?;
        self.rule.validate()?;
        self.dctcp.validate()
    }
}

/// Options of the `d2tcp` protocol: DCTCP's keys plus the range of d.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
#[serde(default)]
pub struct D2tcpConfig {
    #[serde(flatten)]
    pub imminence: ImminenceRange,
    #[serde(flatten)]
    pub dctcp: DctcpConfig,
    #[serde(flatten, skip_serializing)]
    unknown: BTreeMap<String, IgnoredAny>,
}

impl D2tcpConfig {
    pub fn validate(&self) -> Result<(), ConfigError> {
        self.check("d2tcp", "d_min, d_max, d_after_deadline, tc_rate")
    }

    /// `own`: the keys the protocol adds to DCTCP's, for the error message.
    fn check(&self, protocol: &str, own: &str) -> Result<(), ConfigError> {
        refuse_unknown(&self.unknown, protocol, own)?;
        self.imminence.validate()?;
        self.dctcp.validate()
    }
}

/// What LPD's s (a flow's size, eq. 4 and §VI) counts.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum SizeBasis {
    /// The flow's total size: eq. (4) as §IV-C defines it (remaining size is
    /// left "for future studies" there).
    Total,
    /// Bytes not yet acknowledged: the only reading under which LPD-s can
    /// beat L2DCT with equal-size flows started together, as §VI reports for
    /// Fig. 13(b) (docs/fidelity.md "MLD and LPD-s").
    Remaining,
    /// Bytes sent so far (least attained service, as L2DCT's weight).
    Sent,
}

/// Which MLD (papers/004 §VI) the `mld` variant runs below d = 1.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum MldForm {
    /// As printed: f = (2 - d)^alpha, at least 1 for d < 1 (clamped to 1).
    #[default]
    Printed,
    /// f = alpha (2 - d): continuous with the printed f = alpha at d = 1.
    Linear,
}

/// LPD's own keys (papers/004 §IV), which its window rule reads as they
/// are: the variant and the upper bounds that normalise a flow's deadline
/// span t and size s.
#[derive(Clone, Copy, Debug, PartialEq, Serialize, Deserialize)]
#[serde(default)]
pub struct LpdRule {
    pub variant: LpdVariant,
    /// Upper bound of t (a flow's deadline span). Default 80 ms (§V-C).
    pub t_max: Dur,
    /// Upper bound of s (a flow's size). Default 200 KB (§V-C).
    pub s_max: Bytes,
    /// What s counts; unset: the total size for variant e (eq. 4), the
    /// remaining bytes for variant s (see [`SizeBasis`]).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub s_basis: Option<SizeBasis>,
    /// MLD's branch below d = 1 (see [`MldForm`]). Default `printed`.
    pub mld_form: MldForm,
}

impl Default for LpdRule {
    fn default() -> Self {
        LpdRule { variant: LpdVariant::E, t_max: Dur::ms(80), s_max: Bytes::kb(200), s_basis: None, mld_form: MldForm::Printed }
    }
}

impl LpdRule {
    /// The [`SizeBasis`] in force: `s_basis`, or the variant's own.
    pub fn size_basis(&self) -> SizeBasis {
        self.s_basis.unwrap_or(match self.variant {
            LpdVariant::S => SizeBasis::Remaining,
            _ => SizeBasis::Total,
        })
    }
}

/// Options of the `lpd` protocol: D2TCP's keys (DCTCP's alpha estimator and
/// TCP machinery are LPD's, papers/004 §IV-A and §V; the range of D2TCP's d
/// serves variants d and mld) plus LPD's own ([`LpdRule`]).
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
#[serde(default)]
pub struct LpdConfig {
    #[serde(flatten)]
    pub rule: LpdRule,
    #[serde(flatten)]
    pub d2tcp: D2tcpConfig,
}

impl LpdConfig {
    pub fn validate(&self) -> Result<(), ConfigError> {
        self.d2tcp.check("lpd", "variant, t_max, s_max, s_basis, mld_form, d_min, d_max, d_after_deadline, tc_rate")?;
        ensure(self.rule.t_max > Dur::ZERO, "t_max", "must be greater than 0s")?;
        ensure(self.rule.s_max.0 > 0, "s_max", "must be greater than 0B")
    }
}
