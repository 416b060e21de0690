//! Micro-benchmark of one S3 scheduling decision (§4.4: "the total time
//! complexity of S3 algorithm is O(n log n)"): `arrange` (EDF sort, FILTER,
//! SLACK, the schedulable flows moved first) over n flows with the paper's
//! default workload (sizes uniform in [2 KB, 198 KB], deadlines exponential
//! with mean 20 ms, at least 3 ms), at 1 Gbps.
//!
//! `cargo run --release -p dcflow-proto --example s3_schedule_bench`

use dcflow_core::mix64;
use dcflow_proto::s3::schedule::{arrange, FlowKey};
use std::time::Instant;

fn flows(n: usize, seed: u64) -> Vec<FlowKey> {
    let unit = |i: u64| (mix64(seed ^ i) >> 11) as f64 / (1u64 << 53) as f64;
    (0..n as u64)
        .map(|i| {
            let bytes = 2_000.0 + 196_000.0 * unit(2 * i);
            let deadline = (-0.020 * (1.0 - unit(2 * i + 1)).ln()).max(0.003);
            FlowKey { size: bytes * 8.0 / 1e9, deadline: Some(deadline), id: i }
        })
        .collect()
}

fn main() {
    println!("| flows | decisions | µs per decision | µs / (n log2 n) ×1000 | schedulable |");
    println!("|---:|---:|---:|---:|---:|");
    for n in [1_000usize, 10_000] {
        let reps = 2_000_000 / n;
        let inputs: Vec<Vec<FlowKey>> = (0..8).map(|s| flows(n, s as u64)).collect();
        let mut schedulable = 0;
        let start = Instant::now();
        for r in 0..reps {
            let mut v = inputs[r % inputs.len()].clone();
            schedulable = arrange(&mut v, |f| *f);
        }
        let us = start.elapsed().as_secs_f64() * 1e6 / reps as f64;
        let nlogn = n as f64 * (n as f64).log2();
        println!("| {n} | {reps} | {us:.1} | {:.3} | {schedulable} |", us / nlogn * 1000.0);
    }
}
