//! The dcflow-fluid integration tests, one binary: each module was its own test
//! binary, and each link against the whole engine (thin LTO in release)
//! added to `make test`'s build time.

mod common;
mod invariants;
mod packet_vs_fluid;
mod pdq_model;
mod run_end;
mod worked_examples;
