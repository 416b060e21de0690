//! Rate pacing for the explicit-rate senders (D3 / RCP_dc §4.1, PDQ §3.1,
//! M-PDQ subflows): the next data packet may leave one transmission time of
//! the last one, at the current rate, after it. A new rate re-times that gap
//! at once (a flow that started at D3's base rate, a few Mbps, must not sit
//! out the old gap after the next RTT's feedback grants it hundreds).

use dcflow_core::{Bytes, Rate, Time};

#[derive(Clone, Copy, Debug, Default)]
pub struct Pacer {
    /// When the last data packet left, and its size on the wire.
    last: Option<(Time, u32)>,
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
        self.next = now + Rate(rate).tx_time(Bytes(wire as u64));
    }

    /// The rate changed to `rate`: re-time the gap after the last packet. A
    /// zero rate sends nothing, so it leaves the gap as it is.
    pub fn set_rate(&mut self, rate: u64) {
        if rate == 0 {
            return;
        }
        self.next = match self.last {
            Some((at, wire)) => at + Rate(rate).tx_time(Bytes(wire as u64)),
            None => Time::ZERO,
        };
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_new_rate_re_times_the_gap_after_the_last_packet() {
        let mut p = Pacer::default();
        assert_eq!(p.next(), Time::ZERO);
        p.sent(Time::ZERO, 1500, 1_000_000); // 12 ms at 1 Mbps
        assert_eq!(p.next(), Time::ZERO + dcflow_core::Dur::ms(12));
        p.set_rate(1_000_000_000); // 12 us at 1 Gbps
        assert_eq!(p.next(), Time::ZERO + dcflow_core::Dur::us(12));
        p.set_rate(0);
        assert_eq!(p.next(), Time::ZERO + dcflow_core::Dur::us(12));
    }
}
