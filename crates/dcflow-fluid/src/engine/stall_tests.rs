//! The fluid stall guard. The allocations share every link's capacity, so a
//! healthy model always gives some active flow a rate; a link with no
//! capacity left (forced here) leaves its flows at rate 0, which must end the
//! run as "stalled": while D3's model keeps ticking (it looped forever), and
//! when nothing is left to happen (RCP's model has no ticks).

use super::Engine;
use crate::flows::Flows;
use crate::model::FlowModel;
use dcflow_core::{Dur, Time};
use dcflow_net::Routes;
use dcflow_scenario::{RunStatus, Scenario};

#[test]
fn flows_without_rate_stall_the_run() {
    for (protocol, ticks) in [("d3", true), ("rcp", false)] {
        let s = Scenario::from_toml(&format!(
            "engine = \"fluid\"\nstall = \"20ms\"\n[topology]\nkind = \"star\"\nhosts = 2\n\
             [protocol]\nname = \"{protocol}\"\n[workload]\npattern = \"explicit\"\n\
             [[flows]]\nsrc = 1\ndst = 0\nsize = \"100KB\"\n"
        ))
        .unwrap();
        let model = FlowModel::from_scenario(&s).unwrap();
        assert_eq!(model.tick().is_some(), ticks, "{protocol}");
        let topo = s.build_topology().unwrap();
        let specs = s.flow_specs(&topo).unwrap();
        let flows = Flows::new(&topo, &Routes::new(&topo, s.topology.routing, s.seed), specs, s.seed, &model);
        let ready = flows.ready_at[0];
        let mut engine = Engine::new(&topo, flows, model, &[]);
        let l = topo.bottleneck();
        engine.capacity[l as usize] = 0.0;
        // The level sweep (rcp) shares its own copy.
        engine.sweep.set_capacity(l, 0.0);
        let end = engine.run(None, s.stall_interval());
        assert_eq!(end.status, RunStatus::Stalled, "{protocol}");
        // The flow's activation, after its handshake, was the last progress.
        assert!(ready > Time::ZERO);
        assert_eq!(end.at, ready + Dur::ms(20), "{protocol}");
    }
}
