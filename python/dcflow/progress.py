"""A progress bar for long runs on a terminal (tqdm), fed by the engines.

The engines call back every ~50 ms of a run (`dcflow._core.run(...,
progress=...)`), never per event; the bar appears only once a run has lasted
that long, and only on a terminal.
"""

from __future__ import annotations

import sys
import time
from typing import TextIO

from tqdm import tqdm


class RunProgress:
    """Callable progress display: flows done of total (with tqdm's ETA),
    simulated time and events per second."""

    def __init__(self, file: TextIO | None = None) -> None:
        self.file = file or sys.stderr
        self.bar: tqdm | None = None
        self.started = time.monotonic()

    def __call__(self, sim_time_s: float, flows_done: int, flows_total: int, events: int) -> None:
        if self.bar is None:
            self.bar = tqdm(total=flows_total, unit="flow", file=self.file, leave=False,
                            dynamic_ncols=True, desc="simulating")
        self.bar.n = flows_done
        rate = events / max(time.monotonic() - self.started, 1e-9)
        self.bar.set_postfix_str(f"sim {sim_time_s:.4g} s, {rate:.3g} events/s", refresh=False)
        self.bar.refresh()

    def close(self) -> None:
        if self.bar is not None:
            self.bar.close()
            self.bar = None


def wanted(quiet: bool, file: TextIO | None = None) -> bool:
    """A bar only on a terminal, and not with --quiet."""
    f = file or sys.stderr
    return not quiet and hasattr(f, "isatty") and f.isatty()
