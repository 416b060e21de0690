//! M-PDQ's load shifting and subflow closing (PDQ §6: "the M-PDQ sender
//! periodically shifts the load from the paused subflows to the sending one
//! with the minimal remaining load"). A child module of the sender, so it
//! works on the sender's own state.

use super::*;

impl MpdqSender {
    /// The shift period: `shift_period` RTTs of the flow's fastest live subflow.
    pub(super) fn shift_every(&self) -> Dur {
        self.min_srtt().mul_f64(self.cfg.shift_period)
    }

    /// §6 load shifting, once per shift period: every subflow paused for at
    /// least a period gives the sending subflow with the least remaining load
    /// its lost segments and one period's worth (at that subflow's rate) of
    /// its unsent quota; the target is chosen again after each move. Shifting
    /// a period's worth at a time (not the whole load at once) keeps the
    /// sending subflows' loads level, so they still finish together, and
    /// leaves a subflow that is paused only briefly most of its load.
    pub(super) fn shift(&mut self, now: Time) {
        let period = self.shift_every();
        if now < self.last_shift + period {
            return;
        }
        self.last_shift = now;
        for i in 0..self.subs.len() {
            let s = &self.subs[i];
            let due = s.paused() && s.paused_since.is_some_and(|p| p + period <= now);
            if !due || (s.quota == 0 && s.lost_bytes == 0) {
                continue;
            }
            let target = (0..self.subs.len())
                .filter(|&j| self.subs[j].phase == SubPhase::Sending && self.subs[j].ctl.rate > 0)
                .min_by_key(|&j| (self.remaining(j), j));
            let Some(t) = target else { return };
            let chunk = Rate(self.subs[t].ctl.rate).bytes_in(period).0.div_ceil(self.mss as u64).max(1);
            let quota = chunk.min(self.subs[i].quota);
            self.subs[i].quota -= quota;
            let lost_bytes = std::mem::take(&mut self.subs[i].lost_bytes);
            let lost = std::mem::take(&mut self.subs[i].lost);
            for &seq in &lost {
                if let Some(k) = self.index(seq) {
                    let seg = &mut self.segs[k];
                    if seg.lost && !seg.acked && seg.sub as usize == i {
                        seg.sub = t as u8;
                        self.subs[t].lost.push_back(seq);
                    }
                }
            }
            let to = &mut self.subs[t];
            to.quota += quota;
            to.lost_bytes += lost_bytes;
            self.shifts += 1;
            self.shifted_segments += quota;
        }
    }

    pub(super) fn close(&mut self, sub: usize) {
        let s = &mut self.subs[sub];
        s.phase = SubPhase::Closing;
        s.ctl.control_due = true;
        s.ctl.rate = 0;
    }

    /// Close subflows with nothing left to do: all of them once the flow is
    /// acknowledged; before that, a sending subflow with no load, nothing in
    /// flight, and no paused sibling whose load it could receive, or a paused
    /// one with no load (load only moves to sending subflows).
    pub(super) fn close_idle(&mut self) {
        if self.all_acked() {
            for i in 0..self.subs.len() {
                if self.subs[i].live() {
                    self.close(i);
                }
            }
            return;
        }
        let donor = self.subs.iter().any(|s| s.paused() && (s.quota > 0 || s.lost_bytes > 0));
        for i in 0..self.subs.len() {
            let s = &self.subs[i];
            let empty = s.phase == SubPhase::Sending && s.quota == 0 && s.in_flight == 0 && s.lost_bytes == 0;
            if empty && (s.ctl.rate == 0 || !donor) {
                self.close(i);
            }
        }
    }
}
