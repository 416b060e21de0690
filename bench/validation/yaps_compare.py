"""dcflow against YAPS (NetSys/simulator) on the same flows: pFabric, DCTCP
and TCP on YAPS's 144-host leaf-spine, web-search and data-mining, loads 0.3
and 0.7 (the cases of python/dcflow/validation.py, docs/validation.md).

    python bench/validation/yaps_compare.py --yaps /path/to/simulator                 # every case, recorded
    python bench/validation/yaps_compare.py --yaps SIM --protocol tcp --load 0.7      # a subset
    python bench/validation/yaps_compare.py --yaps SIM --protocol dctcp --dcflow-set protocol.max_cwnd=12
                                                       # a one-setting experiment on dcflow's side
    python bench/validation/yaps_compare.py --protocol tcp     # without YAPS: dcflow against the recorded YAPS side

Each case: dcflow generates the flows, `dcflow export --format yaps` writes
them as a YAPS trace with its configuration, YAPS (`simulator 1 FILE.conf`)
and `dcflow run` (the trace read back) run one after the other, and both
are summarized with dcflow's ideal FCT and YAPS's finish (the sender's last
ACK). Printed side by side; recorded (unless --no-record) in
bench/validation/results/CASE.json with both CPU times, which `make claims`
and docs/validation.md read.
"""

from __future__ import annotations

import argparse
import json
import subprocess
import sys
import tempfile
from pathlib import Path

import pyarrow.parquet as pq

import dcflow
from dcflow.scenario import parse_set
from dcflow.validation import (BUCKETS, CASES, RESULTS, Case, dcflow_columns, recorded, replay, run_child,
                               summarize_dcflow, summarize_yaps)

ROWS = [("completed", "completed", "{:,}", 1), ("mean FCT (us)", "fct_mean_s", "{:.2f}", 1e6),
        ("p99 FCT (us)", "fct_p99_s", "{:.2f}", 1e6)]
ROWS += [(f"{b} mean FCT (us)", f"fct_mean_s[{b}]", "{:.2f}", 1e6) for b, _, _ in BUCKETS]
ROWS += [(f"{b} mean slowdown", f"slowdown_mean[{b}]", "{:.3f}", 1) for b, _, _ in BUCKETS]


def compare(case: Case, yaps: Path | None, both: dict, dcflow_only: dict, tmp: Path) -> dict:
    """Runs `case` in both simulators (with the dotted keys `both` set in
    both and `dcflow_only` in dcflow's); the record of docs/validation.md.
    Without `yaps`, YAPS's side is the recorded one."""
    sc = dcflow.Scenario(case.scenario()).with_overrides(both)
    source = tmp / f"{case.name}.toml"
    source.write_text(sc.to_toml())
    trace = tmp / f"{case.name}.yaps"
    run_child([sys.executable, "-m", "dcflow", "export", str(source), "--format", "yaps", "-o", str(trace),
               "--overwrite"], tmp)
    if yaps is None:
        yaps_side = recorded(case)["yaps"]
    else:
        yaps_out, yaps_cpu = run_child([str(yaps), "1", trace.name + ".conf"], tmp)
    resolved = sc.with_overrides(dcflow_only).resolved()
    toml = tmp / f"{case.name}-replay.toml"
    toml.write_text(dcflow.Scenario(replay(resolved, trace)).to_toml())
    out = tmp / case.name
    _, dcflow_cpu = run_child([sys.executable, "-m", "dcflow", "run", str(toml), "-o", str(out), "-q"], tmp)
    cols = dcflow_columns(pq.read_table(out / "flows.parquet"))
    return {
        "case": case.name, "flows": case.flows, "both": both, "dcflow_only": dcflow_only,
        "yaps": yaps_side if yaps is None else {**summarize_yaps(yaps_out, cols), "cpu_s": yaps_cpu,
                                                "commit": peer_commit(yaps)},
        "dcflow": {**summarize_dcflow(cols, resolved["topology"]), "cpu_s": dcflow_cpu},
    }


def peer_commit(binary: Path) -> str | None:
    """The git commit of the tree the binary was built in, if it is one."""
    r = subprocess.run(["git", "-C", str(binary.parent), "rev-parse", "HEAD"], capture_output=True, text=True)
    return r.stdout.strip() or None


def show(record: dict) -> None:
    y, d = record["yaps"], record["dcflow"]
    print(f"{record['case']} ({record['flows']:,} flows; CPU YAPS {y['cpu_s']:.1f} s, dcflow {d['cpu_s']:.1f} s)")
    for label, key, fmt, scale in ROWS:
        a, b = y.get(key), d.get(key)
        if a is None or b is None:
            print(f"  {label:<28} {'-':>10}  {'-':>10}")
            continue
        diff = f"{100 * (b - a) / a:+.1f}%" if a else ""
        print(f"  {label:<28} {fmt.format(a * scale):>10}  {fmt.format(b * scale):>10}  {diff}")


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--yaps", type=Path, help="YAPS's `simulator` binary; without it, dcflow's side only, "
                    "against the recorded YAPS numbers (not recorded)")
    ap.add_argument("--protocol", action="append", help="only these protocols (pfabric, dctcp, tcp)")
    ap.add_argument("--workload", action="append", help="only these workloads (web_search, data_mining)")
    ap.add_argument("--load", type=float, action="append", help="only these loads")
    ap.add_argument("--set", dest="sets", action="append", default=[], metavar="KEY.PATH=VALUE",
                    help="a scenario key for both simulators (an experiment: not recorded)")
    ap.add_argument("--dcflow-set", dest="dcflow_sets", action="append", default=[], metavar="KEY.PATH=VALUE",
                    help="a scenario key for dcflow's run only (an experiment: not recorded)")
    ap.add_argument("--no-record", action="store_true", help="print only; leave results/ as it is")
    args = ap.parse_args(argv)
    both = dict(parse_set(s) for s in args.sets)
    dcflow_only = dict(parse_set(s) for s in args.dcflow_sets)
    cases = [c for c in CASES if (not args.protocol or c.protocol in args.protocol)
             and (not args.workload or c.workload in args.workload) and (not args.load or c.load in args.load)]
    with tempfile.TemporaryDirectory() as d:
        for case in cases:
            record = compare(case, args.yaps and args.yaps.resolve(), both, dcflow_only, Path(d))
            show(record)
            if not (args.no_record or both or dcflow_only or args.yaps is None):
                RESULTS.mkdir(parents=True, exist_ok=True)
                (RESULTS / f"{case.name}.json").write_text(json.dumps(record, indent=1) + "\n")
    return 0


if __name__ == "__main__":
    sys.exit(main())
