"""The tables of docs/validation.md from the recorded comparisons
(bench/validation/results/*.json, written by yaps_compare.py and
htsim_compare.py).

    python bench/validation/report.py               # every peer
    python bench/validation/report.py htsim         # one peer's tables
"""

from __future__ import annotations

import sys

from dcflow.validation import BUCKETS, CASES, PEERS, RESULTS, WORKLOAD_LABEL, recorded, table_head, table_rows


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
        timed = [c for c in done if recorded(c)[peer].get("timeouts") is not None]
        if timed:
            print(f"\n| comparison | retransmission timeouts, {label} / dcflow |\n|---|---|")
            for case in timed:
                r = recorded(case)
                print(f"| {case.protocol}, {WORKLOAD_LABEL[case.workload]} {case.load} | "
                      f"{r[peer]['timeouts']:,} / {r['dcflow']['timeouts']:,} |")
        references = [c for c in done if "reference" in recorded(c)]
        if references:
            print("\n| workload, load | protocol | completed | mean FCT (us) | p99 FCT (us) | "
                  + " | ".join(f"mean slowdown {b}" for b, _, _ in BUCKETS) + " | CPU (s) |\n|---|---|---|---|---|---|---|---|---|")
            for case in references:
                ref = recorded(case)["reference"]
                slow = " | ".join(f"{ref[f'slowdown_mean[{b}]']:.3f}" for b, _, _ in BUCKETS)
                print(f"| {WORKLOAD_LABEL[case.workload]} {case.load} | {ref['protocol']} | {ref['completed']:,} | "
                      f"{ref['fct_mean_s'] * 1e6:.1f} | {ref['fct_p99_s'] * 1e6:,.0f} | {slow} | {ref['cpu_s']:.1f} |")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
