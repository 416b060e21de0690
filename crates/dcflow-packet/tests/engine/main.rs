//! The dcflow-packet integration tests, one binary: each module was its own test
//! binary, and each link against the whole engine (thin LTO in release)
//! added to `make test`'s build time.

mod d3_counters;
mod departures;
mod endpoints;
mod homa;
mod host_agents;
mod host_link;
mod invariants;
mod l2dct;
mod lpd;
mod merp;
mod monitor_state;
mod motivating_example;
mod mpdq;
mod pdq;
mod pfabric;
mod phost;
mod pias;
mod routing;
mod run_end;
mod s3;
mod sanity;
