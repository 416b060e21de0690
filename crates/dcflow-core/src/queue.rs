//! The event queue (docs/architecture.md rule 2).
//!
//! Small `Copy` events ordered by time, then by insertion order: events at the
//! same picosecond pop in the order they were scheduled. This, not the
//! queue's internal layout, decides ties, which is what makes runs
//! bit-identical; any layout that keeps the order gives the same runs.
//!
//! The queue is a calendar queue (R. Brown, "Calendar queues", CACM 1988): a
//! ring of buckets, each `2^shift` ps wide, covering the near future, plus a
//! 4-ary heap for events beyond the ring's horizon. A packet simulation
//! schedules almost everything a few serialization times ahead, so most pushes
//! land in the ring in O(1), and buckets are kept sorted (mostly by appending:
//! events are scheduled roughly in time order), so a pop takes a bucket's
//! first entry without comparing keys. The ring's layout is `ring.rs`.
//! Profiling the packet engine with a 4-ary heap showed `pop` at ~40% of run
//! time (unpredictable comparisons); BENCHMARKS.md has the comparison. The
//! bucket width adapts to the event density: it widens when pops cross many
//! empty buckets and halves when buckets overflow their lines.
//!
//! Timers are never removed: an owner that re-arms a timer keeps the time it
//! armed and ignores events that do not match it (lazy cancellation), so
//! cancelling costs nothing and the queue never searches.

mod ring;

use crate::units::Time;
use dary_heap::QuaternaryHeap;
use ring::Ring;
use std::cmp::Ordering;

/// Initial buckets in the ring (a power of two): small enough that the ring
/// stays in L2 for the few hundred events a packet simulation keeps pending.
const RING_MIN: usize = 1024;
/// The ring grows up to this size when the heap beyond its horizon holds
/// many times more events than the ring has buckets. Events beyond the
/// horizon are mostly timers (retransmission timeouts, one per flow); a few
/// thousand wait in the heap at O(log n) each more cheaply than in a ring
/// grown to hold them, which spreads the packet events over memory
/// (BENCHMARKS.md, "Event queue").
const RING_MAX: usize = 1 << 16;
/// Far events per ring bucket above which the ring grows.
const GROW_FAR_PER_BUCKET: usize = 4;
/// Pops between checks of the bucket width.
const ADAPT_EVERY: u32 = 4096;
/// Buckets narrow when more than one insertion in this many (per pop) finds
/// its bucket's block full.
const CROWDED_EVERY: u64 = 8;
/// Widest bucket: 2^40 ps (~1 s); the narrowest is 1 ps.
const MAX_SHIFT: u32 = 40;

/// An event in the ring. It carries no sequence number: a bucket is kept
/// sorted by time, ties in the order they entered it, which is the order they
/// were scheduled (see `EventQueue::pull_far` and `EventQueue::rebuild`), so
/// the ring's entries are 16 bytes for the engines' 8-byte events.
#[derive(Clone, Copy)]
struct Slot<E> {
    time: u64,
    event: E,
}

/// An event beyond the ring's horizon, in the heap, where the sequence
/// number orders ties.
#[derive(Clone, Copy)]
struct Far<E> {
    time: u64,
    seq: u64,
    event: E,
}

impl<E> Far<E> {
    #[inline]
    fn key(&self) -> (u64, u64) {
        (self.time, self.seq)
    }
}

impl<E> PartialEq for Far<E> {
    fn eq(&self, o: &Self) -> bool {
        self.key() == o.key()
    }
}
impl<E> Eq for Far<E> {}
impl<E> PartialOrd for Far<E> {
    fn partial_cmp(&self, o: &Self) -> Option<Ordering> {
        Some(self.cmp(o))
    }
}
impl<E> Ord for Far<E> {
    /// Reversed so that the max-heap pops the earliest key.
    #[inline]
    fn cmp(&self, o: &Self) -> Ordering {
        o.key().cmp(&self.key())
    }
}

/// Min-queue of events ordered by time, then by scheduling order.
///
/// A given time is, at any moment, either in the ring or in the heap, never
/// both: whether it is depends only on its bucket number, and far events are
/// pulled into the ring as soon as the horizon reaches their bucket, before
/// anything can be pushed there directly. So ties never span the two, the
/// ring orders its ties by position and the heap by sequence number.
pub struct EventQueue<E: Copy> {
    ring: Ring<E>,
    /// `ring.buckets() - 1` (a power of two, less one).
    mask: usize,
    /// Bucket width is `1 << shift` picoseconds.
    shift: u32,
    /// Absolute bucket number (`time >> shift`) of the current bucket; every
    /// event in the ring lies in buckets `cur ..= cur + mask`.
    cur: u64,
    in_ring: usize,
    /// Events at or beyond the ring's horizon.
    far: QuaternaryHeap<Far<E>>,
    /// Sequence number of the next event to enter the heap.
    next_seq: u64,
    popped: u64,
    /// Statistics since the last width check.
    pops_since_adapt: u32,
    empty_scanned: u64,
    /// Insertions that found their bucket's block full.
    crowded: u64,
}

impl<E: Copy> Default for EventQueue<E> {
    fn default() -> Self {
        Self::new()
    }
}

impl<E: Copy> EventQueue<E> {
    pub fn new() -> Self {
        Self::with_capacity(0)
    }
    pub fn with_capacity(n: usize) -> Self {
        EventQueue {
            ring: Ring::new(RING_MIN),
            mask: RING_MIN - 1,
            // 1.024 ns: the right width for 10-100 Gbps links; adapts otherwise.
            shift: 10,
            cur: 0,
            in_ring: 0,
            far: QuaternaryHeap::with_capacity(n),
            next_seq: 0,
            popped: 0,
            pops_since_adapt: 0,
            empty_scanned: 0,
            crowded: 0,
        }
    }

    /// Schedule `event` at `at`. `at` must not be earlier than the time of the
    /// last event popped (engines never schedule into the past).
    #[inline(always)]
    pub fn push(&mut self, at: Time, event: E) {
        debug_assert!(at.0 >> self.shift >= self.cur, "event scheduled in the past");
        let bucket = at.0 >> self.shift;
        if bucket <= self.cur + self.mask as u64 {
            self.crowded += u64::from(self.ring.insert(bucket as usize & self.mask, Slot { time: at.0, event }));
            self.in_ring += 1;
        } else {
            self.push_far(Far { time: at.0, seq: self.next_seq, event });
            self.next_seq += 1;
        }
    }

    /// Out of line, to keep `push`, inlined at every call site, small: far
    /// events (timers) are a small share of the pushes.
    #[inline(never)]
    fn push_far(&mut self, e: Far<E>) {
        self.far.push(e);
    }

    /// Move far events that the ring now covers into it, in key order. The
    /// buckets they enter are empty (the horizon just reached them), so
    /// their ties keep the heap's order.
    #[inline]
    fn pull_far(&mut self) {
        let last = self.cur + self.mask as u64;
        while self.far.peek().is_some_and(|e| e.time >> self.shift <= last) {
            let e = self.far.pop().expect("peeked");
            self.ring.insert((e.time >> self.shift) as usize & self.mask, Slot { time: e.time, event: e.event });
            self.in_ring += 1;
        }
    }

    /// The earliest event. The fast path, an event in the current bucket, is
    /// inlined into the engine's loop; crossing to the next bucket is not.
    #[inline(always)]
    pub fn pop(&mut self) -> Option<(Time, E)> {
        let mut i = self.cur as usize & self.mask;
        if self.ring.is_empty(i) {
            i = self.advance()?;
        }
        let s = self.ring.pop_front(i);
        self.in_ring -= 1;
        self.popped += 1;
        self.pops_since_adapt += 1;
        if self.pops_since_adapt >= ADAPT_EVERY {
            self.narrow_or_grow();
        }
        Some((Time(s.time), s.event))
    }

    /// The current bucket is empty: move `cur` to the first bucket that is
    /// not (jumping to the heap's first event when the ring is empty) and
    /// return its index. A bucket holds entries of this lap only: the ring
    /// covers buckets `cur ..= cur + mask`, one lap.
    ///
    /// Crossing an empty bucket costs a look at its length. When pops have
    /// crossed about one empty bucket each, widen at once by about four
    /// times the empty buckets crossed per pop.
    #[inline(never)]
    fn advance(&mut self) -> Option<usize> {
        if self.in_ring == 0 {
            let first = self.far.peek()?;
            self.cur = first.time >> self.shift;
            self.pull_far();
        }
        let pops = self.pops_since_adapt as u64;
        if pops >= 32 && self.empty_scanned >= pops {
            let empty_per_pop = self.empty_scanned / pops;
            let shift = (self.shift + 2 + (63 - empty_per_pop.leading_zeros())).min(MAX_SHIFT);
            self.reset_stats();
            if shift != self.shift {
                self.rebuild(shift, self.ring.buckets());
            }
        }
        loop {
            let i = self.cur as usize & self.mask;
            if !self.ring.is_empty(i) {
                return Some(i);
            }
            self.cur += 1;
            self.empty_scanned += 1;
            self.pull_far();
        }
    }

    /// Every `ADAPT_EVERY` pops: grow the ring when the heap beyond its
    /// horizon holds many events, and halve the bucket width when buckets
    /// are crowded (more than one insertion in `CROWDED_EVERY` finds its
    /// bucket's block full) and pops cross few empty buckets.
    #[inline(never)]
    fn narrow_or_grow(&mut self) {
        let pops = self.pops_since_adapt as u64;
        let buckets = self.ring.buckets();
        if buckets < RING_MAX && self.far.len() > GROW_FAR_PER_BUCKET * buckets && self.far.len() > self.in_ring {
            // The heap holds many events: a longer ring holds them.
            self.rebuild(self.shift, buckets * 4);
        }
        // Halving roughly doubles the empty buckets crossed; below a
        // quarter per pop that stays under one, so the width does not
        // bounce back at once (each change re-buckets the whole ring).
        let narrow = self.crowded * CROWDED_EVERY > pops && self.empty_scanned * 4 < pops;
        self.reset_stats();
        if narrow && self.shift > 0 {
            self.rebuild(self.shift - 1, self.ring.buckets());
        }
    }

    fn reset_stats(&mut self) {
        self.pops_since_adapt = 0;
        self.empty_scanned = 0;
        self.crowded = 0;
    }

    /// Re-bucket everything at a new width (or ring length), keeping the
    /// current time. The ring's events get sequence numbers in their pop
    /// order (later than any the heap holds: no time is in both), everything
    /// is sorted by key and placed in that order, so each bucket and the
    /// heap again order their ties by scheduling.
    fn rebuild(&mut self, shift: u32, buckets: usize) {
        let now = self.cur << self.shift;
        let mut all: Vec<Far<E>> = Vec::with_capacity(self.len());
        for s in self.ring.drain() {
            all.push(Far { time: s.time, seq: self.next_seq, event: s.event });
            self.next_seq += 1;
        }
        if buckets != self.ring.buckets() {
            self.ring = Ring::new(buckets);
            self.mask = buckets - 1;
        }
        all.extend(self.far.drain());
        all.sort_unstable_by_key(Far::key);
        self.shift = shift;
        self.cur = now >> shift;
        self.in_ring = 0;
        let last = self.cur + self.mask as u64;
        for e in all {
            let bucket = e.time >> shift;
            if bucket <= last {
                self.ring.insert(bucket as usize & self.mask, Slot { time: e.time, event: e.event });
                self.in_ring += 1;
            } else {
                self.far.push(e);
            }
        }
    }

    pub fn len(&self) -> usize {
        self.in_ring + self.far.len()
    }
    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }
    /// Events popped so far: the engine's "events" statistic.
    pub fn popped(&self) -> u64 {
        self.popped
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::collections::BTreeSet;

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

    /// More events at one time than a bucket's block holds, amid earlier
    /// and later ones, pop in the order they were pushed.
    #[test]
    fn ties_beyond_a_bucket_block_keep_their_order() {
        // A third at one time, the others spread just before and after it.
        let time = |i: u32| match i % 3 {
            0 => 5_000,
            1 => 5_000 + u64::from(i),
            _ => 4_000 + u64::from(i),
        };
        let mut q = EventQueue::new();
        for i in 0..40 {
            q.push(Time(time(i)), i);
        }
        let mut expected: Vec<(u64, u32)> = (0..40).map(|i| (time(i), i)).collect();
        expected.sort();
        let popped: Vec<(u64, u32)> = std::iter::from_fn(|| q.pop().map(|(t, e)| (t.0, e))).collect();
        assert_eq!(popped, expected);
    }

    /// Interleave pushes (never before `now`) and pops as an engine does, with
    /// delays drawn from `spread`, and compare with a sorted reference.
    fn matches_reference(spread: &[u64], steps: u64) {
        let mut q = EventQueue::new();
        let mut reference = BTreeSet::new();
        let mut x: u64 = 12345;
        let mut now = 0;
        for i in 0..steps {
            x ^= x << 13;
            x ^= x >> 7;
            x ^= x << 17;
            let t = now + x % spread[(x >> 40) as usize % spread.len()];
            q.push(Time(t), i);
            reference.insert((t, i));
            if !x.is_multiple_of(3) {
                let expected = reference.pop_first().unwrap();
                assert_eq!(q.pop(), Some((Time(expected.0), expected.1)));
                now = expected.0;
            }
        }
        assert_eq!(q.len(), reference.len());
        while let Some((t, i)) = reference.pop_first() {
            assert_eq!(q.pop(), Some((Time(t), i)));
        }
        assert!(q.pop().is_none() && q.is_empty());
    }

    #[test]
    fn matches_a_sorted_reference_at_every_time_scale() {
        // Dense (ps apart), packet-like (ns), sparse (ms timers), and a mix
        // that forces the width to adapt both ways and far events to migrate.
        matches_reference(&[10], 30_000);
        matches_reference(&[2_000], 30_000);
        matches_reference(&[5_000_000_000], 30_000);
        matches_reference(&[300, 400_000, 10_000_000_000, 7], 60_000);
    }
}
