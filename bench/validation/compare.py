"""What yaps_compare.py and htsim_compare.py share: one comparison run in
both simulators (:func:`compare`), its side-by-side print and the command
line (:func:`main`). Each script supplies its peer's command.

Each case: dcflow generates the flows, `dcflow export --format yaps|htsim`
writes them in the peer's format (sizes in whole 1460-byte packets), the peer
and `dcflow run` (the same file read back) run one after the other, and both
are summarized with dcflow's ideal FCT and the peer's finish (the sender's
last ACK). Printed side by side; recorded (unless --no-record) in
bench/validation/results/CASE.json with both CPU times, which `make claims`
and docs/validation.md read.
"""

from __future__ import annotations

import argparse
import json
import subprocess
import sys
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from tempfile import TemporaryDirectory
from typing import Any

import pyarrow.parquet as pq

import dcflow
from dcflow.scenario import parse_set
from dcflow.validation import (BUCKETS, CASES, PEERS, RESULTS, Case, dcflow_columns, recorded, replay, run_child,
                               summarize_dcflow, summarize_peer, whole_packets)

ROWS = [("completed", "completed", "{:,}", 1), ("mean FCT (us)", "fct_mean_s", "{:.2f}", 1e6),
        ("p99 FCT (us)", "fct_p99_s", "{:.2f}", 1e6)]
ROWS += [(f"{b} mean FCT (us)", f"fct_mean_s[{b}]", "{:.2f}", 1e6) for b, _, _ in BUCKETS]
ROWS += [(f"{b} mean slowdown", f"slowdown_mean[{b}]", "{:.3f}", 1) for b, _, _ in BUCKETS]
ROWS += [("timeouts", "timeouts", "{:,}", 1)]

#: A peer's command line: (its binary, the case, the resolved scenario, the
#: flow file's name in the run directory) -> argv.
Command = Callable[[Path, Case, dict[str, Any], str], Sequence[str]]


@dataclass(frozen=True)
class Reference:
    """A protocol dcflow does not have, run by the peer on the same flows
    as a reference row: recorded next to the comparison, compared with
    nothing. `run(binary, case, resolved, flow file, dcflow's columns)`
    gives its summary, or None for a case it does not run in."""

    option: str
    help: str
    run: Callable[[Path, Case, dict[str, Any], Path, Mapping[str, Any]], dict | None]


def compare(case: Case, binary: Path | None, command: Command, both: dict, dcflow_only: dict, tmp: Path,
            peer_args: Sequence[str] = (), reference: tuple[Reference, Path] | None = None) -> dict:
    """Runs `case` in both simulators (with the dotted keys `both` set in
    both, `dcflow_only` in dcflow's and `peer_args` added to the peer's
    command), and the reference (its binary given) if any; the record of
    docs/validation.md. Without `binary`, the peer's side is the recorded
    one."""
    peer = case.spec
    sc = dcflow.Scenario(case.scenario()).with_overrides(both)
    source = tmp / f"{case.name}.toml"
    source.write_text(sc.to_toml())
    trace = tmp / f"{case.name}.{peer.trace_format}"
    run_child([sys.executable, "-m", "dcflow", "export", str(source), "--format", peer.trace_format, "-o", str(trace),
               "--overwrite"], tmp)
    if peer.trace_format == "htsim":
        trace.write_text(whole_packets(trace.read_text()))
    if binary is not None:
        peer_out, peer_cpu = run_child([*command(binary, case, sc.resolved(), trace.name), *peer_args], tmp)
    resolved = sc.with_overrides(dcflow_only).resolved()
    toml = tmp / f"{case.name}-replay.toml"
    toml.write_text(dcflow.Scenario(replay(resolved, trace, peer.trace_format)).to_toml())
    out = tmp / case.name
    _, dcflow_cpu = run_child([sys.executable, "-m", "dcflow", "run", str(toml), "-o", str(out), "-q"], tmp)
    cols = dcflow_columns(pq.read_table(out / "flows.parquet"))
    record = {
        "case": case.name, "flows": case.flows, "both": both, "dcflow_only": dcflow_only, "peer_args": list(peer_args),
        peer.name: recorded(case)[peer.name] if binary is None else {
            **summarize_peer(case, peer_out, cols), "cpu_s": peer_cpu, "commit": peer_commit(binary)},
        "dcflow": {**summarize_dcflow(cols, resolved["topology"]), "cpu_s": dcflow_cpu,
                   "timeouts": json.loads((out / "summary.json").read_text())["timeouts"]},
    }
    if reference is not None:
        ref, ref_binary = reference
        summary = ref.run(ref_binary, case, sc.resolved(), trace, cols)
        if summary is not None:
            record["reference"] = {**summary, "commit": peer_commit(ref_binary)}
    return record


def peer_commit(binary: Path) -> str | None:
    """The git commit of the tree the binary was built in, if it is one."""
    r = subprocess.run(["git", "-C", str(binary.parent), "rev-parse", "HEAD"], capture_output=True, text=True)
    return r.stdout.strip() or None


def show(record: dict, peer: str) -> None:
    y, d = record[peer], record["dcflow"]
    print(f"{record['case']} ({record['flows']:,} flows; CPU {PEERS[peer].label} {y['cpu_s']:.1f} s, "
          f"dcflow {d['cpu_s']:.1f} s)")
    for label, key, fmt, scale in ROWS:
        a, b = y.get(key), d.get(key)
        if a is None or b is None:
            print(f"  {label:<28} {'-':>10}  {'-':>10}")
            continue
        diff = f"{100 * (b - a) / a:+.1f}%" if a else ""
        print(f"  {label:<28} {fmt.format(a * scale):>10}  {fmt.format(b * scale):>10}  {diff}")
    ref = record.get("reference")
    if ref:
        print(f"  reference {ref['protocol']} ({ref['cpu_s']:.1f} s CPU): " + ", ".join(
            f"{label} {fmt.format(ref[key] * scale)}" for label, key, fmt, scale in ROWS if ref.get(key) is not None))


def main(peer: str, command: Command, doc: str, binary_help: str, argv: list[str] | None = None,
         reference: Reference | None = None) -> int:
    """The command line of `peer`'s script (`doc` its usage)."""
    label = PEERS[peer].label
    protocols = sorted({c.protocol for c in CASES if c.peer == peer})
    ap = argparse.ArgumentParser(description=doc, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument(f"--{peer}", dest="binary", type=Path, help=f"{binary_help}; without it, dcflow's side only, "
                    f"against the recorded {label} numbers (not recorded)")
    ap.add_argument("--protocol", action="append", help=f"only these protocols ({', '.join(protocols)})")
    ap.add_argument("--workload", action="append", help="only these workloads (web_search, data_mining)")
    ap.add_argument("--load", type=float, action="append", help="only these loads")
    ap.add_argument("--set", dest="sets", action="append", default=[], metavar="KEY.PATH=VALUE",
                    help="a scenario key for both simulators (an experiment: not recorded)")
    ap.add_argument("--dcflow-set", dest="dcflow_sets", action="append", default=[], metavar="KEY.PATH=VALUE",
                    help="a scenario key for dcflow's run only (an experiment: not recorded)")
    ap.add_argument("--peer-arg", dest="peer_args", action="append", default=[], metavar="ARG",
                    help=f"an argument added to {label}'s command (an experiment: not recorded)")
    if reference is not None:
        ap.add_argument(reference.option, dest="reference", type=Path, help=reference.help)
    ap.add_argument("--no-record", action="store_true", help="print only; leave results/ as it is")
    args = ap.parse_args(argv)
    both = dict(parse_set(s) for s in args.sets)
    dcflow_only = dict(parse_set(s) for s in args.dcflow_sets)
    cases = [c for c in CASES if c.peer == peer and (not args.protocol or c.protocol in args.protocol)
             and (not args.workload or c.workload in args.workload) and (not args.load or c.load in args.load)]
    binary = args.binary and args.binary.resolve()
    ref = (reference, args.reference.resolve()) if reference is not None and args.reference else None
    with TemporaryDirectory() as d:
        for case in cases:
            record = compare(case, binary, command, both, dcflow_only, Path(d), args.peer_args, ref)
            show(record, peer)
            if not (args.no_record or both or dcflow_only or args.peer_args or binary is None):
                RESULTS.mkdir(parents=True, exist_ok=True)
                (RESULTS / f"{case.name}.json").write_text(json.dumps(record, indent=1) + "\n")
    return 0
