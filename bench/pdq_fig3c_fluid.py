"""Fig. 3c in the flow-level model first. Flows supported at 99%
application throughput on the 12-server tree, 40 ms mean deadline, 10
seeds, for the ideal disciplines and flow-level PDQ with one setting
changed at a time:

    .venv/bin/python bench/pdq_fig3c_fluid.py
"""
import copy

import dcflow
from dcflow.repro.common import pdq_tree

rows = [
    ("optimal (EDF + Moore-Hodgson)", {"name": "optimal"}),
    ("edf", {"name": "edf"}),
    ("edf, early termination", {"name": "edf", "early_termination": True}),
    ("pdq (full)", {"name": "pdq", "variant": "full"}),
    ("pdq (es_et)", {"name": "pdq", "variant": "es_et"}),
    ("pdq (es, no termination)", {"name": "pdq", "variant": "es"}),
    ("pdq (full), sjf comparator", {"name": "pdq", "variant": "full", "comparator": "sjf"}),
]
for label, proto in rows:
    sc = copy.deepcopy(pdq_tree(False))
    sc["engine"] = "fluid"
    sc["protocol"] = proto
    sc["workload"]["deadline"]["mean"] = "40ms"
    r = dcflow.capacity(sc, lo=1, hi=128, target=0.99, seeds=10)
    print(f"{label:32s} {r.value if r.bounded else f'>={r.value}'}", flush=True)
# The packet engine, with and without Dampening (the fat tree's largest share).
for label, proto in (("packet pdq (full)", {"name": "pdq", "variant": "full"}),
                     ("packet pdq (full), no dampening", {"name": "pdq", "variant": "full", "dampening": 0.0})):
    sc = copy.deepcopy(pdq_tree(False))
    sc["protocol"] = proto
    sc["workload"]["deadline"]["mean"] = "40ms"
    r = dcflow.capacity(sc, lo=1, hi=128, target=0.99, seeds=10)
    print(f"{label:32s} {r.value if r.bounded else f'>={r.value}'}", flush=True)
