//! The engine's source of time. HBase tests inject an `EnvironmentEdge`; regionkv injects
//! a [`Clock`]. Every timestamp the engine assigns and every TTL decision it makes reads
//! the clock it was given, so tests and scripts can freeze or step time exactly.

use std::fmt::Debug;
use std::sync::Arc;
use std::sync::atomic::{AtomicI64, Ordering};
use std::time::{SystemTime, UNIX_EPOCH};

/// The civil date (year, month 1-12, day 1-31) of a count of days since 1970-01-01,
/// proleptic Gregorian (Howard Hinnant's `civil_from_days`): the one conversion the
/// shell's dates, the WAL printer and the lab's date fields share.
pub fn civil_from_days(days: i64) -> (i64, u32, u32) {
    let z = days + 719_468;
    let era = z.div_euclid(146_097);
    let doe = z - era * 146_097;
    let yoe = (doe - doe / 1460 + doe / 36_524 - doe / 146_096) / 365;
    let doy = doe - (365 * yoe + yoe / 4 - yoe / 100);
    let mp = (5 * doy + 2) / 153;
    // Both are within 1..=31 and 1..=12 by construction.
    let day = u32::try_from(doy - (153 * mp + 2) / 5 + 1).unwrap_or(1);
    let month = u32::try_from(if mp < 10 { mp + 3 } else { mp - 9 }).unwrap_or(1);
    let year = yoe + era * 400 + i64::from(month <= 2);
    (year, month, day)
}

/// A source of the current time in milliseconds since the Unix epoch.
pub trait Clock: Send + Sync + Debug {
    /// Milliseconds since the Unix epoch.
    fn now_millis(&self) -> i64;
}

/// A shared clock handle, as the engine holds it.
pub type SharedClock = Arc<dyn Clock>;

/// The system's wall clock (HBase's `DefaultEnvironmentEdge`).
#[derive(Debug, Default, Clone, Copy)]
pub struct SystemClock;

impl Clock for SystemClock {
    fn now_millis(&self) -> i64 {
        match SystemTime::now().duration_since(UNIX_EPOCH) {
            // i64 milliseconds last until the year 292 million; saturate rather than wrap.
            Ok(d) => i64::try_from(d.as_millis()).unwrap_or(i64::MAX),
            // A clock set before 1970: report negative milliseconds, as Java would.
            Err(e) => -i64::try_from(e.duration().as_millis()).unwrap_or(i64::MAX),
        }
    }
}

/// A clock that only moves when told to (HBase's `ManualEnvironmentEdge`). Cloning shares
/// the same time, so a test can keep a handle while the engine holds another.
#[derive(Debug, Clone, Default)]
pub struct ManualClock {
    now: Arc<AtomicI64>,
}

impl ManualClock {
    /// A clock frozen at `millis`.
    pub fn new(millis: i64) -> Self {
        Self {
            now: Arc::new(AtomicI64::new(millis)),
        }
    }

    /// Sets the time.
    pub fn set(&self, millis: i64) {
        self.now.store(millis, Ordering::SeqCst);
    }

    /// Moves the time by `delta` milliseconds (negative moves it back) and returns the
    /// new time.
    pub fn advance(&self, delta: i64) -> i64 {
        self.now.fetch_add(delta, Ordering::SeqCst) + delta
    }
}

impl Clock for ManualClock {
    fn now_millis(&self) -> i64 {
        self.now.load(Ordering::SeqCst)
    }
}

/// A clock that returns a larger value on every call (HBase's
/// `IncrementingEnvironmentEdge`): handy where tests need distinct timestamps per write.
#[derive(Debug, Clone, Default)]
pub struct IncrementingClock {
    next: Arc<AtomicI64>,
}

impl IncrementingClock {
    /// A clock whose first reading is `start`.
    pub fn new(start: i64) -> Self {
        Self {
            next: Arc::new(AtomicI64::new(start)),
        }
    }
}

impl Clock for IncrementingClock {
    fn now_millis(&self) -> i64 {
        self.next.fetch_add(1, Ordering::SeqCst)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn civil_dates() {
        assert_eq!(civil_from_days(0), (1970, 1, 1));
        assert_eq!(civil_from_days(-1), (1969, 12, 31));
        assert_eq!(civil_from_days(11_016), (2000, 2, 29));
        assert_eq!(civil_from_days(20_454), (2026, 1, 1));
    }

    #[test]
    fn system_clock_is_plausible_and_monotone_enough() {
        let c = SystemClock;
        let a = c.now_millis();
        // 2020-01-01 .. 2200-01-01: a sanity window, not a timing assertion.
        assert!(a > 1_577_836_800_000 && a < 7_258_118_400_000, "{a}");
        assert!(c.now_millis() >= a - 1_000);
    }

    #[test]
    fn manual_clock_moves_only_when_told() {
        let c = ManualClock::new(1_000);
        assert_eq!(c.now_millis(), 1_000);
        assert_eq!(c.now_millis(), 1_000);
        assert_eq!(c.advance(500), 1_500);
        assert_eq!(c.advance(-100), 1_400);
        c.set(42);
        assert_eq!(c.now_millis(), 42);
    }

    #[test]
    fn manual_clock_clones_share_time() {
        let c = ManualClock::new(0);
        let shared: SharedClock = Arc::new(c.clone());
        c.set(7);
        assert_eq!(shared.now_millis(), 7);
    }

    #[test]
    fn incrementing_clock_never_repeats() {
        let c = IncrementingClock::new(10);
        assert_eq!(c.now_millis(), 10);
        assert_eq!(c.now_millis(), 11);
        assert_eq!(c.clone().now_millis(), 12);
    }
}
