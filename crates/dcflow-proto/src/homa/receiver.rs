//! The receiving side of a Homa host: every inbound message, and the grants.
//!
//! Homa §3.3: once a message's first packet arrives the receiver knows its
//! length and grants its scheduled bytes, one GRANT per arriving data packet,
//! keeping RTTbytes granted but not yet received. §3.5: it grants at once to
//! the `overcommitment` messages with the fewest bytes left (SRPT, §3.4), not
//! just the first, so that its downlink stays busy when a granted sender is
//! busy elsewhere; each GRANT names the scheduled level of the message's rank
//! among them. §3.7: a message that expects data and has heard nothing for a
//! whole timer period gets a RESEND for its missing granted bytes.

use super::header::HomaHeader;
use super::priority::Priorities;
use crate::packet::{Packet, PacketKind, Sched};
use dcflow_core::{FlowId, Time};
use std::collections::{BTreeMap, BTreeSet};

struct Inbound {
    size: u64,
    /// RTTbytes of this message: its unscheduled bytes, as its sender says.
    window: u64,
    /// One bit per packet (index = offset / mss).
    got: Vec<u64>,
    received: u64,
    /// Every packet below this one has arrived.
    prefix: u64,
    /// The sender may send every byte below this.
    granted: u64,
    /// The scheduled level of the last GRANT (the lowest before any).
    prio: u8,
    /// Heard from the sender since the last timer tick.
    heard: bool,
}

impl Inbound {
    fn has(&self, idx: u64) -> bool {
        self.got[(idx / 64) as usize] & (1 << (idx % 64)) != 0
    }
    /// First packet at or after `from` whose arrival is `want`.
    fn find(&self, from: u64, want: bool) -> u64 {
        (from..self.got.len() as u64 * 64).find(|&i| self.has(i) == want).unwrap_or(self.got.len() as u64 * 64)
    }
    fn mark(&mut self, idx: u64) {
        self.got[(idx / 64) as usize] |= 1 << (idx % 64);
        while self.prefix < self.got.len() as u64 * 64 && self.has(self.prefix) {
            self.prefix += 1;
        }
    }
    fn remaining(&self) -> u64 {
        self.size - self.received
    }
}

/// Every message this host receives.
pub(super) struct Inbox {
    prios: Priorities,
    /// Payload of every data packet but a message's last.
    mss: u64,
    overcommitment: usize,
    msgs: BTreeMap<FlowId, Inbound>,
    /// Messages with bytes still to grant, by bytes left (SRPT).
    grantable: BTreeSet<(u64, FlowId)>,
    /// Finished messages and their sizes, to answer late packets with DONE.
    done: BTreeMap<FlowId, u64>,
}

/// A control packet from this host about `flow`.
pub(super) fn control(flow: FlowId, reverse: bool, now: Time, h: HomaHeader) -> Packet {
    let mut p = Packet::new(flow, PacketKind::Probe, reverse, now);
    p.sched = Sched::Homa(h);
    p
}

impl Inbox {
    pub(super) fn new(prios: Priorities, overcommitment: usize, mss: u32) -> Inbox {
        Inbox { prios, mss: mss as u64, overcommitment, msgs: BTreeMap::new(), grantable: BTreeSet::new(), done: BTreeMap::new() }
    }

    pub(super) fn is_idle(&self) -> bool {
        self.msgs.is_empty()
    }

    /// Bytes of `flow` received in order.
    pub(super) fn delivered(&self, flow: FlowId) -> u64 {
        match self.msgs.get(&flow) {
            Some(m) => (m.prefix * self.mss).min(m.size),
            None => self.done.get(&flow).copied().unwrap_or(0),
        }
    }

    /// A DATA packet arrived; replies go to `out`. Returns true when it
    /// completed its message.
    pub(super) fn on_data(&mut self, now: Time, pkt: &Packet, size: u64, unscheduled: u64, out: &mut Vec<Packet>) -> bool {
        let flow = pkt.flow;
        if self.done.contains_key(&flow) {
            out.push(control(flow, true, now, HomaHeader::Done));
            return false;
        }
        let lowest = self.prios.scheduled(0, 1);
        let packets = size.div_ceil(self.mss);
        let m = self.msgs.entry(flow).or_insert_with(|| Inbound {
            size,
            window: unscheduled,
            got: vec![0; packets.div_ceil(64) as usize],
            received: 0,
            prefix: 0,
            granted: unscheduled,
            prio: lowest,
            heard: true,
        });
        m.heard = true;
        m.granted = m.granted.max(unscheduled);
        let idx = pkt.seq / self.mss;
        if m.has(idx) {
            // A sender that heard nothing for a while sends a packet again
            // (see `Outbox::tick`): tell it the message is known.
            if pkt.retransmit {
                let (offset, prio) = (m.granted, m.prio);
                out.push(control(flow, true, now, HomaHeader::Grant { offset, prio }));
            }
            return false;
        }
        let old = (m.remaining(), flow);
        m.mark(idx);
        m.received += pkt.payload as u64;
        self.grantable.remove(&old);
        if m.received >= m.size {
            self.msgs.remove(&flow);
            self.done.insert(flow, size);
            out.push(control(flow, true, now, HomaHeader::Done));
            self.grant(now, out);
            return true;
        }
        if m.granted < m.size {
            self.grantable.insert((m.remaining(), flow));
        }
        self.grant(now, out);
        false
    }

    /// The sender is busy with shorter messages (§3.7): wait.
    pub(super) fn on_busy(&mut self, flow: FlowId) {
        if let Some(m) = self.msgs.get_mut(&flow) {
            m.heard = true;
        }
    }

    /// Grant to the `overcommitment` messages with the fewest bytes left
    /// (§3.3-§3.5): each keeps RTTbytes granted beyond what has arrived.
    fn grant(&mut self, now: Time, out: &mut Vec<Packet>) {
        let granting = self.grantable.len().min(self.overcommitment);
        let top: Vec<FlowId> = self.grantable.iter().take(granting).map(|&(_, f)| f).collect();
        for (rank, flow) in top.into_iter().enumerate() {
            let prio = self.prios.scheduled(rank, granting);
            let m = self.msgs.get_mut(&flow).expect("grantable messages are known");
            let offset = (m.received + m.window).min(m.size);
            if offset <= m.granted {
                continue;
            }
            m.granted = offset;
            m.prio = prio;
            out.push(control(flow, true, now, HomaHeader::Grant { offset, prio }));
            if offset == m.size {
                self.grantable.remove(&(m.remaining(), flow));
            }
        }
    }

    /// The timer (§3.7): every message that expects granted bytes and heard
    /// nothing since the last tick asks for them again.
    pub(super) fn tick(&mut self, now: Time, out: &mut Vec<Packet>) {
        for (&flow, m) in self.msgs.iter_mut() {
            if !std::mem::replace(&mut m.heard, false) && m.received < m.granted {
                // The first gap: from the first missing packet to the next
                // one that arrived, or to what was granted.
                let hole = m.prefix;
                let offset = hole * self.mss;
                let end = (m.find(hole, true) * self.mss).min(m.granted);
                let prio = if offset < m.window { self.prios.unscheduled(m.size) } else { m.prio };
                let length = end.saturating_sub(offset).max(1);
                out.push(control(flow, true, now, HomaHeader::Resend { offset, length, prio }));
            }
        }
    }
}
