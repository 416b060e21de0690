//! The `[topology]` section of a scenario (the README's scenario reference).
//!
//! Common keys (rates, delays, buffer, MTU, routing, queue discipline) are plain
//! fields with defaults. Keys that only make sense for one topology kind or one
//! queue discipline are `Option`s: absent means "use the default", and a key
//! given for a kind that does not use it is an error rather than silently
//! ignored. [`TopologyConfig::shape`] is the single place the kind-specific
//! defaults live; [`TopologyConfig::resolved`] writes them back so that
//! `scenario.resolved.toml` shows every value a run used.
//!
//! Error keys are relative to the section (`racks`, `links[2].b`); the scenario
//! crate prefixes `topology.`.

use crate::conga::CongaParams;
use crate::custom::{self, CustomLink, CustomNode};
use crate::policy::{RoutingMode, RoutingParams, SprayOrder, DEFAULT_FLOWLET_GAP};
use crate::queue::QueueDiscipline;
use dcflow_core::{ensure, Bytes, ConfigError, Dur, Rate};
use serde::{Deserialize, Serialize};

/// Which topology generator builds the network.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum TopologyKind {
    /// Hosts on one switch: the single-bottleneck topology of PDQ, D3, S3 and MERP.
    #[default]
    Star,
    /// Two-level single-rooted tree: racks of hosts under top-of-rack switches under one root.
    Tree,
    /// Two-tier Clos: every leaf connects to every spine.
    LeafSpine,
    /// k-ary fat tree (Al-Fares et al., SIGCOMM'08).
    FatTree,
    /// BCube(n,k), server-centric (Guo et al., SIGCOMM'09).
    Bcube,
    /// Random regular graph among switches (Singla et al., NSDI'12).
    Jellyfish,
    /// Explicit node and link lists.
    Custom,
}

impl TopologyKind {
    pub fn as_str(self) -> &'static str {
        match self {
            TopologyKind::Star => "star",
            TopologyKind::Tree => "tree",
            TopologyKind::LeafSpine => "leaf_spine",
            TopologyKind::FatTree => "fat_tree",
            TopologyKind::Bcube => "bcube",
            TopologyKind::Jellyfish => "jellyfish",
            TopologyKind::Custom => "custom",
        }
    }

    /// The kind-specific keys this kind reads.
    pub fn keys(self) -> &'static [&'static str] {
        match self {
            TopologyKind::Star => &["hosts"],
            TopologyKind::Tree => &["racks", "hosts_per_rack", "core_link_rate"],
            TopologyKind::LeafSpine => &["leaves", "hosts_per_leaf", "spines", "spine_link_rate"],
            TopologyKind::FatTree => &["k"],
            TopologyKind::Bcube => &["n", "k"],
            TopologyKind::Jellyfish => &["switches", "ports", "hosts_per_switch"],
            TopologyKind::Custom => &["nodes", "links"],
        }
    }
}

/// The `[topology]` section.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(default, deny_unknown_fields)]
pub struct TopologyConfig {
    pub kind: TopologyKind,
    pub link_rate: Rate,
    /// Per link (one direction).
    pub prop_delay: Dur,
    /// Per forwarding hop (switch, or BCube server relaying). PDQ §5 uses 25us.
    pub proc_delay: Dur,
    /// Per output port.
    pub buffer: Bytes,
    /// Largest packet on the wire, headers included.
    pub mtu: u32,
    /// Path choice among equal-cost next hops (crate::policy); its
    /// parameters follow, each only with the policy that reads it.
    pub routing: RoutingMode,
    /// `spray`: "random" (default) or "round_robin".
    #[serde(skip_serializing_if = "Option::is_none")]
    pub spray_order: Option<SprayOrder>,
    /// `flowlet`, `conga`: idle gap that starts a new flowlet (default 500us, CONGA's T_fl).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub flowlet_gap: Option<Dur>,
    /// `conga`: bits of the congestion metric (default 3, CONGA §3.6).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub conga_q: Option<u32>,
    /// `conga`: DRE decay period T_dre (default 16us: tau = T_dre / alpha = 160us, CONGA §3.6).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub conga_tdre: Option<Dur>,
    /// `conga`: DRE decay factor alpha (default 0.1).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub conga_alpha: Option<f64>,
    /// `conga`: age after which a Congestion-To-Leaf entry counts as 0 (default 10ms).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub conga_aging: Option<Dur>,
    pub queue: QueueDiscipline,
    /// `queue = "ecn"`: DCTCP marking threshold K. Default: 20 MTU-sized packets
    /// below 10 Gbps, 65 at 10 Gbps and above, the values DCTCP (SIGCOMM'10, §4)
    /// uses for 1 and 10 Gbps (LPD §V follows it with k = 20); 30KB at the
    /// default 1500B MTU and 1 Gbps. Counted before the arriving packet joins.
    /// With `queue = "priority"` (no default there): mark when the whole
    /// port, every class counted, holds more than K (PIAS' per-port ECN).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub ecn_threshold: Option<Bytes>,
    /// `queue = "priority"`: number of strict-priority classes (default 8, as in 802.1p).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub priority_classes: Option<u32>,

    /// star: hosts on the switch (default 6).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub hosts: Option<u32>,
    /// tree: racks under the root (default 4: with 3 hosts per rack, the 12-server
    /// two-level tree of PDQ §5.1 and D3 §6. MERP's 9-server tree is 3 x 3; LPD's
    /// is 10 racks x 40 hosts with core_link_rate = "10Gbps").
    #[serde(skip_serializing_if = "Option::is_none")]
    pub racks: Option<u32>,
    /// tree: hosts per rack (default 3).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub hosts_per_rack: Option<u32>,
    /// tree: rate of ToR-root links (default link_rate).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub core_link_rate: Option<Rate>,
    /// leaf_spine: leaf switches (default 4).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub leaves: Option<u32>,
    /// leaf_spine: hosts per leaf (default 4).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub hosts_per_leaf: Option<u32>,
    /// leaf_spine: spine switches (default 2).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub spines: Option<u32>,
    /// leaf_spine: rate of leaf-spine links (default link_rate).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub spine_link_rate: Option<Rate>,
    /// fat_tree: switch port count, even (default 4); bcube: levels minus one (default 1).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub k: Option<u32>,
    /// bcube: switch port count (default 4).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub n: Option<u32>,
    /// jellyfish: switches (default 20).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub switches: Option<u32>,
    /// jellyfish: ports per switch (default 8).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub ports: Option<u32>,
    /// jellyfish: hosts per switch (default 4); the other ports join the random graph.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub hosts_per_switch: Option<u32>,
    /// custom: the nodes (required; hosts are the `host` nodes in list order).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub nodes: Option<Vec<CustomNode>>,
    /// custom: the links, each bidirectional (required).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub links: Option<Vec<CustomLink>>,
}

impl Default for TopologyConfig {
    fn default() -> Self {
        TopologyConfig {
            kind: TopologyKind::Star,
            link_rate: Rate::gbps(1),
            prop_delay: Dur::ns(100),
            proc_delay: Dur::us(25),
            buffer: Bytes::mb(4),
            mtu: 1500,
            routing: RoutingMode::Ecmp,
            spray_order: None,
            flowlet_gap: None,
            conga_q: None,
            conga_tdre: None,
            conga_alpha: None,
            conga_aging: None,
            queue: QueueDiscipline::DropTail,
            ecn_threshold: None,
            priority_classes: None,
            hosts: None,
            racks: None,
            hosts_per_rack: None,
            core_link_rate: None,
            leaves: None,
            hosts_per_leaf: None,
            spines: None,
            spine_link_rate: None,
            k: None,
            n: None,
            switches: None,
            ports: None,
            hosts_per_switch: None,
            nodes: None,
            links: None,
        }
    }
}

/// The kind-specific parameters with defaults filled in.
#[derive(Clone, Copy, Debug, PartialEq)]
pub enum Shape<'a> {
    Star {
        hosts: u32,
    },
    Tree {
        racks: u32,
        hosts_per_rack: u32,
        core_link_rate: Rate,
    },
    LeafSpine {
        leaves: u32,
        hosts_per_leaf: u32,
        spines: u32,
        spine_link_rate: Rate,
    },
    FatTree {
        k: u32,
    },
    Bcube {
        n: u32,
        k: u32,
    },
    Jellyfish {
        switches: u32,
        ports: u32,
        hosts_per_switch: u32,
    },
    Custom {
        nodes: &'a [CustomNode],
        links: &'a [CustomLink],
    },
}

fn at_least(v: u32, min: u32, key: &str) -> Result<(), ConfigError> {
    ensure(
        v >= min,
        key,
        format!("is {v}; must be an integer >= {min}"),
    )
}

impl TopologyConfig {
    /// The kind-specific keys that are present, by name.
    fn present_keys(&self) -> Vec<&'static str> {
        let c = self;
        [
            ("hosts", c.hosts.is_some()),
            ("racks", c.racks.is_some()),
            ("hosts_per_rack", c.hosts_per_rack.is_some()),
            ("core_link_rate", c.core_link_rate.is_some()),
            ("leaves", c.leaves.is_some()),
            ("hosts_per_leaf", c.hosts_per_leaf.is_some()),
            ("spines", c.spines.is_some()),
            ("spine_link_rate", c.spine_link_rate.is_some()),
            ("k", c.k.is_some()),
            ("n", c.n.is_some()),
            ("switches", c.switches.is_some()),
            ("ports", c.ports.is_some()),
            ("hosts_per_switch", c.hosts_per_switch.is_some()),
            ("nodes", c.nodes.is_some()),
            ("links", c.links.is_some()),
        ]
        .into_iter()
        .filter_map(|(k, present)| present.then_some(k))
        .collect()
    }

    /// Kind-specific parameters, defaults filled in.
    pub fn shape(&self) -> Shape<'_> {
        match self.kind {
            TopologyKind::Star => Shape::Star {
                hosts: self.hosts.unwrap_or(6),
            },
            TopologyKind::Tree => Shape::Tree {
                racks: self.racks.unwrap_or(4),
                hosts_per_rack: self.hosts_per_rack.unwrap_or(3),
                core_link_rate: self.core_link_rate.unwrap_or(self.link_rate),
            },
            TopologyKind::LeafSpine => Shape::LeafSpine {
                leaves: self.leaves.unwrap_or(4),
                hosts_per_leaf: self.hosts_per_leaf.unwrap_or(4),
                spines: self.spines.unwrap_or(2),
                spine_link_rate: self.spine_link_rate.unwrap_or(self.link_rate),
            },
            TopologyKind::FatTree => Shape::FatTree {
                k: self.k.unwrap_or(4),
            },
            TopologyKind::Bcube => Shape::Bcube {
                n: self.n.unwrap_or(4),
                k: self.k.unwrap_or(1),
            },
            TopologyKind::Jellyfish => Shape::Jellyfish {
                switches: self.switches.unwrap_or(20),
                ports: self.ports.unwrap_or(8),
                hosts_per_switch: self.hosts_per_switch.unwrap_or(4),
            },
            TopologyKind::Custom => Shape::Custom {
                nodes: self.nodes.as_deref().unwrap_or(&[]),
                links: self.links.as_deref().unwrap_or(&[]),
            },
        }
    }

    /// The routing policy's parameters, defaults filled in.
    pub fn routing_params(&self) -> RoutingParams {
        let d = CongaParams::default();
        RoutingParams {
            mode: self.routing,
            spray_order: self.spray_order.unwrap_or_default(),
            flowlet_gap: self.flowlet_gap.unwrap_or(DEFAULT_FLOWLET_GAP),
            conga: CongaParams {
                q_bits: self.conga_q.unwrap_or(d.q_bits),
                dre_period: self.conga_tdre.unwrap_or(d.dre_period),
                dre_alpha: self.conga_alpha.unwrap_or(d.dre_alpha),
                aging: self.conga_aging.unwrap_or(d.aging),
            },
        }
    }

    /// Each routing key with the policies that read it: a key given to
    /// another policy is an error, not silently ignored.
    fn check_routing_keys(&self) -> Result<(), ConfigError> {
        use RoutingMode::*;
        let keys: [(&str, bool, &[RoutingMode]); 6] = [
            ("spray_order", self.spray_order.is_some(), &[Spray]),
            ("flowlet_gap", self.flowlet_gap.is_some(), &[Flowlet, Conga]),
            ("conga_q", self.conga_q.is_some(), &[Conga]),
            ("conga_tdre", self.conga_tdre.is_some(), &[Conga]),
            ("conga_alpha", self.conga_alpha.is_some(), &[Conga]),
            ("conga_aging", self.conga_aging.is_some(), &[Conga]),
        ];
        for (key, given, modes) in keys {
            let names: Vec<&str> = modes.iter().map(|m| m.as_str()).collect();
            ensure(
                !given || modes.contains(&self.routing),
                key,
                format!("is only used by routing = {}, not \"{}\"", names.join(" or "), self.routing.as_str()),
            )?;
        }
        self.routing_params().validate()
    }

    /// DCTCP's K for this configuration (see the `ecn_threshold` field).
    pub fn ecn_threshold_or_default(&self) -> Bytes {
        let packets = if self.link_rate >= Rate::gbps(10) {
            65
        } else {
            20
        };
        self.ecn_threshold
            .unwrap_or(Bytes(packets * self.mtu as u64))
    }

    pub fn priority_classes_or_default(&self) -> u32 {
        self.priority_classes.unwrap_or(8)
    }

    /// A copy with every key its kind and queue discipline use filled in.
    pub fn resolved(&self) -> TopologyConfig {
        let mut r = self.clone();
        match self.shape() {
            Shape::Star { hosts } => r.hosts = Some(hosts),
            Shape::Tree {
                racks,
                hosts_per_rack,
                core_link_rate,
            } => {
                r.racks = Some(racks);
                r.hosts_per_rack = Some(hosts_per_rack);
                r.core_link_rate = Some(core_link_rate);
            }
            Shape::LeafSpine {
                leaves,
                hosts_per_leaf,
                spines,
                spine_link_rate,
            } => {
                r.leaves = Some(leaves);
                r.hosts_per_leaf = Some(hosts_per_leaf);
                r.spines = Some(spines);
                r.spine_link_rate = Some(spine_link_rate);
            }
            Shape::FatTree { k } => r.k = Some(k),
            Shape::Bcube { n, k } => {
                r.n = Some(n);
                r.k = Some(k);
            }
            Shape::Jellyfish {
                switches,
                ports,
                hosts_per_switch,
            } => {
                r.switches = Some(switches);
                r.ports = Some(ports);
                r.hosts_per_switch = Some(hosts_per_switch);
            }
            Shape::Custom { nodes, links } => {
                r.nodes = Some(nodes.to_vec());
                r.links = Some(links.to_vec());
            }
        }
        let p = self.routing_params();
        match self.routing {
            RoutingMode::Spray => r.spray_order = Some(p.spray_order),
            RoutingMode::Flowlet => r.flowlet_gap = Some(p.flowlet_gap),
            RoutingMode::Conga => {
                r.flowlet_gap = Some(p.flowlet_gap);
                r.conga_q = Some(p.conga.q_bits);
                r.conga_tdre = Some(p.conga.dre_period);
                r.conga_alpha = Some(p.conga.dre_alpha);
                r.conga_aging = Some(p.conga.aging);
            }
            RoutingMode::Ecmp | RoutingMode::Single | RoutingMode::Memr => {}
        }
        match self.queue {
            QueueDiscipline::Ecn => r.ecn_threshold = Some(self.ecn_threshold_or_default()),
            QueueDiscipline::Priority | QueueDiscipline::PriorityPushout => {
                r.priority_classes = Some(self.priority_classes_or_default())
            }
            QueueDiscipline::DropTail | QueueDiscipline::Pfabric => {}
        }
        r
    }

    /// Checks what serde cannot: keys foreign to the kind or queue, impossible values.
    pub fn validate(&self) -> Result<(), ConfigError> {
        let kind = self.kind;
        for key in self.present_keys() {
            if !kind.keys().contains(&key) {
                return Err(ConfigError::new(
                    key,
                    format!(
                        "is not used by kind '{}'; its keys are: {}",
                        kind.as_str(),
                        kind.keys().join(", ")
                    ),
                ));
            }
        }
        self.check_routing_keys()?;
        let q = self.queue.as_str();
        ensure(
            self.ecn_threshold.is_none() || matches!(self.queue, QueueDiscipline::Ecn | QueueDiscipline::Priority),
            "ecn_threshold",
            format!("is only used by queue = \"ecn\" or \"priority\", not \"{q}\""),
        )?;
        ensure(
            self.priority_classes.is_none() || matches!(self.queue, QueueDiscipline::Priority | QueueDiscipline::PriorityPushout),
            "priority_classes",
            format!("is only used by queue = \"priority\" or \"priority_pushout\", not \"{q}\""),
        )?;
        ensure(
            self.link_rate > Rate::ZERO,
            "link_rate",
            "must be a positive rate like \"1Gbps\"",
        )?;
        ensure(
            self.mtu > 40,
            "mtu",
            format!("is {}; must exceed the 40-byte header", self.mtu),
        )?;
        ensure(
            self.buffer.0 >= self.mtu as u64,
            "buffer",
            format!(
                "is {}; must hold at least one MTU ({}B)",
                self.buffer, self.mtu
            ),
        )?;
        if let Some(c) = self.priority_classes {
            ensure(
                (1..=64).contains(&c),
                "priority_classes",
                format!("is {c}; must be 1..=64"),
            )?;
        }
        match self.shape() {
            Shape::Star { hosts } => {
                at_least(hosts, 2, "hosts")?;
                at_most_hosts(hosts as u64, "hosts")
            }
            Shape::Tree {
                racks,
                hosts_per_rack,
                core_link_rate,
            } => {
                at_least(racks, 1, "racks")?;
                at_least(hosts_per_rack, 1, "hosts_per_rack")?;
                ensure(
                    racks as u64 * hosts_per_rack as u64 >= 2,
                    "hosts_per_rack",
                    "a tree needs at least 2 hosts in all",
                )?;
                at_most_hosts(racks as u64 * hosts_per_rack as u64, "hosts_per_rack")?;
                ensure(
                    core_link_rate > Rate::ZERO,
                    "core_link_rate",
                    "must be a positive rate",
                )
            }
            Shape::LeafSpine {
                leaves,
                hosts_per_leaf,
                spines,
                spine_link_rate,
            } => {
                at_least(leaves, 1, "leaves")?;
                at_least(hosts_per_leaf, 1, "hosts_per_leaf")?;
                ensure(
                    leaves as u64 * hosts_per_leaf as u64 >= 2,
                    "hosts_per_leaf",
                    "a leaf-spine needs at least 2 hosts in all",
                )?;
                at_most_hosts(leaves as u64 * hosts_per_leaf as u64, "hosts_per_leaf")?;
                at_least(spines, 1, "spines")?;
                at_most_hosts(leaves as u64 * spines as u64, "spines")?;
                ensure(
                    spine_link_rate > Rate::ZERO,
                    "spine_link_rate",
                    "must be a positive rate",
                )
            }
            Shape::FatTree { k } => ensure(
                k >= 2 && k % 2 == 0 && k <= 64,
                "k",
                format!("is {k}; a fat tree needs an even k in 2..=64"),
            ),
            Shape::Bcube { n, k } => {
                at_least(n, 2, "n")?;
                ensure(
                    (n as u64).checked_pow(k + 1).is_some_and(|s| s <= 1 << 20),
                    "k",
                    format!("BCube({n},{k}) has more than 2^20 servers"),
                )
            }
            Shape::Jellyfish {
                switches,
                ports,
                hosts_per_switch,
            } => {
                at_least(switches, 2, "switches")?;
                at_least(hosts_per_switch, 1, "hosts_per_switch")?;
                at_most_hosts(switches as u64 * ports as u64, "ports")?;
                ensure(
                    ports > hosts_per_switch,
                    "ports",
                    format!("is {ports}; must exceed hosts_per_switch ({hosts_per_switch}) to leave network ports"),
                )?;
                ensure(
                    ports - hosts_per_switch < switches,
                    "ports",
                    format!(
                        "leaves {} network ports per switch but only {} other switches exist",
                        ports - hosts_per_switch,
                        switches - 1
                    ),
                )
            }
            Shape::Custom { nodes, links } => custom::validate(self, nodes, links),
        }
    }
}

/// The most hosts (or links between two tiers) a topology may have, as
/// for BCube: 2^20, a thousand times the largest the papers simulate, and
/// still a topology the engines build in a moment. A larger one (a typo,
/// a fuzzed value) would take the machine's memory before any error.
const MAX_HOSTS: u64 = 1 << 20;

fn at_most_hosts(n: u64, key: &str) -> Result<(), ConfigError> {
    ensure(n <= MAX_HOSTS, key, format!("gives {n} hosts or links in one tier; at most {MAX_HOSTS} (2^20)"))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn parse(s: &str) -> Result<TopologyConfig, String> {
        toml::from_str(s).map_err(|e| e.to_string())
    }

    #[test]
    fn empty_section_is_the_six_host_star_with_paper_defaults() {
        let c = parse("").unwrap();
        c.validate().unwrap();
        let r = c.resolved();
        assert_eq!(r.kind, TopologyKind::Star);
        assert_eq!(r.hosts, Some(6));
        assert_eq!(r.link_rate, Rate::gbps(1));
        assert_eq!(r.proc_delay, Dur::us(25));
        assert_eq!(r.prop_delay, Dur::ns(100));
        assert_eq!(r.buffer, Bytes::mb(4));
        assert_eq!(
            r.racks, None,
            "keys of other kinds stay out of the resolved config"
        );
        let shown = toml::to_string(&r).unwrap();
        assert!(
            shown.contains("hosts = 6") && shown.contains("proc_delay = \"25us\""),
            "{shown}"
        );
        // The resolved form parses back to itself.
        assert_eq!(parse(&shown).unwrap(), r);
    }

    #[test]
    fn resolved_custom_and_priority_configs_print_and_parse_back() {
        let c = parse(
            r#"kind = "custom"
            queue = "priority"
            nodes = [{name = "h0", kind = "host"}, {name = "h1", kind = "host"}, {name = "s", kind = "switch"}]
            links = [{a = "h0", b = "s", rate = "10Gbps"}, {a = "h1", b = "s"}]"#,
        )
        .unwrap();
        c.validate().unwrap();
        let r = c.resolved();
        assert_eq!(r.priority_classes, Some(8));
        assert_eq!(parse(&toml::to_string(&r).unwrap()).unwrap(), r);
    }

    #[test]
    fn tree_defaults_are_pdq_twelve_servers_and_core_rate_follows_link_rate() {
        let r = parse("kind = \"tree\"\nlink_rate = \"10Gbps\"")
            .unwrap()
            .resolved();
        assert_eq!((r.racks, r.hosts_per_rack), (Some(4), Some(3)));
        assert_eq!(r.core_link_rate, Some(Rate::gbps(10)));
    }

    #[test]
    fn ecn_threshold_defaults_follow_dctcp() {
        let c = parse("queue = \"ecn\"").unwrap();
        assert_eq!(c.resolved().ecn_threshold, Some(Bytes::kb(30)));
        let c = parse("queue = \"ecn\"\nlink_rate = \"10Gbps\"").unwrap();
        assert_eq!(c.resolved().ecn_threshold, Some(Bytes(97_500)));
    }

    #[test]
    fn keys_of_another_kind_are_named() {
        let e = parse("racks = 3").unwrap().validate().unwrap_err();
        assert_eq!(e.key, "racks");
        assert!(
            e.message.contains("not used by kind 'star'") && e.message.contains("hosts"),
            "{e}"
        );
        let e = parse("kind = \"fat_tree\"\nn = 4")
            .unwrap()
            .validate()
            .unwrap_err();
        assert_eq!(e.key, "n");
        let e = parse("ecn_threshold = \"10KB\"")
            .unwrap()
            .validate()
            .unwrap_err();
        assert_eq!(e.key, "ecn_threshold");
    }

    #[test]
    fn impossible_values_are_named() {
        let key = |s: &str| parse(s).unwrap().validate().unwrap_err().key;
        assert_eq!(key("hosts = 1"), "hosts");
        assert_eq!(key("kind = \"fat_tree\"\nk = 5"), "k");
        assert_eq!(key("link_rate = \"0Gbps\""), "link_rate");
        assert_eq!(key("mtu = 40"), "mtu");
        assert_eq!(
            key("kind = \"jellyfish\"\nports = 4\nhosts_per_switch = 4"),
            "ports"
        );
        assert_eq!(key("kind = \"custom\""), "nodes");
        let custom = r#"kind = "custom"
            nodes = [{name = "h0", kind = "host"}, {name = "h1", kind = "host"}, {name = "s", kind = "switch"}]
            links = [{a = "h0", b = "s"}, {a = "h1", b = "t"}]"#;
        assert_eq!(key(custom), "links[1].b");
    }

    #[test]
    fn serde_rejects_unknown_keys_kinds_and_units() {
        assert!(parse("kind = \"ring\"").unwrap_err().contains("fat_tree"));
        assert!(parse("hostz = 3").unwrap_err().contains("hostz"));
        assert!(parse("link_rate = \"1GB\"").unwrap_err().contains("bps"));
    }
}
