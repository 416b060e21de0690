"""The share of D3 Fig. 9's D3 / RCP_dc gap that the shape of the
deadline distribution governs, at the same 30 ms mean: senders at 99%
application throughput on `d3-fig9`'s base (one rack, 2-50 KB responses,
D3 and RCP_dc on the router's 128 KB), 10 seeds. The floor's own sweep is
bench/d3_deadline_floor.py.

    .venv/bin/python bench/d3_deadline_floor.py
    .venv/bin/python bench/d3_deadline_shape.py
"""
from d3_runs import senders_at_99

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
    # Series 0 and 1 of d3-fig9: D3 and RCP_dc.
    d3, rcp = (senders_at_99("d3-fig9", k, {"workload.deadline": deadline}, seeds=10) for k in (0, 1))
    ratio = f"{int(d3) / int(rcp):.1f}" if d3.isdigit() and rcp.isdigit() and int(rcp) > 0 else "–"
    print(f"| {label} | {d3} | {rcp} | {ratio} |", flush=True)
