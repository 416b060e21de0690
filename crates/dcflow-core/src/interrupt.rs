//! Watching a long run from outside: progress, and stopping it (Ctrl-C),
//! without a cost per event.
//!
//! The engines are plain Rust and never see a signal or a terminal: a front
//! end that can (the Python module, which holds the interpreter's SIGINT
//! flag and draws the progress bar) installs a checker once, and each
//! engine's loop asks a [`Poll`] every iteration. The poll counts iterations,
//! looks at the clock once per 4096 of them, and calls the checker with the
//! run's [`Progress`] at most every 50 ms of wall time: a run notices an
//! interrupt within a fraction of a second at any speed.

use std::sync::OnceLock;
use std::time::{Duration, Instant};

/// Where a run is, for a progress display.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Progress {
    pub sim_time_s: f64,
    /// Flows with an outcome (finished or terminated).
    pub flows_done: u64,
    pub flows_total: u64,
    /// Engine loop iterations so far (events, for the packet engine).
    pub events: u64,
}

impl Progress {
    /// An engine's state: simulated time, flows with an outcome, all flows
    /// (the poll fills in `events`).
    pub fn of(now: crate::Time, flows_done: usize, flows_total: usize) -> Progress {
        Progress { sim_time_s: now.as_secs_f64(), flows_done: flows_done as u64, flows_total: flows_total as u64, events: 0 }
    }
}

static CHECKER: OnceLock<fn(&Progress) -> bool> = OnceLock::new();

/// Install the function that is shown the run's progress and says whether
/// the user asked to stop. The first call wins; without one, runs are never
/// interrupted.
pub fn set_checker(checker: fn(&Progress) -> bool) {
    let _ = CHECKER.set(checker);
}

/// The key of the error an interrupted run returns ([`crate::ConfigError`]).
pub const INTERRUPTED_KEY: &str = "interrupted";

/// An engine loop's view of the checker.
pub struct Poll {
    iterations: u64,
    next_check: Instant,
}

const ITERATIONS_PER_CLOCK_READ: u64 = 4096;
const CHECK_EVERY: Duration = Duration::from_millis(50);

impl Default for Poll {
    fn default() -> Self {
        Poll { iterations: 0, next_check: Instant::now() + CHECK_EVERY }
    }
}

impl Poll {
    /// Whether the run must stop now. Call once per loop iteration;
    /// `progress` is evaluated only when the checker is called.
    #[inline]
    pub fn interrupted(&mut self, progress: impl FnOnce() -> Progress) -> bool {
        self.iterations += 1;
        if !self.iterations.is_multiple_of(ITERATIONS_PER_CLOCK_READ) {
            return false;
        }
        let Some(check) = CHECKER.get() else { return false };
        let now = Instant::now();
        if now < self.next_check {
            return false;
        }
        self.next_check = now + CHECK_EVERY;
        check(&Progress { events: self.iterations, ..progress() })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn without_a_checker_nothing_interrupts() {
        let mut p = Poll::default();
        let progress = || Progress { sim_time_s: 0.0, flows_done: 0, flows_total: 1, events: 0 };
        assert!((0..100_000).all(|_| !p.interrupted(progress)));
    }
}
