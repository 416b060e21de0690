"""``dcflow.run``: run one scenario in the Rust core and wrap the result."""

from __future__ import annotations

import os
from collections.abc import Callable, Mapping
from typing import TYPE_CHECKING, Any

from dcflow import _core
from dcflow.scenario import Scenario

if TYPE_CHECKING:
    from dcflow.result import Result

__all__ = ["run", "run_scenario"]


def run(
    scenario: Scenario | Mapping[str, Any] | str | os.PathLike[str],
    overrides: Mapping[str, Any] | None = None,
    /,
    **kwargs: Any,
) -> Result:
    """Run a scenario (a :class:`Scenario`, a dict, or a path to a TOML file).

    Optional overrides are applied first, as dotted keys in a dict and/or as
    keywords with ``__`` for the dot::

        dcflow.run("examples/demo.toml", {"protocol.name": "tcp"}, seed=2, workload__flows=4)

    Raises :class:`dcflow.ScenarioError` for an invalid scenario. The GIL is
    released while the core simulates.
    """
    sc = Scenario.load(scenario)
    if overrides or kwargs:
        sc = sc.with_overrides(overrides or {}, **kwargs)
    return run_scenario(sc)


def run_scenario(sc: Scenario, progress: Callable[[float, int, int, int], None] | None = None) -> Result:
    """Run `sc`; `progress(sim_time_s, flows_done, flows_total, events)` is
    called every ~50 ms of a long run (e.g. :class:`dcflow.progress.RunProgress`)."""
    from dcflow.result import Result  # pyarrow: imported once there is a result to hold

    resolved_toml = sc.to_toml()  # validates before the (possibly long) run
    raw = _core.run(sc.to_json(), progress)
    return Result.from_core(raw, resolved_toml)
