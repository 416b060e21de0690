"""Plots of a sweep directory (``points.parquet`` + ``flows/``): application
throughput, mean FCT and per-size slowdown vs the swept parameter, one line
per protocol, with 95% confidence intervals over seeds; FCT CDFs per grid
point."""

from __future__ import annotations

import json
import os
from collections.abc import Callable
from pathlib import Path
from typing import Any

import matplotlib.pyplot as plt
import numpy as np
import pyarrow as pa
import pyarrow.parquet as pq

from dcflow.plot.cdf import ecdf
from dcflow.plot.protocols import bucket_table, protocol_bars
from dcflow.plot.stats import mean_ci
from dcflow.plot.style import band, integer_ticks, line_style, series_style

__all__ = ["SWEEP_PLOTS", "plot_sweep", "is_sweep_dir"]

_NON_PARAM = None  # filled lazily


def is_sweep_dir(d: str | os.PathLike[str]) -> bool:
    return (Path(d) / "points.parquet").exists()


def _param_columns(points: pa.Table) -> list[str]:
    from dcflow.sweep import BUCKET_STATS, POINT_SUMMARY_KEYS

    skip = set(POINT_SUMMARY_KEYS) | {"seed", "status", "error", "run_status"}
    return [c for c in points.column_names if c not in skip and not _is_bucket_column(c, BUCKET_STATS)]


def _is_bucket_column(name: str, stats) -> bool:
    return name.endswith("]") and name.split("[", 1)[0] in stats


def _group_key(params: list[str], points: pa.Table) -> tuple[str | None, str | None]:
    """(line key, x key): lines by protocol (or "series"), x = a numeric swept
    parameter with more than one value."""
    line = next((c for c in ("series", "protocol.name", "protocol", "engine") if c in params), None)
    numeric = [c for c in params if c != line and (pa.types.is_integer(points.schema.field(c).type)
                                                   or pa.types.is_floating(points.schema.field(c).type))
               and len(set(points.column(c).to_pylist())) > 1]
    x = numeric[0] if numeric else next((c for c in params if c != line), None)
    return line, x


#: Axis labels for the parameters sweeps usually vary (anything else shows
#: its dotted key).
AXIS_LABELS = {
    "workload.flows": "number of flows",
    "workload.rate": "flow arrival rate (flows/s)",
    "workload.load": "offered load",
    "faults.loss": "packet loss probability",
    "workload.deadline.mean": "mean deadline",
    "topology.hosts": "hosts",
    "topology.k": "fat-tree k (pods)",
}


def _curve(points: pa.Table, metric: str, ylabel: str, scale: float, title: str, ylim=None,
           bounds: tuple[float, float] = (0.0, np.inf)):
    fig, ax = plt.subplots(figsize=(6.4, 4.2))
    if not _curve_on(ax, points, metric, scale, bounds):
        plt.close(fig)
        return None
    ax.set_ylabel(ylabel)
    if ylim:
        ax.set_ylim(*ylim)
    ax.set_title(f"{title} ({_over_seeds(points)})", fontsize=9)
    ax.legend(fontsize=7)
    fig.tight_layout()
    return fig


def _over_seeds(points: pa.Table) -> str:
    n_seeds = len(set(points.column("seed").to_pylist()))
    return f"mean, 95% CI over {n_seeds} seed{'s' if n_seeds != 1 else ''}"


def _curve_on(ax, points: pa.Table, metric: str, scale: float, bounds: tuple[float, float]) -> bool:
    """Draw ``metric`` against the swept parameter on ``ax``, one line per
    protocol (and other varied parameters), mean and 95% CI over seeds;
    False when there is nothing to draw."""
    params = _param_columns(points)
    line, x = _group_key(params, points)
    ok = [s == "ok" for s in points.column("status").to_pylist()]
    if metric not in points.column_names or x is None:
        return False
    vals = points.column(metric).to_pylist()
    if all(v is None for v, k in zip(vals, ok) if k):
        return False
    xs_all = points.column(x).to_pylist()
    lines = points.column(line).to_pylist() if line else ["all"] * points.num_rows
    others = [c for c in params if c not in (line, x)]
    other_vals = list(zip(*(points.column(c).to_pylist() for c in others))) if others else [()] * points.num_rows
    groups: dict[tuple[Any, ...], dict[Any, list[float]]] = {}
    for lv, xv, ov, v, k in zip(lines, xs_all, other_vals, vals, ok):
        if not k or v is None:
            continue
        groups.setdefault((lv, *ov), {}).setdefault(xv, []).append(v * scale)
    numeric_x = all(isinstance(v, (int, float)) for v in xs_all)
    order = list(dict.fromkeys(xs_all))
    for i, (key, by_x) in enumerate(groups.items()):
        xk = sorted(by_x) if numeric_x else [v for v in order if v in by_x]
        stats = [mean_ci(by_x[v]) for v in xk]
        xp = np.array(xk, dtype=float) if numeric_x else np.arange(len(xk))
        st = series_style(i, len(groups))
        ax.plot(xp, [s[0] for s in stats], label=_legend_label(line, others, key), **st)
        # A band never leaves what the metric can be (a ratio stays in [0, 100%]).
        band(ax, xp, [s[0] for s in stats], [s[1] for s in stats], bounds, st["color"])
        if not numeric_x:
            ax.set_xticks(xp, [readable(v) for v in xk], rotation=20)
    if numeric_x and all(float(v).is_integer() for v in xs_all):
        integer_ticks(ax, "x", xs_all)
    ax.set_xlabel(AXIS_LABELS.get(x, x))
    ax.grid(True, alpha=0.3)
    return True


def slowdown_by_size(d: Path, points: pa.Table, flows: Callable[[], pa.Table]):
    """99th-percentile slowdown per flow-size bucket, one panel per bucket:
    what pFabric's and HPCC's evaluations show (short flows apart)."""
    from dcflow.sweep import BUCKET_STATS, bucket_column

    labels = [c[len("slowdown_p99["):-1] for c in points.column_names
              if c.startswith("slowdown_p99[") and _is_bucket_column(c, BUCKET_STATS)]
    if not labels:
        return None
    fig, axes = plt.subplots(1, len(labels), figsize=(3.2 * len(labels) + 0.6, 3.8), squeeze=False)
    drawn = False
    for ax, label in zip(axes[0], labels):
        drawn |= _curve_on(ax, points, bucket_column("slowdown_p99", label), 1.0, (1.0, np.inf))
        ax.set_title(f"flows {label}", fontsize=9)
    if not drawn:
        plt.close(fig)
        return None
    axes[0][0].set_ylabel("99th-percentile slowdown (FCT / ideal)")
    axes[0][0].legend(fontsize=7)
    fig.suptitle(f"slowdown p99 by flow size ({_over_seeds(points)})", fontsize=9)
    fig.tight_layout()
    return fig


def app_throughput_curve(d: Path, points: pa.Table, flows: Callable[[], pa.Table]):
    return _curve(points, "app_throughput", "application throughput (%)", 100.0, "application throughput",
                  ylim=(0, 102), bounds=(0.0, 100.0))


def fct_curve(d: Path, points: pa.Table, flows: Callable[[], pa.Table]):
    return _curve(points, "fct_mean_s", "mean flow completion time (ms)", 1e3, "mean FCT")


def fct_cdf_per_point(d: Path, points: pa.Table, flows: Callable[[], pa.Table]):
    """FCT CDFs per grid point, not pooled over the grid: one panel per value
    of the swept parameter, one line per protocol (and other varied
    parameter); a panel pools only the seeds of its points (replicates)."""
    from dcflow.plot import plain_log_axis

    fl = flows()
    if fl.num_rows == 0 or "fct_s" not in fl.column_names:
        return None
    params = _param_columns(points)
    line, x = _group_key(params, points)
    others = [c for c in params if c not in (line, x)]
    col = lambda c: fl.column(c).to_pylist() if c in fl.column_names else [None] * fl.num_rows  # noqa: E731
    panels = col(x) if x else ["all"] * fl.num_rows
    keys = list(zip(col(line) if line else ["all"] * fl.num_rows, *(col(c) for c in others)))
    fct = np.array([np.nan if v is None else v for v in fl.column("fct_s").to_pylist()], dtype=float) * 1e3
    order = sorted(set(panels)) if all(isinstance(v, (int, float)) for v in panels) else list(dict.fromkeys(panels))
    ncols = min(len(order), 3)
    nrows = -(-len(order) // ncols)
    fig, axes = plt.subplots(nrows, ncols, figsize=(3.4 * ncols + 0.4, 2.9 * nrows + 0.5), squeeze=False,
                             sharex=True, sharey=True)
    # Styles in the points table's order, as in the other sweep plots.
    pcol = lambda c: points.column(c).to_pylist() if c else ["all"] * points.num_rows  # noqa: E731
    ordered = [*zip(pcol(line), *(pcol(c) for c in others)), *keys]
    keys_in_order = list(dict.fromkeys(ordered))
    styles = {k: line_style(i, len(keys_in_order)) for i, k in enumerate(keys_in_order)}
    done = ~np.isnan(fct)
    for ax, pv in zip(axes.flat, order):
        in_panel = np.array([v == pv for v in panels]) & done
        for key in styles:
            m = in_panel & np.array([k == key for k in keys])
            if m.any():
                xs, ys = ecdf(fct[m])
                ax.step(xs, ys, where="post", label=_legend_label(line, others, key), **styles[key])
        ax.set_title(f"{AXIS_LABELS.get(x, x)} = {readable(pv)}" if x else "all points", fontsize=8)
        ax.grid(True, alpha=0.3)
        ax.set_ylim(0, 1.02)
    for ax in axes.flat[len(order):]:
        ax.set_visible(False)
    if done.any() and np.nanmax(fct) > 100 * np.nanmin(fct[done]):
        plain_log_axis(axes[0][0], "x")  # shared: every panel follows
    for ax in axes[-1]:
        ax.set_xlabel("flow completion time (ms)")
    for row in axes:
        row[0].set_ylabel("CDF")
    axes[0][0].legend(fontsize=7)
    fig.suptitle("FCT CDF per grid point (completed flows, seeds pooled)", fontsize=9)
    fig.tight_layout()
    return fig


def _legend_label(line: str | None, others: list[str], key: tuple[Any, ...]) -> str:
    """A line's legend entry: its protocol (or series) value, then every
    other varied parameter by name, so no two lines read alike."""
    named = [f"{AXIS_LABELS.get(c, c)} = {readable(v)}" for c, v in zip(others, key[1:])]
    return ", ".join([readable(key[0]), *named] if line else named or ["all"])


def readable(v: Any) -> str:
    """A grid value as a legend shows it: a whole protocol table (stored as
    JSON text in points.parquet) becomes `dctcp (g=0.1)`, not raw JSON."""
    if isinstance(v, str) and v[:1] in "{[":
        try:
            v = json.loads(v)
        except ValueError:
            return v
    if isinstance(v, dict):
        rest = ", ".join(f"{k}={readable(x)}" for k, x in v.items() if k != "name")
        if "name" not in v:
            return rest
        return f"{v['name']} ({rest})" if rest else str(v["name"])
    if isinstance(v, list):
        return "[" + ", ".join(readable(x) for x in v) + "]"
    return f"{v:g}" if isinstance(v, float) else str(v)


SWEEP_PLOTS: dict[str, Callable[..., Any]] = {
    "app_throughput": app_throughput_curve,
    "fct_mean": fct_curve,
    "fct_cdf_per_point": fct_cdf_per_point,
    "slowdown_by_size": slowdown_by_size,
    "protocol_by_size": protocol_bars,
}
#: Plots whose numbers are also written as ``<name>.csv``.
SWEEP_TABLES: dict[str, Callable[[pa.Table], list[dict[str, Any]]]] = {"protocol_by_size": bucket_table}


def plot_sweep(directory: str | os.PathLike[str], out: str | os.PathLike[str] | None = None,
               formats: tuple[str, ...] = ("png", "pdf")) -> list[Path]:
    from dcflow.plot import PlotError, save_figure
    from dcflow.sweep import load_flows

    d = Path(directory)
    try:
        points = pq.read_table(d / "points.parquet")
    except (OSError, pa.ArrowException) as e:
        raise PlotError(f"{d}: cannot read points.parquet: {e}") from None
    out_dir = Path(out) if out is not None else d / "plots"
    out_dir.mkdir(parents=True, exist_ok=True)
    cache: dict[str, pa.Table] = {}

    def flows() -> pa.Table:
        if "f" not in cache:
            cache["f"] = load_flows(d) if (d / "flows").is_dir() else pa.table({})
        return cache["f"]

    written = []
    for name, fn in SWEEP_PLOTS.items():
        fig = fn(d, points, flows)
        if fig is None:
            continue
        written += save_figure(fig, out_dir / f"{name}.png", formats)
        if name in SWEEP_TABLES:  # the figure's numbers beside it
            written.append(_write_csv(SWEEP_TABLES[name](points), out_dir / f"{name}.csv"))
    return written


def _write_csv(rows: list[dict[str, Any]], path: Path) -> Path:
    import io

    import pyarrow.csv as pcsv

    from dcflow.result import write_file_atomically

    buf = io.BytesIO()
    pcsv.write_csv(pa.Table.from_pylist(rows), buf)
    write_file_atomically(path, buf.getvalue().decode("utf-8"))
    return path
