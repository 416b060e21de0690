//! MEMR, MERP's route control (papers/003 §5.3, Alg. 4-6): a switch that
//! has several equal-cost next hops for a new flow's SYN picks the one
//! whose port would give the flow the smallest expansion ratio (GPE), and
//! among those the one with the highest expected rate of its tail flow
//! (GMER), which reads the `esr` of flows to the same destination: a
//! downstream failure or bottleneck lowers their `esr` (Alg. 1) and MEMR
//! steers around it.
//!
//! A next hop is one output port (its flow table T[P] and capacity C): in
//! the paper's words a path P, as seen from the switch that decides.

use super::switch::{Entry, MerpSwitch};
use dcflow_core::Time;

/// The new flow: its size in bytes and destination host.
#[derive(Clone, Copy, Debug)]
pub struct NewFlow {
    pub size: f64,
    pub dst: u32,
}

/// What MEMR sees of one next hop: the port's flow table and its C (bytes/s).
#[derive(Clone, Copy, Debug)]
pub struct Port<'a> {
    pub table: &'a [Entry],
    pub c: f64,
}

impl<'a> Port<'a> {
    pub fn of(s: &'a MerpSwitch) -> Port<'a> {
        Port { table: s.table(), c: s.capacity() }
    }
}

/// Eq. (5) for flow `e` going last after `rest` bytes, the new flow included.
fn ratio_last(e: &Entry, now: f64, c: f64, rest: f64, f: &NewFlow) -> f64 {
    ((now - e.at) * c + rest + f.size) / e.size
}

/// Alg. 5 (GPE): the new flow's expansion ratio on `p` under VDG's order:
/// peel off last flows while another flow would go last at a smaller
/// ratio; when the new flow is the one, that is its ratio.
pub fn gpe(p: Port, f: &NewFlow, now: Time) -> f64 {
    let now = now.as_secs_f64();
    let mut table: Vec<&Entry> = p.table.iter().collect();
    let mut rest: f64 = table.iter().map(|e| e.rs).sum();
    loop {
        let mut min = (rest + f.size) / f.size;
        let mut last = None;
        for (i, e) in table.iter().enumerate() {
            let r = ratio_last(e, now, p.c, rest, f);
            if r < min {
                min = r;
                last = Some(i);
            }
        }
        match last {
            None => return min,
            Some(i) => rest -= table.swap_remove(i).rs,
        }
    }
}

/// Alg. 6 (GMER): the expected rate of the tail flow on `p`, C over the
/// smallest last-flow ratio, lowered to the `esr` of any flow to the same
/// destination that is at least as large as the new one.
pub fn gmer(p: Port, f: &NewFlow, now: Time) -> f64 {
    let t = now.as_secs_f64();
    let rest: f64 = p.table.iter().map(|e| e.rs).sum();
    let min = p.table.iter().map(|e| ratio_last(e, t, p.c, rest, f)).fold((rest + f.size) / f.size, f64::min);
    let mut rate = p.c / min;
    for e in p.table {
        if rate > e.esr && f.size <= e.size && f.dst == e.dst {
            rate = e.esr;
        }
    }
    rate
}

/// Alg. 4 (MEMR): the index of the chosen next hop among `ports`: the
/// smallest GPE, then the largest GMER, then the first.
pub fn choose(ports: &[Port], f: &NewFlow, now: Time) -> usize {
    let gpes: Vec<f64> = ports.iter().map(|&p| gpe(p, f, now)).collect();
    let m = gpes.iter().copied().fold(f64::INFINITY, f64::min);
    let tied = |i: &usize| gpes[*i] <= m * (1.0 + 1e-12);
    (0..ports.len())
        .filter(tied)
        .map(|i| (i, gmer(ports[i], f, now)))
        .fold(None, |best: Option<(usize, f64)>, (i, r)| match best {
            Some((_, br)) if br >= r => best,
            _ => Some((i, r)),
        })
        .map(|(i, _)| i)
        .expect("at least one port")
}
