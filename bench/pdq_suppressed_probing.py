"""When does Suppressed Probing (PDQ(Full) vs PDQ(ES+ET)) matter?
Query aggregation on the 12-server tree, deadlines exp(40 ms) >= 3 ms,
seeds 1-50: application throughput and packets sent (data, probes,
control) by number of flows, with the 2κ flow list (the flows outside it
probing every X × list length, `unlisted_index = "list_end"`, or every X ×
their rank, "rank", the default) and with every flow listed
(`list = "unbounded"`):

    .venv/bin/python bench/pdq_suppressed_probing.py
"""
from pdq_tree_runs import mean, summaries

FLOWS = [10, 20, 30, 45, 60]
READINGS = [
    ("PDQ(ES+ET), 2κ list", {"name": "pdq", "variant": "es_et"}),
    ("PDQ(Full), 2κ list, list_end", {"name": "pdq", "variant": "full", "unlisted_index": "list_end"}),
    ("PDQ(Full), 2κ list, rank", {"name": "pdq", "variant": "full", "unlisted_index": "rank"}),
    ("PDQ(ES+ET), unbounded list", {"name": "pdq", "variant": "es_et", "list": "unbounded"}),
    ("PDQ(Full), unbounded list", {"name": "pdq", "variant": "full", "list": "unbounded"}),
]


def measure(protocol: dict, flows: int) -> tuple[float, float]:
    runs = summaries({"protocol": protocol}, flows, range(1, 51), deadline_mean="40ms")
    return 100 * mean(s["app_throughput"] for s in runs), mean(s["packets_sent"] for s in runs)


print("| reading | " + " | ".join(f"{n} flows" for n in FLOWS) + " |")
print("|---|" + "---|" * len(FLOWS))
for label, protocol in READINGS:
    cells = [measure(protocol, n) for n in FLOWS]
    print(f"| {label} | " + " | ".join(f"{a:.1f}% / {p:,.0f}" for a, p in cells) + " |", flush=True)
