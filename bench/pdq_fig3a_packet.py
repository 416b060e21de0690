"""Fig. 3a (application throughput vs number of flows, query
aggregation on the 12-server tree, deadlines exp(20 ms) >= 3 ms), seeds
1-100: the optimal, PDQ's flow level, and packet PDQ(Full) with Early
Termination on the bytes not yet acknowledged (the default) or not yet
sent (`et_remaining = "unsent"`):

    .venv/bin/python bench/pdq_fig3a_packet.py
"""
from pdq_tree_runs import mean, summaries

FLOWS = [10, 20, 30, 40]
PDQ = {"name": "pdq", "variant": "full"}
READINGS = [
    ("flow-level optimal", {"engine": "fluid", "protocol": {"name": "optimal"}}),
    ("flow-level PDQ(Full)", {"engine": "fluid", "protocol": PDQ}),
    ("packet PDQ(Full)", {"protocol": PDQ}),
    ("packet PDQ(Full), et_remaining = unsent", {"protocol": {**PDQ, "et_remaining": "unsent"}}),
]


def app_throughput(over: dict, flows: int) -> float:
    return 100 * mean(s["app_throughput"] for s in summaries(over, flows, range(1, 101)))


print("| flows | " + " | ".join(map(str, FLOWS)) + " |")
print("|---|" + "---:|" * len(FLOWS))
for label, over in READINGS:
    print(f"| {label} | " + " | ".join(f"{app_throughput(over, n):.1f}" for n in FLOWS) + " |", flush=True)
