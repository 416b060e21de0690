"""What packet PDQ loses against the optimal in Fig. 3c (flows
supported at 99% application throughput on the 12-server tree, deadlines
exp(40 ms) >= 3 ms, U[2, 198] KB, all flows at t = 0). Application
throughput (%) by number of flows over seeds 1-100, and the flows supported
(the largest count from which every smaller count is at >= 99%), one
reading changed at a time:

    .venv/bin/python bench/pdq_fig3c_packet.py
"""
from pdq_tree_runs import mean, summaries

SEEDS = range(1, 101)
FLOWS = [5, 8, 10, 12, 14, 16, 18, 20, 22, 25, 28]
PDQ = {"name": "pdq", "variant": "full"}
UNSENT = {**PDQ, "et_remaining": "unsent"}
# The tree's longest path (host, ToR, root, ToR, host: 4 hops of 25 us each
# way) as a star of 13 hosts: 2 hops of 50 us, so every sender is as far
# from the aggregator as a remote rack's, and no path is shorter.
STAR = {"kind": "star", "hosts": 13, "link_rate": "1Gbps", "buffer": "4MB",
        "prop_delay": "0.1us", "proc_delay": "50us"}
READINGS = [
    ("fluid optimal (EDF + Moore-Hodgson)", {"engine": "fluid", "protocol": {"name": "optimal"}}),
    ("fluid PDQ(Full)", {"engine": "fluid", "protocol": PDQ}),
    ("PDQ(Full), defaults", {"protocol": PDQ}),
    ("  et_remaining = unsent", {"protocol": UNSENT}),
    ("  unsent, dampening 0", {"protocol": {**UNSENT, "dampening": 0.0}}),
    ("  unsent, equal paths (star)", {"protocol": UNSENT, "topology": STAR}),
    ("  unsent, equal paths, dampening 0", {"protocol": {**UNSENT, "dampening": 0.0}, "topology": STAR}),
    ("  unsent, equal paths, Early Start K = 3", {"protocol": {**UNSENT, "early_start_k": 3.0}, "topology": STAR}),
    ("  unsent, equal paths, min_rate 0", {"protocol": {**UNSENT, "min_rate": 0.0}, "topology": STAR}),
    ("  unsent, equal paths, unbounded list", {"protocol": {**UNSENT, "list": "unbounded"}, "topology": STAR}),
    ("D3 (the PDQ paper's: quenching, non-negative fair share)",
     {"protocol": {"name": "d3", "quenching": True, "nonnegative_fair_share": True}}),
    ("fluid PDQ(Full), equal paths", {"engine": "fluid", "protocol": PDQ, "topology": STAR}),
    ("fluid optimal, equal paths", {"engine": "fluid", "protocol": {"name": "optimal"}, "topology": STAR}),
]


def app_throughput(over: dict, flows: int) -> float:
    return 100 * mean(s["app_throughput"] for s in summaries(over, flows, SEEDS, deadline_mean="40ms"))


print("| reading | " + " | ".join(map(str, FLOWS)) + " | flows at 99% |")
print("|---|" + "---:|" * (len(FLOWS) + 1))
for label, over in READINGS:
    curve = [app_throughput(over, n) for n in FLOWS]
    supported = 0
    for n, v in zip(FLOWS, curve):
        if v < 99.0:
            break
        supported = n
    print(f"| {label} | " + " | ".join(f"{v:.1f}" for v in curve) + f" | {supported} |", flush=True)
