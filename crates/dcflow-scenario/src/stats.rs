//! The `[stats]` section: which flows the summary's flow statistics cover
//! (a warm-up cut) and the flow-size buckets it breaks slowdown down by.
//!
//! Papers on datacenter transports report FCT slowdown per flow-size range,
//! because an average over all flows hides what happens to the short ones
//! (pFabric SIGCOMM'13 Fig. 8-10: (0, 100KB], (100KB, 10MB], > 10MB on the
//! web-search and data-mining workloads; HPCC and Homa use finer ranges), and
//! measure after a warm-up so the empty network at time 0 does not flatter
//! the first flows of a Poisson run.

use crate::output::{mean, percentile, FlowRecord};
use dcflow_core::{ensure, Bytes, ConfigError, Dur};
use serde::ser::SerializeMap;
use serde::{Deserialize, Serialize, Serializer};

/// At most this many bucket bounds: one row per bucket in plots and a
/// column group per bucket in points.parquet must stay readable.
const MAX_BUCKETS: usize = 16;

/// `[stats]`.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields, default)]
pub struct StatsConfig {
    /// Flows that start before this are left out of the flow statistics
    /// (FCT, slowdown, deadlines, buckets); they are still simulated and
    /// still in the flows table. Default 0: every flow counts.
    pub warmup: Dur,
    /// Upper bounds (inclusive) of the size buckets, increasing; a last
    /// bucket holds the larger flows. Default pFabric's 100KB and 10MB.
    pub buckets: Vec<Bytes>,
}

impl Default for StatsConfig {
    fn default() -> StatsConfig {
        StatsConfig { warmup: Dur::ZERO, buckets: vec![Bytes::kb(100), Bytes::mb(10)] }
    }
}

impl StatsConfig {
    /// Keys are relative to the section (`buckets[1]`).
    pub fn validate(&self) -> Result<(), ConfigError> {
        ensure(!self.buckets.is_empty(), "buckets", "needs at least one size bound, like [\"100KB\", \"10MB\"]")?;
        ensure(
            self.buckets.len() <= MAX_BUCKETS,
            "buckets",
            format!("has {} bounds; at most {MAX_BUCKETS}", self.buckets.len()),
        )?;
        for (i, w) in self.buckets.windows(2).enumerate() {
            ensure(w[0] < w[1], &format!("buckets[{}]", i + 1), format!("{} must be larger than the bound before it ({})", w[1], w[0]))?;
        }
        ensure(self.buckets[0].0 >= 1, "buckets[0]", "must be at least 1B")
    }

    /// Whether a flow is measured (starts at or after the warm-up).
    pub(crate) fn measures(&self, f: &FlowRecord) -> bool {
        f.start_s >= self.warmup.as_secs_f64()
    }

    /// Each bucket's label and inclusive size range: `<=100KB`,
    /// `100KB-10MB` (that is, over 100KB up to 10MB), `>10MB`.
    pub fn bucket_ranges(&self) -> Vec<(String, u64, Option<u64>)> {
        let b = &self.buckets;
        let mut out = vec![(format!("<={}", b[0]), 0, Some(b[0].0))];
        out.extend(b.windows(2).map(|w| (format!("{}-{}", w[0], w[1]), w[0].0, Some(w[1].0))));
        out.push((format!(">{}", b[b.len() - 1]), b[b.len() - 1].0, None));
        out
    }
}

/// The measured flows of one size range.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct SizeBucket {
    /// `<=100KB`, `100KB-10MB`, `>10MB` (see [`StatsConfig::bucket_ranges`]).
    pub label: String,
    /// Sizes above `min_bytes` up to `max_bytes` (inclusive; `None`: no bound).
    pub min_bytes: u64,
    pub max_bytes: Option<u64>,
    /// Measured flows of this size; statistics cover the completed ones.
    pub flows: u64,
    pub completed: u64,
    /// Of them, the flows with a deadline and those that met it; their
    /// ratio (`app_throughput`, null without deadline flows), as the
    /// summary's keys of the same names over all sizes: deadline-aware
    /// transports are judged per size too (short flows carry the deadlines,
    /// D3 §2, PDQ §5.3).
    pub deadline_flows: u64,
    pub deadline_met: u64,
    pub app_throughput: Option<f64>,
    pub fct_mean_s: Option<f64>,
    pub slowdown_mean: Option<f64>,
    pub slowdown_p50: Option<f64>,
    pub slowdown_p99: Option<f64>,
}

/// The summary's buckets, written flat into it: `size_buckets` (the labels,
/// smallest first) and one key `STAT[LABEL]` per statistic and bucket
/// (`slowdown_p99[<=100KB]`), the same names as the sweeps' points.parquet
/// columns. Flat keys (no nested objects) keep every summary value a
/// top-level number, as tools comparing summaries with a tolerance expect.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct SizeBuckets(pub Vec<SizeBucket>);

impl Serialize for SizeBuckets {
    fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        let mut m = s.serialize_map(None)?;
        let labels: Vec<&str> = self.0.iter().map(|b| b.label.as_str()).collect();
        m.serialize_entry("size_buckets", &labels)?;
        for b in &self.0 {
            let key = |stat: &str| format!("{stat}[{}]", b.label);
            m.serialize_entry(&key("flows"), &b.flows)?;
            m.serialize_entry(&key("completed"), &b.completed)?;
            m.serialize_entry(&key("deadline_flows"), &b.deadline_flows)?;
            m.serialize_entry(&key("deadline_met"), &b.deadline_met)?;
            m.serialize_entry(&key("app_throughput"), &b.app_throughput)?;
            m.serialize_entry(&key("fct_mean_s"), &b.fct_mean_s)?;
            m.serialize_entry(&key("slowdown_mean"), &b.slowdown_mean)?;
            m.serialize_entry(&key("slowdown_p50"), &b.slowdown_p50)?;
            m.serialize_entry(&key("slowdown_p99"), &b.slowdown_p99)?;
        }
        m.end()
    }
}

/// The buckets of `cfg` over the measured flows among `flows`.
pub fn size_buckets(flows: &[FlowRecord], cfg: &StatsConfig) -> SizeBuckets {
    SizeBuckets(cfg.bucket_ranges()
        .into_iter()
        .map(|(label, min_bytes, max_bytes)| {
            let inside: Vec<&FlowRecord> = flows
                .iter()
                .filter(|f| cfg.measures(f) && f.size_bytes > min_bytes && max_bytes.is_none_or(|m| f.size_bytes <= m))
                .collect();
            let (fcts, mut slowdowns): (Vec<f64>, Vec<f64>) =
                inside.iter().filter_map(|f| Some((f.fct_s?, f.slowdown?))).unzip();
            slowdowns.sort_by(f64::total_cmp);
            let deadline_flows = inside.iter().filter(|f| f.deadline_s.is_some()).count() as u64;
            let deadline_met = inside.iter().filter(|f| f.met_deadline == Some(true)).count() as u64;
            SizeBucket {
                label,
                min_bytes,
                max_bytes,
                flows: inside.len() as u64,
                completed: fcts.len() as u64,
                deadline_flows,
                deadline_met,
                app_throughput: (deadline_flows > 0).then(|| deadline_met as f64 / deadline_flows as f64),
                fct_mean_s: mean(&fcts),
                slowdown_mean: mean(&slowdowns),
                slowdown_p50: percentile(&slowdowns, 50.0),
                slowdown_p99: percentile(&slowdowns, 99.0),
            }
        })
        .collect())
}

#[cfg(test)]
mod tests {
    use super::*;

    fn flow(id: u32, size: u64, start_s: f64, fct: Option<f64>) -> FlowRecord {
        FlowRecord {
            id,
            src: 1,
            dst: 0,
            size_bytes: size,
            start_s,
            deadline_s: None,
            finish_s: fct.map(|f| start_s + f),
            fct_s: fct,
            ideal_fct_s: 0.5,
            slowdown: fct.map(|f| f / 0.5),
            met_deadline: None,
            terminated: false,
            bytes_delivered: if fct.is_some() { size } else { 0 },
            no_path: false,
        }
    }

    #[test]
    fn default_buckets_split_at_100kb_and_10mb_inclusive() {
        let flows = [
            flow(0, 100_000, 0.0, Some(1.0)),
            flow(1, 100_001, 0.0, Some(2.0)),
            flow(2, 10_000_000, 0.0, Some(4.0)),
            flow(3, 10_000_001, 0.0, Some(8.0)),
            flow(4, 20_000_000, 0.0, None),
        ];
        let b = size_buckets(&flows, &StatsConfig::default()).0;
        let shape: Vec<_> = b.iter().map(|b| (b.label.as_str(), b.flows, b.completed)).collect();
        assert_eq!(shape, [("<=100KB", 1, 1), ("100KB-10MB", 2, 2), (">10MB", 2, 1)]);
        assert_eq!(b[1].fct_mean_s, Some(3.0));
        assert_eq!((b[1].slowdown_mean, b[1].slowdown_p50), (Some(6.0), Some(6.0)), "ideal 0.5 s");
        assert!((b[1].slowdown_p99.unwrap() - (4.0 + 0.99 * 4.0)).abs() < 1e-12);
        assert_eq!(b[2].fct_mean_s, Some(8.0), "the unfinished flow is not in the statistics");
        assert_eq!((b[2].min_bytes, b[2].max_bytes), (10_000_000, None));
    }

    #[test]
    fn deadline_flows_are_counted_per_bucket() {
        let due = |mut f: FlowRecord, met: bool| {
            f.deadline_s = Some(0.01);
            f.met_deadline = Some(met);
            f
        };
        let flows = [due(flow(0, 1_000, 0.0, Some(1.0)), true), due(flow(1, 2_000, 0.0, None), false),
                     flow(2, 3_000, 0.0, Some(1.0)), flow(3, 200_000, 0.0, Some(1.0))];
        let b = size_buckets(&flows, &StatsConfig::default()).0;
        assert_eq!((b[0].deadline_flows, b[0].deadline_met, b[0].app_throughput), (2, 1, Some(0.5)));
        assert_eq!((b[1].deadline_flows, b[1].app_throughput), (0, None), "no deadline flows: no ratio");
    }

    #[test]
    fn warmup_leaves_out_flows_that_start_before_it() {
        let cfg = StatsConfig { warmup: Dur::ms(10), buckets: vec![Bytes::kb(1)] };
        let flows = [flow(0, 500, 0.009, Some(1.0)), flow(1, 500, 0.010, Some(3.0))];
        let b = size_buckets(&flows, &cfg).0;
        assert_eq!((b[0].flows, b[0].fct_mean_s), (1, Some(3.0)));
    }

    #[test]
    fn the_summary_gets_flat_keys() {
        let flows = [flow(0, 500, 0.0, Some(1.0))];
        let json = serde_json::to_value(size_buckets(&flows, &StatsConfig::default())).unwrap();
        assert_eq!(json["size_buckets"], serde_json::json!(["<=100KB", "100KB-10MB", ">10MB"]));
        assert_eq!(json["slowdown_p99[<=100KB]"], serde_json::json!(2.0));
        assert_eq!(json["flows[>10MB]"], serde_json::json!(0));
        assert!(json["slowdown_p50[>10MB]"].is_null());
    }

    #[test]
    fn bucket_bounds_must_increase() {
        let bad = |b: Vec<Bytes>| StatsConfig { warmup: Dur::ZERO, buckets: b }.validate().unwrap_err().key;
        assert_eq!(bad(vec![Bytes::mb(1), Bytes::kb(100)]), "buckets[1]");
        assert_eq!(bad(vec![]), "buckets");
        assert_eq!(bad(vec![Bytes(0)]), "buckets[0]");
    }
}
