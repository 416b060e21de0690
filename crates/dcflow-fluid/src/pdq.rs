//! PDQ's flow-level model (PDQ §5.5: "a flow-level simulator for PDQ ... an
//! iterative approach to find the equilibrium flow sending rates with a time
//! scale of 1 ms ... [with] flow initialization time and packet header
//! overhead").
//!
//! The equilibrium is the one PDQ's switches converge to (Appendix B): PDQ
//! §3's centralized algorithm over the flows in criticality order, the
//! packet switch's comparator (§3.3: deadline, then the sender's key, then
//! flow id), with the sender's key computed by the packet sender's own
//! functions ([`base_key`], [`aged`]): T_S for `size`, a fixed per-flow value
//! for `random`, the bytes sent rounded to `estimate_step` for `estimate`
//! (§5.6), divided by 2^(α t) under aging (§7). Keys that drift (T_S as a
//! flow sends, estimates crossing a step, aging) are re-read at every event
//! and every `[fluid] equilibrium_interval` (1 ms). What else is modelled,
//! and what is not, is in docs/fidelity-fluid.md ("Flow-level PDQ").

use crate::flows::Flows;
use dcflow_core::{round_to_u64, Bytes, Dur, Rate, Time};
use dcflow_proto::pdq::comparator::{aged, base_key};
use dcflow_proto::pdq::{Comparator, Criticality, PdqConfig};

/// The parts of `[protocol]` (name = "pdq") that decide criticality.
#[derive(Clone, Copy, Debug)]
pub struct PdqKeys {
    pub comparator: Comparator,
    pub criticality: Criticality,
    pub estimate_step: u64,
    pub aging_alpha: f64,
    pub aging_unit: Dur,
}

impl PartialEq for PdqKeys {
    fn eq(&self, o: &Self) -> bool {
        (self.comparator, self.criticality, self.estimate_step, self.aging_alpha.to_bits(), self.aging_unit)
            == (o.comparator, o.criticality, o.estimate_step, o.aging_alpha.to_bits(), o.aging_unit)
    }
}
impl Eq for PdqKeys {}

impl PdqKeys {
    pub fn new(c: &PdqConfig) -> PdqKeys {
        PdqKeys {
            comparator: c.comparator,
            criticality: c.criticality,
            estimate_step: c.estimate_step.0,
            aging_alpha: c.aging_alpha,
            aging_unit: c.aging_unit,
        }
    }

    /// Whether a flow's key changes between events (then the model ticks):
    /// T_S shrinks as the flow sends, estimates step up, aging divides.
    /// Only random keys without aging are fixed.
    pub fn drift(&self) -> bool {
        self.criticality != Criticality::Random || self.aging_alpha > 0.0
    }

    /// Whether the sender knows its size (§5.6's schemes do not).
    pub fn size_aware(&self) -> bool {
        self.criticality == Criticality::Size
    }

    /// Whether the keys' order can be kept kinetically, link by link
    /// (`crate::engine`'s kinetic walk): T_S falls linearly between events
    /// but for its rounding to whole bytes and picoseconds, random keys are
    /// fixed, and an estimate steps up at a time known in advance; aging
    /// decays exponentially, so aged keys are sorted afresh at every event.
    pub fn kinetic(&self) -> bool {
        self.aging_alpha <= 0.0
    }

    /// Whether the keys step (size estimation) rather than fall.
    pub fn steps(&self) -> bool {
        self.criticality == Criticality::Estimate
    }

    /// Seconds until flow `f`'s estimate steps up, sending at `rate` with
    /// `remaining` wire work left (`None`: it finishes first): when the
    /// payload sent, `size - round(size × remaining / work)`, reaches the
    /// next multiple of `estimate_step` (see [`base_key`]).
    pub fn until_step(&self, flows: &Flows, f: u32, remaining: f64, rate: f64) -> Option<f64> {
        let i = f as usize;
        let size = flows.specs[i].size.0;
        let sent = size.saturating_sub(payload_left(flows, f, remaining));
        let next = (sent / self.estimate_step + 1) * self.estimate_step;
        if next > size || rate <= 0.0 {
            return None;
        }
        // round(y) <= size - next exactly when y < size - next + 1/2.
        let below = ((size - next) as f64 + 0.5) * flows.work[i] / size as f64;
        Some(((remaining - below) / rate).max(0.0))
    }

    /// How fast flow `f`'s key falls per second per b/s of its rate: T_S in
    /// picoseconds is its wire work left, as payload bytes at line rate
    /// (0 for fixed keys).
    pub fn fall_per_bps(&self, flows: &Flows, f: u32) -> f64 {
        let i = f as usize;
        match self.criticality {
            Criticality::Size => flows.specs[i].size.0 as f64 / flows.work[i] * 8e12 / flows.line_rate[i],
            _ => 0.0,
        }
    }

    /// How far flow `f`'s T_S key can be from the line its fall follows:
    /// half a byte's transmission time (the payload is rounded to bytes)
    /// and a picosecond (the time is rounded up).
    pub fn rounding(&self, flows: &Flows, f: u32) -> f64 {
        4e12 / flows.line_rate[f as usize] + 1.0
    }

    /// The switch's sort key of flow `f` at `now` (smaller is more critical).
    pub fn key(&self, flows: &Flows, f: u32, now: Time) -> (u64, u64, u64) {
        self.key_with(flows, f, now, flows.remaining[f as usize])
    }

    /// [`PdqKeys::key`] with `remaining` wire work left.
    pub fn key_with(&self, flows: &Flows, f: u32, now: Time, remaining: f64) -> (u64, u64, u64) {
        let i = f as usize;
        let spec = &flows.specs[i];
        let left = payload_left(flows, f, remaining);
        let line_bps = flows.line_rate[i] as u64;
        let expected = Rate(line_bps.max(1)).tx_time(Bytes(left));
        let sent = spec.size.0.saturating_sub(left);
        let base = base_key(self.criticality, spec.id, expected, sent, self.estimate_step, line_bps);
        let crit = aged(base, self.aging_alpha, now.since(spec.start), self.aging_unit);
        self.comparator.key(flows.deadline[i].unwrap_or(Time::MAX), crit, f as u64)
    }
}

/// Flow `f`'s payload bytes left with `remaining` wire work left, in the
/// proportion of its wire work (headers and the Basic switching gap are
/// spread evenly over the flow): what its T_S and its estimate read.
fn payload_left(flows: &Flows, f: u32, remaining: f64) -> u64 {
    round_to_u64(flows.specs[f as usize].size.0 as f64 * remaining / flows.work[f as usize])
}

/// Sort `set` by criticality at `now` (the order of PDQ §3's greedy walk).
/// (The caller has folded every flow's progress into `remaining`.)
pub(crate) fn order(keys: PdqKeys, flows: &Flows, now: Time, set: &mut [u32]) {
    set.sort_by_cached_key(|&f| keys.key(flows, f, now));
}

/// PDQ §3.2 Early Termination for a flow sending at `rate` with `remaining`
/// wire bits since `since`: the sender sends TERM when (1) the deadline has
/// passed, (2) now + T_S > deadline (size-aware senders only; T_S here is
/// over the wire bits, at most 4% above the packet sender's payload T_S), or
/// (3) it is paused and now + RTT > deadline. Returns when the first of them
/// becomes true (one picosecond after the boundary), or `None`.
#[allow(clippy::too_many_arguments)]
pub fn terminate_at(
    size_aware: bool,
    remaining: f64,
    rate: f64,
    since: Time,
    line_rate: f64,
    deadline: Time,
    rtt: Dur,
) -> Option<Time> {
    let past = Time(deadline.0 + 1);
    let paused = (rate <= 0.0).then(|| Time(deadline.0.saturating_sub(rtt.0).max(since.0) + 1));
    let too_long = if !size_aware {
        None
    } else if rate >= line_rate {
        // At full speed T_S shrinks as fast as time runs out: now or never.
        (remaining / line_rate > (deadline.0 as f64 - since.0 as f64) * 1e-12).then_some(Time(since.0 + 1))
    } else {
        crate::model::hopeless_at(remaining, rate, since, line_rate, deadline)
    };
    [Some(past), paused, too_long].into_iter().flatten().min()
}

#[cfg(test)]
mod tests {
    use super::*;
    use dcflow_scenario::Scenario;

    /// Flow-level PDQ (`protocol`: more `[protocol]` keys) on a k = 4
    /// fat-tree under Poisson all-to-all load 0.9, `flows` flows of `workload`.
    fn fat_tree(seed: u64, protocol: &str, flows: u32, workload: &str) -> Scenario {
        let toml = format!(
            "engine = \"fluid\"\nseed = {seed}\n[topology]\nkind = \"fat_tree\"\nk = 4\nlink_rate = \"10Gbps\"\n\
             [protocol]\nname = \"pdq\"\n{protocol}\n[workload]\npattern = \"all_to_all\"\narrival = \"poisson\"\n\
             load = 0.9\nflows = {flows}\n{workload}\n"
        );
        Scenario::from_toml(&toml).unwrap()
    }

    /// The engine's rates against a from-scratch recomputation in PDQ's key
    /// order at every event (the engine asserts equal rates), for every criticality, with aging, deadlines and
    /// Early Termination, on a fat-tree under Poisson all-to-all load.
    #[test]
    fn incremental_walk_equals_from_scratch_for_every_criticality() {
        for (seed, protocol) in [
            (1, "criticality = \"size\""),
            (2, "criticality = \"estimate\"\nestimate_step = \"20KB\""),
            (3, "criticality = \"random\"\naging_alpha = 50.0"),
            (4, "variant = \"basic\"\ncomparator = \"sjf\""),
        ] {
            let workload = "size = { dist = \"cdf\", name = \"web_search\" }\n\
                            deadline = { dist = \"exponential\", mean = \"5ms\", min = \"500us\" }";
            let (out, _) = crate::run_with(&fat_tree(seed, protocol, 200, workload), true).unwrap();
            assert_eq!(out.summary.flows_completed + out.summary.flows_terminated, 200, "{protocol}");
        }
    }

    /// The kinetic walk keeps each link's order equal to the keys' at every
    /// event although T_S is rounded to whole bytes and picoseconds: flows
    /// whose sizes differ by a byte or two keep keys within rounding of
    /// each other, and two keys falling side by side can round to the same
    /// value, where the flow id decides. Estimates of such flows step up
    /// at nearly the same instants. The engine checks its rates against a
    /// from-scratch walk in key order at every event.
    #[test]
    fn kinetic_order_survives_keys_within_rounding_of_each_other() {
        for (seed, protocol) in [
            (5, ""),
            (6, "comparator = \"sjf\""),
            (7, "criticality = \"random\""),
            (8, "criticality = \"estimate\"\nestimate_step = \"20KB\""),
        ] {
            let scenario = fat_tree(seed, protocol, 400, "size = { dist = \"uniform\", min = \"100000B\", max = \"100002B\" }");
            assert!(crate::model::FlowModel::from_scenario(&scenario).unwrap().allocation().is_kinetic(), "{protocol}");
            let (out, _) = crate::run_with(&scenario, true).unwrap();
            assert_eq!(out.summary.flows_completed, 400, "{protocol}");
        }
    }

    const GBPS: f64 = 1e9;

    #[test]
    fn termination_conditions_of_section_3_2() {
        let d = Time::from_secs_f64(0.010);
        let rtt = Dur::us(100);
        // Sending at line rate with 1 ms of work and 10 ms left: only (1) applies, never reached.
        assert_eq!(terminate_at(true, 1e6, GBPS, Time::ZERO, GBPS, d, rtt), Some(Time(d.0 + 1)));
        // At line rate with 11 ms of work and 10 ms left: (2) at once.
        assert_eq!(terminate_at(true, 11e6, GBPS, Time::ZERO, GBPS, d, rtt), Some(Time(1)));
        // Paused with 1 ms of work: (2) at 9 ms, before (3) at 9.9 ms.
        let at = terminate_at(true, 1e6, 0.0, Time::ZERO, GBPS, d, rtt).unwrap();
        assert!((at.as_secs_f64() - 0.009).abs() < 1e-9, "{at:?}");
        // Paused with 10 us of work: (3) at deadline - RTT.
        let at = terminate_at(true, 1e4, 0.0, Time::ZERO, GBPS, d, rtt).unwrap();
        assert_eq!(at, Time(d.0 - rtt.0 + 1));
        // A size-unaware sender cannot evaluate (2): paused, (3); sending, (1).
        let at = terminate_at(false, 1e6, 0.0, Time::ZERO, GBPS, d, rtt).unwrap();
        assert_eq!(at, Time(d.0 - rtt.0 + 1));
        assert_eq!(terminate_at(false, 11e6, GBPS, Time::ZERO, GBPS, d, rtt), Some(Time(d.0 + 1)));
    }
}
