//! Output-port queues: drop-tail, DCTCP ECN marking, strict priority, pFabric.
//!
//! A queue holds small `Copy` entries that point into the engine's packet arena;
//! it never sees packet contents. The disciplines are a closed enum so the
//! engine's per-packet path is a match, not a virtual call (docs/architecture.md rule 3).

use dcflow_core::Bytes;
use serde::{Deserialize, Serialize};
use std::collections::VecDeque;

/// The `queue` key of `[topology]`.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum QueueDiscipline {
    #[default]
    #[serde(rename = "droptail")]
    DropTail,
    Ecn,
    Priority,
    Pfabric,
    /// Strict priority whose full buffer pushes out its lowest-priority
    /// packet for a more important arrival (MERP §4.3.1).
    PriorityPushout,
}

impl QueueDiscipline {
    pub fn as_str(self) -> &'static str {
        match self {
            QueueDiscipline::DropTail => "droptail",
            QueueDiscipline::Ecn => "ecn",
            QueueDiscipline::Priority => "priority",
            QueueDiscipline::Pfabric => "pfabric",
            QueueDiscipline::PriorityPushout => "priority_pushout",
        }
    }
}

/// One queued packet.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct QEntry {
    /// Index of the packet in the engine's arena.
    pub pkt: u32,
    /// Bytes on the wire (what the buffer holds).
    pub wire: u32,
    /// Priority, lower = more important (pFabric: remaining flow size; priority: class).
    pub prio: u64,
    pub flow: u32,
}

/// What happened to an arriving packet.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Verdict {
    /// Queued; `mark_ce` asks the engine to set ECN Congestion Experienced.
    Accepted { mark_ce: bool },
    /// The arrival was dropped.
    Dropped,
    /// Queued, and this previously queued packet was pushed out (pFabric).
    AcceptedEvicting(QEntry),
}

#[derive(Clone, Debug)]
enum Discipline {
    DropTail(VecDeque<QEntry>),
    Ecn {
        threshold: u64,
        q: VecDeque<QEntry>,
    },
    /// Per-class FIFOs; `mark_above`: the port's ECN threshold, if it marks.
    Priority {
        classes: Vec<VecDeque<QEntry>>,
        mark_above: Option<u64>,
    },
    /// Per-class FIFOs; `slots` is the buffer size in packets.
    Pushout {
        classes: Vec<VecDeque<QEntry>>,
        slots: usize,
    },
    /// Entries in arrival order; `slots` is the buffer size in packets.
    Pfabric {
        q: Vec<QEntry>,
        slots: usize,
    },
}

/// The queue of one output port, with a buffer of `capacity` bytes.
#[derive(Clone, Debug)]
pub struct PortQueue {
    capacity: u64,
    bytes: u64,
    len: usize,
    disc: Discipline,
}

impl PortQueue {
    /// FIFO; an arrival that does not fit is dropped.
    pub fn drop_tail(capacity: Bytes) -> PortQueue {
        PortQueue::with(capacity, Discipline::DropTail(VecDeque::new()))
    }

    /// Drop-tail FIFO that marks CE on arrivals that find more than `threshold`
    /// bytes queued: DCTCP's switch rule "mark arriving packets if the queue
    /// occupancy is greater than K upon its arrival" (Alizadeh et al., SIGCOMM'10,
    /// §3.1), on the instantaneous queue, before the arrival is added.
    pub fn ecn(capacity: Bytes, threshold: Bytes) -> PortQueue {
        PortQueue::with(
            capacity,
            Discipline::Ecn {
                threshold: threshold.0,
                q: VecDeque::new(),
            },
        )
    }

    /// Strict priority over `classes` FIFOs (class = min(prio, classes-1), class 0
    /// first) sharing one buffer, with tail drop: the few hardware priority
    /// queues of commodity switches (8 with IEEE 802.1p) that priority-based
    /// transports map flows onto.
    pub fn priority(capacity: Bytes, classes: u32) -> PortQueue {
        PortQueue::priority_marking(capacity, classes, None)
    }

    /// Strict priority that also marks CE, with `threshold` set, on arrivals
    /// that find more than `threshold` bytes in the whole port, every class
    /// counted: the per-port ECN marking PIAS runs on commodity switches
    /// (Bai et al., NSDI'15, switch design: per-queue thresholds either waste the
    /// buffer or hurt throughput; the PIAS ns-2 queue's `PER_PORT_ECN`). As
    /// [`PortQueue::ecn`], the queue is counted before the arrival joins.
    pub fn priority_marking(capacity: Bytes, classes: u32, threshold: Option<Bytes>) -> PortQueue {
        assert!(classes >= 1);
        PortQueue::with(
            capacity,
            Discipline::Priority { classes: vec![VecDeque::new(); classes as usize], mark_above: threshold.map(|t| t.0) },
        )
    }

    /// pFabric's switch (Alizadeh et al., SIGCOMM'13, §4.2). The buffer is counted
    /// in packets, `capacity / mtu` slots (the paper's 36KB = 24 packets at 10 Gbps),
    /// so one eviction always makes room. Dequeue finds the highest-priority
    /// packet and sends the earliest queued packet of its flow, to avoid
    /// starving and reordering a flow; on overflow the lowest-priority packet of
    /// the queue and the arrival is dropped.
    pub fn pfabric(capacity: Bytes, mtu: u32) -> PortQueue {
        let slots = (capacity.0 / mtu.max(1) as u64).max(1) as usize;
        PortQueue::with(
            capacity,
            Discipline::Pfabric {
                q: Vec::with_capacity(slots + 1),
                slots,
            },
        )
    }

    /// MERP's switch queue (papers/003 §4.3.1): "if the buffer (priority
    /// queue) is not full, MERP adds the new packet into the queue,
    /// otherwise, MERP discards the packet with the lowest priority in the
    /// queue and then adds the new packet"; dequeue takes the highest
    /// priority. The buffer is counted in packets, `capacity / mtu` slots
    /// (§6.1 gives "100 packets"), so one push-out makes room. The newest
    /// packet of the lowest class goes; an arrival that is itself of the
    /// lowest class present is dropped instead.
    pub fn priority_pushout(capacity: Bytes, mtu: u32, classes: u32) -> PortQueue {
        assert!(classes >= 1);
        let slots = (capacity.0 / mtu.max(1) as u64).max(1) as usize;
        PortQueue::with(capacity, Discipline::Pushout { classes: vec![VecDeque::new(); classes as usize], slots })
    }

    fn with(capacity: Bytes, disc: Discipline) -> PortQueue {
        PortQueue {
            capacity: capacity.0,
            bytes: 0,
            len: 0,
            disc,
        }
    }

    /// The entries of a first-in-first-out queue (drop-tail, ECN), front
    /// first; `None` for a queue that reorders.
    pub fn fifo(&self) -> Option<&VecDeque<QEntry>> {
        match &self.disc {
            Discipline::DropTail(q) | Discipline::Ecn { q, .. } => Some(q),
            _ => None,
        }
    }

    /// Queued bytes.
    pub fn bytes(&self) -> u64 {
        self.bytes
    }

    /// Queued packets.
    pub fn len(&self) -> usize {
        self.len
    }

    pub fn is_empty(&self) -> bool {
        self.len == 0
    }

    fn fits(&self, e: &QEntry) -> bool {
        self.bytes + e.wire as u64 <= self.capacity
    }

    pub fn enqueue(&mut self, e: QEntry) -> Verdict {
        let fits = self.fits(&e);
        let verdict = match &mut self.disc {
            Discipline::DropTail(q) => {
                if !fits {
                    return Verdict::Dropped;
                }
                q.push_back(e);
                Verdict::Accepted { mark_ce: false }
            }
            Discipline::Ecn { threshold, q } => {
                if !fits {
                    return Verdict::Dropped;
                }
                let mark_ce = self.bytes > *threshold;
                q.push_back(e);
                Verdict::Accepted { mark_ce }
            }
            Discipline::Priority { classes, mark_above } => {
                if !fits {
                    return Verdict::Dropped;
                }
                let c = e.prio.min(classes.len() as u64 - 1) as usize;
                classes[c].push_back(e);
                Verdict::Accepted { mark_ce: mark_above.is_some_and(|k| self.bytes > k) }
            }
            Discipline::Pushout { classes, slots } => {
                let c = e.prio.min(classes.len() as u64 - 1) as usize;
                if self.len < *slots {
                    classes[c].push_back(e);
                    Verdict::Accepted { mark_ce: false }
                } else {
                    match classes.iter().rposition(|q| !q.is_empty()) {
                        Some(lowest) if lowest > c => {
                            let out = classes[lowest].pop_back().expect("not empty");
                            classes[c].push_back(e);
                            self.bytes -= out.wire as u64;
                            self.bytes += e.wire as u64;
                            return Verdict::AcceptedEvicting(out);
                        }
                        _ => return Verdict::Dropped,
                    }
                }
            }
            Discipline::Pfabric { q, slots } => {
                if q.len() < *slots && fits {
                    q.push(e);
                    Verdict::Accepted { mark_ce: false }
                } else {
                    // The worst queued packet; the latest among equals, so ties
                    // keep the earlier arrivals.
                    let worst = (0..q.len()).max_by_key(|&i| (q[i].prio, i));
                    match worst {
                        Some(i) if q[i].prio > e.prio => {
                            let out = q.remove(i);
                            q.push(e);
                            self.bytes -= out.wire as u64;
                            self.bytes += e.wire as u64;
                            return Verdict::AcceptedEvicting(out);
                        }
                        _ => return Verdict::Dropped,
                    }
                }
            }
        };
        self.bytes += e.wire as u64;
        self.len += 1;
        verdict
    }

    pub fn dequeue(&mut self) -> Option<QEntry> {
        let e = match &mut self.disc {
            Discipline::DropTail(q) | Discipline::Ecn { q, .. } => q.pop_front(),
            Discipline::Priority { classes, .. } | Discipline::Pushout { classes, .. } => {
                classes.iter_mut().find_map(|c| c.pop_front())
            }
            Discipline::Pfabric { q, .. } => {
                // min_by_key returns the first minimum: the earliest among ties.
                let best = q
                    .iter()
                    .enumerate()
                    .min_by_key(|(_, e)| e.prio)
                    .map(|(i, _)| i)?;
                let flow = q[best].flow;
                let first = q.iter().position(|e| e.flow == flow).unwrap_or(best);
                Some(q.remove(first))
            }
        }?;
        self.bytes -= e.wire as u64;
        self.len -= 1;
        Some(e)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn pkt(pkt: u32, prio: u64, flow: u32) -> QEntry {
        QEntry {
            pkt,
            wire: 1500,
            prio,
            flow,
        }
    }

    fn drain(q: &mut PortQueue) -> Vec<u32> {
        std::iter::from_fn(|| q.dequeue()).map(|e| e.pkt).collect()
    }

    #[test]
    fn drop_tail_is_fifo_and_drops_the_arrival_when_full() {
        let mut q = PortQueue::drop_tail(Bytes(3000));
        assert_eq!(
            q.enqueue(pkt(1, 0, 0)),
            Verdict::Accepted { mark_ce: false }
        );
        assert_eq!(
            q.enqueue(pkt(2, 0, 0)),
            Verdict::Accepted { mark_ce: false }
        );
        assert_eq!(q.enqueue(pkt(3, 0, 0)), Verdict::Dropped);
        // A smaller packet still fits nowhere: 3000 bytes are taken.
        assert_eq!(
            q.enqueue(QEntry {
                wire: 40,
                ..pkt(4, 0, 0)
            }),
            Verdict::Dropped
        );
        assert_eq!((q.len(), q.bytes()), (2, 3000));
        assert_eq!(drain(&mut q), vec![1, 2]);
        assert_eq!((q.len(), q.bytes()), (0, 0));
    }

    #[test]
    fn ecn_marks_arrivals_that_find_more_than_k_bytes() {
        // K = 3000 bytes: the 1st..3rd arrivals find 0, 1500, 3000 bytes (not > K),
        // the 4th finds 4500 > K.
        let mut q = PortQueue::ecn(Bytes::kb(100), Bytes(3000));
        let marks: Vec<bool> = (0..5)
            .map(|i| match q.enqueue(pkt(i, 0, 0)) {
                Verdict::Accepted { mark_ce } => mark_ce,
                v => panic!("{v:?}"),
            })
            .collect();
        assert_eq!(marks, vec![false, false, false, true, true]);
        q.dequeue();
        q.dequeue();
        assert_eq!(q.bytes(), 4500);
        assert_eq!(q.enqueue(pkt(9, 0, 0)), Verdict::Accepted { mark_ce: true });
        q.dequeue();
        q.dequeue();
        assert_eq!(
            q.enqueue(pkt(10, 0, 0)),
            Verdict::Accepted { mark_ce: false }
        );
    }

    #[test]
    fn priority_serves_lower_classes_first_and_fifo_within_a_class() {
        let mut q = PortQueue::priority(Bytes::kb(100), 4);
        for (id, prio) in [(1, 3), (2, 0), (3, 9), (4, 1), (5, 0)] {
            q.enqueue(pkt(id, prio, 0));
        }
        // prio 9 is clamped into class 3 behind the earlier class-3 packet.
        assert_eq!(drain(&mut q), vec![2, 5, 4, 1, 3]);
    }

    #[test]
    fn priority_shares_one_buffer_with_tail_drop() {
        let mut q = PortQueue::priority(Bytes(3000), 2);
        q.enqueue(pkt(1, 1, 0));
        q.enqueue(pkt(2, 1, 0));
        assert_eq!(q.enqueue(pkt(3, 0, 0)), Verdict::Dropped);
    }

    /// Per-port marking counts every class: a high-priority arrival is
    /// marked when low-priority bytes fill the port past K (PIAS' switch design).
    #[test]
    fn priority_marking_counts_the_whole_port() {
        let mark = |q: &mut PortQueue, id, prio| match q.enqueue(pkt(id, prio, 0)) {
            Verdict::Accepted { mark_ce } => mark_ce,
            v => panic!("{v:?}"),
        };
        let mut q = PortQueue::priority_marking(Bytes::kb(100), 4, Some(Bytes(3000)));
        let marks: Vec<bool> = [(1, 3), (2, 3), (3, 3), (4, 0), (5, 1)].iter().map(|&(id, p)| mark(&mut q, id, p)).collect();
        assert_eq!(marks, vec![false, false, false, true, true]);
        assert_eq!(drain(&mut q), vec![4, 5, 1, 2, 3]);
        let mut plain = PortQueue::priority(Bytes::kb(100), 4);
        assert!((0..10).all(|i| !mark(&mut plain, i, 3)), "no threshold, no marks");
    }

    #[test]
    fn pfabric_evicts_the_lowest_priority_or_drops_a_worse_arrival() {
        // 4500 B / 1500 B MTU = 3 slots.
        let mut q = PortQueue::pfabric(Bytes(4500), 1500);
        q.enqueue(pkt(1, 50, 1));
        q.enqueue(pkt(2, 80, 2));
        q.enqueue(pkt(3, 20, 3));
        assert_eq!(q.enqueue(pkt(4, 90, 4)), Verdict::Dropped);
        assert_eq!(
            q.enqueue(pkt(5, 80, 5)),
            Verdict::Dropped,
            "a tie keeps the queued packet"
        );
        assert_eq!(
            q.enqueue(pkt(6, 10, 6)),
            Verdict::AcceptedEvicting(pkt(2, 80, 2))
        );
        assert_eq!(q.len(), 3);
        assert_eq!(drain(&mut q), vec![6, 3, 1]);
    }

    #[test]
    fn pfabric_sends_the_earliest_packet_of_the_best_flow() {
        let mut q = PortQueue::pfabric(Bytes::kb(36), 1500);
        assert_eq!(
            q.enqueue(pkt(1, 30, 7)),
            Verdict::Accepted { mark_ce: false }
        );
        q.enqueue(pkt(2, 100, 8));
        // Flow 7's later packet carries a smaller remaining size, hence higher priority;
        // the switch must still send flow 7's first packet first.
        q.enqueue(pkt(3, 10, 7));
        assert_eq!(drain(&mut q), vec![1, 3, 2]);
        assert_eq!(q.bytes(), 0);
    }
}
