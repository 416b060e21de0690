//! The flow list of a switch port (PDQ §3.3.1): the flows the port knows,
//! each with ⟨R_i, P_i, D_i, T_i, RTT_i⟩, in scheduling order. PDQ's flow
//! controller ([`crate::pdq::PdqSwitch`]) walks it for every decision, and
//! S3's switch is that same controller over the same list (S3 §4.3: "similar
//! to PDQ"), ordered by S3's schedule instead of PDQ's comparator.
//!
//! What differs between the two is the [`ListOrder`]: where a flow goes in
//! the list, when the list is re-arranged, whether a newcomer may push out
//! the least critical flow, and the inter-probe time a flow's place gives
//! it. The switch only calls [`FlowList`]'s methods, so a further order is a
//! variant here and leaves the flow controller alone.
//!
//! The list also keeps the flows it gave no place (§3.3.1: "the remaining
//! flows are not remembered by the switch, until they become sufficiently
//! critical"), one entry each while they still probe: how many there are is
//! the n of the RCP fallback's fair share (§3.3.1), and where each stands in
//! the pairwise order is its Index(ℓ) for Suppressed Probing (§3.3.2), whose
//! "(1/X) Σ_{k=1}^n 1/k = O(log n)" probes per RTT for n paused flows needs
//! indices up to n, beyond the list's 2κ.

use crate::pdq::header::{PdqHeader, NOBODY};
use crate::pdq::{Comparator, UnlistedIndex};
use crate::s3::S3Order;
use dcflow_core::{FlowId, Time};
use std::ops::Deref;

/// The identity a switch keys its state on: the flow id and the M-PDQ subflow
/// (path) index, so that "the switch sees subflows as separate flows" (PDQ
/// §6: "The PDQ switch requires no additional modification"). Monotone in the
/// flow id, so single-path flows (subflow 0) sort exactly as by flow id.
pub type SwitchFlow = u64;

/// [`SwitchFlow`] of subflow `path` of `flow`.
#[inline]
pub const fn subflow_id(flow: FlowId, path: u8) -> SwitchFlow {
    ((flow as u64) << 8) | path as u64
}

/// One flow of the list: ⟨R_i, P_i, D_i, T_i, RTT_i⟩ (PDQ §3.3.1) plus its key.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Entry {
    /// Switch-side identity, see [`subflow_id`].
    pub flow: SwitchFlow,
    /// R_i, bits per second (the globally agreed rate, set on the reverse path).
    pub rate: f64,
    /// P_i: [`NOBODY`] when the flow is sending; else who paused it. A flow
    /// added by Algorithm 1 starts as not sending (paused by this switch).
    pub pause_by: u32,
    pub deadline: Time,
    /// T_i, picoseconds.
    pub expected: u64,
    /// RTT_i, picoseconds.
    pub rtt: u64,
    pub crit: u64,
    /// When this switch last saw a forward packet of the flow: a flow it
    /// paused keeps its claim on the capacity only while it still probes.
    pub seen: Time,
}

impl Entry {
    pub fn sending(&self) -> bool {
        self.pause_by == NOBODY
    }

    /// Its sort key under PDQ's `comparator`: smaller is more critical.
    fn key(&self, comparator: Comparator) -> (u64, u64, u64) {
        comparator.key(self.deadline, self.crit, self.flow)
    }
}

/// How a flow list is ordered.
pub enum ListOrder {
    /// PDQ §3.3: by the pairwise `comparator`, kept sorted on every
    /// insertion; Suppressed Probing's I_H = X × index (§3.3.2) when
    /// `probe_x` (X, in RTTs) is set, a flow outside the list at the index
    /// `unlisted_index` gives it.
    Pairwise { comparator: Comparator, probe_x: Option<f64>, unlisted_index: UnlistedIndex },
    /// S3 §4.3: by S3's set-level schedule, recomputed over the whole list,
    /// with Eq. 2's inter-probe time.
    S3(S3Order),
}

/// A port's flows in [`ListOrder`], most critical first. Reads go through
/// the slice (`Deref`); changes through the methods, which keep the order.
pub struct FlowList {
    entries: Vec<Entry>,
    order: ListOrder,
    /// The flows [`FlowList::admit`] gave no place, seen recently.
    unlisted: Vec<Unlisted>,
}

/// A flow outside the list, as last seen.
#[derive(Clone, Copy, Debug)]
struct Unlisted {
    /// Its last packet's fields (`seen`: when).
    entry: Entry,
    /// The inter-probing time its last reply carried past this port, in
    /// RTTs (0 before the first).
    probe_rtts: f32,
}

impl Unlisted {
    /// Whether it still counts at `now`: for RCP_dc's window of 4 average
    /// RTTs after its last packet or, for a flow told to probe every I RTTs,
    /// twice that plus an RTT for the probe's way (a listed flow's rule,
    /// `PdqSwitch::still_probing`). A flow deep in the order probes rarely
    /// and must still count for the flows behind it.
    fn counts(&self, now: Time, rtt_avg_ps: f64) -> bool {
        let rtts = (2.0 * (self.probe_rtts as f64).max(1.0) + 1.0).max(4.0);
        (now.0.saturating_sub(self.entry.seen.0) as f64) <= rtts * rtt_avg_ps
    }
}

impl Deref for FlowList {
    type Target = [Entry];
    fn deref(&self) -> &[Entry] {
        &self.entries
    }
}

impl FlowList {
    pub fn new(order: ListOrder) -> FlowList {
        FlowList { entries: Vec::new(), order, unlisted: Vec::new() }
    }

    pub fn position(&self, flow: SwitchFlow) -> Option<usize> {
        self.entries.iter().position(|e| e.flow == flow)
    }

    /// κ: flows in the list with a nonzero sending rate.
    pub fn kappa(&self) -> usize {
        self.entries.iter().filter(|e| e.rate > 0.0).count()
    }

    /// The flow leaves the port's state, listed or not (paused by another
    /// switch, or done).
    pub fn remove(&mut self, flow: SwitchFlow) {
        self.unlisted.retain(|u| u.entry.flow != flow);
        if let Some(i) = self.position(flow) {
            self.entries.remove(i);
            if let ListOrder::S3(o) = &mut self.order {
                o.invalidate();
            }
        }
    }

    /// Where `e`, a flow not in the list, would stand in a pairwise order:
    /// the number of listed flows more critical than it. None for S3's
    /// set-level order, which places a flow only by re-arranging the list.
    pub fn place_of(&self, e: &Entry) -> Option<usize> {
        match &self.order {
            ListOrder::Pairwise { comparator, .. } => {
                let k = e.key(*comparator);
                Some(self.entries.partition_point(|x| x.key(*comparator) < k))
            }
            ListOrder::S3(_) => None,
        }
    }

    /// Insert `e` where its order puts it; returns its index. S3 appends and
    /// re-arranges before the next decision ([`FlowList::refresh`]).
    pub fn insert(&mut self, e: Entry) -> usize {
        match &mut self.order {
            ListOrder::Pairwise { .. } => {
                let at = self.place_of(&e).expect("a pairwise order places every flow");
                self.entries.insert(at, e);
                at
            }
            ListOrder::S3(o) => {
                o.invalidate();
                self.entries.push(e);
                self.entries.len() - 1
            }
        }
    }

    /// Algorithm 1's "Add the flow into the list" for `e`, a flow not in it:
    /// it gets a place while the list holds fewer than `limit` flows, or
    /// when it is more critical than the least critical one, which then
    /// leaves ("Remove the least critical flow from the list whenever the
    /// list has more than \[2\]κ flows", §3.3.1). Returns its index, or None
    /// when it gets no place: it then counts among the unlisted flows, and
    /// those silent for too long (at `rtt_avg_ps`, picoseconds) no more.
    pub fn admit(&mut self, e: Entry, limit: usize, rtt_avg_ps: f64) -> Option<usize> {
        let place = self.entries.len() < limit
            || match &self.order {
                ListOrder::Pairwise { comparator, .. } => {
                    self.entries.last().is_some_and(|last| e.key(*comparator) < last.key(*comparator))
                }
                // A set-level order has no pairwise least critical flow to
                // push out (S3's switch keeps every flow it has seen).
                ListOrder::S3(_) => false,
            };
        let was = self.unlisted.iter().position(|u| u.entry.flow == e.flow).map(|i| self.unlisted.swap_remove(i));
        if !place {
            self.unlisted.retain(|u| u.counts(e.seen, rtt_avg_ps));
            self.unlisted.push(Unlisted { entry: e, probe_rtts: was.map_or(0.0, |u| u.probe_rtts) });
            return None;
        }
        let i = self.insert(e);
        self.entries.truncate(limit.max(i + 1));
        Some(i)
    }

    /// Change entry `i` by `change`, and put it back in order if its
    /// criticality key changed; returns the entry's index.
    pub fn update(&mut self, i: usize, change: impl FnOnce(&mut Entry)) -> usize {
        let crit = self.entries[i].crit;
        change(&mut self.entries[i]);
        if self.entries[i].crit == crit {
            return i;
        }
        let e = self.entries.remove(i);
        self.insert(e)
    }

    /// Before a decision on the entry at `i`: re-arrange the list if its
    /// order is due (S3's schedule); returns that entry's index.
    pub fn refresh(&mut self, now: Time, rtt_avg_ps: f64, i: usize) -> usize {
        match &mut self.order {
            ListOrder::Pairwise { .. } => i,
            ListOrder::S3(o) => {
                let flow = self.entries[i].flow;
                o.refresh(&mut self.entries, now, rtt_avg_ps, flow).unwrap_or(i)
            }
        }
    }

    /// I_H for the flow at `index`, in the flow's RTTs (`rtt_ps`,
    /// picoseconds): Suppressed Probing's X × index (PDQ §3.3.2), or S3's
    /// Eq. 2; None when the order sets none.
    pub fn inter_probe(&self, index: usize, rtt_avg_ps: f64, rtt_ps: u64) -> Option<f32> {
        match &self.order {
            ListOrder::Pairwise { probe_x, .. } => probe_x.map(|x| (x * index as f64) as f32),
            ListOrder::S3(o) => Some(o.inter_probe(index, rtt_avg_ps, rtt_ps)),
        }
    }

    /// How many flows outside the list the port knows of: n of the RCP
    /// fallback's fair share (§3.3.1).
    pub fn unlisted(&self) -> usize {
        self.unlisted.len()
    }

    /// Suppressed Probing on the reply `h` of `flow`, which this port paused
    /// without a place in the list: I_H = max{I_H, X × Index(ℓ)} (§3.3.2) as
    /// [`FlowList::inter_probe`] sets it, where Index(ℓ) is the list's length
    /// plus, with `unlisted_index = "rank"`, the unlisted flows more critical
    /// than `h`'s: the k-th most critical of the port's flows probes every
    /// X × k RTTs. That I_H is how often the flow probes: it counts for
    /// twice as long after its last packet.
    pub fn probe_unlisted(&mut self, flow: SwitchFlow, h: &mut PdqHeader, rtt_avg_ps: f64) {
        let ahead = match &self.order {
            ListOrder::Pairwise { comparator, unlisted_index: UnlistedIndex::Rank, .. } => {
                let k = comparator.key(h.deadline, h.crit, flow);
                self.unlisted.iter().filter(|u| u.entry.key(*comparator) < k).count()
            }
            // S3 keeps every flow in its list: none is unlisted.
            ListOrder::Pairwise { unlisted_index: UnlistedIndex::ListEnd, .. } | ListOrder::S3(_) => 0,
        };
        if let Some(p) = self.inter_probe(self.entries.len() + ahead, rtt_avg_ps, h.rtt.0) {
            h.inter_probe = h.inter_probe.max(p);
            if let Some(u) = self.unlisted.iter_mut().find(|u| u.entry.flow == flow) {
                u.probe_rtts = h.inter_probe;
            }
        }
    }
}
