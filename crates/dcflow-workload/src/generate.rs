//! Turning a workload into the list of flows a run simulates.

use crate::config::{Context, ExplicitFlow, WorkloadConfig};
use crate::dist::exp;
use crate::pattern::Chooser;
use crate::validate::Plan;
use dcflow_core::rng::component;
use dcflow_core::{stream, Bytes, ConfigError, Dur, FlowId, Time};
use rand::RngExt;

/// One flow of a run.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct FlowSpec {
    /// Dense `0..n` in start order (ties keep generation order).
    pub id: FlowId,
    pub src: u32,
    pub dst: u32,
    /// At least 1 byte.
    pub size: Bytes,
    pub start: Time,
    /// Relative to `start`; `None`: no deadline.
    pub deadline: Option<Dur>,
    /// Whether the sender knows the size from the start (Karuna's type 2).
    pub size_known: bool,
}

/// The flows of `cfg` (or of the explicit list / trace) under `seed`.
///
/// Deterministic per seed. Arrival gaps, sizes, deadlines and endpoint choices
/// each come from their own stream (`component::WORKLOAD_*`), and every flow
/// draws a deadline even when `only_below` drops it, so changing one of these
/// never shifts the others. Errors are those of [`WorkloadConfig::validate`].
fn explicit_spec(f: &ExplicitFlow) -> FlowSpec {
    FlowSpec { id: 0, src: f.src, dst: f.dst, size: f.size, start: Time::ZERO + f.start, deadline: f.deadline, size_known: false }
}

pub fn generate(
    cfg: &WorkloadConfig,
    explicit: &[ExplicitFlow],
    ctx: &Context,
    seed: u64,
) -> Result<Vec<FlowSpec>, ConfigError> {
    let mut flows = match cfg.plan(explicit, ctx)? {
        Plan::Explicit(list) => list.iter().map(explicit_spec).collect(),
        Plan::Generated {
            endpoints,
            count,
            poisson,
            size,
            deadline,
            start,
            background,
        } => {
            let mut arrivals = stream(seed, component::WORKLOAD_ARRIVALS);
            let mut sizes = stream(seed, component::WORKLOAD_SIZES);
            let mut deadlines = stream(seed, component::WORKLOAD_DEADLINES);
            let mut deadline_share = stream(seed, component::WORKLOAD_DEADLINE_SHARE);
            let share = cfg.deadline_fraction.unwrap_or(1.0);
            let mut chooser = Chooser::new(
                &endpoints,
                ctx.hosts,
                stream(seed, component::WORKLOAD_ENDPOINTS),
            );
            let begin = Time::ZERO + start;
            let end = poisson.and_then(|(_, d)| d).map(|d| begin + d);
            let mut t = begin;
            let mut flows = Vec::with_capacity(count.unwrap_or(0));
            for i in 0.. {
                if count.is_some_and(|c| i >= c) {
                    break;
                }
                if let Some((rate, _)) = poisson {
                    t += Dur::from_secs_f64(exp(&mut arrivals, 1.0 / rate));
                    if end.is_some_and(|e| t >= e) {
                        break;
                    }
                }
                let (src, dst) = chooser.pair(i);
                let size = size.sample(&mut sizes);
                let deadline = deadline.as_ref().and_then(|(d, only_below)| {
                    let v = d.sample(&mut deadlines);
                    let drawn = deadline_share.random::<f64>() < share;
                    (drawn && only_below.is_none_or(|b| size < b)).then_some(v)
                });
                flows.push(FlowSpec {
                    id: 0,
                    src,
                    dst,
                    size,
                    start: t,
                    deadline,
                    size_known: false,
                });
            }
            flows.extend(background.iter().map(explicit_spec));
            flows
        }
    };
    flows.sort_by_key(|f| f.start);
    let mut known = stream(seed, component::WORKLOAD_KNOWN_SIZES);
    let known_share = cfg.known_size_fraction.unwrap_or(0.0);
    for (i, f) in flows.iter_mut().enumerate() {
        f.id = i as FlowId;
        // One draw per flow, deadline or not, so the deadlines never shift it.
        let drawn = known.random::<f64>() < known_share;
        f.size_known = drawn && f.deadline.is_none();
    }
    Ok(flows)
}
