//! One host's pHost agent: the source and destination halves sharing one
//! NIC. The host sends at most one packet at a time at its line rate
//! (pHost §3: a source sends a data packet per token, a destination grants
//! a token per MTU transmission time), control packets (RTS, tokens, ACKs)
//! before data, as YAPS's hosts do (their control packets enter the NIC
//! queue at once, data only when it is idle: ext/capabilityhost.cpp:150-208).

use super::header::PhostHeader;
use super::inbound::Destinations;
use super::outbound::Sources;
use super::PhostConfig;
use crate::endpoint::{FlowEvent, FlowInfo};
use crate::host::HostEndpoint;
use crate::packet::{Packet, PacketKind, HEADER_BYTES};
use dcflow_core::{Bytes, Dur, FlowId, Rate, Time};
use std::collections::VecDeque;

pub struct PhostHost {
    cfg: PhostConfig,
    line_rate: Rate,
    /// One MTU's transmission time at the line rate: pHost's clock.
    mtu_time: Dur,
    /// How long a token lives once it reaches the source.
    token_ttl: Dur,
    /// The NIC is sending until then.
    nic_free: Time,
    /// The last time the engine called in (`poll_timeout` has no `now`).
    now: Time,
    control: VecDeque<Packet>,
    sources: Sources,
    destinations: Destinations,
    events: VecDeque<(FlowId, FlowEvent)>,
}

impl PhostHost {
    /// The agent of a host whose access link runs at `line_rate`, in a
    /// network of `mtu`-byte packets.
    pub fn new(cfg: &PhostConfig, line_rate: Rate, mtu: u32) -> PhostHost {
        let mtu_time = line_rate.tx_time(Bytes(mtu as u64));
        PhostHost {
            cfg: cfg.clone(),
            line_rate,
            mtu_time,
            token_ttl: mtu_time.mul_f64(cfg.token_expiry),
            nic_free: Time::ZERO,
            now: Time::ZERO,
            control: VecDeque::new(),
            sources: Sources::default(),
            destinations: Destinations::new(mtu - HEADER_BYTES),
            events: VecDeque::new(),
        }
    }

    /// Time-driven work due at `now`: RTS retries and the next token.
    fn advance(&mut self, now: Time) {
        self.now = now;
        self.sources.retries(now, &self.cfg, &mut self.control);
        if let Some(token) = self.destinations.next_token(now, &self.cfg, self.mtu_time) {
            self.control.push_back(token);
        }
    }
}

impl HostEndpoint for PhostHost {
    fn start_flow(&mut self, now: Time, info: FlowInfo) {
        self.now = now;
        let rts = self.sources.start(now, info, &self.cfg, self.mtu_time);
        self.control.push_back(rts);
    }

    fn handle_packet(&mut self, now: Time, pkt: &Packet) {
        self.now = now;
        let reply = match (pkt.kind, pkt.reverse) {
            (PacketKind::Syn, false) => self.destinations.on_rts(now, pkt, &self.cfg, self.mtu_time),
            (PacketKind::Data, false) => {
                let ack = self.destinations.on_data(now, pkt, &self.cfg, self.mtu_time);
                if ack.is_some() {
                    self.events.push_back((pkt.flow, FlowEvent::Delivered));
                }
                ack
            }
            (PacketKind::Probe, true) => {
                self.sources.on_token(now, pkt.flow, PhostHeader::of(pkt), self.token_ttl, &self.cfg);
                None
            }
            (PacketKind::Ack, true) => {
                if self.sources.on_ack(pkt.flow) {
                    self.events.push_back((pkt.flow, FlowEvent::Closed));
                }
                None
            }
            _ => None,
        };
        self.control.extend(reply);
    }

    fn handle_timeout(&mut self, now: Time) {
        self.advance(now);
    }

    fn poll_transmit(&mut self, now: Time) -> Option<Packet> {
        self.advance(now);
        if now < self.nic_free {
            return None;
        }
        let pkt = match self.control.pop_front() {
            Some(p) => p,
            None => self.sources.next_data(now, &self.cfg)?,
        };
        self.nic_free = now + self.line_rate.tx_time(Bytes(pkt.wire as u64));
        Some(pkt)
    }

    /// The next moment something is due after the last call: the NIC
    /// freeing up with a packet waiting, a token slot, an RTS retry.
    /// Only times after it: what is due then was done by `poll_transmit`.
    fn poll_timeout(&self) -> Option<Time> {
        let now = self.now;
        let at = self.nic_free.max(now);
        let nic = (!self.control.is_empty() || self.sources.has_token_at(at)).then_some(at);
        let wakes = [nic, self.destinations.next_wake(now, &self.cfg, self.mtu_time), self.sources.next_retry()];
        wakes.into_iter().flatten().filter(|&t| t > now).min()
    }

    fn poll_event(&mut self) -> Option<(FlowId, FlowEvent)> {
        self.events.pop_front()
    }

    fn bytes_delivered(&self, flow: FlowId) -> u64 {
        self.destinations.bytes_delivered(flow)
    }

    fn retransmits(&self) -> u64 {
        self.sources.retransmits()
    }
}
