"""Error messages that help: the closest allowed key or name to a misspelt
one (difflib), every allowed key of `[protocol]` (its `name` too), and the
key inside `[protocol]` that an error is about.

The parser (Rust, serde) words its errors as "unknown field `nmae`, expected
one of `alpha`, ..." and "unknown variant `pdx`, expected one of `tcp`, ...".
`[protocol]` is one tagged enum there, so its list leaves out the tag
(`name`), and a wrong value inside it is reported against `protocol` alone;
:func:`explain` rewrites such messages. The rewritten message stays one
line, starting with the key.
"""

from __future__ import annotations

import difflib
import json
import re
from collections.abc import Callable, Iterable
from typing import Any

__all__ = ["closest", "did_you_mean", "explain"]

_UNKNOWN = re.compile(
    r"^(?P<key>[^:]+): unknown (?P<what>field|variant) `(?P<bad>[^`]*)`, expected (?:one of )?(?P<allowed>.*)$")
_UNKNOWN_OF = re.compile(r"^(?P<key>[^:]+): unknown key of `(?P<proto>[^`]+)`; allowed: (?P<allowed>.*)$")


def closest(word: str, choices: Iterable[str]) -> str | None:
    """The allowed word nearest to `word`, if one is near enough."""
    found = difflib.get_close_matches(word, list(choices), n=1, cutoff=0.6)
    return found[0] if found else None


def did_you_mean(word: str, choices: Iterable[str]) -> str:
    """" (did you mean 'x'?)" or nothing."""
    best = closest(word, choices)
    return f" (did you mean {best!r}?)" if best else ""


def _names(allowed: str) -> list[str]:
    quoted = re.findall(r"`([^`]*)`", allowed)
    return quoted or [w.strip() for w in allowed.split(",") if w.strip()]


def explain(message: str, scenario: dict[str, Any] | None = None,
            still_fails: Callable[[dict[str, Any]], str | None] | None = None) -> str:
    """`message` with a suggestion and the full list of allowed keys or
    names; for an error against `protocol` as a whole, the key named, found
    by `still_fails(scenario)` (the error a scenario gives, or None)."""
    m = _UNKNOWN.match(message) or _UNKNOWN_OF.match(message)
    if m:
        key = m.group("key")
        allowed = _names(m.group("allowed"))
        if "what" in m.groupdict() and m.group("what") == "variant":
            bad = m.group("bad")
            return f"{key}: unknown value {bad!r}{did_you_mean(bad, allowed)}; allowed: {', '.join(allowed)}"
        bad = m.groupdict().get("bad") or key.rsplit(".", 1)[-1]
        section = key[: -len(bad) - 1] if key.endswith("." + bad) else "" if key == bad else key
        if section == "protocol" and "name" not in allowed:
            allowed = ["name", *allowed]
        where = f"in [{section}]" if section else "at the top level"
        return (f"{section + '.' if section else ''}{bad}: unknown key{did_you_mean(bad, allowed)}; "
                f"allowed {where}: {', '.join(allowed)}")
    if message.startswith("protocol: ") and scenario is not None and still_fails is not None:
        key = _protocol_key(message, scenario, still_fails)
        if key:
            return f"protocol.{key}: {message[len('protocol: '):]}"
    return message


def _protocol_key(message: str, scenario: dict[str, Any], still_fails: Callable[[dict[str, Any]], str | None]) -> str | None:
    """The one key of `[protocol]` without which `message` goes away."""
    protocol = scenario.get("protocol")
    if not isinstance(protocol, dict):
        return None
    culprits = []
    for key in protocol:
        if key == "name":
            continue
        without = json.loads(json.dumps(scenario))
        del without["protocol"][key]
        if still_fails(without) != message:
            culprits.append(key)
    return culprits[0] if len(culprits) == 1 else None
