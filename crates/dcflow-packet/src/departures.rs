//! How a port schedules its queued packets' departures without a `TxDone`
//! event per packet, where it can: a FIFO port at admission, a port that
//! reorders lazily, each giving the run that `TxDone` events give.
//!
//! FIFO ports: a queued packet's place in the event order is fixed when it
//! is admitted, and where nothing else watches the port, its departure is
//! scheduled then too.
//!
//! A first-in-first-out port (drop-tail, or DCTCP's ECN marking) sends its
//! packets in the order it admitted them, each as soon as the one before it
//! is serialized, and nothing that arrives later changes that. So the moment
//! a packet is admitted, its start of serialization is known: the port's
//! `busy_until`. Where nothing looks at the port between admission and start
//! (see [`Sim::plan_departures`]), the engine serializes it at once, in
//! advance: its arrival at the far end is scheduled there and then, and the
//! port keeps only its start time, to know when it leaves the buffer. Such a
//! port costs no `TxDone` event per packet: on the leaf-spine TCP benchmark,
//! 31% of all events (BENCHMARKS.md, "FIFO ports").
//!
//! The two ways give the same run, byte for byte, because two rules hold at
//! every FIFO port that can schedule ahead, whether it does or not
//! (`tests/engine/departures.rs` checks it, protocol by protocol):
//! - a packet's arrival at the far end takes its place among the events of
//!   its picosecond when the packet is admitted
//!   ([`dcflow_core::EventQueue::take_place`]), not when it starts;
//! - a packet that arrives at the picosecond the port starts the next one
//!   finds that one gone: the departure goes first.
//!
//! The queue still holds the packets waiting for their start, because its
//! discipline decides on what it holds (tail drop when the buffer is full, CE
//! marking above the threshold): before each admission, the packets whose
//! start has come are taken out ([`Departures::settle`]).
//!
//! A port that reorders (pFabric's, strict priority) cannot know its next
//! packet before the current one ends: a better one may arrive meanwhile.
//! Without an agent or loss (and in most runs: [`Sim::plan_departures`]),
//! it needs no `TxDone` event either ([`Departures::Chained`]). Nothing but
//! a packet reaching the port can change its decision, and the packet it
//! is sending reaches the far end `delay` after it ends, before the next
//! departure's arrival can be due. So the port decides when the first of
//! those two events comes, every departure that fell due by then
//! ([`Sim::catch_up`]), each as of the time it fell due. Two rules make
//! that the run a `TxDone` event per departure gives (monitored runs send
//! so): a packet reaching the port at the picosecond a departure falls due
//! finds it decided, and a decided departure's arrival takes the place in
//! the event order of the arrival before it from the same port, a chain
//! that starts at a packet sent at once (the place of a `TxDone` event
//! depends on when it was scheduled; the chain does not). On the pFabric
//! leaf-spine benchmark the `TxDone` events were 37% of all events
//! (BENCHMARKS.md, "Reordering ports decide lazily").

use crate::sim::{Event, Sim};
use dcflow_core::{EventQueue, LinkId, Time};
use dcflow_net::PortQueue;
use std::collections::VecDeque;

/// How a port schedules its queued packets' departures and orders their events.
pub enum Departures {
    /// A port whose switch agent or random loss acts on each packet as it
    /// leaves ([`Sim::plan_departures`]): a queued packet's arrival is
    /// scheduled when it starts, at a `TxDone` event, in the order of the
    /// events they were scheduled in.
    No,
    /// A FIFO port that could schedule ahead but sends at `TxDone` events
    /// in this run: each queued packet's place in the event order, in
    /// queue order.
    Placed(VecDeque<u64>),
    /// A FIFO port whose departures are scheduled on admission: each
    /// queued packet's start of serialization, in queue order.
    Ahead(VecDeque<Time>),
    /// A port that reorders, with no agent and no loss: `last` is the place
    /// in the event order of the arrival of its last departure, which the
    /// next decided one takes again. `lazy`: it decides when a packet next
    /// reaches it or the far end (no `TxDone` events); else at `TxDone`
    /// events (a monitored run, or one with timed failures or CONGA).
    Chained { last: u64, lazy: bool },
}

impl Departures {
    /// Take out of `queue` the packets whose serialization started by `now`
    /// (a port scheduling ahead; no-op otherwise).
    pub fn settle(&mut self, now: Time, queue: &mut PortQueue) {
        let Departures::Ahead(starts) = self else { return };
        while starts.front().is_some_and(|&start| start <= now) {
            starts.pop_front();
            queue.dequeue();
        }
    }

    /// The place of the packet leaving the queue (a `Placed` port: its
    /// head's; a `Chained` port: the last departure's).
    pub fn next_place(&mut self) -> Option<u64> {
        match self {
            Departures::Placed(places) => places.pop_front(),
            Departures::Chained { last, .. } => Some(*last),
            _ => None,
        }
    }

    /// The place of the arrival of a packet an idle port sends at once: a
    /// fresh one, which a `Chained` port keeps for the departures after it.
    pub fn chain_from(&mut self, events: &mut EventQueue<Event>) -> Option<u64> {
        let Departures::Chained { last, .. } = self else { return None };
        *last = events.take_place();
        Some(*last)
    }

    /// The queue was emptied by a failure of the link (only in runs with
    /// timed failures, whose ports neither schedule ahead nor decide lazily).
    pub fn clear(&mut self) {
        debug_assert!(
            !matches!(self, Departures::Ahead(_) | Departures::Chained { lazy: true, .. }),
            "a port planned for a run without failures failed"
        );
        if let Departures::Placed(places) = self {
            places.clear();
        }
    }

    /// Packets scheduled ahead that had not started by `t`: (packets, bytes).
    fn unstarted(&self, t: Time, queue: &PortQueue) -> (u64, u64) {
        let Departures::Ahead(starts) = self else { return (0, 0) };
        let entries = queue.fifo().into_iter().flatten();
        let waiting = starts.iter().zip(entries).filter(|&(&start, _)| start > t);
        waiting.fold((0, 0), |(n, bytes), (_, e)| (n + 1, bytes + e.wire as u64))
    }
}

impl Sim {
    /// Set each port's way (see the module doc). Called when the run starts
    /// (routing and the monitor are set up after [`Sim::new`]).
    ///
    /// A port whose switch agent or random loss looks at each packet as it
    /// leaves (the agent sees the queue and the bytes sent; the loss is
    /// drawn from one stream for all links) keeps its `TxDone` events, in
    /// any run of its scenario, in the order they were scheduled in. Any
    /// other port schedules ahead (FIFO) or decides lazily (a port that
    /// reorders) unless the run is monitored (the monitor samples the queue
    /// and what a link carries) or routes hop by hop: a FIFO port then,
    /// a port that reorders only with timed failures (they empty a port) or
    /// CONGA (it measures each departure as it happens; spraying and
    /// flowlets choose at arrivals). Those leave the run as it is, so there
    /// the port keeps the same rules while sending at `TxDone` events.
    pub(crate) fn plan_departures(&mut self) {
        let anywhere = self.router.is_none() && self.monitor.is_none();
        let lazy = self.monitor.is_none()
            && self.changes.is_empty()
            && self.router.as_ref().is_none_or(|r| !r.measures_departures());
        for port in &mut self.ports {
            debug_assert!(port.queue.is_empty(), "ports are planned before the first packet");
            let plain = !port.has_agent && port.loss == 0.0;
            port.departures = match (plain, port.queue.fifo().is_some()) {
                (false, _) => Departures::No,
                (true, true) if anywhere => Departures::Ahead(VecDeque::new()),
                (true, true) => Departures::Placed(VecDeque::new()),
                (true, false) => Departures::Chained { last: 0, lazy },
            };
        }
        self.lazy_ports = self.ports.iter().any(|p| matches!(p.departures, Departures::Chained { lazy: true, .. }));
    }

    /// Make the departures of `link` that fell due by `t`, each as of the
    /// time it fell due, if the port decides lazily (no-op otherwise). Each
    /// one's arrival is due after now: the port is caught up at the latest
    /// when the packet before it reaches the far end.
    #[inline]
    pub(crate) fn catch_up(&mut self, link: LinkId, t: Time) {
        // Most calls find nothing due: a port with an empty queue, or busy.
        let port = &self.ports[link as usize];
        if port.busy_until <= t && !port.queue.is_empty() && matches!(port.departures, Departures::Chained { lazy: true, .. }) {
            self.decide_due(link, t);
        }
    }

    /// The decisions of [`Sim::catch_up`], out of line: it is inlined into
    /// every arrival, and most calls find none due.
    #[inline(never)]
    fn decide_due(&mut self, link: LinkId, t: Time) {
        loop {
            let start = self.ports[link as usize].busy_until;
            if start > t || !self.send_next(link, start) {
                return;
            }
        }
    }

    /// Where the run stops handling events (`Sim::run`, `Sim::drain`):
    /// every port deciding lazily makes the departures due by `t`, so that
    /// hops and bytes sent count them.
    pub(crate) fn catch_up_all(&mut self, t: Time) {
        if self.lazy_ports {
            for link in 0..self.ports.len() {
                self.catch_up(link as LinkId, t);
            }
        }
    }

    /// Packet `idx` enters FIFO port `link`, which schedules ahead: it is
    /// sent now if the port is idle, else admitted by the queue and sent
    /// when the packets ahead of it are.
    pub(crate) fn enqueue_ahead(&mut self, link: LinkId, idx: u32) {
        let now = self.now;
        let port = &mut self.ports[link as usize];
        port.departures.settle(now, &mut port.queue);
        // A backlog means a packet in service: busy_until is past now.
        let start = port.busy_until;
        if start > now {
            if !self.admit(link, idx) {
                return;
            }
            if let Departures::Ahead(starts) = &mut self.ports[link as usize].departures {
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
        port.tx_bytes - port.departures.unstarted(t, &port.queue).1
    }

    /// Packet hops counted by time `t` (`None`: all, every packet scheduled
    /// ahead included), for a run cut short of its last departures.
    pub(crate) fn packet_hops_by(&self, t: Option<Time>) -> u64 {
        let Some(t) = t else { return self.counters.packet_hops };
        let unstarted: u64 = self.ports.iter().map(|p| p.departures.unstarted(t, &p.queue).0).sum();
        self.counters.packet_hops - unstarted
    }
}
