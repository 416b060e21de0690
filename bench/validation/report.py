"""The tables of docs/validation.md from the recorded comparisons
(bench/validation/results/*.json, written by yaps_compare.py and
htsim_compare.py).

    python bench/validation/report.py               # every peer
    python bench/validation/report.py htsim         # one peer's tables
"""

from __future__ import annotations

import sys

from dcflow.validation import CASES, PEERS, RESULTS, WORKLOAD_LABEL, recorded, table_head, table_rows


def main(argv: list[str]) -> int:
    for peer in argv or PEERS:
        label = PEERS[peer].label
        done = [c for c in CASES if c.peer == peer and (RESULTS / f"{c.name}.json").exists()]
        for protocol in dict.fromkeys(c.protocol for c in done):
            print(f"\n### {protocol}, {label}\n\n{table_head(peer)}")
            for case in (c for c in done if c.protocol == protocol):
                for text, _, _ in table_rows(case, recorded(case)):
                    print(text)
        print(f"\n| comparison | flows | {label} CPU (s) | dcflow CPU (s) | {label} / dcflow |\n|---|---|---|---|---|")
        for case in done:
            r = recorded(case)
            y, d = r[peer]["cpu_s"], r["dcflow"]["cpu_s"]
            print(f"| {case.protocol}, {WORKLOAD_LABEL[case.workload]} {case.load} | {case.flows:,} | {y:.1f} | {d:.1f} "
                  f"| {y / d:.1f}x |")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
