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

#: YAPS's identifiers (ext/factory.h): queue_type, flow_type, host_type per
#: protocol. pHost is the capability flow on capability hosts over the
#: pFabric queue (py/run_experiments.py, conf_str_phost).
_PROTOCOLS = {"pfabric": (2, 2, 1), "tcp": (1, 42, 1), "dctcp": (5, 43, 1), "phost": (2, 112, 12)}
_QUEUE_OF = {"pfabric": "pfabric", "tcp": "droptail", "dctcp": "ecn", "phost": "priority"}

#: Keys every YAPS configuration carries, as py/run_experiments.py writes
#: them; YAPS asserts on a missing colon and zero-fills absent ones. Only
#: pHost reads the capability keys, which its `[protocol]` keys replace.
_FIXED = """preemptive_queue: 0
big_switch: 0
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
    _require(name in _PROTOCOLS, "protocol.name", "YAPS runs \"pfabric\", \"tcp\", \"dctcp\" or \"phost\"")
    _require(t.get("queue", _QUEUE_OF[name]) == _QUEUE_OF[name], "topology.queue",
             f"YAPS runs {name} over a \"{_QUEUE_OF[name]}\" queue")
    queue_type, flow_type, host_type = _PROTOCOLS[name]
    out: dict[str, Any] = {"queue_type": queue_type, "flow_type": flow_type, "host_type": host_type}
    if name == "phost":
        return {**out, **_phost(p)}
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


def _phost(p: dict[str, Any]) -> dict[str, Any]:
    """YAPS's capability keys from pHost's `[protocol]` (run/params.cpp:94-125;
    the times in full-packet transmission times, as dcflow's)."""
    # ext/capabilityflow.cpp:375-377: only a flow of at most
    # capability_initial packets gets free tokens, all of them.
    _require(p.get("free_tokens_for") == "short", "protocol.free_tokens_for",
             "YAPS gives free tokens only to flows that fit in them; set \"short\"")
    # ext/capabilityflow.cpp:58: every data packet at priority 2 (with
    # capability_prio_thresh unset, 0), below the control packets' 0.
    _require(p.get("unscheduled") == "low", "protocol.unscheduled",
             "YAPS sends every data packet at the low priority; set \"low\"")
    _require(p.get("wake_on") == "timer", "protocol.wake_on",
             "YAPS's destination wakes only on its timer or an RTS; set \"timer\"")
    _require(p.get("downgrade_after", 0) > 0, "protocol.downgrade_after",
             "YAPS has one downgrade threshold for every flow; set it (YAPS's pHost uses 8)")
    return {"capability_initial": p["free_tokens"], "capability_timeout": float(p["token_expiry"]),
            "capability_window": p["downgrade_after"], "capability_window_timeout": float(p["downgrade_for"]),
            "capability_resend_timeout": float(p["resend_after"]), "capability_third_level": 1,
            "capability_fourth_level": 0,
            # conf_str_phost's; the capability flow reads neither.
            "init_cwnd": 2, "max_cwnd": 6, "retx_timeout": 9.50003e-06}


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
    fixed = [line for line in _FIXED.splitlines() if line.split(":")[0] not in keys]
    return "\n".join(lines + fixed) + "\n"
