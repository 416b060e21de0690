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
pub fn merp_virtual_deadlines(flows: &[MerpFlow], c: f64, now: f64) -> Vec<f64> {
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

#[cfg(test)]
mod tests {
    use super::*;

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
