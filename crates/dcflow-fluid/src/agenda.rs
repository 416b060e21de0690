//! The fluid engine's event heap: `(time, insertion order)`-keyed, with
//! `peek`, which the batching loop needs to gather every event of one
//! instant. Completion and termination events are invalidated lazily (a
//! per-flow generation number), never removed. Fluid runs keep one pending
//! completion per active flow, so a 4-ary heap of a few thousand entries is
//! all it takes; dcflow-core's calendar queue is tuned for packet timescales.

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
