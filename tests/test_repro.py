"""The paper catalog: every ready entry runs with --quick; pending ones say why."""

from __future__ import annotations

import csv
import re

import pytest

from dcflow.repro import CATALOG, availability, run_entry

from conftest import dcflow as run_cli

READY = [n for n, e in CATALOG.items() if not availability(e)[0]]
PENDING = [n for n, e in CATALOG.items() if availability(e)[0]]
REQUIRED = ["pdq-fig3a", "pdq-fig3b", "pdq-fig3c", "pdq-fig3d", "pdq-fig3e", "pdq-fig6", "pdq-fig7",
            "pdq-fig4a", "pdq-fig4b", "pdq-fig5a", "pdq-fig5b", "pdq-fig5c", "pdq-fig8a", "pdq-fig8b",
            "pdq-fig8c", "pdq-fig8d", "pdq-fig8e", "pdq-fig9a", "pdq-fig9b", "pdq-fig10",
            "pdq-fig11a", "pdq-fig11b", "pdq-fig11c", "pdq-fig12",
            "d3-fig4", "d3-fig5", "d3-fig9", "d3-fig10", "d3-fig12", "d3-fig13", "d3-fig14", "d3-fig15",
            "d3-table1", "s3-table2", "merp-table1", "lpd-table1",
            "s3-fig6a", "s3-fig6b", "s3-fig6c", "s3-fig7a", "s3-fig7b", "s3-fig7c", "s3-fig8", "s3-fig10", "s3-fig12",
            "s3-fig13a", "s3-fig13b", "s3-fig13c", "s3-fig13d", "s3-fig14",
            "merp-fig4", "merp-fig5", "merp-fig6", "merp-fig7", "merp-fig8", "merp-fig9", "merp-fig10",
            "merp-fig11", "merp-fig12", "merp-fig12b", "merp-fig13", "merp-fig14", "phost-slowdown"]


def test_catalog_lists_every_entry_sorted_in_aligned_columns():
    assert set(REQUIRED) <= set(CATALOG)
    r = run_cli("repro", "list")
    assert r.returncode == 0
    header, *lines = r.stdout.splitlines()
    assert header.split() == ["NAME", "STATUS", "FIGURE", "TITLE"]
    names = [line.split()[0] for line in lines]
    assert sorted(names) == sorted(CATALOG)
    # fig9 before fig10: numbers within names compare as numbers.
    key = lambda n: [int(t) if t.isdigit() else t for t in re.split(r"(\d+)", n)]  # noqa: E731
    assert names == sorted(names, key=key) and names.index("d3-fig9") < names.index("d3-fig10")
    # Every column starts where its heading does, whatever the name's length.
    for col in ("STATUS", "FIGURE", "TITLE"):
        at = header.index(col)
        assert all(line[at - 2:at] == "  " and line[at] != " " for line in lines), col
    for name, line in zip(names, lines):
        assert line.split()[1] == ("pending" if name in PENDING else "ready")
        assert ("(needs: " in line) == (name in PENDING)


def _numbers(rows, column="paper"):
    return [float(r[column]) for r in rows if r.get(column) not in (None, "") and _is_float(r[column])]


def _is_float(v: str) -> bool:
    try:
        float(v)
    except ValueError:
        return False
    return True


#: What a --quick run still has to show of its figure's effect.
QUICK_EFFECTS = {
    # LPD §V-B/C (Fig. 8a): deadlines are missed at fan-in 40 under every
    # protocol, none at 20, and LPD-e misses no more than DCTCP.
    "lpd-fig8a": lambda rows: (
        all(float(r["y_mean"]) > 0 for r in rows if r["fan-in"] == "40" and r["y_mean"])
        and all(float(r["y_mean"]) == 0 for r in rows if r["fan-in"] == "20" and r["y_mean"])
        and _at(rows, "LPD-e", "40") <= _at(rows, "DCTCP", "40")),
    # PDQ §5.6 (Fig. 9b): the text's +11.4% (PDQ) and +44.7% (TCP) at 3% loss, from our loss-free means.
    "pdq-fig9b": lambda rows: all(
        float(_row(rows, s, "3")["paper"]) == pytest.approx(f * float(_row(rows, s, "0")["y_mean"]), rel=1e-5)
        for s, f in (("PDQ(Full)", 1.114), ("TCP", 1.447))),
    # PIAS: at load 0.8 its small flows finish sooner than DCTCP's, and not before pFabric's.
    **{name: lambda rows: (_at(rows, "pFabric", "0.8", "workload.load") <= _at(rows, "PIAS", "0.8", "workload.load")
                           < _at(rows, "DCTCP", "0.8", "workload.load"))
       for name in ("pias-websearch", "pias-datamining")},
    # Karuna: at load 0.8 no more deadlines missed than DCTCP, and its long
    # non-deadline flows finish sooner than under DCTCP and PIAS.
    "karuna-miss": lambda rows: _at(rows, "Karuna", "0.8", "workload.load") <= _at(rows, "DCTCP", "0.8",
                                                                                    "workload.load"),
    "karuna-fct": lambda rows: _at(rows, "Karuna", "0.8", "workload.load") < min(
        _at(rows, s, "0.8", "workload.load") for s in ("PIAS", "DCTCP")),
    # pHost §4: both near-optimal; every size's mean slowdown under 2, pHost's within 30% of pFabric's.
    "phost-slowdown": lambda rows: all(
        1 <= float(r["slowdown_mean"]) < 2
        and float(r["slowdown_mean"]) <= 1.3 * float(next(q["slowdown_mean"] for q in rows
                                                          if q["series"] == "pFabric" and q["sizes"] == r["sizes"]))
        for r in rows),
    # D3 §6.1.3 (Fig. 15): beyond its limit D3 collapses, with quenching it declines less.
    "d3-fig15": lambda rows: _at(rows, "D3", "4000", "workload.rate") < _at(rows, "D3 with quenching", "4000",
                                                                          "workload.rate"),
}


def _row(rows, series, x, key="faults.loss"):
    return next(r for r in rows if r["series"] == series and r[key] == x)


def _at(rows, series, x, key="fan-in"):
    return next(float(r["y_mean"]) for r in rows if r["series"] == series and r[key] == x)


@pytest.mark.parametrize("name", READY)
def test_quick_run(name, tmp_path, monkeypatch):
    import dcflow.plot
    from dcflow.repro.figure import y_bounds

    saved = []
    real_save = dcflow.plot.save_figure
    monkeypatch.setattr(dcflow.plot, "save_figure", lambda fig, *a, **k: saved.append(fig) or real_save(fig, *a, **k))
    res = run_entry(name, tmp_path, quick=True, workers=2, progress=False)
    entry = CATALOG[name]
    assert saved and dcflow.plot.QUICK_NOTE in [t.get_text() for t in saved[0].texts], \
        "a --quick figure says so on itself"
    assert res["failures"] == []
    assert res["csv"] == tmp_path / f"{name}.csv" and res["png"] == tmp_path / f"{name}.png"
    rows = list(csv.DictReader(open(res["csv"])))
    assert rows and "series" in rows[0]
    assert {r["series"] for r in rows} == {s.label for s in entry.series}
    assert res["png"].read_bytes()[:8] == b"\x89PNG\r\n\x1a\n" and res["png"].stat().st_size > 5000
    # The paper's numbers: in the CSV wherever its text gives them, even at x
    # values a quick run leaves out, and on the figure as hollow markers.
    if entry.paper_values:
        assert _numbers(rows), f"{name}: the paper column is empty"
    for key, v in entry.paper_values.items():
        if len(key) == 2 and entry.x_key in rows[0]:  # (series, x); custom analyses may key by more
            assert any(r["series"] == key[0] and float(r[entry.x_key]) == key[1] and float(r["paper"]) == v
                       for r in rows), (name, key)
    if entry.analyze is None and entry.kind == "sweep":
        ax = saved[0].axes[0]
        lo, hi = y_bounds(entry, "y_mean")
        for band in ax.collections:  # the 95% bands never leave the metric's range
            ys = [y for p in band.get_paths() for _, y in p.vertices]
            assert lo - 1e-9 <= min(ys) and max(ys) <= hi + 1e-9, (name, min(ys), max(ys))
        if entry.style == "line" and len(entry.xs(True)) > 1:  # overlapping series stay apart: own marker and line style
            styles = [(ln.get_marker(), ln.get_linestyle()) for ln in ax.get_lines()
                      if ln.get_label() in {s.label for s in entry.series}]
            assert len(styles) == len(entry.series) == len(set(styles)), styles
    if name in QUICK_EFFECTS:
        assert QUICK_EFFECTS[name](rows), f"{name}: the quick run does not show the figure's effect"


@pytest.mark.parametrize("name", PENDING)
def test_pending_entry_exits_2_naming_what_it_needs(name, tmp_path):
    r = run_cli("repro", name, "-o", tmp_path / "out", "--quick")
    assert r.returncode == 2
    assert r.stderr.startswith(f"error: {name}: pending (needs: ")
    assert not (tmp_path / "out").exists()


def test_unknown_entry(tmp_path):
    r = run_cli("repro", "pdq-fig99", "-o", tmp_path)
    assert r.returncode == 2 and "no such repro entry" in r.stderr


def test_cli_quick_run_writes_csv_png_and_sweeps(tmp_path):
    name = "d3-fig10"
    if name not in READY:
        pytest.skip(f"{name} is pending")
    r = run_cli("repro", name, "-o", tmp_path, "--quick", "--workers", "2")
    assert r.returncode == 0, r.stderr
    assert (tmp_path / f"{name}.csv").exists() and (tmp_path / f"{name}.png").exists()
    assert (tmp_path / "points.parquet").exists()
    assert (tmp_path / "sweeps" / "d3" / "points.parquet").exists()


def test_s3_fig8_pdq_meets_three_deadlines_and_s3_four(tmp_path):
    """S3 §5.3 (Fig. 8): "only 3 flows are completed before their deadlines"
    under PDQ; under S3 "4 small flows all meet their deadlines"."""
    r = run_cli("repro", "s3-fig8", "-o", tmp_path, "--quick")
    assert r.returncode == 0, r.stderr
    rows = list(csv.DictReader(open(tmp_path / "s3-fig8.csv")))
    met = {row["series"]: float(row["value"]) for row in rows if row["metric"] == "deadlines met"}
    assert met["PDQ"] == 3.0 and met["S3"] == 4.0


def test_lpd_table1_dctcp_and_d2tcp_meet_only_the_last_deadline(tmp_path):
    """LPD §III-A (Table I), as printed (100 us RTT, K = 25, flows stopped
    at their deadlines): "In both cases, only flow 4 gets finished before its
    deadline"; the stopped flows hold less than their size."""
    res = run_entry("lpd-table1", tmp_path, quick=True, progress=False)
    rows = list(csv.DictReader(open(res["csv"])))
    for series in ("DCTCP", "D2TCP"):
        mine = [r for r in rows if r["series"] == series]
        assert [r["met"] for r in mine] == ["False", "False", "False", "True"], series
        assert all(float(r["untransmitted (MB)"]) > 0 for r in mine[:3])


def test_lpd_fig13b_lpd_s_improves_on_l2dct(tmp_path):
    """LPD §VI (Fig. 13b): "LPD-s improves on L2DCT" at 10 concurrent 1 MB
    flows, and neither beats pFabric."""
    res = run_entry("lpd-fig13b", tmp_path, quick=True, progress=False)
    fct = {r["series"]: float(r["y_mean"]) for r in csv.DictReader(open(res["csv"]))
           if r["concurrent flows"] == "10"}
    assert fct["pFabric"] < fct["LPD-s"] < fct["L2DCT"]


def test_merp_fig13_three_flows_done_within_one_percent_of_72ms(tmp_path):
    """MERP §6.3.1 (Fig. 13): three flows of 2,000 packets into one receiver
    all done within 1% of the 72 ms ideal (paper: 72.25 ms), one at a time."""
    res = run_entry("merp-fig13", tmp_path, quick=True, progress=False)
    v = {r["metric"]: float(r["value"]) for r in csv.DictReader(open(res["csv"]))}
    assert 72.0 < v["all three done (ms)"] < 72.0 * 1.01
    assert v["flow 1 done (ms)"] < 24.5 and v["flow 2 done (ms)"] < 48.5


def test_merp_route_control_quick_run_has_every_series(tmp_path):
    """MERP §6.2 (Fig. 10): MEMR, ECMP and CONGA (all on MERP's rate control)
    run on the k = 4 fat-tree and report mean FCT and expansion ratio."""
    res = run_entry("merp-fig10", tmp_path, quick=True, progress=False)
    rows = list(csv.DictReader(open(res["csv"])))
    assert {r["series"] for r in rows} == {"MERP (MEMR)", "ECMP", "CONGA"}
    assert {r["metric"] for r in rows} == {"mean FCT (ms)", "mean expansion ratio"}
    assert all(r["value"] and float(r["value"]) > 0 for r in rows)
