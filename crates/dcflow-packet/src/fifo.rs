//! FIFO ports: a queued packet's place in the event order is fixed when it
//! is admitted, and where nothing else watches the port, its departure is
//! scheduled then too.
//!
//! A first-in-first-out port (drop-tail, or DCTCP's ECN marking) sends its
//! packets in the order it admitted them, each as soon as the one before it
//! is serialized, and nothing that arrives later changes that. So the moment
//! a packet is admitted, its start of serialization is known: the port's
//! `busy_until`. Where nothing looks at the port between admission and start
//! (see [`Sim::plan_fifo_ports`]), the engine serializes it at once, in
//! advance: its arrival at the far end is scheduled there and then, and the
//! port keeps only its start time, to know when it leaves the buffer. Such a
//! port costs no `TxDone` event per packet: on the leaf-spine TCP benchmark,
//! 31% of all events (BENCHMARKS.md, "FIFO ports").
//!
//! The two ways give the same run, byte for byte, because two rules hold at
//! every FIFO port that can schedule ahead, whether it does or not
//! (`tests/engine/fifo.rs` checks it, protocol by protocol):
//! - a packet's arrival at the far end takes its place among the events of
//!   its picosecond when the packet is admitted
//!   ([`dcflow_core::EventQueue::take_place`]), not when it starts;
//! - a packet that arrives at the picosecond the port starts the next one
//!   finds that one gone: the departure goes first.
//!
//! The queue still holds the packets waiting for their start, because its
//! discipline decides on what it holds (tail drop when the buffer is full, CE
//! marking above the threshold): before each admission, the packets whose
//! start has come are taken out ([`Fifo::settle`]).

use crate::sim::Sim;
use dcflow_core::{LinkId, Time};
use dcflow_net::PortQueue;
use std::collections::VecDeque;

/// How a port orders its queued packets' events.
pub enum Fifo {
    /// A queue that reorders, or a FIFO port that never schedules ahead
    /// ([`Sim::plan_fifo_ports`]): a packet's arrival is scheduled when it
    /// starts, at a `TxDone` event.
    No,
    /// A FIFO port that could schedule ahead but sends at `TxDone` events
    /// in this run: each queued packet's place in the event order, in
    /// queue order.
    Placed(VecDeque<u64>),
    /// A FIFO port whose departures are scheduled on admission: each
    /// queued packet's start of serialization, in queue order.
    Ahead(VecDeque<Time>),
}

impl Fifo {
    /// Take out of `queue` the packets whose serialization started by `now`
    /// (a port scheduling ahead; no-op otherwise).
    pub fn settle(&mut self, now: Time, queue: &mut PortQueue) {
        let Fifo::Ahead(starts) = self else { return };
        while starts.front().is_some_and(|&start| start <= now) {
            starts.pop_front();
            queue.dequeue();
        }
    }

    /// The place of the packet leaving the queue's head (a `Placed` port).
    pub fn next_place(&mut self) -> Option<u64> {
        match self {
            Fifo::Placed(places) => places.pop_front(),
            _ => None,
        }
    }

    /// The queue was emptied by a failure of the link (only in runs routed
    /// hop by hop, whose ports never schedule ahead).
    pub fn clear(&mut self) {
        debug_assert!(!matches!(self, Fifo::Ahead(_)), "a port scheduling ahead failed");
        if let Fifo::Placed(places) = self {
            places.clear();
        }
    }

    /// Packets scheduled ahead that had not started by `t`: (packets, bytes).
    fn unstarted(&self, t: Time, queue: &PortQueue) -> (u64, u64) {
        let Fifo::Ahead(starts) = self else { return (0, 0) };
        let entries = queue.fifo().into_iter().flatten();
        let waiting = starts.iter().zip(entries).filter(|&(&start, _)| start > t);
        waiting.fold((0, 0), |(n, bytes), (_, e)| (n + 1, bytes + e.wire as u64))
    }
}

impl Sim {
    /// Set each port's way (see the module doc). Called when the run starts
    /// (routing and the monitor are set up after [`Sim::new`]).
    ///
    /// A FIFO port whose switch agent or random loss looks at each packet
    /// as it leaves (the agent sees the queue and the bytes sent; the loss
    /// is drawn from one stream for all links) never schedules ahead, in
    /// any run of its scenario: it sends at `TxDone` events, in the order
    /// of the events they were scheduled in, as a port that reorders does.
    /// Any other FIFO port schedules ahead unless the run routes hop by
    /// hop (timed failures empty a port; CONGA measures what leaves) or is
    /// monitored (the monitor samples the queue and what a link carries);
    /// those two leave the run as it is, so there the port keeps the same
    /// two rules while sending at `TxDone` events.
    pub(crate) fn plan_fifo_ports(&mut self) {
        let anywhere = self.router.is_none() && self.monitor.is_none();
        for port in &mut self.ports {
            debug_assert!(port.queue.is_empty(), "ports are planned before the first packet");
            let fifo = port.queue.fifo().is_some() && !port.has_agent && port.loss == 0.0;
            port.fifo = match fifo {
                false => Fifo::No,
                true if anywhere => Fifo::Ahead(VecDeque::new()),
                true => Fifo::Placed(VecDeque::new()),
            };
        }
    }

    /// Packet `idx` enters FIFO port `link`, which schedules ahead: it is
    /// sent now if the port is idle, else admitted by the queue and sent
    /// when the packets ahead of it are.
    pub(crate) fn enqueue_ahead(&mut self, link: LinkId, idx: u32) {
        let now = self.now;
        let port = &mut self.ports[link as usize];
        port.fifo.settle(now, &mut port.queue);
        // A backlog means a packet in service: busy_until is past now.
        let start = port.busy_until;
        if start > now {
            if !self.admit(link, idx) {
                return;
            }
            if let Fifo::Ahead(starts) = &mut self.ports[link as usize].fifo {
                starts.push_back(start);
            }
        }
        self.transmit_at(link, idx, start.max(now), None);
    }

    /// A packet arrives at FIFO port `link` now, which sends at `TxDone`
    /// events: a departure due now goes first, as at a port scheduling ahead.
    pub(crate) fn depart_first(&mut self, link: LinkId) {
        let port = &self.ports[link as usize];
        if port.tx_scheduled && port.busy_until <= self.now {
            self.tx_done(link);
        }
    }

    /// Bytes sent on `link` by time `t`: the port's count less the packets
    /// scheduled ahead that had not started by then.
    pub(crate) fn tx_bytes_by(&self, link: LinkId, t: Time) -> u64 {
        let port = &self.ports[link as usize];
        port.tx_bytes - port.fifo.unstarted(t, &port.queue).1
    }

    /// Packet hops counted by time `t` (`None`: all, every packet scheduled
    /// ahead included), for a run cut short of its last departures.
    pub(crate) fn packet_hops_by(&self, t: Option<Time>) -> u64 {
        let Some(t) = t else { return self.counters.packet_hops };
        let unstarted: u64 = self.ports.iter().map(|p| p.fifo.unstarted(t, &p.queue).0).sum();
        self.counters.packet_hops - unstarted
    }
}
