"""Plots of run outputs (``dcflow plot DIR``).

Each plot is a function ``(data: RunData) -> Figure | None`` registered with
:func:`register`; :func:`plot_dir` renders every registered plot that applies
(returns a figure) into ``DIR/plots/<name>.png``. To add a plot, write such a
function in a module of this package and decorate it with ``@register("name")``.
"""

from __future__ import annotations

import os
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import matplotlib

matplotlib.use("Agg")  # never needs a display

import matplotlib.pyplot as plt  # noqa: E402
import pyarrow as pa  # noqa: E402
import pyarrow.parquet as pq  # noqa: E402

__all__ = ["RunData", "PlotError", "register", "PLOTS", "plot_dir", "load_run", "save_figure", "plain_log_axis",
           "QUICK_NOTE", "mark_quick"]


class PlotError(Exception):
    """A user-facing error (missing or unreadable inputs)."""


@dataclass
class RunData:
    """The outputs of one run, as read from ``dcflow run -o DIR``."""

    directory: Path
    flows: pa.Table
    timeseries: pa.Table | None
    summary: dict[str, Any]


PlotFn = Callable[[RunData], "matplotlib.figure.Figure | None"]
#: name -> plot function, in registration order
PLOTS: dict[str, PlotFn] = {}


def register(name: str) -> Callable[[PlotFn], PlotFn]:
    def deco(fn: PlotFn) -> PlotFn:
        PLOTS[name] = fn
        return fn

    return deco


def load_run(directory: str | os.PathLike[str]) -> RunData:
    import json

    d = Path(directory)
    flows_path = d / "flows.parquet"
    if not d.is_dir():
        raise PlotError(f"{directory}: no such directory (expected the output of `dcflow run -o DIR`)")
    if not flows_path.exists():
        raise PlotError(f"{flows_path}: not found (expected the output of `dcflow run -o DIR`)")
    try:
        flows = pq.read_table(flows_path)
        ts_path = d / "timeseries.parquet"
        ts = pq.read_table(ts_path) if ts_path.exists() else None
        s_path = d / "summary.json"
        summary = json.loads(s_path.read_text()) if s_path.exists() else {}
    except (OSError, ValueError, pa.ArrowException) as e:
        raise PlotError(f"{directory}: cannot read outputs: {e}") from None
    return RunData(d, flows, ts, summary)


def plain_log_axis(ax, axis: str = "x", scale: str = "log", **kwargs: Any) -> None:
    """Put ``axis`` of ``ax`` on a log (or symlog) scale with its ticks as
    plain numbers (0.01, 0.1, 1, 10) instead of powers of ten, as papers
    print them, so a reader can compare without converting."""
    import numpy as np
    from matplotlib.ticker import FuncFormatter, LogLocator, NullFormatter

    getattr(ax, f"set_{axis}scale")(scale, **kwargs)
    target = ax.xaxis if axis == "x" else ax.yaxis
    lo, hi = ax.get_xlim() if axis == "x" else ax.get_ylim()
    if scale == "log" and 0 < lo < hi < 100 * lo:  # under two decades: 1-2-5 ticks, not one label
        target.set_major_locator(LogLocator(subs=(1.0, 2.0, 5.0)))
    target.set_major_formatter(FuncFormatter(lambda v, _: np.format_float_positional(v, trim="-")))
    target.set_minor_formatter(NullFormatter())


#: What a figure from a `--quick` catalog run says on itself.
QUICK_NOTE = "QUICK RUN (--quick): fewer points and seeds than the full run; not for comparison"


def mark_quick(fig, band: float = 0.3) -> None:
    """Mark a figure as coming from a `--quick` run, on the figure itself
    (a file copied out of its directory keeps the warning): the figure grows
    by a ``band`` (inches) at the bottom that holds the note, so it covers
    nothing already drawn."""
    w, h = fig.get_size_inches()
    lift = lambda y: (y * h + band) / (h + band)  # noqa: E731 - figure fraction before -> after
    boxes = [(ax, ax.get_position()) for ax in fig.axes]
    texts = [(t, t.get_position()) for t in fig.texts]
    fig.set_size_inches(w, h + band)
    for ax, p in boxes:
        ax.set_position([p.x0, lift(p.y0), p.width, p.height * h / (h + band)])
    for t, (x, y) in texts:
        t.set_position((x, lift(y)))
    fig.text(0.5, band / 2 / (h + band), QUICK_NOTE, ha="center", va="center", fontsize=7, color="firebrick",
             bbox={"facecolor": "white", "edgecolor": "firebrick", "pad": 2})


def save_figure(fig, path: str | os.PathLike[str], formats: tuple[str, ...] = ("png",)) -> list[Path]:
    """Save ``fig`` as ``path`` (and the same stem in the other ``formats``),
    each atomically (temp file + rename); closes the figure."""
    path = Path(path)
    written = []
    try:
        for fmt in formats:
            target = path.with_suffix(f".{fmt}")
            tmp = target.with_name(f".{target.name}.tmp")
            fig.savefig(tmp, dpi=120, format=fmt)
            os.replace(tmp, target)
            written.append(target)
    finally:
        plt.close(fig)
    return written


def plot_dir(directory: str | os.PathLike[str], out: str | os.PathLike[str] | None = None,
             names: list[str] | None = None, formats: tuple[str, ...] = ("png", "pdf")) -> list[Path]:
    """Render the plots for a run directory (``dcflow run -o DIR``: the
    registered plots) or a sweep directory (holding ``points.parquet``:
    :data:`dcflow.plot.sweep.SWEEP_PLOTS`) into ``DIR/plots/<name>.png`` and
    ``.pdf``; returns the paths written."""
    from dcflow.plot.sweep import is_sweep_dir, plot_sweep

    if is_sweep_dir(directory):
        return plot_sweep(directory, out, formats)
    data = load_run(directory)
    out_dir = Path(out) if out is not None else data.directory / "plots"
    out_dir.mkdir(parents=True, exist_ok=True)
    written = []
    for name, fn in PLOTS.items():
        if names is not None and name not in names:
            continue
        fig = fn(data)
        if fig is None:
            continue
        written += save_figure(fig, out_dir / f"{name}.png", formats)
    return written


# Register the built-in plots (import for side effects).
from dcflow.plot import cdf as _cdf  # noqa: E402,F401
from dcflow.plot import timeseries as _timeseries  # noqa: E402,F401
from dcflow.plot import buckets as _buckets  # noqa: E402,F401
