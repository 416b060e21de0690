//! Run one scenario file with the packet engine and print its summary as JSON:
//! `cargo run --release --example run_toml -- bench/leafspine-pfabric.toml`.
//! For profiling the engine without the Python front.

fn main() {
    let path = std::env::args().nth(1).expect("usage: run_toml SCENARIO.toml");
    let text = std::fs::read_to_string(&path).unwrap_or_else(|e| panic!("{path}: {e}"));
    let scenario = dcflow_scenario::Scenario::from_toml(&text).unwrap_or_else(|e| panic!("{e}"));
    let out = dcflow_packet::run(&scenario).unwrap_or_else(|e| panic!("{e}"));
    println!("{}", serde_json::to_string_pretty(&out.summary).unwrap());
}
