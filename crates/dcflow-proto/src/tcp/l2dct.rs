//! L2DCT (Munir et al., INFOCOM 2013) as a window rule of the DCTCP sender:
//! least-attained-service without switch changes. Its paper is not in
//! papers/; the rule is the one `../shared/papers/baselines.md` ("L2DCT")
//! takes from the public implementations (PIAS-NS2's LLDCT, FujiZ/ns-3's
//! `l2dct-socket.cc`). papers/004 §V-C and §VI compare LPD against it.

use dcflow_core::{ensure, Bytes, ConfigError};
use serde::{Deserialize, Serialize};

/// L2DCT's own keys: the weight range and the bytes-sent range it spans.
#[derive(Clone, Copy, Debug, PartialEq, Serialize, Deserialize)]
#[serde(default)]
pub struct L2dctRule {
    /// Weight of a flow that has sent at most `s_min`. Default 2.5
    /// (baselines.md "L2DCT", defaults of the ns-2 implementation).
    pub w_max: f64,
    /// Weight of a flow that has sent at least `s_max`. Default 0.125 (same).
    pub w_min: f64,
    /// Bytes sent below which a flow is "young". Default 200 KB (ns-2; the
    /// ns-3 version counts 200 segments instead).
    pub s_min: Bytes,
    /// Bytes sent from which a flow is "old". Default 1 MB (ns-2; ns-3: 1000
    /// segments).
    pub s_max: Bytes,
}

impl Default for L2dctRule {
    fn default() -> Self {
        L2dctRule { w_max: 2.5, w_min: 0.125, s_min: Bytes::kb(200), s_max: Bytes::mb(1) }
    }
}

impl L2dctRule {
    /// The weight w_c of a flow that has sent `sent` bytes (baselines.md
    /// "L2DCT", "Weight from bytes sent so far"): w_max up to s_min, falling
    /// linearly to w_min at s_max, w_min beyond.
    pub fn weight(&self, sent: u64) -> f64 {
        let (lo, hi) = (self.s_min.0, self.s_max.0);
        if sent <= lo {
            self.w_max
        } else if sent >= hi {
            self.w_min
        } else {
            let frac = (sent - lo) as f64 / (hi - lo) as f64;
            self.w_max - (self.w_max - self.w_min) * frac
        }
    }

    /// The fraction of the window cut on a window with marks, b_cut / 2 with
    /// b_cut = alpha^(w_c) (baselines.md "L2DCT", "On a window with marks"):
    /// a young flow (large w_c, alpha < 1) gets a small b_cut, a gentle cut.
    pub fn cut(&self, alpha: f64, sent: u64) -> f64 {
        alpha.powf(self.weight(sent)) / 2.0
    }

    /// Segments added per window of data acknowledged without marks,
    /// k = w_c / w_max (baselines.md "L2DCT", "Without marks"): 1 for a new
    /// flow, w_min / w_max (0.05 by default) for a long one.
    pub fn increase(&self, sent: u64) -> f64 {
        self.weight(sent) / self.w_max
    }

    pub(super) fn validate(&self) -> Result<(), ConfigError> {
        ensure(self.w_min > 0.0, "w_min", "must be greater than 0")?;
        ensure(self.w_max >= self.w_min, "w_max", "must be at least w_min")?;
        ensure(self.s_max.0 > self.s_min.0, "s_max", "must be greater than s_min")
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// baselines.md's defaults and the three pieces of the weight function.
    #[test]
    fn weight_is_w_max_then_linear_then_w_min() {
        let r = L2dctRule::default();
        assert_eq!(r.weight(0), 2.5);
        assert_eq!(r.weight(200_000), 2.5);
        // Half-way from 200 KB to 1 MB: half-way from 2.5 to 0.125.
        assert!((r.weight(600_000) - (2.5 + 0.125) / 2.0).abs() < 1e-12);
        assert_eq!(r.weight(1_000_000), 0.125);
        assert_eq!(r.weight(50_000_000), 0.125);
        let ws: Vec<f64> = (0..=12).map(|k| r.weight(k * 100_000)).collect();
        assert!(ws.windows(2).all(|w| w[1] <= w[0]), "never grows with bytes sent: {ws:?}");
    }

    /// A young flow is cut less and grows faster than an old one at the same
    /// alpha; the increase is 1 segment new, w_min / w_max = 0.05 old.
    #[test]
    fn young_flows_cut_less_and_grow_more() {
        let r = L2dctRule::default();
        let alpha = 0.5;
        assert!((r.cut(alpha, 0) - alpha.powf(2.5) / 2.0).abs() < 1e-12);
        assert!((r.cut(alpha, 2_000_000) - alpha.powf(0.125) / 2.0).abs() < 1e-12);
        assert!(r.cut(alpha, 0) < r.cut(alpha, 600_000) && r.cut(alpha, 600_000) < r.cut(alpha, 2_000_000));
        assert_eq!(r.increase(0), 1.0);
        assert!((r.increase(2_000_000) - 0.05).abs() < 1e-12);
        // No marks at all (alpha = 0): nothing to cut, whatever the age.
        assert_eq!(r.cut(0.0, 0), 0.0);
    }

    #[test]
    fn bad_ranges_name_their_key() {
        let bad = |r: L2dctRule| r.validate().unwrap_err().key;
        assert_eq!(bad(L2dctRule { w_min: 0.0, ..L2dctRule::default() }), "w_min");
        assert_eq!(bad(L2dctRule { w_max: 0.1, ..L2dctRule::default() }), "w_max");
        assert_eq!(bad(L2dctRule { s_max: Bytes::kb(100), ..L2dctRule::default() }), "s_max");
    }
}
