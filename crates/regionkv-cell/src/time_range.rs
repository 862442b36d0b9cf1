//! `TimeRange`: HBase's half-open timestamp interval `[min, max)` used by Gets, Scans and
//! storefile skipping. Mirrors `org.apache.hadoop.hbase.io.TimeRange` of HBase 2.x,
//! including its argument checks and its deliberately conservative overlap test.

use crate::error::{Error, Result};

/// A half-open interval of timestamps `[min, max)`. The default is "all time"
/// `[0, i64::MAX)`, which matches every timestamp.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub struct TimeRange {
    min: i64,
    max: i64,
}

impl Default for TimeRange {
    fn default() -> Self {
        Self::all_time()
    }
}

impl TimeRange {
    /// `[0, i64::MAX)`: every timestamp (HBase's `TimeRange.allTime()`).
    pub const fn all_time() -> Self {
        Self {
            min: 0,
            max: i64::MAX,
        }
    }

    /// `[min, max)`. Errors as HBase: neither bound may be negative, and `max ≥ min`.
    pub fn between(min: i64, max: i64) -> Result<Self> {
        if min < 0 || max < 0 {
            return Err(Error::InvalidTimeRange {
                min,
                max,
                reason: "timestamp cannot be negative",
            });
        }
        if max < min {
            return Err(Error::InvalidTimeRange {
                min,
                max,
                reason: "max is smaller than min",
            });
        }
        Ok(Self { min, max })
    }

    /// `[ts, ts + 1)`: exactly one timestamp (HBase's `TimeRange.at`). `ts` must be
    /// non-negative and below `i64::MAX`.
    pub fn at(ts: i64) -> Result<Self> {
        if ts < 0 || ts == i64::MAX {
            return Err(Error::InvalidTimeRange {
                min: ts,
                max: ts.saturating_add(1),
                reason: "invalid timestamp for an exact time range",
            });
        }
        Ok(Self {
            min: ts,
            max: ts + 1,
        })
    }

    /// `[min, i64::MAX)`.
    pub fn from(min: i64) -> Result<Self> {
        Self::between(min, i64::MAX)
    }

    /// `[0, max)`.
    pub fn until(max: i64) -> Result<Self> {
        Self::between(0, max)
    }

    /// Lower bound, inclusive.
    #[inline]
    pub const fn min(&self) -> i64 {
        self.min
    }

    /// Upper bound, exclusive.
    #[inline]
    pub const fn max(&self) -> i64 {
        self.max
    }

    /// True for `[0, i64::MAX)`.
    #[inline]
    pub const fn is_all_time(&self) -> bool {
        self.min == 0 && self.max == i64::MAX
    }

    /// True when `ts` lies in `[min, max)`. All-time matches every timestamp, even a
    /// negative one (as HBase's `withinTimeRange` short-circuits).
    #[inline]
    pub const fn contains(&self, ts: i64) -> bool {
        self.is_all_time() || (self.min <= ts && ts < self.max)
    }

    /// True when `ts ≥ min` (HBase's `withinOrAfterTimeRange`).
    #[inline]
    pub const fn contains_or_after(&self, ts: i64) -> bool {
        self.is_all_time() || ts >= self.min
    }

    /// Where `ts` lies: `Less` before the range, `Equal` inside, `Greater` at or after its
    /// end (HBase's `TimeRange.compare`).
    pub fn compare(&self, ts: i64) -> std::cmp::Ordering {
        use std::cmp::Ordering::*;
        if self.is_all_time() {
            Equal
        } else if ts < self.min {
            Less
        } else if ts >= self.max {
            Greater
        } else {
            Equal
        }
    }

    /// Whether a file whose timestamps span `other` may hold cells in this range
    /// (HBase's `includesTimeRange`). Note HBase's `max ≥ other.min`: with the exclusive
    /// upper bound this is conservative by one millisecond, and we keep it identical so
    /// file-skipping decisions match HBase's.
    pub const fn overlaps(&self, other: &TimeRange) -> bool {
        self.is_all_time() || (self.min < other.max && self.max >= other.min)
    }
}

#[cfg(test)]
#[allow(clippy::unwrap_used)]
mod tests {
    use super::*;
    use std::cmp::Ordering;

    #[test]
    fn all_time_contains_everything() {
        let t = TimeRange::default();
        assert!(t.is_all_time());
        assert!(t.contains(0));
        assert!(t.contains(i64::MAX));
        assert!(t.contains(-5));
        assert_eq!(t.compare(123), Ordering::Equal);
    }

    #[test]
    fn half_open_bounds() {
        let t = TimeRange::between(10, 20).unwrap();
        assert!(!t.contains(9));
        assert!(t.contains(10));
        assert!(t.contains(19));
        assert!(!t.contains(20));
        assert_eq!(t.compare(9), Ordering::Less);
        assert_eq!(t.compare(10), Ordering::Equal);
        assert_eq!(t.compare(20), Ordering::Greater);
        assert!(t.contains_or_after(25));
        assert!(!t.contains_or_after(9));
    }

    #[test]
    fn at_is_one_millisecond() {
        let t = TimeRange::at(5).unwrap();
        assert_eq!((t.min(), t.max()), (5, 6));
        assert!(t.contains(5) && !t.contains(6) && !t.contains(4));
        assert!(TimeRange::at(-1).is_err());
        assert!(TimeRange::at(i64::MAX).is_err());
    }

    #[test]
    fn hbase_argument_checks() {
        assert!(TimeRange::between(-1, 5).is_err());
        assert!(TimeRange::between(0, -1).is_err());
        assert!(TimeRange::between(6, 5).is_err());
        assert!(TimeRange::between(5, 5).is_ok(), "empty range is legal");
        assert_eq!(TimeRange::from(7).unwrap().max(), i64::MAX);
        assert_eq!(TimeRange::until(7).unwrap().min(), 0);
    }

    #[test]
    fn overlap_is_hbase_conservative() {
        let q = TimeRange::between(10, 20).unwrap();
        assert!(q.overlaps(&TimeRange::between(0, 11).unwrap()));
        assert!(!q.overlaps(&TimeRange::between(0, 10).unwrap()));
        assert!(q.overlaps(&TimeRange::between(19, 30).unwrap()));
        // HBase's `maxStamp >= tr.getMin()` includes a file starting exactly at max.
        assert!(q.overlaps(&TimeRange::between(20, 30).unwrap()));
        assert!(!q.overlaps(&TimeRange::between(21, 30).unwrap()));
    }
}
