//! CSV flow traces: `id,src,dst,size_bytes,start_s,deadline_s`, the same
//! columns (and units) as the `flows` output table (docs/outputs.md), so a run's
//! flows can be replayed. `deadline_s` is relative to the start and may be
//! empty. A header line starting with `id` and `#` comments are skipped. Ids
//! must be unique; flows are renumbered densely in start order when generated.

use crate::config::ExplicitFlow;
use crate::generate::FlowSpec;
use dcflow_core::{Bytes, ConfigError, Dur, PS_PER_S};
use std::collections::HashSet;
use std::path::Path;

const HEADER: &str = "id,src,dst,size_bytes,start_s,deadline_s";

/// Reads a trace file. The error key is `workload.trace`; the message names
/// the file and line.
pub fn read_trace(path: &Path) -> Result<Vec<ExplicitFlow>, ConfigError> {
    let text = std::fs::read_to_string(path).map_err(|e| {
        ConfigError::new(
            "workload.trace",
            format!("cannot read {}: {e}", path.display()),
        )
    })?;
    parse_trace(&text)
        .map_err(|m| ConfigError::new("workload.trace", format!("{}: {m}", path.display())))
}

/// Parses trace text; the error names the line.
pub fn parse_trace(text: &str) -> Result<Vec<ExplicitFlow>, String> {
    let mut flows = Vec::new();
    let mut ids = HashSet::new();
    for (n, line) in text.lines().enumerate() {
        let line = line.trim();
        if line.is_empty() || line.starts_with('#') || (n == 0 && line.starts_with("id")) {
            continue;
        }
        let at = |m: String| format!("line {}: {m}", n + 1);
        let f: Vec<&str> = line.split(',').map(str::trim).collect();
        if f.len() != 6 {
            return Err(at(format!(
                "expected 6 columns ({HEADER}), got {}",
                f.len()
            )));
        }
        let int = |i: usize| {
            f[i].parse::<u64>().map_err(|_| {
                at(format!(
                    "{} = {:?} is not a non-negative integer",
                    col(i),
                    f[i]
                ))
            })
        };
        let host = |i: usize| {
            int(i).and_then(|v| {
                u32::try_from(v).map_err(|_| at(format!("{} = {v} is too large", col(i))))
            })
        };
        let secs = |i: usize| match f[i].parse::<f64>() {
            Ok(s) if s.is_finite() && s >= 0.0 => Ok(Dur::from_secs_f64(s)),
            _ => Err(at(format!(
                "{} = {:?} is not a non-negative number of seconds",
                col(i),
                f[i]
            ))),
        };
        if !ids.insert(int(0)?) {
            return Err(at(format!("id {} appears twice", f[0])));
        }
        flows.push(ExplicitFlow {
            src: host(1)?,
            dst: host(2)?,
            size: Bytes(int(3)?),
            start: secs(4)?,
            deadline: if f[5].is_empty() {
                None
            } else {
                Some(secs(5)?)
            },
        });
    }
    Ok(flows)
}

fn col(i: usize) -> &'static str {
    HEADER.split(',').nth(i).expect("six columns")
}

/// Writes flows as a trace (with header), times exact to the picosecond.
pub fn format_trace(flows: &[FlowSpec]) -> String {
    let mut out = format!("{HEADER}\n");
    for f in flows {
        let deadline = f.deadline.map_or(String::new(), |d| seconds(d.0));
        out += &format!(
            "{},{},{},{},{},{deadline}\n",
            f.id,
            f.src,
            f.dst,
            f.size.0,
            seconds(f.start.0)
        );
    }
    out
}

/// `ps` as decimal seconds without rounding.
fn seconds(ps: u64) -> String {
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
        let e =
            parse_trace("id,src,dst,size_bytes,start_s,deadline_s\n0,1,0,100,0,\n1,x,0,100,0,\n")
                .unwrap_err();
        assert!(e.contains("line 3") && e.contains("src"), "{e}");
        let e = parse_trace("0,1,0,100,0,\n0,2,0,100,0,\n").unwrap_err();
        assert!(e.contains("line 2") && e.contains("twice"), "{e}");
        let e = parse_trace("0,1,0,100,-1,\n").unwrap_err();
        assert!(e.contains("start_s"), "{e}");
        let e = parse_trace("0,1,0,100\n").unwrap_err();
        assert!(e.contains("6 columns"), "{e}");
    }
}
