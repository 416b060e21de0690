//! Choosing each flow's source and destination for the generated patterns.

use crate::validate::Endpoints;
use dcflow_core::RngStream;
use rand::seq::SliceRandom;
use rand::RngExt;

/// Hands out `(src, dst)` for flow `i` of a pattern. Random choices come from
/// the endpoints stream only, so they do not move when sizes or arrivals change.
pub(crate) struct Chooser<'a> {
    endpoints: &'a Endpoints,
    hosts: usize,
    /// `perm[x]` is where host `x` sends (permutation pattern), or the
    /// senders in the order they are used (aggregation with random senders).
    perm: Vec<u32>,
    rng: RngStream,
}

impl<'a> Chooser<'a> {
    pub(crate) fn new(endpoints: &'a Endpoints, hosts: usize, mut rng: RngStream) -> Chooser<'a> {
        let perm = match *endpoints {
            Endpoints::Permutation => derangement(hosts, &mut rng),
            Endpoints::Aggregation { receiver, random: true } => {
                let mut others: Vec<u32> = (0..hosts as u32).filter(|&x| x != receiver).collect();
                others.shuffle(&mut rng);
                others
            }
            _ => Vec::new(),
        };
        Chooser {
            endpoints,
            hosts,
            perm,
            rng,
        }
    }

    /// Endpoints of the `i`-th generated flow. Sources go round the hosts in
    /// order (skipping the receiver for aggregation), except for all-to-all,
    /// where both ends are uniform.
    pub(crate) fn pair(&mut self, i: usize) -> (u32, u32) {
        let h = self.hosts;
        match *self.endpoints {
            Endpoints::Aggregation { receiver, random } => {
                let k = i % (h - 1);
                let src = if random {
                    self.perm[k]
                } else if (k as u32) < receiver {
                    k as u32
                } else {
                    k as u32 + 1
                };
                (src, receiver)
            }
            Endpoints::Stride { stride } => {
                let src = i % h;
                (src as u32, ((src + stride as usize) % h) as u32)
            }
            Endpoints::Staggered { p, rack } => {
                let src = i % h;
                (src as u32, self.staggered_dst(src, p, rack) as u32)
            }
            Endpoints::Permutation => {
                let src = i % h;
                (src as u32, self.perm[src])
            }
            Endpoints::AllToAll => {
                let src = self.rng.random_range(0..h);
                (
                    src as u32,
                    skip(self.rng.random_range(0..h - 1), src) as u32,
                )
            }
        }
    }

    /// Same rack with probability `p`, else another rack; a host alone in a
    /// (last, partial) rack, or a topology with one rack, takes the side that exists.
    fn staggered_dst(&mut self, src: usize, p: f64, rack: usize) -> usize {
        let h = self.hosts;
        let lo = src / rack * rack;
        let n = rack.min(h - lo);
        let same = self.rng.random::<f64>() < p;
        if (same && n > 1) || n == h {
            lo + skip(self.rng.random_range(0..n - 1), src - lo)
        } else {
            let k = self.rng.random_range(0..h - n);
            if k < lo {
                k
            } else {
                k + n
            }
        }
    }
}

/// The `k`-th element of `0..n` with `excluded` left out.
fn skip(k: usize, excluded: usize) -> usize {
    if k >= excluded {
        k + 1
    } else {
        k
    }
}

/// A uniformly random permutation of `0..n` with no fixed point (n >= 2), by
/// Fisher–Yates shuffles rejected until none maps a host to itself (about e
/// tries on average).
fn derangement(n: usize, rng: &mut RngStream) -> Vec<u32> {
    loop {
        let mut v: Vec<u32> = (0..n as u32).collect();
        for i in (1..n).rev() {
            let j = rng.random_range(0..=i);
            v.swap(i, j);
        }
        if v.iter().enumerate().all(|(i, &x)| i as u32 != x) {
            return v;
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use dcflow_core::stream;

    #[test]
    fn derangements_are_bijections_without_fixed_points() {
        let mut rng = stream(5, 0);
        for n in [2, 3, 7, 64] {
            for _ in 0..50 {
                let v = derangement(n, &mut rng);
                let mut seen = vec![false; n];
                for (i, &x) in v.iter().enumerate() {
                    assert_ne!(i as u32, x);
                    assert!(!seen[x as usize]);
                    seen[x as usize] = true;
                }
            }
        }
    }

    #[test]
    fn staggered_respects_racks_and_probability() {
        let e = Endpoints::Staggered { p: 0.3, rack: 4 };
        let mut c = Chooser::new(&e, 16, stream(9, 0));
        let n = 20_000;
        let mut same = 0;
        for i in 0..n {
            let (s, d) = c.pair(i);
            assert_ne!(s, d);
            assert!(d < 16);
            same += usize::from(s / 4 == d / 4);
        }
        let frac = same as f64 / n as f64;
        assert!((frac - 0.3).abs() < 0.02, "{frac}");
    }

    #[test]
    fn all_to_all_is_uniform_and_never_self() {
        let mut c = Chooser::new(&Endpoints::AllToAll, 4, stream(2, 0));
        let mut count = [[0u32; 4]; 4];
        for i in 0..24_000 {
            let (s, d) = c.pair(i);
            count[s as usize][d as usize] += 1;
        }
        for (s, row) in count.iter().enumerate() {
            for (d, &n) in row.iter().enumerate() {
                let ok = if s == d {
                    n == 0
                } else {
                    (1700..2300).contains(&n)
                };
                assert!(ok, "{s}->{d}: {n}");
            }
        }
    }
}
