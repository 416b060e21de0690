"""Capacity search (PDQ §5.2.1's binary search, D3 Fig. 9)."""

from __future__ import annotations

import json

import pytest

import dcflow
from dcflow.capacity import capacity, search

from conftest import dcflow as run_cli, write


def step(threshold):
    calls = []

    def evaluate(v):
        calls.append(v)
        x = 1.0 if v <= threshold else 0.9
        return x, [x]

    return evaluate, calls


def test_integer_bisection_finds_the_threshold_in_log_steps():
    for threshold in (1, 2, 37, 63, 64):
        ev, calls = step(threshold)
        value, bounded, trace = search(ev, 1, 64, 0.99, integer=True)
        assert value == threshold
        assert bounded is (threshold < 64)
        assert len(calls) == len(set(calls)) <= 2 + 6  # the ends + log2(64) probes
    ev, _ = step(0)
    assert search(ev, 1, 64, 0.99)[0] is None  # even lo fails


def test_real_bisection_and_lower_is_better():
    value, bounded, _ = search(lambda v: (-v, [-v]), 0.0, 1000.0, -123.4, integer=False, tol=0.01)
    assert bounded and 123.39 <= value <= 123.4
    value, _, _ = search(lambda v: (v * 2, [v * 2]), 1, 100, 50, integer=True, direction="le")
    assert value == 25


FAIR = """
name = "fair-share"
seed = 1
[topology]
kind = "star"
hosts = 33
[protocol]
name = "rcp"
[workload]
pattern = "aggregation"
size = { dist = "fixed", value = "125KB" }
deadline = { dist = "fixed", value = "10ms" }
"""


def test_real_scenario_capacity_is_the_last_passing_flow_count(tmp_path):
    # N flows of 125 KB (1 ms each at 1 Gbps) share one link fairly and all must
    # finish within 10 ms: the capacity is a little under 10 flows.
    path = write(tmp_path, FAIR)
    r = capacity(path, "workload.flows", 1, 32, target=0.99, seeds=1)
    assert r.bounded and 5 <= r.value < 10
    sc = dcflow.Scenario.from_toml(path)
    at = dcflow.run(sc.with_overrides({"workload.flows": r.value})).summary["app_throughput"]
    above = dcflow.run(sc.with_overrides({"workload.flows": r.value + 1})).summary["app_throughput"]
    assert at >= 0.99 > above
    # the CLI prints the trace and the answer
    out = run_cli("capacity", path, "--hi", "32", "--seeds", "1")
    assert out.returncode == 0, out.stderr
    assert f"workload.flows = {r.value}:" in out.stdout and "FAIL" in out.stdout
    js = json.loads(run_cli("capacity", path, "--hi", "32", "--seeds", "1", "--json").stdout)
    assert js["value"] == r.value and len(js["trace"]) == len(r.trace)


def test_null_metric_is_an_error(tmp_path):
    path = write(tmp_path, FAIR.replace('deadline = { dist = "fixed", value = "10ms" }', ""))
    r = run_cli("capacity", path, "--hi", "8", "--seeds", "1")
    assert r.returncode == 2 and "no deadline flows" in r.stderr


def test_the_header_and_the_verdict_compare_the_same_way(tmp_path):
    """A lower-is-better metric (fct_*) is searched with <= in both lines."""
    path = write(tmp_path, FAIR)
    out = run_cli("capacity", path, "--metric", "fct_p99_s", "--target", "0.01", "--hi", "8", "--seeds", "1")
    assert out.returncode == 0, out.stderr
    lines = out.stdout.splitlines()
    assert "fct_p99_s <= 0.01" in lines[0] and "fct_p99_s <= 0.01" in lines[-1], out.stdout
