//! Time series of monitored links (throughput; queues are always empty in a
//! fluid model) and flows (delivered rate), every `[monitor] interval`, in
//! the packet engine's row format.

use crate::engine::Engine;
use crate::flows::Phase;
use dcflow_core::{Dur, LinkId};
use dcflow_scenario::{LinkSample, SeriesRecorder};

pub struct Monitor {
    interval: Dur,
    /// Monitored links, in the recorder's order.
    links: Vec<LinkId>,
    pub series: SeriesRecorder,
}

impl Monitor {
    pub fn new(interval: Dur, links: Vec<(LinkId, String)>, flows: Option<usize>) -> Monitor {
        let (ids, names) = links.into_iter().unzip();
        Monitor { interval, links: ids, series: SeriesRecorder::new(interval.as_secs_f64(), names, flows) }
    }

    pub fn interval(&self) -> Dur {
        self.interval
    }

    pub fn sample(&mut self, e: &Engine) {
        let time_s = e.now.as_secs_f64();
        for (i, &link) in self.links.iter().enumerate() {
            let sample = LinkSample { bits: e.link_bits(link), queue_bytes: 0, drops: 0, reroutes: 0, up: true, capacity_bps: None };
            self.series.link(i, time_s, sample);
        }
        if self.series.monitors_flows() {
            for f in 0..e.flows.len() {
                if e.flows.specs[f].start > e.now {
                    continue;
                }
                let running = matches!(e.flows.phase[f], Phase::Waiting | Phase::Active);
                let bytes = e.flows.bytes_delivered(f as u32, e.now);
                self.series.flow(f, e.flows.specs[f].id, time_s, bytes, running, Default::default());
            }
        }
    }
}
