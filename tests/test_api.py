"""The Python API: Scenario, run(), Result and atomic save()."""

from __future__ import annotations

import json
import os
from pathlib import Path

import pyarrow as pa
import pyarrow.parquet as pq
import pytest

import dcflow
from conftest import EXPLICIT, MONITOR, SMALL, write
from dcflow import Result, Scenario, ScenarioError
from dcflow.result import FLOWS_SCHEMA, SUMMARY_KEYS, TIMESERIES_SCHEMA


def test_exports():
    assert issubclass(ScenarioError, ValueError)
    assert isinstance(dcflow.__version__, str) and dcflow.__version__
    assert set(dcflow.__all__) >= {"Scenario", "run", "Result", "ScenarioError", "__version__"}


def test_from_toml_and_dict_agree(small):
    sc = Scenario.from_toml(small)
    d = sc.to_dict()
    assert d["topology"]["hosts"] == 5 and d["protocol"]["name"] == "rcp"
    assert Scenario(d) == sc
    assert Scenario.from_json(json.dumps(d)) == sc
    assert Scenario.from_json(sc.to_json()).resolved() == sc.resolved()


def test_from_toml_errors_name_the_file(tmp_path):
    with pytest.raises(ScenarioError, match="no such scenario file") as e:
        Scenario.from_toml(tmp_path / "missing.toml")
    assert str(tmp_path / "missing.toml") in str(e.value)
    bad = write(tmp_path, "[topology\nhosts = 3\n", "bad.toml")
    with pytest.raises(ScenarioError) as e:
        Scenario.from_toml(bad)
    msg = str(e.value)
    assert msg.startswith(f"{bad}: invalid TOML") and "\n" not in msg


def test_with_overrides_sets_dotted_keys_and_copies(small):
    sc = Scenario.from_toml(small)
    sc2 = sc.with_overrides({"protocol.name": "tcp", "workload.flows": 3, "faults.loss": 0.01})
    assert sc.to_dict()["protocol"]["name"] == "rcp"  # the original is untouched
    d = sc2.to_dict()
    assert d["protocol"]["name"] == "tcp"
    assert d["workload"]["flows"] == 3
    assert d["faults"] == {"loss": 0.01}  # tables are created as needed
    assert d["topology"] == sc.to_dict()["topology"]
    assert sc.with_overrides(workload__flows=3).to_dict()["workload"]["flows"] == 3
    deep = Scenario({}).with_overrides({"a.b.c": 1})
    assert deep.to_dict() == {"a": {"b": {"c": 1}}}


def test_with_overrides_indexes_arrays(tmp_path):
    sc = Scenario.from_toml(write(tmp_path, EXPLICIT))
    sc2 = sc.with_overrides({"flows.1.size": "5KB"})
    assert sc2.to_dict()["flows"][1]["size"] == "5KB"
    with pytest.raises(ScenarioError, match=r"^flows\.5: array index"):
        sc.with_overrides({"flows.5.size": "5KB"})


def test_with_overrides_rejects_bad_keys(small):
    sc = Scenario.from_toml(small)
    for key in ("", "a..b", ".a", "a b"):
        with pytest.raises(ScenarioError):
            sc.with_overrides({key: 1})
    with pytest.raises(ScenarioError, match=r"^name\.x: cannot set"):
        sc.with_overrides({"name.x": 1})


def test_parse_set_values():
    from dcflow.scenario import parse_set

    assert parse_set("workload.flows=30") == ("workload.flows", 30)
    assert parse_set("protocol.name=d3") == ("protocol.name", "d3")
    assert parse_set("stop=25us") == ("stop", "25us")
    assert parse_set("faults.loss=0.01") == ("faults.loss", 0.01)
    assert parse_set("monitor.flows=true") == ("monitor.flows", True)
    assert parse_set('monitor.links=["bottleneck"]') == ("monitor.links", ["bottleneck"])
    assert parse_set('workload.size={dist="fixed", value="1MB"}') == (
        "workload.size", {"dist": "fixed", "value": "1MB"})
    assert parse_set('name="a=b"') == ("name", "a=b")
    for bad in ("flows", "=1", "a..b=1"):
        with pytest.raises(ScenarioError, match="^--set"):
            parse_set(bad)


def test_relative_file_paths_follow_the_scenario_file(tmp_path):
    sub = tmp_path / "sub"
    sub.mkdir()
    sc = Scenario.from_toml(write(sub, SMALL.replace(
        '{ dist = "uniform", min = "2KB", max = "50KB" }', '{ dist = "cdf", file = "sizes.csv" }')))
    assert sc.to_dict()["workload"]["size"]["file"] == str(sub / "sizes.csv")


def test_non_json_values_are_rejected_naming_the_key():
    with pytest.raises(ScenarioError, match=r"^workload\.load: nan"):
        Scenario({"workload": {"load": float("nan")}}).to_json()
    with pytest.raises(ScenarioError, match=r"^topology\.hosts: unsupported"):
        Scenario({"topology": {"hosts": object()}}).to_json()


def test_resolved_fills_defaults(small):
    r = Scenario.from_toml(small).resolved()
    assert r["seed"] == 1 and r["engine"] == "packet"
    for key in ("link_rate", "prop_delay", "proc_delay", "buffer", "mtu"):
        assert key in r["topology"]


def test_invalid_scenario_raises_scenario_error_naming_the_key(small):
    sc = Scenario.from_toml(small).with_overrides({"topology.link_rate": "1GB"})
    with pytest.raises(ScenarioError, match=r"^topology\.link_rate: "):
        sc.resolved()
    with pytest.raises(ScenarioError, match=r"^topology\.link_rate: "):
        dcflow.run(sc)


def test_run_returns_typed_tables(small_monitored):
    res = dcflow.run(small_monitored)  # a path works too
    assert isinstance(res, Result)
    assert set(res.summary) >= set(SUMMARY_KEYS)
    assert res.summary["flows_total"] == res.flows.num_rows == 4
    assert res.flows.schema.equals(FLOWS_SCHEMA)
    assert res.flows.schema.field("met_deadline").type == pa.bool_()
    assert res.flows.schema.field("size_bytes").type == pa.int64()
    assert res.flows.schema.field("deadline_s").type == pa.float64()
    assert res.timeseries is not None and res.timeseries.schema.equals(TIMESERIES_SCHEMA)
    assert res.resolved_toml and res.resolved_toml.startswith("# resolved by dcflow")
    ids = res.flows.column("id").to_pylist()
    assert len(set(ids)) == len(ids)
    completed = sum(f is not None for f in res.flows.column("finish_s").to_pylist())
    assert completed == res.summary["flows_completed"]


def test_run_accepts_dict_and_overrides(small):
    d = Scenario.from_toml(small).to_dict()
    res = dcflow.run(d, {"workload.flows": 2}, protocol__name="tcp")
    assert res.flows.num_rows == 2
    assert res.timeseries is None
    assert "tcp" in res.resolved_toml


def test_nullable_columns_stay_null(tmp_path):
    # flow 0 has no deadline: deadline_s and met_deadline are null, not NaN / False
    res = dcflow.run(write(tmp_path, EXPLICIT))
    rows = {r["id"]: r for r in res.flows.to_pylist()}
    assert len(rows) == 2
    no_dl = [r for r in rows.values() if r["deadline_s"] is None]
    with_dl = [r for r in rows.values() if r["deadline_s"] is not None]
    assert len(no_dl) == 1 and len(with_dl) == 1
    assert no_dl[0]["met_deadline"] is None
    assert with_dl[0]["met_deadline"] in (True, False)
    assert res.flows.column("deadline_s").null_count == 1
    assert res.summary["deadline_flows"] == 1


def test_save_and_load_roundtrip(small_monitored, tmp_path):
    res = dcflow.run(small_monitored)
    out = res.save(tmp_path / "a" / "out")  # parents are created
    assert sorted(p.name for p in out.iterdir()) == [
        "flows.parquet", "scenario.resolved.toml", "summary.json", "timeseries.parquet"]
    text = (out / "summary.json").read_text()
    assert list(json.loads(text)) == sorted(res.summary)  # sorted keys
    assert text.startswith("{\n  ")  # indented
    back = Result.load(out)
    assert back.flows.equals(res.flows)
    assert back.timeseries.equals(res.timeseries)
    assert back.resolved_toml == res.resolved_toml


def test_save_is_atomic_on_failure(small, tmp_path, monkeypatch):
    import dcflow.result as result_mod

    out = tmp_path / "out"
    first = dcflow.run(small)
    first.save(out)
    before = {p.name: p.read_bytes() for p in out.iterdir()}

    second = dcflow.run(small, {"workload.flows": 2})
    real = result_mod._write_parquet
    calls = []

    def failing(table, path):
        calls.append(path)
        real(table, path)  # a partial directory now exists in the temp dir ...
        raise OSError(28, "No space left on device")  # ... then the disk fills up

    monkeypatch.setattr(result_mod, "_write_parquet", failing)
    with pytest.raises(OSError, match="No space left"):
        second.save(out)
    assert calls and calls[0].parent != out  # it was writing elsewhere
    after = {p.name: p.read_bytes() for p in out.iterdir()}
    assert after == before  # the old run is intact
    assert sorted(p.name for p in tmp_path.iterdir()) == ["out", "small.toml"]  # no temp dirs


def test_save_interrupted_leaves_no_directory(small, tmp_path, monkeypatch):
    import dcflow.result as result_mod

    res = dcflow.run(small)

    def interrupted(*a, **k):
        raise KeyboardInterrupt

    monkeypatch.setattr(result_mod, "_write_parquet", interrupted)
    with pytest.raises(KeyboardInterrupt):
        res.save(tmp_path / "out")
    assert sorted(p.name for p in tmp_path.iterdir()) == ["small.toml"]


def test_save_failed_swap_restores_old_dir(small, tmp_path, monkeypatch):
    import dcflow.result as result_mod

    out = tmp_path / "out"
    dcflow.run(small).save(out)
    before = (out / "flows.parquet").read_bytes()
    real_rename = os.rename

    def rename(src, dst):
        if os.fspath(dst) == os.fspath(out) and ".tmp-" in os.fspath(src):
            raise OSError(5, "I/O error")
        return real_rename(src, dst)

    monkeypatch.setattr(result_mod.os, "rename", rename)
    with pytest.raises(OSError, match="I/O error"):
        dcflow.run(small, {"workload.flows": 2}).save(out)
    assert (out / "flows.parquet").read_bytes() == before
    assert sorted(p.name for p in tmp_path.iterdir()) == ["out", "small.toml"]


def test_save_refuses_foreign_directory(small, tmp_path):
    foreign = tmp_path / "foreign"
    foreign.mkdir()
    (foreign / "data.txt").write_text("keep")
    with pytest.raises(FileExistsError):
        dcflow.run(small).save(foreign)
    assert (foreign / "data.txt").read_text() == "keep"
    (tmp_path / "afile").write_text("x")
    with pytest.raises(FileExistsError):
        dcflow.run(small).save(tmp_path / "afile")


def test_flows_and_summary_go_to_pandas(small):
    """Researchers reach for pandas: `make demo` installs it, and the flows
    table converts with its column names and one row a flow."""
    res = dcflow.run(small)
    df = res.flows.to_pandas()
    assert list(df.columns) == res.flows.column_names
    assert len(df) == res.summary["flows_total"] and df["fct_s"].notna().sum() == res.summary["flows_completed"]


def test_a_runs_flows_table_replays_as_a_trace(tmp_path):
    """flows.parquet, written to CSV as pyarrow writes it (quoted header, every
    column), replays as `workload.trace` to the same flows: columns are read
    by name and `deadline_s` means the same (absolute) in input and output."""
    import pyarrow.csv as pacsv

    sc = dcflow.Scenario({"seed": 3, "topology": {"kind": "star", "hosts": 6}, "protocol": {"name": "tcp"},
                          "workload": {"pattern": "all_to_all", "flows": 12, "arrival": "poisson", "rate": 2000,
                                       "size": {"dist": "uniform", "min": "2KB", "max": "50KB"},
                                       "deadline": {"dist": "exponential", "mean": "20ms", "min": "3ms"}}})
    first = dcflow.run(sc)
    trace = tmp_path / "flows.csv"
    pacsv.write_csv(first.flows, trace)
    assert trace.read_text().startswith('"id","src","dst"')
    replay = dcflow.run({"seed": 99, "topology": {"kind": "star", "hosts": 6}, "protocol": {"name": "tcp"},
                         "workload": {"pattern": "explicit", "trace": str(trace)}})
    keys = ["id", "src", "dst", "size_bytes", "start_s", "deadline_s"]
    assert replay.flows.select(keys).to_pylist() == first.flows.select(keys).to_pylist()


@pytest.mark.parametrize("protocol", ["rcp", "tcp"])
def test_no_flow_sample_and_no_sum_of_flows_exceeds_the_link_rate(protocol):
    """The demo's time series (1 Gbps bottleneck, every flow through it):
    flows are sampled as exactly as links, so neither one flow nor all of
    them together are ever seen above 1 Gbps (in-order delivery counting
    showed 1.05 Gbps)."""
    demo = Path(__file__).resolve().parent.parent / "examples" / "demo.toml"
    ts = dcflow.run(demo, {"protocol.name": protocol}).timeseries.to_pylist()
    per_time: dict[float, float] = {}
    for row in ts:
        assert row["throughput_bps"] <= 1e9 * (1 + 1e-9), row
        if row["series"] == "flow":
            per_time[row["time_s"]] = per_time.get(row["time_s"], 0.0) + row["throughput_bps"]
    assert per_time and max(per_time.values()) <= 1e9 * (1 + 1e-9)


@pytest.mark.parametrize("protocol,window,rate,capacity", [("dctcp", True, False, False), ("rcp", False, True, True)])
def test_timeseries_carries_the_controllers_state(protocol, window, rate, capacity):
    """The monitor samples each sender's window (and DCTCP's alpha) or its
    allowed rate, and each port's controller capacity, null where the
    protocol has none (docs/outputs.md)."""
    demo = Path(__file__).resolve().parent.parent / "examples" / "demo.toml"
    ts = dcflow.run(demo, {"protocol.name": protocol}).timeseries.to_pylist()
    flows = [r for r in ts if r["series"] == "flow"]
    links = [r for r in ts if r["series"] == "link"]
    assert flows and links
    assert all((r["window_bytes"] is not None) == window for r in flows)
    assert all((r["alpha"] is not None) == window and (r["alpha"] is None or 0 <= r["alpha"] <= 1) for r in flows)
    assert all((r["rate_bps"] is not None) == rate for r in flows)
    assert all((r["capacity_bps"] is not None) == capacity for r in links)
    assert all(r["window_bytes"] is None and r["rate_bps"] is None for r in links)
    assert all(r["capacity_bps"] is None for r in flows)


def test_a_short_run_imports_no_heavy_library(tmp_path):
    """A 10-flow run and its saved outputs need neither pandas, matplotlib
    nor Dask: they are imported where they are used (a short run stays well
    under a second of CPU)."""
    from conftest import modules_loaded_by

    code = (
        "import dcflow\n"
        "r = dcflow.run({'topology': {'kind': 'star', 'hosts': 4}, 'workload': {'flows': 10}})\n"
        f"r.save({str(tmp_path / 'out')!r})\n"
    )
    assert modules_loaded_by(code, ("pandas", "matplotlib", "dask", "tqdm")) == []
    assert (tmp_path / "out" / "flows.parquet").exists()
