//! Host-scheduled protocols in the engine (dcflow_proto::host): one sans-IO
//! agent per host instead of a sender and a receiver per flow.
//!
//! A flow's start goes to its source host's agent, every packet that
//! reaches a host goes to that host's agent, and the engine drains an
//! agent exactly as it drains a per-flow endpoint (`endpoints.rs`): its
//! packets are injected on their flow's path, its one timer is re-armed
//! (a timer event whose time differs from the armed one is stale), and its
//! per-flow events become the flows' outcomes. Every host gets its agent
//! when the run is built (a host's state, not a flow's: nothing is released
//! per flow), so delivering a packet is an index, not a look-up of the
//! host's link.

use crate::flows::FlowState;
use crate::sim::{Event, Sim};
use dcflow_core::{FlowId, NodeId, Time};
use dcflow_net::Topology;
use dcflow_proto::{FlowEvent, HostAgent, HostEndpoint, ProtocolConfig};

pub struct Hosts {
    /// By host (hosts are nodes `0..hosts`); empty for per-flow protocols.
    agents: Vec<HostAgent>,
    /// The time of each agent's armed timer event.
    timer_at: Vec<Option<Time>>,
}

impl Hosts {
    /// One agent per host of `topo`, each paced at its access link's rate
    /// (a host's first link; a BCube server's links all run at one rate).
    pub fn new(protocol: &ProtocolConfig, topo: &Topology) -> Hosts {
        let agents: Vec<HostAgent> = (0..topo.hosts)
            .map_while(|h| protocol.host_agent(topo.links[topo.out_links[h][0] as usize].rate, topo.mtu))
            .collect();
        Hosts { timer_at: vec![None; agents.len()], agents }
    }

    /// Whether the protocol runs host agents (and no per-flow endpoints).
    #[inline]
    pub fn scheduled(&self) -> bool {
        !self.agents.is_empty()
    }

    /// Retransmissions of every agent.
    pub fn retransmits(&self) -> u64 {
        self.agents.iter().map(|a| a.retransmits()).sum()
    }

    /// Bytes of `flow` its destination holds in order, for a protocol run
    /// by host agents (`None` otherwise): a delivered flow's destination
    /// may have forgotten it, and the engine kept its size.
    pub fn bytes_delivered(&self, flow: &FlowState) -> Option<u64> {
        let agent = self.agents.get(flow.spec.dst as usize)?;
        Some(if flow.finish.is_some() { flow.released_bytes_delivered } else { agent.bytes_delivered(flow.spec.id) })
    }
}

impl Sim {

    /// Flow `f` starts (its path is set): its source's agent takes it.
    pub(crate) fn start_host_flow(&mut self, f: FlowId) {
        let now = self.now;
        let flow = &self.flows[f as usize];
        let (src, info) = (flow.spec.src, flow.info);
        self.hosts.agents[src as usize].start_flow(now, info);
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
        self.hosts.agents[n].handle_timeout(now);
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
        let agent = &mut self.hosts.agents[node as usize];
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
        while let Some(pkt) = self.hosts.agents[n].poll_transmit(now) {
            // A flow terminated for want of a path sends nothing.
            if !self.flows[pkt.flow as usize].no_path {
                self.inject(pkt);
            }
        }
        let agent = &mut self.hosts.agents[n];
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
