//! The closed set of transports (docs/architecture.md rule 3): the `[protocol]` section of
//! a scenario, the sender each protocol puts on a host, and the agent it puts
//! on each switch port. Adding a protocol = one module + one variant here.

use crate::agent::PortAgent;
use crate::d3::{ExplicitRateConfig, RateAllocator, RateSender};
use crate::endpoint::{Endpoint, FlowEvent, FlowInfo, SenderState};
use crate::packet::Packet;
use crate::pfabric::{PfabricConfig, PfabricSender};
use crate::tcp::{D2tcpConfig, DctcpConfig, KarunaConfig, L2dctConfig, LpdConfig, PiasConfig, TcpConfig, TcpSender};
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
    /// D2TCP (Vamanan et al., SIGCOMM'12, as papers/004 §II describes it):
    /// window cut by alpha^d / 2 with deadline imminence d.
    D2tcp(D2tcpConfig),
    /// LPD (papers/004 §IV, §VI): variants d (lpd), t, e, mld, s.
    Lpd(LpdConfig),
    /// L2DCT (Munir et al., INFOCOM'13, as baselines.md describes it):
    /// DCTCP whose cut and increase are weighted by the bytes sent.
    L2dct(L2dctConfig),
    /// PIAS (Bai et al., NSDI'15): DCTCP tagging each packet with the MLFQ
    /// class of its flow's bytes sent, over strict priority with per-port ECN.
    Pias(PiasConfig),
    /// Karuna (Chen et al., SIGCOMM'16): deadline flows under MCP in the top
    /// class, known sizes split by size, unknown sizes by PIAS' MLFQ.
    Karuna(KarunaConfig),
    /// RCP_dc: D3 without deadlines (D3 §6.1, PDQ §5.1).
    Rcp(ExplicitRateConfig),
    /// D3 (Wilson et al., SIGCOMM'11).
    D3(ExplicitRateConfig),
    /// pFabric (Alizadeh et al., SIGCOMM'13).
    Pfabric(PfabricConfig),
    /// PDQ (Hong et al., SIGCOMM'12), variants basic / es / es_et / full.
    Pdq(crate::pdq::PdqConfig),
    /// Fluid-only ideal disciplines (dcflow-fluid; see [`Discipline`]).
    Fair(IdealConfig),
    Srpt(IdealConfig),
    Sjf(IdealConfig),
    Edf(IdealConfig),
    Fifo(IdealConfig),
    Reservation(IdealConfig),
    Optimal(IdealConfig),
    /// S3 (Ruan et al.): the protocol on the packet engine, its ideal FILTER
    /// + SLACK order on the fluid engine.
    S3(crate::s3::S3Config),
    /// MERP (papers/003): the protocol on the packet engine, its ideal
    /// virtual-deadline order (Alg. 2) on the fluid engine.
    Merp(crate::merp::MerpConfig),
    /// pHost (Gao et al., CoNEXT'15): receiver-issued tokens, one agent
    /// per host ([`crate::HostEndpoint`]).
    Phost(crate::phost::PhostConfig),
    /// Homa (Montazeri et al., SIGCOMM'18): unscheduled bytes, then SRPT
    /// grants with overcommitment, 8 priority levels; one agent per host.
    Homa(crate::homa::HomaConfig),
}

/// The ideal scheduling disciplines of the flow-level engine: a centralized
/// scheduler with zero delay and no header overhead (PDQ §3 "Centralized
/// Algorithm"). They have no packet-level sender, so they run only with
/// `engine = "fluid"`.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Discipline {
    /// Max-min fair sharing (processor sharing on one link).
    Fair,
    /// Shortest remaining processing time first.
    Srpt,
    /// Shortest (original) job first.
    Sjf,
    /// Earliest deadline first; flows without a deadline last.
    Edf,
    /// First come, first served.
    Fifo,
    /// D3 §3's idealized rate reservation in arrival order.
    Reservation,
    /// PDQ §5.2.1's omniscient scheduler: EDF plus Moore–Hodgson.
    Optimal,
    /// S3's FILTER + SLACK order (S3 Alg. 1-2).
    S3,
    /// MERP's virtual-deadline order (MERP Alg. 2).
    Merp,
}

/// Options of every ideal discipline.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields, default)]
pub struct IdealConfig {
    /// Drop a deadline flow as soon as it cannot meet its deadline even at
    /// its line rate (PDQ §3.2 "Early Termination"). Default false.
    pub early_termination: bool,
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
    /// Strict priority with this many classes, pushing out the lowest on overflow.
    PriorityPushout(u32),
    /// Strict priority with this many classes, marking CE on the whole port's queue.
    PriorityEcn(u32),
    /// Strict priority with this many classes and tail drop (commodity
    /// switches' priority queues).
    Priority(u32),
}

impl ProtocolConfig {
    pub fn name(&self) -> &'static str {
        match self {
            ProtocolConfig::Tcp(_) => "tcp",
            ProtocolConfig::Dctcp(_) => "dctcp",
            ProtocolConfig::D2tcp(_) => "d2tcp",
            ProtocolConfig::Lpd(_) => "lpd",
            ProtocolConfig::L2dct(_) => "l2dct",
            ProtocolConfig::Pias(_) => "pias",
            ProtocolConfig::Karuna(_) => "karuna",
            ProtocolConfig::Rcp(_) => "rcp",
            ProtocolConfig::D3(_) => "d3",
            ProtocolConfig::Pfabric(_) => "pfabric",
            ProtocolConfig::Pdq(_) => "pdq",
            ProtocolConfig::Fair(_) => "fair",
            ProtocolConfig::Srpt(_) => "srpt",
            ProtocolConfig::Sjf(_) => "sjf",
            ProtocolConfig::Edf(_) => "edf",
            ProtocolConfig::Fifo(_) => "fifo",
            ProtocolConfig::Reservation(_) => "reservation",
            ProtocolConfig::Optimal(_) => "optimal",
            ProtocolConfig::S3(_) => "s3",
            ProtocolConfig::Merp(_) => "merp",
            ProtocolConfig::Phost(_) => "phost",
            ProtocolConfig::Homa(_) => "homa",
        }
    }

    /// The ideal discipline the flow-level engine runs for this protocol
    /// section, if it is one, and whether it terminates hopeless flows.
    pub fn discipline(&self) -> Option<(Discipline, bool)> {
        Some(match self {
            ProtocolConfig::Fair(c) => (Discipline::Fair, c.early_termination),
            ProtocolConfig::Srpt(c) => (Discipline::Srpt, c.early_termination),
            ProtocolConfig::Sjf(c) => (Discipline::Sjf, c.early_termination),
            ProtocolConfig::Edf(c) => (Discipline::Edf, c.early_termination),
            ProtocolConfig::Fifo(c) => (Discipline::Fifo, c.early_termination),
            ProtocolConfig::Reservation(c) => (Discipline::Reservation, c.early_termination),
            ProtocolConfig::Optimal(c) => (Discipline::Optimal, c.early_termination),
            ProtocolConfig::S3(c) => (Discipline::S3, c.early_termination),
            ProtocolConfig::Merp(c) => (Discipline::Merp, c.early_termination),
            _ => return None,
        })
    }

    /// Whether the packet engine runs this protocol: every one but the
    /// fluid-only ideal disciplines (S3 is both a protocol and a discipline).
    pub fn runs_on_packets(&self) -> bool {
        self.discipline().is_none() || matches!(self, ProtocolConfig::S3(_) | ProtocolConfig::Merp(_))
    }

    /// Checks that serde cannot express; keys are relative to `[protocol]`.
    pub fn validate(&self) -> Result<(), ConfigError> {
        match self {
            ProtocolConfig::Tcp(c) => c.validate(),
            ProtocolConfig::Dctcp(c) => c.validate(),
            ProtocolConfig::D2tcp(c) => c.validate(),
            ProtocolConfig::Lpd(c) => c.validate(),
            ProtocolConfig::L2dct(c) => c.validate(),
            ProtocolConfig::Pias(c) => c.validate(),
            ProtocolConfig::Karuna(c) => c.validate(),
            ProtocolConfig::Rcp(c) | ProtocolConfig::D3(c) => c.validate(),
            ProtocolConfig::Pfabric(c) => c.validate(),
            ProtocolConfig::Pdq(c) => c.validate(),
            ProtocolConfig::S3(c) => c.validate(),
            ProtocolConfig::Merp(c) => c.validate(),
            ProtocolConfig::Phost(c) => c.validate(),
            ProtocolConfig::Homa(c) => c.validate(),
            // Ideal disciplines: a flag, nothing to check.
            _ => Ok(()),
        }
    }

    /// Strict-priority classes the protocol's packets use (1: no classes).
    pub fn priority_classes(&self) -> usize {
        match self {
            ProtocolConfig::Tcp(c) => c.priority_classes(),
            ProtocolConfig::Pias(c) => c.classes(),
            ProtocolConfig::Karuna(c) => c.classes(),
            _ => 1,
        }
    }

    pub fn default_queue(&self) -> QueueNeed {
        match self {
            ProtocolConfig::Pfabric(_) => QueueNeed::Pfabric,
            // §4.3.1: a priority queue that, when full, drops its lowest-priority packet.
            ProtocolConfig::Merp(_) => QueueNeed::PriorityPushout(crate::merp::header::CLASSES),
            ProtocolConfig::Pias(_) | ProtocolConfig::Karuna(_) => QueueNeed::PriorityEcn(self.priority_classes() as u32),
            // pHost §3: two strict priority levels on commodity switches.
            ProtocolConfig::Phost(_) => QueueNeed::Priority(crate::phost::header::CLASSES),
            // Homa §3.4: the switches' strict priority levels.
            ProtocolConfig::Homa(c) => QueueNeed::Priority(c.priorities),
            ProtocolConfig::Dctcp(_) | ProtocolConfig::D2tcp(_) | ProtocolConfig::Lpd(_) | ProtocolConfig::L2dct(_) => {
                QueueNeed::Ecn
            }
            _ => QueueNeed::DropTail,
        }
    }

    pub fn sender(&self, info: FlowInfo) -> Sender {
        match self {
            ProtocolConfig::Tcp(c) => Sender::Tcp(TcpSender::new(info, c)),
            ProtocolConfig::Dctcp(c) => Sender::Tcp(TcpSender::dctcp(info, c)),
            ProtocolConfig::D2tcp(c) => Sender::Tcp(TcpSender::d2tcp(info, c)),
            ProtocolConfig::Lpd(c) => Sender::Tcp(TcpSender::lpd(info, c)),
            ProtocolConfig::L2dct(c) => Sender::Tcp(TcpSender::l2dct(info, c)),
            ProtocolConfig::Pias(c) => Sender::Tcp(TcpSender::pias(info, c)),
            ProtocolConfig::Karuna(c) => Sender::Tcp(TcpSender::karuna(info, c)),
            ProtocolConfig::Rcp(c) => Sender::Rate(RateSender::new(info, c, false)),
            ProtocolConfig::D3(c) => Sender::Rate(RateSender::new(info, c, true)),
            ProtocolConfig::Pfabric(c) => Sender::Pfabric(PfabricSender::new(info, c)),
            ProtocolConfig::Pdq(c) => Sender::Pdq(crate::pdq::PdqSender::new(info, c)),
            ProtocolConfig::S3(c) => Sender::Pdq(c.sender(info)),
            ProtocolConfig::Merp(c) => Sender::Merp(crate::merp::MerpSender::new(info, c)),
            p if p.host_scheduled() => panic!("`{}` runs one agent per host: the engine asks `host_agent`", self.name()),
            _ => panic!("`{}` is a fluid-only discipline: the scenario check rejects it with engine = \"packet\"", self.name()),
        }
    }

    /// Whether the protocol schedules per host ([`crate::HostEndpoint`])
    /// rather than per flow: the packet engine then runs one
    /// [`crate::HostAgent`] per host and no per-flow sender or receiver.
    pub fn host_scheduled(&self) -> bool {
        matches!(self, ProtocolConfig::Phost(_) | ProtocolConfig::Homa(_))
    }

    /// The agent of a host whose access link runs at `line_rate`, in a
    /// network of `mtu`-byte packets; `None` for per-flow protocols.
    pub fn host_agent(&self, line_rate: Rate, mtu: u32) -> Option<crate::HostAgent> {
        match self {
            ProtocolConfig::Phost(c) => Some(crate::HostAgent::Phost(crate::phost::PhostHost::new(c, line_rate, mtu))),
            ProtocolConfig::Homa(c) => Some(crate::HostAgent::Homa(crate::homa::HomaHost::new(c, line_rate, mtu))),
            _ => None,
        }
    }

    /// The section as a run resolves it against its flows: `workload`
    /// gives the flows' sizes and the topology's largest bandwidth-delay
    /// product in bytes, and is called only by the protocol that reads
    /// them, Homa: its unscheduled cutoffs come from the workload (Homa §3.4).
    pub fn for_run(&self, workload: impl FnOnce() -> (Vec<u64>, u64)) -> ProtocolConfig {
        match self {
            ProtocolConfig::Homa(c) => {
                let (sizes, bdp) = workload();
                ProtocolConfig::Homa(c.resolved(&sizes, bdp))
            }
            p => p.clone(),
        }
    }

    /// The agent for the output port of link `link_id` with rate `link`.
    /// PDQ derives its globally unique switch id from the link id. Every
    /// port gets one, a host's own included: the sender's link is scheduled
    /// like every other (PDQ §2.2 bounds a flow by "the minimum of the
    /// sender NIC rate, the switch link rates, and the rate that receiver
    /// can process"; docs/fidelity.md, "The sender's own link").
    pub fn port_agent(&self, link_id: u32, link: Rate) -> PortAgent {
        match self {
            ProtocolConfig::Pdq(c) => PortAgent::Pdq(crate::pdq::PdqSwitch::new(c, link_id, link)),
            ProtocolConfig::S3(c) => PortAgent::Pdq(crate::s3::s3_switch(c, link_id, link)),
            ProtocolConfig::Rcp(c) | ProtocolConfig::D3(c) => {
                PortAgent::Rate(RateAllocator::new(c.clone(), link))
            }
            ProtocolConfig::Merp(c) => PortAgent::Merp(crate::merp::MerpSwitch::new(c, link)),
            _ => PortAgent::Forward,
        }
    }

    /// Whether ACKs must retrace the data path link by link: PDQ's switches
    /// complete acceptance on the reverse path (PDQ §3.3.2, Algorithm 3), and
    /// S3's, which are PDQ's flow controller.
    pub fn symmetric_paths(&self) -> bool {
        matches!(self, ProtocolConfig::Pdq(_) | ProtocolConfig::S3(_))
    }

    /// Whether the protocol's switches keep per-flow state (PDQ's flow
    /// lists, D3's and RCP_dc's counters), so that a flow's packets must
    /// keep to the ports that hold it: under a per-packet routing policy
    /// such flows pin one path at SYN time (docs/architecture.md, "Routing").
    pub fn pins_paths(&self) -> bool {
        matches!(
            self,
            ProtocolConfig::Pdq(_) | ProtocolConfig::S3(_) | ProtocolConfig::Rcp(_) | ProtocolConfig::D3(_) | ProtocolConfig::Merp(_)
        )
    }
}

/// Every sender, as a closed enum so the engine's hot path never goes through `dyn`.
pub enum Sender {
    Tcp(TcpSender),
    Rate(RateSender),
    Pfabric(PfabricSender),
    Pdq(crate::pdq::PdqSender),
    Merp(crate::merp::MerpSender),
}

macro_rules! each_sender {
    ($self:expr, $s:ident => $e:expr) => {
        match $self {
            Sender::Tcp($s) => $e,
            Sender::Rate($s) => $e,
            Sender::Pfabric($s) => $e,
            Sender::Pdq($s) => $e,
            Sender::Merp($s) => $e,
        }
    };
}

impl Sender {
    /// Routing moved the flow's path `path` (docs/fidelity.md, "Routing"):
    /// no paper has a rule for it. A PDQ flow paused by a switch that is no
    /// longer on its path would stay paused for ever (only the pausing
    /// switch clears P_H, Algorithms 1-3), so its sender forgets who paused
    /// it and the new path's switches decide afresh. A MERP flow sends its
    /// SYN again: the new path's switches make rows only from SYNs.
    pub fn path_changed(&mut self, now: Time, path: u8) {
        match self {
            Sender::Pdq(s) => s.path_changed(now, path),
            Sender::Merp(s) => s.path_changed(),
            _ => {}
        }
    }

    pub fn retransmits(&self) -> u64 {
        each_sender!(self, s => s.retransmits())
    }
    /// The control state `[monitor] flows` samples at `now`.
    pub fn state(&self, now: Time) -> SenderState {
        match self {
            Sender::Tcp(s) => SenderState {
                window_bytes: Some(s.cwnd()),
                alpha: s.alpha(),
                imminence: s.imminence(now),
                rate_bps: None,
            },
            Sender::Pfabric(s) => SenderState { window_bytes: Some(s.window_bytes()), ..Default::default() },
            Sender::Rate(s) => SenderState { rate_bps: Some(s.rate()), ..Default::default() },
            Sender::Pdq(s) => SenderState { rate_bps: Some(s.rate()), ..Default::default() },
            Sender::Merp(s) => SenderState { rate_bps: Some(s.asr()), ..Default::default() },
        }
    }
    /// Retransmission timeouts the sender took.
    pub fn timeouts(&self) -> u64 {
        match self {
            Sender::Tcp(s) => s.timeouts(),
            Sender::Pfabric(s) => s.timeouts(),
            Sender::Rate(s) => s.timeouts(),
            Sender::Pdq(s) => s.timeouts(),
            Sender::Merp(s) => s.timeouts(),
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
