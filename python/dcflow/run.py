"""``dcflow.run``: run one scenario in the Rust core and wrap the result."""

from __future__ import annotations

import os
from collections.abc import Mapping
from typing import Any

from dcflow import _core
from dcflow.result import Result
from dcflow.scenario import Scenario

__all__ = ["run"]


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
    resolved_toml = sc.to_toml()  # validates before the (possibly long) run
    raw = _core.run(sc.to_json())
    return Result.from_core(raw, resolved_toml)
