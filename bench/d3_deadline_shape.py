"""Issue 18: the share of D3 Fig. 9's D3 / RCP_dc gap that the shape of the
deadline distribution governs, at the same 30 ms mean: senders at 99%
application throughput on `d3-fig9`'s base (one rack, 2-50 KB responses,
D3 and RCP_dc on the router's 128 KB), 10 seeds. The floor's own sweep is
bench/d3_deadline_floor.py.

    .venv/bin/python bench/d3_deadline_floor.py
    .venv/bin/python bench/d3_deadline_shape.py
"""
import copy

import dcflow
from dcflow.repro.common import D3_ROUTER_BUFFER, d3_rack

SHAPES = [
    ("exponential, 3 ms floor (the catalog's)", {"dist": "exponential", "mean": "30ms", "min": "3ms"}),
    ("uniform 3-57 ms", {"dist": "uniform", "min": "3ms", "max": "57ms"}),
    ("uniform 10-50 ms", {"dist": "uniform", "min": "10ms", "max": "50ms"}),
    ("uniform 20-40 ms", {"dist": "uniform", "min": "20ms", "max": "40ms"}),
    ("fixed 30 ms", {"dist": "fixed", "value": "30ms"}),
]

print("| deadlines (mean 30 ms) | D3 | RCP_dc | D3 / RCP_dc |")
print("|---|---:|---:|---:|")
for label, deadline in SHAPES:
    row = []
    for name in ("d3", "rcp"):
        sc = copy.deepcopy(d3_rack(False))
        sc["protocol"] = {"name": name}
        sc["topology"]["buffer"] = D3_ROUTER_BUFFER["topology.buffer"]  # D3 §5's router
        sc["workload"]["deadline"] = deadline
        r = dcflow.capacity(sc, lo=1, hi=128, target=0.99, seeds=10)
        row.append(r.value if r.bounded else None)
    ratio = f"{row[0] / row[1]:.1f}" if all(row) else "–"
    cells = [str(v) if v is not None else ">=128" for v in row]
    print(f"| {label} | {cells[0]} | {cells[1]} | {ratio} |", flush=True)
