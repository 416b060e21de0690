//! `dcflow._core`: the only crate that depends on pyo3 (docs/architecture.md).
//!
//! Python hands over a scenario as JSON and gets back plain columns; Rust runs
//! the whole simulation with the GIL released and is never called back per
//! event (docs/architecture.md rule 6). pyarrow tables are built on the Python side from
//! these columns, which keeps arrow-rs (a large build) out of the extension.

use dcflow_scenario::{Engine, FlowRecord, RunOutput, Scenario, SeriesRow};
use pyo3::create_exception;
use pyo3::exceptions::PyValueError;
use pyo3::prelude::*;
use pyo3::types::{PyBytes, PyDict, PyList};
use pyo3::IntoPyObjectExt;

create_exception!(
    _core,
    ScenarioError,
    PyValueError,
    "A scenario that cannot be run: one line naming the key."
);

fn parse(scenario_json: &str) -> PyResult<Scenario> {
    Scenario::from_json(scenario_json).map_err(|e| ScenarioError::new_err(e.to_string()))
}

#[pyfunction]
fn version() -> &'static str {
    dcflow_scenario::VERSION
}

/// How this module was compiled: "profile-guided" when `make pgo` built it,
/// "release-tests" when `make test-python` did (both set DCFLOW_BUILD; cargo
/// rebuilds when that changes), else "release".
/// Benchmarks print it: the same results, different CPU times.
#[pyfunction]
fn build() -> &'static str {
    option_env!("DCFLOW_BUILD").unwrap_or("release")
}

/// The scenario with every default filled in, as JSON.
#[pyfunction]
fn resolve(scenario_json: &str) -> PyResult<String> {
    Ok(parse(scenario_json)?.to_json())
}

/// The resolved scenario as TOML.
#[pyfunction]
fn to_toml(scenario_json: &str) -> PyResult<String> {
    Ok(parse(scenario_json)?.to_toml())
}

/// Hosts, switches and link names of the scenario's topology.
#[pyfunction]
fn topo(scenario_json: &str) -> PyResult<String> {
    let s = parse(scenario_json)?;
    let t = s
        .build_topology()
        .map_err(|e| ScenarioError::new_err(e.to_string()))?;
    Ok(t.describe())
}

/// The scenario's flows as a flow file: `format` is "csv" (dcflow's trace),
/// "hpcc", "htsim" or "yaps" (the CLI restricts it to these).
#[pyfunction]
fn export_flows(scenario_json: &str, format: &str) -> PyResult<String> {
    let format = dcflow_scenario::TraceFormat::from_name(format)
        .ok_or_else(|| ScenarioError::new_err(format!("--format: unknown format {format:?}; use csv, hpcc, htsim or yaps")))?;
    parse(scenario_json)?.export_flows(format).map_err(|e| ScenarioError::new_err(e.to_string()))
}

/// Run the scenario; returns {"summary": dict, "flows": columns, "timeseries": columns | None}.
/// `progress(sim_time_s, flows_done, flows_total, events)` is called every
/// ~50 ms of a long run; if it raises, the run stops and `run` raises that.
#[pyfunction]
#[pyo3(signature = (scenario_json, progress=None))]
fn run(py: Python<'_>, scenario_json: &str, progress: Option<Py<PyAny>>) -> PyResult<Py<PyDict>> {
    let s = parse(scenario_json)?;
    PROGRESS.with_borrow_mut(|cb| *cb = progress);
    let out = py.detach(|| match s.engine {
        Engine::Packet => dcflow_packet::run(&s),
        Engine::Fluid => dcflow_fluid::run(&s),
    });
    PROGRESS.with_borrow_mut(|cb| *cb = None);
    if let Some(e) = STOPPED_BY.with_borrow_mut(Option::take) {
        return Err(e);
    }
    let mut out: RunOutput = out.map_err(|e| {
        if e.is_interrupted() {
            pyo3::exceptions::PyKeyboardInterrupt::new_err(e.message)
        } else {
            ScenarioError::new_err(e.to_string())
        }
    })?;
    out.apply_stats(&s.stats);
    let result = PyDict::new(py);
    let summary_json = serde_json::to_string(&out.summary).expect("summary serializes");
    let json = py.import("json")?;
    result.set_item("summary", json.call_method1("loads", (summary_json,))?)?;
    result.set_item("flows", flow_columns(py, &out.flows)?)?;
    match &out.timeseries {
        Some(rows) => result.set_item("timeseries", series_columns(py, rows)?)?,
        None => result.set_item("timeseries", py.None())?,
    }
    Ok(result.unbind())
}

/// Build one Python list per field from a slice of rows (the time series,
/// whose rows carry strings).
macro_rules! columns {
    ($py:expr, $rows:expr, $($field:ident),+) => {{
        let d = PyDict::new($py);
        $( d.set_item(stringify!($field), PyList::new($py, $rows.iter().map(|r| r.$field.clone()))?)?; )+
        d
    }};
}

/// A flows-table column in Arrow's memory layout, for
/// `pyarrow.Array.from_buffers`: (values, validity bitmap or None, length).
/// Python lists of a million rows cost seconds to build and convert, and
/// pyarrow's conversion of Python sequences imports pandas (a fifth of a
/// second); buffers cost neither (docs/outputs.md has the column types).
trait ArrowColumn {
    /// Append this value's bytes (fixed-width types) or bit (booleans).
    fn push(&self, values: &mut Bits);
    fn valid(&self) -> bool {
        true
    }
}

/// A buffer of little-endian values, or of bits for booleans.
#[derive(Default)]
struct Bits {
    bytes: Vec<u8>,
    len: usize,
}

impl Bits {
    fn bit(&mut self, on: bool) {
        if self.len.is_multiple_of(8) {
            self.bytes.push(0);
        }
        if on {
            *self.bytes.last_mut().expect("pushed") |= 1 << (self.len % 8);
        }
        self.len += 1;
    }
    fn extend(&mut self, le: &[u8]) {
        self.bytes.extend_from_slice(le);
        self.len += 1;
    }
}

/// Counts and ids: Arrow int64 (docs/outputs.md).
macro_rules! int64_column {
    ($($t:ty),+) => {$(
        impl ArrowColumn for $t {
            fn push(&self, v: &mut Bits) {
                v.extend(&(*self as i64).to_le_bytes());
            }
        }
    )+};
}
int64_column!(u32, u64);
impl ArrowColumn for f64 {
    fn push(&self, v: &mut Bits) {
        v.extend(&self.to_le_bytes());
    }
}
impl ArrowColumn for bool {
    fn push(&self, v: &mut Bits) {
        v.bit(*self);
    }
}
impl<T: ArrowColumn + Default> ArrowColumn for Option<T> {
    fn push(&self, v: &mut Bits) {
        match self {
            Some(x) => x.push(v),
            None => T::default().push(v),
        }
    }
    fn valid(&self) -> bool {
        self.is_some()
    }
}

fn arrow_column<'py, T: ArrowColumn>(py: Python<'py>, values: impl Iterator<Item = T>) -> PyResult<Bound<'py, PyAny>> {
    let (mut data, mut validity, mut nulls) = (Bits::default(), Bits::default(), 0);
    let mut n = 0;
    for v in values {
        v.push(&mut data);
        validity.bit(v.valid());
        nulls += usize::from(!v.valid());
        n += 1;
    }
    let validity = (nulls > 0).then(|| PyBytes::new(py, &validity.bytes));
    (PyBytes::new(py, &data.bytes), validity, n).into_bound_py_any(py)
}

fn flow_columns<'py>(py: Python<'py>, rows: &[FlowRecord]) -> PyResult<Bound<'py, PyDict>> {
    let d = PyDict::new(py);
    macro_rules! put {
        ($($field:ident),+) => { $( d.set_item(stringify!($field), arrow_column(py, rows.iter().map(|r| r.$field))?)?; )+ };
    }
    put!(id, src, dst, size_bytes, start_s, deadline_s, finish_s, fct_s, ideal_fct_s, slowdown, met_deadline, terminated, bytes_delivered);
    Ok(d)
}

fn series_columns<'py>(py: Python<'py>, rows: &[SeriesRow]) -> PyResult<Bound<'py, PyDict>> {
    Ok(columns!(
        py,
        rows,
        time_s,
        series,
        name,
        flow_id,
        throughput_bps,
        queue_bytes,
        drops,
        reroutes,
        up,
        capacity_bps,
        window_bytes,
        alpha,
        imminence,
        rate_bps
    ))
}

/// Events per second of the event queue alone (the hold benchmark): the
/// same-run baseline for `make bench`.
#[pyfunction]
fn bench_event_queue(py: Python<'_>, pending: u32, steps: u64) -> f64 {
    py.detach(|| dcflow_core::hold::hold(pending, steps).events_per_s)
}

thread_local! {
    /// The running `run` call's progress callback, if it was given one.
    static PROGRESS: std::cell::RefCell<Option<Py<PyAny>>> = const { std::cell::RefCell::new(None) };
    /// What the callback raised: the run stops and `run` raises it.
    static STOPPED_BY: std::cell::RefCell<Option<PyErr>> = const { std::cell::RefCell::new(None) };
}

/// What the engines call through `dcflow_core::interrupt` (every ~50 ms of
/// a run, without the GIL): show the progress to the callback, and say
/// whether the interpreter has a pending SIGINT (Ctrl-C). Running Python's
/// handler raises KeyboardInterrupt here; `run` raises its own once the
/// engine has stopped. A callback that raises stops the run, and `run`
/// raises what it raised (a sweep's per-point timeout is such a callback).
fn watch(p: &dcflow_core::interrupt::Progress) -> bool {
    Python::attach(|py| {
        let raised = PROGRESS.with_borrow(|cb| {
            cb.as_ref().and_then(|cb| cb.call1(py, (p.sim_time_s, p.flows_done, p.flows_total, p.events)).err())
        });
        if let Some(e) = raised {
            STOPPED_BY.with_borrow_mut(|s| *s = Some(e));
            return true;
        }
        py.check_signals().is_err()
    })
}

#[pymodule]
fn _core(m: &Bound<'_, PyModule>) -> PyResult<()> {
    dcflow_core::interrupt::set_checker(watch);
    m.add("ScenarioError", m.py().get_type::<ScenarioError>())?;
    m.add_function(wrap_pyfunction!(version, m)?)?;
    m.add_function(wrap_pyfunction!(build, m)?)?;
    m.add_function(wrap_pyfunction!(bench_event_queue, m)?)?;
    m.add_function(wrap_pyfunction!(resolve, m)?)?;
    m.add_function(wrap_pyfunction!(to_toml, m)?)?;
    m.add_function(wrap_pyfunction!(topo, m)?)?;
    m.add_function(wrap_pyfunction!(run, m)?)?;
    m.add_function(wrap_pyfunction!(export_flows, m)?)?;
    Ok(())
}
