"""MERP §5.1 and §6 (papers/003) on the packet engine: rate control on the
9-server tree (Fig. 5-9), route control MEMR on the k = 4 fat-tree (Fig. 10-12),
flow switching and incast on a star (Fig. 13, 14) and the ECMP example of
§5.1 (Fig. 3 / 4). Settings and every disagreement: docs/fidelity.md, "MERP (papers/003)".

§6.1: 1 Gbps, 100-packet buffers (150 KB at mtu 1500), 10 us per hop, 40-byte
headers, α = 0.999, Θ = 0.8 Gbps, Pareto sizes (mean 1500 KB or 150 KB,
headers included), Poisson arrivals. The paper gives neither the Pareto
shape nor the traffic pattern: shape 1.2 (pFabric's and HULL's Pareto
workloads use 1.05-1.2; a heavy tail is what starvation is about) and
all-to-all. Load = offered bytes over each host's access link.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

from dcflow.repro import Entry, Series, register
from dcflow.repro.common import PFABRIC

#: The Pareto shape we chose (the paper gives only the mean).
PARETO_SHAPE = 1.2

MERP = Series("MERP", {"protocol": {"name": "merp"}}, "merp")
TCP_DT = Series("TCP-DropTail", {"protocol": {"name": "tcp"}, "topology.queue": "droptail"}, "tcp")
RATE_SERIES = [MERP, PFABRIC, TCP_DT]

#: §6.2: MERP = MEMR + MERP rate control; ECMP and CONGA run MERP's rate
#: control too ("ECMP also uses MERP rate control component").
MEMR = Series("MERP (MEMR)", {"protocol": {"name": "merp"}, "topology.routing": "memr"}, "merp")
ECMP = Series("ECMP", {"protocol": {"name": "merp"}, "topology.routing": "ecmp"}, "merp")
CONGA = Series("CONGA", {"protocol": {"name": "merp"}, "topology.routing": "conga"}, "merp")
ROUTE_SERIES = [MEMR, ECMP, CONGA]


def _style(ax) -> None:
    """Grid and legend, as every MERP panel has them."""
    ax.grid(True, alpha=0.3)
    ax.legend(fontsize=7)


def _titled(entry: Entry, fig):
    """`fig` under the paper's figure name, laid out."""
    from dcflow.plot.style import wrapped

    fig.suptitle(wrapped(f"{entry.paper} {entry.figure}: {entry.title}"), fontsize=9)
    fig.tight_layout()
    return fig


def pareto(mean_kb: float) -> dict[str, Any]:
    return {"dist": "pareto", "mean": f"{mean_kb:g}KB", "shape": PARETO_SHAPE}


def merp_tree(mean_kb: float, flows_quick: int, flows_full: int):
    """§6.1's single tree: 3 racks x 3 servers under a root switch."""
    def base(quick: bool) -> dict[str, Any]:
        return {
            "name": f"merp-tree-{mean_kb:g}KB", "seed": 1, "stop": "60s",
            "topology": {"kind": "tree", "racks": 3, "hosts_per_rack": 3, "link_rate": "1Gbps",
                         "core_link_rate": "1Gbps", "buffer": "150KB", "mtu": 1500,
                         "prop_delay": "10us", "proc_delay": "0us"},
            "protocol": {"name": "merp"},
            "workload": {"pattern": "all_to_all", "arrival": "poisson", "load": 0.5,
                         "flows": flows_quick if quick else flows_full, "size": pareto(mean_kb)},
        }
    return base


def merp_fat_tree(mean_kb: float, flows_quick: int, flows_full: int):
    """§6.2's fat-tree: k = 4 (20 switches, 16 servers), 1 Gbps, 150 KB per port, 10 us per hop."""
    def base(quick: bool) -> dict[str, Any]:
        return {
            "name": f"merp-fat-tree-{mean_kb:g}KB", "seed": 1, "stop": "60s",
            "topology": {"kind": "fat_tree", "k": 4, "link_rate": "1Gbps", "buffer": "150KB",
                         "mtu": 1500, "prop_delay": "10us", "proc_delay": "0us", "routing": "memr"},
            "protocol": {"name": "merp"},
            "workload": {"pattern": "all_to_all", "arrival": "poisson", "load": 0.5,
                         "flows": flows_quick if quick else flows_full, "size": pareto(mean_kb)},
        }
    return base


# ------------------------------------------------------------- analysis
def _run(sc, out: Path | None = None):
    import dcflow

    res = dcflow.run(sc)
    if out is not None:
        res.save(out)
    return res


def _metrics_vs_x(metrics: list[tuple[str, str, float]], overrides_at=None):
    """Per series, x and seed: one run; the mean over seeds of each summary
    `key` (times `scale`). `overrides_at(entry, x, seed, quick)` gives the
    run's overrides (default: the entry's x_key = x and the seed)."""

    def analyze(entry: Entry, out: Path, quick: bool, opts: dict[str, Any]):
        import matplotlib.pyplot as plt

        from dcflow.plot.stats import mean_ci
        from dcflow.plot.style import band, legend_with_paper, metric_bounds, paper_points, series_style

        rows = []
        for s in entry.series:
            base = entry.series_scenario(s, quick)
            for x in entry.xs(quick):
                vals: dict[str, list[float]] = {k: [] for _, k, _ in metrics}
                done = []
                for seed in range(1, entry.seeds(quick) + 1):
                    ov = (overrides_at(entry, x, seed, quick) if overrides_at
                          else {entry.x_key: entry.x_value(x), "seed": seed})
                    res = _run(base.with_overrides(ov), out / "runs" / s.slug / f"x{x:g}-s{seed}")
                    summ = res.summary
                    done.append(f"{summ.get('flows_completed')}/{summ.get('flows_total')}")
                    for _, k, sc in metrics:
                        if summ.get(k) is not None:
                            vals[k].append(summ[k] * sc)
                for label, k, _ in metrics:
                    m, ci = mean_ci(vals[k])
                    rows.append({"series": s.label, "x": x, "metric": label, "value": m, "ci95": ci,
                                 "n": len(vals[k]), "completed": " ".join(done),
                                 "paper": entry.paper_values.get((s.label, label, x))})
        fig, axes = plt.subplots(1, len(metrics), figsize=(4.2 * len(metrics) + 1.6, 3.6), squeeze=False)
        for ax, (label, key, scale) in zip(axes[0], metrics):
            has_paper = False
            for i, s in enumerate(entry.series):
                st = series_style(i, len(entry.series))
                pts = [r for r in rows if r["series"] == s.label and r["metric"] == label and r["value"] is not None]
                ax.plot([r["x"] for r in pts], [r["value"] for r in pts], label=s.label, **st)
                band(ax, [r["x"] for r in pts], [r["value"] for r in pts], [r["ci95"] for r in pts],
                     metric_bounds(key, scale), st["color"])
                paper = [r for r in rows if r["series"] == s.label and r["metric"] == label and r["paper"] is not None]
                if paper:
                    paper_points(ax, [r["x"] for r in paper], [r["paper"] for r in paper], st)
                    has_paper = True
            ax.set_xlabel(entry.xlabel)
            ax.set_ylabel(label)
            ax.set_ylim(bottom=0)
            ax.grid(True, alpha=0.3)
            legend_with_paper(ax, has_paper)
        return rows, _titled(entry, fig)

    return analyze


def _fct_cdf(load: float, overrides_at=None):
    """FCT percentiles per series at one load (seeds pooled) and the CDF."""

    def analyze(entry: Entry, out: Path, quick: bool, opts: dict[str, Any]):
        import matplotlib.pyplot as plt
        import numpy as np

        from dcflow.plot.style import line_style

        rows = []
        tails: list[float] = []
        fig, ax = plt.subplots(figsize=(5.5, 3.8))
        for s in entry.series:
            base = entry.series_scenario(s, quick)
            fct: list[float] = []
            n = done = 0
            for seed in range(1, entry.seeds(quick) + 1):
                ov = (overrides_at(entry, load, seed, quick) if overrides_at
                      else {"workload.load": load, "seed": seed})
                res = _run(base.with_overrides(ov), out / "runs" / s.slug / f"s{seed}")
                col = res.flows.column("fct_s").to_pylist()
                n += len(col)
                fct += [v for v in col if v is not None]
                done += sum(v is not None for v in col)
            a = np.sort(np.array(fct)) * 1e3
            st = line_style(entry.series.index(s), len(entry.series))
            for p in (50, 90, 99, 99.9):
                rows.append({"series": s.label, "load": load, "metric": f"p{p:g} FCT (ms)",
                             "value": float(np.percentile(a, p)) if len(a) else None,
                             "completed": f"{done}/{n}"})
            rows.append({"series": s.label, "load": load, "metric": "max FCT (ms)",
                         "value": float(a[-1]) if len(a) else None, "completed": f"{done}/{n}"})
            if len(a):
                ax.step(a, np.arange(1, len(a) + 1) / len(a), where="post", label=s.label, **st)
                tails.append(np.percentile(a, 90))
        from dcflow.plot import plain_log_axis

        if tails:  # the tail the figure is about: from the lowest 90th percentile
            ax.set_xlim(left=0.8 * min(tails))
        plain_log_axis(ax, "x")
        ax.set_xlabel("flow completion time (ms)")
        ax.set_ylabel("CDF")
        ax.set_ylim(0.9, 1.0005)
        _style(ax)
        return rows, _titled(entry, fig)

    return analyze


_LOADS = lambda q: [0.2, 0.8] if q else [0.1, 0.2, 0.3, 0.4, 0.5, 0.6, 0.7, 0.8]  # noqa: E731
_SEEDS = lambda q: 1 if q else 3  # noqa: E731
_RATE_NOTES = (f"MERP §6.1 on the 9-server tree (3 racks x 3), 1 Gbps, 150 KB (100-packet) buffers, "
               f"10 us per hop, all-to-all Poisson at the load, Pareto sizes shape {PARETO_SHAPE} "
               f"(our choice). ")

# ------------------------------------------------- §6.1.1-2: Fig. 5, 6, 7
_FIG56 = [("max expansion ratio", "slowdown_max", 1.0), ("mean expansion ratio", "slowdown_mean", 1.0),
          ("p99.9 FCT (ms)", "fct_p999_s", 1e3)]
for _fig, _mean, _nq, _nf, _paper, _text in (
        ("5", 1500, 40, 600, {}, "at load 0.8 the max expansion ratio ~48% below pFabric's, p99.9 FCT >12% "
                                 "below; every flow within 10x its optimal FCT"),
        # §6.1.2: "the maximum expansion ratio is about 15" (MERP, load 80%).
        ("6", 150, 150, 2000, {("MERP", "max expansion ratio", 0.8): 15.0},
         "at load 0.8 the max expansion ratio >50% below pFabric's and about 15; p99.9 FCT >30% below pFabric's")):
    register(Entry(
        name=f"merp-fig{_fig}", paper="MERP", figure=f"Fig. {_fig}", kind="custom",
        title=f"expansion ratio and p99.9 FCT vs load (Pareto mean {_mean} KB)",
        base=merp_tree(_mean, _nq, _nf), series=RATE_SERIES, x_key="workload.load", xs=_LOADS,
        xlabel="load", seeds=_SEEDS, analyze=_metrics_vs_x(_FIG56), paper_values=_paper,
        notes=_RATE_NOTES + f"Mean {_mean} KB. The text: {_text}.",
    ))

register(Entry(
    name="merp-fig7", paper="MERP", figure="Fig. 7", kind="custom",
    title="mean FCT vs load (Pareto mean 1500 KB)",
    base=merp_tree(1500, 40, 600), series=RATE_SERIES, x_key="workload.load", xs=_LOADS,
    xlabel="load", seeds=_SEEDS, analyze=_metrics_vs_x([("mean FCT (ms)", "fct_mean_s", 1e3)]),
    notes=_RATE_NOTES + "The text: MERP's mean FCT about that of pFabric (8% above at load 0.8), "
                        "TCP-DropTail's much larger. Fig. 7 follows Fig. 5 (mean 1500 KB).",
))

# ----------------------------------------------------- §6.1.3: Fig. 8, 9
_ALPHAS = [0.9, 0.99, 0.999, 0.9999]
_THETAS = [0.5, 0.6, 0.7, 0.8, 0.9]
_TAIL = [("p99.9 FCT (ms)", "fct_p999_s", 1e3), ("max expansion ratio", "slowdown_max", 1.0)]
register(Entry(
    name="merp-fig8", paper="MERP", figure="Fig. 8", kind="custom",
    title="impact of α: tail FCT vs load (Pareto mean 150 KB)",
    base=merp_tree(150, 150, 2000),
    series=[Series(f"α = {a:g}", {"protocol": {"name": "merp", "alpha": a}}, "merp")
            for a in _ALPHAS],
    x_key="workload.load", xs=_LOADS, xlabel="load", seeds=_SEEDS, analyze=_metrics_vs_x(_TAIL),
    notes=_RATE_NOTES + "The text names 4 values of α and 0.9999; the legend is in the figure "
                        "image: 0.9, 0.99, 0.999, 0.9999 (ours). Paper: equal at light load, a larger α "
                        "a smaller tail FCT at high load; buffer overflows frequent at 0.9999.",
))

register(Entry(
    name="merp-fig9", paper="MERP", figure="Fig. 9", kind="custom",
    title="impact of Θ: tail FCT vs load (Pareto mean 150 KB)",
    base=merp_tree(150, 150, 2000),
    series=[Series(f"Θ = {t:g} Gbps", {"protocol": {"name": "merp", "theta": f"{t:g}Gbps"}}, "merp")
            for t in _THETAS],
    x_key="workload.load", xs=_LOADS, xlabel="load", seeds=_SEEDS, analyze=_metrics_vs_x(_TAIL),
    notes=_RATE_NOTES + "Θ values are ours, within §4.4's α/2·C <= Θ <= α·C. Paper: equal at light "
                        "load, a small Θ a longer tail FCT at high load; differences small.",
))

# ------------------------------------------------- §6.2.1: Fig. 10, 11
_ROUTE_NOTES = ("MERP §6.2 on the k = 4 fat-tree (16 servers), 1 Gbps, 150 KB per port, 10 us per hop, "
                f"Poisson arrivals, Pareto shape {PARETO_SHAPE}, mean 1500 KB (§6.2.1 gives no mean; "
                "§6.2.2's). All three series run MERP's rate control; they differ in routing: memr, "
                "ecmp (per-flow hash), conga (dcflow's CONGA: flowlets on the least congested uplink). ")
register(Entry(
    name="merp-fig10", paper="MERP", figure="Fig. 10", kind="custom",
    title="MEMR vs ECMP vs CONGA: mean FCT and mean expansion ratio vs load",
    base=merp_fat_tree(1500, 40, 600), series=ROUTE_SERIES, x_key="workload.load", xs=_LOADS,
    xlabel="load", seeds=_SEEDS,
    analyze=_metrics_vs_x([("mean FCT (ms)", "fct_mean_s", 1e3),
                           ("mean expansion ratio", "slowdown_mean", 1.0)]),
    notes=_ROUTE_NOTES + "All-to-all. Paper: MERP's mean FCT at least 20% below ECMP's and CONGA's, mean expansion "
                         "ratio about 75% below; CONGA worst.",
))

register(Entry(
    name="merp-fig11", paper="MERP", figure="Fig. 11", kind="custom",
    title="FCT CDF (tail) at load 0.6: MEMR vs ECMP vs CONGA",
    base=merp_fat_tree(1500, 40, 600), series=ROUTE_SERIES, seeds=_SEEDS, analyze=_fct_cdf(0.6),
    notes=_ROUTE_NOTES + "All-to-all. Paper: more than 99% of MERP's flows within 100 ms; more than 1% of ECMP's "
                         "and CONGA's above 200 ms.",
))

# -------------------------------------------------------- §6.2.2: Fig. 12
#: The failed link: aggregation switch agg0_0 to ToR edge0_0 (pod 0).
FAILED = "agg0_0<->edge0_0"
POD0 = [0, 1, 2, 3]  # fat_tree k = 4: hosts 0-3 are pod 0 (edge0_0: 0, 1; edge0_1: 2, 3)


def _into_pod0(n: int, load: float, seed: int) -> list[dict[str, Any]]:
    """`n` flows, Poisson arrivals, each from a random host outside pod 0 to a
    random host of pod 0; `load` = offered bytes over pod 0's 4 access links.
    Pareto(shape, mean 1500 KB) sizes. dcflow has no pattern that targets
    a pod, so the flows are drawn here (explicit workload)."""
    import numpy as np

    rng = np.random.default_rng(1000 + seed)
    mean = 1500e3
    xm = mean * (PARETO_SHAPE - 1) / PARETO_SHAPE
    rate = load * len(POD0) * 1e9 / (8 * mean)  # flows per second
    t = np.cumsum(rng.exponential(1 / rate, n))
    sizes = xm * (1 - rng.random(n)) ** (-1 / PARETO_SHAPE)
    src = rng.integers(4, 16, n)
    dst = rng.choice(POD0, n)
    return [{"src": int(a), "dst": int(b), "size": f"{max(int(sz), 1)}B", "start": f"{ti * 1e6:.3f}us"}
            for a, b, sz, ti in zip(src, dst, sizes, t)]


def _fig12_base(quick: bool) -> dict[str, Any]:
    sc = merp_fat_tree(1500, 40, 600)(quick)
    return {**sc, "name": "merp-fig12", "workload": {"pattern": "explicit"},
            "flows": _into_pod0(4, 0.5, 1),
            "faults": {"convergence": "0s", "events": [{"at": "0s", "link": FAILED, "state": "down"}]}}


def _fig12_overrides(entry: Entry, x: float, seed: int, quick: bool) -> dict[str, Any]:
    return {"flows": _into_pod0(40 if quick else 600, x, seed), "seed": seed}


register(Entry(
    name="merp-fig12", paper="MERP", figure="Fig. 12", kind="custom",
    title=f"link {FAILED} down: mean FCT and p99 FCT vs load, traffic into pod 0",
    base=_fig12_base, series=ROUTE_SERIES, x_key="load", xs=_LOADS, xlabel="load (pod 0's access links)",
    seeds=_SEEDS,
    analyze=_metrics_vs_x([("mean FCT (ms)", "fct_mean_s", 1e3), ("p99 FCT (ms)", "fct_p99_s", 1e3)],
                          overrides_at=_fig12_overrides),
    notes=_ROUTE_NOTES + f"§6.2.2: {FAILED} removed at 0 s (convergence 0); flows from random hosts "
                         "outside pod 0 to random hosts of pod 0 (drawn in Python: no pattern targets a "
                         "pod). Above load 0.5 edge0_0's one remaining uplink is overloaded (2 hosts' "
                         "share over 1 Gbps). Paper: MERP's mean FCT lowest at every load.",
))

register(Entry(
    name="merp-fig12b", paper="MERP", figure="Fig. 12b", kind="custom",
    title=f"link {FAILED} down: FCT CDF (tail) at load 0.6, traffic into pod 0",
    base=_fig12_base, series=ROUTE_SERIES, seeds=_SEEDS,
    analyze=_fct_cdf(0.6, overrides_at=_fig12_overrides),
    notes=_ROUTE_NOTES + f"As merp-fig12 ({FAILED} down, flows from outside pod 0 into pod 0), "
                         "at load 0.6; FCT percentiles over the seeds' flows pooled.",
))

# ------------------------------------------------------ §6.3: Fig. 13, 14
_STAR = {"kind": "star", "link_rate": "1Gbps", "buffer": "150KB", "mtu": 1500,
         "prop_delay": "10us", "proc_delay": "0us"}
FIG13_SIZE = "2920000B"  # 2,000 packets of 1,460 payload bytes


def _fig13_base(quick: bool) -> dict[str, Any]:
    return {"name": "merp-fig13", "seed": 1, "stop": "1s", "topology": {**_STAR, "hosts": 4},
            "protocol": {"name": "merp"}, "workload": {"pattern": "explicit"},
            "flows": [{"src": i, "dst": 0, "size": FIG13_SIZE, "start": "0ms"} for i in (1, 2, 3)],
            "monitor": {"interval": "1ms", "links": ["bottleneck"], "flows": True}}


def _each_run(entry: Entry, out: Path, quick: bool):
    """Each series' run of a single-run entry, saved under out/runs/SLUG."""
    for s in entry.series:
        yield s, _run(entry.series_scenario(s, quick), out / "runs" / s.slug)


def _first_run_timeseries(entry: Entry, out: Path):
    """The time series of the entry's first series, titled after the paper's figure."""
    from dcflow.plot.timeseries import timeseries_figure

    return timeseries_figure(out / "runs" / entry.series[0].slug, title=f"{entry.paper} {entry.figure}: {entry.title}")


def _fig13(entry: Entry, out: Path, quick: bool, opts: dict[str, Any]):
    rows = []
    for s, res in _each_run(entry, out, quick):
        fin = sorted(v for v in res.flows.column("finish_s").to_pylist() if v is not None)
        rows.append({"series": s.label, "metric": "all three done (ms)",
                     "value": fin[-1] * 1e3 if len(fin) == 3 else None, "paper": 72.25})
        rows.append({"series": s.label, "metric": "ideal (ms)", "value": 72.0, "paper": 72.0})
        for i, f in enumerate(fin):
            rows.append({"series": s.label, "metric": f"flow {i + 1} done (ms)", "value": f * 1e3,
                         "paper": 24.0 * (i + 1)})
    from dcflow.plot.timeseries import panel, paper_time

    fig = _first_run_timeseries(entry, out)
    paper_time(panel(fig, "flow throughput"), 72.25, "all three done at 72.25 ms")
    return rows, fig


register(Entry(
    name="merp-fig13", paper="MERP", figure="Fig. 13", kind="custom",
    title="seamless flow switching: 3 x 2,000 packets into one receiver",
    base=_fig13_base, series=[MERP], analyze=_fig13,
    notes="MERP §6.3.1: star, 10 us per hop, 3 flows of 2,000 packets from 0 ms; ideal "
          "(2000 x 1500 x 3 B) / 1 Gbps = 72 ms, paper 72.25 ms. The 'paper' column of each "
          "flow's finish is the ideal one-at-a-time order (24, 48, 72 ms).",
))


def _fig14_base(quick: bool) -> dict[str, Any]:
    flows = [{"src": 1, "dst": 0, "size": "20MB", "start": "0ms"}]
    flows += [{"src": 2 + i % 7, "dst": 0, "size": "29200B", "start": "10ms"} for i in range(30)]
    return {"name": "merp-fig14", "seed": 1, "stop": "1s", "topology": {**_STAR, "hosts": 9},
            "protocol": {"name": "merp"}, "workload": {"pattern": "explicit"}, "flows": flows,
            "monitor": {"interval": "1ms", "links": ["bottleneck"]}}


def _fig14(entry: Entry, out: Path, quick: bool, opts: dict[str, Any]):
    import numpy as np

    rows = []
    for s, res in _each_run(entry, out, quick):
        ts = res.timeseries
        t = np.array(ts.column("time_s").to_pylist(), dtype=float)
        link = np.array([x == "link" for x in ts.column("series").to_pylist()])
        thr = np.array(ts.column("throughput_bps").to_pylist(), dtype=float)
        # Samples are the 1 ms intervals ending at time_s: (10, 11] ... (17, 18].
        busy = link & (t > 0.0105) & (t < 0.0185)
        fct = [v for v, sz in zip(res.flows.column("fct_s").to_pylist(),
                                  res.flows.column("size_bytes").to_pylist()) if sz == 29200 and v is not None]
        rows.append({"series": s.label, "metric": "utilization 10-18 ms (%)",
                     "value": float(thr[busy].mean()) / 1e9 * 100 if busy.any() else None, "paper": 91.8})
        rows.append({"series": s.label, "metric": "short flows completed",
                     "value": len(fct), "paper": 30})
        rows.append({"series": s.label, "metric": "last short flow done (ms after 10 ms)",
                     "value": max(fct) * 1e3 if fct else None, "paper": None})
    from dcflow.plot.timeseries import panel, paper_level

    fig = _first_run_timeseries(entry, out)
    paper_level(panel(fig, "link utilization"), 91.8, 10, 18, "91.8% over 10-18 ms")
    return rows, fig


register(Entry(
    name="merp-fig14", paper="MERP", figure="Fig. 14", kind="custom",
    title="incast: a long flow and 30 x 20 packets at 10 ms; utilization 10-18 ms",
    base=_fig14_base,
    series=[Series("MERP (α = 0.999)", {"protocol": {"name": "merp", "alpha": 0.999}}, "merp"),
            Series("MERP (α = 0.99)", {"protocol": {"name": "merp", "alpha": 0.99}}, "merp")],
    analyze=_fig14,
    notes="MERP §6.3.2: 8 senders (a 20 MB flow from 0 ms, 30 flows of 20 packets from 7 others "
          "at 10 ms), 1 ms monitor. Paper 91.8% over 10-18 ms; α = 0.999 is the paper's, "
          "α = 0.99 shows what a larger DET share recovers (docs/fidelity.md, 'MERP (papers/003)').",
))

# ------------------------------------------------------ §5.1: Fig. 3 / 4
#: One 100 KB flow (0.8 ms at 1 Gbps) from H1 every SPACING_MS: H1 offers 0.8 Gbps.
SPACING_MS = 1.0
_FIG3_NODES = ([{"name": h, "kind": "host"} for h in ("H1", "H2", "H3", "H4")]
               + [{"name": s, "kind": "switch"} for s in ("S1", "S2", "S3", "S4")])
_FIG3_LINKS = [{"a": "H1", "b": "S3"}, {"a": "H2", "b": "S3"}, {"a": "S3", "b": "S1"},
               {"a": "S3", "b": "S2"}, {"a": "S1", "b": "S4"}, {"a": "S2", "b": "S4"},
               {"a": "S4", "b": "H3"}, {"a": "S4", "b": "H4"}]


def _fig3_base(quick: bool) -> dict[str, Any]:
    """H1 (host 0) sends `total` bytes to H3 (host 2) as back-to-back short
    flows, H2 (host 1) the same in one long flow to H4 (host 3). The paper
    sends 1 GB each (8 s at 1 Gbps); we send 20 MB (quick) or 100 MB."""
    total = 20_000_000 if quick else 100_000_000
    short = 100_000  # 0.8 ms each at 1 Gbps
    n = total // short
    flows = [{"src": 1, "dst": 3, "size": f"{total}B", "start": "0ms"}]
    flows += [{"src": 0, "dst": 2, "size": f"{short}B", "start": f"{i * SPACING_MS:g}ms"} for i in range(n)]
    return {"name": "merp-fig3", "seed": 1, "stop": "10s",
            "topology": {"kind": "custom", "nodes": _FIG3_NODES, "links": _FIG3_LINKS,
                         "link_rate": "1Gbps", "buffer": "150KB", "mtu": 1500,
                         "prop_delay": "10us", "proc_delay": "0us", "routing": "ecmp"},
            "protocol": {"name": "merp"}, "workload": {"pattern": "explicit"}, "flows": flows,
            "monitor": {"interval": "5ms", "links": ["S3->S1", "S3->S2"]}}


def _fig3(entry: Entry, out: Path, quick: bool, opts: dict[str, Any]):
    import matplotlib.pyplot as plt
    import numpy as np

    rows = []
    fig, axes = plt.subplots(1, len(entry.series), figsize=(5 * len(entry.series), 3.4), squeeze=False)
    for ax, s in zip(axes[0], entry.series):
        res = _run(entry.series_scenario(s, quick), out / "runs" / s.slug)
        ts = res.timeseries
        names = ts.column("name").to_pylist()
        t = np.array(ts.column("time_s").to_pylist(), dtype=float)
        thr = np.array(ts.column("throughput_bps").to_pylist(), dtype=float) / 1e9 * 100
        fin = [v for v in res.flows.column("finish_s").to_pylist() if v is not None]
        fl = res.flows.to_pylist()
        long_fct = next((f["fct_s"] for f in fl if f["size_bytes"] > 1_000_000), None)
        short = [f["fct_s"] for f in fl if f["size_bytes"] <= 1_000_000 and f["fct_s"] is not None]
        for i, link in enumerate(("S3->S1", "S3->S2")):
            m = np.array([n == link for n in names])
            ax.plot(t[m] * 1e3, thr[m], label=f"link {i + 1} ({link})")
            u = thr[m][t[m] <= max(fin)] if fin else thr[m]
            rows.append({"series": s.label, "metric": f"link {i + 1} {link} utilization mean (%)",
                         "value": float(u.mean()) if len(u) else None})
            rows.append({"series": s.label, "metric": f"link {i + 1} {link} utilization std (%)",
                         "value": float(u.std()) if len(u) else None})
        rows.append({"series": s.label, "metric": "long flow FCT (ms)",
                     "value": None if long_fct is None else long_fct * 1e3})
        rows.append({"series": s.label, "metric": "short flow mean FCT (ms)",
                     "value": float(np.mean(short)) * 1e3 if short else None})
        rows.append({"series": s.label, "metric": "all done (ms)", "value": max(fin) * 1e3 if fin else None})
        ax.set_title(s.label, fontsize=9)
        ax.set_xlabel("time (ms)")
        ax.set_ylabel("link utilization (%)")
        _style(ax)
    return rows, _titled(entry, fig)


register(Entry(
    name="merp-fig4", paper="MERP", figure="Fig. 3 / 4", kind="custom",
    title="ECMP's limitation: S3-S1 and S3-S2 utilization, short flows H1->H3, one long H2->H4",
    base=_fig3_base,
    series=[Series("ECMP", {"topology.routing": "ecmp"}, "merp"),
            Series("MEMR", {"topology.routing": "memr"}, "merp")],
    analyze=_fig3,
    notes="MERP §5.1: H1, H2 under S3; S3 to S4 through S1 or S2; H3, H4 under S4. H1 sends many "
          "100 KB flows (one every 1 ms) to H3, H2 one long flow to H4 (20 MB quick, 100 MB "
          "full; the paper 1 GB each). MERP rate control on both; the paper's Fig. 4 is ECMP only "
          "(link 2 stable and high, link 1 varying).",
))
