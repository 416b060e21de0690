"""dcflow: a fast, faithful simulator of datacenter transports.

    import dcflow
    sc = dcflow.Scenario.from_toml("examples/demo.toml")
    res = dcflow.run(sc.with_overrides({"protocol.name": "tcp"}))
    res.summary["fct_mean_s"], res.flows.to_pandas()
    res.save("out")
"""

from dcflow._core import ScenarioError
from dcflow import _core
from dcflow.result import Result
from dcflow.run import run
from dcflow.scenario import Scenario
from dcflow.sweep import Sweep
from dcflow.capacity import capacity

__version__: str = _core.version()

__all__ = ["Scenario", "run", "Result", "ScenarioError", "Sweep", "capacity", "__version__"]
