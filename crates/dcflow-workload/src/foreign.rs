//! Flow lists in other simulators' formats, read as traces
//! (`workload.trace_format`) and written by `dcflow export`, so a workload
//! generated for one simulator replays in the other and results compare on
//! the same flows.
//!
//! - **HPCC** (the ns-3 RDMA simulator of HPCC, SIGCOMM'19, `mix/flow.txt`):
//!   the first line is the number of flows, then one flow per line,
//!   `src dst priority dport size_bytes start_s`, whitespace-separated. The
//!   priority group and destination port are ns-3 settings with no meaning
//!   here: read and ignored, written as HPCC's `traffic_gen.py` does (3, 100).
//! - **htsim** connection matrices (`sim/datacenter/connection_matrices/*.cm`
//!   of csg-htsim): header lines `Nodes N` and `Connections M`, then
//!   `src->dst id I start T size B [prio P]` with `start` in picoseconds, as
//!   csg-htsim's loader reads it (dcflow's clock unit, so times are exact).
//!   Triggers and failures (flows started by other flows) have no dcflow
//!   equivalent and are refused.
//! - **YAPS** flow traces (NetSys/simulator, read by `FlowReader::make_flows`,
//!   run/flow_generator.cpp:149-171, with `use_flow_trace: 1`): one flow per
//!   line, `id start_s _ _ size_in_packets _ _ src dst`, whitespace-separated,
//!   sizes in whole 1460-byte payloads (YAPS's `params.mss`,
//!   run/params.cpp:190). YAPS stops at the first line it cannot read; here
//!   such a line is an error. Writing rounds each size up to whole packets,
//!   the only sizes YAPS can express.
//!
//! Hosts are dcflow host indices in all three. None of them carries
//! deadlines: exporting flows that have one is refused rather than silently
//! dropping it.

use crate::config::ExplicitFlow;
use crate::generate::FlowSpec;
use crate::trace::seconds;
use dcflow_core::{Bytes, Dur};
use std::collections::HashSet;

/// HPCC's priority group and destination port, as its `traffic_gen.py` writes them.
const HPCC_PG_DPORT: &str = "3 100";

/// YAPS's payload per packet (`params.mss`, run/params.cpp:190): trace sizes
/// count these.
pub const YAPS_MSS: u64 = 1460;

/// Parses an HPCC flow file; the error names the line.
pub(crate) fn parse_hpcc(text: &str) -> Result<Vec<ExplicitFlow>, String> {
    let mut rows = text.lines().enumerate().map(|(n, l)| (n + 1, l.trim())).filter(|(_, l)| !l.is_empty());
    let (_, first) = rows.next().ok_or("empty; an HPCC flow file starts with the number of flows")?;
    let count: usize = first
        .parse()
        .map_err(|_| format!("line 1: expected the number of flows, got {first:?}"))?;
    let mut flows = Vec::new();
    for (line, row) in rows {
        let at = |m: String| format!("line {line}: {m}");
        let f: Vec<&str> = row.split_whitespace().collect();
        if f.len() != 6 {
            return Err(at(format!("expected `src dst priority dport size_bytes start_s` (HPCC), got {row:?}")));
        }
        let int = |i: usize, name: &str| f[i].parse::<u64>().map_err(|_| at(format!("{name} = {:?} is not a non-negative integer", f[i])));
        let host = |i: usize, name: &str| int(i, name).and_then(|v| u32::try_from(v).map_err(|_| at(format!("{name} = {v} is too large"))));
        int(2, "priority")?;
        int(3, "dport")?;
        let start = match f[5].parse::<f64>() {
            Ok(s) if s.is_finite() && s >= 0.0 => Dur::from_secs_f64(s),
            _ => return Err(at(format!("start_s = {:?} is not a non-negative number of seconds", f[5]))),
        };
        flows.push(ExplicitFlow { src: host(0, "src")?, dst: host(1, "dst")?, size: Bytes(int(4, "size_bytes")?), start, deadline: None });
    }
    if flows.len() != count {
        return Err(format!("line 1 announces {count} flows, the file has {}", flows.len()));
    }
    Ok(flows)
}

/// Parses an htsim connection matrix; the error names the line.
pub(crate) fn parse_htsim(text: &str) -> Result<Vec<ExplicitFlow>, String> {
    let mut flows = Vec::new();
    let mut announced: Option<usize> = None;
    let mut ids = HashSet::new();
    for (n, row) in text.lines().enumerate() {
        let at = |m: String| format!("line {}: {m}", n + 1);
        let tokens: Vec<&str> = row.split_whitespace().collect();
        let Some(&head) = tokens.first() else { continue };
        if head.starts_with('#') {
            continue;
        }
        let number = |t: Option<&&str>, what: &str| {
            t.and_then(|v| v.parse::<u64>().ok()).ok_or_else(|| at(format!("{what} needs a non-negative integer")))
        };
        match head {
            "Nodes" => {
                number(tokens.get(1), "Nodes")?;
            }
            "Connections" => announced = Some(number(tokens.get(1), "Connections")? as usize),
            "Triggers" | "Failures" if number(tokens.get(1), head)? == 0 => {}
            "Triggers" | "Failures" | "trigger" | "failure" => {
                return Err(at(format!("htsim {} are not supported: every flow needs its start time", head.to_lowercase().trim_end_matches('s'))))
            }
            _ if head.contains("->") => flows.push(htsim_connection(&tokens, &mut ids).map_err(at)?),
            _ => return Err(at(format!("expected `Nodes N`, `Connections M` or `src->dst id I start T size B`, got {row:?}"))),
        }
    }
    if let Some(m) = announced.filter(|&m| m != flows.len()) {
        return Err(format!("Connections announces {m} flows, the file has {}", flows.len()));
    }
    Ok(flows)
}

/// One `src->dst key value ...` line.
fn htsim_connection(tokens: &[&str], ids: &mut HashSet<u64>) -> Result<ExplicitFlow, String> {
    let (src, dst) = tokens[0].split_once("->").expect("checked by the caller");
    let host = |v: &str, name: &str| v.parse::<u32>().map_err(|_| format!("{name} = {v:?} is not a host index"));
    let (src, dst) = (host(src, "src")?, host(dst, "dst")?);
    let (mut start, mut size) = (None, None);
    let mut pairs = tokens[1..].iter();
    while let Some(&key) = pairs.next() {
        let value = pairs.next().ok_or_else(|| format!("{key} has no value"))?;
        let int = || value.parse::<u64>().map_err(|_| format!("{key} = {value:?} is not a non-negative integer"));
        match key {
            "id" => {
                let id = int()?;
                if id == 0 || !ids.insert(id) {
                    return Err(format!("id {id} is zero or appears twice"));
                }
            }
            "start" => match value.parse::<f64>() {
                Ok(ps) if ps.is_finite() && ps >= 0.0 => start = Some(Dur(ps.round() as u64)),
                _ => return Err(format!("start = {value:?} is not a non-negative number of picoseconds")),
            },
            "size" => size = Some(Bytes(int()?)),
            "prio" => {
                int()?;
            }
            "trigger" | "send_done_trigger" | "recv_done_trigger" => {
                return Err(format!("htsim {key} is not supported: every flow needs its start time"))
            }
            _ => return Err(format!("unknown key {key:?} (htsim connections have id, start, size, prio)")),
        }
    }
    let start = start.ok_or("no start (picoseconds)")?;
    let size = size.ok_or("no size (bytes)")?;
    Ok(ExplicitFlow { src, dst, size, start, deadline: None })
}

/// Parses a YAPS flow trace; the error names the line.
pub(crate) fn parse_yaps(text: &str) -> Result<Vec<ExplicitFlow>, String> {
    let mut flows = Vec::new();
    let mut ids = HashSet::new();
    for (n, row) in text.lines().enumerate() {
        let at = |m: String| format!("line {}: {m}", n + 1);
        let f: Vec<&str> = row.split_whitespace().collect();
        if f.is_empty() {
            continue;
        }
        if f.len() != 9 {
            return Err(at(format!("expected `id start_s _ _ size_in_packets _ _ src dst` (YAPS), got {row:?}")));
        }
        let int = |i: usize, name: &str| f[i].parse::<u32>().map_err(|_| at(format!("{name} = {:?} is not a non-negative integer", f[i])));
        let id = int(0, "id")?;
        if !ids.insert(id) {
            return Err(at(format!("id {id} appears twice")));
        }
        let start = match f[1].parse::<f64>() {
            Ok(s) if s.is_finite() && s >= 0.0 => Dur::from_secs_f64(s),
            _ => return Err(at(format!("start_s = {:?} is not a non-negative number of seconds", f[1]))),
        };
        let packets = int(4, "size_in_packets")?;
        if packets == 0 {
            return Err(at("size_in_packets must be at least 1".into()));
        }
        let size = Bytes(packets as u64 * YAPS_MSS);
        flows.push(ExplicitFlow { src: int(7, "src")?, dst: int(8, "dst")?, size, start, deadline: None });
    }
    Ok(flows)
}

/// The first flow with a deadline, which these formats cannot carry.
fn refuse_deadlines(flows: &[FlowSpec], format: &str) -> Result<(), String> {
    match flows.iter().find(|f| f.deadline.is_some()) {
        Some(f) => Err(format!("flow {} has a deadline, which {format} cannot carry (export as csv keeps it)", f.id)),
        None => Ok(()),
    }
}

/// Writes flows as an HPCC flow file, start times exact to the picosecond.
pub(crate) fn format_hpcc(flows: &[FlowSpec]) -> Result<String, String> {
    refuse_deadlines(flows, "an HPCC flow file")?;
    let mut out = format!("{}\n", flows.len());
    for f in flows {
        out += &format!("{} {} {HPCC_PG_DPORT} {} {}\n", f.src, f.dst, f.size.0, seconds(f.start.0));
    }
    Ok(out)
}

/// Writes flows as an htsim connection matrix over `hosts` nodes; ids are
/// dcflow's plus one (htsim refuses id 0).
pub(crate) fn format_htsim(flows: &[FlowSpec], hosts: usize) -> Result<String, String> {
    refuse_deadlines(flows, "an htsim connection matrix")?;
    let mut out = format!("Nodes {hosts}\nConnections {}\n", flows.len());
    for f in flows {
        out += &format!("{}->{} id {} start {} size {}\n", f.src, f.dst, f.id + 1, f.start.0, f.size.0);
    }
    Ok(out)
}

/// Writes flows as a YAPS flow trace, each size rounded up to whole
/// 1460-byte packets, start times exact to the picosecond.
pub(crate) fn format_yaps(flows: &[FlowSpec]) -> Result<String, String> {
    refuse_deadlines(flows, "a YAPS flow trace")?;
    let mut out = String::new();
    for f in flows {
        let packets = f.size.0.div_ceil(YAPS_MSS).max(1);
        out += &format!("{} {} 0 0 {packets} 0 0 {} {}\n", f.id, seconds(f.start.0), f.src, f.dst);
    }
    Ok(out)
}

#[cfg(test)]
mod tests {
    use super::*;
    use dcflow_core::Time;

    fn spec(id: u32, src: u32, dst: u32, size: u64, start_ps: u64) -> FlowSpec {
        FlowSpec { id, src, dst, size: Bytes(size), start: Time(start_ps), deadline: None, size_known: false }
    }

    fn explicit(f: &FlowSpec) -> ExplicitFlow {
        ExplicitFlow { src: f.src, dst: f.dst, size: f.size, start: Dur(f.start.0), deadline: None }
    }

    #[test]
    fn both_formats_round_trip_to_the_picosecond() {
        let flows = [spec(0, 1, 0, 1460, 0), spec(1, 2, 0, 2_000_000, 1_234_567)];
        let want: Vec<ExplicitFlow> = flows.iter().map(explicit).collect();
        assert_eq!(parse_hpcc(&format_hpcc(&flows).unwrap()).unwrap(), want);
        assert_eq!(parse_htsim(&format_htsim(&flows, 4).unwrap()).unwrap(), want);
        // YAPS counts whole packets: sizes that are round trip exactly.
        let whole = [spec(0, 1, 0, 1460, 0), spec(1, 2, 0, 1370 * 1460, 1_234_567)];
        assert_eq!(parse_yaps(&format_yaps(&whole).unwrap()).unwrap(), whole.iter().map(explicit).collect::<Vec<_>>());
    }

    #[test]
    fn yaps_lines_count_whole_packets() {
        let flows = [spec(7, 3, 140, 1461, 2_500_000), spec(8, 0, 1, 1, 0)];
        assert_eq!(format_yaps(&flows).unwrap(), "7 0.0000025 0 0 2 0 0 3 140\n8 0 0 0 1 0 0 0 1\n");
        let read = parse_yaps("1 0.25 0 0 19 0 0 5 17\n").unwrap();
        assert_eq!((read[0].src, read[0].dst, read[0].size, read[0].start), (5, 17, Bytes(19 * 1460), Dur::ms(250)));
        let e = parse_yaps("1 0 0 0 1 0 0 5 17\n1 0 0 0 1 0 0 5 17\n").unwrap_err();
        assert!(e.contains("line 2") && e.contains("twice"), "{e}");
        let e = parse_yaps("1 0 0 0 0 0 0 5 17\n").unwrap_err();
        assert!(e.contains("line 1") && e.contains("at least 1"), "{e}");
        let e = parse_yaps("1 0 0 0 3 5 17\n").unwrap_err();
        assert!(e.contains("YAPS"), "{e}");
    }

    #[test]
    fn reads_the_simulators_own_files() {
        let hpcc = parse_hpcc("2\n2 1 3 100 200000000 2\n0 1 3 100 1000 2.000000001\n").unwrap();
        assert_eq!((hpcc[0].src, hpcc[0].dst, hpcc[0].size, hpcc[0].start), (2, 1, Bytes(200_000_000), Dur::ms(2000)));
        assert_eq!(hpcc[1].start.0, 2_000_000_001_000);
        let htsim = parse_htsim("Nodes 16\nConnections 2\n7->5 id 1 start 0 size 2000000\n15->1 id 2 start 1e6 size 100 prio 3\n").unwrap();
        assert_eq!((htsim[1].src, htsim[1].dst, htsim[1].start, htsim[1].size), (15, 1, Dur::us(1), Bytes(100)));
    }

    #[test]
    fn bad_files_name_the_line() {
        let e = parse_hpcc("3\n0 1 3 100 10 0\n").unwrap_err();
        assert!(e.contains("announces 3"), "{e}");
        let e = parse_hpcc("1\n0 1 3 10 0\n").unwrap_err();
        assert!(e.contains("line 2") && e.contains("HPCC"), "{e}");
        let e = parse_htsim("Nodes 2\n0->1 id 1 trigger 2\n").unwrap_err();
        assert!(e.contains("line 2") && e.contains("trigger"), "{e}");
        let e = parse_htsim("0->1 id 1 size 10\n").unwrap_err();
        assert!(e.contains("no start"), "{e}");
        let e = parse_htsim("0->1 id 1 start 0 size 10\n1->0 id 1 start 0 size 10\n").unwrap_err();
        assert!(e.contains("line 2") && e.contains("twice"), "{e}");
        let mut with_deadline = spec(0, 1, 0, 10, 0);
        with_deadline.deadline = Some(Dur::ms(1));
        assert!(format_hpcc(&[with_deadline]).unwrap_err().contains("deadline"));
    }
}
