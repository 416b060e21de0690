//! PDQ §2.1's motivating example (PDQ Fig. 1) on the packet engine: three flows
//! of 1, 2 and 3 units on one bottleneck; a unit is 1 MB at 1 Gbps (8 ms).
//! Deadlines: B at 4 units (PDQ: "f_B will send with rate 2/4 = 0.5 and will
//! finish right before its deadline"), A at 1.5 units (it must miss with half
//! the link, Fig. 1d), C at 7 units. Flows arrive 10 us apart in the order
//! given.

use dcflow_scenario::{FlowRecord, Scenario};

const UNIT_S: f64 = 0.008;

/// (name, sender host, size in units, deadline in ms)
const FLOWS: [(char, u32, u32, &str); 3] = [('A', 1, 1, "12ms"), ('B', 2, 2, "32ms"), ('C', 3, 3, "56ms")];

fn run(protocol: &str, order: &str) -> Vec<(char, FlowRecord)> {
    let mut toml = format!(
        "[topology]\nkind = \"star\"\nhosts = 4\n[protocol]\nname = \"{protocol}\"\n[workload]\npattern = \"explicit\"\n"
    );
    for (i, name) in order.chars().enumerate() {
        let (_, src, size, deadline) = FLOWS.iter().find(|f| f.0 == name).unwrap();
        toml += &format!(
            "[[flows]]\nsrc = {src}\ndst = 0\nsize = \"{size}MB\"\nstart = \"{}us\"\ndeadline = \"{deadline}\"\n",
            i * 10
        );
    }
    let s = Scenario::from_toml(&toml).unwrap();
    let out = dcflow_packet::run(&s).unwrap();
    order.chars().zip(out.flows).collect()
}

fn met(flows: &[(char, FlowRecord)], name: char) -> bool {
    flows.iter().find(|f| f.0 == name).unwrap().1.met_deadline.unwrap()
}

/// Fig. 1b: fair sharing finishes A, B, C at 3, 5, 6 units; A and B miss.
#[test]
fn rcp_dc_shares_fairly_and_misses_a_and_b() {
    let flows = run("rcp", "BAC");
    for (name, units) in [('A', 3.0), ('B', 5.0), ('C', 6.0)] {
        let fct = flows.iter().find(|f| f.0 == name).unwrap().1.fct_s.unwrap();
        let expected = units * UNIT_S;
        assert!((fct - expected).abs() < 0.06 * expected, "{name}: {fct} s vs {expected} s");
    }
    assert!(!met(&flows, 'A') && !met(&flows, 'B') && met(&flows, 'C'));
}

/// Fig. 1d: D3 serves requests in arrival order; with B first, A misses.
#[test]
fn d3_with_arrival_order_b_a_c_misses_a() {
    let flows = run("d3", "BAC");
    assert!(!met(&flows, 'A'), "D3's known weakness (PDQ §2.1)");
    assert!(met(&flows, 'C'));
}

/// Fig. 1c: PDQ schedules EDF whatever the arrival order; every deadline is met.
#[test]
fn pdq_meets_every_deadline_in_any_order() {
    for order in ["BAC", "ABC", "CBA"] {
        let flows = run("pdq", order);
        for name in ['A', 'B', 'C'] {
            assert!(met(&flows, name), "PDQ, order {order}: {name} missed");
        }
    }
}
