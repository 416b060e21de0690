//! The explicit-rate sender of D3 and RCP_dc (D3 §4.1, §4.5, §5, §6.1.3).
//!
//! The sender asks every router on its path for a rate once per RTT and sends
//! data paced at the minimum allocation (D3 §4.1). A request rides on a data
//! packet (22 extra header bytes, D3 §5) or, when no data packet leaves
//! within an RTT (the flow is held at the base rate, or granted too little
//! to send a packet per RTT), on a header-only packet. D3 flows ask for the
//! rate that meets their deadline (§5 "Calculating desired rate"); RCP_dc
//! flows ask for nothing and get the fair share. Lost data is resent by timer
//! ([`SegmentTracker`]).
//!
//! The base rate pays for the requests: it "allows them to send a
//! header-only packet per RTT" (§4.2), so header-only requests are paced at
//! the base rate and data at the rest of the allocation. Everything a flow
//! sends then fits the rate its routers granted. Sent on every answer
//! instead, N paused flows keep N requests circulating, and once those fill
//! the pipe (about 100 flows on a 1 Gbps star) the queue they build holds the
//! capacity controller's C at 0 and every flow at the base rate for good.

use crate::pacing::Pacer;
use crate::endpoint::{Endpoint, FlowEvent, FlowInfo};
use crate::packet::{Packet, PacketKind, RateHeader, Sched, HEADER_BYTES};
use crate::reliability::SegmentTracker;
use dcflow_core::{ensure, ConfigError, Dur, Rate, Time};
use serde::{Deserialize, Serialize};
use std::collections::VecDeque;

/// Bytes D3's congestion header adds to a packet carrying a rate request (§5).
pub const RATE_HEADER_BYTES: u32 = 22;

/// Configuration shared by `d3` and `rcp` (RCP_dc); the defaults are D3's.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields, default)]
pub struct ExplicitRateConfig {
    /// Capacity controller α (D3 footnote 4).
    pub alpha: f64,
    /// Capacity controller β (D3 footnote 4).
    pub beta: f64,
    /// Capacity controller interval T (D3 footnote 4).
    pub interval: Dur,
    /// Minimum allocation: one header-only request per RTT (D3 §4.2).
    pub base_rate: Rate,
    /// PDQ §5.1's fix: never let the fair share go negative.
    pub nonnegative_fair_share: bool,
    /// Flow quenching (D3 §6.1.3): give up when the desired rate exceeds the
    /// uplink or the deadline has passed. Off by default (Fig. 15 compares both).
    pub quenching: bool,
    /// Lower bound of the retransmission timeout (the timeout is 3 smoothed RTTs
    /// above it; D3 §5 gives no value, see docs/fidelity.md).
    pub rto_min: Dur,
    /// Upper bound of the controller's capacity C, in multiples of the link
    /// rate; None (default): no bound, as D3 §4.4 prints the controller. A
    /// flow that leaves a sliver of the link unused (a lone long flow at its
    /// NIC's rate) lets C grow without end, and the next burst is allocated
    /// from it (D3 Fig. 12; docs/fidelity.md, issue 18).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub capacity_max: Option<f64>,
}

impl Default for ExplicitRateConfig {
    fn default() -> Self {
        ExplicitRateConfig {
            alpha: 0.1,
            beta: 1.0,
            interval: Dur::us(800),
            // One 62-byte request packet (40 B headers + 22 B D3 header, §5)
            // per 300 us, the typical datacenter RTT D3 §4.5 quotes.
            base_rate: Rate::bps(1_650_000),
            nonnegative_fair_share: false,
            quenching: false,
            rto_min: Dur::ms(1),
            capacity_max: None,
        }
    }
}

impl ExplicitRateConfig {
    pub fn validate(&self) -> Result<(), ConfigError> {
        ensure(self.alpha >= 0.0 && self.alpha.is_finite(), "alpha", "must be a number >= 0 (D3: 0.1)")?;
        ensure(self.beta >= 0.0 && self.beta.is_finite(), "beta", "must be a number >= 0 (D3: 1)")?;
        ensure(self.interval > Dur::ZERO, "interval", "must be a positive time (D3: \"800us\")")?;
        ensure(self.base_rate > Rate::ZERO, "base_rate", "must be a positive rate")?;
        ensure(self.rto_min > Dur::ZERO, "rto_min", "must be a positive time")?;
        ensure(
            self.capacity_max.is_none_or(|m| m.is_finite() && m >= 1.0),
            "capacity_max",
            "must be a number >= 1 (multiples of the link rate; omit it for no bound)",
        )
    }

}

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Phase {
    Connecting,
    Sending,
    Closing,
    Done,
}

pub struct RateSender {
    info: FlowInfo,
    cfg: ExplicitRateConfig,
    /// D3 asks for its deadline rate; RCP_dc (and D3 flows without a deadline) ask 0.
    deadline_aware: bool,
    tracker: SegmentTracker,
    phase: Phase,
    /// The allocation: the minimum over the path (bps).
    rate: u64,
    /// A request is in flight since this time (one per RTT, §4.1).
    request_sent_at: Option<Time>,
    /// With no request in flight: since when the next one is due (its
    /// predecessor's answer came, or it timed out).
    request_due_at: Time,
    /// A control packet (SYN / FIN) to (re)send now.
    control_due: bool,
    control_sent_at: Time,
    /// Data pacing at the allocation less the base rate (§4.1): a new
    /// allocation applies from the moment it arrives, also to the gap after
    /// the packet already sent.
    pacer: Pacer,
    /// Header-only requests, paced at the base rate (§4.2).
    request_pacer: Pacer,
    srtt: Dur,
    terminated: bool,
    timeouts: u64,
    events: VecDeque<FlowEvent>,
}

impl RateSender {
    /// The allocation the sender paces at (bps; the base rate while paused).
    pub fn rate(&self) -> u64 {
        self.rate
    }

    pub fn new(info: FlowInfo, cfg: &ExplicitRateConfig, deadline_aware: bool) -> RateSender {
        RateSender {
            info,
            cfg: cfg.clone(),
            deadline_aware: deadline_aware && info.deadline.is_some(),
            tracker: SegmentTracker::new(info.size.0, info.mss),
            phase: Phase::Connecting,
            rate: 0,
            request_sent_at: None,
            request_due_at: Time::ZERO,
            control_due: true,
            control_sent_at: Time::ZERO,
            pacer: Pacer::default(),
            request_pacer: Pacer::default(),
            srtt: info.base_rtt,
            terminated: false,
            timeouts: 0,
            events: VecDeque::new(),
        }
    }

    pub fn retransmits(&self) -> u64 {
        self.tracker.retransmits()
    }
    pub fn timeouts(&self) -> u64 {
        self.timeouts
    }

    fn rto(&self) -> Dur {
        self.cfg.rto_min.max(self.srtt.mul_f64(3.0))
    }

    /// D3 §4.1 / §5: r = s/d at the start, then
    /// r_{t+1} = (remaining - s_t·rtt) / (deadline - 2·rtt); 0 without a deadline.
    /// Data goes at the allocation less the base rate, so a flow asks for
    /// that rate plus the base rate. Returns `None` when the deadline can no
    /// longer be met at any rate: it has passed, or data is left after this
    /// RTT and less than two RTTs are (the formula's rate grows without bound
    /// as d → 2·rtt). A flow whose remaining data goes out within this RTT at
    /// its current rate needs nothing more (0), however close the deadline.
    fn desired_rate(&self, now: Time) -> Option<u64> {
        if !self.deadline_aware {
            return Some(0);
        }
        let deadline = self.info.deadline.expect("deadline_aware implies a deadline");
        // Routers allocate, and the sender paces, bits on the wire: ask for
        // the rate that carries the remaining payload plus its headers.
        let wire_per_payload = (self.info.mss + HEADER_BYTES) as f64 / self.info.mss as f64;
        let remaining_bits = self.tracker.unsent() as f64 * 8.0 * wire_per_payload;
        let left = deadline.0 as f64 - now.0 as f64;
        if left <= 0.0 {
            return None;
        }
        let (num, den) = if self.phase == Phase::Connecting {
            (remaining_bits, left)
        } else {
            let rtt = self.srtt.0 as f64;
            (remaining_bits - self.data_rate() as f64 * rtt / 1e12, left - 2.0 * rtt)
        };
        if num <= 0.0 {
            return Some(0);
        }
        if den <= 0.0 {
            return None;
        }
        Some((num / (den / 1e12)).round() as u64 + self.cfg.base_rate.0)
    }

    fn header(&self, desired: u64) -> RateHeader {
        let mut h = RateHeader::empty();
        h.desired = desired;
        h
    }

    /// Quenching (§6.1.3): terminate by sending a FIN that returns the allocation.
    fn quench(&mut self) {
        self.terminated = true;
        self.phase = Phase::Closing;
        self.control_due = true;
        self.events.push_back(FlowEvent::Terminated);
    }

    /// The desired rate for a new request, quenching the flow if it is hopeless.
    fn next_desired(&mut self, now: Time) -> Option<u64> {
        let desired = self.desired_rate(now);
        let hopeless = match desired {
            None => true,
            Some(r) => r > self.info.line_rate.0,
        };
        if hopeless && self.cfg.quenching {
            self.quench();
            return None;
        }
        Some(desired.unwrap_or(self.info.line_rate.0).min(self.info.line_rate.0))
    }

    fn control_packet(&mut self, now: Time) -> Option<Packet> {
        self.control_due = false;
        self.control_sent_at = now;
        let (kind, header) = if self.phase == Phase::Connecting {
            let Some(desired) = self.next_desired(now) else {
                return self.control_packet(now); // quenched: FIN now
            };
            let mut h = self.header(desired);
            h.new_flow = true;
            (PacketKind::Syn, h)
        } else {
            let mut h = self.header(0);
            h.leaving = true;
            (PacketKind::Fin, h)
        };
        let mut p = Packet::new(self.info.id, kind, false, now);
        p.wire = HEADER_BYTES + RATE_HEADER_BYTES;
        p.sched = Sched::Rate(header);
        Some(p)
    }

    fn take_feedback(&mut self, now: Time, h: &RateHeader) {
        // The capacity controller may allocate more than the link (C grows
        // while the link is under-used); a host never paces faster than its NIC.
        self.rate = h.min_alloc(self.info.switch_hops as usize).min(self.info.line_rate.0);
        self.pacer.set_rate(now, self.data_rate());
        self.request_sent_at = None;
        self.request_due_at = now;
    }

    /// The rate data is paced at: the allocation less the base rate that
    /// pays for the requests. A flow held at the base rate sends no data.
    fn data_rate(&self) -> u64 {
        self.rate.saturating_sub(self.cfg.base_rate.0)
    }

    fn has_data_to_send(&self) -> bool {
        self.data_rate() > 0 && self.tracker.has_pending()
    }

    /// When the request that is due goes out on a header-only packet: at the
    /// base rate's pace, unless a data packet leaves within an RTT of it to
    /// carry it (§4.1). `None` while a request is in flight or data will
    /// carry the next one.
    fn header_only_request_at(&self) -> Option<Time> {
        if self.request_sent_at.is_some() {
            return None;
        }
        let at = self.request_pacer.next().max(self.request_due_at);
        let data_carries_it = self.has_data_to_send() && self.pacer.next() <= at + self.srtt;
        (!data_carries_it).then_some(at)
    }
}

impl Endpoint for RateSender {
    fn handle_packet(&mut self, now: Time, pkt: &Packet) {
        if !pkt.retransmit {
            let sample = now.since(pkt.sent_at);
            // Exponential moving average of RTT samples (D3 §5), gain 1/8.
            self.srtt = Dur((self.srtt.0 * 7 + sample.0) / 8);
        }
        match pkt.kind {
            PacketKind::SynAck if self.phase == Phase::Connecting => {
                if let Sched::Rate(h) = &pkt.sched {
                    self.take_feedback(now, h);
                }
                self.phase = Phase::Sending;
            }
            PacketKind::Ack | PacketKind::Probe if self.phase == Phase::Sending => {
                if pkt.kind == PacketKind::Ack {
                    self.tracker.on_ack(pkt.seq, pkt.acked_seq);
                }
                if let Sched::Rate(h) = &pkt.sched {
                    self.take_feedback(now, h);
                }
                if self.tracker.all_acked() {
                    // The FIN returns whatever the routers hold for the flow,
                    // also for a request still on its way (it is ahead of the FIN).
                    self.phase = Phase::Closing;
                    self.control_due = true;
                }
            }
            PacketKind::FinAck if self.phase == Phase::Closing => {
                self.phase = Phase::Done;
                if !self.terminated {
                    self.events.push_back(FlowEvent::Closed);
                }
            }
            _ => {}
        }
    }

    fn handle_timeout(&mut self, now: Time) {
        let rto = self.rto();
        match self.phase {
            Phase::Connecting | Phase::Closing => {
                if !self.control_due && self.control_sent_at + rto <= now {
                    self.control_due = true;
                    self.timeouts += 1;
                }
            }
            Phase::Sending => {
                if self.tracker.expire(now, rto) > 0 {
                    self.timeouts += 1;
                }
                if self.request_sent_at.is_some_and(|t| t + rto <= now) {
                    self.request_sent_at = None;
                    self.request_due_at = now;
                }
            }
            Phase::Done => {}
        }
    }

    fn poll_transmit(&mut self, now: Time) -> Option<Packet> {
        match self.phase {
            Phase::Connecting | Phase::Closing if self.control_due => {
                return self.control_packet(now);
            }
            Phase::Sending => {}
            _ => return None,
        }
        let data_now = self.has_data_to_send() && now >= self.pacer.next();
        let header_only_now = self.header_only_request_at().is_some_and(|t| now >= t);
        if !data_now && !header_only_now {
            return None;
        }
        // A request rides on the next data packet when one is due (§4.1).
        let request = if self.request_sent_at.is_none() {
            let desired = self.next_desired(now);
            if self.phase != Phase::Sending {
                return self.control_packet(now); // quenched: FIN now
            }
            desired
        } else {
            None
        };
        let mut p = if data_now {
            let s = self.tracker.next(now).expect("has_pending");
            let mut p = Packet::new(self.info.id, PacketKind::Data, false, now);
            p.seq = s.seq;
            p.payload = s.len;
            p.wire = HEADER_BYTES + s.len;
            p.retransmit = s.retransmit;
            p
        } else {
            Packet::new(self.info.id, PacketKind::Probe, false, now)
        };
        if let Some(desired) = request {
            p.sched = Sched::Rate(self.header(desired));
            p.wire += RATE_HEADER_BYTES;
            self.request_sent_at = Some(now);
        }
        if data_now {
            self.pacer.sent(now, p.wire, self.data_rate());
        } else {
            self.request_pacer.sent(now, p.wire, self.cfg.base_rate.0);
        }
        Some(p)
    }

    fn poll_timeout(&self) -> Option<Time> {
        let rto = self.rto();
        match self.phase {
            Phase::Connecting | Phase::Closing if !self.control_due => Some(self.control_sent_at + rto),
            Phase::Sending => {
                let pacing = self.has_data_to_send().then_some(self.pacer.next());
                let request = self.request_sent_at.map(|t| t + rto);
                [pacing, request, self.header_only_request_at(), self.tracker.next_expiry(rto)]
                    .into_iter()
                    .flatten()
                    .min()
            }
            _ => None,
        }
    }

    fn poll_event(&mut self) -> Option<FlowEvent> {
        self.events.pop_front()
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use dcflow_core::Bytes;

    const MBPS: u64 = 1_000_000;

    /// A 2-packet D3 flow on a 1 Gbps path through one switch, 100 us RTT.
    fn sender(deadline: Dur, quenching: bool) -> RateSender {
        let info = FlowInfo {
            id: 7,
            size: Bytes(2 * 1460),
            start: Time::ZERO,
            deadline: Some(Time::ZERO + deadline),
            mss: 1460,
            line_rate: Rate::gbps(1),
            base_rtt: Dur::us(100),
            switch_hops: 1,
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

    /// SYN at 0, SYN-ACK (500 Mbps) at 100 us, both data packets sent
    /// (the first with a request), the first ACK (500 Mbps) at 200 us, and
    /// the header-only request that follows, at 200 us (nothing left to send).
    fn all_sent_and_asking_again(s: &mut RateSender) -> Packet {
        let syn = s.poll_transmit(Time::ZERO).expect("SYN");
        s.handle_packet(Time::ZERO + Dur::us(100), &answer(&syn, PacketKind::SynAck, 500 * MBPS, 0));
        let t1 = Time::ZERO + Dur::us(100);
        let d1 = s.poll_transmit(t1).expect("first data packet");
        assert!(matches!(d1.sched, Sched::Rate(_)), "the request rides on the first packet");
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
        let syn = s.poll_transmit(Time::ZERO).expect("SYN");
        let t1 = Time::ZERO + Dur::us(100);
        s.handle_packet(t1, &answer(&syn, PacketKind::SynAck, 2 * MBPS, 0));
        let d1 = s.poll_transmit(t1).expect("first data packet");
        let t2 = Time::ZERO + Dur::us(200);
        assert_eq!(s.poll_transmit(Time::ZERO + Dur::us(199)), None, "paced at 2 Mbps");
        let mut fb = answer(&d1, PacketKind::Probe, 500 * MBPS, 0);
        fb.kind = PacketKind::Ack;
        fb.seq = 0; // the data is not acknowledged yet: only the feedback counts here
        s.handle_packet(t2, &fb);
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

    /// Issue 12, defect 3 (D3 §4.1: a sender asks once per RTT): granted
    /// 5 Mbps, the next data packet is 3.7 ms away; the request must not
    /// wait for it but go header-only within about an RTT of the answer.
    #[test]
    fn a_flow_granted_little_still_asks_about_once_per_rtt() {
        let mut s = sender(Dur::ms(10), false);
        let syn = s.poll_transmit(Time::ZERO).expect("SYN");
        let t1 = Time::ZERO + Dur::us(100);
        s.handle_packet(t1, &answer(&syn, PacketKind::SynAck, 5 * MBPS, 0));
        let d1 = s.poll_transmit(t1).expect("first data packet, with the request");
        let t2 = Time::ZERO + Dur::us(200);
        let mut fb = answer(&d1, PacketKind::Ack, 5 * MBPS, 0);
        fb.seq = 0;
        s.handle_packet(t2, &fb);
        let next = s.poll_timeout().expect("armed");
        assert!(next <= t2 + Dur::us(100), "next request at {next:?}, not one RTT after {t2:?}");
        let p = s.poll_transmit(next).expect("a request");
        assert_eq!(p.kind, PacketKind::Probe);
        assert!(matches!(p.sched, Sched::Rate(_)));
    }

    /// Issue 12, defect 1: a flow held at the base rate asks at the base
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
                    now = now + Dur::us(50);
                    s.handle_packet(now, &answer(&p, PacketKind::Probe, base, 0));
                }
                None => now = s.poll_timeout().expect("armed"),
            }
        }
        let gap = Rate(base).tx_time(dcflow_core::Bytes((HEADER_BYTES + RATE_HEADER_BYTES) as u64));
        assert!(sent.windows(2).all(|w| w[1] - w[0] >= gap), "{sent:?}");
        assert!(sent.len() >= 9, "about one per {gap:?}: {sent:?}");
    }
}
