//! The node and link lists of `kind = "custom"`, and their checks.

use crate::config::TopologyConfig;
use dcflow_core::{ensure, Bytes, ConfigError, Dur, Rate};
use serde::{Deserialize, Serialize};
use std::collections::HashSet;

/// A node of a `custom` topology.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct CustomNode {
    pub name: String,
    pub kind: CustomNodeKind,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum CustomNodeKind {
    Host,
    Switch,
}

/// A bidirectional link of a `custom` topology; absent values take the common keys.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct CustomLink {
    pub a: String,
    pub b: String,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub rate: Option<Rate>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub prop_delay: Option<Dur>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub buffer: Option<Bytes>,
}

/// Names are unique and usable in link names, links join two known nodes once.
pub(crate) fn validate(
    cfg: &TopologyConfig,
    nodes: &[CustomNode],
    links: &[CustomLink],
) -> Result<(), ConfigError> {
    ensure(
        cfg.nodes.is_some(),
        "nodes",
        "is required for kind 'custom'",
    )?;
    ensure(
        cfg.links.is_some(),
        "links",
        "is required for kind 'custom'",
    )?;
    let hosts = nodes
        .iter()
        .filter(|n| n.kind == CustomNodeKind::Host)
        .count();
    ensure(
        hosts >= 2,
        "nodes",
        format!("has {hosts} hosts; at least 2 are needed"),
    )?;
    let mut names = HashSet::new();
    for (i, n) in nodes.iter().enumerate() {
        let ok = !n.name.is_empty() && !n.name.contains("->") && n.name != "bottleneck";
        ensure(
            ok,
            &format!("nodes[{i}].name"),
            "must be non-empty, not contain '->', and not be 'bottleneck'",
        )?;
        ensure(
            names.insert(n.name.as_str()),
            &format!("nodes[{i}].name"),
            format!("'{}' is used twice", n.name),
        )?;
    }
    let mut pairs = HashSet::new();
    for (i, l) in links.iter().enumerate() {
        for (end, name) in [("a", &l.a), ("b", &l.b)] {
            ensure(
                names.contains(name.as_str()),
                &format!("links[{i}].{end}"),
                format!("'{name}' is not a node name"),
            )?;
        }
        ensure(
            l.a != l.b,
            &format!("links[{i}].b"),
            "a link must join two different nodes",
        )?;
        let key = if l.a < l.b {
            (&l.a, &l.b)
        } else {
            (&l.b, &l.a)
        };
        ensure(
            pairs.insert(key),
            &format!("links[{i}]"),
            format!("a second link between '{}' and '{}'", l.a, l.b),
        )?;
        if let Some(r) = l.rate {
            ensure(
                r > Rate::ZERO,
                &format!("links[{i}].rate"),
                "must be a positive rate",
            )?;
        }
        if let Some(b) = l.buffer {
            ensure(
                b.0 >= cfg.mtu as u64,
                &format!("links[{i}].buffer"),
                "must hold at least one MTU",
            )?;
        }
    }
    Ok(())
}
