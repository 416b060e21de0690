//! The flows of a fluid run: what is fixed at the start (paths, sizes, the
//! work each flow puts on the wire, when it may first send) and what changes
//! (remaining work, rate, outcome).
//!
//! Flows are routed exactly as the packet engine routes them: the per-flow
//! ECMP hash is `mix64(seed ^ mix64(id))` and the path comes from
//! `Routes::path`, so both engines put a flow on the same links.

use crate::model::FlowModel;
use dcflow_core::{mix64, Bytes, Dur, LinkId, Time};
use dcflow_proto::HEADER_BYTES;
use dcflow_net::{Routes, Topology};
use dcflow_workload::FlowSpec;

/// Where a flow is in its life.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Phase {
    /// Not yet allowed to send (before its start, or in its handshake).
    Waiting,
    Active,
    /// Sent its last bit (the receiver holds it `delivery_delay` later).
    Finished,
    Terminated,
}

/// All flows, struct-of-arrays: a million flows must fit in a few hundred MB.
pub struct Flows {
    pub specs: Vec<FlowSpec>,
    /// Concatenated forward paths; flow `f`'s links are `links[path_at[f]..path_at[f + 1]]`.
    links: Vec<LinkId>,
    path_at: Vec<u32>,
    /// Absolute deadline.
    pub deadline: Vec<Option<Time>>,
    /// Rate of the first link (the NIC): PDQ §3's maximal sending rate R^max,
    /// as far as the sender is concerned.
    pub line_rate: Vec<f64>,
    /// Slowest link on the path (bps): `ideal_fct = size / bottleneck`.
    pub bottleneck: Vec<f64>,
    /// Bits the flow must put on the wire: payload, plus headers under a model.
    pub work: Vec<f64>,
    /// When the flow may first send: start, plus handshake under a model.
    pub ready_at: Vec<Time>,
    /// From the sender's last bit to the receiver holding it (models only).
    pub delivery_delay: Vec<Dur>,
    /// Base round trip (the packet engine's): PDQ's Early Termination condition 3.
    pub rtt: Vec<Dur>,
    // Dynamic state.
    pub phase: Vec<Phase>,
    /// Work left at time `since[f]`, in bits.
    pub remaining: Vec<f64>,
    /// Current rate in bits per second, constant since `since[f]`.
    pub rate: Vec<f64>,
    pub since: Vec<Time>,
    /// Bumped whenever the rate changes: termination events carrying an
    /// older generation are stale (lazy invalidation).
    pub generation: Vec<u32>,
    /// When the receiver held the last byte.
    pub finish: Vec<Option<Time>>,
}

impl Flows {
    pub fn new(topo: &Topology, routes: &Routes, specs: Vec<FlowSpec>, seed: u64, model: &FlowModel) -> Flows {
        let n = specs.len();
        let mut links = Vec::with_capacity(n * 6);
        let mut path_at = Vec::with_capacity(n + 1);
        let (mut deadline, mut line_rate, mut bottleneck) = (Vec::with_capacity(n), Vec::with_capacity(n), Vec::with_capacity(n));
        let (mut work, mut ready_at, mut delivery_delay) = (Vec::with_capacity(n), Vec::with_capacity(n), Vec::with_capacity(n));
        let mut rtts = Vec::with_capacity(n);
        for spec in &specs {
            // Per-flow ECMP hash, salted by the seed: the packet engine's (docs/architecture.md rule 5).
            let hash = mix64(seed ^ mix64(spec.id as u64));
            let fwd = routes.path(spec.src, spec.dst, hash);
            let rev = routes.path(spec.dst, spec.src, hash);
            let rates: Vec<f64> = fwd.iter().map(|&l| topo.links[l as usize].rate.as_bps_f64()).collect();
            path_at.push(links.len() as u32);
            links.extend_from_slice(&fwd);
            let dl = spec.deadline.map(|d| spec.start + d);
            deadline.push(dl);
            line_rate.push(rates[0]);
            bottleneck.push(rates.iter().copied().fold(f64::INFINITY, f64::min));
            // Round trip as the packet engine's base RTT: delays, one MTU
            // serialized forward and one header-only ACK back.
            let mtu = Bytes(topo.mtu as u64);
            let ack = Bytes(HEADER_BYTES as u64);
            let ser = |path: &[LinkId], b: Bytes| path.iter().fold(Dur::ZERO, |a, &l| a + topo.links[l as usize].rate.tx_time(b));
            let one_way = path_delay(topo, &fwd) + ser(&fwd[1..], mtu);
            let rtt = path_delay(topo, &fwd) + path_delay(topo, &rev) + ser(&fwd, mtu) + ser(&rev, ack);
            let timing = model.timing(spec.size.0, dl.is_some(), rates[0], rtt, one_way);
            work.push(timing.work_bits);
            ready_at.push(spec.start + timing.startup);
            delivery_delay.push(timing.delivery_delay);
            rtts.push(rtt);
        }
        path_at.push(links.len() as u32);
        Flows {
            remaining: work.clone(),
            specs,
            links,
            path_at,
            deadline,
            line_rate,
            bottleneck,
            work,
            ready_at,
            delivery_delay,
            rtt: rtts,
            phase: vec![Phase::Waiting; n],
            rate: vec![0.0; n],
            since: vec![Time::ZERO; n],
            generation: vec![0; n],
            finish: vec![None; n],
        }
    }

    pub fn len(&self) -> usize {
        self.specs.len()
    }

    #[inline]
    pub fn path(&self, f: u32) -> &[LinkId] {
        &self.links[self.path_at[f as usize] as usize..self.path_at[f as usize + 1] as usize]
    }

    /// Hops over all flows: the length of an array indexed like
    /// [`Flows::path_range`], one entry per (flow, hop).
    pub fn hops(&self) -> usize {
        self.links.len()
    }

    /// Indices of `f`'s path for [`Flows::link_at`] (no borrow held).
    #[inline]
    pub fn path_range(&self, f: u32) -> std::ops::Range<usize> {
        self.path_at[f as usize] as usize..self.path_at[f as usize + 1] as usize
    }

    #[inline]
    pub fn link_at(&self, k: usize) -> LinkId {
        self.links[k]
    }

    /// Work left at `now` under the current rate.
    #[inline]
    pub fn remaining_at(&self, f: u32, now: Time) -> f64 {
        let i = f as usize;
        // A flow with no rate yet (NaN) has made no progress: under
        // `recompute = "interval"` it waits so until the next step.
        if now == self.since[i] || self.rate[i].is_nan() {
            return self.remaining[i];
        }
        let dt = (now.0 - self.since[i].0) as f64 * 1e-12;
        (self.remaining[i] - self.rate[i] * dt).max(0.0)
    }

    /// Fold the progress since `since` into `remaining`.
    #[inline]
    pub fn advance(&mut self, f: u32, now: Time) {
        self.remaining[f as usize] = self.remaining_at(f, now);
        self.since[f as usize] = now;
    }

    /// Payload bytes the receiver holds at `now`.
    pub fn bytes_delivered(&self, f: u32, now: Time) -> u64 {
        let i = f as usize;
        match self.phase[i] {
            Phase::Finished => self.specs[i].size.0,
            _ => {
                let done = 1.0 - self.remaining_at(f, now) / self.work[i];
                (self.specs[i].size.0 as f64 * done).floor() as u64
            }
        }
    }

    /// The flow alone on its path in the fluid model: size / bottleneck rate
    /// (docs/outputs.md: "size / bottleneck rate").
    pub fn ideal_fct(&self, f: u32) -> f64 {
        self.specs[f as usize].size.0 as f64 * 8.0 / self.bottleneck[f as usize]
    }
}

/// Propagation plus processing delay along `path` (processing at every node
/// that forwards, as in the packet engine).
fn path_delay(topo: &Topology, path: &[LinkId]) -> Dur {
    path.iter()
        .enumerate()
        .map(|(hop, &l)| {
            let link = &topo.links[l as usize];
            if hop + 1 < path.len() {
                link.prop_delay + topo.proc_delay_at(link.to)
            } else {
                link.prop_delay
            }
        })
        .fold(Dur::ZERO, |a, b| a + b)
}
