"""D3's capacity controller without an upper bound winds up while
D3 Fig. 12's long flow runs alone (it leaves a sliver of the link unused, so
C grows by α x that sliver every 800 us for 5 s), and the burst is then
allocated from the inflated C. `protocol.capacity_max` bounds C (multiples
of the link rate). For each bound: senders at 99% (30 ms mean deadlines, 20
seeds) for Fig. 12 with the burst 20 ms and 5 s after the long flow, Fig. 9,
and D3's link utilization with 20 long flows (Fig. 16, 3 seeds). ~4 min:

    .venv/bin/python bench/d3_capacity_max.py
"""
import statistics

import dcflow
from d3_runs import senders_at_99
from dcflow.repro import CATALOG

FIG16 = CATALOG["d3-fig16"]


print("| capacity_max | Fig. 12 D3 (20 ms / 5 s) | Fig. 12 RCP_dc (20 ms / 5 s) | Fig. 9 D3 / RCP_dc | Fig. 16 D3 utilization, 20 flows |")
print("|---|---|---|---|---:|")
for bound in (None, 2.0, 1.2, 1.05):
    cap = {"protocol.capacity_max": bound} if bound else {}
    cells = []
    for k in (0, 1):  # D3, RCP_dc
        early = senders_at_99("d3-fig12", k, {**cap, "workload.start": "20ms", "stop": "320ms"}, seeds=20)
        late = senders_at_99("d3-fig12", k, {**cap, "workload.start": "5s", "stop": "5300ms"}, seeds=20)
        cells.append(f"{early} / {late}")
    cells.append(" / ".join(senders_at_99("d3-fig9", k, cap, seeds=20) for k in (0, 1)))
    long_flows = FIG16.series_scenario(FIG16.series[0], False).with_overrides({**cap, "workload.flows": 20})
    util = statistics.mean(dcflow.run(long_flows.with_overrides({"seed": k})).summary["utilization"] for k in (1, 2, 3))
    print(f"| {bound or 'none (default)'} | " + " | ".join(cells) + f" | {util:.3f} |", flush=True)
