//! The priority order of the ordered disciplines over one component's active
//! flows at `now`, for PDQ §3's greedy walk ([`crate::alloc::greedy`]).
//!
//! Sizes become times the way PDQ §3 defines its criticality: T_i = remaining
//! work / R_i^max, R^max being the slowest link of the path. Deadlines are
//! relative to `now`. Flows without a deadline come after every deadline
//! flow, shortest T_i first (PDQ's EDF-then-SJF comparator, §3.1).
//!
//! The single-machine rules (S3, Moore–Hodgson, MERP's VDG) are exact on one
//! bottleneck. On a component with several bottlenecks they are applied to
//! the component's flows as if they shared one machine, and the greedy walk
//! then gives each flow what its own path has left: a documented
//! approximation (docs/fidelity-fluid.md).

use crate::flows::Flows;
use crate::model::Order;
use crate::sequencing::{merp_virtual_deadlines, moore_hodgson, Job, MerpFlow};
use dcflow_proto::s3::schedule::{arrange, FlowKey};
use dcflow_core::Time;

/// Transmission time left at full speed: PDQ's T_i.
pub(crate) fn time_left(flows: &Flows, f: u32) -> f64 {
    flows.remaining[f as usize] / flows.bottleneck[f as usize]
}

pub(crate) fn deadline_left(flows: &Flows, f: u32, now: Time) -> Option<f64> {
    flows.deadline[f as usize].map(|d| (d.0 as f64 - now.0 as f64) * 1e-12)
}

/// `x`'s bits, mapped so that integers order as `f64::total_cmp` orders
/// the floats: sort keys compared without float comparisons.
pub(crate) fn total_order_bits(x: f64) -> u64 {
    let b = x.to_bits();
    if b >> 63 == 1 {
        !b
    } else {
        b | 1 << 63
    }
}

/// Sort by (deadline left, T_i, id); no deadline sorts last. Each flow's
/// key is computed once, not at every comparison (it reads per-flow state
/// scattered over memory).
fn edf(flows: &Flows, now: Time, set: &mut [u32]) {
    set.sort_by_cached_key(|&f| {
        let deadline = deadline_left(flows, f, now).unwrap_or(f64::INFINITY);
        (total_order_bits(deadline), total_order_bits(time_left(flows, f)), f)
    });
}

/// Order `set` in place for `order`; flows the order decides to drop
/// (Moore–Hodgson's rejects under `optimal`) are moved to `dropped`.
/// `virtual_deadline` is MERP's per-flow state, refreshed when `arrivals`.
pub fn order(
    kind: Order,
    flows: &Flows,
    now: Time,
    set: &mut Vec<u32>,
    dropped: &mut Vec<u32>,
    virtual_deadline: &mut [f64],
    arrivals: bool,
) {
    let by_key = |set: &mut Vec<u32>, key: &dyn Fn(u32) -> f64| {
        set.sort_by_cached_key(|&f| (total_order_bits(key(f)), f));
    };
    match kind {
        Order::Srpt => by_key(set, &|f| time_left(flows, f)),
        Order::Sjf => by_key(set, &|f| flows.work[f as usize] / flows.bottleneck[f as usize]),
        Order::Fifo => set.sort_unstable(),
        Order::Edf => edf(flows, now, set),
        Order::Optimal => {
            edf(flows, now, set);
            let with_deadline = set.iter().take_while(|&&f| flows.deadline[f as usize].is_some()).count();
            let jobs: Vec<Job> = set[..with_deadline]
                .iter()
                .map(|&f| Job { p: time_left(flows, f), d: deadline_left(flows, f, now).expect("deadline flow") })
                .collect();
            let kept = moore_hodgson(&jobs);
            let mut i = 0;
            set.retain(|&f| {
                let keep = i >= with_deadline || kept[i];
                if !keep {
                    dropped.push(f);
                }
                i += 1;
                keep
            });
        }
        Order::S3 => {
            // S3 §4.3: schedulable flows (FILTER + SLACK) in EDF order, then
            // the rest (paused: they get only what the schedulable ones
            // leave), then flows without deadline shortest first.
            arrange(set, |&f| FlowKey { size: time_left(flows, f), deadline: deadline_left(flows, f, now), id: f as u64 });
        }
        Order::Pdq(keys) => crate::pdq::order(keys, flows, now, set),
        Order::Merp => {
            if arrivals {
                set.sort_unstable();
                let c = set.iter().map(|&f| flows.bottleneck[f as usize]).fold(f64::INFINITY, f64::min);
                let merp: Vec<MerpFlow> = set
                    .iter()
                    .map(|&f| MerpFlow {
                        size: flows.work[f as usize],
                        rest: flows.remaining[f as usize],
                        arrival: flows.ready_at[f as usize].as_secs_f64(),
                    })
                    .collect();
                let vdl = merp_virtual_deadlines(&merp, c, now.as_secs_f64());
                for (&f, v) in set.iter().zip(vdl) {
                    virtual_deadline[f as usize] = v;
                }
            }
            by_key(set, &|f| virtual_deadline[f as usize]);
        }
    }
}
