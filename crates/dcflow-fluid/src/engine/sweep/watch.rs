//! Watched links: clean links, unsaturated in the installed allocation,
//! whose flows moved. Their demand is checked rather than their level
//! computed, and a link whose demand reaches its capacity waits at a lower
//! bound of its level ([`Engine::watch`], [`Engine::defer`]).

use super::*;

impl Engine {
    /// Clean link `l`, unsaturated in the installed allocation (its old
    /// level is infinite) but not roomy ([`super::roomy`]: those are left
    /// out), has a flow that moved. As a dirty link it would cost a spread
    /// and a water-fill per move of any of its flows. While their demand
    /// (flows frozen by the sweep at their new rates, the others at their
    /// caps, untouched ones at their old rates) stays below capacity by a
    /// margin far above rounding, the water-fill would give an infinite
    /// level: the link cannot fill, and as an unsaturated clean link it
    /// adds nothing to any flow's cap, so it stays clean and is only
    /// watched. Once the demand reaches the margin, it waits for the sweep
    /// to come up to it ([`Engine::defer`]).
    pub(super) fn watch(&mut self, l: LinkId) {
        let mark = self.link_mark(l);
        mark.watched = true;
        if !mark.deferred {
            self.defer(l, self.sweep.t);
        }
    }

    /// Watched link `l`'s demand reached its capacity (or it came up in
    /// `fills` at `floor`, a lower bound of its level). As a dirty link it
    /// would be water-filled again at every move of its flows, yet most such
    /// links never fill: their flows freeze on their other links first, at
    /// lower levels. Its level is at least the plain share (capacity minus
    /// the frozen flows' rates, over the others: each counts at most the
    /// level), which only rises as the sweep freezes flows below it; so it
    /// waits in `fills` at that share (less a margin far above rounding),
    /// untouched, and is looked at again only when the sweep comes up to
    /// it: then it stays watched, waits at a higher share, or turns dirty,
    /// and its exact level is the one it would have had (at least the share,
    /// so at least the level it came up at). Fills come in the same order.
    /// It turns dirty exactly as it would have been: the spread of a link
    /// with an infinite old level leaves every cap as it was (it only marks
    /// its untouched flows at their old rates, which is what an untouched
    /// flow counts as everywhere), and its tentative level is computed in
    /// the same step. The sweep's fills, and so the rates, are unchanged
    /// bit for bit.
    #[allow(clippy::neg_cmp_op_on_partial_ord)] // NaN must count as reaching capacity
    pub(super) fn defer(&mut self, l: LinkId, floor: f64) {
        let stamp = self.sweep.stamp;
        let (mut demand, mut frozen, mut unfrozen) = (0.0, 0.0, 0u32);
        for &g in &self.sweep.on_link[l as usize] {
            let m = &self.sweep.members[g as usize];
            if m.stamp != stamp {
                demand += m.rate;
                unfrozen += 1;
            } else {
                demand += m.cap;
                if m.frozen {
                    frozen += m.cap;
                } else {
                    unfrozen += 1;
                }
            }
        }
        let capacity = self.sweep.capacity[l as usize];
        // Negated so that an infinite cap or a flow with no rate yet (NaN) counts as reaching it.
        if !(demand < capacity * (1.0 - WATCH_MARGIN)) {
            let share = (capacity - frozen) / unfrozen as f64 * (1.0 - WATCH_MARGIN);
            if unfrozen > 0 && share > floor {
                self.counters.deferred += 1;
                self.link_mark(l).deferred = true;
                self.sweep.fills.set(l, Some(Level::of(share)));
            } else {
                self.link_mark(l).dirty = true;
                self.spread(l, 0.0, Some(f64::INFINITY));
            }
        }
    }
}
