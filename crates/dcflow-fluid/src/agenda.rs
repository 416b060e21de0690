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

/// At most one pending time per key `0..n`, earliest first: an indexed
/// binary min-heap (setting a key's time moves its one entry; nothing goes
/// stale), ties by key. Flow completions (one per active flow, however
/// often its rate changes), the kinetic order's per-link crossing checks,
/// and the max-min sweep's link fills and flow checks (`T` = a level).
pub struct Timers<T = Time> {
    heap: Vec<(T, u32)>,
    /// Index of each key's entry in `heap`, `u32::MAX` when it has none.
    at: Vec<u32>,
}

impl<T: Copy + Ord> Timers<T> {
    pub fn new(n: usize) -> Timers<T> {
        Timers { heap: Vec::new(), at: vec![u32::MAX; n] }
    }

    /// Set `key`'s time (`None`: no pending time).
    pub fn set(&mut self, key: u32, time: Option<T>) {
        let i = self.at[key as usize];
        match (time, i == u32::MAX) {
            (None, true) => {}
            (None, false) => self.remove_at(i as usize),
            (Some(t), true) => {
                self.heap.push((t, key));
                self.at[key as usize] = self.heap.len() as u32 - 1;
                self.up(self.heap.len() - 1);
            }
            (Some(t), false) => {
                self.heap[i as usize].0 = t;
                let i = self.up(i as usize);
                self.down(i);
            }
        }
    }

    pub fn peek_time(&self) -> Option<T> {
        self.heap.first().map(|&(t, _)| t)
    }

    /// Remove and return a key whose time is at or before `now`.
    pub fn pop_due(&mut self, now: T) -> Option<u32> {
        let &(t, key) = self.heap.first()?;
        if t > now {
            return None;
        }
        self.remove_at(0);
        Some(key)
    }

    fn remove_at(&mut self, i: usize) {
        let key = self.heap[i].1;
        self.at[key as usize] = u32::MAX;
        let last = self.heap.pop().expect("entry present");
        if i < self.heap.len() {
            self.heap[i] = last;
            self.at[last.1 as usize] = i as u32;
            let i = self.up(i);
            self.down(i);
        }
    }

    fn swap(&mut self, i: usize, j: usize) {
        self.heap.swap(i, j);
        self.at[self.heap[i].1 as usize] = i as u32;
        self.at[self.heap[j].1 as usize] = j as u32;
    }

    fn up(&mut self, mut i: usize) -> usize {
        while i > 0 && self.heap[i] < self.heap[(i - 1) / 2] {
            self.swap(i, (i - 1) / 2);
            i = (i - 1) / 2;
        }
        i
    }

    fn down(&mut self, mut i: usize) {
        loop {
            let (a, b) = (2 * i + 1, 2 * i + 2);
            let mut m = i;
            if a < self.heap.len() && self.heap[a] < self.heap[m] {
                m = a;
            }
            if b < self.heap.len() && self.heap[b] < self.heap[m] {
                m = b;
            }
            if m == i {
                return;
            }
            self.swap(i, m);
            i = m;
        }
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
}
