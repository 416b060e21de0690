//! Two-endpoint harness (docs/architecture.md, Testing, place 2): any sender [`Endpoint`]
//! and the shared [`Receiver`] over one bottleneck, driven by a tiny
//! deterministic discrete-event loop exactly as an engine would drive them.
//!
//! Topology: sender -> [drop-tail buffer, optional ECN marking] -> forward link
//! (rate, propagation delay) -> receiver; receiver -> reverse link (rate, delay,
//! unbounded FIFO) -> sender. Every packet a sender emits enters the forward
//! queue at once (the bottleneck is the sender's own link).
//!
//! Driving rule: after every `handle_*` call on an endpoint, drain
//! `poll_transmit` into its link queue, drain `poll_event`, and (re-)arm its
//! timer at `poll_timeout` with lazy cancellation by generation number.
#![allow(dead_code)]

use dcflow_core::{Bytes, Dur, EventQueue, FlowId, Rate, Time};
use dcflow_proto::{Endpoint, FlowEvent, FlowInfo, Packet, PacketKind, Receiver, HEADER_BYTES};
use std::collections::{BTreeSet, VecDeque};

/// Deterministic losses on the forward link (data packets only).
#[derive(Clone, Debug, Default, PartialEq)]
pub struct Loss {
    /// Drop the first transmission of the data packet starting at each of these
    /// sequence numbers (retransmissions pass).
    pub data_seqs_once: Vec<u64>,
    /// Drop every Nth data packet entering the forward queue (N, 2N, ...).
    pub every_nth_data: Option<u64>,
}

#[derive(Clone, Debug, PartialEq)]
pub struct LinkSetup {
    /// Forward (bottleneck) link rate.
    pub rate: Rate,
    /// One-way propagation delay, each direction.
    pub delay: Dur,
    /// Forward drop-tail buffer (bytes queued, including the packet on the wire).
    pub buffer: Bytes,
    /// Mark CE on a packet arriving to a forward queue holding more than K bytes.
    pub ecn_k: Option<Bytes>,
    /// Reverse link rate (ACKs).
    pub reverse_rate: Rate,
    pub loss: Loss,
    /// Give up at this simulated time.
    pub stop: Time,
}

impl LinkSetup {
    /// `rate` both ways, `rtt / 2` each way, a `buffer`, no ECN, no loss, 10 s limit.
    pub fn new(rate: Rate, rtt: Dur, buffer: Bytes) -> LinkSetup {
        LinkSetup {
            rate,
            delay: Dur(rtt.0 / 2),
            buffer,
            ecn_k: None,
            reverse_rate: rate,
            loss: Loss::default(),
            stop: Time::ZERO + Dur::secs(10),
        }
    }
}

/// What happened in one run.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct Outcome {
    /// When the receiver reported `Delivered`.
    pub delivered: Option<Time>,
    /// When the sender reported `Closed`.
    pub closed: Option<Time>,
    pub terminated: Option<Time>,
    /// Bytes the receiver holds in order at the end.
    pub bytes_delivered: u64,
    /// Packets the sender emitted (all kinds) / data packets / data payload bytes.
    pub sent: u64,
    pub data_sent: u64,
    pub payload_sent: u64,
    /// Forward packets dropped by the buffer / by the loss rules.
    pub dropped_buffer: u64,
    pub dropped_loss: u64,
    pub ecn_marked: u64,
    pub acks: u64,
    /// Largest forward queue seen (bytes, including the packet on the wire).
    pub max_queue: u64,
    /// Forward queue occupancy after every enqueue: (time, bytes).
    pub queue_samples: Vec<(Time, u64)>,
    /// Sender timer events that fired (including stale ones ignored by the harness).
    pub timer_calls: u64,
    pub events: u64,
    /// Time of the last event processed.
    pub end: Time,
}

impl Outcome {
    /// Largest and mean queue (over enqueue samples) with sample time in `[from, to)`.
    pub fn queue_stats(&self, from: Time, to: Time) -> (u64, f64) {
        let v: Vec<u64> = self.queue_samples.iter().filter(|(t, _)| *t >= from && *t < to).map(|s| s.1).collect();
        let max = v.iter().copied().max().unwrap_or(0);
        let mean = if v.is_empty() { 0.0 } else { v.iter().sum::<u64>() as f64 / v.len() as f64 };
        (max, mean)
    }
}

#[derive(Clone, Copy, Debug)]
enum Ev {
    SenderTimer(u64),
    ReceiverTimer(u64),
    /// The forward link finished serialising its head packet.
    FwdDone,
    RevDone,
    ArriveRx(usize),
    ArriveTx(usize),
}

struct Link {
    rate: Rate,
    delay: Dur,
    queue: VecDeque<usize>,
    bytes: u64,
    busy: bool,
}

impl Link {
    fn new(rate: Rate, delay: Dur) -> Link {
        Link { rate, delay, queue: VecDeque::new(), bytes: 0, busy: false }
    }
}

struct Timer {
    at: Option<Time>,
    generation: u64,
}

/// A standard flow description for tests: `size` bytes, MTU 1500.
pub fn flow(size: Bytes, rate: Rate, rtt: Dur) -> FlowInfo {
    let mss = 1500 - HEADER_BYTES;
    FlowInfo {
        id: 0 as FlowId,
        size,
        start: Time::ZERO,
        deadline: None,
        size_known: false,
        mss,
        line_rate: rate,
        // Unloaded RTT including one MTU's serialisation.
        base_rtt: rtt + rate.tx_time(Bytes(1500)),
        agent_hops: 1,
        dst: 0,
    }
}

struct Sim<'a, E: Endpoint> {
    q: EventQueue<Ev>,
    arena: Vec<Packet>,
    sender: &'a mut E,
    receiver: Receiver,
    fwd: Link,
    rev: Link,
    stimer: Timer,
    rtimer: Timer,
    setup: &'a LinkSetup,
    dropped_once: BTreeSet<u64>,
    data_seen: u64,
    out: Outcome,
}

impl<'a, E: Endpoint> Sim<'a, E> {
    fn pkt(&mut self, p: Packet) -> usize {
        self.arena.push(p);
        self.arena.len() - 1
    }

    fn enqueue_fwd(&mut self, now: Time, mut p: Packet) {
        self.out.sent += 1;
        if p.kind == PacketKind::Data {
            self.out.data_sent += 1;
            self.out.payload_sent += p.payload as u64;
            self.data_seen += 1;
            let nth = self.setup.loss.every_nth_data.is_some_and(|n| self.data_seen.checked_rem(n) == Some(0));
            let once =
                !p.retransmit && self.setup.loss.data_seqs_once.contains(&p.seq) && self.dropped_once.insert(p.seq);
            if nth || once {
                self.out.dropped_loss += 1;
                return;
            }
        }
        if self.fwd.bytes + p.wire as u64 > self.setup.buffer.0 {
            self.out.dropped_buffer += 1;
            return;
        }
        if let Some(k) = self.setup.ecn_k {
            if self.fwd.bytes > k.0 {
                p.ecn_ce = true;
                self.out.ecn_marked += 1;
            }
        }
        self.fwd.bytes += p.wire as u64;
        self.out.max_queue = self.out.max_queue.max(self.fwd.bytes);
        self.out.queue_samples.push((now, self.fwd.bytes));
        let i = self.pkt(p);
        self.fwd.queue.push_back(i);
        if !self.fwd.busy {
            self.fwd.busy = true;
            self.q.push(now + self.fwd.rate.tx_time(Bytes(p.wire as u64)), Ev::FwdDone);
        }
    }

    fn enqueue_rev(&mut self, now: Time, p: Packet) {
        let i = self.pkt(p);
        self.rev.bytes += p.wire as u64;
        self.rev.queue.push_back(i);
        if !self.rev.busy {
            self.rev.busy = true;
            self.q.push(now + self.rev.rate.tx_time(Bytes(p.wire as u64)), Ev::RevDone);
        }
    }

    /// The engine's drive step for the sender.
    fn drive_sender(&mut self, now: Time) {
        while let Some(p) = self.sender.poll_transmit(now) {
            self.enqueue_fwd(now, p);
        }
        while let Some(e) = self.sender.poll_event() {
            match e {
                FlowEvent::Closed => self.out.closed = self.out.closed.or(Some(now)),
                FlowEvent::Terminated => self.out.terminated = self.out.terminated.or(Some(now)),
                FlowEvent::Delivered => {}
            }
        }
        let t = self.sender.poll_timeout();
        if t != self.stimer.at {
            self.stimer.at = t;
            self.stimer.generation += 1;
            if let Some(t) = t {
                self.q.push(t.max(now), Ev::SenderTimer(self.stimer.generation));
            }
        }
    }

    fn drive_receiver(&mut self, now: Time) {
        while let Some(p) = self.receiver.poll_transmit(now) {
            self.enqueue_rev(now, p);
        }
        while let Some(e) = self.receiver.poll_event() {
            if e == FlowEvent::Delivered {
                self.out.delivered = self.out.delivered.or(Some(now));
            }
        }
        let t = self.receiver.poll_timeout();
        if t != self.rtimer.at {
            self.rtimer.at = t;
            self.rtimer.generation += 1;
            if let Some(t) = t {
                self.q.push(t.max(now), Ev::ReceiverTimer(self.rtimer.generation));
            }
        }
    }

    fn step(&mut self, now: Time, ev: Ev) {
        match ev {
            Ev::SenderTimer(g) => {
                if g == self.stimer.generation {
                    self.out.timer_calls += 1;
                    self.stimer.at = None;
                    self.sender.handle_timeout(now);
                    self.drive_sender(now);
                }
            }
            Ev::ReceiverTimer(g) => {
                if g == self.rtimer.generation {
                    self.rtimer.at = None;
                    self.receiver.handle_timeout(now);
                    self.drive_receiver(now);
                }
            }
            Ev::FwdDone => {
                let i = self.fwd.queue.pop_front().expect("forward link busy with an empty queue");
                self.fwd.bytes -= self.arena[i].wire as u64;
                self.q.push(now + self.fwd.delay, Ev::ArriveRx(i));
                if let Some(&j) = self.fwd.queue.front() {
                    self.q.push(now + self.fwd.rate.tx_time(Bytes(self.arena[j].wire as u64)), Ev::FwdDone);
                } else {
                    self.fwd.busy = false;
                }
            }
            Ev::RevDone => {
                let i = self.rev.queue.pop_front().expect("reverse link busy with an empty queue");
                self.rev.bytes -= self.arena[i].wire as u64;
                self.q.push(now + self.rev.delay, Ev::ArriveTx(i));
                if let Some(&j) = self.rev.queue.front() {
                    self.q.push(now + self.rev.rate.tx_time(Bytes(self.arena[j].wire as u64)), Ev::RevDone);
                } else {
                    self.rev.busy = false;
                }
            }
            Ev::ArriveRx(i) => {
                let p = self.arena[i];
                self.receiver.handle_packet(now, &p);
                self.drive_receiver(now);
            }
            Ev::ArriveTx(i) => {
                let p = self.arena[i];
                if p.kind == PacketKind::Ack {
                    self.out.acks += 1;
                }
                self.sender.handle_packet(now, &p);
                self.drive_sender(now);
            }
        }
    }
}

/// Run `sender` (for the flow `info`) against a fresh [`Receiver`] over the
/// link `setup` until the sender closes and the network drains, the event
/// queue empties, or `setup.stop`.
pub fn run<E: Endpoint>(info: FlowInfo, sender: &mut E, setup: &LinkSetup) -> Outcome {
    let mut sim = Sim {
        q: EventQueue::new(),
        arena: Vec::new(),
        sender,
        receiver: Receiver::new(info),
        fwd: Link::new(setup.rate, setup.delay),
        rev: Link::new(setup.reverse_rate, setup.delay),
        stimer: Timer { at: None, generation: 0 },
        rtimer: Timer { at: None, generation: 0 },
        setup,
        dropped_once: BTreeSet::new(),
        data_seen: 0,
        out: Outcome::default(),
    };
    // The engine creates the endpoint and drives it once at the flow's start.
    sim.q.push(info.start, Ev::SenderTimer(0));
    while let Some((now, ev)) = sim.q.pop() {
        if now > setup.stop {
            break;
        }
        sim.out.end = now;
        sim.step(now, ev);
        if sim.out.closed.is_some() && sim.out.delivered.is_some() && !sim.fwd.busy && !sim.rev.busy {
            break;
        }
    }
    sim.out.events = sim.q.popped();
    sim.out.bytes_delivered = sim.receiver.cumulative();
    sim.out
}
