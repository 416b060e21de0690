//! D3's router: rate request processing (D3 §4.3, Snippet 1) and the capacity
//! controller (D3 §4.4). RCP_dc is this same allocator with every flow a
//! non-deadline flow (desired rate 0): "we also operate D3 in fair share mode
//! only ... We term this RCP_dc" (D3 §6.1), "exactly equivalent to D3 when flows
//! have no deadlines" (PDQ §5.1).

use crate::agent::PortView;
use crate::rate::ExplicitRateConfig;
use crate::packet::{Packet, Sched};
use dcflow_core::{Rate, Time};

/// Counters of one output port (D3 §4.3): N flows, demand D, allocation A, all
/// in bits per second, plus the controller's capacity C.
pub struct RateAllocator {
    cfg: ExplicitRateConfig,
    link: f64,
    capacity: f64,
    flows: u64,
    demand: f64,
    allocated: f64,
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
            flows: 0,
            demand: 0.0,
            allocated: 0.0,
            last_update: Time::ZERO,
            tx_at_last_update: 0,
        }
    }

    pub fn flows(&self) -> u64 {
        self.flows
    }
    pub fn capacity(&self) -> f64 {
        self.capacity
    }
    pub fn allocated(&self) -> f64 {
        self.allocated
    }
    pub fn demand(&self) -> f64 {
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
    /// and the counters are reset ("the router, during periods of low load,
    /// resets its counters", §4.4).
    fn update_capacity(&mut self, now: Time, port: &PortView) {
        if now < self.last_update + self.cfg.interval {
            return;
        }
        let t = self.cfg.interval.as_secs_f64();
        let sent_bits = (port.tx_bytes - self.tx_at_last_update) as f64 * 8.0;
        let used = sent_bits / (now.since(self.last_update).as_secs_f64());
        if self.flows == 0 {
            self.capacity = self.link;
            self.allocated = 0.0;
            self.demand = 0.0;
        } else {
            let queue = port.queue_bytes as f64 * 8.0 / t;
            let c = self.capacity + self.cfg.alpha * (self.link - used) - self.cfg.beta * queue;
            // No upper bound: while stale allocations or downstream
            // bottlenecks keep the link under-used, C rises until allocations
            // flow again ("the resulting drop in utilization drives up the
            // capacity", §4.4); queueing brings it back down.
            self.capacity = c.max(0.0);
        }
        self.tx_at_last_update = port.tx_bytes;
        self.last_update = now;
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
        // Line 3: return the current allocation; line 4: update demand.
        self.allocated -= h.prev_alloc[hop] as f64;
        self.demand -= h.prev_desired as f64;
        if h.leaving {
            // FIN "returns the flow's allocated rate" (§4.4) and leaves N.
            self.flows = self.flows.saturating_sub(1);
            h.alloc[hop] = 0;
            self.clamp_counters();
            return;
        }
        // Line 2: count new flows.
        if h.new_flow {
            self.flows += 1;
        }
        let desired = h.desired as f64;
        self.demand += desired;
        // Lines 5-6.
        let left = self.capacity - self.allocated;
        let mut fair_share = (self.capacity - self.demand) / self.flows.max(1) as f64;
        if self.cfg.nonnegative_fair_share {
            fair_share = fair_share.max(0.0);
        }
        // Burst tolerance (§4.5): "When a new flow starts, the fair share
        // assigned to its rate request is set to base rate."
        if h.new_flow {
            fair_share = self.cfg.base_rate.as_bps_f64();
        }
        // Lines 7-13.
        let mut a = if left > desired { desired + fair_share } else { left };
        // Line 14: at least the base rate.
        a = a.max(self.cfg.base_rate.as_bps_f64());
        // §4.4: never more than the previous router on the path.
        if hop > 0 {
            a = a.min(h.alloc[hop - 1] as f64);
        }
        let a = a.round().max(0.0) as u64;
        // Line 15.
        self.allocated += a as f64;
        h.alloc[hop] = a;
    }

    /// Counters are soft state (§4.4); never let rounding push them negative.
    fn clamp_counters(&mut self) {
        self.allocated = self.allocated.max(0.0);
        self.demand = self.demand.max(0.0);
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

    fn request(new_flow: bool, desired: u64, prev_desired: u64, prev_alloc: u64) -> Packet {
        let mut h = RateHeader::empty();
        h.new_flow = new_flow;
        h.desired = desired;
        h.prev_desired = prev_desired;
        h.prev_alloc[0] = prev_alloc;
        let mut p = Packet::new(0, PacketKind::Syn, false, Time::ZERO);
        p.sched = Sched::Rate(h);
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

    #[test]
    fn rcp_dc_new_flows_pause_one_rtt_then_share_equally() {
        let mut r = RateAllocator::new(ExplicitRateConfig::default(), Rate::gbps(1));
        let base = ExplicitRateConfig::default().base_rate.0;
        // Two non-deadline SYNs: each gets the base rate (burst tolerance).
        assert_eq!(process(&mut r, request(true, 0, 0, 0)), base);
        assert_eq!(process(&mut r, request(true, 0, 0, 0)), base);
        assert_eq!(r.flows(), 2);
        // Next RTT: each returns base and gets fs = (C - D)/N = 500 Mbps.
        assert_eq!(process(&mut r, request(false, 0, 0, base)), 500_000_000);
        assert_eq!(process(&mut r, request(false, 0, 0, base)), 500_000_000);
        assert!((r.allocated() - GBPS).abs() < 1.0);
    }

    #[test]
    fn deadline_flow_gets_its_demand_plus_fair_share_of_the_rest() {
        let mut r = RateAllocator::new(ExplicitRateConfig::default(), Rate::gbps(1));
        let base = ExplicitRateConfig::default().base_rate.0;
        process(&mut r, request(true, 0, 0, 0)); // non-deadline flow
        process(&mut r, request(true, 400_000_000, 0, 0)); // deadline flow, 400 Mbps
        // D = 400M, N = 2: fs = (1G - 400M)/2 = 300M. The deadline flow asks again
        // returning its SYN allocation (400M + base).
        let a = process(&mut r, request(false, 400_000_000, 400_000_000, 400_000_000 + base));
        assert_eq!(a, 700_000_000);
        // The non-deadline flow: left = 1G - 700M - 0 = 300M > 0 -> fs = 300M.
        assert_eq!(process(&mut r, request(false, 0, 0, base)), 300_000_000);
    }

    #[test]
    fn oversubscribed_requests_are_served_greedily_in_arrival_order() {
        let mut r = RateAllocator::new(ExplicitRateConfig::default(), Rate::gbps(1));
        let base = ExplicitRateConfig::default().base_rate.0;
        let first = process(&mut r, request(true, 600_000_000, 0, 0));
        assert_eq!(first, 600_000_000 + base);
        // Second asks 600M but only 1G - (600M + base) is left: it gets what's left.
        let second = process(&mut r, request(true, 600_000_000, 0, 0));
        assert_eq!(second, 1_000_000_000 - first);
        // Third: nothing is left, so only the base rate.
        assert_eq!(process(&mut r, request(true, 600_000_000, 0, 0)), base);
        // Demand 1.8G > C: the fair share is negative, (1G - 1.8G)/3.
        // A non-deadline request with enough left would get desired + fs < 0 -> base.
        let mut r2 = RateAllocator::new(ExplicitRateConfig::default(), Rate::gbps(1));
        process(&mut r2, request(true, 900_000_000, 0, 0));
        process(&mut r2, request(true, 900_000_000, 0, 0));
        // Flow 1 re-requests returning everything it had: left = 1G - (1G - 900M - base)... > 0.
        let a = process(&mut r2, request(false, 0, 900_000_000, 900_000_000 + base));
        // D = 900M now, N = 2: fs = 50M; left > 0 = desired -> a = 0 + 50M.
        assert_eq!(a, 50_000_000);
    }

    #[test]
    fn negative_fair_share_can_be_clamped() {
        let cfg = ExplicitRateConfig { nonnegative_fair_share: true, ..Default::default() };
        let mut r = RateAllocator::new(cfg, Rate::gbps(1));
        let base = ExplicitRateConfig::default().base_rate.0;
        process(&mut r, request(true, 700_000_000, 0, 0));
        process(&mut r, request(true, 700_000_000, 0, 0));
        // D = 1.4G > C. Flow 1 re-requests 700M returning 700M+base: left = 1G - 300M... 
        let a = process(&mut r, request(false, 700_000_000, 700_000_000, 700_000_000 + base));
        // Unclamped fs = (1G - 1.4G)/2 = -200M would give 500M; clamped gives 700M.
        assert_eq!(a, 700_000_000);
    }

    #[test]
    fn fin_returns_allocation_and_leaves() {
        let mut r = RateAllocator::new(ExplicitRateConfig::default(), Rate::gbps(1));
        let base = ExplicitRateConfig::default().base_rate.0;
        process(&mut r, request(true, 0, 0, 0));
        let a = process(&mut r, request(false, 0, 0, base));
        let mut fin = request(false, 0, 0, a);
        if let Sched::Rate(h) = &mut fin.sched {
            h.leaving = true;
        }
        process(&mut r, fin);
        assert_eq!(r.flows(), 0);
        assert!(r.allocated().abs() < 1.0);
    }

    #[test]
    fn capacity_controller_backs_off_under_queue_and_grows_while_the_link_is_idle() {
        let mut r = RateAllocator::new(ExplicitRateConfig::default(), Rate::gbps(1));
        process(&mut r, request(true, 0, 0, 0));
        // After one interval, link fully used (100 KB in 800us = 1 Gbps) and 10 KB queued:
        // C = 1G + 0.1 (1G - 1G) - 1 * (80 kbit / 800 us = 100 Mbps) = 900 Mbps.
        let view = PortView { rate: Rate::gbps(1), queue_bytes: 10_000, tx_bytes: 100_000 };
        let mut p = request(false, 0, 0, 0);
        r.on_packet(Time(800_000_000), &view, 0, &mut p);
        assert!((r.capacity() - 0.9e9).abs() < 1.0, "{}", r.capacity());
        // Nothing sent since (a flow bottlenecked elsewhere, or stale
        // allocations): C grows by α × link = 100 Mbps per interval (§4.4).
        let mut view = view;
        view.queue_bytes = 0;
        for k in 2..12u64 {
            let mut p = request(false, 0, 0, 0);
            r.on_packet(Time(k * 800_000_000), &view, 0, &mut p);
        }
        assert!((r.capacity() - 1.9e9).abs() < 1.0, "{}", r.capacity());
    }

    #[test]
    fn utilization_is_measured_over_the_time_since_the_previous_update() {
        // A link sending at exactly 1 Gbps with no queue: C must stay at the
        // link rate whenever requests happen to arrive. No request between
        // 0 and 1500 us, then one at 1500 us and one at 1601 us: the last
        // window is 1500 -> 1601 us, during which 12.6 KB were sent (1 Gbps).
        // Measuring those bits over 800 us (from the boundary at 800 us)
        // would read 126 Mbps and inflate C by 87 Mbps.
        let mut r = RateAllocator::new(ExplicitRateConfig::default(), Rate::gbps(1));
        process(&mut r, request(true, 0, 0, 0));
        for us in [1500u64, 1601] {
            let view = PortView { rate: Rate::gbps(1), queue_bytes: 0, tx_bytes: us * 125 };
            let mut p = request(false, 0, 0, 0);
            r.on_packet(Time(us * 1_000_000), &view, 0, &mut p);
            assert!((r.capacity() - GBPS).abs() < 1e3, "at {us} us: C = {}", r.capacity());
        }
    }

    #[test]
    fn capacity_recovers_from_zero_while_paused_flows_probe() {
        // A burst's full 100 KB queue takes C to 0 (β q / T = 1 Gbps) ...
        let mut r = RateAllocator::new(ExplicitRateConfig::default(), Rate::gbps(1));
        process(&mut r, request(true, 0, 0, 0));
        let mut view = PortView { rate: Rate::gbps(1), queue_bytes: 100_000, tx_bytes: 100_000 };
        let mut p = request(false, 0, 0, 0);
        r.on_packet(Time(800_000_000), &view, 0, &mut p);
        assert_eq!(r.capacity(), 0.0);
        // ... then only base-rate requests flow (27 Mbps): C must grow back.
        view.queue_bytes = 0;
        for k in 2..6u64 {
            view.tx_bytes += 2_700;
            let mut p = request(false, 0, 0, 0);
            r.on_packet(Time(k * 800_000_000), &view, 0, &mut p);
        }
        assert!(r.capacity() > 0.3e9, "{}", r.capacity());
    }
}
