"""The catalog's standard figure: one line (or bar group) per series of an
entry's rows, the 95% interval over seeds as a band cut to the metric's
range, and the paper's numbers as hollow markers (dcflow.plot.style).

Rows are what ``run_entry`` writes to the CSV: ``series``, the x value
under ``entry.x_key``, the y under ``ykey`` (``y_mean`` with its ``ci95``,
or ``capacity``) and ``paper``. :func:`paper_only_rows` adds the paper's
numbers at x values a run did not simulate (a ``--quick`` run's few x
values), so that the figure and the CSV show every number the text gives.
"""

from __future__ import annotations

from typing import Any

from dcflow.plot.style import (band, ci_bars, integer_ticks, legend_with_paper, metric_bounds, paper_points,
                               series_style, wrapped)

__all__ = ["plot_rows", "paper_only_rows", "paper_relative", "y_bounds"]


def paper_only_rows(entry, xs: list[float]) -> list[dict[str, Any]]:
    """A row for each of the paper's numbers (``entry.paper_values``) at an x
    not in ``xs``: the series, x and ``paper``; nothing measured."""
    return [{"series": label, entry.x_key: x, "paper": v}
            for (label, x), v in entry.paper_values.items() if x not in xs]


def paper_relative(relative: dict[tuple[str, Any], tuple[str, Any, float]], rows: list[dict[str, Any]],
                   xkey: str, ykey: str) -> None:
    """Fill the ``paper`` of rows from the text's ratios: ``relative[(series,
    x)] = (other series, other x, factor)`` says the paper's value is
    ``factor`` times the other's ("TCP 40 times worse than S3 at 3%", "up by
    11.4% from no loss": factor 1.114 of the same series at x = 0). The
    other's value is ours: the figure shows where the paper's ratio puts the
    series, given what we measured for the reference."""
    # A capacity search that passed its upper end gives only a lower bound: no reference.
    value = {(r["series"], r.get(xkey)): r.get(ykey) for r in rows if r.get("bounded") is not False}
    for r in rows:
        ref = relative.get((r["series"], r.get(xkey)))
        if ref is not None and value.get(ref[:2]) is not None:
            r["paper"] = value[ref[:2]] * ref[2]


def y_bounds(entry, ykey: str) -> tuple[float, float]:
    """What the plotted y can be: the summary metric's range, scaled and
    mapped as the entry draws it (a capacity is any count >= 0)."""
    if entry.y_range is not None:
        return entry.y_range
    if ykey != "y_mean":
        return 0.0, float("inf")
    lo, hi = (entry.y_map(v) for v in metric_bounds(entry.y, entry.y_scale))
    return min(lo, hi), max(lo, hi)


def axis_range(current: tuple[float, float], bounds: tuple[float, float]) -> tuple[float, float]:
    """The y range to show: the autoscaled ``current`` one, but never past
    what the metric can be (a percentage: room for a marker at 100, no axis
    beyond); times and counts from zero."""
    import math

    lo, hi = bounds
    bottom, top = current
    if math.isfinite(hi):
        margin = 0.04 * (min(top, hi) - max(bottom, lo))
        return max(bottom, lo - margin), min(top, hi + margin)
    return (lo if lo == 0.0 else max(bottom, lo)), top


def _number(v: Any) -> bool:
    return isinstance(v, (int, float)) and not isinstance(v, bool)


def plot_rows(entry, rows: list[dict[str, Any]], ykey: str):
    import matplotlib.pyplot as plt
    import numpy as np
    from matplotlib.patches import Rectangle

    fig, ax = plt.subplots(figsize=(8.0, 4.2))
    n = len(entry.series)
    xs = sorted({r[entry.x_key] for r in rows})
    bounds = y_bounds(entry, ykey)
    width = 0.8 / max(n, 1)
    # One x value (a quick run of some entries) makes no line: bars side by side.
    style = "bar" if len(xs) == 1 else entry.style
    has_paper = False
    for i, s in enumerate(entry.series):
        st = series_style(i, n)
        mine = [r for r in rows if r["series"] == s.label]
        measured = [r for r in mine if r.get(ykey) is not None]
        paper = [r for r in mine if _number(r.get("paper"))]
        if style == "bar":
            pos = lambda r, i=i: xs.index(r[entry.x_key]) + (i - (n - 1) / 2) * width  # noqa: E731
            y = np.array([r[ykey] for r in measured], dtype=float)
            ci = np.array([r.get("ci95") or 0.0 for r in measured], dtype=float)
            # An error bar stops where the metric does (no 120% throughput).
            err = np.array([np.minimum(ci, y - bounds[0]), np.minimum(ci, bounds[1] - y)]) if len(y) else None
            ax.bar([pos(r) for r in measured], y, width, color=st["color"],
                   yerr=err if ykey == "y_mean" else None, capsize=2, ecolor="0.3")
            ax.add_patch(Rectangle((0, 0), 0, 0, color=st["color"], label=s.label))  # legend, even without a bar
        else:
            pos = lambda r: r[entry.x_key]  # noqa: E731
            x = [pos(r) for r in measured]
            y = [r[ykey] for r in measured]
            ax.plot(x, y, label=s.label, **st)
            if ykey == "y_mean" and n <= 4:
                band(ax, x, y, [r.get("ci95") for r in measured], bounds, st["color"])
            elif ykey == "y_mean":  # many bands would stack into a murk: bars, a little apart
                nudge = (i - (n - 1) / 2) * 0.006 * ((xs[-1] - xs[0]) or 1)
                ci_bars(ax, [v + nudge for v in x], y, [r.get("ci95") for r in measured], bounds, st["color"])
        for r in mine:
            if r.get("bounded") is False:  # the search's upper end passed: "at least this"
                ax.annotate(f"≥{r[ykey]:g}", (pos(r), r[ykey]), textcoords="offset points", xytext=(0, 9),
                            ha="center", fontsize=7, color=st["color"])
            elif "bounded" in r and r[ykey] is None:  # even the lower end failed
                ax.annotate(f"<{entry.capacity.get('lo', 1):g}", (pos(r), 0), textcoords="offset points",
                            xytext=(0, -3), ha="center", va="top", fontsize=7, color=st["color"],
                            annotation_clip=False)
        if paper:
            paper_points(ax, [pos(r) for r in paper], [r["paper"] for r in paper], st)
            has_paper = True
    if all(r[ykey] == 0 for r in rows if r.get(ykey) is not None):  # say it, not only a flat line at 0
        ax.text(0.5, 0.5, "0 for every series", transform=ax.transAxes, ha="center", va="center", fontsize=9,
                color="0.35")
    if style == "bar":
        names = [entry.x_name(x) for x in xs] if entry.x_name else [f"{x:g}" for x in xs]
        ax.set_xticks(np.arange(len(xs)), names, fontsize=7 if entry.x_name else None,
                      rotation=20 if entry.x_name else 0, ha="right" if entry.x_name else "center")
    elif all(float(x).is_integer() for x in xs):
        integer_ticks(ax, "x", xs)
    if ykey == "capacity" and all(float(r[ykey]).is_integer() for r in rows if r.get(ykey) is not None):
        integer_ticks(ax, "y")
    shown = [v for r in rows for v in (r.get(ykey), r.get("paper")) if _number(v) and v > 0]
    if not np.isfinite(bounds[1]) and shown and max(shown) > 30 * min(shown):  # decades apart (a paper's 40x)
        from dcflow.plot import plain_log_axis

        ax.set_ylim(min(shown) / 1.5, max(shown) * 1.5)
        plain_log_axis(ax, "y", nonpositive="clip")
    else:
        ax.set_ylim(*axis_range(ax.get_ylim(), bounds))
    if any(r.get("bounded") is False for r in rows):  # room for the "≥N" labels above the bars
        bottom, top = ax.get_ylim()
        ax.set_ylim(bottom, top + 0.08 * (top - bottom))
    ax.set_xlabel(entry.xlabel or entry.x_key or "")
    ax.set_ylabel(entry.ylabel or entry.y)
    ax.set_title(wrapped(f"{entry.paper} {entry.figure}: {entry.title}"), fontsize=9)
    ax.grid(True, alpha=0.3)
    legend_with_paper(ax, has_paper, outside=True)
    fig.tight_layout()
    return fig
