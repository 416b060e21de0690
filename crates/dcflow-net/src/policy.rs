//! Path choice at each switch (`topology.routing`): which of the equal-cost
//! next hops a packet takes, decided from what that switch can see.
//!
//! - `ecmp`: hash of the flow and the switch (RFC 2992), one path per flow.
//! - `single`: the lowest-numbered next hop, one path per host pair.
//! - `spray`: every packet on its own, at random or round robin per switch
//!   (the packet spraying of pFabric's reference simulators).
//! - `flowlet`: a flow's packets keep their next hop until the flow pauses
//!   for longer than `flowlet_gap`; the next flowlet takes a next hop at
//!   random (flowlet switching: Kandula et al., FLARE, CCR'07; LetFlow,
//!   NSDI'17, picks at random as here).
//! - `conga`: flowlets placed on the least congested uplink from leaf-to-leaf
//!   feedback ([`crate::conga`]).
//!
//! The packet engine asks only at switches with two or more next hops; flows
//! of protocols that keep per-flow state in the switches pin one path at SYN
//! time and never ask again (docs/architecture.md, "Routing").

use crate::conga::{Conga, CongaParams, CongaTag};
use dcflow_core::{ensure, mix64, ConfigError, Dur, LinkId, NodeId, RngStream, Time};
use rand::RngExt;
use serde::{Deserialize, Serialize};
use rustc_hash::FxHashMap;

/// How a switch chooses among equal-cost next hops (`topology.routing`).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum RoutingMode {
    /// Per-flow hashing at every hop (RFC 2992), the datacenter default.
    #[default]
    Ecmp,
    /// One deterministic shortest path per host pair (the lowest-numbered next hop).
    Single,
    /// Per-packet spraying (`spray_order`).
    Spray,
    /// Flowlet switching (`flowlet_gap`).
    Flowlet,
    /// CONGA (Alizadeh et al., SIGCOMM'14).
    Conga,
    /// MERP's MEMR (papers/003 §5): each switch picks a new flow's next hop
    /// at SYN time from its ports' MERP flow tables (protocol `merp` only).
    Memr,
}

impl RoutingMode {
    /// Whether the choice can differ between packets of one flow, so the
    /// engine routes hop by hop instead of following a path fixed at set-up.
    pub fn adaptive(self) -> bool {
        matches!(self, RoutingMode::Spray | RoutingMode::Flowlet | RoutingMode::Conga | RoutingMode::Memr)
    }

    pub fn as_str(self) -> &'static str {
        match self {
            RoutingMode::Ecmp => "ecmp",
            RoutingMode::Single => "single",
            RoutingMode::Spray => "spray",
            RoutingMode::Flowlet => "flowlet",
            RoutingMode::Conga => "conga",
            RoutingMode::Memr => "memr",
        }
    }
}

/// `spray_order`: how a spraying switch picks the next hop of each packet.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum SprayOrder {
    /// Uniformly at random (pFabric's reference simulator).
    #[default]
    Random,
    /// In turn, per switch and destination.
    RoundRobin,
}

/// The routing keys of `[topology]`, defaults filled in.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct RoutingParams {
    pub mode: RoutingMode,
    pub spray_order: SprayOrder,
    /// Idle time after which a flow's next packet starts a new flowlet
    /// (`flowlet` and `conga`). Default 500us, CONGA's T_fl (§3.6).
    pub flowlet_gap: Dur,
    pub conga: CongaParams,
}

/// CONGA's T_fl (§3.6), also the default gap of plain flowlet switching.
pub const DEFAULT_FLOWLET_GAP: Dur = Dur::us(500);

impl RoutingParams {
    pub fn validate(&self) -> Result<(), ConfigError> {
        ensure(self.flowlet_gap > Dur::ZERO, "flowlet_gap", "must be a positive time like \"500us\" (CONGA's T_fl)")?;
        self.conga.validate()
    }
}

/// What identifies a packet's flow to a switch: the flow, its direction and
/// (for M-PDQ subflows) its path index, hashed.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct FlowKey(pub u64);

impl FlowKey {
    pub fn new(flow: u32, reverse: bool, path: u8) -> FlowKey {
        FlowKey(mix64(((flow as u64) << 9) | ((reverse as u64) << 8) | path as u64))
    }
}

/// A flowlet's next hop at one switch and when the flow last sent through it.
#[derive(Clone, Copy, Debug)]
struct Flowlet {
    link: LinkId,
    last: Time,
}

/// Where a choice is made and for what: the switch, the packet's flow, the
/// next hops on shortest paths to its destination (all equal cost).
pub struct Choice<'a> {
    pub node: NodeId,
    pub dst: NodeId,
    pub key: FlowKey,
    /// The per-flow ECMP hash (what `ecmp` and CONGA's non-leaf hops use).
    pub ecmp_hash: u64,
    pub candidates: &'a [(LinkId, NodeId)],
    pub now: Time,
}

/// The per-switch state of the adaptive policies (spray counters, flowlet
/// tables, CONGA's tables), for the whole network.
pub struct PathPolicy {
    params: RoutingParams,
    rng: RngStream,
    salt: u64,
    /// Round-robin position per switch and destination host
    /// (`turn[switch][dst]`), grown as switches and destinations come up:
    /// read for every packet at every switch, where a hash look-up cost
    /// about 70 instructions a packet and an index costs a few. At most
    /// 4 B per (switch with a choice, host): 1 MB on a k = 16 fat-tree,
    /// 17 MB at k = 32.
    turn: Vec<Vec<u32>>,
    /// Flowlet table per (switch, flow): read for every packet at every
    /// switch, so it uses a fast hash (rustc-hash); nothing iterates it, so
    /// no order leaks out.
    flowlets: FxHashMap<(NodeId, FlowKey), Flowlet>,
    pub conga: Option<Conga>,
}

impl PathPolicy {
    pub fn new(params: RoutingParams, rng: RngStream, salt: u64, conga: Option<Conga>) -> PathPolicy {
        PathPolicy { params, rng, salt, turn: Vec::new(), flowlets: FxHashMap::default(), conga }
    }

    /// The ECMP choice: the same hash of (flow, switch) as
    /// [`crate::Routes::path`], so per-hop ECMP equals the per-flow path.
    pub fn ecmp(&self, c: &Choice) -> usize {
        ecmp_index(self.salt, c.ecmp_hash, c.node, c.candidates.len())
    }

    /// The index in `c.candidates` of the next hop this switch gives the packet.
    pub fn pick(&mut self, c: &Choice, tag: &mut CongaTag) -> usize {
        let n = c.candidates.len();
        match self.params.mode {
            // MEMR decides only for a SYN, through the engine's pin hook;
            // any other packet hashes like ECMP.
            RoutingMode::Ecmp | RoutingMode::Memr => self.ecmp(c),
            RoutingMode::Single => 0,
            RoutingMode::Spray => match self.params.spray_order {
                SprayOrder::Random => self.rng.random_range(0..n),
                SprayOrder::RoundRobin => {
                    let (node, dst) = (c.node as usize, c.dst as usize);
                    if self.turn.len() <= node {
                        self.turn.resize_with(node + 1, Vec::new);
                    }
                    let row = &mut self.turn[node];
                    if row.len() <= dst {
                        row.resize(dst + 1, 0);
                    }
                    row[dst] = row[dst].wrapping_add(1);
                    row[dst] as usize % n
                }
            },
            RoutingMode::Flowlet => self.flowlet(c, |p, c| p.rng.random_range(0..c.candidates.len())),
            RoutingMode::Conga => {
                let leaf_choice = self.conga.as_ref().is_some_and(|g| g.is_source_leaf(c.node, tag));
                if leaf_choice {
                    let i = self.flowlet(c, |p, c| {
                        let g = p.conga.as_ref().expect("conga state");
                        g.best_uplink(c, &mut p.rng)
                    });
                    self.conga.as_mut().expect("conga state").stamp(c.node, c.dst, c.candidates[i].0, tag);
                    i
                } else {
                    self.ecmp(c)
                }
            }
        }
    }

    /// Keep the flowlet's next hop while it is a candidate and the flow
    /// paused for at most `flowlet_gap`; otherwise `fresh` picks a new one.
    fn flowlet(&mut self, c: &Choice, fresh: impl FnOnce(&mut PathPolicy, &Choice) -> usize) -> usize {
        let gap = self.params.flowlet_gap;
        let kept = self
            .flowlets
            .get(&(c.node, c.key))
            .filter(|f| c.now.since(f.last) <= gap)
            .and_then(|f| c.candidates.iter().position(|&(l, _)| l == f.link));
        let i = match kept {
            Some(i) => i,
            None => fresh(self, c),
        };
        self.flowlets.insert((c.node, c.key), Flowlet { link: c.candidates[i].0, last: c.now });
        i
    }
}

/// ECMP's pick among `n` next hops at `node` (shared with [`crate::Routes::path`]).
pub fn ecmp_index(salt: u64, flow_hash: u64, node: NodeId, n: usize) -> usize {
    (mix64(flow_hash ^ mix64(salt ^ node as u64)) % n as u64) as usize
}
