//! Empirical flow-size distributions given as a piecewise-linear CDF.
//!
//! Sampling is by inverse transform with linear interpolation between the
//! points, the convention of ns-2's `EmpiricalRandomVariable` (interpolation
//! on) that pFabric, PIAS and pHost used to drive their simulations with these
//! same tables: draw `u` uniform in [0, 1), find the first point whose
//! cumulative probability is `>= u`, and interpolate linearly in size between
//! it and the point before. A point `(x0, p0)` with `p0 > 0` is an atom at `x0`.

use serde::{Deserialize, Serialize};

/// Bytes per packet in the pFabric tables, whose sizes are counted in 1460-byte
/// TCP segments.
const PFABRIC_PACKET: f64 = 1460.0;

/// Web search (DCTCP, Alizadeh et al., SIGCOMM'10, Fig. 4), as the packet-count
/// table `CDF_dctcp.tcl` of the pFabric ns-2 simulations (Alizadeh et al.,
/// SIGCOMM'13, Fig. 4a), reused by PIAS and pHost. Mean 1141 packets ≈ 1.67 MB.
const WEB_SEARCH_PACKETS: [(f64, f64); 12] = [
    (6.0, 0.0),
    (6.0, 0.15),
    (13.0, 0.2),
    (19.0, 0.3),
    (33.0, 0.4),
    (53.0, 0.53),
    (133.0, 0.6),
    (667.0, 0.7),
    (1333.0, 0.8),
    (3333.0, 0.9),
    (6667.0, 0.97),
    (20000.0, 1.0),
];

/// Data mining (VL2, Greenberg et al., SIGCOMM'09, Fig. 2), as the packet-count
/// table `CDF_vl2.tcl` of the pFabric simulations (Fig. 4b): half of the flows
/// are one packet, 1% are over 66,667 packets. Mean ≈ 5117 packets ≈ 7.47 MB.
const DATA_MINING_PACKETS: [(f64, f64); 9] = [
    (1.0, 0.0),
    (1.0, 0.5),
    (2.0, 0.6),
    (3.0, 0.7),
    (7.0, 0.8),
    (267.0, 0.9),
    (2107.0, 0.95),
    (66667.0, 0.99),
    (666667.0, 1.0),
];

/// How a CDF file lays out its rows (`size = { dist = "cdf", file = ..., format = ... }`).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum CdfFormat {
    /// `size_bytes,cumulative_probability`, comma-separated.
    #[default]
    Dcflow,
    /// YAPS (and pFabric's ns-2 `CDF_*.tcl`): `size_in_packets  1  cdf`,
    /// whitespace-separated, sizes in 1460-byte packets (YAPS multiplies by
    /// 1460 for its mean flow size), the middle column unused.
    Yaps,
    /// HPCC's `traffic_gen` (`WebSearch_distribution.txt`): `size_bytes
    /// cdf_percent`, whitespace-separated, probabilities in percent (0-100).
    Hpcc,
}

impl CdfFormat {
    /// As the scenario spells it.
    pub fn name(self) -> &'static str {
        match self {
            CdfFormat::Dcflow => "dcflow",
            CdfFormat::Yaps => "yaps",
            CdfFormat::Hpcc => "hpcc",
        }
    }

    /// One row, as error messages show it.
    fn layout(self) -> &'static str {
        match self {
            CdfFormat::Dcflow => "size_bytes,cumulative_probability",
            CdfFormat::Yaps => "size_in_packets unused cumulative_probability (YAPS)",
            CdfFormat::Hpcc => "size_bytes cumulative_percent (HPCC)",
        }
    }
}

/// The built-in CDFs (`size = { dist = "cdf", name = ... }`).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum CdfName {
    WebSearch,
    DataMining,
}

/// A validated CDF: sizes in bytes and cumulative probabilities, both
/// non-decreasing, the last probability 1.
#[derive(Clone, Debug, PartialEq)]
pub struct EmpiricalCdf {
    points: Vec<(f64, f64)>,
}

impl EmpiricalCdf {
    /// Checks the points; the error says which row (0-based) is wrong.
    pub fn new(points: Vec<(f64, f64)>) -> Result<EmpiricalCdf, String> {
        if points.is_empty() {
            return Err("the CDF has no rows".into());
        }
        for (i, &(x, p)) in points.iter().enumerate() {
            if !x.is_finite() || x < 0.0 {
                return Err(format!(
                    "row {i}: size {x} must be a non-negative number of bytes"
                ));
            }
            if !(0.0..=1.0).contains(&p) {
                return Err(format!("row {i}: probability {p} must be in [0, 1]"));
            }
            if i > 0 {
                let (px, pp) = points[i - 1];
                if x < px || p < pp {
                    return Err(format!(
                        "row {i}: ({x}, {p}) decreases after ({px}, {pp}); sizes and \
                         probabilities must be non-decreasing"
                    ));
                }
            }
        }
        let last = points[points.len() - 1].1;
        if (last - 1.0).abs() > 1e-9 {
            return Err(format!(
                "the last cumulative probability is {last}, it must be 1"
            ));
        }
        Ok(EmpiricalCdf { points })
    }

    /// One of the published distributions, in bytes.
    pub fn builtin(name: CdfName) -> EmpiricalCdf {
        let table: &[(f64, f64)] = match name {
            CdfName::WebSearch => &WEB_SEARCH_PACKETS,
            CdfName::DataMining => &DATA_MINING_PACKETS,
        };
        let points = table
            .iter()
            .map(|&(pk, p)| (pk * PFABRIC_PACKET, p))
            .collect();
        EmpiricalCdf::new(points).expect("built-in CDFs are valid")
    }

    /// The distribution of min(X, `max`) (`size.max`): below `max` it is
    /// this one, and the probability of every size above `max` becomes an
    /// atom at `max`. A Poisson load then counts the capped mean, so capping
    /// a heavy tail (data mining's flows reach 973 MB) keeps the offered
    /// load and shortens the run.
    pub fn capped(&self, max: f64) -> EmpiricalCdf {
        let below = self.points.partition_point(|&(x, _)| x < max);
        if below == self.points.len() {
            return self.clone();
        }
        let mut points = self.points[..below].to_vec();
        if let Some(&(xa, pa)) = points.last() {
            let (xb, pb) = self.points[below];
            points.push((max, pa + (max - xa) / (xb - xa) * (pb - pa)));
        }
        points.push((max, 1.0));
        EmpiricalCdf::new(points).expect("a capped CDF is still non-decreasing and ends at 1")
    }

    /// Reads rows `size_bytes,cumulative_probability` (dcflow's own layout).
    pub fn parse_csv(text: &str) -> Result<EmpiricalCdf, String> {
        EmpiricalCdf::parse(text, CdfFormat::Dcflow)
    }

    /// Reads a CDF file in `format`. Blank lines and `#` comments are
    /// skipped, and so is a header line whose first field is not a number
    /// (the other simulators' files have none, but a spreadsheet export may).
    /// Each row becomes `(bytes, probability)`, so every format samples the
    /// same way once read.
    pub fn parse(text: &str, format: CdfFormat) -> Result<EmpiricalCdf, String> {
        let mut points = Vec::new();
        for (n, line) in text.lines().enumerate() {
            let line = line.trim();
            if line.is_empty() || line.starts_with('#') {
                continue;
            }
            let fields: Vec<&str> = match format {
                CdfFormat::Dcflow => line.split(',').map(str::trim).collect(),
                CdfFormat::Yaps | CdfFormat::Hpcc => line.split_whitespace().collect(),
            };
            if points.is_empty() && n == 0 && fields[0].parse::<f64>().is_err() {
                continue; // header
            }
            let bad = || format!("line {}: expected `{}`, got {line:?}", n + 1, format.layout());
            let numbers: Vec<f64> = fields.iter().map(|f| f.parse::<f64>()).collect::<Result<_, _>>().map_err(|_| bad())?;
            let point = match (format, numbers.as_slice()) {
                (CdfFormat::Dcflow, &[bytes, p]) => (bytes, p),
                // YAPS reads the second column and then overwrites it with the
                // third: only the first and last count.
                (CdfFormat::Yaps, &[packets, _, p]) => (packets * PFABRIC_PACKET, p),
                (CdfFormat::Hpcc, &[bytes, percent]) => (bytes, percent / 100.0),
                _ => return Err(bad()),
            };
            points.push(point);
        }
        EmpiricalCdf::new(points)
    }

    /// Mean of the piecewise-linear distribution, in bytes: the atom at the
    /// first point plus the midpoint of every segment weighted by its mass.
    pub fn mean(&self) -> f64 {
        let (x0, p0) = self.points[0];
        let mut m = x0 * p0;
        for w in self.points.windows(2) {
            let ((xa, pa), (xb, pb)) = (w[0], w[1]);
            m += (pb - pa) * (xa + xb) / 2.0;
        }
        m
    }

    /// The size (bytes, not rounded) at quantile `u` in [0, 1).
    pub fn quantile(&self, u: f64) -> f64 {
        let i = self.points.partition_point(|&(_, p)| p < u);
        if i == 0 {
            return self.points[0].0;
        }
        let Some(&(xb, pb)) = self.points.get(i) else {
            return self.points[self.points.len() - 1].0;
        };
        let (xa, pa) = self.points[i - 1];
        xa + (u - pa) / (pb - pa) * (xb - xa)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn builtin_means_match_the_published_tables() {
        // pFabric scripts quote mean_flow_size = 1138 * 1460 (web search) and
        // 5117 * 1460 (data mining); exact piecewise-linear means of the tables:
        let ws = EmpiricalCdf::builtin(CdfName::WebSearch).mean() / PFABRIC_PACKET;
        let dm = EmpiricalCdf::builtin(CdfName::DataMining).mean() / PFABRIC_PACKET;
        assert!((ws - 1140.98).abs() < 1e-6, "{ws}");
        assert!((dm - 5116.6).abs() < 1e-6, "{dm}");
    }

    /// Capping is min(X, cap) quantile by quantile, and the mass above the
    /// cap becomes an atom at it.
    #[test]
    fn capping_is_min_of_the_size_and_the_cap() {
        let dm = EmpiricalCdf::builtin(CdfName::DataMining);
        let capped = dm.capped(30e6);
        for i in 0..1000 {
            let u = i as f64 / 1000.0;
            let (want, got) = (dm.quantile(u).min(30e6), capped.quantile(u));
            assert!((got - want).abs() <= 1e-9 * want, "u = {u}: {got} != {want}");
        }
        // P(X <= 30 MB) interpolates between 2107 packets (0.95) and 66,667 (0.99).
        let p = 0.95 + 0.04 * (30e6 - 2107.0 * PFABRIC_PACKET) / ((66667.0 - 2107.0) * PFABRIC_PACKET);
        let last = &capped.points[capped.points.len() - 2..];
        assert!((last[0].1 - p).abs() < 1e-12 && last[0].0 == 30e6 && last[1] == (30e6, 1.0), "{last:?}");
        assert_eq!(dm.capped(1e12), dm, "a cap above every size changes nothing");
        assert_eq!(dm.capped(100.0).points, vec![(100.0, 1.0)], "a cap below every size is a fixed size");
    }

    #[test]
    fn quantile_interpolates_and_honours_atoms() {
        let c = EmpiricalCdf::new(vec![(100.0, 0.5), (200.0, 0.75), (1000.0, 1.0)]).unwrap();
        assert_eq!(c.quantile(0.0), 100.0);
        assert_eq!(c.quantile(0.4), 100.0); // atom
        assert_eq!(c.quantile(0.625), 150.0);
        assert_eq!(c.quantile(0.875), 600.0);
        assert_eq!(c.mean(), 100.0 * 0.5 + 150.0 * 0.25 + 600.0 * 0.25);
    }

    #[test]
    fn rejects_non_monotone_and_incomplete_cdfs_naming_the_row() {
        let e = EmpiricalCdf::parse_csv("size_bytes,p\n100,0.2\n50,0.5\n200,1\n").unwrap_err();
        assert!(e.contains("row 1"), "{e}");
        let e = EmpiricalCdf::parse_csv("100,0.2\n200,0.1\n300,1\n").unwrap_err();
        assert!(e.contains("row 1"), "{e}");
        let e = EmpiricalCdf::parse_csv("100,0.2\n200,0.9\n").unwrap_err();
        assert!(e.contains("must be 1"), "{e}");
        let e = EmpiricalCdf::parse_csv("100,0.2\n300;1\n").unwrap_err();
        assert!(e.contains("line 2"), "{e}");
        assert!(EmpiricalCdf::parse_csv("# comment\n0,0\n10,1\n").is_ok());
    }

    /// YAPS's `CDF_dctcp.txt` is the web-search table in packets: read as
    /// YAPS, it is the built-in web-search CDF; HPCC's layout is percent.
    #[test]
    fn other_simulators_layouts() {
        let yaps: String = WEB_SEARCH_PACKETS.iter().map(|(pk, p)| format!("{pk} 1 {p}\n")).collect();
        assert_eq!(EmpiricalCdf::parse(&yaps, CdfFormat::Yaps).unwrap(), EmpiricalCdf::builtin(CdfName::WebSearch));
        let hpcc = EmpiricalCdf::parse("0 0\n10000 15\n30000000 100\n", CdfFormat::Hpcc).unwrap();
        assert_eq!(hpcc.points, vec![(0.0, 0.0), (10000.0, 0.15), (30000000.0, 1.0)]);
        let e = EmpiricalCdf::parse("6 1 0\n6 0.15\n", CdfFormat::Yaps).unwrap_err();
        assert!(e.contains("line 2") && e.contains("YAPS"), "{e}");
        let e = EmpiricalCdf::parse("0 0\n100 0.5\n200 1\n", CdfFormat::Hpcc).unwrap_err();
        assert!(e.contains("must be 1"), "a [0, 1] file read as percent: {e}");
    }
}
