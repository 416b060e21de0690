"""D3 catalog settings (papers/002): which switch each series ran on."""

from __future__ import annotations

from dcflow.repro import CATALOG

#: D3 §6's packet-level entries (TCP, DCTCP on the switch) (§3's Fig. 5 is fluid, one link).
D3_SECTION6 = ["d3-fig9", "d3-fig10", "d3-fig11", "d3-fig12", "d3-fig13", "d3-table1", "d3-fig14",
               "d3-fig15", "d3-fig16"]


def _buffer(entry, series) -> str:
    return entry.series_scenario(series, False).resolved()["topology"]["buffer"]


def test_d3_and_rcp_dc_get_the_d3_routers_128kb_and_tcp_the_switchs_100kb():
    """D3 §5: "the router has a buffer of 128KB per NIC" (D3 and RCP_dc);
    §6.1.1: the TCP experiments' hardware switch "has a buffer of 100KB"."""
    for name in D3_SECTION6:
        e = CATALOG[name]
        for s in e.series:
            want = "128KB" if s.needs in ("d3", "rcp") else "100KB"
            assert _buffer(e, s) == want, (name, s.label)


def test_d3_fig4_met_fraction_is_the_exact_expectation_over_exponential_deadlines():
    """D3 §2 Fig. 4: a flow with completion time F meets an exponential
    deadline of mean m with probability exp(-F/m); an unfinished flow misses."""
    import math

    from dcflow.repro.d3 import FIG4_MEANS_MS, met_fraction

    fct = [0.001, 0.01, 0.04, float("nan")]
    assert met_fraction(fct, 0.01) == sum(math.exp(-f / 0.01) for f in fct[:3]) / 4
    met = [met_fraction(fct, m / 1e3) for m in FIG4_MEANS_MS]
    assert all(a < b for a, b in zip(met, met[1:])), "laxer deadlines are met more often"
    assert met_fraction([0.0], 0.04) == 1.0


def test_d3_fig12_and_13_bursts_start_five_seconds_after_the_long_flow():
    """D3 §6.1.1 "With background flows": "After five seconds, all senders
    send their responses"; the long flow has no deadline."""
    for name in ("d3-fig12", "d3-fig13"):
        e = CATALOG[name]
        r = e.series_scenario(e.series[0], False).resolved()
        assert r["workload"]["start"] == "5s"
        assert [(f["start"], f.get("deadline")) for f in r["flows"]] == [("0ps", None)]
