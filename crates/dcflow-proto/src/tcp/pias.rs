//! PIAS (Bai, Chen, Chen, Han, Wang, Wang, NSDI'15) as a tagging policy of
//! the DCTCP sender: a multi-level feedback queue over the switches' strict
//! priority classes. A packet's class is the first demotion threshold its
//! flow's bytes sent so far (before the packet) do not exceed, so a flow
//! starts in the top class and is demoted as it sends, and a short flow
//! finishes in the top classes without anyone knowing its size. Rate
//! control underneath is DCTCP's, with the switch marking CE on the whole
//! port's queue (`topology.ecn_threshold` with `queue = "priority"`).
//!
//! The rule is the one of the PIAS ns-2 code (HKUST-SING/PIAS-NS2,
//! `piasPrio`: class i for the first i with bytes sent <= threshold i, the
//! last class otherwise; control packets in class 0). Defaults and their
//! sources: docs/fidelity-pias.md.

use super::config::{refuse_unknown, DctcpConfig};
use dcflow_core::{ensure, Bytes, ConfigError};
use serde::de::IgnoredAny;
use serde::{Deserialize, Serialize};
use std::collections::BTreeMap;

/// The PIAS ns-2 scripts' web-search thresholds (`run_pias_dctcp.py`,
/// 8 classes, the same at every load), in 1460-byte packets: 46, 1084,
/// 1717, 1943, 1989, 1999, 2001.
pub const WEB_SEARCH_THRESHOLDS: [u64; 7] = [46, 1084, 1717, 1943, 1989, 1999, 2001];
/// Bytes per packet of the ns-2 thresholds (their TCP segment).
pub const THRESHOLD_PACKET_BYTES: u64 = 1460;

/// How a TCP sender picks the switch class of its packets.
#[derive(Clone, Debug, PartialEq)]
pub enum Tag {
    /// One class for the whole flow: 0, TCP_pr's deadline class, Karuna's
    /// type-1 and type-2 classes.
    Fixed(u64),
    /// PIAS' MLFQ: `base` plus the class of the bytes sent before the packet.
    BytesSent { base: u64, thresholds: Vec<u64> },
}

impl Tag {
    /// The class of a packet that starts at byte `sent` of its flow.
    pub fn class(&self, sent: u64) -> u64 {
        match self {
            Tag::Fixed(c) => *c,
            Tag::BytesSent { base, thresholds } => base + mlfq_class(sent, thresholds),
        }
    }
}

/// The first k with `bytes <= thresholds[k]`, else `thresholds.len()`:
/// PIAS' demotion (and Karuna's split of known sizes, with the size).
pub fn mlfq_class(bytes: u64, thresholds: &[u64]) -> u64 {
    thresholds.iter().position(|&t| bytes <= t).unwrap_or(thresholds.len()) as u64
}

/// The first `n` web-search thresholds in bytes.
pub(super) fn web_search(n: usize) -> Vec<Bytes> {
    WEB_SEARCH_THRESHOLDS[..n].iter().map(|p| Bytes(p * THRESHOLD_PACKET_BYTES)).collect()
}

/// Demotion thresholds must rise strictly and leave room in 64 classes.
pub(super) fn check_thresholds(t: &[Bytes], key: &str, max: usize) -> Result<(), ConfigError> {
    ensure(
        !t.is_empty() && t.len() <= max && t[0].0 > 0 && t.windows(2).all(|w| w[0] < w[1]),
        key,
        format!("must be 1 to {max} increasing positive sizes, e.g. [\"100KB\", \"1MB\"]"),
    )
}

/// Options of the `pias` protocol: DCTCP's keys plus the demotion thresholds.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(default)]
pub struct PiasConfig {
    /// Demotion thresholds alpha_1 < ... < alpha_{K-1} on the bytes a flow
    /// has sent: K = len + 1 classes. Default: the ns-2 web-search set
    /// ([`WEB_SEARCH_THRESHOLDS`], 8 classes).
    pub thresholds: Vec<Bytes>,
    #[serde(flatten)]
    pub dctcp: DctcpConfig,
    #[serde(flatten, skip_serializing)]
    unknown: BTreeMap<String, IgnoredAny>,
}

impl Default for PiasConfig {
    fn default() -> Self {
        PiasConfig { thresholds: web_search(WEB_SEARCH_THRESHOLDS.len()), dctcp: DctcpConfig::default(), unknown: BTreeMap::new() }
    }
}

impl PiasConfig {
    pub fn validate(&self) -> Result<(), ConfigError> {
        refuse_unknown(&self.unknown, "pias", "thresholds")?;
        check_thresholds(&self.thresholds, "thresholds", 63)?;
        self.dctcp.validate()
    }

    /// Switch classes the tags use.
    pub fn classes(&self) -> usize {
        self.thresholds.len() + 1
    }

    pub fn tag(&self) -> Tag {
        Tag::BytesSent { base: 0, thresholds: self.thresholds.iter().map(|b| b.0).collect() }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A packet is tagged by the bytes sent before it: at a threshold it
    /// stays in the class, one byte past it is demoted.
    #[test]
    fn tags_follow_bytes_sent_at_each_threshold() {
        let tag = PiasConfig::default().tag();
        let t: Vec<u64> = WEB_SEARCH_THRESHOLDS.iter().map(|p| p * 1460).collect();
        assert_eq!(tag.class(0), 0);
        for (k, &alpha) in t.iter().enumerate() {
            assert_eq!(tag.class(alpha), k as u64, "at threshold {k}");
            assert_eq!(tag.class(alpha + 1), k as u64 + 1, "past threshold {k}");
        }
        assert_eq!(tag.class(u64::MAX), 7, "the last class has no bound");
        let shifted = Tag::BytesSent { base: 1, thresholds: vec![100, 200] };
        assert_eq!([0, 100, 101, 200, 201].map(|b| shifted.class(b)), [1, 1, 2, 2, 3]);
    }

    #[test]
    fn thresholds_must_rise() {
        let bad = |t: Vec<Bytes>| PiasConfig { thresholds: t, ..PiasConfig::default() }.validate().unwrap_err().key;
        assert_eq!(bad(vec![]), "thresholds");
        assert_eq!(bad(vec![Bytes(200), Bytes(100)]), "thresholds");
        assert_eq!(bad(vec![Bytes(0)]), "thresholds");
        assert_eq!(PiasConfig::default().classes(), 8);
    }
}
