//! Shortest-path routing: per-flow ECMP, single path, and multipath sets.
//!
//! Distances to each destination host are computed by BFS the first time that
//! destination is asked for and kept as one `u16` per node (fat_tree k=16:
//! 1344 nodes x 2 bytes per destination), so a path lookup costs O(path length x
//! degree) and memory grows only with the destinations actually used. Hosts
//! never carry transit traffic except in BCube, where servers are the relays.

use crate::policy::{ecmp_index, RoutingMode};
use crate::topology::{BcubeShape, Topology};
use dcflow_core::rng::component;
use dcflow_core::{mix64, LinkId, NodeId};
use std::collections::{HashMap, VecDeque};
use std::sync::OnceLock;

const UNREACHABLE: u16 = u16::MAX;

/// The next hops of every node towards one destination: node `v`'s are
/// `hops[start[v]..start[v + 1]]`.
#[derive(Debug)]
struct HopTable {
    start: Box<[u32]>,
    hops: Box<[(LinkId, NodeId)]>,
}

#[derive(Debug)]
pub struct Routes {
    mode: RoutingMode,
    salt: u64,
    /// Out-links of each node with the node they lead to, in link id order.
    adj: Vec<Vec<(LinkId, NodeId)>>,
    /// Whether a node may carry transit traffic.
    forwards: Vec<bool>,
    /// Hop distance from every node to destination host `d`, filled on first use.
    dist: Vec<OnceLock<Box<[u16]>>>,
    /// The next hops of every node towards destination host `d`, filled on
    /// first use by hop-by-hop routing only ([`Routes::candidates`]): the
    /// packet engine asks at every hop of every packet, and a table read is
    /// cheaper than filtering the node's out-links each time. Per-flow paths
    /// do not build it, so large flow-level runs pay nothing for it.
    hops: Vec<OnceLock<HopTable>>,
    bcube: Option<BcubeShape>,
}

impl Routes {
    /// `seed` salts the ECMP hash, so that two seeds spread the same flows differently.
    pub fn new(topo: &Topology, mode: RoutingMode, seed: u64) -> Routes {
        Routes::without(topo, mode, seed, &[])
    }

    /// The routes once routing has converged around failed links: links
    /// with `down[l]` are left out (a shorter `down` leaves the rest up).
    pub fn without(topo: &Topology, mode: RoutingMode, seed: u64, down: &[bool]) -> Routes {
        let up = |l: LinkId| !down.get(l as usize).copied().unwrap_or(false);
        let adj = topo
            .out_links
            .iter()
            .map(|ls| ls.iter().filter(|&&l| up(l)).map(|&l| (l, topo.links[l as usize].to)).collect())
            .collect();
        Routes {
            mode,
            salt: mix64(seed ^ mix64(component::ROUTING)),
            adj,
            forwards: (0..topo.nodes.len() as NodeId)
                .map(|n| topo.forwards(n))
                .collect(),
            dist: (0..topo.hosts).map(|_| OnceLock::new()).collect(),
            hops: (0..topo.hosts).map(|_| OnceLock::new()).collect(),
            bcube: topo.bcube,
        }
    }

    fn dist_to(&self, dst: NodeId) -> &[u16] {
        self.dist[dst as usize].get_or_init(|| {
            let mut d = vec![UNREACHABLE; self.adj.len()].into_boxed_slice();
            d[dst as usize] = 0;
            let mut todo = VecDeque::from([dst]);
            // Links come in symmetric pairs, so distances along out-links equal
            // distances along the reversed links towards `dst`.
            while let Some(u) = todo.pop_front() {
                if u != dst && !self.forwards[u as usize] {
                    continue;
                }
                for &(_, v) in &self.adj[u as usize] {
                    if d[v as usize] == UNREACHABLE {
                        d[v as usize] = d[u as usize] + 1;
                        todo.push_back(v);
                    }
                }
            }
            d
        })
    }

    /// Next hops from `cur` on shortest paths to `dst`.
    fn next_hops<'a>(
        &'a self,
        d: &'a [u16],
        cur: NodeId,
        dst: NodeId,
    ) -> impl Iterator<Item = (LinkId, NodeId)> + 'a {
        let want = d[cur as usize].wrapping_sub(1);
        self.adj[cur as usize]
            .iter()
            .copied()
            .filter(move |&(_, v)| d[v as usize] == want && (v == dst || self.forwards[v as usize]))
    }

    /// The next hops from switch `cur` on shortest paths to host `dst`, in
    /// link id order (empty when `dst` cannot be reached from `cur`).
    #[inline]
    pub fn candidates(&self, cur: NodeId, dst: NodeId) -> &[(LinkId, NodeId)] {
        let t = self.hops[dst as usize].get_or_init(|| {
            let d = self.dist_to(dst);
            let mut start = Vec::with_capacity(self.adj.len() + 1);
            let mut hops = Vec::new();
            for cur in 0..self.adj.len() as NodeId {
                start.push(hops.len() as u32);
                if d[cur as usize] != UNREACHABLE && cur != dst {
                    hops.extend(self.next_hops(d, cur, dst));
                }
            }
            start.push(hops.len() as u32);
            HopTable { start: start.into_boxed_slice(), hops: hops.into_boxed_slice() }
        });
        &t.hops[t.start[cur as usize] as usize..t.start[cur as usize + 1] as usize]
    }

    /// The salt of the ECMP hash (what [`ecmp_index`] takes).
    pub fn salt(&self) -> u64 {
        self.salt
    }

    /// Whether some host pair has two or more shortest paths: what a
    /// routing policy needs to have anything to choose.
    pub fn has_multipath(&self, hosts: usize) -> bool {
        (0..hosts as NodeId).any(|dst| {
            let d = self.dist_to(dst);
            (0..self.adj.len() as NodeId)
                .any(|v| d[v as usize] != UNREACHABLE && v != dst && self.next_hops(d, v, dst).nth(1).is_some())
        })
    }

    /// Hops on a shortest path from `src` to `dst` (None if unreachable).
    pub fn hops(&self, src: NodeId, dst: NodeId) -> Option<usize> {
        let d = self.dist_to(dst)[src as usize];
        (d != UNREACHABLE).then_some(d as usize)
    }

    /// The directed links a flow takes from host `src` to host `dst`. ECMP hashes
    /// (`flow_hash`, node) at every hop to choose among the equal-cost next hops,
    /// so one flow always takes one path and flows spread over all paths;
    /// `single` takes the lowest-numbered next hop. ACKs use `path(dst, src, h)`.
    pub fn path(&self, src: NodeId, dst: NodeId, flow_hash: u64) -> Vec<LinkId> {
        self.try_path(src, dst, flow_hash).unwrap_or_else(|| panic!("no route from node {src} to node {dst}"))
    }

    /// As [`Routes::path`], `None` when `dst` cannot be reached (after failures).
    /// The adaptive policies' reference path is their ECMP path.
    pub fn try_path(&self, src: NodeId, dst: NodeId, flow_hash: u64) -> Option<Vec<LinkId>> {
        let d = self.dist_to(dst);
        if d[src as usize] == UNREACHABLE {
            return None;
        }
        let mut out = Vec::with_capacity(d[src as usize] as usize);
        let mut cur = src;
        while cur != dst {
            let pick = match self.mode {
                RoutingMode::Single => 0,
                _ => ecmp_index(self.salt, flow_hash, cur, self.next_hops(d, cur, dst).count()),
            };
            let (l, v) = self
                .next_hops(d, cur, dst)
                .nth(pick)
                .expect("BFS leaves a next hop");
            out.push(l);
            cur = v;
        }
        Some(out)
    }

    /// Up to `max` distinct paths from `src` to `dst` for multipath transports
    /// (M-PDQ, MEMR). BCube uses its own k+1 parallel paths (Guo et al.,
    /// SIGCOMM'09, §4.1, BuildPathSet), some of which are two hops longer than
    /// shortest. Elsewhere they are shortest paths chosen greedily to share as
    /// few links as possible with the paths already chosen (link-disjoint
    /// wherever the topology allows), then distinct ECMP paths.
    pub fn paths(&self, src: NodeId, dst: NodeId, max: usize) -> Vec<Vec<LinkId>> {
        if src == dst || max == 0 {
            return Vec::new();
        }
        if let Some(shape) = self.bcube {
            let mut p = bcube_paths(shape, src, dst);
            p.truncate(max);
            return p;
        }
        let d = self.dist_to(dst);
        let mut used: HashMap<LinkId, u32> = HashMap::new();
        let mut out: Vec<Vec<LinkId>> = Vec::new();
        while out.len() < max {
            let p = self.least_shared_path(d, src, dst, &used);
            if out.contains(&p) {
                break;
            }
            for &l in &p {
                *used.entry(l).or_default() += 1;
            }
            out.push(p);
        }
        for i in 0..(max as u64 * 8) {
            if out.len() >= max {
                break;
            }
            let p = self.path(src, dst, mix64(i));
            if !out.contains(&p) {
                out.push(p);
            }
        }
        out
    }

    /// A shortest path from `src` to `dst` whose slowest link is fastest
    /// (`rate` of each link), lowest link id on ties: what a flow can do at
    /// best when packets may take any equal-cost path (the ideal FCT of
    /// adaptive routing). `None` if unreachable.
    pub fn widest_path(&self, src: NodeId, dst: NodeId, rate: impl Fn(LinkId) -> u64) -> Option<Vec<LinkId>> {
        let d = self.dist_to(dst);
        if d[src as usize] == UNREACHABLE {
            return None;
        }
        // Nodes by increasing distance to dst: each one's best next hop is
        // decided after those of the nodes it leads to.
        let mut order: Vec<NodeId> = (0..self.adj.len() as NodeId).filter(|&v| d[v as usize] <= d[src as usize]).collect();
        order.sort_by_key(|&v| d[v as usize]);
        let mut best: HashMap<NodeId, (u64, LinkId, NodeId)> = HashMap::new();
        for v in order {
            if v == dst {
                continue;
            }
            let pick = self
                .next_hops(d, v, dst)
                .filter_map(|(l, w)| {
                    let beyond = if w == dst { u64::MAX } else { best.get(&w)?.0 };
                    Some((rate(l).min(beyond), l, w))
                })
                .max_by_key(|&(r, l, _)| (r, std::cmp::Reverse(l)));
            if let Some(p) = pick {
                best.insert(v, p);
            }
        }
        let mut out = Vec::new();
        let mut cur = src;
        while cur != dst {
            let &(_, l, w) = best.get(&cur)?;
            out.push(l);
            cur = w;
        }
        Some(out)
    }

    /// The shortest path whose links have the smallest total use count, by
    /// dynamic programming over the shortest-path DAG (lowest link id on ties).
    fn least_shared_path(
        &self,
        d: &[u16],
        src: NodeId,
        dst: NodeId,
        used: &HashMap<LinkId, u32>,
    ) -> Vec<LinkId> {
        fn cost(
            r: &Routes,
            d: &[u16],
            v: NodeId,
            dst: NodeId,
            used: &HashMap<LinkId, u32>,
            memo: &mut HashMap<NodeId, (u32, LinkId, NodeId)>,
        ) -> u32 {
            if v == dst {
                return 0;
            }
            if let Some(&(c, _, _)) = memo.get(&v) {
                return c;
            }
            let hops: Vec<(LinkId, NodeId)> = r.next_hops(d, v, dst).collect();
            let best = hops
                .into_iter()
                .map(|(l, w)| {
                    (
                        used.get(&l).copied().unwrap_or(0) + cost(r, d, w, dst, used, memo),
                        l,
                        w,
                    )
                })
                .min()
                .expect("BFS leaves a next hop");
            memo.insert(v, best);
            best.0
        }
        assert!(
            d[src as usize] != UNREACHABLE,
            "no route from node {src} to node {dst}"
        );
        let mut memo = HashMap::new();
        cost(self, d, src, dst, used, &mut memo);
        let mut out = Vec::new();
        let mut cur = src;
        while cur != dst {
            let (_, l, w) = memo[&cur];
            out.push(l);
            cur = w;
        }
        out
    }
}

/// Address digit `l` of server `s` in base `n`.
fn digit(n: u32, s: u32, l: u32) -> u32 {
    s / n.pow(l) % n
}

fn with_digit(n: u32, s: u32, l: u32, v: u32) -> u32 {
    s - digit(n, s, l) * n.pow(l) + v * n.pow(l)
}

/// One server-to-server hop at level `l`: up to the shared level-`l` switch and
/// down. Relies on build.rs's order: server s's level-l link is physical link
/// s*(k+1)+l, directed ids 2x (up) and 2x+1 (down).
fn bcube_hop(shape: BcubeShape, from: u32, to: u32, l: u32, out: &mut Vec<LinkId>) {
    let ports = shape.k + 1;
    out.push(2 * (from * ports + l));
    out.push(2 * (to * ports + l) + 1);
}

/// BCube's DCRouting: correct the address digits of `a` towards `b` in `order`.
fn dc_routing(
    shape: BcubeShape,
    mut a: u32,
    b: u32,
    order: impl Iterator<Item = u32>,
    out: &mut Vec<LinkId>,
) {
    for l in order {
        let want = digit(shape.n, b, l);
        if digit(shape.n, a, l) != want {
            let next = with_digit(shape.n, a, l, want);
            bcube_hop(shape, a, next, l, out);
            a = next;
        }
    }
}

/// BuildPathSet (Guo et al., §4.1): for each level i from k down to 0, correct
/// digits in the order i, i-1, .., 0, k, .., i+1; if A and B agree on digit i,
/// first step to a level-i neighbour C of A and correct digit i last. The k+1
/// paths are link-disjoint (their Theorem 2). Paths that need no detour come first.
fn bcube_paths(shape: BcubeShape, a: u32, b: u32) -> Vec<Vec<LinkId>> {
    let BcubeShape { n, k } = shape;
    let mut direct = Vec::new();
    let mut detour = Vec::new();
    for i in (0..=k).rev() {
        let rotated = (0..=i).rev().chain((i + 1..=k).rev());
        let mut p = Vec::new();
        if digit(n, a, i) != digit(n, b, i) {
            dc_routing(shape, a, b, rotated, &mut p);
            direct.push(p);
        } else {
            let c = with_digit(n, a, i, (digit(n, a, i) + 1) % n);
            bcube_hop(shape, a, c, i, &mut p);
            dc_routing(
                shape,
                c,
                b,
                rotated.skip(1).chain(std::iter::once(i)),
                &mut p,
            );
            detour.push(p);
        }
    }
    direct.extend(detour);
    direct
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::collections::HashSet;

    fn topo(s: &str) -> Topology {
        Topology::build(&toml::from_str(s).unwrap(), 1).unwrap()
    }

    /// The path starts at src, is connected, ends at dst, and relays only through forwarding nodes.
    fn check(t: &Topology, p: &[LinkId], src: NodeId, dst: NodeId) {
        let mut cur = src;
        for &l in p {
            let link = &t.links[l as usize];
            assert_eq!(link.from, cur, "{p:?}");
            assert!(cur == src || t.forwards(cur));
            cur = link.to;
        }
        assert_eq!(cur, dst);
    }

    #[test]
    fn fat_tree_path_lengths() {
        let t = topo("kind = \"fat_tree\"\nk = 4");
        let r = Routes::new(&t, RoutingMode::Ecmp, 1);
        assert_eq!(r.path(0, 1, 7).len(), 2, "same edge switch");
        assert_eq!(r.path(0, 2, 7).len(), 4, "same pod");
        assert_eq!(r.path(0, 15, 7).len(), 6, "different pods");
        for src in 0..16 {
            for dst in 0..16 {
                if src != dst {
                    let p = r.path(src, dst, (src * 31 + dst) as u64);
                    check(&t, &p, src, dst);
                    assert_eq!(r.path(dst, src, 5).len(), p.len());
                }
            }
        }
    }

    #[test]
    fn ecmp_is_per_flow_deterministic_and_uses_every_core() {
        let t = topo("kind = \"fat_tree\"\nk = 8");
        let r = Routes::new(&t, RoutingMode::Ecmp, 1);
        let (src, dst) = (0, 127);
        assert_eq!(
            r.path(src, dst, 42),
            Routes::new(&t, RoutingMode::Ecmp, 1).path(src, dst, 42)
        );
        // The middle node of an inter-pod path is a core switch; all (k/2)^2 = 16 get used.
        let cores: HashSet<NodeId> = (0..400u64)
            .map(|h| t.links[r.path(src, dst, mix64(h))[2] as usize].to)
            .collect();
        assert_eq!(cores.len(), 16);
        assert!(cores
            .iter()
            .all(|&c| t.nodes[c as usize].name.starts_with("core")));
        let single = Routes::new(&t, RoutingMode::Single, 1);
        let one: HashSet<Vec<LinkId>> = (0..50u64).map(|h| single.path(src, dst, h)).collect();
        assert_eq!(one.len(), 1);
    }

    #[test]
    fn big_fat_tree_routes_quickly() {
        let t = topo("kind = \"fat_tree\"\nk = 16");
        let r = Routes::new(&t, RoutingMode::Ecmp, 3);
        for i in 0..200u32 {
            let (s, d) = (i * 5 % 1024, (i * 389 + 17) % 1024);
            if s != d {
                check(&t, &r.path(s, d, i as u64), s, d);
            }
        }
        assert_eq!(r.hops(0, 1023), Some(6));
    }

    #[test]
    fn tree_and_star_paths() {
        let t = topo("kind = \"tree\"");
        let r = Routes::new(&t, RoutingMode::Ecmp, 1);
        assert_eq!(r.path(0, 1, 0).len(), 2, "intra-rack");
        let p = r.path(11, 0, 0);
        let names: Vec<&str> = p
            .iter()
            .map(|&l| t.links[l as usize].name.as_str())
            .collect();
        assert_eq!(names, ["h11->tor3", "tor3->root", "root->tor0", "tor0->h0"]);
        assert_eq!(*p.last().unwrap(), t.bottleneck());
    }

    #[test]
    fn jellyfish_and_leaf_spine_paths_are_connected() {
        for s in ["kind = \"jellyfish\"", "kind = \"leaf_spine\""] {
            let t = topo(s);
            let r = Routes::new(&t, RoutingMode::Ecmp, 9);
            for dst in 0..t.hosts as NodeId {
                check(&t, &r.path(0, dst, dst as u64), 0, dst);
            }
        }
    }

    #[test]
    fn bcube_paths_relay_through_servers_and_are_parallel() {
        for (n, k) in [(4, 1), (3, 2)] {
            let t = topo(&format!("kind = \"bcube\"\nn = {n}\nk = {k}"));
            let r = Routes::new(&t, RoutingMode::Ecmp, 1);
            for (a, b) in [(0, t.hosts as u32 - 1), (1, 2), (5, 0)] {
                let shortest = r.hops(a, b).unwrap();
                check(&t, &r.path(a, b, 3), a, b);
                let ps = r.paths(a, b, 8);
                assert_eq!(ps.len(), k as usize + 1, "BCube has k+1 parallel paths");
                let mut seen = HashSet::new();
                for p in &ps {
                    check(&t, p, a, b);
                    assert!(p.len() <= shortest + 4, "{p:?}");
                    assert!(p.iter().all(|&l| seen.insert(l)), "paths share a link");
                }
                assert_eq!(ps[0].len(), shortest);
            }
        }
        // BCube(4,1): servers 0=(0,0) and 15=(3,3) are 2 server hops = 4 links apart.
        let t = topo("kind = \"bcube\"");
        assert_eq!(
            Routes::new(&t, RoutingMode::Ecmp, 1).path(0, 15, 0).len(),
            4
        );
    }

    #[test]
    fn multipath_prefers_disjoint_shortest_paths() {
        let t = topo("kind = \"fat_tree\"\nk = 4");
        let r = Routes::new(&t, RoutingMode::Ecmp, 1);
        let ps = r.paths(0, 15, 4);
        assert_eq!(ps.len(), 4);
        let cores: HashSet<LinkId> = ps.iter().map(|p| p[2]).collect();
        assert_eq!(cores.len(), 4, "four paths through four different cores");
        for p in &ps {
            check(&t, p, 0, 15);
            assert_eq!(p.len(), 6);
        }
        // Only one path inside a rack: no duplicates are invented.
        assert_eq!(r.paths(0, 1, 4).len(), 1);
        // Two hosts on a star: one path.
        let t = topo("");
        assert_eq!(
            Routes::new(&t, RoutingMode::Ecmp, 1).paths(0, 1, 3).len(),
            1
        );
    }
}
