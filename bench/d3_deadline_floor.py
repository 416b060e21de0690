"""The share of D3 Fig. 9's D3 / RCP_dc gap that the 3 ms deadline
floor governs. Senders at 99% application throughput (D3 Fig. 9's measure)
on `d3-fig9`'s base (one rack, 2-50 KB responses, exponential deadlines with
a 30 ms mean; D3 and RCP_dc on the router's 128 KB) for each floor, 10 seeds:

    .venv/bin/python bench/d3_deadline_floor.py
"""
from d3_runs import senders_at_99

for floor in ("1ms", "2ms", "3ms", "5ms", "8ms", "12ms"):
    # Series 0 and 1 of d3-fig9: D3 and RCP_dc.
    row = [senders_at_99("d3-fig9", k, {"workload.deadline.min": floor}, seeds=10) for k in (0, 1)]
    print(f"floor {floor}: D3 {row[0]}, RCP_dc {row[1]}", flush=True)
