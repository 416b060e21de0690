"""The key reference (dcflow.keys, `dcflow keys`, docs/keys.md) against the
parser: every key the parser accepts, and every name an enumerated key
takes, is in the reference, and docs/keys.md is what `dcflow keys
--markdown` prints."""

from __future__ import annotations

import json
import re

import pytest

from conftest import REPO, dcflow
from dcflow import _core, keys

#: Where each table of keys sits: (reference section path, a scenario that
#: puts an unknown key `zzz` in that table).
TABLES = {
    "": {},
    "topology": {"topology": {}},
    "topology.nodes[]": {"topology": {"kind": "custom", "nodes": [{}]}},
    "topology.links[]": {"topology": {"kind": "custom", "links": [{}]}},
    "workload": {"workload": {}},
    "workload.size": {"workload": {"size": {"dist": "fixed"}}},
    "workload.deadline": {"workload": {"deadline": {"dist": "fixed"}}},
    "flows[]": {"flows": [{}]},
    "monitor": {"monitor": {}},
    "faults": {"faults": {}},
    "faults.events[]": {"faults": {"events": [{}]}},
    "fluid": {"fluid": {}},
    "stats": {"stats": {}},
}


def _error(scenario: dict) -> str:
    with pytest.raises(_core.ScenarioError) as e:
        _core.resolve(json.dumps(scenario))
    return str(e.value)


def _parser_keys(scenario: dict, where: str) -> set[str]:
    """The keys the parser lists when `zzz` is put at `where`."""
    node = scenario
    for part in where.replace("[]", ".0").split(".") if where else []:
        node = node[int(part)] if part.isdigit() else node[part]
    node["zzz"] = 1
    message = _error(scenario)
    assert "zzz" in message, message
    listed = message.split("expected", 1)[1] if "expected" in message else message.split("allowed:", 1)[1]
    return set(re.findall(r"`([^`]+)`", listed) or [w.strip() for w in listed.split(",")])


@pytest.mark.parametrize("where", sorted(TABLES))
def test_every_key_the_parser_accepts_is_in_the_reference(where):
    parser = _parser_keys(json.loads(json.dumps(TABLES[where])), where)
    ours = {k.path[len(where) + 1:] if where else k.path for k in keys.KEYS
            if (k.path.startswith(where + ".") if where else True)}
    ours = {p.split(".")[0].split("[")[0] for p in ours}
    assert parser == ours, f"[{where}] parser only: {parser - ours}; reference only: {ours - parser}"


@pytest.mark.parametrize("protocol", keys.PROTOCOLS)
def test_every_protocol_key_is_in_the_reference(protocol):
    scenario = {"protocol": {"name": protocol}, **({"engine": "fluid"} if protocol in keys.IDEAL else {})}
    parser = _parser_keys(scenario, "protocol")
    ours = {k.name for k in keys.select(protocol) if k.path != "protocol.name"}
    assert parser == ours, f"{protocol}: parser only: {parser - ours}; reference only: {ours - parser}"


#: Enumerated keys that need their neighbours to be read at all.
NAME_PROBES = {
    "workload.size.name": {"workload": {"size": {"dist": "cdf", "name": "zzz"}}},
    "workload.size.format": {"workload": {"size": {"dist": "cdf", "file": str(REPO / "README.md"), "format": "zzz"}}},
    "topology.nodes[].kind": {"topology": {"kind": "custom", "nodes": [{"name": "a", "kind": "zzz"}]}},
    "faults.events[].state": {"faults": {"events": [{"at": "1ms", "link": "sw->h0", "state": "zzz"}]}},
}


def _name_probe(key: keys.Key) -> dict:
    if key.path in NAME_PROBES:
        return json.loads(json.dumps(NAME_PROBES[key.path]))
    scenario = keys._context(key)
    node = scenario
    *tables, leaf = key.path.split(".")
    for part in tables:
        node = node.setdefault(part, {})
    node[leaf] = "zzz"
    return scenario


@pytest.mark.parametrize("key", [k for k in keys.KEYS if k.type == "name"],
                         ids=lambda k: f"{k.path}[{','.join(k.only[:1])}]")
def test_every_name_the_parser_accepts_is_in_the_reference(key):
    """An enumerated key's names as the parser lists them for a wrong one."""
    message = _error(_name_probe(key))
    assert "zzz" in message, message
    parser = set(re.findall(r"`([^`]+)`", message.split("expected", 1)[1]))
    assert parser == {a.strip() for a in key.allowed.split("|")}, message


def test_docs_keys_md_is_current():
    r = dcflow("keys", "--markdown")
    assert r.returncode == 0, r.stderr
    assert (REPO / "docs" / "keys.md").read_text() == r.stdout, (
        "docs/keys.md is stale: run `dcflow keys --markdown > docs/keys.md`")


def test_keys_cli_prints_a_section_and_refuses_an_unknown_one():
    r = dcflow("keys", "topology")
    assert r.returncode == 0
    assert re.search(r"^topology\.k  \(integer\)  \[fat_tree, bcube\]\n.*\n    default 4;", r.stdout, re.M), r.stdout
    r = dcflow("keys", "pdq")
    assert "protocol.early_start_k" in r.stdout and "protocol.g " not in r.stdout
    r = dcflow("keys", "topolgy")
    assert r.returncode == 2 and r.stderr.startswith("error: keys: unknown section 'topolgy' (did you mean "
                                                     "'topology'?)") and len(r.stderr.splitlines()) == 1
