"""dcflow against YAPS (NetSys/simulator) on the same flows: pFabric, DCTCP
and TCP on YAPS's 144-host leaf-spine, web-search and data-mining, loads 0.3
and 0.7 (the cases of python/dcflow/validation.py, docs/validation.md).

    python bench/validation/yaps_compare.py --yaps /path/to/simulator                 # every case, recorded
    python bench/validation/yaps_compare.py --yaps SIM --protocol tcp --load 0.7      # a subset
    python bench/validation/yaps_compare.py --yaps SIM --protocol dctcp --dcflow-set protocol.max_cwnd=12
                                                       # a one-setting experiment on dcflow's side
    python bench/validation/yaps_compare.py --protocol tcp     # without YAPS: dcflow against the recorded YAPS side

YAPS runs the exported trace with its configuration (`simulator 1
FILE.conf`); the rest is bench/validation/compare.py.
"""

from __future__ import annotations

import sys

from compare import main

if __name__ == "__main__":
    sys.exit(main("yaps", lambda binary, case, resolved, trace: [str(binary), "1", trace + ".conf"], __doc__,
                  "YAPS's `simulator` binary"))
