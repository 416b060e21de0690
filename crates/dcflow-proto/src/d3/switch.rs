//! D3's router, one [`RateAllocator`] per output port: rate request
//! processing (D3 §4.3, Snippet 1, with §4.5's base-rate pause for new
//! flows) and the capacity controller (D3 §4.4). RCP_dc is this same allocator with every flow a
//! non-deadline flow (desired rate 0): "we also operate D3 in fair share mode
//! only ... We term this RCP_dc" (D3 §6.1), "exactly equivalent to D3 when flows
//! have no deadlines" (PDQ §5.1).

use super::ExplicitRateConfig;
use crate::agent::PortView;
use crate::packet::{Packet, Sched};
use dcflow_core::{round_to_u64, FlowId, Rate, Time};
use std::collections::HashMap;

/// What a port has granted one flow: its latest request's desired rate r_t
/// and allocation a_t (bps).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
struct Grant {
    desired: u64,
    alloc: u64,
}

/// Counters of one output port (D3 §4.3): N flows, demand D, allocation A, all
/// in bits per second, plus the controller's capacity C.
///
/// D3's routers keep no per-flow state: each request returns the flow's
/// previous r_t and a_t from the header (§4.3, Fig. 6), and §4.4 lets the
/// capacity controller and a reset "during periods of low load" absorb the
/// drift. That drift is real once packets are lost or repeated: a request
/// lost after this port, a SYN sent again, a FIN sent again, a flow quenched
/// before its SYN-ACK each leave N, D or A off for good, and a leaked N keeps
/// the reset from ever firing. This port instead remembers each flow's latest
/// grant (the `ledger`) and returns that: N, D and A are exactly the sums over
/// the flows it carries. Without loss and retransmission the ledger holds
/// the very a_t and r_t the header would return, so the allocations are the
/// paper's (docs/fidelity.md, "D3's counters").
pub struct RateAllocator {
    cfg: ExplicitRateConfig,
    link: f64,
    capacity: f64,
    ledger: HashMap<FlowId, Grant>,
    /// D and A: sums of the ledger's desired rates and allocations.
    demand: u64,
    allocated: u64,
    /// When the controller last ran, and the port's byte count then: u(t)
    /// is measured over exactly that window.
    last_update: Time,
    tx_at_last_update: u64,
}

impl RateAllocator {
    /// The router reads the allocator keys of `cfg` (α, β, T, base rate, fair
    /// share clamp, capacity bound); the rest are the sender's.
    pub fn new(cfg: ExplicitRateConfig, link: Rate) -> RateAllocator {
        RateAllocator {
            cfg,
            link: link.as_bps_f64(),
            capacity: link.as_bps_f64(),
            ledger: HashMap::new(),
            demand: 0,
            allocated: 0,
            last_update: Time::ZERO,
            tx_at_last_update: 0,
        }
    }

    /// N: the flows this port carries.
    pub fn flows(&self) -> u64 {
        self.ledger.len() as u64
    }
    pub fn capacity(&self) -> f64 {
        self.capacity
    }
    pub fn allocated(&self) -> u64 {
        self.allocated
    }
    pub fn demand(&self) -> u64 {
        self.demand
    }

    /// The capacity controller of D3 §4.4, C(t+T) = C(t) + α(spare) − β(q/T),
    /// run lazily by the first request at least T after its previous run, with
    /// u(t)/T the rate the port sent at over exactly that window (the bytes
    /// sent since the previous run over the time since it; a window longer
    /// than T is one step, not several). D3 prints the spare-capacity term as
    /// C(t) − u(t)/T; read literally, C = 0 is absorbing (any traffic keeps
    /// u/T > 0 = C), and a burst that fills the queue (β·q/T ≥ C) drives C
    /// there, after which every flow stays at the base rate for good. D3
    /// explains the term as under-utilization of the link and borrows the
    /// controller from RCP [11], whose term is link capacity minus input rate:
    /// that is what we use (docs/fidelity.md). With no flows the port is idle
    /// and C starts again from the link rate (§4.4's reset at low load; the
    /// ledger needs no reset).
    fn update_capacity(&mut self, now: Time, port: &PortView) {
        if now < self.last_update + self.cfg.interval {
            return;
        }
        let t = self.cfg.interval.as_secs_f64();
        let sent_bits = (port.tx_bytes - self.tx_at_last_update) as f64 * 8.0;
        let used = sent_bits / (now.since(self.last_update).as_secs_f64());
        if self.ledger.is_empty() {
            self.capacity = self.link;
        } else {
            let queue = port.queue_bytes as f64 * 8.0 / t;
            let c = self.capacity + self.cfg.alpha * (self.link - used) - self.cfg.beta * queue;
            // No upper bound by default: while downstream bottlenecks keep
            // the link under-used, C rises until allocations flow again ("the
            // resulting drop in utilization drives up the capacity", §4.4);
            // queueing brings it back down. `capacity_max` bounds it.
            let bound = self.cfg.capacity_max.map_or(f64::INFINITY, |m| m * self.link);
            self.capacity = c.clamp(0.0, bound);
        }
        self.tx_at_last_update = port.tx_bytes;
        self.last_update = now;
    }

    /// The flow no longer uses this port: its grant and demand go.
    pub fn forget(&mut self, flow: FlowId) {
        let held = self.ledger.remove(&flow).unwrap_or_default();
        self.allocated -= held.alloc;
        self.demand -= held.desired;
    }

    /// Process one forward packet carrying a rate request (Snippet 1).
    pub fn on_packet(&mut self, now: Time, port: &PortView, hop: usize, pkt: &mut Packet) {
        if pkt.reverse {
            return;
        }
        let Sched::Rate(h) = &mut pkt.sched else { return };
        if hop >= h.alloc.len() {
            return;
        }
        self.update_capacity(now, port);
        // Line 3: return the current allocation; line 4: update demand. A
        // flow this port has not seen (line 2: its SYN) joins N.
        let held = self.ledger.remove(&pkt.flow).unwrap_or_default();
        self.allocated -= held.alloc;
        self.demand -= held.desired;
        if h.leaving {
            // FIN "returns the flow's allocated rate" (§4.4) and leaves N.
            h.alloc[hop] = 0;
            return;
        }
        let flows = self.ledger.len() as f64 + 1.0;
        let desired = h.desired;
        self.demand += desired;
        // Lines 5-6.
        let left = self.capacity - self.allocated as f64;
        let mut fair_share = (self.capacity - self.demand as f64) / flows;
        if self.cfg.nonnegative_fair_share {
            fair_share = fair_share.max(0.0);
        }
        // Burst tolerance (§4.5): "When a new flow starts, the fair share
        // assigned to its rate request is set to base rate."
        if h.new_flow {
            fair_share = self.cfg.base_rate.as_bps_f64();
        }
        // Lines 7-13.
        let desired_f = desired as f64;
        let mut a = if left > desired_f { desired_f + fair_share } else { left };
        // Line 14: at least the base rate.
        a = a.max(self.cfg.base_rate.as_bps_f64());
        // §4.4: never more than the previous router on the path.
        if hop > 0 {
            a = a.min(h.alloc[hop - 1] as f64);
        }
        let a = round_to_u64(a);
        // Line 15.
        self.allocated += a;
        h.alloc[hop] = a;
        self.ledger.insert(pkt.flow, Grant { desired, alloc: a });
    }

    /// The soft-state invariant: N, D and A are the sums over the flows this
    /// port carries, and every flow it counts is one that `carried` says
    /// still exists on this port.
    pub fn audit(&self, carried: &dyn Fn(FlowId) -> bool) -> Option<String> {
        let demand: u64 = self.ledger.values().map(|g| g.desired).sum();
        let allocated: u64 = self.ledger.values().map(|g| g.alloc).sum();
        if (demand, allocated) != (self.demand, self.allocated) {
            return Some(format!(
                "D = {} and A = {} but the flows it carries sum to D = {demand}, A = {allocated}",
                self.demand, self.allocated
            ));
        }
        let mut gone: Vec<FlowId> = self.ledger.keys().copied().filter(|&f| !carried(f)).collect();
        gone.sort_unstable();
        (!gone.is_empty()).then(|| {
            format!("N = {} counts {} flow(s) that no longer use this port (first: flow {})", self.flows(), gone.len(), gone[0])
        })
    }
}
