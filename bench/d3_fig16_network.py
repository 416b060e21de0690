"""Which part of the network governs D3 Fig. 16 (D3 §6.2: long
flows to one host, "median and average network throughput of 0.95Gbps";
queue mean 4-6 KB, median 1.5 KB, p99 16.5-48 KB). `d3-fig16` ran on a
star with dcflow's defaults (0.1 us per link + 25 us per switch, 4 MB
buffers) and now runs on the testbed's network (`d3_rack`: 100 us per link,
~500 us RTT; D3's router has 128 KB per port, D3 §5). Swept for D3 alone,
per-link propagation delay x buffer, 3 seeds, 100 ms, sampled every 1 ms
after 5 ms (as `d3-fig16`):

    .venv/bin/python bench/d3_fig16_network.py
"""
import numpy as np

import dcflow
from dcflow.repro import CATALOG

entry = CATALOG["d3-fig16"]
base = entry.series_scenario(entry.series[0], False)
print("| per-link delay | buffer | long flows | throughput (Gbps) | queue mean / median / p99 (KB) |")
print("|---|---|---:|---:|---|")
for prop in ("100ns", "100us"):
    for buf in ("4MB", "128KB"):
        for n in (2, 10, 20):
            thr, q = [], []
            for seed in (1, 2, 3):
                r = dcflow.run(base.with_overrides({"topology.prop_delay": prop, "topology.buffer": buf,
                                                    "workload.flows": n, "seed": seed}))
                for row in r.timeseries.to_pylist():
                    if row["series"] == "link" and row["time_s"] > 0.005:
                        thr.append(row["throughput_bps"])
                        q.append(row["queue_bytes"])
            q = np.array(q, float) / 1e3
            print(f"| {prop} | {buf} | {n} | {np.mean(thr) / 1e9:.3f} | {np.mean(q):.1f} / "
                  f"{np.median(q):.1f} / {np.percentile(q, 99):.1f} |", flush=True)
