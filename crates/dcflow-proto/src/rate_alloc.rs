//! D3's router: rate request processing (D3 §4.3, Snippet 1) and the capacity
//! controller (D3 §4.4). RCP_dc is this same allocator with every flow a
//! non-deadline flow (desired rate 0): "we also operate D3 in fair share mode
//! only ... We term this RCP_dc" (D3 §6.1), "exactly equivalent to D3 when flows
//! have no deadlines" (PDQ §5.1).

use crate::agent::PortView;
use crate::rate::ExplicitRateConfig;
use crate::packet::{Packet, Sched};
use dcflow_core::{FlowId, Rate, Time};
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
        let a = a.round().max(0.0) as u64;
        // Line 15.
        self.allocated += a;
        h.alloc[hop] = a;
        self.ledger.insert(pkt.flow, Grant { desired, alloc: a });
    }

    /// The invariant of issue 12: N, D and A are the sums over the flows this
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

#[cfg(test)]
mod tests {
    use super::*;
    use crate::packet::{PacketKind, RateHeader};

    const GBPS: f64 = 1e9;

    fn port() -> PortView {
        PortView { rate: Rate::gbps(1), queue_bytes: 0, tx_bytes: 0 }
    }

    fn base() -> u64 {
        ExplicitRateConfig::default().base_rate.0
    }

    /// A request of `flow`; `new_flow` is the SYN flag. What the flow held
    /// before is the port's business (its ledger), not the header's.
    fn request(flow: FlowId, new_flow: bool, desired: u64) -> Packet {
        let mut h = RateHeader::empty();
        h.new_flow = new_flow;
        h.desired = desired;
        let mut p = Packet::new(flow, PacketKind::Syn, false, Time::ZERO);
        p.sched = Sched::Rate(h);
        p
    }

    fn fin(flow: FlowId) -> Packet {
        let mut p = request(flow, false, 0);
        p.kind = PacketKind::Fin;
        if let Sched::Rate(h) = &mut p.sched {
            h.leaving = true;
        }
        p
    }

    fn alloc_of(p: &Packet) -> u64 {
        match p.sched {
            Sched::Rate(h) => h.alloc[0],
            _ => unreachable!(),
        }
    }

    fn process(r: &mut RateAllocator, mut p: Packet) -> u64 {
        r.on_packet(Time(1), &port(), 0, &mut p);
        alloc_of(&p)
    }

    fn rcp() -> RateAllocator {
        RateAllocator::new(ExplicitRateConfig::default(), Rate::gbps(1))
    }

    #[test]
    fn rcp_dc_new_flows_pause_one_rtt_then_share_equally() {
        let mut r = rcp();
        // Two non-deadline SYNs: each gets the base rate (burst tolerance).
        assert_eq!(process(&mut r, request(1, true, 0)), base());
        assert_eq!(process(&mut r, request(2, true, 0)), base());
        assert_eq!(r.flows(), 2);
        // Next RTT: each returns base and gets fs = (C - D)/N = 500 Mbps.
        assert_eq!(process(&mut r, request(1, false, 0)), 500_000_000);
        assert_eq!(process(&mut r, request(2, false, 0)), 500_000_000);
        assert!((r.allocated() as f64 - GBPS).abs() < 1.0);
    }

    #[test]
    fn deadline_flow_gets_its_demand_plus_fair_share_of_the_rest() {
        let mut r = rcp();
        process(&mut r, request(1, true, 0)); // non-deadline flow
        process(&mut r, request(2, true, 400_000_000)); // deadline flow, 400 Mbps
        // D = 400M, N = 2: fs = (1G - 400M)/2 = 300M. The deadline flow asks
        // again, returning its SYN allocation (400M + base).
        assert_eq!(process(&mut r, request(2, false, 400_000_000)), 700_000_000);
        // The non-deadline flow: left = 1G - 700M - 0 = 300M > 0 -> fs = 300M.
        assert_eq!(process(&mut r, request(1, false, 0)), 300_000_000);
    }

    #[test]
    fn oversubscribed_requests_are_served_greedily_in_arrival_order() {
        let mut r = rcp();
        let first = process(&mut r, request(1, true, 600_000_000));
        assert_eq!(first, 600_000_000 + base());
        // Second asks 600M but only 1G - (600M + base) is left: it gets what's left.
        let second = process(&mut r, request(2, true, 600_000_000));
        assert_eq!(second, 1_000_000_000 - first);
        // Third: nothing is left, so only the base rate.
        assert_eq!(process(&mut r, request(3, true, 600_000_000)), base());
        // Demand 1.8G > C: the fair share is negative. Flow 1 now asks for
        // nothing, returning everything it had: D = 900M, N = 2 ... (below).
        let mut r2 = rcp();
        process(&mut r2, request(1, true, 900_000_000));
        process(&mut r2, request(2, true, 900_000_000));
        // D = 900M now, N = 2: fs = 50M; left > 0 = desired -> a = 0 + 50M.
        assert_eq!(process(&mut r2, request(1, false, 0)), 50_000_000);
    }

    #[test]
    fn negative_fair_share_can_be_clamped() {
        let cfg = ExplicitRateConfig { nonnegative_fair_share: true, ..Default::default() };
        let mut r = RateAllocator::new(cfg, Rate::gbps(1));
        process(&mut r, request(1, true, 700_000_000));
        process(&mut r, request(2, true, 700_000_000));
        // D = 1.4G > C. Unclamped fs = (1G - 1.4G)/2 = -200M would give 500M;
        // clamped gives 700M.
        assert_eq!(process(&mut r, request(1, false, 700_000_000)), 700_000_000);
    }

    #[test]
    fn fin_returns_allocation_and_leaves() {
        let mut r = rcp();
        process(&mut r, request(1, true, 0));
        process(&mut r, request(1, false, 0));
        process(&mut r, fin(1));
        assert_eq!((r.flows(), r.allocated(), r.demand()), (0, 0, 0));
    }

    /// Issue 12, defect 2: with the header's a_t and r_t as the only memory,
    /// each of these left N, D or A off for good.
    #[test]
    fn repeated_and_orphaned_requests_leave_the_counters_exact() {
        let mut r = rcp();
        // A SYN sent again (its SYN-ACK was lost) is one flow, not two.
        process(&mut r, request(1, true, 300_000_000));
        process(&mut r, request(1, true, 300_000_000));
        assert_eq!((r.flows(), r.demand()), (1, 300_000_000));
        // A request whose answer was lost downstream: the next one returns
        // what this port granted, not what the sender last heard.
        process(&mut r, request(1, false, 200_000_000));
        let a = process(&mut r, request(1, false, 200_000_000));
        assert_eq!((r.allocated(), r.demand()), (a, 200_000_000));
        // A flow quenched before its SYN-ACK: its FIN returns what its SYN took.
        process(&mut r, request(2, true, 500_000_000));
        process(&mut r, fin(2));
        // A FIN sent again subtracts nothing more.
        process(&mut r, fin(2));
        assert_eq!((r.flows(), r.allocated(), r.demand()), (1, a, 200_000_000));
        assert_eq!(r.audit(&|f| f == 1), None);
        process(&mut r, fin(1));
        assert_eq!((r.flows(), r.allocated(), r.demand()), (0, 0, 0));
    }

    #[test]
    fn the_audit_names_flows_that_are_gone() {
        let mut r = rcp();
        process(&mut r, request(4, true, 0));
        process(&mut r, request(9, true, 0));
        let report = r.audit(&|f| f == 4).expect("flow 9 is gone");
        assert!(report.contains("flow 9"), "{report}");
    }

    #[test]
    fn capacity_controller_backs_off_under_queue_and_grows_while_the_link_is_idle() {
        let mut r = rcp();
        process(&mut r, request(1, true, 0));
        // After one interval, link fully used (100 KB in 800us = 1 Gbps) and 10 KB queued:
        // C = 1G + 0.1 (1G - 1G) - 1 * (80 kbit / 800 us = 100 Mbps) = 900 Mbps.
        let view = PortView { rate: Rate::gbps(1), queue_bytes: 10_000, tx_bytes: 100_000 };
        let mut p = request(1, false, 0);
        r.on_packet(Time(800_000_000), &view, 0, &mut p);
        assert!((r.capacity() - 0.9e9).abs() < 1.0, "{}", r.capacity());
        // Nothing sent since (a flow bottlenecked elsewhere): C grows by
        // α × link = 100 Mbps per interval (§4.4).
        let mut view = view;
        view.queue_bytes = 0;
        for k in 2..12u64 {
            let mut p = request(1, false, 0);
            r.on_packet(Time(k * 800_000_000), &view, 0, &mut p);
        }
        assert!((r.capacity() - 1.9e9).abs() < 1.0, "{}", r.capacity());
    }

    /// `capacity_max` (issue 18, D3 Fig. 12): the same idle link as above
    /// grows C to 1.9 Gbps unbounded, to 1.2 Gbps at most with the bound.
    #[test]
    fn capacity_max_bounds_the_controller() {
        let cfg = ExplicitRateConfig { capacity_max: Some(1.2), ..Default::default() };
        let mut r = RateAllocator::new(cfg, Rate::gbps(1));
        process(&mut r, request(1, true, 0));
        let view = PortView { rate: Rate::gbps(1), queue_bytes: 0, tx_bytes: 100_000 };
        for k in 1..12u64 {
            let mut p = request(1, false, 0);
            r.on_packet(Time(k * 800_000_000), &view, 0, &mut p);
        }
        assert_eq!(r.capacity(), 1.2e9);
        assert!(ExplicitRateConfig { capacity_max: Some(0.5), ..Default::default() }.validate().is_err());
    }

    #[test]
    fn utilization_is_measured_over_the_time_since_the_previous_update() {
        // A link sending at exactly 1 Gbps with no queue: C must stay at the
        // link rate whenever requests happen to arrive. No request between
        // 0 and 1500 us, then one at 1500 us and one at 1601 us: the last
        // window is 1500 -> 1601 us, during which 12.6 KB were sent (1 Gbps).
        // Measuring those bits over 800 us (from the boundary at 800 us)
        // would read 126 Mbps and inflate C by 87 Mbps.
        let mut r = rcp();
        process(&mut r, request(1, true, 0));
        for us in [1500u64, 1601] {
            let view = PortView { rate: Rate::gbps(1), queue_bytes: 0, tx_bytes: us * 125 };
            let mut p = request(1, false, 0);
            r.on_packet(Time(us * 1_000_000), &view, 0, &mut p);
            assert!((r.capacity() - GBPS).abs() < 1e3, "at {us} us: C = {}", r.capacity());
        }
    }

    #[test]
    fn capacity_recovers_from_zero_while_paused_flows_probe() {
        // A burst's full 100 KB queue takes C to 0 (β q / T = 1 Gbps) ...
        let mut r = rcp();
        process(&mut r, request(1, true, 0));
        let mut view = PortView { rate: Rate::gbps(1), queue_bytes: 100_000, tx_bytes: 100_000 };
        let mut p = request(1, false, 0);
        r.on_packet(Time(800_000_000), &view, 0, &mut p);
        assert_eq!(r.capacity(), 0.0);
        // ... then only base-rate requests flow (27 Mbps): C must grow back.
        view.queue_bytes = 0;
        for k in 2..6u64 {
            view.tx_bytes += 2_700;
            let mut p = request(1, false, 0);
            r.on_packet(Time(k * 800_000_000), &view, 0, &mut p);
        }
        assert!(r.capacity() > 0.3e9, "{}", r.capacity());
    }
}
