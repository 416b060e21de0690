"""The results table ``dcflow sweep`` ends with, as ``dcflow repro`` does:
one row per grid point, the mean over its finished seeds of the summary's
headline metrics, so that the numbers are on screen without opening
points.parquet."""

from __future__ import annotations

from typing import Any

import pyarrow as pa

__all__ = ["METRICS", "results_table"]

#: (points.parquet column, heading, scale), in the table's order.
METRICS = (("app_throughput", "app_throughput (%)", 100.0), ("fct_mean_s", "fct_mean (ms)", 1e3),
           ("fct_p99_s", "fct_p99 (ms)", 1e3), ("slowdown_mean", "slowdown_mean", 1.0),
           ("slowdown_p99", "slowdown_p99", 1.0))


def results_table(points: pa.Table) -> list[dict[str, Any]]:
    """Per grid point (in the sweep's order): its grid values, how many of
    its seeds finished, and the mean of each metric of :data:`METRICS` over
    them; a metric no point has (app_throughput without deadlines) is left
    out."""
    from dcflow.plot.sweep import _param_columns, readable

    params = _param_columns(points)
    cols = {c: points.column(c).to_pylist() for c in params}
    ok = [s == "ok" for s in points.column("status").to_pylist()]
    groups: dict[tuple[Any, ...], list[int]] = {}
    for i in range(points.num_rows):
        groups.setdefault(tuple(cols[c][i] for c in params), []).append(i)
    rows = []
    for key, idx in groups.items():
        done = [i for i in idx if ok[i]]
        row: dict[str, Any] = {c: readable(v) for c, v in zip(params, key)}
        row["seeds ok"] = f"{len(done)}/{len(idx)}"
        for col, heading, scale in METRICS:
            cells = points.column(col).to_pylist() if col in points.column_names else [None] * points.num_rows
            vals = [cells[i] * scale for i in done if cells[i] is not None]
            row[heading] = sum(vals) / len(vals) if vals else None
        rows.append(row)
    shown = [h for _, h, _ in METRICS if any(r[h] is not None for r in rows)]
    return [{k: v for k, v in r.items() if k not in {h for _, h, _ in METRICS} or k in shown} for r in rows]
