//! What the monitor reads of the packet engine ([`Sampled`]): monitored
//! links' throughput and queues, and flows' payload rate on their last
//! link, plus the per-link byte counts the summary's utilization comes from.

use crate::flows::FlowState;
use crate::sim::{Port, Sim};
use dcflow_core::{LinkId, Rate, Time};
use dcflow_scenario::{FlowSample, LinkSample, Sampled};

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

impl Sampled for Sim {
    fn now(&self) -> Time {
        self.now
    }

    fn link_sample(&self, link: LinkId) -> LinkSample {
        let port = &self.ports[link as usize];
        LinkSample {
            bits: serialized_bytes(port, self.topo.links[link as usize].rate, self.now) as f64 * 8.0,
            queue_bytes: port.queue.bytes(),
            drops: port.drops,
            reroutes: port.reroutes,
            up: port.up,
            capacity_bps: port.agent.capacity_bps(),
        }
    }

    fn each_flow(&self, sample: &mut dyn FnMut(FlowSample)) {
        for f in &self.flows {
            if f.spec.start <= self.now {
                sample(FlowSample {
                    id: f.spec.id,
                    bytes: last_hop_bytes(self, f),
                    running: !f.done(),
                    state: f.sender.as_ref().map(|s| s.state(self.now)).unwrap_or_default(),
                });
            }
        }
    }
}
