"""LPD (papers/004) §V-B/C and §VI: the OLDI experiments (Fig. 6, 8, 10-13)."""

from __future__ import annotations

from typing import Any

from dcflow.repro import Entry, Series, register
from dcflow.repro.common import DCTCP, D2TCP, L2DCT, PFABRIC, LPD_S

LPD_E = Series("LPD-e", {"protocol": {"name": "lpd", "variant": "e"}}, "lpd")


def _oldi(deadline: str):
    """LPD §V-C: ten racks of M = 40 servers, 1 Gbps to the ToR, 10 Gbps to
    the root, 100 us round-trip propagation, K = 20, RTO 10 ms. One query:
    `fan-in` servers answer the aggregator (host 0) together, Pareto sizes
    (shape 1.2, mean 50 KB), deadline-aware below 200 KB. The paper's ten
    servers with long-lived background traffic are not placed by the text:
    here one per rack 1-9 (and a tenth in rack 1) sends to the aggregator,
    the only port where they meet the query (docs/fidelity.md)."""
    def base(quick: bool) -> dict[str, Any]:
        background = [{"src": 40 * (i % 9 + 1) + 20 + i // 9, "dst": 0, "size": "1GB", "start": "0ms"}
                      for i in range(10)]
        return {"name": f"lpd-oldi-{deadline}", "seed": 1, "stop": "150ms",
                "topology": {"kind": "tree", "racks": 10, "hosts_per_rack": 40, "link_rate": "1Gbps",
                             "core_link_rate": "10Gbps", "prop_delay": "12.5us", "proc_delay": "0us"},
                "protocol": {"name": "dctcp"},
                "workload": {"pattern": "aggregation", "receiver": 0, "flows": 20, "start": "20ms",
                             "size": {"dist": "pareto", "mean": "50KB", "shape": 1.2},
                             "deadline": {"dist": "fixed", "value": deadline, "only_below": "200KB"}},
                "flows": background}
    return base


for panel, deadline, claim in [
        ("a", "20ms", "LPD-e misses fewest; D2TCP no clear advantage over DCTCP (tight deadlines)"),
        ("b", "30ms", "LPD-e misses fewest; D2TCP no clear advantage over DCTCP (tight deadlines)"),
        ("c", "40ms", "LPD-e misses fewest; D2TCP clearly better than DCTCP (lax deadlines)")]:
    register(Entry(
        name=f"lpd-fig8{panel}", paper="LPD", figure=f"Fig. 8({panel})",
        title=f"deadline misses vs fan-in, {deadline} deadlines, 10 x 40 servers",
        base=_oldi(deadline), series=[DCTCP, D2TCP, LPD_E], x_key="workload.flows",
        xs=lambda q: [20, 40] if q else [20, 25, 30, 35, 40], xlabel="fan-in degree",
        y="app_throughput", y_scale=100, y_map=lambda v: 100 - v,
        ylabel="flows missing their deadlines (%)", seeds=lambda q: 2 if q else 100,
        notes=f"LPD §V-C, 100 seeds per point (the paper shows mean, min and max; here mean and "
              f"95% CI). Paper: {claim}. L2DCT is not built (its paper is not in papers/), so "
              "it is left out rather than making the entry pending.",
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
