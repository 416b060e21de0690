//! The built network: nodes, directed links, names, and per-port queues.
//!
//! Hosts are nodes `0..hosts` in the order the topology defines (docs/architecture.md
//! contract), switches follow. Every physical link is two directed links with
//! adjacent ids, `2i` (a->b) and `2i+1` (b->a), so [`Topology::reverse`] is a
//! bit flip. Links are named `"from->to"` after their end nodes, which is what
//! `[monitor] links` refers to and what `dcflow topo` prints.

use crate::build;
use crate::config::{TopologyConfig, TopologyKind};
use crate::queue::{PortQueue, QueueDiscipline};
use dcflow_core::{Bytes, ConfigError, Dur, LinkId, NodeId, Rate};
use std::collections::{HashMap, VecDeque};
use std::fmt::Write;

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum NodeKind {
    Host,
    Switch,
}

#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Node {
    pub name: String,
    pub kind: NodeKind,
}

/// One direction of a physical link; `buffer` is the queue of the output port at `from`.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Link {
    pub name: String,
    pub from: NodeId,
    pub to: NodeId,
    pub rate: Rate,
    pub prop_delay: Dur,
    pub buffer: Bytes,
}

/// BCube(n,k) parameters, kept for BCube's own multipath construction.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct BcubeShape {
    pub n: u32,
    pub k: u32,
}

#[derive(Clone, Debug)]
pub struct Topology {
    pub kind: TopologyKind,
    /// Hosts are nodes `0..hosts`.
    pub hosts: usize,
    pub nodes: Vec<Node>,
    pub links: Vec<Link>,
    /// Directed links leaving each node, in increasing id order.
    pub out_links: Vec<Vec<LinkId>>,
    pub proc_delay: Dur,
    pub mtu: u32,
    /// `Some` for BCube, whose servers relay packets.
    pub bcube: Option<BcubeShape>,
    queue: QueueDiscipline,
    ecn_threshold: Bytes,
    /// `queue = "priority"` with `ecn_threshold` given: the port's marking threshold.
    priority_marking: Option<Bytes>,
    priority_classes: u32,
    bottleneck: LinkId,
    by_name: HashMap<String, LinkId>,
}

impl Topology {
    /// Validates `cfg` and builds the network; `seed` only matters for jellyfish.
    pub fn build(cfg: &TopologyConfig, seed: u64) -> Result<Topology, ConfigError> {
        cfg.validate()?;
        let cfg = cfg.resolved();
        let net = build::build(&cfg, seed)?;
        let mut out_links = vec![Vec::new(); net.nodes.len()];
        for (id, l) in net.links.iter().enumerate() {
            out_links[l.from as usize].push(id as LinkId);
        }
        let by_name = net
            .links
            .iter()
            .enumerate()
            .map(|(i, l)| (l.name.clone(), i as LinkId))
            .collect();
        // The link into host 0 from its first neighbour: the receiver link of an
        // aggregation towards host 0, the bottleneck of the star experiments.
        let bottleneck = out_links[0].first().map(|&l| l ^ 1).ok_or_else(|| {
            ConfigError::new(
                if cfg.kind == TopologyKind::Custom {
                    "links"
                } else {
                    "kind"
                },
                "host 0 has no link",
            )
        })?;
        let topo = Topology {
            kind: cfg.kind,
            hosts: net.hosts,
            nodes: net.nodes,
            links: net.links,
            out_links,
            proc_delay: cfg.proc_delay,
            mtu: cfg.mtu,
            bcube: net.bcube,
            queue: cfg.queue,
            ecn_threshold: cfg.ecn_threshold_or_default(),
            priority_marking: cfg.ecn_threshold.filter(|_| cfg.queue == QueueDiscipline::Priority),
            priority_classes: cfg.priority_classes_or_default(),
            bottleneck,
            by_name,
        };
        if let Some(h) = topo.unreachable_host() {
            // Only a sparse random graph or a custom link list can be disconnected.
            let key = match cfg.kind {
                TopologyKind::Custom => "links",
                TopologyKind::Jellyfish => "ports",
                _ => "kind",
            };
            let hint = if key == "ports" {
                "; leave more network ports (ports - hosts_per_switch >= 3)"
            } else {
                ""
            };
            return Err(ConfigError::new(
                key,
                format!(
                    "host {} is not reachable from host 0{hint}",
                    topo.nodes[h].name
                ),
            ));
        }
        Ok(topo)
    }

    /// Whether `node` forwards packets that are not its own: switches, and BCube servers.
    pub fn forwards(&self, node: NodeId) -> bool {
        self.nodes[node as usize].kind == NodeKind::Switch || self.bcube.is_some()
    }

    /// Delay a packet spends in `node` when `node` forwards it (not at its source
    /// or destination). Switches add `proc_delay`; so do BCube servers, whose
    /// relaying runs in the server's forwarding engine (Guo et al. §6), which we
    /// charge like a switch hop rather than invent a separate parameter.
    pub fn proc_delay_at(&self, node: NodeId) -> Dur {
        if self.forwards(node) {
            self.proc_delay
        } else {
            Dur::ZERO
        }
    }

    /// The other direction of the same physical link.
    pub fn reverse(&self, link: LinkId) -> LinkId {
        link ^ 1
    }

    /// The link into host 0 from its first-hop neighbour: for a star, the
    /// switch's port to host 0 (the aggregator's receiver link); for BCube, the
    /// level-0 switch's port to server 0.
    pub fn bottleneck(&self) -> LinkId {
        self.bottleneck
    }

    /// A link by its `"from->to"` name, or `"bottleneck"` for [`Topology::bottleneck`].
    pub fn link_by_name(&self, name: &str) -> Option<LinkId> {
        if name == "bottleneck" {
            return Some(self.bottleneck);
        }
        self.by_name.get(name).copied()
    }

    /// A fresh, empty queue for the output port of `link`, per the `queue` key.
    pub fn port_queue(&self, link: LinkId) -> PortQueue {
        let cap = self.links[link as usize].buffer;
        match self.queue {
            QueueDiscipline::DropTail => PortQueue::drop_tail(cap),
            QueueDiscipline::Ecn => PortQueue::ecn(cap, self.ecn_threshold),
            QueueDiscipline::Priority => PortQueue::priority_marking(cap, self.priority_classes, self.priority_marking),
            QueueDiscipline::Pfabric => PortQueue::pfabric(cap, self.mtu),
            QueueDiscipline::PriorityPushout => PortQueue::priority_pushout(cap, self.mtu, self.priority_classes),
        }
    }

    pub fn switches(&self) -> usize {
        self.nodes.len() - self.hosts
    }

    /// What `dcflow topo` prints: counts, node names, and every link with its parameters.
    pub fn describe(&self) -> String {
        let mut s = String::new();
        let _ = writeln!(
            s,
            "{}: {} hosts, {} switches, {} links ({} directed); proc_delay {}, mtu {}B, queue {}",
            self.kind.as_str(),
            self.hosts,
            self.switches(),
            self.links.len() / 2,
            self.links.len(),
            self.proc_delay,
            self.mtu,
            self.queue.as_str(),
        );
        let names = |range: std::ops::Range<usize>| -> String {
            let mut out = String::new();
            let mut col = 0;
            for n in &self.nodes[range] {
                if col > 0 && col + n.name.len() > 96 {
                    out.push_str("\n ");
                    col = 0;
                }
                out.push(' ');
                out.push_str(&n.name);
                col += n.name.len() + 1;
            }
            out
        };
        let _ = writeln!(s, "hosts (0..{}):{}", self.hosts, names(0..self.hosts));
        let _ = writeln!(s, "switches:{}", names(self.hosts..self.nodes.len()));
        let _ = writeln!(
            s,
            "bottleneck = {}",
            self.links[self.bottleneck as usize].name
        );
        let _ = writeln!(s, "links (each direction; rate, prop_delay, buffer):");
        for pair in self.links.chunks(2) {
            let (a, b) = (&pair[0], &pair[1]);
            let _ = writeln!(
                s,
                "  {} / {}  {} {} {}",
                a.name, b.name, a.rate, a.prop_delay, a.buffer
            );
        }
        s
    }

    /// A host that cannot be reached from host 0 through forwarding nodes, if any.
    fn unreachable_host(&self) -> Option<usize> {
        let mut seen = vec![false; self.nodes.len()];
        seen[0] = true;
        let mut todo = VecDeque::from([0 as NodeId]);
        while let Some(u) = todo.pop_front() {
            if u != 0 && !self.forwards(u) {
                continue;
            }
            for &l in &self.out_links[u as usize] {
                let v = self.links[l as usize].to;
                if !std::mem::replace(&mut seen[v as usize], true) {
                    todo.push_back(v);
                }
            }
        }
        (0..self.hosts).find(|&h| !seen[h])
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn topo(s: &str) -> Topology {
        Topology::build(&toml::from_str(s).unwrap(), 1).unwrap()
    }

    fn physical(t: &Topology) -> usize {
        t.links.len() / 2
    }

    #[test]
    fn counts_match_the_papers() {
        let t = topo("");
        assert_eq!((t.hosts, t.switches(), physical(&t)), (6, 1, 6));
        let t = topo("kind = \"tree\"");
        assert_eq!((t.hosts, t.switches(), physical(&t)), (12, 5, 16));
        let t =
            topo("kind = \"tree\"\nracks = 10\nhosts_per_rack = 40\ncore_link_rate = \"10Gbps\"");
        assert_eq!((t.hosts, t.switches()), (400, 11));
        // Al-Fares: k^3/4 hosts, k^2/2 pod switches + (k/2)^2 cores, 3 * k^3/4 links.
        let t = topo("kind = \"fat_tree\"\nk = 4");
        assert_eq!((t.hosts, t.switches(), physical(&t)), (16, 20, 48));
        let t = topo("kind = \"fat_tree\"\nk = 16");
        assert_eq!((t.hosts, t.nodes.len()), (1024, 1344));
        // BCube(4,1): 16 servers, 2 levels of 4 switches, 2 ports per server.
        let t = topo("kind = \"bcube\"\nn = 4\nk = 1");
        assert_eq!((t.hosts, t.switches(), physical(&t)), (16, 8, 32));
        let t = topo("kind = \"leaf_spine\"\nleaves = 3\nhosts_per_leaf = 5\nspines = 2");
        assert_eq!((t.hosts, t.switches(), physical(&t)), (15, 5, 21));
    }

    #[test]
    fn hosts_come_first_and_links_pair_up() {
        for s in [
            "",
            "kind = \"tree\"",
            "kind = \"fat_tree\"",
            "kind = \"bcube\"",
            "kind = \"jellyfish\"",
        ] {
            let t = topo(s);
            assert!(
                t.nodes[..t.hosts].iter().all(|n| n.kind == NodeKind::Host),
                "{s}"
            );
            assert!(
                t.nodes[t.hosts..]
                    .iter()
                    .all(|n| n.kind == NodeKind::Switch),
                "{s}"
            );
            for (i, l) in t.links.iter().enumerate() {
                let r = &t.links[t.reverse(i as LinkId) as usize];
                assert_eq!((r.from, r.to), (l.to, l.from));
                assert_eq!(t.link_by_name(&l.name), Some(i as LinkId));
            }
        }
    }

    #[test]
    fn names_and_bottleneck_alias() {
        let t = topo("");
        assert_eq!(
            t.links[t.link_by_name("bottleneck").unwrap() as usize].name,
            "sw->h0"
        );
        assert!(t.link_by_name("h3->sw").is_some());
        let t = topo("kind = \"tree\"\ncore_link_rate = \"10Gbps\"");
        let up = t.link_by_name("tor1->root").unwrap();
        assert_eq!(t.links[up as usize].rate, Rate::gbps(10));
        assert_eq!(
            t.links[t.link_by_name("h3->tor1").unwrap() as usize].rate,
            Rate::gbps(1)
        );
        assert_eq!(t.links[t.bottleneck() as usize].name, "tor0->h0");
        let d = t.describe();
        assert!(d.starts_with("tree: 12 hosts, 5 switches, 16 links"), "{d}");
        assert!(
            d.contains("tor1->root / root->tor1  10Gbps 100ns 4MB"),
            "{d}"
        );
    }

    #[test]
    fn processing_delay_at_switches_and_bcube_relays_only() {
        let t = topo("");
        assert_eq!(t.proc_delay_at(0), Dur::ZERO);
        assert_eq!(t.proc_delay_at(6), Dur::us(25));
        let t = topo("kind = \"bcube\"");
        assert_eq!(t.proc_delay_at(3), Dur::us(25));
    }

    #[test]
    fn custom_topology_orders_hosts_first_and_takes_per_link_overrides() {
        let t = topo(
            r#"kind = "custom"
            nodes = [{name = "s", kind = "switch"}, {name = "a", kind = "host"}, {name = "b", kind = "host"}]
            links = [{a = "a", b = "s", rate = "10Gbps"}, {a = "s", b = "b", prop_delay = "1us"}]"#,
        );
        let names: Vec<&str> = t.nodes.iter().map(|n| n.name.as_str()).collect();
        assert_eq!(names, ["a", "b", "s"]);
        assert_eq!(
            t.links[t.link_by_name("s->a").unwrap() as usize].rate,
            Rate::gbps(10)
        );
        assert_eq!(
            t.links[t.link_by_name("b->s").unwrap() as usize].prop_delay,
            Dur::us(1)
        );
        assert_eq!(t.links[t.bottleneck() as usize].name, "s->a");
    }

    #[test]
    fn disconnected_custom_topology_is_an_error() {
        let cfg = toml::from_str(
            r#"kind = "custom"
            nodes = [{name = "a", kind = "host"}, {name = "b", kind = "host"}, {name = "s", kind = "switch"}]
            links = [{a = "a", b = "s"}]"#,
        )
        .unwrap();
        assert_eq!(Topology::build(&cfg, 1).unwrap_err().key, "links");
    }

    #[test]
    fn port_queue_follows_the_queue_key() {
        use crate::queue::{QEntry, Verdict};
        let t = topo("queue = \"ecn\"\necn_threshold = \"1500B\"\nbuffer = \"100KB\"");
        let mut q = t.port_queue(t.bottleneck());
        let e = QEntry {
            pkt: 0,
            wire: 1500,
            prio: 0,
            flow: 0,
        };
        q.enqueue(e);
        q.enqueue(e);
        assert_eq!(q.enqueue(e), Verdict::Accepted { mark_ce: true });
    }
}
