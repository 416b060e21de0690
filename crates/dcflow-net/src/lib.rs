//! Topologies, routing (shortest path, ECMP, BCube), links and queues.
//!
//! - [`TopologyConfig`]: the `[topology]` section, with defaults and validation.
//! - [`Topology::build`]: nodes (hosts first), directed links with names, per-port queues.
//! - [`Routes`]: per-flow ECMP or single-path routes, and multipath sets.
//! - [`PathPolicy`]: per-switch path choice (spray, flowlets, CONGA).
//! - [`PortQueue`]: drop-tail, ECN (DCTCP), strict priority and pFabric output queues.

mod build;
pub mod config;
pub mod conga;
pub mod custom;
pub mod policy;
pub mod queue;
pub mod routing;
pub mod topology;

pub use config::{Shape, TopologyConfig, TopologyKind};
pub use conga::{Conga, CongaParams, CongaTag};
pub use policy::{Choice, FlowKey, PathPolicy, RoutingMode, RoutingParams, SprayOrder};
pub use custom::{CustomLink, CustomNode, CustomNodeKind};
pub use queue::{PortQueue, QEntry, QueueDiscipline, Verdict};
pub use routing::Routes;
pub use topology::{BcubeShape, Link, Node, NodeKind, Topology};
