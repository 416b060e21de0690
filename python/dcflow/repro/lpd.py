"""LPD (papers/004): the motivating example and LPD-s."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from dcflow.repro import Entry, Series, register
from dcflow.repro.common import DCTCP, D2TCP, L2DCT, PFABRIC, LPD_D, LPD_S

# §V-A runs LPD-t on the motivating example with t_max = 800 ms.
LPD_T800 = Series("LPD-t", {"protocol": {"name": "lpd", "variant": "t", "t_max": "800ms"}}, "lpd")


def _lpd_table1(entry: Entry, out: Path, quick: bool, opts: dict[str, Any]):
    import matplotlib.pyplot as plt
    import numpy as np

    import dcflow

    # Table I (D2TCP, DCTCP); §V-A: "only flow 2 misses its deadline under
    # LPD" (amount not given), "With LPD-t, all flows complete".
    paper = {"D2TCP": [1.53, 1.79, 3.64, 0.0], "DCTCP": [2.07, 2.14, 4.08, 0.0],
             "LPD": [0.0, None, 0.0, 0.0], "LPD-t": [0.0, 0.0, 0.0, 0.0]}
    rows = []
    fig, ax = plt.subplots(figsize=(6.4, 4))
    for k, s in enumerate(entry.series):
        res = dcflow.run(entry.series_scenario(s, quick))
        res.save(out / "runs" / s.slug)
        ts = res.timeseries
        interval = 1e-3
        left = []
        for i, f in enumerate(res.flows.to_pylist()):
            name = str(f["id"])
            m = [(t, thr) for t, ser, nm, thr in zip(ts.column("time_s").to_pylist(), ts.column("series").to_pylist(),
                                                     ts.column("name").to_pylist(), ts.column("throughput_bps").to_pylist())
                 if ser == "flow" and nm == name and t <= f["start_s"] + (f["deadline_s"] or 0) + 1e-12]
            sent = sum(thr for _, thr in m) * interval / 8
            left.append(max(f["size_bytes"] - sent, 0.0) / 1e6)
            rows.append({"series": s.label, "flow": f"flow {i + 1}", "untransmitted (MB)": left[-1],
                         "paper (MB)": paper.get(s.label, [None] * 4)[i] if i < 4 else None})
        width = 0.8 / len(entry.series)
        ax.bar(np.arange(len(left)) + (k - (len(entry.series) - 1) / 2) * width, left, width, label=s.label)
    ax.set_xticks(range(4), ["flow 1", "flow 2", "flow 3", "flow 4"])
    ax.set_ylabel("untransmitted data at deadline (MB)")
    ax.legend()
    ax.set_title(f"LPD Table I: {entry.title}", fontsize=9)
    fig.tight_layout()
    return rows, fig


register(Entry(
    name="lpd-table1", paper="LPD", figure="Table I", kind="custom",
    title="untransmitted data after the deadline, 4 flows on 1 Gbps",
    base=lambda q: {
        "name": "lpd-motivating", "seed": 1, "stop": "900ms",
        "topology": {"kind": "star", "hosts": 5, "link_rate": "1Gbps", "prop_delay": "12.5us",
                     "proc_delay": "0us"},
        "protocol": {"name": "dctcp"}, "workload": {"pattern": "explicit"},
        "flows": [{"src": i + 1, "dst": 0, "size": f"{mb}MB", "start": "0ms", "deadline": f"{d}ms"}
                  for i, (mb, d) in enumerate([(8, 200), (16, 400), (32, 600), (40, 800)])],
        "monitor": {"interval": "1ms", "links": ["bottleneck"], "flows": True},
    },
    series=[D2TCP, DCTCP, LPD_D, LPD_T800], analyze=_lpd_table1,
    notes="LPD §III-A: RTT 100 us. The paper stops a flow at its deadline; here flows run on "
          "and the data sent by the deadline is integrated from the 1 ms per-flow rate series.",
))

register(Entry(
    name="lpd-fig13b", paper="LPD", figure="Fig. 13b",
    title="mean FCT vs concurrent 1 MB flows on a 1 Gbps bottleneck",
    base=lambda q: {"name": "lpd-s", "seed": 1,
                    "topology": {"kind": "star", "hosts": 41, "link_rate": "1Gbps"},
                    "protocol": {"name": "dctcp"},
                    "workload": {"pattern": "aggregation", "receiver": 0, "flows": 1,
                                 "size": {"dist": "fixed", "value": "1MB"}}},
    series=[L2DCT, PFABRIC, LPD_S], x_key="workload.flows",
    xs=lambda q: [1, 10] if q else [1, 5, 10, 15, 20, 25, 30, 35, 40],
    xlabel="number of concurrent flows", y="fct_mean_s", y_scale=1e3,
    ylabel="mean flow completion time (ms)", seeds=lambda q: 1 if q else 3,
))
