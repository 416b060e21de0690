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
    assert names == sorted(f"{n}.{ext}" for n in ("app_throughput", "fct_mean", "fct_cdf_by_protocol")
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
