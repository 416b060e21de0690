//! CSV flow traces, read by column name with standard CSV quoting (the `csv`
//! crate), with the columns and meanings of the `flows` output table
//! (docs/outputs.md): `src, dst, size_bytes, start_s` required, `id` and
//! `deadline_s` optional. `deadline_s` is absolute (seconds from 0) and may
//! be empty, as in `flows.parquet`, so a run's flows table (or its CSV
//! export, e.g. `pyarrow.csv.write_csv`) replays to the same flows; its other
//! columns (`finish_s`, `fct_s`, ...) are accepted and not read. A file
//! without a header has the columns `id,src,dst,size_bytes,start_s,deadline_s`
//! in that order. `#` lines are comments. Ids must be unique; flows are
//! renumbered densely in start order when generated.
//!
//! Other simulators' flow files (HPCC, htsim, YAPS) are read and written by
//! [`crate::foreign`]; [`TraceFormat`] picks one.

use crate::config::ExplicitFlow;
use crate::foreign;
use crate::generate::FlowSpec;
use dcflow_core::{Bytes, ConfigError, Dur, PS_PER_S};
use serde::{Deserialize, Serialize};
use std::collections::HashSet;
use std::path::Path;

/// The format of a flow file (`workload.trace_format`, `dcflow export --format`).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum TraceFormat {
    /// dcflow's CSV trace (the flows table's columns).
    #[default]
    Dcflow,
    /// HPCC's ns-3 flow file.
    Hpcc,
    /// htsim's connection matrix.
    Htsim,
    /// YAPS's flow trace (`use_flow_trace: 1`).
    Yaps,
}

impl TraceFormat {
    /// By the name the scenario and the CLI use (`csv` is dcflow's trace).
    pub fn from_name(name: &str) -> Option<TraceFormat> {
        match name {
            "dcflow" | "csv" => Some(TraceFormat::Dcflow),
            "hpcc" => Some(TraceFormat::Hpcc),
            "htsim" => Some(TraceFormat::Htsim),
            "yaps" => Some(TraceFormat::Yaps),
            _ => None,
        }
    }
}

const HEADER: &str = "id,src,dst,size_bytes,start_s,deadline_s";
/// The columns a trace is read from.
const READ: [&str; 6] = ["id", "src", "dst", "size_bytes", "start_s", "deadline_s"];
/// The flows table's other columns: a replayed output, not read.
const OUTPUT_ONLY: [&str; 7] =
    ["finish_s", "fct_s", "ideal_fct_s", "slowdown", "met_deadline", "terminated", "bytes_delivered"];
const REQUIRED: [&str; 4] = ["src", "dst", "size_bytes", "start_s"];

/// Reads a flow file in `format`. The error key is `workload.trace`; the
/// message names the file and line.
pub fn read_trace(path: &Path, format: TraceFormat) -> Result<Vec<ExplicitFlow>, ConfigError> {
    let text = std::fs::read_to_string(path)
        .map_err(|e| ConfigError::new("workload.trace", format!("cannot read {}: {e}", path.display())))?;
    let flows = match format {
        TraceFormat::Dcflow => parse_trace(&text),
        TraceFormat::Hpcc => foreign::parse_hpcc(&text),
        TraceFormat::Htsim => foreign::parse_htsim(&text),
        TraceFormat::Yaps => foreign::parse_yaps(&text),
    };
    flows.map_err(|m| ConfigError::new("workload.trace", format!("{}: {m}", path.display())))
}

/// A trace's CSV records: `#` comments, an optional header (told apart by
/// [`Columns::from_header`]), rows of varying length, fields trimmed.
fn csv_reader(text: &str) -> csv::Reader<&[u8]> {
    csv::ReaderBuilder::new()
        .has_headers(false)
        .comment(Some(b'#'))
        .flexible(true)
        .trim(csv::Trim::All)
        .from_reader(text.as_bytes())
}

/// The line (from 1) a CSV record is on. The csv crate's own line count
/// leaves out the comment lines it skips, and its byte offset is where the
/// blank lines before the record begin: counted from there, past them.
fn line_of(text: &str, p: &csv::Position) -> u64 {
    let bytes = text.as_bytes();
    let at = (p.byte() as usize).min(bytes.len());
    let blank = bytes[at..].iter().take_while(|b| b.is_ascii_whitespace()).filter(|&&b| b == b'\n').count();
    (bytes[..at].iter().filter(|&&b| b == b'\n').count() + blank) as u64 + 1
}

/// The line of the file at `path` that holds its flow number `row` (from
/// 0), as [`read_trace`] counts flows; for error messages about a flow
/// the file parsed into (a host outside the topology), so it is read again.
pub(crate) fn trace_line(path: &Path, format: TraceFormat, row: usize) -> Option<u64> {
    let text = std::fs::read_to_string(path).ok()?;
    match format {
        TraceFormat::Dcflow => {
            let mut reader = csv_reader(&text);
            let mut records = reader.records().filter_map(Result::ok).peekable();
            let header = records.peek().is_some_and(|r| matches!(Columns::from_header(r), Ok(Some(_))));
            records.nth(row + usize::from(header))?.position().map(|p| line_of(&text, p))
        }
        // Every non-empty line is a flow, after HPCC's first (the count).
        TraceFormat::Hpcc | TraceFormat::Yaps => text
            .lines()
            .enumerate()
            .filter(|(_, l)| !l.trim().is_empty())
            .nth(row + usize::from(matches!(format, TraceFormat::Hpcc)))
            .map(|(n, _)| n as u64 + 1),
        TraceFormat::Htsim => text
            .lines()
            .enumerate()
            .filter(|(_, l)| l.split_whitespace().next().is_some_and(|h| !h.starts_with('#') && h.contains("->")))
            .nth(row)
            .map(|(n, _)| n as u64 + 1),
    }
}

/// Writes flows in `format`; `hosts` is the topology's host count (htsim's
/// `Nodes`). Fails when the format cannot carry the flows (deadlines).
pub fn format_flows(flows: &[FlowSpec], format: TraceFormat, hosts: usize) -> Result<String, String> {
    match format {
        TraceFormat::Dcflow => Ok(format_trace(flows)),
        TraceFormat::Hpcc => foreign::format_hpcc(flows),
        TraceFormat::Htsim => foreign::format_htsim(flows, hosts),
        TraceFormat::Yaps => foreign::format_yaps(flows),
    }
}

/// Where each column read sits in a row.
struct Columns([Option<usize>; 6]);

impl Columns {
    /// From a header row, by name; `None` when the first row is data.
    fn from_header(row: &csv::StringRecord) -> Result<Option<Columns>, String> {
        if row.get(0).is_some_and(|f| f.trim().parse::<f64>().is_ok()) {
            return Ok(None);
        }
        let mut at = [None; 6];
        for (i, name) in row.iter().map(str::trim).enumerate() {
            match READ.iter().position(|&c| c == name) {
                Some(c) if at[c].is_some() => return Err(format!("line 1: column {name} appears twice")),
                Some(c) => at[c] = Some(i),
                None if OUTPUT_ONLY.contains(&name) => {}
                None => {
                    return Err(format!(
                        "line 1: unknown column {name:?}; a trace has {} (and may carry the flows table's {})",
                        READ.join(", "),
                        OUTPUT_ONLY.join(", ")
                    ))
                }
            }
        }
        if let Some(missing) = REQUIRED.iter().find(|c| at[READ.iter().position(|r| r == *c).unwrap()].is_none()) {
            return Err(format!("line 1: no {missing} column (required: {})", REQUIRED.join(", ")));
        }
        Ok(Some(Columns(at)))
    }

    fn positional() -> Columns {
        Columns([Some(0), Some(1), Some(2), Some(3), Some(4), Some(5)])
    }
}

/// Parses trace text; the error names the line.
pub fn parse_trace(text: &str) -> Result<Vec<ExplicitFlow>, String> {
    let mut reader = csv_reader(text);
    let mut flows = Vec::new();
    let mut ids = HashSet::new();
    let mut columns: Option<Columns> = None;
    let mut headerless = false;
    for (n, row) in reader.records().enumerate() {
        let row = row.map_err(|e| format!("not CSV: {e}"))?;
        let line = row.position().map_or(n as u64 + 1, |p| line_of(text, p));
        let at = |m: String| format!("line {line}: {m}");
        if columns.is_none() {
            match Columns::from_header(&row)? {
                Some(c) => {
                    columns = Some(c);
                    continue;
                }
                None => {
                    columns = Some(Columns::positional());
                    headerless = true;
                }
            }
        }
        let cols = columns.as_ref().expect("set above");
        let field = |c: usize| cols.0[c].and_then(|i| row.get(i)).unwrap_or("");
        if headerless && row.len() != 6 {
            return Err(at(format!("expected 6 columns ({HEADER}) without a header, got {}", row.len())));
        }
        let int = |c: usize| {
            field(c).parse::<u64>().map_err(|_| at(format!("{} = {:?} is not a non-negative integer", READ[c], field(c))))
        };
        let host = |c: usize| int(c).and_then(|v| u32::try_from(v).map_err(|_| at(format!("{} = {v} is too large", READ[c]))));
        let secs = |c: usize| match field(c).parse::<f64>() {
            Ok(s) if s.is_finite() && s >= 0.0 => Ok(Dur::from_secs_f64(s)),
            _ => Err(at(format!("{} = {:?} is not a non-negative number of seconds", READ[c], field(c)))),
        };
        if cols.0[0].is_some() && !ids.insert(int(0)?) {
            return Err(at(format!("id {} appears twice", field(0))));
        }
        let start = secs(4)?;
        let deadline = match field(5) {
            "" => None,
            _ => {
                let d = secs(5)?;
                if d <= start {
                    return Err(at(format!("deadline_s = {} is not after start_s = {} (deadline_s is absolute)", field(5), field(4))));
                }
                Some(Dur(d.0 - start.0))
            }
        };
        flows.push(ExplicitFlow { src: host(1)?, dst: host(2)?, size: Bytes(int(3)?), start, deadline });
    }
    Ok(flows)
}

/// Writes flows as a trace (with header), times exact to the picosecond;
/// `deadline_s` absolute, as in the flows table.
pub fn format_trace(flows: &[FlowSpec]) -> String {
    let mut out = format!("{HEADER}\n");
    for f in flows {
        let deadline = f.deadline.map_or(String::new(), |d| seconds(f.start.0 + d.0));
        out += &format!("{},{},{},{},{},{deadline}\n", f.id, f.src, f.dst, f.size.0, seconds(f.start.0));
    }
    out
}

/// `ps` as decimal seconds without rounding.
pub(crate) fn seconds(ps: u64) -> String {
    let (s, frac) = (ps / PS_PER_S, ps % PS_PER_S);
    if frac == 0 {
        return s.to_string();
    }
    let digits = format!("{frac:012}");
    format!("{s}.{}", digits.trim_end_matches('0'))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn seconds_are_exact() {
        assert_eq!(seconds(0), "0");
        assert_eq!(seconds(PS_PER_S * 2), "2");
        assert_eq!(seconds(1), "0.000000000001");
        assert_eq!(seconds(1_500_000_000_000), "1.5");
    }

    #[test]
    fn bad_rows_name_the_line_and_column() {
        let e = parse_trace("id,src,dst,size_bytes,start_s,deadline_s\n0,1,0,100,0,\n1,x,0,100,0,\n").unwrap_err();
        assert!(e.contains("line 3") && e.contains("src"), "{e}");
        let e = parse_trace("0,1,0,100,0,\n0,2,0,100,0,\n").unwrap_err();
        assert!(e.contains("line 2") && e.contains("twice"), "{e}");
        let e = parse_trace("0,1,0,100,-1,\n").unwrap_err();
        assert!(e.contains("start_s"), "{e}");
        let e = parse_trace("0,1,0,100\n").unwrap_err();
        assert!(e.contains("6 columns"), "{e}");
        let e = parse_trace("src,dst,size,start_s\n1,0,100,0\n").unwrap_err();
        assert!(e.contains("unknown column \"size\""), "{e}");
        let e = parse_trace("src,dst,start_s\n1,0,0\n").unwrap_err();
        assert!(e.contains("no size_bytes column"), "{e}");
        let e = parse_trace("src,dst,size_bytes,start_s,deadline_s\n1,0,100,0.5,0.2\n").unwrap_err();
        assert!(e.contains("not after start_s"), "{e}");
    }

    /// Columns are read by name: a header in another order (`dst` before
    /// `src`) must not reverse the flows; quoted headers (pyarrow's CSV
    /// writer) and the flows table's other columns are accepted.
    #[test]
    fn columns_by_name_quoted_and_with_output_columns() {
        let by_name = parse_trace("\"dst\",\"src\",\"size_bytes\",\"start_s\",\"deadline_s\",\"fct_s\"\n0,3,100,0.001,0.011,0.002\n").unwrap();
        assert_eq!((by_name[0].src, by_name[0].dst), (3, 0));
        assert_eq!(by_name[0].start, Dur::ms(1));
        assert_eq!(by_name[0].deadline, Some(Dur::ms(10)), "absolute 11 ms, 10 ms after the start");
        let table = parse_trace(
            "id,src,dst,size_bytes,start_s,deadline_s,finish_s,fct_s,ideal_fct_s,slowdown,met_deadline,terminated,bytes_delivered\n\
             0,1,0,100,0,0.003,0.001,0.001,0.0009,1.1,true,false,100\n",
        )
        .unwrap();
        assert_eq!((table[0].src, table[0].deadline), (1, Some(Dur::ms(3))), "a flows table replays");
        let positional = parse_trace("7,3,0,100,0.001,\n").unwrap();
        assert_eq!((positional[0].src, positional[0].dst, positional[0].deadline), (3, 0, None));
    }
}
