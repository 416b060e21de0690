"""What the D3 bench scripts share: senders supported at 99% application
throughput (D3 Fig. 9's measure, bisection over the number of senders) for
one series of a catalog entry, at moderate deadlines (30 ms mean), with
`over` applied on top of the entry's scenario (so D3 and RCP_dc run on the
router's 128 KB exactly as the catalog runs them)."""
import dcflow
from dcflow.repro import CATALOG


def senders_at_99(entry_name: str, series_index: int, over: dict, seeds: int) -> str:
    entry = CATALOG[entry_name]
    sc = entry.series_scenario(entry.series[series_index], False).with_overrides(
        {"workload.deadline.mean": "30ms", **over})
    r = dcflow.capacity(sc, lo=1, hi=128, target=0.99, seeds=seeds)
    if r.value is None:
        return "0"
    return str(r.value) if r.bounded else f">={r.value}"
