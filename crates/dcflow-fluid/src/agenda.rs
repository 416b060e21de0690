//! The fluid engine's event heaps. [`Agenda`]: `(time, insertion order)`-keyed,
//! with `peek`, which the batching loop needs to gather every event of one
//! instant. Termination events are invalidated lazily (a
//! per-flow generation number), never removed; completions are in
//! [`Timers`], one entry per active flow. A 4-ary heap is all it takes;
//! dcflow-core's calendar queue is tuned for packet timescales.

use dary_heap::QuaternaryHeap;
use dcflow_core::Time;
use std::cmp::Ordering;

struct Entry<E> {
    time: u64,
    seq: u64,
    event: E,
}

impl<E> PartialEq for Entry<E> {
    fn eq(&self, o: &Self) -> bool {
        (self.time, self.seq) == (o.time, o.seq)
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
    fn cmp(&self, o: &Self) -> Ordering {
        (o.time, o.seq).cmp(&(self.time, self.seq))
    }
}

/// Min-queue of events ordered by time, then by scheduling order.
pub struct Agenda<E> {
    heap: QuaternaryHeap<Entry<E>>,
    next_seq: u64,
}

impl<E: Copy> Agenda<E> {
    pub fn new() -> Self {
        Agenda { heap: QuaternaryHeap::new(), next_seq: 0 }
    }
    pub fn push(&mut self, at: Time, event: E) {
        self.heap.push(Entry { time: at.0, seq: self.next_seq, event });
        self.next_seq += 1;
    }
    pub fn pop(&mut self) -> Option<(Time, E)> {
        self.heap.pop().map(|e| (Time(e.time), e.event))
    }
    pub fn peek_time(&self) -> Option<Time> {
        self.heap.peek().map(|e| Time(e.time))
    }
}

/// A time for [`Timers`] that orders as a `u64` does: picoseconds, or the
/// bits of a non-negative float.
pub trait Bits: Copy {
    fn bits(self) -> u64;
    fn from_bits(bits: u64) -> Self;
}

impl Bits for Time {
    fn bits(self) -> u64 {
        self.0
    }
    fn from_bits(bits: u64) -> Time {
        Time(bits)
    }
}

/// At most one pending time per key `0..n`, earliest first: an indexed
/// 4-ary min-heap (setting a key's time moves its one entry; nothing goes
/// stale), ties by key. Flow completions (one per active flow, however
/// often its rate changes), the kinetic order's per-link crossing checks,
/// and the max-min sweep's link fills and flow checks (`T` = a level).
/// Each changed rate moves an entry, and the sweep pops one per step, so
/// the heap is kept cheap: an entry is one `u128`, time above key, which
/// compares without branches; four children per node halve a binary
/// heap's depth; entries move into a hole, writing one index per move.
/// Keys are unique, so the order of pops does not depend on the heap's shape.
pub struct Timers<T = Time> {
    heap: Vec<u128>,
    /// Index of each key's entry in `heap`, `NONE` when it has none.
    at: Vec<u32>,
    time: std::marker::PhantomData<T>,
}

const NONE: u32 = u32::MAX;
const ARITY: usize = 4;

fn entry(time: u64, key: u32) -> u128 {
    (time as u128) << 32 | key as u128
}

fn key_of(e: u128) -> usize {
    e as u32 as usize
}

impl<T: Bits> Timers<T> {
    pub fn new(n: usize) -> Timers<T> {
        Timers { heap: Vec::new(), at: vec![NONE; n], time: std::marker::PhantomData }
    }

    /// Set `key`'s time (`None`: no pending time). Inlined: the max-min
    /// sweep sets a time per changed rate and per link evaluation, and
    /// called out of line the heap cost 2% more instructions.
    #[inline(always)]
    pub fn set(&mut self, key: u32, time: Option<T>) {
        let i = self.at[key as usize];
        match (time, i == NONE) {
            (None, true) => {}
            (None, false) => self.remove_at(i as usize),
            (Some(t), true) => {
                self.heap.push(0);
                self.sift_up(self.heap.len() - 1, entry(t.bits(), key));
            }
            (Some(t), false) => {
                let (i, e) = (i as usize, entry(t.bits(), key));
                if e == self.heap[i] {
                    // Unchanged (the max-min sweep re-evaluates a link often).
                } else if e < self.heap[i] {
                    self.sift_up(i, e);
                } else {
                    self.sift_down(i, e);
                }
            }
        }
    }

    pub fn peek_time(&self) -> Option<T> {
        self.heap.first().map(|&e| T::from_bits((e >> 32) as u64))
    }

    /// Remove every pending time.
    pub fn clear(&mut self) {
        for &e in &self.heap {
            self.at[key_of(e)] = NONE;
        }
        self.heap.clear();
    }

    /// Remove and return a key whose time is at or before `now`.
    pub fn pop_due(&mut self, now: T) -> Option<u32> {
        let &e = self.heap.first()?;
        if (e >> 32) as u64 > now.bits() {
            return None;
        }
        self.remove_at(0);
        Some(key_of(e) as u32)
    }

    fn remove_at(&mut self, i: usize) {
        let gone = self.heap[i];
        self.at[key_of(gone)] = NONE;
        let last = self.heap.pop().expect("entry present");
        if i < self.heap.len() {
            if last < gone {
                self.sift_up(i, last);
            } else {
                self.sift_down(i, last);
            }
        }
    }

    /// Put `e` at hole `i`, moving it up past later parents.
    #[inline]
    fn sift_up(&mut self, mut i: usize, e: u128) {
        while i > 0 {
            let p = (i - 1) / ARITY;
            let parent = self.heap[p];
            if e >= parent {
                break;
            }
            self.place(i, parent);
            i = p;
        }
        self.place(i, e);
    }

    /// Put `e` at hole `i`, moving it down past earlier children.
    #[inline]
    fn sift_down(&mut self, mut i: usize, e: u128) {
        let n = self.heap.len();
        loop {
            let first = ARITY * i + 1;
            if first >= n {
                break;
            }
            let m = if let Some(c) = self.heap.get(first..first + ARITY) {
                // All four children: a tournament of three comparisons.
                let a = if c[1] < c[0] { 1 } else { 0 };
                let b = if c[3] < c[2] { 3 } else { 2 };
                first + if c[b] < c[a] { b } else { a }
            } else {
                let mut m = first;
                for c in first + 1..n {
                    m = if self.heap[c] < self.heap[m] { c } else { m };
                }
                m
            };
            let least = self.heap[m];
            if least >= e {
                break;
            }
            self.place(i, least);
            i = m;
        }
        self.place(i, e);
    }

    fn place(&mut self, i: usize, e: u128) {
        self.heap[i] = e;
        self.at[key_of(e)] = i as u32;
    }
}

#[cfg(test)]
mod tests {
    use super::Timers;
    use dcflow_core::Time;

    #[test]
    fn timers_pop_the_latest_time_set_per_key_in_order() {
        let mut t: Timers = Timers::new(6);
        for (key, at) in [(0, 50), (1, 10), (2, 40), (3, 30), (4, 20)] {
            t.set(key, Some(Time(at)));
        }
        t.set(0, Some(Time(5))); // moved earlier
        t.set(1, Some(Time(45))); // moved later
        t.set(3, None); // removed
        t.set(5, None); // never set
        assert_eq!(t.peek_time(), Some(Time(5)));
        assert_eq!(t.pop_due(Time(4)), None);
        let mut popped = Vec::new();
        while let Some(k) = t.pop_due(Time(100)) {
            popped.push(k);
        }
        assert_eq!(popped, vec![0, 4, 2, 1]);
        assert_eq!(t.peek_time(), None);
    }

    /// Random sets, moves, removals and pops on a heap several levels deep,
    /// against an ordered set of (time, key): the same pops, in the same order.
    #[test]
    fn timers_match_an_ordered_set_under_random_operations() {
        use std::collections::BTreeSet;
        let n = 300u32;
        let mut t: Timers = Timers::new(n as usize);
        let mut want: BTreeSet<(u64, u32)> = BTreeSet::new();
        let mut time = vec![None; n as usize];
        let mut now = 0u64;
        for step in 0..20_000u64 {
            let r = dcflow_core::mix64(step);
            let key = (r % n as u64) as u32;
            if let Some(old) = time[key as usize].take() {
                want.remove(&(old, key));
            }
            // A few keys share a time: ties go by key.
            let at = (r >> 12).is_multiple_of(4);
            let new = (!at).then(|| now + (r >> 20) % 1000);
            if let Some(at) = new {
                want.insert((at, key));
            }
            time[key as usize] = new;
            t.set(key, new.map(Time));
            if step % 7 == 0 {
                now += 40;
                while let Some(k) = t.pop_due(Time(now)) {
                    let first = want.pop_first().expect("the set has it too");
                    assert_eq!((first.1, first.0 <= now), (k, true));
                    time[k as usize] = None;
                }
                assert!(want.first().is_none_or(|&(at, _)| at > now));
            }
            assert_eq!(t.peek_time(), want.first().map(|&(at, _)| Time(at)));
        }
    }
}
