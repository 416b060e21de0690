//! CONGA (Alizadeh et al., "CONGA: Distributed Congestion-Aware Load
//! Balancing for Datacenters", SIGCOMM'14), as the `conga` routing policy.
//!
//! - **DRE** (§3.5): every switch port keeps a register X, incremented by
//!   each packet's bytes and multiplied by (1 - alpha) every T_dre, so that X
//!   is about the port's rate times tau = T_dre / alpha. Its congestion
//!   metric is X / (C tau) quantized to Q bits (§3.4).
//! - **Overlay header** (§3.3): the source leaf tags each packet with the
//!   uplink it chose (LBTag) and CE = 0; every fabric hop after it raises CE
//!   to its egress port's metric; the destination leaf stores CE in its
//!   Congestion-From-Leaf table under (source leaf, LBTag).
//! - **Feedback** (§3.3): a packet from leaf B to leaf A carries one entry of
//!   B's Congestion-From-Leaf table for A (round robin, entries that changed
//!   since they were last sent first), which A writes into its
//!   Congestion-To-Leaf table.
//! - **Placement** (§3.4): a new flowlet at the source leaf takes the uplink
//!   that minimizes max(local DRE metric, remote metric); ties at random.
//!   Remote metrics not refreshed within `conga_aging` count as 0 (§3.3:
//!   stale entries age out).
//!
//! Defaults are the paper's §3.6 choices, Q = 3 bits, tau = 160us (T_dre =
//! 16us, alpha = 0.1) and T_fl = 500us ([`crate::policy::DEFAULT_FLOWLET_GAP`]),
//! with 10 ms aging. The leaf is a host's first switch, so on a 3-tier fat
//! tree CONGA places flowlets on the edge switch's uplinks and the hops
//! above hash like ECMP (the paper targets 2-tier leaf-spine fabrics; see
//! docs/fidelity.md, "Routing").

use crate::policy::Choice;
use crate::topology::Topology;
use dcflow_core::{ensure, ConfigError, Dur, LinkId, NodeId, RngStream, Time};
use rand::RngExt;
use std::collections::HashMap;

/// Marks an absent node or link in a [`CongaTag`].
const NONE: u32 = u32::MAX;

/// CONGA's parameters (`conga_q`, `conga_tdre`, `conga_alpha`, `conga_aging`).
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct CongaParams {
    /// Q: bits of the quantized congestion metric (§3.6: 3).
    pub q_bits: u32,
    /// T_dre: the DRE's decay period (16us, so tau = T_dre / alpha = 160us, §3.6).
    pub dre_period: Dur,
    /// alpha: the DRE's decay factor per period (0.1).
    pub dre_alpha: f64,
    /// Congestion-To-Leaf entries older than this count as uncongested (10ms).
    pub aging: Dur,
}

impl Default for CongaParams {
    fn default() -> Self {
        CongaParams { q_bits: 3, dre_period: Dur::us(16), dre_alpha: 0.1, aging: Dur::ms(10) }
    }
}

impl CongaParams {
    pub fn validate(&self) -> Result<(), ConfigError> {
        ensure((1..=8).contains(&self.q_bits), "conga_q", format!("is {}; must be 1..=8 bits (CONGA §3.6: 3)", self.q_bits))?;
        ensure(self.dre_period > Dur::ZERO, "conga_tdre", "must be a positive time like \"16us\"")?;
        ensure(
            self.dre_alpha > 0.0 && self.dre_alpha <= 1.0,
            "conga_alpha",
            format!("is {}; must be in (0, 1] (CONGA §3.5)", self.dre_alpha),
        )?;
        ensure(self.aging > Dur::ZERO, "conga_aging", "must be a positive time like \"10ms\"")
    }
}

/// The overlay header CONGA adds to a packet between leaves (§3.3).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct CongaTag {
    /// The leaf that tagged the packet, `NONE` while untagged.
    src_leaf: NodeId,
    /// LBTag: the uplink the source leaf chose.
    lb: LinkId,
    /// CE: the largest metric on the path so far.
    ce: u8,
    /// Piggybacked feedback: an uplink of the receiving leaf and its metric.
    fb_link: LinkId,
    fb_metric: u8,
}

impl Default for CongaTag {
    fn default() -> Self {
        CongaTag { src_leaf: NONE, lb: NONE, ce: 0, fb_link: NONE, fb_metric: 0 }
    }
}

/// A Discounting Rate Estimator (§3.5), decayed lazily: the periods that
/// passed since it was last touched are applied at once.
#[derive(Clone, Copy, Debug, Default)]
struct Dre {
    x: f64,
    period: u64,
}

/// One Congestion-From-Leaf entry: a path's CE and whether it changed since
/// it was last fed back.
#[derive(Clone, Copy, Debug)]
struct FromLeaf {
    lb: LinkId,
    ce: u8,
    changed: bool,
}

pub struct Conga {
    params: CongaParams,
    /// The leaf (first switch) of each host.
    leaf_of: Vec<NodeId>,
    is_leaf: Vec<bool>,
    /// tau times each link's rate, in bytes: the X of a fully used link.
    full: Vec<f64>,
    dre: Vec<Dre>,
    /// Congestion-From-Leaf at leaf `.0`, for paths from leaf `.1`.
    from_leaf: HashMap<(NodeId, NodeId), (Vec<FromLeaf>, usize)>,
    /// Congestion-To-Leaf at leaf `.0` towards leaf `.1`: uplink -> (metric, updated).
    to_leaf: HashMap<(NodeId, NodeId), HashMap<LinkId, (u8, Time)>>,
}

impl Conga {
    /// `None` when a host has more than one link: CONGA needs each host under one leaf.
    pub fn new(topo: &Topology, params: CongaParams) -> Option<Conga> {
        let mut is_leaf = vec![false; topo.nodes.len()];
        let mut leaf_of = Vec::with_capacity(topo.hosts);
        for h in 0..topo.hosts {
            let [l] = topo.out_links[h][..] else { return None };
            let leaf = topo.links[l as usize].to;
            is_leaf[leaf as usize] = true;
            leaf_of.push(leaf);
        }
        let tau = params.dre_period.as_secs_f64() / params.dre_alpha;
        let full = topo.links.iter().map(|l| l.rate.as_bps_f64() / 8.0 * tau).collect();
        Some(Conga {
            params,
            leaf_of,
            is_leaf,
            full,
            dre: vec![Dre::default(); topo.links.len()],
            from_leaf: HashMap::new(),
            to_leaf: HashMap::new(),
        })
    }

    /// Whether the switch `node` is the packet's source leaf: a leaf that
    /// sees the packet before any leaf tagged it.
    pub fn is_source_leaf(&self, node: NodeId, tag: &CongaTag) -> bool {
        tag.src_leaf == NONE && self.is_leaf[node as usize]
    }

    fn x(&self, link: LinkId, now: Time) -> f64 {
        let d = self.dre[link as usize];
        let elapsed = now.0 / self.params.dre_period.0 - d.period;
        d.x * (1.0 - self.params.dre_alpha).powi(elapsed.min(i32::MAX as u64) as i32)
    }

    /// The quantized congestion metric of `link` now (§3.4).
    fn metric(&self, link: LinkId, now: Time) -> u8 {
        let levels = (1u32 << self.params.q_bits) as f64;
        let q = (self.x(link, now) / self.full[link as usize] * levels).floor();
        q.min(levels - 1.0) as u8
    }

    /// The candidate uplink with the least max(local, remote) metric; ties at random.
    pub fn best_uplink(&self, c: &Choice, rng: &mut RngStream) -> usize {
        let dst_leaf = self.leaf_of[c.dst as usize];
        let remote = self.to_leaf.get(&(c.node, dst_leaf));
        let score = |l: LinkId| {
            let r = remote
                .and_then(|m| m.get(&l))
                .filter(|&&(_, at)| c.now.since(at) <= self.params.aging)
                .map_or(0, |&(m, _)| m);
            self.metric(l, c.now).max(r)
        };
        let scores: Vec<u8> = c.candidates.iter().map(|&(l, _)| score(l)).collect();
        let best = *scores.iter().min().expect("candidates are not empty");
        let ties: Vec<usize> = (0..scores.len()).filter(|&i| scores[i] == best).collect();
        ties[rng.random_range(0..ties.len())]
    }

    /// The source leaf tags the packet: its uplink, CE = 0, and one entry of
    /// feedback for the destination's leaf.
    pub fn stamp(&mut self, node: NodeId, dst: NodeId, uplink: LinkId, tag: &mut CongaTag) {
        let dst_leaf = self.leaf_of[dst as usize];
        *tag = CongaTag { src_leaf: node, lb: uplink, ..CongaTag::default() };
        if let Some((entries, next)) = self.from_leaf.get_mut(&(node, dst_leaf)) {
            let n = entries.len();
            let i = (0..n).map(|k| (*next + k) % n).find(|&i| entries[i].changed).unwrap_or(*next % n);
            *next = (i + 1) % n;
            entries[i].changed = false;
            tag.fb_link = entries[i].lb;
            tag.fb_metric = entries[i].ce;
        }
    }

    /// A switch port `link` (leaving switch `from`) starts sending `bytes`:
    /// its DRE counts them, and a fabric hop past the source leaf raises CE.
    pub fn on_transmit(&mut self, link: LinkId, from: NodeId, bytes: u32, now: Time, tag: &mut CongaTag) {
        let period = now.0 / self.params.dre_period.0;
        let x = self.x(link, now);
        self.dre[link as usize] = Dre { x: x + bytes as f64, period };
        if tag.src_leaf != NONE && !self.is_leaf[from as usize] {
            tag.ce = tag.ce.max(self.metric(link, now));
        }
    }

    /// A tagged packet reached leaf `node`: if it is not where the tag was
    /// made, this is the destination leaf, which records the path's CE and
    /// takes the feedback it carries. The tag is then spent.
    pub fn on_leaf_arrival(&mut self, node: NodeId, now: Time, tag: &mut CongaTag) {
        if tag.src_leaf == NONE || tag.src_leaf == node || !self.is_leaf[node as usize] {
            return;
        }
        let (entries, _) = self.from_leaf.entry((node, tag.src_leaf)).or_default();
        match entries.iter_mut().find(|e| e.lb == tag.lb) {
            Some(e) => {
                e.ce = tag.ce;
                e.changed = true;
            }
            None => entries.push(FromLeaf { lb: tag.lb, ce: tag.ce, changed: true }),
        }
        if tag.fb_link != NONE {
            self.to_leaf.entry((node, tag.src_leaf)).or_default().insert(tag.fb_link, (tag.fb_metric, now));
        }
        *tag = CongaTag::default();
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn leaf_spine() -> Topology {
        Topology::build(&toml::from_str("kind = \"leaf_spine\"\nleaves = 2\nspines = 2\nhosts_per_leaf = 1").unwrap(), 1).unwrap()
    }

    /// A port sending at its full rate for many tau settles at X = C tau
    /// (§3.5), the top metric level; idle for a few tau, it decays to 0.
    #[test]
    fn dre_tracks_rate_and_decays() {
        let t = leaf_spine();
        let mut g = Conga::new(&t, CongaParams::default()).unwrap();
        let link = 0;
        let mut tag = CongaTag::default();
        // 1500-byte packets back to back at 1 Gbps: one every 12us.
        let mut now = Time::ZERO;
        for _ in 0..1000 {
            g.on_transmit(link, 0, 1500, now, &mut tag);
            now += Dur::us(12);
        }
        // Decayed in steps, X swings between (1 - alpha) R tau just after
        // a decay and R tau just before one.
        let x = g.x(link, now);
        assert!((0.85..=1.0).contains(&(x / g.full[0])), "X / (C tau) = {}", x / g.full[0]);
        assert_eq!(g.metric(link, now), 7);
        assert_eq!(g.metric(link, now + Dur::ms(2)), 0);
    }

    /// Feedback loop: CE written at the destination leaf comes back on a
    /// packet the other way and lands in the source leaf's table.
    #[test]
    fn ce_travels_back_as_feedback() {
        let t = leaf_spine();
        let mut g = Conga::new(&t, CongaParams::default()).unwrap();
        let (a, b) = (g.leaf_of[0], g.leaf_of[1]);
        let uplink = t.out_links[a as usize].iter().copied().find(|&l| !g.is_leaf[t.links[l as usize].to as usize] && t.links[l as usize].to as usize >= t.hosts).unwrap();
        let mut tag = CongaTag::default();
        g.stamp(a, 1, uplink, &mut tag);
        tag.ce = 5;
        g.on_leaf_arrival(b, Time::ZERO, &mut tag);
        assert_eq!(tag, CongaTag::default());
        let mut back = CongaTag::default();
        g.stamp(b, 0, 0, &mut back);
        assert_eq!((back.fb_link, back.fb_metric), (uplink, 5));
        g.on_leaf_arrival(a, Time::ZERO, &mut back);
        assert_eq!(g.to_leaf[&(a, b)][&uplink].0, 5);
    }
}
