//! Hop-by-hop routing for runs whose paths can change while packets fly:
//! an adaptive policy (`spray`, `flowlet`, `conga`) or timed link failures
//! (docs/architecture.md, "Routing"). Runs with neither follow each flow's
//! path fixed at set-up and never build a `Router`, so they keep the fast
//! path (and give byte-identical results: per-hop ECMP hashes exactly as
//! the per-flow path does).
//!
//! At each node a packet asks for its next link: a flow with a pinned path
//! takes the pinned link out of that node; any other packet gets the
//! switch's policy choice among the next hops of the current routing tables,
//! which leave failed links out only once routing has converged.

use crate::flows::FlowState;
use crate::sim::Sim;
use dcflow_core::{LinkId, NodeId, RngStream, Time};
use dcflow_net::{Choice, Conga, CongaTag, FlowKey, PathPolicy, Routes, RoutingParams, Topology};
use dcflow_proto::Packet;

/// A protocol's own choice of next hop at SYN time (MEMR): the index of
/// the hop it takes among a node's candidates (link, next node).
pub(crate) type OwnChoice<'a> = &'a mut dyn FnMut(&[(LinkId, NodeId)]) -> usize;

/// What the router remembers of a packet in flight (by arena slot).
#[derive(Clone, Copy, Default)]
struct Slot {
    /// The failure epoch of the link it was last sent on (its arrival
    /// event names the link), then: if the link failed since, the packet
    /// is lost.
    epoch: u32,
    tag: CongaTag,
}

pub struct Router {
    routes: Routes,
    params: RoutingParams,
    seed: u64,
    policy: PathPolicy,
    slots: Vec<Slot>,
}

impl Router {
    pub fn new(topo: &Topology, params: RoutingParams, seed: u64, rng: RngStream) -> Router {
        let routes = Routes::new(topo, params.mode, seed);
        let conga = (params.mode == dcflow_net::RoutingMode::Conga)
            .then(|| Conga::new(topo, params.conga).expect("validated: one leaf per host"));
        let policy = PathPolicy::new(params, rng, routes.salt(), conga);
        Router { routes, params, seed, policy, slots: Vec::new() }
    }

    /// Routing has converged on the links that are down now.
    pub fn converge(&mut self, topo: &Topology, down: &[bool]) {
        self.routes = Routes::without(topo, self.params.mode, self.seed, down);
    }

    pub fn routes(&self) -> &Routes {
        &self.routes
    }

    /// A packet enters the network in slot `idx`: a fresh slot, untagged.
    pub fn reset(&mut self, idx: u32) {
        let i = idx as usize;
        if i >= self.slots.len() {
            self.slots.resize(i + 1, Slot::default());
        }
        self.slots[i] = Slot::default();
    }

    /// Start loading packet `idx`'s slot (its arrival comes next).
    #[inline]
    pub fn prefetch_slot(&self, idx: u32) {
        if let Some(s) = self.slots.get(idx as usize) {
            dcflow_core::cache::prefetch(s);
        }
    }

    /// The epoch of the link packet `idx` was last sent on, when it was sent.
    pub fn sent_epoch(&self, idx: u32) -> u32 {
        self.slots[idx as usize].epoch
    }

    /// Whether the policy measures what the ports send (CONGA): it must see
    /// each departure when it happens, in time order.
    pub fn measures_departures(&self) -> bool {
        self.policy.conga.is_some()
    }

    /// Packet `idx` starts serializing on `link` at `now` (CONGA's switches
    /// measure the links they send on).
    pub fn on_transmit(&mut self, topo: &Topology, idx: u32, link: LinkId, epoch: u32, wire: u32, now: Time) {
        let s = &mut self.slots[idx as usize];
        s.epoch = epoch;
        if let Some(g) = self.policy.conga.as_mut() {
            let from = topo.links[link as usize].from;
            if topo.forwards(from) {
                g.on_transmit(link, from, wire, now, &mut s.tag);
            }
        }
    }

    /// Packet `idx` reached `node` (CONGA's destination leaf reads its tag).
    pub fn on_arrival(&mut self, idx: u32, node: NodeId, now: Time) {
        if let Some(g) = self.policy.conga.as_mut() {
            g.on_leaf_arrival(node, now, &mut self.slots[idx as usize].tag);
        }
    }

    /// The link packet `pkt` (slot `idx`) of `flow` leaves `at` by, towards
    /// its destination, and whether the tables chose it because `at` is off
    /// the flow's pinned path (`pinned`, the packet's path when its flow is
    /// pinned); `None` when the current tables have no route.
    #[allow(clippy::too_many_arguments)]
    #[inline]
    pub fn next_link(
        &mut self,
        topo: &Topology,
        flow: &FlowState,
        pinned: Option<&[LinkId]>,
        pkt: &Packet,
        idx: u32,
        at: NodeId,
        now: Time,
    ) -> Option<(LinkId, bool)> {
        // A packet still on a path the flow has left since (rerouted while
        // it flew) is routed by the tables from where it is.
        if let Some(&l) = pinned.and_then(|route| route.iter().find(|&&l| topo.links[l as usize].from == at)) {
            return Some((l, false));
        }
        let dst = flow.dest(pkt.reverse);
        let tag = &mut self.slots[idx as usize].tag;
        let key = FlowKey::new(pkt.flow, pkt.reverse, pkt.path);
        choose(&self.routes, &mut self.policy, at, dst, key, flow.hash, now, tag).map(|l| (l, true))
    }

    /// The path a flow pins when its SYN goes out (PDQ, D3, RCP_dc and S3
    /// keep per-flow state in the switches, so their packets must keep to
    /// one path): every switch on the way makes its policy's choice for
    /// the flow's first packet; `None` when `dst` is unreachable.
    /// `own`, when given, is the protocol's own choice at SYN time (MEMR):
    /// it picks the index of the next hop among the candidates at a node.
    #[allow(clippy::too_many_arguments)]
    pub fn pin(
        &mut self,
        topo: &Topology,
        src: NodeId,
        dst: NodeId,
        key: FlowKey,
        hash: u64,
        now: Time,
        mut own: Option<OwnChoice>,
    ) -> Option<Vec<LinkId>> {
        let mut path = Vec::new();
        let mut at = src;
        let mut tag = CongaTag::default();
        while at != dst {
            let l = match own.as_mut() {
                Some(pick) => {
                    let candidates = self.routes.candidates(at, dst);
                    match candidates.len() {
                        0 => return None,
                        1 => candidates[0].0,
                        _ => candidates[pick(candidates)].0,
                    }
                }
                None => choose(&self.routes, &mut self.policy, at, dst, key, hash, now, &mut tag)?,
            };
            path.push(l);
            at = topo.links[l as usize].to;
        }
        Some(path)
    }

    /// Whether flows pin their data path by the protocol's own choice (MEMR).
    pub fn protocol_chooses(&self) -> bool {
        self.params.mode == dcflow_net::RoutingMode::Memr
    }
}

/// The policy's pick among the next hops from `at` to `dst`.
#[allow(clippy::too_many_arguments)]
#[inline]
fn choose(
    routes: &Routes,
    policy: &mut PathPolicy,
    at: NodeId,
    dst: NodeId,
    key: FlowKey,
    ecmp_hash: u64,
    now: Time,
    tag: &mut CongaTag,
) -> Option<LinkId> {
    let candidates = routes.candidates(at, dst);
    match candidates.len() {
        0 => None,
        1 => Some(candidates[0].0),
        _ => {
            let c = Choice { node: at, dst, key, ecmp_hash, candidates, now };
            Some(candidates[policy.pick(&c, tag)].0)
        }
    }
}

/// The engine's side of hop-by-hop routing: what a packet does at each node.
impl Sim {
    /// Hop-by-hop routing: a packet whose link `from` failed while it flew
    /// is lost; one at its destination is delivered; any other is forwarded.
    pub(crate) fn arrive_routed(&mut self, idx: u32, from: LinkId) {
        let router = self.router.as_mut().expect("hop-by-hop routing");
        let port = &self.ports[from as usize];
        if port.epoch != router.sent_epoch(idx) {
            self.drop_by_failure(idx, from);
            return;
        }
        let at = port.to;
        router.on_arrival(idx, at, self.now);
        let pkt = self.packets.get_mut(idx);
        pkt.hop += 1;
        if pkt.reverse && self.reverse_agents {
            self.reverse_pass(idx, from);
        }
        let pkt = self.packets.get(idx);
        if at == self.flows[pkt.flow as usize].dest(pkt.reverse) {
            self.deliver(idx);
        } else {
            self.forward(idx, at);
        }
    }

    /// Hop-by-hop routing: packet `idx` at node `at` goes out by the link
    /// the router picks, or is lost when the tables have no route.
    pub(crate) fn forward(&mut self, idx: u32, at: NodeId) {
        let pkt = self.packets.get(idx);
        let flow = &self.flows[pkt.flow as usize];
        let router = self.router.as_mut().expect("hop-by-hop routing");
        let pinned = flow.pinned.then(|| self.paths.path(flow.route_id(pkt.reverse, pkt.path)));
        match router.next_link(&self.topo, flow, pinned, pkt, idx, at, self.now) {
            // A straggler still on a path its pinned flow has left (rerouted
            // while it flew) passes no agent: the ports of the old path
            // forgot the flow, and its request must not register it again.
            Some((link, off_pinned_path)) => self.enqueue(link, idx, !(flow.pinned && off_pinned_path)),
            None => {
                self.discard(idx);
                self.counters.packets_dropped += 1;
                self.counters.dropped_by_failure += 1;
            }
        }
    }
}
