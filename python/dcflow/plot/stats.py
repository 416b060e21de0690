"""Small statistics helpers for plots (no scipy)."""

from __future__ import annotations

import math
from collections.abc import Sequence

# Two-sided 95% Student t quantiles t_{0.975, df} for df = 1..30.
_T975 = [12.706, 4.303, 3.182, 2.776, 2.571, 2.447, 2.365, 2.306, 2.262, 2.228, 2.201, 2.179,
         2.160, 2.145, 2.131, 2.120, 2.110, 2.101, 2.093, 2.086, 2.080, 2.074, 2.069, 2.064,
         2.060, 2.056, 2.052, 2.048, 2.045, 2.042]


def t975(df: int) -> float:
    if df < 1:
        return float("nan")
    return _T975[df - 1] if df <= len(_T975) else 1.96 + 2.4 / df  # close to t for df > 30


def mean_ci(values: Sequence[float]) -> tuple[float | None, float | None]:
    """Mean and the half-width of its 95% confidence interval (Student t over
    the seeds); (None, None) for no values, (mean, 0.0) for one value."""
    xs = [float(v) for v in values if v is not None and not math.isnan(float(v))]
    n = len(xs)
    if n == 0:
        return None, None
    m = sum(xs) / n
    if n == 1:
        return m, 0.0
    var = sum((x - m) ** 2 for x in xs) / (n - 1)
    return m, t975(n - 1) * math.sqrt(var / n)
