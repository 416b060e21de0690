//! What a run produces (docs/outputs.md): per-flow records, the
//! summary, and monitored time series. Shared by both engines so that the
//! summary means the same thing whichever engine produced the flows.

use crate::stats::{size_buckets, SizeBuckets, StatsConfig};
use dcflow_core::{Dur, LinkId, Time};
use dcflow_proto::SenderState;
use serde::Serialize;

/// One row of the flows table. Times are seconds since the run began.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct FlowRecord {
    pub id: u32,
    pub src: u32,
    pub dst: u32,
    pub size_bytes: u64,
    pub start_s: f64,
    /// Absolute deadline, if the flow has one.
    pub deadline_s: Option<f64>,
    /// When the receiver held the last byte; `None` if it never did.
    pub finish_s: Option<f64>,
    pub fct_s: Option<f64>,
    /// The flow alone on its path under the same engine.
    pub ideal_fct_s: f64,
    pub slowdown: Option<f64>,
    /// `None` for flows without a deadline.
    pub met_deadline: Option<bool>,
    /// The protocol gave up on the flow (early termination, quenching).
    pub terminated: bool,
    pub bytes_delivered: u64,
    /// Terminated because link failures left no path to its destination
    /// (the summary's `flows_no_path`; not a column of the flows table,
    /// whose columns are a contract).
    #[serde(skip)]
    pub no_path: bool,
}

/// One sample of a monitored link or flow.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct SeriesRow {
    /// End of the sampling interval.
    pub time_s: f64,
    /// "link" or "flow".
    pub series: &'static str,
    /// The link's name in the topology (`dcflow topo`, as in the summary's
    /// `utilization_links`), or the flow id as text.
    pub name: String,
    /// Flow only: the flow's id, as in the flows table.
    pub flow_id: Option<u32>,
    /// Bits per second over the interval (link: serialized; flow: its payload
    /// serialized on its last link, packet engine; its rate, fluid engine).
    pub throughput_bps: f64,
    /// Link only: queue occupancy at the end of the interval.
    pub queue_bytes: Option<u64>,
    /// Link only: packets dropped at the link's port or on the link during
    /// the interval (queue overflow, eviction, random loss, failure).
    pub drops: Option<u64>,
    /// Link only: flows moved off the link by a routing change during the interval.
    pub reroutes: Option<u64>,
    /// Link only: whether the link is up at the end of the interval.
    pub up: Option<bool>,
    /// Link only, packet engine: the capacity the port's controller allocates
    /// from at the sample (D3 / RCP_dc's C, PDQ's rate controller C); None
    /// for ports without one.
    pub capacity_bps: Option<f64>,
    /// Flow only, packet engine: the sender's state at the sample
    /// ([`SenderState`]); None where the protocol has no such state.
    pub window_bytes: Option<u64>,
    pub alpha: Option<f64>,
    pub imminence: Option<f64>,
    pub rate_bps: Option<u64>,
}

impl SeriesRow {
    /// A sample with only its time, series, name and throughput; the columns
    /// the other series or the engine do not have stay null.
    fn bare(time_s: f64, series: &'static str, name: String, throughput_bps: f64) -> SeriesRow {
        SeriesRow {
            time_s,
            series,
            name,
            flow_id: None,
            throughput_bps,
            queue_bytes: None,
            drops: None,
            reroutes: None,
            up: None,
            capacity_bps: None,
            window_bytes: None,
            alpha: None,
            imminence: None,
            rate_bps: None,
        }
    }
}

/// What an engine reads off a monitored link at a sample: cumulative
/// counters (the [`Monitor`] turns them into per-interval values) and state.
#[derive(Clone, Copy, Debug)]
pub struct LinkSample {
    pub bits: f64,
    pub queue_bytes: u64,
    pub drops: u64,
    pub reroutes: u64,
    pub up: bool,
    pub capacity_bps: Option<f64>,
}

/// What a monitor reads of an engine at a sample: each engine's own
/// cumulative counters, which [`Monitor`] turns into rates.
pub trait Sampled {
    fn now(&self) -> Time;
    /// Monitored link `link` as it is now.
    fn link_sample(&self, link: LinkId) -> LinkSample;
    /// Each flow that has started, as it is now.
    fn each_flow(&self, sample: &mut dyn FnMut(FlowSample));
}

/// What an engine reads off a started flow at a sample.
pub struct FlowSample {
    /// The flow's id: dense `0..n`, its row in the flows table.
    pub id: u32,
    /// Bytes delivered by now (cumulative; the [`Monitor`] takes differences).
    pub bytes: u64,
    /// Still running: it gets a row even if it delivered nothing since the last sample.
    pub running: bool,
    pub state: SenderState,
}

/// Time series of monitored links and flows, sampled every `[monitor]
/// interval` (docs/outputs.md, timeseries.parquet). Both engines use it:
/// it keeps the counters of the last sample and writes the rates over the
/// interval; each engine only reads its counters ([`Sampled`]).
pub struct Monitor {
    interval: Dur,
    /// (the link, its topology name, its counters at the last sample).
    links: Vec<(LinkId, String, LinkSample)>,
    /// Per-flow delivered bytes at the last sample; `None` when flows are not monitored.
    flow_bytes: Option<Vec<u64>>,
    pub rows: Vec<SeriesRow>,
}

impl Monitor {
    pub fn new(interval: Dur, links: Vec<(LinkId, String)>, flows: Option<usize>) -> Monitor {
        let start = LinkSample { bits: 0.0, queue_bytes: 0, drops: 0, reroutes: 0, up: true, capacity_bps: None };
        Monitor {
            interval,
            links: links.into_iter().map(|(link, name)| (link, name, start)).collect(),
            flow_bytes: flows.map(|n| vec![0; n]),
            rows: Vec::new(),
        }
    }

    pub fn interval(&self) -> Dur {
        self.interval
    }

    /// One row per monitored link, and per monitored flow that ran since the last sample.
    pub fn sample(&mut self, engine: &impl Sampled) {
        let time_s = engine.now().as_secs_f64();
        for i in 0..self.links.len() {
            self.link(i, time_s, engine.link_sample(self.links[i].0));
        }
        if self.flow_bytes.is_some() {
            engine.each_flow(&mut |f| self.flow(time_s, f));
        }
    }

    /// Monitored link `i` as it is at `time_s`.
    fn link(&mut self, i: usize, time_s: f64, now: LinkSample) {
        let (_, name, last) = &mut self.links[i];
        self.rows.push(SeriesRow {
            queue_bytes: Some(now.queue_bytes),
            drops: Some(now.drops - last.drops),
            reroutes: Some(now.reroutes - last.reroutes),
            up: Some(now.up),
            capacity_bps: now.capacity_bps,
            // The fluid engine's cumulative bits are sums of rate x time:
            // rounding may take a few ulps back, which is no negative rate.
            ..SeriesRow::bare(time_s, "link", name.clone(), ((now.bits - last.bits) / self.interval.as_secs_f64()).max(0.0))
        });
        *last = now;
    }

    /// A flow as it is at `time_s`: a row is written while it is running or
    /// when it delivered since the last sample.
    fn flow(&mut self, time_s: f64, f: FlowSample) {
        let FlowSample { id, bytes, running, state } = f;
        let Some(last) = self.flow_bytes.as_mut().map(|v| &mut v[id as usize]) else { return };
        if bytes > *last || running {
            let throughput_bps = (bytes - *last) as f64 * 8.0 / self.interval.as_secs_f64();
            self.rows.push(SeriesRow {
                window_bytes: state.window_bytes,
                alpha: state.alpha,
                imminence: state.imminence,
                rate_bps: state.rate_bps,
                flow_id: Some(id),
                ..SeriesRow::bare(time_s, "flow", id.to_string(), throughput_bps)
            });
        }
        *last = bytes;
    }
}

/// How a run ended (the summary's `status`).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize)]
#[serde(rename_all = "lowercase")]
pub enum RunStatus {
    /// Every flow got its outcome (finished or terminated).
    #[default]
    Completed,
    /// Simulated time reached the scenario's `stop` first.
    Stopped,
    /// Flows were running but none progressed for the scenario's `stall`
    /// interval (see [`crate::Scenario::stall_interval`]).
    Stalled,
    /// The user stopped the run (Ctrl-C): the engines return
    /// `ConfigError::interrupted()` instead of an output.
    Interrupted,
}

/// Where a run's measured interval ends: the last flow's outcome
/// (`Completed`), `stop` (`Stopped`), or the last progress plus the `stall`
/// interval (`Stalled`). Events after it (FIN exchanges, stale timers) may
/// still run, but the summary's `sim_time_s` and `utilization` stop here.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct RunEnd {
    pub status: RunStatus,
    pub at: Time,
}

/// The summary's `utilization`: the mean over the measured links of the
/// fraction of their capacity used between the first flow's start and the
/// run's end, the interval in which the links had work. Each item of `links`
/// is (bits the link sent by `end`, its rate in bit/s). Measuring from time 0
/// to the last event instead made it depend on arrival offsets and on timers
/// left after the last flow.
pub fn utilization(links: &[(f64, f64)], first_start: Time, end: Time) -> f64 {
    let secs = end.since(first_start).as_secs_f64();
    if links.is_empty() || secs == 0.0 {
        return 0.0;
    }
    links.iter().map(|&(bits, rate)| bits / (rate * secs)).sum::<f64>() / links.len() as f64
}

/// Counters the engine keeps that the flows table cannot give.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct RunStats {
    pub status: RunStatus,
    /// The run's end ([`RunEnd::at`]), in seconds.
    pub sim_time_s: f64,
    pub events: u64,
    pub wall_s: f64,
    pub packets_sent: u64,
    pub packets_dropped: u64,
    /// See [`utilization`].
    pub utilization: f64,
    /// The topology's names of the links `utilization` measures: the
    /// monitored ones, else the bottleneck.
    pub utilization_links: Vec<String>,
    pub retransmits: u64,
    pub timeouts: u64,
    /// Packet transmissions over links (one per packet per hop).
    pub packet_hops: u64,
    pub packets_dropped_by_failure: u64,
    pub reroutes: u64,
}

/// the summary keys of docs/outputs.md, in its order.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct Summary {
    /// Beyond the first brief's list (docs/outputs.md): "completed", "stopped" or "stalled" ([`RunStatus`]).
    pub status: RunStatus,
    pub flows_total: u64,
    pub flows_completed: u64,
    pub flows_terminated: u64,
    pub deadline_flows: u64,
    pub deadline_met: u64,
    /// Fraction of deadline flows that met their deadline (PDQ §5.1
    /// "Application Throughput"); `None` without deadline flows.
    pub app_throughput: Option<f64>,
    pub fct_mean_s: Option<f64>,
    pub fct_p50_s: Option<f64>,
    pub fct_p99_s: Option<f64>,
    /// The 99.9th percentile (MERP §6 reports it).
    pub fct_p999_s: Option<f64>,
    pub fct_max_s: Option<f64>,
    pub slowdown_mean: Option<f64>,
    pub slowdown_p99: Option<f64>,
    pub slowdown_max: Option<f64>,
    /// When the run ended: the last flow's outcome, `stop`, or the stall ([`RunEnd`]).
    pub sim_time_s: f64,
    pub events: u64,
    pub wall_s: f64,
    pub packets_sent: u64,
    pub packets_dropped: u64,
    pub utilization: f64,
    /// Beyond the first brief's list (docs/outputs.md): the links `utilization` measures.
    pub utilization_links: Vec<String>,
    /// Beyond the first brief's list (docs/outputs.md): packets the senders sent again, and the
    /// retransmission timeouts they took (the incast signature).
    pub retransmits: u64,
    pub timeouts: u64,
    /// Packet transmissions over links: the engine's unit of work (benchmarks).
    pub packet_hops: u64,
    /// Packets lost to failed links (included in `packets_dropped`).
    pub packets_dropped_by_failure: u64,
    /// Flows moved to another path by a routing change.
    pub reroutes: u64,
    /// Flows terminated because failures left them no path
    /// (counted in `flows_terminated` too).
    pub flows_no_path: u64,
    /// The `[stats] warmup` cut, in seconds: the deadline, FCT and
    /// slowdown statistics and the buckets cover the flows starting at or
    /// after it.
    pub warmup_s: f64,
    /// Flows starting at or after `warmup_s` (all flows without a warm-up).
    pub flows_measured: u64,
    /// Slowdown (and mean FCT) per flow-size range, as flat keys
    /// ([`SizeBuckets`]).
    #[serde(flatten)]
    pub size_buckets: SizeBuckets,
}

pub struct RunOutput {
    pub summary: Summary,
    pub flows: Vec<FlowRecord>,
    pub timeseries: Option<Vec<SeriesRow>>,
}

/// Percentile by linear interpolation between closest ranks (numpy's default),
/// of an ascending slice.
pub fn percentile(sorted: &[f64], p: f64) -> Option<f64> {
    let n = sorted.len();
    if n == 0 {
        return None;
    }
    let pos = p / 100.0 * (n - 1) as f64;
    let lo = pos.floor() as usize;
    let hi = pos.ceil() as usize;
    Some(sorted[lo] + (sorted[hi] - sorted[lo]) * (pos - lo as f64))
}

pub(crate) fn mean(v: &[f64]) -> Option<f64> {
    (!v.is_empty()).then(|| v.iter().sum::<f64>() / v.len() as f64)
}

impl Summary {
    /// Summarize a run under the default `[stats]` (no warm-up, pFabric's
    /// buckets); [`RunOutput::apply_stats`] applies the scenario's.
    pub fn from_flows(flows: &[FlowRecord], stats: &RunStats) -> Summary {
        let mut s = Summary {
            status: stats.status,
            flows_total: 0,
            flows_completed: 0,
            flows_terminated: 0,
            deadline_flows: 0,
            deadline_met: 0,
            app_throughput: None,
            fct_mean_s: None,
            fct_p50_s: None,
            fct_p99_s: None,
            fct_p999_s: None,
            fct_max_s: None,
            slowdown_mean: None,
            slowdown_p99: None,
            slowdown_max: None,
            sim_time_s: stats.sim_time_s,
            events: stats.events,
            wall_s: stats.wall_s,
            packets_sent: stats.packets_sent,
            packets_dropped: stats.packets_dropped,
            utilization: stats.utilization,
            utilization_links: stats.utilization_links.clone(),
            retransmits: stats.retransmits,
            timeouts: stats.timeouts,
            packet_hops: stats.packet_hops,
            packets_dropped_by_failure: stats.packets_dropped_by_failure,
            reroutes: stats.reroutes,
            flows_no_path: 0,
            warmup_s: 0.0,
            flows_measured: 0,
            size_buckets: SizeBuckets::default(),
        };
        s.measure(flows, &StatsConfig::default());
        s
    }

    /// Sets the keys computed from the flows table. Counts of outcomes
    /// (`flows_total`, `flows_completed`, ...) cover every flow: they say
    /// how the run went. Deadline, FCT and slowdown statistics cover the
    /// measured flows (after the warm-up): they are the results; FCT
    /// statistics are over the completed ones among them.
    pub fn measure(&mut self, flows: &[FlowRecord], cfg: &StatsConfig) {
        let measured: Vec<&FlowRecord> = flows.iter().filter(|f| cfg.measures(f)).collect();
        let mut fcts: Vec<f64> = measured.iter().filter_map(|f| f.fct_s).collect();
        let mut slowdowns: Vec<f64> = measured.iter().filter_map(|f| f.slowdown).collect();
        fcts.sort_by(f64::total_cmp);
        slowdowns.sort_by(f64::total_cmp);
        let deadline_flows = measured.iter().filter(|f| f.deadline_s.is_some()).count() as u64;
        let deadline_met = measured.iter().filter(|f| f.met_deadline == Some(true)).count() as u64;
        self.flows_total = flows.len() as u64;
        self.flows_completed = flows.iter().filter(|f| f.fct_s.is_some()).count() as u64;
        self.flows_terminated = flows.iter().filter(|f| f.terminated).count() as u64;
        self.flows_no_path = flows.iter().filter(|f| f.no_path).count() as u64;
        self.deadline_flows = deadline_flows;
        self.deadline_met = deadline_met;
        self.app_throughput = (deadline_flows > 0).then(|| deadline_met as f64 / deadline_flows as f64);
        self.fct_mean_s = mean(&fcts);
        self.fct_p50_s = percentile(&fcts, 50.0);
        self.fct_p99_s = percentile(&fcts, 99.0);
        self.fct_p999_s = percentile(&fcts, 99.9);
        self.fct_max_s = fcts.last().copied();
        self.slowdown_mean = mean(&slowdowns);
        self.slowdown_p99 = percentile(&slowdowns, 99.0);
        self.slowdown_max = slowdowns.last().copied();
        self.warmup_s = cfg.warmup.as_secs_f64();
        self.flows_measured = measured.len() as u64;
        self.size_buckets = size_buckets(flows, cfg);
    }
}

impl RunOutput {
    /// What the `run_toml` / `run_fluid` examples print: the summary, plus
    /// (`--buckets`) each size bucket as an object under `size_buckets`.
    pub fn report_json(&self, with_buckets: bool) -> String {
        let text = if with_buckets {
            let report = serde_json::json!({ "summary": &self.summary, "size_buckets": &self.summary.size_buckets.0 });
            serde_json::to_string_pretty(&report)
        } else {
            serde_json::to_string_pretty(&self.summary)
        };
        text.expect("a summary always serializes")
    }

    /// Recomputes the summary's flow statistics under the scenario's
    /// `[stats]` (warm-up, buckets); the engines summarize with the defaults.
    pub fn apply_stats(&mut self, cfg: &StatsConfig) {
        self.summary.measure(&self.flows, cfg);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn flow(id: u32, fct: Option<f64>, deadline: Option<f64>) -> FlowRecord {
        FlowRecord {
            id,
            src: 1,
            dst: 0,
            size_bytes: 1000,
            start_s: 0.0,
            deadline_s: deadline,
            finish_s: fct,
            fct_s: fct,
            ideal_fct_s: 0.5,
            slowdown: fct.map(|f| f / 0.5),
            met_deadline: deadline.map(|d| fct.is_some_and(|f| f <= d)),
            terminated: false,
            bytes_delivered: if fct.is_some() { 1000 } else { 0 },
            no_path: false,
        }
    }

    #[test]
    fn percentiles_interpolate_like_numpy() {
        let v = [1.0, 2.0, 3.0, 4.0];
        assert_eq!(percentile(&v, 50.0), Some(2.5));
        assert_eq!(percentile(&v, 100.0), Some(4.0));
        assert!((percentile(&v, 99.0).unwrap() - 3.97).abs() < 1e-12);
        assert_eq!(percentile(&[], 50.0), None);
    }

    #[test]
    fn summary_counts_deadlines_and_unfinished_flows() {
        let flows = [flow(0, Some(1.0), Some(2.0)), flow(1, Some(3.0), Some(2.0)), flow(2, None, None)];
        let s = Summary::from_flows(&flows, &RunStats::default());
        assert_eq!((s.flows_total, s.flows_completed, s.deadline_flows, s.deadline_met), (3, 2, 2, 1));
        assert_eq!(s.app_throughput, Some(0.5));
        assert_eq!(s.fct_mean_s, Some(2.0));
        assert_eq!(s.fct_max_s, Some(3.0));
        assert_eq!(s.slowdown_max, Some(6.0));
    }
}
