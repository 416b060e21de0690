//! The packet-vs-flow-level agreement matrix: every packet protocol with a
//! flow-level counterpart ([`PAIRS`]) runs the same flows on both engines
//! ([`scenarios`]: three topologies, three loads, web-search and capped
//! data-mining sizes), and each cell reports packet over flow level: mean
//! FCT over the flows that completed in both, mean slowdown per size bucket,
//! MERP's largest expansion ratio and the deadline protocols' deadlines met.
//! A cell fails when a ratio is over its pair's bound; docs/stress.md
//! ("Agreement with the flow level") justifies the bounds.

use crate::matrix::{self, Fabric, Protocol, StressScenario};
use crate::{checks, fair_makespan, guarded, parse, run_grid, Cell};
use dcflow_core::Dur;
use dcflow_scenario::{FlowRecord, RunOutput, RunStats, Summary};

/// RCP_dc's and D3's mean FCT over ideal max-min fair sharing (`fair`): at
/// most 15% more. What the packet protocols pay and `fair` does not: 40 B
/// of headers per 1460 B (2.7%), a handshake RTT before the first data
/// byte, an RTT for each new rate to reach the sender, and a packet time of
/// store-and-forward per hop.
pub const FAIR_BOUND: f64 = 1.15;
/// PDQ's and pFabric's mean FCT over ideal SRPT (`srpt`), and PDQ's with
/// deadlines over its flow-level model (`pdq`): at most 25% more. The same
/// costs as [`FAIR_BOUND`], and an RTT per switch-over: one flow at a time
/// per link means the rate changes at every flow's end, not once per flow.
pub const SRPT_BOUND: f64 = 1.25;
/// pHost's mean FCT over ideal SRPT: at most 50% more. Besides
/// [`SRPT_BOUND`]'s costs, each destination runs SRPT over its own inbound
/// flows only: a source with flows to several destinations answers one,
/// the others' tokens expire, and their destinations downgrade it for 25
/// MTU times (pHost §3); and destinations token without seeing the core, so
/// on the oversubscribed tree (3:1) data queues and drops there (pHost
/// assumes a full-bisection fabric, §2). Measured: 1.25-1.29 on the k = 4
/// fat-tree (full bisection), 1.28-1.47 on the 2:1 leaf-spine, 1.4-2.0 on
/// the tree, whose cells fail.
pub const PHOST_BOUND: f64 = 1.5;
/// S3's and MERP's mean FCT over their ideal orders on the fluid engine
/// (`s3`: FILTER + SLACK; `merp`: virtual deadlines): at most 25% more, for
/// the reasons of [`SRPT_BOUND`].
pub const ORDER_BOUND: f64 = 1.25;
/// MERP's largest expansion ratio (slowdown) over its fluid order's: at most
/// 2x. The largest ratio belongs to one short flow, whose packet FCT carries
/// the whole handshake and switch-over RTTs that a long flow amortizes.
pub const EXPANSION_BOUND: f64 = 2.0;

/// One packet protocol and its flow-level counterpart.
#[derive(Debug)]
pub struct Pair {
    /// Its name in the table (`--protocols` with `--agreement`).
    pub label: &'static str,
    /// The packet protocol: a label of [`matrix::PROTOCOLS`].
    pub packet: &'static str,
    /// The fluid engine's `protocol.name`.
    pub fluid: &'static str,
    /// Whether the flows carry D3's deadlines ([`matrix::DEADLINES`]).
    pub deadlines: bool,
    /// Largest packet / flow-level mean FCT; `None`: report only.
    pub fct_bound: Option<f64>,
    /// Largest packet / flow-level largest expansion ratio, if bounded.
    pub expansion_bound: Option<f64>,
}

impl Pair {
    /// The packet protocol's keys and retransmission timeout.
    pub fn protocol(&self) -> &'static Protocol {
        matrix::protocol_named(self.packet).unwrap_or_else(|| panic!("pair {}: no protocol {}", self.label, self.packet))
    }
}

const fn pair(label: &'static str, packet: &'static str, fluid: &'static str, deadlines: bool, fct_bound: Option<f64>) -> Pair {
    Pair { label, packet, fluid, deadlines, fct_bound, expansion_bound: None }
}

/// Every pair, in table order. D3 runs without deadlines (its rate
/// requests are then RCP_dc's); DCTCP and TCP against `fair` are a
/// reference for the table, not held to a bound.
pub const PAIRS: &[Pair] = &[
    pair("rcp", "rcp", "fair", false, Some(FAIR_BOUND)),
    pair("d3", "d3", "fair", false, Some(FAIR_BOUND)),
    pair("pdq", "pdq-full", "srpt", false, Some(SRPT_BOUND)),
    pair("pfabric", "pfabric", "srpt", false, Some(SRPT_BOUND)),
    pair("phost", "phost", "srpt", false, Some(PHOST_BOUND)),
    pair("pdq-deadline", "pdq-full", "pdq", true, Some(SRPT_BOUND)),
    pair("s3", "s3", "s3", true, Some(ORDER_BOUND)),
    Pair { expansion_bound: Some(EXPANSION_BOUND), ..pair("merp", "merp", "merp", false, Some(ORDER_BOUND)) },
    pair("dctcp", "dctcp", "fair", false, None),
    // PIAS imitates SJF without knowing sizes: a non-clairvoyant scheduler
    // has no constant bound against SRPT (docs/stress.md, "Pairs").
    pair("pias", "pias", "srpt", false, None),
    pair("tcp", "tcp", "fair", false, None),
];

/// A pair by its label.
pub fn pair_named(label: &str) -> Option<&'static Pair> {
    PAIRS.iter().find(|p| p.label == label)
}

/// Flows per scenario: at web search's mean of 1.67 MB, 500 flows are about
/// 830 MB, 30 to 50 per host, so that hosts carry several flows at once at
/// every load; few enough for the whole matrix in minutes on 2 cores.
pub const FLOWS: u32 = 500;
/// Offered loads of the access links.
pub const LOADS: &[f64] = &[0.3, 0.6, 0.8];
/// The topologies, all with 1 Gbps links.
pub const FABRICS: &[Fabric] = &[Fabric::Tree, Fabric::LeafSpine, Fabric::FatTree];
/// The flow sizes (pFabric's workloads), by label. Data mining is capped at
/// 30 MB, about web search's largest flow (29.2 MB): uncapped, 1% of its
/// flows are 97 MB to 973 MB (mean 7.47 MB), and at 500 flows a handful of
/// them would hold most of the bytes and set the run's length (tens of
/// seconds of packets). Capped, its mean is 1.45 MB and its shape below
/// 30 MB, half the flows one packet, is kept.
pub const SIZES: &[(&str, &str)] = &[
    ("web_search", "size = { dist = \"cdf\", name = \"web_search\" }"),
    ("data_mining", "size = { dist = \"cdf\", name = \"data_mining\", max = \"30MB\" }"),
];

/// One row block of the table: the same flows without and with deadlines.
#[derive(Clone, Debug)]
pub struct AgreementScenario {
    pub label: String,
    pub plain: StressScenario,
    /// The same flows (sizes and arrivals are drawn apart from deadlines)
    /// with D3's deadlines, for the pairs that use them.
    pub deadline: StressScenario,
}

impl AgreementScenario {
    fn flows_for(&self, pair: &Pair) -> &StressScenario {
        if pair.deadlines {
            &self.deadline
        } else {
            &self.plain
        }
    }
}

/// [`FLOWS`] Poisson all-to-all flows on `fabric` at `load`, sizes `size`
/// (an entry of [`SIZES`]).
pub fn scenario(fabric: Fabric, load: f64, (sizes, size): (&str, &str)) -> AgreementScenario {
    let label = format!("{}-{load}-{sizes}", fabric.label());
    let sections = matrix::all_to_all(fabric, load, FLOWS, size);
    let flows = |label: String, sections: String| StressScenario { label, sections, events: String::new() };
    AgreementScenario {
        plain: flows(label.clone(), sections.clone()),
        deadline: flows(format!("{label}-deadline"), format!("{sections}{}\n", matrix::DEADLINES)),
        label,
    }
}

/// Every scenario of the agreement matrix, in table order.
pub fn scenarios() -> Vec<AgreementScenario> {
    FABRICS
        .iter()
        .flat_map(|&fabric| SIZES.iter().flat_map(move |&size| LOADS.iter().map(move |&load| scenario(fabric, load, size))))
        .collect()
}

/// A value on the packet engine and on the flow level.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Both {
    pub packet: f64,
    pub fluid: f64,
}

impl Both {
    /// Packet over flow level.
    pub fn ratio(self) -> f64 {
        self.packet / self.fluid
    }

    fn of(packet: Option<f64>, fluid: Option<f64>) -> Option<Both> {
        Some(Both { packet: packet?, fluid: fluid? })
    }
}

/// One cell: a pair on a scenario.
#[derive(Clone, Debug)]
pub struct AgreementCell {
    pub pair: &'static Pair,
    pub scenario: String,
    pub flows: u64,
    /// Completed flows: packet, flow level, both.
    pub completed: (u64, u64, u64),
    /// Mean FCT (milliseconds) over the flows completed in both.
    pub fct_mean_ms: Option<Both>,
    /// Mean slowdown per size bucket (label, value) over the same flows,
    /// each engine's slowdown over its own ideal FCT (docs/outputs.md).
    pub slowdown: Vec<(String, Option<Both>)>,
    /// The largest slowdown over the same flows (MERP's expansion ratio),
    /// for pairs with an expansion bound.
    pub expansion: Option<Both>,
    /// Application throughput over every flow, for the deadline pairs.
    pub deadline_met: Option<Both>,
    /// Every exceeded bound or failed run, one line each.
    pub failures: Vec<String>,
}

impl Cell for AgreementCell {
    fn label(&self) -> &str {
        self.pair.label
    }
    fn scenario(&self) -> &str {
        &self.scenario
    }
    fn failures(&self) -> &[String] {
        &self.failures
    }
}

/// Run `pair` on `scenario` on both engines and compare. The packet run is
/// stopped at the stress matrix's end bound for these flows
/// ([`checks::end_bound`], from the `fair` makespan): a flow still open
/// then fails the cell, as the mean over flows completed in both would
/// otherwise leave it out.
pub fn run_cell(pair: &'static Pair, scenario: &AgreementScenario, makespan: Dur) -> AgreementCell {
    let flows = scenario.flows_for(pair);
    let stop = checks::end_bound(makespan, pair.protocol());
    let packet = parse(&flows.packet_toml(pair.protocol(), stop));
    let fluid = parse(&flows.fluid_toml(&format!("name = \"{}\"", pair.fluid)));
    let mut cell = AgreementCell::new(pair, scenario.label.clone());
    match guarded(|| Ok((dcflow_packet::run(&packet)?, dcflow_fluid::run(&fluid)?))) {
        Err(failure) => cell.failures.push(failure),
        Ok((p, f)) => cell.compare(&p, &f, stop),
    }
    cell
}

impl AgreementCell {
    /// The cell before its runs: nothing measured, nothing failed.
    fn new(pair: &'static Pair, scenario: String) -> AgreementCell {
        AgreementCell {
            pair,
            scenario,
            flows: 0,
            completed: (0, 0, 0),
            fct_mean_ms: None,
            slowdown: Vec::new(),
            expansion: None,
            deadline_met: None,
            failures: Vec::new(),
        }
    }

    /// Fill in the metrics from the two runs and check the bounds.
    fn compare(&mut self, packet: &RunOutput, fluid: &RunOutput, stop: Dur) {
        self.flows = packet.summary.flows_total;
        if !same_flows(&packet.flows, &fluid.flows) {
            self.failures.push("the engines ran different flows".into());
            return;
        }
        let open = packet.flows.iter().filter(|f| f.finish_s.is_none() && !f.terminated).count();
        if open > 0 {
            self.failures.push(format!(
                "{open} packet flows still open at the stop ({:.1} ms, the stress matrix's end bound; run {})",
                stop.as_secs_f64() * 1e3,
                format!("{:?}", packet.summary.status).to_lowercase()
            ));
        }
        let (p, f) = (completed_in_both(packet, fluid), completed_in_both(fluid, packet));
        let (ps, fs) = (Summary::from_flows(&p, &RunStats::default()), Summary::from_flows(&f, &RunStats::default()));
        self.completed = (packet.summary.flows_completed, fluid.summary.flows_completed, p.len() as u64);
        let ms = |s: Option<f64>| s.map(|s| s * 1e3);
        self.fct_mean_ms = Both::of(ms(ps.fct_mean_s), ms(fs.fct_mean_s));
        let buckets = ps.size_buckets.0.iter().zip(&fs.size_buckets.0);
        self.slowdown = buckets.map(|(a, b)| (a.label.clone(), Both::of(a.slowdown_mean, b.slowdown_mean))).collect();
        self.expansion = self.pair.expansion_bound.and(Both::of(ps.slowdown_max, fs.slowdown_max));
        if self.pair.deadlines {
            self.deadline_met = Both::of(packet.summary.app_throughput, fluid.summary.app_throughput);
        }
        if p.is_empty() {
            self.failures.push("no flow completed in both engines".into());
        }
        self.check("mean FCT (ms)", self.fct_mean_ms, self.pair.fct_bound);
        self.check("largest expansion ratio", self.expansion, self.pair.expansion_bound);
    }

    fn check(&mut self, what: &str, value: Option<Both>, bound: Option<f64>) {
        if let (Some(v), Some(bound)) = (value, bound) {
            if v.ratio() > bound {
                self.failures.push(format!(
                    "{what}: packet {:.2} / flow level {:.2} = {:.2} > {bound}",
                    v.packet,
                    v.fluid,
                    v.ratio()
                ));
            }
        }
    }
}

/// Both engines generated the same flows: ids, endpoints, sizes, starts and
/// deadlines.
fn same_flows(a: &[FlowRecord], b: &[FlowRecord]) -> bool {
    let key = |f: &FlowRecord| (f.id, f.src, f.dst, f.size_bytes, f.start_s, f.deadline_s);
    a.len() == b.len() && a.iter().zip(b).all(|(x, y)| key(x) == key(y))
}

/// The flows of `out` that completed there and in `other` (flows tables are
/// in id order on both engines).
fn completed_in_both(out: &RunOutput, other: &RunOutput) -> Vec<FlowRecord> {
    out.flows.iter().zip(&other.flows).filter(|(a, b)| a.fct_s.is_some() && b.fct_s.is_some()).map(|(a, _)| a.clone()).collect()
}

/// Every `pair × scenario` cell, on `threads` worker threads, in table
/// order; `progress` is told of each cell as it ends.
pub fn run_matrix(
    pairs: &[&'static Pair],
    scenarios: &[AgreementScenario],
    threads: usize,
    progress: &(dyn Fn(usize, usize, &AgreementCell) + Sync),
) -> Vec<AgreementCell> {
    run_grid(scenarios, pairs, threads, &|s| fair_makespan(&s.plain), &|&p, s, &makespan| run_cell(p, s, makespan), progress)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::testing::{flow, output};

    /// Every pair names a packet protocol of the stress matrix and a
    /// protocol the fluid engine runs, on flows it accepts.
    #[test]
    fn every_pair_and_scenario_parses_on_both_engines() {
        let s = scenario(Fabric::LeafSpine, 0.6, SIZES[1]);
        for p in PAIRS {
            parse(&s.flows_for(p).packet_toml(p.protocol(), Dur::ms(1)));
            parse(&s.flows_for(p).fluid_toml(&format!("name = \"{}\"", p.fluid)));
        }
        assert_eq!(scenarios().len(), FABRICS.len() * LOADS.len() * SIZES.len());
    }

    /// The mean FCT covers the flows completed in both engines; a packet
    /// flow still open at the stop, and flows that differ, fail the cell.
    #[test]
    fn a_cell_compares_the_flows_completed_in_both() {
        let rcp = pair_named("rcp").unwrap();
        let packet = output(vec![flow(0, Some(0.002), 100_000, false), flow(1, Some(0.004), 100_000, false), flow(2, None, 0, false)], 0);
        let fluid = output((0..3).map(|i| flow(i, Some(0.001 * (i + 1) as f64), 100_000, false)).collect(), 0);
        let mut c = AgreementCell::new(rcp, "s".into());
        c.compare(&packet, &fluid, Dur::ms(10));
        assert_eq!(c.completed, (2, 3, 2));
        assert_eq!(c.fct_mean_ms, Some(Both { packet: 3.0, fluid: 1.5 }));
        assert_eq!(c.slowdown[0], ("<=100KB".to_string(), Some(Both { packet: 3.0, fluid: 1.5 })));
        assert_eq!(
            c.failures,
            [
                "1 packet flows still open at the stop (10.0 ms, the stress matrix's end bound; run completed)",
                "mean FCT (ms): packet 3.00 / flow level 1.50 = 2.00 > 1.15"
            ]
        );
        let mut other = fluid.flows.clone();
        other[1].size_bytes += 1;
        let mut c = AgreementCell::new(rcp, "s".into());
        c.compare(&packet, &output(other, 0), Dur::ms(10));
        assert_eq!(c.failures, ["the engines ran different flows"]);
    }

    /// A ratio over the bound fails the cell; one at or under it, or a
    /// report-only pair, does not.
    #[test]
    fn a_cell_fails_only_over_its_bound() {
        let rcp = pair_named("rcp").unwrap();
        let mut c = AgreementCell::new(rcp, "s".into());
        c.check("mean FCT", Some(Both { packet: 1.15, fluid: 1.0 }), rcp.fct_bound);
        assert!(c.failures.is_empty());
        c.check("mean FCT", Some(Both { packet: 1.2, fluid: 1.0 }), rcp.fct_bound);
        assert_eq!(c.failures, ["mean FCT: packet 1.20 / flow level 1.00 = 1.20 > 1.15"]);
        let tcp = pair_named("tcp").unwrap();
        let mut c = AgreementCell::new(tcp, "s".into());
        c.check("mean FCT", Some(Both { packet: 9.0, fluid: 1.0 }), tcp.fct_bound);
        assert!(c.failures.is_empty(), "report only");
    }
}
