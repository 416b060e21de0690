//! Rate allocation over one connected component of flows and links: max-min
//! fair progressive filling, and PDQ §3's centralized algorithm over a
//! priority order. Both write into `rate[f]` and consume `residual[l]`, the
//! capacity each link still has (the caller sets it for the component's links).

use dcflow_core::LinkId;
use std::cmp::Ordering;
use std::collections::BinaryHeap;

/// A link's fair level when it was pushed, in a min-heap. Levels only rise
/// during filling (freezing flows at the lowest level s leaves every other
/// link's residual / unfrozen at least what it was), so an entry is a lower
/// bound: when popped it is re-checked and re-pushed if the level has risen.
struct Level {
    share: f64,
    link: LinkId,
}
impl PartialEq for Level {
    fn eq(&self, o: &Self) -> bool {
        self.cmp(o) == Ordering::Equal
    }
}
impl Eq for Level {}
impl PartialOrd for Level {
    fn partial_cmp(&self, o: &Self) -> Option<Ordering> {
        Some(self.cmp(o))
    }
}
impl Ord for Level {
    /// Reversed: the max-heap pops the lowest share, then the lowest link id.
    fn cmp(&self, o: &Self) -> Ordering {
        o.share.total_cmp(&self.share).then(o.link.cmp(&self.link))
    }
}

/// Scratch space for progressive filling, reused across recomputations.
pub struct MaxMin {
    unfrozen: Vec<u32>,
    frozen_epoch: Vec<u32>,
    epoch: u32,
    heap: BinaryHeap<Level>,
    capped: Vec<(f64, u32)>,
    /// Per link, the most its flows could take.
    demand: Vec<f64>,
}

impl MaxMin {
    pub fn new(links: usize, flows: usize) -> MaxMin {
        MaxMin {
            unfrozen: vec![0; links],
            frozen_epoch: vec![0; flows],
            epoch: 0,
            heap: BinaryHeap::new(),
            capped: Vec::new(),
            demand: vec![0.0; links],
        }
    }

    /// Max-min fair rates for `flows` (every flow on each of `links` must be
    /// among them) by progressive filling: raise all rates together; when a
    /// link fills (or a flow reaches its cap `cap(f)`), freeze its flows at
    /// the level reached and go on with the rest. Each step takes the link
    /// with the lowest level residual / unfrozen flows, so the cost is
    /// O((flows x path + links) log links).
    #[allow(clippy::too_many_arguments)]
    pub fn fill<'a>(
        &mut self,
        flows: &[u32],
        links: &[LinkId],
        link_flows: &[Vec<u32>],
        path: impl Fn(u32) -> &'a [LinkId],
        cap: impl Fn(u32) -> f64,
        residual: &mut [f64],
        rate: &mut [f64],
    ) {
        self.epoch = self.epoch.wrapping_add(1);
        let epoch = self.epoch;
        self.heap.clear();
        self.capped.clear();
        for &l in links {
            self.unfrozen[l as usize] = 0;
        }
        for &f in flows {
            for &l in path(f) {
                self.unfrozen[l as usize] += 1;
            }
        }
        // A link whose residual exceeds what its flows could ever take (each
        // at most the smallest residual on its path) never fills: no need to
        // watch its level. Every flow keeps the link of its smallest residual.
        for &l in links {
            self.demand[l as usize] = 0.0;
        }
        for &f in flows {
            let most = path(f).iter().map(|&l| residual[l as usize]).fold(cap(f), f64::min).max(0.0);
            for &l in path(f) {
                self.demand[l as usize] += most;
            }
        }
        for &l in links {
            let slack = residual[l as usize] > self.demand[l as usize] * (1.0 + 1e-9) + 1e-3;
            if self.unfrozen[l as usize] > 0 && !slack {
                self.push(l, residual);
            }
        }
        for &f in flows {
            let c = cap(f);
            if c.is_finite() {
                self.capped.push((c, f));
            }
        }
        self.capped.sort_by(|a, b| b.0.total_cmp(&a.0).then(b.1.cmp(&a.1)));
        loop {
            // Settle the top: drop links with no unfrozen flow left, re-push risen levels.
            while let Some(top) = self.heap.peek() {
                let l = top.link as usize;
                if self.unfrozen[l] == 0 {
                    self.heap.pop();
                } else if self.level(l, residual) > top.share * (1.0 + 1e-12) + 1e-9 {
                    self.heap.pop();
                    self.push(l as LinkId, residual);
                } else {
                    break;
                }
            }
            while self.capped.last().is_some_and(|&(_, f)| self.frozen_epoch[f as usize] == epoch) {
                self.capped.pop();
            }
            let link_level = self.heap.peek().map(|t| t.share);
            let cap_level = self.capped.last().map(|c| c.0);
            match (link_level, cap_level) {
                (None, None) => break,
                (Some(_), c) if c.is_none_or(|c| self.level(self.heap.peek().expect("peeked").link as usize, residual) <= c) => {
                    let l = self.heap.pop().expect("peeked").link;
                    let s = self.level(l as usize, residual);
                    for &f in &link_flows[l as usize] {
                        if self.frozen_epoch[f as usize] != epoch {
                            self.freeze(f, s, path(f), residual, rate);
                        }
                    }
                }
                (_, Some(c)) => {
                    let (_, f) = self.capped.pop().expect("peeked");
                    self.freeze(f, c, path(f), residual, rate);
                }
                (Some(_), None) => unreachable!("the guarded arm takes a link level without caps"),
            }
        }
    }

    fn level(&self, l: usize, residual: &[f64]) -> f64 {
        (residual[l] / self.unfrozen[l] as f64).max(0.0)
    }

    fn push(&mut self, l: LinkId, residual: &[f64]) {
        let share = self.level(l as usize, residual);
        self.heap.push(Level { share, link: l });
    }

    fn freeze(&mut self, f: u32, r: f64, path: &[LinkId], residual: &mut [f64], rate: &mut [f64]) {
        self.frozen_epoch[f as usize] = self.epoch;
        rate[f as usize] = r;
        for &m in path {
            let m = m as usize;
            residual[m] -= r;
            self.unfrozen[m] -= 1;
        }
    }
}

/// PDQ §3's centralized algorithm: "for each flow i, in increasing order of
/// T_i ... send flow i with rate R_i^sch = min_{e in P_i}(R_i^max, B_e);
/// B_e <- B_e - R_i^sch". `order` is the priority order; R^max is implied by
/// the path's links (the NIC is the first link, the receiver the last).
pub fn greedy<'a>(order: &[u32], path: impl Fn(u32) -> &'a [LinkId], residual: &mut [f64], rate: &mut [f64]) {
    for &f in order {
        let p = path(f);
        let r = p.iter().map(|&l| residual[l as usize]).fold(f64::INFINITY, f64::min).max(0.0);
        rate[f as usize] = r;
        for &l in p {
            residual[l as usize] -= r;
        }
    }
}
