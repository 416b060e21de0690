"""The scripts under bench/ still find what they import from dcflow.

They run for minutes (or need a peer simulator), so `make test` does not run
them; most do their work at import. What breaks them silently is a rename in
the library they import from: this test reads each script's
`from dcflow... import NAME` lines and checks that every name still exists,
without running the script.
"""

from __future__ import annotations

import ast
import importlib
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
SCRIPTS = sorted((ROOT / "bench").rglob("*.py"))


def dcflow_imports(script: Path) -> list[tuple[str, str]]:
    """(module, name) of every `from dcflow[.x] import name` in `script`."""
    tree = ast.parse(script.read_text(), filename=str(script))
    return [(node.module, alias.name)
            for node in ast.walk(tree)
            if isinstance(node, ast.ImportFrom) and node.module and node.module.split(".")[0] == "dcflow"
            for alias in node.names]


def test_the_bench_scripts_are_found():
    assert any(s.name == "yaps_vs_dcflow.py" for s in SCRIPTS)


@pytest.mark.parametrize("script", SCRIPTS, ids=lambda s: str(s.relative_to(ROOT)))
def test_every_name_a_bench_script_imports_from_dcflow_exists(script: Path):
    missing = []
    for module, name in dcflow_imports(script):
        imported = importlib.import_module(module)
        if not hasattr(imported, name):
            try:
                importlib.import_module(f"{module}.{name}")
            except ImportError:
                missing.append(f"{module}.{name}")
    assert not missing, f"{script.relative_to(ROOT)} imports names dcflow no longer has: {missing}"


def test_pairs_reports_the_ratio_and_whether_the_summaries_agree(tmp_path):
    # Two stand-in "builds": each prints a summary; `b` differs from `a`
    # only in wall_s, `c` also in a result.
    def build(name: str, summary: str) -> str:
        path = tmp_path / name
        path.write_text(f"#!/bin/sh\necho '{summary}'\n")
        path.chmod(0o755)
        return str(path)

    a = build("a", '{"events": 5, "wall_s": 1.0}')
    b = build("b", '{"events": 5, "wall_s": 2.0}')
    c = build("c", '{"events": 6, "wall_s": 1.0}')
    scenario = tmp_path / "s.toml"
    scenario.write_text("")
    run = lambda x, y, *more: subprocess.run(
        [sys.executable, str(ROOT / "bench" / "pairs.py"), x, y, str(scenario), "--rounds", "2", *more],
        capture_output=True, text=True, check=True).stdout.splitlines()
    same, different, controlled = run(a, b), run(a, c), run(a, c, "--control")
    assert same[0] == "| scenario | base CPU | new CPU | base / new, median (range) | summaries |"
    assert same[2].startswith("| s.toml |") and same[2].endswith("| same |")
    assert different[2].endswith("| DIFFERENT |")
    # The control pairs the base with itself: one more column, and the
    # summaries cell still compares base with new.
    assert controlled[0] == "| scenario | base CPU | new CPU | base / new, median (range) | base / base (control) | summaries |"
    assert controlled[2].count("|") == same[2].count("|") + 1 and controlled[2].endswith("| DIFFERENT |")
