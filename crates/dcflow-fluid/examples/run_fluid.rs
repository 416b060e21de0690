//! Run one scenario file with the flow-level engine and print its summary as
//! JSON: `cargo run --release -p dcflow-fluid --example run_fluid -- bench/fluid-fattree-fair-100k.toml`.
//! With `--buckets`, also the mean FCT and slowdown per flow-size range.
//! With `--fcts=PATH`, also write each flow's id and FCT in seconds (`-` if
//! it never finished), one a line with every digit of the f64, so that two
//! builds of the engine can be compared flow by flow.
//! For benchmarking and profiling without the Python front.

use std::io::Write;

fn main() {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let with_buckets = args.iter().any(|a| a == "--buckets");
    let fcts = args.iter().find_map(|a| a.strip_prefix("--fcts="));
    let usage = "usage: run_fluid SCENARIO.toml [--buckets] [--fcts=PATH]";
    let path = args.iter().find(|a| !a.starts_with("--")).expect(usage);
    let text = std::fs::read_to_string(path).unwrap_or_else(|e| panic!("{path}: {e}"));
    let scenario = dcflow_scenario::Scenario::from_toml(&text).unwrap_or_else(|e| panic!("{e}"));
    let out = dcflow_fluid::run(&scenario).unwrap_or_else(|e| panic!("{e}"));
    if let Some(fcts) = fcts {
        let file = std::fs::File::create(fcts).unwrap_or_else(|e| panic!("{fcts}: {e}"));
        let mut w = std::io::BufWriter::new(file);
        for r in &out.flows {
            match r.fct_s {
                Some(fct) => writeln!(w, "{} {fct:?}", r.id),
                None => writeln!(w, "{} -", r.id),
            }
            .unwrap_or_else(|e| panic!("{fcts}: {e}"));
        }
    }
    println!("{}", out.report_json(with_buckets));
}
