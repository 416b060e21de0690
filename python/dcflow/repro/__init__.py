"""The paper catalog: every table and figure of the five papers as a named,
re-runnable experiment (``dcflow repro list``, ``dcflow repro NAME -o DIR``).

An :class:`Entry` is a base scenario, a list of :class:`Series` (one line or
bar group of the figure: a protocol, a variant, an ideal discipline), an x axis
(a dotted key and its values) and seeds; ``kind`` says what is measured:

* ``"sweep"``: the metric ``y`` at each x, mean and 95% CI over seeds
  (one :class:`dcflow.Sweep` per series, in ``DIR/sweeps/<series>/``);
* ``"capacity"``: at each x, the largest ``capacity.param`` value at which the
  mean over seeds of ``y`` stays >= ``capacity.target`` (:func:`dcflow.capacity`);
* a custom ``analyze`` function for figures that are not one curve per series
  (time series, scatter plots, worked examples).

``run_entry`` writes ``DIR/NAME.csv`` (with the paper's reported numbers in a
``paper`` column where the text gives them), ``DIR/NAME.png`` and the raw
outputs. An entry is *pending* when one of its series (or an extra
requirement) does not resolve in this build: the check resolves each series'
scenario and catches :class:`dcflow.ScenarioError`, so an entry becomes
runnable by itself once the protocol or engine it needs lands. Nothing is faked.

To add an entry: write an :class:`Entry` in a module of this package and pass
it to :func:`register` (one module per paper: ``pdq.py``, ``d3.py``, ``merp.py``, ...; shared series and settings in ``common.py``).
"""

from __future__ import annotations

import csv
import math
import os
import re
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from dcflow.scenario import Scenario, ScenarioError

__all__ = ["Series", "Entry", "register", "CATALOG", "get", "availability", "run_entry", "listing",
           "ReproError", "PendingError"]


class ReproError(Exception):
    """A user-facing error (unknown entry, unwritable directory)."""


class PendingError(ReproError):
    """The entry needs protocols/engines/features this build lacks."""

    def __init__(self, name: str, needs: list[str], details: list[str]):
        self.needs = needs
        self.details = details
        super().__init__(f"{name}: pending (needs: {', '.join(needs)})")


@dataclass
class Series:
    """One line of a figure: a label as the paper prints it, the overrides that
    select it (whole tables replace the base's: ``{"protocol": {...}}``) and
    the name of what it needs (shown when it is missing)."""

    label: str
    overrides: dict[str, Any]
    needs: str

    @property
    def slug(self) -> str:
        return re.sub(r"[^a-z0-9]+", "-", self.label.lower()).strip("-")


@dataclass
class Entry:
    name: str
    paper: str  # "PDQ", "D3", "S3", "MERP", "LPD"
    figure: str  # "Fig. 3a", "Table 1"
    title: str  # what the paper's figure shows
    base: Callable[[bool], dict[str, Any]]  # quick -> scenario dict
    series: list[Series]
    kind: str = "sweep"  # "sweep" | "capacity" | "custom"
    x_key: str | None = None  # dotted key swept along the x axis
    xs: Callable[[bool], list[float]] = lambda quick: []
    x_value: Callable[[float], Any] = lambda x: x  # x -> the override value
    x_name: Callable[[float], str] | None = None  # x -> its name on the axis and in the CSV (categorical x)
    xlabel: str = ""
    y: str = "app_throughput"  # summary metric
    y_scale: float = 1.0  # plot/CSV factor (e.g. 1e3 for seconds -> ms)
    y_map: Callable[[float], float] = lambda v: v  # after y_scale (e.g. met % -> missed %)
    ylabel: str = ""
    #: What the plotted y can be, for a y that is not the summary metric `y`
    #: (a custom analysis's own measure); None: the range of `y`.
    y_range: tuple[float, float] | None = None
    seeds: Callable[[bool], int] = lambda quick: 2 if quick else 10
    capacity: dict[str, Any] | None = None  # param, lo, hi, target (kind="capacity")
    style: str = "line"  # "line" | "bar"
    #: (series, x) -> the number the paper's text gives (custom analyses may key by more).
    paper_values: dict[tuple[Any, ...], float] = field(default_factory=dict)
    #: (series, x) -> (other series, other x, factor): the text gives a ratio
    #: to another point (dcflow.repro.figure.paper_relative).
    paper_ratios: dict[tuple[str, Any], tuple[str, Any, float]] = field(default_factory=dict)
    notes: str = ""  # settings, deviations from the paper, what the text reports
    extra_needs: list[tuple[str, dict[str, Any]]] = field(default_factory=list)  # (need, probe overrides)
    analyze: Callable[["Entry", Path, bool, dict[str, Any]], tuple[list[dict[str, Any]], Any]] | None = None

    def series_scenario(self, s: Series, quick: bool) -> Scenario:
        return Scenario(self.base(quick)).with_overrides(s.overrides)

    def sweep_series(self, s: Series, quick: bool, out: Path, opts: dict[str, Any]):
        """Run series `s` over the x axis and the seeds into ``out/sweeps/<slug>``;
        returns the :class:`dcflow.Sweep` and its result."""
        from dcflow.sweep import Sweep

        values = [self.x_value(x) for x in self.xs(quick)]
        sw = Sweep(self.series_scenario(s, quick), {self.x_key: values}, self.seeds(quick),
                   name=f"{self.name} {s.label}")
        return sw, sw.run(out / "sweeps" / s.slug, overwrite=True, **opts)


#: name -> Entry, in registration order
CATALOG: dict[str, Entry] = {}


def register(entry: Entry) -> Entry:
    if entry.name in CATALOG:
        raise ValueError(f"repro entry {entry.name!r} registered twice")
    CATALOG[entry.name] = entry
    return entry


def get(name: str) -> Entry:
    try:
        return CATALOG[name]
    except KeyError:
        close = [n for n in CATALOG if name in n or n in name]
        hint = f"; did you mean {', '.join(close)}?" if close else "; see `dcflow repro list`"
        raise ReproError(f"{name}: no such repro entry{hint}") from None


def availability(entry: Entry) -> tuple[list[str], list[str]]:
    """(missing needs, error messages): empty when the entry can run. Resolves
    every series' scenario (at the first x value) and each extra probe."""
    needs: list[str] = []
    details: list[str] = []
    for quick in (True,):
        for s in entry.series:
            sc = entry.series_scenario(s, quick)
            xs = entry.xs(quick)
            # A custom entry's x may name no scenario key (a fan-in its own
            # flow generator reads, as lpd_oldi's).
            if entry.x_key and xs and entry.analyze is None:
                sc = sc.with_overrides({entry.x_key: entry.x_value(xs[0])})
            try:
                sc.resolved()
            except ScenarioError as e:
                if s.needs not in needs:
                    needs.append(s.needs)
                details.append(f"{s.label}: {' '.join(str(e).split())}")
        for need, probe in entry.extra_needs:
            try:
                Scenario(entry.base(quick)).with_overrides(probe).resolved()
            except ScenarioError as e:
                if need not in needs:
                    needs.append(need)
                details.append(f"{need}: {' '.join(str(e).split())}")
    return needs, details


# ------------------------------------------------------------------ running
def run_entry(
    name: str,
    out_dir: str | os.PathLike[str],
    *,
    quick: bool = False,
    executor: str = "local",
    workers: int | None = None,
    address: str | None = None,
    progress: bool | None = None,
) -> dict[str, Any]:
    """Run one entry; returns {"csv": path, "png": path, "rows": [...],
    "failures": [messages of points / searches that failed]}.
    Raises :class:`PendingError` for a pending entry."""
    from dcflow.repro.figure import plot_rows

    entry = get(name)
    needs, details = availability(entry)
    if needs:
        raise PendingError(name, needs, details)
    out = Path(out_dir)
    out.mkdir(parents=True, exist_ok=True)
    opts = {"executor": executor, "workers": workers, "address": address, "progress": progress}
    failures: list[str] = []
    if entry.analyze is not None:
        try:
            rows, fig = entry.analyze(entry, out, quick, opts)
        except (KeyboardInterrupt, SystemExit):
            raise
        except BaseException as e:  # noqa: BLE001 - a Rust panic is a BaseException
            raise ReproError(f"{name}: failed: {type(e).__name__}: {' '.join(str(e).split())}") from None
    elif entry.kind == "capacity":
        rows = _run_capacity(entry, out, quick, opts, failures)
        fig = plot_rows(entry, rows, "capacity")
    else:
        rows = _run_sweep(entry, out, quick, opts, failures)
        fig = plot_rows(entry, rows, "y_mean")
    csv_path = out / f"{name}.csv"
    _write_csv(csv_path, rows)
    png = out / f"{name}.png"
    from dcflow.plot import mark_quick, save_figure

    if quick:
        mark_quick(fig)
    save_figure(fig, png)
    return {"csv": csv_path, "png": png, "rows": rows, "failures": failures}


def _run_sweep(entry: Entry, out: Path, quick: bool, opts: dict[str, Any],
               failures: list[str]) -> list[dict[str, Any]]:
    import pyarrow as pa

    from dcflow.plot.stats import mean_ci
    from dcflow.repro.figure import paper_only_rows, paper_relative
    from dcflow.result import write_table_atomically

    xs = entry.xs(quick)
    rows: list[dict[str, Any]] = []
    tables = []
    for s in entry.series:
        sw, res = entry.sweep_series(s, quick, out, opts)
        failures += [f"{s.label}: {p.label()}: {msg}" for p, msg in res.failures]
        pts = res.points
        tables.append(pts.add_column(0, "series", pa.array([s.label] * pts.num_rows)))
        vals = pts.column(entry.y).to_pylist()
        for i, x in enumerate(xs):
            n_seeds = len(sw.seeds)
            ys = [entry.y_map(v * entry.y_scale) for v in vals[i * n_seeds:(i + 1) * n_seeds] if v is not None]
            m, ci = mean_ci(ys)
            row = {"series": s.label, entry.x_key: x}
            if entry.x_name is not None:
                row["x_name"] = entry.x_name(x)
            rows.append({**row, "y": entry.y, "y_mean": m, "ci95": ci, "n": len(ys),
                         "paper": entry.paper_values.get((s.label, x))})
    paper_relative(entry.paper_ratios, rows, entry.x_key, "y_mean")
    rows += paper_only_rows(entry, xs)
    if tables:
        table = pa.concat_tables([t.cast(tables[0].schema) for t in tables], promote_options="default")
        write_table_atomically(table, out / "points.parquet")
    return rows


def _run_capacity(entry: Entry, out: Path, quick: bool, opts: dict[str, Any],
                  failures: list[str]) -> list[dict[str, Any]]:
    import pyarrow as pa

    from dcflow.repro.figure import paper_only_rows, paper_relative
    from dcflow.result import write_table_atomically

    cfg = dict(entry.capacity or {})
    if quick:
        cfg.update(cfg.pop("quick", {}))
    else:
        cfg.pop("quick", None)
    xs = entry.xs(quick)
    jobs = [(s, x) for s in entry.series for x in xs]
    workers = opts.get("workers") or os.cpu_count() or 1
    args = [(entry.name, quick, s.label, x, cfg) for s, x in jobs]
    if workers > 1 and len(args) > 1 and opts.get("executor") != "inline":
        import multiprocessing as mp
        from concurrent.futures import ProcessPoolExecutor

        with ProcessPoolExecutor(max_workers=min(workers, len(args)),
                                 mp_context=mp.get_context("spawn")) as pool:
            results = list(pool.map(_capacity_job, args))
    else:
        results = [_capacity_job(a) for a in args]
    rows, trace = [], []
    for (s, x), r in zip(jobs, results):
        rows.append({"series": s.label, entry.x_key: x, "param": r["param"], "target": r["target"],
                     "capacity": r["value"], "bounded": r["bounded"], "probes": len(r["trace"]),
                     "paper": entry.paper_values.get((s.label, x))})
        if r.get("error"):
            failures.append(r["error"])
        for p in r["trace"]:
            trace.append({"series": s.label, "x": float(x), "value": float(p[0]), "metric": p[1],
                          "ok": p[2]})
    write_table_atomically(pa.Table.from_pylist(trace), out / "capacity_trace.parquet")
    paper_relative(entry.paper_ratios, rows, entry.x_key, "capacity")
    return rows + paper_only_rows(entry, xs)


def _capacity_job(args: tuple[str, bool, str, float, dict[str, Any]]) -> dict[str, Any]:
    from dcflow.capacity import capacity

    name, quick, label, x, cfg = args
    entry = get(name)
    s = next(s for s in entry.series if s.label == label)
    sc = entry.series_scenario(s, quick).with_overrides({entry.x_key: entry.x_value(x)})
    try:
        r = capacity(sc, cfg["param"], cfg.get("lo", 1), cfg.get("hi", 64), cfg.get("target", 0.99),
                     cfg.get("seeds", entry.seeds(quick)), entry.y, integer=cfg.get("integer"),
                     tol=cfg.get("tol"))
    except Exception as e:  # noqa: BLE001 - reported as a failure of this (series, x)
        return {"param": cfg["param"], "target": cfg.get("target", 0.99), "value": None,
                "bounded": None, "trace": [], "error": f"{label} at {entry.x_key}={x}: {e}"}
    return {"param": r.param, "target": r.target, "value": r.value, "bounded": r.bounded,
            "trace": [(p.value, p.metric, p.ok) for p in r.trace], "error": None}


def _write_csv(path: Path, rows: list[dict[str, Any]]) -> None:
    keys: list[str] = []
    for r in rows:
        keys += [k for k in r if k not in keys]
    tmp = path.with_name(f".{path.name}.tmp")
    with open(tmp, "w", newline="") as f:
        w = csv.DictWriter(f, fieldnames=keys)
        w.writeheader()
        for r in rows:
            w.writerow({k: _csv_value(r.get(k)) for k in keys})
    os.replace(tmp, path)


def _csv_value(v: Any) -> Any:
    if v is None or (isinstance(v, float) and math.isnan(v)):
        return ""
    if isinstance(v, float):
        return f"{v:.6g}"
    return v


def _natural(name: str) -> list[Any]:
    """Sort key: the numbers in a name compare as numbers (fig9 before fig10)."""
    return [int(t) if t.isdigit() else t for t in re.split(r"(\d+)", name)]


def listing() -> list[tuple[Entry, str]]:
    """``dcflow repro list``: every entry with its line, sorted by name, in
    columns (name, status, the paper's figure, title); a pending entry ends
    with what it needs. The first line is the header (no entry)."""
    table = []
    for e in sorted(CATALOG.values(), key=lambda e: _natural(e.name)):
        needs = availability(e)[0]
        table.append((e, [e.name, "pending" if needs else "ready", f"{e.paper} {e.figure}",
                          e.title + (f" (needs: {', '.join(needs)})" if needs else "")]))
    header = ["NAME", "STATUS", "FIGURE", "TITLE"]
    widths = [max(len(c[i]) for c in [header] + [cells for _, cells in table]) for i in range(3)]
    line = lambda cells: "  ".join([*(c.ljust(w) for c, w in zip(cells, widths)), cells[3]])  # noqa: E731
    return [(None, line(header))] + [(e, line(cells)) for e, cells in table]


# Register the built-in entries (import for side effects).
from dcflow.repro import d3, examples, lpd, lpd_oldi, merp, pdq, pdq_flow, phost, pias, s3  # noqa: E402,F401
