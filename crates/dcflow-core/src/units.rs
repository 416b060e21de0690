//! Units in types (docs/architecture.md rule 4).
//!
//! Simulated time is an integer number of picoseconds so that every engine is
//! exact and deterministic: a 1500-byte packet on a 1 Gbps link takes exactly
//! 12,000,000 ps, and no rounding drifts across machines. Sizes are bytes, rates
//! are bits per second. The `FromStr` / `Deserialize` impls here are the only
//! place in dcflow that reads strings like `"25us"` or `"1Gbps"`.

use serde::{de, Deserialize, Deserializer, Serialize, Serializer};
use std::fmt;
use std::ops::{Add, AddAssign, Sub};
use std::str::FromStr;

pub const PS_PER_S: u64 = 1_000_000_000_000;

/// `x.round() as u64` (ties away from zero; negative and NaN give 0, past
/// `u64::MAX` saturates), without the library call that `f64::round`
/// becomes on the baseline x86-64 target (no SSE4.1): PDQ's sender scales
/// its RTT at every poll and D3's switch rounds an allocation per packet,
/// and the call was 2% of a PDQ run's instructions. The fraction
/// `x - trunc(x)` of a float is exact, so comparing it with 0.5 rounds as
/// `round` does.
#[inline]
pub fn round_to_u64(x: f64) -> u64 {
    let t = x as u64;
    if x - t as f64 >= 0.5 {
        t.saturating_add(1)
    } else {
        t
    }
}

/// An instant of simulated time, in picoseconds since the start of the run.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub struct Time(pub u64);

/// A span of simulated time, in picoseconds.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub struct Dur(pub u64);

/// A size in bytes.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub struct Bytes(pub u64);

/// A rate in bits per second.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub struct Rate(pub u64);

impl Time {
    pub const ZERO: Time = Time(0);
    pub const MAX: Time = Time(u64::MAX);
    pub fn from_secs_f64(s: f64) -> Time {
        Time(round_to_u64(s * PS_PER_S as f64))
    }
    pub fn as_secs_f64(self) -> f64 {
        self.0 as f64 / PS_PER_S as f64
    }
    /// Time elapsed since `earlier` (zero if `earlier` is later).
    pub fn since(self, earlier: Time) -> Dur {
        Dur(self.0.saturating_sub(earlier.0))
    }
}

impl Dur {
    pub const ZERO: Dur = Dur(0);
    pub const fn ps(v: u64) -> Dur {
        Dur(v)
    }
    pub const fn ns(v: u64) -> Dur {
        Dur(v * 1_000)
    }
    pub const fn us(v: u64) -> Dur {
        Dur(v * 1_000_000)
    }
    pub const fn ms(v: u64) -> Dur {
        Dur(v * 1_000_000_000)
    }
    pub const fn secs(v: u64) -> Dur {
        Dur(v * PS_PER_S)
    }
    pub fn from_secs_f64(s: f64) -> Dur {
        Dur(round_to_u64(s * PS_PER_S as f64))
    }
    pub fn as_secs_f64(self) -> f64 {
        self.0 as f64 / PS_PER_S as f64
    }
    pub fn mul_f64(self, k: f64) -> Dur {
        Dur(round_to_u64(self.0 as f64 * k))
    }
}

impl Bytes {
    pub const fn new(v: u64) -> Bytes {
        Bytes(v)
    }
    pub const fn kb(v: u64) -> Bytes {
        Bytes(v * 1_000)
    }
    pub const fn mb(v: u64) -> Bytes {
        Bytes(v * 1_000_000)
    }
    pub const fn kib(v: u64) -> Bytes {
        Bytes(v * 1024)
    }
    pub fn bits(self) -> u128 {
        self.0 as u128 * 8
    }
}

impl Rate {
    pub const ZERO: Rate = Rate(0);
    pub const fn bps(v: u64) -> Rate {
        Rate(v)
    }
    pub const fn mbps(v: u64) -> Rate {
        Rate(v * 1_000_000)
    }
    pub const fn gbps(v: u64) -> Rate {
        Rate(v * 1_000_000_000)
    }
    pub fn as_bps_f64(self) -> f64 {
        self.0 as f64
    }
    pub fn from_bps_f64(v: f64) -> Rate {
        Rate(round_to_u64(v))
    }
    /// Serialization time of `b` at this rate, rounded up to the next picosecond
    /// so that a link never carries more than its rate.
    pub fn tx_time(self, b: Bytes) -> Dur {
        assert!(self.0 > 0, "transmission at zero rate");
        let num = b.bits() * PS_PER_S as u128;
        Dur(num.div_ceil(self.0 as u128) as u64)
    }
    /// Picoseconds per byte when that is a whole number (1, 10, 40, 100 Gbps
    /// ...): then `tx_time(b)` is exactly `b × this`, without a division.
    pub fn ps_per_byte_exact(self) -> Option<u64> {
        let ps_bits = 8 * PS_PER_S;
        (self.0 > 0 && ps_bits.is_multiple_of(self.0)).then(|| ps_bits / self.0)
    }
    /// Bytes this rate moves in `d` (rounded down).
    pub fn bytes_in(self, d: Dur) -> Bytes {
        Bytes((self.0 as u128 * d.0 as u128 / (8 * PS_PER_S as u128)) as u64)
    }
    pub fn mul_f64(self, k: f64) -> Rate {
        Rate::from_bps_f64(self.0 as f64 * k)
    }
}

impl Add<Dur> for Time {
    type Output = Time;
    fn add(self, d: Dur) -> Time {
        Time(self.0.saturating_add(d.0))
    }
}
impl AddAssign<Dur> for Time {
    fn add_assign(&mut self, d: Dur) {
        self.0 = self.0.saturating_add(d.0);
    }
}
impl Sub<Time> for Time {
    type Output = Dur;
    fn sub(self, t: Time) -> Dur {
        Dur(self.0 - t.0)
    }
}
impl Add for Dur {
    type Output = Dur;
    fn add(self, d: Dur) -> Dur {
        Dur(self.0 + d.0)
    }
}
impl AddAssign for Dur {
    fn add_assign(&mut self, d: Dur) {
        self.0 += d.0;
    }
}
impl Sub for Dur {
    type Output = Dur;
    fn sub(self, d: Dur) -> Dur {
        Dur(self.0.saturating_sub(d.0))
    }
}
impl Add for Bytes {
    type Output = Bytes;
    fn add(self, b: Bytes) -> Bytes {
        Bytes(self.0 + b.0)
    }
}
impl AddAssign for Bytes {
    fn add_assign(&mut self, b: Bytes) {
        self.0 += b.0;
    }
}
impl Sub for Bytes {
    type Output = Bytes;
    fn sub(self, b: Bytes) -> Bytes {
        Bytes(self.0.saturating_sub(b.0))
    }
}

/// A unit-bearing quantity that dcflow reads from configuration strings.
trait Quantity: Sized {
    /// What the error message lists as accepted, e.g. "a time like \"25us\" (s, ms, us, ns, ps)".
    const EXPECTED: &'static str;
    /// (suffix, multiplier) pairs; longest suffixes first so "ms" wins over "s".
    const UNITS: &'static [(&'static str, f64)];
    /// What a value with a fraction of the smallest unit is refused as.
    const WHOLE: &'static str;
    fn from_base(v: u64) -> Self;
    fn base(&self) -> u64;
}

impl Quantity for Dur {
    const EXPECTED: &'static str = "a time like \"25us\" (units s, ms, us, ns, ps)";
    const WHOLE: &'static str = "a whole number of picoseconds";
    const UNITS: &'static [(&'static str, f64)] = &[
        ("ms", 1e9),
        ("us", 1e6),
        ("ns", 1e3),
        ("ps", 1.0),
        ("s", 1e12),
    ];
    fn from_base(v: u64) -> Self {
        Dur(v)
    }
    fn base(&self) -> u64 {
        self.0
    }
}

impl Quantity for Bytes {
    const EXPECTED: &'static str =
        "a size like \"1500B\" or \"2KB\" (units B, KB, MB, GB, KiB, MiB, GiB)";
    const WHOLE: &'static str = "a whole number of bytes (\"1.5KB\" is 1500B; a byte has no fraction)";
    const UNITS: &'static [(&'static str, f64)] = &[
        ("KiB", 1024.0),
        ("MiB", 1048576.0),
        ("GiB", 1073741824.0),
        ("KB", 1e3),
        ("MB", 1e6),
        ("GB", 1e9),
        ("B", 1.0),
    ];
    fn from_base(v: u64) -> Self {
        Bytes(v)
    }
    fn base(&self) -> u64 {
        self.0
    }
}

impl Quantity for Rate {
    const EXPECTED: &'static str = "a rate like \"10Gbps\" (units bps, Kbps, Mbps, Gbps)";
    const WHOLE: &'static str = "a whole number of bits per second";
    const UNITS: &'static [(&'static str, f64)] =
        &[("Kbps", 1e3), ("Mbps", 1e6), ("Gbps", 1e9), ("bps", 1.0)];
    fn from_base(v: u64) -> Self {
        Rate(v)
    }
    fn base(&self) -> u64 {
        self.0
    }
}

/// A value that could not be read as a quantity; the message lists what is accepted.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("{found:?} is not {expected}")]
pub struct UnitError {
    pub found: String,
    pub expected: &'static str,
}

fn parse_quantity<Q: Quantity>(s: &str) -> Result<Q, UnitError> {
    let err = || UnitError { found: s.to_string(), expected: Q::EXPECTED };
    let t = s.trim();
    let (num, mult) = Q::UNITS
        .iter()
        .find_map(|(suffix, mult)| t.strip_suffix(suffix).map(|n| (n.trim(), *mult)))
        .ok_or_else(err)?;
    let v: f64 = num.parse().map_err(|_| err())?;
    if !v.is_finite() || v < 0.0 {
        return Err(err());
    }
    let exact = v * mult;
    let base = exact.round();
    if base > u64::MAX as f64 {
        return Err(err());
    }
    // Rounding a fraction of the smallest unit away ("1.5B" becoming 2 B)
    // would change the scenario without a word; float noise ("0.1us") is not
    // a fraction.
    if (exact - base).abs() > 1e-9 * base.max(1.0) {
        return Err(UnitError { found: s.to_string(), expected: Q::WHOLE });
    }
    Ok(Q::from_base(base as u64))
}

/// Render with the largest unit that keeps the number exact (integers print without a dot).
fn format_quantity<Q: Quantity>(q: &Q, f: &mut fmt::Formatter<'_>) -> fmt::Result {
    let v = q.base();
    let best = Q::UNITS
        .iter()
        .filter(|(_, m)| *m >= 1.0 && v as f64 % m == 0.0 && (*m != 1024.0 && *m != 1048576.0 && *m != 1073741824.0))
        .max_by(|a, b| a.1.partial_cmp(&b.1).unwrap());
    match best {
        Some((suffix, m)) if v > 0 => write!(f, "{}{}", (v as f64 / m) as u64, suffix),
        _ => write!(f, "{}{}", v, Q::UNITS.iter().find(|(_, m)| *m == 1.0).unwrap().0),
    }
}

macro_rules! quantity_traits {
    ($t:ty) => {
        impl FromStr for $t {
            type Err = UnitError;
            fn from_str(s: &str) -> Result<Self, UnitError> {
                parse_quantity(s)
            }
        }
        impl fmt::Display for $t {
            fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
                format_quantity(self, f)
            }
        }
        impl Serialize for $t {
            fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
                s.collect_str(self)
            }
        }
        impl<'de> Deserialize<'de> for $t {
            fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
                struct V;
                impl<'de> de::Visitor<'de> for V {
                    type Value = $t;
                    fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
                        f.write_str(<$t as Quantity>::EXPECTED)
                    }
                    fn visit_str<E: de::Error>(self, s: &str) -> Result<$t, E> {
                        s.parse().map_err(E::custom)
                    }
                }
                d.deserialize_str(V)
            }
        }
    };
}
quantity_traits!(Dur);
quantity_traits!(Bytes);
quantity_traits!(Rate);

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn round_to_u64_is_round_as_u64() {
        let edges = [0.0, 0.4999999999999999, 0.5, 1.5, 2.5, 4503599627370495.5, 9007199254740993.0, 1.9e19, -0.7, -0.5, f64::NAN, f64::INFINITY, f64::NEG_INFINITY];
        let random = (0..100_000u64).map(|i| (crate::mix64(i) >> 11) as f64 / (1u64 << 20) as f64);
        for x in edges.into_iter().chain(random) {
            assert_eq!(round_to_u64(x), x.round() as u64, "{x:?}");
            assert_eq!(round_to_u64(x), x.round().max(0.0) as u64, "{x:?}");
        }
    }

    #[test]
    fn a_fraction_of_the_smallest_unit_is_refused_not_rounded() {
        let e = "1.5B".parse::<Bytes>().unwrap_err();
        assert!(e.to_string().contains("whole number of bytes"), "{e}");
        assert_eq!("1.5KB".parse::<Bytes>().unwrap(), Bytes(1500));
        assert!("0.5ps".parse::<Dur>().is_err());
        assert_eq!("0.1us".parse::<Dur>().unwrap(), Dur::ns(100), "float noise is not a fraction");
        assert_eq!("38.9Gbps".parse::<Rate>().unwrap(), Rate(38_900_000_000));
    }

    #[test]
    fn parses_every_unit() {
        assert_eq!("25us".parse::<Dur>().unwrap(), Dur::us(25));
        assert_eq!("0.1us".parse::<Dur>().unwrap(), Dur::ns(100));
        assert_eq!("2s".parse::<Dur>().unwrap(), Dur::secs(2));
        assert_eq!("3ms".parse::<Dur>().unwrap(), Dur::ms(3));
        assert_eq!("2KB".parse::<Bytes>().unwrap(), Bytes(2000));
        assert_eq!("4MiB".parse::<Bytes>().unwrap(), Bytes(4 << 20));
        assert_eq!("1Gbps".parse::<Rate>().unwrap(), Rate::gbps(1));
        assert_eq!("100 Mbps".parse::<Rate>().unwrap(), Rate::mbps(100));
    }

    #[test]
    fn rejects_wrong_units_and_negatives() {
        assert!("25".parse::<Dur>().is_err());
        assert!("25Gbps".parse::<Dur>().is_err());
        assert!("-2KB".parse::<Bytes>().is_err());
        assert!("fast".parse::<Rate>().is_err());
        let e = "1 parsec".parse::<Dur>().unwrap_err().to_string();
        assert!(e.contains("units s, ms, us, ns, ps"), "{e}");
    }

    #[test]
    fn display_round_trips() {
        for s in ["25us", "1Gbps", "2KB", "1500B", "0ps", "40Gbps", "100ns"] {
            let shown = match s {
                _ if s.ends_with("bps") => s.parse::<Rate>().unwrap().to_string(),
                _ if s.ends_with('B') => s.parse::<Bytes>().unwrap().to_string(),
                _ => s.parse::<Dur>().unwrap().to_string(),
            };
            assert_eq!(shown, s);
        }
    }

    #[test]
    fn packet_on_gigabit_takes_twelve_microseconds() {
        assert_eq!(Rate::gbps(1).tx_time(Bytes(1500)), Dur::us(12));
        assert_eq!(Rate::gbps(1).bytes_in(Dur::us(12)), Bytes(1500));
        assert_eq!(Rate::gbps(40).ps_per_byte_exact(), Some(200));
        assert_eq!(Rate(3).ps_per_byte_exact(), None);
        // Rounds up: 1 byte at 3 bps is 8/3 s.
        assert_eq!(Rate(3).tx_time(Bytes(1)).0, 2_666_666_666_667);
    }
}
