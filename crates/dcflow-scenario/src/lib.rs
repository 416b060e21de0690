//! The scenario file (the README's scenario reference): one struct tree
//! that both engines read, parsed from JSON (the Python front converts TOML
//! and dicts to JSON) or TOML, with every error naming its key.
//!
//! Parsing goes through `serde_path_to_error`, so a wrong type or unit deep in
//! the tree reports its dotted path (`workload.size.min`); semantic checks that
//! serde cannot express (a host index outside the topology, a non-monotone CDF)
//! are done by each section's own `validate` and prefixed here.

pub mod faults;
pub mod output;
pub mod stats;

use dcflow_core::{ConfigError, Dur, LinkId};
use dcflow_net::{QueueDiscipline, Topology, TopologyConfig, TopologyKind};
use dcflow_proto::tcp::MAX_RTO;
use dcflow_proto::{ProtocolConfig, QueueNeed};
use dcflow_workload::{Context, ExplicitFlow, WorkloadConfig};
use serde::{Deserialize, Serialize};

pub use faults::{FaultEvent, FaultsConfig, LinkChange, LinkState, LossDirection};
pub use output::{utilization, FlowRecord, FlowSample, LinkSample, Monitor, RunEnd, RunOutput, RunStats, RunStatus, Sampled, SeriesRow, Summary};
pub use dcflow_workload::TraceFormat;
pub use stats::{SizeBucket, SizeBuckets, StatsConfig};

/// The dcflow version written into resolved scenarios.
pub const VERSION: &str = env!("CARGO_PKG_VERSION");

#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum Engine {
    #[default]
    Packet,
    Fluid,
}

/// `[monitor]`: time series of link throughput and queue, and per-flow rates.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields, default)]
pub struct MonitorConfig {
    /// Sampling interval.
    pub interval: Dur,
    /// Link names (see `dcflow topo`); "bottleneck" is an alias.
    pub links: Vec<String>,
    /// Also record every flow's delivered rate per interval.
    pub flows: bool,
}

impl Default for MonitorConfig {
    fn default() -> Self {
        MonitorConfig { interval: Dur::us(100), links: vec!["bottleneck".into()], flows: false }
    }
}

/// `[fluid]`: parameters of the flow-level engine's protocol models (rcp, d3),
/// after PDQ §5.5: "an iterative approach to find the equilibrium flow sending
/// rates with a time scale of 1 ms ... [which] also considers protocol
/// inefficiencies like flow initialization time and packet header overhead".
/// The ideal disciplines (fair, srpt, ...) ignore this section.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields, default)]
pub struct FluidConfig {
    /// Period at which the models re-evaluate rates whose inputs drift with
    /// time (D3's desired rate = remaining / time left; PDQ's criticality
    /// keys). Default "1ms" (PDQ §5.5).
    pub equilibrium_interval: Dur,
    /// Header bytes per data packet; the payload per packet is `topology.mtu`
    /// minus this. Default 40 (40 B per 1460 B payload at mtu 1500). PDQ
    /// adds its 16-byte scheduling header (payload 1444 B).
    pub header_bytes: u32,
    /// Extra bytes on the one packet per RTT that carries a D3/RCP rate
    /// request (D3 §5: 22). Default 22.
    pub rate_request_bytes: u32,
    /// Round trips before a new flow's first data: the SYN handshake. Default 1.
    pub handshake_rtts: u32,
    /// When the protocol models recompute rates: "events" (default: at every
    /// arrival, completion and termination, and every `equilibrium_interval`
    /// while inputs drift) or "interval" (only every `equilibrium_interval`: a
    /// new flow waits for the next step, a finished flow's rate idles until
    /// then). PDQ §5.5's "iterative approach ... with a time scale of 1 ms"
    /// reads either way; docs/fidelity-fluid.md measures both.
    pub recompute: Recompute,
}

/// `[fluid] recompute`: see [`FluidConfig::recompute`].
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Recompute {
    #[default]
    Events,
    Interval,
}

impl Default for FluidConfig {
    fn default() -> Self {
        FluidConfig {
            equilibrium_interval: Dur::ms(1),
            header_bytes: 40,
            rate_request_bytes: 22,
            handshake_rtts: 1,
            recompute: Recompute::Events,
        }
    }
}

/// Protocols the packet engine cannot run but the fluid engine can, besides
/// the ideal disciplines: the flow-level models.
pub const FLUID_MODELS: &[&str] = &["rcp", "d3", "pdq"];
/// Every `protocol.name` the fluid engine accepts.
pub const FLUID_PROTOCOLS: &str = "fair, srpt, sjf, edf, fifo, reservation, optimal, s3, merp, rcp, d3, pdq";

fn default_name() -> String {
    "scenario".into()
}
fn default_seed() -> u64 {
    1
}

#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Scenario {
    #[serde(default = "default_name")]
    pub name: String,
    #[serde(default = "default_seed")]
    pub seed: u64,
    #[serde(default)]
    pub engine: Engine,
    /// Limit on simulated time; flows unfinished by then are reported unfinished.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub stop: Option<Dur>,
    /// Stall guard: a run in which flows are running but none delivers a byte
    /// in order or changes state (starts, finishes, terminates) for this long
    /// ends with status "stalled". Unset, [`Scenario::from_toml`] fills in
    /// [`default_stall`] for the protocol.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub stall: Option<Dur>,
    #[serde(default)]
    pub topology: TopologyConfig,
    #[serde(default)]
    pub protocol: ProtocolConfig,
    #[serde(default)]
    pub workload: WorkloadConfig,
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub flows: Vec<ExplicitFlow>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub monitor: Option<MonitorConfig>,
    #[serde(default)]
    pub faults: FaultsConfig,
    #[serde(default)]
    pub fluid: FluidConfig,
    /// Warm-up cut and size buckets of the summary's flow statistics.
    #[serde(default)]
    pub stats: StatsConfig,
}

/// The default `stall` interval: twice the longest time a protocol's sender
/// may legitimately wait without sending, and at least 1 s. TCP's backed-off
/// RTO grows up to 60 s (RFC 6298 §2.5, [`MAX_RTO`]), so the TCP family
/// (tcp, dctcp, d2tcp, lpd, l2dct, pias, karuna) gets 2 minutes: a stall then means about ten
/// consecutive timeouts of every running flow with nothing delivered. The
/// other senders never back off: RCP/D3 and PDQ retransmit or probe within
/// `max(rto_min, 3 RTT)` (rto_min 1 ms by default), pFabric within a few
/// RTTs, and PDQ/D3 flows paused by the switches probe every RTT or few
/// RTTs while a flow they yield to delivers bytes. 1 s is hundreds of those
/// timeouts, and a livelocked run (packets flying, nothing delivered) costs
/// about a second of wall time to detect. The fluid engine's allocations
/// have no timers: the same defaults apply to its flows.
pub fn default_stall(protocol: &ProtocolConfig) -> Dur {
    let longest_wait = match protocol {
        ProtocolConfig::Tcp(_)
        | ProtocolConfig::Dctcp(_)
        | ProtocolConfig::D2tcp(_)
        | ProtocolConfig::Lpd(_)
        | ProtocolConfig::L2dct(_)
        | ProtocolConfig::Pias(_)
        | ProtocolConfig::Karuna(_) => MAX_RTO,
        ProtocolConfig::Rcp(c) | ProtocolConfig::D3(c) => c.rto_min,
        ProtocolConfig::Pdq(c) => c.rto_min,
        _ => Dur::ZERO,
    };
    Dur(longest_wait.0.saturating_mul(2)).max(Dur::secs(1))
}

/// Strip serde_json's " at line L column C" suffix: keys, not positions, matter here.
/// `[protocol]` is one tagged enum, so serde names the section, not the
/// key, of an unknown value (`unknown variant \`foo\`` for `list = "foo"`).
/// The key is the one in the section that holds that value (`name` for an
/// unknown protocol); None when the error is elsewhere or no key holds it.
fn unknown_variant_key(raw: &serde_json::Value, key: &str, msg: &str) -> Option<String> {
    let section = raw.get(key)?.as_object()?;
    let value = msg.strip_prefix("unknown variant `")?.split('`').next()?;
    let mut holders = section.iter().filter(|(_, v)| v.as_str() == Some(value)).map(|(k, _)| k.as_str());
    let found = holders.next()?;
    // Two keys with the same unknown value: name neither wrongly.
    holders.next().is_none().then(|| format!("{key}.{found}"))
}

fn clean(msg: String) -> String {
    let msg = match msg.rfind(" at line ") {
        Some(i) => msg[..i].to_string(),
        None => msg,
    };
    plain_words(&msg)
}

/// serde's messages name Rust types ("expected u32", "expected struct
/// SizeConfig"); a user reads the kind of value the key takes instead.
fn plain_words(msg: &str) -> String {
    const TYPES: &[(&str, &str)] = &[
        ("expected u8", "expected a whole number from 0 to 255"),
        ("expected u16", "expected a whole number from 0 to 65535"),
        ("expected u32", "expected a whole number from 0 to 4294967295"),
        ("expected u64", "expected a whole number from 0 to 18446744073709551615"),
        ("expected usize", "expected a whole number from 0 to 18446744073709551615"),
        ("expected i64", "expected a whole number"),
        ("expected f64", "expected a number"),
        ("expected f32", "expected a number"),
        ("expected a boolean", "expected true or false"),
    ];
    let mut out = msg.to_string();
    for (rust, words) in TYPES {
        if let Some(i) = out.find(rust).filter(|&i| !out[i + rust.len()..].starts_with(char::is_alphanumeric)) {
            out.replace_range(i..i + rust.len(), words);
        }
    }
    for (rust, words) in [("expected struct ", "expected a table of keys"), ("expected enum ", "expected one of the documented names")] {
        if let Some(i) = out.find(rust) {
            let end = out[i + rust.len()..].find(|c: char| !c.is_alphanumeric() && c != '_').map_or(out.len(), |e| i + rust.len() + e);
            out.replace_range(i..end, words);
        }
    }
    out
}

/// The memory a run needs per flow, measured at 1,000,000 flows
/// (BENCHMARKS.md, "Memory per flow"): the flow-level engine keeps its
/// struct-of-arrays state; the packet engine a flow's paths and outcome,
/// its sender and receiver only while the flow is active. A run whose flows
/// are all active at once (a million-sender incast) needs more; the guard
/// refuses only what cannot fit even at this rate.
fn bytes_per_flow(engine: Engine) -> u64 {
    match engine {
        Engine::Packet => 600,
        Engine::Fluid => 420,
    }
}

/// Memory one time-series row takes until it is written: the row in Rust
/// (about 200 B with its name) and its 15 cells as Python objects in the
/// columns handed to pyarrow (about 30 B each).
const BYTES_PER_SAMPLE: u64 = 650;

/// The machine's memory (Linux: /proc/meminfo's MemTotal), if known.
fn machine_memory() -> Option<u64> {
    let info = std::fs::read_to_string("/proc/meminfo").ok()?;
    let line = info.lines().find(|l| l.starts_with("MemTotal:"))?;
    let kb: u64 = line.split_whitespace().nth(1)?.parse().ok()?;
    Some(kb * 1024)
}

impl Scenario {
    /// Parse and validate a scenario given as JSON (the Python front's format).
    pub fn from_json(text: &str) -> Result<Scenario, ConfigError> {
        let raw: serde_json::Value = serde_json::from_str(text)
            .map_err(|e| ConfigError::new("scenario", format!("not valid JSON: {e}")))?;
        Self::from_value(raw)
    }

    /// Parse and validate a scenario given as TOML text.
    pub fn from_toml(text: &str) -> Result<Scenario, ConfigError> {
        let raw: serde_json::Value = toml::from_str(text)
            .map_err(|e| ConfigError::new("scenario", format!("not valid TOML: {}", e.message())))?;
        Self::from_value(raw)
    }

    fn from_value(raw: serde_json::Value) -> Result<Scenario, ConfigError> {
        if !raw.is_object() {
            return Err(ConfigError::new("scenario", "must be a table of keys"));
        }
        let queue_given = raw.pointer("/topology/queue").is_some();
        let merp_rates_given = ["/protocol/alpha", "/protocol/theta"].iter().any(|k| raw.pointer(k).is_some());
        let mut s: Scenario = serde_path_to_error::deserialize(&raw).map_err(|e| {
            let key = e.path().to_string();
            let key = if key == "." { "scenario".to_string() } else { key };
            let msg = clean(e.into_inner().to_string());
            let key = unknown_variant_key(&raw, &key, &msg).unwrap_or(key);
            ConfigError::new(key, msg)
        })?;
        if !queue_given {
            s.topology.queue = match s.protocol.default_queue() {
                QueueNeed::DropTail => QueueDiscipline::DropTail,
                QueueNeed::Ecn => QueueDiscipline::Ecn,
                QueueNeed::Pfabric => QueueDiscipline::Pfabric,
                QueueNeed::PriorityPushout(classes) => {
                    s.topology.priority_classes = s.topology.priority_classes.or(Some(classes));
                    QueueDiscipline::PriorityPushout
                }
                QueueNeed::PriorityEcn(classes) => {
                    s.topology.priority_classes = s.topology.priority_classes.or(Some(classes));
                    s.topology.ecn_threshold = Some(s.topology.ecn_threshold_or_default());
                    QueueDiscipline::Priority
                }
                QueueNeed::Priority(classes) => {
                    s.topology.priority_classes = s.topology.priority_classes.or(Some(classes));
                    QueueDiscipline::Priority
                }
            };
        }
        s.validate()?;
        if let (dcflow_proto::ProtocolConfig::Merp(m), true) = (&s.protocol, merp_rates_given) {
            m.check_theta_bound(s.topology.link_rate).map_err(|e| e.within("protocol"))?;
        }
        s.stall = Some(s.stall.unwrap_or_else(|| default_stall(&s.protocol)));
        let topo = s.build_topology()?;
        s.workload = s.workload.resolved(&s.flows, &s.workload_context(&topo))?;
        s.topology = s.topology.resolved();
        s.check_monitor_memory(&topo)?;
        if let Some(m) = s.monitor.as_ref().filter(|_| s.faults.links.is_empty() && s.faults.loss > 0.0) {
            s.faults.links = m.links.clone();
        }
        Ok(s)
    }

    fn validate(&self) -> Result<(), ConfigError> {
        self.check_engine_runs_protocol()?;
        if let Some(stop) = self.stop {
            dcflow_core::ensure(stop > Dur::ZERO, "stop", "must be a positive time like \"2s\"")?;
        }
        if let Some(stall) = self.stall {
            dcflow_core::ensure(stall > Dur::ZERO, "stall", "must be a positive time like \"1s\"")?;
        }
        self.topology.validate().map_err(|e| e.within("topology"))?;
        self.protocol.validate().map_err(|e| e.within("protocol"))?;
        self.check_priority_classes()?;
        self.check_flow_types()?;
        let topo = self.build_topology()?;
        self.workload.validate(&self.flows, &self.workload_context(&topo))?;
        if let (Some(n), Some(memory)) = (self.workload.flows, machine_memory()) {
            let per_flow = bytes_per_flow(self.engine);
            let needed = n as u64 * per_flow;
            dcflow_core::ensure(
                needed <= memory,
                "workload.flows",
                format!(
                    "{n} flows need at least {:.1} GB of memory ({per_flow} B a flow) and this machine has {:.1} GB",
                    needed as f64 / 1e9,
                    memory as f64 / 1e9
                ),
            )?;
        }
        if let Some(m) = &self.monitor {
            dcflow_core::ensure(m.interval > Dur::ZERO, "monitor.interval", "must be a positive time")?;
            for (i, name) in m.links.iter().enumerate() {
                Self::check_link(&topo, name, &format!("monitor.links[{i}]"))?;
            }
        }
        dcflow_core::ensure(
            (0.0..1.0).contains(&self.faults.loss),
            "faults.loss",
            "must be a probability in [0, 1)",
        )?;
        for (i, name) in self.faults.links.iter().enumerate() {
            Self::check_link(&topo, name, &format!("faults.links[{i}]"))?;
        }
        self.faults.link_changes(&topo, self.stop)?;
        self.stats.validate().map_err(|e| e.within("stats"))?;
        self.check_routing(&topo)
    }

    /// A monitor samples every interval until the run ends: a tiny
    /// interval ("1ps") would fill the memory, and it is refused here, with
    /// the number of samples it would take at least. The run lasts at least
    /// until every flow could have finished alone at its host's link rate
    /// (or until `stop`); each monitored link gives a row per interval
    /// of that, and each monitored flow one per interval it runs.
    fn check_monitor_memory(&self, topo: &Topology) -> Result<(), ConfigError> {
        let (Some(m), Some(memory)) = (&self.monitor, machine_memory()) else { return Ok(()) };
        let flows = self.flow_specs(topo)?;
        let rate = self.topology.link_rate.as_bps_f64();
        let alone = |f: &dcflow_workload::FlowSpec| f.size.0 as f64 * 8.0 / rate;
        let busy = flows.iter().map(|f| f.start.as_secs_f64() + alone(f)).fold(0.0, f64::max);
        let horizon = self.stop.map_or(busy, |stop| busy.min(stop.as_secs_f64()));
        let interval = m.interval.as_secs_f64();
        let mut samples = m.links.len() as f64 * (horizon / interval).floor();
        if m.flows {
            samples += flows.iter().map(|f| (alone(f).min(horizon) / interval).floor()).sum::<f64>();
        }
        let needed = samples * BYTES_PER_SAMPLE as f64;
        dcflow_core::ensure(
            needed <= memory as f64,
            "monitor.interval",
            format!(
                "\"{}\" would record at least {samples:.3e} samples over {horizon:.3e} s of simulated time, \
                 {:.1} GB of memory ({BYTES_PER_SAMPLE} B a sample), and this machine has {:.1} GB; \
                 use a longer interval, fewer monitored links or flows, or a stop",
                m.interval,
                needed / 1e9,
                memory as f64 / 1e9
            ),
        )
    }

    /// An adaptive policy needs paths to choose among (and CONGA a leaf
    /// per host); the fluid engine models neither per-packet path choice
    /// nor failures.
    fn check_routing(&self, topo: &Topology) -> Result<(), ConfigError> {
        let mode = self.topology.routing;
        if self.engine == Engine::Fluid {
            dcflow_core::ensure(!mode.adaptive(), "topology.routing", format!("\"{}\" is packet-engine only; with engine = \"fluid\" it is \"ecmp\" or \"single\"", mode.as_str()))?;
            dcflow_core::ensure(self.faults.events.is_empty(), "faults.events", "timed failures are packet-engine only; remove them or set engine = \"packet\"")?;
        }
        let merp = matches!(self.protocol, dcflow_proto::ProtocolConfig::Merp(_));
        dcflow_core::ensure(
            mode != dcflow_net::RoutingMode::Memr || merp,
            "topology.routing",
            format!("\"memr\" is MERP's route control and reads MERP's switch tables; it needs protocol.name = \"merp\", not {:?}", self.protocol.name()),
        )?;
        if !mode.adaptive() {
            return Ok(());
        }
        let routes = dcflow_net::Routes::new(topo, mode, self.seed);
        dcflow_core::ensure(
            routes.has_multipath(topo.hosts),
            "topology.routing",
            format!("\"{}\" needs a topology with several equal-cost paths (leaf_spine, fat_tree, bcube, jellyfish, custom); kind \"{}\" has one path per host pair, use \"ecmp\"", mode.as_str(), self.topology.kind.as_str()),
        )?;
        dcflow_core::ensure(
            mode != dcflow_net::RoutingMode::Conga || dcflow_net::Conga::new(topo, self.topology.routing_params().conga).is_some(),
            "topology.routing",
            "\"conga\" needs every host under one leaf switch (one link per host), not bcube's multi-homed servers",
        )
    }

    /// Ideal disciplines are fluid-only; packet-level transports (tcp, dctcp,
    /// pfabric) are packet-only; rcp, d3, pdq and s3 run on both.
    fn check_engine_runs_protocol(&self) -> Result<(), ConfigError> {
        let name = self.protocol.name();
        match self.engine {
            Engine::Packet if !self.protocol.runs_on_packets() => Err(ConfigError::new(
                "protocol.name",
                format!("{name:?} is an ideal discipline of the flow-level engine; set engine = \"fluid\""),
            )),
            Engine::Fluid if self.protocol.discipline().is_none() && !FLUID_MODELS.contains(&name) => {
                Err(ConfigError::new(
                    "engine",
                    format!("the fluid engine does not model {name:?}; with engine = \"fluid\", protocol.name is one of: {FLUID_PROTOCOLS}"),
                ))
            }
            Engine::Fluid => {
                if let dcflow_proto::ProtocolConfig::Pdq(p) = &self.protocol {
                    p.validate_flow_level().map_err(|e| e.within("protocol"))?;
                }
                let f = &self.fluid;
                dcflow_core::ensure(f.equilibrium_interval > Dur::ZERO, "fluid.equilibrium_interval", "must be a positive time (PDQ §5.5: \"1ms\")")?;
                dcflow_core::ensure(
                    f.recompute == Recompute::Events || self.protocol.discipline().is_none(),
                    "fluid.recompute",
                    format!("must be \"events\" with the ideal discipline {name:?} (a zero-delay scheduler); \"interval\" applies to rcp, d3 and pdq"),
                )?;
                dcflow_core::ensure(f.header_bytes < self.topology.mtu, "fluid.header_bytes", "must be smaller than topology.mtu (default 40)")
            }
            Engine::Packet => Ok(()),
        }
    }

    /// TCP_pr's, PIAS' and Karuna's classes need a strict-priority queue
    /// with as many classes: any other queue would ignore them without a word.
    fn check_priority_classes(&self) -> Result<(), ConfigError> {
        use dcflow_proto::ProtocolConfig::{Karuna, Pias, Tcp};
        let needed = self.protocol.priority_classes();
        let (key, why) = match &self.protocol {
            Tcp(_) => ("protocol.priority_deadlines", "one per threshold, one for later deadlines, one for flows without"),
            Pias(_) => ("protocol.thresholds", "one per threshold and one below the last"),
            Karuna(_) => ("protocol.thresholds", "the deadline class, then one per threshold and one below the last"),
            _ => return Ok(()),
        };
        if needed == 1 {
            return Ok(());
        }
        let t = &self.topology;
        let have = (t.queue == dcflow_net::QueueDiscipline::Priority).then(|| t.priority_classes_or_default() as usize);
        dcflow_core::ensure(
            have.is_some_and(|c| c >= needed),
            key,
            format!("needs topology.queue = \"priority\" with at least {needed} priority_classes ({why})"),
        )
    }

    /// Karuna's types 2 and 3 are defined by `workload.known_size_fraction`
    /// (type 1 by `workload.deadline`): Karuna needs it, and no other
    /// protocol reads it.
    fn check_flow_types(&self) -> Result<(), ConfigError> {
        let karuna = matches!(self.protocol, dcflow_proto::ProtocolConfig::Karuna(_));
        let given = self.workload.known_size_fraction.is_some();
        dcflow_core::ensure(
            !karuna || given,
            "workload.known_size_fraction",
            "is required by protocol.name = \"karuna\": the share of flows without a deadline whose size the sender knows (type 2), in [0, 1]",
        )?;
        dcflow_core::ensure(
            karuna || !given,
            "workload.known_size_fraction",
            format!("is only read by protocol.name = \"karuna\" (its type-2 flows), not {:?}", self.protocol.name()),
        )
    }

    fn check_link(topo: &Topology, name: &str, key: &str) -> Result<(), ConfigError> {
        match topo.link_by_name(name) {
            Some(_) => Ok(()),
            None => Err(ConfigError::new(
                key,
                format!("no link named {name:?}; `dcflow topo` lists the link names (\"bottleneck\" is an alias)"),
            )),
        }
    }

    /// The stall guard's interval (`stall`, or the protocol's default).
    pub fn stall_interval(&self) -> Dur {
        self.stall.unwrap_or_else(|| default_stall(&self.protocol))
    }

    /// The links the summary's utilization measures: the monitored ones,
    /// else the bottleneck; each with its name in the topology (an alias
    /// such as "bottleneck" resolved), the one name the summary and the
    /// time series use.
    pub fn measured_links(&self, topo: &Topology) -> Vec<(LinkId, String)> {
        let names = match &self.monitor {
            Some(m) if !m.links.is_empty() => m.links.clone(),
            _ => vec!["bottleneck".to_string()],
        };
        names.into_iter().filter_map(|n| topo.link_by_name(&n)).map(|l| (l, topo.links[l as usize].name.clone())).collect()
    }

    pub fn build_topology(&self) -> Result<Topology, ConfigError> {
        Topology::build(&self.topology, self.seed).map_err(|e| e.within("topology"))
    }

    /// What the workload generator needs to know of the topology: host count,
    /// access-link rate (for `load`) and rack size (for `staggered`).
    pub fn workload_context(&self, topo: &Topology) -> Context {
        let t = self.topology.resolved();
        let hosts_per_rack = match t.kind {
            TopologyKind::Tree => t.hosts_per_rack,
            TopologyKind::LeafSpine => t.hosts_per_leaf,
            TopologyKind::FatTree => t.k.map(|k| k / 2),
            TopologyKind::Jellyfish => t.hosts_per_switch,
            _ => None,
        };
        Context {
            hosts: topo.hosts,
            host_link_rate: t.link_rate,
            hosts_per_rack: hosts_per_rack.map(|h| h as usize),
        }
    }

    /// The workload's flows, explicit or generated.
    pub fn flow_specs(&self, topo: &Topology) -> Result<Vec<dcflow_workload::FlowSpec>, ConfigError> {
        dcflow_workload::generate(&self.workload, &self.flows, &self.workload_context(topo), self.seed)
    }

    /// The flows a run of this scenario simulates, as a flow file in
    /// `format` (`dcflow export`): what replays them here (`csv`) or in
    /// another simulator. The error key is `--format` when the format cannot
    /// carry the flows.
    pub fn export_flows(&self, format: dcflow_workload::TraceFormat) -> Result<String, ConfigError> {
        let topo = self.build_topology()?;
        let flows = self.flow_specs(&topo)?;
        dcflow_workload::format_flows(&flows, format, topo.hosts).map_err(|m| ConfigError::new("--format", m))
    }

    pub fn to_json(&self) -> String {
        serde_json::to_string_pretty(self).expect("a scenario always serializes")
    }

    /// The resolved scenario as TOML, headed by the dcflow version.
    pub fn to_toml(&self) -> String {
        let body = toml::to_string(self).expect("a scenario always serializes to TOML");
        format!("# resolved by dcflow {VERSION}: every default filled in\n{body}")
    }
}

#[cfg(test)]
mod tests;
