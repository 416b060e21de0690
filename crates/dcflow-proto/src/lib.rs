//! dcflow-proto: sans-IO protocol state machines.
//!
//! Host endpoints (senders, the shared receiver) implement [`Endpoint`];
//! switch-side logic is a per-output-port agent ([`agent::PortAgent`]). Nothing
//! here reads a clock or knows about the event queue, so the same code can be
//! driven by the packet engine or, later, by real sockets.

pub mod agent;
pub mod merp;
pub mod endpoint;
pub mod packet;
pub mod pacing;
pub mod pdq;
pub mod pfabric;
pub mod rate;
pub mod rate_alloc;
pub mod s3;
pub mod tcp;
pub mod receiver;
pub mod reliability;
pub mod rtt;
pub mod transport;

pub use endpoint::{Endpoint, FlowEvent, FlowInfo, SenderState};
pub use packet::{Packet, PacketKind, RateHeader, Sched, HEADER_BYTES, MAX_HOPS};
pub use receiver::Receiver;
pub use agent::{PortAgent, PortView};
pub use rate_alloc::RateAllocator;
pub use pfabric::{PfabricConfig, PfabricSender};
pub use rate::{ExplicitRateConfig, RateSender};
pub use pdq::{PdqConfig, PdqHeader, PdqSender, PdqSwitch};
pub use merp::{MerpConfig, MerpHeader, MerpSender, MerpSwitch};
pub use transport::{ProtocolConfig, QueueNeed, Sender};
