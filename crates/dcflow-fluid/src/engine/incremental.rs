//! Incremental rate recomputation: the maintained priority order of the key
//! disciplines and the certified regions of max-min fairness. A child module
//! of the engine, so it works on the engine's own state.

use super::*;

impl Engine {
    /// Ordered disciplines whose priority is a per-flow key (srpt, sjf, edf,
    /// fifo, PDQ's model): the greedy walk over every active flow in priority order. The
    /// order is kept between recomputations and re-sorted by insertion (keys
    /// drift only between events, so it is nearly sorted): O(active x path)
    /// with no allocation, no component search and no comparison sort.
    /// (Flows of other components do not interact under the greedy walk, so
    /// this equals the per-component walk at this instant.)
    pub(super) fn ordered_global(&mut self, kind: Order, seeds: &[u32]) {
        let now = self.now;
        let phase = &self.flows.phase;
        let in_order = &mut self.in_order;
        self.order.retain(|&f| {
            let keep = phase[f as usize] == Phase::Active;
            if !keep {
                in_order[f as usize] = false;
            }
            keep
        });
        for &f in seeds {
            if phase[f as usize] == Phase::Active && !in_order[f as usize] {
                in_order[f as usize] = true;
                self.order.push(f);
            }
        }
        self.keyed.clear();
        for k in 0..self.order.len() {
            let f = self.order[k];
            self.flows.advance(f, now);
            let flows = &self.flows;
            let key = match kind {
                Order::Srpt => (priority::time_left(flows, f), 0.0),
                Order::Sjf => (flows.work[f as usize] / flows.bottleneck[f as usize], 0.0),
                Order::Fifo => (0.0, 0.0),
                // PDQ's comparator (crate::pdq): deadline, then the sender's key.
                Order::Pdq(keys) => {
                    let (deadline, crit, _) = keys.key(flows, f, now);
                    (deadline as f64, crit as f64)
                }
                _ => (
                    priority::deadline_left(flows, f, now).unwrap_or(f64::INFINITY),
                    priority::time_left(flows, f),
                ),
            };
            self.keyed.push((key.0, key.1, f));
        }
        let before = |a: &(f64, f64, u32), b: &(f64, f64, u32)| {
            a.0.total_cmp(&b.0).then(a.1.total_cmp(&b.1)).then(a.2.cmp(&b.2)) == std::cmp::Ordering::Less
        };
        let keyed = &mut self.keyed;
        for i in 1..keyed.len() {
            let mut j = i;
            while j > 0 && before(&keyed[j], &keyed[j - 1]) {
                keyed.swap(j, j - 1);
                j -= 1;
            }
        }
        self.component.clear();
        for (k, e) in self.keyed.iter().enumerate() {
            self.order[k] = e.2;
            self.component.push(e.2);
        }
        for &f in &self.order {
            for &l in self.flows.path(f) {
                self.residual[l as usize] = self.capacity[l as usize];
            }
        }
        let flows = &self.flows;
        greedy(&self.order, |f| flows.path(f), &mut self.residual, &mut self.new_rate);
    }

    /// Max-min fair rates, recomputed over the fewest flows that can change.
    ///
    /// The max-min allocation is the unique feasible one in which every flow
    /// has a bottleneck: a saturated link on which no flow has a higher rate
    /// (Bertsekas & Gallager §6.5). Start from S = the flows on the links of
    /// the flows that arrived or left; fill S over the capacity the other
    /// flows leave; then check the bottleneck condition for every flow on a
    /// link of S (flows elsewhere see no change). A fixed flow that fails it
    /// joins S; an S flow that fails it (a fixed flow on its link is faster)
    /// brings in the flows of its links. Repeat until every flow passes: the
    /// result is then exactly the max-min allocation (the check is the
    /// certificate), usually after touching a few flows. If S grows past
    /// a quarter of the active flows, or takes more than 4 rounds, fill
    /// everything from scratch.
    pub(super) fn fair_incremental(&mut self, seeds: &[u32]) {
        self.stamp += 1;
        let stamp = self.stamp;
        self.component.clear();
        self.component_links.clear();
        for &f in seeds {
            for hop in 0..self.flows.path(f).len() {
                self.add_link_flows(self.flows.path(f)[hop], stamp);
            }
        }
        let mut rounds = 0;
        loop {
            // (Tests verify the incremental path itself: no fallback there.)
            if !self.verify && (self.component.len() * 4 > self.active.max(16) || rounds > 4) {
                self.counters.fallbacks += 1;
                self.recompute_from_scratch(&[], true, false);
                return;
            }
            let (seen, rate) = (&self.seen_flow, &self.flows.rate);
            for &l in &self.component_links {
                let fixed: f64 = self.link_flows[l as usize]
                    .iter()
                    .filter(|&&g| seen[g as usize] != stamp)
                    .map(|&g| rate[g as usize])
                    .sum();
                self.residual[l as usize] = self.capacity[l as usize] - fixed;
            }
            let flows = &self.flows;
            self.fill.fill(
                &self.component,
                &self.component_links,
                &self.link_flows,
                |f| flows.path(f),
                |f| seen[f as usize] == stamp,
                |_| f64::INFINITY,
                &mut self.residual,
                &mut self.new_rate,
            );
            // Certify.
            self.round = self.round.wrapping_add(1);
            self.violators.clear();
            for k in 0..self.component_links.len() {
                let l = self.component_links[k] as usize;
                for j in 0..self.link_flows[l].len() {
                    let g = self.link_flows[l][j];
                    if self.checked[g as usize] == stamp {
                        continue;
                    }
                    self.checked[g as usize] = stamp;
                    if !self.has_bottleneck(g, stamp) {
                        self.violators.push(g);
                    }
                }
            }
            if self.violators.is_empty() {
                return;
            }
            self.counters.expansions += 1;
            // Re-check everything in the next round.
            let violators = std::mem::take(&mut self.violators);
            self.stamp_checked_reset();
            // Grow by whole links (fewer rounds than flow by flow).
            for &g in &violators {
                self.add_flow(g, stamp);
                for hop in 0..self.flows.path(g).len() {
                    self.add_link_flows(self.flows.path(g)[hop], stamp);
                }
            }
            rounds += 1;
            self.violators = violators;
        }
    }

    /// Forget which flows were certified (a new round re-checks them all).
    fn stamp_checked_reset(&mut self) {
        for k in 0..self.component_links.len() {
            let l = self.component_links[k] as usize;
            for &g in &self.link_flows[l] {
                self.checked[g as usize] = 0;
            }
        }
    }

    fn add_link_flows(&mut self, l: LinkId, stamp: u32) {
        if self.seen_link[l as usize] != stamp {
            self.seen_link[l as usize] = stamp;
            self.component_links.push(l);
        }
        for k in 0..self.link_flows[l as usize].len() {
            let g = self.link_flows[l as usize][k];
            self.add_flow(g, stamp);
        }
    }

    fn add_flow(&mut self, g: u32, stamp: u32) {
        if self.seen_flow[g as usize] == stamp {
            return;
        }
        self.seen_flow[g as usize] = stamp;
        self.component.push(g);
        for &m in self.flows.path(g) {
            if self.seen_link[m as usize] != stamp {
                self.seen_link[m as usize] = stamp;
                self.component_links.push(m);
            }
        }
    }

    /// Whether `g` has a bottleneck under the tentative rates (`new_rate`
    /// for flows of the current set, the installed rate for the others).
    /// Per-link load and maximum are computed once per certification round.
    fn has_bottleneck(&mut self, g: u32, stamp: u32) -> bool {
        let r = if self.seen_flow[g as usize] == stamp { self.new_rate[g as usize] } else { self.flows.rate[g as usize] };
        let round = self.round;
        let p = self.flows.path_range(g);
        for k in p {
            let l = self.flows.link_at(k) as usize;
            if self.stat_round[l] != round {
                self.stat_round[l] = round;
                let (mut load, mut max) = (0.0f64, 0.0f64);
                for &x in &self.link_flows[l] {
                    let q = if self.seen_flow[x as usize] == stamp { self.new_rate[x as usize] } else { self.flows.rate[x as usize] };
                    load += q;
                    max = max.max(q);
                }
                self.link_load[l] = load;
                self.link_max[l] = max;
            }
            if self.link_load[l] >= self.capacity[l] * (1.0 - 1e-11) && r >= self.link_max[l] * (1.0 - 1e-11) {
                return true;
            }
        }
        false
    }
}
