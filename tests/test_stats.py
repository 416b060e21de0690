"""Per-size-bucket slowdown and the warm-up cut (`[stats]`):
in the summary, in sweeps' points.parquet and in `dcflow plot`. Expected
values are recomputed from the run's own flows table."""

from __future__ import annotations

import json

import numpy as np
import pyarrow.parquet as pq
import pytest

from conftest import dcflow, write

POISSON = """
name = "poisson"
seed = 3

[topology]
kind = "star"
hosts = 8
link_rate = "10Gbps"

[protocol]
name = "dctcp"

[workload]
pattern = "all_to_all"
arrival = "poisson"
load = 0.5
flows = 120
size = { dist = "cdf", name = "web_search" }
"""


def run(tmp_path, *sets, name="out"):
    out = tmp_path / name
    r = dcflow("run", write(tmp_path, POISSON), "-o", out, "--json", *sets)
    assert r.returncode == 0, r.stderr
    return json.loads(r.stdout), pq.read_table(out / "flows.parquet").to_pandas()


def expected_bucket(flows, lo, hi):
    inside = flows[(flows.size_bytes > lo) & ((flows.size_bytes <= hi) if hi is not None else True)]
    done = inside.slowdown.dropna().to_numpy()
    return {"flows": len(inside), "completed": len(done),
            "slowdown_mean": done.mean() if len(done) else None,
            "slowdown_p50": float(np.percentile(done, 50)) if len(done) else None,
            "slowdown_p99": float(np.percentile(done, 99)) if len(done) else None}


def assert_buckets(summary, flows, bounds):
    """The summary's per-size keys against the flows table; ``bounds`` are
    the bucket limits in bytes (the scenario's stats.buckets)."""
    edges = [0, *bounds, None]
    assert len(summary["size_buckets"]) == len(bounds) + 1
    for label, lo, hi in zip(summary["size_buckets"], edges, edges[1:]):
        for k, v in expected_bucket(flows, lo, hi).items():
            assert summary[f"{k}[{label}]"] == pytest.approx(v, rel=1e-9), (label, k)


def test_default_buckets_are_pfabrics_and_match_the_flows_table(tmp_path):
    summary, flows = run(tmp_path)
    assert summary["size_buckets"] == ["<=100KB", "100KB-10MB", ">10MB"]
    assert sum(summary[f"flows[{b}]"] for b in summary["size_buckets"]) == summary["flows_measured"] == len(flows)
    assert summary["warmup_s"] == 0
    assert_buckets(summary, flows, [100_000, 10_000_000])


def test_warmup_leaves_early_flows_out_of_the_statistics_only(tmp_path):
    summary, flows = run(tmp_path, "--set", "stats.warmup=2ms", "--set", 'stats.buckets=["10KB", "1MB"]')
    measured = flows[flows.start_s >= 0.002]
    assert 0 < len(measured) < len(flows)  # the cut falls inside the run
    assert summary["warmup_s"] == 0.002 and summary["flows_measured"] == len(measured)
    assert summary["flows_total"] == len(flows)  # still simulated, still in the table
    assert summary["fct_mean_s"] == pytest.approx(measured.fct_s.dropna().mean(), rel=1e-9)
    assert summary["size_buckets"] == ["<=10KB", "10KB-1MB", ">1MB"]
    assert_buckets(summary, measured, [10_000, 1_000_000])


def test_the_cli_summary_shows_the_buckets(tmp_path):
    r = dcflow("run", write(tmp_path, POISSON))
    assert r.returncode == 0, r.stderr
    assert "size_buckets" in r.stdout and "100KB-10MB" in r.stdout and "warmup_s" in r.stdout


@pytest.mark.parametrize("value, key", [
    ('["10MB", "1MB"]', "stats.buckets[1]"),
    ("[]", "stats.buckets"),
    ('["1.5B"]', "stats.buckets[0]"),
])
def test_bad_buckets_name_the_key(tmp_path, value, key):
    r = dcflow("validate", write(tmp_path, POISSON), "--set", f"stats.buckets={value}")
    assert r.returncode == 2 and r.stderr.startswith(f"error: {key}") and r.stderr.count("\n") == 1, r.stderr


def test_bad_warmup_and_unknown_key(tmp_path):
    sc = write(tmp_path, POISSON)
    for setting, key in (("stats.warmup=-1ms", "stats.warmup"), ("stats.window=1ms", "stats.window")):
        r = dcflow("validate", sc, "--set", setting)
        assert r.returncode == 2 and key in r.stderr and r.stderr.count("\n") == 1, r.stderr


SWEEP = """
name = "buckets"
seeds = {{ count = 1 }}
[base]
name = "b"
[base.topology]
kind = "star"
hosts = 6
link_rate = "10Gbps"
[base.protocol]
name = "dctcp"
[base.workload]
pattern = "all_to_all"
arrival = "poisson"
load = 0.4
flows = 40
size = {{ dist = "cdf", name = "web_search" }}
[base.stats]
buckets = ["50KB", "1MB"]
[grid]
"protocol.name" = ["dctcp", "tcp"]
"workload.load" = [0.3, 0.6]
{extra}
"""


def test_sweep_points_have_bucket_columns_and_plot_them(tmp_path):
    out = tmp_path / "sw"
    r = dcflow("sweep", write(tmp_path, SWEEP.format(extra=""), "sweep.toml"), "-o", out, "--workers", "1")
    assert r.returncode == 0, r.stderr
    points = pq.read_table(out / "points.parquet").to_pandas()
    labels = ["<=50KB", "50KB-1MB", ">1MB"]
    for label in labels:
        for stat in ("flows", "completed", "fct_mean_s", "slowdown_mean", "slowdown_p50", "slowdown_p99"):
            assert f"{stat}[{label}]" in points.columns
    assert (sum(points[f"flows[{lb}]"] for lb in labels) == points["flows_measured"]).all()
    assert "warmup_s" in points.columns
    r = dcflow("plot", out)
    assert r.returncode == 0, r.stderr
    assert (out / "plots" / "slowdown_by_size.png").stat().st_size > 0


def test_a_sweep_cannot_vary_the_buckets(tmp_path):
    sweep = write(tmp_path, SWEEP.format(extra='"stats.buckets" = [["1MB"], ["2MB"]]'), "sweep.toml")
    r = dcflow("sweep", sweep, "-o", tmp_path / "sw")
    assert r.returncode == 2 and "grid.stats.buckets" in r.stderr and r.stderr.count("\n") == 1, r.stderr
    assert not (tmp_path / "sw").exists()


def test_run_plot_has_slowdown_by_size(tmp_path):
    run(tmp_path)
    r = dcflow("plot", tmp_path / "out")
    assert r.returncode == 0, r.stderr
    assert (tmp_path / "out" / "plots" / "slowdown_by_size.png").stat().st_size > 0


def test_resume_keeps_points_written_before_the_bucket_columns(tmp_path):
    """A point file from an older dcflow (no bucket columns) still assembles:
    its bucket cells are null, the other points keep theirs."""
    import pyarrow as pa

    sweep = write(tmp_path, SWEEP.format(extra=""), "sweep.toml")
    out = tmp_path / "sw"
    assert dcflow("sweep", sweep, "-o", out, "--executor", "inline").returncode == 0
    old = sorted((out / "points").iterdir())[0]
    t = pq.read_table(old)
    pq.write_table(t.select([c for c in t.column_names if not c.endswith("]")]), old)
    r = dcflow("sweep", sweep, "-o", out, "--resume", "--executor", "inline")
    assert r.returncode == 0, r.stderr
    points = pq.read_table(out / "points.parquet")
    col = points.column("slowdown_p99[<=50KB]").to_pylist()
    assert points.num_rows == 4 and sum(v is None for v in col) == 1
    assert set(points.column("status").to_pylist()) == {"ok"}
    assert isinstance(points, pa.Table)
