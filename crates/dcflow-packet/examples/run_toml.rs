//! Run one scenario file with the packet engine and print its summary as JSON:
//! `cargo run --release --example run_toml -- bench/leafspine-pfabric.toml`.
//! With `--buckets`, also the mean FCT and slowdown per flow-size range.
//! For profiling the engine without the Python front.

fn main() {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let with_buckets = args.iter().any(|a| a == "--buckets");
    let usage = "usage: run_toml SCENARIO.toml [--buckets]";
    let path = args.iter().find(|a| !a.starts_with("--")).expect(usage);
    let text = std::fs::read_to_string(path).unwrap_or_else(|e| panic!("{path}: {e}"));
    let scenario = dcflow_scenario::Scenario::from_toml(&text).unwrap_or_else(|e| panic!("{e}"));
    let out = dcflow_packet::run(&scenario).unwrap_or_else(|e| panic!("{e}"));
    println!("{}", out.report_json(with_buckets));
}
