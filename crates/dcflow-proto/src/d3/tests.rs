//! Unit tests of D3 / RCP_dc: the sender's requests and pacing (§4.1-§4.2,
//! §4.5, §6.1.3), then the router's allocation (Snippet 1) and capacity
//! controller (§4.4) on hand-built requests.

use super::{ExplicitRateConfig, RateAllocator, RateHeader, RateSender, RATE_HEADER_BYTES};
use crate::agent::PortView;
use crate::endpoint::{Endpoint, FlowEvent, FlowInfo};
use crate::packet::{Packet, PacketKind, Sched, HEADER_BYTES};
use dcflow_core::{Bytes, Dur, FlowId, Rate, Time};

const MBPS: u64 = 1_000_000;

/// A 2-packet D3 flow on a 1 Gbps path through one switch, 100 us RTT.
fn sender(deadline: Dur, quenching: bool) -> RateSender {
    let info = FlowInfo {
        id: 7,
        size: Bytes(2 * 1460),
        start: Time::ZERO,
        deadline: Some(Time::ZERO + deadline),
        size_known: false,
        mss: 1460,
        line_rate: Rate::gbps(1),
        base_rtt: Dur::us(100),
        agent_hops: 1,
        dst: 0,
    };
    RateSender::new(info, &ExplicitRateConfig { quenching, ..Default::default() }, true)
}

/// The receiver's answer to `p` with the switch's allocation written in.
fn answer(p: &Packet, kind: PacketKind, alloc: u64, acked_to: u64) -> Packet {
    let mut a = *p;
    a.kind = kind;
    a.reverse = true;
    a.seq = acked_to;
    a.acked_seq = p.seq;
    if let Sched::Rate(h) = &mut a.sched {
        h.alloc[0] = alloc;
    }
    a
}

fn rate_header(p: &Packet) -> RateHeader {
    match p.sched {
        Sched::Rate(h) => h,
        _ => panic!("{:?} carries no rate header", p.kind),
    }
}

/// SYN at 0, its SYN-ACK granting `alloc` at 100 us, and the first data
/// packet, sent then with the next request.
fn first_data_packet(s: &mut RateSender, alloc: u64) -> Packet {
    let syn = s.poll_transmit(Time::ZERO).expect("SYN");
    let t1 = Time::ZERO + Dur::us(100);
    s.handle_packet(t1, &answer(&syn, PacketKind::SynAck, alloc, 0));
    let d1 = s.poll_transmit(t1).expect("first data packet");
    assert!(matches!(d1.sched, Sched::Rate(_)), "the request rides on the first packet");
    d1
}

/// [`first_data_packet`] at 500 Mbps, the second data packet, the first
/// ACK (500 Mbps) at 200 us, and the header-only request that follows, at
/// 200 us (nothing left to send).
fn all_sent_and_asking_again(s: &mut RateSender) -> Packet {
    let d1 = first_data_packet(s, 500 * MBPS);
    let t2 = s.poll_timeout().expect("paced");
    let d2 = s.poll_transmit(t2).expect("second data packet");
    assert_eq!(d2.sched, Sched::None, "one request per RTT");
    let t3 = Time::ZERO + Dur::us(200);
    s.handle_packet(t3, &answer(&d1, PacketKind::Ack, 500 * MBPS, 1460));
    let probe = s.poll_transmit(t3).expect("a header-only request");
    assert_eq!(probe.kind, PacketKind::Probe);
    probe
}

#[test]
fn a_larger_allocation_applies_at_once_to_the_pacing_gap() {
    // D3's SYN is answered with r + base rate (§4.5): here 2 Mbps, so the
    // first data packet (1562 B with the request) would be followed 36 ms
    // later (data gets 2 Mbps less the base rate). The feedback at 200 us
    // grants 500 Mbps: the second packet leaves about 25 us later.
    let mut s = sender(Dur::ms(10), false);
    let d1 = first_data_packet(&mut s, 2 * MBPS);
    let t2 = Time::ZERO + Dur::us(200);
    assert_eq!(s.poll_transmit(Time::ZERO + Dur::us(199)), None, "paced at 2 Mbps");
    // The data is not acknowledged yet (ACK of byte 0): only the feedback counts here.
    s.handle_packet(t2, &answer(&d1, PacketKind::Ack, 500 * MBPS, 0));
    // What is left of the 36 ms gap goes at ~498 Mbps: 25 us.
    let next = s.poll_timeout().unwrap();
    assert!(next <= t2 + Dur::us(26), "{next:?}");
    assert_eq!(s.poll_transmit(next).expect("second data packet").seq, 1460);
}

#[test]
fn a_flow_with_nothing_left_to_send_asks_for_nothing_near_its_deadline() {
    // Deadline 350 us: at 200 us less than 2 RTTs (200 us) are left, but
    // no data is: r = (0 - s_t rtt) / (d - 2 rtt) has no positive rate to
    // ask for. Treating "d < 2 rtt" as hopeless would ask the line rate.
    let mut s = sender(Dur::us(350), false);
    let probe = all_sent_and_asking_again(&mut s);
    assert_eq!(rate_header(&probe).desired, 0);
}

#[test]
fn quenching_spares_a_flow_that_can_still_finish() {
    // Same instant with quenching on (§6.1.3: terminate when the desired
    // rate exceeds the uplink or the deadline has passed): neither holds.
    let mut s = sender(Dur::us(350), true);
    all_sent_and_asking_again(&mut s);
    assert_eq!(s.poll_event(), None, "not terminated");
}

#[test]
fn quenching_terminates_a_flow_whose_deadline_has_passed() {
    let mut s = sender(Dur::us(350), true);
    let syn = s.poll_transmit(Time::ZERO).expect("SYN");
    // The SYN-ACK comes back after the deadline: the first request quenches.
    let late = Time::ZERO + Dur::us(400);
    s.handle_packet(late, &answer(&syn, PacketKind::SynAck, 500 * MBPS, 0));
    let fin = s.poll_transmit(late).expect("FIN");
    assert_eq!(fin.kind, PacketKind::Fin);
    assert_eq!(s.poll_event(), Some(FlowEvent::Terminated));
}

#[test]
fn a_syn_resent_after_the_deadline_is_a_fin_when_quenching() {
    // The SYN-ACK never comes; the SYN's timeout fires after the
    // deadline: the flow gives up with a FIN (returning what the first
    // SYN may have been counted for), instead of sending nothing ever.
    let mut s = sender(Dur::us(350), true);
    s.poll_transmit(Time::ZERO).expect("SYN");
    let expiry = s.poll_timeout().expect("SYN timeout");
    assert!(expiry > Time::ZERO + Dur::us(350));
    s.handle_timeout(expiry);
    let fin = s.poll_transmit(expiry).expect("FIN");
    assert_eq!(fin.kind, PacketKind::Fin);
    assert_eq!(s.poll_event(), Some(FlowEvent::Terminated));
}

/// Request cadence (D3 §4.1: a sender asks once per RTT): granted
/// 5 Mbps, the next data packet is 3.7 ms away; the request must not
/// wait for it but go header-only within about an RTT of the answer.
#[test]
fn a_flow_granted_little_still_asks_about_once_per_rtt() {
    let mut s = sender(Dur::ms(10), false);
    let d1 = first_data_packet(&mut s, 5 * MBPS);
    let t2 = Time::ZERO + Dur::us(200);
    s.handle_packet(t2, &answer(&d1, PacketKind::Ack, 5 * MBPS, 0));
    let next = s.poll_timeout().expect("armed");
    assert!(next <= t2 + Dur::us(100), "next request at {next:?}, not one RTT after {t2:?}");
    let p = s.poll_transmit(next).expect("a request");
    assert_eq!(p.kind, PacketKind::Probe);
    assert!(matches!(p.sched, Sched::Rate(_)));
}

/// A flow held at the base rate asks at the base
/// rate's pace (one 62-byte request per 300 us), not on every answer:
/// answered every 50 us, 110 such flows would keep a 1 Gbps port full of
/// requests, and the queue would hold C at 0 for good.
#[test]
fn a_paused_flow_asks_at_the_base_rate_pace() {
    let mut s = sender(Dur::ms(10), false);
    let base = ExplicitRateConfig::default().base_rate.0;
    let syn = s.poll_transmit(Time::ZERO).expect("SYN");
    let mut now = Time::ZERO + Dur::us(50);
    s.handle_packet(now, &answer(&syn, PacketKind::SynAck, base, 0));
    let mut sent = Vec::new();
    while now < Time::ZERO + Dur::ms(3) {
        match s.poll_transmit(now) {
            Some(p) => {
                assert_eq!(p.kind, PacketKind::Probe, "no data at the base rate");
                sent.push(now);
                // The answer: still the base rate, 50 us later.
                now += Dur::us(50);
                s.handle_packet(now, &answer(&p, PacketKind::Probe, base, 0));
            }
            None => now = s.poll_timeout().expect("armed"),
        }
    }
    let gap = Rate(base).tx_time(dcflow_core::Bytes((HEADER_BYTES + RATE_HEADER_BYTES) as u64));
    assert!(sent.windows(2).all(|w| w[1] - w[0] >= gap), "{sent:?}");
    assert!(sent.len() >= 9, "about one per {gap:?}: {sent:?}");
}

// The router (Snippet 1, §4.4).

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

/// With the header's a_t and r_t as the only memory,
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

/// `capacity_max` (D3 Fig. 12): the same idle link as above
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
