//! A pHost host as a source (pHost §3): it announces each flow with an RTS,
//! holds the tokens its flows get, and spends one per data packet, always
//! on the flow with the fewest remaining packets (as the destination last
//! reported) among those holding a live token.

use super::header::{control, PhostHeader, HIGH, LOW};
use super::inbound::PacketSet;
use super::{FreeTokensFor, Level, PhostConfig};
use crate::endpoint::FlowInfo;
use crate::packet::{Packet, PacketKind, Sched, HEADER_BYTES};
use dcflow_core::{Dur, FlowId, Time};
use std::collections::{BTreeMap, VecDeque};

/// A token the source holds: send packet `packet` before `expires`.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
struct Token {
    expires: Time,
    seq: u32,
    packet: u32,
    free: bool,
}

/// A flow this host sends.
struct Flow {
    info: FlowInfo,
    /// The RTS fields, repeated in every data packet.
    rts: PhostHeader,
    /// Live tokens, in the order they arrived. Every token lives as long
    /// from its arrival, so the front expires first (YAPS keeps a heap
    /// ordered by expiry, ext/capabilityflow.cpp:17-20).
    tokens: VecDeque<Token>,
    /// Packets the destination still missed at its last token: the key the
    /// source orders its flows by (YAPS `remaining_pkts_at_sender`).
    remaining: u32,
    /// Packets sent at least once (for the retransmission count).
    sent: PacketSet,
    /// When to send the RTS again if nothing has come back.
    retry_at: Time,
}

/// Every flow this host sends, by id.
#[derive(Default)]
pub struct Sources {
    flows: BTreeMap<FlowId, Flow>,
    retransmits: u64,
}

impl Sources {
    /// Flow `info` arrives: its free tokens (§3: the first BDP goes out
    /// unscheduled), and the RTS to send.
    pub fn start(&mut self, now: Time, info: FlowInfo, cfg: &PhostConfig, mtu_time: Dur) -> Packet {
        let packets = info.packets() as u32;
        let bdp = info.bdp_packets();
        let allowance = if cfg.free_tokens == 0 { bdp } else { cfg.free_tokens };
        let free = match cfg.free_tokens_for {
            FreeTokensFor::All => allowance.min(packets),
            FreeTokensFor::Short if packets <= allowance => packets,
            FreeTokensFor::Short => 0,
        };
        // Free tokens live as long as it takes to send them all plus one
        // token's expiry (YAPS ext/capabilityflow.cpp:251).
        let expires = now + mtu_time.mul_f64(free as f64 + cfg.token_expiry);
        let tokens = (0..free).map(|i| Token { expires, seq: i, packet: i, free: true }).collect();
        let rts = PhostHeader { token: 0, packet: 0, count: packets, free, bdp };
        let flow = Flow { info, rts, tokens, remaining: packets, sent: PacketSet::new(packets), retry_at: now + retry(cfg, &info) };
        self.flows.insert(info.id, flow);
        control(info.id, PacketKind::Syn, false, now, rts)
    }

    /// A token for flow `f` arrived; it expires `ttl` from now.
    pub fn on_token(&mut self, now: Time, f: FlowId, h: PhostHeader, ttl: Dur, cfg: &PhostConfig) {
        let Some(flow) = self.flows.get_mut(&f) else { return };
        flow.tokens.push_back(Token { expires: now + ttl, seq: h.token, packet: h.packet, free: false });
        flow.remaining = h.count;
        flow.retry_at = now + retry(cfg, &flow.info);
    }

    /// The destination holds every packet of `f`: forget it. Returns
    /// whether the flow was still known (a repeated ACK is not).
    pub fn on_ack(&mut self, f: FlowId) -> bool {
        self.flows.remove(&f).is_some()
    }

    /// The next data packet, if a flow holds a live token at `now`: the one
    /// with the fewest remaining packets, ties to the earlier flow (YAPS
    /// `CapabilityFlowComparator`, ext/capabilityhost.cpp:48-63).
    pub fn next_data(&mut self, now: Time, cfg: &PhostConfig) -> Option<Packet> {
        let mut best: Option<(u32, FlowId)> = None;
        for (&id, flow) in self.flows.iter_mut() {
            while flow.tokens.front().is_some_and(|t| t.expires < now) {
                flow.tokens.pop_front();
            }
            if !flow.tokens.is_empty() && best.is_none_or(|(r, _)| flow.remaining < r) {
                best = Some((flow.remaining, id));
            }
        }
        let (_, id) = best?;
        let flow = self.flows.get_mut(&id).expect("chosen flow exists");
        let token = flow.tokens.pop_front().expect("chosen flow holds a token");
        let (mss, size) = (flow.info.mss as u64, flow.info.size.0);
        let seq = token.packet as u64 * mss;
        let payload = (size - seq).min(mss) as u32;
        let mut p = Packet::new(id, PacketKind::Data, false, now);
        p.seq = seq;
        p.payload = payload;
        p.wire = payload + HEADER_BYTES;
        p.prio = if token.free && cfg.unscheduled == Level::High { HIGH } else { LOW };
        p.retransmit = !flow.sent.insert(token.packet);
        p.sched = Sched::Phost(PhostHeader { token: token.seq, packet: token.packet, ..flow.rts });
        if p.retransmit {
            self.retransmits += 1;
        }
        Some(p)
    }

    /// Whether some flow holds a token still live at `at`.
    pub fn has_token_at(&self, at: Time) -> bool {
        self.flows.values().any(|f| f.tokens.back().is_some_and(|t| t.expires >= at))
    }

    /// RTS packets due again at `now` (see [`PhostConfig::rts_retry_rtts`]).
    pub fn retries(&mut self, now: Time, cfg: &PhostConfig, out: &mut VecDeque<Packet>) {
        for (&id, flow) in self.flows.iter_mut().filter(|(_, f)| f.retry_at <= now) {
            flow.retry_at = now + retry(cfg, &flow.info);
            out.push_back(control(id, PacketKind::Syn, false, now, flow.rts));
        }
    }

    /// The earliest RTS retry.
    pub fn next_retry(&self) -> Option<Time> {
        self.flows.values().map(|f| f.retry_at).min()
    }

    pub fn retransmits(&self) -> u64 {
        self.retransmits
    }
}

fn retry(cfg: &PhostConfig, info: &FlowInfo) -> Dur {
    info.base_rtt.mul_f64(cfg.rts_retry_rtts).max(Dur(1))
}
