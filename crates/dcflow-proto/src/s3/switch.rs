//! The S3 switch (§4.3): PDQ's per-port flow controller
//! ([`PdqSwitch`]: Availbw, the two-phase acceptance on the forward and
//! reverse paths, Dampening, the rate controller, RTT_avg) over the shared
//! flow list ([`crate::flow_list`]), ordered by S3's schedule
//! ([`super::schedule::arrange`]) instead of PDQ's pairwise comparator, and
//! Eq. 2's inter-probe time.
//!
//! A flow at the head of the schedule keeps the header's rate as far as the
//! port's capacity goes (PDQ's Availbw, Algorithm 2, without Early Start);
//! any other gets rate 0 and this switch's id in S_i (§4.3).

use super::schedule::{arrange, FlowKey};
use super::S3Config;
use crate::flow_list::{Entry, ListOrder, SwitchFlow};
use crate::pdq::{PdqConfig, PdqSwitch, SwitchParams};
use dcflow_core::{Rate, Time};

/// The switch agent for the port of link `link_id` with rate `link`.
pub fn s3_switch(cfg: &S3Config, link_id: u32, link: Rate) -> PdqSwitch {
    let p = SwitchParams {
        // PDQ's Early Start, off unless asked for (docs/fidelity-s3.md).
        k: cfg.early_start_k,
        // §4.3 orders the whole set of a port's flows: the list keeps every
        // flow it has seen.
        unbounded_list: true,
        // The rest as PDQ's defaults: Dampening, the smallest grant, the rate
        // controller at the link rate, no hard limit M (docs/fidelity-s3.md).
        // S3's order stands in for the comparator and Suppressed Probing.
        ..SwitchParams::from_config(&PdqConfig::default())
    };
    PdqSwitch::with_order(p, ListOrder::S3(S3Order::new(cfg.probe_factor)), link_id + 1, link)
}

/// S3's order of a port's flow list and when it is recomputed
/// ([`crate::flow_list::ListOrder::S3`]).
pub struct S3Order {
    /// Eq. 2's constant (0.2).
    probe_factor: f64,
    /// When the list was last arranged; None after a flow joined or left.
    arranged_at: Option<Time>,
}

impl S3Order {
    pub fn new(probe_factor: f64) -> S3Order {
        S3Order { probe_factor, arranged_at: None }
    }

    /// The set changed: arrange before the next decision.
    pub fn invalidate(&mut self) {
        self.arranged_at = None;
    }

    /// Re-arrange `list` if a flow joined or left since the last time, or
    /// one average RTT has passed (remaining sizes and the time to each
    /// deadline drift between arrivals); returns the new index of `flow`
    /// when it moved. O(n log n) per arrangement (§4.4).
    pub fn refresh(&mut self, list: &mut Vec<Entry>, now: Time, rtt_avg_ps: f64, flow: SwitchFlow) -> Option<usize> {
        let due = self.arranged_at.is_none_or(|t| now.0.saturating_sub(t.0) as f64 >= rtt_avg_ps);
        if !due {
            return None;
        }
        arrange(list, |e| FlowKey {
            size: e.expected as f64,
            deadline: (e.deadline != Time::MAX).then_some(e.deadline.0 as f64 - now.0 as f64),
            id: e.flow,
        });
        self.arranged_at = Some(now);
        list.iter().position(|e| e.flow == flow)
    }

    /// Eq. 2, P_i = 0.2 · RTT_avg · I_i, as I_H in the flow's own RTTs
    /// (`rtt_ps`; the sender multiplies by its RTT). I_i counts from 1 for
    /// the head of the schedule; a flow FILTER and SLACK left out waits
    /// behind every schedulable one, so its index is its place in the whole
    /// list (docs/fidelity-s3.md).
    pub fn inter_probe(&self, index: usize, rtt_avg_ps: f64, rtt_ps: u64) -> f32 {
        (self.probe_factor * rtt_avg_ps * (index + 1) as f64 / rtt_ps.max(1) as f64) as f32
    }
}
