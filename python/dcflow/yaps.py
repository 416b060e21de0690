"""YAPS configuration files for `dcflow export --format yaps`.

YAPS (NetSys/simulator, the pHost authors' C++ packet simulator) reads two
files: a flow trace (written by the Rust exporter, docs/inputs.md) and a
``key: value`` configuration (run/params.cpp). This module writes the second
from a resolved scenario, so the trace runs in YAPS on the network and
transport the scenario describes, and refuses (one line naming the key) what
YAPS cannot express. Each mapping cites the YAPS source line that reads the
key, at commit 179b64e (docs/validation.md).
"""

from __future__ import annotations

import re
from typing import Any

#: YAPS's fixed topology (run/experiment.cpp:162-164; coresim/topology.cpp:51
#: puts host i under leaf i / 16).
LEAVES, HOSTS_PER_LEAF, SPINES = 9, 16, 4
#: YAPS's header (run/params.cpp:17) and payload (run/params.cpp:190): a full
#: packet is 1500 bytes on the wire.
HDR_SIZE, MSS = 40, 1460

#: YAPS's identifiers (ext/factory.h): queue_type, flow_type per protocol.
_PROTOCOLS = {"pfabric": (2, 2), "tcp": (1, 42), "dctcp": (5, 43)}
_QUEUE_OF = {"pfabric": "pfabric", "tcp": "droptail", "dctcp": "ecn"}

#: Keys every YAPS configuration carries, as py/run_experiments.py writes
#: them; YAPS reads none of them for a trace-driven run of these protocols
#: but asserts on a missing colon and zero-fills absent ones.
_FIXED = """preemptive_queue: 0
big_switch: 0
host_type: 1
traffic_imbalance: 0
mean_flow_size: 0
reauth_limit: 3
magic_trans_slack: 1.1
magic_delay_scheduling: 1
smooth_cdf: 1
burst_at_beginning: 0
capability_timeout: 1.5
capability_resend_timeout: 9
capability_initial: 8
capability_window: 8
capability_window_timeout: 25
ddc: 0
ddc_cpu_ratio: 0.33
ddc_mem_ratio: 0.33
ddc_disk_ratio: 0.34
ddc_normalize: 2
ddc_type: 0
deadline: 0
schedule_by_deadline: 0
avg_deadline: 0.0001
capability_third_level: 1
capability_fourth_level: 0
magic_inflate: 1
interarrival_cdf: none
num_host_types: 13
permutation_tm: 0
"""

_UNITS = {"ps": 1e-12, "ns": 1e-9, "us": 1e-6, "ms": 1e-3, "s": 1.0,
          "B": 1, "KB": 1e3, "MB": 1e6, "GB": 1e9, "KiB": 1024, "MiB": 1024**2, "GiB": 1024**3,
          "bps": 1, "Kbps": 1e3, "Mbps": 1e6, "Gbps": 1e9}


class YapsError(ValueError):
    """A scenario YAPS cannot run as written; the message starts with the key."""


def quantity(text: str) -> float:
    """A quantity as a resolved scenario writes it ("40Gbps", "200ns",
    "36864B", or with a decimal point, "0.2us") in base units (seconds,
    bytes, bit/s)."""
    m = re.fullmatch(r"(\d+(?:\.\d+)?)([A-Za-z]+)", text)
    assert m and m.group(2) in _UNITS, f"not a resolved quantity: {text!r}"
    return float(m.group(1)) * _UNITS[m.group(2)]


def _require(ok: bool, key: str, message: str) -> None:
    if not ok:
        raise YapsError(f"{key}: {message}")


def _network(t: dict[str, Any]) -> dict[str, Any]:
    """YAPS's network keys from `[topology]`."""
    shape = (t.get("kind"), t.get("leaves"), t.get("hosts_per_leaf"), t.get("spines"))
    _require(shape == ("leaf_spine", LEAVES, HOSTS_PER_LEAF, SPINES), "topology",
             f"YAPS simulates only its 144-host leaf-spine: kind = \"leaf_spine\", leaves = {LEAVES}, "
             f"hosts_per_leaf = {HOSTS_PER_LEAF}, spines = {SPINES}")
    rate = quantity(t["link_rate"])
    # coresim/topology.cpp:30: uplinks carry a leaf's hosts over the spines.
    _require(quantity(t.get("spine_link_rate") or t["link_rate"]) == rate * HOSTS_PER_LEAF / SPINES,
             "topology.spine_link_rate", f"YAPS's uplinks run at {HOSTS_PER_LEAF // SPINES}x link_rate")
    _require(quantity(t.get("proc_delay", "0s")) == 0, "topology.proc_delay", "YAPS has no switch delay; set \"0us\"")
    _require(t.get("mtu", 1500) == MSS + HDR_SIZE, "topology.mtu", f"YAPS sends {MSS + HDR_SIZE}-byte packets")
    routing = t.get("routing", "ecmp")
    # coresim/topology.cpp:97-100: 0 sprays round-robin from a per-port
    # counter, 1 hashes (src + dst + flow id) per flow.
    if routing == "spray":
        _require(t.get("spray_order") == "round_robin", "topology.spray_order",
                 "YAPS sprays round-robin; set \"round_robin\"")
    else:
        _require(routing == "ecmp", "topology.routing", "YAPS routes by \"ecmp\" or \"spray\"")
    return {"bandwidth": rate, "propagation_delay": quantity(t["prop_delay"]),
            "queue_size": int(quantity(t["buffer"])), "load_balancing": 0 if routing == "spray" else 1}


def _transport(p: dict[str, Any], t: dict[str, Any]) -> dict[str, Any]:
    """YAPS's transport keys from `[protocol]` (and DCTCP's K)."""
    name = p["name"]
    _require(name in _PROTOCOLS, "protocol.name", "YAPS runs \"pfabric\", \"tcp\" or \"dctcp\"")
    _require(t.get("queue", _QUEUE_OF[name]) == _QUEUE_OF[name], "topology.queue",
             f"YAPS runs {name} over a \"{_QUEUE_OF[name]}\" queue")
    queue_type, flow_type = _PROTOCOLS[name]
    out: dict[str, Any] = {"queue_type": queue_type, "flow_type": flow_type}
    if name == "pfabric":
        # One window and one timeout for every flow (coresim/flow.cpp:35-42).
        _require(p.get("init_window", 0) > 0, "protocol.init_window",
                 "YAPS has one initial window for every flow; set it (YAPS's pFabric uses 12)")
        _require("rto" in p, "protocol.rto", "YAPS has one timeout for every flow; set it (YAPS's pFabric uses \"45us\")")
        out.update(init_cwnd=p["init_window"], max_cwnd=p.get("max_window") or 2 * p["init_window"],
                   retx_timeout=quantity(p["rto"]))
        return out
    # ext/tcpflow.cpp:9 starts TCP at one packet after a SYN exchange
    # (:13-30); DCTCP starts at init_cwnd with no handshake (coresim/flow.cpp:62-64).
    _require(p.get("handshake", True) == (name == "tcp"), "protocol.handshake",
             f"YAPS's {name} {'opens with' if name == 'tcp' else 'has no'} SYN exchange; set {str(name == 'tcp').lower()}")
    if name == "tcp":
        _require(p.get("init_cwnd") == 1, "protocol.init_cwnd", "YAPS's TCP starts at 1 packet; set 1")
    _require(p.get("max_cwnd") is not None, "protocol.max_cwnd", "YAPS caps every window; set it (e.g. 15)")
    out.update(init_cwnd=p["init_cwnd"], max_cwnd=p["max_cwnd"], retx_timeout=quantity(p["rto_min"]))
    if name == "dctcp":
        # ext/dctcpQueue.cpp:24 marks when the queue, arrival included, holds
        # at least T packets; dcflow marks an arrival that finds more than K
        # bytes queued: with full packets T = K // 1500 + 2.
        out["dctcp_mark_thresh"] = int(quantity(t["ecn_threshold"])) // (MSS + HDR_SIZE) + 2
    return out


def config(resolved: dict[str, Any], trace_name: str, flows: int) -> str:
    """The YAPS configuration for `resolved` (a resolved scenario) reading
    the trace `trace_name` (relative to where YAPS runs) of `flows` flows.
    Raises `YapsError` for what YAPS cannot express."""
    t, p = resolved["topology"], resolved["protocol"]
    _require(resolved.get("engine", "packet") == "packet", "engine", "YAPS is a packet simulator; use \"packet\"")
    keys = {**_network(t), **_transport(p, t)}
    # cut_through 0: dcflow's switches store and forward
    # (coresim/event.cpp:254-260 forwards after the header when 1).
    keys.update(num_flow=flows, flow_trace=trace_name, use_flow_trace=1, cut_through=0, hdr_size=HDR_SIZE, load=0.5)
    keys.setdefault("dctcp_mark_thresh", 0)
    lines = [f"{k}: {v:.12g}" if isinstance(v, float) else f"{k}: {v}" for k, v in keys.items()]
    return "\n".join(lines) + "\n" + _FIXED
