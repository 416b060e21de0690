"""PDQ(Full) vs PDQ(ES+ET) in Fig. 5a (Suppressed Probing) with
the 2-kappa list and with every flow kept (`protocol.list = "unbounded"`),
application throughput of the short flows, 3 seeds:

    .venv/bin/python bench/pdq_unbounded_list.py
"""
import statistics

import dcflow
from dcflow.repro import get

entry = get("pdq-fig5a")
series = {s.label: s for s in entry.series}
for rate in (2000, 4000, 8000):
    row = []
    for label, extra in (("PDQ(Full)", {}), ("PDQ(Full)", {"protocol.list": "unbounded"}), ("PDQ(ES+ET)", {})):
        sc = entry.series_scenario(series[label], False)
        vals = [dcflow.run(sc.with_overrides({"workload.rate": rate, "seed": s, **extra})).summary["app_throughput"]
                for s in (1, 2, 3)]
        row.append(f"{label}{' unbounded' if extra else ''} {statistics.mean(vals) * 100:.1f}%")
    print(f"rate {rate}: " + ", ".join(row), flush=True)
