//! Run one scenario file with the flow-level engine and print its summary as
//! JSON: `cargo run --release -p dcflow-fluid --example run_fluid -- bench/fluid-fattree-fair-100k.toml`.
//! With `--buckets`, also the mean FCT and slowdown per flow-size range.
//! For benchmarking and profiling without the Python front.

fn main() {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let with_buckets = args.iter().any(|a| a == "--buckets");
    let usage = "usage: run_fluid SCENARIO.toml [--buckets]";
    let path = args.iter().find(|a| !a.starts_with("--")).expect(usage);
    let text = std::fs::read_to_string(path).unwrap_or_else(|e| panic!("{path}: {e}"));
    let scenario = dcflow_scenario::Scenario::from_toml(&text).unwrap_or_else(|e| panic!("{e}"));
    let out = dcflow_fluid::run(&scenario).unwrap_or_else(|e| panic!("{e}"));
    println!("{}", out.report_json(with_buckets));
}
