//! MERP's switch algorithms walked on the paper's own examples.

use super::header::MerpHeader;
use super::memr::{self, NewFlow, Port};
use super::{MerpConfig, MerpSwitch};
use crate::{Packet, PacketKind, Sched};
use dcflow_core::{Dur, Rate, Time};

/// A link of 8 Mbps: C = 10^6 bytes per second, so Table 1's sizes are MB
/// and its times seconds.
fn port() -> MerpSwitch {
    MerpSwitch::new(&MerpConfig::default(), Rate::mbps(8))
}

fn packet(flow: u32, kind: PacketKind, size: u64, rest: u64) -> Packet {
    packet_at(flow, kind, size, rest, Time::ZERO)
}

fn packet_at(flow: u32, kind: PacketKind, size: u64, rest: u64, start: Time) -> Packet {
    let mut p = Packet::new(flow, kind, false, Time::ZERO);
    p.sched = Sched::Merp(MerpHeader {
        size,
        rest,
        asr: 1_000_000_000,
        esr: f64::INFINITY,
        theta: 800_000_000,
        rtt: Dur::ms(1),
        start,
        dst: 0,
        boost: false,
    });
    p
}

fn secs(s: f64) -> Time {
    Time::from_secs_f64(s)
}

/// The flow's virtual deadline, to a nanosecond (Alg. 1 line 11 recomputes
/// it from esr = size / (vdl - aT), which rounds).
fn vdl(s: &MerpSwitch, flow: u32) -> f64 {
    (s.table().iter().find(|e| e.flow == flow).unwrap().vdl * 1e9).round() / 1e9
}

fn asr_leaving(s: &MerpSwitch, flow: u32, kind: PacketKind, size: u64, rest: u64) -> u64 {
    let mut p = packet(flow, kind, size, rest);
    s.on_departure(&mut p);
    let Sched::Merp(h) = p.sched else { unreachable!() };
    h.asr
}

/// MERP Table 1 / Fig. 1(c): A (size 3) and C (size 4) at 0, B (size 3) at
/// 3. VDG puts A first (C would go last with the smaller ratio 7/4), then
/// at 3 C before B (B last: 7/3 < C's 10/4): A ends at 3, C at 7, B at 10;
/// mean FCT 17/3, maximum expansion ratio 7/3.
#[test]
fn vdg_and_rate_adj_walk_table_1() {
    let (a, b, c) = (0, 1, 2);
    let mb = 1_000_000;
    let mut s = port();
    s.on_arrival(secs(0.0), &mut packet(a, PacketKind::Syn, 3 * mb, 3 * mb));
    s.on_arrival(secs(0.0), &mut packet(c, PacketKind::Syn, 4 * mb, 4 * mb));
    assert_eq!((vdl(&s, a), vdl(&s, c)), (3.0, 7.0));
    // RateAdj: A is the first-flow (alpha C), C the second (n - 1)(1 - alpha)C.
    let alpha_c = (0.999 * 8e6_f64).floor() as u64;
    assert_eq!(asr_leaving(&s, a, PacketKind::Data, 3 * mb, 3 * mb), alpha_c);
    assert_eq!(asr_leaving(&s, c, PacketKind::Probe, 4 * mb, 4 * mb), (0.001 * 8e6_f64).floor() as u64);
    // Early start: with A's last 500 B left, less than alpha C RTT (999 B), C may send.
    s.on_arrival(secs(2.999), &mut packet(a, PacketKind::Data, 3 * mb, 500));
    assert_eq!(asr_leaving(&s, c, PacketKind::Probe, 4 * mb, 4 * mb), alpha_c);
    // A's FIN at 3 leaves the table; B arrives.
    s.on_arrival(secs(3.0), &mut packet(a, PacketKind::Fin, 3 * mb, 0));
    s.on_arrival(secs(3.0), &mut packet_at(b, PacketKind::Syn, 3 * mb, 3 * mb, secs(3.0)));
    assert_eq!((vdl(&s, c), vdl(&s, b)), (7.0, 10.0));
    let fct = [3.0, 7.0 - 0.0, 10.0 - 3.0];
    assert!((fct.iter().sum::<f64>() / 3.0 - 17.0 / 3.0).abs() < 1e-12);
    let er = [fct[0] / 3.0, fct[1] / 4.0, fct[2] / 3.0];
    assert!((er.iter().cloned().fold(0.0, f64::max) - 7.0 / 3.0).abs() < 1e-12);
}

/// Alg. 1 lines 9-11: a downstream port's smaller esr wins and sets its vdl.
#[test]
fn drc_takes_the_smaller_esr_of_the_path() {
    let mut s = port();
    let mut syn = packet(0, PacketKind::Syn, 2_000_000, 2_000_000);
    if let Sched::Merp(h) = &mut syn.sched {
        h.esr = 4e6; // bits per second: 0.5 MB/s upstream
    }
    s.on_arrival(secs(0.0), &mut syn);
    let Sched::Merp(h) = syn.sched else { unreachable!() };
    assert_eq!(h.esr, 4e6);
    assert_eq!(vdl(&s, 0), 4.0);
}

/// §5.2's example: f1 (size 4) on P1, f2 and f3 (size 1) on P2; a new f4
/// of size 1 does better on P1 (average FCT 2.25 against 2.5): GPE gives
/// it expansion ratio 1 there (it goes before f1) and 3 on P2.
#[test]
fn memr_routes_the_new_flow_where_its_expansion_ratio_is_least() {
    let mb = 1_000_000;
    let mut p1 = port();
    p1.on_arrival(secs(0.0), &mut packet(1, PacketKind::Syn, 4 * mb, 4 * mb));
    let mut p2 = port();
    p2.on_arrival(secs(0.0), &mut packet(2, PacketKind::Syn, mb, mb));
    p2.on_arrival(secs(0.0), &mut packet(3, PacketKind::Syn, mb, mb));
    let f4 = NewFlow { size: mb as f64, dst: 9 };
    assert_eq!(memr::gpe(Port::of(&p1), &f4, secs(0.0)), 1.0);
    assert_eq!(memr::gpe(Port::of(&p2), &f4, secs(0.0)), 3.0);
    assert_eq!(memr::choose(&[Port::of(&p2), Port::of(&p1)], &f4, secs(0.0)), 1);
}

/// Alg. 6 line 12: a flow to the same destination, at least as large, with
/// a lower esr (a downstream bottleneck) caps the tail rate of its port.
#[test]
fn gmer_reads_the_esr_of_flows_to_the_same_destination() {
    let mb = 1_000_000;
    let mut slow = port();
    let mut syn = packet(1, PacketKind::Syn, 4 * mb, 4 * mb);
    if let Sched::Merp(h) = &mut syn.sched {
        h.esr = 8e5; // 0.1 MB/s: a failed link downstream
        h.dst = 7;
    }
    slow.on_arrival(secs(0.0), &mut syn);
    let f = NewFlow { size: mb as f64, dst: 7 };
    let other = NewFlow { size: mb as f64, dst: 8 };
    assert_eq!(memr::gmer(Port::of(&slow), &f, secs(0.0)), 1e5);
    assert!(memr::gmer(Port::of(&slow), &other, secs(0.0)) > 1e5);
}
