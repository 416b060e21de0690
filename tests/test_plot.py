"""`dcflow plot DIR` for run and sweep directories (PNG and PDF)."""

from __future__ import annotations

import textwrap

from conftest import dcflow as run_cli

from test_sweep import SWEEP

PNG = b"\x89PNG\r\n\x1a\n"


def test_sweep_plots(tmp_path):
    sweep = tmp_path / "sweep.toml"
    sweep.write_text(textwrap.dedent(SWEEP))
    out = tmp_path / "out"
    assert run_cli("sweep", sweep, "-o", out, "--executor", "inline").returncode == 0
    r = run_cli("plot", out)
    assert r.returncode == 0, r.stderr
    names = sorted(p.name for p in (out / "plots").iterdir())
    assert names == sorted(f"{n}.{ext}" for n in ("app_throughput", "fct_mean", "fct_cdf_per_point",
                                                            "slowdown_by_size")
                           for ext in ("png", "pdf"))
    for p in (out / "plots").glob("*.png"):
        assert p.read_bytes()[:8] == PNG and p.stat().st_size > 10_000
    for p in (out / "plots").glob("*.pdf"):
        assert p.read_bytes()[:5] == b"%PDF-"


def test_monitored_run_plots_time_series(small_monitored, tmp_path):
    out = tmp_path / "run"
    assert run_cli("run", small_monitored, "-o", out).returncode == 0
    r = run_cli("plot", out)
    assert r.returncode == 0, r.stderr
    ts = out / "plots" / "timeseries.png"
    assert ts.read_bytes()[:8] == PNG and ts.stat().st_size > 10_000
    assert (out / "plots" / "timeseries.pdf").exists() and (out / "plots" / "fct_cdf.png").exists()


def test_a_ratios_band_stays_within_0_and_100_percent_and_axes_say_what():
    """Application throughput with a wide spread over seeds: the 95% band is
    clipped to [0, 100] %, the x axis names the quantity, the legend the
    protocol alone."""
    import pyarrow as pa

    from dcflow.plot.sweep import app_throughput_curve

    rows = [{"protocol.name": "tcp", "workload.flows": n, "seed": s, "app_throughput": v,
             "run_status": "completed", "status": "ok", "error": None}
            for n, vals in ((5, (1.0, 0.6)), (10, (1.0, 0.2))) for s, v in zip((1, 2), vals)]
    fig = app_throughput_curve(None, pa.Table.from_pylist(rows), lambda: None)
    ax = fig.axes[0]
    band = ax.collections[0].get_paths()[0].vertices
    assert band[:, 1].max() <= 100.0 + 1e-9 and band[:, 1].min() >= 0.0
    assert ax.get_xlabel() == "number of flows"
    assert [t.get_text() for t in ax.get_legend().get_texts()] == ["tcp"]


PROTOCOL_TABLES = """
[base]
name = "tables"
[base.topology]
kind = "star"
hosts = 5
link_rate = "10Gbps"
[base.workload]
pattern = "all_to_all"
flows = 12
size = { dist = "cdf", name = "web_search" }   # 8.8KB to 29MB: FCTs decades apart

[grid]
protocol = [{ name = "dctcp", g = 0.1 }, { name = "tcp" }]
"workload.flows" = [6, 12, 18, 24]

[seeds]
values = [1, 2]
"""


def _sweep_figures(tmp_path, text):
    from dcflow.plot.sweep import SWEEP_PLOTS
    from dcflow.sweep import load_flows, load_points

    out = tmp_path / "sw"
    (tmp_path / "sweep.toml").write_text(textwrap.dedent(text))
    assert run_cli("sweep", tmp_path / "sweep.toml", "-o", out, "--executor", "inline").returncode == 0
    points = load_points(out)
    return points, {name: fn(out, points, lambda: load_flows(out)) for name, fn in SWEEP_PLOTS.items()}


def test_sweep_plots_per_point_cdfs_readable_labels_plain_log_ticks(tmp_path):
    points, figs = _sweep_figures(tmp_path, PROTOCOL_TABLES)
    xs = sorted(set(points.column("workload.flows").to_pylist()))
    # One CDF panel per grid value of the swept parameter, one line per protocol table.
    cdf = figs["fct_cdf_per_point"]
    panels = [ax for ax in cdf.axes if ax.get_visible()]
    assert [ax.get_title() for ax in panels] == [f"number of flows = {x}" for x in xs]
    assert all(len(ax.get_lines()) == 2 for ax in panels)
    # Whole protocol tables are named, not dumped as JSON.
    for name in ("fct_mean", "fct_cdf_per_point"):
        labels = [t.get_text() for t in figs[name].axes[0].get_legend().get_texts()]
        assert labels == ["dctcp (g=0.1)", "tcp"], (name, labels)
    # FCTs span orders of magnitude: a log axis, ticks as plain numbers.
    cdf.canvas.draw()
    ax = panels[-1]  # in the bottom row, which shows the shared axis's labels
    assert ax.get_xscale() == "log"
    assert ax.xaxis.get_major_formatter()(0.01, 0) == "0.01"
    ticks = [t.get_text() for t in ax.get_xticklabels() if t.get_text()]
    assert ticks and all("^" not in t and "$" not in t for t in ticks), ticks
    assert all(float(t) > 0 for t in ticks)


def test_readable_values():
    from dcflow.plot.sweep import readable

    assert readable('{"name": "dctcp", "g": 0.1, "k": "20KB"}') == "dctcp (g=0.1, k=20KB)"
    assert readable('{"g": 0.1}') == "g=0.1"
    assert readable(0.5) == "0.5" and readable("tcp") == "tcp" and readable('["a", 1]') == "[a, 1]"


def test_legends_name_every_varied_parameter(tmp_path):
    text = PROTOCOL_TABLES.replace('[seeds]', '"workload.size.max" = ["1MB", "20MB"]\n\n[seeds]').replace(
        'size = { dist = "cdf", name = "web_search" }   # 8.8KB to 29MB: FCTs decades apart',
        'size = { dist = "uniform", min = "2KB", max = "1MB" }')
    _, figs = _sweep_figures(tmp_path, text)
    labels = [t.get_text() for t in figs["fct_mean"].axes[0].get_legend().get_texts()]
    assert labels == ["dctcp (g=0.1), workload.size.max = 1MB", "dctcp (g=0.1), workload.size.max = 20MB",
                      "tcp, workload.size.max = 1MB", "tcp, workload.size.max = 20MB"]
