//! The calendar queue's ring of buckets, laid out for the cache.
//!
//! Each bucket keeps its first [`LINE`] entries in its own cache-aligned
//! block (two 64-byte lines for 16-byte entries), and the blocks of
//! consecutive buckets are consecutive in memory, so a pop, which walks the
//! buckets in order, reads memory the way the hardware prefetcher expects,
//! and a push touches one line. The lengths live apart in a small array
//! that crossing an empty bucket reads alone. Entries past a bucket's block
//! spill into a `Vec` of its own; the queue keeps buckets narrow enough that
//! this is rare. (A `Vec` per bucket, the layout this replaces, cost a miss
//! on the bucket's header and another on its entries; it executed 7% more
//! instructions with 11% more L1 misses: BENCHMARKS.md, "Event queue".)

use super::Slot;

/// Entries a bucket keeps in its block (16-byte entries for 8-byte events;
/// with 4, one line, the pFabric bench spilled more and ran slower).
const LINE: usize = 8;

#[derive(Clone, Copy)]
#[repr(align(64))]
struct Line<E>([Slot<E>; LINE]);

/// A bucket's entries `head..len` are pending, in pop order: logical index
/// `k` is in its block below `LINE`, in its spill `Vec` from there.
#[derive(Clone, Copy, Default)]
struct Meta {
    len: u32,
    head: u32,
}

pub(super) struct Ring<E> {
    /// Empty until the first entry: the blocks are filled with copies of
    /// that entry (the events need no default value); only `head..len` of a
    /// bucket is read.
    lines: Vec<Line<E>>,
    meta: Vec<Meta>,
    spill: Vec<Vec<Slot<E>>>,
}

impl<E: Copy> Ring<E> {
    pub(super) fn new(buckets: usize) -> Self {
        Ring { lines: Vec::new(), meta: vec![Meta::default(); buckets], spill: (0..buckets).map(|_| Vec::new()).collect() }
    }

    pub(super) fn buckets(&self) -> usize {
        self.meta.len()
    }

    #[inline(always)]
    pub(super) fn is_empty(&self, i: usize) -> bool {
        self.meta[i].len == 0
    }

    /// Insert `s` into bucket `i` after every pending entry at or before
    /// `s.time`: ties pop in the order they entered. Events arrive mostly in
    /// time order, so this usually writes the next free place of the block.
    /// Returns whether the bucket's block was full (the queue's crowding
    /// signal).
    #[inline(always)]
    pub(super) fn insert(&mut self, i: usize, s: Slot<E>) -> bool {
        let m = self.meta[i];
        let (head, len) = (m.head as usize, m.len as usize);
        if len < LINE {
            if let Some(line) = self.lines.get_mut(i) {
                let mut p = len;
                while p > head && line.0[p - 1].time > s.time {
                    line.0[p] = line.0[p - 1];
                    p -= 1;
                }
                line.0[p] = s;
                self.meta[i].len += 1;
                return false;
            }
        }
        self.insert_spilling(i, s);
        true
    }

    /// [`Ring::insert`] into a full block, or before the blocks exist.
    #[inline(never)]
    fn insert_spilling(&mut self, i: usize, s: Slot<E>) {
        if self.lines.is_empty() {
            self.lines = vec![Line([s; LINE]); self.buckets()];
        }
        let Meta { head, len } = self.meta[i];
        let (head, len) = (head as usize, len as usize);
        // Room at the logical end, then move the later entries up one.
        self.set(i, len, s);
        let mut p = len;
        while p > head && self.get(i, p - 1).time > s.time {
            let moved = self.get(i, p - 1);
            self.set(i, p, moved);
            p -= 1;
        }
        self.set(i, p, s);
        self.meta[i].len += 1;
    }

    #[inline(always)]
    fn get(&self, i: usize, k: usize) -> Slot<E> {
        if k < LINE { self.lines[i].0[k] } else { self.spill[i][k - LINE] }
    }

    /// Write logical place `k`, at most one past the bucket's end.
    #[inline(always)]
    fn set(&mut self, i: usize, k: usize, s: Slot<E>) {
        if k < LINE {
            self.lines[i].0[k] = s;
        } else if k - LINE == self.spill[i].len() {
            self.spill[i].push(s);
        } else {
            self.spill[i][k - LINE] = s;
        }
    }

    /// Take the first pending entry of bucket `i`, which is not empty. An
    /// emptied bucket starts again at its block's first place.
    #[inline(always)]
    pub(super) fn pop_front(&mut self, i: usize) -> Slot<E> {
        let m = &mut self.meta[i];
        let head = m.head as usize;
        let s = if head < LINE { self.lines[i].0[head] } else { self.spill[i][head - LINE] };
        m.head += 1;
        if m.head == m.len {
            if m.len as usize > LINE {
                self.spill[i].clear();
            }
            *m = Meta::default();
        }
        s
    }

    /// Every pending entry, bucket by bucket, each bucket's in pop order;
    /// the ring is left empty.
    pub(super) fn drain(&mut self) -> Vec<Slot<E>> {
        let mut all = Vec::new();
        for i in 0..self.buckets() {
            let Meta { head, len } = self.meta[i];
            all.extend((head as usize..len as usize).map(|k| self.get(i, k)));
            self.meta[i] = Meta::default();
            self.spill[i].clear();
        }
        all
    }
}
