"""Capacity search: the largest load a protocol sustains at a target metric.

PDQ §5.2.1 ("using a binary search procedure, the maximal number of flows a
protocol can support while ensuring 99% application throughput", Fig. 3c), D3
Fig. 9 / Table 1 and S3 Fig. 6c all report this number.

    r = dcflow.capacity("scenario.toml", "workload.flows", lo=1, hi=64, target=0.99, seeds=5)
    r.value, r.trace

How it works (and what it assumes):

* the metric at a value v is aggregated over ``seeds`` runs (seeds 1..N, or the
  given list): ``agg="mean"`` (default: the mean over seeds; for
  ``app_throughput`` with equal flow counts this is the pooled fraction of flows
  that met their deadlines over all runs, which is how D3 and PDQ count "99%
  application throughput over N runs") or ``agg="min"`` (every seed must pass:
  stricter);
* v passes when the aggregate is ``>= target`` (``direction="ge"``, the default
  for ``app_throughput`` and ``utilization``) or ``<= target``
  (``direction="le"``, the default for ``fct_*`` and ``slowdown_*``);
* the metric is assumed to get worse as v grows (monotone); bisection keeps an
  invariant ``lo`` passes, ``hi`` fails. Integer parameters (flow counts) are
  bisected to exactness; real ones (arrival rates) until ``hi - lo <= tol``;
* if ``lo`` fails the answer is None (below the range); if ``hi`` passes the
  answer is ``hi`` with ``bounded=False`` ("at least hi").
"""

from __future__ import annotations

import math
import os
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

from dcflow.scenario import Scenario, ScenarioError

__all__ = ["capacity", "search", "CapacityResult", "Probe"]

_LOWER_IS_BETTER_PREFIXES = ("fct_", "slowdown_")


@dataclass
class Probe:
    """One evaluated value: the aggregate metric, per-seed values, pass/fail."""

    value: float
    metric: float
    per_seed: list[float]
    ok: bool


@dataclass
class CapacityResult:
    param: str
    metric: str
    target: float
    direction: str
    agg: str
    value: float | None  # the largest passing value (None: even lo fails)
    bounded: bool  # False when hi itself passes (the answer is "at least hi")
    trace: list[Probe] = field(default_factory=list)

    def describe(self) -> str:
        op = ">=" if self.direction == "ge" else "<="
        if self.value is None:
            return f"{self.param}: no value in range keeps {self.agg} {self.metric} {op} {self.target}"
        more = "" if self.bounded else " (the upper end of the range; raise --hi)"
        return f"{self.param} = {_num(self.value)}{more}: the largest value with {self.agg} {self.metric} {op} {self.target}"

    def format_trace(self) -> str:
        lines = []
        for i, p in enumerate(self.trace, 1):
            seeds = ", ".join(f"{x:.4g}" for x in p.per_seed)
            lines.append(f"  {i:2d}. {self.param} = {_num(p.value):>10}  {self.metric} = {p.metric:.4f}  "
                         f"{'pass' if p.ok else 'FAIL'}   [{seeds}]")
        return "\n".join(lines)


def _num(v: float) -> str:
    return str(int(v)) if float(v).is_integer() else f"{v:.6g}"


def default_direction(metric: str) -> str:
    return "le" if metric.startswith(_LOWER_IS_BETTER_PREFIXES) else "ge"


def search(
    evaluate: Callable[[float], tuple[float, list[float]]],
    lo: float,
    hi: float,
    target: float,
    *,
    integer: bool = True,
    direction: str = "ge",
    tol: float | None = None,
    on_probe: Callable[[Probe], None] | None = None,
) -> tuple[float | None, bool, list[Probe]]:
    """Bisection on a monotone metric. ``evaluate(v) -> (aggregate, per_seed)``.
    Returns (largest passing value or None, bounded, trace)."""
    if direction not in ("ge", "le"):
        raise ValueError(f"direction: expected 'ge' or 'le', got {direction!r}")
    if hi < lo:
        raise ValueError(f"capacity: hi ({hi}) < lo ({lo})")
    if integer:
        lo, hi = int(math.ceil(lo)), int(math.floor(hi))
    if tol is None:
        tol = 1 if integer else max((hi - lo) * 1e-3, 1e-12)
    trace: list[Probe] = []
    cache: dict[float, Probe] = {}

    def probe(v: float) -> Probe:
        if v in cache:
            return cache[v]
        agg, per = evaluate(v)
        ok = (agg >= target) if direction == "ge" else (agg <= target)
        p = Probe(v, agg, list(per), bool(ok))
        cache[v] = p
        trace.append(p)
        if on_probe:
            on_probe(p)
        return p

    if not probe(lo).ok:
        return None, True, trace
    if not probe(hi).ok:
        good, bad = lo, hi
    else:
        return hi, False, trace
    while bad - good > tol:
        mid = (good + bad) // 2 if integer else (good + bad) / 2
        if mid in (good, bad):
            break
        if probe(mid).ok:
            good = mid
        else:
            bad = mid
    return good, True, trace


def _seed_list(seeds: Sequence[int] | int) -> list[int]:
    if isinstance(seeds, int):
        if seeds < 1:
            raise ValueError(f"seeds: expected a positive count, got {seeds}")
        return list(range(1, seeds + 1))
    return list(seeds)


def _run_metric(args: tuple[str, str, Any, int, str]) -> float:
    base_json, param, value, seed, metric = args
    from dcflow.run import run

    sc = Scenario.from_json(base_json).with_overrides({param: value, "seed": seed})
    try:
        v = run(sc).summary.get(metric)
    except ScenarioError:
        raise
    except (KeyboardInterrupt, SystemExit):
        raise
    except BaseException as e:  # a Rust panic is a BaseException and does not pickle
        raise RuntimeError(f"{param}={value} seed={seed}: {type(e).__name__}: {' '.join(str(e).split())}") from None
    if v is None or (isinstance(v, float) and math.isnan(v)):
        raise ScenarioError(
            f"capacity: metric {metric} is null at {param}={value} seed={seed}"
            + (" (the scenario has no deadline flows)" if metric == "app_throughput" else "")
        )
    return float(v)


def capacity(
    scenario: Scenario | Mapping[str, Any] | str | os.PathLike[str],
    param: str = "workload.flows",
    lo: float = 1,
    hi: float = 64,
    target: float = 0.99,
    seeds: Sequence[int] | int = 5,
    metric: str = "app_throughput",
    *,
    agg: str = "mean",
    direction: str | None = None,
    integer: bool | None = None,
    tol: float | None = None,
    workers: int | None = 1,
    on_probe: Callable[[Probe], None] | None = None,
) -> CapacityResult:
    """The largest ``param`` value in [lo, hi] at which ``agg`` over seeds of
    ``metric`` meets ``target`` (see the module doc). ``workers`` > 1 runs the
    seeds of each probe in a process pool."""
    sc = Scenario.load(scenario)
    if agg not in ("mean", "min"):
        raise ValueError(f"agg: expected 'mean' or 'min', got {agg!r}")
    direction = direction or default_direction(metric)
    if integer is None:
        integer = float(lo).is_integer() and float(hi).is_integer() and param.endswith("flows")
    seed_list = _seed_list(seeds)
    # Validate once, early: an invalid scenario or param is a ScenarioError now.
    sc.with_overrides({param: int(lo) if integer else float(lo)}).resolved()
    base_json = sc.to_json()
    pool = None
    if workers and workers > 1 and len(seed_list) > 1:
        import multiprocessing as mp
        from concurrent.futures import ProcessPoolExecutor

        pool = ProcessPoolExecutor(max_workers=min(workers, len(seed_list)),
                                   mp_context=mp.get_context("spawn"))

    def evaluate(v: float) -> tuple[float, list[float]]:
        val = int(v) if integer else float(v)
        tasks = [(base_json, param, val, s, metric) for s in seed_list]
        if pool:
            from dcflow.executors import spawnable_main

            with spawnable_main():  # workers start on the first map
                futures = [pool.submit(_run_metric, t) for t in tasks]
            per = [f.result() for f in futures]
        else:
            per = [_run_metric(t) for t in tasks]
        a = sum(per) / len(per) if agg == "mean" else (min(per) if direction == "ge" else max(per))
        return a, per

    try:
        value, bounded, trace = search(evaluate, lo, hi, target, integer=integer,
                                       direction=direction, tol=tol, on_probe=on_probe)
    finally:
        if pool:
            pool.shutdown()
    return CapacityResult(param, metric, target, direction, agg, value, bounded, trace)
