"""The `dcflow` command line: outputs and error behaviour (docs/outputs.md)."""

from __future__ import annotations

import json
import math
import os
import re
import stat
from pathlib import Path

import pyarrow.parquet as pq
import pytest

from conftest import (EXPLICIT, MONITOR, SMALL, dcflow, modules_loaded_by, sigint_as_on_a_terminal,
                      stderr_on_a_terminal, write)
from dcflow.result import FLOWS_SCHEMA, SUMMARY_KEYS, TIMESERIES_SCHEMA

FLOWS_COLUMNS = ["id", "src", "dst", "size_bytes", "start_s", "deadline_s", "finish_s", "fct_s",
                 "ideal_fct_s", "slowdown", "met_deadline", "terminated", "bytes_delivered"]
# Besides throughput and queue, the time series holds the per-link drops,
# reroutes and state, and the controllers' state (a port's C, a sender's
# window, alpha, rate).
TS_COLUMNS = ["time_s", "series", "name", "flow_id", "throughput_bps", "queue_bytes", "drops", "reroutes", "up",
              "capacity_bps", "window_bytes", "alpha", "imminence", "rate_bps"]


def test_schemas_match_design():
    assert FLOWS_SCHEMA.names == FLOWS_COLUMNS
    assert TIMESERIES_SCHEMA.names == TS_COLUMNS
    assert len(SUMMARY_KEYS) == 19


def test_run_prints_readable_summary(small):
    r = dcflow("run", small)
    assert r.returncode == 0, r.stderr
    for key in ("flows_total", "fct_mean_s", "utilization"):
        assert key in r.stdout
    assert r.stderr == ""


def test_run_json_is_one_object_with_summary_keys(small):
    r = dcflow("run", small, "--json")
    assert r.returncode == 0, r.stderr
    assert len(r.stdout.strip().splitlines()) == 1
    summary = json.loads(r.stdout)
    assert set(summary) >= set(SUMMARY_KEYS)
    assert summary["flows_total"] == 4
    assert summary["flows_completed"] + summary["flows_terminated"] <= summary["flows_total"]


def test_set_overrides_are_toml_values(small):
    r = dcflow("run", small, "--json", "--set", "workload.flows=3", "--set", "protocol.name=tcp")
    assert r.returncode == 0, r.stderr
    assert json.loads(r.stdout)["flows_total"] == 3


def test_output_dir_has_the_four_files(small_monitored, tmp_path):
    out = tmp_path / "out"
    r = dcflow("run", small_monitored, "-o", out, "--json")
    assert r.returncode == 0, r.stderr
    assert sorted(p.name for p in out.iterdir()) == [
        "flows.parquet", "scenario.resolved.toml", "summary.json", "timeseries.parquet"]
    assert json.loads(r.stdout) == json.loads((out / "summary.json").read_text())

    flows = pq.read_table(out / "flows.parquet")
    assert flows.schema.names == FLOWS_COLUMNS
    assert flows.schema.equals(FLOWS_SCHEMA)
    assert flows.num_rows == 4
    assert sorted(flows.column("dst").to_pylist()) == [0, 0, 0, 0]  # aggregation into host 0
    sizes = flows.column("size_bytes").to_pylist()
    assert all(2_000 <= s <= 50_000 for s in sizes)
    for row in flows.to_pylist():
        if row["finish_s"] is not None:
            assert row["bytes_delivered"] == row["size_bytes"]
            assert math.isclose(row["fct_s"], row["finish_s"] - row["start_s"], rel_tol=1e-9)
            assert row["fct_s"] >= row["ideal_fct_s"] * (1 - 1e-9)  # no flow beats its ideal FCT
        assert row["deadline_s"] is not None  # every flow got a deadline ...
        assert row["met_deadline"] is not None  # ... so met_deadline is never null
        if row["met_deadline"]:
            assert row["finish_s"] is not None and row["finish_s"] <= row["deadline_s"]

    ts = pq.read_table(out / "timeseries.parquet")
    assert ts.schema.equals(TIMESERIES_SCHEMA)
    kinds = set(ts.column("series").to_pylist())
    assert kinds == {"link", "flow"}
    for row in ts.to_pylist():
        assert (row["queue_bytes"] is None) == (row["series"] == "flow")
        assert 0 <= row["throughput_bps"] <= 1e9 * (1 + 1e-9)  # link throughput <= capacity
        # One name for each thing: a flow's id is the flows table's integer,
        # a link's name the one the summary's utilization_links gives.
        if row["series"] == "flow":
            assert row["flow_id"] in flows.column("id").to_pylist() and row["name"] == str(row["flow_id"])
        else:
            assert row["flow_id"] is None and [row["name"]] == json.loads(r.stdout)["utilization_links"]

    resolved = (out / "scenario.resolved.toml").read_text()
    assert resolved.startswith("# resolved by dcflow ")
    import tomllib
    doc = tomllib.loads(resolved)
    assert doc["topology"]["hosts"] == 5 and "mtu" in doc["topology"]  # defaults filled in


def test_no_timeseries_without_monitor(small, tmp_path):
    out = tmp_path / "out"
    assert dcflow("run", small, "-o", out).returncode == 0
    assert not (out / "timeseries.parquet").exists()
    assert (out / "flows.parquet").exists()


def test_resolved_scenario_reruns_identically(small, tmp_path):
    out = tmp_path / "out"
    assert dcflow("run", small, "-o", out).returncode == 0
    again = tmp_path / "again"
    assert dcflow("run", out / "scenario.resolved.toml", "-o", again).returncode == 0
    assert (out / "flows.parquet").read_bytes() == (again / "flows.parquet").read_bytes()


def test_rerun_replaces_previous_output(small, tmp_path):
    out = tmp_path / "out"
    assert dcflow("run", small, "-o", out, "--set", "workload.flows=2").returncode == 0
    assert dcflow("run", small, "-o", out, "--set", "workload.flows=3").returncode == 0
    assert pq.read_table(out / "flows.parquet").num_rows == 3
    assert [p.name for p in tmp_path.iterdir() if p.name.startswith(".")] == []


def test_refuses_to_replace_a_foreign_directory(small, tmp_path):
    out = tmp_path / "notes"
    out.mkdir()
    (out / "thesis.tex").write_text("precious")
    r = dcflow("run", small, "-o", out)
    assert r.returncode != 0
    assert len(r.stderr.strip().splitlines()) == 1 and r.stderr.startswith("error: ")
    assert (out / "thesis.tex").read_text() == "precious"


def test_a_file_as_destination_is_refused_before_the_run(small, tmp_path):
    target = tmp_path / "afile"
    target.write_text("mine")
    r = dcflow("run", small, "-o", target, "--set", "stop=1000s")
    assert r.returncode == 2
    assert r.stderr.startswith("error: -o: ") and len(r.stderr.strip().splitlines()) == 1
    assert "stalled" not in r.stderr and r.stdout == "", "nothing was simulated"
    assert target.read_text() == "mine"


def test_a_rerun_keeps_the_users_files_and_writes_usual_modes(small, tmp_path):
    out = tmp_path / "out"
    assert dcflow("run", small, "-o", out).returncode == 0
    (out / "notes.txt").write_text("keep me")
    (out / "plots").mkdir()
    assert dcflow("run", small, "-o", out, "--set", "workload.flows=3").returncode == 0
    assert (out / "notes.txt").read_text() == "keep me" and (out / "plots").is_dir()
    assert pq.read_table(out / "flows.parquet").num_rows == 3
    umask = os.umask(0)
    os.umask(umask)
    assert stat.S_IMODE(out.stat().st_mode) == 0o777 & ~umask
    assert stat.S_IMODE((out / "summary.json").stat().st_mode) == 0o666 & ~umask


def test_a_flow_count_beyond_memory_is_one_line_in_validate_and_run(small, tmp_path):
    for cmd in ("validate", "run"):
        r = dcflow(cmd, small, "--set", "workload.flows=4294967295")
        assert r.returncode == 2, (cmd, r.stderr)
        assert r.stderr.startswith("error: workload.flows: ") and "GB of memory" in r.stderr
        assert len(r.stderr.strip().splitlines()) == 1
    r = dcflow("validate", small, "--set", "workload.flows=4294967296")
    assert r.returncode == 2 and "u32" not in r.stderr and "whole number" in r.stderr


# ----------------------------------------------------------------- errors
def _bad(tmp_path: Path, text: str) -> Path:
    return write(tmp_path, text, "bad.toml")


BAD_SCENARIOS = {
    # name: (scenario text, the key the one-line error starts with, other words it must contain)
    "unknown key": (SMALL.replace("hosts = 5", "hosts = 5\nhostz = 5"), "topology.hostz", ["hosts"]),
    "wrong unit": (SMALL.replace('link_rate = "1Gbps"', 'link_rate = "1GB"'),
                   "topology.link_rate", ["1GB", "Gbps"]),
    "negative size": (EXPLICIT.replace('size = "20KB"', 'size = "-20KB"'), "flows[0].size", ["-20KB"]),
    "host out of range": (EXPLICIT.replace("src = 2", "src = 7"), "flows[1].src", ["7"]),
    "unknown protocol": (SMALL.replace('name = "rcp"', 'name = "nope"'), "protocol.name",
                         ["nope", "tcp", "rcp", "pfabric"]),
    "non-monotone cdf": (
        SMALL.replace('{ dist = "uniform", min = "2KB", max = "50KB" }',
                      '{ dist = "cdf", file = "sizes.csv" }'),
        "workload.size.file", ["sizes.csv"],
    ),
    # Timed faults and routing policies.
    "unknown link in a fault": (SMALL + '[[faults.events]]\nat = "1ms"\nlink = "sw->h9"\nstate = "down"\n',
                                "faults.events[0].link", ["sw->h9", "dcflow topo"]),
    "recovery before failure": (SMALL + '[[faults.events]]\nat = "1ms"\nlink = "sw->h1"\nstate = "up"\n',
                                "faults.events[0].state", ["down"]),
    "fault after stop": (SMALL.replace('name = "small"', 'name = "small"\nstop = "1ms"')
                         + '[[faults.events]]\nat = "2ms"\nnode = "sw"\nstate = "down"\n',
                         "faults.events[0].at", ["stop"]),
    "policy without multipath": (SMALL.replace('link_rate = "1Gbps"', 'link_rate = "1Gbps"\nrouting = "spray"'),
                                 "topology.routing", ["spray", "ecmp"]),
}


@pytest.mark.parametrize("case", list(BAD_SCENARIOS))
def test_bad_scenario_exits_2_with_one_line(case, tmp_path):
    text, key, needles = BAD_SCENARIOS[case]
    (tmp_path / "sizes.csv").write_text("size_bytes,p\n1000,0.2\n5000,0.6\n10000,0.4\n20000,1\n")
    path = _bad(tmp_path, text)
    out = tmp_path / "out"
    r = dcflow("run", path, "-o", out)
    assert r.returncode == 2, (r.stdout, r.stderr)
    lines = r.stderr.strip().splitlines()
    assert len(lines) == 1, r.stderr
    assert lines[0].startswith("error: ")
    assert "Traceback" not in r.stderr
    assert lines[0].startswith(f"error: {key}: "), lines[0]
    for needle in needles:
        assert needle in lines[0], lines[0]
    assert r.stdout == ""
    assert not out.exists()
    assert sorted(p.name for p in tmp_path.iterdir()) == ["bad.toml", "sizes.csv"]


@pytest.mark.parametrize("command", ["run", "topo", "validate"])
def test_missing_scenario_file(command, tmp_path):
    r = dcflow(command, tmp_path / "nope.toml")
    assert r.returncode == 2
    assert r.stderr.strip().splitlines() == [f"error: {tmp_path / 'nope.toml'}: no such scenario file"]


def test_toml_syntax_error_names_the_file(tmp_path):
    path = _bad(tmp_path, "name = \n")
    r = dcflow("run", path)
    assert r.returncode == 2
    lines = r.stderr.strip().splitlines()
    assert len(lines) == 1 and lines[0].startswith(f"error: {path}: invalid TOML")


@pytest.mark.parametrize("bad", ["workload.flows", "=3", "a..b=1", "a b=1"])
def test_bad_set_syntax(bad, small, tmp_path):
    out = tmp_path / "out"
    r = dcflow("run", small, "-o", out, "--set", bad)
    assert r.returncode == 2
    lines = r.stderr.strip().splitlines()
    assert len(lines) == 1 and lines[0].startswith("error: --set"), r.stderr
    assert not out.exists()


def test_set_into_a_value_is_an_error(small):
    r = dcflow("run", small, "--set", "name.x=1")
    assert r.returncode == 2
    assert r.stderr.strip().splitlines() == [
        "error: name.x: cannot set, name is a value ('small'), not a table"]


@pytest.mark.parametrize("override,key", [
    ("topology.link_rate=fast", "topology.link_rate"),
    ("workload.flows=0", "workload.flows"),
    ("workload.receiver=99", "workload.receiver"),
    ("faults.loss=1.5", "faults.loss"),
    ('monitor.links=["nope"]', "monitor.links[0]"),
    ("seed=-1", "seed"),
])
def test_bad_set_value_names_the_key(override, key, small, tmp_path):
    out = tmp_path / "out"
    r = dcflow("run", small, "-o", out, "--set", override, "--set", 'monitor.interval="1ms"')
    assert r.returncode == 2
    lines = r.stderr.strip().splitlines()
    assert len(lines) == 1 and lines[0].startswith(f"error: {key}: "), r.stderr
    assert not out.exists()


def test_usage_error_is_one_line():
    r = dcflow("run")
    assert r.returncode == 2
    assert len(r.stderr.strip().splitlines()) == 1 and r.stderr.startswith("error: ")


# ----------------------------------------------------------- other commands
def test_validate_prints_resolved_toml(small):
    import tomllib
    r = dcflow("validate", small, "--set", "workload.flows=7")
    assert r.returncode == 0, r.stderr
    doc = tomllib.loads(r.stdout)
    assert doc["workload"]["flows"] == 7
    assert doc["protocol"]["name"] == "rcp"
    assert doc["seed"] == 1


def test_topo_lists_hosts_and_links(small):
    r = dcflow("topo", small)
    assert r.returncode == 0, r.stderr
    assert "bottleneck" in r.stdout or "h4" in r.stdout or "4" in r.stdout


def test_version():
    import dcflow as pkg

    r = dcflow("version")
    assert r.returncode == 0
    assert r.stdout.strip() == pkg.__version__ != ""


def test_plot_writes_pngs(small, tmp_path):
    out = tmp_path / "out"
    assert dcflow("run", small, "-o", out).returncode == 0
    r = dcflow("plot", out)
    assert r.returncode == 0, r.stderr
    pngs = sorted((out / "plots").glob("*.png"))
    assert [p.name for p in pngs] == ["fct_cdf.png", "slowdown_by_size.png", "slowdown_cdf.png"]
    for p in pngs:
        assert p.read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"
        assert str(p) in r.stdout


def test_plot_missing_dir_is_one_line(tmp_path):
    r = dcflow("plot", tmp_path / "nothing")
    assert r.returncode == 2
    assert len(r.stderr.strip().splitlines()) == 1 and r.stderr.startswith("error: ")


def test_a_stalled_run_ends_with_one_warning_and_status_stalled(tmp_path):
    # Every packet h2 sends is lost, so its flow never delivers a byte and,
    # without the stall guard, the run never ends.
    lossy = ["--set", "faults.loss=0.999999999999", "--set", 'faults.links=["h2->sw"]',
             "--set", "faults.direction=forward", "--set", "stall=50ms"]
    out = tmp_path / "out"
    r = dcflow("run", write(tmp_path, EXPLICIT), *lossy, "--json", "-o", out)
    assert r.returncode == 0, r.stderr  # a result, not an error: the outputs are written
    summary = json.loads(r.stdout)
    assert summary["status"] == "stalled"
    assert summary["utilization_links"] == ["sw->h0"]
    assert json.loads((out / "summary.json").read_text())["status"] == "stalled"
    warnings = [line for line in r.stderr.splitlines() if not line.startswith("wrote ")]
    at = summary["sim_time_s"]
    assert warnings == [f"warning: run stalled at {at:.3f} s: 1 of 2 flows made no progress for 50ms under tcp"]
    assert at == pytest.approx(summary["fct_max_s"] + 0.050, abs=1e-9)


def test_stall_must_be_a_positive_time(tmp_path):
    r = dcflow("run", write(tmp_path, SMALL), "--set", "stall=0s")
    assert r.returncode == 2
    assert r.stderr.startswith("error: stall: ") and len(r.stderr.splitlines()) == 1, r.stderr


def _cpu_seconds(pid: int) -> float:
    """User + system CPU time of `pid` and its children, from /proc."""
    total = 0.0
    for p in [pid, *_children(pid)]:
        try:
            fields = Path(f"/proc/{p}/stat").read_text().rsplit(")", 1)[1].split()
        except FileNotFoundError:
            continue
        total += (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")
    return total


def _children(pid: int) -> list[int]:
    try:
        return [int(c) for c in Path(f"/proc/{pid}/task/{pid}/children").read_text().split()]
    except FileNotFoundError:
        return []


LONG = {
    "packet": """
[topology]
kind = "star"
hosts = 21
[protocol]
name = "tcp"
[workload]
pattern = "aggregation"
flows = 20
size = { dist = "fixed", value = "1GB" }
""",
    "fluid": """
engine = "fluid"
[topology]
kind = "star"
hosts = 21
[protocol]
name = "fair"
[workload]
pattern = "aggregation"
flows = 3000000
arrival = "poisson"
rate = 300000
size = { dist = "fixed", value = "1KB" }
""",
}


@pytest.mark.skipif(not Path("/proc/self/stat").exists(), reason="reads CPU time from /proc")
@pytest.mark.parametrize("engine", ["packet", "fluid"])
def test_ctrl_c_stops_a_run_with_exit_130_and_no_output(engine, tmp_path):
    import signal
    import subprocess
    import sys
    import time

    scenario = write(tmp_path, LONG[engine], "long.toml")
    out = tmp_path / "out"
    proc = subprocess.Popen([sys.executable, "-m", "dcflow", "run", str(scenario), "-o", str(out)],
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, preexec_fn=sigint_as_on_a_terminal)
    # Ready when the simulation is under way: a second of CPU spent (reading
    # the scenario and generating flows take far less for the packet run).
    deadline = time.monotonic() + 120
    while _cpu_seconds(proc.pid) < 1.0 and proc.poll() is None and time.monotonic() < deadline:
        time.sleep(0.05)
    assert proc.poll() is None, "the run ended before it could be interrupted"
    proc.send_signal(signal.SIGINT)
    stdout, stderr = proc.communicate(timeout=30)
    assert proc.returncode == 130, stderr
    assert stderr.strip() == "error: interrupted" and stdout == ""
    assert not out.exists() and [p for p in tmp_path.iterdir() if p.name.startswith(".")] == []


@pytest.mark.skipif(not Path("/dev/ptmx").exists(), reason="needs pseudo-terminals")
@pytest.mark.parametrize("columns", [0, 100])
def test_a_progress_bar_only_on_a_terminal_and_not_with_quiet(columns, tmp_path):
    """Drawn on a sized terminal and on one that reports no size (0 x 0:
    `script -c` outside a terminal, CI), where tqdm alone draws nothing."""
    scenario = write(tmp_path, LONG["packet"], "long.toml")
    code, err = stderr_on_a_terminal(["run", str(scenario), "--set", "stop=60s"], columns)
    assert code == 0, err
    # Drawn before the engine reports anything (its total is not known yet),
    # then flows done of total, time spent < ETA, simulated time, events/s.
    first, rest = err.split("\r", 2)[1:]
    assert first.startswith("simulating") and "0/? flows" in first, err[:300]
    bars = re.findall(r"simulating +\d+%\|.*?\| (\d+)/20 flows \[\d\d:\d\d<[\d:?]+, sim ([\d.e+-]+) s, "
                      r"[\d.e+]+ ev/s\]", rest)
    assert bars and float(bars[-1][1]) > 0, err[:600]
    # The bar is drawn as the run starts, so a short run shows its absence.
    code, err = stderr_on_a_terminal(["run", str(scenario), "--set", "stop=0.2s", "--quiet"], columns)
    assert code == 0 and "simulating" not in err
    r = dcflow("run", scenario, "--set", "stop=0.2s")
    assert r.returncode == 0 and "simulating" not in r.stderr


def test_a_quiet_run_imports_neither_tqdm_nor_the_catalog(small, tmp_path):
    """`dcflow run -q -o DIR` draws no bar and runs no paper figure: tqdm
    and the catalog (`dcflow.repro`, every paper's module) stay unimported,
    so a short run pays only for what it uses."""
    code = (
        "from dcflow.cli import main\n"
        f"assert main(['run', {str(small)!r}, '-q', '-o', {str(tmp_path / 'out')!r}]) == 0\n"
    )
    assert modules_loaded_by(code, ("tqdm", "dcflow.repro")) == []
    assert (tmp_path / "out" / "flows.parquet").exists()
