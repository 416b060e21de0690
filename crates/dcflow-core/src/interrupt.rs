//! Stopping a long run from outside (Ctrl-C), without a cost per event.
//!
//! The engines are plain Rust and never see a signal: a front end that can
//! (the Python module, which holds the interpreter's SIGINT flag) installs a
//! checker once, and each engine's loop asks a [`Poll`] every iteration. The
//! poll counts iterations and looks at the clock once per 4096 of them, and
//! calls the checker at most every 50 ms of wall time: a run notices an
//! interrupt within a fraction of a second at any speed.

use std::sync::OnceLock;
use std::time::{Duration, Instant};

static CHECKER: OnceLock<fn() -> bool> = OnceLock::new();

/// Install the function that says whether the user asked to stop. The first
/// call wins; without one, runs are never interrupted.
pub fn set_checker(checker: fn() -> bool) {
    let _ = CHECKER.set(checker);
}

/// The key of the error an interrupted run returns ([`crate::ConfigError`]).
pub const INTERRUPTED_KEY: &str = "interrupted";

/// An engine loop's view of the checker.
pub struct Poll {
    iterations: u32,
    next_check: Instant,
}

const ITERATIONS_PER_CLOCK_READ: u32 = 4096;
const CHECK_EVERY: Duration = Duration::from_millis(50);

impl Default for Poll {
    fn default() -> Self {
        Poll { iterations: 0, next_check: Instant::now() + CHECK_EVERY }
    }
}

impl Poll {
    /// Whether the run must stop now. Call once per loop iteration.
    #[inline]
    pub fn interrupted(&mut self) -> bool {
        self.iterations = self.iterations.wrapping_add(1);
        if self.iterations % ITERATIONS_PER_CLOCK_READ != 0 {
            return false;
        }
        let Some(check) = CHECKER.get() else { return false };
        let now = Instant::now();
        if now < self.next_check {
            return false;
        }
        self.next_check = now + CHECK_EVERY;
        check()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn without_a_checker_nothing_interrupts() {
        let mut p = Poll::default();
        assert!((0..100_000).all(|_| !p.interrupted()));
    }
}
