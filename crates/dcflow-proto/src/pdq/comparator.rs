//! Flow criticality (§3.3, §5.6, §7).
//!
//! The switches share one comparator (§3.3): "a flow is more critical than
//! another one if it has smaller deadline (emulating EDF ...). When there is a
//! tie or flows have no deadline, we break it by giving priority to the flow
//! with smaller expected transmission time (emulating SJF ...). If a tie
//! remains, we break it by flow ID." The comparator is pluggable twice over:
//! the switch side ([`Comparator`]: which fields are compared) and the sender
//! side ([`Criticality`]: what key the sender writes into the header, which is
//! where §5.6's size-unaware schemes and §7's aging act).

use dcflow_core::{mix64, Dur, FlowId, Time};
use serde::{Deserialize, Serialize};

/// Switch-side flow comparator.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Comparator {
    /// §3.3: EDF, then the criticality key (SJF on T_H by default), then flow id.
    EdfSjf,
    /// Deadline-agnostic: the criticality key, then flow id.
    Sjf,
}

impl Comparator {
    /// The sort key: smaller is more critical. `flow` is the switch-side
    /// identity ([`crate::flow_list::subflow_id`]): the flow id, then the M-PDQ
    /// subflow index, so ties still break by flow id.
    #[inline]
    pub fn key(self, deadline: Time, crit: u64, flow: u64) -> (u64, u64, u64) {
        match self {
            Comparator::EdfSjf => (deadline.0, crit, flow),
            Comparator::Sjf => (0, crit, flow),
        }
    }
}

/// What the sender writes as its criticality key.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Criticality {
    /// The expected transmission time T_S (§3.1): SJF.
    Size,
    /// §5.6 "Random: the sender randomly chooses a flow criticality at flow
    /// initialization time and uses it consistently."
    Random,
    /// §5.6 "Flow Size Estimation: ... a flow is more critical than another one
    /// if it has smaller estimated size ... the sender updates the flow
    /// criticality only for every 50 KByte it sends."
    Estimate,
}

/// The key for a sender in `mode`, before aging. `expected` is T_S, `sent` the
/// bytes sent so far, `step` the estimation step, `line_bps` R_S^max.
pub fn base_key(mode: Criticality, flow: FlowId, expected: Dur, sent: u64, step: u64, line_bps: u64) -> u64 {
    match mode {
        Criticality::Size => expected.0,
        // A fixed pseudo-random key per flow (docs/fidelity-pdq.md).
        Criticality::Random => mix64(0x5044_515f_7261_6e64 ^ flow as u64) >> 1,
        Criticality::Estimate => {
            // The estimated size is the amount sent, rounded down to the step
            // (the first step estimates one step), as a time at line rate so
            // it is comparable with the other keys' units.
            let est = (sent / step + 1) * step;
            dcflow_core::Rate(line_bps.max(1)).tx_time(dcflow_core::Bytes(est)).0
        }
    }
}

/// §7 aging: "The PDQ sender increases flow criticality by reducing T_H by a
/// factor of 2^(αt), where α ... controls the aging rate, and t is the flow
/// waiting time (in terms of 100 ms)".
pub fn aged(key: u64, alpha: f64, waited: Dur, unit: Dur) -> u64 {
    if alpha <= 0.0 || key == u64::MAX {
        return key;
    }
    let t = waited.0 as f64 / unit.0 as f64;
    (key as f64 / (alpha * t).exp2()).max(0.0) as u64
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn edf_then_sjf_then_id() {
        let c = Comparator::EdfSjf;
        assert!(c.key(Time(5), 100, 9) < c.key(Time(6), 1, 0), "earlier deadline first");
        assert!(c.key(Time::MAX, 1, 9) < c.key(Time::MAX, 2, 0), "then shorter expected time");
        assert!(c.key(Time::MAX, 1, 0) < c.key(Time::MAX, 1, 1), "then flow id");
        assert!(Comparator::Sjf.key(Time(6), 1, 0) < Comparator::Sjf.key(Time(5), 100, 0));
    }

    #[test]
    fn estimate_changes_only_every_step_and_aging_halves_per_unit() {
        let k = |sent| base_key(Criticality::Estimate, 0, Dur(0), sent, 50_000, 1_000_000_000);
        assert_eq!(k(0), k(49_999));
        assert!(k(50_000) > k(49_999));
        assert_eq!(aged(1000, 1.0, Dur::ms(100), Dur::ms(100)), 500);
        assert_eq!(aged(1000, 0.0, Dur::ms(100), Dur::ms(100)), 1000);
    }
}
