//! Round-trip time estimation of RFC 6298 (§2.2-2.3), shared by the TCP
//! family and MERP (whose §4.1 adopts it: "similar approach ... as that in
//! TCP"): SRTT and RTTVAR from samples, and SRTT + 4 RTTVAR, the
//! retransmission timeout before each sender's own floor and ceiling.

use dcflow_core::Dur;

#[derive(Clone, Copy, Debug, Default)]
pub struct RttEstimator {
    srtt: Option<Dur>,
    rttvar: Dur,
}

impl RttEstimator {
    /// RFC 6298 §2.2 (first sample R: SRTT = R, RTTVAR = R / 2) and §2.3
    /// (RTTVAR <- 3/4 RTTVAR + 1/4 |SRTT - R|; SRTT <- 7/8 SRTT + 1/8 R).
    pub fn sample(&mut self, r: Dur) {
        match self.srtt {
            None => {
                self.srtt = Some(r);
                self.rttvar = Dur(r.0 / 2);
            }
            Some(srtt) => {
                let err = srtt.0.abs_diff(r.0);
                self.rttvar = Dur((3 * self.rttvar.0 + err) / 4);
                self.srtt = Some(Dur((7 * srtt.0 + r.0) / 8));
            }
        }
    }

    /// SRTT, once there is a sample.
    pub fn srtt(&self) -> Option<Dur> {
        self.srtt
    }

    pub fn rttvar(&self) -> Dur {
        self.rttvar
    }

    /// SRTT + 4 RTTVAR, once there is a sample.
    pub fn rto(&self) -> Option<Dur> {
        self.srtt.map(|s| Dur(s.0.saturating_add(self.rttvar.0.saturating_mul(4))))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn rto_is_srtt_plus_four_rttvar() {
        let mut e = RttEstimator::default();
        assert_eq!(e.rto(), None);
        e.sample(Dur::us(100));
        assert_eq!(e.rto(), Some(Dur::us(300)));
        e.sample(Dur::us(200));
        // RTTVAR = 3/4 50 + 1/4 100 = 62.5; SRTT = 7/8 100 + 1/8 200 = 112.5.
        assert_eq!((e.srtt(), e.rttvar(), e.rto()), (Some(Dur::ns(112_500)), Dur::ns(62_500), Some(Dur::ns(362_500))));
    }
}
