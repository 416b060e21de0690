//! The congestion-control variants: per-ACK bookkeeping, the congestion-
//! avoidance increase and the window-decrease hook; loss recovery lives in
//! the sender. DCTCP, D2TCP, L2DCT and LPD share DCTCP's estimate of the
//! marked fraction (alpha) and differ only in how the window follows it.

use super::config::{ImminenceRange, LpdRule, LpdVariant, MldForm, SizeBasis, TcRate};
use super::l2dct::L2dctRule;
use dcflow_core::{round_to_u64, Dur, Time};

/// A congestion signal handed to the window-decrease hook.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Signal {
    /// `dupack_threshold` duplicate ACKs: fast retransmit (RFC 5681 §3.2).
    DupAcks,
    /// The retransmission timer fired (RFC 5681 eq. 4; cwnd then drops to 1 MSS).
    Timeout,
    /// An ACK with ECN-Echo, at most once per window of data.
    Ecn,
}

/// DCTCP sender state (DCTCP §3.1 "Sender side").
#[derive(Clone, Debug, PartialEq)]
pub struct DctcpState {
    /// Estimate of the fraction of marked packets.
    pub alpha: f64,
    pub g: f64,
    /// Payload bytes acknowledged in the current observation window.
    acked: u64,
    /// ... of which carried ECN-Echo.
    marked: u64,
    /// The observation window ends when `snd_una` passes this sequence number.
    window_end: u64,
}

impl DctcpState {
    pub fn new(g: f64, alpha_init: f64) -> DctcpState {
        DctcpState { alpha: alpha_init, g, acked: 0, marked: 0, window_end: 0 }
    }
}

/// What a window rule may look at besides alpha: the flow and its progress.
#[derive(Clone, Copy, Debug)]
pub struct FlowProgress {
    pub now: Time,
    pub start: Time,
    pub deadline: Option<Time>,
    /// Flow size, payload bytes not yet acknowledged, and bytes sent so far
    /// (the highest sequence number sent; retransmissions count once).
    pub size: u64,
    pub remaining: u64,
    pub sent: u64,
    pub cwnd: u64,
    /// Smoothed RTT (the path's base RTT before the first sample).
    pub rtt: Dur,
    /// The sender's NIC rate, bytes per second.
    pub line_rate: f64,
}

/// D2TCP's deadline imminence factor d = T_c / D (papers/004 §II: "T is the
/// time needed for a flow to complete its transmitting under a
/// deadline-agnostic manner, while D is the time remaining until its
/// deadline"). As baselines.md "D2TCP" gives the public implementations:
/// T_c = B RTT / (0.75 W) with B the bytes **not yet sent** and W the
/// window (DCTCP's mean sawtooth window); d kept in [d_min, d_max];
/// d_after_deadline once the deadline has passed; d = 1 (plain DCTCP)
/// without a deadline (all three are keys: [`ImminenceRange`]). With
/// `tc_rate = "line_rate"`, T_c = B / C instead ([`TcRate`]).
pub fn imminence(p: &FlowProgress, range: ImminenceRange) -> f64 {
    let Some(deadline) = p.deadline else { return 1.0 };
    if deadline <= p.now {
        return range.d_after_deadline;
    }
    let left = deadline.since(p.now).as_secs_f64();
    let unsent = p.size.saturating_sub(p.sent);
    let tc = match range.tc_rate {
        TcRate::Window => unsent as f64 * p.rtt.as_secs_f64() / (0.75 * p.cwnd.max(1) as f64),
        TcRate::LineRate => unsent as f64 / p.line_rate.max(1.0),
    };
    (tc / left).clamp(range.d_min, range.d_max)
}

impl LpdRule {
    /// The penalty f of papers/004 eq. (2), in [0, 1]: the window grows by
    /// 1 - f MSS per RTT without congestion and shrinks to w (1 - f) with
    /// it. Each variant is one choice of f (see [`LpdVariant`]); `range`
    /// bounds D2TCP's d for variants d and mld.
    pub fn penalty(&self, alpha: f64, range: ImminenceRange, p: &FlowProgress) -> f64 {
        let t_max = self.t_max.as_secs_f64();
        // §IV-A: "For flows without deadlines, t is simply set to t_max";
        // §IV-C: s_max "is an upper bound for truncating a large s".
        let t = p.deadline.map_or(t_max, |d| d.since(p.start).as_secs_f64()).min(t_max);
        let s_max = self.s_max.0.max(1);
        let bytes = match self.size_basis() {
            SizeBasis::Total => p.size,
            SizeBasis::Remaining => p.remaining,
            SizeBasis::Sent => p.sent,
        };
        let s = bytes.min(s_max) as f64 / s_max as f64;
        let f = match self.variant {
            LpdVariant::D => alpha / imminence(p, range),
            LpdVariant::T => alpha * t / t_max,
            LpdVariant::E => alpha * t / t_max * s,
            LpdVariant::Mld => mld(alpha, imminence(p, range), self.mld_form),
            LpdVariant::S => alpha * s,
        };
        f.clamp(0.0, 1.0)
    }
}

/// MLD (papers/004 §VI): f = (2 - d)^alpha for d < 1, alpha for d = 1,
/// alpha (2 - d) / (2d - alpha) for d > 1, with D2TCP's imminence d. The
/// printed d < 1 branch is at least 1 (a lax flow never grows); `Linear`
/// reads it as alpha (2 - d) (docs/fidelity.md "MLD and LPD-s").
fn mld(alpha: f64, d: f64, form: MldForm) -> f64 {
    if d < 1.0 {
        match form {
            MldForm::Printed => (2.0 - d).powf(alpha),
            MldForm::Linear => alpha * (2.0 - d),
        }
    } else if d == 1.0 {
        alpha
    } else {
        alpha * (2.0 - d) / (2.0 * d - alpha)
    }
}

/// Congestion-control choice: a closed enum (docs/architecture.md rule 3). A variant
/// needs only `on_ack` (state), `increase` and `ssthresh_after`.
#[derive(Clone, Debug, PartialEq)]
pub enum Cc {
    NewReno,
    Dctcp(DctcpState),
    /// D2TCP: DCTCP with the gamma-corrected penalty p = alpha^d.
    D2tcp(DctcpState, ImminenceRange),
    /// LPD: load-proportional differentiation, f proportional to alpha.
    Lpd(DctcpState, LpdRule, ImminenceRange),
    /// L2DCT: cut and increase weighted by the bytes a flow has sent.
    L2dct(DctcpState, L2dctRule),
    /// Karuna's MCP for deadline flows: DCTCP held at the window the
    /// deadline needs ([`super::karuna::expected_window`]).
    Mcp(DctcpState),
}

impl Cc {
    /// Whether data packets should be ECN-capable and ECN-Echo acted on.
    pub fn ecn_capable(&self) -> bool {
        !matches!(self, Cc::NewReno)
    }

    /// DCTCP's marked-fraction estimate, for the ECN-driven variants.
    pub fn alpha(&self) -> Option<f64> {
        match self {
            Cc::NewReno => None,
            Cc::Dctcp(d) | Cc::D2tcp(d, _) | Cc::Lpd(d, ..) | Cc::L2dct(d, _) | Cc::Mcp(d) => Some(d.alpha),
        }
    }

    /// D2TCP's imminence d at `p`, for the rules whose cut uses it (D2TCP,
    /// LPD's d and mld variants; LPD Fig. 1(c)).
    pub fn imminence(&self, p: &FlowProgress) -> Option<f64> {
        match self {
            Cc::D2tcp(_, range) => Some(imminence(p, *range)),
            Cc::Lpd(_, rule, range) if matches!(rule.variant, LpdVariant::D | LpdVariant::Mld) => {
                Some(imminence(p, *range))
            }
            _ => None,
        }
    }

    /// Bytes added to the window for every window of data acknowledged in
    /// congestion avoidance: one MSS (RFC 5681 §3.1), 1 - f MSS under LPD
    /// (papers/004 eq. 2, "without congestion"), w_c / w_max MSS under L2DCT
    /// (baselines.md "L2DCT").
    pub(super) fn increase(&self, mss: u64, p: &FlowProgress) -> u64 {
        let segments = |k: f64| round_to_u64(k * mss as f64);
        match self {
            Cc::Lpd(d, rule, range) => segments(1.0 - rule.penalty(d.alpha, *range, p)),
            Cc::L2dct(_, rule) => segments(rule.increase(p.sent)),
            _ => mss,
        }
    }

    /// Per-ACK bookkeeping. `bytes` is the payload of the data packet this ACK
    /// acknowledges, `snd_una` the cumulative ack after processing it and
    /// `snd_max` the highest sequence number sent so far.
    pub(super) fn on_ack(&mut self, bytes: u64, ecn_echo: bool, snd_una: u64, snd_max: u64) {
        match self {
            Cc::NewReno => {}
            Cc::Dctcp(d) | Cc::D2tcp(d, _) | Cc::Lpd(d, ..) | Cc::L2dct(d, _) | Cc::Mcp(d) => {
                // DCTCP §3.1: "the sender maintains an estimate of the fraction of
                // packets that are marked, called alpha, which is updated once
                // for every window of data (roughly one RTT)".
                d.acked += bytes;
                if ecn_echo {
                    d.marked += bytes;
                }
                if snd_una >= d.window_end && d.acked > 0 {
                    let f = d.marked as f64 / d.acked as f64;
                    d.alpha = (1.0 - d.g) * d.alpha + d.g * f;
                    d.acked = 0;
                    d.marked = 0;
                    d.window_end = snd_max;
                }
            }
        }
    }

    /// **The window-decrease hook**: the new ssthresh in bytes after `signal`,
    /// given the bytes in flight and the flow's progress (window included).
    pub(super) fn ssthresh_after(&self, signal: Signal, flight: u64, mss: u64, p: &FlowProgress) -> u64 {
        let cut = |fraction: f64| ((p.cwnd as f64 * (1.0 - fraction)) as u64).max(2 * mss);
        match (self, signal) {
            // RFC 5681 eq. (4), RFC 6582 §3.2 step 2: max(FlightSize / 2, 2 SMSS).
            // The ECN variants react to loss like TCP (DCTCP §3.1).
            (_, Signal::DupAcks | Signal::Timeout) => (flight / 2).max(2 * mss),
            // NewReno is not ECN-capable: ECN-Echo never reaches here.
            (Cc::NewReno, Signal::Ecn) => p.cwnd,
            // DCTCP §3.1 eq. (2): cwnd <- cwnd (1 - alpha/2); floor of 2 MSS as
            // Linux's dctcp_ssthresh (all ECN variants).
            (Cc::Dctcp(d), Signal::Ecn) => cut(d.alpha / 2.0),
            // D2TCP (papers/004 §II): w <- w (1 - alpha^d / 2).
            (Cc::D2tcp(d, range), Signal::Ecn) => cut(d.alpha.powf(imminence(p, *range)) / 2.0),
            // LPD (papers/004 eq. 2): w <- w (1 - f) "with congestion".
            (Cc::Lpd(d, rule, range), Signal::Ecn) => cut(rule.penalty(d.alpha, *range, p)),
            // L2DCT (baselines.md): w <- w (1 - alpha^(w_c) / 2).
            (Cc::L2dct(d, rule), Signal::Ecn) => cut(rule.cut(d.alpha, p.sent)),
            (Cc::Mcp(d), Signal::Ecn) => super::karuna::mcp_cut(d.alpha, p, 2 * mss),
        }
    }

    /// The largest window the rule allows now: MCP's expected window (at
    /// least 2 MSS) before a deadline; no bound for the other rules.
    pub(super) fn window_cap(&self, mss: u64, p: &FlowProgress) -> Option<u64> {
        match self {
            Cc::Mcp(_) => super::karuna::expected_window(p, 2 * mss),
            _ => None,
        }
    }
}


#[cfg(test)]
mod tests {
    use super::*;
    use dcflow_core::Bytes;

    fn progress(deadline_ms: Option<u64>, size: u64) -> FlowProgress {
        FlowProgress {
            now: Time::ZERO,
            start: Time::ZERO,
            deadline: deadline_ms.map(|ms| Time::ZERO + Dur::ms(ms)),
            size,
            remaining: size,
            sent: 0,
            cwnd: 10_000,
            rtt: Dur::us(100),
            line_rate: 125e6,
        }
    }

    fn imminence_of(p: &FlowProgress) -> f64 {
        imminence(p, ImminenceRange::default())
    }

    /// f of `variant` with the default keys (t_max 80 ms, s_max 200 KB, d in [0.5, 2]).
    fn penalty(variant: LpdVariant, alpha: f64, p: &FlowProgress) -> f64 {
        LpdRule { variant, ..LpdRule::default() }.penalty(alpha, ImminenceRange::default(), p)
    }

    /// Tc = 75,000 B / (0.75 x 10,000 B per 100 us) = 1 ms.
    #[test]
    fn imminence_is_time_needed_over_time_left_within_half_and_two() {
        assert_eq!(imminence_of(&progress(None, 75_000)), 1.0);
        assert!((imminence_of(&progress(Some(1), 75_000)) - 1.0).abs() < 1e-9);
        assert_eq!(imminence_of(&progress(Some(4), 75_000)), 0.5); // 0.25, kept at 0.5
        assert_eq!(imminence_of(&progress(Some(0), 75_000)), 2.0); // past its deadline
    }

    /// Eq. (3) and (4) with t = 20 ms, t_max = 80 ms, s = 100 KB, s_max = 200 KB.
    #[test]
    fn lpd_penalties_follow_the_paper_formulas() {
        let (a, p) = (0.5, progress(Some(20), 100_000));
        assert!((penalty(LpdVariant::T, a, &p) - 0.125).abs() < 1e-12);
        assert!((penalty(LpdVariant::E, a, &p) - 0.0625).abs() < 1e-12);
        assert!((penalty(LpdVariant::S, a, &p) - 0.25).abs() < 1e-12);
        // No deadline: t = t_max; a size above s_max is truncated to it.
        assert!((penalty(LpdVariant::E, a, &progress(None, 900_000)) - 0.5).abs() < 1e-12);
        // LPD with D2TCP's d (here 1): f = alpha; MLD at d = 1: alpha.
        let p1 = progress(Some(1), 75_000);
        assert!((penalty(LpdVariant::D, a, &p1) - 0.5).abs() < 1e-9);
        assert!((penalty(LpdVariant::Mld, a, &p1) - 0.5).abs() < 1e-6);
    }

    /// Proposition 1: LPD respects PI (a more imminent flow, smaller t, is
    /// penalised less) and PD (the gap between two flows' penalties grows
    /// with the load alpha); D2TCP's alpha^d gap shrinks at heavy load
    /// (§III-B: pd(0.6) < pd(0.4), pd(0.9) < pd(0.6) for d = 0.4 vs 0.6).
    #[test]
    fn lpd_differentiates_more_under_more_load_and_d2tcp_less() {
        let (tight, lax) = (progress(Some(20), 50_000), progress(Some(40), 50_000));
        let gap = |a: f64| penalty(LpdVariant::T, a, &lax) - penalty(LpdVariant::T, a, &tight);
        assert!(gap(0.2) > 0.0);
        assert!(gap(0.6) > gap(0.2) && gap(0.9) > gap(0.6));
        let d2tcp_gap = |a: f64| a.powf(0.4) - a.powf(0.6);
        assert!((d2tcp_gap(0.4) - 0.116).abs() < 5e-4);
        assert!(d2tcp_gap(0.9) < d2tcp_gap(0.6) && d2tcp_gap(0.6) < d2tcp_gap(0.4));
    }

    /// §VI's MLD as printed gives a lax flow (d < 1) f >= 1, so it neither
    /// grows nor keeps more than 2 MSS; `mld_form = "linear"` reads the
    /// branch as alpha (2 - d), continuous with f = alpha at d = 1, and
    /// keeps the principle: less penalty for more imminence, a wider gap
    /// under more load.
    #[test]
    fn mld_printed_pins_lax_flows_and_linear_keeps_the_principle() {
        let printed = |a: f64, d: f64| mld(a, d, MldForm::Printed);
        let linear = |a: f64, d: f64| mld(a, d, MldForm::Linear);
        assert!(printed(0.3, 0.6) > 1.0 && printed(0.0, 0.6) == 1.0);
        assert!((linear(0.3, 1.0 - 1e-9) - 0.3).abs() < 1e-6, "continuous at d = 1");
        assert!(linear(0.5, 0.6) > linear(0.5, 0.9), "more imminent, less penalty");
        let gap = |a: f64| linear(a, 0.6) - linear(a, 0.9);
        assert!(gap(0.8) > gap(0.4) && gap(0.4) > gap(0.1), "more load, more differentiation");
    }

    /// What s counts: LPD-e's s is the flow's size (§IV-C); LPD-s's the
    /// bytes left, so two equal flows part as one gets ahead (§VI, Fig. 13b).
    #[test]
    fn lpd_s_counts_remaining_bytes_and_lpd_e_the_size() {
        let mut p = progress(Some(20), 1_000_000);
        p.remaining = 100_000;
        let rule = |variant, s_basis| LpdRule { variant, s_max: Bytes::mb(1), s_basis, ..LpdRule::default() };
        p.sent = 900_000;
        let f = |r: LpdRule| r.penalty(0.5, ImminenceRange::default(), &p);
        assert!((f(rule(LpdVariant::S, None)) - 0.05).abs() < 1e-12);
        assert!((f(rule(LpdVariant::S, Some(SizeBasis::Total))) - 0.5).abs() < 1e-12);
        assert!((f(rule(LpdVariant::S, Some(SizeBasis::Sent))) - 0.45).abs() < 1e-12);
        assert_eq!(rule(LpdVariant::E, None).size_basis(), SizeBasis::Total);
    }
}
