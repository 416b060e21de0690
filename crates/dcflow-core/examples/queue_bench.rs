//! Event-queue micro-benchmark (the "hold" model of discrete-event simulation
//! studies): keep N events pending; each step pops the earliest and schedules
//! one at a random time up to 10 us later. Prints events per second.
//! `cargo run --release -p dcflow-core --example queue_bench -- 100000 20000000`

use dcflow_core::{Dur, EventQueue, Time};
use rand::RngExt;
use std::time::Instant;

fn main() {
    let mut args = std::env::args().skip(1).map(|a| a.parse::<u64>().expect("numbers"));
    let pending = args.next().unwrap_or(100_000);
    let steps = args.next().unwrap_or(20_000_000);
    let mut rng = dcflow_core::stream(1, 0);
    let mut q: EventQueue<u32> = EventQueue::with_capacity(pending as usize);
    for i in 0..pending {
        q.push(Time(rng.random_range(0..Dur::us(10).0)), i as u32);
    }
    let start = Instant::now();
    let mut checksum = 0u64;
    for _ in 0..steps {
        let (t, e) = q.pop().expect("never empty");
        checksum = checksum.wrapping_add(t.0 ^ e as u64);
        q.push(t + Dur(rng.random_range(0..Dur::us(10).0)), e);
    }
    let secs = start.elapsed().as_secs_f64();
    println!(
        "{{\"pending\": {pending}, \"events\": {steps}, \"wall_s\": {secs:.3}, \"events_per_s\": {:.0}, \"checksum\": {checksum}}}",
        steps as f64 / secs
    );
}
