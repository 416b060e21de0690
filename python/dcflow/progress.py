"""Progress bars for long runs and sweeps on a terminal (tqdm).

The engines call back every ~50 ms of a run (`dcflow._core.run(...,
progress=...)`), never per event. The bar is drawn as soon as the run starts
(before the engine has built its flows), and only on a terminal.

A pseudo-terminal opened without a size (`script -c` outside a terminal, a
CI runner, an editor's embedded shell) reports 0 columns and 0 lines; tqdm then draws
nothing at all (no room). :func:`bar` gives such terminals the usual
fallback size (``COLUMNS`` and ``LINES``, else 80 x 24) instead.
"""

from __future__ import annotations

import os
import shutil
import sys
import time
from typing import TYPE_CHECKING, Any, TextIO

if TYPE_CHECKING:
    from tqdm import tqdm


def _columns(file: TextIO) -> int:
    """The terminal's width, or 0 when it reports none."""
    try:
        return os.get_terminal_size(file.fileno()).columns
    except (AttributeError, OSError, ValueError):
        return 0


def bar(file: TextIO | None = None, **kwargs: Any) -> tqdm:
    """A tqdm bar on `file` (default stderr) that follows the terminal's
    width, or has the fallback width when the terminal reports none.
    tqdm is imported here: a run without a bar (`-q`, no terminal) does
    not pay for it."""
    from tqdm import tqdm

    f = file or sys.stderr
    if _columns(f) > 0:
        return tqdm(file=f, dynamic_ncols=True, **kwargs)
    size = shutil.get_terminal_size()
    return tqdm(file=f, ncols=size.columns, nrows=size.lines, **kwargs)


#: Flows done of total, time spent and tqdm's ETA, then the simulated time
#: and events per second: on 80 columns, without tqdm's flows per second
#: (bursty: many flows finish at once).
_RUN_FORMAT = "{desc} {percentage:3.0f}%|{bar:8}| {n_fmt}/{total_fmt} flows [{elapsed}<{remaining}{postfix}]"


class RunProgress:
    """Callable progress display of one run: flows done of total (with
    tqdm's ETA), simulated time and events per second."""

    def __init__(self, file: TextIO | None = None) -> None:
        self.started = time.monotonic()
        # Drawn now, so a run shows it has started while the engine builds
        # its topology and flows; the total comes with the first callback.
        self.bar: tqdm | None = bar(file, total=None, unit="flow", leave=False, desc="simulating",
                                    bar_format=_RUN_FORMAT)

    def __call__(self, sim_time_s: float, flows_done: int, flows_total: int, events: int) -> None:
        if self.bar is None:
            return
        if self.bar.total != flows_total:
            self.bar.reset(total=flows_total)
        self.bar.n = flows_done
        rate = events / max(time.monotonic() - self.started, 1e-9)
        self.bar.set_postfix_str(f"sim {sim_time_s:.3g} s, {rate:.2g} ev/s", refresh=False)
        self.bar.refresh()

    def close(self) -> None:
        if self.bar is not None:
            self.bar.close()
            self.bar = None


def wanted(quiet: bool, file: TextIO | None = None) -> bool:
    """A bar only on a terminal, and not with --quiet."""
    f = file or sys.stderr
    return not quiet and hasattr(f, "isatty") and f.isatty()
