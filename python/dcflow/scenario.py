"""The scenario model: a declarative, JSON-shaped description of one run.

A :class:`Scenario` is a thin wrapper around a plain dict with the shape of the
scenario file (see the README's scenario reference ("Scenario file"). Validation and defaults live in
Rust (``dcflow._core.resolve``); this module only loads, copies and overrides.
"""

from __future__ import annotations

import copy
import json
import math
import os
import re
import tomllib
from collections.abc import Mapping
from pathlib import Path
from typing import Any

from dcflow._core import ScenarioError
from dcflow import _core

__all__ = ["Scenario", "ScenarioError", "parse_set", "parse_value"]

# String values under these keys name files; when a scenario is loaded from a
# file, relative paths are made absolute against the scenario's directory so
# the run (and the saved scenario.resolved.toml) does not depend on the cwd.
_PATH_KEYS = frozenset({"file", "trace"})

_KEY_RE = re.compile(r"^[A-Za-z0-9_-]+(\.[A-Za-z0-9_-]+)*$")


def _one_line(msg: str) -> str:
    return " ".join(str(msg).split())


class Scenario:
    """A scenario: ``Scenario(dict)``, ``Scenario.from_toml(path)``,
    ``Scenario.from_json(text)``. Instances are treated as immutable:
    :meth:`with_overrides` returns a new one."""

    __slots__ = ("_data", "source")

    def __init__(self, data: Mapping[str, Any] | None = None, *, source: str | None = None):
        if data is None:
            data = {}
        if isinstance(data, Scenario):
            source = source or data.source
            data = data._data
        if not isinstance(data, Mapping):
            raise ScenarioError(f"scenario: expected a table (dict), got {type(data).__name__}")
        self._data: dict[str, Any] = copy.deepcopy(dict(data))
        #: where the scenario came from (a file path), or None
        self.source = source

    # ----------------------------------------------------------------- loading
    @classmethod
    def from_toml(cls, path: str | os.PathLike[str]) -> "Scenario":
        """Load a TOML scenario file. A missing file or a TOML syntax error
        raises :class:`ScenarioError` with one line naming the file."""
        p = Path(path)
        try:
            raw = p.read_bytes()
        except FileNotFoundError:
            raise ScenarioError(f"{path}: no such scenario file") from None
        except IsADirectoryError:
            raise ScenarioError(f"{path}: is a directory, expected a scenario .toml file") from None
        except OSError as e:
            raise ScenarioError(f"{path}: cannot read: {e.strerror or e}") from None
        data = read_toml(raw, str(path))
        if not data:
            raise ScenarioError(f"{path}: the scenario is empty; `dcflow new -o {path} --overwrite` writes a "
                                "starter (every key has a default, but an empty file is more likely a mistake)")
        base = p.resolve().parent
        _absolutize_paths(data, base)
        return cls(data, source=str(path))

    @classmethod
    def from_json(cls, text: str | bytes) -> "Scenario":
        """Load a scenario from JSON text with the same shape as the TOML file."""
        try:
            data = json.loads(text)
        except json.JSONDecodeError as e:
            raise ScenarioError(f"scenario: invalid JSON: {_one_line(e)}") from None
        return cls(data)

    @classmethod
    def load(cls, obj: "Scenario | Mapping[str, Any] | str | os.PathLike[str]") -> "Scenario":
        """Coerce a Scenario, a dict or a path to a TOML file into a Scenario."""
        if isinstance(obj, Scenario):
            return obj
        if isinstance(obj, Mapping):
            return cls(obj)
        if isinstance(obj, (str, os.PathLike)):
            return cls.from_toml(obj)
        raise TypeError(f"expected a Scenario, a dict or a path, got {type(obj).__name__}")

    # --------------------------------------------------------------- overrides
    def with_overrides(self, overrides: Mapping[str, Any] | None = None, /, **kwargs: Any) -> "Scenario":
        """Return a new Scenario with dotted keys set, creating tables as needed.

        ``s.with_overrides({"protocol.name": "d3", "workload.flows": 30})``.
        Keyword arguments use ``__`` for the dot: ``with_overrides(workload__flows=30)``.
        A numeric path segment indexes an array (``"flows.0.size"``).
        """
        items = dict(overrides or {})
        items.update({k.replace("__", "."): v for k, v in kwargs.items()})
        data = copy.deepcopy(self._data)
        for key, value in items.items():
            _set_dotted(data, key, copy.deepcopy(value))
        return Scenario(data, source=self.source)

    # ------------------------------------------------------------------ output
    def to_dict(self) -> dict[str, Any]:
        """A deep copy of the scenario as given (defaults not filled in)."""
        return copy.deepcopy(self._data)

    def to_json(self) -> str:
        """The scenario as JSON text (the form passed to the Rust core)."""
        return json.dumps(_jsonable(self._data, ""), allow_nan=False)

    def resolved(self) -> dict[str, Any]:
        """Validate and return the scenario with every default filled in.
        Raises :class:`ScenarioError` naming the offending key."""
        return json.loads(self._core(_core.resolve))

    def to_toml(self) -> str:
        """The resolved scenario as TOML text, headed by the dcflow version."""
        text = self._core(_core.to_toml)
        header = f"# resolved by dcflow {_core.version()}\n"
        return text if text.startswith("# resolved by dcflow") else header + text

    def export_flows(self, format: str = "csv") -> str:
        """The flows a run of this scenario simulates, as a flow file:
        ``"csv"`` (dcflow's trace), ``"hpcc"``, ``"htsim"`` or ``"yaps"``
        (docs/inputs.md)."""
        return self._core(_core.export_flows, format)

    def topo(self) -> str:
        """Hosts, switches and link names of the scenario's topology."""
        return self._core(_core.topo)

    def _core(self, function: Any, *args: Any) -> Any:
        """`function(scenario JSON, *args)` in the core, its error explained
        (dcflow.suggest: the nearest allowed key or name, the key inside
        `[protocol]`)."""
        text = self.to_json()
        try:
            return function(text, *args)
        except ScenarioError as e:
            from dcflow.suggest import explain

            raise ScenarioError(explain(str(e), json.loads(text), _error_of)) from None

    # ------------------------------------------------------------------ dunder
    def __getitem__(self, key: str) -> Any:
        return copy.deepcopy(self._data[key])

    def __eq__(self, other: object) -> bool:
        if isinstance(other, Scenario):
            return self._data == other._data
        return NotImplemented

    def __repr__(self) -> str:
        name = self._data.get("name")
        src = f" from {self.source!r}" if self.source else ""
        return f"Scenario({name!r}{src})" if name is not None else f"Scenario({self._data!r})"


# --------------------------------------------------------------------- helpers
#: Tables and arrays nested deeper than this are refused: the scenario's
#: deepest real key (`topology.links[].rate`) sits at 4, and Python's TOML
#: reader and the JSON conversion recurse once per level.
MAX_DEPTH = 64


def read_toml(raw: bytes, where: str) -> dict[str, Any]:
    """TOML bytes as a dict; every error is one ScenarioError naming `where`."""
    try:
        text = raw.decode("utf-8")
    except UnicodeDecodeError as e:
        raise ScenarioError(f"{where}: not UTF-8 text ({e.reason} at byte {e.start})") from None
    try:
        data = tomllib.loads(text)
    except tomllib.TOMLDecodeError as e:
        raise ScenarioError(f"{where}: invalid TOML: {_one_line(e)}") from None
    except RecursionError:
        data = None
    if data is None or _depth(data) > MAX_DEPTH:
        raise ScenarioError(f"{where}: tables or arrays nested more than {MAX_DEPTH} deep; a scenario needs 4")
    return data


def _depth(node: Any, limit: int = MAX_DEPTH + 1) -> int:
    """Nesting depth of tables and arrays, counted up to `limit`."""
    if limit <= 0 or not isinstance(node, (dict, list)):
        return 0
    children = node.values() if isinstance(node, dict) else node
    return 1 + max((_depth(c, limit - 1) for c in children), default=0)


def _error_of(data: dict[str, Any]) -> str | None:
    """The core's error for a scenario (JSON-shaped), or None if it is valid."""
    try:
        _core.resolve(json.dumps(data))
    except ScenarioError as e:
        return str(e)
    return None


def _set_dotted(data: dict[str, Any], key: str, value: Any) -> None:
    if not isinstance(key, str) or not _KEY_RE.match(key):
        raise ScenarioError(f"{key}: invalid override key; expected dotted names like protocol.name")
    parts = key.split(".")
    node: Any = data
    for i, part in enumerate(parts[:-1]):
        where = ".".join(parts[: i + 1])
        if isinstance(node, list):
            node = node[_list_index(node, part, where)]
            continue
        nxt = node.get(part)
        if nxt is None:
            nxt = node[part] = {}
        elif not isinstance(nxt, (dict, list)):
            raise ScenarioError(f"{key}: cannot set, {where} is a value ({nxt!r}), not a table")
        node = nxt
    last = parts[-1]
    if isinstance(node, list):
        node[_list_index(node, last, key)] = value
    else:
        node[last] = value


def _list_index(lst: list[Any], part: str, where: str) -> int:
    if not part.isdigit() or int(part) >= len(lst):
        raise ScenarioError(f"{where}: array index must be an integer in 0..{len(lst) - 1}")
    return int(part)


def _absolutize_paths(node: Any, base: Path) -> None:
    if isinstance(node, dict):
        for k, v in node.items():
            if k in _PATH_KEYS and isinstance(v, str) and v and not os.path.isabs(v):
                node[k] = str(base / v)
            else:
                _absolutize_paths(v, base)
    elif isinstance(node, list):
        for v in node:
            _absolutize_paths(v, base)


def _jsonable(node: Any, path: str) -> Any:
    """Check that a value is representable in JSON, naming the key if not."""
    if isinstance(node, Mapping):
        out = {}
        for k, v in node.items():
            if not isinstance(k, str):
                raise ScenarioError(f"{path or 'scenario'}: keys must be strings, got {k!r}")
            out[k] = _jsonable(v, f"{path}.{k}" if path else k)
        return out
    if isinstance(node, (list, tuple)):
        return [_jsonable(v, f"{path}[{i}]") for i, v in enumerate(node)]
    if isinstance(node, bool) or node is None or isinstance(node, (int, str)):
        return node
    if isinstance(node, float):
        if not math.isfinite(node):
            raise ScenarioError(f"{path}: {node} is not allowed; use a finite number")
        return node
    if isinstance(node, os.PathLike):
        return os.fspath(node)
    if hasattr(node, "item") and callable(node.item):  # numpy scalars
        return _jsonable(node.item(), path)
    raise ScenarioError(
        f"{path}: unsupported value of type {type(node).__name__}; use a string, number, boolean, array or table"
    )


def parse_value(text: str) -> Any:
    """Parse an override value as a TOML value; fall back to the raw string.

    ``"30"`` -> 30, ``"1.5"`` -> 1.5, ``"true"`` -> True, ``"[1, 2]"`` -> [1, 2],
    ``'{dist = "fixed", value = "1MB"}'`` -> dict, ``"d3"`` -> "d3", ``"25us"`` -> "25us".
    """
    try:
        value = tomllib.loads(f"v = {text}")["v"]
    except tomllib.TOMLDecodeError:
        return text
    except RecursionError:
        value = None
    if value is None or _depth(value) > MAX_DEPTH:
        raise ScenarioError(f"{text[:40]}...: arrays or tables nested more than {MAX_DEPTH} deep")
    return value


def parse_set(item: str) -> tuple[str, Any]:
    """Parse one ``--set key.path=value`` argument."""
    key, sep, value = item.partition("=")
    key = key.strip()
    if not sep or not _KEY_RE.match(key):
        raise ScenarioError(f"--set {item!r}: expected key.path=value, e.g. --set workload.flows=30")
    return key, parse_value(value.strip())
