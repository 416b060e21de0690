//! Time series of monitored links (throughput, queue) and flows (delivered
//! rate), sampled every `[monitor] interval`, plus the per-link byte counts the
//! summary's utilization comes from.

use crate::sim::{Port, Sim};
use dcflow_core::{Dur, LinkId, Rate, Time};
use dcflow_scenario::SeriesRow;

/// Bytes the port has put on the wire by `now`. A port counts a packet when
/// its serialization starts (one event per hop), so the part of the packet
/// still to be serialized is taken back out: samples are exact, and a link is
/// never seen above its rate.
fn serialized_bytes(port: &Port, rate: Rate, now: Time) -> u64 {
    let pending = if port.busy_until > now { rate.bytes_in(port.busy_until - now).0 } else { 0 };
    port.tx_bytes - pending
}

pub struct Monitor {
    interval: Dur,
    /// (link, name as the user wrote it, bytes sent at the last sample).
    links: Vec<(LinkId, String, u64)>,
    /// Per-flow in-order bytes at the last sample; `None` when flows are not monitored.
    flow_bytes: Option<Vec<u64>>,
    pub rows: Vec<SeriesRow>,
}

impl Monitor {
    pub fn new(interval: Dur, links: Vec<(LinkId, String)>, flows: Option<usize>) -> Monitor {
        Monitor {
            interval,
            links: links.into_iter().map(|(l, n)| (l, n, 0)).collect(),
            flow_bytes: flows.map(|n| vec![0; n]),
            rows: Vec::new(),
        }
    }

    pub fn interval(&self) -> Dur {
        self.interval
    }

    pub fn sample(&mut self, sim: &Sim) {
        let time_s = sim.now.as_secs_f64();
        let secs = self.interval.as_secs_f64();
        for (link, name, last) in &mut self.links {
            let port = &sim.ports[*link as usize];
            let sent = serialized_bytes(port, sim.topo.links[*link as usize].rate, sim.now);
            self.rows.push(SeriesRow {
                time_s,
                series: "link",
                name: name.clone(),
                throughput_bps: (sent - *last) as f64 * 8.0 / secs,
                queue_bytes: Some(port.queue.bytes()),
            });
            *last = sent;
        }
        if let Some(bytes) = self.flow_bytes.as_mut() {
            for (f, last) in sim.flows.iter().zip(bytes.iter_mut()) {
                let now = f.receiver.cumulative();
                let active = f.spec.start <= sim.now && (now > *last || !f.done());
                if active {
                    self.rows.push(SeriesRow {
                        time_s,
                        series: "flow",
                        name: f.spec.id.to_string(),
                        throughput_bps: (now - *last) as f64 * 8.0 / secs,
                        queue_bytes: None,
                    });
                }
                *last = now;
            }
        }
    }
}
