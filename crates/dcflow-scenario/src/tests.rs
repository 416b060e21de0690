//! Every bad input names its key (docs/architecture.md rule 7: "an unknown key, a wrong unit or an
//! impossible value is an error that names the key and the allowed values").

use super::*;

fn err(text: &str) -> ConfigError {
    Scenario::from_toml(text).expect_err("scenario should be rejected")
}

/// `text` is rejected naming `key`, with every word of `words` in the message.
fn assert_rejected(text: &str, key: &str, words: &[&str]) {
    let e = err(text);
    assert_eq!(e.key, key, "{e}");
    assert!(words.iter().all(|w| e.message.contains(w)), "{e} should mention {words:?}");
}

#[test]
fn empty_scenario_resolves_to_documented_defaults() {
    let s = Scenario::from_toml("").unwrap();
    assert_eq!((s.name.as_str(), s.seed, s.engine), ("scenario", 1, Engine::Packet));
    assert_eq!(s.protocol.name(), "rcp");
    // Resolved output parses back to the same scenario.
    let again = Scenario::from_toml(&s.to_toml()).unwrap();
    assert_eq!(again, s);
}

#[test]
fn unknown_keys_are_named_with_their_path() {
    let e = err("[topology]\nhostz = 3\n");
    assert_eq!(e.key, "topology.hostz");
    assert!(e.message.contains("hostz"), "{e}");
    let e = err("colour = 1\n");
    assert!(e.message.contains("colour"), "{e}");
    let e = err("[protocol]\nname = \"rcp\"\nalpah = 1\n");
    assert!(e.message.contains("alpah"), "{e}");
}

/// `[protocol]` is one tagged enum, whose errors name only the section: an
/// unknown value of an enum key names the key that holds it.
#[test]
fn unknown_protocol_values_name_their_key() {
    assert_rejected("[protocol]\nname = \"pdq\"\npaused_elsewhere = \"sometimes\"\n", "protocol.paused_elsewhere", &["untouched", "cap"]);
    assert_rejected("[protocol]\nname = \"pdx\"\n", "protocol.name", &["pdq"]);
    // Two keys holding the same unknown value: the section, not a guess.
    assert_rejected("[protocol]\nname = \"pdq\"\nlist = \"x\"\nvariant = \"x\"\n", "protocol", &[]);
}

#[test]
fn wrong_units_name_the_key_and_the_units() {
    assert_rejected("[topology]\nlink_rate = \"10GB\"\n", "topology.link_rate", &["Gbps"]);
    assert_rejected("[topology]\nprop_delay = \"5\"\n", "topology.prop_delay", &[]);
}

/// `lpd` takes DCTCP's keys through serde's `flatten`, which does not refuse
/// unknown keys by itself: the check names the key and the allowed ones.
#[test]
fn lpd_refuses_unknown_keys_and_variants() {
    assert_rejected("[protocol]\nname = \"lpd\"\nt_mx = \"80ms\"\n", "protocol.t_mx", &["t_max", "alpha_init"]);
    let e = err("[protocol]\nname = \"lpd\"\nvariant = \"q\"\n");
    assert!(e.message.contains("mld"), "{e}");
    // D2TCP has DCTCP's keys and the range of d only.
    let e = err("[protocol]\nname = \"d2tcp\"\nt_max = \"80ms\"\n");
    assert!(e.key == "protocol.t_max" && e.message.contains("d_max"), "{e}");
    assert_eq!(err("[protocol]\nname = \"d2tcp\"\nd_max = 0.1\n").key, "protocol.d_max");
    // Valid LPD keys, DCTCP's included, resolve and print back.
    let s = Scenario::from_toml("[protocol]\nname = \"lpd\"\nvariant = \"t\"\ng = 0.5\n").unwrap();
    assert_eq!(Scenario::from_toml(&s.to_toml()).unwrap(), s);
}

/// L2DCT's keys (baselines.md "L2DCT") and D2TCP's after-deadline value: a
/// bad key or value names the key and what is allowed.
#[test]
fn l2dct_and_d2tcp_keys_are_checked() {
    let e = err("[protocol]\nname = \"l2dct\"\nw_mx = 2.5\n");
    assert_eq!(e.key, "protocol.w_mx");
    assert!(e.message.contains("w_max") && e.message.contains("s_min") && e.message.contains("alpha_init"), "{e}");
    assert_eq!(err("[protocol]\nname = \"l2dct\"\nw_min = 3.0\n").key, "protocol.w_max");
    assert_eq!(err("[protocol]\nname = \"l2dct\"\ns_max = \"100KB\"\n").key, "protocol.s_max");
    assert_eq!(err("[protocol]\nname = \"d2tcp\"\nd_after_deadline = 0\n").key, "protocol.d_after_deadline");
    let e = err("[protocol]\nname = \"lpd\"\ns_basis = \"half\"\n");
    assert!(e.message.contains("remaining"), "{e}");
    let s = Scenario::from_toml("[protocol]\nname = \"l2dct\"\nw_max = 2.0\nstop_at_deadline = true\n").unwrap();
    assert_eq!(Scenario::from_toml(&s.to_toml()).unwrap(), s);
}

#[test]
fn unknown_protocol_lists_the_protocols() {
    let e = err("[protocol]\nname = \"quic\"\n");
    assert!(e.key.starts_with("protocol"), "{e}");
    assert!(e.message.contains("rcp") && e.message.contains("pfabric"), "{e}");
}

#[test]
fn explicit_flow_outside_the_topology_is_rejected() {
    let e = err(
        "[topology]\nkind = \"star\"\nhosts = 4\n[workload]\npattern = \"explicit\"\n\
         [[flows]]\nsrc = 1\ndst = 0\nsize = \"1MB\"\n[[flows]]\nsrc = 9\ndst = 0\nsize = \"1MB\"\n",
    );
    assert!(e.to_string().contains("flows[1].src"), "{e}");
}

#[test]
fn monitor_names_must_be_links() {
    let e = err("[monitor]\nlinks = [\"nowhere\"]\n");
    assert_eq!(e.key, "monitor.links[0]");
}

#[test]
fn loss_must_be_a_probability() {
    let e = err("[faults]\nloss = 1.5\n");
    assert_eq!(e.key, "faults.loss");
}

#[test]
fn loss_direction_is_both_forward_or_reverse() {
    let e = err("[faults]\nloss = 0.01\ndirection = \"up\"\n");
    assert_eq!(e.key, "faults.direction");
    let s = Scenario::from_toml("[faults]\nloss = 0.01\n").unwrap();
    assert_eq!(s.faults.direction, LossDirection::Both);
}

#[test]
fn protocol_picks_its_queue_unless_one_is_given() {
    let s = Scenario::from_toml("[protocol]\nname = \"pfabric\"\n").unwrap();
    assert_eq!(s.topology.queue, QueueDiscipline::Pfabric);
    let s = Scenario::from_toml("[protocol]\nname = \"pfabric\"\n[topology]\nqueue = \"droptail\"\n").unwrap();
    assert_eq!(s.topology.queue, QueueDiscipline::DropTail);
}

/// `stall` must be a positive time; unset, it resolves to the protocol's
/// default: 2 minutes for the TCP family (twice the 60 s cap on the
/// backed-off RTO), 1 s for senders that never back off.
#[test]
fn stall_is_a_positive_time_defaulting_by_protocol() {
    let e = err("stall = \"0s\"\n");
    assert_eq!(e.key, "stall");
    assert_eq!(err("stall = \"soon\"\n").key, "stall");
    for (protocol, want) in [("tcp", Dur::secs(120)), ("dctcp", Dur::secs(120)), ("rcp", Dur::secs(1)), ("pfabric", Dur::secs(1))] {
        let s = Scenario::from_toml(&format!("[protocol]\nname = \"{protocol}\"\n")).unwrap();
        assert_eq!((s.stall, s.stall_interval()), (Some(want), want), "{protocol}");
    }
    let s = Scenario::from_toml("stall = \"20ms\"\n[protocol]\nname = \"rcp\"\nrto_min = \"2s\"\n").unwrap();
    assert_eq!(s.stall, Some(Dur::ms(20)));
    assert_eq!(default_stall(&s.protocol), Dur::secs(4), "twice a long rto_min");
}

#[test]
fn tcp_pr_needs_a_priority_queue_with_its_classes() {
    let e = err("[protocol]\nname = \"tcp\"\npriority_deadlines = [\"20ms\"]\n");
    assert_eq!(e.key, "protocol.priority_deadlines");
    let e = err("[topology]\nqueue = \"priority\"\npriority_classes = 2\n[protocol]\nname = \"tcp\"\npriority_deadlines = [\"20ms\"]\n");
    assert_eq!(e.key, "protocol.priority_deadlines");
    Scenario::from_toml("[topology]\nqueue = \"priority\"\n[protocol]\nname = \"tcp\"\npriority_deadlines = [\"20ms\"]\n").unwrap();
}

#[test]
fn messages_name_kinds_of_values_not_rust_types() {
    let e = err("[workload]\nflows = 4294967296\n");
    assert_eq!(e.key, "workload.flows");
    assert!(e.message.contains("a whole number from 0 to 4294967295") && !e.message.contains("u32"), "{}", e.message);
    let e = err("[workload]\nsize = 3\n");
    assert!(e.message.contains("a table of keys") && !e.message.contains("SizeConfig"), "{}", e.message);
}

#[test]
fn a_flow_count_that_cannot_fit_in_memory_is_refused_with_an_estimate() {
    let e = err("[workload]\nflows = 4294967295\n");
    assert_eq!(e.key, "workload.flows");
    assert!(e.message.contains("GB of memory"), "{}", e.message);
}

/// Bad routing and timed-fault inputs: each names its key.
#[test]
fn routing_and_timed_faults_name_their_keys() {
    let ft = "[topology]\nkind = \"fat_tree\"\nk = 4\n";
    let event = |body: &str| format!("{ft}[[faults.events]]\n{body}\n");
    let cases = [
        (event("at = \"1ms\"\nlink = \"agg0_0->core9\"\nstate = \"down\""), "faults.events[0].link"),
        (event("at = \"1ms\"\nnode = \"core9\"\nstate = \"down\""), "faults.events[0].node"),
        (event("at = \"1ms\"\nnode = \"h3\"\nstate = \"down\""), "faults.events[0].node"),
        (event("at = \"1ms\"\nstate = \"down\""), "faults.events[0]"),
        (format!("stop = \"2ms\"\n{}", event("at = \"3ms\"\nlink = \"agg0_0->core0\"\nstate = \"down\"")), "faults.events[0].at"),
        (event("at = \"1ms\"\nlink = \"agg0_0->core0\"\nstate = \"up\""), "faults.events[0].state"),
        (event("at = \"1ms\"\nlink = \"agg0_0->core0\"\nstate = \"sideways\""), "faults.events[0].state"),
        ("[topology]\nkind = \"star\"\nrouting = \"spray\"\n".to_string(), "topology.routing"),
        ("[topology]\nkind = \"tree\"\nrouting = \"conga\"\n".to_string(), "topology.routing"),
        ("[topology]\nkind = \"bcube\"\nrouting = \"conga\"\n".to_string(), "topology.routing"),
        (format!("{ft}routing = \"ecmp\"\nflowlet_gap = \"1ms\"\n"), "topology.flowlet_gap"),
        (format!("{ft}routing = \"conga\"\nconga_q = 0\n"), "topology.conga_q"),
        (format!("{ft}routing = \"flowlet\"\nflowlet_gap = \"0s\"\n"), "topology.flowlet_gap"),
        (format!("engine = \"fluid\"\n{ft}routing = \"spray\"\n[protocol]\nname = \"fair\"\n"), "topology.routing"),
    ];
    for (toml, key) in cases {
        assert_eq!(err(&toml).key, key, "{toml}");
    }
    // A recovery after a failure of the same link is fine, in any file order.
    let ok = format!(
        "{ft}[[faults.events]]\nat = \"5ms\"\nlink = \"agg0_0<->core0\"\nstate = \"up\"\n\
         [[faults.events]]\nat = \"1ms\"\nlink = \"agg0_0<->core0\"\nstate = \"down\"\n"
    );
    let s = Scenario::from_toml(&ok).unwrap();
    assert_eq!(Scenario::from_toml(&s.to_toml()).unwrap(), s, "resolved faults parse back");
}

/// MERP §4.4: alpha C / 2 <= theta <= alpha C, checked when the scenario sets either.
#[test]
fn merp_theta_bound_is_checked_when_set() {
    let e = err("[protocol]\nname = \"merp\"\ntheta = \"0.2Gbps\"\n");
    assert_eq!(e.key, "protocol.theta");
    assert!(e.message.contains("§4.4"), "{e}");
    assert_eq!(err("[protocol]\nname = \"merp\"\nalpha = 0.7\n").key, "protocol.theta");
    assert!(Scenario::from_toml("[protocol]\nname = \"merp\"\ntheta = \"0.6Gbps\"\n").is_ok());
    // Defaults are the paper's and are not checked against other link rates.
    assert!(Scenario::from_toml("[topology]\nlink_rate = \"10Gbps\"\n[protocol]\nname = \"merp\"\n").is_ok());
}

/// `[fluid] recompute`: "interval" is for the protocol models; an ideal
/// discipline is a zero-delay scheduler and recomputes at every event.
#[test]
fn fluid_recompute_interval_only_for_protocol_models() {
    let e = err("engine = \"fluid\"\n[protocol]\nname = \"srpt\"\n[fluid]\nrecompute = \"interval\"\n");
    assert_eq!(e.key, "fluid.recompute");
    assert!(e.message.contains("rcp, d3 and pdq"), "{e}");
    assert!(Scenario::from_toml("engine = \"fluid\"\n[protocol]\nname = \"pdq\"\n[fluid]\nrecompute = \"interval\"\n").is_ok());
    assert!(Scenario::from_toml("[fluid]\nrecompute = \"sometimes\"\n").is_err());
}
