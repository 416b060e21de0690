//! Links that fail and recover during a run (`[[faults.events]]`), and how
//! routing reacts (`faults.convergence`).
//!
//! A link that goes down loses the packets queued at its port, the packet
//! it is serializing and every packet in flight on it (their epoch no
//! longer matches), and every packet sent into it until it is up again.
//! Routing converges `convergence` after each change: the tables are
//! recomputed without the links down at that moment. Until then ECMP keeps
//! hashing onto the dead link. At convergence a pinned flow whose path
//! crosses a dead link pins a new path, and a flow whose destination can no
//! longer be reached is terminated and marked `no_path`.

use crate::flows::base_rtt;
use crate::router::OwnChoice;
use crate::sim::{Event, Sim};
use dcflow_core::{FlowId, LinkId};
use dcflow_net::FlowKey;
use dcflow_proto::merp::memr;
use dcflow_proto::PortAgent;

impl Sim {
    /// Timed fault `i` happens now.
    pub(crate) fn link_change(&mut self, i: u32) {
        let change = self.changes[i as usize].clone();
        for &l in &change.links {
            let port = &mut self.ports[l as usize];
            if change.up {
                port.up = true;
                continue;
            }
            port.up = false;
            port.epoch += 1;
            port.busy_until = port.busy_until.min(self.now);
            // A pending `TxDone` is stale now: the next packet queued
            // after recovery schedules its own.
            port.tx_scheduled = false;
            port.last_hop_data = None;
            port.departures.clear();
            while let Some(e) = self.ports[l as usize].queue.dequeue() {
                self.drop_by_failure(e.pkt, l);
            }
        }
        if self.convergence == dcflow_core::Dur::ZERO {
            self.converge();
        } else {
            self.events.push(self.now + self.convergence, Event::Converge);
        }
    }

    /// Routing converges on the links that are down now.
    pub(crate) fn converge(&mut self) {
        let down: Vec<bool> = self.ports.iter().map(|p| !p.up).collect();
        let before: Vec<Option<Vec<LinkId>>> = (0..self.flows.len()).map(|f| self.reference_path(f as FlowId)).collect();
        self.router.as_mut().expect("faults route hop by hop").converge(&self.topo, &down);
        for f in 0..self.flows.len() as FlowId {
            let flow = &self.flows[f as usize];
            if !flow.started || flow.done() {
                continue;
            }
            let (src, dst) = (flow.spec.src, flow.spec.dst);
            let routes = self.router.as_ref().expect("checked").routes();
            if routes.hops(src, dst).is_none() {
                self.terminate_no_path(f);
                continue;
            }
            if flow.pinned && !self.repin_broken_paths(f, &down) {
                self.terminate_no_path(f);
                continue;
            }
            let after = self.reference_path(f);
            if let (Some(old), Some(new)) = (&before[f as usize], &after) {
                if old != new {
                    self.counters.reroutes += 1;
                    for &l in old.iter().filter(|l| !new.contains(l)) {
                        self.ports[l as usize].reroutes += 1;
                    }
                }
            }
        }
        self.progress();
    }

    /// The forward path flow `f` takes under the current tables: its pinned
    /// path, or its ECMP path (the reference of the per-packet policies);
    /// `None` for flows not running or unreachable.
    fn reference_path(&self, f: FlowId) -> Option<Vec<LinkId>> {
        let flow = &self.flows[f as usize];
        if !flow.started || flow.done() {
            return None;
        }
        if flow.pinned {
            return Some(self.paths.path(flow.routes[0]).to_vec());
        }
        self.router.as_ref()?.routes().try_path(flow.spec.src, flow.spec.dst, flow.hash)
    }

    /// A starting flow under hop-by-hop routing: pin its paths if its
    /// protocol keeps state in the switches (M-PDQ's subflows keep the
    /// paths chosen at set-up); terminate it if its destination cannot be
    /// reached. Returns whether it may start.
    pub(crate) fn route_new_flow(&mut self, f: FlowId) -> bool {
        let flow = &self.flows[f as usize];
        let reachable = self.router.as_ref().expect("checked").routes().hops(flow.spec.src, flow.spec.dst).is_some();
        let ok = reachable
            && match (self.protocol.pins_paths(), flow.extra_routes.is_empty()) {
                (false, _) => true,
                (true, true) => self.pin(f, 0),
                (true, false) => {
                    self.flows[f as usize].pinned = true;
                    true
                }
            };
        if !ok {
            self.terminate_no_path(f);
        }
        ok
    }

    /// Pin a new path for each of flow `f`'s paths that crosses a link
    /// down in `down`; false when one has no path left.
    fn repin_broken_paths(&mut self, f: FlowId, down: &[bool]) -> bool {
        let flow = &self.flows[f as usize];
        let route = |reverse, p| self.paths.path(flow.route_id(reverse, p));
        let broken: Vec<u8> =
            (0..flow.path_count()).filter(|&p| route(false, p).iter().chain(route(true, p)).any(|&l| down[l as usize])).collect();
        broken.into_iter().all(|p| self.pin(f, p))
    }

    /// Pin path `p` of flow `f` (its data path and its reply path,
    /// retracing it where the protocol needs that, as PDQ does) by its
    /// switches' choices now. The ports the flow leaves forget it and its
    /// sender hears of the change ([`dcflow_proto::Sender::path_changed`]).
    /// Returns false when there is no path.
    fn pin(&mut self, f: FlowId, p: u8) -> bool {
        let now = self.now;
        let flow = &self.flows[f as usize];
        let (src, dst, hash) = (flow.spec.src, flow.spec.dst, flow.hash);
        let size = flow.spec.size.0 as f64;
        let router = self.router.as_mut().expect("checked");
        let ports = &self.ports;
        // MEMR (papers/003 Alg. 4): the next hop whose MERP port gives the
        // new flow the least expansion ratio, then the best tail rate.
        let mut memr = |cands: &[(LinkId, dcflow_core::NodeId)]| {
            let tables: Vec<memr::Port> = cands
                .iter()
                .map(|&(l, _)| match &*ports[l as usize].agent {
                    PortAgent::Merp(s) => memr::Port::of(s),
                    _ => memr::Port { table: &[], c: self.topo.links[l as usize].rate.as_bps_f64() / 8.0 },
                })
                .collect();
            memr::choose(&tables, &memr::NewFlow { size, dst }, now)
        };
        let own: Option<OwnChoice> =
            if router.protocol_chooses() { Some(&mut memr) } else { None };
        let Some(fwd) = router.pin(&self.topo, src, dst, FlowKey::new(f, false, p), hash, now, own) else { return false };
        let rev = if self.protocol.symmetric_paths() {
            fwd.iter().rev().map(|&l| self.topo.reverse(l)).collect()
        } else {
            let Some(rev) = router.pin(&self.topo, dst, src, FlowKey::new(f, true, p), hash, now, None) else { return false };
            rev
        };
        let old = self.paths.path(self.flows[f as usize].route_id(false, p));
        let left: Vec<LinkId> = old.iter().copied().filter(|l| !fwd.contains(l)).collect();
        for l in left {
            self.ports[l as usize].agent.forget(f, p);
        }
        let flow = &mut self.flows[f as usize];
        if let Some(s) = flow.sender.as_mut() {
            s.path_changed(now, p);
        }
        let ids = [self.paths.intern(&fwd), self.paths.intern(&rev)];
        if p == 0 {
            flow.info.line_rate = self.topo.links[fwd[0] as usize].rate;
            flow.info.base_rtt = base_rtt(&self.topo, &fwd, &rev);
            flow.routes = ids;
        } else {
            flow.extra_routes[p as usize - 1] = ids;
        }
        flow.pinned = true;
        true
    }

    fn terminate_no_path(&mut self, f: FlowId) {
        let flow = &mut self.flows[f as usize];
        flow.no_path = true;
        flow.terminated = true;
        self.open_flows -= 1;
        self.progress();
    }
}
