//! `make stress`: run the whole stress matrix on 2 worker threads, print
//! each cell as it ends, write the table into docs/stress.md and exit 1
//! listing every violated check (0 when every cell passes).
//!
//! `--protocols a,b` and `--scenarios x,y` run part of the matrix (labels
//! as in the table; the table is then written only with `--out FILE`);
//! `--threads N` changes the worker count.

use dcflow_stress::matrix::{self, Protocol, StressScenario};
use dcflow_stress::{run_matrix, table, CellResult};
use std::process::ExitCode;
use std::time::Instant;

const DOC: &str = "docs/stress.md";
/// What `make stress` runs.
const RUN: &str = "cargo run --release -p dcflow-stress";

struct Args {
    protocols: Vec<Protocol>,
    scenarios: Vec<StressScenario>,
    threads: usize,
    /// Where the table goes; `None` for a partial run without `--out`.
    out: Option<String>,
}

/// One clear line naming the option and what it allows, exit code 2.
fn usage_error(msg: String) -> ExitCode {
    eprintln!("dcflow-stress: {msg}");
    ExitCode::from(2)
}

fn parse_args() -> Result<Args, String> {
    let mut args = Args { protocols: matrix::PROTOCOLS.to_vec(), scenarios: matrix::scenarios(), threads: 2, out: None };
    let mut partial = false;
    let mut it = std::env::args().skip(1);
    while let Some(flag) = it.next() {
        let mut value = || it.next().ok_or(format!("{flag} needs a value"));
        match flag.as_str() {
            "--protocols" => {
                let all: Vec<&str> = matrix::PROTOCOLS.iter().map(|p| p.label).collect();
                args.protocols = pick(&value()?, &all, "--protocols")?.into_iter().map(|i| matrix::PROTOCOLS[i]).collect();
                partial = true;
            }
            "--scenarios" => {
                let every = matrix::scenarios();
                let all: Vec<&str> = every.iter().map(|s| s.label.as_str()).collect();
                args.scenarios = pick(&value()?, &all, "--scenarios")?.into_iter().map(|i| every[i].clone()).collect();
                partial = true;
            }
            "--threads" => {
                args.threads = value()?.parse().ok().filter(|&n| n > 0).ok_or("--threads must be a positive integer")?;
            }
            "--out" => args.out = Some(value()?),
            _ => return Err(format!("unknown option {flag:?}; allowed: --protocols, --scenarios, --threads, --out")),
        }
    }
    if !partial && args.out.is_none() {
        args.out = Some(DOC.into());
    }
    Ok(args)
}

/// Indices in `all` of the comma-separated labels in `list`.
fn pick(list: &str, all: &[&str], flag: &str) -> Result<Vec<usize>, String> {
    list.split(',')
        .map(|l| all.iter().position(|a| *a == l).ok_or(format!("{flag}: no {l:?}; allowed: {}", all.join(", "))))
        .collect()
}

fn main() -> ExitCode {
    let args = match parse_args() {
        Ok(a) => a,
        Err(msg) => return usage_error(msg),
    };
    let wall = Instant::now();
    let print = |done: usize, total: usize, c: &CellResult| {
        let verdict = if c.failures.is_empty() { "ok".to_string() } else { format!("FAILED: {}", c.failures.join("; ")) };
        println!("[{done:>3}/{total}] {:<22} {:<10} {verdict}", c.scenario, c.protocol);
    };
    let cells = run_matrix(&args.protocols, &args.scenarios, args.threads, &print);
    let wall_s = wall.elapsed().as_secs_f64();
    if let Some(out) = &args.out {
        let args: Vec<String> = std::env::args().skip(1).collect();
        let command = if args.is_empty() { "make stress".to_string() } else { format!("{RUN} -- {}", args.join(" ")) };
        let doc = std::fs::read_to_string(out).unwrap_or_default();
        let generated = table::markdown(&cells, &command, &today(), wall_s);
        if let Err(e) = std::fs::write(out, table::splice(&doc, &generated)) {
            eprintln!("dcflow-stress: cannot write {out}: {e}");
            return ExitCode::FAILURE;
        }
        println!("table written to {out}");
    }
    let failing: Vec<&CellResult> = cells.iter().filter(|c| !c.failures.is_empty()).collect();
    println!("{} of {} cells pass ({wall_s:.0} s)", cells.len() - failing.len(), cells.len());
    if failing.is_empty() {
        return ExitCode::SUCCESS;
    }
    eprintln!("violated checks:");
    for c in failing {
        for f in &c.failures {
            eprintln!("  {} on {}: {f}", c.protocol, c.scenario);
        }
    }
    ExitCode::FAILURE
}

/// Today's date (UTC), from the `date` command.
fn today() -> String {
    std::process::Command::new("date")
        .args(["-u", "+%Y-%m-%d"])
        .output()
        .ok()
        .and_then(|o| String::from_utf8(o.stdout).ok())
        .map(|s| s.trim().to_string())
        .unwrap_or_else(|| "an unknown date".into())
}
