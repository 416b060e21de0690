//! Per-flow state of the packet engine: the flow's paths, its two sans-IO
//! endpoints, its timer, and its outcome; and the ideal FCT the slowdown is
//! measured against.

use dcflow_core::{Bytes, Dur, LinkId, Time};
use dcflow_net::Topology;
use dcflow_proto::pdq::PathInfo;
use dcflow_proto::{FlowInfo, Receiver, Sender, HEADER_BYTES};
use dcflow_workload::FlowSpec;

pub struct FlowState {
    pub spec: FlowSpec,
    /// Path 0 (the only path of single-path flows): data and replies.
    pub fwd: Vec<LinkId>,
    pub rev: Vec<LinkId>,
    /// M-PDQ (PDQ §6): paths 1.. of a multipath flow as (data, replies),
    /// built once when the flow is set up; empty for single-path flows.
    pub extra: Vec<(Vec<LinkId>, Vec<LinkId>)>,
    /// Path 0's (data, replies) ids in the engine's path table
    /// (`paths.rs`), what its packets are forwarded by; `extra_routes`
    /// likewise for `extra`. Set when the run is built.
    pub routes: [u32; 2],
    pub extra_routes: Vec<[u32; 2]>,
    /// What the multipath sender knows of each path (path 0 first); empty
    /// for single-path flows.
    pub path_info: Vec<PathInfo>,
    pub info: FlowInfo,
    /// Created when the flow starts, released once it is quiet (`endpoints.rs`).
    pub sender: Option<Box<Sender>>,
    pub receiver: Option<Box<Receiver>>,
    /// Its packets in the network (injected, not yet delivered or dropped).
    pub in_flight: u32,
    /// What the receiver held when it was released.
    pub released_bytes_delivered: u64,
    /// The time of the one timer event this flow has armed, if any. An event
    /// whose time differs is stale and ignored (lazy cancellation).
    pub timer_at: Option<Time>,
    pub finish: Option<Time>,
    pub terminated: bool,
    pub ideal: Dur,
    /// Payload bytes whose serialization on the flow's last link has begun:
    /// what the monitor's flow series measures (exact, like the links').
    pub last_hop_payload: u64,
    /// The flow's ECMP hash (salted by the seed, docs/architecture.md rule 5).
    pub hash: u64,
    /// Hop-by-hop routing only: the flow keeps to `fwd`/`rev` (pinned at
    /// SYN time) instead of asking each switch's policy per packet.
    pub pinned: bool,
    /// Terminated because failures left no path to its destination.
    pub no_path: bool,
    /// The flow has started (its endpoints, or its source's host agent,
    /// took it).
    pub started: bool,
}

impl FlowState {
    /// The links a packet of this flow follows: path `path` (a packet's
    /// [`dcflow_proto::Packet::path`]), forward or reverse.
    #[inline]
    pub fn route(&self, reverse: bool, path: u8) -> &[LinkId] {
        if path == 0 {
            if reverse {
                &self.rev
            } else {
                &self.fwd
            }
        } else {
            let (f, r) = &self.extra[path as usize - 1];
            if reverse {
                r
            } else {
                f
            }
        }
    }

    /// The path-table id of [`FlowState::route`]`(reverse, path)`.
    #[inline]
    pub fn route_id(&self, reverse: bool, path: u8) -> u32 {
        let ids = if path == 0 { self.routes } else { self.extra_routes[path as usize - 1] };
        ids[reverse as usize]
    }

    /// The node a packet of this flow is headed for.
    #[inline]
    pub fn dest(&self, reverse: bool) -> dcflow_core::NodeId {
        if reverse {
            self.spec.src
        } else {
            self.spec.dst
        }
    }

    /// The node a packet of this flow leaves from.
    #[inline]
    pub fn origin(&self, reverse: bool) -> dcflow_core::NodeId {
        self.dest(!reverse)
    }

    /// Payload bytes the receiver holds in order.
    pub fn bytes_delivered(&self) -> u64 {
        self.receiver.as_ref().map_or(self.released_bytes_delivered, |r| r.cumulative())
    }

    /// Whether the flow has an outcome (delivered or given up).
    pub fn done(&self) -> bool {
        self.finish.is_some() || self.terminated
    }
}

/// Delay between the end of serialization on hop `hop` of `path` and the
/// packet's arrival at the next port: propagation, plus processing at every
/// node that forwards it (not at the destination, which may be a BCube server
/// that forwards other flows' packets).
fn hop_delay(topo: &Topology, path: &[LinkId], hop: usize) -> Dur {
    let link = &topo.links[path[hop] as usize];
    if hop + 1 < path.len() {
        link.prop_delay + topo.proc_delay_at(link.to)
    } else {
        link.prop_delay
    }
}

/// Propagation plus processing delay from the start of `path` to its end.
fn path_delay(topo: &Topology, path: &[LinkId]) -> Dur {
    (0..path.len()).map(|h| hop_delay(topo, path, h)).fold(Dur::ZERO, |a, b| a + b)
}

/// Packet sizes on the wire for a flow of `size` bytes: (first, last, count).
fn wire_sizes(size: u64, mss: u32) -> (Bytes, Bytes, u64) {
    let count = size.div_ceil(mss as u64).max(1);
    let last = size - (count - 1) * mss as u64;
    let first = if count == 1 { last } else { mss as u64 };
    (Bytes(first + HEADER_BYTES as u64), Bytes(last + HEADER_BYTES as u64), count)
}

/// The flow alone on its path: data packets sent back to back at line rate
/// through store-and-forward hops, no handshake, no queueing. The bottleneck
/// (the slowest link, first if tied) is busy from the first packet's arrival
/// until the last leaves it; the links before it see only the first packet's
/// head start, the links after it only the last packet's tail. This is exact
/// for the engine's serialization (same per-packet rounding), so no flow can
/// finish before it.
pub fn ideal_fct(topo: &Topology, path: &[LinkId], size: u64, mss: u32) -> Dur {
    let (first, last, count) = wire_sizes(size, mss);
    let rates: Vec<_> = path.iter().map(|&l| topo.links[l as usize].rate).collect();
    let b = (0..rates.len()).min_by_key(|&i| (rates[i], i)).expect("a path has links");
    let before: Dur = rates[..b].iter().map(|r| r.tx_time(first)).fold(Dur::ZERO, |a, d| a + d);
    let full = if count > 1 { Bytes(mss as u64 + HEADER_BYTES as u64) } else { last };
    let at_bottleneck = Dur(rates[b].tx_time(full).0 * (count - 1)) + rates[b].tx_time(last);
    let after: Dur = rates[b + 1..].iter().map(|r| r.tx_time(last)).fold(Dur::ZERO, |a, d| a + d);
    path_delay(topo, path) + before + at_bottleneck + after
}

/// The ideal FCT of a flow striped over several paths (M-PDQ, PDQ §6). The
/// ideal of its best single path is not a lower bound: the flow can beat it.
/// All its wire bytes (data packets of MSS = MTU − 40, as for single-path
/// flows) leave the sender through the distinct first links of its paths and
/// enter the receiver through their distinct last links, so they need at
/// least bytes / min(Σ rates of the distinct first links, Σ rates of the
/// distinct last links); the last packet then still has the propagation and
/// processing delay of the shortest of the paths ahead of it. Their sum is a
/// lower bound for any split (docs/fidelity-pdq.md, "M-PDQ").
pub fn ideal_fct_multipath(topo: &Topology, paths: &[&[LinkId]], size: u64, mss: u32) -> Dur {
    let (_, _, count) = wire_sizes(size, mss);
    let wire = Bytes(size + count * HEADER_BYTES as u64);
    let distinct_sum = |pick: fn(&[LinkId]) -> LinkId| {
        let mut links: Vec<LinkId> = paths.iter().map(|p| pick(p)).collect();
        links.sort_unstable();
        links.dedup();
        links.iter().map(|&l| topo.links[l as usize].rate.0).sum::<u64>()
    };
    let out = distinct_sum(|p| p[0]);
    let into = distinct_sum(|p| p[p.len() - 1]);
    let agg = dcflow_core::Rate(out.min(into));
    let delay = paths.iter().map(|p| path_delay(topo, p)).min().unwrap_or(Dur::ZERO);
    // Rounded down to the picosecond, so the bound stays a lower bound.
    let ser = Dur((wire.0 as u128 * 8 * 1_000_000_000_000 / agg.0.max(1) as u128) as u64);
    delay + ser
}

/// Round trip with empty queues: one MTU forward and one ACK back per hop.
pub fn base_rtt(topo: &Topology, fwd: &[LinkId], rev: &[LinkId]) -> Dur {
    let mtu = Bytes(topo.mtu as u64);
    let ack = Bytes(HEADER_BYTES as u64);
    let ser = |path: &[LinkId], b: Bytes| {
        path.iter().map(|&l| topo.links[l as usize].rate.tx_time(b)).fold(Dur::ZERO, |a, d| a + d)
    };
    path_delay(topo, fwd) + path_delay(topo, rev) + ser(fwd, mtu) + ser(rev, ack)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn wire_sizes_split_payload_into_mss_segments() {
        assert_eq!(wire_sizes(3000, 1460), (Bytes(1500), Bytes(120), 3));
        assert_eq!(wire_sizes(100, 1460), (Bytes(140), Bytes(140), 1));
        assert_eq!(wire_sizes(2920, 1460), (Bytes(1500), Bytes(1500), 2));
    }
}
