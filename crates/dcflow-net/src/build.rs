//! Topology generators: one function per `kind`, each emitting hosts first,
//! then switches, then physical links as directed pairs.

use crate::config::{Shape, TopologyConfig};
use crate::custom::{CustomLink, CustomNode, CustomNodeKind};
use crate::topology::{BcubeShape, Link, Node, NodeKind};
use dcflow_core::rng::{component, stream};
use dcflow_core::{Bytes, ConfigError, Dur, NodeId, Rate};
use rand::RngExt;
use std::collections::{HashMap, HashSet};

/// Nodes and links before indexing.
pub(crate) struct Net {
    pub hosts: usize,
    pub nodes: Vec<Node>,
    pub links: Vec<Link>,
    pub bcube: Option<BcubeShape>,
}

struct Builder<'c> {
    cfg: &'c TopologyConfig,
    net: Net,
}

impl Builder<'_> {
    fn new(cfg: &TopologyConfig, hosts: impl IntoIterator<Item = String>) -> Builder<'_> {
        let nodes: Vec<Node> = hosts
            .into_iter()
            .map(|name| Node {
                name,
                kind: NodeKind::Host,
            })
            .collect();
        let hosts = nodes.len();
        Builder {
            cfg,
            net: Net {
                hosts,
                nodes,
                links: Vec::new(),
                bcube: None,
            },
        }
    }

    fn numbered_hosts(cfg: &TopologyConfig, count: u32) -> Builder<'_> {
        Builder::new(cfg, (0..count).map(|i| format!("h{i}")))
    }

    fn switch(&mut self, name: String) -> NodeId {
        self.net.nodes.push(Node {
            name,
            kind: NodeKind::Switch,
        });
        (self.net.nodes.len() - 1) as NodeId
    }

    /// A physical link at the common delay and buffer.
    fn connect(&mut self, a: NodeId, b: NodeId, rate: Rate) {
        self.connect_with(a, b, rate, self.cfg.prop_delay, self.cfg.buffer);
    }

    fn connect_with(&mut self, a: NodeId, b: NodeId, rate: Rate, prop_delay: Dur, buffer: Bytes) {
        for (from, to) in [(a, b), (b, a)] {
            let name = format!(
                "{}->{}",
                self.net.nodes[from as usize].name, self.net.nodes[to as usize].name
            );
            self.net.links.push(Link {
                name,
                from,
                to,
                rate,
                prop_delay,
                buffer,
            });
        }
    }
}

pub(crate) fn build(cfg: &TopologyConfig, seed: u64) -> Result<Net, ConfigError> {
    let rate = cfg.link_rate;
    Ok(match cfg.shape() {
        Shape::Star { hosts } => {
            let mut b = Builder::numbered_hosts(cfg, hosts);
            let sw = b.switch("sw".into());
            for h in 0..hosts {
                b.connect(h, sw, rate);
            }
            b.net
        }
        Shape::Tree {
            racks,
            hosts_per_rack,
            core_link_rate,
        } => two_tier(
            cfg,
            racks,
            hosts_per_rack,
            &["root".to_string()],
            "tor",
            core_link_rate,
        ),
        Shape::LeafSpine {
            leaves,
            hosts_per_leaf,
            spines,
            spine_link_rate,
        } => {
            let spine_names: Vec<String> = (0..spines).map(|s| format!("spine{s}")).collect();
            two_tier(
                cfg,
                leaves,
                hosts_per_leaf,
                &spine_names,
                "leaf",
                spine_link_rate,
            )
        }
        Shape::FatTree { k } => fat_tree(cfg, k),
        Shape::Bcube { n, k } => bcube(cfg, n, k),
        Shape::Jellyfish {
            switches,
            ports,
            hosts_per_switch,
        } => jellyfish(
            cfg,
            switches,
            ports - hosts_per_switch,
            hosts_per_switch,
            seed,
        ),
        Shape::Custom { nodes, links } => custom(cfg, nodes, links),
    })
}

/// Racks of hosts under edge switches, every edge switch linked to every top
/// switch: the single-rooted tree of PDQ §5 / D3 §6 (one top switch) and a
/// leaf-spine Clos (several).
fn two_tier(
    cfg: &TopologyConfig,
    racks: u32,
    per_rack: u32,
    tops: &[String],
    edge: &str,
    up_rate: Rate,
) -> Net {
    let mut b = Builder::numbered_hosts(cfg, racks * per_rack);
    let edges: Vec<NodeId> = (0..racks).map(|r| b.switch(format!("{edge}{r}"))).collect();
    let tops: Vec<NodeId> = tops.iter().map(|t| b.switch(t.clone())).collect();
    for h in 0..racks * per_rack {
        b.connect(h, edges[(h / per_rack) as usize], cfg.link_rate);
    }
    for &e in &edges {
        for &t in &tops {
            b.connect(e, t, up_rate);
        }
    }
    b.net
}

/// The k-ary fat tree of Al-Fares et al. (SIGCOMM'08, §3): k pods, each with k/2
/// edge and k/2 aggregation switches; each edge switch serves k/2 hosts; core
/// switch `i*(k/2)+j` links to aggregation switch `i` of every pod (on its port j).
fn fat_tree(cfg: &TopologyConfig, k: u32) -> Net {
    let h = k / 2;
    let mut b = Builder::numbered_hosts(cfg, k * h * h);
    let mut edge = Vec::new();
    let mut agg = Vec::new();
    for p in 0..k {
        edge.push(
            (0..h)
                .map(|j| b.switch(format!("edge{p}_{j}")))
                .collect::<Vec<_>>(),
        );
        agg.push(
            (0..h)
                .map(|j| b.switch(format!("agg{p}_{j}")))
                .collect::<Vec<_>>(),
        );
    }
    let core: Vec<NodeId> = (0..h * h).map(|c| b.switch(format!("core{c}"))).collect();
    let rate = cfg.link_rate;
    for host in 0..k * h * h {
        b.connect(
            host,
            edge[(host / (h * h)) as usize][(host / h % h) as usize],
            rate,
        );
    }
    for p in 0..k as usize {
        for &e in &edge[p] {
            for &a in &agg[p] {
                b.connect(e, a, rate);
            }
        }
    }
    for (c, &cs) in core.iter().enumerate() {
        for pod in &agg {
            b.connect(pod[c / h as usize], cs, rate);
        }
    }
    b.net
}

/// The level-`l` switch index that server `s` attaches to in BCube(n,k): its
/// address with digit `l` removed (Guo et al., SIGCOMM'09, §3.1).
pub(crate) fn bcube_switch_index(n: u32, l: u32, s: u32) -> u32 {
    let low = n.pow(l);
    (s / (low * n)) * low + s % low
}

/// BCube(n,k): n^(k+1) servers with k+1 ports; level l has n^k n-port switches,
/// each joining the n servers that differ only in address digit l. Server s's
/// out-links are ordered by level.
fn bcube(cfg: &TopologyConfig, n: u32, k: u32) -> Net {
    let servers = n.pow(k + 1);
    let per_level = n.pow(k);
    let mut b = Builder::numbered_hosts(cfg, servers);
    for l in 0..=k {
        for j in 0..per_level {
            b.switch(format!("sw{l}_{j}"));
        }
    }
    for s in 0..servers {
        for l in 0..=k {
            b.connect(
                s,
                servers + l * per_level + bcube_switch_index(n, l, s),
                cfg.link_rate,
            );
        }
    }
    b.net.bcube = Some(BcubeShape { n, k });
    b.net
}

/// Jellyfish (Singla et al., NSDI'12, §3): a random `degree`-regular graph among
/// switches, built by joining random pairs of switches that have free ports and
/// are not yet neighbours; when no such pair is left but a switch still has two
/// free ports, a random link (x,y) is removed and the switch joined to x and y
/// (the paper's step; we apply it also to two neighbouring switches with one
/// free port each). If `switches * degree` is odd one port stays free. Host `i` hangs off switch
/// `i / hosts_per_switch`. Draws come from the TOPOLOGY stream of `seed`.
fn jellyfish(cfg: &TopologyConfig, switches: u32, degree: u32, per_switch: u32, seed: u64) -> Net {
    let mut rng = stream(seed, component::TOPOLOGY);
    let n = switches as usize;
    let mut free = vec![degree; n];
    let mut adj: Vec<HashSet<usize>> = vec![HashSet::new(); n];
    let mut edges: Vec<(usize, usize)> = Vec::new();
    fn join(
        a: usize,
        b: usize,
        free: &mut [u32],
        adj: &mut [HashSet<usize>],
        edges: &mut Vec<(usize, usize)>,
    ) {
        free[a] -= 1;
        free[b] -= 1;
        adj[a].insert(b);
        adj[b].insert(a);
        edges.push((a.min(b), a.max(b)));
    }
    loop {
        let open: Vec<usize> = (0..n).filter(|&s| free[s] > 0).collect();
        // Rejection sampling draws uniformly among eligible pairs, like the full
        // enumeration below, but in O(1) while most pairs are eligible.
        let mut pick = None;
        for _ in 0..64 {
            if open.len() < 2 {
                break;
            }
            let (a, b) = (
                open[rng.random_range(0..open.len())],
                open[rng.random_range(0..open.len())],
            );
            if a != b && !adj[a].contains(&b) {
                pick = Some((a, b));
                break;
            }
        }
        if pick.is_none() {
            let pairs: Vec<(usize, usize)> = open
                .iter()
                .enumerate()
                .flat_map(|(i, &a)| open[i + 1..].iter().map(move |&b| (a, b)))
                .filter(|&(a, b)| !adj[a].contains(&b))
                .collect();
            if !pairs.is_empty() {
                pick = Some(pairs[rng.random_range(0..pairs.len())]);
            }
        }
        if let Some((a, b)) = pick {
            join(a, b, &mut free, &mut adj, &mut edges);
            continue;
        }
        // Stuck: switch p has two free ports, or p and q one each but are
        // already neighbours. Break a random link (x,y) to join p-x and q-y.
        let Some(&p) = open.first() else { break };
        let q = if free[p] >= 2 {
            p
        } else {
            match open.get(1) {
                Some(&q) => q,
                None => break,
            }
        };
        let swappable: Vec<(usize, usize)> = edges
            .iter()
            .flat_map(|&(x, y)| [(x, y), (y, x)])
            .filter(|&(x, y)| {
                ![p, q].contains(&x)
                    && ![p, q].contains(&y)
                    && !adj[p].contains(&x)
                    && !adj[q].contains(&y)
            })
            .collect();
        if swappable.is_empty() {
            break;
        }
        let (x, y) = swappable[rng.random_range(0..swappable.len())];
        let e = edges
            .iter()
            .position(|&e| e == (x.min(y), x.max(y)))
            .expect("edge listed");
        edges.swap_remove(e);
        adj[x].remove(&y);
        adj[y].remove(&x);
        free[x] += 1;
        free[y] += 1;
        join(p, x, &mut free, &mut adj, &mut edges);
        join(q, y, &mut free, &mut adj, &mut edges);
    }
    edges.sort_unstable();
    let mut b = Builder::numbered_hosts(cfg, switches * per_switch);
    let first = b.net.hosts as NodeId;
    for s in 0..switches {
        b.switch(format!("sw{s}"));
    }
    for h in 0..switches * per_switch {
        b.connect(h, first + h / per_switch, cfg.link_rate);
    }
    for (x, y) in edges {
        b.connect(first + x as NodeId, first + y as NodeId, cfg.link_rate);
    }
    b.net
}

/// Hosts in list order, then switches in list order; links in list order.
fn custom(cfg: &TopologyConfig, nodes: &[CustomNode], links: &[CustomLink]) -> Net {
    let is_host = |n: &&CustomNode| n.kind == CustomNodeKind::Host;
    let mut b = Builder::new(cfg, nodes.iter().filter(is_host).map(|n| n.name.clone()));
    for n in nodes.iter().filter(|n| !is_host(n)) {
        b.switch(n.name.clone());
    }
    let id: HashMap<String, NodeId> = b
        .net
        .nodes
        .iter()
        .enumerate()
        .map(|(i, n)| (n.name.clone(), i as NodeId))
        .collect();
    for l in links {
        b.connect_with(
            id[&l.a],
            id[&l.b],
            l.rate.unwrap_or(cfg.link_rate),
            l.prop_delay.unwrap_or(cfg.prop_delay),
            l.buffer.unwrap_or(cfg.buffer),
        );
    }
    b.net
}

#[cfg(test)]
mod tests {
    use super::*;

    fn jelly(seed: u64, switches: u32, ports: u32) -> Net {
        let cfg = TopologyConfig {
            kind: crate::config::TopologyKind::Jellyfish,
            switches: Some(switches),
            ports: Some(ports),
            hosts_per_switch: Some(2),
            ..TopologyConfig::default()
        };
        build(&cfg, seed).unwrap()
    }

    fn switch_edges(net: &Net) -> Vec<(NodeId, NodeId)> {
        let h = net.hosts as NodeId;
        net.links
            .iter()
            .filter(|l| l.from >= h && l.to >= h)
            .map(|l| (l.from, l.to))
            .collect()
    }

    #[test]
    fn jellyfish_is_simple_regular_and_seeded() {
        let a = jelly(1, 30, 8);
        let mut degree = vec![0; a.nodes.len()];
        for (from, _) in switch_edges(&a) {
            degree[from as usize] += 1;
        }
        assert!(degree[a.hosts..].iter().all(|&d| d == 6), "{degree:?}");
        let distinct: HashSet<_> = switch_edges(&a).into_iter().collect();
        assert_eq!(distinct.len(), 30 * 6, "no parallel links");
        assert!(
            switch_edges(&a).iter().all(|(x, y)| x != y),
            "no self loops"
        );
        assert_eq!(switch_edges(&a), switch_edges(&jelly(1, 30, 8)));
        assert_ne!(switch_edges(&a), switch_edges(&jelly(2, 30, 8)));
    }

    #[test]
    fn jellyfish_fixup_reaches_full_degree_on_dense_graphs() {
        // Degree 8 on 10 switches: pairing alone often gets stuck; the swap step finishes it.
        for seed in 0..20 {
            let net = jelly(seed, 10, 10);
            assert_eq!(switch_edges(&net).len(), 10 * 8, "seed {seed}");
        }
    }

    #[test]
    fn bcube_switch_index_drops_one_digit() {
        // BCube(4,1): server 13 = digits (3,1); level 0 switch = 3, level 1 switch = 1.
        assert_eq!(bcube_switch_index(4, 0, 13), 3);
        assert_eq!(bcube_switch_index(4, 1, 13), 1);
        // BCube(3,2): server 21 = digits (2,1,0); level 1 removes the middle digit -> (2,0) = 6.
        assert_eq!(bcube_switch_index(3, 1, 21), 6);
    }

    #[test]
    fn fat_tree_hosts_attach_in_order() {
        let cfg = TopologyConfig {
            kind: crate::config::TopologyKind::FatTree,
            ..TopologyConfig::default()
        };
        let net = build(&cfg, 0).unwrap();
        let edge_of = |h: usize| &net.nodes[net.links[2 * h].to as usize].name;
        assert_eq!(
            (
                edge_of(0).as_str(),
                edge_of(1).as_str(),
                edge_of(2).as_str()
            ),
            ("edge0_0", "edge0_0", "edge0_1")
        );
        assert_eq!(edge_of(15), "edge3_1");
    }
}
