//! S3's scheduling algorithm (§4.3): FILTER (Algorithm 1) and SLACK
//! (Algorithm 2) over one bottleneck's flows, as pure functions so that the
//! switch agent ([`super::switch`]) and the flow-level engine's ideal `s3`
//! order (dcflow-fluid) run the same code, and tests can hold it against the
//! paper's Fig. 4 and Table 2.
//!
//! Sizes and deadlines are times in one unit ("we assume one unit size needs
//! one unit time", §4.3): the switch uses picoseconds of transmission at the
//! sender's line rate and picoseconds to the deadline, the fluid engine
//! seconds. Cost: the EDF sort is O(n log n), FILTER O(n), SLACK O(n log n)
//! with its size-ordered structure T (§4.4; measured by
//! `examples/s3_schedule_bench.rs`, BENCHMARKS.md).

use std::cmp::Ordering;
use std::collections::BinaryHeap;

/// A job for a single machine: `p` processing time (the flow's size as a
/// time), `d` its deadline relative to now.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Job {
    pub p: f64,
    pub d: f64,
}

/// `p` as an ordered key with a stable tie-break on the job index: the key of
/// the size-ordered structure T (Alg. 2 lines 5, 9, 12, 14).
#[derive(PartialEq)]
pub struct BySize(pub f64, pub usize);
impl Eq for BySize {}
impl PartialOrd for BySize {
    fn partial_cmp(&self, o: &Self) -> Option<Ordering> {
        Some(self.cmp(o))
    }
}
impl Ord for BySize {
    fn cmp(&self, o: &Self) -> Ordering {
        self.0.total_cmp(&o.0).then(self.1.cmp(&o.1))
    }
}

/// Relative slack that absorbs float rounding of picosecond times.
const EPS: f64 = 1e-9;

/// Whether a job finishing at `finish` meets `deadline` (finishing exactly
/// at the deadline meets it, Eq. 1's `>=`).
pub fn fits(finish: f64, deadline: f64) -> bool {
    finish <= deadline + EPS * deadline.abs().max(1e-12)
}

/// FILTER (Alg. 1) over jobs in EDF order: mark a job schedulable if it
/// finishes by its deadline after the schedulable jobs before it. We test
/// Eq. (1)'s `d_i >= s_i + sum` (Alg. 1 line 4 prints `>`; Eq. (1), Alg. 2
/// line 8 and Table 2's "C accomplishes its transmission" at 6 = its
/// deadline all count finishing exactly at the deadline as meeting it).
pub fn filter(jobs: &[Job]) -> Vec<bool> {
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

/// SLACK (Alg. 2), literally: walk the jobs in EDF order; a job FILTER
/// marked joins T; an unmarked one joins if it fits (line 8), else replaces
/// the largest job in T if it is no larger and `d_i >= sum - s_max` (line
/// 13). T only ever answers "the largest" and "remove it", so a max-heap
/// serves it with the binary search tree's O(log n) per operation.
/// Updates `marks` (FILTER's) in place.
pub fn slack(jobs: &[Job], marks: &mut [bool]) {
    let mut tree = BinaryHeap::with_capacity(jobs.len());
    let mut sum = 0.0;
    for (i, j) in jobs.iter().enumerate() {
        if marks[i] || fits(sum + j.p, j.d) {
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
}

/// FILTER then SLACK: which of the EDF-ordered `jobs` are schedulable.
pub fn schedulable(jobs: &[Job]) -> Vec<bool> {
    let mut marks = filter(jobs);
    slack(jobs, &mut marks);
    marks
}

/// What S3 needs to know of a flow to place it: its size as a time, its
/// deadline relative to now (None without one), and a unique tie-break.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct FlowKey {
    pub size: f64,
    pub deadline: Option<f64>,
    pub id: u64,
}

/// S3's order over a set of flows, rearranging `items` in place and returning
/// how many lead it as schedulable: the schedulable deadline flows in EDF
/// order (the sequence Eq. 1 checked, so sending them one after the other
/// meets every deadline), then the unschedulable deadline flows in EDF order,
/// then the flows without a deadline shortest first (§5.2.2: "both
/// scheduling algorithms degenerate into the SJF discipline in the absence
/// of flow deadlines"). EDF ties break by size, then id (as PDQ's comparator).
pub fn arrange<T: Clone>(items: &mut Vec<T>, key: impl Fn(&T) -> FlowKey) -> usize {
    items.sort_by(|a, b| {
        let (a, b) = (key(a), key(b));
        let (da, db) = (a.deadline.unwrap_or(f64::INFINITY), b.deadline.unwrap_or(f64::INFINITY));
        da.total_cmp(&db).then(a.size.total_cmp(&b.size)).then(a.id.cmp(&b.id))
    });
    let with_deadline = items.iter().take_while(|x| key(x).deadline.is_some()).count();
    let jobs: Vec<Job> = items[..with_deadline]
        .iter()
        .map(|x| {
            let k = key(x);
            Job { p: k.size, d: k.deadline.expect("deadline prefix") }
        })
        .collect();
    let marks = schedulable(&jobs);
    let first: Vec<T> = items[..with_deadline].iter().zip(&marks).filter(|(_, &m)| m).map(|(x, _)| x.clone()).collect();
    let rest: Vec<T> = items[..with_deadline].iter().zip(&marks).filter(|(_, &m)| !m).map(|(x, _)| x.clone()).collect();
    let n_first = first.len();
    items.splice(..with_deadline, first.into_iter().chain(rest));
    n_first
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
    fn figure_4_filter_then_slack() {
        let f = jobs(&[(1.0, 2.0), (4.0, 4.0), (6.0, 7.0), (7.0, 14.0), (8.0, 15.0), (3.0, 16.0), (4.0, 17.0)]);
        let filtered = filter(&f);
        assert_eq!(filtered, [true, false, true, true, false, false, false]);
        let mut marks = filtered.clone();
        slack(&f, &mut marks);
        assert_eq!(marks, [true, false, true, false, false, true, true]);
        assert_eq!(marks.iter().filter(|&&m| m).count(), 4);
    }

    /// S3 Table 2 (A = (3, 7), B = (4, 8), C = (6, 6)) in EDF order C, A, B:
    /// EDF schedules C and loses A and B; S3 keeps A and B.
    #[test]
    fn table_2_prefers_the_two_small_flows() {
        let f = jobs(&[(6.0, 6.0), (3.0, 7.0), (4.0, 8.0)]);
        assert_eq!(filter(&f), [true, false, false]);
        assert_eq!(schedulable(&f), [false, true, true]);
    }

    /// `arrange` on Table 2 plus two flows without deadline, given in a
    /// scrambled order: A, B (schedulable, EDF), C (unschedulable), then the
    /// deadline-less flows shortest first.
    #[test]
    fn arrange_puts_schedulable_first_then_the_rest_then_sjf() {
        let k = |size, deadline, id| FlowKey { size, deadline, id };
        let mut v = vec![k(9.0, None, 5), k(4.0, Some(8.0), 2), k(2.0, None, 4), k(6.0, Some(6.0), 3), k(3.0, Some(7.0), 1)];
        let n = arrange(&mut v, |x| *x);
        assert_eq!(n, 2);
        assert_eq!(v.iter().map(|x| x.id).collect::<Vec<_>>(), [1, 2, 3, 4, 5]);
    }
}
