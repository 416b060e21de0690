//! Homa (Montazeri, Li, Alizadeh, Ousterhout, "Homa: A Receiver-Driven
//! Low-Latency Transport Protocol Using Network Priorities", SIGCOMM 2018).
//!
//! A message's first RTTbytes go out at once, unscheduled, at a priority
//! level its size picks (§3.2, §3.4); the receiver grants the rest, one
//! GRANT per data packet it receives, to the few messages with the fewest
//! bytes left (SRPT with a degree of overcommitment, §3.3-§3.5), and names
//! in each grant the scheduled level the message's rank gives it. Switch
//! ports are eight strict priority levels (the `priority` queue of
//! dcflow-net). Lost packets are found by timeouts at the receiver, which
//! asks with RESEND; a sender busy with shorter messages answers BUSY (§3.7).
//!
//! Homa's state is per host, so each host runs one [`HomaHost`] agent
//! ([`crate::HostEndpoint`]): `sender.rs` holds the messages it sends,
//! `receiver.rs` those it receives and the grant scheduler. Every choice and
//! its source is listed in docs/fidelity-homa.md.

pub mod header;
mod host;
pub mod priority;
mod receiver;
mod sender;
#[cfg(test)]
mod tests;

pub use header::HomaHeader;
pub use host::HomaHost;
pub use priority::Priorities;

use dcflow_core::{ensure, Bytes, ConfigError, Dur};
use serde::{Deserialize, Serialize};

/// Levels of a switch port: the 8 strict priority queues of commodity
/// switches that Homa uses (§3.4; HomaSimulation's `prioLevels = 8`).
pub const PRIORITY_LEVELS: u32 = 8;

/// `[protocol] name = "homa"`.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields, default)]
pub struct HomaConfig {
    /// RTTbytes, the unscheduled bytes of a message; absent = each path's
    /// bandwidth-delay product (line rate x base RTT, in whole packets).
    /// HomaSimulation's 10 Gbps runs use 9.7-10 KB.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub rtt_bytes: Option<Bytes>,
    /// Strict priority levels per switch port, 1 to 8 (§3.4: 8).
    pub priorities: u32,
    /// Levels for unscheduled packets; 0 = from the workload's sizes, the
    /// share of its bytes that are unscheduled (§3.4).
    pub unscheduled_priorities: u32,
    /// Message sizes splitting the unscheduled levels (ascending; a message
    /// of size <= the first sends its unscheduled bytes at the highest
    /// level); empty = equal shares of the workload's unscheduled bytes
    /// (§3.4). Gives `len + 1` unscheduled levels.
    pub unscheduled_cutoffs: Vec<Bytes>,
    /// Messages a receiver grants at once (§3.5); 0 = the number of
    /// scheduled levels, the paper's choice.
    pub overcommitment: u32,
    /// Silence after which a receiver sends RESEND (§3.7), and a sender
    /// waiting for its receiver sends its first packet again; absent =
    /// [`RESEND_DRAINS`] times the time a host's link takes to carry what
    /// its receiver keeps granted (`overcommitment` x RTTbytes).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub resend_timeout: Option<Dur>,
    /// The run's largest bandwidth-delay product (bytes), set by
    /// [`resolved`](Self::resolved): RTTbytes for the default timeout.
    #[serde(skip)]
    pub run_bdp: u64,
}

/// The default resend timeout in multiples of the time to drain a
/// receiver's granted bytes: packets granted at the lowest scheduled level
/// wait behind the other granted messages' (up to `overcommitment` x
/// RTTbytes), and a timeout below that asks for packets that are only
/// queued. HomaModule's 2-5 ms ticks at 10-100 Gbps are of this order.
pub const RESEND_DRAINS: u64 = 10;

impl Default for HomaConfig {
    fn default() -> Self {
        HomaConfig {
            rtt_bytes: None,
            priorities: PRIORITY_LEVELS,
            unscheduled_priorities: 0,
            unscheduled_cutoffs: Vec::new(),
            overcommitment: 0,
            resend_timeout: None,
            run_bdp: 0,
        }
    }
}

/// What every host agent of a run shares, from a resolved [`HomaConfig`].
#[derive(Clone, Debug, PartialEq)]
pub(crate) struct HomaParams {
    pub prios: Priorities,
    pub overcommitment: usize,
    pub rtt_bytes: Option<u64>,
    pub resend_timeout: Option<Dur>,
    /// RTTbytes for the default resend timeout.
    pub timeout_rtt_bytes: u64,
    /// Payload of a full data packet (`mtu - HEADER_BYTES`).
    pub mss: u32,
}

impl HomaConfig {
    pub fn validate(&self) -> Result<(), ConfigError> {
        ensure(
            (1..=PRIORITY_LEVELS).contains(&self.priorities),
            "priorities",
            format!("must be 1 to {PRIORITY_LEVELS} levels (a switch port's strict priority queues)"),
        )?;
        ensure(
            self.unscheduled_priorities <= self.priorities,
            "unscheduled_priorities",
            "must be 0 (from the workload) or at most `priorities`",
        )?;
        let cuts = &self.unscheduled_cutoffs;
        ensure(
            cuts.windows(2).all(|w| w[0] < w[1]) && cuts.first().is_none_or(|c| c.0 > 0),
            "unscheduled_cutoffs",
            "must be positive sizes in ascending order, e.g. [\"1KB\", \"10KB\"]",
        )?;
        ensure(
            cuts.len() < self.priorities as usize,
            "unscheduled_cutoffs",
            "gives one level more than it has sizes; it must leave at most `priorities` levels",
        )?;
        ensure(
            cuts.is_empty() || self.unscheduled_priorities == 0 || self.unscheduled_priorities as usize == cuts.len() + 1,
            "unscheduled_priorities",
            "must be 0 or one more than the number of unscheduled_cutoffs",
        )?;
        ensure(self.rtt_bytes.is_none_or(|b| b.0 > 0), "rtt_bytes", "must be a positive size, e.g. \"9.7KB\"")?;
        ensure(self.resend_timeout != Some(Dur::ZERO), "resend_timeout", "must be a positive duration, e.g. \"2ms\"")
    }

    /// The section for a run whose messages have sizes `sizes`: without
    /// `unscheduled_cutoffs`, the cutoffs are computed from the sizes by the
    /// paper's method (§3.4), with RTTbytes the key's value or `rtt_bytes`
    /// (the topology's bandwidth-delay product), and written into the key,
    /// so that every host uses the same ones and the run's output shows them.
    pub fn resolved(&self, sizes: &[u64], rtt_bytes: u64) -> HomaConfig {
        if !self.unscheduled_cutoffs.is_empty() {
            return HomaConfig { run_bdp: rtt_bytes, ..self.clone() };
        }
        let rtt = self.rtt_bytes.map_or(rtt_bytes, |b| b.0);
        let prios = Priorities::from_workload(self.priorities as u8, self.unscheduled_priorities as u8, sizes, rtt);
        HomaConfig {
            unscheduled_cutoffs: prios.cutoffs().iter().map(|&c| Bytes(c)).collect(),
            unscheduled_priorities: prios.unscheduled_levels() as u32,
            run_bdp: rtt_bytes,
            ..self.clone()
        }
    }

    /// What the host agents run with, for `mtu`-byte packets. Cutoffs
    /// absent (a section not [`resolved`](Self::resolved)) give
    /// `unscheduled_priorities` levels (1 if 0) with no cutoffs.
    pub(crate) fn params(&self, mtu: u32) -> HomaParams {
        let levels = self.priorities as u8;
        let prios = if self.unscheduled_cutoffs.is_empty() {
            Priorities::from_workload(levels, self.unscheduled_priorities as u8, &[], 0)
        } else {
            Priorities::explicit(levels, self.unscheduled_cutoffs.iter().map(|b| b.0).collect())
        };
        let overcommitment = match self.overcommitment {
            0 => prios.scheduled_levels().max(1) as usize,
            k => k as usize,
        };
        HomaParams {
            prios,
            overcommitment,
            rtt_bytes: self.rtt_bytes.map(|b| b.0),
            resend_timeout: self.resend_timeout,
            timeout_rtt_bytes: self.rtt_bytes.map_or(self.run_bdp, |b| b.0),
            mss: mtu - crate::packet::HEADER_BYTES,
        }
    }
}
