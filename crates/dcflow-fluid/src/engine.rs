//! The fluid event loop. Rates are constant between events and recomputed
//! on arrivals, completions, terminations and model ticks. Max-min fair
//! rates (`fair`, `rcp`, and `reservation`'s shares of what reservations
//! leave) are recomputed by a level sweep over the links whose fill level
//! the event can change ([`sweep`]); the key orders (srpt, sjf, edf, fifo,
//! PDQ's keys without aging) keep each link's order kinetically and re-walk
//! only the flows an event can affect ([`kinetic`]); the other allocations
//! are recomputed from scratch over the connected component of links and
//! active flows that the event touches (the allocations are computed link
//! by link, so flows elsewhere keep their rates; with PDQ's aged keys,
//! which drift, a crossing elsewhere waits for an event that reaches it or
//! for the next tick). Flows that become ready at the same instant, and
//! events at the same instant, are handled as one batch with one
//! recomputation. Each active flow has one pending completion, moved
//! when its rate changes ([`Timers`]); early terminations are events in a
//! heap, invalidated lazily by a per-flow generation number.

use crate::alloc::{greedy, MaxMin};
use crate::flows::{Flows, Phase};
use crate::model::{Allocation, FlowModel, Order};
use crate::priority;
use crate::agenda::{Agenda, Timers};

mod kinetic;
mod reserve;
mod sweep;
use dcflow_core::interrupt::{Poll, Progress};
use dcflow_core::{round_to_u64, Dur, LinkId, Time};
use dcflow_net::Topology;
use dcflow_scenario::{Monitor, RunEnd, RunStatus};

#[derive(Clone, Copy, Debug)]
pub enum Event {
    /// Flow `0` can no longer meet its deadline, if its generation is still `1`.
    Hopeless(u32, u32),
    /// Model tick: re-evaluate every active flow (D3's re-requests).
    Tick,
    /// Monitor sample.
    Sample,
}

/// Run counters: the summary's `events` is their sum.
#[derive(Default, Debug, Clone, Copy)]
pub struct Counters {
    pub arrivals: u64,
    pub completions: u64,
    pub terminations: u64,
    pub recomputations: u64,
    /// Max-min sweep: links filled and flows checked (heap pops), and flows
    /// the sweep froze (rate changed or confirmed). Not events.
    pub sweep_steps: u64,
    pub frozen: u64,
    /// Max-min sweep: flows still unfrozen at their old rate after their old
    /// bottleneck turned dirty (they get more: the sweep's subtle path).
    pub released: u64,
    /// Max-min sweep: tentative levels computed (water-fills over a dirty
    /// link), and watched links put off to a lower bound of their level.
    pub water_fills: u64,
    pub deferred: u64,
    /// Max-min sweeps run again because a rate they changed overfilled a
    /// roomy link they had left out (kept in the next time).
    pub sweeps_redone: u64,
    /// Sum over recomputations of the active flows, and their peak (scale diagnostics).
    pub active_sum: u64,
    pub active_peak: u64,
    /// Rates that changed (any discipline).
    pub rate_changes: u64,
    /// Key disciplines: flows re-walked, links re-sorted because two of
    /// their flows' keys crossed.
    pub walked: u64,
    pub crossings: u64,
}

pub struct Engine {
    pub flows: Flows,
    model: FlowModel,
    allocation: Allocation,
    /// The allocation is kept by the kinetic walk ([`kinetic`]): a key order
    /// whose rates change at every arrival and completion (a stepped model
    /// sees those only at its next tick, and is walked afresh there).
    kinetic_walk: bool,
    early_termination: bool,
    capacity: Vec<f64>,
    /// Active flows on each link, and each (flow, hop)'s index in that list
    /// (at the hop's index in `Flows::links`: one flat array, not a vector
    /// per flow).
    link_flows: Vec<Vec<u32>>,
    slot: Vec<u32>,
    /// Rate reserved by each flow (`reservation` / D3), and per link.
    reserved: Vec<f64>,
    link_reserved: Vec<f64>,
    virtual_deadline: Vec<f64>,
    pub events: Agenda<Event>,
    completions: Timers,
    ready_order: Vec<u32>,
    next_ready: usize,
    pub now: Time,
    pub active: usize,
    pub counters: Counters,
    pub monitor: Option<Monitor>,
    /// Bits sent on each watched link up to `meter_at`, and its current load.
    meter_bits: Vec<f64>,
    meter_load: Vec<f64>,
    meter_at: Vec<Time>,
    watched: Vec<bool>,
    // Scratch, reused by every recomputation.
    fill: MaxMin,
    residual: Vec<f64>,
    new_rate: Vec<f64>,
    seen_link: Vec<u32>,
    seen_flow: Vec<u32>,
    stamp: u32,
    component: Vec<u32>,
    component_links: Vec<LinkId>,
    dropped: Vec<u32>,
    kinetic: kinetic::Kinetic,
    sweep: sweep::Sweep,
    /// Tests: check every incremental recomputation against a from-scratch one.
    pub verify: bool,
}

impl Engine {
    pub fn new(topo: &Topology, flows: Flows, model: FlowModel, watched_links: &[LinkId]) -> Engine {
        let (n, l) = (flows.len(), topo.links.len());
        let allocation = model.allocation();
        let kinetic_walk = allocation.is_kinetic() && !model.stepped();
        let mut ready_order: Vec<u32> = (0..n as u32).collect();
        ready_order.sort_by_key(|&f| (flows.ready_at[f as usize], f));
        let slot = vec![0; flows.hops()];
        let mut watched = vec![false; l];
        for &w in watched_links {
            watched[w as usize] = true;
        }
        let capacity: Vec<f64> = topo.links.iter().map(|k| k.rate.as_bps_f64()).collect();
        let sweep = if allocation.sweeps() {
            let longest = (0..n as u32).map(|f| flows.path(f).len()).max().unwrap_or(0);
            sweep::Sweep::new(&capacity, n, longest)
        } else {
            sweep::Sweep::new(&capacity, 0, 0)
        };
        Engine {
            allocation,
            kinetic_walk,
            early_termination: model.early_termination(),
            model,
            capacity,
            link_flows: vec![Vec::new(); l],
            slot,
            reserved: vec![0.0; n],
            link_reserved: vec![0.0; l],
            virtual_deadline: vec![0.0; n],
            events: Agenda::new(),
            completions: Timers::new(n),
            ready_order,
            next_ready: 0,
            now: Time::ZERO,
            active: 0,
            counters: Counters::default(),
            monitor: None,
            meter_bits: vec![0.0; l],
            meter_load: vec![0.0; l],
            meter_at: vec![Time::ZERO; l],
            watched,
            fill: MaxMin::new(l, n),
            residual: vec![0.0; l],
            new_rate: vec![0.0; n],
            seen_link: vec![0; l],
            seen_flow: vec![0; n],
            stamp: 0,
            component: Vec::new(),
            component_links: Vec::new(),
            dropped: Vec::new(),
            // Per-flow scratch only for the allocation that uses it (a
            // hundred million flows' worth must fit in a few GB).
            kinetic: if kinetic_walk { kinetic::Kinetic::new(l, n, flows.hops()) } else { kinetic::Kinetic::new(l, 0, 0) },
            sweep,
            verify: false,
            flows,
        }
    }

    /// The flows, the engine's scratch dropped.
    pub fn into_flows(self) -> Flows {
        self.flows
    }

    /// Whether anything is left to happen.
    pub fn busy(&self) -> bool {
        self.active > 0 || self.next_ready < self.ready_order.len()
    }

    /// Run until every flow is done, `stop`, or a stall: flows are active
    /// but none has a positive rate (so none has a completion pending) and
    /// none changes state for `stall` (see [`dcflow_scenario::RunEnd`]).
    pub fn run(&mut self, stop: Option<Time>, stall: Dur) -> RunEnd {
        if let Some(t) = self.model.tick() {
            self.events.push(Time::ZERO + t, Event::Tick);
        }
        let mut touched: Vec<u32> = Vec::new();
        let mut progressed_at = Time::ZERO;
        let mut poll = Poll::default();
        // Ticks and samples after the last flow are not worth waiting for.
        while self.busy() {
            let total = self.ready_order.len();
            let waiting = total - self.next_ready + self.active;
            if poll.interrupted(|| Progress::of(self.now, total - waiting, total)) {
                return self.end(RunStatus::Interrupted, self.now);
            }
            let ready = self.ready_order.get(self.next_ready).map(|&f| self.flows.ready_at[f as usize]);
            let next = [ready, self.events.peek_time(), self.completions.peek_time()].into_iter().flatten().min();
            let delivering = self.completions.peek_time().is_some();
            if delivering {
                progressed_at = next.expect("a pending completion");
            }
            let stall_at = progressed_at + stall;
            // With nothing scheduled, active flows at rate 0 stay so for good.
            if self.active > 0 && !delivering && next.is_none_or(|t| t > stall_at) {
                return self.end(RunStatus::Stalled, stall_at);
            }
            let Some(t) = next else { break };
            if let Some(stop) = stop.filter(|&s| t > s) {
                return self.end(RunStatus::Stopped, stop);
            }
            self.now = t;
            touched.clear();
            let mut full = false;
            while let Some(&f) = self.ready_order.get(self.next_ready) {
                if self.flows.ready_at[f as usize] != t {
                    break;
                }
                self.next_ready += 1;
                self.activate(f);
                touched.push(f);
            }
            let arrivals = !touched.is_empty();
            while let Some(f) = self.completions.pop_due(t) {
                self.leave(f, Phase::Finished);
                touched.push(f);
            }
            while self.events.peek_time() == Some(t) {
                let (_, ev) = self.events.pop().expect("peeked");
                match ev {
                    Event::Hopeless(f, g) if self.flows.generation[f as usize] == g && self.is_active(f) => {
                        self.leave(f, Phase::Terminated);
                        touched.push(f);
                    }
                    Event::Tick => {
                        full = true;
                        if self.busy() {
                            self.events.push(t + self.model.tick().expect("ticking model"), Event::Tick);
                        }
                    }
                    Event::Sample => {
                        if let Some(mut m) = self.monitor.take() {
                            m.sample(self);
                            self.events.push(t + m.interval(), Event::Sample);
                            self.monitor = Some(m);
                        }
                    }
                    Event::Hopeless(..) => {} // stale
                }
            }
            if !touched.is_empty() {
                progressed_at = t;
            }
            // Stepped models see arrivals and completions only at the next tick.
            if full || (!touched.is_empty() && !self.model.stepped()) {
                self.recompute(&touched, full, arrivals);
            }
        }
        // Completed: the last outcome is the last delivery (a completion
        // plus its delivery delay) or a termination now.
        let last_delivery = self.flows.finish.iter().flatten().max().copied().unwrap_or(Time::ZERO);
        RunEnd { status: RunStatus::Completed, at: self.now.max(last_delivery) }
    }

    /// Stop the run early at `at` (stop or stall): every meter reads up to `at`.
    fn end(&mut self, status: RunStatus, at: Time) -> RunEnd {
        self.now = at;
        RunEnd { status, at }
    }

    fn is_active(&self, f: u32) -> bool {
        self.flows.phase[f as usize] == Phase::Active
    }

    fn activate(&mut self, f: u32) {
        let i = f as usize;
        self.counters.arrivals += 1;
        self.active += 1;
        self.flows.phase[i] = Phase::Active;
        self.flows.since[i] = self.now;
        // No rate yet: any rate the recomputation assigns counts as a change.
        self.flows.rate[i] = f64::NAN;
        for k in self.flows.path_range(f) {
            let l = self.flows.link_at(k);
            self.slot[k] = self.link_flows[l as usize].len() as u32;
            self.link_flows[l as usize].push(f);
        }
        if self.allocation.sweeps() {
            self.sweep.admit(f, self.flows.path(f));
        }
        if self.allocation == (Allocation::Reserve { rerequest: false }) {
            self.reserve_at_arrival(f);
        }
    }

    fn leave(&mut self, f: u32, outcome: Phase) {
        let i = f as usize;
        self.flows.advance(f, self.now);
        self.set_meter(f, 0.0);
        self.flows.rate[i] = 0.0;
        self.flows.phase[i] = outcome;
        self.active -= 1;
        if outcome == Phase::Finished {
            self.counters.completions += 1;
            self.flows.remaining[i] = 0.0;
            self.flows.finish[i] = Some(self.now + self.flows.delivery_delay[i]);
        } else {
            self.counters.terminations += 1;
            self.completions.set(f, None);
        }
        for k in self.flows.path_range(f) {
            let l = self.flows.link_at(k) as usize;
            let at = self.slot[k] as usize;
            let list = &mut self.link_flows[l];
            list.swap_remove(at);
            if let Some(&moved) = list.get(at) {
                let h = self.flows.path_range(moved).find(|&h| self.flows.link_at(h) as usize == l).expect("on this link");
                self.slot[h] = at as u32;
            }
            if self.allocation.sweeps() {
                self.sweep.leave_link(l as LinkId, at);
            }
            if self.reserved[i] != 0.0 {
                self.link_reserved[l] -= self.reserved[i];
                if self.allocation.sweeps() {
                    self.unreserved(l as LinkId);
                }
            }
        }
        self.reserved[i] = 0.0;
        if self.allocation.sweeps() {
            self.sweep.dismiss(f);
        }
    }

    /// Account a rate change of `f` on the watched links of its path.
    fn set_meter(&mut self, f: u32, new_rate: f64) {
        let old = self.flows.rate[f as usize];
        let old = if old.is_nan() { 0.0 } else { old };
        for &l in self.flows.path(f) {
            let l = l as usize;
            if self.watched[l] {
                self.meter_bits[l] += self.meter_load[l] * (self.now.0 - self.meter_at[l].0) as f64 * 1e-12;
                self.meter_at[l] = self.now;
                self.meter_load[l] += new_rate - old;
            }
        }
    }

    /// Bits sent on watched link `l` up to now.
    pub fn link_bits(&self, l: LinkId) -> f64 {
        let l = l as usize;
        self.meter_bits[l] + self.meter_load[l] * (self.now.0 - self.meter_at[l].0) as f64 * 1e-12
    }

    /// The component of links and active flows reachable from `seeds`' paths
    /// (or every active flow when `full`).
    fn collect_component(&mut self, seeds: &[u32], full: bool) {
        self.stamp += 1;
        let stamp = self.stamp;
        self.component.clear();
        self.component_links.clear();
        let (seen, links) = (&mut self.seen_link, &mut self.component_links);
        let mut visit = |l: LinkId| {
            let fresh = seen[l as usize] != stamp;
            if fresh {
                seen[l as usize] = stamp;
                links.push(l);
            }
        };
        if full {
            (0..self.link_flows.len() as LinkId).filter(|&l| !self.link_flows[l as usize].is_empty()).for_each(&mut visit);
        } else {
            seeds.iter().flat_map(|&f| self.flows.path(f)).for_each(|&l| visit(l));
        }
        // `component_links` doubles as the BFS queue: visit links in the order found.
        let mut next = 0;
        while next < self.component_links.len() {
            let l = self.component_links[next] as usize;
            next += 1;
            for &f in &self.link_flows[l] {
                if self.seen_flow[f as usize] != stamp {
                    self.seen_flow[f as usize] = stamp;
                    self.component.push(f);
                    for &m in self.flows.path(f) {
                        if self.seen_link[m as usize] != stamp {
                            self.seen_link[m as usize] = stamp;
                            self.component_links.push(m);
                        }
                    }
                }
            }
        }
    }

    fn recompute(&mut self, seeds: &[u32], full: bool, arrivals: bool) {
        self.counters.recomputations += 1;
        self.counters.active_sum += self.active as u64;
        self.counters.active_peak = self.counters.active_peak.max(self.active as u64);
        self.dropped.clear();
        let incremental = match self.allocation {
            Allocation::Fair | Allocation::Reserve { rerequest: false } if !full => {
                self.fair_sweep(seeds);
                if self.allocation != Allocation::Fair {
                    // The sweep shared what the reservations leave (D3 §3):
                    // each flow gets its share plus its reservation. (A
                    // flow's cap, line rate less its reservation, never
                    // binds: its access link, at line rate, has at most
                    // that left.)
                    for &f in &self.component {
                        self.new_rate[f as usize] += self.reserved[f as usize];
                    }
                }
                true
            }
            Allocation::Ordered(kind) if self.kinetic_walk => {
                self.ordered_incremental(kind, seeds);
                true
            }
            _ => {
                self.recompute_from_scratch(seeds, full, arrivals);
                false
            }
        };
        if incremental && self.verify {
            self.check_against_scratch(arrivals);
        }
        let mut hopeless = std::mem::take(&mut self.dropped);
        for k in 0..self.component.len() {
            let f = self.component[k];
            self.apply_rate(f, &mut hopeless);
        }
        for &f in &hopeless {
            if self.is_active(f) {
                self.leave(f, Phase::Terminated);
            }
        }
        if !hopeless.is_empty() {
            // Their bandwidth goes to the others at once.
            self.recompute(&hopeless, false, false);
        }
        self.dropped = hopeless;
        self.dropped.clear();
    }

    /// Tests: the incremental rates (installed for `component`, unchanged
    /// elsewhere) must equal a from-scratch recomputation over every active
    /// flow within 1e-9 relative. The incremental rates are kept.
    fn check_against_scratch(&mut self, arrivals: bool) {
        let mut want = self.flows.rate.clone();
        for &f in &self.component {
            want[f as usize] = self.new_rate[f as usize];
        }
        self.recompute_from_scratch(&[], true, arrivals);
        for &f in &self.component {
            let (a, b) = (want[f as usize], self.new_rate[f as usize]);
            assert!(
                (a - b).abs() <= 1e-9 * a.abs().max(b.abs()) + 1e-6,
                "flow {f} at {:?}: incremental {a} vs from scratch {b}",
                self.now
            );
            self.new_rate[f as usize] = a;
        }
    }

    /// Recompute the component of links and flows reachable from `seeds`
    /// (every active flow when `full`) from scratch into `new_rate`.
    fn recompute_from_scratch(&mut self, seeds: &[u32], full: bool, arrivals: bool) {
        self.collect_component(seeds, full);
        let now = self.now;
        for &f in &self.component {
            self.flows.advance(f, now);
        }
        for &l in &self.component_links {
            self.residual[l as usize] = self.capacity[l as usize];
        }
        let flows = &self.flows;
        match self.allocation {
            Allocation::Fair => self.fill_component(false),
            Allocation::Ordered(kind) => {
                let mut order = std::mem::take(&mut self.component);
                priority::order(kind, flows, now, &mut order, &mut self.dropped, &mut self.virtual_deadline, arrivals);
                greedy(&order, |f| flows.path(f), &mut self.residual, &mut self.new_rate);
                self.component = order;
            }
            Allocation::Reserve { rerequest } => {
                if rerequest {
                    self.rerequest_reservations();
                }
                for &f in &self.component {
                    for &l in self.flows.path(f) {
                        self.residual[l as usize] -= self.reserved[f as usize];
                    }
                }
                self.fill_component(true);
                for &f in &self.component {
                    self.new_rate[f as usize] += self.reserved[f as usize];
                }
            }
        }
    }

    /// Max-min fill of the component over `residual`; with `capped`, each
    /// flow at most its line rate minus its reservation.
    fn fill_component(&mut self, capped: bool) {
        let (flows, reserved) = (&self.flows, &self.reserved);
        self.fill.fill(
            &self.component,
            &self.component_links,
            &self.link_flows,
            |f| flows.path(f),
            |f| if capped { (flows.line_rate[f as usize] - reserved[f as usize]).max(0.0) } else { f64::INFINITY },
            &mut self.residual,
            &mut self.new_rate,
        );
    }

    /// Install the recomputed rate of `f`; schedule its completion and, under
    /// early termination, the moment it becomes hopeless.
    fn apply_rate(&mut self, f: u32, hopeless: &mut Vec<u32>) {
        let i = f as usize;
        let r = self.new_rate[i].max(0.0);
        if r == self.flows.rate[i] {
            return;
        }
        self.counters.rate_changes += 1;
        self.flows.advance(f, self.now);
        self.set_meter(f, r);
        self.flows.rate[i] = r;
        if self.allocation.sweeps() {
            // The sweep keeps the share, without the reservation.
            let share = if self.allocation == Allocation::Fair { r } else { r - self.reserved[i] };
            self.sweep.set_rate(f, self.flows.path(f), share);
        }
        self.flows.generation[i] = self.flows.generation[i].wrapping_add(1);
        let g = self.flows.generation[i];
        let remaining = self.flows.remaining[i];
        let done = (r > 0.0).then(|| Time(self.now.0 + round_to_u64(remaining / r * 1e12)));
        self.completions.set(f, done);
        if self.early_termination {
            if let Some(deadline) = self.flows.deadline[i] {
                if let Some(at) = self.model.terminate_at(remaining, r, self.now, self.flows.line_rate[i], deadline, self.flows.rtt[i]) {
                    if at.0 <= self.now.0 + 1 {
                        hopeless.push(f);
                    } else {
                        self.events.push(at, Event::Hopeless(f, g));
                    }
                }
            }
        }
    }
}

#[cfg(test)]
mod stall_tests;
