"""How far packet PDQ is from the optimal in Fig. 3d (mean FCT vs
number of flows, query aggregation on the 12-server tree, U[2, 198] KB, no
deadlines, all at t = 0), and what the gap is made of. Mean FCT (ms) over
seeds 1-20; pFabric is the packet-level reference (priority queues that
approximate SRPT with no handshake):

    .venv/bin/python bench/pdq_fig3d_packet.py
"""
from pdq_tree_runs import mean, summaries

FLOWS = [1, 5, 10, 20, 30]
PDQ = {"name": "pdq", "variant": "full"}
# Every sender as far from the aggregator as a remote rack's (see
# bench/pdq_fig3c_packet.py).
EQUAL_PATHS = {"kind": "star", "hosts": 13, "link_rate": "1Gbps", "buffer": "4MB",
               "prop_delay": "0.1us", "proc_delay": "50us"}
READINGS = [
    ("packet PDQ(Full)", {"protocol": PDQ}),
    ("  no Dampening", {"protocol": {**PDQ, "dampening": 0.0}}),
    ("  equal paths", {"protocol": PDQ, "topology": EQUAL_PATHS}),
    ("packet pFabric", {"protocol": {"name": "pfabric"}}),
    ("flow-level PDQ(Full)", {"engine": "fluid", "protocol": PDQ}),
    ("flow-level SRPT (= optimal without deadlines)", {"engine": "fluid", "protocol": {"name": "srpt"}}),
]


def mean_fct_ms(over: dict, flows: int) -> float:
    return 1e3 * mean(s["fct_mean_s"] for s in summaries(over, flows, range(1, 21), deadlines=False))


print("| flows | " + " | ".join(map(str, FLOWS)) + " |")
print("|---|" + "---:|" * len(FLOWS))
for label, over in READINGS:
    print(f"| {label} | " + " | ".join(f"{mean_fct_ms(over, n):.2f}" for n in FLOWS) + " |", flush=True)
