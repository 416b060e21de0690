//! Homa's priority levels (Homa §3.4): which level a packet travels at.
//!
//! Level 0 is the highest (the `priority` switch queue serves class 0
//! first). Unscheduled packets take the highest `unscheduled` levels, by
//! message size: messages no larger than the first cutoff at level 0, and so
//! on. Scheduled packets take the rest, the lowest, by the rank of their
//! message among those the receiver is granting.

/// The split of a port's levels and the unscheduled cutoffs.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Priorities {
    levels: u8,
    /// Ascending message sizes; a message of size <= `cutoffs[i]` (and
    /// above `cutoffs[i - 1]`) sends its unscheduled bytes at level `i`.
    cutoffs: Vec<u64>,
}

impl Priorities {
    /// Given cutoffs: `cutoffs.len() + 1` unscheduled levels (the key
    /// `unscheduled_cutoffs`, like HomaSimulation's EXPLICIT mode).
    pub fn explicit(levels: u8, mut cutoffs: Vec<u64>) -> Priorities {
        cutoffs.dedup();
        Priorities { levels, cutoffs }
    }

    /// The paper's method (§3.4): the share of unscheduled levels is the
    /// share of the workload's bytes that are unscheduled (each message sends
    /// `min(size, rtt_bytes)` unscheduled), at least one level and, with two
    /// or more levels, at least one left for scheduled packets; the cutoffs
    /// split the unscheduled bytes into equal parts, one per level, shortest
    /// messages first. `unscheduled` overrides the count (0 = derive it).
    pub fn from_workload(levels: u8, unscheduled: u8, sizes: &[u64], rtt_bytes: u64) -> Priorities {
        let mut sizes: Vec<u64> = sizes.to_vec();
        sizes.sort_unstable();
        let unsched = |s: u64| s.min(rtt_bytes) as f64;
        let total: f64 = sizes.iter().map(|&s| s as f64).sum();
        let unsched_total: f64 = sizes.iter().map(|&s| unsched(s)).sum();
        let most = if levels > 1 { levels - 1 } else { 1 };
        let count = if unscheduled > 0 {
            unscheduled.min(levels)
        } else if total > 0.0 {
            ((unsched_total / total * levels as f64).round() as u8).clamp(1, most)
        } else {
            1
        };
        let mut cutoffs = Vec::with_capacity(count as usize - 1);
        let mut acc = 0.0;
        let mut next = 1;
        for &s in &sizes {
            acc += unsched(s);
            while next < count && acc >= unsched_total * next as f64 / count as f64 {
                cutoffs.push(s);
                next += 1;
            }
        }
        Priorities::explicit(levels, cutoffs)
    }

    /// Levels given to unscheduled packets.
    pub fn unscheduled_levels(&self) -> u8 {
        self.cutoffs.len() as u8 + 1
    }

    /// Levels left to scheduled packets (0 when the unscheduled ones take
    /// every level: scheduled packets then share the lowest).
    pub fn scheduled_levels(&self) -> u8 {
        self.levels.saturating_sub(self.unscheduled_levels())
    }

    pub fn cutoffs(&self) -> &[u64] {
        &self.cutoffs
    }

    /// The level of a message's unscheduled packets.
    pub fn unscheduled(&self, size: u64) -> u8 {
        self.cutoffs.iter().take_while(|&&c| size > c).count() as u8
    }

    /// The level of the scheduled packets of the message ranked `rank`
    /// (0 = fewest bytes left) among the `granting` messages the receiver
    /// grants. §3.4: the receiver uses the lowest scheduled levels, the
    /// highest of them for its shortest message, so that a shorter message
    /// arriving later finds a higher level free.
    pub fn scheduled(&self, rank: usize, granting: usize) -> u8 {
        let levels = self.scheduled_levels() as usize;
        if levels == 0 {
            return self.levels - 1;
        }
        let used = granting.clamp(1, levels);
        (self.levels as usize - used + rank.min(used - 1)) as u8
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn unscheduled_levels_split_the_unscheduled_bytes_equally() {
        // 1000 messages of 100 B and 10 of 100 KB with RTTbytes 10 KB:
        // unscheduled bytes 100 KB + 100 KB of 1.1 MB, 18 % of 8 levels = 1.45 -> 1.
        let mut sizes = vec![100u64; 1000];
        sizes.extend([100_000; 10]);
        let p = Priorities::from_workload(8, 0, &sizes, 10_000);
        assert_eq!((p.unscheduled_levels(), p.scheduled_levels()), (1, 7));
        // Two levels forced: the small messages carry half the unscheduled
        // bytes, so the cutoff is 100 B.
        let p = Priorities::from_workload(8, 2, &sizes, 10_000);
        assert_eq!(p.cutoffs(), &[100]);
        assert_eq!((p.unscheduled(100), p.unscheduled(101), p.unscheduled(1 << 40)), (0, 1, 1));
        // Only small messages: every byte is unscheduled; 7 levels, one left.
        let p = Priorities::from_workload(8, 0, &(1..=700).collect::<Vec<u64>>(), 10_000);
        assert_eq!(p.unscheduled_levels(), 7);
        assert!(p.cutoffs().windows(2).all(|w| w[0] < w[1]));
    }

    #[test]
    fn scheduled_levels_are_the_lowest_the_shortest_message_highest() {
        let p = Priorities::explicit(8, vec![1000]); // 2 unscheduled, 6 scheduled
        assert_eq!(p.scheduled(0, 1), 7, "one message: the lowest level");
        assert_eq!((p.scheduled(0, 2), p.scheduled(1, 2)), (6, 7));
        assert_eq!((p.scheduled(0, 6), p.scheduled(5, 6)), (2, 7));
        assert_eq!(p.scheduled(7, 9), 7, "beyond the levels: share the lowest");
        let all = Priorities::explicit(1, vec![]);
        assert_eq!((all.unscheduled(5), all.scheduled(0, 1)), (0, 0));
    }
}
