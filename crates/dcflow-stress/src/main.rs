//! `make stress`: run the whole stress matrix and then the agreement matrix
//! on 2 worker threads, print each cell as it ends, write both tables into
//! docs/stress.md and exit 1 listing every violated check or bound (0 when
//! every cell passes).
//!
//! `--protocols a,b` and `--scenarios x,y` run part of the stress matrix
//! (labels as in its table; the table is then written only with `--out
//! FILE`). `--agreement` runs the agreement matrix alone, written into
//! docs/stress.md; with `--protocols` (pairs) and `--scenarios`, labels as
//! in the agreement table, part of it. `--threads N` changes the worker
//! count.

use dcflow_stress::agreement::{self, AgreementScenario, Pair};
use dcflow_stress::matrix::{self, Protocol, StressScenario};
use dcflow_stress::{run_matrix, table, Cell};
use std::process::ExitCode;
use std::time::Instant;

const DOC: &str = "docs/stress.md";
/// What `make stress` runs.
const RUN: &str = "cargo run --release -p dcflow-stress";

struct Args {
    /// `--agreement`: the agreement matrix only.
    agreement: bool,
    protocols: Option<String>,
    scenarios: Option<String>,
    threads: usize,
    /// `--out`: where the tables go.
    out: Option<String>,
}

impl Args {
    /// Where the tables go: `--out`, else docs/stress.md unless only part of
    /// a matrix runs.
    fn out(&self) -> Option<&str> {
        let partial = self.protocols.is_some() || self.scenarios.is_some();
        self.out.as_deref().or((!partial).then_some(DOC))
    }
}

/// One clear line naming the option and what it allows, exit code 2.
fn usage_error(msg: String) -> ExitCode {
    eprintln!("dcflow-stress: {msg}");
    ExitCode::from(2)
}

fn parse_args() -> Result<Args, String> {
    let mut args = Args { agreement: false, protocols: None, scenarios: None, threads: 2, out: None };
    let mut it = std::env::args().skip(1);
    while let Some(flag) = it.next() {
        let mut value = || it.next().ok_or(format!("{flag} needs a value"));
        match flag.as_str() {
            "--agreement" => args.agreement = true,
            "--protocols" => args.protocols = Some(value()?),
            "--scenarios" => args.scenarios = Some(value()?),
            "--threads" => {
                args.threads = value()?.parse().ok().filter(|&n| n > 0).ok_or("--threads must be a positive integer")?;
            }
            "--out" => args.out = Some(value()?),
            _ => {
                return Err(format!(
                    "unknown option {flag:?}; allowed: --agreement, --protocols, --scenarios, --threads, --out"
                ))
            }
        }
    }
    Ok(args)
}

/// The items of `all` named in the comma-separated `list` (all of them
/// without a list).
fn pick<T: Clone>(list: Option<&str>, all: &[T], label: impl Fn(&T) -> &str, flag: &str) -> Result<Vec<T>, String> {
    let Some(list) = list else { return Ok(all.to_vec()) };
    list.split(',')
        .map(|l| {
            all.iter().find(|a| label(a) == l).cloned().ok_or_else(|| {
                let names: Vec<&str> = all.iter().map(&label).collect();
                format!("{flag}: no {l:?}; allowed: {}", names.join(", "))
            })
        })
        .collect()
}

/// What to run: the cells each matrix was asked for.
struct Plan {
    stress: Option<(Vec<Protocol>, Vec<StressScenario>)>,
    agreement: Option<(Vec<&'static Pair>, Vec<AgreementScenario>)>,
}

/// The matrices and cells `args` ask for, every label checked before
/// anything runs.
fn plan(args: &Args) -> Result<Plan, String> {
    let (protocols, scenarios) = (args.protocols.as_deref(), args.scenarios.as_deref());
    let stress = (!args.agreement)
        .then(|| -> Result<_, String> {
            Ok((
                pick(protocols, matrix::PROTOCOLS, |p| p.label, "--protocols")?,
                pick(scenarios, &matrix::scenarios(), |s| &s.label, "--scenarios")?,
            ))
        })
        .transpose()?;
    let every: Vec<&'static Pair> = agreement::PAIRS.iter().collect();
    let agreement = (args.agreement || (protocols.is_none() && scenarios.is_none()))
        .then(|| -> Result<_, String> {
            Ok((
                pick(protocols, &every, |p| p.label, "--protocols")?,
                pick(scenarios, &agreement::scenarios(), |s| &s.label, "--scenarios")?,
            ))
        })
        .transpose()?;
    Ok(Plan { stress, agreement })
}

fn main() -> ExitCode {
    let (args, plan) = match parse_args().and_then(|a| plan(&a).map(|p| (a, p))) {
        Ok(ap) => ap,
        Err(msg) => return usage_error(msg),
    };
    let mut failing = Vec::new();
    if let Some((protocols, scenarios)) = &plan.stress {
        let wall = Instant::now();
        let cells = run_matrix(protocols, scenarios, args.threads, &progress);
        failing.push(finish(&args, "stress", &cells, wall, table::MARKERS, table::markdown));
    }
    if let Some((pairs, scenarios)) = &plan.agreement {
        let wall = Instant::now();
        let cells = agreement::run_matrix(pairs, scenarios, args.threads, &progress);
        failing.push(finish(&args, "agreement", &cells, wall, table::AGREEMENT_MARKERS, table::agreement_markdown));
    }
    let failing: Vec<String> = match failing.into_iter().collect::<Result<Vec<_>, _>>() {
        Ok(lines) => lines.concat(),
        Err(msg) => {
            eprintln!("dcflow-stress: {msg}");
            return ExitCode::FAILURE;
        }
    };
    if failing.is_empty() {
        return ExitCode::SUCCESS;
    }
    eprintln!("violated checks and bounds:");
    for f in failing {
        eprintln!("  {f}");
    }
    ExitCode::FAILURE
}

/// One line per cell as it ends.
fn progress<C: Cell>(done: usize, total: usize, c: &C) {
    let verdict = if c.failures().is_empty() { "ok".to_string() } else { format!("FAILED: {}", c.failures().join("; ")) };
    println!("[{done:>3}/{total}] {:<24} {:<12} {verdict}", c.scenario(), c.label());
}

/// Report a matrix's run, write its table (made by `markdown`) between
/// `markers` in the output file if the run has one, and return the failing
/// cells' lines.
fn finish<C: Cell>(
    args: &Args,
    name: &str,
    cells: &[C],
    started: Instant,
    markers: (&str, &str),
    markdown: fn(&[C], &str, &str, f64) -> String,
) -> Result<Vec<String>, String> {
    let wall_s = started.elapsed().as_secs_f64();
    let passing = cells.iter().filter(|c| c.failures().is_empty()).count();
    println!("{name} matrix: {passing} of {} cells pass ({wall_s:.0} s)", cells.len());
    if let Some(out) = args.out() {
        let argv: Vec<String> = std::env::args().skip(1).collect();
        let command = if argv.is_empty() { "make stress".to_string() } else { format!("{RUN} -- {}", argv.join(" ")) };
        let doc = std::fs::read_to_string(out).unwrap_or_default();
        let generated = markdown(cells, &command, &today(), wall_s);
        std::fs::write(out, table::splice(&doc, markers, &generated)).map_err(|e| format!("cannot write {out}: {e}"))?;
        println!("{name} table written to {out}");
    }
    Ok(cells.iter().flat_map(Cell::failure_lines).collect())
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
