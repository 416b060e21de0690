//! Scenarios for the worked examples: a star whose link into host 0 is the
//! one bottleneck, at 1 Gbps, so that one paper "unit" of size is 125 MB
//! (one second at line rate) and paper times read directly as seconds.

#![allow(dead_code)] // each test binary uses part of this module

use dcflow_scenario::{FlowRecord, RunOutput, Scenario};

/// Bytes that take one second on a 1 Gbps link.
pub const UNIT: u64 = 125_000_000;

/// One flow of the example: (size in units, start in units, deadline in units, relative).
pub struct F(pub f64, pub f64, pub Option<f64>);

/// A star scenario with `flows` from hosts 1, 2, ... to host 0.
pub fn star(protocol: &str, extra: &str, flows: &[F]) -> Scenario {
    let mut toml = format!(
        "engine = \"fluid\"\n[topology]\nkind = \"star\"\nhosts = {}\nlink_rate = \"1Gbps\"\n[protocol]\nname = \"{protocol}\"\n{extra}\n[workload]\npattern = \"explicit\"\n",
        flows.len() + 1
    );
    for (i, F(size, start, deadline)) in flows.iter().enumerate() {
        toml += &format!(
            "[[flows]]\nsrc = {}\ndst = 0\nsize = \"{}B\"\nstart = \"{}ms\"\n",
            i + 1,
            (size * UNIT as f64).round() as u64,
            start * 1000.0
        );
        if let Some(d) = deadline {
            toml += &format!("deadline = \"{}ms\"\n", d * 1000.0);
        }
    }
    Scenario::from_toml(&toml).unwrap_or_else(|e| panic!("{e}\n{toml}"))
}

pub fn run(s: &Scenario) -> RunOutput {
    dcflow_fluid::run(s).unwrap_or_else(|e| panic!("{e}"))
}

/// Finish times in seconds, in flow order (`NaN` if unfinished).
pub fn finishes(out: &RunOutput) -> Vec<f64> {
    out.flows.iter().map(|f: &FlowRecord| f.finish_s.unwrap_or(f64::NAN)).collect()
}

pub fn assert_close(got: &[f64], want: &[f64]) {
    assert_eq!(got.len(), want.len(), "{got:?} vs {want:?}");
    for (g, w) in got.iter().zip(want) {
        assert!((g - w).abs() < 1e-9 * w.abs().max(1.0), "{got:?} vs {want:?}");
    }
}

pub fn close(a: f64, b: f64) -> bool {
    (a - b).abs() < 1e-9 * b.abs().max(1.0)
}
