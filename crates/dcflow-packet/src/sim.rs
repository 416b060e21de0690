//! The packet-level discrete-event loop (docs/architecture.md rule 2).
//!
//! The engine owns time. It moves packets hop by hop over directed links with
//! store-and-forward switches: a packet entering an output port first passes
//! the port's switch agent (which may rewrite its scheduling header), then the
//! port's queue (which may drop or ECN-mark it); a busy port serializes one
//! packet at a time at its link rate; a serialized packet arrives at the next
//! node after the link's propagation delay plus that node's processing delay.
//! Endpoints are driven through their sans-IO interface only.

use crate::arena::PacketArena;
use crate::departures::Departures;
use crate::flows::FlowState;
use crate::paths::PathTable;
use dcflow_core::cache::prefetch;
use dcflow_core::interrupt::{Poll, Progress};
use dcflow_core::{Bytes, Dur, EventQueue, FlowId, LinkId, RngStream, Time};
use dcflow_net::{PortQueue, QEntry, Topology, Verdict};
use dcflow_proto::{Endpoint, Packet, PortAgent, PortView, ProtocolConfig};
use dcflow_scenario::{Monitor, RunEnd, RunStatus};
use rand::RngExt;

/// No link: see [`Event::Arrive`].
const NO_LINK: LinkId = LinkId::MAX;

/// Everything that can happen; small and `Copy` (docs/architecture.md rule 2).
#[derive(Clone, Copy, Debug)]
pub enum Event {
    FlowStart(FlowId),
    /// The port of this link finished serializing and has a backlog to serve.
    TxDone(LinkId),
    /// Packet `pkt` reached the far end of link `from`, the link it was
    /// last sent on; with fixed paths, `next` is the link it leaves by from
    /// there (read from its path when it was sent, so that the port can be
    /// loaded ahead of the arrival), `NO_LINK` when it is delivered there
    /// or routed hop by hop.
    Arrive { pkt: u32, from: LinkId, next: LinkId },
    /// A flow's sender timer.
    SenderTimer(FlowId),
    /// A host agent's timer (host-scheduled protocols, `hosts.rs`).
    HostTimer(dcflow_core::NodeId),
    /// Take a monitor sample.
    Sample,
    /// Timed fault `i` (`Sim::changes`): links go down or up.
    LinkChange(u32),
    /// Routing converges on the links that are down now.
    Converge,
}

pub struct Port {
    pub queue: PortQueue,
    /// Boxed: a switch agent is hundreds of bytes, and inline it spread
    /// the fields every hop reads over more cache lines (most ports run
    /// none: `has_agent`).
    pub agent: Box<PortAgent>,
    /// The agent does something (is not plain forwarding).
    pub(crate) has_agent: bool,
    /// How the port schedules its queued packets' departures (`departures.rs`).
    pub departures: Departures,
    /// The port is serializing until this time.
    pub busy_until: Time,
    /// A `TxDone` event is pending (always while the queue is not empty,
    /// but at a FIFO port scheduling ahead or a port deciding lazily,
    /// which have none).
    pub tx_scheduled: bool,
    /// Bytes whose serialization has started.
    pub tx_bytes: u64,
    /// Serialization cost per byte when the link rate makes it exact.
    ps_per_byte: Option<u64>,
    /// Propagation + processing delay to the next port, for packets the far
    /// node forwards, and propagation only, for packets it consumes.
    delay_forwarded: Dur,
    delay_delivered: Dur,
    /// Drop probability of the link (faults.loss), 0 for most links.
    pub loss: f64,
    /// The packet being serialized, if it is a flow's data on its last link:
    /// (flow, payload, wire bytes), for the monitor's exact flow samples
    /// (kept only in monitored runs).
    pub last_hop_data: Option<(FlowId, u32, u32)>,
    /// The node the link leads to (kept here: the port is in cache when a
    /// packet leaves, the topology's link table may not be).
    pub(crate) to: dcflow_core::NodeId,
    /// The link is up (`[[faults.events]]` take it down and up).
    pub up: bool,
    /// Times the link went down: a packet sent in an earlier epoch is lost.
    pub epoch: u32,
    /// Packets dropped at this port or on this link, any cause.
    pub drops: u64,
    /// Flows moved off this link by a routing change.
    pub reroutes: u64,
}

#[derive(Default)]
pub struct Counters {
    pub packets_sent: u64,
    pub packets_dropped: u64,
    pub packet_hops: u64,
    /// Packets lost to a failed link: queued on it, sent into it, in
    /// flight on it when it failed, or with no route left.
    pub dropped_by_failure: u64,
    /// Flows moved to another path by a routing change.
    pub reroutes: u64,
    /// Retransmissions and timeouts of the senders released so far
    /// (`endpoints.rs`); the live senders count their own.
    pub released_retransmits: u64,
    pub released_timeouts: u64,
}

pub struct Sim {
    pub now: Time,
    pub events: EventQueue<Event>,
    pub packets: PacketArena,
    /// Every flow path, interned (`paths.rs`): packets are forwarded by it.
    pub paths: PathTable,
    pub topo: Topology,
    pub(crate) protocol: ProtocolConfig,
    pub ports: Vec<Port>,
    pub flows: Vec<FlowState>,
    pub counters: Counters,
    pub monitor: Option<Monitor>,
    loss_rng: RngStream,
    /// Flows without an outcome yet.
    pub open_flows: usize,
    /// Flows started so far (they start in id order).
    pub(crate) started: usize,
    /// The stall guard ([`Sim::run`]): the run stalls at `stall_at` unless
    /// something progresses first; `Time::MAX` while no flow is running.
    stall: Dur,
    stall_at: Time,
    /// Some port's agent acts on reverse packets (PDQ): only then does every
    /// ACK also visit the port its flow's data leaves by.
    pub(crate) reverse_agents: bool,
    /// Some port's agent acts on departing packets (MERP's RateAdj).
    departure_agents: bool,
    /// Some port decides its departures lazily (`departures.rs`, `Departures::Chained`).
    pub(crate) lazy_ports: bool,
    /// Hop-by-hop routing (adaptive policy or timed failures); `None`: every
    /// packet follows its flow's path fixed at set-up.
    pub router: Option<crate::router::Router>,
    /// The timed faults, in time order (`Event::LinkChange` indexes them).
    pub changes: Vec<dcflow_scenario::LinkChange>,
    /// `faults.convergence`.
    pub convergence: Dur,
    /// Keep every flow's endpoints to the end (the monitor samples flows);
    /// otherwise a quiet flow's are released (`endpoints.rs`).
    pub keep_endpoints: bool,
    /// Host-scheduled protocols: each host's agent and its armed timer
    /// (`hosts.rs`); empty for per-flow protocols.
    pub hosts: crate::hosts::Hosts,
    /// The flow whose sender or receiver the engine is draining (`endpoints.rs`).
    pub(crate) driving: Option<FlowId>,
}

impl Sim {
    pub fn new(topo: Topology, protocol: &ProtocolConfig, flows: Vec<FlowState>, paths: PathTable, seed: u64) -> Sim {
        let ports: Vec<Port> = (0..topo.links.len())
            .map(|l| {
                let link = &topo.links[l];
                let agent = protocol.port_agent(l as LinkId, link.rate);
                Port {
                    queue: topo.port_queue(l as LinkId),
                    has_agent: !matches!(agent, PortAgent::Forward),
                    agent: Box::new(agent),
                    departures: Departures::No,
                    busy_until: Time::ZERO,
                    tx_scheduled: false,
                    tx_bytes: 0,
                    ps_per_byte: link.rate.ps_per_byte_exact(),
                    delay_forwarded: link.prop_delay + topo.proc_delay_at(link.to),
                    delay_delivered: link.prop_delay,
                    loss: 0.0,
                    last_hop_data: None,
                    to: link.to,
                    up: true,
                    epoch: 0,
                    drops: 0,
                    reroutes: 0,
                }
            })
            .collect();
        let mut events = EventQueue::with_capacity(4096);
        if let Some(first) = flows.first() {
            events.push(first.spec.start, Event::FlowStart(first.spec.id));
        }
        let hosts = crate::hosts::Hosts::new(protocol, &topo);
        Sim {
            now: Time::ZERO,
            events,
            packets: PacketArena::default(),
            paths,
            reverse_agents: ports.iter().any(|p: &Port| p.agent.wants_reverse()),
            departure_agents: ports.iter().any(|p: &Port| p.agent.wants_departure()),
            lazy_ports: false,
            ports,
            open_flows: flows.len(),
            started: 0,
            stall: Dur::ZERO,
            stall_at: Time::MAX,
            flows,
            topo,
            protocol: protocol.clone(),
            counters: Counters::default(),
            monitor: None,
            loss_rng: dcflow_core::stream(seed, dcflow_core::rng::component::LOSS),
            router: None,
            changes: Vec::new(),
            convergence: Dur::ZERO,
            keep_endpoints: false,
            hosts,
            driving: None,
        }
    }

    /// Make the directed `link` drop packets with probability `p`.
    pub fn set_loss(&mut self, link: LinkId, p: f64) {
        self.ports[link as usize].loss = p;
    }

    /// Run until every flow has its outcome, simulated time passes `stop`,
    /// or the run stalls: flows are running but none delivers a byte in
    /// order or changes state (starts, finishes, terminates) for `stall`.
    /// The guard costs one comparison per event: progress moves `stall_at`.
    /// The ports are left as the run's end finds them: those deciding
    /// lazily have made every departure due by then.
    pub fn run(&mut self, stop: Option<Time>, stall: Dur) -> RunEnd {
        self.stall = stall;
        self.plan_departures();
        let end = self.run_events(stop);
        self.catch_up_all(end.at);
        end
    }

    fn run_events(&mut self, stop: Option<Time>) -> RunEnd {
        let mut poll = Poll::default();
        while self.open_flows > 0 {
            let total = self.flows.len();
            if poll.interrupted(|| Progress::of(self.now, total - self.open_flows, total)) {
                return RunEnd { status: RunStatus::Interrupted, at: self.now };
            }
            // The next bucket's packets, ports and flows start loading
            // while this bucket's events run: their first touches are the
            // engine's costliest cache misses.
            let (packets, ports, flows, router) = (&self.packets, &self.ports, &self.flows, &self.router);
            let popped = self.events.pop_looking_ahead(|ev| match *ev {
                Event::Arrive { pkt, next, .. } => {
                    prefetch(packets.get(pkt));
                    // `NO_LINK` is past every port: one bounds check covers both.
                    if let Some(port) = ports.get(next as usize) {
                        prefetch(port);
                    }
                    if let Some(r) = router {
                        r.prefetch_slot(pkt);
                    }
                }
                Event::TxDone(l) => prefetch(&ports[l as usize]),
                Event::SenderTimer(f) => prefetch(&flows[f as usize]),
                _ => {}
            });
            let Some((t, ev)) = popped else {
                // Nothing left that could progress: the guard would fire at
                // `stall_at` (a flow is running: pending starts are events).
                return RunEnd { status: RunStatus::Stalled, at: self.stall_at };
            };
            if let Some(stop) = stop.filter(|&s| t > s) {
                return RunEnd { status: RunStatus::Stopped, at: stop };
            }
            if t > self.stall_at {
                return RunEnd { status: RunStatus::Stalled, at: self.stall_at };
            }
            self.step(t, ev);
        }
        RunEnd { status: RunStatus::Completed, at: self.now }
    }

    /// After a completed run: the events left (FIN exchanges, stale timers)
    /// up to `stop`, so that the switches' soft state sees every flow leave.
    /// Host agents' timers are not run: those agents keep no state in the
    /// switches, and a source may keep retrying a flow whose outcome is
    /// settled (e.g. one terminated for want of a path). Cut short at
    /// `stop`, ports deciding lazily make the departures due by then, as
    /// at the end of [`Sim::run`] (without a stop, the drain runs until no
    /// event is left, and each departure's arrival has asked for the next).
    pub fn drain(&mut self, stop: Option<Time>) {
        while let Some((t, ev)) = self.events.pop() {
            if stop.is_some_and(|s| t > s) {
                break;
            }
            if !matches!(ev, Event::HostTimer(_)) {
                self.step(t, ev);
            }
        }
        if let Some(stop) = stop {
            self.catch_up_all(stop);
        }
    }

    #[inline(always)]
    fn step(&mut self, t: Time, ev: Event) {
        self.now = t;
        match ev {
            Event::FlowStart(f) => self.start_flow(f),
            Event::TxDone(l) => self.tx_done(l),
            Event::Arrive { pkt, from, next } => self.arrive(pkt, from, next),
            Event::SenderTimer(f) => self.sender_timer(f),
            Event::HostTimer(n) => self.host_timer(n),
            Event::Sample => self.sample(),
            Event::LinkChange(i) => self.link_change(i),
            Event::Converge => self.converge(),
        }
    }

    /// Something progressed now: re-arm the stall guard while flows run.
    #[inline]
    pub(crate) fn progress(&mut self) {
        let outcomes = self.flows.len() - self.open_flows;
        self.stall_at = if self.started > outcomes { self.now + self.stall } else { Time::MAX };
    }

    /// An endpoint hands a packet to its host's NIC: the first link of its path.
    pub(crate) fn inject(&mut self, mut pkt: Packet) {
        self.counters.packets_sent += 1;
        pkt.hop = 0;
        let flow = &mut self.flows[pkt.flow as usize];
        flow.in_flight += 1;
        let Some(router) = self.router.as_mut() else {
            pkt.route = flow.route_id(pkt.reverse, pkt.path);
            let link = self.paths.link(pkt.route, 0).expect("a path has links");
            let idx = self.packets.insert(pkt);
            self.enqueue(link, idx, true);
            return;
        };
        let idx = self.packets.insert(pkt);
        router.reset(idx);
        let at = flow.origin(pkt.reverse);
        self.forward(idx, at);
    }

    /// A packet enters the output port of `link`: the queue decides first,
    /// and only a packet it admits passes the port's switch agent, with the
    /// port as the packet found it. A request dropped at a port must not
    /// change that port's state (D3's counters, PDQ's flow list): the flow
    /// never hears of the decision, and its next request would be counted
    /// against the stale one. `agent` is false for a packet the port's
    /// agent must not see (a straggler off its flow's path).
    pub(crate) fn enqueue(&mut self, link: LinkId, idx: u32, agent: bool) {
        let port = &mut self.ports[link as usize];
        if !port.up {
            self.drop_by_failure(idx, link);
            return;
        }
        match port.departures {
            Departures::Ahead(_) => return self.enqueue_ahead(link, idx),
            Departures::Placed(_) | Departures::Chained { lazy: false, .. } => self.depart_first(link),
            Departures::Chained { lazy: true, .. } => self.catch_up(link, self.now),
            Departures::No => {}
        }
        let port = &mut self.ports[link as usize];
        // The agent sees the port as the packet found it (taken before the
        // queue acts); most ports run none and skip the reads.
        let agent = agent && port.has_agent;
        let view = agent.then(|| PortView {
            rate: self.topo.links[link as usize].rate,
            queue_bytes: port.queue.bytes(),
            tx_bytes: port.tx_bytes,
        });
        // An idle port with an empty queue sends at once: no queue discipline
        // acts on an empty queue (nothing to drop, mark or reorder).
        let send_now = port.queue.is_empty() && port.busy_until <= self.now;
        if !send_now && !self.admit(link, idx) {
            return;
        }
        let port = &mut self.ports[link as usize];
        if let Some(view) = view {
            // Every port on the path runs the agent, the sender's NIC
            // (hop 0) first: the hop is the agent's index on the path.
            let pkt = self.packets.get_mut(idx);
            port.agent.on_packet(self.now, &view, pkt.hop as usize, pkt);
        }
        if send_now {
            let place = port.departures.chain_from(&mut self.events);
            self.transmit_at(link, idx, self.now, place);
            return;
        }
        match &mut port.departures {
            Departures::Placed(places) => places.push_back(self.events.take_place()),
            // Its next departure is decided when something next reaches it.
            Departures::Chained { lazy: true, .. } => return,
            _ => {}
        }
        if !port.tx_scheduled {
            port.tx_scheduled = true;
            let at = port.busy_until.max(self.now);
            self.events.push(at, Event::TxDone(link));
        }
    }

    /// The queue of `link` decides on packet `idx`: admitted (and marked
    /// if the queue says so), or dropped (false).
    pub(crate) fn admit(&mut self, link: LinkId, idx: u32) -> bool {
        let pkt = self.packets.get_mut(idx);
        let entry = QEntry { pkt: idx, wire: pkt.wire, prio: pkt.prio, flow: pkt.flow };
        match self.ports[link as usize].queue.enqueue(entry) {
            Verdict::Accepted { mark_ce } => {
                if mark_ce && pkt.ecn_capable {
                    pkt.ecn_ce = true;
                }
            }
            Verdict::Dropped => {
                self.drop_packet(idx, link);
                return false;
            }
            // Only pFabric's queue evicts, and pFabric has no switch
            // agent: the victim's agent decision needs no undoing.
            Verdict::AcceptedEvicting(victim) => self.drop_packet(victim.pkt, link),
        }
        true
    }

    /// A reverse packet entering a node also passes the node's port its
    /// flow's data leaves by: the pair of the link it arrived on (PDQ's
    /// Algorithm 3 updates that port's flow list). This includes the sender
    /// itself: its own port, the first of the path, runs the agent too.
    #[inline]
    pub(crate) fn reverse_pass(&mut self, idx: u32, arrived_on: LinkId) {
        let pkt = self.packets.get_mut(idx);
        let paired = &mut self.ports[self.topo.reverse(arrived_on) as usize];
        if paired.agent.wants_reverse() {
            paired.agent.on_reverse_packet(self.now, pkt);
        }
    }

    /// A queue or the link's random loss drops packet `idx` at `link`.
    pub(crate) fn drop_packet(&mut self, idx: u32, link: LinkId) {
        self.discard(idx);
        self.counters.packets_dropped += 1;
        self.ports[link as usize].drops += 1;
    }

    /// Packet `idx` is lost to the failure of `link`.
    pub(crate) fn drop_by_failure(&mut self, idx: u32, link: LinkId) {
        self.counters.dropped_by_failure += 1;
        self.drop_packet(idx, link);
    }

    /// Start serializing packet `idx` on `link` at `start`: now, later at a
    /// FIFO port scheduling ahead, earlier at a port deciding lazily
    /// (`departures.rs`). Its arrival at the far end is scheduled at once
    /// (serialization + propagation + processing), so a hop costs one
    /// event, plus a `TxDone` only when a backlog waits behind it; at
    /// `place` in the event order if the port fixed one (`departures.rs`).
    #[inline(always)]
    pub(crate) fn transmit_at(&mut self, link: LinkId, idx: u32, start: Time, place: Option<u64>) {
        let port = &mut self.ports[link as usize];
        let wire = self.packets.get(idx).wire as u64;
        let serialization = match port.ps_per_byte {
            Some(ps) => Dur(wire * ps),
            None => self.topo.links[link as usize].rate.tx_time(Bytes(wire)),
        };
        let done = start + serialization;
        port.busy_until = done;
        port.tx_bytes += wire;
        // The departure hook (MERP's RateAdj runs as a packet leaves).
        if self.departure_agents {
            port.agent.on_departure(self.packets.get_mut(idx));
        }
        self.counters.packet_hops += 1;
        if port.loss > 0.0 && self.loss_rng.random::<f64>() < port.loss {
            self.drop_packet(idx, link);
            return;
        }
        let (epoch, to) = (port.epoch, port.to);
        let pkt = self.packets.get(idx);
        let (last_hop, next) = match self.router.as_mut() {
            None => match self.paths.link(pkt.route, pkt.hop + 1) {
                Some(next) => (false, next),
                None => (true, NO_LINK),
            },
            Some(r) => {
                r.on_transmit(&self.topo, idx, link, epoch, pkt.wire, start);
                (to == self.flows[pkt.flow as usize].dest(pkt.reverse), NO_LINK)
            }
        };
        // Only the monitor's flow samples read what the last link carries.
        if self.monitor.is_some() {
            let data = (last_hop && !pkt.reverse && pkt.payload > 0).then_some((pkt.flow, pkt.payload, pkt.wire));
            if let Some((f, payload, _)) = data {
                self.flows[f as usize].last_hop_payload += payload as u64;
            }
            self.ports[link as usize].last_hop_data = data;
        }
        let port = &self.ports[link as usize];
        // No processing at the destination (see flows::hop_delay).
        let delay = if last_hop { port.delay_delivered } else { port.delay_forwarded };
        let arrive = Event::Arrive { pkt: idx, from: link, next };
        match place {
            Some(place) => self.events.push_at_place(done + delay, place, arrive),
            None => self.events.push(done + delay, arrive),
        }
    }

    /// The port of `link` sends, from `start`, the packet its queue picks,
    /// its arrival at the place the port keeps for it (`departures.rs`);
    /// false if the queue is empty. Inlined into its two callers: as a call,
    /// each lazy decision cost 1.9% more instructions on the pFabric bench.
    #[inline(always)]
    pub(crate) fn send_next(&mut self, link: LinkId, start: Time) -> bool {
        let port = &mut self.ports[link as usize];
        let Some(e) = port.queue.dequeue() else { return false };
        let place = port.departures.next_place();
        self.transmit_at(link, e.pkt, start, place);
        true
    }

    pub(crate) fn tx_done(&mut self, link: LinkId) {
        let port = &mut self.ports[link as usize];
        if port.busy_until > self.now {
            // Stale: the port sent its next packet already, for an arrival
            // at this picosecond (`Sim::depart_first`), or a failure
            // emptied it and it has been sending since it came back.
            return;
        }
        port.tx_scheduled = false;
        if !self.send_next(link, self.now) {
            return;
        }
        let port = &mut self.ports[link as usize];
        if !port.queue.is_empty() {
            port.tx_scheduled = true;
            self.events.push(port.busy_until, Event::TxDone(link));
        }
    }

    fn arrive(&mut self, idx: u32, from: LinkId, next: LinkId) {
        if self.lazy_ports {
            // The port it left may owe the departure due when it ended.
            self.catch_up(from, self.now);
        }
        if self.router.is_some() {
            return self.arrive_routed(idx, from);
        }
        let pkt = self.packets.get_mut(idx);
        debug_assert_eq!(self.paths.link(pkt.route, pkt.hop), Some(from));
        pkt.hop += 1;
        debug_assert_eq!(self.paths.link(pkt.route, pkt.hop), (next != NO_LINK).then_some(next));
        let next = (next != NO_LINK).then_some(next);
        if pkt.reverse && self.reverse_agents {
            self.reverse_pass(idx, from);
        }
        match next {
            Some(link) => self.enqueue(link, idx, true),
            None => self.deliver(idx),
        }
    }

    /// Every switch agent's check of its soft state against the flows that
    /// still use its port (see [`PortAgent::audit`]), one line per
    /// violation. A flow uses a port while the port is on one of its
    /// forward paths and it has not closed: it has no outcome yet, or its
    /// sender still has a timer armed (a FIN waiting for its FIN-ACK).
    pub fn audit_agents(&self) -> Vec<String> {
        let mut out = Vec::new();
        for (l, port) in self.ports.iter().enumerate() {
            let link = l as LinkId;
            let carried = |f: FlowId| {
                let flow = &self.flows[f as usize];
                let open = !flow.done() || flow.sender.as_ref().is_some_and(|s| s.poll_timeout().is_some());
                let on_path = (0..flow.path_count()).any(|p| self.paths.path(flow.route_id(false, p)).contains(&link));
                open && on_path
            };
            if let Some(e) = port.agent.audit(&carried) {
                out.push(format!("port {}: {e}", self.topo.links[l].name));
            }
        }
        out
    }

    fn sample(&mut self) {
        let Some(mut m) = self.monitor.take() else { return };
        m.sample(self);
        if self.open_flows > 0 {
            self.events.push(self.now + m.interval(), Event::Sample);
        }
        self.monitor = Some(m);
    }
}
