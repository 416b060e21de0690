"""What the PDQ §5.2 bench scripts share: the summaries of runs on the
12-server tree (`pdq_tree`, query aggregation) with `flows` flows, one per
seed, with the scenario overridden by `over` (top-level keys)."""
import copy

import dcflow
from dcflow.repro.common import pdq_tree


def summaries(over: dict, flows: int, seeds, deadline_mean: str | None = None, deadlines: bool = True) -> list[dict]:
    out = []
    for seed in seeds:
        sc = copy.deepcopy(pdq_tree(False, deadlines=deadlines))
        if deadline_mean:
            sc["workload"]["deadline"]["mean"] = deadline_mean
        sc["workload"]["flows"] = flows
        sc.update(copy.deepcopy(over))
        sc["seed"] = seed
        out.append(dcflow.run(sc).summary)
    return out


def mean(values) -> float:
    values = list(values)
    return sum(values) / len(values)
