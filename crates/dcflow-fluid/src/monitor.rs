//! Time series of monitored links (throughput; queues are always empty in a
//! fluid model) and flows (delivered rate), every `[monitor] interval`, in
//! the packet engine's row format.

use crate::engine::Engine;
use crate::flows::Phase;
use dcflow_core::{Dur, LinkId};
use dcflow_scenario::SeriesRow;

pub struct Monitor {
    interval: Dur,
    /// (link, name as the user wrote it, bits sent at the last sample).
    links: Vec<(LinkId, String, f64)>,
    /// Per-flow delivered bytes at the last sample; `None` when flows are not monitored.
    flow_bytes: Option<Vec<u64>>,
    pub rows: Vec<SeriesRow>,
}

impl Monitor {
    pub fn new(interval: Dur, links: Vec<(LinkId, String)>, flows: Option<usize>) -> Monitor {
        Monitor {
            interval,
            links: links.into_iter().map(|(l, n)| (l, n, 0.0)).collect(),
            flow_bytes: flows.map(|n| vec![0; n]),
            rows: Vec::new(),
        }
    }

    pub fn interval(&self) -> Dur {
        self.interval
    }

    pub fn sample(&mut self, e: &Engine) {
        let time_s = e.now.as_secs_f64();
        let secs = self.interval.as_secs_f64();
        for (link, name, last) in &mut self.links {
            let bits = e.link_bits(*link);
            self.rows.push(SeriesRow {
                time_s,
                series: "link",
                name: name.clone(),
                throughput_bps: (bits - *last) / secs,
                queue_bytes: Some(0),
            });
            *last = bits;
        }
        if let Some(bytes) = self.flow_bytes.as_mut() {
            for (f, last) in bytes.iter_mut().enumerate() {
                let flow = f as u32;
                let phase = e.flows.phase[f];
                if e.flows.specs[f].start > e.now {
                    continue;
                }
                let now = e.flows.bytes_delivered(flow, e.now);
                if now > *last || matches!(phase, Phase::Waiting | Phase::Active) {
                    self.rows.push(SeriesRow {
                        time_s,
                        series: "flow",
                        name: e.flows.specs[f].id.to_string(),
                        throughput_bps: (now - *last) as f64 * 8.0 / secs,
                        queue_bytes: None,
                    });
                }
                *last = now;
            }
        }
    }
}
