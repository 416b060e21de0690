//! Incremental greedy walk (PDQ §3) for the per-flow key disciplines (srpt,
//! sjf, edf, fifo, and flow-level PDQ without aging): per-link
//! priority orders kept sorted kinetically, and rates recomputed only for
//! the flows an event can affect.
//!
//! Why it is exact. Walking every active flow in priority order (key, id)
//! gives flow f the rate
//!   r_f = max(0, min over links l of f: c_l - sum of r_g over the flows g
//!         before f on l, subtracted in order),
//! so r_f depends only on which flows precede it on its own links and on
//! their rates. An event changes those inputs only for (a) the flows after
//! a leaving flow on its links, (b) the flows of a link whose order
//! changed, and (c) the flows after a flow whose rate changed (an arriving
//! flow counts as having had rate 0), on its links. Each list stores the
//! residual the walk sees before each flow; a change re-subtracts the list
//! from the change on, until the residuals are the stored ones again
//! ([`Engine::refresh`]). A flow whose stored residual moved is re-walked
//! only if its walk rate on the residuals as they now are differs from its
//! rate ([`Engine::settle`]): under srpt most flows on a link wait at rate
//! 0 behind a shorter flow on another link, and freed bandwidth reaches
//! each of them as a moved residual. The flows whose rate changes are
//! recomputed in global priority order from a heap; each one a change
//! reaches comes after the flow that changed, so it is recomputed after
//! it, from final inputs. A flow whose rate is unchanged (bit for bit: the
//! same subtractions in the same order as the full walk) moves no
//! residual. Every other flow keeps its inputs, or inputs that give the
//! same rate: the result is the full walk's.
//!
//! Keeping each link's order equal to the order of the keys at the current
//! instant: sjf and fifo keys never change; edf's deadlines keep their
//! order (every deadline left shrinks by the same amount) and only flows
//! with equal deadlines (or none) compare by their time left; srpt compares
//! by time left, T_f = remaining_f / R_f^max, which falls at rate r_f / R^max
//! between events (PDQ's T_S likewise among equal deadlines, but for its
//! rounding: [`Engine::certify_link`]; PDQ's size estimates step up at
//! times known in advance: [`Engine::certify_steps`]). A lower-priority
//! flow with a faster fall (its
//! predecessor on this link is limited elsewhere) overtakes. The keys are
//! linear in time between events, so for each link the earliest time any
//! adjacent pair can swap is known ([`Engine::certify_link`]); links whose
//! time has come are re-sorted at the next event, before anything else
//! (the first swap in a sorted list of linear keys is between neighbours,
//! and the re-sort catches every later one). Crossings are not events:
//! the full walk also only looks at the order at event instants. Flows of
//! different links need no consistent order: they never read each other.

use super::*;
use crate::agenda::Timers;
use std::cmp::{Ordering, Reverse};
use std::collections::BinaryHeap;

/// The kinetic state of the key disciplines.
pub(super) struct Kinetic {
    /// Per link, its active flows in priority order at the last event,
    /// each with its walk rate and the residual the walk sees before it.
    lists: Vec<Vec<Listed>>,
    /// Each (flow, hop)'s index in its link's list, indexed like
    /// [`Flows::path_range`].
    pos: Vec<u32>,
    /// Per flow, its walk state: one record, so that a list entry reached
    /// costs one cache miss, not one per field.
    state: Vec<FlowState>,
    /// Per link, the earliest time two of its neighbours can swap.
    checks: Timers,
    dirty: BinaryHeap<Queued>,
    link_stamp: Vec<u32>,
    recertify: Vec<LinkId>,
    stamp: u32,
    keys: Vec<(Key, Listed)>,
    /// Flows a refresh found a residual of moved for ([`Engine::settle`]).
    candidates: Vec<u32>,
    /// One per settle: see [`FlowState::noted`]. 64 bits: a run can settle
    /// more than 2^32 times, and a wrapped round would skip a candidate.
    round: u64,
}

#[derive(Clone, Copy)]
struct FlowState {
    /// The walk's rate (NaN until its first walk).
    rate: f64,
    /// The `stamp` of the last propagation that marked it dirty.
    dirty: u32,
    /// The `round` it was last noted in, so that a flow noted on several
    /// links is checked once.
    noted: u64,
    /// How many of its links have an exhausted residual before it (not
    /// positive): a flow at rate 0 with one stays at 0.
    blocked: u8,
    listed: bool,
}

impl Kinetic {
    pub(super) fn new(links: usize, flows: usize, hops: usize) -> Kinetic {
        Kinetic {
            lists: vec![Vec::new(); links],
            pos: vec![0; hops],
            state: vec![FlowState { rate: f64::NAN, dirty: 0, noted: u64::MAX, blocked: 0, listed: false }; flows],
            checks: Timers::new(links),
            dirty: BinaryHeap::new(),
            link_stamp: vec![0; links],
            recertify: Vec::new(),
            stamp: 0,
            keys: Vec::new(),
            candidates: Vec::new(),
            round: 0,
        }
    }
}

/// A flow in a link's list: its walk rate (a copy of `FlowState::rate`) and
/// the residual the walk sees before it, kept up to date whenever a rate or
/// the order before it changes ([`Engine::refresh`]), so a walk reads one
/// residual per link instead of subtracting its predecessors' rates again.
#[derive(Clone, Copy)]
struct Listed {
    flow: u32,
    /// The (flow, hop)'s index in `Flows::path_range` order.
    hop: u32,
    rate: f64,
    residual: f64,
    /// How fast its key falls ([`Engine::fall`]), for the crossing
    /// checks: kept here, they read no per-flow array.
    fall: f64,
}

/// A flow's priority key at an instant: (primary, secondary), then its id.
#[derive(Clone, Copy, PartialEq)]
struct Key(f64, f64);

fn before(a: (Key, u32), b: (Key, u32)) -> bool {
    a.0 .0.total_cmp(&b.0 .0).then(a.0 .1.total_cmp(&b.0 .1)).then(a.1.cmp(&b.1)) == Ordering::Less
}

/// A dirty flow in the min-heap of the propagation: its key as integers
/// that order as `before` orders (each float mapped to bits that order as
/// `f64::total_cmp` does), then its id, so that the heap compares without
/// float comparisons; reversed, so that the max-heap pops the highest priority.
type Queued = Reverse<(u64, u64, u32)>;

fn queued(key: Key, f: u32) -> Queued {
    Reverse((priority::total_order_bits(key.0), priority::total_order_bits(key.1), f))
}

impl Engine {
    /// The key the full walk sorts by ([`priority::order`]), at `now`.
    fn key(&self, kind: Order, f: u32) -> Key {
        let flows = &self.flows;
        let remaining = flows.remaining_at(f, self.now);
        if let Order::Pdq(keys) = kind {
            // Integers below 2^53 (deadlines and T_S under 2.5 hours) are
            // exact as floats; the id breaks ties, as in PDQ's comparator.
            let (first, crit, _) = keys.key_with(flows, f, self.now, remaining);
            return Key(first as f64, crit as f64);
        }
        let time_left = remaining / flows.bottleneck[f as usize];
        match kind {
            Order::Srpt => Key(time_left, 0.0),
            Order::Sjf => Key(flows.work[f as usize] / flows.bottleneck[f as usize], 0.0),
            Order::Fifo => Key(0.0, 0.0),
            _ => Key(priority::deadline_left(flows, f, self.now).unwrap_or(f64::INFINITY), time_left),
        }
    }

    /// Recompute the rates an event can change (`seeds`: the flows that
    /// arrived or left) into `new_rate` for the flows whose rate changed,
    /// listed in `component`. A model tick (PDQ's keys drift, so its model
    /// sorts afresh every `equilibrium_interval`) needs nothing more: the
    /// links whose order can have changed are re-sorted here as at any
    /// event, and a fresh sort of the others would find them in order.
    pub(super) fn ordered_incremental(&mut self, kind: Order, seeds: &[u32]) {
        let k = &mut self.kinetic;
        k.stamp = k.stamp.wrapping_add(1);
        k.recertify.clear();
        self.component.clear();
        for &f in seeds {
            if self.kinetic.state[f as usize].listed && !self.is_active(f) {
                self.unlist(f);
            }
        }
        while let Some(l) = self.kinetic.checks.pop_due(self.now) {
            self.resort(kind, l);
        }
        for &f in seeds {
            if !self.kinetic.state[f as usize].listed && self.is_active(f) {
                self.enlist(kind, f);
            }
        }
        self.settle(kind);
        while let Some(Reverse((_, _, f))) = self.kinetic.dirty.pop() {
            self.counters.walked += 1;
            let r = self.walk_rate(f);
            if r == self.kinetic.state[f as usize].rate {
                continue;
            }
            self.kinetic.state[f as usize].rate = r;
            let fall = self.fall(kind, f, r);
            self.new_rate[f as usize] = r;
            self.component.push(f);
            for k in self.flows.path_range(f) {
                let l = self.flows.link_at(k);
                let at = self.kinetic.pos[k] as usize;
                let listed = &mut self.kinetic.lists[l as usize][at];
                (listed.rate, listed.fall) = (r, fall);
                self.refresh(l, at + 1, at + 1);
                self.note_recertify(l);
            }
            self.settle(kind);
        }
        for i in 0..self.kinetic.recertify.len() {
            let l = self.kinetic.recertify[i];
            self.certify_link(kind, l);
        }
    }

    /// How fast f's key falls per second at rate `r`: its time left (srpt),
    /// its T_S (PDQ); the other keys do not fall.
    fn fall(&self, kind: Order, f: u32, r: f64) -> f64 {
        match kind {
            Order::Pdq(keys) => r * keys.fall_per_bps(&self.flows, f),
            _ => r / self.flows.bottleneck[f as usize],
        }
    }

    /// f's rate under the full walk, from the rates of the flows before it:
    /// the least residual before it on its links.
    fn walk_rate(&self, f: u32) -> f64 {
        let k = &self.kinetic;
        let mut r = f64::INFINITY;
        for h in self.flows.path_range(f) {
            r = r.min(k.lists[self.flows.link_at(h) as usize][k.pos[h] as usize].residual);
        }
        r.max(0.0)
    }

    /// Recompute the residuals of `l`'s list from position `from` on, after
    /// a change at `from` or just before it, and note as candidates the
    /// flows whose rate the change may reach ([`Engine::settle`] decides).
    /// The walk subtracts its predecessors' rates in order until the
    /// residual is exhausted (not positive), and so does this, subtraction
    /// for subtraction: the residuals are the walk's bits. The pass stops
    /// at the first position from `stable` on where the residual is the
    /// one stored (every later one is then too: the same subtractions from
    /// the same value) or is exhausted and was (every later one is and was:
    /// an exhausted residual is stored only as some non-positive value,
    /// which any reader takes as 0). Positions are not updated here.
    fn refresh(&mut self, l: LinkId, from: usize, stable: usize) {
        let k = &mut self.kinetic;
        let list = &mut k.lists[l as usize];
        let mut residual = match from.checked_sub(1).map(|i| list[i]) {
            None => self.capacity[l as usize],
            Some(p) if p.residual <= 0.0 => p.residual,
            Some(p) => p.residual - p.rate,
        };
        for (i, g) in list.iter_mut().enumerate().skip(from) {
            let old = g.residual;
            if i >= stable && (old.to_bits() == residual.to_bits() || (old <= 0.0 && residual <= 0.0)) {
                return;
            }
            g.residual = residual;
            let f = g.flow as usize;
            if (old <= 0.0) != (residual <= 0.0) {
                k.state[f].blocked = if residual <= 0.0 { k.state[f].blocked + 1 } else { k.state[f].blocked - 1 };
            }
            // This link was not the least residual and is not, or the flow
            // waits at rate 0 behind an exhausted link (this one or
            // another): unless another of its residuals moves too (and
            // notes it), the walk gives the same rate.
            let same = (old > g.rate && residual > g.rate) || (g.rate == 0.0 && k.state[f].blocked > 0);
            if !same && k.state[f].dirty != k.stamp && k.state[f].noted != k.round {
                k.state[f].noted = k.round;
                k.candidates.push(g.flow);
            }
            if residual > 0.0 {
                residual -= g.rate;
            }
        }
    }

    /// Mark dirty the candidates whose walk rate, on the residuals as they
    /// now are, differs from their rate. Called once every list an event
    /// changes is refreshed, so the residuals read are the event's. A flow
    /// left alone keeps the full walk's rate: the next change of any of
    /// its residuals notes it again, and if none comes these are final.
    fn settle(&mut self, kind: Order) {
        let mut candidates = std::mem::take(&mut self.kinetic.candidates);
        for &g in &candidates {
            if self.kinetic.state[g as usize].dirty != self.kinetic.stamp && self.walk_rate(g) != self.kinetic.state[g as usize].rate {
                self.mark(kind, g);
            }
        }
        candidates.clear();
        self.kinetic.candidates = candidates;
        self.kinetic.round += 1;
    }

    fn mark(&mut self, kind: Order, f: u32) {
        if self.kinetic.state[f as usize].dirty != self.kinetic.stamp {
            self.kinetic.state[f as usize].dirty = self.kinetic.stamp;
            let key = self.key(kind, f);
            self.kinetic.dirty.push(queued(key, f));
        }
    }

    /// Store each (flow, hop)'s index in `l`'s list for the positions `range`.
    fn reindex(&mut self, l: LinkId, range: std::ops::Range<usize>) {
        let k = &mut self.kinetic;
        for i in range {
            k.pos[k.lists[l as usize][i].hop as usize] = i as u32;
        }
    }

    fn note_recertify(&mut self, l: LinkId) {
        let k = &mut self.kinetic;
        if k.link_stamp[l as usize] != k.stamp {
            k.link_stamp[l as usize] = k.stamp;
            k.recertify.push(l);
        }
    }

    fn unlist(&mut self, f: u32) {
        self.kinetic.state[f as usize].listed = false;
        self.kinetic.state[f as usize].rate = f64::NAN;
        self.kinetic.state[f as usize].blocked = 0;
        for k in self.flows.path_range(f) {
            let l = self.flows.link_at(k);
            let at = self.kinetic.pos[k] as usize;
            self.kinetic.lists[l as usize].remove(at);
            self.refresh(l, at, at);
            self.reindex(l, at..self.kinetic.lists[l as usize].len());
            self.note_recertify(l);
        }
    }

    /// List `f` at rate 0 (its followers' residuals are unchanged until it
    /// is walked: a new flow counts as having been there at rate 0) and
    /// mark it: its walk gives it a rate, and that change reaches them.
    fn enlist(&mut self, kind: Order, f: u32) {
        self.kinetic.state[f as usize].listed = true;
        self.mark(kind, f);
        let key = (self.key(kind, f), f);
        for k in self.flows.path_range(f) {
            let l = self.flows.link_at(k);
            let list = &self.kinetic.lists[l as usize];
            let at = list.partition_point(|g| before((self.key(kind, g.flow), g.flow), key));
            // Not exhausted until refreshed, as `blocked` counts it.
            let listed = Listed { flow: f, hop: k as u32, rate: 0.0, residual: f64::INFINITY, fall: 0.0 };
            self.kinetic.lists[l as usize].insert(at, listed);
            self.refresh(l, at, at + 1);
            self.reindex(l, at..self.kinetic.lists[l as usize].len());
            self.note_recertify(l);
        }
    }

    /// Sort `l`'s flows by their keys now; refresh the residuals from the
    /// first that moved (past the last that moved, the walk subtracts the
    /// same rates, in another order: the bits can differ).
    fn resort(&mut self, kind: Order, l: LinkId) {
        let mut keys = std::mem::take(&mut self.kinetic.keys);
        keys.clear();
        keys.extend(self.kinetic.lists[l as usize].iter().map(|&g| (self.key(kind, g.flow), g)));
        let (mut first, mut last) = (usize::MAX, 0);
        for i in 1..keys.len() {
            let mut j = i;
            while j > 0 && before((keys[j].0, keys[j].1.flow), (keys[j - 1].0, keys[j - 1].1.flow)) {
                keys.swap(j, j - 1);
                first = first.min(j - 1);
                last = i;
                j -= 1;
            }
        }
        if first != usize::MAX {
            self.counters.crossings += 1;
            for (i, &(_, g)) in keys.iter().enumerate() {
                self.kinetic.lists[l as usize][i] = g;
            }
            self.refresh(l, first, last + 1);
            self.reindex(l, first..last + 1);
        }
        self.kinetic.keys = keys;
        self.note_recertify(l);
    }

    /// Schedule `l`'s next check: the earliest time a flow of `l` can pass
    /// the one before it, under the rates just computed. Keys are linear
    /// between events; the time is rounded down (and taken a hair early),
    /// so a check is never late; an early one re-sorts nothing. PDQ's T_S
    /// is linear but for its rounding to whole bytes and picoseconds
    /// ([`crate::pdq::PdqKeys::rounding`]): a pair is checked as if its gap
    /// were smaller by twice the rounding of each key, and a pair within
    /// that of each other is checked at the next event even when it does
    /// not close (two keys on parallel lines can round to the same value).
    fn certify_link(&mut self, kind: Order, l: LinkId) {
        if let Order::Pdq(keys) = kind {
            if keys.steps() {
                return self.certify_steps(keys, l);
            }
        }
        // Rounded keys: a pair that does not close can still meet.
        let rounded = matches!(kind, Order::Pdq(_));
        let mut earliest: Option<Time> = None;
        let list = &self.kinetic.lists[l as usize];
        let mut prev: Option<Listed> = None;
        for &b in list {
            let Some(a) = prev.replace(b) else { continue };
            // A follower at rate 0 does not close (and its rate is most often 0).
            if b.fall == 0.0 {
                continue;
            }
            let closing = b.fall - a.fall;
            if closing.is_nan() || (closing <= 0.0 && !rounded) {
                continue;
            }
            // Keys only for the pairs that can meet: most flows wait at rate 0.
            let (ka, kb) = (self.key(kind, a.flow), self.key(kind, b.flow));
            // The component of the key that drifts between a and b, if any,
            // and the least gap between their lines that keeps them apart.
            let drift = match kind {
                Order::Srpt => Some((ka.0, kb.0, 1e-12 * (ka.0.abs() + kb.0.abs()))),
                Order::Edf if ka.0 == kb.0 => Some((ka.1, kb.1, 1e-12 * (ka.1.abs() + kb.1.abs()))),
                Order::Pdq(keys) if ka.0 == kb.0 => {
                    Some((ka.1, kb.1, 2.0 * (keys.rounding(&self.flows, a.flow) + keys.rounding(&self.flows, b.flow))))
                }
                _ => None,
            };
            let Some((xa, xb, margin)) = drift else { continue };
            let gap = (xb - xa) - margin;
            let ps = if gap <= 0.0 {
                0
            } else if closing > 0.0 {
                // Rounded down: `as` truncates, and the quotient is not negative.
                (gap / closing * 1e12).min(1e18) as u64
            } else {
                continue;
            };
            let at = Time(self.now.0 + ps.max(1));
            earliest = Some(earliest.map_or(at, |e: Time| e.min(at)));
        }
        self.kinetic.checks.set(l, earliest);
    }

    /// [`Engine::certify_link`] for PDQ's size estimation: a key changes
    /// only when its flow's estimate steps up, at a time known from its
    /// rate, so `l` is checked when the first of its sending flows steps
    /// (taken a hair early and rounded down: never late).
    fn certify_steps(&mut self, keys: crate::pdq::PdqKeys, l: LinkId) {
        let mut earliest: Option<Time> = None;
        for b in &self.kinetic.lists[l as usize] {
            let remaining = self.flows.remaining_at(b.flow, self.now);
            let Some(secs) = keys.until_step(&self.flows, b.flow, remaining, b.rate) else { continue };
            let ps = (secs * (1.0 - 1e-9) * 1e12).min(1e18) as u64;
            let at = Time(self.now.0 + ps.saturating_sub(1).max(1));
            earliest = Some(earliest.map_or(at, |e: Time| e.min(at)));
        }
        self.kinetic.checks.set(l, earliest);
    }
}
