"""The training runs of the profile-guided build (`make pgo`): code no run
reaches is compiled as cold, so every protocol must be among them, and each
run must be a valid scenario (`make pgo` stops at the first error)."""

from __future__ import annotations

import pytest

import dcflow
from dcflow import _core, pgo
from dcflow.keys import PROTOCOLS


def test_every_protocol_is_trained():
    trained = set(pgo.PACKET) | set(pgo.FLUID)
    assert set(PROTOCOLS) <= trained, f"not in dcflow.pgo: {sorted(set(PROTOCOLS) - trained)}"


def test_every_discipline_the_flow_level_engine_models_is_trained_on_it():
    # The engine's own list decides: every other protocol is refused there.
    fat_tree = dcflow.Scenario.from_toml(pgo.FAT_TREE)
    for name in set(PROTOCOLS) - set(pgo.FLUID):
        with pytest.raises(dcflow.ScenarioError, match="does not model"):
            fat_tree.with_overrides({"protocol.name": name}).resolved()


def test_every_training_run_is_a_valid_scenario():
    labels = []
    for label, path, overrides in pgo.runs():
        resolved = dcflow.Scenario.from_toml(path).with_overrides(overrides).resolved()
        assert resolved["protocol"]["name"] == overrides["protocol.name"], label
        assert resolved["workload"]["flows"] == overrides["workload.flows"], label
        labels.append(label)
    assert len(labels) == len(set(labels)) == len(pgo.PACKET) + len(pgo.ROUTED) + len(pgo.DEFAULT_DELAYS) + len(pgo.FLUID)


def test_the_module_says_how_it_was_built():
    assert _core.build() in {"release", "release-tests", "profile-guided"}


def test_list_prints_every_run_without_running_it(capsys):
    assert pgo.main(["--list"]) == 0
    lines = capsys.readouterr().out.splitlines()
    assert [line.split("  ")[0] for line in lines] == [label for label, _, _ in pgo.runs()]


def test_every_training_run_completes():
    # What `make pgo` runs with the instrumented module, on this build, with
    # a tenth of the flows (`make pgo` itself stops at a run that does not
    # complete at full size).
    for label, summary, _ in pgo.train(fraction=0.1):
        assert summary["status"] == "completed", label
        assert summary["flows_completed"] + summary["flows_terminated"] == summary["flows_total"], label
