//! Validated size and deadline distributions and how they are sampled.
//!
//! `config` turns the scenario's `size` / `deadline` tables into these types;
//! `generate` draws from them, one draw per flow, each kind of draw from its
//! own random stream.

use crate::cdf::EmpiricalCdf;
use dcflow_core::{Bytes, Dur, RngStream};
use rand::RngExt;
use rand_distr::{Distribution, Exp, Pareto};

/// A flow-size distribution. Samples are rounded to whole bytes and are at
/// least 1 byte.
#[derive(Clone, Debug, PartialEq)]
pub enum SizeDist {
    Fixed(Bytes),
    /// Integer sizes uniform on `[min, max]`, both included.
    Uniform {
        min: Bytes,
        max: Bytes,
    },
    Exponential {
        mean: Bytes,
    },
    /// Pareto with `shape > 1` and scale `x_m = mean (shape - 1) / shape`, so
    /// that its mean is `mean` (a heavy-tailed workload, as in PDQ Fig. 10).
    Pareto {
        mean: Bytes,
        shape: f64,
    },
    Cdf(EmpiricalCdf),
}

impl SizeDist {
    /// The analytic mean in bytes (before rounding), used to turn an offered
    /// load into an arrival rate.
    pub fn mean(&self) -> f64 {
        match self {
            SizeDist::Fixed(v) => v.0 as f64,
            SizeDist::Uniform { min, max } => (min.0 as f64 + max.0 as f64) / 2.0,
            SizeDist::Exponential { mean } | SizeDist::Pareto { mean, .. } => mean.0 as f64,
            SizeDist::Cdf(c) => c.mean(),
        }
    }

    pub fn sample(&self, rng: &mut RngStream) -> Bytes {
        let x = match self {
            SizeDist::Fixed(v) => return *v,
            SizeDist::Uniform { min, max } => return Bytes(rng.random_range(min.0..=max.0)),
            SizeDist::Exponential { mean } => exp(rng, mean.0 as f64),
            SizeDist::Pareto { mean, shape } => {
                let scale = mean.0 as f64 * (shape - 1.0) / shape;
                Pareto::new(scale, *shape)
                    .expect("validated shape > 1")
                    .sample(rng)
            }
            SizeDist::Cdf(c) => c.quantile(rng.random::<f64>()),
        };
        Bytes((x.round() as u64).max(1))
    }
}

/// A deadline distribution; deadlines are relative to the flow's start.
#[derive(Clone, Debug, PartialEq)]
pub enum DeadlineDist {
    Fixed(Dur),
    /// Uniform on `[min, max]` picoseconds.
    Uniform {
        min: Dur,
        max: Dur,
    },
    /// `max(min, X)` with `X ~ Exp(mean)`. PDQ §5.1 draws deadlines from an
    /// exponential with mean 20 ms and "impose[s] a lower bound on deadlines
    /// ... 3 ms"; we read the bound as a clamp (deadlines below `min` become
    /// `min`), the literal reading, rather than resampling. The mean is then
    /// `min + mean * exp(-min / mean)`.
    Exponential {
        mean: Dur,
        min: Dur,
    },
}

impl DeadlineDist {
    /// The analytic mean.
    pub fn mean(&self) -> Dur {
        match *self {
            DeadlineDist::Fixed(v) => v,
            DeadlineDist::Uniform { min, max } => Dur((min.0 + max.0) / 2),
            DeadlineDist::Exponential { mean, min } => {
                let (m, lo) = (mean.0 as f64, min.0 as f64);
                Dur((lo + m * (-lo / m).exp()).round() as u64)
            }
        }
    }

    pub fn sample(&self, rng: &mut RngStream) -> Dur {
        match *self {
            DeadlineDist::Fixed(v) => v,
            DeadlineDist::Uniform { min, max } => Dur(rng.random_range(min.0..=max.0)),
            DeadlineDist::Exponential { mean, min } => {
                Dur(exp(rng, mean.0 as f64).round() as u64).max(min)
            }
        }
    }
}

/// One exponential draw with the given mean.
pub(crate) fn exp(rng: &mut RngStream, mean: f64) -> f64 {
    Exp::new(1.0 / mean)
        .expect("validated positive mean")
        .sample(rng)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::cdf::CdfName;
    use dcflow_core::stream;

    fn sample_mean(d: &SizeDist, n: usize) -> f64 {
        let mut rng = stream(42, 0);
        (0..n).map(|_| d.sample(&mut rng).0 as f64).sum::<f64>() / n as f64
    }

    fn assert_close(got: f64, want: f64, rel: f64) {
        assert!(
            (got - want).abs() <= rel * want,
            "got {got}, want {want} ± {}%",
            rel * 100.0
        );
    }

    #[test]
    fn sampled_size_means_match_analytic_means() {
        let cases = [
            (
                SizeDist::Uniform {
                    min: Bytes::kb(2),
                    max: Bytes::kb(198),
                },
                100_000.0,
                0.01,
            ),
            (
                SizeDist::Exponential {
                    mean: Bytes::kb(100),
                },
                100_000.0,
                0.01,
            ),
            (
                SizeDist::Pareto {
                    mean: Bytes::kb(100),
                    shape: 2.5,
                },
                100_000.0,
                0.02,
            ),
            (
                SizeDist::Cdf(EmpiricalCdf::builtin(CdfName::WebSearch)),
                1_665_830.8,
                0.03,
            ),
            (
                SizeDist::Cdf(EmpiricalCdf::builtin(CdfName::DataMining)),
                7_470_236.0,
                0.04,
            ),
        ];
        for (d, want, rel) in cases {
            assert_close(d.mean(), want, 1e-6);
            assert_close(sample_mean(&d, 300_000), want, rel);
        }
    }

    #[test]
    fn sizes_stay_in_range_and_positive() {
        let mut rng = stream(1, 0);
        let u = SizeDist::Uniform {
            min: Bytes(1),
            max: Bytes(3),
        };
        let e = SizeDist::Exponential { mean: Bytes(1) };
        for _ in 0..10_000 {
            assert!((1..=3).contains(&u.sample(&mut rng).0));
            assert!(e.sample(&mut rng).0 >= 1);
        }
    }

    #[test]
    fn exponential_deadlines_are_clamped_below() {
        let d = DeadlineDist::Exponential {
            mean: Dur::ms(20),
            min: Dur::ms(3),
        };
        let mut rng = stream(3, 0);
        let n = 200_000;
        let draws: Vec<Dur> = (0..n).map(|_| d.sample(&mut rng)).collect();
        assert!(draws.iter().all(|&x| x >= Dur::ms(3)));
        // P(X < 3 ms) = 1 - e^{-3/20} = 13.9% of the draws sit exactly on the bound.
        let at_min = draws.iter().filter(|&&x| x == Dur::ms(3)).count() as f64 / n as f64;
        assert!((at_min - 0.1393).abs() < 0.005, "{at_min}");
        let mean = draws.iter().map(|x| x.as_secs_f64()).sum::<f64>() / n as f64;
        assert_close(mean, d.mean().as_secs_f64(), 0.01);
        assert_close(
            d.mean().as_secs_f64(),
            0.003 + 0.020 * (-0.15f64).exp(),
            1e-9,
        );
    }
}
