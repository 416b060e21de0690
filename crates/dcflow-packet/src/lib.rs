//! dcflow-packet: the packet-level engine. `run` takes a validated scenario and
//! returns the flows table, the summary and the monitored time series.

mod arena;
mod departures;
mod endpoints;
mod faults;
mod flows;
mod hosts;
mod monitor;
mod paths;
mod router;
mod sim;

use dcflow_core::{mix64, ConfigError, Dur, LinkId, Time};
use dcflow_net::Routes;
use dcflow_proto::pdq::{PathInfo, SubflowPaths};
use dcflow_proto::{FlowInfo, ProtocolConfig, HEADER_BYTES};
use dcflow_scenario::{FaultsConfig, FlowRecord, Monitor, RunEnd, RunOutput, RunStats, RunStatus, Scenario, Summary};
use flows::{base_rtt, ideal_fct, ideal_fct_multipath, FlowState};
use paths::PathTable;
use sim::Sim;
use std::time::Instant;

pub use flows::ideal_fct as ideal_fct_on_path;

/// Simulate `scenario` with the packet engine.
pub fn run(scenario: &Scenario) -> Result<RunOutput, ConfigError> {
    run_audited(scenario).map(|(out, _)| out)
}

/// As [`run`], and also check the switch agents' soft state at the end of
/// the run against the flows that still exist (e.g. D3's counters N, D, A
/// equal the sums over the flows each port carries). Returns the violations
/// found, one line each; the stress matrix and the tests assert there are none.
pub fn run_audited(scenario: &Scenario) -> Result<(RunOutput, Vec<String>), ConfigError> {
    let wall = Instant::now();
    let topo = scenario.build_topology()?;
    let specs = scenario.flow_specs(&topo)?;
    let routes = Routes::new(&topo, scenario.topology.routing, scenario.seed);
    let mss = topo.mtu - HEADER_BYTES;
    // M-PDQ (PDQ §6): subflows per flow, each on its own path.
    let (subflows, subflow_paths) = match &scenario.protocol {
        ProtocolConfig::Pdq(c) => (c.subflows as usize, c.subflow_paths),
        _ => (1, SubflowPaths::Parallel),
    };
    let adaptive = scenario.topology.routing.adaptive();
    let retrace = |p: &[LinkId]| -> Vec<LinkId> { p.iter().rev().map(|&l| topo.reverse(l)).collect() };
    let mut paths = PathTable::default();
    let flows: Vec<FlowState> = specs
        .into_iter()
        .map(|spec| {
            // Per-flow ECMP hash, salted by the seed (docs/architecture.md rule 5).
            let hash = mix64(scenario.seed ^ mix64(spec.id as u64));
            let multi = subflow_paths_of(&routes, spec.src, spec.dst, subflows, subflow_paths, hash);
            let fwd = if multi.is_empty() { routes.path(spec.src, spec.dst, hash) } else { multi[0].clone() };
            let rev = if scenario.protocol.symmetric_paths() {
                // ACKs retrace the data path (PDQ's reverse-path acceptance).
                retrace(&fwd)
            } else {
                routes.path(spec.dst, spec.src, hash)
            };
            let extra_routes: Vec<[u32; 2]> =
                multi.iter().skip(1).map(|p| [paths.intern(p), paths.intern(&retrace(p))]).collect();
            let path_info: Vec<PathInfo> = multi
                .iter()
                .map(|p| PathInfo { line_rate: topo.links[p[0] as usize].rate, base_rtt: base_rtt(&topo, p, &retrace(p)) })
                .collect();
            let info = FlowInfo {
                id: spec.id,
                size: spec.size,
                start: spec.start,
                deadline: spec.deadline.map(|d| spec.start + d),
                size_known: spec.size_known,
                mss,
                line_rate: topo.links[fwd[0] as usize].rate,
                base_rtt: base_rtt(&topo, &fwd, &rev),
                agent_hops: fwd.len() as u8,
                dst: spec.dst,
            };
            let ideal = if multi.is_empty() {
                // Packets that may take any equal-cost path can do as well
                // as the widest one.
                let best = adaptive.then(|| routes.widest_path(spec.src, spec.dst, |l| topo.links[l as usize].rate.0)).flatten();
                ideal_fct(&topo, best.as_deref().unwrap_or(&fwd), spec.size.0, mss)
            } else {
                let paths: Vec<&[LinkId]> = multi.iter().map(|p| p.as_slice()).collect();
                ideal_fct_multipath(&topo, &paths, spec.size.0, mss)
            };
            FlowState {
                spec,
                routes: [paths.intern(&fwd), paths.intern(&rev)],
                extra_routes,
                path_info,
                info,
                sender: None,
                receiver: None,
                in_flight: 0,
                released_bytes_delivered: 0,
                timer_at: None,
                finish: None,
                terminated: false,
                ideal,
                last_hop_payload: 0,
                hash,
                pinned: false,
                no_path: false,
                started: false,
            }
        })
        .collect();
    let measured = scenario.measured_links(&topo);
    let first_start = flows.iter().map(|f| f.spec.start).min().unwrap_or(Time::ZERO);
    let changes = scenario.faults.link_changes(&topo, scenario.stop)?;
    let protocol = scenario.protocol.for_run(|| {
        let sizes = flows.iter().map(|f| f.spec.size.0).collect();
        let bdp = flows.iter().map(|f| f.info.line_rate.bytes_in(f.info.base_rtt).0).max().unwrap_or(0);
        (sizes, bdp)
    });
    let mut sim = Sim::new(topo, &protocol, flows, paths, scenario.seed);
    apply_faults(&mut sim, &scenario.faults);
    if adaptive || !changes.is_empty() {
        let rng = dcflow_core::stream(scenario.seed, dcflow_core::rng::component::ROUTING);
        sim.router = Some(router::Router::new(&sim.topo, scenario.topology.routing_params(), scenario.seed, rng));
        sim.convergence = scenario.faults.convergence;
        for (i, c) in changes.iter().enumerate() {
            sim.events.push(c.at, sim::Event::LinkChange(i as u32));
        }
        sim.changes = changes;
    }
    if let Some(m) = &scenario.monitor {
        sim.keep_endpoints = m.flows;
        sim.monitor = Some(Monitor::new(m.interval, measured.clone(), m.flows.then_some(sim.flows.len())));
        sim.events.push(Time::ZERO + m.interval, sim::Event::Sample);
    }
    let stop = scenario.stop.map(|d| Time::ZERO + d);
    let end = sim.run(stop, scenario.stall_interval());
    if end.status == RunStatus::Interrupted {
        return Err(ConfigError::interrupted());
    }
    let sent: Vec<(f64, f64)> = measured
        .iter()
        .map(|&(l, _)| (sim.tx_bytes_by(l, end.at) as f64 * 8.0, sim.topo.links[l as usize].rate.as_bps_f64()))
        .collect();
    let utilization = dcflow_scenario::utilization(&sent, first_start, end.at);
    // The hops of packets scheduled ahead count from their start: up to
    // where the run, or the drain after it, got.
    let counted_to = if end.status == RunStatus::Completed {
        sim.drain(stop);
        stop
    } else {
        Some(end.at)
    };
    sim.counters.packet_hops = sim.packet_hops_by(counted_to);
    let violations = sim.audit_agents();
    Ok((collect(sim, end, utilization, &measured, wall), violations))
}

/// `[faults]`: random loss on the named links (the bottleneck by default), on
/// the directions `faults.direction` selects.
fn apply_faults(sim: &mut Sim, faults: &FaultsConfig) {
    if faults.loss <= 0.0 {
        return;
    }
    let lossy = if faults.links.is_empty() { vec!["bottleneck".into()] } else { faults.links.clone() };
    let (named, reverse) = faults.direction.sides();
    for name in lossy {
        let l = sim.topo.link_by_name(&name).expect("validated link name");
        for (on, link) in [(named, l), (reverse, sim.topo.reverse(l))] {
            if on {
                sim.set_loss(link, faults.loss);
            }
        }
    }
}

/// M-PDQ's paths for a flow split into `subflows` (empty for single-path
/// flows, and when fewer than two paths exist): BuildPathSet's parallel paths
/// on BCube (elsewhere least-shared shortest paths); with `"shortest"` only
/// the shortest of them; with `"ecmp"` one ECMP path per subflow (PDQ §6,
/// maybe shared; subflow 0 takes the flow's own `hash`). Replies retrace each.
fn subflow_paths_of(routes: &Routes, src: u32, dst: u32, subflows: usize, choice: SubflowPaths, hash: u64) -> Vec<Vec<LinkId>> {
    if subflows < 2 {
        return Vec::new();
    }
    let mut paths = match choice {
        SubflowPaths::Parallel => routes.paths(src, dst, subflows),
        SubflowPaths::Shortest => {
            let mut p = routes.paths(src, dst, subflows);
            let shortest = p.iter().map(Vec::len).min().unwrap_or(0);
            p.retain(|q| q.len() == shortest);
            p
        }
        SubflowPaths::Ecmp => (0..subflows as u64)
            .map(|i| routes.path(src, dst, if i == 0 { hash } else { mix64(hash ^ mix64(i)) }))
            .collect(),
    };
    if paths.len() < 2 {
        paths.clear();
    }
    paths
}

fn collect(sim: Sim, end: RunEnd, utilization: f64, measured: &[(LinkId, String)], wall: Instant) -> RunOutput {
    let flows: Vec<FlowRecord> =
        sim.flows.iter().map(|f| record(f, sim.hosts.bytes_delivered(f).unwrap_or_else(|| f.bytes_delivered()))).collect();
    let stats = RunStats {
        status: end.status,
        sim_time_s: end.at.as_secs_f64(),
        events: sim.events.popped(),
        wall_s: wall.elapsed().as_secs_f64(),
        packets_sent: sim.counters.packets_sent,
        packets_dropped: sim.counters.packets_dropped,
        utilization,
        utilization_links: measured.iter().map(|&(l, _)| sim.topo.links[l as usize].name.clone()).collect(),
        retransmits: sim.counters.released_retransmits
            + sim.hosts.retransmits()
            + sim.flows.iter().filter_map(|f| f.sender.as_ref()).map(|s| s.retransmits()).sum::<u64>(),
        timeouts: sim.counters.released_timeouts
            + sim.flows.iter().filter_map(|f| f.sender.as_ref()).map(|s| s.timeouts()).sum::<u64>(),
        packet_hops: sim.counters.packet_hops,
        packets_dropped_by_failure: sim.counters.dropped_by_failure,
        reroutes: sim.counters.reroutes,
    };
    let summary = Summary::from_flows(&flows, &stats);
    RunOutput { summary, flows, timeseries: sim.monitor.map(|m| m.rows) }
}

fn record(f: &FlowState, bytes_delivered: u64) -> FlowRecord {
    let start = f.spec.start;
    let deadline = f.spec.deadline.map(|d| start + d);
    let fct = f.finish.map(|t| t - start);
    let ideal = f.ideal.as_secs_f64();
    FlowRecord {
        id: f.spec.id,
        src: f.spec.src,
        dst: f.spec.dst,
        size_bytes: f.spec.size.0,
        start_s: start.as_secs_f64(),
        deadline_s: deadline.map(Time::as_secs_f64),
        finish_s: f.finish.map(Time::as_secs_f64),
        fct_s: fct.map(Dur::as_secs_f64),
        ideal_fct_s: ideal,
        slowdown: fct.map(|d| d.as_secs_f64() / ideal),
        met_deadline: deadline.map(|d| !f.terminated && f.finish.is_some_and(|t| t <= d)),
        terminated: f.terminated,
        bytes_delivered,
        no_path: f.no_path,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// `faults.direction` picks the named link, its reverse, or both.
    #[test]
    fn loss_goes_on_the_directions_asked_for() {
        for (direction, want) in [("both", (0.03, 0.03)), ("forward", (0.03, 0.0)), ("reverse", (0.0, 0.03))] {
            let s = Scenario::from_toml(&format!(
                "[topology]\nkind = \"star\"\nhosts = 3\n[faults]\nloss = 0.03\ndirection = \"{direction}\"\n"
            ))
            .unwrap();
            let topo = s.build_topology().unwrap();
            let mut sim = Sim::new(topo, &s.protocol, Vec::new(), PathTable::default(), 1);
            apply_faults(&mut sim, &s.faults);
            let b = sim.topo.bottleneck();
            let got = (sim.ports[b as usize].loss, sim.ports[sim.topo.reverse(b) as usize].loss);
            assert_eq!(got, want, "{direction}");
            let others = (0..sim.ports.len() as LinkId).filter(|&l| l != b && l != sim.topo.reverse(b));
            assert!(others.into_iter().all(|l| sim.ports[l as usize].loss == 0.0), "{direction}");
        }
    }
}
