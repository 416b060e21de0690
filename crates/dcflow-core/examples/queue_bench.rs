//! Event-queue micro-benchmark (see `dcflow_core::hold`):
//! `cargo run --release -p dcflow-core --example queue_bench -- 100000 20000000`

fn main() {
    let mut args = std::env::args().skip(1).map(|a| a.parse::<u64>().expect("numbers"));
    let pending = args.next().unwrap_or(100_000);
    let steps = args.next().unwrap_or(20_000_000);
    let r = dcflow_core::hold::hold(pending as u32, steps);
    println!(
        "{{\"pending\": {pending}, \"events\": {steps}, \"events_per_s\": {:.0}, \"checksum\": {}}}",
        r.events_per_s, r.checksum
    );
}
