"""The training runs of a profile-guided build (`make pgo`).

    python -m dcflow.pgo            # run them (with an instrumented dcflow._core)
    python -m dcflow.pgo --list     # print them

`make pgo` builds dcflow._core instrumented, runs these, merges the counts
and builds it again with them (`rustc -Cprofile-use`): the compiler then lays
out the engines' hot paths and inlines by measured frequency. The results of
a run do not change (the same code, compiled differently: `make pgo && make
golden` checks it); the CPU time does (BENCHMARKS.md, "Profile-guided
build").

Code that no training run reaches is treated as cold, so every protocol runs
on the engines that model it (tests/test_pgo.py fails when a protocol is
missing), with and without deadlines where they matter, and the routing
policies with a per-packet choice. The scenarios are the benchmark files'
topologies and workloads (the 144-host leaf-spine, the k = 16 fat-tree)
with fewer flows and each protocol in turn, and the k = 8 fat-tree with the
topologies' default delays, whose events mostly wait in the event queue's
coarse slots (the leaf-spine's almost all stay in its ring).
"""

from __future__ import annotations

import argparse
import sys
import time
from collections.abc import Iterator, Mapping
from pathlib import Path
from typing import Any

__all__ = ["PACKET", "FLUID", "ROUTED", "DEFAULT_DELAYS", "runs", "train", "main"]

ROOT = Path(__file__).resolve().parents[2]
LEAF_SPINE = ROOT / "bench" / "leafspine-pfabric.toml"
FAT_TREE = ROOT / "bench" / "fluid-fattree-fair-100k.toml"
DEFAULT_FAT_TREE = ROOT / "bench" / "fattree-dctcp.toml"

DEADLINES = {"workload.deadline": {"dist": "exponential", "mean": "20ms", "min": "3ms"}}

#: Packet-engine protocols, each with the flows it runs on the leaf-spine and
#: the keys it needs; the engine's hot paths (pFabric, TCP, DCTCP) get more.
PACKET: dict[str, tuple[int, Mapping[str, Any]]] = {
    "pfabric": (1500, {}),
    "tcp": (1500, {}),
    "dctcp": (1500, {}),
    "d2tcp": (400, DEADLINES),
    "lpd": (400, DEADLINES),
    "l2dct": (400, {}),
    "pias": (400, {}),
    "karuna": (400, {**DEADLINES, "workload.deadline_fraction": 0.3, "workload.known_size_fraction": 0.5}),
    "rcp": (400, {}),
    "d3": (400, DEADLINES),
    "pdq": (400, DEADLINES),
    "s3": (400, DEADLINES),
    "merp": (400, DEADLINES),
    "phost": (400, {}),
    "homa": (400, {}),
}

#: Flow-level disciplines on the k = 16 fat-tree, with their flows.
FLUID: dict[str, tuple[int, Mapping[str, Any]]] = {
    "fair": (20000, {}),
    "srpt": (20000, {}),
    "sjf": (3000, {}),
    "edf": (3000, DEADLINES),
    "fifo": (3000, {}),
    "reservation": (2000, DEADLINES),
    "optimal": (2000, DEADLINES),
    "rcp": (3000, {}),
    "d3": (2000, DEADLINES),
    "pdq": (2000, DEADLINES),
    "s3": (2000, DEADLINES),
    "merp": (2000, DEADLINES),
}

#: Per-packet and per-flowlet routing choices (the hop-by-hop router).
ROUTED: dict[str, Mapping[str, Any]] = {
    "pfabric, spray": {"protocol.name": "pfabric", "topology.routing": "spray", "workload.flows": 1000},
    "pfabric, round-robin spray": {"protocol.name": "pfabric", "topology.routing": "spray",
                                   "topology.spray_order": "round_robin", "workload.flows": 1000},
    "dctcp, conga": {"protocol.name": "dctcp", "topology.routing": "conga", "workload.flows": 400},
    "tcp, flowlet": {"protocol.name": "tcp", "topology.routing": "flowlet", "workload.flows": 400},
}


#: Packet runs on the k = 8 fat-tree with the default delays (25 us per switch).
DEFAULT_DELAYS: dict[str, Mapping[str, Any]] = {
    "dctcp, default delays": {"protocol.name": "dctcp", "workload.flows": 400},
    "pdq, default delays": {"protocol.name": "pdq", "workload.flows": 200, **DEADLINES},
}


def runs(fraction: float = 1.0) -> Iterator[tuple[str, Path, dict[str, Any]]]:
    """(label, scenario file, overrides) of every training run, with
    `fraction` of its flows (at least 20; tests/test_pgo.py runs them all
    at a tenth)."""
    for label, path, overrides in _full_runs():
        flows = max(20, round(overrides["workload.flows"] * fraction))
        yield label, path, {**overrides, "workload.flows": flows}


def _full_runs() -> Iterator[tuple[str, Path, dict[str, Any]]]:
    for name, (flows, extra) in PACKET.items():
        yield f"packet {name}", LEAF_SPINE, {"protocol.name": name, "workload.flows": flows, **extra}
    for label, overrides in ROUTED.items():
        yield f"packet {label}", LEAF_SPINE, dict(overrides)
    for label, overrides in DEFAULT_DELAYS.items():
        yield f"packet {label}", DEFAULT_FAT_TREE, dict(overrides)
    for name, (flows, extra) in FLUID.items():
        yield f"fluid {name}", FAT_TREE, {"protocol.name": name, "workload.flows": flows, **extra}


def train(fraction: float = 1.0) -> Iterator[tuple[str, dict[str, Any], float]]:
    """Runs every training run (with `fraction` of its flows): (label,
    summary, CPU seconds) of each."""
    import dcflow

    for label, path, overrides in runs(fraction):
        start = time.process_time()
        summary = dcflow.run(dcflow.Scenario.from_toml(path), overrides).summary
        yield label, summary, time.process_time() - start


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--list", action="store_true", help="print the runs, do not run them")
    args = ap.parse_args(argv)
    width = max(len(label) for label, _, _ in runs()) + 2
    if args.list:
        for label, path, overrides in runs():
            print(f"{label:<{width}}{path.relative_to(ROOT)} {overrides}")
        return 0
    unfinished = []
    for label, summary, cpu in train():
        print(f"{label:<{width}}{summary['status']:<10} {cpu:6.2f} s CPU", flush=True)
        if summary["status"] != "completed":
            unfinished.append(label)
    if unfinished:
        # The profile would miss what those runs did not reach.
        print(f"error: training runs not completed: {', '.join(unfinished)}", file=sys.stderr)
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
