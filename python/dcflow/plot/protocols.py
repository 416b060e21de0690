"""Sweeps that compare protocols and nothing else (the grid varies
``protocol`` or ``protocol.name`` only): a curve against a swept parameter
has nothing to draw, so each protocol's bars stand side by side per flow-size
bucket, as pFabric's evaluation (SIGCOMM'13, Fig. 8-10) shows them: the mean
and the 99th-percentile slowdown and, where flows have deadlines, the share
of deadlines met (the short flows carry the deadlines: D3 §2, PDQ §5.3).

:func:`bucket_table` is the data of the figure, one row per protocol,
bucket and statistic; ``dcflow plot`` writes it beside the PNG as
``protocol_by_size.csv``.
"""

from __future__ import annotations

import math
from pathlib import Path
from typing import Any, Callable

import numpy as np
import pyarrow as pa

#: (statistic, axis label, scale) of each panel, left to right.
PANELS = (("slowdown_mean", "mean slowdown (FCT / ideal FCT)", 1.0),
          ("slowdown_p99", "99th-percentile slowdown", 1.0),
          ("app_throughput", "deadlines met (%)", 100.0))
#: Bars also differ by hatching, so that a grey print tells them apart.
HATCHES = ("", "//", "\\\\", "..", "xx", "--", "++", "oo")
_PROTOCOL_KEYS = ("protocol.name", "protocol")


def protocol_only(points: pa.Table) -> str | None:
    """The grid column of the protocol when it is the only one with more than one value."""
    from dcflow.plot.sweep import _param_columns

    varied = [c for c in _param_columns(points) if len(set(map(str, points.column(c).to_pylist()))) > 1]
    return varied[0] if len(varied) == 1 and varied[0] in _PROTOCOL_KEYS else None


def bucket_labels(points: pa.Table) -> list[str]:
    """The size buckets' labels, smallest first, from the ``flows[LABEL]`` columns."""
    return [c[len("flows["):-1] for c in points.column_names if c.startswith("flows[") and c.endswith("]")]


def bucket_table(points: pa.Table) -> list[dict[str, Any]]:
    """Per protocol, bucket and statistic of :data:`PANELS`: the mean and the
    95% CI over the seeds that have a value (a bucket without completed flows
    has no slowdown; one without deadline flows no share met), and how many
    seeds those are. Empty unless the sweep varies only the protocol."""
    from dcflow.plot.stats import mean_ci
    from dcflow.plot.sweep import readable
    from dcflow.sweep import bucket_column

    col = protocol_only(points)
    if col is None:
        return []
    protocols = points.column(col).to_pylist()
    ok = [s == "ok" for s in points.column("status").to_pylist()]
    rows = []
    for p in dict.fromkeys(protocols):
        for label in bucket_labels(points):
            for stat, _, scale in PANELS:
                cells = points.column(bucket_column(stat, label)).to_pylist()
                vals = [v * scale for v, q, k in zip(cells, protocols, ok) if k and q == p and v is not None]
                m, ci = mean_ci(vals)
                rows.append({"protocol": readable(p), "bucket": label, "statistic": stat, "mean": m, "ci95": ci,
                             "seeds": len(vals)})
    return rows


def protocol_bars(d: Path, points: pa.Table, flows: Callable[[], pa.Table]):
    """One panel per statistic of :data:`PANELS` that has a value (no
    deadline panel without deadline flows), a group of bars per size bucket,
    a bar per protocol: the mean over seeds and its 95% CI, cut to what the
    statistic can be (slowdown >= 1, at most 100% met)."""
    import matplotlib.pyplot as plt

    from dcflow.plot import plain_log_axis
    from dcflow.plot.sweep import _over_seeds

    rows = bucket_table(points)
    panels = [p for p in PANELS if any(r["statistic"] == p[0] and r["mean"] is not None for r in rows)]
    if not panels:
        return None
    protocols = list(dict.fromkeys(r["protocol"] for r in rows))
    labels = list(dict.fromkeys(r["bucket"] for r in rows))
    width = 0.8 / len(protocols)
    fig, axes = plt.subplots(1, len(panels), figsize=(4.4 * len(panels) + 1.4, 4.0), squeeze=False)
    for ax, (stat, name, _) in zip(axes[0], panels):
        lo, hi = (0.0, 100.0) if stat == "app_throughput" else (1.0, math.inf)
        for i, p in enumerate(protocols):
            mine = {r["bucket"]: r for r in rows if r["protocol"] == p and r["statistic"] == stat}
            y = np.array([np.nan if mine[b]["mean"] is None else mine[b]["mean"] for b in labels], dtype=float)
            ci = np.array([mine[b]["ci95"] or 0.0 for b in labels], dtype=float)
            err = np.nan_to_num([np.minimum(ci, y - lo), np.minimum(ci, hi - y)])
            ax.bar(np.arange(len(labels)) + (i - (len(protocols) - 1) / 2) * width, y, width, yerr=err,
                   color=f"C{i % 10}", hatch=HATCHES[i % len(HATCHES)], edgecolor="white", capsize=2,
                   ecolor="0.25", label=p)
        for j, b in enumerate(labels):
            if all(r["mean"] is None for r in rows if r["bucket"] == b and r["statistic"] == stat):
                ax.text(j, 0.03, "no deadline flows" if stat == "app_throughput" else "no completed flows",
                        transform=ax.get_xaxis_transform(), ha="center", fontsize=7, color="0.4")
        ax.set_xticks(range(len(labels)), labels)
        ax.set_xlim(-0.5, len(labels) - 0.5)
        ax.set_xlabel("flow size")
        ax.set_ylabel(name)
        ax.grid(True, axis="y", alpha=0.3)
        shown = [r["mean"] for r in rows if r["statistic"] == stat and r["mean"]]
        if stat == "app_throughput":
            ax.set_ylim(0, 103)
        else:
            ax.axhline(1.0, color="0.5", lw=0.8, ls=":")
            if shown and max(shown) > 30 * min(shown):  # the short flows' tail would flatten the rest
                plain_log_axis(ax, "y")
    axes[0][-1].legend(fontsize=7, loc="upper left", bbox_to_anchor=(1.01, 1.0), borderaxespad=0.0)
    fig.suptitle(f"per flow-size bucket, each protocol ({_over_seeds(points)})", fontsize=9)
    fig.tight_layout()
    return fig
