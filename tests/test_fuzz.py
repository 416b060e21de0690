"""Fuzzing the front door: valid scenarios and sweep files, mutated
(values of other types and units, unknown and missing keys, deeper
nesting, extreme sizes and counts), through the command line in this
process. Every case ends with exit 0, or exit 2 and one line; never a
traceback or a panic, and nothing written on error.

`make test` runs a bounded number of cases; `make fuzz` many more
(DCFLOW_FUZZ_EXAMPLES).
"""

from __future__ import annotations

import contextlib
import copy
import io
import json
import os
import tempfile
import tomllib
from pathlib import Path
from typing import Any

import pytest

hypothesis = pytest.importorskip("hypothesis")
from hypothesis import HealthCheck, given, settings  # noqa: E402
from hypothesis import strategies as st  # noqa: E402

from conftest import REPO  # noqa: E402
from dcflow.cli import main  # noqa: E402

EXAMPLES = int(os.environ.get("DCFLOW_FUZZ_EXAMPLES", "60"))
FUZZ = settings(max_examples=EXAMPLES, deadline=None, derandomize="DCFLOW_FUZZ_EXAMPLES" not in os.environ,
                suppress_health_check=list(HealthCheck))

SCENARIOS = [tomllib.loads((REPO / "examples" / name).read_text()) for name in ("demo.toml",)] + [
    {"topology": {"kind": "fat_tree", "k": 4}, "protocol": {"name": "pdq"},
     "workload": {"pattern": "permutation", "flows": 8, "size": {"dist": "cdf", "name": "web_search", "max": "1MB"},
                  "deadline": {"dist": "uniform", "min": "5ms", "max": "20ms"}}},
    {"engine": "fluid", "topology": {"kind": "leaf_spine"}, "protocol": {"name": "srpt"},
     "workload": {"pattern": "all_to_all", "arrival": "poisson", "load": 0.5, "flows": 30,
                  "size": {"dist": "pareto", "mean": "50KB", "shape": 1.5}},
     "stats": {"warmup": "1ms", "buckets": ["10KB", "1MB"]}},
]

#: Values a mutation puts anywhere: other types, units, signs and extremes.
VALUES = st.one_of(
    st.sampled_from([0, 1, -1, 2, 3, 2**31, 2**63, -(2**63), 2**64, 0.0, -0.5, 1e308, 1e-300, 0.5,
                     True, False, "", "x", "1ps", "1e9s", "-5ms", "10Gbps", "0bps", "1GB", "1KiB",
                     "0B", "999999999999999999GB", "100", "fat_tree", "tcp", "bottleneck", "sw->h0",
                     "web_search", "NaN", "inf", [], [1, 2], ["100KB", "10KB"], {}, {"dist": "fixed"},
                     {"dist": "fixed", "value": "1MB"}]),
    st.integers(min_value=-10, max_value=40),
    st.text(max_size=8),
)
KEYS = st.sampled_from(["name", "kind", "hosts", "k", "size", "dist", "value", "flows", "load", "rate", "stop",
                        "links", "interval", "rto_min", "variant", "pattern", "zzz", "buffer", "link_rate",
                        "deadline", "trace", "file", "events", "at", "state", "warmup", "buckets"])


def _paths(node: Any, prefix: tuple = ()) -> list[tuple]:
    """Every path to a table or a value in `node`."""
    out = [prefix]
    if isinstance(node, dict):
        for k, v in node.items():
            out += _paths(v, (*prefix, k))
    elif isinstance(node, list):
        for i, v in enumerate(node):
            out += _paths(v, (*prefix, i))
    return out


def _get(node: Any, path: tuple) -> Any:
    for p in path:
        node = node[p]
    return node


@st.composite
def mutated(draw, base: dict) -> dict:
    """`base` after one to three mutations."""
    doc = copy.deepcopy(base)
    for _ in range(draw(st.integers(1, 3))):
        paths = _paths(doc)
        path = draw(st.sampled_from(paths))
        op = draw(st.sampled_from(["set", "add", "delete", "nest"]))
        parent = _get(doc, path[:-1]) if path else None
        # Copies: a later mutation must not change the strategies' own lists and tables.
        if op == "set" and path:
            parent[path[-1]] = copy.deepcopy(draw(VALUES))
        elif op == "add":
            target = _get(doc, path)
            if isinstance(target, dict):
                target[draw(KEYS)] = copy.deepcopy(draw(VALUES))
        elif op == "delete" and path:
            del parent[path[-1]]
        elif op == "nest" and path:
            parent[path[-1]] = {draw(KEYS): parent[path[-1]]}
    return doc


def _toml(node: Any) -> str:
    """A dict as TOML (inline tables: no TOML writer is a dependency)."""
    def value(v: Any) -> str:
        if isinstance(v, bool):
            return "true" if v else "false"
        if isinstance(v, (int, float)):
            return repr(v) if v == v and abs(v) != float("inf") else '"nan"'
        if isinstance(v, str):
            return json.dumps(v)  # JSON string escapes are TOML basic-string escapes
        if isinstance(v, list):
            return "[" + ", ".join(value(x) for x in v) + "]"
        return "{" + ", ".join(f'"{k}" = {value(x)}' for k, x in v.items()) + "}"

    return "".join(f'"{k}" = {value(v)}\n' for k, v in node.items())


def _cli(*args: str) -> tuple[int, str]:
    """The CLI in this process: its exit status and stderr. An exception
    (a traceback) or a Rust panic propagates and fails the test."""
    err = io.StringIO()
    with contextlib.redirect_stderr(err), contextlib.redirect_stdout(io.StringIO()):
        code = main(list(args))
    return code, err.getvalue()


def _check(code: int, err: str, workdir: Path, inputs: set[str]) -> None:
    assert code in (0, 2), (code, err)
    if code == 2:
        lines = [line for line in err.splitlines() if line.strip()]
        assert len(lines) == 1 and lines[0].startswith("error: "), err
        assert {p.name for p in workdir.iterdir()} == inputs, "written despite the error"


@pytest.mark.parametrize("base", range(len(SCENARIOS)))
@FUZZ
@given(data=st.data())
def test_mutated_scenarios_run_or_are_refused_in_one_line(base, data):
    doc = data.draw(mutated(SCENARIOS[base]))
    with tempfile.TemporaryDirectory() as d:
        workdir = Path(d)
        (workdir / "s.toml").write_text(_toml(doc))
        # A short horizon: a valid mutation may ask for a long run.
        code, err = _cli("run", str(workdir / "s.toml"), "-o", str(workdir / "out"), "--quiet",
                         "--set", "stop=2ms", "--set", "stall=10ms")
        _check(code, err, workdir, {"s.toml"})


SWEEP = {"base": SCENARIOS[0], "grid": {"protocol.name": ["tcp", "rcp"]}, "seeds": {"count": 1}}


@FUZZ
@given(data=st.data())
def test_mutated_sweep_files_run_or_are_refused_in_one_line(data):
    doc = data.draw(mutated(SWEEP))
    with tempfile.TemporaryDirectory() as d:
        workdir = Path(d)
        (workdir / "sweep.toml").write_text(_toml(doc))
        # validate-like: points run inline; a sweep whose points fail exits 1 by design.
        code, err = _cli("sweep", str(workdir / "sweep.toml"), "-o", str(workdir / "out"), "--executor",
                         "inline", "--timeout", "5")
        if code == 1:  # every point was run, some failed: one line each, no traceback
            assert "points failed" in err and "Traceback" not in err, err
            return
        _check(code, err, workdir, {"sweep.toml"})
