//! Roomy links: the links a sweep leaves out.
//!
//! Most links a sweep reaches are far from full (on the fat-tree benchmarks
//! the bottlenecks are host links), and the sweep spent most of its work on
//! them: a link is watched, and its demand summed, whenever one of its flows
//! moves. A *roomy* link, loaded to at most [`ROOMY`] of its capacity under
//! the installed rates, did not fill in the installed allocation, so that
//! allocation is also the max-min fair one of the network without the roomy
//! links, where the sweep is exact. So the sweep leaves them out (never the
//! event's own links: a link that a leaving flow made roomy may have been
//! full). Each rate the sweep changes is added to the roomy links the flow
//! crosses. If every such link stays below its capacity by the watch
//! margin, every flow has its bottleneck among the links the sweep kept,
//! and the rates, feasible everywhere, are the network's max-min fair
//! rates; and since a left-out link never fills, the full sweep fills the
//! same links in the same order, so they are its rates bit for bit. When
//! one does not, the sweep stops and runs again, keeping that link in.
//!
//! The installed loads are sums in fixed point, kept up to date at every
//! change of a rate: integer sums never drift, so a link is known roomy
//! without reading its flows.

use super::*;

/// A link whose installed load is at most this fraction of its capacity is
/// roomy. Higher leaves more links out and runs more sweeps again: 0.9
/// executed the fewest instructions of 0.5-0.99 on the 30,000-flow fat-tree
/// run (BENCHMARKS.md, "fair: roomy links left out").
const ROOMY: f64 = 0.9;

/// Rates are summed in fixed point with 20 fractional bits (one machine
/// conversion per rate), each rounded up: a sum is never below the exact
/// sum of its rates (and at most 2^-20 per flow above it), and since a
/// rate rounds the same way each time, a sum it leaves returns to what it
/// was. Links of 2^40 b/s (1.1 Tb/s) or more are never roomy, so no rate
/// read in a sum overflows it.
const FIXED_ONE: f64 = (1u64 << 20) as f64;
const FIXED_MAX_CAPACITY: f64 = (1u64 << 40) as f64;

fn fixed(rate: f64) -> i64 {
    (rate * FIXED_ONE) as i64 + 1
}

/// A link's installed load.
#[derive(Clone, Copy)]
pub(super) struct Load {
    /// The sum of its flows' installed rates, in fixed point.
    installed: i64,
    /// The installed load up to which it is roomy (-1: never).
    roomy_up_to: i64,
    /// The load that a left-out link must stay below: its capacity less
    /// the watch margin, less a slack of 1e-10, far above the rounding of
    /// a sum over the link's flows.
    full_at: f64,
    /// Its flows with no rate yet (arrivals before their first sweep).
    unrated: u32,
    /// The event whose sweep left the link out and overfilled it: that
    /// event's next sweep keeps it in.
    kept_in: u32,
}

impl Load {
    pub(super) fn new(capacity: f64) -> Load {
        let mut load = Load { installed: 0, roomy_up_to: -1, full_at: 0.0, unrated: 0, kept_in: 0 };
        load.set_capacity(capacity);
        load
    }

    /// The link's capacity is now `capacity` (its flows and their rates are the same).
    pub(super) fn set_capacity(&mut self, capacity: f64) {
        self.roomy_up_to = if capacity < FIXED_MAX_CAPACITY { fixed(capacity * ROOMY) } else { -1 };
        self.full_at = capacity * (1.0 - WATCH_MARGIN) / (1.0 + 1e-10);
    }
}

impl Sweep {
    /// Add (`sign` 1) or take away (-1) `rate` from link `l`'s installed load.
    pub(super) fn account(&mut self, l: LinkId, rate: f64, sign: i64) {
        let load = &mut self.load[l as usize];
        if load.roomy_up_to < 0 {
            // Never roomy: its sum is never read, and its rates may not fit.
            return;
        }
        if rate.is_finite() {
            load.installed = load.installed.wrapping_add(sign.wrapping_mul(fixed(rate)));
        } else {
            load.unrated = load.unrated.wrapping_add_signed(sign as i32);
        }
    }

    /// Link `l` is kept in for the rest of this event.
    pub(super) fn keep_in(&mut self, l: LinkId) {
        self.load[l as usize].kept_in = self.event;
    }

    /// A new event: no link is kept in yet.
    pub(super) fn next_event(&mut self) {
        self.event = self.event.wrapping_add(1);
        if self.event == 0 {
            // Wrapped: forget every mark rather than mistake an old one for current.
            self.load.iter_mut().for_each(|load| load.kept_in = 0);
            self.event = 1;
        }
    }
}

impl Engine {
    /// Whether this sweep leaves link `l` out: it is roomy and not kept in
    /// (the event's own links are, from the start).
    pub(super) fn left_out(&self, l: LinkId) -> bool {
        let load = self.sweep.load[l as usize];
        load.unrated == 0 && load.installed <= load.roomy_up_to && load.kept_in != self.sweep.event
    }

    /// A flow crossing left-out link `l` was frozen at a rate `delta` off its
    /// installed one. The link must stay below its capacity by the watch
    /// margin once every flow is frozen. When it does not now, the sweep
    /// stops and runs again with the link kept in: flows frozen later might
    /// lower the load again, which costs a needless second sweep, but
    /// stopping at once saves the rest of a sweep that is likely thrown
    /// away. A sweep that never stops has checked each link its rates
    /// changed after the last change to it.
    #[allow(clippy::neg_cmp_op_on_partial_ord)] // NaN must count as overfilling
    pub(super) fn shift_roomy(&mut self, l: LinkId, delta: f64) {
        let mark = self.link_mark(l);
        mark.shift += delta;
        let shift = mark.shift;
        let load = self.sweep.load[l as usize];
        if !(load.installed as f64 / FIXED_ONE + shift < load.full_at) {
            self.sweep.keep_in(l);
            self.sweep.overfilled = true;
        }
    }
}
