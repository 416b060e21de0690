//! The sender's own link is scheduled (docs/fidelity.md, "The sender's own
//! link"): three flows from one host on PDQ §5.1's tree, to hosts whose paths
//! share nothing but the sender's NIC (h0 and h2 under the same ToR, h5 in
//! another rack). Before every host port ran the protocol's port agent, the
//! switches granted each flow the full link, the flows queued in the NIC's
//! FIFO, and PDQ's three flows all ended together at fair sharing's makespan.

use dcflow_scenario::{RunOutput, Scenario};

const SIZES: [u64; 3] = [1_000_000, 2_000_000, 3_000_000];
const DSTS: [u32; 3] = [0, 2, 5];

fn run(protocol: &str) -> RunOutput {
    let flows: String = SIZES
        .iter()
        .zip(DSTS)
        .map(|(size, dst)| format!("[[flows]]\nsrc = 1\ndst = {dst}\nsize = \"{size}B\"\n"))
        .collect();
    let toml = format!("[topology]\nkind = \"tree\"\n[protocol]\nname = \"{protocol}\"\n[workload]\npattern = \"explicit\"\n{flows}");
    let scenario = Scenario::from_toml(&toml).unwrap_or_else(|e| panic!("{e}"));
    dcflow_packet::run(&scenario).unwrap()
}

/// The flows' FCTs, smallest flow first.
fn fcts(out: &RunOutput) -> Vec<f64> {
    SIZES
        .iter()
        .map(|&size| {
            let f = out.flows.iter().find(|f| f.size_bytes == size).expect("every flow is in the table");
            f.fct_s.unwrap_or_else(|| panic!("the {size} B flow did not finish"))
        })
        .collect()
}

/// Every protocol that allocates in the network keeps the NIC's queue from
/// overflowing and its data from waiting past the RTO, and keeps the link
/// busy: the last flow ends within 10% of all the bytes sent back to back.
/// MERP's postponed flows probe with DETs of the lowest priority (MERP
/// §4.3.1), which wait at the NIC behind the first flow's data until their
/// timer fires: MERP may time out, but drops nothing.
#[test]
fn no_protocol_overruns_its_senders_link() {
    for protocol in ["pdq", "s3", "rcp", "d3", "merp"] {
        let out = run(protocol);
        let s = &out.summary;
        assert_eq!(s.packets_dropped, 0, "{protocol}: drops");
        if protocol != "merp" {
            assert_eq!(s.timeouts, 0, "{protocol}: timeouts");
        }
        let all_bytes_ideal: f64 = out.flows.iter().map(|f| f.ideal_fct_s).sum();
        let last = fcts(&out).into_iter().fold(0.0, f64::max);
        assert!(last < 1.1 * all_bytes_ideal, "{protocol}: last flow at {last} s, the bytes need {all_bytes_ideal} s");
    }
}

/// The schedulers serve the sender's flows one after another in their own
/// order (PDQ and S3: smallest first; MERP: least expansion ratio, here also
/// the smallest): the 1 MB flow ends within 25% of its ideal FCT (a handshake
/// and a few RTTs of switching), where sharing the NIC would take it about
/// 3 times as long.
#[test]
fn preemptive_protocols_serve_the_senders_flows_in_order() {
    for protocol in ["pdq", "s3", "merp"] {
        let out = run(protocol);
        let fct = fcts(&out);
        let ideal = out.flows.iter().find(|f| f.size_bytes == SIZES[0]).unwrap().ideal_fct_s;
        assert!(fct[0] < 1.25 * ideal, "{protocol}: 1 MB flow took {} s, ideal {ideal} s", fct[0]);
        assert!(fct[0] < fct[1] && fct[1] < fct[2], "{protocol}: finish order {fct:?}");
    }
}

/// RCP_dc shares the sender's link: the three flows run at a third each
/// until the smallest ends, so it takes about 3 times its ideal FCT.
#[test]
fn rcp_shares_the_senders_link() {
    let out = run("rcp");
    let fct = fcts(&out);
    let ideal = out.flows.iter().find(|f| f.size_bytes == SIZES[0]).unwrap().ideal_fct_s;
    assert!(fct[0] > 2.5 * ideal && fct[0] < 3.5 * ideal, "rcp: 1 MB flow took {} s, ideal {ideal} s", fct[0]);
}
