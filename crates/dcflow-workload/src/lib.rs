//! Traffic patterns and size / deadline / arrival distributions, traces.
//!
//! The scenario's `[workload]` section ([`WorkloadConfig`]) and root
//! `[[flows]]` list ([`ExplicitFlow`]) become a list of [`FlowSpec`]s via
//! [`generate`], deterministically per seed. Patterns follow the papers'
//! evaluations (PDQ §5, D3 §6, Hedera); built-in size CDFs are DCTCP's web
//! search and VL2's data mining, as tabulated by pFabric ([`cdf`]); CDF files
//! and flow files may also come in YAPS's, HPCC's and htsim's layouts.

pub mod cdf;
mod config;
mod dist;
mod foreign;
mod generate;
mod pattern;
mod trace;
mod validate;

pub use cdf::{CdfFormat, CdfName, EmpiricalCdf};
pub use config::{
    Arrival, Context, DeadlineConfig, DeadlineKind, ExplicitFlow, Pattern, SizeConfig, SizeKind,
    WorkloadConfig,
};
pub use dist::{DeadlineDist, SizeDist};
pub use generate::{generate, FlowSpec};
pub use trace::{format_flows, format_trace, parse_trace, read_trace, TraceFormat};

#[cfg(test)]
mod tests;
