//! Max-min fair rates after an event, by a level sweep over the links whose
//! fill level can change. A child module of the engine, so it works on the
//! engine's own state.
//!
//! Progressive filling (Bertsekas & Gallager §6.5.2) raises a common level t
//! from 0; a link *fills* at the level where its frozen flows plus t for each
//! unfrozen one reach its capacity, and freezes its unfrozen flows at t. In
//! the installed (old) allocation a saturated link filled at its old level,
//! the largest rate on it; an unsaturated one never filled. After an event
//! (flows arrived or left), the new filling is the old one until the first
//! level at which some link behaves differently, so the sweep replays only
//! the *dirty* links, in increasing level order as Dijkstra's algorithm
//! settles nodes; every *clean* link still fills at its old level and freezes
//! the same flows at the same rates without being looked at. A link turns
//! dirty when its flows change (the event's links), when one of its flows is
//! frozen at a new rate, or when one of its flows is still unfrozen at the
//! level its old bottleneck used to freeze it (that bottleneck is dirty and
//! fills later now). The work is proportional to the flows whose rates
//! change and their links, not to the active flows or to the connected
//! component of the event.
//!
//! Each flow the sweep touches carries `cap` = the lowest old level among its
//! clean links: the rate a clean link will freeze it at unless a dirty link
//! freezes it first. A dirty link's tentative level is a water-fill over its
//! flows: flows the sweep froze count at their new rate, the others at
//! min(cap, level). The link whose tentative level is lowest fills next.
//! A clean link loaded to at most 90% of its capacity is left out, and
//! checked as the sweep changes its flows' rates ([`roomy`]); another clean
//! link that was unsaturated is only watched when its flows move, and waits
//! at a lower bound of its level once it could fill ([`watch`]).
//!
//! The sweep keeps its own copy of what it reads of each active flow (its
//! installed rate, its path, its mark) in a dense *slot*, and of each link's
//! flows as slots, in the engine's order: at a million flows the active
//! few thousand are scattered over arrays indexed by flow id, and a sweep
//! that reads them there spends much of its time waiting for memory.

use super::*;
use crate::agenda::Bits;

mod roomy;
mod watch;

/// Relative tolerance for "the same level": a flow frozen within it of its
/// old rate keeps its old rate bit for bit, so rounding noise does not
/// spread dirt through the network.
const SAME: f64 = 1e-12;

/// A watched link turns dirty when its demand is within this fraction of
/// its capacity: far above the rounding of a water-fill over a few flows
/// (about 1e-15 per flow), so a link that stays watched is one whose
/// water-fill would surely give an infinite level.
const WATCH_MARGIN: f64 = 1e-9;

/// A sweep level as a heap key: the bit pattern of a non-negative float
/// orders as the float does.
#[derive(Clone, Copy, PartialEq, Eq, PartialOrd, Ord)]
struct Level(u64);

impl Level {
    fn of(level: f64) -> Level {
        debug_assert!(level >= 0.0);
        Level(level.to_bits())
    }
    fn value(self) -> f64 {
        f64::from_bits(self.0)
    }
}

impl Bits for Level {
    fn bits(self) -> u64 {
        self.0
    }
    fn from_bits(bits: u64) -> Level {
        Level(bits)
    }
}

/// What the sweep knows of an active flow, in its slot: its mark in the
/// current sweep (valid when `stamp` is the sweep's) and its installed rate.
#[derive(Clone, Copy)]
struct Member {
    /// Unfrozen: the lowest old level among its clean links (infinite if
    /// none). Frozen: its new rate (also in the engine's `new_rate`), kept
    /// here so that a link's evaluation reads one record per flow.
    cap: f64,
    /// The installed rate (NaN before the flow's first recomputation).
    rate: f64,
    id: u32,
    stamp: u32,
    /// Frozen by a dirty link.
    frozen: bool,
}

/// A link's state in the current sweep (valid when `stamp` is the sweep's).
#[derive(Clone, Copy, Default)]
struct LinkMark {
    stamp: u32,
    dirty: bool,
    /// Unsaturated in the installed allocation and still clean, but one of
    /// its flows moved: its demand is checked whenever a flow on it moves
    /// again (see [`Engine::watch`]).
    watched: bool,
    /// Filled (or known to have filled before it turned dirty).
    done: bool,
    /// Waiting in `pending` for a new tentative level.
    pending: bool,
    /// Roomy and left out: the sum of its flows' rate changes so far.
    shift: f64,
    /// Watched, with a lower bound of its level in `fills` (see [`Engine::defer`]).
    deferred: bool,
}

/// Scratch space of the sweep, reused across events, and its copy of the
/// active flows.
pub(super) struct Sweep {
    stamp: u32,
    /// The sweep's level: that of the last fill or check.
    t: f64,
    /// Each active flow's slot, and the free slots.
    slot_of: Vec<u32>,
    free: Vec<u32>,
    members: Vec<Member>,
    /// Slot `s`'s path is `paths[s * stride..][..hops[s]]`.
    paths: Vec<LinkId>,
    hops: Vec<u32>,
    stride: usize,
    /// The slots of each link's active flows, in the order of the engine's
    /// `link_flows` (sums over a link's flows come out bit for bit the same).
    on_link: Vec<Vec<u32>>,
    links: Vec<LinkMark>,
    /// Tentative fill level of each dirty link; the level at which each
    /// flow (by id) whose old bottleneck turned dirty is checked. At one
    /// level, fills go first (a fill may freeze the flow a check is about).
    fills: Timers<Level>,
    checks: Timers<Level>,
    caps: Vec<f64>,
    /// Dirty links whose tentative level must be recomputed before the next step.
    pending: Vec<LinkId>,
    /// The links of the event's flows.
    seed_links: Vec<LinkId>,
    /// Each link's fill level under the installed rates, kept across sweeps
    /// and forgotten when the link's flows or their rates change.
    level: Vec<Option<f64>>,
    /// The capacity the sweep shares on each link (what reservations leave).
    capacity: Vec<f64>,
    /// Each link's installed load; the event being swept; whether the sweep
    /// overfilled a link it left out (see [`roomy`]).
    load: Vec<roomy::Load>,
    event: u32,
    overfilled: bool,
}

impl Sweep {
    /// `flows`: how many flows the run has (none: the run does not sweep);
    /// `stride`: the longest path; `capacity`: each link's, in b/s.
    pub(super) fn new(capacity: &[f64], flows: usize, stride: usize) -> Sweep {
        let links = capacity.len();
        Sweep {
            stamp: 0,
            t: 0.0,
            slot_of: vec![0; flows],
            free: Vec::new(),
            members: Vec::new(),
            paths: Vec::new(),
            hops: Vec::new(),
            stride,
            on_link: vec![Vec::new(); if flows > 0 { links } else { 0 }],
            links: vec![LinkMark::default(); links],
            fills: Timers::new(links),
            checks: Timers::new(flows),
            caps: Vec::new(),
            pending: Vec::new(),
            seed_links: Vec::new(),
            level: vec![None; links],
            load: capacity.iter().map(|&c| roomy::Load::new(c)).collect(),
            capacity: capacity.to_vec(),
            overfilled: false,
            event: 0,
        }
    }

    /// Flow `f` became active on `path`, at the end of each link's list.
    pub(super) fn admit(&mut self, f: u32, path: &[LinkId]) {
        let s = self.free.pop().unwrap_or_else(|| {
            self.members.push(Member { cap: 0.0, rate: 0.0, id: 0, stamp: 0, frozen: false });
            self.paths.resize(self.paths.len() + self.stride, 0);
            self.hops.push(0);
            self.members.len() as u32 - 1
        });
        self.slot_of[f as usize] = s;
        self.members[s as usize] = Member { cap: 0.0, rate: f64::NAN, id: f, stamp: 0, frozen: false };
        let at = s as usize * self.stride;
        self.paths[at..at + path.len()].copy_from_slice(path);
        self.hops[s as usize] = path.len() as u32;
        for &l in path {
            self.on_link[l as usize].push(s);
            // No rate yet.
            self.account(l, f64::NAN, 1);
        }
        self.forget_levels(path);
    }

    /// A flow left link `l`'s list from position `at`, where the engine's
    /// list moved its last flow; this list does the same.
    pub(super) fn leave_link(&mut self, l: LinkId, at: usize) {
        let s = self.on_link[l as usize].swap_remove(at);
        self.account(l, self.members[s as usize].rate, -1);
        self.level[l as usize] = None;
    }

    /// Flow `f` is no longer active (after [`Sweep::leave_link`] on its path).
    pub(super) fn dismiss(&mut self, f: u32) {
        self.free.push(self.slot_of[f as usize]);
    }

    /// Flow `f`'s installed rate is now `rate`.
    pub(super) fn set_rate(&mut self, f: u32, path: &[LinkId], rate: f64) {
        let member = &mut self.members[self.slot_of[f as usize] as usize];
        let old = std::mem::replace(&mut member.rate, rate);
        for &l in path {
            self.account(l, old, -1);
            self.account(l, rate, 1);
        }
        self.forget_levels(path);
    }

    /// Link `l` now shares `capacity` (a reservation on it began or ended:
    /// only at an event of a flow crossing it, so it is one of the event's
    /// links, dirty from the start of the sweep).
    pub(super) fn set_capacity(&mut self, l: LinkId, capacity: f64) {
        self.capacity[l as usize] = capacity;
        self.load[l as usize].set_capacity(capacity);
        self.level[l as usize] = None;
    }

    /// Drop what a sweep stopped half way left pending.
    fn abandon(&mut self) {
        self.fills.clear();
        self.checks.clear();
        self.pending.clear();
    }

    /// Forget the installed fill level of `links` (their flows or rates changed).
    fn forget_levels(&mut self, links: &[LinkId]) {
        for &l in links {
            self.level[l as usize] = None;
        }
    }

    /// The links of slot `s`, as a range of `paths`.
    fn path(&self, s: u32) -> std::ops::Range<usize> {
        let at = s as usize * self.stride;
        at..at + self.hops[s as usize] as usize
    }
}

/// Whether a link with this mark is dirty in the sweep `stamp`.
fn mark_dirty(m: LinkMark, stamp: u32) -> bool {
    m.stamp == stamp && m.dirty
}

/// Equal within `SAME`; an infinite level equals only itself.
fn same(a: f64, b: f64) -> bool {
    a == b || (a.is_finite() && b.is_finite() && (a - b).abs() <= SAME * a.abs().max(b.abs()))
}

impl Engine {
    /// Max-min fair rates after `seeds` arrived or left: the flows whose
    /// rates change go into `component` with their rates in `new_rate`.
    /// The sweep leaves the roomy links out, and runs again keeping in those
    /// its rates would overfill, until none is ([`roomy`]).
    pub(super) fn fair_sweep(&mut self, seeds: &[u32]) {
        self.sweep.next_event();
        loop {
            self.sweep.overfilled = false;
            self.level_sweep(seeds);
            if !self.sweep.overfilled {
                break;
            }
            self.counters.sweeps_redone += 1;
        }
    }

    /// One sweep of [`Engine::fair_sweep`].
    fn level_sweep(&mut self, seeds: &[u32]) {
        self.sweep.stamp = self.sweep.stamp.wrapping_add(1);
        if self.sweep.stamp == 0 {
            // Wrapped: forget every mark rather than mistake an old one for current.
            self.sweep.members.iter_mut().for_each(|m| m.stamp = 0);
            self.sweep.links.iter_mut().for_each(|m| m.stamp = 0);
            self.sweep.stamp = 1;
        }
        self.component.clear();
        self.sweep.t = 0.0;
        for &f in seeds {
            if self.is_active(f) {
                // An arrival: no old rate, so it deviates from the start.
                self.mark_flow(self.sweep.slot_of[f as usize]);
            }
        }
        // The event changed these links' flows: their old levels mean
        // nothing, so they are all dirty before any cap is taken.
        let mut links = std::mem::take(&mut self.sweep.seed_links);
        links.clear();
        links.extend(seeds.iter().flat_map(|&f| self.flows.path(f)));
        links.sort_unstable();
        links.dedup();
        for &l in &links {
            self.link_mark(l).dirty = true;
            self.sweep.keep_in(l);
        }
        for &l in &links {
            self.spread(l, 0.0, None);
        }
        self.sweep.seed_links = links;
        let mut t = 0.0;
        loop {
            self.evaluate_pending(t);
            let (fill, check) = (self.sweep.fills.peek_time(), self.sweep.checks.peek_time());
            let fill_first = match (fill, check) {
                (None, None) => break,
                (Some(f), Some(c)) => f <= c,
                (f, _) => f.is_some(),
            };
            if fill_first {
                let level = fill.expect("a fill is due");
                let l = self.sweep.fills.pop_due(level).expect("peeked");
                if std::mem::take(&mut self.link_mark(l).deferred) {
                    self.defer(l, level.value());
                    continue;
                }
                self.counters.sweep_steps += 1;
                t = level.value();
                self.sweep.t = t;
                self.fill_link(l, t);
                if self.sweep.overfilled {
                    self.sweep.abandon();
                    return;
                }
            } else {
                self.counters.sweep_steps += 1;
                let level = check.expect("a check is due");
                t = level.value();
                self.sweep.t = t;
                let f = self.sweep.checks.pop_due(level).expect("peeked");
                self.check_unfrozen(self.sweep.slot_of[f as usize], t);
            }
        }
        self.counters.frozen += self.component.len() as u64;
    }

    fn link_mark(&mut self, l: LinkId) -> &mut LinkMark {
        let stamp = self.sweep.stamp;
        let m = &mut self.sweep.links[l as usize];
        if m.stamp != stamp {
            *m = LinkMark { stamp, ..LinkMark::default() };
        }
        m
    }

    fn is_dirty(&self, l: LinkId) -> bool {
        mark_dirty(self.sweep.links[l as usize], self.sweep.stamp)
    }

    fn mark_flow(&mut self, s: u32) {
        let m = &mut self.sweep.members[s as usize];
        (m.stamp, m.frozen, m.cap) = (self.sweep.stamp, false, f64::INFINITY);
    }

    /// The level at which `l` filled in the installed allocation: its largest
    /// rate if it is saturated, else infinite. Only asked of clean links,
    /// whose flows and rates are the installed ones.
    fn old_level(&mut self, l: LinkId) -> f64 {
        if let Some(level) = self.sweep.level[l as usize] {
            return level;
        }
        let (mut load, mut max) = (0.0f64, 0.0f64);
        for &s in &self.sweep.on_link[l as usize] {
            let r = self.sweep.members[s as usize].rate;
            load += r;
            max = max.max(r);
        }
        let level = if load >= self.sweep.capacity[l as usize] * (1.0 - 1e-11) { max } else { f64::INFINITY };
        self.sweep.level[l as usize] = Some(level);
        level
    }

    /// Lowest old level among the clean links of slot `s`.
    fn clean_cap(&mut self, s: u32) -> f64 {
        let mut cap = f64::INFINITY;
        for k in self.sweep.path(s) {
            let l = self.sweep.paths[k];
            // A roomy link left out never filled: its old level is infinite.
            if !self.is_dirty(l) && !self.left_out(l) {
                cap = cap.min(self.old_level(l));
            }
        }
        cap
    }
    /// `l` behaves differently from level `t` on. A link that had already
    /// filled below `t` has frozen all its flows: nothing on it can change
    /// any more, and it stays clean. Callers pass no link the sweep left out
    /// (they tell those apart once, [`roomy`]).
    fn make_dirty(&mut self, l: LinkId, t: f64) {
        debug_assert!(!self.left_out(l), "link {l} is left out of the sweep");
        if self.is_dirty(l) {
            return;
        }
        let level = self.old_level(l);
        if level == f64::INFINITY {
            self.watch(l);
            return;
        }
        let below = level < t * (1.0 - SAME);
        let mark = self.link_mark(l);
        if below {
            // Still clean: its old level keeps anchoring the flows it froze.
            mark.done = true;
            return;
        }
        mark.dirty = true;
        self.spread(l, t, Some(level));
    }

    /// Dirty link `l`'s flows lose it from their caps; a flow that loses
    /// the clean link that froze it is checked at its old rate. Every link
    /// whose flows' caps changed, `l` included, gets a new tentative level.
    /// `level`: `l`'s old level (`None` for the event's own links, whose
    /// old level means nothing). A flow whose cap is below it keeps its cap
    /// (it was not `l`'s to give); an untouched flow's cap is its old rate,
    /// the lowest old level on its path, all of whose other links are
    /// clean (a dirty one would have touched it).
    fn spread(&mut self, l: LinkId, t: f64, level: Option<f64>) {
        for k in 0..self.sweep.on_link[l as usize].len() {
            let g = self.sweep.on_link[l as usize][k];
            let m = self.sweep.members[g as usize];
            let fresh = m.stamp != self.sweep.stamp;
            if !fresh && m.frozen {
                continue;
            }
            let old = m.rate;
            let before = if fresh { old } else { m.cap };
            if fresh {
                self.mark_flow(g);
            }
            if level.is_some_and(|level| level > before * (1.0 + SAME)) {
                self.sweep.members[g as usize].cap = before;
                continue;
            }
            let cap = self.clean_cap(g);
            self.sweep.members[g as usize].cap = cap;
            if !same(cap, before) {
                // Not yet past its old rate (the check of a released flow
                // runs just above it): check it there.
                if !same(cap, old) && old >= t * (1.0 - 4.0 * SAME) {
                    // Just above the old rate: a fill within rounding of
                    // it (the flow keeps its rate) goes first.
                    let at = (old * (1.0 + 2.0 * SAME)).max(t);
                    self.sweep.checks.set(m.id, Some(Level::of(at)));
                }
                self.reevaluate_links_of(g);
            }
        }
        self.reevaluate(l);
    }

    /// Ask for a new tentative level of `l` if it is dirty and unfilled;
    /// check the demand of a watched link.
    fn reevaluate(&mut self, l: LinkId) {
        let m = self.link_mark(l);
        if m.dirty {
            if !m.done && !m.pending {
                m.pending = true;
                self.sweep.pending.push(l);
            }
        } else if m.watched {
            self.watch(l);
        }
    }

    fn reevaluate_links_of(&mut self, s: u32) {
        for k in self.sweep.path(s) {
            self.reevaluate(self.sweep.paths[k]);
        }
    }

    /// New tentative levels for the links whose flows changed at level `t`:
    /// once per link however many of its flows changed.
    fn evaluate_pending(&mut self, t: f64) {
        while let Some(l) = self.sweep.pending.pop() {
            self.sweep.links[l as usize].pending = false;
            if !self.sweep.links[l as usize].done {
                self.evaluate(l, t);
            }
        }
    }

    /// Tentative fill level of dirty link `l`, no lower than the sweep's
    /// level `t`: water-fill over its capacity, flows frozen by the sweep at
    /// their new rates, the others at min(cap, level).
    fn evaluate(&mut self, l: LinkId, t: f64) {
        self.counters.water_fills += 1;
        let (stamp, marks) = (self.sweep.stamp, &self.sweep.members);
        let mut rest = self.sweep.capacity[l as usize];
        // The unfrozen flows' caps in increasing order, each inserted in
        // place as it is read (a link carries a few flows).
        let caps = &mut self.sweep.caps;
        caps.clear();
        for &g in &self.sweep.on_link[l as usize] {
            let mark = &marks[g as usize];
            if mark.stamp == stamp && mark.frozen {
                rest -= mark.cap;
            } else {
                let mut at = caps.len();
                caps.push(mark.cap);
                while at > 0 && caps[at - 1].total_cmp(&mark.cap).is_gt() {
                    caps[at] = caps[at - 1];
                    at -= 1;
                }
                caps[at] = mark.cap;
            }
        }
        let mut level = f64::INFINITY;
        let mut unfrozen = caps.len();
        for &c in caps.iter() {
            let share = rest / unfrozen as f64;
            if c >= share {
                level = share;
                break;
            }
            rest -= c;
            unfrozen -= 1;
        }
        self.sweep.fills.set(l, level.is_finite().then(|| Level::of(level.max(t))));
    }

    /// Dirty link `l` fills at `level`: it freezes its unfrozen flows whose
    /// cap is not below the level (a lower cap is a clean link that freezes
    /// the flow at its old rate first). A flow frozen at a new rate makes
    /// its clean links dirty; its dirty links see the new rate.
    fn fill_link(&mut self, l: LinkId, level: f64) {
        self.link_mark(l).done = true;
        for k in 0..self.sweep.on_link[l as usize].len() {
            let g = self.sweep.on_link[l as usize][k];
            let mark = &mut self.sweep.members[g as usize];
            if mark.frozen || mark.cap < level * (1.0 - SAME) {
                continue;
            }
            let old = mark.rate;
            let kept = same(level, old);
            let rate = if kept { old } else { level };
            (mark.frozen, mark.cap) = (true, rate);
            self.new_rate[mark.id as usize] = rate;
            self.component.push(mark.id);
            for k in self.sweep.path(g) {
                let m = self.sweep.paths[k];
                if self.left_out(m) {
                    if !kept {
                        self.shift_roomy(m, rate - old);
                    }
                    continue;
                }
                let mark = self.sweep.links[m as usize];
                if mark.stamp == self.sweep.stamp && mark.watched && !mark.dirty {
                    // A watched link's demand counted the flow at its cap,
                    // which the freeze does not exceed (but for rounding,
                    // far below the margin): the link still cannot fill.
                    continue;
                }
                if !kept && !mark_dirty(mark, self.sweep.stamp) {
                    self.make_dirty(m, level);
                } else {
                    self.reevaluate(m);
                }
            }
        }
    }

    /// The sweep reached the old rate of the flow in slot `s`, whose old
    /// bottleneck turned dirty. If no link froze it there, it will get a
    /// higher rate: its clean links behave differently from here on.
    fn check_unfrozen(&mut self, s: u32, level: f64) {
        let mark = self.sweep.members[s as usize];
        if mark.frozen || mark.cap <= level {
            return;
        }
        self.counters.released += 1;
        for k in self.sweep.path(s) {
            let m = self.sweep.paths[k];
            if !self.left_out(m) {
                self.make_dirty(m, level);
            }
        }
    }
}
