"""LPD (papers/004) §V-B, §V-C, §V-D and §VI: OLDI queries and random flows
on the 10 x 40-server tree (Fig. 6, 8, 10, 11, 13a), the testbed's OLDI run
(Fig. 12) and LPD-s (Fig. 13b).

§V-C's setting: ten racks of M = 40 servers, 1 Gbps to the ToR, 10 Gbps
from each ToR to the root, 100 us round-trip propagation (eight 12.5 us
links between racks), K = 20 packets at every switch, RTO 10 ms, Pareto
sizes (shape 1.2, mean 50 KB), deadlines only on flows below 200 KB, t_max
80 ms, s_max 200 KB, ten servers with long-lived background flows. Every
series stops a flow at its deadline, as §III-A's simulations do
(``stop_at_deadline``).

Queries: the text gives no query arrival process for Fig. 6 and
8; its only arrival rate is Fig. 10's "1000 flows per second per server".
Here queries arrive as a Poisson process at every server (its root); a
query's `fan-in` workers are drawn from all 399 other servers (so the
answers cross the racks, an aggregation tree with the root at the query's
server) and answer together. ``QUERY_RATE`` queries per second per server
make each server send and receive 1000 flows per second at fan-in 40 (an
offered load of 0.4 on every access link, 1.44 on the 4:1 oversubscribed
ToR uplinks); `lpd-oldi-load` sweeps that rate to show where the paper's
differences appear (docs/fidelity.md).
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

from dcflow.repro import Entry, Series, register
from dcflow.repro.common import L2DCT as L2DCT_RUN_ON
from dcflow.repro.common import PFABRIC
from dcflow.repro.lpd import D2TCP_STOP as D2TCP
from dcflow.repro.lpd import DCTCP_STOP as DCTCP
from dcflow.repro.lpd import LPD_E_STOP as LPD_E
from dcflow.repro.lpd import stopping

RACKS, PER_RACK = 10, 40
HOSTS = RACKS * PER_RACK
#: §V-C via Fig. 10: 1000 flows / s / server, reached at fan-in 40.
QUERY_RATE = 1000 / 40
PARETO = {"dist": "pareto", "mean": "50KB", "shape": 1.2}
DEADLINE_BELOW = 200_000


L2DCT = stopping("L2DCT", {"name": "l2dct"})
LPD_D = stopping("LPD-d", {"name": "lpd", "variant": "d"})
MLD = stopping("MLD", {"name": "lpd", "variant": "mld"})
MLD_LINEAR = stopping("MLD (linear)", {"name": "lpd", "variant": "mld", "mld_form": "linear"})
SECTION_V = [DCTCP, D2TCP, L2DCT, LPD_E]


def tree(name: str, per_rack: int = PER_RACK) -> dict[str, Any]:
    return {"name": name, "seed": 1,
            "topology": {"kind": "tree", "racks": RACKS, "hosts_per_rack": per_rack, "link_rate": "1Gbps",
                         "core_link_rate": "10Gbps", "prop_delay": "12.5us", "proc_delay": "0us",
                         "ecn_threshold": "30KB"},
            "protocol": {"name": "dctcp"}}


def background(rng, hosts: int) -> list[dict[str, Any]]:
    """§V-C's "ten servers generating long-lived background traffic": ten
    distinct servers, each sending 1 GB to a random server in another rack."""
    per_rack = hosts // RACKS
    out = []
    for src in rng.choice(hosts, size=10, replace=False):
        dst = int(rng.integers(hosts - per_rack))
        dst = dst if dst < (src // per_rack) * per_rack else dst + per_rack
        out.append({"src": int(src), "dst": dst, "size": "1GB", "start": "0ms"})
    return out


def pareto_size(rng) -> int:
    """Pareto, shape 1.2, mean 50 KB (x_m = mean (shape - 1) / shape), as
    dcflow-workload's `pareto`."""
    shape, mean = 1.2, 50_000
    return max(1, round(mean * (shape - 1) / shape / (1.0 - rng.random()) ** (1 / shape)))


def oldi_scenario(seed: int, fanin: int, deadline_ms: float, duration_ms: float,
                  rate: float = QUERY_RATE) -> dict[str, Any]:
    """Queries at `rate` per second per server for `duration_ms` (from 5 ms),
    each answered by `fanin` random servers; plus the background flows."""
    import numpy as np

    rng = np.random.default_rng(seed)
    flows = background(rng, HOSTS)
    t, end = 5e-3, 5e-3 + duration_ms / 1e3
    while True:
        t += rng.exponential(1 / (rate * HOSTS))
        if t >= end:
            break
        root = int(rng.integers(HOSTS))
        for w in rng.choice(HOSTS - 1, size=fanin, replace=False):
            size = pareto_size(rng)
            f = {"src": int(w) + (w >= root), "dst": root, "size": f"{size}B", "start": f"{round(t * 1e9)}ns"}
            if size < DEADLINE_BELOW:
                f["deadline"] = f"{deadline_ms:g}ms"
            flows.append(f)
    sc = tree("lpd-oldi")
    sc.update({"seed": seed, "stop": f"{duration_ms + 5 + 3 * deadline_ms:g}ms",
               "workload": {"pattern": "explicit"}, "flows": flows})
    return sc


def missed_percent(res) -> float | None:
    """Deadline flows that missed (stopped at, or finishing after, their deadline), %."""
    flows = [f for f in res.flows.to_pylist() if f["deadline_s"] is not None]
    if not flows:
        return None
    return 100.0 * sum(1 for f in flows if not f["met_deadline"]) / len(flows)


#: entry name -> (make, x_over, metric) of the entries `register_generated`
#: makes: their scenarios depend on x and the seed beyond one key (flows
#: drawn here, a fan-in), so the catalog's `base` is only one of them, for
#: the availability check.
GENERATED: dict[str, Any] = {}


def _generated_sweep(entry: Entry, out: Path, quick: bool, opts: dict[str, Any]):
    """The entry's metric for every series and x: mean, 95% CI, min and max
    over the seeds (the paper plots mean, min and max)."""
    import dcflow
    from dcflow.plot.stats import mean_ci
    from dcflow.repro.figure import paper_only_rows, plot_rows
    from dcflow.scenario import Scenario

    make, x_over, metric = GENERATED[entry.name]
    rows = []
    for s in entry.series:
        for x in entry.xs(quick):
            vals = []
            for seed in range(1, entry.seeds(quick) + 1):
                sc = Scenario(make(quick, x, seed, s)).with_overrides(s.overrides).with_overrides(x_over(x))
                v = metric(dcflow.run(sc))
                if v is not None:
                    vals.append(v)
            m, ci = mean_ci(vals)
            rows.append({"series": s.label, entry.x_key: x, "y": entry.ylabel, "y_mean": m, "ci95": ci,
                         "min": min(vals, default=None), "max": max(vals, default=None), "n": len(vals),
                         "paper": entry.paper_values.get((s.label, x))})
    rows += paper_only_rows(entry, entry.xs(quick))
    return rows, plot_rows(entry, rows, "y_mean")


def register_generated(make, x_over=lambda x: {}, metric=missed_percent, **kw) -> Entry:
    """An entry whose scenarios `make(quick, x, seed, series)` draws; the
    series' overrides, then `x_over(x)`, apply on top; `metric(result)` is
    its y (default: % of deadline flows missed). Runs in-process, one run
    per (series, x, seed)."""
    kw.setdefault("ylabel", "flows missing their deadlines (%)")
    kw.setdefault("y_range", (0.0, 100.0) if metric is missed_percent else (0.0, float("inf")))
    entry = Entry(kind="custom", analyze=_generated_sweep,
                  base=lambda q: make(q, kw["xs"](q)[0], 1, kw["series"][0]), **kw)
    GENERATED[entry.name] = (make, x_over, metric)
    return register(entry)


def swept(base, key: str, value=lambda x: x):
    """`make` for a fixed base scenario whose `key` is x (and seed the seed)."""
    from dcflow.scenario import Scenario

    return lambda q, x, seed, s: Scenario(base(q)).with_overrides({key: value(x), "seed": seed}).to_dict()


def duration(quick: bool, build_up: bool = False) -> float:
    """Milliseconds of query arrivals: 20 (about 7,500 answers at fan-in 40
    and the paper's rate). --quick runs 2 ms (a smoke test), or 10 ms when
    ``build_up``: at the paper's rate and 20 ms deadlines the misses the
    figure is about take that long to appear (2 ms of queries miss nothing
    at any fan-in; 10 ms miss 0.7% at fan-in 40, LPD-e fewest, as 20 ms do
    at 1.6-1.8%)."""
    return 20.0 if not quick else 10.0 if build_up else 2.0


# ------------------------------------------------------------ Fig. 6 (§V-B)
FIG6_FANIN = {f"LPD-t, fan-in {m}": m for m in (20, 30, 40)}
register_generated(
    lambda q, x, seed, s: oldi_scenario(seed, FIG6_FANIN[s.label], 20, duration(q, build_up=True)),
    x_over=lambda x: {"protocol.t_max": f"{x:g}ms"},
    name="lpd-fig6", paper="LPD", figure="Fig. 6", title="LPD-t deadline misses vs t_max, 20 ms deadlines",
    series=[stopping(label, {"name": "lpd", "variant": "t"}) for label in FIG6_FANIN],
    x_key="t_max (ms)", xs=lambda q: [20, 200] if q else [20, 50, 80, 110, 140, 170, 200],
    xlabel="t_max (ms)", seeds=lambda q: 1 if q else 5,
    notes="LPD §V-B: 'when t_max < 80ms ... less than 5% flows may miss' and better than D2TCP "
          "(3.45%, 4.96%, 5.45% at fan-in 20, 30, 40); above 140 ms worse than D2TCP.",
)

# ------------------------------------------------------------ Fig. 8 (§V-C)
#: §V-B: "the corresponding values under D2TCP at fan-in degrees 20, 30 and
#: 40 are 3.45%, 4.96% and 5.45%" (OLDI queries, every deadline 20 ms).
D2TCP_AT_20MS = {(D2TCP.label, 20): 3.45, (D2TCP.label, 30): 4.96, (D2TCP.label, 40): 5.45}

for panel, deadline, claim in [
        ("a", 20, "LPD-e misses fewest; D2TCP no clear advantage over DCTCP (tight deadlines)"),
        ("b", 30, "LPD-e misses fewest; D2TCP no clear advantage over DCTCP (tight deadlines)"),
        ("c", 40, "LPD-e misses fewest; D2TCP clearly better than DCTCP (lax deadlines)")]:
    register_generated(
        lambda q, x, seed, s, d=deadline: oldi_scenario(seed, int(x), d, duration(q, build_up=d == 20)),
        name=f"lpd-fig8{panel}", paper="LPD", figure=f"Fig. 8({panel})",
        title=f"OLDI deadline misses vs fan-in, {deadline} ms deadlines, 10 x 40 servers",
        series=SECTION_V, x_key="fan-in", xs=lambda q: [20, 40] if q else [20, 25, 30, 35, 40],
        xlabel="fan-in degree", seeds=lambda q: 1 if q else 5,
        # §V-B gives D2TCP's misses in this setting (OLDI, 20 ms deadlines).
        paper_values=D2TCP_AT_20MS if deadline == 20 else {},
        notes=f"LPD §V-C; queries at {QUERY_RATE:g}/s per server (1000 flows/s per server at fan-in "
              f"40, Fig. 10's rate). Paper: {claim}.",
    )

register_generated(
    lambda q, x, seed, s: oldi_scenario(seed, 40, 20, duration(q), rate=x / 40),
    name="lpd-oldi-load", paper="LPD", figure="Fig. 8(a), load",
    title="OLDI deadline misses vs flows per second per server, fan-in 40, 20 ms deadlines",
    series=SECTION_V, x_key="flows/s per server", xs=lambda q: [500, 2000] if q else [250, 500, 1000, 1500, 2000],
    xlabel="answers sent per second per server (offered load 0.4 per 1000)", seeds=lambda q: 1 if q else 5,
    notes="Where the paper's differences (D2TCP 3.45-5.45% missed at 20 ms, LPD-e fewest) appear.",
)


# ------------------------------------------------- Fig. 10, 11, 13a (§V-C, §VI)
def random_flows(size: dict[str, Any], deadline: dict[str, Any], load: float):
    """§V-C's "servers send short flows randomly to each other": Poisson
    arrivals, source and destination uniform over the servers, at `load` of
    every access link (0.4 = Fig. 10's 1000 flows/s per server at 50 KB);
    x is M, the servers per rack; `duration` ms of arrivals from 5 ms. The
    ten background flows go from servers 0-9 (rack 0) to 90-99, in another
    rack for every M from 10 to 40."""
    def make(quick: bool, m: int, seed: int, s: Series) -> dict[str, Any]:
        ms = 2.0 if quick else 50.0
        sc = tree("lpd-random", int(m))
        sc.update({"seed": seed, "stop": f"{ms + 5 + 100:g}ms",
                   "workload": {"pattern": "all_to_all", "arrival": "poisson", "load": load,
                                "flows": max(1, round(1000 * RACKS * int(m) * ms / 1e3)),
                                "start": "5ms", "size": size, "deadline": deadline},
                   "flows": [{"src": i, "dst": 99 - i, "size": "1GB", "start": "0ms"} for i in range(10)]})
        return sc
    return make


def register_random(name: str, figure: str, title: str, make, series: list[Series], notes: str,
                    paper_values: dict[tuple[str, float], float] | None = None) -> None:
    register_generated(
        make, name=name, paper="LPD", figure=figure, title=title,
        series=series, x_key="M", xs=lambda q: [10] if q else [10, 20, 30, 40],
        xlabel="servers per rack (M)", seeds=lambda q: 1 if q else 5, notes=notes, paper_values=paper_values or {},
    )


for panel, d in zip("abc", (20, 30, 40)):
    register_random(
        f"lpd-fig10{panel}", f"Fig. 10 ({d} ms)", f"random Pareto flows, 1000/s per server, {d} ms deadlines",
        random_flows(PARETO, {"dist": "fixed", "value": f"{d}ms", "only_below": "200KB"}, 0.4), SECTION_V,
        "LPD §V-C: LPD-e best in all cases, no miss at M = 10, at least 50% fewer misses than the "
        "others except at M = 40 (at least 30%).",
        # "when 10 servers in each rack send short flows, LPD-e achieves no deadline miss".
        paper_values={(LPD_E.label, 10): 0.0})

for panel, d in zip("abc", (30, 40, 50)):
    register_random(
        f"lpd-fig11{panel}", f"Fig. 11 (mean {d} ms)",
        f"random uniform 2-200 KB flows, exponential deadlines, mean {d} ms",
        # U[2 KB, 200 KB] has mean 101 KB: 1000 flows/s per server is a load of 0.808.
        random_flows({"dist": "uniform", "min": "2KB", "max": "200KB"},
                     {"dist": "exponential", "mean": f"{d}ms"}, 0.808), SECTION_V,
        "LPD §V-C: 'LPD-e still performs the best'; L2DCT 'often achieves comparable results to D2TCP'.")

FIG10_DEADLINE = {"dist": "fixed", "value": "20ms", "only_below": "200KB"}
register_generated(
    lambda q, x, seed, s: random_flows(PARETO, FIG10_DEADLINE, 0.4 * x / 1000)(q, 40, seed, s),
    name="lpd-random-load", paper="LPD", figure="Fig. 10 (20 ms), load",
    title="random Pareto flows, M = 40, 20 ms deadlines, vs flows per second per server",
    series=SECTION_V, x_key="flows/s per server", xs=lambda q: [2500] if q else [1000, 1500, 2000, 2500],
    xlabel="flows sent per second per server (offered load 0.4 per 1000)", seeds=lambda q: 1 if q else 3,
    notes="Where Fig. 10's differences appear; 2500 flows/s per server fills every access link.",
)

register_random(
    "lpd-fig13a", "Fig. 13(a)", "LPD-e vs MLD vs LPD-d, uniform deadlines 20-40 ms",
    random_flows(PARETO, {"dist": "uniform", "min": "20ms", "max": "40ms", "only_below": "200KB"}, 0.4),
    [LPD_E, MLD, MLD_LINEAR, LPD_D],
    "LPD §VI: the forms 'do not differ in a great deal'. The text gives no setting: Fig. 10's "
    "random flows with deadlines uniform on §V-C's 20-40 ms. MLD as printed and MLD (linear), "
    "docs/fidelity.md.")


# ---------------------------------------------------------- Fig. 12 (§V-D)
def testbed_oldi(quick: bool) -> dict[str, Any]:
    return {
        "name": "lpd-testbed-oldi", "seed": 1, "stop": "200ms",
        "topology": {"kind": "star", "hosts": 6, "link_rate": "1Gbps", "prop_delay": "25us",
                     "proc_delay": "0us", "ecn_threshold": "37.5KB"},
        "protocol": {"name": "dctcp"},
        "workload": {"pattern": "aggregation", "receiver": 0, "flows": 5, "start": "10ms",
                     "size": {"dist": "fixed", "value": "50KB"}, "deadline": {"dist": "fixed", "value": "20ms"}},
        "flows": [{"src": h, "dst": 0, "size": "1GB", "start": "0ms"} for h in (4, 5)]}


register_generated(
    swept(testbed_oldi, "workload.size", lambda x: {"dist": "fixed", "value": f"{x:g}KB"}),
    name="lpd-fig12", paper="LPD", figure="Fig. 12",
    title="testbed OLDI as a simulation: deadline misses vs answer size, 20 ms deadlines",
    series=[DCTCP, D2TCP, LPD_E], x_key="answer size (KB)", xs=lambda q: [50, 200] if q else [50, 100, 150, 200],
    xlabel="answer size (KB)", seeds=lambda q: 1 if q else 10,
    paper_values={(LPD_E.label, 50): 0.0},  # "no miss for LPD-e" at 50 KB (§V-D)
    notes="LPD §V-D: two NetFPGA switches and six servers; one server receives answers from all "
          "the others, with long-lived background flows; 10 repetitions. Simulated as one 1 Gbps "
          "star port (the receiver's, the bottleneck either way), 100 us RTT, K = 25; one answer "
          "from each of the five other servers, two of which also send a background flow. Paper: "
          "no miss for LPD-e at 50 KB, D2TCP 'a small percentage'; all grow with size.",
)


def mean_fct_ms(res) -> float:
    return res.summary["fct_mean_s"] * 1e3


def concurrent_1mb(quick: bool) -> dict[str, Any]:
    return {"name": "lpd-s", "seed": 1, "topology": {"kind": "star", "hosts": 41, "link_rate": "1Gbps"},
            "protocol": {"name": "dctcp"},
            "workload": {"pattern": "aggregation", "receiver": 0, "flows": 1,
                         "size": {"dist": "fixed", "value": "1MB"}}}


register_generated(
    swept(concurrent_1mb, "workload.flows"), metric=mean_fct_ms,
    name="lpd-fig13b", paper="LPD", figure="Fig. 13(b)",
    title="mean FCT vs concurrent 1 MB flows on a 1 Gbps bottleneck",
    series=[L2DCT_RUN_ON, PFABRIC,
            Series("LPD-s", {"protocol": {"name": "lpd", "variant": "s", "s_max": "1MB"}}, "lpd")],
    x_key="concurrent flows", xs=lambda q: [1, 10] if q else [1, 5, 10, 15, 20, 25, 30, 35, 40],
    xlabel="number of concurrent flows", ylabel="mean flow completion time (ms)", seeds=lambda q: 1 if q else 3,
    notes="LPD §VI: 'LPD-s improves on L2DCT'. LPD-s counts the bytes left (s_basis) with s_max "
          "= the flows' 1 MB (the text gives no s_max here; §V-C's 200 KB would truncate every "
          "flow's s to 1 until its last 200 KB).",
)
