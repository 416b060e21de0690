"""Every scenario key: its type, unit, default, allowed values and the paper
section it comes from (`dcflow keys [SECTION]`, docs/keys.md).

The parser (crates/dcflow-scenario and the crates it reads) is the
authority on which keys exist and which names an enumerated key takes;
tests/test_keys.py feeds it each section and fails when it accepts a key,
or a name, that this table lacks. Defaults are not copied here: they are
read from the parser's resolved scenario (:func:`default`), so they cannot
drift; `default` below is text only for keys the resolved scenario leaves
out (unset options) or whose default depends on other keys (per pattern,
per protocol).
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from functools import lru_cache
from typing import Any

__all__ = ["KEYS", "Key", "PROTOCOLS", "SECTIONS", "default", "select", "render_text", "render_markdown"]

#: The units a value of each type is written in (README "A scenario").
UNITS = {
    "time": "s ms us ns ps",
    "rate": "bps Kbps Mbps Gbps",
    "size": "B KB MB GB KiB MiB GiB",
    "list of times": "s ms us ns ps",
    "list of sizes": "B KB MB GB KiB MiB GiB",
}

TCP_FAMILY = ("tcp", "dctcp", "d2tcp", "lpd", "l2dct", "pias", "karuna")
DCTCP_FAMILY = ("dctcp", "d2tcp", "lpd", "l2dct", "pias", "karuna")
MLFQ = ("pias", "karuna")
IMMINENCE = ("d2tcp", "lpd")
EXPLICIT_RATE = ("rcp", "d3")
IDEAL = ("fair", "srpt", "sjf", "edf", "fifo", "reservation", "optimal")
PROTOCOLS = (*TCP_FAMILY, *EXPLICIT_RATE, "pfabric", "pdq", *IDEAL, "s3", "merp", "phost", "homa")


@dataclass(frozen=True)
class Key:
    """One key. `path` is dotted, `[]` marking an array of tables
    (`flows[].src`); `only` names the protocols (for protocol keys) or the
    topology kinds / patterns that read it."""

    path: str
    type: str
    doc: str
    allowed: str = ""
    paper: str = ""
    default: str = ""
    only: tuple[str, ...] = ()

    @property
    def section(self) -> str:
        first = self.path.split(".")[0].split("[")[0]
        return first if first in SECTIONS else "scenario"

    @property
    def name(self) -> str:
        return self.path.rsplit(".", 1)[-1]

    @property
    def unit(self) -> str:
        return UNITS.get(self.type, "")


def _k(path, type, doc, allowed="", paper="", default="", only=()):
    return Key(path, type, doc, allowed, paper, default, tuple(only))


def _protocol(name, type, doc, only, allowed="", paper="", default=""):
    return Key(f"protocol.{name}", type, doc, allowed, paper, default, tuple(only))


KEYS: tuple[Key, ...] = (
    # ------------------------------------------------------------- top level
    _k("name", "string", "Names the run in summaries and plots."),
    _k("seed", "integer", "Seed of every random choice (flows, ECMP hashes, losses)."),
    _k("engine", "name", "packet: every packet through store-and-forward switches; fluid: flows as fluids "
       "whose rates change at events (the ideal disciplines, flow-level rcp, d3, pdq).",
       "packet | fluid", "PDQ §5.5 (flow level)"),
    _k("stop", "time", "Limit on simulated time; flows unfinished by then are reported unfinished.",
       default="none"),
    _k("stall", "time", "A run in which no flow makes progress for this long ends with status \"stalled\".",
       default="2min for the TCP family, else max(1s, 2 rto_min)"),
    # -------------------------------------------------------------- topology
    _k("topology.kind", "name", "The topology.", "star | tree | leaf_spine | fat_tree | bcube | jellyfish | custom",
       "PDQ §5.1, D3 §6 (tree); PDQ §6 (bcube)"),
    _k("topology.link_rate", "rate", "Rate of every host link (and of the others unless given).", paper="PDQ §5.1, D3 §6"),
    _k("topology.prop_delay", "time", "Propagation delay per link, one direction."),
    _k("topology.proc_delay", "time", "Processing delay per forwarding hop (switch, or a BCube server relaying).",
       paper="PDQ §5.1 (25us)"),
    _k("topology.buffer", "size", "Buffer per output port.", paper="PDQ §5.1 (4MB)"),
    _k("topology.mtu", "integer", "Largest packet on the wire in bytes, headers included."),
    _k("topology.routing", "name", "Path choice among equal-cost next hops.",
       "ecmp | single | spray | flowlet | conga | memr", "CONGA (conga); MERP Alg. 4-6 (memr)"),
    _k("topology.spray_order", "name", "routing = \"spray\": how packets are sprayed.", "random | round_robin",
       default="random"),
    _k("topology.flowlet_gap", "time", "routing = \"flowlet\" or \"conga\": idle gap that starts a flowlet.",
       paper="CONGA (T_fl)", default="500us"),
    _k("topology.conga_q", "integer", "routing = \"conga\": bits of the congestion metric.", paper="CONGA §3.6",
       default="3"),
    _k("topology.conga_tdre", "time", "routing = \"conga\": DRE decay period T_dre.", paper="CONGA §3.6",
       default="16us"),
    _k("topology.conga_alpha", "number", "routing = \"conga\": DRE decay factor alpha.", paper="CONGA §3.6",
       default="0.1"),
    _k("topology.conga_aging", "time", "routing = \"conga\": age after which a Congestion-To-Leaf entry counts as 0.",
       default="10ms"),
    _k("topology.queue", "name", "Switch queue discipline.", "droptail | ecn | priority | pfabric | priority_pushout",
       "MERP §4.3.1 (priority_pushout)",
       "the protocol's (ecn for the DCTCP family, pfabric, priority with 2 classes for phost, "
       "protocol.priorities for homa, ...)"),
    _k("topology.ecn_threshold", "size", "queue = \"ecn\": marking threshold K; queue = \"priority\": mark when "
       "the whole port (every class) holds more than K.", paper="DCTCP §4; PIAS (per-port ECN)",
       default="20 packets below 10 Gbps, 65 from 10 Gbps (priority: none, except under pias and karuna)"),
    _k("topology.priority_classes", "integer", "queue = \"priority\": strict-priority classes.", default="8"),
    _k("topology.hosts", "integer", "star: hosts on the switch.", only=("star",)),
    _k("topology.racks", "integer", "tree: racks under the root (4 x 3 is PDQ/D3's 12-server tree).",
       paper="PDQ §5.1, D3 §6", only=("tree",)),
    _k("topology.hosts_per_rack", "integer", "tree: hosts per rack.", only=("tree",)),
    _k("topology.core_link_rate", "rate", "tree: rate of the ToR-root links.", default="link_rate", only=("tree",)),
    _k("topology.leaves", "integer", "leaf_spine: leaf switches.", only=("leaf_spine",)),
    _k("topology.hosts_per_leaf", "integer", "leaf_spine: hosts per leaf.", only=("leaf_spine",)),
    _k("topology.spines", "integer", "leaf_spine: spine switches.", only=("leaf_spine",)),
    _k("topology.spine_link_rate", "rate", "leaf_spine: rate of the leaf-spine links.", default="link_rate",
       only=("leaf_spine",)),
    _k("topology.k", "integer", "fat_tree: ports per switch, even (k^3/4 hosts); bcube: levels minus one.",
       paper="PDQ §6 (bcube)", only=("fat_tree", "bcube")),
    _k("topology.n", "integer", "bcube: ports per switch.", paper="PDQ §6", only=("bcube",)),
    _k("topology.switches", "integer", "jellyfish: switches.", only=("jellyfish",)),
    _k("topology.ports", "integer", "jellyfish: ports per switch.", only=("jellyfish",)),
    _k("topology.hosts_per_switch", "integer", "jellyfish: hosts per switch; the other ports join the random graph.",
       only=("jellyfish",)),
    _k("topology.nodes", "array of tables", "custom: the nodes; hosts are the host nodes in list order "
       "(docs/inputs.md).", default="required", only=("custom",)),
    _k("topology.nodes[].name", "string", "custom: the node's name.", default="required", only=("custom",)),
    _k("topology.nodes[].kind", "name", "custom: what the node is.", "host | switch", default="required",
       only=("custom",)),
    _k("topology.links", "array of tables", "custom: the links, each bidirectional.", default="required",
       only=("custom",)),
    _k("topology.links[].a", "string", "custom: one end (a node name).", default="required", only=("custom",)),
    _k("topology.links[].b", "string", "custom: the other end.", default="required", only=("custom",)),
    _k("topology.links[].rate", "rate", "custom: the link's rate.", default="link_rate", only=("custom",)),
    _k("topology.links[].prop_delay", "time", "custom: the link's propagation delay.", default="prop_delay",
       only=("custom",)),
    _k("topology.links[].buffer", "size", "custom: buffer of the ports at both ends.", default="buffer",
       only=("custom",)),
    # -------------------------------------------------------------- protocol
    _k("protocol.name", "name", "The transport (README \"What's inside\").",
       " | ".join(PROTOCOLS)),
    _protocol("rto_min", "time", "Lower bound of the retransmission timeout.", TCP_FAMILY,
              paper="D3 §6.1.2, PDQ §5.1 (TCP with small RTO_min)"),
    _protocol("rto_init", "time", "Retransmission timeout before the first RTT sample.", TCP_FAMILY,
              paper="RFC 6298 §2.1", default="max(rto_min, 3 base RTTs)"),
    _protocol("init_cwnd", "integer", "Initial congestion window in packets.", TCP_FAMILY, paper="D3 §4.5"),
    _protocol("dupack_threshold", "integer", "Duplicate ACKs that trigger fast retransmit.", TCP_FAMILY,
              paper="RFC 5681 §3.2"),
    _protocol("max_cwnd", "integer", "Cap on the congestion window in packets.", TCP_FAMILY, default="no cap"),
    _protocol("init_ssthresh", "integer", "Initial slow-start threshold in packets.", TCP_FAMILY,
              paper="RFC 5681 §3.1", default="arbitrarily high"),
    _protocol("timestamps", "bool", "RTT samples from every ACK, retransmissions included (RFC 7323 §4); "
              "false: Karn's rule.", TCP_FAMILY, paper="RFC 6298 §3 (false)", default="false"),
    _protocol("handshake", "bool", "SYN / SYN-ACK exchange (one RTT) before the first data packet.", TCP_FAMILY),
    _protocol("priority_deadlines", "list of times", "TCP_pr: deadline thresholds of the switch priority classes "
              "(needs topology.queue = \"priority\").", ("tcp",), paper="D3 §6.1.1", default="[] (one class)"),
    _protocol("stop_at_deadline", "bool", "Give a deadline flow up at its deadline.", TCP_FAMILY,
              paper="LPD §III-A"),
    _protocol("g", "number", "DCTCP's weight g of the newest marked fraction.", DCTCP_FAMILY, paper="DCTCP §3.1"),
    _protocol("alpha_init", "number", "Initial alpha.", DCTCP_FAMILY, paper="RFC 8257 §3.3"),
    _protocol("d_min", "number", "Lowest deadline imminence d.", IMMINENCE, paper="D2TCP"),
    _protocol("d_max", "number", "Highest deadline imminence d.", IMMINENCE, paper="D2TCP"),
    _protocol("d_after_deadline", "number", "d once the deadline has passed.", IMMINENCE),
    _protocol("tc_rate", "name", "What D2TCP's T_c assumes the flow sends at.", IMMINENCE, "window | line_rate"),
    _protocol("variant", "name", "LPD's window rule.", ("lpd",), "d | lpd | t | e | mld | s", "LPD §IV, §VI"),
    _protocol("t_max", "time", "Upper bound of t, a flow's deadline span.", ("lpd",), paper="LPD §V-C"),
    _protocol("s_max", "size", "Upper bound of s, a flow's size.", ("lpd",), paper="LPD §V-C"),
    _protocol("s_basis", "name", "What LPD's s counts.", ("lpd",), "total | remaining | sent",
              default="total for variant e, remaining for s"),
    _protocol("mld_form", "name", "MLD's branch below d = 1.", ("lpd",), "printed | linear", "LPD §VI"),
    _protocol("w_max", "number", "L2DCT weight of a flow that has sent at most s_min.", ("l2dct",),
              paper="L2DCT (ns-2 defaults)"),
    _protocol("w_min", "number", "L2DCT weight of a flow that has sent at least s_max.", ("l2dct",),
              paper="L2DCT (ns-2 defaults)"),
    _protocol("s_min", "size", "Bytes sent below which a flow is young.", ("l2dct",)),
    _protocol("s_max", "size", "Bytes sent from which a flow is old.", ("l2dct",)),
    _protocol("thresholds", "list of sizes", "PIAS' demotion thresholds on the bytes a flow has sent "
              "(class k: the first k they do not exceed); Karuna's for type-3 flows, under its deadline class.",
              MLFQ, paper="PIAS ns-2 scripts (web search)",
              default="pias: 46, 1084, 1717, 1943, 1989, 1999, 2001 x 1460 B; karuna: the first six"),
    _protocol("size_thresholds", "list of sizes", "Karuna's thresholds on the size of a type-2 flow (size known).",
              ("karuna",), paper="Karuna (type-2 flows)", default="karuna's thresholds"),
    _protocol("alpha", "number", "Capacity controller alpha.", EXPLICIT_RATE, paper="D3 footnote 4"),
    _protocol("beta", "number", "Capacity controller beta.", EXPLICIT_RATE, paper="D3 footnote 4"),
    _protocol("interval", "time", "Capacity controller interval T.", EXPLICIT_RATE, paper="D3 footnote 4"),
    _protocol("base_rate", "rate", "Minimum allocation: one header-only request per RTT.", EXPLICIT_RATE,
              paper="D3 §4.2"),
    _protocol("nonnegative_fair_share", "bool", "Never let the fair share go negative.", EXPLICIT_RATE,
              paper="PDQ §5.1"),
    _protocol("quenching", "bool", "Flow quenching: give up when the desired rate exceeds the uplink or the "
              "deadline has passed.", EXPLICIT_RATE, paper="D3 §6.1.3"),
    _protocol("rto_min", "time", "Lower bound of the timeout (3 smoothed RTTs above it).", EXPLICIT_RATE,
              paper="D3 §5"),
    _protocol("capacity_max", "number", "Upper bound of the controller's C, in multiples of the link rate.",
              EXPLICIT_RATE, paper="D3 §4.4, Fig. 12", default="no bound"),
    _protocol("init_window", "integer", "Initial window in packets; 0: the path's BDP.", ("pfabric",),
              paper="pFabric §4.3"),
    _protocol("max_window", "integer", "Largest window in packets; 0: twice the initial window.", ("pfabric",)),
    _protocol("rto_rtts", "number", "Retransmission timeout in base RTTs.", ("pfabric",), paper="pFabric §5"),
    _protocol("rto", "time", "A fixed retransmission timeout instead of rto_rtts.", ("pfabric",),
              paper="pFabric §5", default="none (rto_rtts)"),
    _protocol("probe_after", "integer", "Consecutive timeouts before probe mode.", ("pfabric",),
              paper="pFabric §4.3"),
    _protocol("variant", "name", "PDQ's variant.", ("pdq",), "basic | es | es_et | full", "PDQ §5.1"),
    _protocol("early_start_k", "number", "Early Start threshold K.", ("pdq",), paper="PDQ §3.3.2"),
    _protocol("probe_x", "number", "Suppressed Probing constant X, in RTTs.", ("pdq",), paper="PDQ §3.3.2"),
    _protocol("dampening", "number", "Dampening period in average RTTs; 0 disables it.", ("pdq",),
              paper="PDQ §3.3.2"),
    _protocol("r_pdq", "number", "r_PDQ of the rate controller, a fraction of the link rate.", ("pdq",),
              paper="PDQ §3.3.3"),
    _protocol("min_rate", "number", "Smallest rate a switch grants, a fraction of its link rate.", ("pdq",)),
    _protocol("max_flows", "integer", "Limit M on the flows a switch port stores.", ("pdq",), paper="PDQ §3.3.1",
              default="no limit"),
    _protocol("comparator", "name", "Switch-side flow comparator.", ("pdq",), "edf_sjf | sjf", "PDQ §3.3"),
    _protocol("criticality", "name", "Sender-side criticality key.", ("pdq",), "size | random | estimate", "PDQ §5.6"),
    _protocol("estimate_step", "size", "Size estimation step.", ("pdq",), paper="PDQ §5.6"),
    _protocol("aging_alpha", "number", "Aging rate alpha; 0 disables aging.", ("pdq",), paper="PDQ §7, Fig. 12"),
    _protocol("aging_unit", "time", "Time unit of the aging exponent.", ("pdq",), paper="PDQ §7"),
    _protocol("rto_min", "time", "Lower bound of the retransmission timeout.", ("pdq",), paper="PDQ §3.1"),
    _protocol("list", "name", "Flows a switch port keeps in its list.", ("pdq",), "2kappa | unbounded", "PDQ §3.3.1"),
    _protocol("unlisted_index", "name", "Suppressed Probing's index of a flow outside the list.", ("pdq",),
              "rank | list_end", "PDQ §3.3.2"),
    _protocol("paused_elsewhere", "name", "Algorithm 1 on a packet paused by another switch.", ("pdq",),
              "untouched | cap", "PDQ Alg. 1"),
    _protocol("rto_rtts", "number", "Retransmission timeout in smoothed RTTs above rto_min.", ("pdq",),
              paper="PDQ §3.1"),
    _protocol("et_remaining", "name", "Remaining size Early Termination's condition (2) uses.", ("pdq",),
              "unacked | unsent", "PDQ §3.3.2"),
    _protocol("subflows", "integer", "M-PDQ: subflows per flow, each on its own path.", ("pdq",), paper="PDQ §6"),
    _protocol("shift_period", "number", "M-PDQ: load shifting period in RTTs.", ("pdq",), paper="PDQ §6"),
    _protocol("subflow_criticality", "name", "M-PDQ: the criticality a subflow carries.", ("pdq",), "own | flow",
              "PDQ §6"),
    _protocol("subflow_paths", "name", "M-PDQ: the subflows' paths.", ("pdq",), "parallel | shortest | ecmp",
              "PDQ §6"),
    _protocol("early_termination", "bool", "Drop deadline flows that cannot meet their deadline.", IDEAL,
              paper="PDQ (Early Termination)"),
    _protocol("early_termination", "bool", "Stop a deadline flow once it cannot finish by its deadline.", ("s3",),
              paper="S3 §4.2"),
    _protocol("probe_factor", "number", "The constant of Eq. 2, P_i = 0.2 RTT_avg I_i.", ("s3",), paper="S3 §4.2"),
    _protocol("rto_rtts", "number", "Retransmission timer in RTTs.", ("s3",), paper="S3 §4.2"),
    _protocol("early_start_k", "number", "PDQ's Early Start threshold K; 0: none.", ("s3",), paper="PDQ §3.3.2"),
    _protocol("alpha", "number", "Largest share of a link's capacity DATA may use.", ("merp",), paper="MERP §4.3.3, §6.1"),
    _protocol("theta", "rate", "Detecting rate threshold.", ("merp",), paper="MERP §4.1, §6.1"),
    _protocol("rto_min", "time", "Floor of the retransmission timeout SRTT + 4 RTTVAR.", ("merp",)),
    _protocol("early_termination", "bool", "Fluid engine: drop deadline flows that cannot meet their deadline.",
              ("merp",)),
    _protocol("free_tokens", "integer", "Packets a flow sends unscheduled at its start; 0: the path's BDP.",
              ("phost",), paper="pHost §3; YAPS capability_initial = 8", default="0 (BDP)"),
    _protocol("free_tokens_for", "name", "all: every flow gets free tokens; short: only a flow of at most "
              "free_tokens packets, all of them (YAPS).", ("phost",), "all | short",
              paper="pHost §3; YAPS capabilityflow.cpp init_capa_size"),
    _protocol("unscheduled", "name", "Priority of data sent on free tokens (scheduled data is low).",
              ("phost",), "high | low", paper="pHost §3; YAPS sends all data low"),
    _protocol("wake_on", "name", "What wakes a destination with no flow it may token: packet: any packet "
              "(a source answering its tokens ends its downgrade at once); timer: only its earliest timer or a "
              "new RTS (YAPS).", ("phost",), "packet | timer", paper="pHost §3; YAPS capabilityhost.cpp"),
    _protocol("token_expiry", "number", "A token expires this many MTU transmission times after it arrives.",
              ("phost",), paper="pHost §3; YAPS capability_timeout = 1.5"),
    _protocol("downgrade_after", "integer", "Unanswered tokens after which a destination downgrades the source; "
              "0: the path's BDP.", ("phost",), paper="pHost §3; YAPS capability_window = 8", default="0 (BDP)"),
    _protocol("downgrade_for", "number", "MTU transmission times a downgraded source gets no tokens.",
              ("phost",), paper="pHost §3; YAPS capability_window_timeout = 25"),
    _protocol("resend_after", "number", "MTU transmission times a destination waits before tokening missing "
              "packets again (retransmission).", ("phost",), paper="pHost §3; YAPS capability_resend_timeout = 9"),
    _protocol("rts_retry_rtts", "number", "Base RTTs without a token or the final ACK after which a source "
              "sends its RTS again (dcflow's; neither the paper nor YAPS retries).", ("phost",)),
    _protocol("rtt_bytes", "size", "RTTbytes: the bytes a message sends unscheduled, and that its receiver keeps "
              "granted beyond what arrived.", ("homa",), paper="Homa §3.2; HomaSimulation 9.7-10 KB at 10 Gbps",
              default="each path's bandwidth-delay product"),
    _protocol("priorities", "integer", "Strict priority levels per switch port (1 to 8); sets "
              "topology.priority_classes.", ("homa",), paper="Homa §3.4"),
    _protocol("unscheduled_priorities", "integer", "Levels for unscheduled packets (the highest); 0: the share of "
              "the workload's bytes that are unscheduled.", ("homa",), paper="Homa §3.4", default="0 (workload)"),
    _protocol("unscheduled_cutoffs", "list of sizes", "Message sizes splitting the unscheduled levels, ascending; "
              "empty: equal shares of the workload's unscheduled bytes.", ("homa",), paper="Homa §3.4",
              default="[] (workload)"),
    _protocol("overcommitment", "integer", "Messages a receiver grants at once; 0: the number of scheduled "
              "levels.", ("homa",), paper="Homa §3.5; HomaSimulation numSendersToKeepGranted",
              default="0 (scheduled levels)"),
    _protocol("resend_timeout", "time", "Silence after which a receiver sends RESEND (and a sender waiting for "
              "its receiver sends its first packet again).", ("homa",), paper="Homa §3.7; HomaModule resend_ticks",
              default="10 x overcommitment x RTTbytes at line rate"),
    # -------------------------------------------------------------- workload
    _k("workload.pattern", "name", "Who sends to whom.",
       "aggregation | stride | staggered | permutation | all_to_all | explicit", "D3 §6.1, PDQ §5.1"),
    _k("workload.flows", "integer", "Number of flows (not with explicit).", default="per pattern"),
    _k("workload.arrival", "name", "Flow starts.", "simultaneous | poisson"),
    _k("workload.load", "number", "Poisson: offered load in (0, 1]: the fraction of the receiver's link "
       "(aggregation) or of all host links (other patterns) the flows fill on average.", "(0, 1]",
       "D3 §6.1.2 (aggregation); pFabric (others)", "none"),
    _k("workload.rate", "number", "Poisson: arrivals per second, all hosts together.", default="none"),
    _k("workload.size", "table", "Flow sizes: { dist = ..., ... } (the workload.size.* keys)."),
    _k("workload.size.dist", "name", "Size distribution.", "fixed | uniform | exponential | pareto | cdf"),
    _k("workload.size.value", "size", "fixed: the size.", default="required"),
    _k("workload.size.min", "size", "uniform: the smallest size.", default="required"),
    _k("workload.size.max", "size", "uniform: the largest size; cdf: a cap on its sizes.", default="required"),
    _k("workload.size.mean", "size", "exponential, pareto: the mean size.", default="required"),
    _k("workload.size.shape", "number", "pareto: the shape.", default="required"),
    _k("workload.size.name", "name", "cdf: a built-in distribution.", "web_search | data_mining",
       "DCTCP (web_search), VL2 (data_mining)"),
    _k("workload.size.file", "path", "cdf: a CDF file (docs/inputs.md).", default="none"),
    _k("workload.size.format", "name", "cdf file layout.", "dcflow | yaps | hpcc", default="dcflow"),
    _k("workload.deadline", "table", "Deadlines: { dist = ..., ... }; absent: no deadlines.", default="none"),
    _k("workload.deadline.dist", "name", "Deadline distribution.", "exponential | fixed | uniform", "PDQ §5.1"),
    _k("workload.deadline.mean", "time", "exponential: the mean.", paper="PDQ §5.1 (20ms)", default="required"),
    _k("workload.deadline.min", "time", "exponential: a lower bound; uniform: the smallest.",
       paper="PDQ §5.1 (3ms)", default="none"),
    _k("workload.deadline.max", "time", "uniform: the largest.", default="required"),
    _k("workload.deadline.value", "time", "fixed: the deadline.", default="required"),
    _k("workload.deadline.only_below", "size", "Deadlines only for flows smaller than this.", default="every flow"),
    _k("workload.deadline_fraction", "number", "With deadline: the share of generated flows that get one "
       "(Karuna's type-1 flows).", "(0, 1]", "Karuna (type-1 flows)", default="1"),
    _k("workload.known_size_fraction", "number", "The share of flows without a deadline whose size the sender "
       "knows (Karuna's type 2; the rest are type 3). Read by karuna only, which requires it.", "[0, 1]",
       "Karuna (flow types)", default="required by karuna"),
    _k("workload.start", "time", "Simultaneous: when every flow starts; Poisson: when arrivals begin."),
    _k("workload.receiver", "integer", "aggregation: the receiving host.", only=("aggregation",)),
    _k("workload.senders", "name", "aggregation: which hosts send.", "in_order | random", "PDQ footnote 6",
       only=("aggregation",)),
    _k("workload.stride", "integer", "stride: host i sends to i + stride.", default="1", only=("stride",)),
    _k("workload.p", "number", "staggered: probability of a same-rack destination.", default="0.5",
       only=("staggered",)),
    _k("workload.trace", "path", "explicit: a flow file (docs/inputs.md).", default="none", only=("explicit",)),
    _k("workload.trace_format", "name", "The trace's format.", "dcflow | hpcc | htsim | yaps", default="dcflow",
       only=("explicit",)),
    _k("workload.duration", "time", "Poisson: arrivals stop at start + duration.", default="none"),
    # ----------------------------------------------------------------- flows
    _k("flows", "array of tables", "Explicit flows ([[flows]]); next to a generated pattern, background flows.",
       paper="D3 §6.1", default="none"),
    _k("flows[].src", "integer", "Sending host.", default="required"),
    _k("flows[].dst", "integer", "Receiving host.", default="required"),
    _k("flows[].size", "size", "Flow size.", default="required"),
    _k("flows[].start", "time", "Start time.", default="0s"),
    _k("flows[].deadline", "time", "Deadline, from the start.", default="none"),
    # --------------------------------------------------------------- monitor
    _k("monitor.interval", "time", "Sampling interval of the time series."),
    _k("monitor.links", "list of link names", "Links to sample (`dcflow topo` names them; \"bottleneck\" is an alias)."),
    _k("monitor.flows", "bool", "Also record every flow's rate per interval."),
    # ---------------------------------------------------------------- faults
    _k("faults.loss", "number", "Probability of dropping a packet on the chosen links.", "[0, 1)"),
    _k("faults.links", "list of link names", "Links that lose packets.", default="the monitored links"),
    _k("faults.direction", "name", "Which directions of those links lose packets.", "both | forward | reverse"),
    _k("faults.convergence", "time", "Routing reacts this long after a link or switch changes state."),
    _k("faults.events", "array of tables", "Timed failures and recoveries.", default="none"),
    _k("faults.events[].at", "time", "When.", default="required"),
    _k("faults.events[].link", "string", "A link (\"a->b\", or \"a<->b\" for both directions).", default="none"),
    _k("faults.events[].node", "string", "A switch: all its links.", default="none"),
    _k("faults.events[].state", "name", "The new state.", "up | down", default="required"),
    # ----------------------------------------------------------------- fluid
    _k("fluid.equilibrium_interval", "time", "Period at which the flow-level models re-evaluate rates.",
       paper="PDQ §5.5"),
    _k("fluid.header_bytes", "integer", "Header bytes per data packet."),
    _k("fluid.rate_request_bytes", "integer", "Extra bytes of a D3/RCP rate request.", paper="D3 §5"),
    _k("fluid.handshake_rtts", "integer", "Round trips before a new flow's first data."),
    _k("fluid.recompute", "name", "When the models recompute rates.", "events | interval", "PDQ §5.5"),
    # ----------------------------------------------------------------- stats
    _k("stats.warmup", "time", "Flows that start before this are left out of the summary's statistics."),
    _k("stats.buckets", "list of sizes", "Boundaries of the summary's flow-size buckets."),
)

#: Sections in the order of the scenario file.
SECTIONS = ("scenario", "topology", "protocol", "workload", "flows", "monitor", "faults", "fluid", "stats")


# -------------------------------------------------------------------- defaults
def _context(key: Key) -> dict[str, Any]:
    """The smallest scenario whose resolution shows `key`'s default."""
    sc: dict[str, Any] = {"monitor": {}}
    if key.section == "protocol" and key.only:
        sc["protocol"] = {"name": key.only[0]}
        if key.only[0] in IDEAL:
            sc["engine"] = "fluid"
    elif key.section == "topology" and key.only and key.only[0] != "custom":
        sc["topology"] = {"kind": key.only[0]}
    return sc


@lru_cache(maxsize=None)
def _resolved(context: str) -> dict[str, Any]:
    from dcflow import _core

    return json.loads(_core.resolve(context))


def default(key: Key) -> str:
    """The table's text where it gives one (a default that depends on other
    keys), else the key's default as the parser fills it in."""
    if key.default:
        return key.default
    node: Any = _resolved(json.dumps(_context(key), sort_keys=True))
    for part in key.path.split("."):
        if not isinstance(node, dict) or part not in node or "[" in part:
            return "-"
        node = node[part]
    return "-" if node is None or isinstance(node, dict) else json.dumps(node)


# ------------------------------------------------------------------ rendering
def select(section: str | None) -> list[Key]:
    """The keys of one section (or of every section), or of one protocol."""
    if section is None:
        return list(KEYS)
    if section in PROTOCOLS:
        return [k for k in KEYS if k.path == "protocol.name" or (k.section == "protocol" and section in k.only)]
    return [k for k in KEYS if k.section == section]


def _row(k: Key) -> list[str]:
    applies = ", ".join(k.only)
    return [k.path, k.type, k.unit, default(k), k.allowed, applies, k.paper, k.doc]


def render_text(keys: list[Key]) -> str:
    """One block per key: path, type and unit, default, allowed values, paper."""
    out = []
    for k in keys:
        head = f"{k.path}  ({k.type}{', ' + k.unit if k.unit else ''})"
        if k.only:
            head += f"  [{', '.join(k.only)}]"
        out.append(head)
        out.append(f"    {k.doc}")
        details = [f"default {default(k)}"]
        if k.allowed:
            details.append(f"allowed {k.allowed}")
        if k.paper:
            details.append(k.paper)
        out.append("    " + "; ".join(details))
    return "\n".join(out)


def render_markdown() -> str:
    """docs/keys.md: every section's table (`dcflow keys --markdown`)."""
    lines = [
        "# Scenario keys",
        "",
        "Every key a scenario file may hold, generated by `dcflow keys --markdown > docs/keys.md`",
        "from `python/dcflow/keys.py` (tests/test_keys.py fails when the parser accepts a key",
        "this page lacks, or when this page is stale). Defaults are the parser's; \"applies to\"",
        "names the protocols, topology kinds or patterns that read the key. Units: times",
        f"`{UNITS['time']}`, rates `{UNITS['rate']}`, sizes `{UNITS['size']}` (powers of 1000,",
        "then of 1024).",
    ]
    header = ["key", "type", "unit", "default", "allowed", "applies to", "paper", "meaning"]
    for section in SECTIONS:
        lines += ["", f"## {section}", "", "| " + " | ".join(header) + " |", "|" + "---|" * len(header)]
        for k in select(section):
            cells = [c.replace("|", "\\|") for c in _row(k)]
            cells[0] = f"`{cells[0]}`"
            lines.append("| " + " | ".join(cells) + " |")
    return "\n".join(lines) + "\n"
