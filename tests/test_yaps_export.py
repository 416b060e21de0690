"""`dcflow export --format yaps`: YAPS's flow trace and the configuration
that runs it on the scenario's network and protocol (docs/inputs.md)."""

from __future__ import annotations

import pytest

from conftest import dcflow, write

#: YAPS's leaf-spine as its py/run_experiments.py configures pFabric.
LEAF_SPINE = """
[topology]
kind = "leaf_spine"
leaves = 9
hosts_per_leaf = 16
spines = 4
link_rate = "40Gbps"
spine_link_rate = "160Gbps"
prop_delay = "0.2us"
proc_delay = "0us"
buffer = "36864B"
routing = "spray"
spray_order = "round_robin"
"""

PFABRIC = 'name = "yaps"\nseed = 3\n' + LEAF_SPINE + """
[protocol]
name = "pfabric"
init_window = 12
max_window = 15
rto = "45us"
"""

EXPLICIT = """
[workload]
pattern = "explicit"

[[flows]]
src = 3
dst = 140
size = "4380B"
start = "2.5us"

[[flows]]
src = 17
dst = 16
size = "1461B"
start = "0us"
"""

POISSON = """
[workload]
pattern = "all_to_all"
arrival = "poisson"
load = 0.5
flows = 30
size = { dist = "uniform", min = "1460B", max = "2MB" }
"""


def conf_of(path):
    return dict(line.split(": ", 1) for line in path.read_text().splitlines())


def test_the_trace_counts_whole_packets_and_the_configuration_matches_the_scenario(tmp_path):
    sc = write(tmp_path, PFABRIC + EXPLICIT)
    r = dcflow("export", sc, "--format", "yaps", "-o", tmp_path / "flows.txt")
    assert r.returncode == 0, r.stderr
    assert "1 flow sizes rounded up to whole 1460-byte packets" in r.stderr
    # flows in start order: id start_s 0 0 packets 0 0 src dst; 1461 B is 2 packets
    assert (tmp_path / "flows.txt").read_text() == "0 0 0 0 2 0 0 17 16\n1 0.0000025 0 0 3 0 0 3 140\n"
    conf = conf_of(tmp_path / "flows.txt.conf")
    want = {"bandwidth": "40000000000", "propagation_delay": "2e-07", "queue_size": "36864", "load_balancing": "0",
            "queue_type": "2", "flow_type": "2", "init_cwnd": "12", "max_cwnd": "15", "retx_timeout": "4.5e-05",
            "cut_through": "0", "use_flow_trace": "1", "flow_trace": "flows.txt", "num_flow": "2", "hdr_size": "40"}
    assert {k: conf[k] for k in want} == want


def test_tcp_and_dctcp_map_to_yaps_flow_and_queue_types(tmp_path):
    tcp = 'name = "y"\n' + LEAF_SPINE + '[protocol]\nname = "tcp"\ninit_cwnd = 1\nmax_cwnd = 15\nrto_min = "45us"\n'
    r = dcflow("export", write(tmp_path, tcp + EXPLICIT, "tcp.toml"), "--format", "yaps", "-o", tmp_path / "t")
    assert r.returncode == 0, r.stderr
    conf = conf_of(tmp_path / "t.conf")
    assert (conf["flow_type"], conf["queue_type"], conf["max_cwnd"], conf["retx_timeout"]) == ("42", "1", "15", "4.5e-05")
    dctcp = ('name = "y"\n' + LEAF_SPINE.replace('routing = "spray"\nspray_order = "round_robin"\n', "")
             + 'ecn_threshold = "15000B"\n[protocol]\nname = "dctcp"\ninit_cwnd = 12\nmax_cwnd = 15\nhandshake = false\n')
    r = dcflow("export", write(tmp_path, dctcp + EXPLICIT, "dctcp.toml"), "--format", "yaps", "-o", tmp_path / "d")
    assert r.returncode == 0, r.stderr
    conf = conf_of(tmp_path / "d.conf")
    # K = 15,000 B (an arrival finding more than 10 full packets is marked)
    # is YAPS's 12 packets counted with the arrival; per-flow hashing is 1.
    assert (conf["flow_type"], conf["queue_type"], conf["dctcp_mark_thresh"], conf["load_balancing"]) == ("43", "5", "12", "1")


def test_export_then_replay_gives_the_same_flows(tmp_path):
    sc = write(tmp_path, PFABRIC + POISSON.replace('min = "1460B", max = "2MB"', 'min = "1460B", max = "1460B"'))
    original = dcflow("export", sc, "--format", "csv", "-o", tmp_path / "a.csv")
    assert original.returncode == 0
    assert dcflow("export", sc, "--format", "yaps", "-o", tmp_path / "f.yaps").returncode == 0
    replay = write(tmp_path, PFABRIC + '[workload]\npattern = "explicit"\ntrace = "f.yaps"\ntrace_format = "yaps"\n', "r.toml")
    r = dcflow("export", replay, "--format", "csv", "-o", tmp_path / "b.csv")
    assert r.returncode == 0, r.stderr
    rows = (tmp_path / "a.csv").read_text().splitlines()
    assert (tmp_path / "b.csv").read_text().splitlines() == rows and len(rows) == 31


@pytest.mark.parametrize("change, key", [
    (("spines = 4", "spines = 2"), "topology"),
    (('spine_link_rate = "160Gbps"', 'spine_link_rate = "40Gbps"'), "topology.spine_link_rate"),
    (('proc_delay = "0us"', 'proc_delay = "1us"'), "topology.proc_delay"),
    (('spray_order = "round_robin"', 'spray_order = "random"'), "topology.spray_order"),
    (("init_window = 12\n", ""), "protocol.init_window"),
    (('rto = "45us"\n', ""), "protocol.rto"),
    (('name = "pfabric"\ninit_window = 12\nmax_window = 15\nrto = "45us"', 'name = "rcp"'), "protocol.name"),
])
def test_what_yaps_cannot_run_is_refused_before_writing(tmp_path, change, key):
    sc = write(tmp_path, (PFABRIC + EXPLICIT).replace(*change))
    r = dcflow("export", sc, "--format", "yaps", "-o", tmp_path / "f")
    assert r.returncode == 2, r.stderr
    assert r.stderr.count("\n") == 1 and r.stderr.startswith(f"error: {key}: "), r.stderr
    assert sorted(p.name for p in tmp_path.iterdir()) == ["scenario.toml"]


def test_an_existing_configuration_is_kept_without_overwrite(tmp_path):
    sc = write(tmp_path, PFABRIC + EXPLICIT)
    (tmp_path / "f.conf").write_text("mine")
    r = dcflow("export", sc, "--format", "yaps", "-o", tmp_path / "f")
    assert r.returncode == 2 and "f.conf exists" in r.stderr
    assert not (tmp_path / "f").exists() and (tmp_path / "f.conf").read_text() == "mine"
    assert dcflow("export", sc, "--format", "yaps", "-o", tmp_path / "f", "--overwrite").returncode == 0
    assert conf_of(tmp_path / "f.conf")["flow_type"] == "2"
