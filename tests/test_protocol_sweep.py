"""A sweep that varies only the protocol: grouped bars per size bucket
(`dcflow plot`) with the data beside them, and the summary's deadline
statistics per bucket."""

from __future__ import annotations

import csv
import textwrap

import pytest

from conftest import dcflow as run_cli

PROTOCOLS_ONLY = """
[base]
name = "protocols"
[base.topology]
kind = "star"
hosts = 5
[base.workload]
pattern = "aggregation"
flows = 8
size = { dist = "uniform", min = "2KB", max = "400KB" }
deadline = { dist = "exponential", mean = "20ms", min = "3ms", only_below = "100KB" }
[base.stats]
buckets = ["100KB"]   # two buckets: <=100KB (the flows with deadlines) and >100KB

[grid]
"protocol.name" = ["tcp", "dctcp", "rcp"]

[seeds]
values = [1, 2]
"""
PROTOCOLS = ["tcp", "dctcp", "rcp"]


@pytest.fixture(scope="module")
def swept(tmp_path_factory):
    d = tmp_path_factory.mktemp("protocols")
    (d / "sweep.toml").write_text(textwrap.dedent(PROTOCOLS_ONLY))
    r = run_cli("sweep", d / "sweep.toml", "-o", d / "out", "--executor", "inline")
    assert r.returncode == 0, r.stderr
    return d / "out", r


def test_deadline_statistics_per_size_bucket(swept):
    from dcflow.sweep import load_points

    points = load_points(swept[0]).to_pylist()
    for p in points:
        assert p["deadline_flows[<=100KB]"] == p["deadline_flows"] > 0, "only flows <= 100KB have deadlines"
        assert p["deadline_flows[>100KB]"] == 0 and p["app_throughput[>100KB]"] is None
        assert p["app_throughput[<=100KB]"] == p["deadline_met[<=100KB]"] / p["deadline_flows[<=100KB]"]
        assert p["deadline_met[<=100KB]"] == p["deadline_met"]


def test_protocol_only_sweep_gets_grouped_bars_per_bucket(swept):
    out = swept[0]
    r = run_cli("plot", out)
    assert r.returncode == 0, r.stderr
    png = out / "plots" / "protocol_by_size.png"
    assert png.read_bytes()[:8] == b"\x89PNG\r\n\x1a\n" and png.stat().st_size > 10_000
    rows = list(csv.DictReader(open(out / "plots" / "protocol_by_size.csv")))
    # One group per bucket, one bar per protocol in each, for each statistic.
    assert list(dict.fromkeys(r["bucket"] for r in rows)) == ["<=100KB", ">100KB"]
    assert list(dict.fromkeys(r["protocol"] for r in rows)) == PROTOCOLS
    assert {r["statistic"] for r in rows} == {"slowdown_mean", "slowdown_p99", "app_throughput"}
    assert len(rows) == 2 * 3 * 3
    val = {(r["protocol"], r["bucket"], r["statistic"]): r for r in rows}
    for p in PROTOCOLS:
        for b in ("<=100KB", ">100KB"):
            assert float(val[p, b, "slowdown_mean"]["mean"]) >= 1.0
            assert float(val[p, b, "slowdown_p99"]["mean"]) >= float(val[p, b, "slowdown_mean"]["mean"]) - 1e-9
        assert 0.0 <= float(val[p, "<=100KB", "app_throughput"]["mean"]) <= 100.0
        assert val[p, ">100KB", "app_throughput"]["mean"] == "" and val[p, ">100KB", "app_throughput"]["seeds"] == "0"


def test_a_sweep_varying_more_than_the_protocol_gets_no_protocol_bars(tmp_path):
    from dcflow.plot.protocols import bucket_table
    from dcflow.sweep import load_points

    text = PROTOCOLS_ONLY.replace('[seeds]', '"workload.flows" = [4, 8]\n\n[seeds]').replace(
        "values = [1, 2]", "values = [1]")
    (tmp_path / "sweep.toml").write_text(textwrap.dedent(text))
    assert run_cli("sweep", tmp_path / "sweep.toml", "-o", tmp_path / "out", "--executor", "inline").returncode == 0
    assert bucket_table(load_points(tmp_path / "out")) == []


def test_sweep_ends_with_a_results_table_per_grid_point(swept):
    """`dcflow sweep` prints, as `dcflow repro` does, one row per grid point:
    the grid values, seeds finished, and the mean over them of the headline
    metrics."""
    from dcflow.sweep import load_points

    header, *lines = swept[1].stdout.splitlines()
    assert header.split()[:3] == ["protocol.name", "seeds", "ok"]
    assert "app_throughput (%)" in header and "slowdown_p99" in header
    assert [line.split()[:2] for line in lines] == [[p, "2/2"] for p in PROTOCOLS]
    points = load_points(swept[0]).to_pylist()
    at = header.index("fct_mean (ms)")
    for p, line in zip(PROTOCOLS, lines):
        mine = [q["fct_mean_s"] * 1e3 for q in points if q["protocol.name"] == p]
        assert float(line[at:].split()[0]) == pytest.approx(sum(mine) / len(mine), rel=1e-3)
