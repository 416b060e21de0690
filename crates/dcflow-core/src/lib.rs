//! dcflow-core: units, simulated time, seeded random streams and the event queue.
//! It knows nothing about protocols or topologies and never depends on pyo3.

pub mod cache;
pub mod error;
pub mod hold;
pub mod interrupt;
pub mod queue;
pub mod rng;
pub mod units;

pub use error::{ensure, ConfigError};
pub use queue::EventQueue;
pub use rng::{mix64, stream, RngStream};
pub use units::{round_to_u64, Bytes, Dur, Rate, Time, UnitError, PS_PER_S};

/// Index of a flow in a run (dense, 0-based, in workload order).
pub type FlowId = u32;
/// Index of a node (hosts first, `0..hosts`, then switches).
pub type NodeId = u32;
/// Index of a directed link.
pub type LinkId = u32;
