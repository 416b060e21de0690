"""Benchmarks: run scenarios, report wall time, events/s and peak RSS.

    python -m dcflow.bench                 # every bench/*.toml
    python -m dcflow.bench a.toml b.toml --repeat 3 -o bench-out/bench.md

Each run happens in a fresh child process so its peak RSS (``ru_maxrss`` from
``wait4``) and CPU time are its own. Before the scenarios, the event queue
alone is timed with the hold benchmark (10^5 pending events); every scenario's
events/s is also given as a ratio to it, so numbers from different machines
compare. Benchmarks are not tests: nothing is asserted.
"""

from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
import time
from collections.abc import Sequence
from pathlib import Path
from typing import Any

__all__ = ["measure", "markdown_table", "main"]


def _child(path: str) -> int:
    """In the child: run one scenario and print its summary as JSON."""
    from dcflow.result import jsonable_summary
    from dcflow.run import run
    from dcflow.scenario import Scenario

    sc = Scenario.from_toml(path)
    res = run(sc)
    d = sc.resolved()
    out = jsonable_summary(res.summary)
    out["_engine"] = d.get("engine")
    out["_protocol"] = (d.get("protocol") or {}).get("name")
    print(json.dumps(out))
    return 0


def _maxrss_bytes(ru: Any) -> int:
    # Linux reports KiB, macOS bytes.
    return int(ru.ru_maxrss) * (1 if sys.platform == "darwin" else 1024)


def measure(path: Path) -> dict[str, Any]:
    """Run one scenario in a child process; its summary plus process metrics."""
    t0 = time.perf_counter()
    p = subprocess.Popen([sys.executable, "-m", "dcflow.bench", "--child", str(path)],
                         stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    out, err = p.stdout.read(), p.stderr.read()  # type: ignore[union-attr]
    p.stdout.close(), p.stderr.close()  # type: ignore[union-attr]
    _, status, ru = os.wait4(p.pid, 0)
    p.returncode = os.waitstatus_to_exitcode(status)
    elapsed = time.perf_counter() - t0
    if p.returncode != 0:
        raise RuntimeError(f"{path}: exit {p.returncode}: {err.strip().splitlines()[-1:] or ''}")
    summary = json.loads(out.strip().splitlines()[-1])
    summary["_process_s"] = elapsed
    summary["_cpu_s"] = ru.ru_utime + ru.ru_stime
    summary["_peak_rss_bytes"] = _maxrss_bytes(ru)
    return summary


def queue_baseline(pending: int = 100_000, steps: int = 20_000_000) -> float:
    """Events/s of the event queue alone (hold benchmark), measured now."""
    from dcflow import _core

    return _core.bench_event_queue(pending, steps)


def markdown_table(rows: list[dict[str, Any]], baseline: float | None = None, build: str | None = None) -> str:
    """One row per scenario: events/s and packet hops/s per second of the
    summary's ``wall_s``; ``vs queue`` is events/s over the hold baseline;
    ``build``, how dcflow._core was compiled (``make pgo``: profile-guided)."""
    def num(v: Any, fmt: str) -> str:
        return "-" if v is None else format(v, fmt)

    lines = [f"dcflow._core: {build} build", ""] if build else []
    if baseline:
        lines += [f"Event queue alone (hold, 10^5 pending): {baseline:,.0f} events/s", ""]
    lines += [
        "| scenario | engine | protocol | flows | events | wall_s | cpu_s | events/s | vs queue "
        "| packet hops/s | peak RSS (MiB) |",
        "|---|---|---|---:|---:|---:|---:|---:|---:|---:|---:|",
    ]
    for r in rows:
        ev, wall, hops = r.get("events"), r.get("wall_s"), r.get("packet_hops")
        rate = ev / wall if ev is not None and wall else None
        hop_rate = hops / wall if hops and wall else None
        ratio = rate / baseline if rate and baseline else None
        lines.append(
            f"| {r['_name']} | {r.get('_engine') or '-'} | {r.get('_protocol') or '-'} "
            f"| {num(r.get('flows_total'), ',')} | {num(ev, ',')} | {num(wall, '.2f')} "
            f"| {r['_cpu_s']:.2f} | {num(rate, ',.0f')} | {num(ratio, '.2f')} "
            f"| {num(hop_rate, ',.0f')} | {r['_peak_rss_bytes'] / 2**20:.1f} |"
        )
    return "\n".join(lines)


def main(argv: Sequence[str] | None = None) -> int:
    ap = argparse.ArgumentParser(prog="python -m dcflow.bench", description=__doc__,
                                 formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("scenarios", nargs="*", help="scenario files (default: bench/*.toml)")
    ap.add_argument("--repeat", type=int, default=1, help="runs per scenario; the fastest counts")
    ap.add_argument("-o", "--out", help="also write the markdown table to this file")
    ap.add_argument("--child", help=argparse.SUPPRESS)
    args = ap.parse_args(argv)
    if args.child:
        return _child(args.child)
    paths = [Path(s) for s in args.scenarios] or sorted(Path("bench").glob("*.toml"))
    if not paths:
        print("no benchmark scenarios (bench/*.toml)")
        return 0
    baseline = queue_baseline()
    print(f"  event queue alone: {baseline:,.0f} events/s", file=sys.stderr)
    rows = []
    for path in paths:
        best = None
        for _ in range(max(1, args.repeat)):
            try:
                r = measure(path)
            except RuntimeError as e:
                print(f"error: {e}", file=sys.stderr)
                return 1
            if best is None or (r.get("wall_s") or 0) < (best.get("wall_s") or 0):
                best = r
        assert best is not None
        best["_name"] = path.stem
        rows.append(best)
        print(f"  {path.stem}: wall {best.get('wall_s')} s, events {best.get('events')}", file=sys.stderr)
    from dcflow import _core

    table = markdown_table(rows, baseline, _core.build())
    print(table)
    if args.out:
        Path(args.out).parent.mkdir(parents=True, exist_ok=True)
        Path(args.out).write_text(table + "\n")
    return 0


if __name__ == "__main__":
    sys.exit(main())
