"""Two builds of the engine side by side on the same scenarios: each round
runs both at once, one per core (so they share the machine's state), and
reports each one's CPU time (user + system of the child). The ratio is the
median over the rounds of base / new, the figure BENCHMARKS.md quotes;
"same" means the two summaries agree in every field but `wall_s`. The
two swap which starts first from round to round. With `--control`, each
round also runs BASE against itself the same way: the spread of that
ratio around 1 is what the machine's noise alone gives, to read the
pair's ratio against (on a shared VM it can be far from 1: BENCHMARKS.md,
"On the Intel VM").

    python bench/pairs.py BASE_BIN NEW_BIN FILE [FILE ...] [--rounds 3] [--control]

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


def pair(first: str, second: str, scenario: str, swap: bool) -> tuple[float, float, bool]:
    """CPU of `first` and `second` run at once on `scenario` (`swap`: the
    second starts first), and whether their summaries agree."""
    if swap:
        b = start(second, scenario)
        a = start(first, scenario)
    else:
        a = start(first, scenario)
        b = start(second, scenario)
    (ta, sa), (tb, sb) = finish(a), finish(b)
    return ta, tb, sa == sb


def ratio_text(xs: list[float], ys: list[float]) -> str:
    """Median of the rounds' x / y, with their range; "-" for a run too short to measure."""
    ratios = sorted(x / y for x, y in zip(xs, ys) if y > 0)
    if not ratios:
        return "-"
    return f"{statistics.median(ratios):.2f} ({ratios[0]:.2f}-{ratios[-1]:.2f})"


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("base")
    ap.add_argument("new")
    ap.add_argument("scenarios", nargs="+")
    ap.add_argument("--rounds", type=int, default=3)
    ap.add_argument("--control", action="store_true", help="also run BASE against itself each round")
    args = ap.parse_args()
    control_head = " base / base (control) |" if args.control else ""
    print(f"| scenario | base CPU | new CPU | base / new, median (range) |{control_head} summaries |")
    print("|---|---:|---:|---:|" + ("---:|" if args.control else "") + "---|")
    times = lambda ts: ", ".join(f"{t:.2f}" for t in ts) + " s"
    for scenario in args.scenarios:
        base, new, same = [], [], True
        control: tuple[list[float], list[float]] = ([], [])
        for i in range(args.rounds):
            ta, tb, agree = pair(args.base, args.new, scenario, swap=i % 2 == 1)
            base.append(ta)
            new.append(tb)
            same = same and agree
            if args.control:
                ca, cb, _ = pair(args.base, args.base, scenario, swap=i % 2 == 1)
                control[0].append(ca)
                control[1].append(cb)
        control_cell = f" {ratio_text(*control)} |" if args.control else ""
        print(f"| {os.path.basename(scenario)} | {times(base)} | {times(new)} | {ratio_text(base, new)} |{control_cell}"
              f" {'same' if same else 'DIFFERENT'} |", flush=True)


if __name__ == "__main__":
    main()
