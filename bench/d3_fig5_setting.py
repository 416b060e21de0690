"""Issue 18: which of the settings D3 §3 leaves open give Fig. 5's "three to
five times as many flows as fair share". D3 §3 runs a Monte Carlo of ideal
fair share, EDF and rate reservation on one 1 Gbps link with DCTCP-like
sizes and exponential deadlines (mean 30 ms, moderate); it does not say
which flows carry deadlines, how flows arrive or whether deadlines have a
lower bound. `d3-fig5` reads: deadlines on flows < 50 KB only, all flows
start together, a 3 ms floor. Swept here:

  (a) deadlines on flows < 50 KB only / on every flow;
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


def scenario(all_flows: bool, poisson: bool, floor: str | None, scheme: str) -> dict:
    sc = copy.deepcopy(CATALOG["d3-fig5"].base(False))
    sc["protocol"] = {"name": scheme}
    dl = sc["workload"]["deadline"]
    if all_flows:
        del dl["only_below"]
    if floor is None:
        del dl["min"]
    else:
        dl["min"] = floor
    if poisson:
        w = sc["workload"]
        del w["flows"]
        w.update({"arrival": "poisson", "rate": 1.0, "duration": f"{WINDOW_S * 1e3:g}ms"})
    return sc


def supported(sc: dict, poisson: bool, target: float) -> str:
    if poisson:  # bisect the rate; report the expected number of flows
        r = dcflow.capacity(sc, "workload.rate", lo=1 / WINDOW_S, hi=HI / WINDOW_S, target=target,
                            seeds=SEEDS, integer=False, tol=1 / WINDOW_S)
        v = None if r.value is None else round(r.value * WINDOW_S)
    else:
        r = dcflow.capacity(sc, "workload.flows", lo=1, hi=HI, target=target, seeds=SEEDS)
        v = r.value
    if v is None:
        return "0"
    return f"{v}" if r.bounded else f">={v}"


def ratio(a: str, b: str) -> str:
    try:
        return f"{float(a.lstrip('>=')) / float(b.lstrip('>=')):.1f}"
    except (ValueError, ZeroDivisionError):
        return "-"


print("| deadlines on | arrivals | floor | target | fair | EDF | reservation | EDF/fair | res./fair |")
print("|---|---|---|---|---:|---:|---:|---:|---:|")
for all_flows, poisson, floor in itertools.product((False, True), (False, True), ("3ms", None, "10ms")):
    for target in (1.0, 0.99):
        v = [supported(scenario(all_flows, poisson, floor, s), poisson, target)
             for s in ("fair", "edf", "reservation")]
        print(f"| {'all flows' if all_flows else '< 50 KB'} | {'Poisson, 30 ms' if poisson else 'together'} "
              f"| {floor or 'none'} | {target:.0%} | {v[0]} | {v[1]} | {v[2]} "
              f"| {ratio(v[1], v[0])} | {ratio(v[2], v[0])} |", flush=True)
