"""dcflow: a fast, faithful simulator of datacenter transports.

    import dcflow
    sc = dcflow.Scenario.from_toml("examples/demo.toml")
    res = dcflow.run(sc.with_overrides({"protocol.name": "tcp"}))
    res.summary["fct_mean_s"], res.flows.to_pandas()
    res.save("out")

`Result` and `Sweep` are imported on first use (PEP 562): `import dcflow`
does not pay for pyarrow, matplotlib, pandas or Dask until something needs
them.
"""

from __future__ import annotations

import importlib
from typing import Any

from dcflow._core import ScenarioError
from dcflow import _core
from dcflow.capacity import capacity
from dcflow.run import run
from dcflow.scenario import Scenario

__version__: str = _core.version()

# Public name -> the module that defines it, imported on first use. (The
# functions named like their modules, `run` and `capacity`, are imported
# above: their modules are light, and an import of the module must not
# shadow the function.)
_LAZY = {
    "Result": "dcflow.result",
    "Sweep": "dcflow.sweep",
}

__all__ = ["Scenario", "run", "Result", "ScenarioError", "Sweep", "capacity", "__version__"]


def __getattr__(name: str) -> Any:
    module = _LAZY.get(name)
    if module is None:
        raise AttributeError(f"module 'dcflow' has no attribute {name!r}")
    value = getattr(importlib.import_module(module), name)
    globals()[name] = value
    return value


def __dir__() -> list[str]:
    return sorted(set(globals()) | set(__all__))
