"""What every multi-series figure of dcflow (the paper catalog, sweeps) does
the same way, so that a reader can trust it:

* each series has its own colour, marker and line style, and the markers and
  lines shrink from the first series to the last, so a series drawn exactly
  on top of another (two protocols both at 100%) still shows under it;
* a confidence band (or, for many series, a capped bar) never leaves the
  range the metric can take (an application throughput stays within 0-100%:
  a t interval over two seeds alone would reach -50% and 250%);
* count axes (flows, senders, subflows) get integer ticks only;
* the papers' own numbers, where their text gives them, are hollow markers
  in the series' colour and shape, one legend entry "paper" for all.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from typing import Any

__all__ = ["series_style", "line_style", "band", "ci_bars", "integer_ticks", "paper_points", "legend_with_paper",
           "metric_bounds", "wrapped", "PAPER_LABEL"]

MARKERS = ("o", "s", "^", "D", "v", "P", "X", "<", ">", "*")
LINESTYLES = ("-", "--", "-.", ":")
#: The legend entry of the papers' numbers.
PAPER_LABEL = "paper (hollow markers)"

#: The values a summary metric can take (before a figure's scale): the
#: fractions are within [0, 1], slowdown (FCT / ideal FCT) is at least 1,
#: everything else at least 0.
_FRACTIONS = ("app_throughput", "utilization")


def metric_bounds(metric: str, scale: float = 1.0) -> tuple[float, float]:
    """(low, high) of ``metric`` times ``scale``."""
    if metric in _FRACTIONS or metric.startswith("app_throughput["):
        return 0.0, scale
    if metric.startswith("slowdown"):
        return scale, math.inf
    return 0.0, math.inf


def series_style(i: int, n: int = 1) -> dict[str, Any]:
    """Matplotlib keywords of the ``i``-th of ``n`` series: colour, marker
    and line style all differ between neighbours; sizes shrink with ``i`` so
    that a later series drawn on an earlier one leaves it visible."""
    shrink = i / max(n - 1, 1)
    return {"color": f"C{i % 10}", "marker": MARKERS[i % len(MARKERS)], "linestyle": LINESTYLES[i % len(LINESTYLES)],
            "markersize": 8.0 - 3.5 * shrink, "linewidth": 2.4 - 1.2 * shrink, "zorder": 2 + i * 0.01}


def line_style(i: int, n: int = 1) -> dict[str, Any]:
    """:func:`series_style` without markers, for dense lines (CDFs, time series)."""
    return {k: v for k, v in series_style(i, n).items() if k in ("color", "linestyle", "linewidth", "zorder")}


def band(ax, x: Sequence[float], mean: Sequence[float], half: Sequence[float | None],
         bounds: tuple[float, float], color: str) -> None:
    """A 95% interval ``mean ± half`` around a line, cut to ``bounds``."""
    import numpy as np

    m = np.asarray(mean, dtype=float)
    h = np.array([0.0 if v is None else v for v in half], dtype=float)
    ax.fill_between(np.asarray(x, dtype=float), np.clip(m - h, *bounds), np.clip(m + h, *bounds), color=color,
                    alpha=0.15, lw=0)


def ci_bars(ax, x: Sequence[float], mean: Sequence[float], half: Sequence[float | None],
            bounds: tuple[float, float], color: str) -> None:
    """The 95% interval as capped bars, cut to ``bounds`` (for many series,
    whose bands would stack into one murk)."""
    import numpy as np

    m = np.asarray(mean, dtype=float)
    h = np.array([0.0 if v is None else v for v in half], dtype=float)
    ax.errorbar(x, m, yerr=[np.minimum(h, m - bounds[0]), np.minimum(h, bounds[1] - m)], fmt="none",
                ecolor=color, elinewidth=1, capsize=3, alpha=0.7)


def integer_ticks(ax, axis: str = "x", values: Sequence[float] = ()) -> None:
    """Only whole numbers on ``axis`` (a count: flows, senders, subflows):
    the ``values`` drawn when they are few (a quick run's 20 and 80, not
    24, 32, ...), else round ones."""
    from matplotlib.ticker import MaxNLocator

    target = ax.xaxis if axis == "x" else ax.yaxis
    if 0 < len(set(values)) <= 8:
        target.set_ticks(sorted(set(values)))
    else:
        target.set_major_locator(MaxNLocator(integer=True))


def paper_points(ax, x: Sequence[float], y: Sequence[float], style: dict[str, Any]) -> None:
    """The paper's numbers of one series: hollow markers in its colour and
    shape, white inside and ringed in black, so that one stays visible on a
    bar or band of its own colour."""
    for size, colour, width in ((11.5, "k", 3.2), (10, style["color"], 1.8)):
        ax.plot(x, y, linestyle="none", marker=style["marker"], markersize=size, markerfacecolor="white",
                markeredgecolor=colour, markeredgewidth=width, zorder=5)


def wrapped(title: str, width: int = 80) -> str:
    """A title broken into lines of at most ``width`` characters, so that a
    long one is not cut off at the figure's edge."""
    import textwrap

    return "\n".join(textwrap.wrap(title, width))


def legend_with_paper(ax, has_paper: bool, outside: bool = False, **kwargs: Any) -> None:
    """The legend, plus one black hollow-marker entry for the paper's numbers
    when any are drawn; ``outside``: right of the axes, where it hides no
    data."""
    from matplotlib.lines import Line2D

    handles, labels = ax.get_legend_handles_labels()
    if has_paper:
        handles.append(Line2D([], [], linestyle="none", marker="o", markersize=9, markerfacecolor="white",
                              markeredgecolor="k", markeredgewidth=1.8))
        labels.append(PAPER_LABEL)
    if outside:
        kwargs = {"loc": "upper left", "bbox_to_anchor": (1.01, 1.0), "borderaxespad": 0.0, **kwargs}
    ax.legend(handles, labels, **{"fontsize": 7, **kwargs})
