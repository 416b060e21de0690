"""PDQ §5 (papers/000): query aggregation on the 12-server tree, flow switching."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from dcflow.repro import Entry, Series, register
from dcflow.repro.common import (
    PDQ_FULL,
    PDQ_ESET,
    D3_PDQ,
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

#: Early Termination's condition (2) on the bytes still to send, not the
#: bytes not yet acknowledged (`et_remaining`; docs/fidelity-pdq.md, "Fig. 3c:
#: what packet PDQ loses"): a reading, shown beside the literal one.
PDQ_FULL_UNSENT = Series("PDQ(Full), ET on unsent bytes",
                         {"protocol": {"name": "pdq", "variant": "full", "et_remaining": "unsent"}}, "pdq")

register(Entry(
    name="pdq-fig3c", paper="PDQ", figure="Fig. 3c", kind="capacity",
    title="flows supported at 99% application throughput vs mean deadline",
    base=pdq_tree, series=[PDQ_FULL, PDQ_FULL_UNSENT, PDQ_ESET, D3_PDQ, RCP, TCP],
    x_key="workload.deadline.mean", x_value=ms,
    xs=lambda q: [20, 40] if q else [20, 30, 40, 50, 60],
    xlabel="mean flow deadline (ms)", y="app_throughput",
    ylabel="number of flows at 99% application throughput",
    # 100 seeds: every curve lies within a point of 99% over a wide range of
    # flow counts, so with 10-20 seeds one missed flow moves the answer by
    # several flows (docs/fidelity-pdq.md, "Fig. 3c: what packet PDQ loses").
    seeds=lambda q: 2 if q else 100,
    capacity={"param": "workload.flows", "lo": 1, "hi": 128, "target": 0.99, "quick": {"hi": 32}},
    notes="PDQ §5.2.1: binary search; 'PDQ can support >3 times more concurrent flows than D3'.",
))

register(Entry(
    name="pdq-fig3d", paper="PDQ", figure="Fig. 3d",
    title="mean flow completion time vs number of flows (no deadlines)",
    base=lambda q: pdq_tree(q, deadlines=False), series=[PDQ_FULL, D3_PDQ, RCP, TCP, OPTIMAL],
    x_key="workload.flows", xs=lambda q: [1, 8] if q else [1, 5, 10, 15, 20, 25, 30],
    xlabel="number of flows", y="fct_mean_s", y_scale=1e3, ylabel="mean flow completion time (ms)",
    seeds=lambda q: 2 if q else 20,
    notes="PDQ §5.2.2: deadline-unconstrained flows, mean size 100 KB.",
))

register(Entry(
    name="pdq-fig3e", paper="PDQ", figure="Fig. 3e",
    title="mean flow completion time vs mean flow size (3 flows, no deadlines)",
    base=lambda q: {**pdq_tree(q, False), "workload": {**pdq_tree(q, False)["workload"], "flows": 3}},
    series=[PDQ_FULL, D3_PDQ, RCP, TCP, OPTIMAL], x_key="workload.size", x_value=mean_size,
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
        from dcflow.plot.timeseries import panel, paper_level, paper_time, timeseries_figure

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
        if kind == "fig6":
            paper_time(panel(fig, "flow throughput"), 42.0, "all done at ~42 ms")
        else:
            paper_level(panel(fig, "link utilization"), 91.7, 10, 19, "91.7% over 10-19 ms")
            paper_level(panel(fig, "queue"), 7.5, 10, 19, "5-10 packets")
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


# ------------------------------------------------- PDQ §5.3: sending patterns
#: PDQ §5.3's sending patterns as (name, workload keys). The text names
#: Stride(i) and Staggered Prob(p) without saying which i and p the figure
#: uses, except Staggered Prob(0.7) ("the worst pattern for PDQ"); we take
#: i = 1 (next host, same rack mostly) and i = N/2 = 6 (always across the
#: core), p = 0.7 and 0.3. Aggregation goes to host 0, as in §5.2.
PATTERNS: list[tuple[str, dict[str, Any]]] = [
    ("Aggregation", {"pattern": "aggregation", "receiver": 0}),
    ("Stride(1)", {"pattern": "stride", "stride": 1}),
    ("Stride(6)", {"pattern": "stride", "stride": 6}),
    ("Staggered Prob(0.7)", {"pattern": "staggered", "p": 0.7}),
    ("Staggered Prob(0.3)", {"pattern": "staggered", "p": 0.3}),
    ("Random Permutation", {"pattern": "permutation"}),
]
FLOWS_PER_SENDER = 3


def _pattern_workload(deadlines: bool):
    """x (1-based index into PATTERNS) -> the whole [workload] table: §5.1's
    sizes (and deadlines), FLOWS_PER_SENDER flows from every sending host
    (11 senders for aggregation, 12 otherwise), all starting at 0."""
    def workload(x: float) -> dict[str, Any]:
        _, keys = PATTERNS[int(x) - 1]
        w = {k: v for k, v in pdq_tree(True, deadlines)["workload"].items() if k not in ("pattern", "receiver")}
        senders = 11 if keys["pattern"] == "aggregation" else 12
        return {**w, **keys, "flows": FLOWS_PER_SENDER * senders}

    return workload


def _pattern_name(x: float) -> str:
    return PATTERNS[int(x) - 1][0]


_PATTERN_NOTES = (f"PDQ §5.3 on §5.1's 12-server tree: {FLOWS_PER_SENDER} flows from every sender, all "
                  "starting at 0 (the text does not give the count). Stride(i) and Staggered Prob(p): "
                  "the text names Staggered Prob(0.7) only; we also run Stride(1), Stride(6) and "
                  "Staggered Prob(0.3). Staggered picks a host in another rack with probability 1-p. "
                  "The text gives no per-pattern numbers: 'PDQ reaps its benefits across all the "
                  "sending patterns'; the worst for PDQ is Staggered Prob(0.7).")

register(Entry(
    name="pdq-fig4a", paper="PDQ", figure="Fig. 4a", style="bar",
    title="application throughput per sending pattern (deadlines)",
    base=pdq_tree, series=[PDQ_FULL, D3_PDQ, RCP, TCP], x_key="workload",
    x_value=_pattern_workload(True), x_name=_pattern_name,
    xs=lambda q: [1, 6] if q else [1, 2, 3, 4, 5, 6],
    xlabel="sending pattern", y="app_throughput", y_scale=100, ylabel="application throughput (%)",
    seeds=lambda q: 2 if q else 20, notes=_PATTERN_NOTES,
))

register(Entry(
    name="pdq-fig4b", paper="PDQ", figure="Fig. 4b", style="bar",
    title="mean flow completion time per sending pattern (no deadlines)",
    base=lambda q: pdq_tree(q, deadlines=False), series=[PDQ_FULL, D3_PDQ, RCP, TCP], x_key="workload",
    x_value=_pattern_workload(False), x_name=_pattern_name,
    xs=lambda q: [1, 6] if q else [1, 2, 3, 4, 5, 6],
    xlabel="sending pattern", y="fct_mean_s", y_scale=1e3, ylabel="mean flow completion time (ms)",
    seeds=lambda q: 2 if q else 20, notes=_PATTERN_NOTES + " Sizes U[2KB,198KB] (mean 100 KB).",
))

# --------------------------------------------- PDQ §5.6: random packet loss
_LOSS_NOTES = ("PDQ §5.6: query aggregation (10 flows to host 0 on the 12-server tree), each packet "
               "dropped with the given probability on the bottleneck link (ToR -> aggregator) in the "
               "forward direction and on its reverse (aggregator -> ToR, the ACKs and replies): "
               "`faults.loss`. The flow count is not given; 10 is Fig. 10's.")

def _loss_entry(deadlines: bool, **kw: Any) -> Entry:
    """Fig. 9a (deadlines) or 9b: PDQ vs TCP, 10 flows, loss 0-3% each way."""
    def base(q: bool) -> dict[str, Any]:
        sc = pdq_tree(q, deadlines)
        return {**sc, "workload": {**sc["workload"], "flows": 10}}

    return Entry(paper="PDQ", base=base, series=[PDQ_FULL, TCP], x_key="faults.loss",
                 x_value=lambda x: x / 100, xs=lambda q: [0, 3] if q else [0, 0.5, 1, 1.5, 2, 2.5, 3],
                 xlabel="packet loss rate in each direction (%)", seeds=lambda q: 2 if q else 30, **kw)


register(_loss_entry(
    True, name="pdq-fig9a", figure="Fig. 9a",
    title="application throughput vs packet loss rate (both directions, deadlines)",
    y="app_throughput", y_scale=100, ylabel="application throughput (%)", notes=_LOSS_NOTES,
))

register(_loss_entry(
    False, name="pdq-fig9b", figure="Fig. 9b",
    title="mean flow completion time vs packet loss rate (both directions, no deadlines)",
    y="fct_mean_s", y_scale=1e3, ylabel="mean flow completion time (ms)",
    paper_ratios={("PDQ(Full)", 3): ("PDQ(Full)", 0, 1.114), ("TCP", 3): ("TCP", 0, 1.447)},
    notes=_LOSS_NOTES + " At 3% in both directions the text reports the mean FCT up by 11.4% "
                        "for PDQ and by 44.7% for TCP (relative to no loss; the paper's points at 3% "
                        "are our loss-free means raised by these).",
))

# ---------------------------------------------------- PDQ §6: M-PDQ on BCube
def _mpdq(subflows: int) -> Series:
    label = "PDQ (1 path)" if subflows == 1 else f"M-PDQ ({subflows} subflows)"
    return Series(label, {"protocol": {"name": "pdq", "variant": "full", "subflows": subflows}}, "pdq")


#: Its subflow count is the x axis (Fig. 11b, 11c).
MPDQ = Series("M-PDQ", {"protocol": {"name": "pdq", "variant": "full"}}, "pdq")
#: The reading of §6 closest to Fig. 11b's shape (docs/fidelity-pdq.md,
#: "Fig. 11"): subflows on the parallel paths that are shortest (ECMP's),
#: each carrying the whole flow's criticality.
MPDQ_SHORTEST = Series("M-PDQ (shortest paths, flow criticality)",
                       {"protocol": {"name": "pdq", "variant": "full", "subflow_paths": "shortest",
                                     "subflow_criticality": "flow"}}, "pdq")


def mpdq_bcube(quick: bool, deadlines: bool = False, load: float = 1.0) -> dict[str, Any]:
    """PDQ §6: BCube(2,3) (16 servers with 4 ports, 1 Gbps, §5.1's per-hop
    delays), random permutation traffic with Poisson arrivals at `load` per
    server port. Deadline-unconstrained flows: U[2KB, 1998KB] (mean 1000 KB,
    §5.1); deadline-constrained: §5.1's U[2KB, 198KB] with exp(20ms) >= 3ms."""
    w: dict[str, Any] = {"pattern": "permutation", "arrival": "poisson", "load": load,
                         "flows": 64 if quick else 320}
    if deadlines:
        w["size"] = {"dist": "uniform", "min": "2KB", "max": "198KB"}
        w["deadline"] = {"dist": "exponential", "mean": "20ms", "min": "3ms"}
        w["flows"] *= 2  # ten times smaller flows: twice as many keep the run long enough
    else:
        w["size"] = {"dist": "uniform", "min": "2KB", "max": "1998KB"}
    return {
        "name": "mpdq-bcube", "seed": 1, "stop": "10s",
        "topology": {"kind": "bcube", "n": 2, "k": 3, "link_rate": "1Gbps", "buffer": "4MB",
                     "prop_delay": "0.1us", "proc_delay": "25us"},
        "protocol": {"name": "pdq", "variant": "full", "subflows": 3},
        "workload": w,
    }


_MPDQ_NOTES = ("PDQ §6 on BCube(2,3) (BCube address-based routing: BuildPathSet's k+1 = 4 parallel "
               "paths, so more than 4 subflows is the same as 4). 'Load' is the Poisson arrival rate "
               "times the mean size over one server port's 1 Gbps (the paper does not define it for "
               "4-port servers; bench/mpdq_sensitivity.py sweeps it). ")
_MPDQ_SHORTEST_NOTE = ("Second series: the subflows keep to the parallel paths that are shortest and "
                       "carry the whole flow's criticality (`subflow_paths = \"shortest\"`, "
                       "`subflow_criticality = \"flow\"`). ")

register(Entry(
    name="pdq-fig11a", paper="PDQ", figure="Fig. 11a",
    title="M-PDQ: mean flow completion time vs load (BCube(2,3), permutation)",
    base=mpdq_bcube, series=[_mpdq(1), _mpdq(3)], x_key="workload.load",
    xs=lambda q: [0.2, 1.0] if q else [0.2, 0.4, 0.6, 0.8, 1.0],
    xlabel="load", y="fct_mean_s", y_scale=1e3, ylabel="mean flow completion time (ms)",
    seeds=lambda q: 1 if q else 5,
    notes=_MPDQ_NOTES + "The text: with 3 subflows, 'under light loads, M-PDQ can reduce flow "
                        "completion time by a factor of two'; at higher load 'these advantages are "
                        "reduced' but M-PDQ 'still retains its benefits'.",
))

register(Entry(
    name="pdq-fig11b", paper="PDQ", figure="Fig. 11b",
    title="M-PDQ: mean flow completion time vs number of subflows (load 100%)",
    base=mpdq_bcube, series=[MPDQ, MPDQ_SHORTEST], x_key="protocol.subflows",
    xs=lambda q: [1, 4] if q else [1, 2, 3, 4], xlabel="number of subflows",
    y="fct_mean_s", y_scale=1e3, ylabel="mean flow completion time (ms)",
    seeds=lambda q: 1 if q else 5,
    notes=_MPDQ_NOTES + _MPDQ_SHORTEST_NOTE
    + "The text: 'M-PDQ needs about 4 subflows to reach 97% of its full potential'.",
))

register(Entry(
    name="pdq-fig11c", paper="PDQ", figure="Fig. 11c",
    title="M-PDQ: application throughput vs number of subflows (load 100%, deadlines)",
    base=lambda q: mpdq_bcube(q, deadlines=True), series=[MPDQ, MPDQ_SHORTEST], x_key="protocol.subflows",
    xs=lambda q: [1, 4] if q else [1, 2, 3, 4], xlabel="number of subflows",
    y="app_throughput", y_scale=100, ylabel="application throughput (%)",
    seeds=lambda q: 1 if q else 5,
    notes=_MPDQ_NOTES + _MPDQ_SHORTEST_NOTE
    + "Deadline flows: §5.1's sizes and deadlines. The text gives no numbers for 11c.",
))


# ------------------------------------------- PDQ §5.3: realistic workloads
SHORT = 40_000  # bytes: §5.3 "the short flows (with a size of <40 KByte) are deadline-constrained"


def vl2_tree(quick: bool, rate: float = 1000) -> dict[str, Any]:
    """PDQ §5.3, Fig. 5a/b: the 12-server tree, random permutation traffic,
    Poisson arrivals at `rate` flows/s for 100 ms (10 ms quick), sizes from
    the VL2 production distribution (Greenberg et al. [12]; the `data_mining`
    table), deadlines exp(20ms) >= 3ms on flows below 40 KB only. The run
    stops at 10 s (1 s quick); flows of up to ~1 GB may not finish by then."""
    return {**pdq_tree(quick), "stop": "1s" if quick else "10s", "workload": {
        "pattern": "permutation", "arrival": "poisson", "rate": rate,
        "duration": "10ms" if quick else "100ms",
        "size": {"dist": "cdf", "name": "data_mining"},
        "deadline": {"dist": "exponential", "mean": "20ms", "min": "3ms", "only_below": f"{SHORT}B"},
    }}


_VL2_NOTES = ("PDQ §5.3 'Impact of Traffic Type', on §5.1's tree: VL2 flow sizes (the pFabric "
              "table of Greenberg et al.'s distribution, `data_mining`), short flows (<40 KB) with "
              "deadlines, random permutation. The text gives no arrival rates; we offer flows for "
              "100 ms at each rate. ")

register(Entry(
    name="pdq-fig5a", paper="PDQ", figure="Fig. 5a",
    title="application throughput of short flows vs flow arrival rate (VL2 sizes)",
    base=vl2_tree, series=[PDQ_FULL, PDQ_ESET, D3_PDQ, RCP, TCP], x_key="workload.rate",
    xs=lambda q: [1000, 4000] if q else [500, 1000, 2000, 4000, 8000],
    xlabel="flow arrival rate (flows/s)", y="app_throughput", y_scale=100,
    ylabel="application throughput (%)", seeds=lambda q: 1 if q else 5,
    notes=_VL2_NOTES + "The text: PDQ supports 'a significantly higher flow arrival rate', and "
                       "PDQ(Full) 'considerably outperforms' PDQ(ES+ET) (Suppressed Probing).",
))


def _long_flow_fct(entry: Entry, out: Path, quick: bool, opts: dict[str, Any]):
    """Mean FCT of the flows of 40 KB or more per series at each arrival
    rate, and PDQ's reduction against each (the text's 26% vs RCP and 39% vs
    TCP, at a rate it does not give). Each seed is the same workload under
    every series; its mean is over the long flows that finished under all of
    them (`excluded` counts the others)."""
    import dcflow
    from dcflow.plot.stats import mean_ci

    paper_cut = {"RCP": 26.0, "TCP": 39.0}
    rows: list[dict[str, Any]] = []
    for x in entry.xs(quick):
        means: dict[str, list[float]] = {s.label: [] for s in entry.series}
        excluded = 0
        for seed in range(1, entry.seeds(quick) + 1):
            finished: dict[str, dict[int, float]] = {}
            for s in entry.series:
                res = dcflow.run(entry.series_scenario(s, quick).with_overrides({entry.x_key: x, "seed": seed}))
                res.save(out / "runs" / s.slug / f"{x:g}-seed-{seed}")
                f = res.flows
                finished[s.label] = {i: t for i, z, t in zip(f.column("id").to_pylist(),
                                                              f.column("size_bytes").to_pylist(),
                                                              f.column("fct_s").to_pylist())
                                     if z >= SHORT and t is not None}
            common = set.intersection(*(set(d) for d in finished.values()))
            excluded += max(len(d) for d in finished.values()) - len(common)
            for label, d in finished.items():
                if common:
                    means[label].append(sum(d[i] for i in common) / len(common) * 1e3)
        pdq = sum(means[entry.series[0].label]) / max(len(means[entry.series[0].label]), 1)
        for label, v in means.items():
            m, ci = mean_ci(v)
            rows.append({"series": label, entry.x_key: x, "y_mean": m, "ci95": ci, "n": len(v),
                         "excluded": excluded, "pdq_reduction_pct": (1 - pdq / m) * 100 if m else None,
                         "paper_reduction_pct": paper_cut.get(label)})
    from dcflow.repro.figure import plot_rows

    return rows, plot_rows(entry, rows, "y_mean")


register(Entry(
    name="pdq-fig5b", paper="PDQ", figure="Fig. 5b", kind="custom",
    title="mean flow completion time of flows >= 40 KB vs arrival rate (VL2 sizes)",
    base=vl2_tree, series=[PDQ_FULL, D3_PDQ, RCP, TCP], x_key="workload.rate",
    xs=lambda q: [1000] if q else [1000, 2000, 4000], xlabel="flow arrival rate (flows/s)",
    ylabel="mean FCT of flows >= 40 KB (ms)", y_range=(0.0, float("inf")), seeds=lambda q: 1 if q else 5, analyze=_long_flow_fct,
    notes=_VL2_NOTES + "The text: 'a 26% reduction compared with RCP, and a 39% reduction compared "
                       "with TCP' (column `paper_reduction_pct`, next to our "
                       "`pdq_reduction_pct`).",
))

#: The EDU trace (Benson et al., IMC'10: a 10-minute packet trace of a
#: 500-server university data center, turned into flows with Bro) is not
#: public. Put it at this path as `id,src,dst,size_bytes,start_s,deadline_s`
#: (hosts 0..11) and the entry runs.
EDU_TRACE = "traces/pdq-edu.csv"

EDU_NEED = "the EDU trace (Benson et al. IMC'10; not public)"

register(Entry(
    name="pdq-fig5c", paper="PDQ", figure="Fig. 5c",
    title="university data center workload (EDU trace)",
    base=lambda q: {**pdq_tree(q), "workload": {"pattern": "explicit", "trace": EDU_TRACE}},
    series=[Series(s.label, s.overrides, EDU_NEED) for s in (PDQ_FULL, D3_PDQ, RCP, TCP)],
    x_key="stop", x_value=lambda x: f"{x:g}s", xs=lambda q: [700], xlabel="simulated time (s)",
    y="app_throughput", y_scale=100, ylabel="application throughput (%)", style="bar", seeds=lambda q: 1,
    notes="PDQ §5.3: a 10-minute trace of a 500-server university data center, turned into flows. "
          f"Not public: the entry stays pending until such a trace is put at {EDU_TRACE}.",
))
