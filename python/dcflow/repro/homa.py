"""Homa (Montazeri et al., SIGCOMM 2018) §5.2: the simulations' headline
figure, 99th-percentile slowdown by message size at 80% load, Homa against
pFabric and pHost, on the paper's workloads that dcflow has.

The paper's simulated network (after its §5.2 and HomaSimulation's
DcnTopo): 144 hosts, 9 racks of 16 under 4 spines, 10 Gbps host links, 40
Gbps rack-spine links (no oversubscription), about 0.25 us per switch.
W5 is DCTCP's web search (`web_search`, the same source). W4 is Facebook's
Hadoop; dcflow has no copy of it, and `data_mining` (VL2's, heavy-tailed
like W4) stands in, capped at 30 MB as in the agreement matrix. Settings,
deviations and the re-run next to the paper: docs/fidelity-homa.md.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

from dcflow.repro import Entry, Series, register
from dcflow.repro.common import PFABRIC

HOMA = Series("Homa", {"protocol": {"name": "homa"}}, "homa")
PHOST = Series("pHost", {"protocol": {"name": "phost"}}, "phost")

#: (label, size distribution, stats buckets): the x axis of each panel.
WORKLOADS = [
    ("W4 (data mining stand-in)", {"dist": "cdf", "name": "data_mining", "max": "30MB"},
     ["10KB", "100KB", "1MB", "10MB"]),
    ("W5 (web search)", {"dist": "cdf", "name": "web_search"}, ["10KB", "100KB", "1MB", "10MB"]),
]
LOAD = 0.8


def leaf_spine(quick: bool) -> dict[str, Any]:
    """§5.2's fabric; quick: 2 racks of 4 under 2 spines, fewer flows."""
    return {
        "name": "homa-sim", "seed": 1, "stop": "10s",
        "topology": {"kind": "leaf_spine", "leaves": 2 if quick else 9, "hosts_per_leaf": 4 if quick else 16,
                     "spines": 2 if quick else 4, "link_rate": "10Gbps", "spine_link_rate": "40Gbps",
                     "prop_delay": "0.1us", "proc_delay": "0.25us"},
        "protocol": {"name": "homa"},
        "workload": {"pattern": "all_to_all", "arrival": "poisson", "load": LOAD,
                     "flows": 150 if quick else 3000, "size": WORKLOADS[1][1]},
    }


def _slowdown_by_size(entry: Entry, out: Path, quick: bool, opts: dict[str, Any]):
    """Per workload, series and seed one run; per size bucket the mean over
    seeds of the run's 99th-percentile slowdown."""
    import dcflow
    import matplotlib.pyplot as plt

    from dcflow.plot import plain_log_axis
    from dcflow.plot.stats import mean_ci
    from dcflow.plot.style import legend_with_paper, paper_points, series_style, wrapped

    rows: list[dict[str, Any]] = []
    fig, axes = plt.subplots(1, len(WORKLOADS), figsize=(5.2 * len(WORKLOADS), 4.0), squeeze=False)
    for ax, (wl, size, buckets) in zip(axes[0], WORKLOADS):
        labels: list[str] = []
        has_paper = False
        for i, s in enumerate(entry.series):
            per_bucket: dict[str, list[float]] = {}
            for seed in range(1, entry.seeds(quick) + 1):
                sc = entry.series_scenario(s, quick).with_overrides(
                    {"workload.size": size, "stats.buckets": buckets, "seed": seed})
                res = dcflow.run(sc)
                res.save(out / "runs" / s.slug / f"{wl.split()[0]}-s{seed}")
                labels = list(res.summary["size_buckets"])
                for b in labels:
                    v = res.summary.get(f"slowdown_p99[{b}]")
                    if v is not None:
                        per_bucket.setdefault(b, []).append(v)
            pts = []
            for j, b in enumerate(labels):
                m, ci = mean_ci(per_bucket.get(b, []))
                paper = entry.paper_values.get((s.label, wl, b))
                rows.append({"series": s.label, "workload": wl, "size": b, "slowdown_p99": m, "ci95": ci,
                             "n": len(per_bucket.get(b, [])), "paper": paper})
                if m is not None:
                    pts.append((j, m))
                if paper is not None:
                    paper_points(ax, [j], [paper], series_style(i, len(entry.series)))
                    has_paper = True
            st = series_style(i, len(entry.series))
            ax.plot([p[0] for p in pts], [p[1] for p in pts], label=s.label, **st)
        ax.set_xticks(range(len(labels)), labels, fontsize=7)
        plain_log_axis(ax, "y")
        ax.set_xlabel("message size")
        ax.set_ylabel("99th-percentile slowdown")
        ax.set_title(wl, fontsize=9)
        ax.grid(True, alpha=0.3)
        legend_with_paper(ax, has_paper)
    fig.suptitle(wrapped(f"{entry.paper} {entry.figure}: {entry.title}"), fontsize=9)
    fig.tight_layout()
    return rows, fig


register(Entry(
    name="homa-slowdown", paper="Homa", figure="Fig. 12 (§5.2)", kind="custom",
    title=f"99th-percentile slowdown by message size at load {LOAD:g}: Homa, pFabric, pHost",
    base=leaf_spine, series=[HOMA, PFABRIC, PHOST], seeds=lambda quick: 1 if quick else 2,
    analyze=_slowdown_by_size,
    notes="144-host leaf-spine (9 x 16, 4 spines), 10/40 Gbps, all-to-all Poisson at load 0.8, 3000 flows "
          "a run (quick: 8 hosts, 150 flows). W4 is a stand-in (data_mining, capped at 30 MB). The paper "
          "gives this figure as curves; the text reached here gives no numbers for it, so the paper column "
          "is empty. The abstract: Homa's latency is roughly equal to pFabric's and significantly better "
          "than pHost's for almost all message sizes and workloads.",
))
