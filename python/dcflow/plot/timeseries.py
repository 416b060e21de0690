"""Time-series plots for monitored runs: per-flow throughput, link
utilization and queue (PDQ Fig. 6/7 style)."""

from __future__ import annotations

import os
from pathlib import Path

import matplotlib.pyplot as plt
import numpy as np

from dcflow.plot import RunData, load_run, register
from dcflow.plot.style import wrapped

__all__ = ["timeseries_figure", "panel", "paper_level", "paper_time"]


def _series(ts, kind: str) -> dict[str, tuple[np.ndarray, np.ndarray, np.ndarray]]:
    t = np.array(ts.column("time_s").to_pylist(), dtype=float)
    ser = ts.column("series").to_pylist()
    name = ts.column("name").to_pylist()
    thr = np.array(ts.column("throughput_bps").to_pylist(), dtype=float)
    q = np.array([np.nan if v is None else v for v in ts.column("queue_bytes").to_pylist()], dtype=float)
    out: dict[str, tuple[np.ndarray, np.ndarray, np.ndarray]] = {}
    for n in dict.fromkeys(nm for s, nm in zip(ser, name) if s == kind):
        m = np.array([s == kind and nm == n for s, nm in zip(ser, name)])
        out[n] = (t[m], thr[m], q[m])
    return out


def _figure(data: RunData, title: str | None = None):
    ts = data.timeseries
    if ts is None or ts.num_rows == 0:
        return None
    flows = _series(ts, "flow")
    links = _series(ts, "link")
    panels = [p for p, ok in (("flows", bool(flows)), ("util", bool(links)), ("queue", bool(links))) if ok]
    fig, axes = plt.subplots(len(panels), 1, figsize=(7, 2.3 * len(panels) + 0.4), sharex=True)
    axes = np.atleast_1d(axes)
    rate = None
    for ax, panel in zip(axes, panels):
        if panel == "flows":
            for i, (n, (t, thr, _)) in enumerate(flows.items()):
                ax.plot(t * 1e3, thr / 1e9, lw=1, label=f"flow {n}" if i < 10 else None)
            ax.set_ylabel("flow throughput (Gbps)")
            if len(flows) <= 10:
                ax.legend(fontsize=6, ncol=5)
        elif panel == "util":
            for n, (t, thr, _) in links.items():
                rate = _link_rate(data)
                y = thr / rate * 100 if rate else thr / 1e9
                ax.plot(t * 1e3, y, lw=1, label=n)
            ax.set_ylabel("link utilization (%)" if rate else "link throughput (Gbps)")
            ax.legend(fontsize=7)
        else:
            for n, (t, _, q) in links.items():
                ax.plot(t * 1e3, q / 1500, lw=1, label=n)
            ax.set_ylabel("queue (packets of 1500 B)")
            ax.set_ylim(bottom=0)
        ax.grid(True, alpha=0.3)
    axes[-1].set_xlabel("time (ms)")
    axes[0].set_title(wrapped(title or "time series", 90), fontsize=9)
    fig.tight_layout()
    return fig


def panel(fig, ylabel_start: str):
    """The panel of a :func:`timeseries_figure` whose y label starts so
    ("flow throughput", "link utilization", "queue"), or None."""
    return next((ax for ax in fig.axes if ax.get_ylabel().startswith(ylabel_start)), None)


def paper_level(ax, y: float, t0_ms: float, t1_ms: float, text: str) -> None:
    """A number the paper gives for an interval: a black dotted segment at
    ``y`` from ``t0_ms`` to ``t1_ms``, in the legend as "paper: TEXT"."""
    ax.hlines(y, t0_ms, t1_ms, colors="k", linestyles=":", lw=1.6, label=f"paper: {text}", zorder=5)
    bottom, top = ax.get_ylim()
    if y > top:  # the panel's range was fixed from its data alone
        ax.set_ylim(bottom, y * 1.1)
    ax.legend(fontsize=7)


def paper_time(ax, t_ms: float, text: str) -> None:
    """A time the paper gives (all flows done at ...): a black dotted vertical line."""
    ax.axvline(t_ms, color="k", ls=":", lw=1.2, label=f"paper: {text}")
    ax.legend(fontsize=6, ncol=5)


def _link_rate(data: RunData) -> float | None:
    """The bottleneck's rate in bps, from scenario.resolved.toml (None if unknown)."""
    import tomllib

    p = data.directory / "scenario.resolved.toml"
    if not p.exists():
        return None
    try:
        topo = tomllib.loads(p.read_text()).get("topology", {})
    except (OSError, tomllib.TOMLDecodeError):
        return None
    text = str(topo.get("link_rate", ""))
    for unit, f in (("Gbps", 1e9), ("Mbps", 1e6), ("Kbps", 1e3), ("bps", 1.0)):
        if text.endswith(unit):
            try:
                return float(text[: -len(unit)]) * f
            except ValueError:
                return None
    return None


def timeseries_figure(run_dir: str | os.PathLike[str], title: str | None = None):
    """The time-series figure of a run directory (None if it is not monitored)."""
    return _figure(load_run(Path(run_dir)), title)


@register("timeseries")
def timeseries(data: RunData):
    """Per-flow throughput, link utilization and queue over time (monitored runs)."""
    return _figure(data)
