"""pHost (Gao et al., CoNEXT'15): its headline comparison with pFabric,
mean slowdown by flow size at high load (pHost §4), on the network of the
authors' simulator YAPS (dcflow.validation.YAPS_NETWORK: 144 hosts at
40 Gbps on a 9-leaf, 4-spine leaf-spine, 36 KB ports)."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from dcflow.repro import Entry, Series, register
from dcflow.repro.common import PFABRIC

PHOST = Series("pHost", {"protocol": {"name": "phost"}}, "phost")
#: "High load": the top of the loads pHost §4 varies.
LOAD = 0.8


def _base(quick: bool) -> dict[str, Any]:
    from dcflow.validation import YAPS_NETWORK

    return {"name": "phost-vs-pfabric", "seed": 1, "topology": dict(YAPS_NETWORK), "protocol": {"name": "phost"},
            "workload": {"pattern": "all_to_all", "arrival": "poisson", "load": LOAD,
                         "flows": 300 if quick else 3000, "size": {"dist": "cdf", "name": "web_search"}}}


def _analyze(entry: Entry, out: Path, quick: bool, opts: dict[str, Any]):
    import matplotlib.pyplot as plt
    import numpy as np

    import dcflow
    from dcflow.plot.style import series_style, wrapped
    from dcflow.validation import BUCKETS

    rows = []
    for s in entry.series:
        per_seed: dict[str, list[float]] = {b: [] for b, _, _ in BUCKETS}
        for seed in range(1, entry.seeds(quick) + 1):
            res = dcflow.run(entry.series_scenario(s, quick).with_overrides({"seed": seed}))
            res.save(out / "runs" / f"{s.slug}-seed{seed}")
            f = res.flows.to_pandas()
            done = f[f["fct_s"].notna()]
            for b, lo, hi in BUCKETS:
                sub = done[(done["size_bytes"] > lo) & (done["size_bytes"] <= hi)]
                if len(sub):
                    per_seed[b].append(float((sub["fct_s"] / sub["ideal_fct_s"]).mean()))
        for b, _, _ in BUCKETS:
            v = per_seed[b]
            rows.append({"series": s.label, "sizes": b, "slowdown_mean": float(np.mean(v)) if v else None,
                         "seeds": len(v), "paper": None})
    fig, ax = plt.subplots(figsize=(7.0, 3.8))
    width = 0.8 / len(entry.series)
    for i, s in enumerate(entry.series):
        ys = [next(r["slowdown_mean"] for r in rows if r["series"] == s.label and r["sizes"] == b) for b, _, _ in BUCKETS]
        xs = np.arange(len(BUCKETS)) + (i - (len(entry.series) - 1) / 2) * width
        ax.bar(xs, [np.nan if y is None else y for y in ys], width, label=s.label, color=series_style(i, 2)["color"])
    ax.set_xticks(range(len(BUCKETS)), [b for b, _, _ in BUCKETS])
    ax.set_xlabel("flow size")
    ax.set_ylabel("mean slowdown (FCT / ideal)")
    top = max([r["slowdown_mean"] or 0 for r in rows] + [1.0])
    ax.set_ylim(0, 1.3 * top)  # room above the bars for the legend
    ax.grid(True, axis="y", alpha=0.3)
    ax.legend(loc="upper center", ncol=len(entry.series))
    fig.suptitle(wrapped(f"{entry.paper} {entry.figure}: {entry.title}", 70), fontsize=9)
    fig.tight_layout()
    return rows, fig


register(Entry(
    name="phost-slowdown", paper="pHost", figure="§4 (slowdown by flow size)", kind="custom",
    title=f"pHost against pFabric, web-search at load {LOAD}",
    base=_base, series=[PHOST, PFABRIC], seeds=lambda quick: 1 if quick else 2, analyze=_analyze,
    notes="Both protocols with their papers' defaults on YAPS's leaf-spine; the paper reports pHost "
          "\"within 4%\" of pFabric for typical conditions (abstract); per-bucket numbers of the paper "
          "are not in this catalog (docs/fidelity-phost.md).",
))
