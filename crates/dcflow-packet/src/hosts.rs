//! Host-scheduled protocols in the engine (dcflow_proto::host): one sans-IO
//! agent per host instead of a sender and a receiver per flow.
//!
//! A flow's start goes to its source host's agent, every packet that
//! reaches a host goes to that host's agent, and the engine drains an
//! agent exactly as it drains a per-flow endpoint (`endpoints.rs`): its
//! packets are injected on their flow's path, its one timer is re-armed
//! (a timer event whose time differs from the armed one is stale), and its
//! per-flow events become the flows' outcomes. Agents are created when a
//! host first takes part in a flow and live to the end of the run: they are
//! a host's state, not a flow's, so nothing is released per flow.

use crate::flows::FlowState;
use crate::sim::{Event, Sim};
use dcflow_core::{FlowId, NodeId, Rate, Time};
use dcflow_proto::{FlowEvent, HostAgent, HostEndpoint, ProtocolConfig};

pub struct Hosts {
    /// Whether the protocol runs host agents at all.
    pub scheduled: bool,
    /// By node id, created on first use.
    agents: Vec<Option<HostAgent>>,
    /// The time of each agent's armed timer event.
    timer_at: Vec<Option<Time>>,
}

impl Hosts {
    pub fn new(protocol: &ProtocolConfig) -> Hosts {
        Hosts { scheduled: protocol.host_scheduled(), agents: Vec::new(), timer_at: Vec::new() }
    }

    /// Retransmissions of every agent.
    pub fn retransmits(&self) -> u64 {
        self.agents.iter().flatten().map(|a| a.retransmits()).sum()
    }

    /// Bytes of `flow` its destination holds in order, for a protocol run
    /// by host agents (`None` otherwise): a delivered flow's destination
    /// may have forgotten it, and the engine kept its size.
    pub fn bytes_delivered(&self, flow: &FlowState) -> Option<u64> {
        if !self.scheduled {
            return None;
        }
        if flow.finish.is_some() {
            return Some(flow.released_bytes_delivered);
        }
        let agent = self.agents.get(flow.spec.dst as usize).and_then(Option::as_ref);
        Some(agent.map_or(0, |a| a.bytes_delivered(flow.spec.id)))
    }
}

impl Sim {
    /// The agent of `node`, created with its access link's `rate` if new.
    fn host_agent(&mut self, node: NodeId, rate: Rate) -> &mut HostAgent {
        let n = node as usize;
        if self.hosts.agents.len() <= n {
            self.hosts.agents.resize_with(n + 1, || None);
            self.hosts.timer_at.resize(n + 1, None);
        }
        let (protocol, mtu) = (&self.protocol, self.topo.mtu);
        self.hosts.agents[n].get_or_insert_with(|| protocol.host_agent(rate, mtu).expect("a host-scheduled protocol"))
    }

    /// Flow `f` starts (its path is set): its source's agent takes it.
    pub(crate) fn start_host_flow(&mut self, f: FlowId) {
        let now = self.now;
        let flow = &self.flows[f as usize];
        let (src, info) = (flow.spec.src, flow.info);
        self.host_agent(src, info.line_rate).start_flow(now, info);
        self.progress();
        self.drive_host(src);
    }

    pub(crate) fn host_timer(&mut self, node: NodeId) {
        let now = self.now;
        let n = node as usize;
        if self.hosts.timer_at[n] != Some(now) {
            return; // stale: re-armed since
        }
        self.hosts.timer_at[n] = None;
        if let Some(a) = self.hosts.agents[n].as_mut() {
            a.handle_timeout(now);
        }
        self.drive_host(node);
    }

    /// Packet `idx` reached the host it is addressed to: that host's agent
    /// reads it in place. In-order bytes at a destination are progress.
    pub(crate) fn deliver_to_host(&mut self, idx: u32) {
        let now = self.now;
        let pkt = self.packets.get(idx);
        let flow = &mut self.flows[pkt.flow as usize];
        flow.in_flight -= 1;
        let (node, f) = (flow.dest(pkt.reverse), pkt.flow);
        // The host's own access link: the first link of the flow's path
        // that leaves it.
        let rate = self.topo.links[flow.route(!pkt.reverse, pkt.path)[0] as usize].rate;
        self.host_agent(node, rate);
        let pkt = self.packets.get(idx);
        let agent = self.hosts.agents[node as usize].as_mut().expect("created above");
        let before = agent.bytes_delivered(f);
        agent.handle_packet(now, pkt);
        let advanced = agent.bytes_delivered(f) > before;
        self.packets.free(idx);
        if advanced {
            self.progress();
        }
        self.drive_host(node);
    }

    /// Drain a host agent's packets and events, and re-arm its timer.
    fn drive_host(&mut self, node: NodeId) {
        let now = self.now;
        let n = node as usize;
        while let Some(pkt) = self.hosts.agents[n].as_mut().and_then(|a| a.poll_transmit(now)) {
            // A flow terminated for want of a path sends nothing.
            if !self.flows[pkt.flow as usize].no_path {
                self.inject(pkt);
            }
        }
        let agent = self.hosts.agents[n].as_mut().expect("driven agents exist");
        let mut outcomes = 0;
        while let Some((f, ev)) = agent.poll_event() {
            let flow = &mut self.flows[f as usize];
            if flow.done() {
                continue;
            }
            match ev {
                FlowEvent::Delivered => {
                    flow.finish = Some(now);
                    flow.released_bytes_delivered = flow.spec.size.0;
                }
                FlowEvent::Terminated => flow.terminated = true,
                FlowEvent::Closed => continue,
            }
            outcomes += 1;
        }
        if let Some(t) = agent.poll_timeout() {
            // Never into the past; a timer at `now` fires after the events
            // already queued for `now`.
            let t = t.max(now);
            let armed = &mut self.hosts.timer_at[n];
            if armed.is_none_or(|a| t < a) {
                *armed = Some(t);
                self.events.push(t, Event::HostTimer(node));
            }
        }
        if outcomes > 0 {
            self.open_flows -= outcomes;
            self.progress();
        }
    }
}
