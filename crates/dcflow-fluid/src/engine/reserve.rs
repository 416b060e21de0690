//! Rate reservations (D3 §3, §4.2-4.3): what deadline flows reserve, and
//! the capacity that leaves the level sweep to share. A child module of the
//! engine, so it works on the engine's own state.

use super::*;

impl Engine {
    /// The capacity the sweep shares on `l`: what reservations leave.
    pub(super) fn unreserved(&mut self, l: LinkId) {
        let l = l as usize;
        self.sweep.set_capacity(l as LinkId, (self.capacity[l] - self.link_reserved[l]).max(0.0));
    }

    /// D3 §3's idealized reservation: at arrival a deadline flow reserves
    /// r = s/d if every link on its path still has r unreserved.
    pub(super) fn reserve_at_arrival(&mut self, f: u32) {
        let i = f as usize;
        let Some(deadline) = self.flows.deadline[i] else { return };
        let left = (deadline.0.saturating_sub(self.now.0)) as f64 * 1e-12;
        let r = self.flows.work[i] / left;
        let path = self.flows.path(f);
        if left > 0.0 && r <= self.flows.line_rate[i] && path.iter().all(|&l| self.capacity[l as usize] - self.link_reserved[l as usize] >= r * (1.0 - 1e-12)) {
            self.reserved[i] = r;
            for k in self.flows.path_range(f) {
                let l = self.flows.link_at(k);
                self.link_reserved[l as usize] += r;
                self.unreserved(l);
            }
        }
    }

    /// D3 §4.2-4.3: in arrival order, each deadline flow asks for
    /// r = remaining / time left and gets it where every link on its path
    /// still has r unallocated; the others reserve nothing this round.
    pub(super) fn rerequest_reservations(&mut self) {
        let mut by_arrival = self.component.clone();
        by_arrival.sort_unstable();
        for &f in &by_arrival {
            let i = f as usize;
            for &l in self.flows.path(f) {
                self.link_reserved[l as usize] -= self.reserved[i];
            }
            self.reserved[i] = 0.0;
            let Some(deadline) = self.flows.deadline[i] else { continue };
            let left = deadline.0 as f64 * 1e-12 - self.now.as_secs_f64();
            let want = if left > 0.0 { self.flows.remaining[i] / left } else { f64::INFINITY };
            let r = want.min(self.flows.line_rate[i]);
            let path = self.flows.path(f);
            if path.iter().all(|&l| self.capacity[l as usize] - self.link_reserved[l as usize] >= r) {
                self.reserved[i] = r;
                for &l in path {
                    self.link_reserved[l as usize] += r;
                }
            }
        }
    }
}
