"""D3 catalog settings (papers/002): which switch each series ran on."""

from __future__ import annotations

from dcflow.repro import CATALOG

#: D3 §6's packet-level entries (§3's Fig. 5 is fluid, one link).
D3_SECTION6 = ["d3-fig9", "d3-fig10", "d3-fig11", "d3-fig12", "d3-fig13", "d3-table1", "d3-fig14",
               "d3-fig15"]


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
