"""Issue 18: the share of D3 Fig. 9's D3 / RCP_dc gap that the 3 ms deadline
floor governs. Senders at 99% application throughput (D3 Fig. 9's measure)
on `d3-fig9`'s base (one rack, 2-50 KB responses, exponential deadlines with
a 30 ms mean; D3 and RCP_dc on the router's 128 KB) for each floor, 10 seeds:

    .venv/bin/python bench/d3_deadline_floor.py
"""
import copy

import dcflow
from dcflow.repro.common import D3_ROUTER_BUFFER, d3_rack

for floor in ("1ms", "2ms", "3ms", "5ms", "8ms", "12ms"):
    row = []
    for name in ("d3", "rcp"):
        sc = copy.deepcopy(d3_rack(False))
        sc["protocol"] = {"name": name}
        sc["topology"]["buffer"] = D3_ROUTER_BUFFER["topology.buffer"]  # D3 §5's router
        sc["workload"]["deadline"]["min"] = floor
        r = dcflow.capacity(sc, lo=1, hi=128, target=0.99, seeds=10)
        row.append(r.value if r.bounded else f">={r.value}")
    print(f"floor {floor}: D3 {row[0]}, RCP_dc {row[1]}", flush=True)
