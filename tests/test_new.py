"""`dcflow new`: each preset is a complete scenario that runs as written
(with fewer flows here), and `papers` spells out the defaults."""

from __future__ import annotations

import json
import tomllib

import pytest

from conftest import dcflow
from dcflow import _core
from dcflow.presets import PRESETS


@pytest.mark.parametrize("preset", list(PRESETS))
def test_each_preset_is_written_and_runs(preset, tmp_path):
    path = tmp_path / f"{preset}.toml"
    r = dcflow("new", "--preset", preset, "-o", path)
    assert r.returncode == 0, r.stderr
    assert path.read_text() == PRESETS[preset] and path.read_text().count("#") >= 5  # commented
    r = dcflow("run", path, "--json", "--set", "workload.flows=20", "--quiet")
    assert r.returncode == 0, r.stderr
    summary = json.loads(r.stdout)
    assert summary["flows_total"] == 20 and summary["flows_completed"] == 20


def test_the_papers_preset_is_the_defaults():
    given = tomllib.loads(PRESETS["papers"])
    bare = {"topology": {"kind": given["topology"]["kind"]}, "protocol": {"name": given["protocol"]["name"]}}
    defaults = json.loads(_core.resolve(json.dumps(bare)))
    for section in ("topology", "protocol"):
        for key, value in given[section].items():
            assert defaults[section][key] == value, f"{section}.{key}: {value!r}, default {defaults[section][key]!r}"
    assert given["seed"] == defaults["seed"] and given["engine"] == defaults["engine"]


def test_the_leaf_spine_is_pfabrics():
    t = tomllib.loads(PRESETS["leafspine-40g"])["topology"]
    assert (t["leaves"] * t["hosts_per_leaf"], t["spines"], t["link_rate"], t["spine_link_rate"]) == (
        144, 4, "40Gbps", "160Gbps")
    assert (t["prop_delay"], t["buffer"]) == ("200ns", "36864B")


def test_new_prints_without_o_and_keeps_an_existing_file(tmp_path):
    r = dcflow("new")
    assert r.returncode == 0 and r.stdout == PRESETS["papers"]
    path = tmp_path / "s.toml"
    path.write_text("mine")
    r = dcflow("new", "-o", path)
    assert r.returncode == 2 and r.stderr.strip() == f"error: -o: {path} exists; pass --overwrite to replace it"
    assert path.read_text() == "mine"
    r = dcflow("new", "--preset", "fatree-100g")
    assert r.returncode == 2 and "fattree-100g" in r.stderr and len(r.stderr.strip().splitlines()) == 1
