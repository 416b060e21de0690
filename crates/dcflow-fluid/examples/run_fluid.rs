//! Run one scenario file with the flow-level engine and print its summary as
//! JSON: `cargo run --release -p dcflow-fluid --example run_fluid -- bench/fluid-fattree-fair-100k.toml`.
//! For benchmarking and profiling without the Python front.

fn main() {
    let path = std::env::args().nth(1).expect("usage: run_fluid SCENARIO.toml");
    let text = std::fs::read_to_string(&path).unwrap_or_else(|e| panic!("{path}: {e}"));
    let scenario = dcflow_scenario::Scenario::from_toml(&text).unwrap_or_else(|e| panic!("{e}"));
    let out = dcflow_fluid::run(&scenario).unwrap_or_else(|e| panic!("{e}"));
    println!("{}", serde_json::to_string_pretty(&out.summary).unwrap());
}
