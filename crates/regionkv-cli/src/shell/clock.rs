//! The shell's engine clock: the system clock until a `clock MILLIS` statement freezes it at
//! a given time, and again after a bare `clock` unfreezes it. It is handed to
//! [`regionkv::Db::open`] once, so switching it changes the time every later write, TTL check
//! and region id sees — which is what makes timestamps in a script's output deterministic.

use std::sync::Arc;
use std::sync::atomic::{AtomicI64, Ordering};

use regionkv::{Clock, SystemClock};

/// The value of [`SwitchableClock`]'s cell that means "follow the system clock". No frozen
/// time can take it: `clock` refuses negative times.
const SYSTEM: i64 = i64::MIN;

/// A clock that is either frozen at a time or follows the system clock. Clones share the
/// same state, so the shell keeps one handle while the engine holds another.
#[derive(Debug, Clone)]
pub struct SwitchableClock {
    frozen: Arc<AtomicI64>,
}

impl Default for SwitchableClock {
    fn default() -> Self {
        SwitchableClock {
            frozen: Arc::new(AtomicI64::new(SYSTEM)),
        }
    }
}

impl SwitchableClock {
    /// A clock following the system clock.
    pub fn new() -> Self {
        Self::default()
    }

    /// Freezes the clock at `millis` (milliseconds since the epoch; must not be negative).
    pub fn freeze(&self, millis: i64) {
        self.frozen.store(millis.max(0), Ordering::SeqCst);
    }

    /// Makes the clock follow the system clock again.
    pub fn unfreeze(&self) {
        self.frozen.store(SYSTEM, Ordering::SeqCst);
    }

    /// The frozen time, if the clock is frozen.
    pub fn frozen_at(&self) -> Option<i64> {
        match self.frozen.load(Ordering::SeqCst) {
            SYSTEM => None,
            millis => Some(millis),
        }
    }
}

impl Clock for SwitchableClock {
    fn now_millis(&self) -> i64 {
        self.frozen_at().unwrap_or_else(|| SystemClock.now_millis())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn freezes_unfreezes_and_shares_state() {
        let clock = SwitchableClock::new();
        assert_eq!(clock.frozen_at(), None);
        let shared: Arc<dyn Clock> = Arc::new(clock.clone());
        clock.freeze(1_700_000_000_000);
        assert_eq!(shared.now_millis(), 1_700_000_000_000);
        assert_eq!(clock.frozen_at(), Some(1_700_000_000_000));
        clock.freeze(-5);
        assert_eq!(shared.now_millis(), 0);
        clock.unfreeze();
        // The system clock is well past 2020 on any machine running these tests.
        assert!(shared.now_millis() > 1_577_836_800_000);
    }
}
