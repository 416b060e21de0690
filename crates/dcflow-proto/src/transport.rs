//! The closed set of transports (DESIGN.md rule 3): the `[protocol]` section of
//! a scenario, the sender each protocol puts on a host, and the agent it puts
//! on each switch port. Adding a protocol = one module + one variant here.

use crate::agent::PortAgent;
use crate::endpoint::{Endpoint, FlowEvent, FlowInfo};
use crate::packet::Packet;
use crate::pfabric::{PfabricConfig, PfabricSender};
use crate::rate::{ExplicitRateConfig, RateSender};
use crate::rate_alloc::RateAllocator;
use crate::tcp::{DctcpConfig, TcpConfig, TcpSender};
use dcflow_core::{ConfigError, Rate, Time};
use serde::{Deserialize, Serialize};

/// `[protocol]`: `name` selects the protocol, the other keys are its options.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(tag = "name", rename_all = "lowercase")]
pub enum ProtocolConfig {
    /// TCP NewReno with a small RTO_min (PDQ §5.1, D3 §6.1.2).
    Tcp(TcpConfig),
    /// DCTCP (Alizadeh et al., SIGCOMM'10): switches mark above K (topology.ecn_threshold).
    Dctcp(DctcpConfig),
    /// RCP_dc: D3 without deadlines (D3 §6.1, PDQ §5.1).
    Rcp(ExplicitRateConfig),
    /// D3 (Wilson et al., SIGCOMM'11).
    D3(ExplicitRateConfig),
    /// pFabric (Alizadeh et al., SIGCOMM'13).
    Pfabric(PfabricConfig),
}

impl Default for ProtocolConfig {
    fn default() -> Self {
        ProtocolConfig::Rcp(ExplicitRateConfig::default())
    }
}

/// Which switch queue a protocol needs unless the scenario names one.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum QueueNeed {
    DropTail,
    Ecn,
    Pfabric,
}

impl ProtocolConfig {
    pub fn name(&self) -> &'static str {
        match self {
            ProtocolConfig::Tcp(_) => "tcp",
            ProtocolConfig::Dctcp(_) => "dctcp",
            ProtocolConfig::Rcp(_) => "rcp",
            ProtocolConfig::D3(_) => "d3",
            ProtocolConfig::Pfabric(_) => "pfabric",
        }
    }

    /// Checks that serde cannot express; keys are relative to `[protocol]`.
    pub fn validate(&self) -> Result<(), ConfigError> {
        match self {
            ProtocolConfig::Tcp(c) => c.validate(),
            ProtocolConfig::Dctcp(c) => c.validate(),
            ProtocolConfig::Rcp(c) | ProtocolConfig::D3(c) => c.validate(),
            ProtocolConfig::Pfabric(c) => c.validate(),
        }
    }

    pub fn default_queue(&self) -> QueueNeed {
        match self {
            ProtocolConfig::Pfabric(_) => QueueNeed::Pfabric,
            ProtocolConfig::Dctcp(_) => QueueNeed::Ecn,
            ProtocolConfig::Tcp(_) | ProtocolConfig::Rcp(_) | ProtocolConfig::D3(_) => QueueNeed::DropTail,
        }
    }

    pub fn sender(&self, info: FlowInfo) -> Sender {
        match self {
            ProtocolConfig::Tcp(c) => Sender::Tcp(TcpSender::new(info, c)),
            ProtocolConfig::Dctcp(c) => Sender::Tcp(TcpSender::dctcp(info, c)),
            ProtocolConfig::Rcp(c) => Sender::Rate(RateSender::new(info, c, false)),
            ProtocolConfig::D3(c) => Sender::Rate(RateSender::new(info, c, true)),
            ProtocolConfig::Pfabric(c) => Sender::Pfabric(PfabricSender::new(info, c)),
        }
    }

    /// The agent for a switch output port of rate `link`.
    pub fn port_agent(&self, link: Rate) -> PortAgent {
        match self {
            ProtocolConfig::Rcp(c) | ProtocolConfig::D3(c) => {
                PortAgent::Rate(RateAllocator::new(c.allocator(), link))
            }
            ProtocolConfig::Tcp(_) | ProtocolConfig::Dctcp(_) | ProtocolConfig::Pfabric(_) => PortAgent::Forward,
        }
    }
}

/// Every sender, as a closed enum so the engine's hot path never goes through `dyn`.
pub enum Sender {
    Tcp(TcpSender),
    Rate(RateSender),
    Pfabric(PfabricSender),
}

macro_rules! each_sender {
    ($self:expr, $s:ident => $e:expr) => {
        match $self {
            Sender::Tcp($s) => $e,
            Sender::Rate($s) => $e,
            Sender::Pfabric($s) => $e,
        }
    };
}

impl Sender {
    pub fn retransmits(&self) -> u64 {
        each_sender!(self, s => s.retransmits())
    }
    /// Retransmission timeouts the sender took.
    pub fn timeouts(&self) -> u64 {
        match self {
            Sender::Tcp(s) => s.timeouts(),
            Sender::Pfabric(s) => s.timeouts(),
            Sender::Rate(s) => s.timeouts(),
        }
    }
}

impl Endpoint for Sender {
    #[inline]
    fn handle_packet(&mut self, now: Time, pkt: &Packet) {
        each_sender!(self, s => s.handle_packet(now, pkt))
    }
    #[inline]
    fn handle_timeout(&mut self, now: Time) {
        each_sender!(self, s => s.handle_timeout(now))
    }
    #[inline]
    fn poll_transmit(&mut self, now: Time) -> Option<Packet> {
        each_sender!(self, s => s.poll_transmit(now))
    }
    #[inline]
    fn poll_timeout(&self) -> Option<Time> {
        each_sender!(self, s => s.poll_timeout())
    }
    #[inline]
    fn poll_event(&mut self) -> Option<FlowEvent> {
        each_sender!(self, s => s.poll_event())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn protocol_section_parses_by_name_and_rejects_unknown_keys() {
        let p: ProtocolConfig = serde_json::from_str(r#"{"name": "rcp", "alpha": 0.2}"#).unwrap();
        match p {
            ProtocolConfig::Rcp(c) => assert_eq!(c.alpha, 0.2),
            _ => panic!("wrong variant"),
        }
        let e = serde_json::from_str::<ProtocolConfig>(r#"{"name": "rcp", "alpah": 0.2}"#);
        assert!(e.unwrap_err().to_string().contains("alpah"));
        let e = serde_json::from_str::<ProtocolConfig>(r#"{"name": "quic"}"#);
        assert!(e.unwrap_err().to_string().contains("unknown variant"));
        let p: ProtocolConfig = serde_json::from_str(r#"{"name": "dctcp"}"#).unwrap();
        assert_eq!(p.default_queue(), QueueNeed::Ecn);
    }
}
