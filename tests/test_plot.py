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
    assert names == sorted(f"{n}.{ext}" for n in ("app_throughput", "fct_mean", "fct_cdf_by_protocol",
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
