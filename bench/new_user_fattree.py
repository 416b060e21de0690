"""The explicit-rate protocols on an ordinary workload: a k = 4 fat-tree with
the defaults (1 Gbps, 4 MB per port), web-search sizes, Poisson all-to-all at
load 0.5, 2,000 flows (several at once per host), seed 1. Each protocol on the
packet engine next to pFabric and DCTCP, then the flow-level references on
the same flows (fair for RCP_dc / D3, srpt for PDQ and pFabric, merp):

    .venv/bin/python bench/new_user_fattree.py [PROTOCOL ...]

The table is docs/fidelity.md's "The sender's own link" (about 4 minutes
on one core for every row); `make claims` checks its numbers.
"""
import sys

import dcflow
from dcflow.claims import NEW_USER_FATTREE

BASE = NEW_USER_FATTREE
PACKET = ["pfabric", "dctcp", "rcp", "d3", "pdq", "s3", "merp"]
FLUID = ["fair", "srpt", "merp"]


def row(label: str, over: dict) -> dict:
    s = dcflow.run(dcflow.Scenario({**BASE, **over})).summary
    small = "slowdown_mean[<=100KB]", "slowdown_p99[<=100KB]"
    cells = {
        "mean FCT": f"{s['fct_mean_s'] * 1e3:.1f} ms",
        "<=100KB slowdown mean / p99": f"{s[small[0]]:.2f} / {s[small[1]]:.1f}",
        "drops": f"{s['packets_dropped']:,}",
        "drops / sent": f"{s['packets_dropped'] / max(s['packets_sent'], 1):.2%}",
        "timeouts": f"{s['timeouts']:,}",
        "largest slowdown": f"{s['slowdown_max']:.1f}",
    }
    print(f"| {label} | " + " | ".join(cells.values()) + " |", flush=True)
    return s


def main(names: list[str]) -> None:
    print("| protocol | mean FCT | <=100KB slowdown mean / p99 | drops | drops / sent | timeouts | largest slowdown |")
    print("|---|---|---|---|---|---|---|")
    for name in names or PACKET:
        row(name, {"protocol": {"name": name}})
    if not names:
        for name in FLUID:
            row(f"{name} (flow level)", {"engine": "fluid", "protocol": {"name": name}})


if __name__ == "__main__":
    main(sys.argv[1:])
