"""The peer comparisons' arithmetic (python/dcflow/validation.py): how
YAPS's and htsim's outputs are read, the flow files both run, the ACK's
trip back, the per-bucket summary and the rows docs/validation.md quotes."""

from __future__ import annotations

import math

import numpy as np

from dcflow.validation import (CASES, HTSIM_NETWORK, YAPS_NETWORK, ack_return_s, ndp_matrix, parse_htsim, parse_ndp,
                               parse_yaps, summarize, table_head, table_rows, whole_packets)

#: Lines as YAPS prints them (coresim/event.cpp:315-328, run/flow_generator.cpp:167).
YAPS_OUT = """Flow 0 5.835696e-06 9548400 38 63
2 8760 43 106 24.0506 27.9206 3.8700 3.5780 1.0816 6/6//6 0/0/0 0.0000
0 9548400 38 63 5.8357 1970.1757 1964.3400 1963.7780 1.0003 6540/6540//6540 0/0/0 0.0000
unfinished flow size:3321500 id:7 next_seq:442380 recv:442380 src:143 dst:29
2026-11-26.11:07:23 Simulator ended. Execution time: 0.000000000 seconds
"""


def test_yaps_output_gives_each_finished_flow_its_fct():
    fct = parse_yaps(YAPS_OUT)
    assert sorted(fct) == [0, 2]
    assert math.isclose(fct[2], 3.87e-6) and math.isclose(fct[0], 1964.34e-6)


def test_the_ack_trip_back_is_propagation_and_a_header_per_link():
    back = ack_return_s(np.array([0, 0]), np.array([15, 16]), YAPS_NETWORK)
    host, uplink = 0.2e-6 + 320 / 40e9, 0.2e-6 + 320 / 160e9
    assert np.allclose(back, [2 * host, 2 * host + 2 * uplink])


def test_the_ack_trip_back_on_htsims_leaf_spine_counts_its_8_hosts_per_leaf():
    back = ack_return_s(np.array([0, 0]), np.array([7, 8]), HTSIM_NETWORK)
    link = 1e-6 + 320 / 10e9
    assert np.allclose(back, [2 * link, 4 * link])


#: A connection matrix as `dcflow export --format htsim` writes it.
MATRIX = "Nodes 128\nConnections 3\n0->9 id 1 start 0 size 1\n3->4 id 2 start 2500000 size 1460\n5->6 id 3 start 7 size 1461\n"


def test_htsim_flows_are_whole_1460_byte_payloads_and_ndp_counts_wire_bytes():
    whole = whole_packets(MATRIX)
    assert whole.splitlines()[2:] == ["0->9 id 1 start 0 size 1460", "3->4 id 2 start 2500000 size 1460",
                                      "5->6 id 3 start 7 size 2920"]
    assert [line.split()[-1] for line in ndp_matrix(whole).splitlines()[2:]] == ["1500", "1500", "3000"]


def test_htsim_driver_output_gives_each_flow_by_dcflow_id():
    out = "pathcount 8\nfct 1 1 0 15000000\nunfinished 3 2 7\nFlow tcpsrc finished at 0.015\n"
    flows = parse_htsim(out)
    assert flows[0] == (1, 15e-6)
    assert flows[2][0] == 2 and math.isnan(flows[2][1])
    assert sorted(flows) == [0, 2]


def test_ndp_fct_is_its_finish_less_the_matrix_start():
    out = "Flow ndp_3_4 flow_id 2 finished at 10.5 total bytes 1500\nFlow ndp_0_9 flow_id 1 finished at 3 total\n"
    fct = parse_ndp(out, MATRIX)
    assert math.isclose(fct[1], 8e-6) and math.isclose(fct[0], 3e-6)


def test_summary_per_bucket_with_unfinished_flows_left_out():
    size = np.array([1000, 100_000, 100_001, 20_000_000])
    fct = np.array([2.0, 4.0, np.nan, 30.0])
    ideal = np.array([1.0, 1.0, 1.0, 10.0])
    s = summarize(size, fct, ideal)
    assert (s["flows"], s["completed"]) == (4, 3)
    assert s["fct_mean_s"] == 12.0
    assert (s["completed[<=100KB]"], s["slowdown_mean[<=100KB]"]) == (2, 3.0)  # 100,000 B is <= 100KB
    assert (s["completed[100KB-10MB]"], s["slowdown_mean[100KB-10MB]"]) == (0, None)
    assert s["slowdown_mean[>10MB]"] == 3.0


def test_table_rows_quote_dcflow_in_the_units_shown():
    side = {"completed": 3, "fct_mean_s": 12e-6, "fct_p99_s": 29e-6, "completed[<=100KB]": 2,
            "fct_mean_s[<=100KB]": 3e-6, "slowdown_mean[<=100KB]": 3.0, "completed[100KB-10MB]": 0,
            "fct_mean_s[100KB-10MB]": None, "slowdown_mean[100KB-10MB]": None, "completed[>10MB]": 1,
            "fct_mean_s[>10MB]": 30e-6, "slowdown_mean[>10MB]": 3.3}
    yaps = {**side, "fct_mean_s": 10e-6, "slowdown_mean[<=100KB]": 2.5}
    case = next(c for c in CASES if c.protocol == "tcp" and c.workload == "web_search" and c.load == 0.3)
    rows = table_rows(case, {"yaps": yaps, "dcflow": side})
    assert rows[0] == ("| web-search 0.3 | all | 3 / 3 | 10.0 / 12.0 | 29 / 29 | | +20.0% |", "fct_mean_s", 12.0)
    assert rows[1] == ("| web-search 0.3 | <=100KB | 2 / 2 | 3.0 / 3.0 | | 2.500 / 3.000 | +20.0% |",
                       "slowdown_mean[<=100KB]", 3.0)
    assert rows[2][2] is None and "| - |" in rows[2][0]
    htsim = next(c for c in CASES if c.peer == "htsim" and c.protocol == "dctcp")
    assert table_rows(htsim, {"htsim": yaps, "dcflow": side})[0] == rows[0]
    assert "completed, htsim / dcflow" in table_head("htsim") and "dcflow vs YAPS" in table_head("yaps")


def test_every_case_runs_on_its_peers_network_with_the_matched_keys():
    for case in CASES:
        sc = case.scenario()
        assert sc["topology"]["hosts_per_leaf"] == case.spec.network["hosts_per_leaf"]
        assert sc["protocol"]["name"] == case.protocol
        assert ("ecn_threshold" in sc["topology"]) == (case.protocol == "dctcp")
    assert {c.name for c in CASES if c.peer == "htsim"} >= {"htsim-tcp-web_search-0.3", "htsim-dctcp-data_mining-0.7"}
