"""Run results: the summary dict and the per-flow / time-series Arrow tables."""

from __future__ import annotations

import json
import math
import os
import shutil
import tempfile
from collections.abc import Callable, Mapping
from pathlib import Path
from typing import Any, BinaryIO

import pyarrow as pa
import pyarrow.parquet as pq

__all__ = [
    "Result",
    "FLOWS_SCHEMA",
    "TIMESERIES_SCHEMA",
    "SUMMARY_KEYS",
    "OUTPUT_FILES",
    "summary_to_json",
    "jsonable_summary",
]

#: docs/outputs.md: summary keys, in order.
SUMMARY_KEYS: tuple[str, ...] = (
    "flows_total",
    "flows_completed",
    "flows_terminated",
    "deadline_flows",
    "deadline_met",
    "app_throughput",
    "fct_mean_s",
    "fct_p50_s",
    "fct_p99_s",
    "fct_max_s",
    "slowdown_mean",
    "slowdown_p99",
    "slowdown_max",
    "sim_time_s",
    "events",
    "wall_s",
    "packets_sent",
    "packets_dropped",
    "utilization",
)

#: docs/outputs.md: the flows table.
FLOWS_SCHEMA = pa.schema(
    [
        pa.field("id", pa.int64()),
        pa.field("src", pa.int64()),
        pa.field("dst", pa.int64()),
        pa.field("size_bytes", pa.int64()),
        pa.field("start_s", pa.float64()),
        pa.field("deadline_s", pa.float64()),  # null if the flow has no deadline
        pa.field("finish_s", pa.float64()),  # null if unfinished
        pa.field("fct_s", pa.float64()),
        pa.field("ideal_fct_s", pa.float64()),
        pa.field("slowdown", pa.float64()),
        pa.field("met_deadline", pa.bool_()),  # null if the flow has no deadline
        pa.field("terminated", pa.bool_()),
        pa.field("bytes_delivered", pa.int64()),
    ]
)

#: The monitor's time series (long format: one row per sample per series).
TIMESERIES_SCHEMA = pa.schema(
    [
        pa.field("time_s", pa.float64()),
        pa.field("series", pa.string()),  # "link" | "flow"
        pa.field("name", pa.string()),  # the link's topology name, or the flow id as text
        pa.field("flow_id", pa.int64()),  # the flow id (as in the flows table); null for links
        pa.field("throughput_bps", pa.float64()),
        pa.field("queue_bytes", pa.int64()),  # null for flows
        pa.field("drops", pa.int64()),  # packets dropped on the link in the interval; null for flows
        pa.field("reroutes", pa.int64()),  # flows moved off the link in the interval; null for flows
        pa.field("up", pa.bool_()),  # link state at the sample; null for flows
        # Controller state at the sample (packet engine; null where a port or
        # protocol has none): a port's allocatable capacity (D3 / RCP_dc's C,
        # PDQ's C), a sender's window, DCTCP's alpha, D2TCP's d and its
        # allowed rate.
        pa.field("capacity_bps", pa.float64()),
        pa.field("window_bytes", pa.int64()),
        pa.field("alpha", pa.float64()),
        pa.field("imminence", pa.float64()),
        pa.field("rate_bps", pa.int64()),
    ]
)

#: Files written by :meth:`Result.save`. A directory holding the first two is
#: recognised as a previous output and may be replaced.
OUTPUT_FILES = ("summary.json", "scenario.resolved.toml", "flows.parquet", "timeseries.parquet")


def _table(columns: Mapping[str, Any], schema: pa.Schema, what: str) -> pa.Table:
    missing = [f.name for f in schema if f.name not in columns]
    if missing:
        raise ValueError(f"{what}: the core returned no column(s) {missing}")
    arrays = []
    for field in schema:
        column = columns[field.name]
        if isinstance(column, tuple):
            # Arrow buffers from the core: (values, validity bitmap or None, length).
            values, validity, length = column
            buffers = [None if validity is None else pa.py_buffer(validity), pa.py_buffer(values)]
            arrays.append(pa.Array.from_buffers(field.type, length, buffers))
            continue
        try:
            arrays.append(pa.array(column, type=field.type))
        except (pa.ArrowInvalid, pa.ArrowTypeError) as e:
            raise ValueError(f"{what}.{field.name}: cannot convert to {field.type}: {e}") from None
    return pa.Table.from_arrays(arrays, schema=schema)


def jsonable_summary(summary: Mapping[str, Any]) -> dict[str, Any]:
    """The summary with non-finite floats as None, so it is strict JSON."""
    return {
        k: (None if isinstance(v, float) and not math.isfinite(v) else v) for k, v in summary.items()
    }


def summary_to_json(summary: Mapping[str, Any], indent: int | None = 2) -> str:
    return json.dumps(jsonable_summary(summary), sort_keys=True, indent=indent, allow_nan=False)


class Result:
    """The outcome of one run.

    * ``summary``: dict with the summary keys of docs/outputs.md;
    * ``flows``: :class:`pyarrow.Table` with :data:`FLOWS_SCHEMA`;
    * ``timeseries``: :class:`pyarrow.Table` with :data:`TIMESERIES_SCHEMA`, or
      None when the scenario has no ``[monitor]``;
    * ``resolved_toml``: the scenario with every default filled in (TOML text).
    """

    def __init__(
        self,
        summary: Mapping[str, Any],
        flows: pa.Table,
        timeseries: pa.Table | None = None,
        resolved_toml: str | None = None,
    ):
        self.summary = dict(summary)
        self.flows = flows
        self.timeseries = timeseries
        self.resolved_toml = resolved_toml

    @classmethod
    def from_core(cls, raw: Mapping[str, Any], resolved_toml: str | None = None) -> "Result":
        """Build a Result from the dict returned by ``dcflow._core.run``."""
        flows = _table(raw["flows"], FLOWS_SCHEMA, "flows")
        ts_raw = raw.get("timeseries")
        ts = None if ts_raw is None else _table(ts_raw, TIMESERIES_SCHEMA, "timeseries")
        return cls(raw["summary"], flows, ts, resolved_toml)

    @classmethod
    def load(cls, directory: str | os.PathLike[str]) -> "Result":
        """Read a directory written by :meth:`save`."""
        d = Path(directory)
        summary = json.loads((d / "summary.json").read_text())
        flows = pq.read_table(d / "flows.parquet")
        ts_path = d / "timeseries.parquet"
        ts = pq.read_table(ts_path) if ts_path.exists() else None
        toml_path = d / "scenario.resolved.toml"
        resolved = toml_path.read_text() if toml_path.exists() else None
        return cls(summary, flows, ts, resolved)

    # ------------------------------------------------------------------ saving
    def save(self, directory: str | os.PathLike[str]) -> Path:
        """Write summary.json, flows.parquet, timeseries.parquet (when
        monitored) and scenario.resolved.toml into ``directory``, atomically.

        Everything is written into a temporary sibling directory which then
        replaces ``directory``: an error or interrupt leaves the previous
        ``directory`` (if any) untouched and no temporary directory behind.
        An existing ``directory`` is replaced only if it is empty or looks like
        a previous dcflow output (it holds summary.json and
        scenario.resolved.toml); otherwise FileExistsError is raised.
        """
        dest = check_output_dir(directory)
        dest.parent.mkdir(parents=True, exist_ok=True)
        tmp = Path(tempfile.mkdtemp(prefix=f".{dest.name}.tmp-", dir=dest.parent))
        # mkdtemp makes 0700; an output directory is as public as umask allows.
        os.chmod(tmp, 0o777 & ~current_umask())
        try:
            self._write_into(tmp)
            _swap_into_place(tmp, dest)
        except BaseException:
            shutil.rmtree(tmp, ignore_errors=True)
            raise
        return dest

    def _write_into(self, d: Path) -> None:
        _write_text(d / "summary.json", summary_to_json(self.summary) + "\n")
        _write_parquet(self.flows, d / "flows.parquet")
        if self.timeseries is not None:
            _write_parquet(self.timeseries, d / "timeseries.parquet")
        if self.resolved_toml is not None:
            _write_text(d / "scenario.resolved.toml", self.resolved_toml)

    def __repr__(self) -> str:
        s = self.summary
        return (
            f"Result(flows_total={s.get('flows_total')}, flows_completed={s.get('flows_completed')}, "
            f"fct_mean_s={s.get('fct_mean_s')}, timeseries={'yes' if self.timeseries is not None else 'no'})"
        )


def _write_text(path: Path, text: str) -> None:
    with open(path, "w", encoding="utf-8") as f:
        f.write(text)
        f.flush()
        os.fsync(f.fileno())


def write_atomically(path: str | os.PathLike[str], write: Callable[[BinaryIO], None]) -> None:
    """Write ``path`` through ``write(file)`` into a temporary sibling, fsync
    it and rename it into place, so a reader never sees a partial file and an
    error or interrupt leaves none behind; the file gets the permissions umask
    gives a new file (0644 usually)."""
    path = Path(path)
    fd, tmp = tempfile.mkstemp(prefix=f".{path.name}.", suffix=".tmp", dir=path.parent)
    try:
        # mkstemp makes 0600.
        os.fchmod(fd, 0o666 & ~current_umask())
        with os.fdopen(fd, "wb") as f:
            write(f)
            f.flush()
            os.fsync(f.fileno())
        os.replace(tmp, path)
    except BaseException:
        try:
            os.unlink(tmp)
        except FileNotFoundError:
            pass
        raise


def write_file_atomically(path: str | os.PathLike[str], text: str) -> None:
    """``text`` (UTF-8) into ``path``, as :func:`write_atomically`."""
    write_atomically(path, lambda f: f.write(text.encode("utf-8")))


def write_table_atomically(table: pa.Table, path: str | os.PathLike[str]) -> None:
    """``table`` as Parquet into ``path``, as :func:`write_atomically`. Fixed
    options: the same table always gives the same bytes."""
    write_atomically(path, lambda f: pq.write_table(table, f, compression="zstd", write_statistics=True,
                                                    store_schema=True))


def _write_parquet(table: pa.Table, path: Path) -> None:
    # Fixed options so the same table always gives the same bytes.
    pq.write_table(table, path, compression="zstd", write_statistics=True, store_schema=True)


#: What `Result.save` writes; anything else in an output directory is the
#: user's and survives a re-run.
OUTPUT_FILES = frozenset({"summary.json", "flows.parquet", "timeseries.parquet", "scenario.resolved.toml"})


def current_umask() -> int:
    mask = os.umask(0)
    os.umask(mask)
    return mask


def check_output_dir(directory: str | os.PathLike[str]) -> Path:
    """The absolute path of an output directory `Result.save` may write:
    absent, empty, or a previous dcflow output. Raises FileExistsError
    otherwise, so that a CLI can refuse before it simulates."""
    dest = Path(os.path.abspath(directory))
    _check_replaceable(dest)
    parent = next((p for p in dest.parents if os.path.lexists(p)), None)
    if parent is not None and not parent.is_dir():
        raise FileExistsError(f"{parent}: exists and is not a directory")
    if parent is not None:
        check_writable(parent)
    return dest


def check_writable(directory: Path) -> None:
    """Raise PermissionError unless a directory can be made in `directory`:
    tried, since permission bits do not tell (root ignores them; a
    read-only file system, /proc, refuse whatever they say)."""
    try:
        os.rmdir(tempfile.mkdtemp(prefix=".dcflow-check-", dir=directory))
    except OSError as e:
        raise PermissionError(f"{directory}: cannot write here ({e.strerror or e})") from None


def _check_replaceable(dest: Path) -> None:
    if not os.path.lexists(dest):
        return
    if not dest.is_dir() or dest.is_symlink():
        raise FileExistsError(f"{dest}: exists and is not a directory; refusing to replace it")
    entries = set(os.listdir(dest))
    if entries and not {"summary.json", "scenario.resolved.toml"} <= entries:
        raise FileExistsError(
            f"{dest}: exists and is not a dcflow output directory; refusing to replace it"
        )


def _swap_into_place(tmp: Path, dest: Path) -> None:
    """Move the finished ``tmp`` to ``dest``, replacing a previous ``dest``.

    The old directory is first renamed aside (onto an empty placeholder, which
    rename(2) replaces), the new one renamed in, then the old one removed; if
    the second rename fails the old directory is put back.
    """
    if not os.path.lexists(dest):
        os.rename(tmp, dest)
        return
    old = Path(tempfile.mkdtemp(prefix=f".{dest.name}.old-", dir=dest.parent))
    try:
        os.rename(dest, old)
    except BaseException:
        os.rmdir(old)
        raise
    try:
        os.rename(tmp, dest)
    except BaseException:
        os.rename(old, dest)
        raise
    # Files dcflow did not write (notes, plots) move into the new directory.
    for name in os.listdir(old):
        if name not in OUTPUT_FILES:
            os.rename(old / name, dest / name)
    shutil.rmtree(old, ignore_errors=True)
