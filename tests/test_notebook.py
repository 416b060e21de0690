"""examples/tour.ipynb runs: every code cell is executed in order in one
namespace, as a kernel would (nbclient is not a dependency), so the notebook
cannot rot."""

from __future__ import annotations

import json
import shutil

import matplotlib

from conftest import REPO

NOTEBOOK = REPO / "examples" / "tour.ipynb"


def test_the_tour_notebook_runs(tmp_path, monkeypatch):
    nb = json.loads(NOTEBOOK.read_text())
    assert nb["nbformat"] == 4
    code = [c for c in nb["cells"] if c["cell_type"] == "code"]
    # Stored without outputs, so the repository holds no stale results.
    assert all(not c["outputs"] and c["execution_count"] is None for c in code)
    matplotlib.use("Agg")
    monkeypatch.chdir(tmp_path)
    ns: dict = {"__name__": "__main__"}
    for i, cell in enumerate(code):
        exec(compile("".join(cell["source"]), f"tour.ipynb cell {i}", "exec"), ns)
    try:
        # It ran a scenario, a sweep and plots.
        assert ns["res"].summary["flows_total"] == 100
        assert ns["res"].summary["flows_measured"] < 100  # the warm-up cut something
        assert len(ns["points"]) == 12 and set(ns["points"]["status"]) == {"ok"}
        assert {"fct_mean.png", "slowdown_by_size.png"} <= {p.name for p in ns["written"]}
        assert all(p.stat().st_size > 0 for p in ns["written"])
        assert ns["fig"].axes[0].get_lines()
    finally:
        shutil.rmtree(ns["work"], ignore_errors=True)
