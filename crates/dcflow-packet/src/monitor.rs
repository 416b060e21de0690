//! Time series of monitored links (throughput, queue) and flows (payload
//! rate on their last link), sampled every `[monitor] interval`, plus the per-link byte counts the
//! summary's utilization comes from.

use crate::flows::FlowState;
use crate::sim::{Port, Sim};
use dcflow_core::{Dur, LinkId, Rate, Time};
use dcflow_scenario::{LinkSample, SeriesRecorder};

/// Bytes the port has put on the wire by `now`. A port counts a packet when
/// its serialization starts (one event per hop), so the part of the packet
/// still to be serialized is taken back out: samples are exact, and a link is
/// never seen above its rate.
fn serialized_bytes(port: &Port, rate: Rate, now: Time) -> u64 {
    let pending = if port.busy_until > now { rate.bytes_in(port.busy_until - now).0 } else { 0 };
    port.tx_bytes - pending
}

/// Payload bytes of flow `f` serialized on its last link by `now`: like
/// [`serialized_bytes`], the part of a packet still on the wire is taken
/// back out, so a flow is never seen above its link's rate. (Counting
/// in-order delivery instead showed bursts when a retransmission filled a
/// hole, and whole packets at the sample after they arrived: 1.05 Gbps on a
/// 1 Gbps link in the demo.)
fn last_hop_bytes(sim: &Sim, f: &FlowState) -> u64 {
    let link = *sim.paths.path(f.routes[0]).last().expect("a path has links");
    let port = &sim.ports[link as usize];
    match port.last_hop_data {
        Some((flow, payload, wire)) if flow == f.spec.id && port.busy_until > sim.now => {
            let pending_wire = sim.topo.links[link as usize].rate.bytes_in(port.busy_until - sim.now).0;
            f.last_hop_payload - (payload as u64 * pending_wire).div_ceil(wire as u64).min(payload as u64)
        }
        _ => f.last_hop_payload,
    }
}

pub struct Monitor {
    interval: Dur,
    /// Monitored links, in the recorder's order.
    links: Vec<LinkId>,
    pub series: SeriesRecorder,
}

impl Monitor {
    pub fn new(interval: Dur, links: Vec<(LinkId, String)>, flows: Option<usize>) -> Monitor {
        let (ids, names) = links.into_iter().unzip();
        Monitor { interval, links: ids, series: SeriesRecorder::new(interval.as_secs_f64(), names, flows) }
    }

    pub fn interval(&self) -> Dur {
        self.interval
    }

    pub fn sample(&mut self, sim: &Sim) {
        let time_s = sim.now.as_secs_f64();
        for (i, &link) in self.links.iter().enumerate() {
            let port = &sim.ports[link as usize];
            let sent = serialized_bytes(port, sim.topo.links[link as usize].rate, sim.now);
            let sample = LinkSample {
                bits: sent as f64 * 8.0,
                queue_bytes: port.queue.bytes(),
                drops: port.drops,
                reroutes: port.reroutes,
                up: port.up,
                capacity_bps: port.agent.capacity_bps(),
            };
            self.series.link(i, time_s, sample);
        }
        if self.series.monitors_flows() {
            for (i, f) in sim.flows.iter().enumerate() {
                if f.spec.start <= sim.now {
                    let state = f.sender.as_ref().map(|s| s.state(sim.now)).unwrap_or_default();
                    self.series.flow(i, f.spec.id, time_s, last_hop_bytes(sim, f), !f.done(), state);
                }
            }
        }
    }
}
