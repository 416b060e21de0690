//! The PDQ switch (§3.3): one [`PdqSwitch`] per output port.
//!
//! It keeps the flow list of §3.3.1 ([`FlowList`]: the most critical 2κ
//! flows, κ the number of sending flows, never more than the hard limit M),
//! runs the flow controller of §3.3.2 (Algorithm 1 on forward SYN / data /
//! probe packets, Algorithm 3 on the reverse ACKs, with Availbw = Algorithm
//! 2, Early Start, Dampening and Suppressed Probing) and the rate controller
//! of §3.3.3 (C = max(0, r_PDQ − q / (2 RTT)), updated every 2 RTTs). Flows
//! outside the M most critical are served by an RCP fair share of the
//! capacity PDQ does not use (§3.3.1); the list keeps the flows outside it
//! that it still hears from, counted for that share and ranked for
//! Suppressed Probing. Agents have no timers: the rate controller update is
//! done lazily when a packet arrives.

use super::comparator::Comparator;
use super::header::{PdqHeader, NOBODY};
use super::{PausedElsewhere, PdqConfig, UnlistedIndex};
use crate::agent::PortView;
use crate::flow_list::{subflow_id, Entry, FlowList, ListOrder, SwitchFlow};
use crate::packet::{Packet, PacketKind, Sched};
use dcflow_core::{Rate, Time};

/// Switch-side parameters, resolved from [`PdqConfig`].
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct SwitchParams {
    /// Early Start K (0 without Early Start).
    pub k: f64,
    /// Suppressed Probing X in RTTs (None without Suppressed Probing).
    pub probe_x: Option<f64>,
    /// Dampening period in average RTTs (0: off).
    pub dampening: f64,
    pub r_pdq: f64,
    pub min_rate: f64,
    pub max_flows: Option<u32>,
    pub comparator: Comparator,
    /// Keep every flow seen in the list instead of 2κ (`list = "unbounded"`,
    /// and S3's switch).
    pub unbounded_list: bool,
    /// Suppressed Probing's Index(ℓ) for flows outside the list.
    pub unlisted_index: UnlistedIndex,
    /// Algorithm 1 on a packet paused by another switch.
    pub paused_elsewhere: PausedElsewhere,
}

impl SwitchParams {
    pub fn from_config(c: &PdqConfig) -> SwitchParams {
        SwitchParams {
            k: c.effective_k(),
            probe_x: c.variant.suppressed_probing().then_some(c.probe_x),
            dampening: c.dampening,
            r_pdq: c.r_pdq,
            min_rate: c.min_rate,
            max_flows: c.max_flows,
            comparator: c.comparator,
            unbounded_list: c.list == super::ListSize::Unbounded,
            unlisted_index: c.unlisted_index,
            paused_elsewhere: c.paused_elsewhere,
        }
    }
}

/// Smallest list size limit while no flow is sending (2κ = 0 would store
/// nothing; docs/fidelity-pdq.md).
pub const MIN_LIST: usize = 2;

pub struct PdqSwitch {
    p: SwitchParams,
    /// This switch's id as written into P_H (globally unique, nonzero).
    id: u32,
    link: f64,
    /// The rate controller's C (bits per second).
    capacity: f64,
    list: FlowList,
    /// RTT_avg: exponential average of the RTT_H fields seen (picoseconds).
    rtt_avg: f64,
    next_update: Option<Time>,
    /// Dampening: when this switch last accepted a non-sending flow, and which.
    /// Cleared when that flow comes back paused by another switch: it was not
    /// accepted after all (acceptance takes two phases, §3.3.1).
    last_accept: Option<(Time, SwitchFlow)>,
}

impl PdqSwitch {
    /// An agent for the port of link `link_id` with rate `link`.
    pub fn new(cfg: &PdqConfig, link_id: u32, link: Rate) -> PdqSwitch {
        Self::with_params(SwitchParams::from_config(cfg), link_id + 1, link)
    }

    /// `id` must be nonzero and unique among the switches a flow can cross.
    pub fn with_params(p: SwitchParams, id: u32, link: Rate) -> PdqSwitch {
        let order = ListOrder::Pairwise { comparator: p.comparator, probe_x: p.probe_x, unlisted_index: p.unlisted_index };
        Self::with_order(p, order, id, link)
    }

    /// A switch whose list is ordered by `order` instead of `p`'s comparator
    /// and Suppressed Probing (S3's switch).
    pub fn with_order(p: SwitchParams, order: ListOrder, id: u32, link: Rate) -> PdqSwitch {
        assert_ne!(id, NOBODY, "switch id 0 means 'nobody'");
        let link = link.as_bps_f64();
        PdqSwitch {
            p,
            id,
            link,
            capacity: link * p.r_pdq,
            list: FlowList::new(order),
            rtt_avg: 0.0,
            next_update: None,
            last_accept: None,
        }
    }

    pub fn id(&self) -> u32 {
        self.id
    }
    pub fn list(&self) -> &[Entry] {
        &self.list
    }
    pub fn capacity(&self) -> f64 {
        self.capacity
    }
    pub fn rtt_avg(&self) -> f64 {
        self.rtt_avg
    }
    pub fn position(&self, flow: SwitchFlow) -> Option<usize> {
        self.list.position(flow)
    }
    /// κ: flows in the list with a nonzero sending rate.
    pub fn kappa(&self) -> usize {
        self.list.kappa()
    }

    /// The list bound: 2κ (§3.3.1), at least [`MIN_LIST`] (or unbounded,
    /// `list = "unbounded"`), at most M.
    pub fn limit(&self) -> usize {
        let soft = if self.p.unbounded_list { usize::MAX } else { (2 * self.kappa()).max(MIN_LIST) };
        match self.p.max_flows {
            Some(m) => soft.min(m as usize),
            None => soft,
        }
    }

    /// Average RTT in picoseconds (1 ms before any header was seen).
    fn rtt_ps(&self) -> f64 {
        if self.rtt_avg > 0.0 {
            self.rtt_avg
        } else {
            1e9
        }
    }

    fn observe_rtt(&mut self, rtt: u64) {
        if rtt == 0 {
            return;
        }
        let r = rtt as f64;
        self.rtt_avg = if self.rtt_avg == 0.0 { r } else { 0.875 * self.rtt_avg + 0.125 * r };
    }

    /// §3.3.3: "The rate controller updates C every 2 RTTs ... to
    /// max{0, r_PDQ − q/(2 × RTT)}, where q is the instantaneous queue size".
    fn rate_controller(&mut self, now: Time, port: &PortView) {
        let period = 2.0 * self.rtt_ps();
        match self.next_update {
            None => self.next_update = Some(Time(now.0 + period as u64)),
            Some(t) if now >= t => {
                let q_bits = port.queue_bytes as f64 * 8.0;
                let drain = q_bits / (period / 1e12);
                self.capacity = (self.link * self.p.r_pdq - drain).max(0.0);
                self.next_update = Some(Time(now.0 + period as u64));
            }
            Some(_) => {}
        }
    }

    /// Algorithm 2, Availbw(j), with Early Start: nearly-completed flows ahead
    /// of j (T_i < K × RTT_i) do not count against the capacity while their
    /// aggregate T_i / RTT_i stays below K.
    ///
    /// A flow ahead of j that this switch paused and that still probes leaves
    /// nothing to j. Algorithm 2 counts such a flow at R_i = 0, so whichever
    /// paused flow probes first takes the capacity a finishing flow frees,
    /// and with sizes a packet apart (Fig. 6's five ~1 MB flows) the few
    /// packets it sends before the more critical flow's probe pauses it make
    /// it the more critical one: the flows finished in the order 1, 2, 3,
    /// 5, 4. §3.3.2 says the switch "accepts flows according to their
    /// criticality until the link bandwidth is fully utilized and the
    /// remaining flows are paused", and every flow in the list is either
    /// sending or paused by this switch (a flow paused elsewhere leaves it),
    /// so the capacity goes to the most critical paused flow at its next
    /// probe (docs/fidelity-pdq.md, "Switching in criticality order").
    pub fn availbw(&self, now: Time, j: usize) -> f64 {
        let mut x = 0.0;
        let mut a = 0.0;
        for (i, e) in self.list[..j].iter().enumerate() {
            if !e.sending() && self.still_probing(now, i, e) {
                return 0.0;
            }
            let ratio = e.expected as f64 / (e.rtt.max(1) as f64);
            if ratio < self.p.k && x < self.p.k {
                x += ratio;
            } else {
                a += e.rate;
            }
            if a >= self.capacity {
                return 0.0;
            }
        }
        let w = self.capacity - a;
        // `min_rate` (not in the paper) discards the slivers C − A that the
        // flows ahead leave while their agreed R_i trails a moving C. With
        // nothing claimed ahead (A = 0) there is no sliver: W = C is the rate
        // controller's whole grant (§3.3.3), given as Algorithm 2 does even
        // when a queue has pushed C below `min_rate`, so the most critical
        // flow keeps sending (docs/fidelity-pdq.md).
        if a > 0.0 && w < self.p.min_rate * self.link {
            0.0
        } else {
            w
        }
    }

    /// A new list entry for `flow` from its header, at R_i = 0: sending
    /// (P_i = ∅) when a data packet proves it, else paused by this switch.
    fn entry_of(&self, now: Time, flow: SwitchFlow, h: &PdqHeader, sending: bool) -> Entry {
        Entry {
            flow,
            rate: 0.0,
            pause_by: if sending { NOBODY } else { self.id },
            deadline: h.deadline,
            expected: h.expected.0,
            rtt: h.rtt.0,
            crit: h.crit,
            seen: now,
        }
    }

    /// Whether the paused flow `e` at `index` has probed within twice its
    /// probe interval (plus an RTT for the probe's way): a flow gone quiet
    /// (its FIN lost, or it left by a path this switch does not see) must
    /// not hold back the flows behind it for good.
    fn still_probing(&self, now: Time, index: usize, e: &Entry) -> bool {
        let rtt = (e.rtt as f64).max(self.rtt_ps());
        let probe_rtts = self.inter_probe(index, rtt as u64).map_or(1.0, |p| (p as f64).max(1.0));
        (now.0.saturating_sub(e.seen.0) as f64) <= (2.0 * probe_rtts + 1.0) * rtt
    }

    /// §3.3.1 RCP fallback: a fair share of the capacity PDQ does not use,
    /// for flows outside the M most critical. While the list is below M the
    /// switch still has room to remember the flow once it becomes critical
    /// enough, and PDQ claims the whole capacity: the share is 0. The flows
    /// sharing it are those outside the list heard from lately
    /// ([`FlowList::unlisted`]).
    fn rcp_share(&self) -> f64 {
        let at_hard_limit = self.p.max_flows.is_some_and(|m| self.list.len() >= m as usize);
        if !at_hard_limit {
            return 0.0;
        }
        let used: f64 = self.list.iter().map(|e| e.rate).sum();
        (self.capacity - used).max(0.0) / self.list.unlisted() as f64
    }

    fn dampened(&self, now: Time, flow: SwitchFlow) -> bool {
        if self.p.dampening <= 0.0 {
            return false;
        }
        let window = (self.p.dampening * self.rtt_ps()) as u64;
        self.last_accept.is_some_and(|(t, f)| f != flow && now.0.saturating_sub(t.0) < window)
    }

    /// Algorithm 1, "PDQ Receiving Data Packet", for SYNs and probes: packets
    /// of flows that are not sending.
    pub fn on_forward(&mut self, now: Time, port: &PortView, flow: SwitchFlow, h: &mut PdqHeader) {
        self.forward(now, port, flow, h, false);
    }

    /// Algorithm 1 for a data packet: its flow is sending (the sender only
    /// sends data while every switch has accepted it, P_S = ∅).
    pub fn on_data(&mut self, now: Time, port: &PortView, flow: SwitchFlow, h: &mut PdqHeader) {
        self.forward(now, port, flow, h, true);
    }

    /// Algorithm 1. A flow not in the list is added with R_i = 0 and P_i =
    /// ∅ if the packet is data (`sending`), else P_i = this switch. The paper
    /// leaves P_i of a new entry open; a data packet proves the flow is
    /// sending. A switch upstream of the one that paused a flow drops it from
    /// its list (P_H = other switch) and is not told when the flow is accepted
    /// again, so the flow's data re-enters its list later: marking that entry
    /// "not sending" let Dampening pause a flow every switch had accepted, and
    /// the switches downstream then dropped it too (docs/fidelity-pdq.md,
    /// "Flows re-entering a list").
    fn forward(&mut self, now: Time, port: &PortView, flow: SwitchFlow, h: &mut PdqHeader, sending: bool) {
        self.observe_rtt(h.rtt.0);
        self.rate_controller(now, port);
        // "if P_H = other switch then remove the flow from the list; return"
        if h.pause_by != NOBODY && h.pause_by != self.id {
            self.list.remove(flow);
            if self.p.paused_elsewhere == PausedElsewhere::Cap {
                // What Availbw would give the flow at its place in this
                // port's order: a more critical flow still preempts here
                // once the pausing switch lets it go, a less critical one
                // gets only what the flows ahead of it leave. Nothing left
                // makes this switch the one that pauses it: a switch further
                // on that got R_H = 0 must not hold the pause (and the claim
                // of a paused flow that probes) as its own.
                if let Some(j) = self.list.place_of(&self.entry_of(now, flow, h, false)) {
                    let w = self.availbw(now, j).min(h.rate as f64) as u64;
                    if w > 0 {
                        h.rate = w;
                    } else {
                        h.pause_by = self.id;
                    }
                }
            }
            return;
        }
        let i = match self.position(flow) {
            // "Update the flow information: <D_i, T_i, RTT_i> = <D_H, T_H, RTT_H>"
            Some(i) => self.list.update(i, |e| {
                e.seen = now;
                e.deadline = h.deadline;
                e.expected = h.expected.0;
                e.rtt = h.rtt.0;
                e.crit = h.crit;
            }),
            None => {
                // "Add the flow into the list with rate R_i = 0."
                let e = self.entry_of(now, flow, h, sending);
                match self.list.admit(e, self.limit(), self.rtt_ps()) {
                    Some(i) => i,
                    None => {
                        // "Set R_H to RCP fair share rate; if R_H = 0 then P_H = myID"
                        let share = self.rcp_share() as u64;
                        self.decide(h, share.min(h.rate));
                        return;
                    }
                }
            }
        };
        let i = self.list.refresh(now, self.rtt_ps(), i);
        let w = self.availbw(now, i).min(h.rate as f64) as u64;
        let not_sending = !self.list[i].sending();
        let dampened = w > 0 && not_sending && self.dampened(now, flow);
        if self.decide(h, if dampened { 0 } else { w }) {
            if not_sending {
                self.last_accept = Some((now, flow));
            }
        } else {
            self.list.update(i, |e| e.pause_by = self.id);
        }
    }

    /// Algorithm 1's verdict in the header: accept at `w` bps ("P_H = ∅;
    /// R_H = W") or pause ("P_H = myID"). Accepting always clears P_H: the
    /// sender echoes P_S, so a flow this switch paused earlier comes back with
    /// P_H = myID, and a P_H left set would make Algorithm 3 zero its rate.
    /// Algorithm 1's RCP branch (§3.3.1) does not write P_H = ∅ when the
    /// share is positive, but RCP is to serve the flows "that are not paused
    /// by any other switches", which includes those this switch paused before
    /// its leftover capacity grew. Returns whether the flow was accepted.
    fn decide(&self, h: &mut PdqHeader, w: u64) -> bool {
        if w > 0 {
            h.pause_by = NOBODY;
            h.rate = w;
            true
        } else {
            h.pause_by = self.id;
            false
        }
    }

    /// Algorithm 3, "PDQ Receiving ACK".
    pub fn on_reverse(&mut self, flow: SwitchFlow, h: &mut PdqHeader) {
        if h.pause_by != NOBODY && h.pause_by != self.id {
            self.list.remove(flow);
            if self.last_accept.is_some_and(|(_, f)| f == flow) {
                self.last_accept = None;
            }
        }
        if h.pause_by != NOBODY {
            h.rate = 0;
        }
        match self.position(flow) {
            Some(i) => {
                self.list.update(i, |e| {
                    e.pause_by = h.pause_by;
                    e.rate = h.rate as f64;
                });
                if let Some(p) = self.inter_probe(i, h.rtt.0) {
                    h.inter_probe = h.inter_probe.max(p);
                }
            }
            None => {
                // A flow this switch paused without storing it (outside the
                // list) waits behind the whole list and, by default, behind
                // the unlisted flows more critical than it.
                if h.pause_by == self.id {
                    self.list.probe_unlisted(flow, h, self.rtt_ps());
                }
            }
        }
    }

    /// I_H for the flow at `index` of the list, in the flow's RTTs (`rtt`,
    /// picoseconds), as the list's order sets it (PDQ: Suppressed Probing's
    /// X × index, §3.3.2).
    fn inter_probe(&self, index: usize, rtt: u64) -> Option<f32> {
        self.list.inter_probe(index, self.rtt_ps(), rtt)
    }

    /// Put a hand-built entry into the list (tests walking the algorithms).
    pub fn insert_entry(&mut self, e: Entry) -> usize {
        self.list.remove(e.flow);
        self.list.insert(e)
    }

    /// A TERM (our FIN) removes the flow's state.
    pub fn on_term(&mut self, flow: SwitchFlow) {
        self.list.remove(flow);
    }

    /// Entry point for packets entering this port (forward direction).
    pub fn on_packet(&mut self, now: Time, port: &PortView, pkt: &mut Packet) {
        if pkt.reverse {
            return;
        }
        let flow = subflow_id(pkt.flow, pkt.path);
        let Sched::Pdq(h) = &mut pkt.sched else { return };
        match pkt.kind {
            PacketKind::Syn | PacketKind::Probe => self.on_forward(now, port, flow, h),
            PacketKind::Data => self.on_data(now, port, flow, h),
            PacketKind::Fin => self.on_term(flow),
            _ => {}
        }
    }

    /// Entry point for reverse packets of flows whose data leaves through this
    /// port (the ACK passes the switch on its way back, Algorithm 3).
    pub fn on_reverse_packet(&mut self, pkt: &mut Packet) {
        if !pkt.reverse {
            return;
        }
        let flow = subflow_id(pkt.flow, pkt.path);
        let Sched::Pdq(h) = &mut pkt.sched else { return };
        match pkt.kind {
            PacketKind::SynAck | PacketKind::Ack | PacketKind::Probe => self.on_reverse(flow, h),
            _ => {}
        }
    }
}
