//! The checks every run of the matrix must pass, and the bounds
//! they use. docs/stress.md explains the bounds' constants.

use crate::matrix::Protocol;
use dcflow_core::Dur;
use dcflow_proto::pdq::PDQ_HEADER_BYTES;
use dcflow_proto::HEADER_BYTES;
use dcflow_scenario::{RunOutput, Summary};

/// k of the end bound `k × fair makespan + m × RTO`: a protocol may use the
/// bottleneck at half the efficiency of ideal fair sharing (headers,
/// handshakes, rate-request and probe gaps, pauses between flows) and still
/// pass; a run taking longer is stuck or livelocked, not merely inefficient.
pub const MAKESPAN_FACTOR: f64 = 2.0;
/// m of the end bound: one flow's chain of back-to-back timeouts with
/// exponential backoff, RTO × (1 + 2 + 4 + ... + 2^5) = 63 RTOs, six timeouts in
/// a row (a flow whose SYN, retransmission and its retries are all lost).
pub const RTO_ALLOWANCE: u32 = 63;
/// Bound on packets sent (every packet any endpoint hands to its NIC: data,
/// ACKs, handshakes, requests, probes) per KB delivered: header-only packets
/// may put on the wire at most as many bytes as the payload they serve,
/// each way. Per KB: a data packet per PDQ payload (the smallest MSS) and an
/// ACK for each, plus 1000 B of header-only packets of the smallest size
/// (40 B) and as many answers: 2 × 1000/1444 + 2 × 1000/40 ≈ 51.4. More is
/// a request storm: control traffic outweighs data. See docs/stress.md.
pub const MAX_PACKETS_PER_KB: f64 = 2.0 * 1000.0 / SMALLEST_MSS + 2.0 * 1000.0 / HEADER_ONLY_BYTES;
/// PDQ's payload per packet: the default MTU (1500 B) less the headers and
/// PDQ's scheduling header.
const SMALLEST_MSS: f64 = (1500 - HEADER_BYTES - PDQ_HEADER_BYTES) as f64;
/// A header-only packet: just the headers.
const HEADER_ONLY_BYTES: f64 = HEADER_BYTES as f64;

/// A run still going at the end bound goes on to this multiple of it before
/// it is stopped, so that the table tells a slow protocol (every flow ends,
/// late) from a stuck one (flows still open at the hard stop).
pub const HARD_STOP_FACTOR: u64 = 4;

/// When the run of `protocol` on flows whose fair makespan is `makespan`
/// must be over.
pub fn end_bound(makespan: Dur, protocol: &Protocol) -> Dur {
    Dur::from_secs_f64(makespan.as_secs_f64() * MAKESPAN_FACTOR) + Dur(protocol.rto.0 * RTO_ALLOWANCE as u64)
}

/// Where the run is stopped: [`HARD_STOP_FACTOR`] × the end bound.
pub fn hard_stop(bound: Dur) -> Dur {
    Dur(bound.0 * HARD_STOP_FACTOR)
}

/// When the run's last flow ended (finished or terminated), if every flow
/// did: the summary's `sim_time_s` is the last outcome then.
pub fn last_end(out: &RunOutput) -> Option<f64> {
    out.flows.iter().all(|f| f.finish_s.is_some() || f.terminated).then_some(out.summary.sim_time_s)
}

/// Packets sent per KB (1000 bytes) delivered; infinite when packets
/// delivered nothing.
pub fn packets_per_kb(out: &RunOutput) -> f64 {
    let delivered: u64 = out.flows.iter().map(|f| f.bytes_delivered).sum();
    match (out.summary.packets_sent, delivered) {
        (0, _) => 0.0,
        (_, 0) => f64::INFINITY,
        (p, d) => p as f64 / (d as f64 / 1000.0),
    }
}

/// Every violated check of one run, one line each. `audit` is the switch
/// agents' report ([`dcflow_packet::run_audited`]); `rerun` the same
/// scenario run again.
pub fn violations(protocol: &Protocol, bound: Dur, out: &RunOutput, audit: &[String], rerun: &RunOutput) -> Vec<String> {
    let mut found = Vec::new();
    let mut report = |check: &str, failing: usize, example: Option<String>| {
        if failing > 0 {
            found.push(format!("{check}: {failing} flows{}", example.map(|e| format!(", e.g. {e}")).unwrap_or_default()));
        }
    };
    let unended: Vec<_> = out.flows.iter().filter(|f| f.finish_s.is_none() && !f.terminated).collect();
    let check = format!(
        "unfinished at the hard stop ({:.1} ms = {HARD_STOP_FACTOR} x the end bound; {} at {:.1} ms)",
        hard_stop(bound).as_secs_f64() * 1e3,
        format!("{:?}", out.summary.status).to_lowercase(),
        out.summary.sim_time_s * 1e3
    );
    report(&check, unended.len(), unended.first().map(|f| format!("flow {} with {} of {} B", f.id, f.bytes_delivered, f.size_bytes)));

    let unruled: Vec<_> = out.flows.iter().filter(|f| f.terminated && !protocol.terminates).collect();
    report("terminated without a termination rule", unruled.len(), unruled.first().map(|f| format!("flow {}", f.id)));

    let wrong_bytes: Vec<_> = out
        .flows
        .iter()
        .filter(|f| if f.finish_s.is_some() { f.bytes_delivered != f.size_bytes } else { f.bytes_delivered > f.size_bytes })
        .collect();
    report(
        "delivered bytes differ from size",
        wrong_bytes.len(),
        wrong_bytes.first().map(|f| format!("flow {}: {} of {} B", f.id, f.bytes_delivered, f.size_bytes)),
    );

    let too_fast: Vec<_> = out.flows.iter().filter(|f| f.fct_s.is_some_and(|fct| fct < f.ideal_fct_s)).collect();
    report(
        "beat the ideal FCT",
        too_fast.len(),
        too_fast.first().map(|f| format!("flow {}: {:.6} s < {:.6} s", f.id, f.fct_s.unwrap_or(0.0), f.ideal_fct_s)),
    );

    if let Some(end) = last_end(out).filter(|&end| end > bound.as_secs_f64()) {
        found.push(format!(
            "late: every flow ended, the last at {:.1} ms, after the end bound {:.1} ms",
            end * 1e3,
            bound.as_secs_f64() * 1e3
        ));
    }
    let ppk = packets_per_kb(out);
    if ppk > MAX_PACKETS_PER_KB {
        found.push(format!("request storm: {ppk:.2} packets per delivered KB > {MAX_PACKETS_PER_KB:.1}"));
    }
    if !audit.is_empty() {
        found.push(format!("switch soft state: {} violations, e.g. {}", audit.len(), audit[0]));
    }
    if !same_run(out, rerun) {
        found.push("not deterministic: the same seed gave different flows or summary".into());
    }
    found
}

/// The flows tables and summaries are equal, wall-clock time aside.
fn same_run(a: &RunOutput, b: &RunOutput) -> bool {
    let timeless = |s: &Summary| Summary { wall_s: 0.0, ..s.clone() };
    a.flows == b.flows && timeless(&a.summary) == timeless(&b.summary)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::matrix::protocol_named;
    use crate::testing::{flow, output};

    #[test]
    fn a_clean_run_passes_and_each_fault_is_named() {
        let tcp = protocol_named("tcp").unwrap();
        let bound = Dur::ms(10);
        let clean = output(vec![flow(0, Some(0.002), 100_000, false)], 150);
        assert_eq!(violations(tcp, bound, &clean, &[], &clean), Vec::<String>::new());

        let faults = [
            (flow(0, None, 50_000, false), 150, "unfinished at the hard stop"),
            (flow(0, None, 50_000, true), 150, "terminated without a termination rule"),
            (flow(0, Some(0.002), 99_000, false), 150, "delivered bytes differ from size"),
            (flow(0, Some(0.0005), 100_000, false), 150, "beat the ideal FCT"),
            (flow(0, Some(0.002), 100_000, false), 6000, "request storm"),
        ];
        for (f, packets, check) in faults {
            let out = output(vec![f], packets);
            let found = violations(tcp, bound, &out, &[], &out);
            assert!(found.len() == 1 && found[0].starts_with(check), "{check}: {found:?}");
        }
        let mut slow = output(vec![flow(0, Some(0.002), 100_000, false)], 150);
        slow.summary.sim_time_s = 0.011;
        assert!(violations(tcp, bound, &slow, &[], &slow)[0].starts_with("late: every flow ended"));
        let quench = protocol_named("d3-quench").unwrap();
        let quenched = output(vec![flow(0, None, 50_000, true)], 100);
        assert!(violations(quench, bound, &quenched, &[], &quenched).is_empty(), "D3 quenching may terminate");

        let audit = ["port s0->h0: N = 2, flows carried 1".to_string()];
        assert!(violations(tcp, bound, &clean, &audit, &clean)[0].starts_with("switch soft state"));
        let other = output(vec![flow(0, Some(0.003), 100_000, false)], 150);
        assert!(violations(tcp, bound, &clean, &[], &other)[0].starts_with("not deterministic"));
    }

    /// The bound is derived from the header sizes, not picked.
    #[test]
    fn the_packet_bound_is_header_bytes_equal_to_payload() {
        assert!((MAX_PACKETS_PER_KB - (2.0 * 1000.0 / 1444.0 + 50.0)).abs() < 1e-9);
    }
}
