"""How M-PDQ's Fig. 11b/c (BCube(2,3), random permutation, Poisson,
`pdq-fig11b` / `pdq-fig11c`) depend on the three choices PDQ §6 leaves
open: what "load" means for a 4-port server, the criticality a subflow
carries (`protocol.subflow_criticality`), and how subflows get their paths
(`protocol.subflow_paths`). Prints mean FCT (11b) and application
throughput (11c) for 1..4 subflows, mean ± sd over seeds 1-5:

    .venv/bin/python bench/mpdq_sensitivity.py            # ~10 min, one core
    .venv/bin/python bench/mpdq_sensitivity.py --seeds 3 --fig b
    .venv/bin/python bench/mpdq_sensitivity.py --diag --fig b --seeds 3   # ~5 min

Load is swept as the traffic each server offers, G Gbps (Poisson rate
G x 16 servers x 1 Gbps / (8 x mean size), given as `workload.rate` since
`workload.load` is per server port and capped at 1): G = 1 is dcflow's
reading of the paper's 100% (per port, the catalog's `load = 1.0`), G = 4
the per-server reading (100% of a server's four 1 Gbps ports).
"""
import argparse
import random
import statistics

import dcflow
from dcflow.repro.pdq import mpdq_bcube

HOSTS, PORT_BPS = 16, 1e9
MEAN_SIZE = {"b": 1e6, "c": 1e5}  # U[2KB, 1998KB] and U[2KB, 198KB], KB = 1000 B

ap = argparse.ArgumentParser()
ap.add_argument("--seeds", type=int, default=5)
ap.add_argument("--fig", choices=["b", "c", "bc"], default="bc")
ap.add_argument("--only", help="run the rows whose label contains this")
ap.add_argument("--diag", action="store_true", help="the diagnostic rows instead (use with --fig b)")
ap.add_argument("--loads", default="0.25,0.5,1,2,4", help="G, Gbps offered per server")
args = ap.parse_args()
seeds = range(1, args.seeds + 1)
loads = [float(g) for g in args.loads.split(",")]

# (label, G, protocol keys, other overrides): the load sweep with dcflow's
# defaults, then each alternative reading at both readings of 100%.
rows = [(f"G = {g:g} Gbps/server", g, {}, {}) for g in loads]
for g in (1.0, 4.0):
    rows += [
        (f"G = {g:g}, criticality flow", g, {"subflow_criticality": "flow"}, {}),
        (f"G = {g:g}, paths shortest", g, {"subflow_paths": "shortest"}, {}),
        (f"G = {g:g}, shortest + flow", g, {"subflow_paths": "shortest", "subflow_criticality": "flow"}, {}),
        (f"G = {g:g}, paths ecmp", g, {"subflow_paths": "ecmp"}, {}),
        (f"G = {g:g}, flow + ecmp", g, {"subflow_criticality": "flow", "subflow_paths": "ecmp"}, {}),
        # Single-path PDQ on one fixed path per server pair (§6: it "can use
        # only one" of a server's interfaces) instead of per-flow ECMP.
        (f"G = {g:g}, routing single", g, {}, {"topology": {"routing": "single"}}),
    ]
# Light load (Fig. 11a's 2x) without the detours.
rows += [(f"G = {g:g}, paths shortest", g, {"subflow_paths": "shortest"}, {}) for g in (0.25, 0.5)]
# Run length: at G >= 1 single-path PDQ is critically loaded or overloaded,
# so the mean grows with the flows per run (catalog: 320 b, 640 c).
rows += [(f"G = 1, {k}x flows per run", 1.0, {}, {"flows_factor": k}) for k in (0.25, 4)]
rows += [(f"G = 1, shortest + flow, {k}x flows per run", 1.0,
          {"subflow_paths": "shortest", "subflow_criticality": "flow"}, {"flows_factor": k}) for k in (0.25, 4)]
# --diag (11b only): mechanisms tried before (docs/fidelity-pdq.md, "Fig. 11").
if args.diag:
    rows = [
        ("G = 1, dampening 0", 1.0, {"dampening": 0.0}, {}),
        ("G = 1, list unbounded", 1.0, {"list": "unbounded"}, {}),
        ("G = 1, all_to_all", 1.0, {}, {"workload": {"pattern": "all_to_all"}}),
        ("G = 1, 96 flows", 1.0, {}, {"flows_factor": 0.3}),
        ("G = 1, 96 flows, sizes x10", 1.0, {}, {"flows_factor": 0.3, "size_factor": 10}),
        # x -> x XOR 15: every digit differs, all 4 BuildPathSet paths shortest.
        ("XOR pairs, G = 0.5", 0.5, {}, {"xor": True}),
        ("XOR pairs, G = 1", 1.0, {}, {"xor": True}),
    ]
if args.only:
    rows = [r for r in rows if args.only in r[0]]


def xor_flows(g: float, seed: int, per_pair: int = 20) -> list[dict]:
    """Poisson flows x -> x XOR 15 at G Gbps per server, U[2KB, 1998KB]."""
    rng = random.Random(seed)
    flows = []
    for x in range(HOSTS):
        t = 0.0
        for _ in range(per_pair):
            t += rng.expovariate(g * PORT_BPS / (8 * MEAN_SIZE["b"]))
            flows.append({"src": x, "dst": x ^ 15, "size": f"{rng.randint(2000, 1998000)}B", "start": f"{t * 1e6:.3f}us"})
    return flows


def scenario(fig: str, g: float, proto: dict, other: dict, n: int, seed: int) -> dcflow.Scenario:
    base = mpdq_bcube(False, deadlines=fig == "c")
    w = {**base["workload"], "load": None, "rate": g * HOSTS * PORT_BPS / (8 * MEAN_SIZE[fig])}
    w["flows"] = int(w["flows"] * other.get("flows_factor", 1))
    if "size_factor" in other:
        k = other["size_factor"]
        w["size"] = {**w["size"], "min": f"{2 * k}KB", "max": f"{(1998 if fig == 'b' else 198) * k}KB"}
        w["rate"] /= k
    w.update(other.get("workload", {}))
    over = {"workload": w, "protocol": {**base["protocol"], **proto, "subflows": n}, "seed": seed}
    if "topology" in other:
        over["topology"] = {**base["topology"], **other["topology"]}
    if other.get("xor"):
        return dcflow.Scenario({**base, "seed": seed, "protocol": over["protocol"],
                                "workload": {"pattern": "explicit"}, "flows": xor_flows(g, seed)})
    return dcflow.Scenario(base).with_overrides(over)


# The rate at G = 1 is the catalog's `load = 1.0`: same arrivals, same run.
same = [dcflow.run(s).summary["fct_mean_s"] for s in
        (scenario("b", 1.0, {}, {}, 3, 1), dcflow.Scenario(mpdq_bcube(False)).with_overrides({"seed": 1}))]
assert same[0] == same[1], same

for fig in args.fig:
    key, scale, unit = ("fct_mean_s", 1e3, "mean FCT ms") if fig == "b" else ("app_throughput", 100, "app. throughput %")
    print(f"\nFig. 11{fig}: {unit}, seeds 1-{args.seeds}\n")
    print("| setting | 1 | 2 | 3 | 4 subflows | gain of 4 over 1 |")
    print("|---|---|---|---|---|---|")
    for label, g, proto, other in rows:
        means, cells = [], []
        for n in (1, 2, 3, 4):
            v = [dcflow.run(scenario(fig, g, proto, other, n, s)).summary[key] * scale for s in seeds]
            means.append(statistics.mean(v))
            cells.append(f"{means[-1]:.1f} ± {statistics.stdev(v) if len(v) > 1 else 0:.1f}")
        ratio = means[0] / means[3] if fig == "b" else means[3] / means[0]
        print(f"| {label} | {' | '.join(cells)} | {ratio:.2f}x |", flush=True)
