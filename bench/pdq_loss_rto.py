"""What governs PDQ's loss resilience (Fig. 9b: +11.4% mean FCT at
3% loss both ways in the paper). PDQ recovers lost data by timeout only;
sweep its RTO floor on `pdq-fig9b`'s scenario, 30 seeds:

    .venv/bin/python bench/pdq_loss_rto.py
"""
import statistics

import dcflow
from dcflow.repro import get

entry = get("pdq-fig9b")
pdq = next(s for s in entry.series if s.label.startswith("PDQ"))
base = entry.series_scenario(pdq, False)
for rto in ("1ms", "500us", "300us", "200us", "150us"):
    fct = {}
    for loss in (0.0, 0.03):
        runs = [dcflow.run(base.with_overrides({"faults.loss": loss, "protocol.rto_min": rto, "seed": s}))
                for s in range(1, 31)]
        fct[loss] = statistics.mean(r.summary["fct_mean_s"] for r in runs) * 1e3
    print(f"rto_min {rto}: {fct[0.0]:.2f} ms -> {fct[0.03]:.2f} ms at 3% (+{(fct[0.03] / fct[0.0] - 1) * 100:.1f}%)", flush=True)
# The RTO in RTTs, with the floor out of the way.
for rtts in (3.0, 2.0, 1.5, 1.2):
    fct = {}
    for loss in (0.0, 0.03):
        over = {"faults.loss": loss, "protocol.rto_min": "50us", "protocol.rto_rtts": rtts}
        runs = [dcflow.run(base.with_overrides({**over, "seed": s})) for s in range(1, 31)]
        fct[loss] = statistics.mean(r.summary["fct_mean_s"] for r in runs) * 1e3
    print(f"rto_rtts {rtts}: {fct[0.0]:.2f} ms -> {fct[0.03]:.2f} ms at 3% (+{(fct[0.03] / fct[0.0] - 1) * 100:.1f}%)", flush=True)
