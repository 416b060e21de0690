//! `[monitor]`'s controller-state columns: a sender's window, DCTCP's α and
//! its allowed rate on flow rows, a port's allocatable capacity on link rows
//! (docs/outputs.md). Three 500 KB flows into one host of a 1 Gbps star.

use dcflow_scenario::{Scenario, SeriesRow};

fn rows(protocol: &str) -> Vec<SeriesRow> {
    let toml = format!(
        "stop = \"20ms\"\n[topology]\nkind = \"star\"\nhosts = 4\nlink_rate = \"1Gbps\"\n\
         [protocol]\nname = \"{protocol}\"\n\
         [workload]\npattern = \"aggregation\"\nreceiver = 0\nflows = 3\nsize = {{ dist = \"fixed\", value = \"500KB\" }}\n\
         [monitor]\ninterval = \"500us\"\nlinks = [\"bottleneck\"]\nflows = true\n"
    );
    let out = dcflow_packet::run(&Scenario::from_toml(&toml).unwrap()).unwrap();
    out.timeseries.expect("monitored")
}

fn flows(rows: &[SeriesRow]) -> impl Iterator<Item = &SeriesRow> {
    rows.iter().filter(|r| r.series == "flow")
}

#[test]
fn dctcp_rows_carry_the_window_and_alpha() {
    let rows = rows("dctcp");
    assert!(flows(&rows).count() > 0);
    for r in flows(&rows) {
        let (w, a) = (r.window_bytes.expect("window"), r.alpha.expect("alpha"));
        assert!(w >= 1460, "window {w} B below one MSS");
        assert!((0.0..=1.0).contains(&a), "alpha {a}");
        assert_eq!(r.rate_bps, None);
    }
    assert!(rows.iter().filter(|r| r.series == "link").all(|r| r.capacity_bps.is_none()), "plain forwarding has no C");
}

#[test]
fn d3_rows_carry_the_allocation_and_the_ports_capacity() {
    let rows = rows("d3");
    for r in flows(&rows) {
        assert!(r.window_bytes.is_none() && r.alpha.is_none());
        assert!(r.rate_bps.expect("rate") > 0, "at least the base rate");
    }
    let c: Vec<f64> = rows.iter().filter(|r| r.series == "link").map(|r| r.capacity_bps.expect("C")).collect();
    assert!(!c.is_empty() && c.iter().all(|&c| c >= 0.0));
}

/// PDQ serves one flow at a time (SJF, equal sizes by id): while all three
/// run, at most the link's rate is granted in total, most of the time to one.
#[test]
fn pdq_rates_add_up_to_at_most_the_link() {
    let rows = rows("pdq");
    let mut by_time: std::collections::BTreeMap<u64, Vec<u64>> = Default::default();
    for r in flows(&rows) {
        by_time.entry((r.time_s * 1e6).round() as u64).or_default().push(r.rate_bps.expect("R_S"));
    }
    let mut single = 0;
    for rates in by_time.values() {
        let total: u64 = rates.iter().sum();
        // Early Start lets the next flow start before the current one ends.
        assert!(total <= 2_000_000_000, "{rates:?}");
        single += (rates.iter().filter(|&&r| r > 0).count() == 1) as usize;
    }
    assert!(single * 2 > by_time.len(), "one flow at a time in most samples");
}

/// D2TCP's d is sampled as the sender holds it, within [d_min, d_max] =
/// [0.5, 2] (baselines.md "D2TCP"); DCTCP has none.
#[test]
fn d2tcp_rows_carry_the_imminence() {
    let with_deadlines = |protocol: &str| {
        let toml = format!(
            "stop = \"20ms\"\n[topology]\nkind = \"star\"\nhosts = 4\nlink_rate = \"1Gbps\"\n\
             [protocol]\nname = \"{protocol}\"\n\
             [workload]\npattern = \"aggregation\"\nreceiver = 0\nflows = 3\nsize = {{ dist = \"fixed\", value = \"500KB\" }}\n\
             deadline = {{ dist = \"fixed\", value = \"10ms\" }}\n\
             [monitor]\ninterval = \"500us\"\nlinks = [\"bottleneck\"]\nflows = true\n"
        );
        dcflow_packet::run(&Scenario::from_toml(&toml).unwrap()).unwrap().timeseries.expect("monitored")
    };
    let rows = with_deadlines("d2tcp");
    assert!(flows(&rows).count() > 0);
    for r in flows(&rows) {
        let d = r.imminence.expect("d");
        assert!((0.5..=2.0).contains(&d), "d = {d}");
    }
    assert!(flows(&with_deadlines("dctcp")).all(|r| r.imminence.is_none()));
}
