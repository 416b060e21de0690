"""When the flow burst of D3 Fig. 12 starts after the long
background flow. D3 §6.1.1 starts it 5 s after the long flow, as `d3-fig12`
does now; it started it 20 ms after before (enough for D3 and RCP_dc to
fill the aggregator's link). Senders supported at 99% application throughput, moderate deadlines
(30 ms mean, 3 ms floor), 20 seeds, each run stopped 300 ms after the burst,
for each start:

    .venv/bin/python bench/d3_fig12_start.py [START ...]   # default 20ms 200ms 1s 5s
"""
import sys

import dcflow
from dcflow.repro import CATALOG

entry = CATALOG["d3-fig12"]
starts = sys.argv[1:] or ["20ms", "200ms", "1s", "5s"]
print("| burst start | " + " | ".join(s.label for s in entry.series) + " |")
print("|---|" + "---:|" * len(entry.series))
for start in starts:
    t_ms = dcflow.Scenario({"stop": start}).to_dict()["stop"]
    t_ms = float(t_ms[:-2]) if t_ms.endswith("ms") else float(t_ms[:-1]) * 1e3
    row = []
    for s in entry.series:
        sc = entry.series_scenario(s, False).with_overrides(
            {"workload.deadline.mean": "30ms", "workload.start": start, "stop": f"{t_ms + 300:g}ms"})
        r = dcflow.capacity(sc, lo=1, hi=64, target=0.99, seeds=20)
        row.append("0" if r.value is None else str(r.value) if r.bounded else f">={r.value}")
    print(f"| {start} | " + " | ".join(row) + " |", flush=True)
