"""The entries of ``dcflow repro``: settings from the papers (papers/*.txt).

Conventions: PDQ §5.1's default setting is the 12-server two-level tree
(4 racks x 3 hosts, 1 Gbps everywhere, 4 MB buffers, 0.1 us propagation and
25 us processing per hop), query aggregation to host 0, flow sizes U[2 KB,
198 KB], deadlines exponential with mean 20 ms and a 3 ms floor. D3 §6.1.1's
flow burst is one rack (aggregator + workers behind one ToR, so a star of 3
hosts; multiple workers per host, as in the paper), responses U[2 KB, 50 KB].
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

from dcflow.repro import Entry, Series, register

# ------------------------------------------------------------------ series
PDQ_FULL = Series("PDQ(Full)", {"protocol": {"name": "pdq", "variant": "full"}}, "pdq")
PDQ_ESET = Series("PDQ(ES+ET)", {"protocol": {"name": "pdq", "variant": "es_et"}}, "pdq")
PDQ_ES = Series("PDQ(ES)", {"protocol": {"name": "pdq", "variant": "es"}}, "pdq")
PDQ_BASIC = Series("PDQ(Basic)", {"protocol": {"name": "pdq", "variant": "basic"}}, "pdq")
D3 = Series("D3", {"protocol": {"name": "d3"}}, "d3")
RCP = Series("RCP", {"protocol": {"name": "rcp"}}, "rcp")
RCP_DC = Series("RCP_dc", {"protocol": {"name": "rcp"}}, "rcp")
TCP = Series("TCP", {"protocol": {"name": "tcp"}}, "tcp")
DCTCP = Series("DCTCP", {"protocol": {"name": "dctcp"}}, "dctcp")
D2TCP = Series("D2TCP", {"protocol": {"name": "d2tcp"}}, "d2tcp")
L2DCT = Series("L2DCT", {"protocol": {"name": "l2dct"}}, "l2dct")
PFABRIC = Series("pFabric", {"protocol": {"name": "pfabric"}}, "pfabric")
LPD_S = Series("LPD-s", {"protocol": {"name": "lpd", "variant": "s"}}, "lpd")


def fluid(label: str, discipline: str) -> Series:
    return Series(label, {"engine": "fluid", "protocol": {"name": discipline}}, f"fluid:{discipline}")


OPTIMAL = fluid("Optimal", "optimal")

PDQ_ALL = [PDQ_FULL, PDQ_ESET, PDQ_ES, PDQ_BASIC, D3, RCP, TCP, OPTIMAL]


# ---------------------------------------------------------------- settings
def pdq_tree(quick: bool, deadlines: bool = True) -> dict[str, Any]:
    w: dict[str, Any] = {
        "pattern": "aggregation",
        "receiver": 0,
        "flows": 10,
        "size": {"dist": "uniform", "min": "2KB", "max": "198KB"},
    }
    if deadlines:
        w["deadline"] = {"dist": "exponential", "mean": "20ms", "min": "3ms"}
    return {
        "name": "pdq-query-aggregation",
        "seed": 1,
        "stop": "2s",  # a bound, far beyond every deadline and FCT
        "topology": {"kind": "tree", "racks": 4, "hosts_per_rack": 3, "link_rate": "1Gbps",
                     "core_link_rate": "1Gbps", "buffer": "4MB", "prop_delay": "0.1us",
                     "proc_delay": "25us"},
        "protocol": {"name": "tcp"},
        "workload": w,
    }


def mean_size(kb: float) -> dict[str, Any]:
    """U[0.02 m, 1.98 m]: PDQ §5.1's [2 KB, 198 KB] scaled to mean m KB."""
    return {"dist": "uniform", "min": f"{0.02 * kb:g}KB", "max": f"{1.98 * kb:g}KB"}


def d3_rack(quick: bool, mean_ms: float = 30) -> dict[str, Any]:
    return {
        "name": "d3-flow-burst",
        "seed": 1,
        "stop": "1s",  # a bound, far beyond every deadline
        # One rack of D3's testbed: the aggregator and two worker hosts behind a
        # ToR. 100 KB buffer (the paper's hardware switch); 100 us per link +
        # 25 us per switch gives D3's ~500 us in-rack RTT.
        "topology": {"kind": "star", "hosts": 3, "link_rate": "1Gbps", "buffer": "100KB",
                     "prop_delay": "100us", "proc_delay": "25us"},
        "protocol": {"name": "d3"},
        "workload": {
            "pattern": "aggregation",
            "receiver": 0,
            "flows": 10,
            "size": {"dist": "uniform", "min": "2KB", "max": "50KB"},
            "deadline": {"dist": "exponential", "mean": f"{mean_ms:g}ms", "min": "3ms"},
        },
    }


def ms(x: float) -> str:
    return f"{x:g}ms"


BACKGROUND_PROBE = {"flows": [{"src": 1, "dst": 0, "size": "100MB", "start": "0ms"}]}
BACKGROUND_NEED = "workload: a background flow next to a generated pattern"

# ------------------------------------------------------------------- PDQ §5
register(Entry(
    name="pdq-fig3a", paper="PDQ", figure="Fig. 3a",
    title="application throughput vs number of flows (query aggregation, deadlines)",
    base=pdq_tree, series=PDQ_ALL, x_key="workload.flows",
    xs=lambda q: [4, 16] if q else [1, 5, 10, 15, 20, 25, 30, 35, 40],
    xlabel="number of flows", y="app_throughput", y_scale=100, ylabel="application throughput (%)",
    seeds=lambda q: 2 if q else 20,
    notes="PDQ §5.2.1: 12-server tree, sizes U[2KB,198KB], deadlines exp(20ms) >= 3ms. "
          "The text gives no per-point numbers.",
))

register(Entry(
    name="pdq-fig3b", paper="PDQ", figure="Fig. 3b",
    title="application throughput vs mean flow size (3 flows, deadlines)",
    base=lambda q: {**pdq_tree(q), "workload": {**pdq_tree(q)["workload"], "flows": 3}},
    series=PDQ_ALL, x_key="workload.size", x_value=mean_size,
    xs=lambda q: [100, 400] if q else [100, 200, 400, 600, 800, 1000],
    xlabel="average flow size (KB)", y="app_throughput", y_scale=100,
    ylabel="application throughput (%)", seeds=lambda q: 2 if q else 20,
    notes="PDQ §5.2.1: 3 concurrent flows; sizes U[0.02m, 1.98m] (the paper's [2,198] KB scaled).",
))

register(Entry(
    name="pdq-fig3c", paper="PDQ", figure="Fig. 3c", kind="capacity",
    title="flows supported at 99% application throughput vs mean deadline",
    base=pdq_tree, series=[PDQ_FULL, PDQ_ESET, D3, RCP, TCP],
    x_key="workload.deadline.mean", x_value=ms,
    xs=lambda q: [20, 40] if q else [20, 30, 40, 50, 60],
    xlabel="mean flow deadline (ms)", y="app_throughput",
    ylabel="number of flows at 99% application throughput",
    seeds=lambda q: 2 if q else 20,
    capacity={"param": "workload.flows", "lo": 1, "hi": 128, "target": 0.99, "quick": {"hi": 32}},
    notes="PDQ §5.2.1: binary search; 'PDQ can support >3 times more concurrent flows than D3'.",
))

register(Entry(
    name="pdq-fig3d", paper="PDQ", figure="Fig. 3d",
    title="mean flow completion time vs number of flows (no deadlines)",
    base=lambda q: pdq_tree(q, deadlines=False), series=[PDQ_FULL, D3, RCP, TCP, OPTIMAL],
    x_key="workload.flows", xs=lambda q: [1, 8] if q else [1, 5, 10, 15, 20, 25, 30],
    xlabel="number of flows", y="fct_mean_s", y_scale=1e3, ylabel="mean flow completion time (ms)",
    seeds=lambda q: 2 if q else 20,
    notes="PDQ §5.2.2: deadline-unconstrained flows, mean size 100 KB.",
))

register(Entry(
    name="pdq-fig3e", paper="PDQ", figure="Fig. 3e",
    title="mean flow completion time vs mean flow size (3 flows, no deadlines)",
    base=lambda q: {**pdq_tree(q, False), "workload": {**pdq_tree(q, False)["workload"], "flows": 3}},
    series=[PDQ_FULL, D3, RCP, TCP, OPTIMAL], x_key="workload.size", x_value=mean_size,
    xs=lambda q: [100, 1000] if q else [100, 250, 500, 1000, 2000, 4000],
    xlabel="average flow size (KB)", y="fct_mean_s", y_scale=1e3,
    ylabel="mean flow completion time (ms)", seeds=lambda q: 2 if q else 20,
))


def _single_bottleneck(hosts: int, flows: list[dict[str, Any]], stop: str) -> dict[str, Any]:
    return {
        "name": "pdq-single-bottleneck", "seed": 1, "stop": stop,
        "topology": {"kind": "star", "hosts": hosts, "link_rate": "1Gbps", "buffer": "4MB"},
        "protocol": {"name": "pdq", "variant": "full"},
        "workload": {"pattern": "explicit"},
        "flows": flows,
        "monitor": {"interval": "100us", "links": ["bottleneck"], "flows": True},
    }


def _timeseries_analyze(kind: str):
    def analyze(entry: Entry, out: Path, quick: bool, opts: dict[str, Any]):
        import numpy as np

        import dcflow
        from dcflow.plot.timeseries import timeseries_figure

        rows = []
        for s in entry.series:
            res = dcflow.run(entry.series_scenario(s, quick))
            res.save(out / "runs" / s.slug)
            ts = res.timeseries
            t = np.array(ts.column("time_s").to_pylist(), dtype=float)
            ser = ts.column("series").to_pylist()
            thr = np.array(ts.column("throughput_bps").to_pylist(), dtype=float)
            q = np.array([np.nan if v is None else v for v in ts.column("queue_bytes").to_pylist()], dtype=float)
            is_link = np.array([x == "link" for x in ser])
            finish = [v for v in res.flows.column("finish_s").to_pylist() if v is not None]
            if kind == "fig6":
                rows.append({"series": s.label, "metric": "all flows done (ms)",
                             "value": max(finish) * 1e3 if finish else None, "paper": 42.0})
                rows.append({"series": s.label, "metric": "ideal (ms)", "value": 40.0, "paper": 40.0})
                rows.append({"series": s.label, "metric": "packets dropped",
                             "value": res.summary.get("packets_dropped"), "paper": 0})
                rows.append({"series": s.label, "metric": "max queue (packets)",
                             "value": float(np.nanmax(q[is_link])) / 1500 if is_link.any() else None,
                             "paper": None})
            else:
                burst = is_link & (t > 0.010) & (t <= 0.019)
                rows.append({"series": s.label, "metric": "utilization 10-19 ms (%)",
                             "value": float(np.mean(thr[burst])) / 1e9 * 100 if burst.any() else None,
                             "paper": 91.7})
                rows.append({"series": s.label, "metric": "mean queue 10-19 ms (packets)",
                             "value": float(np.nanmean(q[burst])) / 1500 if burst.any() else None,
                             "paper": 7.5})
        fig = timeseries_figure(out / "runs" / entry.series[0].slug,
                                title=f"{entry.paper} {entry.figure}: {entry.title}")
        return rows, fig

    return analyze


def _fig6_flows(quick: bool) -> list[dict[str, Any]]:
    # Five ~1 MB flows from t=0; a smaller index is slightly smaller (more critical).
    return [{"src": i + 1, "dst": 0, "size": f"{1_000_000 + 1000 * i}B", "start": "0ms"} for i in range(5)]


def _fig7_flows(quick: bool) -> list[dict[str, Any]]:
    flows = [{"src": 1, "dst": 0, "size": "100MB", "start": "0ms"}]
    n = 10 if quick else 50
    for i in range(n):  # 20 KB with a small perturbation, all at 10 ms
        flows.append({"src": 2 + i % 5, "dst": 0, "size": f"{20_000 + 10 * i}B", "start": "10ms"})
    return flows


register(Entry(
    name="pdq-fig6", paper="PDQ", figure="Fig. 6", kind="custom",
    title="seamless flow switching: 5 x ~1 MB flows (rate, utilization, queue)",
    base=lambda q: _single_bottleneck(6, _fig6_flows(q), "60ms"), series=[PDQ_FULL],
    analyze=_timeseries_analyze("fig6"),
    notes="PDQ §5.4 scenario 1: all done at ~42 ms vs 40 ms ideal; no drops; tiny queue.",
))

register(Entry(
    name="pdq-fig7", paper="PDQ", figure="Fig. 7", kind="custom",
    title="robustness to bursts: 50 x 20 KB flows at 10 ms preempt a long flow",
    base=lambda q: _single_bottleneck(7, _fig7_flows(q), "30ms"), series=[PDQ_FULL],
    analyze=_timeseries_analyze("fig7"),
    notes="PDQ §5.4 scenario 2: 91.7% utilization during the preemption period, 5-10 packets queued.",
))

# -------------------------------------------------------------------- D3 §6
D3_SERIES = [D3, RCP_DC, TCP]

register(Entry(
    name="d3-fig9", paper="D3", figure="Fig. 9", kind="capacity", style="bar",
    title="concurrent senders supported at >99% application throughput",
    base=d3_rack, series=D3_SERIES, x_key="workload.deadline.mean", x_value=ms,
    xs=lambda q: [30] if q else [20, 30, 40],
    xlabel="mean deadline (ms): tight 20, moderate 30, lax 40", y="app_throughput",
    ylabel="number of senders at 99% app. throughput",
    seeds=lambda q: 2 if q else 20,
    capacity={"param": "workload.flows", "lo": 1, "hi": 64, "target": 0.99, "quick": {"hi": 24}},
    notes="D3 §6.1.1 (200 runs in the paper; 20 seeds here). TCP_pr (priority queuing) is not "
          "modelled. The text: D3 supports almost twice RCP_dc and 3-4x TCP.",
))

register(Entry(
    name="d3-fig10", paper="D3", figure="Fig. 10",
    title="application throughput vs concurrent senders (moderate deadlines)",
    base=d3_rack, series=D3_SERIES, x_key="workload.flows",
    xs=lambda q: [5, 20] if q else [2, 5, 10, 15, 20, 25, 30, 35, 40],
    xlabel="number of senders", y="app_throughput", y_scale=100,
    ylabel="application throughput (%)", seeds=lambda q: 2 if q else 20,
    notes="D3 §6.1.1: at 95% application throughput D3 supports 36 senders, RCP_dc 22, "
          "TCP_pr 10, TCP 8 (moderate deadlines).",
))


def _d3_fig11(entry: Entry, out: Path, quick: bool, opts: dict[str, Any]):
    import matplotlib.pyplot as plt
    import numpy as np

    from dcflow.sweep import Sweep

    xs = entry.xs(quick)
    rows = []
    fig, axes = plt.subplots(1, len(entry.series), figsize=(4 * len(entry.series), 3.8), sharey=True)
    paper = {"RCP_dc": (8.1, 75.0, 30.0), "D3": (1.0, 27.7, 9.0)}
    for ax, s in zip(np.atleast_1d(axes), entry.series):
        sw = Sweep(entry.series_scenario(s, quick), {entry.x_key: xs}, entry.seeds(quick),
                   name=f"{entry.name} {s.label}")
        res = sw.run(out / "sweeps" / s.slug, overwrite=True, **opts)
        fl = res.flows()
        dl = np.array([np.nan if v is None else v for v in fl.column("deadline_s").to_pylist()], float)
        fct = np.array([np.nan if v is None else v for v in fl.column("fct_s").to_pylist()], float)
        met = np.array([bool(v) for v in fl.column("met_deadline").to_pylist()])
        ax.scatter(dl * 1e3, fct * 1e3, s=4, alpha=0.5)
        lim = np.nanmax(np.concatenate([dl, fct])) * 1e3 if len(dl) else 1
        ax.plot([0, lim], [0, lim], "k--", lw=0.8)
        ax.set_title(s.label)
        ax.set_xlabel("deadline (ms)")
        miss = ~met
        over = (fct[miss] - dl[miss]) / dl[miss] * 100
        over = over[~np.isnan(over)]
        p = paper.get(s.label, (None, None, None))
        rows.append({"series": s.label, "flows": len(dl),
                     "missed (%)": float(miss.mean() * 100) if len(dl) else None, "paper missed (%)": p[0],
                     "overshoot p95 (%)": float(np.percentile(over, 95)) if len(over) else None,
                     "paper overshoot p95 (%)": p[1],
                     "overshoot mean (%)": float(over.mean()) if len(over) else None,
                     "paper overshoot mean (%)": p[2]})
    np.atleast_1d(axes)[0].set_ylabel("flow completion time (ms)")
    fig.suptitle(f"D3 Fig. 11: {entry.title}", fontsize=9)
    fig.tight_layout()
    return rows, fig


register(Entry(
    name="d3-fig11", paper="D3", figure="Fig. 11", kind="custom",
    title="flow completion time vs deadline (moderate deadlines, 14-30 senders)",
    base=d3_rack, series=D3_SERIES, x_key="workload.flows",
    xs=lambda q: [14, 30] if q else [14, 18, 22, 26, 30], seeds=lambda q: 1 if q else 5,
    analyze=_d3_fig11,
    notes="D3 §6.1.1: RCP_dc misses 8.1% of deadlines vs 1% for D3; missed flows overshoot by "
          "75% (p95) / 30% (mean) under RCP_dc and 27.7% / 9% under D3.",
))


def _d3_fig16(entry: Entry, out: Path, quick: bool, opts: dict[str, Any]):
    import matplotlib.pyplot as plt
    import numpy as np
    import pyarrow.parquet as pq

    from dcflow.sweep import Sweep

    xs = entry.xs(quick)
    rows = []
    fig, (a1, a2) = plt.subplots(1, 2, figsize=(9, 3.8))
    warm = 0.005
    for s in entry.series:
        sw = Sweep(entry.series_scenario(s, quick), {entry.x_key: xs}, entry.seeds(quick),
                   name=f"{entry.name} {s.label}")
        res = sw.run(out / "sweeps" / s.slug, overwrite=True, **opts)
        ts = pq.read_table(out / "sweeps" / s.slug / "timeseries")
        n = np.array(ts.column(entry.x_key).to_pylist())
        t = np.array(ts.column("time_s").to_pylist(), float)
        thr = np.array(ts.column("throughput_bps").to_pylist(), float)
        q = np.array([np.nan if v is None else v for v in ts.column("queue_bytes").to_pylist()], float)
        link = np.array([v == "link" for v in ts.column("series").to_pylist()])
        thr_m, q_mean, q_med, q_99 = [], [], [], []
        for x in xs:
            m = link & (n == x) & (t > warm)
            thr_m.append(float(np.mean(thr[m])) / 1e9)
            q_mean.append(float(np.nanmean(q[m])) / 1e3)
            q_med.append(float(np.nanmedian(q[m])) / 1e3)
            q_99.append(float(np.nanpercentile(q[m], 99)) / 1e3)
            isd3 = s.label == "D3"
            rows.append({"series": s.label, "long flows": x, "throughput (Gbps)": thr_m[-1],
                         "paper throughput (Gbps)": 0.95 if isd3 else None,
                         "queue mean (KB)": q_mean[-1], "paper queue mean (KB)": "4-6" if isd3 else None,
                         "queue median (KB)": q_med[-1], "paper queue median (KB)": 1.5 if isd3 else None,
                         "queue p99 (KB)": q_99[-1], "paper queue p99 (KB)": "16.5-48" if isd3 else None})
        a1.plot(xs, thr_m, marker="o", label=s.label)
        a2.plot(xs, q_mean, marker="o", label=f"{s.label} mean")
        a2.plot(xs, q_99, marker="^", ls=":", label=f"{s.label} p99")
    a1.set_xlabel("number of long flows")
    a1.set_ylabel("aggregate throughput (Gbps)")
    a1.set_ylim(0, 1.1)
    a2.set_xlabel("number of long flows")
    a2.set_ylabel("bottleneck queue (KB)")
    a2.set_yscale("symlog", linthresh=1)
    for a in (a1, a2):
        a.grid(True, alpha=0.3)
        a.legend(fontsize=7)
    fig.suptitle(f"D3 Fig. 16: {entry.title}", fontsize=9)
    fig.tight_layout()
    return rows, fig


register(Entry(
    name="d3-fig16", paper="D3", figure="Fig. 16", kind="custom",
    title="long flows to one host: aggregate throughput and queue",
    base=lambda q: {
        "name": "d3-long-flows", "seed": 1, "stop": "20ms" if q else "100ms",
        "topology": {"kind": "star", "hosts": 21, "link_rate": "1Gbps", "buffer": "4MB"},
        "protocol": {"name": "d3"},
        "workload": {"pattern": "aggregation", "receiver": 0, "flows": 2,
                     "size": {"dist": "fixed", "value": "1GB"}},
        "monitor": {"interval": "1ms", "links": ["bottleneck"], "flows": False},
    },
    series=[D3, TCP, DCTCP], x_key="workload.flows",
    xs=lambda q: [2, 10] if q else [2, 5, 10, 15, 20], seeds=lambda q: 1 if q else 3,
    analyze=_d3_fig16,
    notes="D3 §6.2: median/average throughput 0.95 Gbps; queue mean 4-6 KB, median 1.5 KB, "
          "p99 16.5-48 KB. Sampled every 1 ms after a 5 ms warm-up.",
))

register(Entry(
    name="d3-fig13", paper="D3", figure="Fig. 13",
    title="application throughput vs senders, 2.9 KB responses + one long background flow",
    base=lambda q: {**d3_rack(q), "stop": "150ms",
                    "workload": {**d3_rack(q)["workload"], "start": "20ms",
                                 "size": {"dist": "fixed", "value": "2.9KB"}},
                    # the long background flow (no deadline) fills the aggregator's link first
                    "flows": [{"src": 1, "dst": 0, "size": "1GB", "start": "0ms"}]},
    series=D3_SERIES, x_key="workload.flows", xs=lambda q: [10, 30] if q else [2, 5, 10, 15, 20, 25, 30, 35, 40],
    xlabel="number of senders", y="app_throughput", y_scale=100,
    ylabel="application throughput (%)", seeds=lambda q: 2 if q else 20,
    extra_needs=[(BACKGROUND_NEED, BACKGROUND_PROBE)],
    notes="D3 §6.1.1: TCP drops below 99% at 12 senders; D3, RCP_dc, TCP_pr meet all deadlines up to 40.",
))

register(Entry(
    name="d3-table1", paper="D3", figure="Table 1", kind="capacity",
    title="flow arrival rate supported at >99% application throughput (benchmark traffic)",
    base=lambda q: {**d3_rack(q), "stop": "0.3s" if q else "2.1s",
                    "workload": {**d3_rack(q)["workload"], "flows": None,
                                 "arrival": "poisson", "rate": 500,
                                 "duration": "0.2s" if q else "2s"},
                    # each of the two senders also has one long flow to the aggregator
                    "flows": [{"src": 1, "dst": 0, "size": "1GB", "start": "0ms"},
                              {"src": 2, "dst": 0, "size": "1GB", "start": "0ms"}]},
    series=D3_SERIES, x_key="workload.deadline.mean", x_value=ms, xs=lambda q: [30],
    xlabel="mean deadline (ms)", y="app_throughput", ylabel="flows/s at 99%", style="bar",
    seeds=lambda q: 2 if q else 10,
    capacity={"param": "workload.rate", "lo": 50, "hi": 4000, "target": 0.99, "integer": False,
              "tol": 50, "quick": {"hi": 2000, "tol": 400}},
    paper_values={("TCP", 30): 1100, ("RCP_dc", 30): 1300, ("D3", 30): 2000},
    extra_needs=[(BACKGROUND_NEED, BACKGROUND_PROBE)],
    notes="D3 §6.1.2: Poisson responses U[2KB,50KB] plus two long flows to the aggregator; "
          "TCP 100 flows/s (1100 with a reduced RTO), RCP_dc 1300, D3 2000.",
))

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

        import dcflow

        rows = []
        for s in entry.series:
            res = dcflow.run(entry.series_scenario(s, quick))
            res.save(out / "runs" / s.slug)
            for label, key, scale in metrics:
                v = res.summary.get(key)
                rows.append({"series": s.label, "metric": label,
                             "value": None if v is None else v * scale,
                             "paper": paper.get((s.label, label))})
        fig, axes = plt.subplots(1, len(metrics), figsize=(4 * len(metrics), 3.5))
        for ax, (label, _, _) in zip([axes] if len(metrics) == 1 else axes, metrics):
            sub = [r for r in rows if r["metric"] == label]
            xs = range(len(sub))
            ax.bar([x - 0.2 for x in xs], [r["value"] or 0 for r in sub], 0.4, label="dcflow")
            ax.bar([x + 0.2 for x in xs], [r["paper"] or 0 for r in sub], 0.4, label="paper")
            ax.set_xticks(list(xs), [r["series"] for r in sub])
            ax.set_ylabel(label)
            ax.legend(fontsize=7)
        fig.suptitle(f"{entry.paper} {entry.figure}: {entry.title}", fontsize=9)
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


def _lpd_table1(entry: Entry, out: Path, quick: bool, opts: dict[str, Any]):
    import matplotlib.pyplot as plt
    import numpy as np

    import dcflow

    paper = {"D2TCP": [1.53, 1.79, 3.64, 0.0], "DCTCP": [2.07, 2.14, 4.08, 0.0]}
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
        ax.bar(np.arange(len(left)) + (k - 0.5) * 0.4, left, 0.4, label=s.label)
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
    series=[D2TCP, DCTCP], analyze=_lpd_table1,
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
