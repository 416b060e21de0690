//! pFabric's end host (Alizadeh et al., "pFabric: Minimal Near-Optimal
//! Datacenter Transport", SIGCOMM'13, §4.3).
//!
//! Every packet carries the flow's remaining size as its priority; switches
//! (the `pfabric` queue in dcflow-net) serve the most important packet first
//! and drop the least important on overflow, so the end host needs only
//! minimal rate control: start at line rate with a window of one
//! bandwidth-delay product (growing by one packet per ACK up to
//! `max_window`), per-packet ACKs, and a small fixed retransmission timeout.
//! After a timeout the window falls to one packet and slow-starts back (§4.3
//! "Rate control"); after `probe_after` consecutive timeouts the flow enters
//! probe mode: it "periodically retransmits minimum-size packets with a
//! one-byte payload" (§4.3), one per RTO, and leaves it when one is answered.
//! Probes must be small: under SRPT a large flow can wait for tens of
//! milliseconds, and full-size probes of the waiting flows piled up in a
//! large buffer (dcflow's 4 MB default), took the link when their flow's
//! turn came (the switch sends a flow's earliest queued packet first), and
//! held a 50-sender incast at 5 x its fair makespan.
//!
//! The retransmission timer is the flow's, as in TCP (RFC 6298 §5) on which
//! pFabric's end host is built, and in the reference simulators: started when
//! data goes out with the timer stopped, restarted whenever the cumulative ACK
//! advances, never backed off. A timeout therefore means one RTO without
//! progress; it declares everything outstanding and not selectively
//! acknowledged lost (those are what is resent) and counts once. Timing each
//! packet separately would instead fire once per queued packet of a flow that
//! waits behind more important flows, and reach probe mode within one RTO.

use crate::endpoint::{Endpoint, FlowEvent, FlowInfo};
use crate::packet::{Packet, PacketKind, HEADER_BYTES};
use crate::reliability::SegmentTracker;
use dcflow_core::{ensure, ConfigError, Dur, Time};
use serde::{Deserialize, Serialize};

#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields, default)]
pub struct PfabricConfig {
    /// Initial window in packets; 0 = the path's bandwidth-delay product,
    /// pFabric's choice (§4.3: "the initial window is set to BDP").
    pub init_window: u32,
    /// Largest window in packets, reached by slow start (one packet per
    /// ACK); 0 = twice the initial window. The ns-2 scripts of PIAS, built
    /// on pFabric's ns-2 code, cap the window at the port buffer less one
    /// packet (`maxcwnd_`), and the paper's buffers hold 2 BDP (36 KB at
    /// 10 Gbps): one BDP is where a flow starts, not its ceiling. With a
    /// ceiling of exactly one BDP, any ACK that waits behind a data packet on
    /// the reverse path (up to one MTU per hop) leaves the flow below line rate.
    pub max_window: u32,
    /// Retransmission timeout as a multiple of the path's base RTT (pFabric
    /// §5 uses ~3 RTTs: 45 us at 10 Gbps with ~14 us RTT).
    pub rto_rtts: f64,
    /// A fixed retransmission timeout for every flow instead of `rto_rtts`
    /// (e.g. "45us", the paper's value, which its reference simulators keep
    /// at 40 Gbps). The paper's RTT includes ~10 us of host latency that a
    /// topology without `proc_delay` lacks; see docs/fidelity.md (pFabric).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub rto: Option<Dur>,
    /// Consecutive timeouts after which the flow enters probe mode (§4.3: 5).
    pub probe_after: u32,
}

impl Default for PfabricConfig {
    fn default() -> Self {
        PfabricConfig { init_window: 0, max_window: 0, rto_rtts: 3.0, rto: None, probe_after: 5 }
    }
}

impl PfabricConfig {
    pub fn validate(&self) -> Result<(), ConfigError> {
        ensure(self.rto_rtts > 0.0 && self.rto_rtts.is_finite(), "rto_rtts", "must be a positive number of RTTs")?;
        ensure(self.rto != Some(Dur::ZERO), "rto", "must be a positive duration, e.g. \"45us\"")?;
        ensure(
            self.max_window == 0 || self.max_window >= self.init_window.max(1),
            "max_window",
            "must be 0 (twice the initial window) or at least init_window",
        )?;
        ensure(self.probe_after >= 1, "probe_after", "must be at least 1")
    }
}

pub struct PfabricSender {
    info: FlowInfo,
    tracker: SegmentTracker,
    max_window: u32,
    window: u32,
    rto: Dur,
    /// When the retransmission timer last (re)started; `None` while stopped.
    timer_start: Option<Time>,
    probe_after: u32,
    consecutive_timeouts: u32,
    /// Probe mode: a probe is due (one per RTO).
    probe_due: bool,
    timeouts: u64,
    closed: bool,
    event: Option<FlowEvent>,
}

impl PfabricSender {
    pub fn new(info: FlowInfo, cfg: &PfabricConfig) -> PfabricSender {
        let init_window = if cfg.init_window == 0 { info.bdp_packets() } else { cfg.init_window };
        let max_window = if cfg.max_window == 0 { 2 * init_window } else { cfg.max_window };
        PfabricSender {
            info,
            tracker: SegmentTracker::new(info.size.0, info.mss),
            max_window,
            window: init_window,
            rto: cfg.rto.unwrap_or_else(|| info.base_rtt.mul_f64(cfg.rto_rtts)),
            timer_start: None,
            probe_after: cfg.probe_after,
            consecutive_timeouts: 0,
            probe_due: false,
            timeouts: 0,
            closed: false,
            event: None,
        }
    }
    pub fn retransmits(&self) -> u64 {
        self.tracker.retransmits()
    }
    /// The window in bytes (`window` packets of one MSS).
    pub fn window_bytes(&self) -> u64 {
        self.window as u64 * self.info.mss as u64
    }
    pub fn timeouts(&self) -> u64 {
        self.timeouts
    }
    fn probing(&self) -> bool {
        self.consecutive_timeouts >= self.probe_after
    }

    /// Probe mode's packet (§4.3): the headers and one byte, at the flow's
    /// priority; the timer runs from it, so the next probe is an RTO later.
    fn probe(&mut self, now: Time) -> Packet {
        self.probe_due = false;
        self.timer_start = Some(now);
        let mut p = Packet::new(self.info.id, PacketKind::Probe, false, now);
        p.seq = self.info.size.0 - self.tracker.remaining();
        p.payload = 1;
        p.wire = HEADER_BYTES + 1;
        p.prio = self.tracker.remaining();
        p
    }
}

impl Endpoint for PfabricSender {
    fn handle_packet(&mut self, now: Time, pkt: &Packet) {
        if self.closed {
            return;
        }
        match pkt.kind {
            // A probe's answer: the path works again; leave probe mode and
            // resend from the window of one the last timeout left.
            PacketKind::Probe => {
                self.consecutive_timeouts = 0;
                self.probe_due = false;
                return;
            }
            PacketKind::Ack => {}
            _ => return,
        }
        if self.tracker.on_ack(pkt.seq, pkt.acked_seq) > 0 {
            // RFC 6298 (5.2, 5.3): new data acknowledged restarts the timer.
            self.timer_start = Some(now);
        }
        // Every ACK is progress: leave probe mode, slow-start up to the maximum window.
        self.consecutive_timeouts = 0;
        self.probe_due = false;
        self.window = (self.window + 1).min(self.max_window);
        if self.tracker.all_acked() {
            self.closed = true;
            self.event = Some(FlowEvent::Closed);
        }
    }

    fn handle_timeout(&mut self, now: Time) {
        if self.closed || self.timer_start.is_none_or(|t| now < t + self.rto) {
            return;
        }
        // Go back to the cumulative ACK, as TCP and the reference simulators
        // do: every outstanding segment not selectively acknowledged is resent.
        // In probe mode every RTO is a timeout: it sends the next probe.
        if self.tracker.expire(now, Dur::ZERO) == 0 && !self.probing() {
            self.timer_start = None;
            return;
        }
        self.timeouts += 1;
        self.consecutive_timeouts += 1;
        self.probe_due = self.probing();
        self.window = 1;
        // RFC 6298 (5.6) restarts the timer with the retransmission, without
        // backoff: pFabric's RTO is fixed (§4.3).
        self.timer_start = Some(now);
    }

    fn poll_transmit(&mut self, now: Time) -> Option<Packet> {
        if self.closed {
            return None;
        }
        if self.probing() {
            return self.probe_due.then(|| self.probe(now));
        }
        if self.tracker.in_flight() >= self.window as usize {
            return None;
        }
        let s = self.tracker.next(now)?;
        // RFC 6298 (5.1): sending with the timer stopped starts it.
        self.timer_start.get_or_insert(now);
        let mut p = Packet::new(self.info.id, PacketKind::Data, false, now);
        p.seq = s.seq;
        p.payload = s.len;
        p.wire = HEADER_BYTES + s.len;
        p.retransmit = s.retransmit;
        // §3: "priority ... set to the remaining flow size".
        p.prio = self.tracker.remaining();
        Some(p)
    }

    fn poll_timeout(&self) -> Option<Time> {
        if self.closed {
            return None;
        }
        self.timer_start.map(|t| t + self.rto)
    }

    fn poll_event(&mut self) -> Option<FlowEvent> {
        self.event.take()
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use dcflow_core::{Bytes, Rate};

    const MSS: u32 = 1000;
    /// base RTT 10 us x rto_rtts 3.
    const RTO: Dur = Dur::us(30);

    fn sender(packets: u64, window: u32) -> PfabricSender {
        let info = FlowInfo {
            id: 0,
            size: Bytes(packets * MSS as u64),
            start: Time::ZERO,
            deadline: None,
            size_known: false,
            mss: MSS,
            line_rate: Rate::gbps(10),
            base_rtt: Dur::us(10),
            agent_hops: 1,
            dst: 0,
        };
        PfabricSender::new(info, &PfabricConfig { init_window: window, ..PfabricConfig::default() })
    }

    fn ack(cum: u64, acked_seq: u64) -> Packet {
        let mut a = Packet::new(0, PacketKind::Ack, true, Time::ZERO);
        a.seq = cum;
        a.acked_seq = acked_seq;
        a
    }

    /// Sends the whole window one packet per nanosecond from `t0`, as a NIC would.
    fn send_window(s: &mut PfabricSender, t0: Time) -> Vec<u64> {
        (0..).map_while(|i| s.poll_transmit(t0 + Dur(i)).map(|p| p.seq)).collect()
    }

    /// Fires every timer due up to `until` and sends what each allows; returns
    /// the sequence numbers sent.
    fn run_timers(s: &mut PfabricSender, until: Time) -> Vec<u64> {
        let mut sent = Vec::new();
        while let Some(t) = s.poll_timeout().filter(|&t| t <= until) {
            s.handle_timeout(t);
            sent.extend(std::iter::from_fn(|| s.poll_transmit(t).map(|p| p.seq)));
        }
        sent
    }

    /// A window stuck in a queue behind more important flows is one RTO
    /// without progress: one timeout, not one per queued packet, and probe
    /// mode only after `probe_after` (5) such RTOs (pFabric §4.3).
    #[test]
    fn a_stalled_window_times_out_once_per_rto() {
        let mut s = sender(20, 8);
        assert_eq!(send_window(&mut s, Time::ZERO).len(), 8);
        let resent = run_timers(&mut s, Time::ZERO + RTO + Dur::us(1));
        assert_eq!(s.timeouts(), 1, "the 8 packets left within 8 ns of each other");
        assert_eq!(resent, vec![0], "window 1 after the timeout: the first hole");
        run_timers(&mut s, Time::ZERO + RTO.mul_f64(4.5));
        assert_eq!(s.timeouts(), 4);
        assert!(!s.probing());
        run_timers(&mut s, Time::ZERO + RTO.mul_f64(5.5));
        assert!(s.probing());
    }

    /// RFC 6298 (5.3): an ACK that acknowledges new data restarts the timer;
    /// one that only fills in a selective hole does not.
    #[test]
    fn progress_restarts_the_timer() {
        let mut s = sender(20, 4);
        send_window(&mut s, Time::ZERO);
        assert_eq!(s.poll_timeout(), Some(Time::ZERO + RTO));
        let t = Time::ZERO + Dur::us(25);
        s.handle_packet(t, &ack(MSS as u64, 0));
        assert_eq!(s.poll_timeout(), Some(t + RTO), "the cumulative ACK moved");
        s.poll_transmit(t);
        s.handle_packet(t + Dur::us(1), &ack(MSS as u64, 2 * MSS as u64));
        assert_eq!(s.poll_timeout(), Some(t + RTO), "a selective ACK alone does not restart it");
        s.handle_timeout(t + Dur::us(29));
        assert_eq!(s.timeouts(), 0, "not yet due");
    }

    /// A timeout resends every outstanding segment except the selectively
    /// acknowledged ones, one window at a time from a window of one.
    #[test]
    fn a_timeout_resends_what_is_unacknowledged_only() {
        let mut s = sender(4, 4);
        send_window(&mut s, Time::ZERO);
        s.handle_packet(Time(5), &ack(0, 2 * MSS as u64));
        let mut resent = run_timers(&mut s, Time::ZERO + RTO);
        assert_eq!((s.timeouts(), resent.clone()), (1, vec![0]));
        let t = Time::ZERO + RTO + Dur::us(3);
        s.handle_packet(t, &ack(MSS as u64, 0));
        resent.extend(std::iter::from_fn(|| s.poll_transmit(t).map(|p| p.seq)));
        assert_eq!(resent, vec![0, MSS as u64, 3 * MSS as u64], "segment 2 was sacked");
        for seq in [1, 3] {
            s.handle_packet(t, &ack(if seq == 1 { 3 * MSS as u64 } else { 4 * MSS as u64 }, seq * MSS as u64));
        }
        assert_eq!(s.poll_event(), Some(FlowEvent::Closed));
        assert_eq!(s.poll_timeout(), None);
    }
    /// Probe mode (§4.3): one minimum-size packet (one byte of payload) per
    /// RTO, never a data segment; its answer ends probe mode.
    #[test]
    fn probe_mode_sends_one_byte_probes_until_one_is_answered() {
        let mut s = sender(20, 8);
        send_window(&mut s, Time::ZERO);
        run_timers(&mut s, Time::ZERO + RTO.mul_f64(5.5));
        assert!(s.probing());
        let t = s.poll_timeout().unwrap();
        s.handle_timeout(t);
        let probe = s.poll_transmit(t).expect("a probe each RTO");
        assert_eq!((probe.kind, probe.payload, probe.wire), (PacketKind::Probe, 1, HEADER_BYTES + 1));
        assert!(s.poll_transmit(t).is_none(), "one probe per RTO");
        let mut answer = probe;
        answer.reverse = true;
        s.handle_packet(t + Dur::us(5), &answer);
        assert!(!s.probing());
        assert_eq!(s.poll_transmit(t + Dur::us(5)).map(|p| p.kind), Some(PacketKind::Data), "a lost segment again");
    }

    /// `rto` fixes the timeout for every path (the paper's 45 us); zero is refused.
    #[test]
    fn a_fixed_rto_replaces_the_rtt_multiple() {
        let mut cfg = PfabricConfig { rto: Some(Dur::us(45)), ..PfabricConfig::default() };
        assert!(cfg.validate().is_ok());
        let s = PfabricSender::new(sender(1, 1).info, &cfg);
        assert_eq!(s.rto, Dur::us(45), "not 3 x 10 us");
        cfg.rto = Some(Dur::ZERO);
        assert!(cfg.validate().unwrap_err().to_string().contains("rto"));
    }
    /// The window starts at `init_window` and slow-starts to twice that (the
    /// default `max_window`), never beyond.
    #[test]
    fn the_window_grows_from_one_bdp_to_two() {
        let mut s = sender(100, 4);
        let mut sent = send_window(&mut s, Time::ZERO).len() as u64;
        let mut in_flight = Vec::new();
        for acked in 1..=40u64 {
            let t = Time::ZERO + Dur::us(acked);
            s.handle_packet(t, &ack(acked * MSS as u64, (acked - 1) * MSS as u64));
            sent += std::iter::from_fn(|| s.poll_transmit(t)).count() as u64;
            in_flight.push(sent - acked);
        }
        assert_eq!(&in_flight[..5], &[5, 6, 7, 8, 8], "one more per ACK");
        assert_eq!(in_flight.iter().max(), Some(&8));
    }
}
