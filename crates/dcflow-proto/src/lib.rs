//! dcflow-proto: sans-IO protocol state machines.
//!
//! Host endpoints (senders, the shared receiver) implement [`Endpoint`];
//! switch-side logic is a per-output-port agent ([`agent::PortAgent`]). Nothing
//! here reads a clock or knows about the event queue, so the same code can be
//! driven by the packet engine or, later, by real sockets.

pub mod agent;
pub mod d3;
pub mod merp;
pub mod endpoint;
pub mod flow_list;
pub mod host;
pub mod packet;
pub mod pacing;
pub mod pdq;
pub mod pfabric;
pub mod phost;
pub mod s3;
pub mod tcp;
pub mod receiver;
pub mod reliability;
pub mod rtt;
pub mod transport;

pub use endpoint::{Endpoint, FlowEvent, FlowInfo, SenderState};
pub use host::{HostAgent, HostEndpoint};
pub use packet::{Packet, PacketKind, Sched, HEADER_BYTES};
pub use receiver::Receiver;
pub use agent::{PortAgent, PortView};
pub use pfabric::{PfabricConfig, PfabricSender};
pub use d3::{ExplicitRateConfig, RateAllocator, RateHeader, RateSender, MAX_HOPS};
pub use pdq::{PdqConfig, PdqHeader, PdqSender, PdqSwitch};
pub use merp::{MerpConfig, MerpHeader, MerpSender, MerpSwitch};
pub use transport::{ProtocolConfig, QueueNeed, Sender};
