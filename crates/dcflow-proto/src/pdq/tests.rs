//! Unit tests walking PDQ's Algorithms 1-3 on hand-built flow lists.

use super::header::{PdqHeader, NOBODY};
use super::switch::{PdqSwitch, SwitchParams};
use super::{Comparator, PausedElsewhere, UnlistedIndex};
use crate::agent::PortView;
use crate::flow_list::Entry;
use dcflow_core::{Dur, Rate, Time};

pub(crate) const C: u64 = 1_000_000_000;
pub(crate) const RTT: Dur = Dur::us(100);
pub(crate) const ME: u32 = 7;
pub(crate) const OTHER: u32 = 9;

fn params(k: f64, x: Option<f64>, dampening: f64) -> SwitchParams {
    SwitchParams { k, probe_x: x, dampening, r_pdq: 1.0, min_rate: 0.0, max_flows: None, comparator: Comparator::EdfSjf, unbounded_list: false, unlisted_index: UnlistedIndex::Rank, paused_elsewhere: PausedElsewhere::Untouched }
}

fn switch(p: SwitchParams) -> PdqSwitch {
    PdqSwitch::with_params(p, ME, Rate(C))
}

fn port() -> PortView {
    PortView { rate: Rate(C), queue_bytes: 0, tx_bytes: 0 }
}

/// A header as a sender writes it: R_H = R_max, expected time `t_us`.
fn hdr(t_us: u64) -> PdqHeader {
    PdqHeader {
        rate: C,
        pause_by: NOBODY,
        deadline: Time::MAX,
        expected: Dur::us(t_us),
        rtt: RTT,
        inter_probe: 0.0,
        crit: Dur::us(t_us).0,
    }
}

fn entry(flow: u64, t_us: u64, rate: u64, pause_by: u32) -> Entry {
    Entry {
        flow,
        rate: rate as f64,
        pause_by,
        deadline: Time::MAX,
        expected: Dur::us(t_us).0,
        rtt: RTT.0,
        crit: Dur::us(t_us).0,
        seen: Time::ZERO,
    }
}

/// Forward then reverse pass of one packet through one switch.
fn round_trip(s: &mut PdqSwitch, now: Time, flow: u64, mut h: PdqHeader) -> PdqHeader {
    s.on_forward(now, &port(), flow, &mut h);
    s.on_reverse(flow, &mut h);
    h
}

#[test]
fn alg1_acceptance_takes_two_phases() {
    let mut s = switch(params(0.0, None, 0.0));
    let mut h = hdr(8000);
    s.on_forward(Time::ZERO, &port(), 1, &mut h);
    // Forward: accepted in the header, but the switch's state only says "added".
    assert_eq!((h.pause_by, h.rate), (NOBODY, C));
    let e = s.list()[0];
    assert_eq!((e.flow, e.rate, e.pause_by), (1, 0.0, ME), "R_i = 0 and not sending until the ACK");
    assert_eq!(s.kappa(), 0);
    // Reverse (Algorithm 3): the global decision lands in the state.
    s.on_reverse(1, &mut h);
    let e = s.list()[0];
    assert_eq!((e.rate, e.pause_by), (C as f64, NOBODY));
    assert_eq!(s.kappa(), 1);
}

#[test]
fn alg1_pauses_less_critical_and_preempts_for_more_critical() {
    let mut s = switch(params(0.0, None, 0.0));
    round_trip(&mut s, Time::ZERO, 1, hdr(5000));
    // A less critical flow finds no bandwidth: paused by this switch.
    let h = round_trip(&mut s, Time::ZERO, 2, hdr(9000));
    assert_eq!((h.pause_by, h.rate), (ME, 0));
    assert_eq!(s.list()[1].pause_by, ME);
    // A more critical flow preempts: Availbw(0) = C.
    let h = round_trip(&mut s, Time::ZERO, 3, hdr(1000));
    assert_eq!((h.pause_by, h.rate), (NOBODY, C));
    // Flow 1's next packet now finds flow 3's rate ahead of it: paused.
    let h = round_trip(&mut s, Time::ZERO, 1, hdr(4990));
    assert_eq!((h.pause_by, h.rate), (ME, 0));
    // Adding flow 3 made the list exceed 2κ = 2: the least critical (2) left.
    assert_eq!(s.list().iter().map(|e| e.flow).collect::<Vec<_>>(), vec![3, 1]);
}

#[test]
fn paused_by_another_switch_is_removed_in_both_directions() {
    let mut s = switch(params(0.0, None, 0.0));
    round_trip(&mut s, Time::ZERO, 1, hdr(5000));
    round_trip(&mut s, Time::ZERO, 2, hdr(6000));
    // Algorithm 1: P_H = other switch -> remove and leave the header alone.
    let mut h = hdr(5000);
    h.pause_by = OTHER;
    s.on_forward(Time::ZERO, &port(), 1, &mut h);
    assert_eq!(s.position(1), None);
    assert_eq!(h.pause_by, OTHER);
    // Algorithm 3: a downstream switch paused flow 2 after we accepted it.
    let mut h = hdr(6000);
    s.on_forward(Time::ZERO, &port(), 2, &mut h);
    assert_eq!(h.pause_by, NOBODY, "we accept it");
    h.pause_by = OTHER; // ... the next switch does not
    s.on_reverse(2, &mut h);
    assert_eq!(h.rate, 0, "a paused flow's rate is 0 on the way back");
    assert_eq!(s.position(2), None);
}

/// A probe paused by a switch further down the path, which that switch may
/// accept in the same pass. Under "untouched" it leaves this port with the
/// sender's R_max whatever this port serves; under "cap" with what Availbw
/// gives it at its place here: nothing behind a more critical flow that
/// holds all of C (so this switch pauses it: P_H = myID), 600 Mbps once
/// that one is limited to 400 Mbps elsewhere, all of C ahead of a less
/// critical one, which this port then
/// preempts when the flow's data arrives (PDQ §4's convergence needs that).
#[test]
fn paused_elsewhere_caps_the_rate_at_what_its_place_here_gives() {
    for (rule, behind, behind_400, ahead) in
        [(PausedElsewhere::Untouched, C, C, C), (PausedElsewhere::Cap, 0, 600_000_000, C)]
    {
        let mut p = params(0.0, None, 0.0);
        p.paused_elsewhere = rule;
        let mut s = switch(p);
        round_trip(&mut s, Time::ZERO, 1, hdr(1000));
        let probe = |s: &mut PdqSwitch, t_us: u64| {
            let mut h = hdr(t_us);
            h.pause_by = OTHER;
            s.on_forward(Time::ZERO, &port(), 2, &mut h);
            assert_eq!(s.position(2), None, "{rule:?}: removed either way");
            // Nothing left here: this switch pauses it instead.
            if h.pause_by == ME { 0 } else { h.rate }
        };
        assert_eq!(probe(&mut s, 5000), behind, "{rule:?}: behind flow 1");
        assert_eq!(probe(&mut s, 500), ahead, "{rule:?}: ahead of flow 1");
        let mut h1 = hdr(1000);
        h1.rate = 400_000_000;
        round_trip(&mut s, Time::ZERO, 1, h1);
        assert_eq!(probe(&mut s, 5000), behind_400, "{rule:?}: behind flow 1 at 400 Mbps");
    }
}

#[test]
fn alg2_early_start_budget_is_k() {
    // List: two nearly-completed sending flows (T/RTT = 1.5 each) ahead of
    // flow 3. With K = 2 the first is "free" (X = 1.5 < 2), the second too
    // (checked while X = 1.5 < K), so flow 3 still sees the whole link.
    let mut s = switch(params(2.0, None, 0.0));
    s.insert_entry(entry(1, 150, C, NOBODY));
    s.insert_entry(entry(2, 160, C, NOBODY));
    s.insert_entry(entry(3, 8000, 0, ME));
    s.insert_entry(entry(4, 9000, 0, ME));
    assert_eq!(s.availbw(Time::ZERO, 2), C as f64);
    // Flow 4: flows 1 and 2 exhaust the budget (X = 3.1 >= K), and flow 3,
    // more critical and paused here, gets the capacity first ...
    assert_eq!(s.availbw(Time::ZERO, 3), 0.0);
    // ... while it probes: gone quiet for long, it holds nothing back.
    assert_eq!(s.availbw(Time::ZERO + Dur::ms(10), 3), C as f64);
    // After flow 3 is accepted at C, flow 4 has nothing left.
    s.insert_entry(entry(3, 8000, C, NOBODY));
    assert_eq!(s.availbw(Time::ZERO, 3), 0.0);
    // With K = 1 neither nearly-completed flow qualifies (1.5 >= 1).
    let mut s1 = switch(params(1.0, None, 0.0));
    s1.insert_entry(entry(1, 150, C, NOBODY));
    s1.insert_entry(entry(3, 8000, 0, ME));
    assert_eq!(s1.availbw(Time::ZERO, 1), 0.0);
    // Budget exhausted: three flows at T/RTT = 0.9 with K = 2 -> the third
    // one counts (X = 1.8 < 2 admits it, X = 2.7 afterwards), a fourth would not.
    let mut s2 = switch(params(2.0, None, 0.0));
    for f in 1..=4 {
        s2.insert_entry(entry(f, 90 + f, C / 2, NOBODY));
    }
    s2.insert_entry(entry(9, 8000, 0, ME));
    assert_eq!(s2.availbw(Time::ZERO, 4), (C / 2) as f64, "only the 4th nearly-completed flow is counted");
    // Basic PDQ (K = 0): no Early Start at all.
    let mut b = switch(params(0.0, None, 0.0));
    b.insert_entry(entry(1, 10, C, NOBODY));
    b.insert_entry(entry(2, 8000, 0, ME));
    assert_eq!(b.availbw(Time::ZERO, 1), 0.0);
}

#[test]
fn early_start_accepts_the_next_flow_before_the_current_one_ends() {
    let mut s = switch(params(2.0, None, 0.0));
    round_trip(&mut s, Time::ZERO, 1, hdr(5000));
    assert_eq!(round_trip(&mut s, Time::ZERO, 2, hdr(8000)).pause_by, ME);
    // Flow 1 is nearly done: T = 1.5 RTT < K.
    round_trip(&mut s, Time::ZERO, 1, hdr(150));
    let h = round_trip(&mut s, Time::ZERO, 2, hdr(8000));
    assert_eq!((h.pause_by, h.rate), (NOBODY, C));
}

#[test]
fn dampening_blocks_a_second_paused_flow_for_one_rtt() {
    let mut s = switch(params(0.0, None, 1.0));
    // Prime RTT_avg with the header's RTT.
    let h = round_trip(&mut s, Time::ZERO, 1, hdr(5000));
    assert_eq!(h.pause_by, NOBODY, "the first paused flow is accepted");
    // Flow 1 leaves (TERM); flow 2 and 3 burst in right after flow 1 was accepted.
    s.on_term(1);
    let t = Time::ZERO + Dur::us(10);
    let h2 = round_trip(&mut s, t, 2, hdr(6000));
    assert_eq!(h2.pause_by, ME, "within the dampening period: paused although Availbw > 0");
    // After the period (one average RTT), the paused flow is accepted.
    let later = Time::ZERO + RTT + Dur::us(1);
    let h2 = round_trip(&mut s, later, 2, hdr(6000));
    assert_eq!((h2.pause_by, h2.rate), (NOBODY, C));
    // ... and now a third paused flow is dampened again, though more critical.
    let h3 = round_trip(&mut s, later + Dur::us(5), 3, hdr(100));
    assert_eq!(h3.pause_by, ME);
}

/// Dampening holds "after a switch has accepted a flow" (§3.3.2), and
/// acceptance takes two phases (§3.3.1): a flow this switch let through on
/// the forward pass but a downstream switch paused was not accepted. Its
/// reverse pass ends the dampening period, so the next paused flow can start
/// (else, on multi-hop paths, every tentative acceptance idles the link for
/// an RTT: M-PDQ on BCube, docs/fidelity-pdq.md).
#[test]
fn dampening_ends_when_the_flow_is_paused_downstream() {
    let mut s = switch(params(0.0, None, 1.0));
    let mut h1 = hdr(5000);
    s.on_forward(Time::ZERO, &port(), 1, &mut h1);
    assert_eq!(h1.pause_by, NOBODY, "we let flow 1 through");
    h1.pause_by = OTHER; // ... the next switch pauses it
    s.on_reverse(1, &mut h1);
    let h2 = round_trip(&mut s, Time::ZERO + Dur::us(10), 2, hdr(6000));
    assert_eq!((h2.pause_by, h2.rate), (NOBODY, C), "flow 1 was never accepted: no dampening");
    // A flow accepted by the whole path (empty P_H on the way back) still dampens.
    let h3 = round_trip(&mut s, Time::ZERO + Dur::us(20), 3, hdr(100));
    assert_eq!(h3.pause_by, ME);
}

#[test]
fn suppressed_probing_sets_inter_probe_to_x_times_index() {
    let mut s = switch(params(0.0, Some(0.2), 0.0));
    round_trip(&mut s, Time::ZERO, 1, hdr(1000));
    for (f, t) in [(2, 2000), (3, 3000), (4, 4000)] {
        round_trip(&mut s, Time::ZERO, f, hdr(t));
    }
    // The list holds 2κ = 2 flows: flows 3, 4 were not stored, paused anyway.
    assert_eq!(s.list().len(), 2);
    let h = round_trip(&mut s, Time::ZERO, 2, hdr(2000));
    assert_eq!(h.pause_by, ME);
    assert!((h.inter_probe - 0.2).abs() < 1e-6, "index 1: X x 1 = {}", h.inter_probe);
    let h = round_trip(&mut s, Time::ZERO, 4, hdr(4000));
    assert!((h.inter_probe - 0.6).abs() < 1e-6, "beyond the list, behind flow 3: X x (2 + 1), {}", h.inter_probe);
    // A larger I_H set upstream is kept (max).
    let mut h = hdr(2000);
    s.on_forward(Time::ZERO, &port(), 2, &mut h);
    h.inter_probe = 3.0;
    s.on_reverse(2, &mut h);
    assert_eq!(h.inter_probe, 3.0);
    // Without Suppressed Probing the field is left alone.
    let mut n = switch(params(0.0, None, 0.0));
    round_trip(&mut n, Time::ZERO, 1, hdr(1000));
    assert_eq!(round_trip(&mut n, Time::ZERO, 2, hdr(2000)).inter_probe, 0.0);
}

#[test]
fn rate_controller_drains_the_queue_every_two_rtts() {
    let mut s = switch(params(0.0, None, 0.0));
    round_trip(&mut s, Time::ZERO, 1, hdr(5000));
    // 5 KB queued: q / (2 RTT) = 40 kbit / 200 us = 200 Mbps.
    let q = PortView { rate: Rate(C), queue_bytes: 5_000, tx_bytes: 0 };
    let mut h = hdr(5000);
    s.on_forward(Time::ZERO + Dur::us(100), &q, 1, &mut h);
    assert_eq!(s.capacity(), C as f64, "not yet two RTTs");
    s.on_forward(Time::ZERO + Dur::us(201), &q, 1, &mut h);
    assert!((s.capacity() - 0.8e9).abs() < 1.0, "{}", s.capacity());
    assert_eq!(h.rate, 800_000_000);
    // Empty queue: back to r_PDQ.
    let mut h = hdr(5000);
    s.on_forward(Time::ZERO + Dur::us(402), &port(), 1, &mut h);
    assert_eq!(s.capacity(), C as f64);
}

#[test]
fn hard_limit_m_serves_the_rest_with_rcp() {
    let mut p = params(0.0, None, 0.0);
    p.max_flows = Some(1);
    let mut s = switch(p);
    // Flow 1 is limited to 400 Mbps elsewhere (R_H arrives lowered).
    let mut h = hdr(1000);
    h.rate = 400_000_000;
    round_trip(&mut s, Time::ZERO, 1, h);
    // Two more flows do not fit in M = 1: they share the 600 Mbps left.
    let h2 = round_trip(&mut s, Time::ZERO, 2, hdr(5000));
    assert_eq!((h2.pause_by, h2.rate), (NOBODY, 600_000_000));
    let h3 = round_trip(&mut s, Time::ZERO, 3, hdr(6000));
    assert_eq!((h3.pause_by, h3.rate), (NOBODY, 300_000_000));
}

/// The RCP fallback (§3.3.1) serves flows outside the M most critical "that
/// are not paused by any other switches": that includes a flow this switch
/// paused itself while PDQ used the whole link. Its sender echoes P_S, so its
/// next probe carries P_H = this switch; once capacity is left over, the
/// switch must clear P_H, or Algorithm 3 zeroes the share on the way back.
#[test]
fn rcp_fallback_serves_a_flow_this_switch_paused_earlier() {
    let mut p = params(0.0, None, 0.0);
    p.max_flows = Some(1);
    let mut s = switch(p);
    // Flow 1 (the listed one) first takes the whole link: flow 2's share is 0.
    round_trip(&mut s, Time::ZERO, 1, hdr(1000));
    let h2 = round_trip(&mut s, Time::ZERO, 2, hdr(5000));
    assert_eq!((h2.pause_by, h2.rate), (ME, 0));
    // Flow 1 is then limited to 400 Mbps elsewhere.
    let mut h1 = hdr(1000);
    h1.rate = 400_000_000;
    round_trip(&mut s, Time::ZERO, 1, h1);
    // Flow 2's probe echoes P_S = this switch; it gets the 600 Mbps left.
    let mut probe = hdr(5000);
    probe.pause_by = ME;
    let h2 = round_trip(&mut s, Time::ZERO, 2, probe);
    assert_eq!((h2.pause_by, h2.rate), (NOBODY, 600_000_000));
}

/// `min_rate` filters the slivers C − A that flows ahead leave (not in the
/// paper). When a queue pushes the rate controller's C itself below it, the
/// most critical flow still gets C (Algorithm 2 returns C − 0), while a flow
/// behind a sending one still gets nothing from the sliver.
#[test]
fn min_rate_never_pauses_the_most_critical_flow() {
    let mut p = params(0.0, None, 0.0);
    p.min_rate = 0.1;
    let mut s = switch(p);
    round_trip(&mut s, Time::ZERO, 1, hdr(1000));
    // 23,750 B queued: q / (2 RTT) = 190 kbit / 200 us = 950 Mbps, C = 50 Mbps.
    let q = PortView { rate: Rate(C), queue_bytes: 23_750, tx_bytes: 0 };
    let later = Time::ZERO + Dur::us(201);
    let mut h1 = hdr(1000);
    s.on_forward(later, &q, 1, &mut h1);
    assert!((s.capacity() - 50e6).abs() < 1.0, "C = {}", s.capacity());
    assert_eq!((h1.pause_by, h1.rate), (NOBODY, 50_000_000), "C < min_rate x link, still the whole C");
    s.on_reverse(1, &mut h1);
    // Flow 1 sends at 50 Mbps; C recovers to 950 Mbps: the 900 Mbps left is
    // no sliver. With flow 1 at 900 Mbps, the 50 Mbps left is one.
    let q = PortView { rate: Rate(C), queue_bytes: 1_250, tx_bytes: 0 };
    let mut h2 = hdr(5000);
    s.on_forward(later + Dur::us(201), &q, 2, &mut h2);
    assert_eq!((h2.pause_by, h2.rate), (NOBODY, 900_000_000));
    s.on_term(2);
    let mut h1 = hdr(1000);
    h1.rate = 900_000_000;
    round_trip(&mut s, later + Dur::us(202), 1, h1);
    let h2 = round_trip(&mut s, later + Dur::us(203), 2, hdr(5000));
    assert_eq!(h2.pause_by, ME, "a 50 Mbps sliver behind a sending flow is not granted");
}

#[test]
fn edf_beats_sjf() {
    let mut s = switch(params(0.0, None, 0.0));
    round_trip(&mut s, Time::ZERO, 1, hdr(100));
    let mut h = hdr(9000);
    h.deadline = Time::ZERO + Dur::ms(5);
    let h = round_trip(&mut s, Time::ZERO, 2, h);
    assert_eq!(h.pause_by, NOBODY, "a deadline flow is more critical than any non-deadline one");
    assert_eq!(s.list()[0].flow, 2);
}


/// §3.3.1 keeps the 2κ most critical flows; `list = "unbounded"` keeps
/// every flow it sees. Suppressed Probing's X x index reaches the flows deep
/// in the order either way, unless the flows outside a 2κ list all get the
/// list's length (`unlisted_index = "list_end"`).
#[test]
fn the_unbounded_list_keeps_every_flow() {
    let ten_probes = |unbounded: bool, unlisted_index: UnlistedIndex| {
        let mut s = switch(SwitchParams { unbounded_list: unbounded, unlisted_index, ..params(0.0, Some(0.2), 0.0) });
        let mut deepest = 0.0f32;
        for f in 0..10u64 {
            let h = round_trip(&mut s, Time::ZERO, f, hdr(1000 * (f + 1)));
            deepest = deepest.max(h.inter_probe);
        }
        (s.list().len(), deepest)
    };
    let (bounded, ranked_probe) = ten_probes(false, UnlistedIndex::Rank);
    let (_, list_end_probe) = ten_probes(false, UnlistedIndex::ListEnd);
    let (unbounded, unbounded_probe) = ten_probes(true, UnlistedIndex::Rank);
    assert!(bounded < 10, "2 kappa keeps {bounded}");
    assert_eq!(unbounded, 10);
    assert!((unbounded_probe - 0.2 * 9.0).abs() < 1e-6, "the last of ten: X x 9, {unbounded_probe}");
    assert_eq!(ranked_probe, unbounded_probe, "rank: the same index outside a 2 kappa list");
    assert!(list_end_probe < 1.0, "list_end: X x list length, {list_end_probe}");
}

/// A probe of paused `flow` through the switch (Algorithm 1 on the way out,
/// Algorithm 3 on its reply); the I_H written.
fn probe(s: &mut PdqSwitch, now: Time, flow: u64) -> f32 {
    let mut h = hdr(1000 * (flow + 1));
    h.pause_by = ME;
    s.on_forward(now, &port(), flow, &mut h);
    s.on_reverse(flow, &mut h);
    assert_eq!(h.pause_by, ME, "flow {flow} stays paused");
    h.inter_probe
}

/// Suppressed Probing (§3.3.2): "The switch sets the inter-probing time field
/// (I_H) to max{I_H, X × Index(ℓ)}". With n flows paused at one switch behind
/// a sending one, the k-th most critical (0-based, the sending flow is 0) gets
/// X × k, also the flows outside the 2κ list, whatever order they arrive in.
#[test]
fn the_k_th_most_critical_paused_flow_probes_every_x_times_k() {
    let n = 40u64;
    let mut s = switch(params(0.0, Some(0.2), 0.0));
    round_trip(&mut s, Time::ZERO, 0, hdr(1000));
    // Arrival order unlike criticality order: odd flows last, from the end.
    let order: Vec<u64> = (1..n).filter(|f| f % 2 == 0).chain((1..n).filter(|f| f % 2 == 1).rev()).collect();
    for &f in &order {
        probe(&mut s, Time::ZERO, f);
    }
    assert_eq!(s.list().len(), 2, "2 kappa");
    for &f in &order {
        let ih = probe(&mut s, Time::ZERO + RTT, f);
        assert!((ih - 0.2 * f as f32).abs() < 1e-4, "flow {f}: I_H {ih}, want X x {f}");
    }
    // The old reading: every flow outside the list gets X x list length.
    let mut old = switch(SwitchParams { unlisted_index: UnlistedIndex::ListEnd, ..params(0.0, Some(0.2), 0.0) });
    round_trip(&mut old, Time::ZERO, 0, hdr(1000));
    for f in 1..n {
        probe(&mut old, Time::ZERO, f);
    }
    assert!((probe(&mut old, Time::ZERO + RTT, n - 1) - 0.4).abs() < 1e-6);
}

/// Probes per RTT that `n` flows paused behind one sending flow send at one
/// switch, each probing every max(1, I_H) RTTs (the sender, §3.1), averaged
/// over `rtts` RTTs after a warm-up long enough for every flow to have
/// probed twice.
fn probes_per_rtt(unlisted_index: UnlistedIndex, n: u64, rtts: u64) -> f64 {
    use std::cmp::Reverse;
    use std::collections::BinaryHeap;
    let mut s = switch(SwitchParams { unlisted_index, ..params(0.0, Some(0.2), 0.0) });
    round_trip(&mut s, Time::ZERO, 0, hdr(1000));
    let warm_up = Time::ZERO + RTT.mul_f64(0.4 * n as f64 + 2.0);
    let end = warm_up + RTT.mul_f64(rtts as f64);
    let mut due: BinaryHeap<Reverse<(Time, u64)>> = (1..n).map(|f| Reverse((Time::ZERO, f))).collect();
    let mut probes = 0u64;
    while let Some(Reverse((now, f))) = due.pop() {
        if now >= end {
            break;
        }
        probes += u64::from(now >= warm_up);
        let every = probe(&mut s, now, f).max(1.0);
        due.push(Reverse((now + RTT.mul_f64(every as f64), f)));
    }
    probes as f64 / rtts as f64
}

/// §3.3.2: "The expected per-RTT probing overhead is significantly reduced
/// from O(n) (n flows, each of which sends one probe per RTT) to (1/X)
/// Σ_{k=1}^n 1/k = O(log n)". With X = 0.2 the flows at indices 1..=5 probe
/// every RTT and flow k > 5 every k/5 RTTs, 5 + 5 (H_{n-1} - H_5) < 5 H_n
/// probes per RTT; with every unlisted flow at the list's end, n - 1.
#[test]
fn paused_flows_probe_log_n_times_per_rtt() {
    let harmonic = |n: u64| (1..=n).map(|k| 1.0 / k as f64).sum::<f64>();
    for n in [50, 200, 800] {
        let rank = probes_per_rtt(UnlistedIndex::Rank, n, 100);
        let bound = 5.0 * harmonic(n) + 1.0;
        assert!(rank < bound, "n = {n}: {rank} probes per RTT, (1/X) H_n + 1 = {bound}");
        let list_end = probes_per_rtt(UnlistedIndex::ListEnd, n, 100);
        eprintln!("n = {n}: {rank:.1} probes per RTT (bound {bound:.1}), list_end {list_end:.1}");
        assert!(list_end > 0.95 * (n - 1) as f64, "n = {n}: list_end sends {list_end} per RTT");
    }
}
