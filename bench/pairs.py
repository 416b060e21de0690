"""Two builds of the engine side by side on the same scenarios: each round
runs both at once, one per core (so they share the machine's state), and
reports each one's CPU time (user + system of the child). The ratio is the
median over the rounds of base / new, the figure BENCHMARKS.md quotes;
"same" means the two summaries agree in every field but `wall_s`.

    python bench/pairs.py BASE_BIN NEW_BIN FILE [FILE ...] [--rounds 3]

BASE_BIN and NEW_BIN take a scenario file and print its summary as JSON,
as `target/release/examples/run_toml` does (`cargo build --release -p
dcflow-packet --example run_toml`; copy it aside before building the other).
"""
import argparse
import json
import os
import statistics
import subprocess
import sys


def start(binary: str, scenario: str) -> subprocess.Popen:
    return subprocess.Popen([binary, scenario], stdout=subprocess.PIPE, stderr=subprocess.DEVNULL, text=True)


def finish(proc: subprocess.Popen) -> tuple[float, dict]:
    out = proc.stdout.read()
    _, status, usage = os.wait4(proc.pid, 0)
    if status != 0:
        sys.exit(f"{proc.args[0]} {proc.args[1]}: exit status {status}")
    summary = json.loads(out)
    summary.pop("wall_s", None)
    return usage.ru_utime + usage.ru_stime, summary


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("base")
    ap.add_argument("new")
    ap.add_argument("scenarios", nargs="+")
    ap.add_argument("--rounds", type=int, default=3)
    args = ap.parse_args()
    print("| scenario | base CPU | new CPU | base / new (median) | summaries |")
    print("|---|---:|---:|---:|---|")
    for scenario in args.scenarios:
        base, new, same = [], [], True
        for _ in range(args.rounds):
            a, b = start(args.base, scenario), start(args.new, scenario)
            (ta, sa), (tb, sb) = finish(a), finish(b)
            base.append(ta)
            new.append(tb)
            same = same and sa == sb
        # A run too short to measure has no ratio.
        ratios = [x / y for x, y in zip(base, new) if y > 0]
        ratio = f"{statistics.median(ratios):.2f}" if ratios else "-"
        times = lambda ts: ", ".join(f"{t:.2f}" for t in ts) + " s"
        print(f"| {os.path.basename(scenario)} | {times(base)} | {times(new)} | {ratio} | {'same' if same else 'DIFFERENT'} |", flush=True)


if __name__ == "__main__":
    main()
