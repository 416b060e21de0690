//! Homa end to end (Montazeri et al., SIGCOMM'18): the host agents on the
//! packet engine, over the `priority` switch queues.

use crate::host_agents::{conserved_and_repeatable, lone_flow_at_line_rate, shorter_first_at_line_rate};
use dcflow_scenario::Scenario;

/// A lone message goes at line rate from its first byte: the unscheduled
/// RTTbytes at once, and the grants for the rest arrive before they run
/// out; for a message inside RTTbytes and one many times larger.
#[test]
fn a_lone_message_goes_at_line_rate() {
    for (size, bytes) in [("3KB", 3_000u64), ("1MB", 1_000_000)] {
        lone_flow_at_line_rate("homa", size, bytes, 0.0);
    }
}

/// Two messages into one host, both there from the start: the receiver
/// grants the one with fewer bytes left at the higher scheduled level
/// (SRPT, Homa §3.4).
#[test]
fn two_messages_to_one_host_the_shorter_first_at_line_rate() {
    shorter_first_at_line_rate("homa");
}

/// Sixty messages at load 0.6 among nine hosts: no packet is lost, and none
/// waits at the lowest level as long as the resend timeout (10 drains of
/// the granted bytes), so none is asked for again.
#[test]
fn bytes_are_conserved_and_runs_repeat() {
    assert_eq!(conserved_and_repeatable("homa").summary.retransmits, 0);
}

/// The unscheduled levels of a workload (Homa §3.4) at RTTbytes 10 KB, the
/// paper's 10 Gbps value: web search's bytes are almost all in messages far
/// larger than RTTbytes, so it gets 1 unscheduled level and 7 scheduled, as
/// HomaSimulation's config gives W5; data mining, half of whose messages
/// are one packet, the same split.
#[test]
fn web_search_and_data_mining_get_one_unscheduled_level() {
    for size in ["{ dist = \"cdf\", name = \"web_search\" }", "{ dist = \"cdf\", name = \"data_mining\", max = \"30MB\" }"] {
        let s = Scenario::from_toml(&format!(
            "[topology]\nkind = \"star\"\nhosts = 9\n[protocol]\nname = \"homa\"\n\
             [workload]\npattern = \"all_to_all\"\narrival = \"poisson\"\nload = 0.8\nflows = 20000\nsize = {size}\n"
        ))
        .unwrap();
        let topo = s.build_topology().unwrap();
        let sizes: Vec<u64> = s.flow_specs(&topo).unwrap().iter().map(|f| f.size.0).collect();
        let dcflow_proto::ProtocolConfig::Homa(c) = s.protocol.for_run(move || (sizes, 10_000)) else { panic!("homa") };
        assert_eq!((c.unscheduled_priorities, c.unscheduled_cutoffs.len()), (1, 0), "{size}");
    }
}
