//! One host's Homa agent: its [`Outbox`] and [`Inbox`] behind one NIC.
//!
//! The NIC sends at line rate, control packets (GRANT, RESEND, BUSY, DONE)
//! before data: they are tiny, and a grant that waits behind data idles its
//! sender (Homa keeps the NIC queue short for the same reason, §3.2). One
//! periodic timer drives both sides' loss detection (§3.7), as HomaModule's
//! timer does, and runs only while the host has a message in flight.

use super::header::HomaHeader;
use super::receiver::Inbox;
use super::sender::Outbox;
use super::HomaConfig;
use crate::endpoint::{FlowEvent, FlowInfo};
use crate::host::HostEndpoint;
use crate::packet::{Packet, PacketKind, Sched};
use dcflow_core::{Bytes, Dur, FlowId, Rate, Time};
use std::collections::VecDeque;

pub struct HomaHost {
    line_rate: Rate,
    resend_timeout: Dur,
    outbox: Outbox,
    inbox: Inbox,
    control: VecDeque<Packet>,
    /// Scratch for the packets a handler produces.
    replies: Vec<Packet>,
    /// The NIC is free from this time on.
    nic_free: Time,
    tick_at: Option<Time>,
    events: VecDeque<(FlowId, FlowEvent)>,
}

impl HomaHost {
    /// The agent of a host whose NIC sends at `line_rate`, in a network of
    /// `mtu`-byte packets, under a [`HomaConfig::resolved`] section.
    pub fn new(cfg: &HomaConfig, line_rate: Rate, mtu: u32) -> HomaHost {
        let params = cfg.params(mtu);
        HomaHost {
            line_rate,
            resend_timeout: params.resend_timeout.unwrap_or_else(|| {
                let granted = params.overcommitment as u64 * params.timeout_rtt_bytes.max(params.mss as u64);
                line_rate.tx_time(Bytes(super::RESEND_DRAINS * granted))
            }),
            outbox: Outbox::new(params.prios.clone(), params.rtt_bytes),
            inbox: Inbox::new(params.prios.clone(), params.overcommitment, params.mss),
            control: VecDeque::new(),
            replies: Vec::new(),
            nic_free: Time::ZERO,
            tick_at: None,
            events: VecDeque::new(),
        }
    }

    fn idle(&self) -> bool {
        self.outbox.is_idle() && self.inbox.is_idle()
    }

    /// Queue what a handler produced and keep the timer running while
    /// anything is in flight.
    fn after(&mut self, now: Time) {
        self.control.extend(self.replies.drain(..));
        if self.tick_at.is_none() && !self.idle() {
            self.tick_at = Some(now + self.resend_timeout);
        }
    }

    fn transmit(&mut self, now: Time, p: Packet) -> Packet {
        self.nic_free = now + self.line_rate.tx_time(Bytes(p.wire as u64));
        p
    }
}

impl HostEndpoint for HomaHost {
    fn start_flow(&mut self, now: Time, info: FlowInfo) {
        self.outbox.start(info);
        self.after(now);
    }

    fn handle_packet(&mut self, now: Time, pkt: &Packet) {
        let Sched::Homa(h) = pkt.sched else { return };
        match (pkt.kind, h) {
            (PacketKind::Data, HomaHeader::Data { size, unscheduled }) => {
                if self.inbox.on_data(now, pkt, size, unscheduled, &mut self.replies) {
                    self.events.push_back((pkt.flow, FlowEvent::Delivered));
                }
            }
            (_, HomaHeader::Busy) => self.inbox.on_busy(pkt.flow),
            (_, h) => {
                if self.outbox.on_control(now, pkt.flow, h, &mut self.replies) {
                    self.events.push_back((pkt.flow, FlowEvent::Closed));
                }
            }
        }
        self.after(now);
    }

    fn handle_timeout(&mut self, now: Time) {
        if self.tick_at.is_some_and(|t| t <= now) {
            self.tick_at = None;
            self.inbox.tick(now, &mut self.replies);
            self.outbox.tick();
            self.after(now);
        }
    }

    fn poll_transmit(&mut self, now: Time) -> Option<Packet> {
        if now < self.nic_free {
            return None;
        }
        if let Some(p) = self.control.pop_front() {
            return Some(self.transmit(now, p));
        }
        let p = self.outbox.next_packet(now)?;
        Some(self.transmit(now, p))
    }

    fn poll_timeout(&self) -> Option<Time> {
        let pending = !self.control.is_empty() || self.outbox.has_sendable();
        match (pending.then_some(self.nic_free), self.tick_at) {
            (Some(a), Some(b)) => Some(a.min(b)),
            (a, b) => a.or(b),
        }
    }

    fn poll_event(&mut self) -> Option<(FlowId, FlowEvent)> {
        self.events.pop_front()
    }

    fn bytes_delivered(&self, flow: FlowId) -> u64 {
        self.inbox.delivered(flow)
    }

    fn retransmits(&self) -> u64 {
        self.outbox.retransmits()
    }
}
