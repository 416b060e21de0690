//! TCP senders: NewReno (RFC 5681 + RFC 6582 + RFC 6298), DCTCP
//! (Alizadeh et al., SIGCOMM'10, §3), the baselines of PDQ, D3, S3, MERP, LPD,
//! and the deadline-aware DCTCPs of the LPD paper (papers/004): D2TCP
//! (penalty p = alpha^d) and LPD (penalty f proportional to alpha).
//!
//! Sans-IO (docs/architecture.md rule 1): the sender never reads a clock,
//! `now` is an argument. It pairs with the shared [`Receiver`](crate::Receiver),
//! which ACKs every data packet with the cumulative ack in `seq`, echoes CE as
//! `ecn_echo` and echoes `sent_at` / `retransmit` (RTT samples, Karn's rule).
//!
//! Structure: one state machine for connection set-up, segmentation, the RTO
//! timer and NewReno loss recovery, parameterised by a closed congestion-control
//! enum [`Cc`]. The congestion-control variants only decide (a) per-ACK
//! bookkeeping ([`Cc::on_ack`]), (b) the congestion-avoidance increase per
//! window ([`Cc::increase`]) and (c) the window after a congestion signal
//! ([`Cc::ssthresh_after`], the window-decrease hook). L2DCT is one
//! more variant ([`L2dctRule`], as baselines.md describes it), Karuna's MCP
//! another ([`karuna`]). Which switch class each packet carries is a
//! separate [`Tag`]: fixed (TCP_pr), or PIAS' bytes-sent MLFQ ([`pias`]).
//!
//! Units: the congestion window and ssthresh are kept in **bytes** of payload;
//! configuration gives them in packets (segments of `FlowInfo::mss` bytes).

mod cc;
mod config;
mod karuna;
mod l2dct;
mod pias;
mod sender;
#[cfg(test)]
mod tests;

pub use cc::{imminence, Cc, DctcpState, FlowProgress, Signal};
pub use config::{
    D2tcpConfig, DctcpConfig, ImminenceRange, L2dctConfig, LpdConfig, LpdRule, LpdVariant, MldForm, SizeBasis, TcRate, TcpConfig,
    MAX_RTO,
};
pub use karuna::{expected_window, mcp_cut, FlowType, KarunaConfig};
pub use l2dct::L2dctRule;
pub use pias::{mlfq_class, PiasConfig, Tag};
pub use sender::TcpSender;
