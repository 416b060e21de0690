//! Selective, timer-based retransmission for the rate-controlled transports
//! (D3, RCP_dc, pFabric, and later PDQ / S3 / MERP).
//!
//! These protocols do not use TCP's window dynamics for loss recovery: D3 §5
//! ("reliability is achieved through sequence numbers for data packets,
//! acknowledgements from receivers, timer-based retransmissions") and pFabric
//! §4.3 (per-packet ACKs, retransmission of what is still unacknowledged after
//! a fixed, small RTO). The tracker keeps one entry per outstanding segment
//! above the cumulative ack and answers "what should go out next": first the
//! segments declared lost, then new data.

use dcflow_core::{Dur, Time};
use std::collections::VecDeque;

#[derive(Clone, Copy, Debug)]
struct Segment {
    len: u32,
    sent_at: Time,
    acked: bool,
    /// Queued for retransmission (not yet resent).
    lost: bool,
}

/// One segment to put on the wire.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Send {
    pub seq: u64,
    pub len: u32,
    pub retransmit: bool,
}

pub struct SegmentTracker {
    size: u64,
    mss: u32,
    /// Every byte below this offset is acknowledged; `segments[0]` starts here.
    cumulative: u64,
    /// Next never-sent byte.
    next_new: u64,
    segments: VecDeque<Segment>,
    /// Seq numbers of segments declared lost, in order; an entry goes stale
    /// when its segment is acknowledged before the resend (a late ACK), and
    /// `next` skips it.
    lost: VecDeque<u64>,
    /// How many segments are declared lost and neither resent nor acknowledged
    /// (the live entries of `lost`), so `has_pending` on the per-packet path
    /// does not scan the queue.
    lost_live: usize,
    /// Segments sent and neither acknowledged nor declared lost, kept
    /// as segments change state: pFabric's sender asks before every packet,
    /// and counting them scanned the whole window each time.
    in_flight: usize,
    /// Every send, new or resent, as (time, segment number), in the order sent, which
    /// is time order. An entry is *live* while its segment is outstanding
    /// (neither acknowledged nor declared lost) and was last sent at that
    /// time; every `&mut` call drops dead entries from the front, so the
    /// front is the oldest outstanding send. The explicit-rate senders ask
    /// for the next expiry after every packet, and scanning the window for
    /// it was a tenth of a PDQ run's time.
    sends: VecDeque<(Time, u64)>,
    /// The number of `segments[0]` among all the flow's segments (numbers
    /// count from 0 at the first byte), so a send's entry finds its segment
    /// without a division.
    first: u64,
    retransmits: u64,
}

impl SegmentTracker {
    pub fn new(size: u64, mss: u32) -> SegmentTracker {
        SegmentTracker {
            size,
            mss,
            cumulative: 0,
            next_new: 0,
            segments: VecDeque::new(),
            lost: VecDeque::new(),
            lost_live: 0,
            in_flight: 0,
            sends: VecDeque::new(),
            first: 0,
            retransmits: 0,
        }
    }

    pub fn size(&self) -> u64 {
        self.size
    }
    pub fn acked_bytes(&self) -> u64 {
        self.cumulative
    }
    pub fn all_acked(&self) -> bool {
        self.cumulative >= self.size
    }
    /// Bytes not yet acknowledged (what pFabric uses as the priority).
    pub fn remaining(&self) -> u64 {
        self.size - self.cumulative
    }
    /// Bytes never sent yet.
    pub fn unsent(&self) -> u64 {
        self.size - self.next_new
    }
    /// Bytes still to go out: never sent, or declared lost and not yet resent
    /// (a lost segment counted as a full one, so at most one MSS too many).
    pub fn to_send(&self) -> u64 {
        self.unsent() + self.lost_live as u64 * self.mss as u64
    }
    /// Segments sent and neither acknowledged nor declared lost.
    pub fn in_flight(&self) -> usize {
        debug_assert_eq!(self.in_flight, self.segments.iter().filter(|s| !s.acked && !s.lost).count());
        self.in_flight
    }
    pub fn retransmits(&self) -> u64 {
        self.retransmits
    }
    /// Whether `next` would return something (stale `lost` entries do not count).
    pub fn has_pending(&self) -> bool {
        self.next_new < self.size || self.lost_live > 0
    }

    /// Whether send `(at, number)` is live (see `sends`).
    fn live(&self, (at, number): (Time, u64)) -> bool {
        let Some(i) = number.checked_sub(self.first) else { return false };
        self.segments.get(i as usize).is_some_and(|s| !s.acked && !s.lost && s.sent_at == at)
    }

    /// Drop dead sends from the front of `sends`.
    fn trim(&mut self) {
        while self.sends.front().is_some_and(|&e| !self.live(e)) {
            self.sends.pop_front();
        }
    }

    /// The index of the segment at `seq` if it is still waiting to be resent.
    fn still_lost(&self, seq: u64) -> Option<usize> {
        self.index(seq).filter(|&i| !self.segments[i].acked && self.segments[i].lost)
    }

    fn index(&self, seq: u64) -> Option<usize> {
        if seq < self.cumulative {
            return None;
        }
        let i = ((seq - self.cumulative) / self.mss as u64) as usize;
        (i < self.segments.len()).then_some(i)
    }

    /// The next segment to send: a lost one first, else new data.
    pub fn next(&mut self, now: Time) -> Option<Send> {
        while let Some(seq) = self.lost.pop_front() {
            if let Some(i) = self.still_lost(seq) {
                let seg = &mut self.segments[i];
                seg.lost = false;
                self.lost_live -= 1;
                self.in_flight += 1;
                seg.sent_at = now;
                self.retransmits += 1;
                let len = seg.len;
                // Pushed at the back: the front stays live.
                self.sends.push_back((now, self.first + i as u64));
                return Some(Send { seq, len, retransmit: true });
            }
        }
        if self.next_new >= self.size {
            return None;
        }
        let len = (self.size - self.next_new).min(self.mss as u64) as u32;
        let seq = self.next_new;
        self.next_new += len as u64;
        self.segments.push_back(Segment { len, sent_at: now, acked: false, lost: false });
        self.in_flight += 1;
        self.sends.push_back((now, self.first + self.segments.len() as u64 - 1));
        Some(Send { seq, len, retransmit: false })
    }

    /// Apply an ACK: cumulative ack `cum` plus the selectively acknowledged
    /// segment starting at `acked_seq`. Returns the newly acknowledged bytes.
    pub fn on_ack(&mut self, cum: u64, acked_seq: u64) -> u64 {
        let before = self.cumulative;
        if let Some(i) = self.index(acked_seq) {
            self.uncount(self.segments[i]);
            self.segments[i].acked = true;
        }
        let cum = cum.min(self.next_new);
        while self.cumulative < cum {
            let Some(seg) = self.pop_first() else { break };
            self.uncount(seg);
        }
        // Selective acks can complete the prefix too.
        while self.segments.front().is_some_and(|s| s.acked) {
            self.pop_first();
        }
        self.trim();
        self.cumulative - before
    }

    /// Segment `seg` is being acknowledged: unless it already was, it
    /// leaves the count it is in (in flight, or declared lost).
    fn uncount(&mut self, seg: Segment) {
        if !seg.acked {
            if seg.lost {
                self.lost_live -= 1;
            } else {
                self.in_flight -= 1;
            }
        }
    }

    /// The first segment leaves the window: the cumulative ack passes it.
    fn pop_first(&mut self) -> Option<Segment> {
        let seg = self.segments.pop_front()?;
        self.cumulative += seg.len as u64;
        self.first += 1;
        Some(seg)
    }

    /// Declare every outstanding segment sent at or before `now - rto` lost.
    /// Returns how many were declared lost.
    /// They are the live sends at the front of `sends`, and they queue for
    /// resending in sequence order.
    pub fn expire(&mut self, now: Time, rto: Dur) -> usize {
        let mut expired = Vec::new();
        while let Some(&(at, number)) = self.sends.front() {
            if self.live((at, number)) {
                if at + rto > now {
                    break;
                }
                expired.push((number - self.first) as usize);
            }
            self.sends.pop_front();
        }
        // A segment resent at the instant it was sent (rto 0) has two live
        // entries.
        expired.sort_unstable();
        expired.dedup();
        for &i in &expired {
            self.segments[i].lost = true;
            self.lost_live += 1;
            self.in_flight -= 1;
            self.lost.push_back(self.cumulative + i as u64 * self.mss as u64);
        }
        self.trim();
        expired.len()
    }

    /// When the oldest outstanding segment times out, if any.
    pub fn next_expiry(&self, rto: Dur) -> Option<Time> {
        debug_assert_eq!(
            self.sends.front().map(|&(at, _)| at),
            self.segments.iter().filter(|s| !s.acked && !s.lost).map(|s| s.sent_at).min()
        );
        self.sends.front().map(|&(at, _)| at + rto)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn sends_new_data_in_mss_segments_then_stops() {
        let mut t = SegmentTracker::new(2500, 1000);
        let sends: Vec<Send> = std::iter::from_fn(|| t.next(Time(0))).collect();
        assert_eq!(
            sends.iter().map(|s| (s.seq, s.len)).collect::<Vec<_>>(),
            vec![(0, 1000), (1000, 1000), (2000, 500)]
        );
        assert_eq!(t.in_flight(), 3);
        assert_eq!(t.on_ack(1000, 0), 1000);
        assert_eq!(t.on_ack(1000, 2000), 0, "selective ack beyond a hole moves nothing");
        assert_eq!(t.on_ack(2500, 1000), 1500);
        assert!(t.all_acked());
    }

    #[test]
    fn resends_only_the_expired_unacked_segment() {
        let mut t = SegmentTracker::new(3000, 1000);
        t.next(Time(0));
        t.next(Time(0));
        t.next(Time(10));
        t.on_ack(0, 1000); // middle one acknowledged selectively
        assert_eq!(t.next_expiry(Dur(100)), Some(Time(100)));
        assert_eq!(t.expire(Time(100), Dur(100)), 1, "only the first: the third was sent later");
        let r = t.next(Time(100)).unwrap();
        assert_eq!(r, Send { seq: 0, len: 1000, retransmit: true });
        assert_eq!(t.on_ack(2000, 0), 2000, "the resent hole completes the prefix with the sacked one");
        assert_eq!(t.retransmits(), 1);
        assert!(t.next(Time(100)).is_none());
    }

    /// A segment declared lost and then acknowledged late (before its resend)
    /// leaves nothing to send: `has_pending` agrees with `next` (the senders
    /// call `next` only when `has_pending` says so).
    #[test]
    fn late_ack_of_a_lost_segment_leaves_nothing_pending() {
        let mut t = SegmentTracker::new(2000, 1000);
        t.next(Time(0));
        t.next(Time(0));
        assert_eq!(t.expire(Time(100), Dur(100)), 2);
        assert_eq!(t.on_ack(0, 1000), 0, "the second arrives late, selectively");
        assert!(t.has_pending(), "the first is still lost");
        assert_eq!(t.next(Time(100)).map(|s| s.seq), Some(0));
        assert!(!t.has_pending(), "the second's stale entry does not count");
        assert_eq!(t.next(Time(100)), None);
        // Also when the cumulative ack passes a stale entry.
        let mut t = SegmentTracker::new(1000, 1000);
        t.next(Time(0));
        t.expire(Time(100), Dur(100));
        t.on_ack(1000, 0);
        assert!(!t.has_pending());
    }
}
