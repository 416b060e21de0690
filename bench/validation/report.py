"""The tables of docs/validation.md from the recorded comparisons
(bench/validation/results/*.json, written by yaps_compare.py).

    python bench/validation/report.py
"""

from __future__ import annotations

import sys

from dcflow.validation import CASES, RESULTS, TABLE_HEAD, WORKLOAD_LABEL, recorded, table_rows


def main() -> int:
    for protocol in dict.fromkeys(c.protocol for c in CASES):
        cases = [c for c in CASES if c.protocol == protocol and (RESULTS / f"{c.name}.json").exists()]
        print(f"\n### {protocol}\n\n{TABLE_HEAD}")
        for case in cases:
            for text, _, _ in table_rows(case, recorded(case)):
                print(text)
    print("\n| comparison | flows | YAPS CPU (s) | dcflow CPU (s) | YAPS / dcflow |\n|---|---|---|---|---|")
    for case in CASES:
        if (RESULTS / f"{case.name}.json").exists():
            r = recorded(case)
            y, d = r["yaps"]["cpu_s"], r["dcflow"]["cpu_s"]
            print(f"| {case.protocol}, {WORKLOAD_LABEL[case.workload]} {case.load} | {case.flows:,} | {y:.1f} | {d:.1f} "
                  f"| {y / d:.1f}x |")
    return 0


if __name__ == "__main__":
    sys.exit(main())
