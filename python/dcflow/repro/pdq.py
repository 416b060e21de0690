"""PDQ §5 (papers/000): query aggregation on the 12-server tree, flow switching."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from dcflow.repro import Entry, register
from dcflow.repro.common import (
    PDQ_FULL,
    PDQ_ESET,
    D3,
    RCP,
    TCP,
    OPTIMAL,
    PDQ_ALL,
    pdq_tree,
    mean_size,
    ms,
)

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
