//! The event queue (DESIGN.md §Architecture, rule 2).
//!
//! A 4-ary min-heap (the `dary_heap` crate) of small `Copy` events keyed by
//! `(time, sequence)`. The sequence number is the insertion order, so events at
//! the same picosecond pop in the order they were scheduled: this, not the
//! heap's internal layout, decides ties, which is what makes runs bit-identical.
//!
//! Measured with `examples/queue_bench.rs` (BENCHMARKS.md): a 4-ary heap with
//! two `u64` keys beat `std`'s binary heap at 10^5 pending events (6.2 vs 4.6
//! M events/s) and a radix heap in the packet engine (unique keys make every
//! radix pop refill a bucket).
//!
//! Timers are never removed: an owner that re-arms a timer bumps a generation
//! number it keeps itself and ignores events carrying an old one (lazy
//! cancellation), so cancelling costs nothing and the heap never searches.

use crate::units::Time;
use dary_heap::QuaternaryHeap;
use std::cmp::Ordering;

struct Entry<E> {
    time: u64,
    seq: u64,
    event: E,
}

impl<E> Entry<E> {
    #[inline]
    fn key(&self) -> (u64, u64) {
        (self.time, self.seq)
    }
}

impl<E> PartialEq for Entry<E> {
    fn eq(&self, o: &Self) -> bool {
        self.key() == o.key()
    }
}
impl<E> Eq for Entry<E> {}
impl<E> PartialOrd for Entry<E> {
    fn partial_cmp(&self, o: &Self) -> Option<Ordering> {
        Some(self.cmp(o))
    }
}
impl<E> Ord for Entry<E> {
    /// Reversed so that the max-heap pops the earliest key.
    #[inline]
    fn cmp(&self, o: &Self) -> Ordering {
        o.key().cmp(&self.key())
    }
}

/// Min-queue of events ordered by time, then by scheduling order.
pub struct EventQueue<E: Copy> {
    heap: QuaternaryHeap<Entry<E>>,
    next_seq: u64,
    popped: u64,
}

impl<E: Copy> Default for EventQueue<E> {
    fn default() -> Self {
        Self::new()
    }
}

impl<E: Copy> EventQueue<E> {
    pub fn new() -> Self {
        Self::with_capacity(1024)
    }
    pub fn with_capacity(n: usize) -> Self {
        EventQueue { heap: QuaternaryHeap::with_capacity(n), next_seq: 0, popped: 0 }
    }
    #[inline]
    pub fn push(&mut self, at: Time, event: E) {
        self.heap.push(Entry { time: at.0, seq: self.next_seq, event });
        self.next_seq += 1;
    }
    #[inline]
    pub fn pop(&mut self) -> Option<(Time, E)> {
        let e = self.heap.pop()?;
        self.popped += 1;
        Some((Time(e.time), e.event))
    }
    pub fn peek_time(&self) -> Option<Time> {
        self.heap.peek().map(|e| Time(e.time))
    }
    /// Count an event handled outside the queue (pre-sorted arrivals merged in
    /// by the engine) in `popped`.
    pub fn count_external(&mut self) {
        self.popped += 1;
    }
    pub fn len(&self) -> usize {
        self.heap.len()
    }
    pub fn is_empty(&self) -> bool {
        self.heap.is_empty()
    }
    /// Events popped so far: the engine's "events" statistic.
    pub fn popped(&self) -> u64 {
        self.popped
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn pops_in_time_then_insertion_order() {
        let mut q = EventQueue::new();
        q.push(Time(5), 'a');
        q.push(Time(1), 'b');
        q.push(Time(5), 'c');
        q.push(Time(0), 'd');
        q.push(Time(5), 'e');
        let order: Vec<char> = std::iter::from_fn(|| q.pop().map(|(_, e)| e)).collect();
        assert_eq!(order, vec!['d', 'b', 'a', 'c', 'e']);
        assert_eq!(q.popped(), 5);
    }

    #[test]
    fn matches_a_sorted_reference_on_random_input() {
        let mut q = EventQueue::new();
        let mut reference = Vec::new();
        let mut x: u64 = 12345;
        for i in 0..10_000u64 {
            x ^= x << 13;
            x ^= x >> 7;
            x ^= x << 17;
            let t = x % 1000;
            q.push(Time(t), i);
            reference.push((t, i));
        }
        reference.sort();
        for (t, i) in reference {
            assert_eq!(q.pop(), Some((Time(t), i)));
        }
        assert!(q.pop().is_none());
    }
}
