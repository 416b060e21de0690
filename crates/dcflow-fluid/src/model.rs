//! What the fluid engine simulates: an ideal discipline (a zero-delay
//! centralized scheduler, PDQ §3) or a flow-level model of a real protocol
//! (PDQ §5.5: "an iterative approach to find the equilibrium flow sending
//! rates with a time scale of 1 ms ... [considering] protocol inefficiencies
//! like flow initialization time and packet header overhead").
//!
//! A model is three things: the rate-allocation rule its switches converge to
//! (the equilibrium), the overhead it puts on the wire, and how long a new flow
//! waits before its first data. RCP_dc converges to the max-min fair share
//! with exact flow counts (PDQ §5.1, D3 §6.1); D3 to greedy first-come
//! reservations of r = remaining / time left plus a fair share of the spare
//! capacity (D3 §4.2), re-requested every `equilibrium_interval`; PDQ to
//! §3's centralized algorithm over the packet switch's criticality order
//! ([`crate::pdq`]), re-sorted every `equilibrium_interval` while keys drift.

use dcflow_core::{Dur, Time};
use crate::pdq::{terminate_at, PdqKeys};
use dcflow_proto::pdq::{Variant, PDQ_HEADER_BYTES};
use dcflow_proto::transport::Discipline;
use dcflow_proto::ProtocolConfig;
use dcflow_scenario::{FluidConfig, Recompute, Scenario};
use dcflow_core::ConfigError;

/// How rates are divided among the flows of a connected component.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Allocation {
    /// Max-min fair by progressive filling.
    Fair,
    /// PDQ §3's centralized algorithm over a priority order.
    Ordered(Order),
    /// Reserve r = s/d for deadline flows in arrival order, then share the
    /// spare capacity max-min fairly (D3 §3, §4.2). `rerequest`: D3 asks
    /// again every interval with the current remaining size and time left;
    /// otherwise (the `reservation` discipline) a flow reserves once, at arrival.
    Reserve { rerequest: bool },
}

impl Allocation {
    /// Kept by the level sweep: max-min fair rates (`reservation` shares
    /// max-min what its fixed reservations leave; see [`crate::engine`]).
    pub fn sweeps(self) -> bool {
        matches!(self, Allocation::Fair | Allocation::Reserve { rerequest: false })
    }

    /// Kept incrementally by the kinetic walk (per-flow keys whose order
    /// per link changes only when two keys cross).
    pub fn is_kinetic(self) -> bool {
        match self {
            Allocation::Ordered(Order::Srpt | Order::Sjf | Order::Edf | Order::Fifo) => true,
            Allocation::Ordered(Order::Pdq(keys)) => keys.kinetic(),
            _ => false,
        }
    }
}

/// Priority orders for [`Allocation::Ordered`].
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Order {
    Srpt,
    Sjf,
    Edf,
    Fifo,
    /// EDF over the flows Moore–Hodgson keeps (PDQ §5.2.1).
    Optimal,
    S3,
    Merp,
    /// PDQ's switch comparator over the sender's criticality keys.
    Pdq(PdqKeys),
}

/// Parameters of a protocol model (the `[fluid]` section, resolved).
#[derive(Clone, Debug)]
pub struct ModelParams {
    /// Payload bytes per packet.
    pub mss: u32,
    pub header_bytes: u32,
    pub rate_request_bytes: u32,
    pub handshake_rtts: u32,
    pub equilibrium_interval: Dur,
    /// `[fluid] recompute = "interval"`: rates change only every
    /// `equilibrium_interval`, not at arrivals and completions.
    pub stepped: bool,
}

/// What the engine simulates.
#[derive(Clone, Debug)]
pub enum FlowModel {
    Ideal { discipline: Discipline, early_termination: bool },
    /// RCP_dc: D3's allocator without deadlines.
    Rcp(ModelParams),
    /// D3 (flow quenching off, as the packet engine's default).
    D3(ModelParams),
    /// PDQ (PDQ §5.5; docs/fidelity-fluid.md "Flow-level PDQ").
    Pdq { params: ModelParams, keys: PdqKeys, variant: Variant },
}

/// Per-flow consequences of a model, fixed at the start.
pub struct Timing {
    /// Bits on the wire: payload plus headers.
    pub work_bits: f64,
    /// From the flow's start to its first data bit.
    pub startup: Dur,
    /// From the sender's last bit to the receiver holding it.
    pub delivery_delay: Dur,
}

impl FlowModel {
    pub fn from_scenario(s: &Scenario) -> Result<FlowModel, ConfigError> {
        if let Some((discipline, early_termination)) = s.protocol.discipline() {
            return Ok(FlowModel::Ideal { discipline, early_termination });
        }
        let params = |f: &FluidConfig| ModelParams {
            mss: s.topology.mtu - f.header_bytes,
            header_bytes: f.header_bytes,
            rate_request_bytes: f.rate_request_bytes,
            handshake_rtts: f.handshake_rtts,
            equilibrium_interval: f.equilibrium_interval,
            stepped: f.recompute == Recompute::Interval,
        };
        match &s.protocol {
            ProtocolConfig::Rcp(_) => Ok(FlowModel::Rcp(params(&s.fluid))),
            ProtocolConfig::D3(_) => Ok(FlowModel::D3(params(&s.fluid))),
            ProtocolConfig::Pdq(c) => {
                c.validate_flow_level().map_err(|e| e.within("protocol"))?;
                // PDQ's 16-byte scheduling header rides in every packet (footnote 11).
                let header_bytes = s.fluid.header_bytes + PDQ_HEADER_BYTES;
                let params = ModelParams { mss: s.topology.mtu - header_bytes, header_bytes, ..params(&s.fluid) };
                Ok(FlowModel::Pdq { params, keys: PdqKeys::new(c), variant: c.variant })
            }
            other => Err(ConfigError::new(
                "engine",
                format!("the fluid engine does not model {:?}; see dcflow_scenario::FLUID_PROTOCOLS", other.name()),
            )),
        }
    }

    pub fn allocation(&self) -> Allocation {
        match self {
            FlowModel::Ideal { discipline, .. } => match discipline {
                Discipline::Fair => Allocation::Fair,
                Discipline::Reservation => Allocation::Reserve { rerequest: false },
                Discipline::Srpt => Allocation::Ordered(Order::Srpt),
                Discipline::Sjf => Allocation::Ordered(Order::Sjf),
                Discipline::Edf => Allocation::Ordered(Order::Edf),
                Discipline::Fifo => Allocation::Ordered(Order::Fifo),
                Discipline::Optimal => Allocation::Ordered(Order::Optimal),
                Discipline::S3 => Allocation::Ordered(Order::S3),
                Discipline::Merp => Allocation::Ordered(Order::Merp),
            },
            FlowModel::Rcp(_) => Allocation::Fair,
            FlowModel::D3(_) => Allocation::Reserve { rerequest: true },
            FlowModel::Pdq { keys, .. } => Allocation::Ordered(Order::Pdq(*keys)),
        }
    }

    /// Drop deadline flows that can no longer make it. Optimal drops the
    /// flows Moore–Hodgson rejects, so it always terminates.
    pub fn early_termination(&self) -> bool {
        match self {
            FlowModel::Ideal { discipline: Discipline::Optimal, .. } => true,
            FlowModel::Ideal { early_termination, .. } => *early_termination,
            FlowModel::Rcp(_) | FlowModel::D3(_) => false,
            FlowModel::Pdq { variant, .. } => variant.early_termination(),
        }
    }

    /// When a deadline flow sending at `rate` with `remaining` bits at
    /// `since` is terminated (if early termination is on): PDQ's three
    /// conditions of §3.2 under the PDQ model, the ideal "cannot make it even
    /// at line rate" otherwise.
    pub fn terminate_at(&self, remaining: f64, rate: f64, since: Time, line_rate: f64, deadline: Time, rtt: Dur) -> Option<Time> {
        match self {
            FlowModel::Pdq { keys, .. } => terminate_at(keys.size_aware(), remaining, rate, since, line_rate, deadline, rtt),
            _ => hopeless_at(remaining, rate, since, line_rate, deadline),
        }
    }

    /// Period of the equilibrium re-evaluation; `None` when nothing drifts
    /// between events (every ideal discipline, RCP whose fair share depends
    /// only on flow counts, and PDQ with fixed random keys) and rates are not
    /// [`stepped`](Self::stepped).
    pub fn tick(&self) -> Option<Dur> {
        match self {
            FlowModel::D3(p) => Some(p.equilibrium_interval),
            FlowModel::Rcp(p) if p.stepped => Some(p.equilibrium_interval),
            FlowModel::Pdq { params, keys, .. } if keys.drift() || params.stepped => Some(params.equilibrium_interval),
            _ => None,
        }
    }

    /// Rates change only at ticks (`[fluid] recompute = "interval"`).
    pub fn stepped(&self) -> bool {
        match self {
            FlowModel::Rcp(p) | FlowModel::D3(p) | FlowModel::Pdq { params: p, .. } => p.stepped,
            FlowModel::Ideal { .. } => false,
        }
    }

    /// Work, startup delay and delivery delay of a flow of `size` bytes
    /// sent from a NIC of `line_rate` bps, whose round trip is `rtt` and
    /// forward trip `one_way`.
    pub fn timing(&self, size: u64, has_deadline: bool, line_rate: f64, rtt: Dur, one_way: Dur) -> Timing {
        match self {
            FlowModel::Ideal { .. } => {
                Timing { work_bits: size as f64 * 8.0, startup: Dur::ZERO, delivery_delay: Dur::ZERO }
            }
            FlowModel::Rcp(p) | FlowModel::D3(p) => {
                let packets = size.div_ceil(p.mss as u64).max(1);
                let wire = size + packets * p.header_bytes as u64;
                // One request per RTT rides on a data packet (D3 §5); count the
                // RTTs of a transmission at line rate (a lower bound when shared).
                let rtts_sending = (wire as f64 * 8.0 / line_rate / rtt.as_secs_f64().max(1e-9)).ceil() as u64;
                let requests = packets.min(1 + rtts_sending);
                let work_bits = (wire + requests * p.rate_request_bytes as u64) as f64 * 8.0;
                // SYN handshake; then RCP_dc flows and D3 flows without a
                // deadline are held at the base rate for one more RTT (D3 §4.5
                // burst tolerance), while a D3 deadline flow's SYN already
                // carries its desired rate.
                let paused = matches!(self, FlowModel::Rcp(_)) || !has_deadline;
                let rtts = p.handshake_rtts as u64 + paused as u64;
                Timing { work_bits, startup: Dur(rtt.0 * rtts), delivery_delay: one_way }
            }
            FlowModel::Pdq { params: p, variant, .. } => {
                let packets = size.div_ceil(p.mss as u64).max(1);
                let wire_bits = (size + packets * p.header_bytes as u64) as f64 * 8.0;
                // Without Early Start a flow's switch-over costs "one to two
                // RTTs" of idle link (§3.3.2): the sender learns it may send
                // on its next probe. Charged once per flow as one RTT at line
                // rate; with Early Start switching is seamless (§5.4).
                let gap_bits = if variant.early_start() { 0.0 } else { rtt.as_secs_f64() * line_rate };
                // The SYN carries the scheduling header: data follows the
                // SYN-ACK, one RTT after the start (§5.4).
                Timing { work_bits: wire_bits + gap_bits, startup: Dur(rtt.0 * p.handshake_rtts as u64), delivery_delay: one_way }
            }
        }
    }
}

/// When a flow sending at `rate` (bits/s) with `remaining` bits at `since`
/// can no longer finish by `deadline` even at `line_rate`: one picosecond
/// after remaining / line_rate = deadline - t (PDQ §3.2 Early Termination).
pub fn hopeless_at(remaining: f64, rate: f64, since: Time, line_rate: f64, deadline: Time) -> Option<Time> {
    if rate >= line_rate {
        return None;
    }
    let t0 = since.0 as f64 * 1e-12;
    let d = deadline.0 as f64 * 1e-12;
    let t = (line_rate * d - remaining - rate * t0) / (line_rate - rate);
    // Finishing exactly at the deadline meets it: hopeless strictly after.
    Some(Time(Time::from_secs_f64(t.max(t0)).0 + 1))
}
