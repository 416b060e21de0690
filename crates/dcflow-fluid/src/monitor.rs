//! What the monitor reads of the flow-level engine ([`Sampled`]): monitored
//! links' throughput (queues are always empty in a fluid model) and flows'
//! delivered bytes, in the packet engine's row format.

use crate::engine::Engine;
use crate::flows::Phase;
use dcflow_core::{LinkId, Time};
use dcflow_proto::SenderState;
use dcflow_scenario::{LinkSample, Sampled};

impl Sampled for Engine {
    fn now(&self) -> Time {
        self.now
    }

    fn link_sample(&self, link: LinkId) -> LinkSample {
        LinkSample { bits: self.link_bits(link), queue_bytes: 0, drops: 0, reroutes: 0, up: true, capacity_bps: None }
    }

    fn each_flow(&self, sample: &mut dyn FnMut(usize, u32, u64, bool, SenderState)) {
        for f in 0..self.flows.len() {
            if self.flows.specs[f].start <= self.now {
                let running = matches!(self.flows.phase[f], Phase::Waiting | Phase::Active);
                sample(f, self.flows.specs[f].id, self.flows.bytes_delivered(f as u32, self.now), running, SenderState::default());
            }
        }
    }
}
