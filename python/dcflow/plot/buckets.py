"""Slowdown per flow-size bucket (the summary's ``size_buckets`` and its
``STAT[LABEL]`` keys)."""

from __future__ import annotations

import matplotlib.pyplot as plt
import numpy as np

from dcflow.plot import RunData, plain_log_axis, register

#: The statistics drawn per bucket, with their legend names.
_STATS = (("slowdown_mean", "mean"), ("slowdown_p50", "median"), ("slowdown_p99", "99th percentile"))


@register("slowdown_by_size")
def slowdown_by_size(data: RunData):
    """Mean, median and 99th-percentile slowdown per size bucket, each bar
    group labelled with how many flows it covers; the warm-up cut, if any,
    in the title."""
    from dcflow.sweep import BUCKET_STATS, bucket_column

    buckets = [{"label": label, **{stat: data.summary.get(bucket_column(stat, label)) for stat in BUCKET_STATS}}
               for label in data.summary.get("size_buckets") or []]
    if not any(b["completed"] for b in buckets):
        return None
    fig, ax = plt.subplots(figsize=(6.4, 4.2))
    x = np.arange(len(buckets))
    width = 0.8 / len(_STATS)
    for i, (key, name) in enumerate(_STATS):
        vals = [np.nan if b.get(key) is None else b[key] for b in buckets]
        ax.bar(x + (i - 1) * width, vals, width, label=name)
    ax.set_xticks(x, [f"{b['label']}\n{b['completed']} of {b['flows']} flows" for b in buckets])
    ax.axhline(1.0, color="0.5", lw=0.8, ls=":")
    shown = [b[k] for b in buckets for k, _ in _STATS if b.get(k)]
    if max(shown) > 30 * min(shown):  # the short flows' tail would flatten the rest
        plain_log_axis(ax, "y")
    ax.set_xlabel("flow size")
    ax.set_ylabel("slowdown (FCT / ideal FCT)")
    warmup = data.summary.get("warmup_s") or 0.0
    cut = f", flows starting from {warmup * 1e3:g} ms on" if warmup else ""
    ax.set_title(f"Slowdown by flow size (completed flows{cut})", fontsize=9)
    ax.grid(True, axis="y", alpha=0.3)
    ax.legend(fontsize=7)
    fig.tight_layout()
    return fig
