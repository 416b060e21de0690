//! Rate pacing for the explicit-rate senders (D3 / RCP_dc §4.1, PDQ §3.1,
//! M-PDQ subflows): the next data packet may leave one transmission time of
//! the last one, at the current rate, after it. A new rate applies from the
//! moment it arrives: the part of the gap still to run is paced at the new
//! rate (a flow that started at D3's base rate, a few Mbps, must not sit out
//! the old gap after the next RTT's feedback grants it hundreds). The part
//! already elapsed stays paid at the old rate: re-timing the whole gap from
//! the last packet instead lets any small rate increase release a packet at
//! the instant the feedback arrives, and with many flows those feedback-timed
//! packets synchronize into bursts that the D3 capacity controller reads as
//! queueing (20 long D3 flows ran the link at 74%).

use dcflow_core::{Bytes, Rate, Time};

#[derive(Clone, Copy, Debug, Default)]
pub struct Pacer {
    /// When the last data packet left, and its size on the wire.
    last: Option<(Time, u32)>,
    /// The rate the current gap runs at (bps; 0 before the first packet).
    rate: u64,
    next: Time,
}

impl Pacer {
    /// The earliest time the next data packet may leave.
    pub fn next(&self) -> Time {
        self.next
    }

    /// A data packet of `wire` bytes left at `now`, paced at `rate` (bps, > 0).
    pub fn sent(&mut self, now: Time, wire: u32, rate: u64) {
        self.last = Some((now, wire));
        self.rate = rate;
        self.next = now + Rate(rate).tx_time(Bytes(wire as u64));
    }

    /// The rate changed to `rate` at `now`: the rest of the running gap is
    /// paced at it. A gap that is over stays over; a zero rate sends
    /// nothing, so it leaves the gap as it is.
    pub fn set_rate(&mut self, now: Time, rate: u64) {
        if rate == 0 {
            return;
        }
        if self.last.is_some() && self.next > now && self.rate > 0 {
            let left = (self.next.0 - now.0) as u128 * self.rate as u128 / rate as u128;
            self.next = Time(now.0 + left as u64);
        }
        self.rate = rate;
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use dcflow_core::Dur;

    #[test]
    fn a_new_rate_paces_the_rest_of_the_gap() {
        let mut p = Pacer::default();
        assert_eq!(p.next(), Time::ZERO);
        p.sent(Time::ZERO, 1500, 1_000_000); // 12 ms at 1 Mbps
        assert_eq!(p.next(), Time::ZERO + Dur::ms(12));
        // 2 ms in, 10 ms (10 kbit) are left: at 1 Gbps they take 10 us.
        p.set_rate(Time::ZERO + Dur::ms(2), 1_000_000_000);
        assert_eq!(p.next(), Time::ZERO + Dur::ms(2) + Dur::us(10));
        p.set_rate(Time::ZERO + Dur::ms(2), 0);
        assert_eq!(p.next(), Time::ZERO + Dur::ms(2) + Dur::us(10));
    }

    /// A small rate increase never releases a packet at the instant the
    /// feedback arrives (which re-timing from the last packet would do).
    #[test]
    fn a_small_increase_never_releases_a_packet_early() {
        let mut p = Pacer::default();
        p.sent(Time::ZERO, 1500, 40_000_000); // 300 us
        let at = Time::ZERO + Dur::us(295);
        p.set_rate(at, 42_000_000);
        assert!(p.next() > at, "{:?}", p.next());
    }

    #[test]
    fn a_gap_that_is_over_stays_over() {
        let mut p = Pacer::default();
        p.sent(Time::ZERO, 1500, 40_000_000);
        let at = Time::ZERO + Dur::ms(1);
        p.set_rate(at, 1_000_000);
        assert!(p.next() <= at);
    }
}
