//! Karuna (Chen, Chen, Bai, Alizadeh, SIGCOMM'16): mix-flow scheduling on
//! the DCTCP sender and the switches' strict priority classes.
//!
//! - Type 1, deadline flows: the top class, with MCP, the minimal-impact
//!   congestion control, which sends a deadline flow at the rate its
//!   deadline needs and no faster, leaving the rest to the other flows.
//! - Type 2, flows whose size the sender knows: the class of their size
//!   among `size_thresholds`, below the top class.
//! - Type 3, flows of unknown size: PIAS' MLFQ on the bytes sent
//!   ([`super::pias`]'s tagging), below the top class.
//!
//! Types 2 and 3 run DCTCP. A flow's type comes from the workload
//! (`deadline`, `known_size_fraction`); docs/fidelity-karuna.md records
//! every choice and its source.

use super::cc::FlowProgress;
use super::config::{refuse_unknown, DctcpConfig};
use super::pias::{check_thresholds, mlfq_class, web_search, Tag};
use crate::endpoint::FlowInfo;
use dcflow_core::{Bytes, ConfigError};
use serde::de::IgnoredAny;
use serde::{Deserialize, Serialize};
use std::collections::BTreeMap;

/// Options of the `karuna` protocol: DCTCP's keys plus the two threshold sets.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(default)]
pub struct KarunaConfig {
    /// Type-3 demotion thresholds on bytes sent (PIAS'). Default: the
    /// first six of PIAS' web-search set, so that types 2 and 3 share 7
    /// classes under the deadline class (8 in all, as 802.1p).
    pub thresholds: Vec<Bytes>,
    /// Type-2 thresholds on the flow's size. Default: the same six values.
    pub size_thresholds: Vec<Bytes>,
    #[serde(flatten)]
    pub dctcp: DctcpConfig,
    #[serde(flatten, skip_serializing)]
    unknown: BTreeMap<String, IgnoredAny>,
}

impl Default for KarunaConfig {
    fn default() -> Self {
        let six = web_search(6);
        KarunaConfig { thresholds: six.clone(), size_thresholds: six, dctcp: DctcpConfig::default(), unknown: BTreeMap::new() }
    }
}

/// Karuna's flow types.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum FlowType {
    Deadline,
    KnownSize,
    UnknownSize,
}

impl FlowType {
    pub fn of(info: &FlowInfo) -> FlowType {
        match (info.deadline, info.size_known) {
            (Some(_), _) => FlowType::Deadline,
            (None, true) => FlowType::KnownSize,
            (None, false) => FlowType::UnknownSize,
        }
    }
}

impl KarunaConfig {
    pub fn validate(&self) -> Result<(), ConfigError> {
        refuse_unknown(&self.unknown, "karuna", "thresholds, size_thresholds")?;
        check_thresholds(&self.thresholds, "thresholds", 62)?;
        check_thresholds(&self.size_thresholds, "size_thresholds", 62)?;
        self.dctcp.validate()
    }

    /// Switch classes the tags use: the deadline class and the others'.
    pub fn classes(&self) -> usize {
        2 + self.thresholds.len().max(self.size_thresholds.len())
    }

    /// The class (or classes) of a flow's packets by its type.
    pub fn tag(&self, info: &FlowInfo) -> Tag {
        let bytes = |t: &[Bytes]| t.iter().map(|b| b.0).collect::<Vec<u64>>();
        match FlowType::of(info) {
            FlowType::Deadline => Tag::Fixed(0),
            FlowType::KnownSize => Tag::Fixed(1 + mlfq_class(info.size.0, &bytes(&self.size_thresholds))),
            FlowType::UnknownSize => Tag::BytesSent { base: 1, thresholds: bytes(&self.thresholds) },
        }
    }
}

/// MCP's expected window: the expected rate gamma = M / delta (bytes not
/// yet acknowledged over the time left) times the RTT, at least `floor`.
/// delta runs to one RTT before the deadline: the last window must still
/// reach the receiver, so a flow paced to the deadline itself misses it by
/// that much. None without a deadline or once delta is spent: the flow
/// then runs DCTCP's window.
pub fn expected_window(p: &FlowProgress, floor: u64) -> Option<u64> {
    let deadline = p.deadline?;
    let cutoff = p.now + p.rtt;
    if cutoff >= deadline {
        return None;
    }
    let left = deadline.since(cutoff).as_secs_f64();
    let gamma = p.remaining as f64 / left;
    Some(((gamma * p.rtt.as_secs_f64()).ceil() as u64).max(floor))
}

/// MCP's cut on a window with marks: DCTCP's w (1 - alpha/2), never below
/// the expected window (the deadline comes first), never above the window.
pub fn mcp_cut(alpha: f64, p: &FlowProgress, floor: u64) -> u64 {
    let dctcp = ((p.cwnd as f64 * (1.0 - alpha / 2.0)) as u64).max(floor);
    match expected_window(p, floor) {
        Some(w) => dctcp.max(w.min(p.cwnd)),
        None => dctcp,
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use dcflow_core::{Dur, FlowId, Rate, Time};

    fn progress(remaining: u64, left_ms: u64, cwnd: u64) -> FlowProgress {
        FlowProgress {
            now: Time::ZERO + Dur::ms(10),
            start: Time::ZERO,
            // `left_ms` of delta, plus the RTT it stops short of the deadline.
            deadline: Some(Time::ZERO + Dur::ms(10 + left_ms) + Dur::us(100)),
            size: 1_000_000,
            remaining,
            sent: 1_000_000 - remaining,
            cwnd,
            rtt: Dur::us(100),
            line_rate: 1.25e9,
        }
    }

    /// gamma tau with M = 500 KB, delta = 10.1 ms - 1 RTT = 10 ms, tau =
    /// 100 us: 50 KB/ms x 0.1 ms = 5,000 B; within an RTT of the deadline,
    /// or without one, there is none.
    #[test]
    fn expected_window_is_bytes_left_over_time_left_times_rtt() {
        assert_eq!(expected_window(&progress(500_000, 10, 20_000), 2920), Some(5_000));
        assert_eq!(expected_window(&progress(5_000, 10, 20_000), 2920), Some(2920), "at least the floor");
        let mut late = progress(500_000, 0, 20_000);
        assert_eq!(expected_window(&late, 2920), None);
        late.deadline = None;
        assert_eq!(expected_window(&late, 2920), None);
    }

    /// A mark cuts as DCTCP above the expected window, holds at it below.
    #[test]
    fn mcp_cut_keeps_the_deadline_rate() {
        // Expected 5,000 B: a 20,000 B window cut by alpha = 0.5 gives 15,000.
        assert_eq!(mcp_cut(0.5, &progress(500_000, 10, 20_000), 2920), 15_000);
        // alpha = 1 would halve 8,000 to 4,000: held at 5,000.
        assert_eq!(mcp_cut(1.0, &progress(500_000, 10, 8_000), 2920), 5_000);
        // A window already below the expected one is not raised by a mark.
        assert_eq!(mcp_cut(1.0, &progress(500_000, 10, 4_000), 2920), 4_000);
    }

    fn info(deadline: bool, size_known: bool, size: u64) -> FlowInfo {
        FlowInfo {
            id: 0 as FlowId,
            size: Bytes(size),
            start: Time::ZERO,
            deadline: deadline.then_some(Time::ZERO + Dur::ms(10)),
            size_known,
            mss: 1460,
            line_rate: Rate::gbps(10),
            base_rtt: Dur::us(100),
            agent_hops: 2,
            dst: 1,
        }
    }

    /// Type 1 in class 0 whatever its size; type 2 by size under class 0;
    /// type 3 by bytes sent under class 0.
    #[test]
    fn types_map_to_classes() {
        let k = KarunaConfig { thresholds: vec![Bytes(100), Bytes(200)], size_thresholds: vec![Bytes(1000)], ..KarunaConfig::default() };
        assert_eq!(k.classes(), 4);
        assert_eq!(k.tag(&info(true, true, 5000)), Tag::Fixed(0));
        assert_eq!(k.tag(&info(false, true, 1000)), Tag::Fixed(1));
        assert_eq!(k.tag(&info(false, true, 1001)), Tag::Fixed(2));
        let t3 = k.tag(&info(false, false, 1001));
        assert_eq!([0, 100, 101, 201].map(|b| t3.class(b)), [1, 1, 2, 3]);
        assert_eq!(KarunaConfig::default().classes(), 8);
    }
}
