"""dcflow against htsim (csg-htsim) on the same flows: DCTCP and TCP on
htsim's 2-tier fat tree (a 128-host leaf-spine at 10 Gbps), web-search and
data-mining, loads 0.3 and 0.7 (the htsim cases of
python/dcflow/validation.py, docs/validation.md).

    make -C bench/validation/htsim HTSIM=/path/to/csg-htsim/sim      # builds the driver
    python bench/validation/htsim_compare.py --htsim bench/validation/htsim/build/htsim_dcflow   # every case, recorded
    python bench/validation/htsim_compare.py --htsim BIN --protocol tcp --load 0.7             # a subset
    python bench/validation/htsim_compare.py --protocol dctcp    # without htsim: dcflow against the recorded side
    python bench/validation/htsim_compare.py --htsim BIN --ndp /path/to/csg-htsim/sim/datacenter/htsim_ndp
                                                 # and NDP on the same flows, a reference row (dcflow has no NDP)

htsim runs the exported connection matrix with htsim_dcflow
(bench/validation/htsim/htsim_dcflow.cpp) on the scenario's network; the
rest is bench/validation/compare.py.
"""

from __future__ import annotations

import re
import sys
from collections.abc import Mapping
from pathlib import Path
from typing import Any

from compare import Reference, main

from dcflow.validation import Case, ndp_matrix, parse_ndp, run_child, summarize_fcts
from dcflow.yaps import HDR_SIZE, MSS, quantity


def command(binary: Path, case: Case, resolved: dict[str, Any], matrix: str) -> list[str]:
    """htsim_dcflow's command line for the scenario's leaf-spine (which
    htsim builds as a 2-tier fat tree: it refuses any other shape)."""
    t = resolved["topology"]
    hosts = t["leaves"] * t["hosts_per_leaf"]
    return [str(binary), "-tm", matrix, "-proto", case.protocol, "-nodes", str(hosts), "-tiers", "2",
            "-linkspeed", f"{quantity(t['link_rate']) / 1e6:g}", "-hop_latency_ns", f"{quantity(t['prop_delay']) * 1e9:g}",
            "-queue_bytes", str(int(quantity(t["buffer"]))), "-payload", str(MSS), "-seed", str(case.seed)]


def run_ndp(binary: Path, case: Case, resolved: dict[str, Any], matrix: Path, cols: Mapping[str, Any]) -> dict | None:
    """htsim's own NDP driver (datacenter/main_ndp.cpp) on the same flows and
    network, once per workload and load (with the DCTCP case): 1500-byte
    packets (`-mtu`; its default is 9000), the same ports in packets (`-q`),
    per-packet spraying over a permutation of the paths (`-strat perm`), its
    other settings its defaults. It runs to a fixed end (`-end`): twice the
    last start plus 100 ms; flows not done by then count as unfinished."""
    if case.protocol != "dctcp":
        return None
    t = resolved["topology"]
    text = ndp_matrix(matrix.read_text())
    ndp = matrix.with_suffix(".ndp")
    ndp.write_text(text)
    last_start_us = max(int(s) for s in re.findall(r" start (\d+)", text)) / 1e6
    argv = [str(binary), "-tm", ndp.name, "-nodes", str(t["leaves"] * t["hosts_per_leaf"]), "-tiers", "2",
            "-linkspeed", f"{quantity(t['link_rate']) / 1e6:g}", "-hop_latency", f"{quantity(t['prop_delay']) * 1e6:g}",
            "-q", str(int(quantity(t["buffer"])) // (MSS + HDR_SIZE)), "-mtu", str(MSS + HDR_SIZE), "-strat", "perm",
            "-seed", str(case.seed), "-end", str(int(2 * last_start_us + 100_000))]
    out, cpu = run_child(argv, matrix.parent)
    return {"protocol": "ndp", **summarize_fcts(parse_ndp(out, text), cols, "htsim's NDP"), "cpu_s": cpu}


NDP = Reference("--ndp", "htsim's htsim_ndp binary: NDP on the same flows as a reference row (with the DCTCP cases)",
                run_ndp)

if __name__ == "__main__":
    sys.exit(main("htsim", command, __doc__, "the htsim_dcflow binary (bench/validation/htsim)", reference=NDP))
