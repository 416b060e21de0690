"""Sweeps (the README's sweeps section): outputs, executors, crash safety, failures."""

from __future__ import annotations

import os
import textwrap
from pathlib import Path

import pyarrow.parquet as pq
import pytest

import dcflow
from dcflow.sweep import Sweep, SweepError, load_flows

from conftest import dcflow as run_cli

SWEEP = """
[base]
name = "agg"
[base.topology]
kind = "star"
hosts = 5
[base.protocol]
name = "tcp"
[base.workload]
pattern = "aggregation"
flows = 4
size = { dist = "uniform", min = "2KB", max = "50KB" }
deadline = { dist = "exponential", mean = "20ms", min = "3ms" }

[grid]
"protocol.name"  = ["tcp", "rcp"]
"workload.flows" = [2, 6]

[seeds]
values = [1, 2]
"""

# wall_s is wall-clock time: the only column allowed to differ between runs.
NONDETERMINISTIC = {"wall_s"}


def write_sweep(tmp_path: Path, text: str = SWEEP) -> Path:
    p = tmp_path / "sweep.toml"
    p.write_text(textwrap.dedent(text))
    return p


def comparable(table):
    return table.drop_columns([c for c in NONDETERMINISTIC if c in table.column_names])


def test_outputs_follow_the_contract(tmp_path):
    res = Sweep.from_toml(write_sweep(tmp_path)).run(tmp_path / "out", executor="local", workers=2)
    pts = pq.read_table(tmp_path / "out" / "points.parquet")
    assert res.ok and res.ran == 8 and res.skipped == 0
    # one row per (grid point, seed), canonical order: last grid key fastest, then seeds
    assert pts.num_rows == 8
    assert pts.column("protocol.name").to_pylist() == ["tcp"] * 4 + ["rcp"] * 4
    assert pts.column("workload.flows").to_pylist() == [2, 2, 6, 6] * 2
    assert pts.column("seed").to_pylist() == [1, 2] * 4
    for key in dcflow.result.SUMMARY_KEYS + ("retransmits", "timeouts", "packet_hops", "status", "error"):
        assert key in pts.column_names, key
    assert min(pts.column("packet_hops").to_pylist()) > 0
    assert set(pts.column("status").to_pylist()) == {"ok"}
    assert pts.column("error").null_count == 8
    # the summary's status and measured links (joined into one string)
    assert set(pts.column("run_status").to_pylist()) == {"completed"}
    assert set(pts.column("utilization_links").to_pylist()) == {"sw->h0"}
    # every flow row, with the grid values and the seed as columns
    flows = pq.read_table(tmp_path / "out" / "flows")
    assert flows.num_rows == sum(pts.column("flows_total").to_pylist()) == 2 * (2 + 6) * 2
    for col in ("protocol.name", "workload.flows", "seed", "fct_s", "met_deadline"):
        assert col in flows.column_names
    # a point's flows match its own summary
    one = [r for r in flows.to_pylist() if r["protocol.name"] == "rcp" and r["workload.flows"] == 6
           and r["seed"] == 2]
    row = [r for r in pts.to_pylist() if r["protocol.name"] == "rcp" and r["workload.flows"] == 6
           and r["seed"] == 2][0]
    assert len(one) == 6 and sum(bool(r["met_deadline"]) for r in one) == row["deadline_met"]


def test_dask_and_local_pool_give_identical_results(tmp_path):
    sw = Sweep.from_toml(write_sweep(tmp_path))
    local = sw.run(tmp_path / "local", executor="local", workers=2)
    one = sw.run(tmp_path / "one", executor="local", workers=1)
    dask = sw.run(tmp_path / "dask", executor="dask", workers=2)
    assert local.ok and dask.ok
    a, b, c = (comparable(pq.read_table(tmp_path / d / "points.parquet")) for d in ("local", "dask", "one"))
    assert a.equals(b) and a.equals(c)
    assert load_flows(tmp_path / "local").equals(load_flows(tmp_path / "dask"))
    # and the flow files are byte-identical
    for f in sorted((tmp_path / "local" / "flows").glob("*.parquet")):
        assert f.read_bytes() == (tmp_path / "dask" / "flows" / f.name).read_bytes()


def test_killed_sweep_resumes_without_losing_or_rerunning_points(tmp_path):
    sweep = write_sweep(tmp_path)
    out = tmp_path / "out"
    os.environ["DCFLOW_SWEEP_KILL_AFTER"] = "3"  # the parent SIGKILLs itself after 3 points
    try:
        r = run_cli("sweep", sweep, "-o", out, "--workers", "1")
    finally:
        del os.environ["DCFLOW_SWEEP_KILL_AFTER"]
    assert r.returncode == -9, r.stderr
    done = sorted((out / "points").glob("*.parquet"))
    assert len(done) == 3 and not (out / "points.parquet").exists()
    assert len(list((out / "flows").glob("*.parquet"))) == 3
    before = {p.name: p.stat().st_mtime_ns for p in done}

    r = run_cli("sweep", sweep, "-o", out, "--resume", "--workers", "2")
    assert r.returncode == 0, r.stderr
    assert "5 run now, 3 already done" in r.stderr
    after = sorted((out / "points").glob("*.parquet"))
    assert len(after) == 8
    assert {p.name: p.stat().st_mtime_ns for p in after if p.name in before} == before  # not re-run
    # same result as an uninterrupted sweep
    fresh = Sweep.from_toml(sweep).run(tmp_path / "fresh", executor="inline")
    assert comparable(pq.read_table(out / "points.parquet")).equals(comparable(fresh.points))
    assert load_flows(out).equals(load_flows(tmp_path / "fresh"))


def test_failing_point_is_reported_with_its_parameters(tmp_path):
    sweep = write_sweep(tmp_path, SWEEP.replace('["tcp", "rcp"]', '["tcp", "warp"]'))
    out = tmp_path / "out"
    r = run_cli("sweep", sweep, "-o", out, "--workers", "2")
    assert r.returncode == 1
    assert "4 of 8 points failed" in r.stderr
    assert "protocol.name=warp workload.flows=6 seed=2: protocol.name:" in r.stderr
    pts = pq.read_table(out / "points.parquet").to_pylist()
    ok = [p for p in pts if p["protocol.name"] == "tcp"]
    bad = [p for p in pts if p["protocol.name"] == "warp"]
    assert all(p["status"] == "ok" and p["error"] is None and p["flows_total"] for p in ok)
    assert all(p["status"] == "error" and "warp" in p["error"] and p["flows_total"] is None for p in bad)
    assert len(list((out / "flows").glob("*.parquet"))) == 4


def test_existing_sweep_dir_needs_resume(tmp_path):
    sweep = write_sweep(tmp_path)
    out = tmp_path / "out"
    assert run_cli("sweep", sweep, "-o", out, "--executor", "inline").returncode == 0
    r = run_cli("sweep", sweep, "-o", out)
    assert r.returncode == 2 and "--resume" in r.stderr
    r = run_cli("sweep", sweep, "-o", out, "--resume")
    assert r.returncode == 0 and "0 run now, 8 already done" in r.stderr
    other = write_sweep(tmp_path, SWEEP.replace("values = [1, 2]", "values = [1, 3]"))
    r = run_cli("sweep", other, "-o", out, "--resume")
    assert r.returncode == 2 and "seeds were removed" in r.stderr


def test_resume_grows_a_finished_sweep_and_refuses_a_changed_file(tmp_path):
    """Seeds added to a finished sweep run only the new points; a CDF file
    edited since the sweep began refuses to resume (its numbers would mix)."""
    cdf = tmp_path / "sizes.csv"
    cdf.write_text("size_bytes,cumulative_probability\n1000,0\n20000,1\n")
    text = SWEEP.replace('size = { dist = "uniform", min = "2KB", max = "50KB" }',
                         f'size = {{ dist = "cdf", file = "{cdf}" }}')
    out = tmp_path / "out"
    one_seed = write_sweep(tmp_path, text.replace("values = [1, 2]", "values = [1]"))
    assert run_cli("sweep", one_seed, "-o", out).returncode == 0
    two_seeds = write_sweep(tmp_path, text)
    r = run_cli("sweep", two_seeds, "-o", out, "--resume")
    assert r.returncode == 0 and "4 run now, 4 already done" in r.stderr, r.stderr
    assert pq.read_table(out / "points.parquet").num_rows == 8
    cdf.write_text("size_bytes,cumulative_probability\n1000,0\n90000,1\n")
    r = run_cli("sweep", two_seeds, "-o", out, "--resume")
    assert r.returncode == 2 and "changed since the sweep began" in r.stderr, r.stderr



def test_base_file_seed_count_and_python_api(tmp_path):
    (tmp_path / "scen").mkdir()
    (tmp_path / "scen" / "base.toml").write_text(textwrap.dedent(SWEEP.split("[grid]")[0]
                                                                  .replace("[base.", "[").replace("[base]", "")))
    p = write_sweep(tmp_path, 'base = "scen/base.toml"\n[grid]\n"workload.flows" = [1, 3]\n[seeds]\ncount = 3\n')
    sw = Sweep.from_toml(p)
    assert sw.seeds == [1, 2, 3] and len(sw) == 6
    res = sw.run(tmp_path / "out", executor="inline")
    assert res.points.column("seed").to_pylist() == [1, 2, 3, 1, 2, 3]
    api = Sweep({"topology": {"hosts": 3}, "protocol": {"name": "rcp"}}, {"workload.flows": [1, 2]}, 1)
    assert api.run(tmp_path / "api", executor="local", workers=1).points.column("flows_total").to_pylist() == [1, 2]
    with pytest.raises(SweepError):
        Sweep({}, {"workload.flows": []})
    with pytest.raises(SweepError):
        Sweep.from_dict({"base": {}, "grid": {}, "seeds": {"count": 2, "values": [1]}})


@pytest.mark.parametrize("how", ["script", "stdin"])
def test_a_python_sweep_runs_from_a_plain_script_and_from_stdin(how, tmp_path):
    """The README's Python sweep, in a script without `if __name__ ==
    "__main__":` and piped to `python -`: spawned workers must not run the
    script again (that broke the pool)."""
    import subprocess
    import sys

    from conftest import SMALL, write

    scenario = write(tmp_path, SMALL)
    out = tmp_path / "sw"
    code = (f"import dcflow\nfrom dcflow.sweep import Sweep\n"
            f"sc = dcflow.Scenario.from_toml({str(scenario)!r})\n"
            f"res = Sweep(sc, {{'workload.flows': [2, 3]}}, [1, 2]).run({str(out)!r}, workers=2)\n"
            f"print('points', res.ran)\n")
    if how == "script":
        script = tmp_path / "plain.py"
        script.write_text(code)
        r = subprocess.run([sys.executable, str(script)], capture_output=True, text=True, timeout=300)
    else:
        r = subprocess.run([sys.executable, "-"], input=code, capture_output=True, text=True, timeout=300)
    assert r.returncode == 0, r.stderr
    assert r.stdout.strip() == "points 4"
    assert pq.read_table(out / "points.parquet").num_rows == 4


def test_a_point_past_the_timeout_is_recorded_as_such(tmp_path):
    """--timeout stops a point that runs too long (here 20 GB flows, seconds
    of work) and records status "timeout"; the other points run as usual."""
    text = (SWEEP.replace('size = { dist = "uniform", min = "2KB", max = "50KB" }\n', "")
            .replace('"protocol.name"  = ["tcp", "rcp"]', '"protocol.name"  = ["tcp"]')
            .replace('"workload.flows" = [2, 6]',
                     '"workload.size" = [{dist = "fixed", value = "20KB"}, {dist = "fixed", value = "20GB"}]')
            .replace("values = [1, 2]", "values = [1]"))
    sweep = write_sweep(tmp_path, text)
    out = tmp_path / "out"
    r = run_cli("sweep", sweep, "-o", out, "--executor", "inline", "--timeout", "1")
    pts = pq.read_table(out / "points.parquet").to_pylist()
    assert [p["status"] for p in pts] == ["ok", "timeout"], (r.stderr, pts)
    assert "per-point timeout of 1 s" in pts[1]["error"]


def test_per_protocol_option_tables_apply_to_their_protocol_only(tmp_path):
    """A grid over protocols with DCTCP tuned (g = 0.1): the tcp points must
    not receive DCTCP's key (that failed them: unknown field `g`)."""
    text = SWEEP.replace('"protocol.name"  = ["tcp", "rcp"]', '"protocol.name"  = ["tcp", "dctcp"]') + (
        "\n[options.dctcp]\ng = 0.1\n")
    sweep = write_sweep(tmp_path, text)
    out = tmp_path / "out"
    r = run_cli("sweep", sweep, "-o", out, "--executor", "inline")
    assert r.returncode == 0, r.stderr
    pts = pq.read_table(out / "points.parquet").to_pylist()
    assert {p["status"] for p in pts} == {"ok"}
    from dcflow.sweep import Sweep

    sw = Sweep.from_toml(sweep)
    point = next(p for p in sw.points() if dict(p.params)["protocol.name"] == "dctcp")
    assert sw.scenario(point).to_dict()["protocol"]["g"] == 0.1
    tcp = next(p for p in sw.points() if dict(p.params)["protocol.name"] == "tcp")
    assert "g" not in sw.scenario(tcp).to_dict()["protocol"]
