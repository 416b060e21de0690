"""Golden scenarios: small scenarios whose summaries are checked in.

Every ``tests/golden/<name>.toml`` is run and its summary (all keys except
``wall_s``) is compared with ``tests/golden/<name>.json``. Runs are
deterministic, so floats must agree to a relative tolerance of 1e-9.

    python -m dcflow.golden            # check; exit 1 listing every difference
    python -m dcflow.golden --update   # rewrite the .json files
    python -m dcflow.golden NAME ...   # only these scenarios
"""

from __future__ import annotations

import argparse
import json
import math
import sys
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Any

__all__ = ["REL_TOL", "IGNORED_KEYS", "default_dir", "cases", "actual_summary", "compare",
           "expected_path", "check_case", "update_case", "main"]

REL_TOL = 1e-9
#: summary keys that legitimately differ between runs
IGNORED_KEYS = frozenset({"wall_s"})


def default_dir() -> Path:
    """``tests/golden`` of the current directory, else of the source checkout."""
    here = Path("tests/golden")
    if here.is_dir():
        return here
    return Path(__file__).resolve().parents[2] / "tests" / "golden"


def cases(directory: Path | None = None, names: Sequence[str] = ()) -> list[Path]:
    d = directory or default_dir()
    found = sorted(d.glob("*.toml")) if d.is_dir() else []
    if names:
        wanted = {Path(n).stem for n in names}
        missing = wanted - {p.stem for p in found}
        if missing:
            raise SystemExit(f"error: no golden scenario(s) {sorted(missing)} in {d}")
        found = [p for p in found if p.stem in wanted]
    return found


def expected_path(case: Path) -> Path:
    return case.with_suffix(".json")


def actual_summary(case: Path) -> dict[str, Any]:
    """Run a golden scenario; its summary without the ignored keys (strict JSON values)."""
    from dcflow.result import jsonable_summary
    from dcflow.run import run

    summary = run(case).summary
    return {k: v for k, v in jsonable_summary(summary).items() if k not in IGNORED_KEYS}


def _same(a: Any, b: Any, rel_tol: float) -> bool:
    if isinstance(a, bool) or isinstance(b, bool) or a is None or b is None:
        return a == b and type(a) is type(b)
    if isinstance(a, (int, float)) and isinstance(b, (int, float)):
        if isinstance(a, int) and isinstance(b, int):
            return a == b
        return math.isclose(a, b, rel_tol=rel_tol, abs_tol=0.0)
    if isinstance(a, Mapping) and isinstance(b, Mapping):
        return a.keys() == b.keys() and all(_same(a[k], b[k], rel_tol) for k in a)
    if isinstance(a, list) and isinstance(b, list):
        return len(a) == len(b) and all(_same(x, y, rel_tol) for x, y in zip(a, b))
    return a == b


def compare(expected: Mapping[str, Any], actual: Mapping[str, Any],
            rel_tol: float = REL_TOL) -> list[str]:
    """Every difference between two summaries, one readable line each."""
    diffs = []
    for key in sorted(set(expected) | set(actual)):
        if key in IGNORED_KEYS:
            continue
        if key not in actual:
            diffs.append(f"{key}: missing from the run (expected {expected[key]!r})")
        elif key not in expected:
            diffs.append(f"{key}: not in the golden file (got {actual[key]!r})")
        elif not _same(expected[key], actual[key], rel_tol):
            e, a = expected[key], actual[key]
            rel = ""
            if isinstance(e, (int, float)) and isinstance(a, (int, float)) and not isinstance(e, bool) and e:
                rel = f" (rel. diff {abs(a - e) / abs(e):.3g})"
            diffs.append(f"{key}: expected {e!r}, got {a!r}{rel}")
    return diffs


def check_case(case: Path) -> list[str]:
    """Run one golden scenario; the list of differences (empty if it matches)."""
    exp = expected_path(case)
    if not exp.exists():
        return [f"{exp}: no golden summary; run `python -m dcflow.golden --update`"]
    expected = json.loads(exp.read_text())
    return compare(expected, actual_summary(case))


def update_case(case: Path) -> Path:
    exp = expected_path(case)
    exp.write_text(json.dumps(actual_summary(case), sort_keys=True, indent=2) + "\n")
    return exp


def main(argv: Sequence[str] | None = None) -> int:
    ap = argparse.ArgumentParser(prog="python -m dcflow.golden", description=__doc__,
                                 formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("names", nargs="*", help="scenario names (default: all)")
    ap.add_argument("--update", action="store_true", help="rewrite the golden .json files")
    ap.add_argument("--dir", type=Path, default=None, help="golden directory (default tests/golden)")
    args = ap.parse_args(argv)
    todo = cases(args.dir, args.names)
    if not todo:
        print(f"no golden scenarios in {args.dir or default_dir()}")
        return 0
    failed = missing = 0
    for case in todo:
        if args.update:
            print(f"updated {update_case(case)}")
            continue
        if not expected_path(case).exists():
            missing += 1
            print(f"new  {case.stem} (no {expected_path(case).name}; run with --update to record it)")
            continue
        diffs = check_case(case)
        if diffs:
            failed += 1
            print(f"FAIL {case.stem}")
            for d in diffs:
                print(f"  {d}")
        else:
            print(f"ok   {case.stem}")
    if missing:
        print(f"{missing} golden scenario(s) have no recorded summary (not checked)")
    if failed:
        print(f"{failed} of {len(todo)} golden scenario(s) differ; "
              "if the change is intended, run `python -m dcflow.golden --update`")
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
