"""LPD (papers/004): the motivating example as printed (§III-A Table I,
Fig. 1; §V-A Fig. 4-5) and the testbed's flow differentiation (§V-D Fig. 9).

§III-A: four flows of 8, 16, 32 and 40 MB start together on a 1 Gbps
bottleneck, deadlines 200, 400, 600 and 800 ms, "a RTT of 100 us"; a flow
that misses its deadline "is stopped by force"; the marking threshold is
k = 25 packets (§V-A, Fig. 5(c)). Every series here runs with
``stop_at_deadline = true`` and the star's links at 25 us each way (4 links
per round trip: 100 us of propagation).
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

from dcflow.repro import Entry, Series, register

#: §III-A's flows: (size MB, deadline ms).
MOTIVATING = [(8, 200), (16, 400), (32, 600), (40, 800)]
#: §V-D's testbed flows (Fig. 9): 10, 30 and 50 MB, deadlines 300, 600, 900 ms.
TESTBED = [(10, 300), (30, 600), (50, 900)]
#: §V-A, Fig. 5(c): "the packet marking threshold k=25"; 25 x 1500 B.
K25 = "37.5KB"


def stopping(label: str, protocol: dict[str, Any]) -> Series:
    """A series whose flows are given up at their deadlines (§III-A)."""
    return Series(label, {"protocol": {**protocol, "stop_at_deadline": True}}, protocol["name"])


D2TCP_STOP = stopping("D2TCP", {"name": "d2tcp"})
#: §II-B reports d of about 0.4 and 0.6, below D2TCP's published floor of
#: 0.5 (baselines.md): the same D2TCP with the floor lowered to 0.1.
D2TCP_FLOOR = stopping("D2TCP (d_min 0.1)", {"name": "d2tcp", "d_min": 0.1})
#: T_c = B / C (`tc_rate = "line_rate"`): the reading that gives §III-B's
#: d of about 0.6 (flow 1) and 0.4 (flow 4) at 150-160 ms; with the floor
#: lowered so that 0.4 is reachable.
LINE_RATE = {"tc_rate": "line_rate", "d_min": 0.1}
D2TCP_LINE = stopping("D2TCP (B/C, d_min 0.1)", {"name": "d2tcp", **LINE_RATE})
DCTCP_STOP = stopping("DCTCP", {"name": "dctcp"})
LPD_STOP = stopping("LPD", {"name": "lpd", "variant": "d"})
LPD_LINE = stopping("LPD (B/C, d_min 0.1)", {"name": "lpd", "variant": "d", **LINE_RATE})
# §V-A runs LPD-t on the motivating example with t_max = 800 ms.
LPD_T800 = stopping("LPD-t", {"name": "lpd", "variant": "t", "t_max": "800ms"})
LPD_E_STOP = stopping("LPD-e", {"name": "lpd", "variant": "e"})


def bottleneck(flows: list[tuple[int, int]], k: str = K25) -> Any:
    """A star whose host 0 receives `flows` (MB, deadline ms) from hosts 1..n."""
    def base(quick: bool) -> dict[str, Any]:
        return {
            "name": "lpd-motivating", "seed": 1, "stop": f"{max(d for _, d in flows) + 100}ms",
            "topology": {"kind": "star", "hosts": len(flows) + 1, "link_rate": "1Gbps",
                         "prop_delay": "25us", "proc_delay": "0us", "ecn_threshold": k},
            "protocol": {"name": "dctcp"}, "workload": {"pattern": "explicit"},
            "flows": [{"src": i + 1, "dst": 0, "size": f"{mb}MB", "start": "0ms", "deadline": f"{d}ms"}
                      for i, (mb, d) in enumerate(flows)],
            "monitor": {"interval": "1ms", "links": ["bottleneck"], "flows": True},
        }
    return base


def flow_series(res, column: str = "throughput_bps") -> dict[str, list[tuple[float, float]]]:
    """Per-flow (time s, `column`) from a run's monitor, by flow id: the
    throughput, or sender state such as ``window_bytes`` and ``alpha``
    (docs/outputs.md), skipping samples where it is null."""
    ts = res.timeseries
    out: dict[str, list[tuple[float, float]]] = {}
    for t, ser, name, v in zip(ts.column("time_s").to_pylist(), ts.column("series").to_pylist(),
                               ts.column("name").to_pylist(), ts.column(column).to_pylist()):
        if ser == "flow" and v is not None:
            out.setdefault(name, []).append((t, v))
    return out


def _untransmitted(entry: Entry, out: Path, quick: bool, opts: dict[str, Any], paper: dict[str, list]):
    """Table I: MB left when each deadline expires (the flow is stopped
    there, so what the receiver holds is what was sent in time)."""
    import matplotlib.pyplot as plt
    import numpy as np

    import dcflow

    from dcflow.plot.style import legend_with_paper, paper_points, series_style, wrapped

    rows = []
    fig, ax = plt.subplots(figsize=(8.4, 4.2))
    n = len(entry.series)
    for k, s in enumerate(entry.series):
        st = series_style(k, n)
        res = dcflow.run(entry.series_scenario(s, quick))
        res.save(out / "runs" / s.slug)
        left = []
        for i, f in enumerate(res.flows.to_pylist()):
            left.append((f["size_bytes"] - f["bytes_delivered"]) / 1e6)
            rows.append({"series": s.label, "flow": f"flow {i + 1}", "untransmitted (MB)": left[-1],
                         "met": bool(f["met_deadline"]), "paper": paper.get(s.label, [None] * 4)[i]})
        pos = np.arange(len(left)) + (k - (n - 1) / 2) * 0.8 / n
        ax.bar(pos, left, 0.8 / n, label=s.label, color=st["color"])
        mine = paper.get(s.label, [None] * len(left))
        shown = [(x, v) for x, v in zip(pos, mine) if v is not None]
        paper_points(ax, [x for x, _ in shown], [v for _, v in shown], {**st, "marker": "o"})
    ax.set_xticks(range(len(left)), [f"flow {i + 1}" for i in range(len(left))])
    ax.set_ylabel("untransmitted data at deadline (MB)")
    ax.grid(True, axis="y", alpha=0.3)
    legend_with_paper(ax, True, outside=True)
    ax.set_title(wrapped(f"LPD {entry.figure}: {entry.title}"), fontsize=9)
    fig.tight_layout()
    return rows, fig


def _table1(entry, out, quick, opts):
    # Table I (D2TCP, DCTCP); §V-A: "only flow 2 misses its deadline under
    # LPD" (amount not given), "With LPD-t, all flows complete".
    paper = {"D2TCP": [1.53, 1.79, 3.64, 0.0], "DCTCP": [2.07, 2.14, 4.08, 0.0],
             "LPD": [0.0, None, 0.0, 0.0], "LPD-t": [0.0, 0.0, 0.0, 0.0]}
    return _untransmitted(entry, out, quick, opts, paper)


register(Entry(
    name="lpd-table1", paper="LPD", figure="Table I",
    title="untransmitted data at the deadline, 4 flows on 1 Gbps, 100 us RTT, K = 25",
    kind="custom", base=bottleneck(MOTIVATING),
    series=[D2TCP_STOP, D2TCP_FLOOR, D2TCP_LINE, DCTCP_STOP, LPD_STOP, LPD_LINE, LPD_T800], analyze=_table1,
    notes="LPD §III-A as printed: RTT 100 us, K = 25, flows stopped at their deadlines "
          "(stop_at_deadline). 'D2TCP (d_min 0.1)' lowers D2TCP's floor on d below the "
          "paper's reported d of 0.4-0.6 (§III-B); 'B/C' computes T_c at the line rate.",
))


def _internals(entry: Entry, out: Path, quick: bool, opts: dict[str, Any]):
    """Fig. 1 / 4 / 5 / 9: each flow's rate over time; for the most and least
    imminent flows (1 and the last) the congestion window (Fig. 1(b)), D2TCP's
    d (Fig. 1(c); for the rules that use it) and α (Fig. 1(d)), all as the
    senders hold them (the monitor's sender state); one row of panels per series."""
    import matplotlib.pyplot as plt

    import dcflow

    n = len(entry.series)
    fig, axes = plt.subplots(n, 4, figsize=(16, 3 * n), squeeze=False)
    rows = []
    for k, s in enumerate(entry.series):
        res = dcflow.run(entry.series_scenario(s, quick))
        res.save(out / "runs" / s.slug)
        flows = res.flows.to_pylist()
        per, windows, alphas = flow_series(res), flow_series(res, "window_bytes"), flow_series(res, "alpha")
        imminences = flow_series(res, "imminence")
        until = flows[0]["start_s"] + flows[0]["deadline_s"]

        def mean_to_deadline(pts: list[tuple[float, float]]) -> float | None:
            vals = [v for t, v in pts if t <= until]
            return sum(vals) / len(vals) if vals else None

        for i, f in enumerate(flows):
            key = str(f["id"])
            pts = per.get(key, [])
            # One colour per flow in every panel (flow 4 is red in each).
            axes[k][0].plot([t * 1e3 for t, _ in pts], [r / 1e6 for _, r in pts], lw=0.8, label=f"flow {i + 1}",
                            color=f"C{i}")
            window, alpha, d = windows.get(key, []), alphas.get(key, []), imminences.get(key, [])
            mean_window = mean_to_deadline(window)
            rows.append({"series": s.label, "flow": f"flow {i + 1}",
                         "mean rate to flow 1's deadline (Mbps)": (mean_to_deadline(pts) or 0) / 1e6,
                         "mean window to flow 1's deadline (KB)": mean_window and mean_window / 1e3,
                         "mean alpha to flow 1's deadline": mean_to_deadline(alpha),
                         "mean d to flow 1's deadline": mean_to_deadline(d),
                         "untransmitted (MB)": (f["size_bytes"] - f["bytes_delivered"]) / 1e6})
            if i in (0, len(flows) - 1):
                for ax, series_pts, scale in ((axes[k][1], window, 1e-3), (axes[k][2], d, 1), (axes[k][3], alpha, 1)):
                    ax.plot([t * 1e3 for t, _ in series_pts], [v * scale for _, v in series_pts], lw=0.8,
                            label=f"flow {i + 1}", color=f"C{i}")
        axes[k][0].set_ylabel(f"{s.label}\nrate (Mbps)", fontsize=8)
        axes[k][1].set_ylabel("congestion window (KB)", fontsize=8)
        axes[k][2].set_ylabel("imminence d", fontsize=8)
        axes[k][3].set_ylabel("alpha", fontsize=8)
        for ax in axes[k]:
            ax.set_xlabel("time (ms)", fontsize=8)
            if any(len(line.get_xdata()) for line in ax.get_lines()):
                ax.legend(fontsize=6)
            else:  # DCTCP and LPD-e hold no imminence d: say so, draw no empty axes
                ax.text(0.5, 0.5, f"{s.label} has no\n{ax.get_ylabel()}", ha="center", va="center",
                        transform=ax.transAxes, fontsize=8, color="0.4")
                ax.set_xticks([])
                ax.set_yticks([])
    fig.suptitle(f"LPD {entry.figure}: {entry.title}", fontsize=9)
    fig.tight_layout()
    return rows, fig


for name, figure, title, series in [
        ("lpd-fig1", "Fig. 1", "D2TCP's rates and imminence d, 4 flows (d of flows 1 and 4)",
         [D2TCP_STOP, D2TCP_FLOOR, D2TCP_LINE]),
        ("lpd-fig4", "Fig. 4", "LPD's rates and imminence d, 4 flows", [LPD_STOP, LPD_LINE]),
        ("lpd-fig5", "Fig. 5", "LPD-t's rates (t_max = 800 ms), 4 flows", [LPD_T800])]:
    register(Entry(
        name=name, paper="LPD", figure=figure, title=title, kind="custom", base=bottleneck(MOTIVATING),
        series=series, analyze=_internals,
        notes="Panels: (a) rates; (b) congestion windows, (c) imminence d (rules that use it) "
              "and (d) alpha of flows 1 and 4, as the senders hold them (the monitor's sender state).",
    ))

register(Entry(
    name="lpd-fig9", paper="LPD", figure="Fig. 9",
    title="testbed flow differentiation as a simulation: 10/30/50 MB, deadlines 300/600/900 ms",
    kind="custom", base=bottleneck(TESTBED), series=[DCTCP_STOP, D2TCP_STOP, LPD_E_STOP],
    analyze=_internals,
    notes="LPD §V-D's testbed (NetFPGA switches, Linux 3.2 DCTCP code) simulated on one 1 Gbps "
          "star port with §III-A's 100 us RTT and K = 25 (the text's 37.5 KB threshold).",
))
