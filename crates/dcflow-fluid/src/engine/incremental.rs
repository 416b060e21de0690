//! Incremental max-min fair rates over certified regions. A child module
//! of the engine, so it works on the engine's own state.

use super::*;

impl Engine {
    /// Max-min fair rates, recomputed over the fewest flows that can change.
    ///
    /// The max-min allocation is the unique feasible one in which every flow
    /// has a bottleneck: a saturated link on which no flow has a higher rate
    /// (Bertsekas & Gallager §6.5). Start from S = the flows on the links of
    /// the flows that arrived or left; fill S over the capacity the other
    /// flows leave; then check the bottleneck condition for every flow on a
    /// changed link: one whose flows or rates differ from the installed
    /// allocation (flows elsewhere see no change, and the installed
    /// allocation gave each of them a bottleneck). A fixed flow that fails it
    /// joins S; an S flow that fails it (a fixed flow on the link that froze
    /// it is faster) brings in the faster fixed flows of that link. Repeat until every
    /// flow passes: the result is then exactly the max-min allocation (the
    /// check is the certificate), usually after touching a few flows. The
    /// check skips a flow whose last known bottleneck has the same flows at
    /// the same rates as before: it is still its bottleneck.
    /// Once the rounds have filled twice as many flows as are active, fill
    /// everything from scratch instead.
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
        let mut work = 0;
        loop {
            // (Tests verify the incremental path itself: no fallback there.)
            work += self.component.len();
            self.counters.refilled += self.component.len() as u64;
            if !self.verify && work > 2 * self.active.max(16) {
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
            self.note_changed_links(seeds, stamp);
            self.violators.clear();
            self.found_bneck.clear();
            // Flows with no changed link keep the bottleneck they had.
            let round = self.round;
            for k in 0..self.changed_links.len() {
                let l = self.changed_links[k] as usize;
                for j in 0..self.link_flows[l].len() {
                    let g = self.link_flows[l][j];
                    if self.checked[g as usize] == round {
                        continue;
                    }
                    self.checked[g as usize] = round;
                    if !self.has_bottleneck(g, stamp) {
                        self.violators.push(g);
                    }
                }
            }
            if self.violators.is_empty() {
                for &(g, l) in &self.found_bneck {
                    self.bneck[g as usize] = l;
                }
                return;
            }
            self.counters.expansions += 1;
            let violators = std::mem::take(&mut self.violators);
            let size = self.component.len();
            for &g in &violators {
                let frozen_by = (self.seen_flow[g as usize] == stamp).then(|| self.fill.frozen_by(g)).flatten();
                if let Some(l) = frozen_by {
                    let r = self.new_rate[g as usize];
                    for k in 0..self.link_flows[l as usize].len() {
                        let h = self.link_flows[l as usize][k];
                        if self.seen_flow[h as usize] != stamp && self.flows.rate[h as usize] > r {
                            self.add_flow(h, stamp);
                        }
                    }
                    self.add_flow(g, stamp);
                } else {
                    self.add_flow(g, stamp);
                }
            }
            self.violators = violators;
            if self.component.len() == size {
                // Nothing left to free (a failure within rounding): fill everything.
                self.counters.fallbacks += 1;
                self.recompute_from_scratch(&[], true, false);
                return;
            }
        }
    }

    /// Mark (`changed_at`) the links whose flows or rates differ between
    /// the tentative and the installed allocation: the seeds' links and
    /// those of the flows of S whose tentative rate is not the installed one.
    fn note_changed_links(&mut self, seeds: &[u32], stamp: u32) {
        let round = self.round;
        self.changed_links.clear();
        for &f in seeds.iter().chain(self.component.iter()) {
            let changed = self.seen_flow[f as usize] != stamp || self.new_rate[f as usize].to_bits() != self.flows.rate[f as usize].to_bits();
            if changed {
                for k in self.flows.path_range(f) {
                    let l = self.flows.link_at(k);
                    if self.changed_at[l as usize] != round {
                        self.changed_at[l as usize] = round;
                        self.changed_links.push(l);
                    }
                }
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
    /// A flow whose last known bottleneck (`bneck`, a bottleneck under the
    /// installed rates) is not a changed link passes at once: that link has
    /// the same flows at the same rates. Bottlenecks found here are kept
    /// (`found_bneck`) only if the round certifies.
    fn has_bottleneck(&mut self, g: u32, stamp: u32) -> bool {
        let in_set = self.seen_flow[g as usize] == stamp;
        let hint = self.bneck[g as usize];
        if hint != LinkId::MAX && self.changed_at[hint as usize] != self.round {
            return true;
        }
        let r = if in_set { self.new_rate[g as usize] } else { self.flows.rate[g as usize] };
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
                self.found_bneck.push((g, l as LinkId));
                return true;
            }
        }
        false
    }
}
