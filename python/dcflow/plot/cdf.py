"""CDF plots over the flows table."""

from __future__ import annotations

import matplotlib.pyplot as plt
import numpy as np

from dcflow.plot import RunData, plain_log_axis, register


def ecdf(values: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Sorted values and their empirical CDF (i/n for the i-th smallest)."""
    x = np.sort(np.asarray(values, dtype=float))
    if not len(x):
        return x, np.array([])
    y = np.arange(1, len(x) + 1) / len(x)
    return np.concatenate([[x[0]], x]), np.concatenate([[0.0], y])  # start the staircase at 0


def _finished(data: RunData, column: str) -> np.ndarray:
    finish = data.flows.column("finish_s").to_numpy(zero_copy_only=False)
    col = data.flows.column(column).to_numpy(zero_copy_only=False)
    ok = ~np.isnan(finish.astype(float)) & ~np.isnan(col.astype(float))
    return col[ok].astype(float)


def _cdf_figure(values: np.ndarray, xlabel: str, title: str, total: int):
    fig, ax = plt.subplots(figsize=(6, 4))
    if len(values):
        x, y = ecdf(values)
        ax.step(x, y, where="post")
        if values.min() > 0 and values.max() > 100 * values.min():  # orders of magnitude apart
            plain_log_axis(ax, "x")
    else:
        ax.text(0.5, 0.5, "no completed flows", ha="center", va="center", transform=ax.transAxes)
    ax.set_xlabel(xlabel)
    ax.set_ylabel("CDF")
    ax.set_ylim(0, 1.02)
    ax.set_title(f"{title} ({len(values)} of {total} flows completed)")
    ax.grid(True, alpha=0.3)
    fig.tight_layout()
    return fig


@register("fct_cdf")
def fct_cdf(data: RunData):
    """CDF of flow completion times (completed flows), in ms."""
    return _cdf_figure(_finished(data, "fct_s") * 1e3, "flow completion time (ms)",
                       "FCT", data.flows.num_rows)


@register("slowdown_cdf")
def slowdown_cdf(data: RunData):
    """CDF of slowdown = FCT / ideal FCT (completed flows)."""
    return _cdf_figure(_finished(data, "slowdown"), "slowdown (FCT / ideal FCT)",
                       "Slowdown", data.flows.num_rows)
