"""Starter scenarios for `dcflow new --preset NAME`: complete, commented
files to copy and edit.

The defaults are the papers' 1 Gbps era (PDQ §5.1, D3 §6: 25 us per switch,
4 MB buffers, TCP's 10 ms RTO_min); `papers` spells them out. The other two
are today's fabrics, each with the same DCTCP web-search workload, so a run
of each shows what the era changes: `leafspine-40g` is the 144-host
leaf-spine of pFabric §5 and YAPS, `fattree-100g` a k = 8 fat-tree at
100 Gbps.
"""

from __future__ import annotations

__all__ = ["PRESETS"]

_WORKLOAD = """
[workload]
pattern  = "all_to_all"            # every host sends to random others
arrival  = "poisson"
load     = 0.5                     # mean fraction of the host links' capacity offered
flows    = {flows}
size     = {{ dist = "cdf", name = "web_search" }}   # DCTCP's web-search sizes

[stats]
warmup  = "0s"
buckets = ["100KB", "10MB"]        # slowdown per flow-size range in the summary
"""

PAPERS = """\
# The papers' settings: PDQ §5.1 and D3 §6's 12-server two-level tree at
# 1 Gbps. Every value below is dcflow's default (`dcflow keys` lists them).
name = "papers-1g"
seed = 1
engine = "packet"

[topology]
kind           = "tree"            # racks under one root switch
racks          = 4
hosts_per_rack = 3
link_rate      = "1Gbps"
core_link_rate = "1Gbps"           # ToR-root links
prop_delay     = "100ns"           # per link
proc_delay     = "25us"            # per switch hop (PDQ §5.1)
buffer         = "4MB"             # per output port
mtu            = 1500
routing        = "ecmp"

[protocol]
name             = "dctcp"         # queue "ecn" follows; K = 20 packets at 1 Gbps
rto_min          = "10ms"          # D3 §6.1.2, PDQ §5.1: TCP with a small RTO_min
init_cwnd        = 2               # D3 §4.5
g                = 0.0625          # DCTCP §3.1
""" + _WORKLOAD.format(flows=1000)

LEAFSPINE_40G = """\
# pFabric §5's (and YAPS's) 144-host leaf-spine: 9 leaves of 16 hosts at
# 40 Gbps, 4 spines, 160 Gbps uplinks (no oversubscription), 0.2 us links,
# 36 KiB of buffer per port (about 2 BDP at 40 Gbps).
name = "leafspine-40g"
seed = 1
engine = "packet"

[topology]
kind            = "leaf_spine"
leaves          = 9
hosts_per_leaf  = 16
spines          = 4
link_rate       = "40Gbps"         # host links
spine_link_rate = "160Gbps"        # leaf-spine links
prop_delay      = "200ns"
proc_delay      = "0us"            # the fabric's delay is the links' and the queues'
buffer          = "36864B"
mtu             = 1500
routing         = "ecmp"

[protocol]
name    = "dctcp"                  # or "pfabric" (its own queue), "pdq", ...
rto_min = "1ms"                    # today's stacks, not the 10 ms of the papers' era
""" + _WORKLOAD.format(flows=5000)

FATTREE_100G = """\
# A k = 8 fat-tree (128 hosts, 80 switches) at 100 Gbps, with shallow
# per-port buffers and a microsecond-scale RTT.
name = "fattree-100g"
seed = 1
engine = "packet"

[topology]
kind          = "fat_tree"
k             = 8                  # ports per switch: k^3/4 hosts
link_rate     = "100Gbps"
prop_delay    = "1us"
proc_delay    = "1us"              # per switch hop
buffer        = "1MB"              # per output port
mtu           = 1500
routing       = "ecmp"
ecn_threshold = "100KB"            # DCTCP's K scaled to 100 Gbps

[protocol]
name    = "dctcp"
rto_min = "1ms"
""" + _WORKLOAD.format(flows=5000)

#: Name -> TOML text.
PRESETS: dict[str, str] = {"papers": PAPERS, "leafspine-40g": LEAFSPINE_40G, "fattree-100g": FATTREE_100G}
