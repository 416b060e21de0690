"""Which of the settings D3 §3 leaves open give Fig. 5's "three to
five times as many flows as fair share". D3 §3 runs a Monte Carlo of ideal
fair share, EDF and rate reservation on one 1 Gbps link with DCTCP-like
sizes and exponential deadlines (mean 30 ms, moderate); it does not say
which flows carry deadlines, how flows arrive or whether deadlines have a
lower bound. `d3-fig5` reads: deadlines on flows < 50 KB only, all flows
start together, a 3 ms floor. Swept here:

  (a) which flows carry deadlines: web-search sizes, deadlines on flows
      < 50 KB only (the catalog's) / on every flow; or every flow a
      response of D3 §6, U[2 KB, 50 KB], with a deadline;
  (b) all flows start together (x = flows) / Poisson arrivals over one mean
      deadline (30 ms) at rate x / 30 ms, no count limit (x = expected flows);
  (c) deadline floor: none, 3 ms, 10 ms.

For each reading and scheme: the flows supported at 100% and at 99% mean
application throughput (bisection, SEEDS seeds each), and EDF's and
reservation's ratio to fair share:

    .venv/bin/python bench/d3_fig5_setting.py [SEEDS]      # default 50
"""
import copy
import itertools
import sys

import dcflow
from dcflow.repro import CATALOG

SEEDS = int(sys.argv[1]) if len(sys.argv) > 1 else 50
WINDOW_S = 0.030  # Poisson arrivals over one mean deadline
HI = 1000  # flows: above every scheme's capacity in every reading


FLOWS = {"short": "< 50 KB (web search)", "all": "all (web search)", "responses": "all, U[2 KB, 50 KB]"}


def scenario(flows: str, poisson: bool, floor: str | None, scheme: str) -> dict:
    sc = copy.deepcopy(CATALOG["d3-fig5"].base(False))
    sc["protocol"] = {"name": scheme}
    dl = sc["workload"]["deadline"]
    if flows != "short":
        del dl["only_below"]
    if flows == "responses":
        sc["workload"]["size"] = {"dist": "uniform", "min": "2KB", "max": "50KB"}
    if floor is None:
        del dl["min"]
    else:
        dl["min"] = floor
    if poisson:
        w = sc["workload"]
        del w["flows"]
        w.update({"arrival": "poisson", "rate": 1.0, "duration": f"{WINDOW_S * 1e3:g}ms"})
    return sc


def app_throughput(sc: dict, poisson: bool, n: int) -> float:
    """Mean over seeds of the application throughput, as `d3-fig5` reports it:
    a seed without deadline flows (few flows, all >= 50 KB) is left out."""
    key = "workload.rate" if poisson else "workload.flows"
    base = dcflow.Scenario(sc).with_overrides({key: n / WINDOW_S if poisson else n})
    vals = [dcflow.run(base.with_overrides({"seed": s})).summary.get("app_throughput")
            for s in range(1, SEEDS + 1)]
    vals = [v for v in vals if v is not None]
    return sum(vals) / len(vals) if vals else 1.0


def supported(sc: dict, poisson: bool, target: float) -> str:
    """The largest number of flows (expected, with Poisson arrivals) in
    [1, HI] whose mean application throughput is >= target (bisection)."""
    ok = lambda n: app_throughput(sc, poisson, n) >= target - 1e-12  # noqa: E731
    if not ok(1):
        return "0"
    if ok(HI):
        return f">={HI}"
    lo, hi = 1, HI
    while hi - lo > 1:
        mid = (lo + hi) // 2
        lo, hi = (mid, hi) if ok(mid) else (lo, mid)
    return str(lo)


def ratio(a: str, b: str) -> str:
    try:
        return f"{float(a.lstrip('>=')) / float(b.lstrip('>=')):.1f}"
    except (ValueError, ZeroDivisionError):
        return "-"


print("| deadlines on | arrivals | floor | target | fair | EDF | reservation | EDF/fair | res./fair |")
print("|---|---|---|---|---:|---:|---:|---:|---:|")
for flows, poisson, floor in itertools.product(FLOWS, (False, True), ("3ms", None, "10ms")):
    for target in (1.0, 0.99):
        v = [supported(scenario(flows, poisson, floor, s), poisson, target)
             for s in ("fair", "edf", "reservation")]
        print(f"| {FLOWS[flows]} | {'Poisson, 30 ms' if poisson else 'together'} "
              f"| {floor or 'none'} | {target:.0%} | {v[0]} | {v[1]} | {v[2]} "
              f"| {ratio(v[1], v[0])} | {ratio(v[2], v[0])} |", flush=True)
