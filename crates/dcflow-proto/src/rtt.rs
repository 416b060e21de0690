//! Round-trip time estimation and the retransmission timeout of RFC 6298
//! (§2.2-2.3): SRTT and RTTVAR from samples, RTO = SRTT + 4 RTTVAR above a
//! floor. MERP §4.1 adopts it ("similar approach ... as that in TCP").

use dcflow_core::Dur;

#[derive(Clone, Copy, Debug)]
pub struct RttEstimator {
    srtt: Dur,
    rttvar: Dur,
    floor: Dur,
}

impl RttEstimator {
    /// Before any sample: SRTT = `initial`, RTTVAR = `initial` / 2 (as the
    /// first sample would set them), so the first RTO is 3 x `initial`.
    pub fn new(initial: Dur, floor: Dur) -> RttEstimator {
        RttEstimator { srtt: initial, rttvar: Dur(initial.0 / 2), floor }
    }

    /// RFC 6298 §2.3: RTTVAR <- 3/4 RTTVAR + 1/4 |SRTT - R|; SRTT <- 7/8 SRTT + 1/8 R.
    pub fn sample(&mut self, r: Dur) {
        let err = self.srtt.0.abs_diff(r.0);
        self.rttvar = Dur((3 * self.rttvar.0 + err) / 4);
        self.srtt = Dur((7 * self.srtt.0 + r.0) / 8);
    }

    pub fn srtt(&self) -> Dur {
        self.srtt
    }

    pub fn rto(&self) -> Dur {
        Dur(self.srtt.0.saturating_add(self.rttvar.0.saturating_mul(4))).max(self.floor)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn rto_is_srtt_plus_four_rttvar() {
        let mut e = RttEstimator::new(Dur::us(100), Dur::ZERO);
        assert_eq!(e.rto(), Dur::us(300));
        e.sample(Dur::us(200));
        // RTTVAR = 3/4 50 + 1/4 100 = 62.5; SRTT = 7/8 100 + 1/8 200 = 112.5.
        assert_eq!((e.srtt(), e.rto()), (Dur::ns(112_500), Dur::ns(362_500)));
        assert_eq!(RttEstimator::new(Dur::us(10), Dur::ms(1)).rto(), Dur::ms(1));
    }
}
