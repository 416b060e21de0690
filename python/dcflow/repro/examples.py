"""Worked examples of S3 (Table 2) and MERP (Table 1), on the fluid engine."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from dcflow.repro import Entry, register
from dcflow.repro.common import fluid

# ------------------------------------------------------------ worked examples
UNIT = 125_000  # bytes: 1 ms at 1 Gbps, so "one unit size needs one unit time"


def _unit_flows(spec: list[tuple[int, float, float | None]]) -> list[dict[str, Any]]:
    out = []
    for i, (size, start, deadline) in enumerate(spec):
        f = {"src": i + 1, "dst": 0, "size": f"{size * UNIT}B", "start": f"{start:g}ms"}
        if deadline is not None:
            f["deadline"] = f"{deadline:g}ms"
        out.append(f)
    return out


def _worked_example(metrics: list[tuple[str, str, float]], paper: dict[tuple[str, str], float]):
    def analyze(entry: Entry, out: Path, quick: bool, opts: dict[str, Any]):
        import matplotlib.pyplot as plt
        import numpy as np

        import dcflow
        from dcflow.plot.style import legend_with_paper, paper_points, series_style, wrapped

        rows = []
        for s in entry.series:
            res = dcflow.run(entry.series_scenario(s, quick))
            res.save(out / "runs" / s.slug)
            for label, key, scale in metrics:
                v = res.summary.get(key)
                rows.append({"series": s.label, "metric": label,
                             "value": None if v is None else v * scale,
                             "paper": paper.get((s.label, label))})
        fig, axes = plt.subplots(1, len(metrics), figsize=(max(5.5, 4 * len(metrics)), 3.5), squeeze=False)
        for ax, (label, _, _) in zip(axes[0], metrics):
            sub = [r for r in rows if r["metric"] == label]
            styles = [series_style(i, len(sub)) for i in range(len(sub))]
            ax.bar(range(len(sub)), [np.nan if r["value"] is None else r["value"] for r in sub], 0.6,
                   color=[st["color"] for st in styles])
            for i, (r, st) in enumerate(zip(sub, styles)):
                if r["paper"] is not None:
                    paper_points(ax, [i], [r["paper"]], st)
            ax.set_xticks(range(len(sub)), [r["series"] for r in sub])
            ax.set_ylabel(label)
            ax.grid(True, axis="y", alpha=0.3)
            ax.set_ylim(0, 1.25 * max([r["value"] or 0 for r in sub] + [r["paper"] or 0 for r in sub] + [1e-9]))
            if any(r["paper"] is not None for r in sub):  # bars: dcflow, by their series below
                legend_with_paper(ax, True, loc="upper right")
        fig.suptitle(wrapped(f"{entry.paper} {entry.figure}: {entry.title}", 70), fontsize=9)
        fig.tight_layout()
        return rows, fig

    return analyze


def _example_base(flows: list[dict[str, Any]]) -> dict[str, Any]:
    return {"name": "worked-example", "seed": 1, "engine": "fluid",
            "topology": {"kind": "star", "hosts": len(flows) + 1, "link_rate": "1Gbps"},
            "protocol": {"name": "fair"}, "workload": {"pattern": "explicit"}, "flows": flows}


# S3 Table 2: sizes 3, 4, 6; deadlines 7, 8, 6; FIFO arrival order C, B, A.
_S3_FLOWS = _unit_flows([(6, 0.0, 6), (4, 0.001, 8), (3, 0.002, 7)])  # C, B, A
register(Entry(
    name="s3-table2", paper="S3", figure="Table 2 / Fig. 2", kind="custom",
    title="application throughput of PS, FIFO, EDF and S3 on three flows",
    base=lambda q: _example_base(_S3_FLOWS),
    series=[fluid("PS", "fair"), fluid("FIFO", "fifo"), fluid("EDF", "edf"), fluid("S3", "s3")],
    analyze=_worked_example([("application throughput", "app_throughput", 1.0)],
                            {("PS", "application throughput"): 0.0,
                             ("FIFO", "application throughput"): 1 / 3,
                             ("EDF", "application throughput"): 1 / 3,
                             ("S3", "application throughput"): 2 / 3}),
    notes="S3 §3.2: one unit = 125 KB = 1 ms at 1 Gbps; flows that cannot finish are terminated.",
))

# MERP Table 1: A (0, 3), B (3, 3), C (0, 4).
_MERP_FLOWS = _unit_flows([(3, 0, None), (3, 3, None), (4, 0, None)])
register(Entry(
    name="merp-table1", paper="MERP", figure="Table 1 / Fig. 1", kind="custom",
    title="mean FCT and maximum expansion ratio of SRPT, PS and MERP",
    base=lambda q: _example_base(_MERP_FLOWS),
    series=[fluid("SRPT", "srpt"), fluid("PS", "fair"), fluid("MERP", "merp")],
    analyze=_worked_example([("mean FCT (units)", "fct_mean_s", 1e3),
                             ("max expansion ratio", "slowdown_max", 1.0)],
                            {("SRPT", "mean FCT (units)"): 16 / 3, ("SRPT", "max expansion ratio"): 2.5,
                             ("PS", "mean FCT (units)"): 8.0, ("MERP", "mean FCT (units)"): 17 / 3,
                             ("MERP", "max expansion ratio"): 7 / 3}),
    notes="MERP §2: one unit = 125 KB = 1 ms at 1 Gbps.",
))
