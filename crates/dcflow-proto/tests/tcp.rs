//! TCP NewReno / DCTCP senders over the two-endpoint harness.

mod harness;

use dcflow_core::{Bytes, Dur, Rate, Time};
use dcflow_proto::tcp::{DctcpConfig, TcpConfig, TcpSender};
use dcflow_proto::FlowInfo;
use harness::{flow, run, LinkSetup, Loss, Outcome};

const RATE: Rate = Rate::gbps(1);
const RTT: Dur = Dur::us(100);
const MTU: u64 = 1500;

fn idle_setup() -> LinkSetup {
    LinkSetup::new(RATE, RTT, Bytes::mb(4))
}

fn tcp(info: FlowInfo, setup: &LinkSetup) -> (Outcome, TcpSender) {
    let mut s = TcpSender::new(info, &TcpConfig::default());
    let o = run(info, &mut s, setup);
    (o, s)
}

fn complete(o: &Outcome, info: &FlowInfo) {
    assert_eq!(o.bytes_delivered, info.size.0, "{o:?}");
    assert!(o.delivered.is_some() && o.closed.is_some(), "delivered {:?} closed {:?}", o.delivered, o.closed);
    assert!(o.closed >= o.delivered);
}

/// Receiver-side completion time of a flow on an idle link, from first
/// principles: handshake RTT, the idle gaps of slow start (init_cwnd doubling
/// each round until a round's burst outlasts the ACK clock's RTT), the
/// serialisation of every data packet, and the last packet's propagation.
fn expected_delivery(info: &FlowInfo, init_cwnd: u64) -> Dur {
    let d = Dur(RTT.0 / 2);
    let tx = |b: u64| RATE.tx_time(Bytes(b));
    let handshake = tx(40) + d + tx(40) + d;
    // From the first bit of a round to the ACK of its first packet.
    let ack_clock = tx(MTU) + d + tx(40) + d;
    let mut idle = Dur::ZERO;
    let mut w = init_cwnd;
    while tx(MTU).0 * w < ack_clock.0 {
        idle += ack_clock - Dur(tx(MTU).0 * w);
        w *= 2;
    }
    let mss = info.mss as u64;
    let full = info.size.0 / mss;
    let last = info.size.0 - full * mss;
    let mut wire = Dur(tx(MTU).0 * full);
    if last > 0 {
        wire += tx(last + 40);
    }
    handshake + idle + wire + d
}

#[test]
fn one_megabyte_on_an_idle_link_matches_slow_start_model() {
    let info = flow(Bytes::mb(1), RATE, RTT);
    let (o, s) = tcp(info, &idle_setup());
    complete(&o, &info);
    let expected = expected_delivery(&info, 2);
    let got = o.delivered.unwrap().since(Time::ZERO);
    let err = (got.as_secs_f64() - expected.as_secs_f64()).abs() / expected.as_secs_f64();
    assert!(err < 0.02, "delivered at {got:?}, model {expected:?} ({:.3}%)", err * 100.0);
    // Sanity of the model: handshake 1 RTT + 3 idle slow-start rounds + 8.2 ms.
    assert!(expected > Dur::us(8_500) && expected < Dur::us(8_600), "{expected:?}");
    // The sender closes when the last ACK is back: one more one-way delay.
    let closed = o.closed.unwrap().since(o.delivered.unwrap());
    assert!(closed >= Dur::us(50) && closed < Dur::us(51), "{closed:?}");
    assert_eq!((s.retransmits(), s.timeouts(), o.dropped_buffer), (0, 0, 0));
    assert_eq!(o.data_sent, info.packets());
    assert_eq!(o.acks, info.packets());
    // No flow beats its ideal: size / rate + one RTT.
    assert!(got > RATE.tx_time(info.size) + RTT);
}

#[test]
fn without_handshake_the_flow_saves_one_rtt() {
    let info = flow(Bytes::mb(1), RATE, RTT);
    let (with, _) = tcp(info, &idle_setup());
    let mut s = TcpSender::new(info, &TcpConfig { handshake: false, ..TcpConfig::default() });
    let without = run(info, &mut s, &idle_setup());
    complete(&without, &info);
    let saved = with.delivered.unwrap().since(without.delivered.unwrap());
    let hs = RTT + RATE.tx_time(Bytes(80));
    assert_eq!(saved, hs, "exactly the SYN / SYN-ACK round trip");
}

#[test]
fn single_loss_is_repaired_by_fast_retransmit() {
    let info = flow(Bytes::mb(1), RATE, RTT);
    let mut setup = idle_setup();
    setup.loss = Loss { data_seqs_once: vec![100 * info.mss as u64], every_nth_data: None };
    let (o, s) = tcp(info, &setup);
    complete(&o, &info);
    assert_eq!(o.dropped_loss, 1);
    assert_eq!((s.fast_retransmits(), s.retransmits(), s.timeouts()), (1, 1, 0));
    // Costs far less than an RTO over the loss-free run.
    let (base, _) = tcp(info, &idle_setup());
    let extra = o.delivered.unwrap().since(base.delivered.unwrap());
    assert!(extra < Dur::ms(1), "{extra:?}");
    // Window was halved: ssthresh below the loss-free window.
    assert!(s.ssthresh() < u64::MAX);
}

#[test]
fn losing_the_first_window_forces_a_timeout() {
    let info = flow(Bytes::kb(100), RATE, RTT);
    let mut setup = idle_setup();
    setup.loss.data_seqs_once = vec![0, info.mss as u64];
    let (o, s) = tcp(info, &setup);
    complete(&o, &info);
    assert_eq!((s.timeouts(), s.fast_retransmits()), (1, 0));
    assert_eq!(o.dropped_loss, 2);
    // The RTO is rto_init = max(rto_min, 3 base_rtt) = 10 ms after the data left.
    let (base, _) = tcp(info, &idle_setup());
    let extra = o.delivered.unwrap().since(base.delivered.unwrap());
    assert!(extra >= Dur::ms(10) && extra < Dur::ms(11), "{extra:?}");
}

#[test]
fn losing_the_last_packets_forces_a_timeout_not_below_rto_min() {
    let info = flow(Bytes::mb(1), RATE, RTT);
    let n = info.packets();
    let mss = info.mss as u64;
    let mut setup = idle_setup();
    setup.loss.data_seqs_once = vec![(n - 2) * mss, (n - 1) * mss];
    let (o, s) = tcp(info, &setup);
    complete(&o, &info);
    assert_eq!((s.timeouts(), s.retransmits(), s.fast_retransmits()), (1, 2, 0));
    // SRTT is ~ ms here (queueing), but the timer never fires before rto_min.
    assert!(s.rto() >= TcpConfig::default().rto_min);
    let (base, _) = tcp(info, &idle_setup());
    let extra = o.delivered.unwrap().since(base.delivered.unwrap());
    assert!(extra >= Dur::ms(10), "{extra:?}");
    assert!(extra < Dur::ms(15), "{extra:?}");
}

#[test]
fn a_tiny_buffer_drops_but_every_byte_arrives() {
    let info = flow(Bytes::mb(1), RATE, RTT);
    let setup = LinkSetup::new(RATE, RTT, Bytes(6 * MTU));
    let (o, s) = tcp(info, &setup);
    complete(&o, &info);
    assert!(o.dropped_buffer > 0);
    // Every dropped packet had to be sent again.
    assert!(s.retransmits() >= o.dropped_buffer, "{} < {}", s.retransmits(), o.dropped_buffer);
    assert!(o.data_sent >= info.packets() + o.dropped_buffer);
    assert!(o.max_queue <= 6 * MTU);
    assert!(s.fast_retransmits() > 0);
}

#[test]
fn periodic_loss_completes() {
    let info = flow(Bytes::mb(1), RATE, RTT);
    let mut setup = idle_setup();
    setup.loss.every_nth_data = Some(50);
    let (o, s) = tcp(info, &setup);
    complete(&o, &info);
    assert!(o.dropped_loss > 0);
    assert!(s.fast_retransmits() > 0);
}

fn long_flow_setup(k: Option<Bytes>) -> LinkSetup {
    let mut s = LinkSetup::new(RATE, RTT, Bytes(200 * MTU));
    s.ecn_k = k;
    s
}

#[test]
fn dctcp_holds_the_queue_near_k_while_newreno_fills_the_buffer() {
    let info = flow(Bytes::mb(5), RATE, RTT);
    let k = Bytes(20 * MTU); // DCTCP §4: K = 20 packets at 1 Gbps
    let setup = long_flow_setup(Some(k));
    let mut d = TcpSender::dctcp(info, &DctcpConfig::default());
    let od = run(info, &mut d, &setup);
    complete(&od, &info);
    assert_eq!((d.timeouts(), od.dropped_buffer), (0, 0));
    assert!(od.ecn_marked > 0);
    let end = od.delivered.unwrap();
    let half = Time(end.0 / 2);
    let (max, mean) = od.queue_stats(half, end);
    // Second half of the flow: the queue oscillates a few packets around K.
    assert!(max <= k.0 + 4 * MTU, "max queue {max} vs K {}", k.0);
    assert!(mean > k.0 as f64 * 0.75 && mean < k.0 as f64 * 1.25, "mean queue {mean} vs K {}", k.0);
    let alpha = d.alpha().unwrap();
    assert!(alpha > 0.0 && alpha < 0.5, "alpha {alpha}");
    // Full throughput: within 5% of the idle-link model.
    let model = expected_delivery(&info, 2);
    assert!(end.since(Time::ZERO).as_secs_f64() < model.as_secs_f64() * 1.05);

    // NewReno ignores the marks and fills the buffer until it drops.
    let mut r = TcpSender::new(info, &TcpConfig::default());
    let or = run(info, &mut r, &setup);
    complete(&or, &info);
    assert!(or.dropped_buffer > 0);
    assert!(or.max_queue + MTU > 200 * MTU, "max queue {}", or.max_queue);
    assert!(r.fast_retransmits() > 0);
}

#[test]
fn runs_are_deterministic() {
    let info = flow(Bytes::mb(1), RATE, RTT);
    let mut setup = LinkSetup::new(RATE, RTT, Bytes(6 * MTU));
    setup.ecn_k = Some(Bytes(3 * MTU));
    let once = || {
        let mut s = TcpSender::new(info, &TcpConfig::default());
        let o = run(info, &mut s, &setup);
        let mut d = TcpSender::dctcp(info, &DctcpConfig::default());
        let od = run(info, &mut d, &setup);
        (o, s.retransmits(), s.timeouts(), od, d.retransmits(), d.cwnd())
    };
    assert_eq!(once(), once());
}
