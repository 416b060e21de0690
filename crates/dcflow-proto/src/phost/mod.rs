//! pHost (Gao, Narayan, Kumar, Agarwal, Ratnasamy, Shenker, "pHost:
//! Distributed Near-Optimal Datacenter Transport Over Commodity Network
//! Fabric", CoNEXT'15): receivers schedule, switches only forward.
//!
//! A source announces a flow with an RTS and may send its first packets on
//! *free tokens* at once (§3); the destination then issues one token per
//! MTU transmission time at its line rate to the inbound flow with the
//! fewest remaining packets (§3, SRPT); a source spends a token within its
//! expiry time on the flow with the fewest remaining packets among those it
//! holds tokens for (§3); a destination stops tokening a source that has
//! left too many tokens unused (*source downgrade*) and serves another flow
//! (§3); lost packets are recovered by the destination tokening the
//! packets it still misses again (§3). Switches need only two strict
//! priority levels (§3), dcflow's `priority` queue.
//!
//! - [`header`]: what RTS, token, data and the final ACK carry; priorities.
//! - [`outbound`]: a host's flows as a source (free tokens, token spending).
//! - [`inbound`]: a host's flows as a destination (the token scheduler).
//! - [`host`]: the per-host agent ([`crate::HostEndpoint`]) pacing both
//!   at the host's line rate.
//!
//! The paper gives the mechanisms; the constants are those of the authors'
//! simulator YAPS (`py/run_experiments.py`, `conf_str_phost`). Each choice
//! and its source is listed in docs/fidelity-phost.md.

pub mod header;
pub mod host;
pub mod inbound;
pub mod outbound;
#[cfg(test)]
mod tests;

use dcflow_core::{ensure, ConfigError};
use serde::{Deserialize, Serialize};

pub use header::PhostHeader;
pub use host::PhostHost;

/// Which flows start with free tokens.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum FreeTokensFor {
    /// Every flow sends its first `free_tokens` packets unscheduled (§3).
    All,
    /// Only a flow of at most `free_tokens` packets, all of them; a larger
    /// flow waits for tokens (YAPS `CapabilityFlow::init_capa_size`,
    /// ext/capabilityflow.cpp:375-377).
    Short,
}

/// At which priority unscheduled data (sent on free tokens) travels.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Level {
    /// With RTS and tokens, ahead of scheduled data.
    High,
    /// With scheduled data (YAPS: every data packet at the low level,
    /// ext/capabilityflow.cpp:58 with `capability_prio_thresh` unset).
    Low,
}

/// What wakes a destination that has no flow it may token now.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum WakeOn {
    /// Any packet: a data packet that answers its tokens ends a source's
    /// downgrade at once (the gap it closes is what §3 downgrades on).
    Packet,
    /// Only its earliest timer (a downgrade's or a retransmission round's
    /// end) or a new flow's RTS: YAPS's destination sleeps on one
    /// `CapabilityProcessingEvent`, which data arrivals never move
    /// (ext/capabilityhost.cpp:355-358, ext/capabilityflow.cpp:98-108).
    Timer,
}

/// `[protocol] name = "phost"`. Times are in MTU transmission times at the
/// host's line rate, as YAPS counts them (`get_full_pkt_tran_delay`).
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields, default)]
pub struct PhostConfig {
    /// Free tokens per flow; 0 = the path's bandwidth-delay product in
    /// packets (§3: the source "sends the first BDP worth of packets"
    /// without waiting for tokens). YAPS uses 8 (`capability_initial`).
    pub free_tokens: u32,
    /// Which flows get free tokens (default `all`, §3).
    pub free_tokens_for: FreeTokensFor,
    /// Priority of data sent on free tokens (default `high`).
    pub unscheduled: Level,
    /// What wakes an idle destination (default `packet`).
    pub wake_on: WakeOn,
    /// A token expires this long after it reaches the source (§3; YAPS
    /// `capability_timeout` 1.5).
    pub token_expiry: f64,
    /// Tokens a destination may have outstanding to one flow (issued, no
    /// data for them or later ones yet) before it downgrades the source;
    /// 0 = the path's BDP in packets (§3; YAPS `capability_window` 8).
    pub downgrade_after: u32,
    /// How long a downgraded source gets no tokens, from the last token it
    /// got (YAPS `capability_window_timeout` 25).
    pub downgrade_for: f64,
    /// After tokening every packet it misses, a destination waits this long
    /// before tokening the still-missing ones again: pHost's retransmission
    /// (§3; YAPS `capability_resend_timeout` 9).
    pub resend_after: f64,
    /// A source that has had no token nor the final ACK of a flow for this
    /// many base RTTs sends its RTS again. Neither the paper nor YAPS resends
    /// an RTS; without it a lost RTS (of a flow without free tokens) or a
    /// lost final ACK would leave the flow hanging for ever.
    pub rts_retry_rtts: f64,
}

impl Default for PhostConfig {
    fn default() -> Self {
        PhostConfig {
            free_tokens: 0,
            free_tokens_for: FreeTokensFor::All,
            unscheduled: Level::High,
            wake_on: WakeOn::Packet,
            token_expiry: 1.5,
            downgrade_after: 0,
            downgrade_for: 25.0,
            resend_after: 9.0,
            rts_retry_rtts: 10.0,
        }
    }
}

impl PhostConfig {
    pub fn validate(&self) -> Result<(), ConfigError> {
        let positive = |v: f64| v > 0.0 && v.is_finite();
        ensure(positive(self.token_expiry), "token_expiry", "must be a positive number of MTU transmission times (pHost: 1.5)")?;
        ensure(positive(self.downgrade_for), "downgrade_for", "must be a positive number of MTU transmission times (pHost: 25)")?;
        ensure(positive(self.resend_after), "resend_after", "must be a positive number of MTU transmission times (pHost: 9)")?;
        ensure(positive(self.rts_retry_rtts), "rts_retry_rtts", "must be a positive number of base RTTs (default 10)")?;
        ensure(
            self.free_tokens_for == FreeTokensFor::All || self.free_tokens > 0,
            "free_tokens",
            "must be a positive number of packets with free_tokens_for = \"short\" (YAPS: 8)",
        )
    }
}
