//! `[protocol]` options of `tcp` and `dctcp`.

use dcflow_core::{ensure, ConfigError, Dur};
use serde::{Deserialize, Serialize};

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
    /// SYN / SYN-ACK exchange (one RTT) before the first data packet. Default
    /// true, as in the papers' TCP baselines.
    pub handshake: bool,
}

impl Default for TcpConfig {
    fn default() -> Self {
        TcpConfig {
            rto_min: default_rto_min(),
            rto_init: None,
            init_cwnd: 2,
            dupack_threshold: 3,
            max_cwnd: None,
            handshake: true,
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
        Ok(())
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
    /// See [`TcpConfig::handshake`].
    pub handshake: bool,
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
            handshake: t.handshake,
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
            handshake: self.handshake,
        }
    }
    pub fn validate(&self) -> Result<(), ConfigError> {
        self.tcp().validate()?;
        ensure(self.g > 0.0 && self.g <= 1.0, "g", "must be in (0, 1]")?;
        ensure((0.0..=1.0).contains(&self.alpha_init), "alpha_init", "must be in [0, 1]")
    }
}
