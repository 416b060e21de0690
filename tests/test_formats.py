"""Other simulators' formats: HPCC / ns-3 flow files, htsim
connection matrices, YAPS and HPCC flow-size CDFs, and `dcflow export`."""

from __future__ import annotations

import pytest

from conftest import dcflow, write

#: The network every scenario here runs on.
NET = """
[topology]
kind = "star"
hosts = 8
link_rate = "10Gbps"

[protocol]
name = "tcp"
"""

#: Poisson all-to-all with web-search sizes: varied sources, sizes and
#: start times, no deadlines (HPCC and htsim files cannot carry them).
POISSON = 'name = "poisson"\nseed = 7\n' + NET + """
[workload]
pattern = "all_to_all"
arrival = "poisson"
load = 0.5
flows = 40
size = { dist = "cdf", name = "web_search" }
"""

#: Replays a flow file (placeholders: file name and format).
REPLAY = 'name = "replay"\n' + NET + """
[workload]
pattern = "explicit"
trace = "{trace}"
trace_format = "{fmt}"
"""


def export(tmp_path, scenario, fmt, name, *sets):
    out = tmp_path / name
    r = dcflow("export", scenario, "--format", fmt, "-o", out, *sets)
    assert r.returncode == 0, r.stderr
    return out.read_text()


def csv_rows(text):
    return [line.split(",") for line in text.splitlines()[1:]]


@pytest.mark.parametrize("fmt, trace_format", [("csv", "dcflow"), ("hpcc", "hpcc"), ("htsim", "htsim")])
def test_export_then_replay_gives_the_same_flows(tmp_path, fmt, trace_format):
    sc = write(tmp_path, POISSON)
    original = export(tmp_path, sc, "csv", "original.csv")
    exported = export(tmp_path, sc, fmt, f"flows.{fmt}")
    replay = write(tmp_path, REPLAY.format(trace=f"flows.{fmt}", fmt=trace_format), "replay.toml")
    assert export(tmp_path, replay, "csv", "replayed.csv") == original
    rows = csv_rows(original)
    assert len(rows) == 40 and len({r[4] for r in rows}) > 30  # distinct start times
    if fmt == "hpcc":
        assert exported.splitlines()[0] == "40"
        src, dst, _pg, _dport, size, start = exported.splitlines()[1].split()
        assert [src, dst, size, start] == [rows[0][1], rows[0][2], rows[0][3], rows[0][4]]
    if fmt == "htsim":
        assert exported.splitlines()[:2] == ["Nodes 8", "Connections 40"]


def test_reads_hpcc_and_htsim_files_as_those_simulators_write_them(tmp_path):
    (tmp_path / "flow.txt").write_text("2 \n1 0 3 100 200000 2.000000001\n3 2 3 100 1460 2.5\n")
    (tmp_path / "perm.cm").write_text(
        "Nodes 8\nConnections 2\n# a comment\n7->5 id 1 start 1500000 size 2000000\n1->3 id 2 start 0 size 10 prio 3\n")
    hpcc = csv_rows(export(tmp_path, write(tmp_path, REPLAY.format(trace="flow.txt", fmt="hpcc")), "csv", "a.csv"))
    assert hpcc == [["0", "1", "0", "200000", "2.000000001", ""], ["1", "3", "2", "1460", "2.5", ""]]
    htsim = csv_rows(export(tmp_path, write(tmp_path, REPLAY.format(trace="perm.cm", fmt="htsim")), "csv", "b.csv"))
    # start is in picoseconds; flows are renumbered in start order
    assert htsim == [["0", "1", "3", "10", "0", ""], ["1", "7", "5", "2000000", "0.0000015", ""]]


#: YAPS's CDF_dctcp.txt (packets, an unused column, probability) is the
#: web-search table; HPCC's layout is bytes and percent.
YAPS_WEB_SEARCH = "".join(f"{pk} 1 {p}\n" for pk, p in [
    (6, 0), (6, 0.15), (13, 0.2), (19, 0.3), (33, 0.4), (53, 0.53), (133, 0.6), (667, 0.7),
    (1333, 0.8), (3333, 0.9), (6667, 0.97), (20000, 1)])


def test_cdf_files_in_yaps_and_hpcc_layouts(tmp_path):
    sc = write(tmp_path, POISSON)
    (tmp_path / "yaps.txt").write_text(YAPS_WEB_SEARCH)
    builtin = export(tmp_path, sc, "csv", "builtin.csv")
    yaps = export(tmp_path, sc, "csv", "yaps.csv",
                  "--set", 'workload.size={dist="cdf", file="%s", format="yaps"}' % (tmp_path / "yaps.txt"))
    assert yaps == builtin
    (tmp_path / "cdf.csv").write_text("size_bytes,p\n1000,0\n5000,0.25\n20000,1\n")
    (tmp_path / "hpcc.txt").write_text("1000 0\n5000 25\n20000 100\n")
    as_csv = export(tmp_path, sc, "csv", "c.csv", "--set", f'workload.size={{dist="cdf", file="{tmp_path / "cdf.csv"}"}}')
    as_hpcc = export(tmp_path, sc, "csv", "h.csv",
                     "--set", f'workload.size={{dist="cdf", file="{tmp_path / "hpcc.txt"}", format="hpcc"}}')
    assert as_hpcc == as_csv
    assert all(1000 <= int(r[3]) <= 20000 for r in csv_rows(as_hpcc))


def one_line_error(r, *fragments):
    assert r.returncode == 2, (r.stdout, r.stderr)
    assert r.stderr.count("\n") == 1 and r.stderr.startswith("error: "), r.stderr
    for f in fragments:
        assert f in r.stderr, r.stderr


def test_bad_inputs_name_the_key(tmp_path):
    sc = write(tmp_path, POISSON)
    (tmp_path / "short.txt").write_text("3\n1 0 3 100 10 0\n")
    (tmp_path / "percent.txt").write_text("0 0\n100 0.5\n200 1\n")
    one_line_error(dcflow("validate", sc, "--set", "workload.trace_format=hpcc"), "workload.trace_format")
    replay = write(tmp_path, REPLAY.format(trace="short.txt", fmt="hpcc"), "r.toml")
    one_line_error(dcflow("validate", replay), "workload.trace", "announces 3 flows")
    one_line_error(dcflow("validate", replay, "--set", "workload.trace_format=ns3"), "workload.trace_format")
    one_line_error(dcflow("validate", sc, "--set", 'workload.size={dist="cdf", name="web_search", format="yaps"}'),
                   "workload.size.format")
    one_line_error(dcflow("validate", sc, "--set",
                          f'workload.size={{dist="cdf", file="{tmp_path / "percent.txt"}", format="hpcc"}}'),
                   "workload.size.file", 'size.format = "hpcc"')


def test_export_refuses_before_writing(tmp_path):
    sc = write(tmp_path, POISSON)
    (tmp_path / "keep.txt").write_text("mine")
    one_line_error(dcflow("export", sc, "--format", "hpcc", "-o", tmp_path / "keep.txt"), "--overwrite")
    assert (tmp_path / "keep.txt").read_text() == "mine"
    one_line_error(dcflow("export", sc, "--format", "hpcc", "-o", tmp_path), "is a directory")
    out = tmp_path / "d.txt"
    one_line_error(dcflow("export", sc, "--format", "htsim", "-o", out,
                          "--set", 'workload.deadline={dist="fixed", value="10ms"}'), "--format", "deadline")
    assert not out.exists() and sorted(p.name for p in tmp_path.iterdir()) == ["keep.txt", "scenario.toml"]
    one_line_error(dcflow("export", sc, "--format", "ns3", "-o", out), "--format")
    assert export(tmp_path, sc, "htsim", "keep.txt", "--overwrite").startswith("Nodes 8")


def test_the_inputs_page_examples_are_valid(tmp_path):
    """docs/inputs.md's TOML examples validate and its trace examples read,
    so the page cannot drift from the readers."""
    import re

    from conftest import REPO

    doc = (REPO / "docs" / "inputs.md").read_text()
    (tmp_path / "CDF_dctcp.txt").write_text(YAPS_WEB_SEARCH)
    for i, block in enumerate(re.findall(r"```toml\n(.*?)```", doc, re.S)):
        text = block if "[topology]" in block else '[topology]\nkind = "star"\nhosts = 4\n' + block
        text += "" if "[workload]" in text else '\n[workload]\npattern = "aggregation"\n'
        r = dcflow("validate", write(tmp_path, text, f"example{i}.toml"))
        assert r.returncode == 0, (block, r.stderr)
    examples = dict(zip(["csv", "hpcc", "htsim", "yaps"], re.findall(r"```(?:csv|text)\n(.*?)```", doc, re.S)))
    assert len(examples) == 4
    for fmt, body in examples.items():
        (tmp_path / f"ex.{fmt}").write_text(body)
        replay = REPLAY.replace("hosts = 8", "hosts = 144").format(trace=f"ex.{fmt}", fmt="dcflow" if fmt == "csv" else fmt)
        r = dcflow("validate", write(tmp_path, replay, f"replay-{fmt}.toml"))
        assert r.returncode == 0, (fmt, r.stderr)
