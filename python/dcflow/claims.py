"""Numbers in the docs, recomputed: every claim names the page and the
verbatim text that quotes it, the command a reader runs to see it, and the
tolerance within which it must still hold.

    python -m dcflow.claims            # every claim (make claims)
    python -m dcflow.claims --quick    # the quick slice (make test runs it)

A claim fails when its page no longer holds its text (the doc moved away
from the registry), or when the number recomputed from the code is off the
quoted one by more than its relative tolerance (the code moved away from
the doc). Runs are deterministic, so a tolerance is room for the small
moves of unrelated changes, not for noise. A claim whose number moved is
re-measured with its command and its text and value updated together.
"""

from __future__ import annotations

import argparse
import functools
import sys
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

__all__ = ["Claim", "CLAIMS", "NEW_USER_FATTREE", "check", "main"]

ROOT = Path(__file__).resolve().parents[2]

# An ordinary workload (docs/fidelity.md, "The sender's own link"): a k = 4
# fat-tree with the defaults, web-search sizes, Poisson all-to-all at load
# 0.5, 2,000 flows, seed 1.
NEW_USER_FATTREE: dict[str, Any] = {
    "name": "new-user fat-tree",
    "seed": 1,
    "topology": {"kind": "fat_tree", "k": 4},
    "workload": {
        "pattern": "all_to_all",
        "arrival": "poisson",
        "load": 0.5,
        "flows": 2000,
        "size": {"dist": "cdf", "name": "web_search"},
    },
}


@functools.cache
def new_user_summary(protocol: str, engine: str = "packet") -> dict[str, Any]:
    """The summary of `protocol` on [`NEW_USER_FATTREE`] (cached: several
    claims read one run)."""
    import dcflow

    over = {"protocol": {"name": protocol}, "engine": engine}
    return dict(dcflow.run(dcflow.Scenario({**NEW_USER_FATTREE, **over})).summary)


@functools.cache
def catalog_table(entry: str) -> tuple[dict[str, str], ...]:
    """The rows of catalog entry `entry`'s CSV (`dcflow repro run ENTRY`),
    run once per entry with one worker."""
    import csv
    import tempfile

    from dcflow.repro import run_entry

    with tempfile.TemporaryDirectory() as out:
        result = run_entry(entry, out, workers=1, progress=False)
        with open(result["csv"], newline="", encoding="utf-8") as f:
            return tuple(csv.DictReader(f))


def _row_value(entry: str, column: str, where: dict[str, Any]) -> float:
    """`column` of the one row of `entry`'s table whose columns hold the
    values `where` gives (numbers compared as numbers)."""

    def same(cell: str, want: Any) -> bool:
        return float(cell) == float(want) if isinstance(want, (int, float)) else cell == want

    rows = [r for r in catalog_table(entry) if all(same(r[k], v) for k, v in where.items())]
    assert len(rows) == 1, f"{entry}: {len(rows)} rows hold {where}"
    return float(rows[0][column])


def _catalog(entry: str, series: str, x: float | None, metric: str) -> Callable[[], float]:
    """The value at (series, x, metric) of `entry`'s long table; `x` None
    for tables without an x column."""

    def measure() -> float:
        header = list(catalog_table(entry)[0])
        # Custom entries write (series, x, metric, value); sweeps write
        # (series, <x key>, y, y_mean); capacity searches (series, <x key>,
        # param, ..., capacity).
        metric_col, value_col = next((m, v) for m, v in (("metric", "value"), ("y", "y_mean"), ("param", "capacity"))
                                     if m in header)
        where: dict[str, Any] = {"series": series, metric_col: metric}
        if x is not None:
            where["x" if "x" in header else header[1]] = x
        return _row_value(entry, value_col, where)

    return measure


def _ms(protocol: str) -> Callable[[], float]:
    return lambda: new_user_summary(protocol)["fct_mean_s"] * 1e3


def _small_slowdown(protocol: str) -> Callable[[], float]:
    return lambda: new_user_summary(protocol)["slowdown_mean[<=100KB]"]


def _drop_percent(protocol: str) -> Callable[[], float]:
    def measure() -> float:
        s = new_user_summary(protocol)
        return 100.0 * s["packets_dropped"] / max(s["packets_sent"], 1)

    return measure


@dataclass(frozen=True)
class Claim:
    """One number a page quotes."""

    doc: str
    """The page, relative to the repository."""
    text: str
    """Verbatim in the page; it holds the number as `value`."""
    value: float
    measure: Callable[[], float]
    command: str
    """What a reader runs to see the number."""
    tolerance: float = 0.05
    """Largest relative difference that still holds (absolute below 1e-9)."""
    quick: bool = False
    """Part of the slice `make test` runs (a few seconds each)."""

    def holds(self, got: float) -> bool:
        return abs(got - self.value) <= self.tolerance * max(abs(self.value), 1e-9)


NEW_USER = "bench/new_user_fattree.py"
FIDELITY = "docs/fidelity.md"

CLAIMS: list[Claim] = [
    # docs/fidelity.md, "An ordinary workload, before and after": the after
    # column of each protocol's row.
    Claim(FIDELITY, "| rcp (= d3 without deadlines) | 103.4 ms | 84.3 ms |", 84.3, _ms("rcp"), NEW_USER, quick=True),
    Claim(FIDELITY, "| 47.7 / 595.8 | 9.7 / 67.1 |", 9.7, _small_slowdown("rcp"), NEW_USER, quick=True),
    Claim(FIDELITY, "| 1.77% | 0.01% |", 0.01, _drop_percent("rcp"), NEW_USER, tolerance=1.0, quick=True),
    Claim(FIDELITY, "| pdq | 116.0 ms | 67.8 ms |", 67.8, _ms("pdq"), NEW_USER),
    Claim(FIDELITY, "| 39.3 / 332.6 | 6.29 / 36.6 |", 6.29, _small_slowdown("pdq"), NEW_USER),
    Claim(FIDELITY, "| 1.21% | 0 |", 0.0, _drop_percent("pdq"), NEW_USER),
    Claim(FIDELITY, "| s3 | 157.2 ms | 77.2 ms |", 77.2, _ms("s3"), NEW_USER),
    Claim(FIDELITY, "| 68.8 / 1,082 | 7.12 / 49.5 |", 7.12, _small_slowdown("s3"), NEW_USER),
    Claim(FIDELITY, "| merp | 277.2 ms | 228.8 ms |", 228.8, _ms("merp"), NEW_USER),
    Claim(FIDELITY, "| pfabric | 56.4 ms | 57.6 ms |", 57.6, _ms("pfabric"), NEW_USER),
    Claim(FIDELITY, "| dctcp | 58.3 ms | 58.2 ms | 8.10 / 22.7 | 7.96 / 24.7 |", 7.96, _small_slowdown("dctcp"), NEW_USER),
    Claim(FIDELITY, "| fair (flow level) | 54.0 ms |", 54.0, lambda: new_user_summary("fair", "fluid")["fct_mean_s"] * 1e3, NEW_USER),
    Claim(FIDELITY, "| srpt (flow level) | 45.2 ms |", 45.2, lambda: new_user_summary("srpt", "fluid")["fct_mean_s"] * 1e3, NEW_USER),
]


def _from_catalog(doc: str, text: str, value: float, entry: str, series: str, x: float | None, metric: str,
                  tolerance: float = 0.05) -> Claim:
    """A claim on one value of catalog entry `entry`'s table."""
    command = f"dcflow repro run {entry} -o DIR --workers 1"
    return Claim(doc, text, value, _catalog(entry, series, x, metric), command, tolerance)


CLAIMS_MD = "docs/claims.md"
MERP5_MAX = "| MERP | 2.9 | 3.13 | 4.37 | 7.98 | 20.8 | 32.8 | 47.7 | 58.1 |"
MERP6_MAX = "| MERP | 13 | 12.2 | 16.9 | 74.8 | 166 | 227 | 273 | 341 |"
FIG3C_AFTER = "| after, with every host's own port running the PDQ agent and unlisted flows ranked | 11 (11 unsent) | 8 |"
FIG8B_AFTER = "(each server's 10 flows now take turns at its NIC) | 10.18 ms | 9.22 ms |"
# (page, text, value, catalog entry, series, x, metric[, tolerance])
CLAIMS += [_from_catalog(*row) for row in [
    # docs/fidelity.md, MERP Fig. 5-7.
    (FIDELITY, MERP5_MAX, 3.13, "merp-fig5", "MERP", 0.2, "max expansion ratio"),
    (FIDELITY, MERP5_MAX, 58.1, "merp-fig5", "MERP", 0.8, "max expansion ratio"),
    (FIDELITY, "| pFabric | 2.47 | 3.47 | 5.17 | 6.86 | 10.1 | 16.5 | 22.7 | 38.5 |", 38.5,
     "merp-fig5", "pFabric", 0.8, "max expansion ratio"),
    (FIDELITY, "| MERP | 1.11 | 1.23 | 1.42 | 1.94 | 5.29 | 9.05 | 14.2 | 18.7 |", 18.7,
     "merp-fig5", "MERP", 0.8, "mean expansion ratio"),
    (FIDELITY, MERP6_MAX, 16.9, "merp-fig6", "MERP", 0.3, "max expansion ratio"),
    (FIDELITY, MERP6_MAX, 341, "merp-fig6", "MERP", 0.8, "max expansion ratio"),
    (FIDELITY, "| MERP | 9.32 | 11.2 | 14.1 | 22.5 | 52.2 | 83.2 | 119 | 149 |", 22.5,
     "merp-fig7", "MERP", 0.4, "mean FCT (ms)"),
    (FIDELITY, "| pFabric | 9.11 | 10.7 | 12.6 | 15.9 | 20.1 | 25.9 | 32.9 | 41.8 |", 41.8,
     "merp-fig7", "pFabric", 0.8, "mean FCT (ms)"),
    # docs/fidelity-pdq.md, PDQ Fig. 7: utilization during the burst.
    ("docs/fidelity-pdq.md", "95.93% during the preemption period", 95.93,
     "pdq-fig7", "PDQ(Full)", None, "utilization 10-19 ms (%)", 0.01),
    # docs/claims.md: S3 Fig. 6a at 60 flows, both matched settings; PDQ
    # Fig. 3c at a 40 ms mean deadline; Fig. 8b at 128 servers.
    (CLAIMS_MD, "| matched, Early Start on neither | 66.17 / 50.6% | 62.83 / 46.8% |", 62.83,
     "s3-fig6a", "PDQ (no ES)", 60, "app_throughput"),
    (CLAIMS_MD, "| matched, Early Start (K = 1.5) on both | 74.0 / 60.6% | 69.33 / 53.5% |", 69.33,
     "s3-fig6a", "PDQ", 60, "app_throughput"),
    (CLAIMS_MD, FIG3C_AFTER, 11, "pdq-fig3c", "PDQ(Full)", 40, "workload.flows", 0.1),
    (CLAIMS_MD, FIG3C_AFTER, 8, "pdq-fig3c", "D3", 40, "workload.flows", 0.13),
    (CLAIMS_MD, FIG8B_AFTER, 10.18, "pdq-fig8b", "PDQ(Full) (packet)", 128, "fct_mean_s"),
    (CLAIMS_MD, FIG8B_AFTER, 9.22, "pdq-fig8b", "RCP (packet)", 128, "fct_mean_s"),
    (CLAIMS_MD, "all done at 42.4 ms", 42.4, "pdq-fig6", "PDQ(Full)", None, "all flows done (ms)", 0.01),
    # docs/claims.md, M-PDQ Fig. 11b: mean FCT with 1 and 4 subflows.
    (CLAIMS_MD, "| 24.35 / 21.43 / 28.66 / 37.39 (0.65x) |", 24.35, "pdq-fig11b", "M-PDQ", 1, "fct_mean_s"),
    (CLAIMS_MD, "| 24.35 / 21.43 / 28.66 / 37.39 (0.65x) |", 37.39, "pdq-fig11b", "M-PDQ", 4, "fct_mean_s"),
    (CLAIMS_MD, "| 24.35 / 20.41 / 19.53 / 19.49 (1.25x;", 19.49,
     "pdq-fig11b", "M-PDQ (shortest paths, flow criticality)", 4, "fct_mean_s"),
    # docs/claims.md, M-PDQ Fig. 11c: application throughput with 4 subflows.
    (CLAIMS_MD, "| 83.97% (1 path 93.84%) |", 83.97, "pdq-fig11c", "M-PDQ", 4, "app_throughput"),
    (CLAIMS_MD, "| 93.88% (no gain) |", 93.88, "pdq-fig11c", "M-PDQ (shortest paths, flow criticality)", 4, "app_throughput"),
]]

def _from_wide(doc: str, text: str, value: float, entry: str, column: str, where: dict[str, Any],
               tolerance: float = 0.05) -> Claim:
    """A claim on `column` of one row of catalog entry `entry`'s wide table
    (one row per series and setting, a column per metric)."""
    command = f"dcflow repro run {entry} -o DIR --workers 1"
    return Claim(doc, text, value, lambda: _row_value(entry, column, where), command, tolerance)


def _missed_at_40ms(load: float) -> float:
    """D3 Fig. 4: flows < 50 KB that miss a 40 ms mean deadline under TCP."""
    where = {"series": "TCP", "load": load, "flows": "flows < 50 KB", "mean deadline (ms)": 40}
    return 100 - _row_value("d3-fig4", "deadlines met (%)", where)


FIG4_TCP = "| load 0.1 / 0.3 / 0.5, TCP | 4.9 / 7.2 / 9.2% |"
TABLE1_AFTER = "| after: every host's own port runs the D3 agent | 3012 / 451 /"
CLAIMS += [
    # docs/claims.md, D3 Fig. 4.
    *(Claim(CLAIMS_MD, FIG4_TCP, missed, functools.partial(_missed_at_40ms, load), "dcflow repro run d3-fig4 -o DIR --workers 1")
      for load, missed in ((0.1, 4.9), (0.3, 7.2), (0.5, 9.2))),
    # docs/claims.md, D3 Table 1 (flows/s at 99% application throughput)
    # and Fig. 16 (D3's lowest throughput, with 20 long flows).
    _from_wide(CLAIMS_MD, TABLE1_AFTER, 3012, "d3-table1", "capacity", {"series": "D3"}),
    _from_wide(CLAIMS_MD, TABLE1_AFTER, 451, "d3-table1", "capacity", {"series": "RCP_dc"}),
    _from_wide(CLAIMS_MD, "| after (testbed: `d3_rack`, 128 KB) | 0.81-0.98;", 0.81,
               "d3-fig16", "throughput (Gbps)", {"series": "D3", "long flows": 20}, tolerance=0.02),
]


@functools.cache
def _validation_side(name: str) -> dict[str, Any]:
    """dcflow's side of the comparison `name` (run once per case)."""
    from dcflow.validation import CASES, dcflow_side

    return dcflow_side(next(c for c in CASES if c.name == name))


def _validation_claims() -> list[Claim]:
    """docs/validation.md: dcflow's mean FCT and per-bucket mean slowdown of
    each comparison with YAPS and htsim (the peers' numbers are recorded)."""
    from dcflow.validation import CASES, recorded, table_rows

    claims = []
    for case in CASES:
        command = (f"python {case.spec.script} --protocol {case.protocol} --workload {case.workload} "
                   f"--load {case.load}")
        for text, key, value in table_rows(case, recorded(case)):
            scale = 1e6 if key == "fct_mean_s" else 1.0
            if value is not None:
                measure = functools.partial(lambda n, k, f: _validation_side(n)[k] * f, case.name, key, scale)
                claims.append(Claim("docs/validation.md", text, value, measure, command))
    return claims


CLAIMS += _validation_claims()

def check(claims: Sequence[Claim], out=sys.stdout) -> list[str]:
    """Check `claims`; one line per failure (empty when all hold)."""
    failures = []
    pages: dict[str, str] = {}
    for c in claims:
        page = pages.setdefault(c.doc, (ROOT / c.doc).read_text(encoding="utf-8"))
        where = f"{c.doc}: {c.text!r}"
        if c.text not in page:
            failures.append(f"{where}: the page no longer holds this text")
            continue
        got = c.measure()
        verdict = "ok" if c.holds(got) else "MOVED"
        print(f"{verdict:5s} {c.value:g} -> {got:.4g} (±{c.tolerance:.0%})  {where}  [{c.command}]", file=out, flush=True)
        if verdict != "ok":
            failures.append(f"{where}: quoted {c.value:g}, the code gives {got:.4g} (tolerance {c.tolerance:.0%}); re-measure with {c.command}")
    return failures


def main(argv: Sequence[str] | None = None) -> int:
    ap = argparse.ArgumentParser(prog="python -m dcflow.claims", description=__doc__,
                                 formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--quick", action="store_true", help="only the quick slice")
    args = ap.parse_args(argv)
    claims = [c for c in CLAIMS if c.quick or not args.quick]
    failures = check(claims)
    print(f"{len(claims) - len(failures)} of {len(claims)} claims hold")
    for f in failures:
        print(f"FAILED {f}")
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
