"""Golden scenarios: tests/golden/NAME.toml must reproduce tests/golden/NAME.json.

Rewrite the expectations with `python -m dcflow.golden --update` (and review the diff).
"""

from __future__ import annotations

from pathlib import Path

import pytest

from dcflow import golden

GOLDEN = Path(__file__).resolve().parent / "golden"
CASES = golden.cases(GOLDEN)


@pytest.mark.skipif(not CASES, reason="no golden scenarios in tests/golden yet")
@pytest.mark.parametrize("case", CASES, ids=[c.stem for c in CASES])
def test_golden(case: Path):
    if not golden.expected_path(case).exists():
        pytest.skip(f"{case.stem}: no recorded summary yet (python -m dcflow.golden --update)")
    diffs = golden.check_case(case)
    assert not diffs, f"{case.name} differs from {case.with_suffix('.json').name}:\n  " + "\n  ".join(diffs)


def test_compare_reports_every_differing_key():
    exp = {"flows_total": 4, "fct_mean_s": 0.001, "utilization": 0.5, "app_throughput": None, "gone": 1}
    act = {"flows_total": 5, "fct_mean_s": 0.001 * (1 + 1e-12), "utilization": 0.5000001,
           "app_throughput": None, "new": 2, "wall_s": 9.0}
    diffs = golden.compare(exp, act)
    keys = [d.split(":")[0] for d in diffs]
    assert keys == ["flows_total", "gone", "new", "utilization"]  # fct within 1e-9, wall_s ignored


def test_update_then_check_roundtrip(small, tmp_path):
    case = tmp_path / "small.toml"
    assert golden.main(["--dir", str(tmp_path), "--update"]) == 0
    assert case.with_suffix(".json").exists()
    assert golden.check_case(case) == []
    assert golden.main(["--dir", str(tmp_path)]) == 0
    # corrupt one value: the check fails and names the key
    import json
    p = case.with_suffix(".json")
    d = json.loads(p.read_text())
    d["flows_total"] += 1
    p.write_text(json.dumps(d))
    assert [x.split(":")[0] for x in golden.check_case(case)] == ["flows_total"]
    assert golden.main(["--dir", str(tmp_path)]) == 1
    p.unlink()  # a scenario without a recorded summary is reported, not failed
    assert golden.main(["--dir", str(tmp_path)]) == 0
