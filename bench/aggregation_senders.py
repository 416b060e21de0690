"""PDQ footnote 6: aggregation senders at random vs in order, Fig. 3c's base (40 ms mean deadline)."""
import copy
import statistics

import dcflow
from dcflow.repro.common import D3_PDQ, pdq_tree
from dcflow.repro.pdq import PDQ_FULL
seeds = range(1, 21)
for series in (PDQ_FULL, D3_PDQ):
    for n in (6, 9, 12, 15):
        row = []
        for order in ("in_order", "random"):
            vals = []
            for s in seeds:
                sc = copy.deepcopy(pdq_tree(False))
                sc["protocol"] = copy.deepcopy(series.overrides["protocol"])
                sc["seed"] = s
                sc["workload"]["flows"] = n
                sc["workload"]["senders"] = order
                sc["workload"]["deadline"]["mean"] = "40ms"
                vals.append(dcflow.run(sc).summary["app_throughput"])
            row.append(statistics.mean(vals))
        print(series.label, n, " ".join(f"{v*100:.1f}%" for v in row), flush=True)
