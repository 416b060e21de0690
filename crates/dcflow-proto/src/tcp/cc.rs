//! The congestion-control variants: per-ACK bookkeeping and the
//! window-decrease hook; loss recovery lives in the sender.

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

/// Congestion-control choice: a closed enum (DESIGN.md rule 3). Add D2TCP /
/// L2DCT as variants: they need only `on_ack` (state) and `ssthresh_after`.
#[derive(Clone, Debug, PartialEq)]
pub enum Cc {
    NewReno,
    Dctcp(DctcpState),
}

impl Cc {
    /// Whether data packets should be ECN-capable and ECN-Echo acted on.
    pub fn ecn_capable(&self) -> bool {
        matches!(self, Cc::Dctcp(_))
    }

    /// Per-ACK bookkeeping. `bytes` is the payload of the data packet this ACK
    /// acknowledges, `snd_una` the cumulative ack after processing it and
    /// `snd_max` the highest sequence number sent so far.
    pub(super) fn on_ack(&mut self, bytes: u64, ecn_echo: bool, snd_una: u64, snd_max: u64) {
        match self {
            Cc::NewReno => {}
            Cc::Dctcp(d) => {
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
    /// given the current window and the bytes in flight.
    pub(super) fn ssthresh_after(&self, signal: Signal, cwnd: u64, flight: u64, mss: u64) -> u64 {
        match (self, signal) {
            // RFC 5681 eq. (4), RFC 6582 §3.2 step 2: max(FlightSize / 2, 2 SMSS).
            // DCTCP reacts to loss like TCP (DCTCP §3.1).
            (_, Signal::DupAcks | Signal::Timeout) => (flight / 2).max(2 * mss),
            // NewReno is not ECN-capable: ECN-Echo never reaches here.
            (Cc::NewReno, Signal::Ecn) => cwnd,
            // DCTCP §3.1 eq. (2): cwnd <- cwnd (1 - alpha/2); floor of 2 MSS as
            // Linux's dctcp_ssthresh.
            (Cc::Dctcp(d), Signal::Ecn) => {
                let w = (cwnd as f64 * (1.0 - d.alpha / 2.0)) as u64;
                w.max(2 * mss)
            }
        }
    }
}

