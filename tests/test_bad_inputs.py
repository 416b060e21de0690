"""Bad input, each as a user meets it: one line naming the key (and what is
allowed, or the nearest allowed name), exit status 2, nothing written."""

from __future__ import annotations

import os
import re
from pathlib import Path

import pyarrow.parquet as pq
import pytest

from conftest import EXPLICIT, MONITOR, SMALL, dcflow, write

SWEEP = """
[base]
[base.topology]
kind = "star"
hosts = 3
[base.workload]
flows = 2
[grid]
"protocol.name" = ["tcp", "rcp"]
[seeds]
count = 2
"""


def refused(r, start: str, *needles: str) -> str:
    """The one error line of a refused command, checked."""
    assert r.returncode == 2, (r.stdout, r.stderr)
    assert "Traceback" not in r.stderr and "panicked" not in r.stderr, r.stderr
    lines = [line for line in r.stderr.splitlines() if line.strip()]
    assert len(lines) == 1, r.stderr
    assert lines[0].startswith(f"error: {start}"), lines[0]
    for needle in needles:
        assert needle in lines[0], lines[0]
    return lines[0]


def only(tmp_path: Path, *names: str) -> None:
    """Nothing written beside the inputs."""
    assert sorted(p.name for p in tmp_path.iterdir()) == sorted(names)


# ------------------------------------------------------------- did you mean
@pytest.mark.parametrize("override,start,needles", [
    ("protocol.nmae=pdq", "protocol.nmae: unknown key (did you mean 'name'?)", ["allowed in [protocol]: name, "]),
    ("topology.kind=fattree", "topology.kind: unknown value 'fattree' (did you mean 'fat_tree'?)", ["star"]),
    ("topology.hostz=3", "topology.hostz: unknown key (did you mean 'hosts'?)", ["kind"]),
    ("workload.size.dist=unifrom", "workload.size.dist: unknown value 'unifrom' (did you mean 'uniform'?)", ["cdf"]),
    ("naem=x", "naem: unknown key (did you mean 'name'?); allowed at the top level", ["workload"]),
    ("protocol.name=zzzz", "protocol.name: unknown value 'zzzz'; allowed: tcp", ["pdq"]),
])
def test_an_unknown_key_or_name_suggests_the_nearest(override, start, needles, tmp_path):
    scenario = write(tmp_path, SMALL, "s.toml")
    refused(dcflow("validate", scenario, "--set", override), start, *needles)


def test_an_error_inside_protocol_names_its_key(tmp_path):
    scenario = write(tmp_path, SMALL.replace('name = "rcp"', 'name = "tcp"\nrto_min = 5\ninit_cwnd = 4'), "s.toml")
    refused(dcflow("run", scenario, "-o", tmp_path / "out"), "protocol.rto_min: ", "5", "time")
    only(tmp_path, "s.toml")


PHOST = SMALL.replace('name = "rcp"', 'name = "phost"')


@pytest.mark.parametrize("override,start,needles", [
    ("protocol.token_expiri=2", "protocol.token_expiri: unknown key (did you mean 'token_expiry'?)", ["downgrade_after"]),
    # A key of another protocol does not apply to pHost.
    ("protocol.rto_min=5ms", "protocol.rto_min: unknown key; allowed in [protocol]: name, free_tokens", []),
    ("protocol.token_expiry=0", "protocol.token_expiry: must be a positive number", ["1.5"]),
    ("protocol.resend_after=-3", "protocol.resend_after: must be a positive number", ["9"]),
    ("protocol.free_tokens_for=some", "protocol.free_tokens_for: unknown value 'some'; allowed: all, short", []),
    ("protocol.unscheduled=medium", "protocol.unscheduled: unknown value 'medium'; allowed: high, low", []),
    ("protocol.free_tokens_for=short", "protocol.free_tokens: must be a positive number of packets", ["short"]),
])
def test_a_bad_phost_key_is_refused_naming_it(override, start, needles, tmp_path):
    scenario = write(tmp_path, PHOST, "s.toml")
    refused(dcflow("run", scenario, "--set", override, "-o", tmp_path / "out"), start, *needles)
    only(tmp_path, "s.toml")


# ------------------------------------------------------------------ files
def test_tables_nested_500_deep_are_refused(tmp_path):
    deep = "x = " + "[" * 500 + "]" * 500 + "\n"
    scenario = write(tmp_path, SMALL + deep, "s.toml")
    refused(dcflow("run", scenario), f"{scenario}: tables or arrays nested more than 64 deep")
    sweep = write(tmp_path, SWEEP.replace("[grid]", "deep = " + "{a = " * 600 + "1" + "}" * 600 + "\n[grid]"),
                  "sweep.toml")
    refused(dcflow("sweep", sweep, "-o", tmp_path / "out"), f"{sweep}: tables or arrays nested")
    refused(dcflow("run", scenario, "--set", "workload.size=" + "[" * 500 + "]" * 500), "[[[[", "nested")
    only(tmp_path, "s.toml", "sweep.toml")


@pytest.mark.parametrize("text", ["", "# only a comment\n\n"])
def test_an_empty_scenario_is_refused(text, tmp_path):
    scenario = write(tmp_path, text, "s.toml")
    refused(dcflow("run", scenario, "-o", tmp_path / "out"), f"{scenario}: the scenario is empty", "dcflow new")
    only(tmp_path, "s.toml")


@pytest.mark.skipif(not Path("/proc/self").is_dir(), reason="needs /proc, where nobody may write")
def test_an_unwritable_destination_is_refused_before_the_run(tmp_path):
    scenario = write(tmp_path, SMALL, "s.toml")
    refused(dcflow("run", scenario, "-o", "/proc/dcflow-out"), "-o: /proc: cannot write here")
    refused(dcflow("new", "-o", "/proc/dcflow.toml"), "-o: /proc: cannot write here")
    refused(dcflow("export", scenario, "--format", "csv", "-o", "/proc/flows.csv"), "-o: /proc: cannot write here")
    # A sweep prints its size first (one line), then the error, before any point runs.
    r = dcflow("sweep", write(tmp_path, SWEEP, "sweep.toml"), "-o", "/proc/dcflow-sweep")
    assert r.returncode == 2 and r.stderr.splitlines()[-1].startswith("error: /proc/dcflow-sweep: cannot write here")


def test_a_trace_row_naming_a_missing_host_gives_file_and_line(tmp_path):
    trace = tmp_path / "flows.csv"
    trace.write_text("# two flows\nsrc,dst,size_bytes,start_s\n1,0,1000,0\n\n2,30,1000,0\n")
    scenario = write(tmp_path, EXPLICIT.split("[[flows]]")[0] + f'trace = "{trace}"\n', "s.toml")
    refused(dcflow("run", scenario), f"workload.trace: {trace} line 5: dst: host 30 is outside 0..3")
    refused(dcflow("validate", write(tmp_path, EXPLICIT.replace("src = 2", "src = 7"), "e.toml")),
            "flows[1].src: host 7 is outside 0..3")


# ----------------------------------------------------------------- limits
def test_a_monitor_interval_too_fine_for_memory_is_refused_with_the_estimate(tmp_path):
    scenario = write(tmp_path, SMALL + MONITOR.replace('"100us"', '"1ps"'), "s.toml")
    line = refused(dcflow("run", scenario, "-o", tmp_path / "out"), 'monitor.interval: "1ps" would record at least ', "GB of memory")
    samples = float(re.search(r"at least ([\d.e+]+) samples", line).group(1))
    assert samples > 1e9, line  # one link over more than a millisecond, every picosecond
    only(tmp_path, "s.toml")
    assert dcflow("validate", scenario, "--set", 'monitor.interval="10us"').returncode == 0


def _memory() -> int:
    line = next(x for x in Path("/proc/meminfo").read_text().splitlines() if x.startswith("MemTotal:"))
    return int(line.split()[1]) * 1024


@pytest.mark.skipif(not Path("/proc/meminfo").exists(), reason="the guard reads /proc/meminfo")
def test_the_memory_guard_counts_each_engines_bytes_per_flow(tmp_path):
    """Measured (lib.rs, bytes_per_flow): 600 B a packet-engine flow, 420 B
    a flow-level one; a count between the two bounds tells them apart."""
    flows = _memory() // 500
    scenario = write(tmp_path, SMALL, "s.toml")
    refused(dcflow("validate", scenario, "--set", f"workload.flows={flows}"), "workload.flows: ", "600 B a flow")
    fluid = dcflow("validate", scenario, "--set", "engine=fluid", "--set", "protocol.name=fair",
                   "--set", f"workload.flows={flows}")
    assert fluid.returncode == 0, fluid.stderr


def test_the_fluid_engines_link_rates_are_never_negative(tmp_path):
    scenario = write(tmp_path, """
engine = "fluid"
[topology]
kind = "fat_tree"
[protocol]
name = "fair"
[workload]
pattern = "all_to_all"
arrival = "poisson"
load = 0.6
flows = 400
size = { dist = "cdf", name = "web_search" }
[monitor]
interval = "10us"
links = ["bottleneck", "agg0_0->core0"]
""", "s.toml")
    r = dcflow("run", scenario, "-o", tmp_path / "out")
    assert r.returncode == 0, r.stderr
    ts = pq.read_table(tmp_path / "out" / "timeseries.parquet").to_pydict()
    assert ts["throughput_bps"] and min(ts["throughput_bps"]) >= 0


# ------------------------------------------------------------------ sweeps
def test_a_sweep_of_a_billion_seeds_is_refused_at_once(tmp_path):
    sweep = write(tmp_path, SWEEP.replace("count = 2", "count = 1000000000"), "sweep.toml")
    refused(dcflow("sweep", sweep, "-o", tmp_path / "out"), "seeds.count: 1,000,000,000 seeds x 2 grid points exceed")
    only(tmp_path, "sweep.toml")


def test_a_sweep_whose_base_is_invalid_is_refused_before_any_point(tmp_path):
    sweep = write(tmp_path, SWEEP.replace("hosts = 3", 'hosts = 3\nlink_rate = "1GB"'), "sweep.toml")
    refused(dcflow("sweep", sweep, "-o", tmp_path / "out"), "base.topology.link_rate: ", "1GB")
    only(tmp_path, "sweep.toml")
    # An error the grid may fix is each point's own (the sweep goes on).
    fixable = SWEEP.replace("hosts = 3", 'hosts = 3\nlink_rate = "1GB"').replace(
        '"protocol.name" = ["tcp", "rcp"]', '"topology.link_rate" = ["1Gbps", "1GB"]')
    r = dcflow("sweep", write(tmp_path, fixable, "fixable.toml"), "-o", tmp_path / "out")
    assert r.returncode == 1 and "2 of 4 points failed" in r.stderr, r.stderr
    assert os.path.exists(tmp_path / "out" / "points.parquet")


# -------------------------------------------------------------- pias, karuna
@pytest.mark.parametrize("overrides,start,needles", [
    (["protocol.name=pias", "protocol.size_thresholds=[\"1MB\"]"],
     "protocol.size_thresholds: unknown key (did you mean 'thresholds'?)", ["allowed in [protocol]: name, thresholds"]),
    (["protocol.name=dctcp", "protocol.thresholds=[\"1MB\"]"], "protocol.thresholds: unknown key", ["g, alpha_init"]),
    (["protocol.name=pias", "protocol.thresholds=[\"1MB\", \"100KB\"]"], "protocol.thresholds: must be 1 to 63 increasing",
     []),
    (["protocol.name=karuna", "workload.known_size_fraction=0.5", "protocol.size_thresholds=[]"],
     "protocol.size_thresholds: must be 1 to 62 increasing", []),
    (["protocol.name=pias", "workload.known_size_fraction=0.5"],
     "workload.known_size_fraction: is only read by protocol.name = \"karuna\"", ["\"pias\""]),
    (["protocol.name=karuna"], "workload.known_size_fraction: is required by protocol.name = \"karuna\"", ["[0, 1]"]),
    (["protocol.name=karuna", "workload.known_size_fraction=1.5"], "workload.known_size_fraction: must be a share in [0, 1]",
     []),
    (["protocol.name=karuna", "workload.known_size_fraction=0.5", "workload.deadline_fraction=0"],
     "workload.deadline_fraction: must be a share in (0, 1]", []),
    (["protocol.name=pias", "topology.queue=priority", "topology.priority_classes=4"],
     "protocol.thresholds: needs topology.queue = \"priority\" with at least 8 priority_classes", []),
    (["protocol.name=pias", "topology.queue=droptail", "topology.ecn_threshold=30KB"],
     "topology.ecn_threshold: is only used by queue = \"ecn\" or \"priority\"", []),
])
def test_pias_and_karuna_keys_are_checked(overrides, start, needles, tmp_path):
    scenario = write(tmp_path, SMALL, "s.toml")
    args = [a for o in overrides for a in ("--set", o)]
    refused(dcflow("run", scenario, *args, "-o", tmp_path / "out"), start, *needles)
    only(tmp_path, "s.toml")
