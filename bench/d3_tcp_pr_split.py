"""TCP_pr's priority split. D3 §6.1.1 maps "flows with short
deadlines" to the higher of two priority classes without saying where short
ends; the catalog's TCP_pr puts deadlines up to 20 ms (the tight class's
mean) high. Senders supported at 99% (D3 Fig. 9's measure, bisection) and at
95% (Fig. 10's) on `d3-fig9`'s setting, moderate deadlines (30 ms mean,
3 ms floor), 20 seeds, for each split:

    .venv/bin/python bench/d3_tcp_pr_split.py
"""
import dcflow
from dcflow.repro import CATALOG
from dcflow.repro.common import TCP_PR

entry = CATALOG["d3-fig9"]
print("| split (deadline ≤ split: high) | senders at 99% | senders at 95% |")
print("|---|---:|---:|")
for split in ("5ms", "10ms", "20ms", "30ms", "60ms"):
    sc = entry.series_scenario(TCP_PR, False).with_overrides(
        {"workload.deadline.mean": "30ms", "protocol.priority_deadlines": [split]})
    v = [dcflow.capacity(sc, lo=1, hi=64, target=t, seeds=20).value for t in (0.99, 0.95)]
    print(f"| {split} | {v[0]} | {v[1]} |", flush=True)
