"""What the catalog's entries share: the series (protocols as the papers label
them) and the papers' default settings (papers/*.txt).

Conventions: PDQ §5.1's default setting is the 12-server two-level tree
(4 racks x 3 hosts, 1 Gbps everywhere, 4 MB buffers, 0.1 us propagation and
25 us processing per hop), query aggregation to host 0, flow sizes U[2 KB,
198 KB], deadlines exponential with mean 20 ms and a 3 ms floor. D3 §6.1.1's
flow burst is one rack (aggregator + workers behind one ToR, so a star of 3
hosts; multiple workers per host, as in the paper), responses U[2 KB, 50 KB].
"""

from __future__ import annotations

from typing import Any

from dcflow.repro import Series

# ------------------------------------------------------------------ series
PDQ_FULL = Series("PDQ(Full)", {"protocol": {"name": "pdq", "variant": "full"}}, "pdq")
PDQ_ESET = Series("PDQ(ES+ET)", {"protocol": {"name": "pdq", "variant": "es_et"}}, "pdq")
PDQ_ES = Series("PDQ(ES)", {"protocol": {"name": "pdq", "variant": "es"}}, "pdq")
PDQ_BASIC = Series("PDQ(Basic)", {"protocol": {"name": "pdq", "variant": "basic"}}, "pdq")
D3 = Series("D3", {"protocol": {"name": "d3"}}, "d3")
#: The D3 the PDQ paper compares against (PDQ §5.1): "a complete version of
#: D3 ... and the quenching algorithm", with the fair share "always
#: non-negative, which improves D3's performance". The D3 paper's own figures
#: use `D3` (Snippet 1 as printed, quenching only where §6.1.3 turns it on).
D3_PDQ = Series("D3", {"protocol": {"name": "d3", "quenching": True, "nonnegative_fair_share": True}}, "d3")
RCP = Series("RCP", {"protocol": {"name": "rcp"}}, "rcp")
RCP_DC = Series("RCP_dc", {"protocol": {"name": "rcp"}}, "rcp")
TCP = Series("TCP", {"protocol": {"name": "tcp"}}, "tcp")
#: D3's testbed TCP (D3 §6.1.2: "Given the retransmission timeout value
#: (RTO=300ms)"); `TCP` is the reduced-RTO TCP (10 ms) both papers also run.
TCP_STOCK = Series("TCP (RTO 300ms)", {"protocol": {"name": "tcp", "rto_min": "300ms"}}, "tcp")
#: D3's TCP_pr (§6.1.1): TCP with switch priority queuing, "flows with short
#: deadlines are mapped to the higher priority class" (two levels), and
#: background flows below them (three levels with background, Fig. 12). The
#: paper gives no split: deadlines up to 20 ms (the tight class's mean) go
#: high (docs/fidelity.md).
TCP_PR = Series("TCP_pr", {"protocol": {"name": "tcp", "priority_deadlines": ["20ms"]},
                           "topology.queue": "priority"}, "tcp")
#: D3 §5: the D3 router (a server-grade PC, which also ran RCP_dc, D3 §6)
#: "has a buffer of 128KB per NIC"; the TCP series ran on the testbed's
#: hardware switches (§6.1.1: the NetGear's "buffer of 100KB", which
#: `d3_rack` gives every series). `on_d3_router(D3)` is D3 on the router.
D3_ROUTER_BUFFER = {"topology.buffer": "128KB"}


def on_d3_router(s: Series) -> Series:
    """Series `s` with the D3 router's 128 KB per-port buffer (D3 §5)."""
    return Series(s.label, {**s.overrides, **D3_ROUTER_BUFFER}, s.needs)


DCTCP = Series("DCTCP", {"protocol": {"name": "dctcp"}}, "dctcp")
D2TCP = Series("D2TCP", {"protocol": {"name": "d2tcp"}}, "d2tcp")
L2DCT = Series("L2DCT", {"protocol": {"name": "l2dct"}}, "l2dct")
PFABRIC = Series("pFabric", {"protocol": {"name": "pfabric"}}, "pfabric")
LPD_S = Series("LPD-s", {"protocol": {"name": "lpd", "variant": "s"}}, "lpd")
LPD_D = Series("LPD", {"protocol": {"name": "lpd", "variant": "d"}}, "lpd")


def fluid(label: str, discipline: str) -> Series:
    return Series(label, {"engine": "fluid", "protocol": {"name": discipline}}, f"fluid:{discipline}")


OPTIMAL = fluid("Optimal", "optimal")

PDQ_ALL = [PDQ_FULL, PDQ_ESET, PDQ_ES, PDQ_BASIC, D3_PDQ, RCP, TCP, OPTIMAL]


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
        # ToR. 100 KB buffer (the paper's hardware switch, D3 §6.1.1; the D3
        # and RCP_dc series override it with the router's 128 KB, D3 §5,
        # `on_d3_router`); 100 us per link +
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

