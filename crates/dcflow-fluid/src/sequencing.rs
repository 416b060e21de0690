//! Single-machine sequencing rules the ordered disciplines are built from, as
//! pure functions of (processing time, deadline) so they can be tested on the
//! papers' numbers. Times are in any one unit (the engine uses seconds:
//! remaining bits / the path's bottleneck rate, and deadline - now). S3's
//! FILTER + SLACK live with the S3 protocol (`dcflow_proto::s3::schedule`),
//! whose switch agent runs the same code.

use std::collections::BinaryHeap;

pub use dcflow_proto::s3::schedule::Job;
use dcflow_proto::s3::schedule::{fits, BySize};

/// Moore–Hodgson (Pinedo, Algorithm 3.3.1; Lawler's "1 || ΣU_j"): jobs in
/// EDF order; add each to the schedule; if the schedule now ends after the
/// job's deadline, drop the longest job scheduled so far. The kept set is
/// the largest set that meets every deadline. `jobs` must be in EDF order;
/// returns whether each is kept.
pub fn moore_hodgson(jobs: &[Job]) -> Vec<bool> {
    let mut kept = vec![true; jobs.len()];
    let mut scheduled = BinaryHeap::new();
    let mut end = 0.0;
    for (i, j) in jobs.iter().enumerate() {
        scheduled.push(BySize(j.p, i));
        end += j.p;
        if !fits(end, j.d) {
            let BySize(p, longest) = scheduled.pop().expect("just pushed");
            end -= p;
            kept[longest] = false;
        }
    }
    kept
}

/// A flow as MERP's virtual deadline generator sees it.
#[derive(Clone, Copy, Debug)]
pub struct MerpFlow {
    /// Original size.
    pub size: f64,
    /// Remaining size (rs).
    pub rest: f64,
    /// Arrival time (aT).
    pub arrival: f64,
}

/// MERP Alg. 2 (VDG) on a link of capacity `c` at time `now`: repeatedly
/// pick as the last flow the one whose expansion ratio would be smallest if
/// it went last, ((now - aT)·C + tRestSize) / size (line 8, Eq. 5), and give
/// it virtual deadline now + tRestSize / C (line 15). Returns each flow's
/// virtual deadline; sending in increasing virtual deadline minimizes the
/// maximum expansion ratio.
///
/// Each pick is the least ratio at the current tRestSize (ties: the first
/// flow), as a scan of the flows left would find it, bit for bit; a
/// tournament over the flows finds it in O(log n) per pick but for the
/// re-matches below, so a set of n flows costs O(n log n) rather than n²
/// (the engine runs this at every arrival over every flow it reaches).
pub fn merp_virtual_deadlines(flows: &[MerpFlow], c: f64, now: f64) -> Vec<f64> {
    let mut vdl = vec![0.0; flows.len()];
    let mut rest: f64 = flows.iter().map(|f| f.rest).sum();
    let mut t = Tournament::new(flows, c, now, rest);
    while let Some(last) = t.winner(rest) {
        vdl[last] = now + rest / c;
        rest -= flows[last].rest;
        t.remove(last, rest);
    }
    vdl
}

/// A kinetic tournament (a segment tree over the flows in order) for VDG's
/// picks. A flow's ratio is a line in tRestSize, (A + x) / size with
/// A = (now - aT)·C, and tRestSize only falls, which favours smaller flows:
/// a match between two flows holds until the tRestSize at which the
/// smaller one catches up (its *certificate*). Each node keeps its match's
/// winner and certificate and the highest certificate below it; a pick
/// first re-plays every match whose certificate the new tRestSize has
/// reached. Certificates are taken early by a margin far above the rounding
/// of a ratio, and a match within rounding of a tie is re-played at every
/// pick, so each winner is the one the exact ratios give.
struct Tournament<'a> {
    flows: &'a [MerpFlow],
    c: f64,
    now: f64,
    /// Leaves from `leaves` on, in flow order; `winner[0]` is unused.
    leaves: usize,
    winner: Vec<Option<u32>>,
    /// The highest certificate in the node's subtree, its own match's
    /// included: a match is re-played once tRestSize is at or below its
    /// certificate.
    highest: Vec<f64>,
}

impl<'a> Tournament<'a> {
    fn new(flows: &'a [MerpFlow], c: f64, now: f64, x: f64) -> Tournament<'a> {
        let leaves = flows.len().next_power_of_two().max(1);
        let mut t = Tournament {
            flows,
            c,
            now,
            leaves,
            winner: vec![None; 2 * leaves],
            highest: vec![f64::NEG_INFINITY; 2 * leaves],
        };
        for i in 0..flows.len() {
            t.winner[leaves + i] = Some(i as u32);
        }
        for node in (1..leaves).rev() {
            t.play(node, x);
        }
        t
    }

    /// The flow VDG's scan picks at tRestSize `x`, or `None` when no flow is left.
    fn winner(&mut self, x: f64) -> Option<usize> {
        self.replay(1, x);
        self.winner[1].map(|w| w as usize)
    }

    /// Flow `i` is picked: its leaf leaves, and its matches are re-played at `x`.
    fn remove(&mut self, i: usize, x: f64) {
        let mut node = self.leaves + i;
        self.winner[node] = None;
        while node > 1 {
            node /= 2;
            self.play(node, x);
        }
    }

    /// Re-play every match in `node`'s subtree whose certificate `x` reached.
    fn replay(&mut self, node: usize, x: f64) {
        if node >= self.leaves || self.highest[node] < x {
            return;
        }
        self.replay(2 * node, x);
        self.replay(2 * node + 1, x);
        self.play(node, x);
    }

    /// VDG's ratio of flow `i` at tRestSize `x`, as the scan computes it;
    /// NaN counts as infinite (the scan's strict `<` never picks either).
    fn ratio(&self, i: u32, x: f64) -> f64 {
        let f = &self.flows[i as usize];
        let r = ((self.now - f.arrival) * self.c + x) / f.size;
        if r.is_nan() {
            f64::INFINITY
        } else {
            r
        }
    }

    /// Play `node`'s match at `x` from its children's winners.
    fn play(&mut self, node: usize, x: f64) {
        let (l, r) = (self.winner[2 * node], self.winner[2 * node + 1]);
        let (winner, cert) = match (l, r) {
            (Some(a), Some(b)) => {
                let (ra, rb) = (self.ratio(a, x), self.ratio(b, x));
                // The scan keeps the earlier flow unless the later one is strictly less.
                let (w, o, rw, ro) = if rb < ra { (b, a, rb, ra) } else { (a, b, ra, rb) };
                (Some(w), self.certificate(w, o, rw, ro, x))
            }
            (w, None) | (None, w) => (w, f64::NEG_INFINITY),
        };
        self.winner[node] = winner;
        self.highest[node] = cert.max(self.highest[2 * node]).max(self.highest[2 * node + 1]);
    }

    /// The tRestSize at or below which `o` (ratio `ro` at `x`) may beat
    /// `w` (ratio `rw`): never if `o` is the larger flow (its line falls
    /// slower), else where the lines cross, taken early.
    #[allow(clippy::neg_cmp_op_on_partial_ord)] // NaN (infinite ratios) must take the tie's branch
    fn certificate(&self, w: u32, o: u32, rw: f64, ro: f64, x: f64) -> f64 {
        let (fw, fo) = (&self.flows[w as usize], &self.flows[o as usize]);
        if fw.size == fo.size && fw.arrival == fo.arrival {
            // One line (flows that arrived together, of one size): the
            // earlier flow wins at every tRestSize.
            return f64::NEG_INFINITY;
        }
        let rounding = 1e-12 * (rw.abs() + ro.abs());
        if !(ro - rw > rounding) {
            // A tie within rounding (or infinite ratios): re-play at every pick.
            return f64::INFINITY;
        }
        let closing = 1.0 / fo.size - 1.0 / fw.size;
        if !(closing > 0.0) {
            return f64::NEG_INFINITY;
        }
        // (A_w + x*) / s_w = (A_o + x*) / s_o, solved from the gap at x.
        let crossing = x - (ro - rw) / closing;
        crossing + 1e-6 * (crossing.abs() + x.abs()) + 4.0 * rounding / closing
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// MERP Alg. 2 as a scan of the flows left at every pick (O(n²)).
    fn vdg_by_scan(flows: &[MerpFlow], c: f64, now: f64) -> Vec<f64> {
        let mut vdl = vec![0.0; flows.len()];
        let mut left: Vec<usize> = (0..flows.len()).collect();
        let mut rest: f64 = flows.iter().map(|f| f.rest).sum();
        while !left.is_empty() {
            let ratio = |i: usize| ((now - flows[i].arrival) * c + rest) / flows[i].size;
            let (k, _) = left
                .iter()
                .enumerate()
                .fold((0, f64::INFINITY), |best, (k, &i)| if ratio(i) < best.1 { (k, ratio(i)) } else { best });
            let last = left.remove(k);
            vdl[last] = now + rest / c;
            rest -= flows[last].rest;
        }
        vdl
    }

    /// The tournament picks as the scan does, bit for bit: random sets with
    /// repeated sizes and arrivals (ties), flows that arrived together,
    /// long waits against short flows, and link rates from slow (the sizes
    /// decide, and matches change often as tRestSize falls) to fast (the
    /// waits decide).
    #[test]
    fn vdg_tournament_equals_the_scan() {
        let mut draws = 0u64;
        let mut next = |m: u64| {
            draws += 1;
            dcflow_core::mix64(draws) % m
        };
        for case in 0..1200 {
            let n = 1 + next(if case % 10 == 0 { 600 } else { 40 }) as usize;
            let sizes = [1e3, 2e3, 5e4, 1e6, 3e7];
            let flows: Vec<MerpFlow> = (0..n)
                .map(|_| {
                    let size = if case % 3 == 0 { sizes[next(5) as usize] } else { 1.0 + next(1_000_000) as f64 };
                    let rest = size * (1 + next(1000)) as f64 / 1000.0;
                    let arrival = if case % 4 == 0 { 0.5 } else { next(1000) as f64 * 1e-3 };
                    MerpFlow { size, rest, arrival }
                })
                .collect();
            let (c, now) = ([1e3, 1e6, 1e10][case / 3 % 3], 1.0 + next(100) as f64 * 1e-3);
            let (a, b) = (merp_virtual_deadlines(&flows, c, now), vdg_by_scan(&flows, c, now));
            assert!(a.iter().zip(&b).all(|(p, q)| p.to_bits() == q.to_bits()), "case {case}: {a:?} vs {b:?}");
        }
    }

    fn jobs(v: &[(f64, f64)]) -> Vec<Job> {
        v.iter().map(|&(p, d)| Job { p, d }).collect()
    }

    #[test]
    fn moore_hodgson_drops_the_fewest() {
        // PDQ Fig. 1 (A = (1, 1), B = (2, 4), C = (3, 6)): all fit.
        assert_eq!(moore_hodgson(&jobs(&[(1.0, 1.0), (2.0, 4.0), (3.0, 6.0)])), [true; 3]);
        // S3 Table 2: drop C (the longest), keep A and B.
        assert_eq!(moore_hodgson(&jobs(&[(6.0, 6.0), (3.0, 7.0), (4.0, 8.0)])), [false, true, true]);
    }

    /// MERP Table 1 at t = 3: C (size 4, arrived 0, 4 left) and B (size 3,
    /// arriving now). B goes last (ratio 7/3 < C's 10/4): C's virtual deadline
    /// is 7, B's 10.
    #[test]
    fn merp_vdg_table_1_puts_the_waiting_long_flow_first() {
        let c = MerpFlow { size: 4.0, rest: 4.0, arrival: 0.0 };
        let b = MerpFlow { size: 3.0, rest: 3.0, arrival: 3.0 };
        assert_eq!(merp_virtual_deadlines(&[c, b], 1.0, 3.0), [7.0, 10.0]);
        // At t = 0, A (3) and C (4): C goes last (7/4 < 7/3), A first.
        let a = MerpFlow { size: 3.0, rest: 3.0, arrival: 0.0 };
        assert_eq!(merp_virtual_deadlines(&[a, c], 1.0, 0.0), [3.0, 7.0]);
    }
}
