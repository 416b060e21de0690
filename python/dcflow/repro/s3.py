"""S3 §5 (papers/001): S3 against PDQ, D3 and TCP as §5.1 sets them up.

§5.1: PDQ with Early Start, Early Termination and Suppressed Probing and
K = 1.5; D3 with rate allocation and flow quenching; TCP NewReno with
RTO_min 10 ms. Sizes U[2 KB, 198 KB], deadlines exponential with mean 20 ms
and a 3 ms floor. §5.2-5.3: 1 Gbps, 100 KB of buffer per port, 160 us
end-to-end RTT; we use the 12-server two-level tree of §5.4 (Fig. 9) for
every query-aggregation figure too (25 us per switch: 150 us of switching
plus serialization across the core, ~160 us).
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

from dcflow.repro import Entry, Series, register
from dcflow.repro.common import TCP, mean_size, ms, pdq_tree
from dcflow.repro.examples import _worked_example
from dcflow.repro.pdq import PATTERNS

S3 = Series("S3", {"protocol": {"name": "s3"}}, "s3")
#: S3 with PDQ's Early Start at the K §5.1 gives PDQ (1.5). S3 describes no
#: Early Start, but its PDQ-derived machinery without it idles the link an
#: RTT per switch between flows; this series measures what that costs
#: (docs/fidelity-s3.md).
S3_ES = Series("S3 (ES, K=1.5)", {"protocol": {"name": "s3", "early_start_k": 1.5}}, "s3")
PDQ_S3 = Series("PDQ", {"protocol": {"name": "pdq", "variant": "full", "early_start_k": 1.5}}, "pdq")
#: PDQ without Early Start: the setting matched to the default S3 series
#: (the headline S3 has none, §5.1's PDQ has K = 1.5), so that Fig. 6 shows
#: S3 against PDQ with Early Start on both sides and on neither.
PDQ_NO_ES = Series("PDQ (no ES)", {"protocol": {"name": "pdq", "variant": "full", "early_start_k": 0.0}}, "pdq")
D3_S3 = Series("D3", {"protocol": {"name": "d3", "quenching": True}}, "d3")
S3_SERIES = [S3, S3_ES, PDQ_S3, D3_S3, TCP]
#: Fig. 6, S3's headline comparison: both matched settings.
S3_FIG6_SERIES = [S3, S3_ES, PDQ_S3, PDQ_NO_ES, D3_S3, TCP]

#: §5.6's sizes: 1-10 KB with probability 0.8, else 10-100 KB.
REAL_SIZES = Path(__file__).parent / "data" / "s3_real_sizes.csv"

#: Flows at 90% application throughput, S3's measure (Fig. 6c, 10a, 12a, 14a).
AT_90 = {"param": "workload.flows", "lo": 1, "hi": 128, "target": 0.9, "quick": {"hi": 32}}


def s3_tree(quick: bool, deadlines: bool = True) -> dict[str, Any]:
    """PDQ's 12-server tree with S3's 100 KB of buffer per port."""
    sc = pdq_tree(quick, deadlines)
    return {**sc, "name": "s3-query-aggregation", "topology": {**sc["topology"], "buffer": "100KB"}}


def _flows(n: int):
    return lambda q: {**s3_tree(q), "workload": {**s3_tree(q)["workload"], "flows": n}}


# ---------------------------------------------------------- §5.2: Fig. 6, 7
register(Entry(
    name="s3-fig6a", paper="S3", figure="Fig. 6a",
    title="application throughput vs number of flows (query aggregation)",
    base=s3_tree, series=S3_FIG6_SERIES, x_key="workload.flows",
    xs=lambda q: [10, 60] if q else [10, 20, 30, 40, 50, 60, 70, 80, 90, 100],
    xlabel="number of flows", y="app_throughput", y_scale=100, ylabel="application throughput (%)",
    seeds=lambda q: 2 if q else 10,
    notes="S3 §5.2.1: 'about 10% higher than that of PDQ when the number of flows is larger than 55'.",
))

register(Entry(
    name="s3-fig6b", paper="S3", figure="Fig. 6b",
    title="application throughput vs mean flow size (30 flows)",
    base=_flows(30), series=S3_FIG6_SERIES, x_key="workload.size", x_value=mean_size,
    xs=lambda q: [100, 300] if q else [50, 100, 150, 200, 250, 300],
    xlabel="mean flow size (KB)", y="app_throughput", y_scale=100, ylabel="application throughput (%)",
    seeds=lambda q: 2 if q else 10,
    notes="S3 §5.2.1: S3 above PDQ at every size, TCP lowest; sizes U[0.02m, 1.98m].",
))

register(Entry(
    name="s3-fig6c", paper="S3", figure="Fig. 6c", kind="capacity",
    title="flows supported at 90% application throughput vs mean deadline",
    base=s3_tree, series=S3_FIG6_SERIES, x_key="workload.deadline.mean", x_value=ms,
    xs=lambda q: [20, 60] if q else [20, 30, 40, 50, 60],
    xlabel="mean flow deadline (ms)", y="app_throughput",
    ylabel="number of flows at 90% application throughput", seeds=lambda q: 2 if q else 5,
    capacity=AT_90,
    # "S3 obtains about 10% improvement over PDQ ... when the mean deadline is 60ms".
    paper_ratios={("S3", 60): ("PDQ", 60, 1.1)},
    notes="S3 §5.2.1: D3 and TCP under 40 flows throughout; at 60 ms S3 ~10% over PDQ and >3x D3 "
          "(the paper's S3 point: 1.1 times our PDQ).",
))

register(Entry(
    name="s3-fig7c", paper="S3", figure="Fig. 7c",
    title="mean FCT of deadline-free flows vs number of flows",
    base=lambda q: s3_tree(q, deadlines=False), series=S3_SERIES, x_key="workload.flows",
    xs=lambda q: [10, 50] if q else [10, 20, 40, 60, 80, 100],
    xlabel="number of flows", y="fct_mean_s", y_scale=1e3, ylabel="mean flow completion time (ms)",
    seeds=lambda q: 2 if q else 10,
    notes="S3 §5.2.2: S3 and PDQ lowest, 'both degenerate into the SJF discipline'.",
))

def _first_finished_fct(entry: Entry, out: Path, quick: bool, opts: dict[str, Any]):
    """§5.2.2's method: "if PDQ or D3 only finishes 30 flows, we also choose
    the first 30 flows finished by S3 to calculate the FCT". Per flow count
    and seed, k = the fewest deadlines any series met; each series' FCT
    maximum, mean and minimum over its first k flows to finish (in time)
    among those that met their deadlines, averaged over seeds."""
    import matplotlib.pyplot as plt
    import numpy as np

    import dcflow
    from dcflow.plot.style import integer_ticks, legend_with_paper, paper_points, series_style, wrapped
    from dcflow.repro.figure import paper_relative

    stats: dict[tuple[str, int], list[tuple[float, float, float, int]]] = {}
    for n in entry.xs(quick):
        for seed in range(1, entry.seeds(quick) + 1):
            met = {}
            for s in entry.series:
                sc = entry.series_scenario(s, quick).with_overrides({"workload.flows": int(n), "seed": seed})
                fl = dcflow.run(sc).flows.to_pylist()
                met[s.label] = sorted((f["finish_s"], f["fct_s"]) for f in fl if f["met_deadline"])
            k = min(len(v) for v in met.values())
            if k == 0:
                continue
            for label, done in met.items():
                fct = [f for _, f in done[:k]]
                stats.setdefault((label, int(n)), []).append((max(fct), sum(fct) / k, min(fct), k))
    rows = []
    for s in entry.series:
        for n in map(int, entry.xs(quick)):
            if (s.label, n) in stats:
                hi, mean, lo, k = np.mean(np.array(stats[(s.label, n)]), axis=0)
                rows.append({"series": s.label, "flows": n, "k (first finished)": k, "fct_max_ms": hi * 1e3,
                             "fct_mean_ms": mean * 1e3, "fct_min_ms": lo * 1e3, "paper": None})
    paper_relative(entry.paper_ratios, rows, "flows", "fct_mean_ms")
    fig, ax = plt.subplots(figsize=(6.4, 3.8))
    xs_all = [int(n) for n in entry.xs(quick)]
    nudge = (max(xs_all) - min(xs_all) or 1) * 0.012  # the series' min-max bars side by side
    for i, s in enumerate(entry.series):
        st = series_style(i, len(entry.series))
        pts = [r for r in rows if r["series"] == s.label]
        xs = [r["flows"] + (i - (len(entry.series) - 1) / 2) * nudge for r in pts]
        mean = np.array([r["fct_mean_ms"] for r in pts])
        ax.errorbar(xs, mean, yerr=[mean - [r["fct_min_ms"] for r in pts], [r["fct_max_ms"] for r in pts] - mean],
                    capsize=3, label=s.label, **st)
        paper = [(x, r["paper"]) for x, r in zip(xs, pts) if r["paper"] is not None]
        paper_points(ax, [x for x, _ in paper], [v for _, v in paper], st)
    integer_ticks(ax, "x", xs_all)
    ax.set_ylim(bottom=0)
    ax.set_xlabel("number of flows")
    ax.set_ylabel("FCT of the first k finished flows (ms):\nmean, bars from min to max")
    ax.grid(True, alpha=0.3)
    legend_with_paper(ax, bool(entry.paper_ratios))
    fig.suptitle(wrapped(f"{entry.paper} {entry.figure}: {entry.title}"), fontsize=9)
    fig.tight_layout()
    return rows, fig


# §5.2.2: "When the number of flows is 80, the average FCT of S3 is about
# 20% lower than PDQ, and 7 times lower than D3".
for _fig, _other, _ratio in (("7a", PDQ_S3, 0.8), ("7b", D3_S3, 1 / 7)):
    register(Entry(
        name=f"s3-fig{_fig}", paper="S3", figure=f"Fig. {_fig}", kind="custom",
        title=f"FCT of S3 and {_other.label} at equal application throughput",
        base=s3_tree, series=[S3, S3_ES, _other], x_key="workload.flows",
        xs=lambda q: [20, 80] if q else [20, 40, 60, 80, 100], seeds=lambda q: 1 if q else 5,
        analyze=_first_finished_fct, paper_ratios={("S3", 80): (_other.label, 80, _ratio)},
        notes="S3 §5.2.2: FCT maximum, mean and minimum over the first k finished flows, k the "
              "fewest any series completed; at 80 flows S3's mean is ~20% below PDQ's and 7x below D3's "
              "(the paper's point: that ratio applied to our PDQ or D3 mean).",
    ))

# ------------------------------------------------------------ §5.3: Fig. 8
_FIG8_FLOWS = [{"src": 1, "dst": 0, "size": "1MB", "start": "0ms", "deadline": "10ms"}] + [
    {"src": 2 + i, "dst": 0, "size": f"{kb}KB", "start": "0ms", "deadline": f"{d}ms"}
    for i, (kb, d) in enumerate([(120, 10.5), (140, 11.0), (160, 11.5), (180, 12.0)])
]

register(Entry(
    name="s3-fig8", paper="S3", figure="Fig. 8", kind="custom",
    title="five flows on one bottleneck: deadlines met by PDQ and S3",
    base=lambda q: {"name": "s3-fig8", "seed": 1, "stop": "50ms",
                    "topology": {"kind": "star", "hosts": 6, "link_rate": "1Gbps", "buffer": "100KB"},
                    "protocol": {"name": "s3"}, "workload": {"pattern": "explicit"}, "flows": _FIG8_FLOWS},
    series=[PDQ_S3, S3, S3_ES],
    analyze=_worked_example([("deadlines met", "deadline_met", 1.0), ("last FCT (ms)", "fct_max_s", 1e3)],
                            {("PDQ", "deadlines met"): 3, ("S3", "deadlines met"): 4}),
    notes="S3 §5.3: 1 MB due at 10 ms and 120/140/160/180 KB due in [10, 12] ms (we space them "
          "0.5 ms apart); PDQ meets 3, S3 meets 4.",
))

# ------------------------------------------------- §5.4: Fig. 10, patterns
_S3_PATTERNS = [p for p in PATTERNS if p[0] in
                ("Aggregation", "Stride(1)", "Random Permutation", "Staggered Prob(0.3)", "Staggered Prob(0.7)")]


def _pattern_keys(x: float) -> dict[str, Any]:
    return _S3_PATTERNS[int(x) - 1][1]


register(Entry(
    name="s3-fig10", paper="S3", figure="Fig. 10a", kind="capacity", style="bar",
    title="flows at 90% application throughput per sending pattern",
    base=s3_tree, series=S3_SERIES, x_key="workload",
    x_value=lambda x: {**{k: v for k, v in s3_tree(True)["workload"].items() if k not in ("pattern", "receiver")},
                       **_pattern_keys(x)},
    x_name=lambda x: _S3_PATTERNS[int(x) - 1][0],
    xs=lambda q: [1, 5] if q else [1, 2, 3, 4, 5],
    xlabel="sending pattern", y="app_throughput", ylabel="number of flows at 90% application throughput",
    seeds=lambda q: 1 if q else 3, capacity=AT_90,
    notes="S3 §5.4 on the 12-server tree: aggregation, Stride(1), random permutation, Prob(0.3), "
          "Prob(0.7) (a host in the same rack with probability p); the paper normalizes to S3 and "
          "finds S3 best everywhere, most of all in aggregation.",
))

# ------------------------------------------------------ §5.5: Fig. 12, pods
register(Entry(
    name="s3-fig12", paper="S3", figure="Fig. 12a", kind="capacity",
    title="flows at 90% application throughput vs fat-tree pods",
    base=lambda q: {**s3_tree(q), "topology": {"kind": "fat_tree", "k": 4, "link_rate": "1Gbps",
                                               "buffer": "100KB", "prop_delay": "0.1us", "proc_delay": "25us"},
                    "workload": {**{k: v for k, v in s3_tree(q)["workload"].items() if k != "receiver"},
                                 "pattern": "all_to_all"}},
    series=S3_SERIES, x_key="topology.k", xs=lambda q: [4] if q else [4, 6, 8],
    xlabel="pods (k)", y="app_throughput", ylabel="number of flows at 90% application throughput",
    seeds=lambda q: 1 if q else 3,
    capacity={"param": "workload.flows", "lo": 1, "hi": 1024, "target": 0.9, "quick": {"hi": 64}},
    notes="S3 §5.5: k = 4-8 (16-128 servers); more flows meet deadlines as the fabric grows, "
          "S3 above PDQ, both far above D3 and TCP. The traffic pattern is not given: flows "
          "between random hosts, all starting at 0.",
))

# ------------------------------------------------ §5.6: Fig. 13, real sizes
def _real(mean_deadline: str):
    def base(q: bool) -> dict[str, Any]:
        sc = s3_tree(q)
        w = {**sc["workload"], "size": {"dist": "cdf", "file": str(REAL_SIZES)},
             "deadline": {"dist": "exponential", "mean": mean_deadline, "min": "2ms"}}
        return {**sc, "workload": w}
    return base


for _fig, _mean in (("13a", "5ms"), ("13c", "10ms")):
    register(Entry(
        name=f"s3-fig{_fig}", paper="S3", figure=f"Fig. {_fig}",
        title=f"application throughput vs flows, §5.6's sizes, deadlines mean {_mean}",
        base=_real(_mean), series=[S3, S3_ES, PDQ_S3], x_key="workload.flows",
        xs=lambda q: [20, 80] if q else [20, 40, 60, 80, 100],
        xlabel="number of flows", y="app_throughput", y_scale=100, ylabel="application throughput (%)",
        seeds=lambda q: 2 if q else 10,
        notes="S3 §5.6: 1-10 KB with p = 0.8, else 10-100 KB; deadlines exponential, 2 ms floor. "
              "S3 pulls ahead of PDQ beyond 40 flows (5 ms) or 50 flows (10 ms).",
    ))

for _fig, _mean in (("13b", "5ms"), ("13d", "10ms")):
    register(Entry(
        name=f"s3-fig{_fig}", paper="S3", figure=f"Fig. {_fig}", kind="custom",
        title=f"FCT at equal application throughput, §5.6's sizes, deadlines mean {_mean}",
        base=_real(_mean), series=[S3, S3_ES, PDQ_S3], x_key="workload.flows",
        xs=lambda q: [20, 80] if q else [20, 40, 60, 80, 100], seeds=lambda q: 1 if q else 5,
        analyze=_first_finished_fct,
        notes="S3 §5.6 with §5.2.2's method (first k finished flows): S3's FCT lower than PDQ's, "
              "apparently so beyond 40 flows at 5 ms.",
    ))

# --------------------------------------------------- §5.7: Fig. 14, loss
register(Entry(
    name="s3-fig14", paper="S3", figure="Fig. 14b",
    title="mean FCT of deadline-free flows vs packet loss rate",
    base=lambda q: {**s3_tree(q, deadlines=False),
                    "workload": {**s3_tree(q, deadlines=False)["workload"], "flows": 30}},
    series=S3_SERIES, x_key="faults.loss", x_value=lambda x: x / 100,
    xs=lambda q: [0, 3] if q else [0, 1, 2, 3],
    xlabel="packet loss rate in each direction (%)", y="fct_mean_s", y_scale=1e3,
    ylabel="mean flow completion time (ms)", seeds=lambda q: 2 if q else 10,
    paper_ratios={("TCP", 3): ("S3", 3, 40.0)},
    notes="S3 §5.7: loss barely hurts S3; 'TCP 40 times worse than S3 at 3% packet loss rate' "
          "(30 flows to host 0; the count is not given; the paper's TCP point is 40 times our S3).",
))
