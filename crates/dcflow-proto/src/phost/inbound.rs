//! A pHost host as a destination (pHost §3): it learns of a flow from its
//! RTS (or its first data packet, if the RTS was lost), and once per MTU
//! transmission time grants one token to the inbound flow with the fewest
//! missing packets that it may token now. It may not token a flow
//! - whose every missing packet it has tokened since its last retransmission
//!   round, until `resend_after` has passed (then it tokens the still-missing
//!   packets again: pHost's retransmission, §3);
//! - whose source left more than `downgrade_after` tokens unanswered (source
//!   downgrade, §3), until `downgrade_for` after its last token.

use super::header::{control, PhostHeader};
use super::{PhostConfig, WakeOn};
use crate::packet::{Packet, PacketKind};
use dcflow_core::{Dur, FlowId, Time};
use std::collections::{BTreeMap, HashSet};

/// Which packets of a flow are in hand: one bit each.
pub struct PacketSet(Vec<u64>);

impl PacketSet {
    pub fn new(packets: u32) -> PacketSet {
        PacketSet(vec![0; (packets as usize).div_ceil(64)])
    }
    pub fn contains(&self, i: u32) -> bool {
        self.0[i as usize / 64] & (1 << (i % 64)) != 0
    }
    /// Add `i`; whether it was new.
    pub fn insert(&mut self, i: u32) -> bool {
        let new = !self.contains(i);
        self.0[i as usize / 64] |= 1 << (i % 64);
        new
    }
}

/// A flow this host receives.
struct Flow {
    packets: u32,
    received: PacketSet,
    received_count: u32,
    /// Packets 0..received_until are all in hand.
    received_until: u32,
    /// Tokens granted, free ones included (YAPS `capability_count`): the
    /// next token's sequence number.
    issued: u32,
    /// Tokens to grant before the next retransmission round (YAPS
    /// `capability_goal`).
    goal: u32,
    /// The packet of the last token (free tokens cover 0..free).
    last_packet: Option<u32>,
    /// The largest token sequence number seen in data, -1 before any
    /// (YAPS `largest_cap_seq_received`).
    seen: i64,
    last_token_at: Time,
    /// Waiting for the packets of the last round until then.
    resend_at: Option<Time>,
    /// Unanswered tokens that downgrade the source.
    downgrade_after: u32,
}

impl Flow {
    fn remaining(&self) -> u32 {
        self.packets - self.received_count
    }
    /// Tokens granted beyond the last one the source spent (YAPS
    /// `capability_gap`, ext/capabilityflow.cpp:364-367).
    fn gap(&self) -> i64 {
        self.issued as i64 - self.seen
    }
    fn downgraded(&self) -> bool {
        self.gap() > self.downgrade_after as i64
    }
    /// The next packet to token: the first missing one after the last
    /// tokened, wrapping to the first missing one (YAPS
    /// `get_next_capa_seq_num`, ext/capabilityflow.cpp:269-292).
    fn next_packet(&self) -> u32 {
        let mut i = self.last_packet.map_or(0, |p| p + 1);
        if i >= self.packets {
            i = self.received_until;
        }
        while self.received.contains(i) {
            i += 1;
            if i >= self.packets {
                i = self.received_until;
            }
        }
        i
    }
}

/// Every flow this host receives, and the token clock.
pub struct Destinations {
    flows: BTreeMap<FlowId, Flow>,
    /// Flows delivered (a repeated RTS or data packet gets the ACK again).
    done: HashSet<FlowId>,
    /// No token before this (one per MTU transmission time).
    next_token_at: Time,
    /// Payload bytes per packet.
    mss: u32,
    /// `wake_on = "timer"`: asleep until then (or a new flow's RTS).
    asleep_until: Option<Time>,
}

impl Destinations {
    pub fn new(mss: u32) -> Destinations {
        Destinations { flows: BTreeMap::new(), done: HashSet::new(), next_token_at: Time::ZERO, mss, asleep_until: None }
    }

    /// An RTS or the flow's first data packet: set the flow up. The free
    /// tokens count as granted. A flow sent whole on free tokens takes the
    /// destination's link for as many token slots, which it skips (YAPS
    /// `hold_on`, ext/capabilityflow.cpp:95, ext/capabilityhost.cpp:275-278,
    /// where only such flows have free tokens). A larger flow's free
    /// packets are no reason to wait: the tokens granted now bring data one
    /// RTT later, when its free packets have arrived.
    fn learn(&mut self, now: Time, f: FlowId, h: PhostHeader, cfg: &PhostConfig, mtu_time: Dur) {
        if self.done.contains(&f) || self.flows.contains_key(&f) {
            return;
        }
        self.asleep_until = None;
        let free = h.free.min(h.count);
        // All packets went out free: wait two free bursts before tokening
        // any again (YAPS `set_capability_count`, ext/capabilityflow.cpp:259-266).
        let resend_at = (free == h.count).then(|| now + Dur(mtu_time.0 * 2 * free as u64));
        let downgrade_after = if cfg.downgrade_after == 0 { h.bdp.max(1) } else { cfg.downgrade_after };
        self.flows.insert(
            f,
            Flow {
                packets: h.count,
                received: PacketSet::new(h.count),
                received_count: 0,
                received_until: 0,
                issued: free,
                goal: h.count,
                last_packet: free.checked_sub(1),
                seen: -1,
                last_token_at: now,
                resend_at,
                downgrade_after,
            },
        );
        if free == h.count {
            self.next_token_at = self.next_token_at.max(now + Dur(mtu_time.0 * free as u64));
        }
    }

    /// An RTS. Returns the ACK to send again if its flow is already delivered.
    pub fn on_rts(&mut self, now: Time, pkt: &Packet, cfg: &PhostConfig, mtu_time: Dur) -> Option<Packet> {
        if self.done.contains(&pkt.flow) {
            return Some(ack(now, pkt.flow));
        }
        self.learn(now, pkt.flow, PhostHeader::of(pkt), cfg, mtu_time);
        None
    }

    /// A data packet. Returns the final ACK if it completed its flow.
    pub fn on_data(&mut self, now: Time, pkt: &Packet, cfg: &PhostConfig, mtu_time: Dur) -> Option<Packet> {
        let f = pkt.flow;
        if self.done.contains(&f) {
            return None;
        }
        let h = PhostHeader::of(pkt);
        self.learn(now, f, h, cfg, mtu_time);
        let flow = self.flows.get_mut(&f).expect("learned");
        flow.seen = flow.seen.max(h.token as i64);
        if flow.received.insert(h.packet) {
            flow.received_count += 1;
            while flow.received_until < flow.packets && flow.received.contains(flow.received_until) {
                flow.received_until += 1;
            }
        }
        if flow.received_count < flow.packets {
            return None;
        }
        self.flows.remove(&f);
        self.done.insert(f);
        Some(ack(now, f))
    }

    /// Bytes of `f` received in order, while it is incomplete (a flow is
    /// forgotten once delivered; before that its first missing packet is
    /// not the last one, so every packet in order is a full MSS).
    pub fn bytes_delivered(&self, f: FlowId) -> u64 {
        self.flows.get(&f).map_or(0, |fl| fl.received_until as u64 * self.mss as u64)
    }

    /// The token due at `now`, if the token clock allows one and a flow may
    /// have it: the flow with the fewest missing packets, ties to the
    /// earlier flow (YAPS `CapabilityFlowComparatorAtReceiver`,
    /// ext/capabilityhost.cpp:65-86; `send_capability`, :264-366).
    pub fn next_token(&mut self, now: Time, cfg: &PhostConfig, mtu_time: Dur) -> Option<Packet> {
        if now < self.next_token_at || self.asleep_until.is_some_and(|t| now < t) {
            return None;
        }
        self.asleep_until = None;
        let relax_after = mtu_time.mul_f64(cfg.downgrade_for);
        let mut best: Option<(u32, FlowId)> = None;
        for (&id, flow) in self.flows.iter_mut() {
            if let Some(t) = flow.resend_at {
                if t > now {
                    continue;
                }
                // A new retransmission round: token every missing packet.
                flow.resend_at = None;
                flow.goal += flow.remaining();
            }
            if flow.downgraded() {
                if now < flow.last_token_at + relax_after {
                    continue;
                }
                // Forgive the unanswered tokens but the last window's
                // (YAPS `relax_capability_gap`, ext/capabilityflow.cpp:369-373).
                flow.seen = flow.issued as i64 - flow.downgrade_after as i64;
            }
            if best.is_none_or(|(r, _)| flow.remaining() < r) {
                best = Some((flow.remaining(), id));
            }
        }
        let Some((_, id)) = best else {
            if cfg.wake_on == WakeOn::Timer {
                self.asleep_until = self.earliest_ready(now, cfg, mtu_time);
            }
            return None;
        };
        let flow = self.flows.get_mut(&id).expect("chosen flow exists");
        let packet = flow.next_packet();
        let h = PhostHeader { token: flow.issued, packet, count: flow.remaining(), ..PhostHeader::default() };
        flow.issued += 1;
        flow.last_packet = Some(packet);
        flow.last_token_at = now;
        if flow.issued >= flow.goal {
            flow.resend_at = Some(now + mtu_time.mul_f64(cfg.resend_after));
        }
        self.next_token_at = now + mtu_time;
        Some(control(id, PacketKind::Probe, true, now, h))
    }

    /// When the destination next has something to do on its own: the token
    /// clock if a flow may have a token then, else the end of the earliest
    /// wait (retransmission round or downgrade).
    pub fn next_wake(&self, now: Time, cfg: &PhostConfig, mtu_time: Dur) -> Option<Time> {
        if self.flows.is_empty() {
            return None;
        }
        match self.asleep_until {
            Some(t) => Some(t),
            // YAPS's destination looks again one slot after each token and
            // only then goes to sleep (ext/capabilityhost.cpp:351-359).
            None if cfg.wake_on == WakeOn::Timer => Some(self.next_token_at),
            None => self.earliest_ready(now, cfg, mtu_time),
        }
    }

    /// When the first flow may have a token again (not before the clock).
    fn earliest_ready(&self, now: Time, cfg: &PhostConfig, mtu_time: Dur) -> Option<Time> {
        let relax_after = mtu_time.mul_f64(cfg.downgrade_for);
        let ready = |fl: &Flow| match fl.resend_at {
            Some(t) => t,
            None if fl.downgraded() => fl.last_token_at + relax_after,
            None => now,
        };
        self.flows.values().map(|fl| ready(fl).max(self.next_token_at)).min()
    }
}

/// The flow's final ACK: the destination holds every packet.
fn ack(now: Time, f: FlowId) -> Packet {
    control(f, PacketKind::Ack, true, now, PhostHeader::default())
}
