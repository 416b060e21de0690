"""What governs packet PDQ's gap on Fig. 8b's 128-server fat tree
(10 flows per server, U[2, 198] KB, random permutation, all at t = 0).
Mean FCT over seeds 1-3 for PDQ(Full) with one mechanism changed at a
time, against RCP_dc and PDQ's flow level; then the same flows through one
switch, and pFabric against flow-level SRPT:

    .venv/bin/python bench/pdq_fattree_ablation.py
"""
import statistics

import dcflow
from dcflow.repro.pdq_flow import fat_tree, permutation

ONE_SWITCH = {"kind": "star", "hosts": 128, "link_rate": "1Gbps", "buffer": "4MB"}
base = dcflow.Scenario(permutation(fat_tree(128), 128, 10, False, False))
rows = [
    ("PDQ(Full), defaults", {"protocol": {"name": "pdq", "variant": "full"}}),
    ("  dampening 0", {"protocol": {"name": "pdq", "variant": "full", "dampening": 0.0}}),
    ("  dampening 0.5 RTT", {"protocol": {"name": "pdq", "variant": "full", "dampening": 0.5}}),
    ("  Early Start K = 3", {"protocol": {"name": "pdq", "variant": "full", "early_start_k": 3.0}}),
    ("  dampening 0, K = 3", {"protocol": {"name": "pdq", "variant": "full", "dampening": 0.0, "early_start_k": 3.0}}),
    ("  unbounded list", {"protocol": {"name": "pdq", "variant": "full", "list": "unbounded"}}),
    ("RCP_dc", {"protocol": {"name": "rcp"}}),
    ("PDQ flow level", {"engine": "fluid", "protocol": {"name": "pdq", "variant": "full"}}),
    # PDQ §5.5's "time scale of 1 ms" read as fixed steps: rates change only
    # every step, so a finished flow's capacity idles until the next one.
    ("PDQ flow level, 1 ms steps", {"engine": "fluid", "protocol": {"name": "pdq", "variant": "full"},
                                    "fluid": {"recompute": "interval"}}),
    ("RCP_dc flow level", {"engine": "fluid", "protocol": {"name": "rcp"}}),
    ("RCP_dc flow level, 1 ms steps", {"engine": "fluid", "protocol": {"name": "rcp"},
                                       "fluid": {"recompute": "interval"}}),
    # Multi-hop or not: the same flows through one 128-port switch.
    ("PDQ(Full), one switch", {"protocol": {"name": "pdq", "variant": "full"}, "topology": ONE_SWITCH}),
    ("  no Dampening", {"protocol": {"name": "pdq", "variant": "full", "dampening": 0.0}, "topology": ONE_SWITCH}),
    ("PDQ flow level, one switch", {"engine": "fluid", "protocol": {"name": "pdq", "variant": "full"}, "topology": ONE_SWITCH}),
    # Is the multi-hop cost PDQ's? pFabric against its flow-level ideal (SRPT).
    ("pFabric", {"protocol": {"name": "pfabric"}}),
    ("SRPT flow level", {"engine": "fluid", "protocol": {"name": "srpt"}}),
]
for label, over in rows:
    fct = [dcflow.run(base.with_overrides({**over, "seed": s})).summary["fct_mean_s"] * 1e3 for s in (1, 2, 3)]
    print(f"{label:24s} {statistics.mean(fct):6.2f} ms  ({', '.join(f'{v:.2f}' for v in fct)})", flush=True)
