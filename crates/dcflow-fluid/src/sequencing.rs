//! Single-machine sequencing rules the ordered disciplines are built from, as
//! pure functions of (processing time, deadline) so they can be tested on the
//! papers' numbers. Times are in any one unit (the engine uses seconds:
//! remaining bits / the path's bottleneck rate, and deadline - now).

use std::collections::BinaryHeap;

/// A job for a single machine: `p` processing time, `d` deadline (relative).
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Job {
    pub p: f64,
    pub d: f64,
}

/// `p` as a heap key with a stable tie-break on the job index.
#[derive(PartialEq)]
struct BySize(f64, usize);
impl Eq for BySize {}
impl PartialOrd for BySize {
    fn partial_cmp(&self, o: &Self) -> Option<std::cmp::Ordering> {
        Some(self.cmp(o))
    }
}
impl Ord for BySize {
    fn cmp(&self, o: &Self) -> std::cmp::Ordering {
        self.0.total_cmp(&o.0).then(self.1.cmp(&o.1))
    }
}

/// Relative slack that absorbs float rounding of picosecond times.
const EPS: f64 = 1e-9;

fn fits(finish: f64, deadline: f64) -> bool {
    finish <= deadline + EPS * deadline.abs().max(1e-12)
}

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

/// S3 FILTER (Alg. 1) over jobs in EDF order: mark a job schedulable if it
/// finishes by its deadline after the schedulable jobs before it. We test
/// Eq. (1)'s `d_i >= s_i + sum` (Alg. 1 line 4 prints `>`; Eq. (1), Alg. 2
/// line 8 and Table 2's "C accomplishes its transmission" at 6 = its
/// deadline all count finishing exactly at the deadline as meeting it).
pub fn s3_filter(jobs: &[Job]) -> Vec<bool> {
    let mut sum = 0.0;
    jobs.iter()
        .map(|j| {
            let ok = fits(sum + j.p, j.d);
            if ok {
                sum += j.p;
            }
            ok
        })
        .collect()
}

/// S3 SLACK (Alg. 2), literally: walk the jobs in EDF order; a job FILTER
/// marked joins the tree T; an unmarked one joins if it fits (line 8), else
/// replaces the largest job in T if it is no larger and `d_i >= sum -
/// s_max` (line 13). Returns the final marks.
pub fn s3_slack(jobs: &[Job], filtered: &[bool]) -> Vec<bool> {
    let mut marks = filtered.to_vec();
    let mut tree = BinaryHeap::new();
    let mut sum = 0.0;
    for (i, j) in jobs.iter().enumerate() {
        if filtered[i] || fits(sum + j.p, j.d) {
            marks[i] = true;
            tree.push(BySize(j.p, i));
            sum += j.p;
        } else if let Some(&BySize(p_max, largest)) = tree.peek() {
            if j.p <= p_max && fits(sum - p_max, j.d) {
                tree.pop();
                marks[largest] = false;
                marks[i] = true;
                tree.push(BySize(j.p, i));
                sum += j.p - p_max;
            }
        }
    }
    marks
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

    /// S3 Fig. 4 walk-through. The figure's numbers were lost in conversion;
    /// the text gives f3 = (6, 7), FILTER's F_f = {f1, f3, f4} and F_r =
    /// {f2, f5, f6, f7}, SLACK swapping f6 for the largest of f1, f3, f4 (f4)
    /// and then adding f7: 3 schedulable flows become 4. This instance
    /// (size, deadline) reproduces every one of those facts.
    #[test]
    fn s3_figure_4_filter_then_slack() {
        let f = jobs(&[(1.0, 2.0), (4.0, 4.0), (6.0, 7.0), (7.0, 14.0), (8.0, 15.0), (3.0, 16.0), (4.0, 17.0)]);
        let filtered = s3_filter(&f);
        assert_eq!(filtered, [true, false, true, true, false, false, false]);
        let slack = s3_slack(&f, &filtered);
        assert_eq!(slack, [true, false, true, false, false, true, true]);
        assert_eq!(slack.iter().filter(|&&m| m).count(), 4);
    }

    /// S3 Table 2 (A = (3, 7), B = (4, 8), C = (6, 6)) in EDF order C, A, B:
    /// EDF schedules C and loses A and B; S3 keeps A and B.
    #[test]
    fn s3_table_2_prefers_the_two_small_flows() {
        let f = jobs(&[(6.0, 6.0), (3.0, 7.0), (4.0, 8.0)]);
        let marks = s3_slack(&f, &s3_filter(&f));
        assert_eq!(marks, [false, true, true]);
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
