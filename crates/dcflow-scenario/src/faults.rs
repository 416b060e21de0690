//! `[faults]`: random loss on named links, and timed failures and recoveries
//! of links and switches, resolved against the topology into
//! the link changes the packet engine applies.

use dcflow_core::{ConfigError, Dur, LinkId, Time};
use dcflow_net::{NodeKind, Topology};
use serde::{Deserialize, Serialize};

/// `[faults]`: random loss, and timed link and switch failures.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields, default)]
pub struct FaultsConfig {
    /// Probability that a packet is dropped on each faulty link (0 <= loss < 1).
    pub loss: f64,
    /// Links that lose packets. Empty = the monitored links, or the bottleneck
    /// when nothing is monitored (docs/outputs.md).
    pub links: Vec<String>,
    /// Which directions of each faulty link lose packets (default both).
    pub direction: LossDirection,
    /// How long after a link or switch changes state routing reacts,
    /// recomputing the equal-cost sets without the failed links (0 = at
    /// once). Until then ECMP keeps hashing onto a dead link.
    pub convergence: Dur,
    /// Timed failures and recoveries, in any order.
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub events: Vec<FaultEvent>,
}

/// The directions of a faulty link that drop packets. PDQ §5.6 drops "at the
/// bottleneck link, in both the forward (data) and reverse (acknowledgment)
/// direction"; one side alone separates the two effects.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum LossDirection {
    /// The link as named and its reverse.
    #[default]
    Both,
    /// The link as named only (for "bottleneck": into host 0, the data of aggregation).
    Forward,
    /// Its reverse only (for "bottleneck": out of host 0, the ACKs of aggregation).
    Reverse,
}

impl LossDirection {
    /// (named link loses, its reverse loses).
    pub fn sides(self) -> (bool, bool) {
        match self {
            LossDirection::Both => (true, true),
            LossDirection::Forward => (true, false),
            LossDirection::Reverse => (false, true),
        }
    }
}


/// Up or down.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum LinkState {
    Up,
    Down,
}

/// `[[faults.events]]`: at `at`, a link (`"a->b"` one direction, `"a<->b"`
/// both) or a switch (`node`: all its links) goes `state`.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct FaultEvent {
    pub at: Dur,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub link: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub node: Option<String>,
    pub state: LinkState,
}

/// One timed change, resolved: these directed links go up or down at `at`.
#[derive(Clone, Debug, PartialEq)]
pub struct LinkChange {
    pub at: Time,
    pub links: Vec<LinkId>,
    pub up: bool,
}

impl FaultsConfig {
    /// The events as directed-link changes in time order (ties in file
    /// order), checked: names exist, `node` is a switch, no event after
    /// `stop`, and every "up" follows a "down" of the same links.
    pub fn link_changes(&self, topo: &Topology, stop: Option<Dur>) -> Result<Vec<LinkChange>, ConfigError> {
        let mut out = Vec::with_capacity(self.events.len());
        for (i, e) in self.events.iter().enumerate() {
            let key = |k: &str| format!("faults.events[{i}].{k}");
            if let Some(stop) = stop {
                dcflow_core::ensure(e.at <= stop, &key("at"), format!("is after stop ({}); an event must happen during the run", stop))?;
            }
            let links = match (&e.link, &e.node) {
                (Some(name), None) => resolve_link(topo, name).ok_or_else(|| {
                    ConfigError::new(
                        key("link"),
                        format!("no link named {name:?}; `dcflow topo` lists the links as \"a->b\" (one direction) and \"a<->b\" is both"),
                    )
                })?,
                (None, Some(name)) => resolve_switch(topo, name).ok_or_else(|| {
                    ConfigError::new(key("node"), format!("no switch named {name:?}; `dcflow topo` lists the nodes (hosts cannot fail)"))
                })?,
                _ => return Err(ConfigError::new(format!("faults.events[{i}]"), "needs exactly one of link = \"a->b\" or node = \"switch\"")),
            };
            out.push((e.at, i, links, e.state == LinkState::Up));
        }
        out.sort_by_key(|&(at, i, _, _)| (at, i));
        let mut down = vec![0u32; topo.links.len()];
        for (_, i, links, up) in &out {
            for &l in links {
                let d = &mut down[l as usize];
                if *up {
                    dcflow_core::ensure(*d > 0, &format!("faults.events[{i}].state"), format!("\"up\" for link {} that is not down then; a recovery needs an earlier \"down\"", topo.links[l as usize].name))?;
                    *d -= 1;
                } else {
                    *d += 1;
                }
            }
        }
        Ok(out.into_iter().map(|(at, _, links, up)| LinkChange { at: Time::ZERO + at, links, up }).collect())
    }
}

/// `"a->b"`, or both directions of `"a<->b"`.
fn resolve_link(topo: &Topology, name: &str) -> Option<Vec<LinkId>> {
    match name.split_once("<->") {
        Some((a, b)) => {
            let l = topo.link_by_name(&format!("{a}->{b}"))?;
            Some(vec![l, topo.reverse(l)])
        }
        None => topo.link_by_name(name).map(|l| vec![l]),
    }
}

/// Every link into or out of switch `name`.
fn resolve_switch(topo: &Topology, name: &str) -> Option<Vec<LinkId>> {
    let n = topo.nodes.iter().position(|n| n.name == name && n.kind == NodeKind::Switch)?;
    Some(topo.out_links[n].iter().flat_map(|&l| [l, topo.reverse(l)]).collect())
}
