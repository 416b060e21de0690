//! A MERP switch port (papers/003 §4.3): its flow state table T, the
//! Distributed Rate Controller (Alg. 1) run as a packet arrives, the
//! Virtual Deadline Generator (Alg. 2) run on each SYN, and Rate Adjustment
//! (Alg. 3) run as a SYN, DATA or DET packet leaves the port.
//!
//! One table per output port: each port is a link of capacity C, which is
//! what Alg. 2 and 3 compute with (the paper says "each MERP switch
//! maintains a flow table"; a switch's ports do not share capacity).

use super::header::MerpHeader;
use super::MerpConfig;
use crate::{Packet, PacketKind, Sched};
use dcflow_core::FlowId;
use dcflow_core::{Rate, Time};

/// One row of T (§4.3.1): id, size, rs, aT, vdl, esr; and the flow's
/// destination, which GMER (Alg. 6) compares.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Entry {
    pub flow: FlowId,
    /// Bytes.
    pub size: f64,
    /// Rest size in bytes (from the packets' `rest`).
    pub rs: f64,
    /// Arrival time of the flow's SYN at this port, seconds.
    pub at: f64,
    /// Virtual deadline, seconds.
    pub vdl: f64,
    /// Expected sending rate, bytes per second.
    pub esr: f64,
    pub dst: u32,
}

#[derive(Clone, Debug)]
pub struct MerpSwitch {
    alpha: f64,
    /// Θ in bytes per second.
    theta: f64,
    /// C in bytes per second.
    c: f64,
    table: Vec<Entry>,
}

impl MerpSwitch {
    pub fn new(cfg: &MerpConfig, link: Rate) -> MerpSwitch {
        MerpSwitch { alpha: cfg.alpha, theta: cfg.theta.as_bps_f64() / 8.0, c: link.as_bps_f64() / 8.0, table: Vec::new() }
    }

    pub fn table(&self) -> &[Entry] {
        &self.table
    }

    /// C in bytes per second.
    pub fn capacity(&self) -> f64 {
        self.c
    }

    fn position(&self, flow: FlowId) -> Option<usize> {
        self.table.iter().position(|e| e.flow == flow)
    }

    /// Alg. 1 (DRC), for a forward packet this port admitted.
    pub fn on_arrival(&mut self, now: Time, pkt: &mut Packet) {
        let Sched::Merp(h) = &mut pkt.sched else { return };
        let flow = pkt.flow;
        match pkt.kind {
            // Lines 1-4.
            PacketKind::Fin => self.forget(flow),
            PacketKind::Syn | PacketKind::Data | PacketKind::Probe => {
                // Lines 5-7: a new flow runs VDG. Only a SYN makes a row: a
                // DET overtaken by its flow's FIN (DETs wait in the lowest
                // class) must not bring the flow back. A rerouted flow
                // sends its SYN again (MerpSender::path_changed).
                if pkt.kind == PacketKind::Syn {
                    self.vdg(now, flow, h);
                }
                let Some(i) = self.position(flow) else { return };
                let e = &mut self.table[i];
                e.rs = h.rest as f64;
                // Lines 9-11.
                h.esr = h.esr.min(e.esr * 8.0);
                e.esr = h.esr / 8.0;
                e.vdl = e.at + e.size / e.esr;
            }
            _ => {}
        }
    }

    /// The flow's row goes (its FIN, or routing moved it elsewhere).
    pub fn forget(&mut self, flow: FlowId) {
        if let Some(i) = self.position(flow) {
            self.table.swap_remove(i);
        }
    }

    /// Alg. 2 (VDG): insert the flow (arrival time: the flow's start, the
    /// same at every port of its path; a retransmitted SYN keeps its row), then repeatedly take as the last flow the one whose
    /// expansion ratio would be smallest if it went last, giving it
    /// vdl = now + tRestSize / C and esr = size / (vdl - aT).
    fn vdg(&mut self, now: Time, flow: FlowId, h: &MerpHeader) {
        let now = now.as_secs_f64();
        if self.position(flow).is_none() {
            let (size, at) = (h.size as f64, h.start.as_secs_f64());
            self.table.push(Entry { flow, size, rs: h.rest as f64, at, vdl: f64::INFINITY, esr: f64::INFINITY, dst: h.dst });
        }
        let c = self.c;
        let mut rest: f64 = self.table.iter().map(|e| e.rs).sum();
        let mut left: Vec<usize> = (0..self.table.len()).collect();
        while !left.is_empty() {
            let ratio = |e: &Entry| ((now - e.at) * c + rest) / e.size;
            let k = (0..left.len())
                .min_by(|&a, &b| ratio(&self.table[left[a]]).total_cmp(&ratio(&self.table[left[b]])))
                .expect("left is not empty");
            let e = &mut self.table[left.swap_remove(k)];
            e.vdl = now + rest / c;
            e.esr = e.size / (e.vdl - e.at).max(f64::MIN_POSITIVE);
            rest -= e.rs;
        }
    }

    /// The flows with the smallest and second smallest virtual deadline
    /// (ties: earlier arrival, then lower id).
    fn first_two(&self) -> (Option<usize>, Option<usize>) {
        let key = |e: &Entry| (e.vdl, e.at, e.flow);
        let before = |a: &Entry, b: &Entry| key(a).partial_cmp(&key(b)) == Some(std::cmp::Ordering::Less);
        let (mut first, mut second): (Option<usize>, Option<usize>) = (None, None);
        for (i, e) in self.table.iter().enumerate() {
            if first.is_none_or(|f| before(e, &self.table[f])) {
                second = first;
                first = Some(i);
            } else if second.is_none_or(|s| before(e, &self.table[s])) {
                second = Some(i);
            }
        }
        (first, second)
    }

    /// Alg. 3 (RateAdj), for a SYN, DATA or DET leaving this port.
    pub fn on_departure(&self, pkt: &mut Packet) {
        if !matches!(pkt.kind, PacketKind::Syn | PacketKind::Data | PacketKind::Probe) || pkt.reverse {
            return;
        }
        let Sched::Merp(h) = &mut pkt.sched else { return };
        let Some(me) = self.position(pkt.flow) else { return };
        let (a, c, n) = (self.alpha, self.c, self.table.len() as f64);
        let (first, second) = self.first_two();
        let granted = if first == Some(me) {
            a * c
        } else if second == Some(me) {
            let fk = &self.table[first.expect("a second implies a first")];
            // Early start: the first-flow ends within an RTT.
            if fk.rs < a * c * h.rtt.as_secs_f64() {
                a * c
            } else {
                ((n - 1.0) * (1.0 - a) * c).min(self.theta)
            }
        } else {
            ((1.0 - a) * c).min(self.theta)
        };
        h.asr = h.asr.min((granted * 8.0).floor() as u64);
    }

    /// Every row is a flow that `carried` says still uses this port.
    pub fn audit(&self, carried: &dyn Fn(FlowId) -> bool) -> Option<String> {
        let stale: Vec<FlowId> = self.table.iter().map(|e| e.flow).filter(|&f| !carried(f)).collect();
        (!stale.is_empty()).then(|| format!("MERP table holds {} flow(s) that no longer use this port (first: flow {})", stale.len(), stale[0]))
    }
}
