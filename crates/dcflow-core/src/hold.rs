//! The "hold" benchmark of event-set studies (Vaucher & Duval 1975; Brown
//! 1988): keep `pending` events queued; each step pops the earliest and
//! schedules one a uniform random delay (up to 10 us) later. It measures the
//! event queue alone, and is the same-run baseline `make bench` divides the
//! engines' event rates by (BENCHMARKS.md).

use crate::{Dur, EventQueue, Time};
use rand::RngExt;
use std::time::Instant;

pub struct HoldResult {
    pub events_per_s: f64,
    /// Sum over popped times, so the work cannot be optimized away and two
    /// queue implementations can be checked to pop the same sequence.
    pub checksum: u64,
}

pub fn hold(pending: u32, steps: u64) -> HoldResult {
    let mut rng = crate::stream(1, 0);
    let mut q: EventQueue<u32> = EventQueue::with_capacity(pending as usize);
    for i in 0..pending {
        q.push(Time(rng.random_range(0..Dur::us(10).0)), i);
    }
    let start = Instant::now();
    let mut checksum = 0u64;
    for _ in 0..steps {
        let (t, e) = q.pop().expect("the queue never empties");
        checksum = checksum.wrapping_add(t.0 ^ e as u64);
        q.push(t + Dur(rng.random_range(0..Dur::us(10).0)), e);
    }
    HoldResult { events_per_s: steps as f64 / start.elapsed().as_secs_f64(), checksum }
}
