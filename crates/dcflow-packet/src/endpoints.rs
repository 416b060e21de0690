//! A flow's two sans-IO endpoints in the engine: created when the flow
//! starts, driven on each packet and timer, and released once nothing can
//! reach them again.
//!
//! Releasing is what keeps a run of a million flows small: a sender and a
//! receiver are most of a flow's memory (hundreds of bytes inline, plus their
//! buffers), and a finished flow needs only its outcome. A flow is *quiet*
//! when it has its outcome, none of its packets is in the network and its
//! sender has no timer: no event can reach either endpoint any more, so
//! dropping them changes nothing the run does (the goldens are byte-identical).
//! What the outputs read from them (bytes delivered, retransmissions,
//! timeouts) is kept first. A run that samples flows (`monitor.flows`) keeps
//! every endpoint: the samples read the sender's state to the end.

use crate::sim::{Event, Sim};
use dcflow_core::FlowId;
use dcflow_proto::{Endpoint, FlowEvent, PdqSender, ProtocolConfig, Receiver, Sender};

impl Sim {
    /// Flows are sorted by start time (workload ids are in start order), so
    /// each start schedules the next: a run with 10^6 flows keeps only
    /// in-flight events queued.
    pub(crate) fn start_flow(&mut self, f: FlowId) {
        if let Some(next) = self.flows.get(f as usize + 1) {
            self.events.push(next.spec.start, Event::FlowStart(next.spec.id));
        }
        self.started += 1;
        self.flows[f as usize].started = true;
        if self.hosts.scheduled() {
            if self.router.is_none() || self.route_new_flow(f) {
                self.start_host_flow(f);
            }
            return;
        }
        let flow = &mut self.flows[f as usize];
        let mut receiver = Receiver::new(flow.info);
        // The receiver's own access link bounds what it can take (PDQ §3.2).
        let access = self.paths.link(flow.routes[1], 0).expect("a path has links");
        receiver.set_max_rx_rate(self.topo.links[access as usize].rate);
        flow.receiver = Some(Box::new(receiver));
        if self.router.is_some() && !self.route_new_flow(f) {
            return;
        }
        let flow = &mut self.flows[f as usize];
        flow.sender = Some(Box::new(match &self.protocol {
            // M-PDQ (PDQ §6): one subflow per path.
            ProtocolConfig::Pdq(c) if !flow.path_info.is_empty() => {
                Sender::Pdq(PdqSender::multipath(flow.info, c, &flow.path_info))
            }
            p => p.sender(flow.info),
        }));
        self.progress();
        self.drive_sender(f);
    }

    pub(crate) fn sender_timer(&mut self, f: FlowId) {
        let now = self.now;
        let flow = &mut self.flows[f as usize];
        if flow.timer_at != Some(now) {
            return; // stale: re-armed since
        }
        flow.timer_at = None;
        if let Some(s) = flow.sender.as_mut() {
            s.handle_timeout(now);
        }
        self.drive_sender(f);
    }

    /// Drain a sender's outputs and re-arm its timer.
    pub(crate) fn drive_sender(&mut self, f: FlowId) {
        let now = self.now;
        let flow = &self.flows[f as usize];
        if flow.no_path || flow.sender.is_none() {
            return;
        }
        self.driving = Some(f);
        while let Some(pkt) = self.flows[f as usize].sender.as_mut().and_then(|s| s.poll_transmit(now)) {
            self.inject(pkt);
        }
        self.driving = None;
        let flow = &mut self.flows[f as usize];
        let sender = flow.sender.as_mut().expect("driven senders exist");
        let mut terminated = false;
        while let Some(ev) = sender.poll_event() {
            if ev == FlowEvent::Terminated && flow.finish.is_none() && !flow.terminated {
                flow.terminated = true;
                terminated = true;
            }
        }
        if let Some(t) = sender.poll_timeout() {
            // Never schedule into the past; a timer at `now` fires after the
            // events already queued for `now`.
            let t = t.max(now);
            if flow.timer_at.is_none_or(|armed| t < armed) {
                flow.timer_at = Some(t);
                self.events.push(t, Event::SenderTimer(f));
            }
        }
        if terminated {
            self.open_flows -= 1;
            self.progress();
        }
        self.release_if_quiet(f);
    }

    fn drive_receiver(&mut self, f: FlowId) {
        let now = self.now;
        self.driving = Some(f);
        while let Some(pkt) = self.flows[f as usize].receiver.as_mut().and_then(|r| r.poll_transmit(now)) {
            self.inject(pkt);
        }
        self.driving = None;
        let flow = &mut self.flows[f as usize];
        let receiver = flow.receiver.as_mut().expect("driven receivers exist");
        let mut finished = false;
        while let Some(ev) = receiver.poll_event() {
            if ev == FlowEvent::Delivered && flow.finish.is_none() && !flow.terminated {
                flow.finish = Some(now);
                finished = true;
            }
        }
        if finished {
            self.open_flows -= 1;
            // Its last bytes re-armed the guard; with no flow left running
            // this disarms it.
            self.progress();
        }
        self.release_if_quiet(f);
    }

    /// Packet `idx` reached its endpoint. It is read in place: a packet is
    /// larger than a cache line, and copying it out cost more than reading it.
    #[inline]
    pub(crate) fn deliver(&mut self, idx: u32) {
        if self.hosts.scheduled() {
            return self.deliver_to_host(idx);
        }
        let pkt = self.packets.get(idx);
        let (reverse, f) = (pkt.reverse, pkt.flow);
        let now = self.now;
        let flow = &mut self.flows[f as usize];
        flow.in_flight -= 1;
        // Whether the endpoint is still there, and for data whether the
        // receiver's in-order bytes advanced (progress for the stall guard).
        let handled = if reverse {
            flow.sender.as_mut().map(|s| s.handle_packet(now, pkt)).map(|()| false)
        } else {
            flow.receiver.as_mut().map(|r| {
                let in_order = r.cumulative();
                r.handle_packet(now, pkt);
                r.cumulative() > in_order
            })
        };
        self.packets.free(idx);
        let Some(advanced) = handled else { return };
        if advanced {
            self.progress();
        }
        if reverse {
            self.drive_sender(f);
        } else {
            self.drive_receiver(f);
        }
    }

    /// Packet `idx` leaves the network without reaching its endpoint (a
    /// drop): its flow may now be quiet, unless its endpoint is being
    /// drained right now (the drop came from a packet it just handed over,
    /// or one that packet pushed out): releasing it mid-drain would lose
    /// the rest of its output, and the drain ends with the same check.
    pub(crate) fn discard(&mut self, idx: u32) {
        let f = self.packets.get(idx).flow;
        self.packets.free(idx);
        self.flows[f as usize].in_flight -= 1;
        if self.driving != Some(f) {
            self.release_if_quiet(f);
        }
    }

    /// Release the endpoints of flow `f` if it is quiet (see the module's
    /// comment), keeping what the outputs read from them.
    fn release_if_quiet(&mut self, f: FlowId) {
        if self.keep_endpoints {
            return;
        }
        let flow = &mut self.flows[f as usize];
        if !flow.done() || flow.in_flight > 0 || flow.timer_at.is_some() {
            return;
        }
        if flow.sender.as_ref().is_some_and(|s| s.poll_timeout().is_some()) {
            return;
        }
        if let Some(s) = flow.sender.take() {
            self.counters.released_retransmits += s.retransmits();
            self.counters.released_timeouts += s.timeouts();
        }
        if let Some(r) = flow.receiver.take() {
            flow.released_bytes_delivered = r.cumulative();
        }
    }
}
