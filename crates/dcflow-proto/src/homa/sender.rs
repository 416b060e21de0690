//! The sending side of a Homa host: every outbound message.
//!
//! Homa §3.2: a message's first RTTbytes are unscheduled, sent at once at the
//! level its size's cutoff gives (§3.4); the rest waits for GRANTs, and is
//! sent at the level each grant names. Among its messages with bytes it may
//! send, the sender picks the one with the fewest bytes left to send (SRPT,
//! §3.2).
//! §3.7: a RESEND puts its range back in line (bytes never sent are simply
//! granted); if a shorter message goes first the sender answers BUSY.

use super::header::HomaHeader;
use super::priority::Priorities;
use super::receiver::control;
use crate::endpoint::FlowInfo;
use crate::packet::{Packet, PacketKind, Sched, HEADER_BYTES};
use dcflow_core::{FlowId, Time};
use std::collections::{BTreeMap, BTreeSet};

struct Outbound {
    info: FlowInfo,
    /// RTTbytes of the message, capped at its size.
    unscheduled: u64,
    /// Next byte never sent.
    next: u64,
    /// Bytes below this may be sent.
    granted: u64,
    unsched_prio: u8,
    sched_prio: u8,
    /// Offsets of packets to send again, and the level a RESEND asked for.
    resend: BTreeSet<u64>,
    resend_prio: u8,
    /// The receiver answered at least once (a GRANT, RESEND or DONE).
    heard: bool,
    /// Sent or heard anything since the last timer tick.
    active: bool,
    /// Timer ticks in a row without either.
    silent: u8,
}

impl Outbound {
    fn size(&self) -> u64 {
        self.info.size.0
    }
    fn sendable(&self) -> bool {
        !self.resend.is_empty() || self.next < self.granted
    }
    /// What SRPT ranks by: bytes left to send.
    fn left(&self) -> u64 {
        self.size() - self.next
    }
}

/// Every message this host sends.
pub(super) struct Outbox {
    prios: Priorities,
    rtt_bytes: Option<u64>,
    msgs: BTreeMap<FlowId, Outbound>,
    retransmits: u64,
}

impl Outbox {
    pub(super) fn new(prios: Priorities, rtt_bytes: Option<u64>) -> Outbox {
        Outbox { prios, rtt_bytes, msgs: BTreeMap::new(), retransmits: 0 }
    }

    pub(super) fn is_idle(&self) -> bool {
        self.msgs.is_empty()
    }

    pub(super) fn retransmits(&self) -> u64 {
        self.retransmits
    }

    /// A new message: RTTbytes is the key's value, else the path's
    /// bandwidth-delay product in whole packets (§3.2 defines RTTbytes as
    /// what the sender can transmit in one round trip).
    pub(super) fn start(&mut self, info: FlowInfo) {
        let rtt = self.rtt_bytes.unwrap_or_else(|| {
            let bdp = info.line_rate.bytes_in(info.base_rtt).0;
            bdp.div_ceil(info.mss as u64).max(1) * info.mss as u64
        });
        let unscheduled = rtt.min(info.size.0);
        let unsched_prio = self.prios.unscheduled(info.size.0);
        self.msgs.insert(
            info.id,
            Outbound {
                info,
                unscheduled,
                next: 0,
                granted: unscheduled,
                unsched_prio,
                sched_prio: self.prios.scheduled(0, 1),
                resend: BTreeSet::new(),
                resend_prio: unsched_prio,
                heard: false,
                active: true,
                silent: 0,
            },
        );
    }

    pub(super) fn has_sendable(&self) -> bool {
        self.msgs.values().any(Outbound::sendable)
    }

    /// The message SRPT sends next, if any may send.
    fn pick(&self) -> Option<FlowId> {
        self.msgs.iter().filter(|(_, m)| m.sendable()).min_by_key(|(&f, m)| (m.left(), f)).map(|(&f, _)| f)
    }

    /// The next data packet, if a message may send.
    pub(super) fn next_packet(&mut self, now: Time) -> Option<Packet> {
        let flow = self.pick()?;
        let m = self.msgs.get_mut(&flow).expect("picked");
        let mss = m.info.mss as u64;
        let (seq, retransmit) = match m.resend.pop_first() {
            Some(seq) => (seq, true),
            None => {
                let seq = m.next;
                m.next = (seq + mss).min(m.size());
                (seq, false)
            }
        };
        m.active = true;
        let payload = mss.min(m.size() - seq) as u32;
        let mut p = Packet::new(flow, PacketKind::Data, false, now);
        p.seq = seq;
        p.payload = payload;
        p.wire = payload + HEADER_BYTES;
        p.retransmit = retransmit;
        p.prio = if retransmit {
            m.resend_prio
        } else if seq < m.unscheduled {
            m.unsched_prio
        } else {
            m.sched_prio
        } as u64;
        p.sched = Sched::Homa(HomaHeader::Data { size: m.size(), unscheduled: m.unscheduled });
        self.retransmits += retransmit as u64;
        Some(p)
    }

    /// A control packet from the receiver of `flow`; a BUSY answer goes to
    /// `out`. Returns true when the message is done.
    pub(super) fn on_control(&mut self, now: Time, flow: FlowId, h: HomaHeader, out: &mut Vec<Packet>) -> bool {
        let Some(m) = self.msgs.get_mut(&flow) else { return false };
        m.heard = true;
        m.active = true;
        match h {
            HomaHeader::Grant { offset, prio } => {
                m.granted = m.granted.max(offset.min(m.size()));
                m.sched_prio = prio;
            }
            HomaHeader::Resend { offset, length, prio } => {
                let end = (offset + length).min(m.size());
                m.granted = m.granted.max(end);
                let mss = m.info.mss as u64;
                let sent = end.min(m.next);
                let mut seq = offset / mss * mss;
                while seq < sent {
                    m.resend.insert(seq);
                    seq += mss;
                }
                m.resend_prio = prio;
                if self.pick() != Some(flow) {
                    out.push(control(flow, false, now, HomaHeader::Busy));
                }
            }
            HomaHeader::Done => {
                self.msgs.remove(&flow);
                return true;
            }
            HomaHeader::Data { .. } | HomaHeader::Busy => {}
        }
        false
    }

    /// The timer: a message with nothing it may send that neither sent nor
    /// heard anything for `SENDER_TICKS` periods, and either has sent every
    /// byte (it waits for DONE) or never heard from its receiver (whose copy
    /// of the unscheduled packets may all be lost), sends its first packet
    /// again. Homa leaves this to the RPC layer (§3.7: the client asks again
    /// for a response that does not come); here the sender does it, after
    /// the receiver's RESEND (one period) had its chance.
    pub(super) fn tick(&mut self) {
        const SENDER_TICKS: u8 = 2;
        for m in self.msgs.values_mut() {
            let waiting = m.next >= m.size() || !m.heard;
            m.silent = if std::mem::replace(&mut m.active, false) { 0 } else { m.silent.saturating_add(1) };
            if m.silent >= SENDER_TICKS && !m.sendable() && waiting {
                m.silent = 0;
                m.resend.insert(0);
                m.resend_prio = m.unsched_prio;
            }
        }
    }
}
