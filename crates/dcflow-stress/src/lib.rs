//! dcflow-stress: the stress matrix. Every packet-engine protocol
//! ([`matrix::PROTOCOLS`]) runs on every scenario ([`matrix::scenarios`]),
//! checked against a bound derived from the fluid `fair` makespan of the
//! same flows (and stopped at a multiple of it), and each run is checked ([`checks::violations`]).
//! The agreement matrix ([`agreement`]) runs the protocols with a
//! flow-level counterpart on both engines and bounds packet over flow level.
//! `make stress` runs both matrices (the `dcflow-stress` binary); `make
//! test` runs a slice of each (tests/slice.rs, tests/agreement_slice.rs).

pub mod agreement;
pub mod checks;
pub mod matrix;
pub mod table;

use dcflow_core::{ConfigError, Dur};
use dcflow_scenario::Scenario;
use matrix::{Protocol, StressScenario};
use std::panic::{catch_unwind, AssertUnwindSafe};
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::Mutex;

/// One cell of the matrix: a protocol's run on a scenario and its verdict.
#[derive(Clone, Debug)]
pub struct CellResult {
    pub protocol: &'static str,
    pub scenario: String,
    pub flows: u64,
    pub completed: u64,
    pub terminated: u64,
    /// Over completed flows.
    pub slowdown_mean: Option<f64>,
    pub packets_per_kb: f64,
    /// When the run had to be over (it was stopped at [`checks::hard_stop`] of it).
    pub bound: Dur,
    /// The fluid `fair` makespan of the same flows.
    pub fair: Dur,
    /// When the last flow ended, if every flow did.
    pub last_end: Option<f64>,
    /// Every violated check, one line each; empty when the cell passes.
    pub failures: Vec<String>,
}

/// What the binary and the tables read of a cell of either matrix.
pub trait Cell {
    /// The protocol (stress) or pair (agreement).
    fn label(&self) -> &str;
    fn scenario(&self) -> &str;
    /// Every violated check or bound, one line each; empty when it passes.
    fn failures(&self) -> &[String];

    /// One line per failure, naming the cell.
    fn failure_lines(&self) -> Vec<String> {
        self.failures().iter().map(|f| format!("{} on {}: {f}", self.label(), self.scenario())).collect()
    }
}

impl Cell for CellResult {
    fn label(&self) -> &str {
        self.protocol
    }
    fn scenario(&self) -> &str {
        &self.scenario
    }
    fn failures(&self) -> &[String] {
        &self.failures
    }
}

/// What a slice test says of its cells against its list of known failures
/// (label, scenario): a failing cell not listed, a listed cell that passes
/// (to be removed from the list) and a listed cell the slice does not run.
/// Empty when the slice is as expected.
pub fn slice_complaints<C: Cell>(cells: &[C], known: &[(&str, &str)]) -> Vec<String> {
    let listed = |c: &C| known.contains(&(c.label(), c.scenario()));
    let mut complaints: Vec<String> = cells.iter().filter(|c| !listed(c)).flat_map(Cell::failure_lines).collect();
    complaints.extend(
        cells
            .iter()
            .filter(|c| listed(c) && c.failures().is_empty())
            .map(|c| format!("{} on {} passes now: remove it from KNOWN_FAILURES", c.label(), c.scenario())),
    );
    complaints.extend(
        known
            .iter()
            .filter(|&&(l, s)| !cells.iter().any(|c| (c.label(), c.scenario()) == (l, s)))
            .map(|(l, s)| format!("KNOWN_FAILURES lists {l} on {s}, not in the slice")),
    );
    complaints
}

/// The time the last flow finishes under ideal max-min fair sharing (the
/// fluid engine), every flow of the scenario included.
pub fn fair_makespan(scenario: &StressScenario) -> Dur {
    let s = parse(&scenario.fair_toml());
    let out = dcflow_fluid::run(&s).unwrap_or_else(|e| panic!("{}: fluid fair run: {e}", scenario.label));
    let last = out.flows.iter().filter_map(|f| f.finish_s).fold(0.0, f64::max);
    Dur::from_secs_f64(last)
}

pub(crate) fn parse(toml: &str) -> Scenario {
    Scenario::from_toml(toml).unwrap_or_else(|e| panic!("a stress scenario does not parse: {e}\n{toml}"))
}

/// Run `protocol` on `scenario` twice (the second run checks determinism),
/// stopped at the hard stop, and check the runs. A panic inside the engine
/// is reported as the cell's failure, not a crash of the matrix.
pub fn run_cell(protocol: &Protocol, scenario: &StressScenario, makespan: Dur) -> CellResult {
    let bound = checks::end_bound(makespan, protocol);
    let s = parse(&scenario.packet_toml(protocol, checks::hard_stop(bound)));
    let mut cell = CellResult {
        protocol: protocol.label,
        scenario: scenario.label.clone(),
        flows: 0,
        completed: 0,
        terminated: 0,
        slowdown_mean: None,
        packets_per_kb: 0.0,
        bound,
        fair: makespan,
        last_end: None,
        failures: Vec::new(),
    };
    let runs = guarded(|| {
        let first = dcflow_packet::run_audited(&s);
        let second = dcflow_packet::run(&s);
        first.and_then(|f| second.map(|s| (f, s)))
    });
    match runs {
        Err(failure) => cell.failures.push(failure),
        Ok(((out, audit), rerun)) => {
            let s = &out.summary;
            (cell.flows, cell.completed, cell.terminated) = (s.flows_total, s.flows_completed, s.flows_terminated);
            cell.slowdown_mean = s.slowdown_mean;
            cell.packets_per_kb = checks::packets_per_kb(&out);
            cell.last_end = checks::last_end(&out);
            cell.failures = checks::violations(protocol, bound, &out, &audit, &rerun);
        }
    }
    cell
}

/// `runs` (engine runs), with a panic inside the engine or a rejected
/// scenario turned into the cell's one-line failure instead of a crash of
/// the matrix.
pub(crate) fn guarded<T>(runs: impl FnOnce() -> Result<T, ConfigError>) -> Result<T, String> {
    match catch_unwind(AssertUnwindSafe(runs)) {
        Err(panic) => Err(format!("panicked: {}", panic_message(&*panic))),
        Ok(Err(e)) => Err(format!("scenario rejected: {e}")),
        Ok(Ok(out)) => Ok(out),
    }
}

fn panic_message(panic: &(dyn std::any::Any + Send)) -> String {
    match (panic.downcast_ref::<&str>(), panic.downcast_ref::<String>()) {
        (Some(s), _) => s.to_string(),
        (_, Some(s)) => s.clone(),
        _ => "(no message)".into(),
    }
}

/// Every `protocol × scenario` cell of `protocols` and `scenarios`, on
/// `threads` worker threads, in table order (scenario by scenario).
/// `progress` is told of each cell as it ends, with the count done so far.
pub fn run_matrix(
    protocols: &[Protocol],
    scenarios: &[StressScenario],
    threads: usize,
    progress: &(dyn Fn(usize, usize, &CellResult) + Sync),
) -> Vec<CellResult> {
    run_grid(scenarios, protocols, threads, &fair_makespan, &|p, s, &makespan| run_cell(p, s, makespan), progress)
}

/// Every `column × scenario` cell on `threads` worker threads, in table
/// order (scenario by scenario): `prepare` runs once per scenario (the
/// stress and agreement matrices both derive their stops from the fair
/// makespan), then `cell` once per cell. `progress` is told of each cell as
/// it ends, with the count done so far.
pub fn run_grid<S: Sync, C: Sync, P: Send + Sync, R: Send>(
    scenarios: &[S],
    columns: &[C],
    threads: usize,
    prepare: &(dyn Fn(&S) -> P + Sync),
    cell: &(dyn Fn(&C, &S, &P) -> R + Sync),
    progress: &(dyn Fn(usize, usize, &R) + Sync),
) -> Vec<R> {
    let prepared = parallel_map(scenarios, threads, prepare);
    let cells: Vec<(usize, &C)> = (0..scenarios.len()).flat_map(|s| columns.iter().map(move |c| (s, c))).collect();
    let done = AtomicUsize::new(0);
    parallel_map(&cells, threads, &|&(s, c)| {
        let result = cell(c, &scenarios[s], &prepared[s]);
        progress(done.fetch_add(1, Ordering::Relaxed) + 1, cells.len(), &result);
        result
    })
}

/// `f` over `items` on `threads` threads, results in `items`' order.
fn parallel_map<T: Sync, R: Send>(items: &[T], threads: usize, f: &(dyn Fn(&T) -> R + Sync)) -> Vec<R> {
    let next = AtomicUsize::new(0);
    let results: Mutex<Vec<Option<R>>> = Mutex::new((0..items.len()).map(|_| None).collect());
    std::thread::scope(|scope| {
        for _ in 0..threads.max(1) {
            scope.spawn(|| loop {
                let i = next.fetch_add(1, Ordering::Relaxed);
                let Some(item) = items.get(i) else { break };
                let r = f(item);
                results.lock().expect("no worker panics holding the lock")[i] = Some(r);
            });
        }
    });
    results.into_inner().expect("workers ended").into_iter().map(|r| r.expect("every item ran")).collect()
}

/// Flows and runs made up for the unit tests of the checks and comparisons.
#[cfg(test)]
pub(crate) mod testing {
    use dcflow_scenario::{FlowRecord, RunOutput, RunStats, Summary};

    /// A 100 KB flow from host 1 to 0 starting at 0, whose ideal FCT is 1 ms.
    pub fn flow(id: u32, fct: Option<f64>, delivered: u64, terminated: bool) -> FlowRecord {
        FlowRecord {
            id,
            src: 1,
            dst: 0,
            size_bytes: 100_000,
            start_s: 0.0,
            deadline_s: None,
            finish_s: fct,
            fct_s: fct,
            ideal_fct_s: 0.001,
            slowdown: fct.map(|f| f / 0.001),
            met_deadline: None,
            terminated,
            bytes_delivered: delivered,
            no_path: false,
        }
    }

    /// A run of `flows` that sent `packets_sent` packets and ended at 10 ms.
    pub fn output(flows: Vec<FlowRecord>, packets_sent: u64) -> RunOutput {
        let stats = RunStats { packets_sent, sim_time_s: 0.01, ..RunStats::default() };
        RunOutput { summary: Summary::from_flows(&flows, &stats), flows, timeseries: None }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    struct Fake(&'static str, Vec<String>);

    impl Cell for Fake {
        fn label(&self) -> &str {
            self.0
        }
        fn scenario(&self) -> &str {
            "s"
        }
        fn failures(&self) -> &[String] {
            &self.1
        }
    }

    #[test]
    fn a_slice_complains_of_unlisted_failures_listed_passes_and_stale_entries() {
        let cells = [Fake("ok", vec![]), Fake("bad", vec!["late".into()]), Fake("known", vec!["late".into()])];
        assert_eq!(slice_complaints(&cells, &[("known", "s")]), ["bad on s: late"]);
        assert_eq!(
            slice_complaints(&cells, &[("bad", "s"), ("known", "s"), ("ok", "s"), ("gone", "s")]),
            ["ok on s passes now: remove it from KNOWN_FAILURES", "KNOWN_FAILURES lists gone on s, not in the slice"]
        );
    }
}
