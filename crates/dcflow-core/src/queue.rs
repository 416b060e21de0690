//! The event queue (docs/architecture.md rule 2).
//!
//! Small `Copy` events keyed by `(time, sequence)`. The sequence number is the
//! insertion order, so events at the same picosecond pop in the order they were
//! scheduled: this, not the queue's internal layout, decides ties, which is what
//! makes runs bit-identical.
//!
//! The queue is a calendar queue (R. Brown, "Calendar queues", CACM 1988): a
//! ring of buckets, each `2^shift` ps wide, covering the near future; a
//! second ring of coarse slots, each one *span* (the ring's length in
//! buckets) wide, for the spans after that; and a 4-ary heap for events
//! beyond those. A packet simulation schedules almost everything a few
//! serialization times ahead, so most pushes land in the ring in O(1) and a
//! pop scans one short bucket. With switch delays of tens of microseconds
//! (the topologies' default) most events are scheduled a few spans ahead:
//! they wait in a coarse slot, appended in O(1), and enter the ring all at
//! once when their span comes up, instead of passing through the heap
//! (BENCHMARKS.md, "A second ring for the next spans"). Profiling the
//! packet engine with a 4-ary heap showed `pop` at ~40% of run time
//! (unpredictable comparisons); BENCHMARKS.md has the comparison. The bucket
//! width adapts to the event density: it doubles when pops scan many empty
//! buckets and halves when buckets are crowded.
//!
//! Timers are never removed: an owner that re-arms a timer keeps the time it
//! armed and ignores events that do not match it (lazy cancellation), so
//! cancelling costs nothing and the queue never searches.

use crate::units::Time;
use dary_heap::QuaternaryHeap;
use std::cmp::Ordering;

/// Initial buckets in the ring (a power of two): small enough that the ring's
/// headers and buckets stay in cache for the few hundred events a packet
/// simulation keeps pending.
const RING_MIN: usize = 1024;
/// The ring grows up to this size when the heap beyond its horizon holds
/// many times more events than the ring has buckets. Events beyond the
/// horizon are mostly timers (retransmission timeouts, one per flow); a few
/// thousand wait in the heap at O(log n) each more cheaply than in a ring
/// grown to hold them, which spreads the packet events over memory
/// (BENCHMARKS.md, "Event queue").
const RING_MAX: usize = 1 << 16;
/// Coarse slots, each one span wide: events up to `MID - 1` spans after
/// the current one wait in them rather than in the heap.
const MID: usize = 64;
/// Far events per ring bucket above which the ring grows.
const GROW_FAR_PER_BUCKET: usize = 4;
/// Pops between checks of the bucket width.
const ADAPT_EVERY: u32 = 4096;
/// Entries scanned per pop above which buckets are too crowded and narrow.
const CROWDED: u64 = 3;
/// Widest bucket: 2^40 ps (~1 s); the narrowest is 1 ps.
const MAX_SHIFT: u32 = 40;

#[derive(Clone, Copy)]
struct Entry<E> {
    time: u64,
    seq: u64,
    event: E,
}

impl<E> Entry<E> {
    /// Time, then insertion order, as one integer: one wide comparison
    /// instead of two branches per entry a pop scans.
    #[inline]
    fn key(&self) -> u128 {
        ((self.time as u128) << 64) | self.seq as u128
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
    ring: Vec<Vec<Entry<E>>>,
    /// `ring.len() - 1` (the ring's length is a power of two).
    mask: usize,
    /// Bucket width is `1 << shift` picoseconds.
    shift: u32,
    /// Absolute bucket number (`time >> shift`) of the current bucket; every
    /// event in the ring lies in buckets `cur .. cur + RING`, and every
    /// event of the current span is in the ring.
    cur: u64,
    in_ring: usize,
    /// Slot `s % MID` holds the events of span `s`, for the spans after the
    /// current one up to `MID - 1` ahead, that the ring does not cover yet.
    mid: Vec<Vec<Entry<E>>>,
    in_mid: usize,
    /// Events beyond the coarse slots.
    far: QuaternaryHeap<Entry<E>>,
    next_seq: u64,
    popped: u64,
    /// `popped` at the last width check; with the next two, the
    /// statistics since then.
    popped_at_adapt: u64,
    empty_scanned: u64,
    entries_scanned: u64,
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
            ring: (0..RING_MIN).map(|_| Vec::new()).collect(),
            mask: RING_MIN - 1,
            // 1.024 ns: the right width for 10-100 Gbps links; adapts otherwise.
            shift: 10,
            cur: 0,
            in_ring: 0,
            mid: (0..MID).map(|_| Vec::new()).collect(),
            in_mid: 0,
            far: QuaternaryHeap::with_capacity(n),
            next_seq: 0,
            popped: 0,
            popped_at_adapt: 0,
            empty_scanned: 0,
            entries_scanned: 0,
        }
    }

    /// Put `e` in the ring if it covers `e`'s bucket (inlined into every
    /// push), else in its coarse slot or the heap (out of line).
    #[inline(always)]
    fn place(&mut self, e: Entry<E>) {
        let bucket = e.time >> self.shift;
        if bucket <= self.cur + self.mask as u64 {
            self.ring[bucket as usize & self.mask].push(e);
            self.in_ring += 1;
        } else {
            self.place_beyond_ring(e, bucket);
        }
    }

    #[inline(never)]
    fn place_beyond_ring(&mut self, e: Entry<E>, bucket: u64) {
        let span = self.span(bucket);
        if span < self.span(self.cur) + MID as u64 {
            self.mid[span as usize % MID].push(e);
            self.in_mid += 1;
        } else {
            self.far.push(e);
        }
    }

    /// Schedule `event` at `at`. `at` must not be earlier than the time of the
    /// last event popped (engines never schedule into the past).
    #[inline]
    pub fn push(&mut self, at: Time, event: E) {
        let place = self.take_place();
        self.push_at_place(at, place, event);
    }

    /// A place in the order of events that fall on one picosecond, taken
    /// now for an event scheduled later with [`EventQueue::push_at_place`]:
    /// it pops among its time's events as if it had been scheduled now.
    #[inline]
    pub fn take_place(&mut self) -> u64 {
        self.next_seq += 1;
        self.next_seq - 1
    }

    /// Schedule `event` at `at`, in the order of `place` among the events
    /// at `at` (from [`EventQueue::take_place`], used once).
    #[inline]
    pub fn push_at_place(&mut self, at: Time, place: u64, event: E) {
        debug_assert!(at.0 >> self.shift >= self.cur, "event scheduled in the past");
        debug_assert!(place < self.next_seq, "a place not taken");
        self.place(Entry { time: at.0, seq: place, event });
    }

    /// The span of absolute bucket `bucket`: spans are the ring's length.
    #[inline]
    fn span(&self, bucket: u64) -> u64 {
        bucket >> self.mask.trailing_ones()
    }

    /// The current bucket entered span `span`: its coarse slot's events
    /// enter the ring (which now covers the whole span), and heap events
    /// within the coarse slots' reach leave the heap.
    #[inline(never)]
    fn enter_span(&mut self, span: u64) {
        let (ring, slot) = (&mut self.ring, &mut self.mid[span as usize % MID]);
        self.in_mid -= slot.len();
        self.in_ring += slot.len();
        for e in slot.drain(..) {
            ring[(e.time >> self.shift) as usize & self.mask].push(e);
        }
        let reach = span + MID as u64;
        while self.far.peek().is_some_and(|e| self.span(e.time >> self.shift) < reach) {
            let e = self.far.pop().expect("peeked");
            self.place(e);
        }
    }

    /// The earliest event. Inlined into the engine's loop; adapting the
    /// width (every 32 pops) is out of line, so the common path saves and
    /// restores no registers of its own.
    #[inline]
    pub fn pop(&mut self) -> Option<(Time, E)> {
        self.pop_looking_ahead(|_| {})
    }

    /// [`EventQueue::pop`], and when the pop enters a new bucket, `ahead`
    /// sees each event of the bucket after it: the events that come right
    /// after this bucket's, so that the engine can start loading what they
    /// read (a packet, a port) while it handles the events before them.
    /// An event is seen once, one bucket ahead of its turn (again only if
    /// the bucket width changes before its turn).
    #[inline]
    pub fn pop_looking_ahead(&mut self, mut ahead: impl FnMut(&E)) -> Option<(Time, E)> {
        if self.ring[self.cur as usize & self.mask].is_empty() {
            if !self.advance() {
                return None;
            }
            for e in &self.ring[(self.cur as usize + 1) & self.mask] {
                ahead(&e.event);
            }
        }
        let bucket = &mut self.ring[self.cur as usize & self.mask];
        // A bucket holds entries of this lap only: the ring covers
        // buckets cur .. cur + ring.len(), one lap.
        let mut best = 0;
        for i in 1..bucket.len() {
            if bucket[i].key() < bucket[best].key() {
                best = i;
            }
        }
        self.entries_scanned += bucket.len() as u64;
        let e = bucket.swap_remove(best);
        self.in_ring -= 1;
        self.popped += 1;
        if self.popped.is_multiple_of(32) {
            self.adapt();
        }
        Some((Time(e.time), e.event))
    }

    /// Move to the next non-empty bucket, bringing in the events of each
    /// span it enters; false when the queue is empty.
    #[inline]
    fn advance(&mut self) -> bool {
        if self.in_ring == 0 && !self.jump() {
            return false;
        }
        while self.ring[self.cur as usize & self.mask].is_empty() {
            self.cur += 1;
            self.empty_scanned += 1;
            if self.cur & self.mask as u64 == 0 {
                self.enter_span(self.span(self.cur));
            }
        }
        true
    }

    /// The ring is empty: move straight to the first bucket of the next
    /// event, in the coarse slots or else in the heap, and enter its span;
    /// false when the queue is empty.
    #[inline(never)]
    fn jump(&mut self) -> bool {
        let span = self.span(self.cur);
        let next = if self.in_mid > 0 {
            let s = (span + 1..span + MID as u64).find(|&s| !self.mid[s as usize % MID].is_empty()).expect("in_mid > 0");
            self.mid[s as usize % MID].iter().map(|e| e.time).min()
        } else {
            self.far.peek().map(|e| e.time)
        };
        let Some(first) = next else { return false };
        self.cur = first >> self.shift;
        self.enter_span(self.span(self.cur));
        true
    }

    /// Adjust the bucket width to the event density. Touching a bucket costs a
    /// cache miss, so buckets should hold a few events each: every 32 pops,
    /// widen at once by about four times the empty buckets crossed per pop; every
    /// `ADAPT_EVERY` pops, halve the width if pops scan more than 3 entries
    /// each and cross few empty buckets. (At 16 the widened buckets of a busy packet run never narrowed
    /// again and pops scanned about 10 entries each; BENCHMARKS.md.)
    #[inline(never)]
    fn adapt(&mut self) {
        let pops = self.popped - self.popped_at_adapt;
        // Widen when pops cross at least one empty bucket each.
        let widen = self.empty_scanned >= pops;
        if !widen && pops < ADAPT_EVERY as u64 {
            return;
        }
        if pops >= ADAPT_EVERY as u64
            && self.ring.len() < RING_MAX
            && self.far.len() > GROW_FAR_PER_BUCKET * self.ring.len()
            && self.far.len() > self.in_ring
        {
            // The heap holds many events: a longer ring holds them.
            let len = self.ring.len() * 4;
            self.ring.resize_with(len, Vec::new);
            self.mask = len - 1;
            let shift = self.shift;
            self.rebuild(shift);
        }
        let new_shift = if widen {
            let empty_per_pop = self.empty_scanned / pops;
            (self.shift + 2 + (63 - empty_per_pop.leading_zeros())).min(MAX_SHIFT)
        } else if self.entries_scanned > CROWDED * pops && self.empty_scanned * 4 < pops {
            // Halving roughly doubles the empty buckets crossed; below a
            // quarter per pop that stays under one, so the width does not
            // bounce back at once (each change re-buckets the whole ring).
            self.shift.saturating_sub(1)
        } else {
            self.shift
        };
        self.popped_at_adapt = self.popped;
        self.empty_scanned = 0;
        self.entries_scanned = 0;
        if new_shift != self.shift {
            self.rebuild(new_shift);
        }
    }

    /// Re-bucket everything at a new width (or ring length), keeping the current time.
    fn rebuild(&mut self, shift: u32) {
        let now = self.cur << self.shift;
        let mut all: Vec<Entry<E>> = self.ring.iter_mut().chain(&mut self.mid).flat_map(|b| b.drain(..)).collect();
        all.extend(self.far.drain());
        self.shift = shift;
        self.cur = now >> shift;
        self.in_ring = 0;
        self.in_mid = 0;
        for e in all {
            self.place(e);
        }
    }

    pub fn len(&self) -> usize {
        self.in_ring + self.in_mid + self.far.len()
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
    use std::collections::{BTreeSet, HashSet};

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
    fn a_place_taken_early_pops_where_it_was_taken() {
        let mut q = EventQueue::new();
        q.push(Time(5), 'a');
        let early = q.take_place();
        q.push(Time(5), 'c');
        q.push(Time(7), 'd');
        // Scheduled last, at 5: pops between the events scheduled before
        // and after its place was taken.
        q.push_at_place(Time(5), early, 'b');
        q.push(Time(5), 'e');
        let order: Vec<char> = std::iter::from_fn(|| q.pop().map(|(_, e)| e)).collect();
        assert_eq!(order, vec!['a', 'b', 'c', 'e', 'd']);
    }

    /// Interleave pushes (never before `now`) and pops as an engine does, with
    /// delays drawn from `spread`, and compare with a sorted reference; how
    /// many events the pops looked ahead at.
    fn matches_reference(spread: &[u64], steps: u64) -> usize {
        let mut q = EventQueue::new();
        let mut reference = BTreeSet::new();
        let mut x: u64 = 12345;
        let mut now = 0;
        let mut seen = HashSet::new();
        for i in 0..steps {
            x ^= x << 13;
            x ^= x >> 7;
            x ^= x << 17;
            let t = now + x % spread[(x >> 40) as usize % spread.len()];
            q.push(Time(t), i);
            reference.insert((t, i));
            if !x.is_multiple_of(3) {
                let expected = reference.pop_first().unwrap();
                assert_eq!(pop_checking_ahead(&mut q, &reference, &mut seen), Some((Time(expected.0), expected.1)));
                now = expected.0;
            }
        }
        assert_eq!(q.len(), reference.len());
        while let Some((t, i)) = reference.pop_first() {
            assert_eq!(pop_checking_ahead(&mut q, &reference, &mut seen), Some((Time(t), i)));
        }
        assert!(q.pop().is_none() && q.is_empty());
        seen.len()
    }

    /// Pop, checking that the pop looks ahead only at events still pending
    /// after it (`left`, the reference without the popped one).
    fn pop_checking_ahead(q: &mut EventQueue<u64>, left: &BTreeSet<(u64, u64)>, seen: &mut HashSet<u64>) -> Option<(Time, u64)> {
        q.pop_looking_ahead(|&i| {
            assert!(left.iter().any(|&(_, j)| j == i), "event {i} seen ahead is not pending");
            seen.insert(i);
        })
    }

    #[test]
    fn matches_a_sorted_reference_at_every_time_scale() {
        // Dense (ps apart), packet-like (ns), sparse (ms timers), and a mix
        // that forces the width to adapt both ways and far events to migrate.
        matches_reference(&[10], 30_000);
        // Packet-like delays fill neighbouring buckets: pops look ahead.
        assert!(matches_reference(&[2_000], 30_000) > 1_000);
        matches_reference(&[5_000_000_000], 30_000);
        // Switch delays of tens of microseconds: most events wait in the
        // coarse slots, some in the heap (ms timers).
        matches_reference(&[30_000_000, 2_000, 1_000_000_000], 60_000);
        matches_reference(&[300, 400_000, 10_000_000_000, 7], 60_000);
    }
}
