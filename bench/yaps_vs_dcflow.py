"""The packet engine against YAPS on the same flows: CPU time of both and
their results side by side.

    python bench/yaps_vs_dcflow.py --yaps /path/to/simulator --flows 3000 --flows 10000 --repeat 3

For each flow count, the flows of SCENARIO (default
bench/leafspine-pfabric.toml, with YAPS's own pFabric settings: windows 12
to 15 packets, a 45 us timeout, 36,864-byte ports, per-packet round-robin
spraying, py/run_experiments.py) are written as a YAPS trace with its
configuration (`dcflow export --format yaps`), then YAPS (`simulator 1
FILE.conf`) and `dcflow run` on the same trace run alternately, `--repeat`
times each. CPU is user + system of each child (getrusage). Printed: each
run's CPU, the median ratio, flows completed, mean FCT and per size bucket
the mean slowdown of both, with dcflow's ideal FCT for both and FCTs as YAPS
counts them (python/dcflow/validation.py).
"""

from __future__ import annotations

import argparse
import os
import statistics
import sys
import tempfile
from pathlib import Path

import pyarrow.parquet as pq

import dcflow
from dcflow import _core
from dcflow.validation import (BUCKETS, MATCHED, YAPS_NETWORK, dcflow_columns, parse_yaps, replay, run_child,
                               summarize_dcflow, summarize_fcts)

ROOT = Path(__file__).resolve().parents[1]

#: py/run_experiments.py's network and pFabric settings.
YAPS_SETTINGS = {**{f"topology.{k}": v for k, v in YAPS_NETWORK.items()},
                 **{f"protocol.{k}": v for k, v in MATCHED["pfabric"].items()}}


def prepare(scenario: Path, flows: int, tmp: Path) -> tuple[Path, Path, dict]:
    """Writes the YAPS trace and configuration of `flows` flows and the
    dcflow scenario replaying that trace; returns (conf, replay TOML, scenario)."""
    sc = dcflow.Scenario.from_toml(scenario).with_overrides({**YAPS_SETTINGS, "workload.flows": flows})
    trace = tmp / f"flows-{flows}.yaps"
    run_child([sys.executable, "-m", "dcflow", "export", str(scenario), "--format", "yaps", "-o", str(trace),
               "--overwrite", *(f"--set={k}={v}" for k, v in {**YAPS_SETTINGS, "workload.flows": flows}.items())], tmp)
    resolved = sc.resolved()
    toml = tmp / f"replay-{flows}.toml"
    toml.write_text(dcflow.Scenario(replay(resolved, trace)).to_toml())
    return Path(str(trace) + ".conf"), toml, resolved


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--yaps", required=True, type=Path, help="YAPS's `simulator` binary")
    ap.add_argument("--scenario", type=Path, default=ROOT / "bench" / "leafspine-pfabric.toml")
    ap.add_argument("--flows", type=int, action="append", help="flow counts (repeatable; default 3000)")
    ap.add_argument("--repeat", type=int, default=1, help="runs of each simulator, interleaved")
    args = ap.parse_args(argv)
    yaps = args.yaps.resolve()
    if not (yaps.is_file() and os.access(yaps, os.X_OK)):
        print(f"error: --yaps: {args.yaps} is not an executable file (YAPS's `simulator`)", file=sys.stderr)
        return 2
    # The children import the same module: its build decides dcflow's CPU.
    print(f"dcflow._core: {_core.build()} build", flush=True)
    with tempfile.TemporaryDirectory() as d:
        tmp = Path(d)
        for flows in args.flows or [3000]:
            conf, toml, resolved = prepare(args.scenario, flows, tmp)
            cpu: dict[str, list[float]] = {"yaps": [], "dcflow": []}
            for i in range(args.repeat):
                yaps_out, c = run_child([str(yaps), "1", conf.name], tmp)
                cpu["yaps"].append(c)
                _, c = run_child([sys.executable, "-m", "dcflow", "run", str(toml), "-o", str(tmp / f"out-{flows}"),
                                  "-q"], tmp)
                cpu["dcflow"].append(c)
                print(f"{flows} flows, run {i + 1}: YAPS {cpu['yaps'][-1]:.2f} s, dcflow {cpu['dcflow'][-1]:.2f} s CPU",
                      flush=True)
            cols = dcflow_columns(pq.read_table(tmp / f"out-{flows}" / "flows.parquet"))
            sides = {"YAPS": summarize_fcts(parse_yaps(yaps_out), cols, "YAPS"), "dcflow": summarize_dcflow(cols, resolved["topology"])}
            ratio = statistics.median(cpu["yaps"]) / statistics.median(cpu["dcflow"])
            print(f"{flows} flows: CPU median YAPS {statistics.median(cpu['yaps']):.2f} s, "
                  f"dcflow {statistics.median(cpu['dcflow']):.2f} s, ratio {ratio:.2f}x")
            rows = [("completed", "completed", "{:,}"), ("mean FCT (us)", "fct_mean_s", "{:.2f}")]
            rows += [(f"mean slowdown {b}", f"slowdown_mean[{b}]", "{:.3f}") for b, _, _ in BUCKETS]
            for label, key, fmt in rows:
                y, m = sides["YAPS"][key], sides["dcflow"][key]
                scale = 1e6 if key == "fct_mean_s" else 1
                if y is None or m is None:
                    print(f"  {label:<28} YAPS {y}  dcflow {m}")
                    continue
                diff = f"{100 * (m - y) / y:+.1f}%" if y else ""
                print(f"  {label:<28} YAPS {fmt.format(y * scale):>10}  dcflow {fmt.format(m * scale):>10}  {diff}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
