//! TCP senders: NewReno (RFC 5681 + RFC 6582 + RFC 6298) and DCTCP
//! (Alizadeh et al., SIGCOMM'10, §3), the baselines of PDQ, D3, S3, MERP, LPD.
//!
//! Sans-IO (DESIGN.md §Architecture rule 1): the sender never reads a clock,
//! `now` is an argument. It pairs with the shared [`Receiver`](crate::Receiver),
//! which ACKs every data packet with the cumulative ack in `seq`, echoes CE as
//! `ecn_echo` and echoes `sent_at` / `retransmit` (RTT samples, Karn's rule).
//!
//! Structure: one state machine for connection set-up, segmentation, the RTO
//! timer and NewReno loss recovery, parameterised by a closed congestion-control
//! enum [`Cc`]. The congestion-control variants only decide (a) per-ACK
//! bookkeeping ([`Cc::on_ack`]) and (b) the window after a congestion signal
//! ([`Cc::ssthresh_after`], the window-decrease hook). D2TCP (penalty
//! `p = alpha^d`, Vamanan et al. SIGCOMM'12) and L2DCT are meant to be added as
//! further `Cc` variants without touching the loss-recovery code.
//!
//! Units: the congestion window and ssthresh are kept in **bytes** of payload;
//! configuration gives them in packets (segments of `FlowInfo::mss` bytes).

mod cc;
mod config;
mod sender;
#[cfg(test)]
mod tests;

pub use cc::{Cc, DctcpState, Signal};
pub use config::{DctcpConfig, TcpConfig, MAX_RTO};
pub use sender::TcpSender;
