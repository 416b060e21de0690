"""Sweeps: a base scenario x a grid of overrides x seeds (the README's sweeps section).

    sw = dcflow.Sweep(base, {"protocol.name": ["tcp", "rcp"], "workload.flows": [4, 8]}, seeds=3)
    res = sw.run("out", executor="local", workers=2)       # or executor="dask"
    res.points                                             # pyarrow.Table (points.parquet)

Outputs in ``DIR`` (contract):

* ``points.parquet``: one row per (grid point, seed), in canonical order (grid
  keys in the order given, the last key varying fastest, then seeds): the grid
  values (one column per dotted key), ``seed``, every summary key, ``status``
  ("ok" | "error" | "timeout") and ``error`` (message or null). The summary's own
  ``status`` ("completed" | "stopped" | "stalled") is the column
  ``run_status``, and its list ``utilization_links`` is one string, the link
  names joined by ","  (null for points that failed);
* ``flows/``: a Parquet dataset (one file per point, ``<point-id>.parquet``) of
  every flow row with the grid values and ``seed`` as leading columns;
* ``timeseries/``: the same for monitored scenarios;
* ``points/<point-id>.parquet``: the row of each finished point, written
  atomically as soon as the point completes (crash safety, ``--resume``);
* ``sweep.json``: the sweep definition, checked on ``--resume``.

Points run in worker processes (a process pool, or Dask: dcflow.executors); only the parent
writes files, so a Dask cluster needs no shared file system. Everything but
``wall_s`` (wall-clock time) is identical whatever the executor and the number
of workers.
"""

from __future__ import annotations

import hashlib
import itertools
import json
import math
import os
import sys
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import pyarrow as pa
import pyarrow.parquet as pq

from dcflow.executors import EXECUTORS
from dcflow.result import SUMMARY_KEYS, write_file_atomically, write_table_atomically
from dcflow.scenario import Scenario, ScenarioError, read_toml

__all__ = ["Sweep", "SweepResult", "Point", "SweepError", "SweepInterrupted", "load_points", "load_flows"]

#: Summary keys always present as columns of points.parquet (the core may add more).
POINT_SUMMARY_KEYS: tuple[str, ...] = SUMMARY_KEYS + ("fct_p999_s", "retransmits", "timeouts", "packet_hops", "utilization_links", "status",
                                                    "warmup_s", "flows_measured", "packets_dropped_by_failure", "reroutes",
                                                    "flows_no_path")

#: Per size bucket (the labels in the summary's ``size_buckets``), these
#: statistics are summary keys and points.parquet columns named
#: ``STAT[LABEL]``, e.g. ``slowdown_p99[<=100KB]``.
BUCKET_STATS: tuple[str, ...] = ("flows", "completed", "deadline_flows", "deadline_met", "app_throughput", "fct_mean_s",
                                  "slowdown_mean", "slowdown_p50", "slowdown_p99")


def bucket_column(stat: str, label: str) -> str:
    """The points.parquet column of one statistic of one size bucket."""
    return f"{stat}[{label}]"

#: Summary keys whose column in points.parquet has another name: the summary's
#: ``status`` (how the run ended) beside the point's own ``status`` (ok | error).
_POINT_COLUMN = {"status": "run_status"}

#: A sweep of more points is refused up front: each point writes its own
#: files, and the list of points is built before the first runs.
MAX_POINTS = 1_000_000

#: Test hook: after this many points have been written, the parent process
#: kills itself with SIGKILL (simulates a crash / kill -9 midway).
_KILL_AFTER_ENV = "DCFLOW_SWEEP_KILL_AFTER"


class SweepError(ValueError):
    """A bad sweep definition or output directory (user error)."""


class SweepInterrupted(KeyboardInterrupt):
    """Ctrl-C stopped a sweep; every point finished by then is saved, and
    ``Sweep.run(..., resume=True)`` (``--resume``) runs the others."""

    def __init__(self, saved: int, total: int):
        super().__init__(f"{saved} of {total} points saved")
        self.saved = saved
        self.total = total


@dataclass(frozen=True)
class Point:
    """One (grid point, seed) of a sweep."""

    index: int  # canonical position
    params: tuple[tuple[str, Any], ...]  # (dotted key, value) in grid order
    seed: int

    @property
    def id(self) -> str:
        """Names the point's files: its values and seed alone, not its place
        in the grid, so that a sweep grown by grid values or seeds keeps the
        points it has."""
        blob = json.dumps([list(map(list, self.params)), self.seed], sort_keys=True, default=str)
        return hashlib.sha1(blob.encode()).hexdigest()[:16]

    def label(self) -> str:
        parts = [f"{k}={_fmt_value(v)}" for k, v in self.params]
        return " ".join(parts + [f"seed={self.seed}"])


def _fmt_value(v: Any) -> str:
    return v if isinstance(v, str) else json.dumps(v, sort_keys=True)


@dataclass
class SweepResult:
    """What :meth:`Sweep.run` did: ``points`` (the points.parquet table),
    ``ran`` (points run now), ``skipped`` (already done, with ``resume``) and
    ``failures`` ((Point, message) pairs, in canonical order)."""

    directory: Path
    points: pa.Table
    ran: int
    skipped: int
    failures: list[tuple[Point, str]] = field(default_factory=list)

    @property
    def ok(self) -> bool:
        return not self.failures

    def flows(self) -> pa.Table:
        return load_flows(self.directory)


class Sweep:
    """A base scenario, a grid of dotted overrides (cartesian product, keys in
    the given order, the last varying fastest) and seeds (a list, or a count N
    meaning seeds 1..N)."""

    def __init__(
        self,
        base: Scenario | Mapping[str, Any] | str | os.PathLike[str],
        grid: Mapping[str, Sequence[Any]] | None = None,
        seeds: Sequence[int] | int | None = None,
        *,
        name: str | None = None,
        options: Mapping[str, Mapping[str, Any]] | None = None,
    ):
        self.base = Scenario.load(base)
        # Per-protocol option tables: {"dctcp": {"g": 0.1}} sets protocol.g on
        # the points whose protocol is dctcp only, so a grid over protocols can
        # carry each one's tuned options.
        self.options: dict[str, dict[str, Any]] = {}
        for proto, table in (options or {}).items():
            if not isinstance(table, Mapping):
                raise SweepError(f"options.{proto}: expected a table of protocol keys, got {table!r}")
            self.options[str(proto)] = dict(table)
        self.grid: dict[str, list[Any]] = {}
        for key, values in (grid or {}).items():
            if isinstance(values, (str, bytes)) or not isinstance(values, Iterable):
                raise SweepError(f"grid.{key}: expected a list of values, got {values!r}")
            values = list(values)
            if not values:
                raise SweepError(f"grid.{key}: the list of values is empty")
            if str(key) in ("stats", "stats.buckets"):
                raise SweepError(f"grid.{key}: the size buckets cannot vary within a sweep (points.parquet has "
                                 "one column per bucket); set stats.buckets in the base, or run one sweep per set")
            self.grid[str(key)] = values
        if seeds is None:
            seed = self.base.to_dict().get("seed", 1)
            if isinstance(seed, bool) or not isinstance(seed, int) or seed < 0:
                raise SweepError(f"base.seed: expected a non-negative whole number, got {seed!r}")
            seeds = [seed]
        elif isinstance(seeds, int) and not isinstance(seeds, bool):
            if seeds < 1:
                raise SweepError(f"seeds.count: expected a positive integer, got {seeds}")
            grid_points = math.prod(len(v) for v in self.grid.values())
            if seeds * grid_points > MAX_POINTS:
                raise SweepError(f"seeds.count: {seeds:,} seeds x {grid_points:,} grid points exceed the "
                                 f"{MAX_POINTS:,} points a sweep may have")
            seeds = list(range(1, seeds + 1))
        elif isinstance(seeds, (str, bytes, Mapping)) or not isinstance(seeds, Iterable):
            raise SweepError(f"seeds: expected count = N (a positive integer) or values = [...], got {seeds!r}")
        seeds = list(seeds)
        if not seeds or not all(isinstance(s, int) and not isinstance(s, bool) and s >= 0 for s in seeds):
            raise SweepError(f"seeds.values: expected a non-empty list of non-negative integers, got {seeds!r}")
        if len(set(seeds)) != len(seeds):
            raise SweepError(f"seeds.values: duplicate seeds in {seeds!r}")
        if len(seeds) * math.prod(len(v) for v in self.grid.values()) > MAX_POINTS:
            raise SweepError(f"grid: {len(self.grid)} keys x {len(seeds):,} seeds exceed the {MAX_POINTS:,} "
                             "points a sweep may have")
        self.seeds: list[int] = seeds
        self.name = name or self.base.to_dict().get("name")
        self._check_base()

    # ---------------------------------------------------------------- loading
    @classmethod
    def from_toml(cls, path: str | os.PathLike[str]) -> "Sweep":
        """Load a sweep file: ``[base]`` (or ``base = "scenario.toml"``,
        relative to the sweep file), ``[grid]``, ``[seeds]``."""
        p = Path(path)
        try:
            data = read_toml(p.read_bytes(), str(path))
        except FileNotFoundError:
            raise SweepError(f"{path}: no such sweep file") from None
        except OSError as e:
            raise SweepError(f"{path}: cannot read: {e.strerror or e}") from None
        except ScenarioError as e:
            raise SweepError(str(e)) from None
        return cls.from_dict(data, base_dir=p.resolve().parent, where=str(path))

    @classmethod
    def from_dict(cls, data: Mapping[str, Any], base_dir: str | os.PathLike[str] | None = None,
                  where: str = "sweep") -> "Sweep":
        unknown = sorted(set(data) - {"base", "grid", "seeds", "name", "options"})
        if unknown:
            raise SweepError(f"{where}: unknown key(s) {unknown}; allowed: base, grid, seeds, name, options")
        if "base" not in data:
            raise SweepError(f"{where}: missing [base] (an inline scenario, or base = \"scenario.toml\")")
        base = data["base"]
        if isinstance(base, str):
            bp = Path(base)
            if not bp.is_absolute() and base_dir is not None:
                bp = Path(base_dir) / bp
            base = Scenario.from_toml(bp)
        elif isinstance(base, Mapping):
            base = dict(base)
            if base_dir is not None:
                from dcflow.scenario import _absolutize_paths

                _absolutize_paths(base, Path(base_dir))
            base = Scenario(base)
        else:
            raise SweepError(f"{where}: base must be a table or a path to a scenario file")
        grid = data.get("grid", {})
        if not isinstance(grid, Mapping):
            raise SweepError(f"{where}: [grid] must be a table of dotted keys to lists")
        seeds_t = data.get("seeds", {})
        if not isinstance(seeds_t, Mapping):
            raise SweepError(f"{where}: [seeds] must be a table with values = [...] or count = N")
        bad = sorted(set(seeds_t) - {"values", "count"})
        if bad or ("values" in seeds_t and "count" in seeds_t):
            raise SweepError(f"{where}: [seeds] takes either values = [...] or count = N")
        seeds = seeds_t.get("values", seeds_t.get("count"))
        options = data.get("options", {})
        if not isinstance(options, Mapping):
            raise SweepError(f"{where}: [options] must hold one table per protocol, e.g. [options.dctcp]")
        return cls(base, grid, seeds, name=data.get("name"), options=options)

    # ----------------------------------------------------------------- points
    def points(self) -> list[Point]:
        keys = list(self.grid)
        combos = itertools.product(*(self.grid[k] for k in keys)) if keys else [()]
        out = []
        for combo in combos:
            params = tuple(zip(keys, combo))
            for seed in self.seeds:
                out.append(Point(len(out), params, seed))
        return out

    def overrides(self, point: Point) -> list[list[Any]]:
        """The point's grid overrides, then its protocol's option table."""
        params = [list(p) for p in point.params]
        if self.options:
            protocol = self.base.with_overrides(dict(point.params)).to_dict().get("protocol", {})
            for key, value in self.options.get(protocol.get("name", ""), {}).items():
                params.append([f"protocol.{key}", value])
        return params

    def scenario(self, point: Point) -> Scenario:
        """The scenario of one point (overrides, then the seed)."""
        return self.base.with_overrides(dict(self.overrides(point))).with_overrides({"seed": point.seed})

    def definition(self) -> dict[str, Any]:
        """What `--resume` checks: the scenario, grid and seeds, the dcflow
        version, and the content of every file they name (a CDF or trace
        edited between two runs would otherwise resume into other numbers)."""
        base = json.loads(self.base.to_json())
        from dcflow import __version__

        return {"base": base, "grid": self.grid, "seeds": self.seeds, "options": self.options, "dcflow": __version__,
                "files": _file_digests([base, self.grid])}

    def bucket_labels(self) -> list[str]:
        """The size buckets' labels (the same for every point: the grid
        cannot vary them), from the first point, or the default buckets when
        that point is invalid (it then fails on its own)."""
        try:
            resolved = self.scenario(self.points()[0]).resolved()
        except ScenarioError:
            resolved = Scenario({}).resolved()
        bounds = resolved["stats"]["buckets"]
        return [f"<={bounds[0]}", *(f"{a}-{b}" for a, b in zip(bounds, bounds[1:])), f">{bounds[-1]}"]

    def __len__(self) -> int:
        return math.prod(len(v) for v in self.grid.values()) * len(self.seeds)

    def __repr__(self) -> str:
        return f"Sweep({self.name!r}, grid={list(self.grid)}, seeds={self.seeds}, points={len(self)})"

    # -------------------------------------------------------------------- run
    def run(
        self,
        out_dir: str | os.PathLike[str],
        *,
        executor: str = "local",
        workers: int | None = None,
        address: str | None = None,
        resume: bool = False,
        overwrite: bool = False,
        progress: bool | None = None,
        timeout: float | None = None,
    ) -> SweepResult:
        """Run every point not yet done and assemble ``points.parquet``.

        ``executor``: "local" (a process pool of ``workers`` processes, default
        all cores), "dask" (a ``distributed.LocalCluster`` of ``workers``
        single-threaded processes, or the scheduler at ``address``), or
        "inline" (this process; for debugging). ``resume``: keep finished
        points of a previous run of the same sweep in ``out_dir``. Without it,
        an ``out_dir`` that already holds a sweep is an error unless
        ``overwrite`` (then it is cleared). Failing points do not stop the
        sweep; they are in ``result.failures`` and in points.parquet.
        ``timeout``: seconds of wall time a point may run; a point stopped
        by it is written with status "timeout" and the reason in ``error``.
        """
        out = Path(out_dir)
        self._prepare_dir(out, resume=resume, overwrite=overwrite)
        columns = _Columns(_param_columns(self.grid), self.bucket_labels())
        points = self.points()
        done = {p.id for p in points if (out / "points" / f"{p.id}.parquet").exists()} if resume else set()
        todo = [p for p in points if p.id not in done]
        if progress is None:
            progress = sys.stderr.isatty()
        kill_after = int(os.environ.get(_KILL_AFTER_ENV, "0") or 0)

        written = 0
        failures_now = 0
        from dcflow.progress import bar as progress_bar

        bar = progress_bar(total=len(points), initial=len(done), desc=self.name or "sweep", unit="pt",
                           disable=not progress)
        base_json = self.base.to_json()

        def on_done(point: Point, outcome: dict[str, Any]) -> None:
            nonlocal written, failures_now
            _write_point(out, point, outcome, columns)
            written += 1
            if outcome["status"] != "ok":
                failures_now += 1
            bar.update(1)
            bar.set_postfix(failures=failures_now, refresh=False)
            if kill_after and written >= kill_after:
                import signal

                os.kill(os.getpid(), signal.SIGKILL)

        try:
            if todo:
                tasks = [(base_json, self.overrides(p), p.seed, timeout) for p in todo]
                EXECUTORS[_check_executor(executor)](todo, tasks, on_done, workers, address)
        except KeyboardInterrupt:
            raise SweepInterrupted(len(done) + written, len(points)) from None
        finally:
            bar.close()

        table = _assemble(out, points, columns)
        failures = [(p, msg) for p, st, msg in zip(points, table.column("status").to_pylist(),
                                                   table.column("error").to_pylist()) if st != "ok"]
        return SweepResult(out, table, ran=len(todo), skipped=len(done), failures=failures)

    def _check_base(self) -> None:
        """Refuse a base scenario whose error no grid key or option table
        can change: every point would fail the same way. (An error the grid
        may fix, or a bad grid value, is a failing point instead.)"""
        try:
            self.base.resolved()
        except ScenarioError as e:
            key = str(e).split(":", 1)[0]
            varied = [*self.grid, *(f"protocol.{k}" for table in self.options.values() for k in table)]
            if not any(key == v or key.startswith(v + ".") or v.startswith(key + ".") for v in varied):
                raise SweepError(f"base.{e}") from None

    def _prepare_dir(self, out: Path, *, resume: bool, overwrite: bool) -> None:
        manifest = out / "sweep.json"
        definition = json.dumps(self.definition(), sort_keys=True, default=str)
        if out.exists() and not out.is_dir():
            raise SweepError(f"{out}: exists and is not a directory")
        existing = out.is_dir() and any(out.iterdir())
        if existing:
            if resume and manifest.exists():
                why = _cannot_resume(json.loads(manifest.read_text()), json.loads(definition))
                if why:
                    raise SweepError(f"{out}: cannot resume: {why}")
            elif resume:
                raise SweepError(f"{out}: not a sweep directory (no sweep.json); nothing to resume")
            elif overwrite and manifest.exists():
                import shutil

                for sub in ("points", "flows", "timeseries"):
                    shutil.rmtree(out / sub, ignore_errors=True)
                for f in ("points.parquet", "sweep.json"):
                    (out / f).unlink(missing_ok=True)
            elif manifest.exists():
                raise SweepError(f"{out}: already holds a sweep; use --resume to finish it, "
                                 "or choose another directory")
            else:
                raise SweepError(f"{out}: exists and is not empty")
        try:
            for sub in ("points", "flows"):
                (out / sub).mkdir(parents=True, exist_ok=True)
        except OSError as e:  # checked before any point runs: a usage error
            raise SweepError(f"{out}: cannot write here ({e.strerror or e})") from None
        write_file_atomically(manifest, definition + "\n")


def _file_digests(values: Any) -> dict[str, str]:
    """sha256 of every existing file named by a `file` or `trace` key."""
    found: dict[str, str] = {}

    def walk(v: Any, key: str = "") -> None:
        if isinstance(v, dict):
            for k, x in v.items():
                walk(x, str(k))
        elif isinstance(v, list):
            for x in v:
                walk(x, key)
        elif isinstance(v, str) and key.split(".")[-1] in ("file", "trace") and os.path.isfile(v):
            found[v] = hashlib.sha256(Path(v).read_bytes()).hexdigest()

    walk(values)
    return found


def _cannot_resume(old: dict[str, Any], new: dict[str, Any]) -> str | None:
    """Why a sweep directory made with `old` cannot go on as `new`, or None.
    `new` may add grid values and seeds (only the new points run)."""
    if old.get("dcflow") != new["dcflow"]:
        return f"it was made by dcflow {old.get('dcflow', 'before 0.x')}, this is {new['dcflow']}"
    for path, digest in new["files"].items():
        if old.get("files", {}).get(path, digest) != digest:
            return f"{path} changed since the sweep began"
    canon = lambda v: json.dumps(v, sort_keys=True, default=str)  # noqa: E731
    if canon(old["base"]) != canon(new["base"]) or canon(old.get("options", {})) != canon(new["options"]):
        return "the base scenario or the protocols' option tables differ"
    if list(old["grid"]) != list(new["grid"]):
        return f"the grid keys differ ({', '.join(old['grid'])} before)"
    for k, values in old["grid"].items():
        missing = [v for v in values if canon(v) not in {canon(x) for x in new["grid"][k]}]
        if missing:
            return f"grid values of {k} were removed ({', '.join(map(canon, missing))}); only adding is allowed"
    if not set(old["seeds"]) <= set(new["seeds"]):
        return "seeds were removed; only adding is allowed"
    return None


# ---------------------------------------------------------------- the files
def _param_columns(grid: Mapping[str, Sequence[Any]]) -> list[tuple[str, pa.DataType, bool]]:
    """(name, Arrow type, as_json) for each grid key: one Python type across the
    values keeps it (ints as int64, floats or int/float mixes as float64,
    strings, bools); anything else is stored as JSON text."""
    cols = []
    for key, values in grid.items():
        kinds = {type(v) for v in values}
        if kinds <= {bool}:
            cols.append((key, pa.bool_(), False))
        elif kinds <= {int}:
            cols.append((key, pa.int64(), False))
        elif kinds <= {int, float} and bool not in kinds:
            cols.append((key, pa.float64(), False))
        elif kinds <= {str}:
            cols.append((key, pa.string(), False))
        else:
            cols.append((key, pa.string(), True))
    return cols


def _param_value(v: Any, typ: pa.DataType, as_json: bool) -> Any:
    if as_json:
        return _fmt_value(v)
    if pa.types.is_floating(typ):
        return float(v)
    return v


class _Columns(list):
    """The grid's parameter columns (a list of (name, type, as_json)), and
    the size buckets' labels, which give points.parquet its bucket columns."""

    def __init__(self, params, bucket_labels: list[str]):
        super().__init__(params)
        self.bucket_labels = bucket_labels


def _points_schema(columns: _Columns) -> pa.Schema:
    fields = [pa.field(name, typ) for name, typ, _ in columns]
    fields.append(pa.field("seed", pa.int64()))
    for k in POINT_SUMMARY_KEYS:
        fields.append(pa.field(_POINT_COLUMN.get(k, k), _point_type(k)))
    for label in columns.bucket_labels:
        for stat in BUCKET_STATS:
            fields.append(pa.field(bucket_column(stat, label), _point_type(stat)))
    fields += [pa.field("status", pa.string()), pa.field("error", pa.string())]
    return pa.schema(fields)


_FLOAT_KEYS = frozenset(
    {"app_throughput", "fct_mean_s", "fct_p50_s", "fct_p99_s", "fct_p999_s", "fct_max_s", "slowdown_mean",
     "slowdown_p50", "slowdown_p99", "slowdown_max", "sim_time_s", "wall_s", "utilization", "warmup_s"}
)


_STRING_KEYS = frozenset({"utilization_links", "status"})


def _point_type(key: str) -> pa.DataType:
    if key in _STRING_KEYS:
        return pa.string()
    return pa.float64() if key in _FLOAT_KEYS else pa.int64()


def _point_value(key: str, v: Any) -> Any:
    """A summary value as its points.parquet cell: lists of names joined by ","."""
    if isinstance(v, float) and not math.isfinite(v):
        return None
    if isinstance(v, list):
        return ",".join(v)
    if v is not None and key in _FLOAT_KEYS:
        return float(v)
    return v


def _prefix_columns(table: pa.Table, point: Point, columns) -> pa.Table:
    n = table.num_rows
    arrays, fields = [], []
    for (name, typ, as_json), (_, v) in zip(columns, point.params):
        arrays.append(pa.array([_param_value(v, typ, as_json)] * n, type=typ))
        fields.append(pa.field(name, typ))
    arrays.append(pa.array([point.seed] * n, type=pa.int64()))
    fields.append(pa.field("seed", pa.int64()))
    names = {f.name for f in fields}
    for col, f in zip(table.columns, table.schema):
        if f.name in names:  # a grid key that collides with a column name
            continue
        arrays.append(col)
        fields.append(f)
    return pa.Table.from_arrays(arrays, schema=pa.schema(fields))


def _point_row(point: Point, outcome: Mapping[str, Any], columns) -> pa.Table:
    schema = _points_schema(columns)
    summary = outcome.get("summary") or {}
    row: dict[str, Any] = {}
    for (name, typ, as_json), (_, v) in zip(columns, point.params):
        row[name] = _param_value(v, typ, as_json)
    row["seed"] = point.seed
    for k in POINT_SUMMARY_KEYS:
        row[_POINT_COLUMN.get(k, k)] = _point_value(k, summary.get(k))
    for label in columns.bucket_labels:
        for stat in BUCKET_STATS:
            row[bucket_column(stat, label)] = _point_value(stat, summary.get(bucket_column(stat, label)))
    row["status"] = outcome["status"]
    row["error"] = outcome.get("error")
    return pa.Table.from_pylist([row], schema=schema)


def _write_point(out: Path, point: Point, outcome: Mapping[str, Any], columns) -> None:
    """Write flows/ (and timeseries/) first, then the point row: a point counts
    as done only when points/<id>.parquet exists, and then its flows exist too."""
    if outcome.get("flows") is not None:
        write_table_atomically(_prefix_columns(outcome["flows"], point, columns),
                            out / "flows" / f"{point.id}.parquet")
    if outcome.get("timeseries") is not None:
        (out / "timeseries").mkdir(exist_ok=True)
        write_table_atomically(_prefix_columns(outcome["timeseries"], point, columns),
                            out / "timeseries" / f"{point.id}.parquet")
    write_table_atomically(_point_row(point, outcome, columns), out / "points" / f"{point.id}.parquet")


def _assemble(out: Path, points: list[Point], columns) -> pa.Table:
    schema = _points_schema(columns)
    parts = []
    for p in points:
        path = out / "points" / f"{p.id}.parquet"
        t = pq.read_table(path)
        if t.schema != schema:
            # A point written before a column existed (resumed from an older
            # dcflow) gets it as nulls rather than failing the whole sweep.
            for f in schema:
                if f.name not in t.column_names:
                    t = t.append_column(f, pa.nulls(t.num_rows, f.type))
            t = t.select(schema.names).cast(schema)
        parts.append(t)
    table = pa.concat_tables(parts) if parts else schema.empty_table()
    write_table_atomically(table, out / "points.parquet")
    return table


# ------------------------------------------------------------------- reading
def load_points(directory: str | os.PathLike[str]) -> pa.Table:
    return pq.read_table(Path(directory) / "points.parquet")


def load_flows(directory: str | os.PathLike[str]) -> pa.Table:
    """Every flow row of a sweep, in canonical point order."""
    d = Path(directory) / "flows"
    files = sorted(f for f in d.glob("*.parquet") if not f.name.startswith("."))
    if not files:
        return pa.table({})
    return pa.concat_tables([pq.read_table(f) for f in files], promote_options="default")


def _check_executor(name: str) -> str:
    if name not in EXECUTORS:
        raise SweepError(f"executor: {name!r} is not one of {sorted(EXECUTORS)}")
    return name


def format_failures(failures: list[tuple[Point, str]]) -> str:
    return "\n".join(f"  {p.label()}: {msg}" for p, msg in failures)

