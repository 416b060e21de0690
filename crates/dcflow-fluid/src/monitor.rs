//! What the monitor reads of the flow-level engine ([`Sampled`]): monitored
//! links' throughput (queues are always empty in a fluid model) and flows'
//! delivered bytes, in the packet engine's row format.

use crate::engine::Engine;
use crate::flows::Phase;
use dcflow_core::{LinkId, Time};
use dcflow_proto::SenderState;
use dcflow_scenario::{FlowSample, LinkSample, Sampled};

impl Sampled for Engine {
    fn now(&self) -> Time {
        self.now
    }

    fn link_sample(&self, link: LinkId) -> LinkSample {
        LinkSample { bits: self.link_bits(link), queue_bytes: 0, drops: 0, reroutes: 0, up: true, capacity_bps: None }
    }

    fn each_flow(&self, sample: &mut dyn FnMut(FlowSample)) {
        for (f, spec) in self.flows.specs.iter().enumerate() {
            if spec.start <= self.now {
                sample(FlowSample {
                    id: spec.id,
                    bytes: self.flows.bytes_delivered(f as u32, self.now),
                    running: matches!(self.flows.phase[f], Phase::Waiting | Phase::Active),
                    state: SenderState::default(),
                });
            }
        }
    }
}
