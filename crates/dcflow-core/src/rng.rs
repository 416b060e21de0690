//! Seeded random streams (docs/architecture.md rule 5).
//!
//! Every random draw in dcflow comes from a stream derived from the scenario seed
//! and a fixed component id, so adding a random draw to one component never
//! shifts the numbers another component sees, and results do not depend on the
//! order components are created in or on the number of sweep workers. PCG64 is
//! portable and version-stable, unlike `rand`'s `SmallRng`.

use rand::SeedableRng;
use rand_pcg::Pcg64Mcg;

/// Stream type used everywhere in dcflow.
pub type RngStream = Pcg64Mcg;

/// Well-known component ids, so the streams never collide by accident.
pub mod component {
    pub const WORKLOAD_ARRIVALS: u64 = 1;
    pub const WORKLOAD_SIZES: u64 = 2;
    pub const WORKLOAD_DEADLINES: u64 = 3;
    pub const WORKLOAD_ENDPOINTS: u64 = 4;
    pub const TOPOLOGY: u64 = 5;
    pub const LOSS: u64 = 6;
    pub const ROUTING: u64 = 7;
    /// Which generated flows get a deadline (`workload.deadline_fraction`).
    pub const WORKLOAD_DEADLINE_SHARE: u64 = 8;
    /// Which flows' sizes their senders know (`workload.known_size_fraction`).
    pub const WORKLOAD_KNOWN_SIZES: u64 = 9;
    /// Per-flow streams (e.g. random criticality) use `PER_FLOW_BASE + flow id`.
    pub const PER_FLOW_BASE: u64 = 1 << 32;
}

/// SplitMix64 finalizer: a cheap, well-mixed hash of 64 bits.
pub fn mix64(mut z: u64) -> u64 {
    z = z.wrapping_add(0x9E37_79B9_7F4A_7C15);
    z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
    z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
    z ^ (z >> 31)
}

/// The stream for `component` under `seed`.
pub fn stream(seed: u64, component: u64) -> RngStream {
    let hi = mix64(seed ^ mix64(component));
    let lo = mix64(hi ^ component.rotate_left(17));
    let mut bytes = [0u8; 16];
    bytes[..8].copy_from_slice(&hi.to_le_bytes());
    bytes[8..].copy_from_slice(&lo.to_le_bytes());
    RngStream::from_seed(bytes)
}

#[cfg(test)]
mod tests {
    use super::*;
    use rand::RngExt;

    #[test]
    fn same_seed_same_numbers_different_component_different_numbers() {
        let a: Vec<u64> = (0..4).map(|_| 0).scan(stream(7, 1), |r, _| Some(r.random())).collect();
        let b: Vec<u64> = (0..4).map(|_| 0).scan(stream(7, 1), |r, _| Some(r.random())).collect();
        let c: Vec<u64> = (0..4).map(|_| 0).scan(stream(7, 2), |r, _| Some(r.random())).collect();
        let d: Vec<u64> = (0..4).map(|_| 0).scan(stream(8, 1), |r, _| Some(r.random())).collect();
        assert_eq!(a, b);
        assert_ne!(a, c);
        assert_ne!(a, d);
    }
}
