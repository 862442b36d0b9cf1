//! HBase's compaction knobs (`CompactionConfiguration`, `OffPeakHours`, the store's
//! blocking-file count), each with the exact HBase configuration key as a constant, so a
//! grep from HBase finds it here, and with HBase's default.
//!
//! Everything here is plain data plus pure functions; nothing reads a clock or a file.
//!
//! Java types matter in two places and are kept on purpose:
//! * the ratios and the major-compaction jitter are Java `float`s (`1.2F` widens to
//!   `1.2000000476837158`), so they are stored as [`f32`] and widened at use, exactly as
//!   HBase does when it multiplies a `long` by them;
//! * sizes are Java `long`s; we use [`u64`] with `Long.MAX_VALUE` (`i64::MAX`) as the
//!   "unbounded" default.

/// `hbase.hstore.compaction.min`: fewest files in a minor compaction (forced to at least 2).
pub const COMPACTION_MIN_KEY: &str = "hbase.hstore.compaction.min";
/// The pre-0.96 name of [`COMPACTION_MIN_KEY`], still read as its fallback.
pub const COMPACTION_THRESHOLD_OLD_KEY: &str = "hbase.hstore.compactionThreshold";
/// `hbase.hstore.compaction.max`: most files in a minor compaction.
pub const COMPACTION_MAX_KEY: &str = "hbase.hstore.compaction.max";
/// `hbase.hstore.compaction.ratio` (Java float).
pub const COMPACTION_RATIO_KEY: &str = "hbase.hstore.compaction.ratio";
/// `hbase.hstore.compaction.ratio.offpeak` (Java float).
pub const COMPACTION_RATIO_OFFPEAK_KEY: &str = "hbase.hstore.compaction.ratio.offpeak";
/// `hbase.hstore.compaction.min.size`: windows smaller than this skip the ratio test.
pub const COMPACTION_MIN_SIZE_KEY: &str = "hbase.hstore.compaction.min.size";
/// `hbase.hstore.compaction.max.size`: leading files larger than this are left out of
/// minors, and windows larger than this are not chosen.
pub const COMPACTION_MAX_SIZE_KEY: &str = "hbase.hstore.compaction.max.size";
/// `hbase.hstore.compaction.max.size.offpeak`: the same cap while off-peak.
pub const COMPACTION_MAX_SIZE_OFFPEAK_KEY: &str = "hbase.hstore.compaction.max.size.offpeak";
/// `hbase.offpeak.start.hour` (inclusive, 0..=23; -1 = off).
pub const OFFPEAK_START_HOUR_KEY: &str = "hbase.offpeak.start.hour";
/// `hbase.offpeak.end.hour` (exclusive, 0..=23; -1 = off).
pub const OFFPEAK_END_HOUR_KEY: &str = "hbase.offpeak.end.hour";
/// `hbase.hregion.majorcompaction`: period of time-based majors in ms (`HConstants.
/// MAJOR_COMPACTION_PERIOD`); 0 or less turns them off.
pub const MAJOR_COMPACTION_PERIOD_KEY: &str = "hbase.hregion.majorcompaction";
/// `hbase.hregion.majorcompaction.jitter` (Java float fraction of the period).
pub const MAJOR_COMPACTION_JITTER_KEY: &str = "hbase.hregion.majorcompaction.jitter";
/// `hbase.hstore.blockingStoreFiles` (`HStore.BLOCKING_STOREFILES_KEY`).
pub const BLOCKING_STORE_FILES_KEY: &str = "hbase.hstore.blockingStoreFiles";
/// `hbase.hstore.blockingWaitTime`: longest a flush is delayed for too many files (ms).
pub const BLOCKING_WAIT_TIME_KEY: &str = "hbase.hstore.blockingWaitTime";
/// `hbase.regionserver.thread.compaction.throttle`: requests larger than this (bytes) go to
/// the "large" compaction pool. (HBase has no `hbase.hstore.compaction.throttle` key.)
pub const COMPACTION_THROTTLE_KEY: &str = "hbase.regionserver.thread.compaction.throttle";
/// `hbase.store.delete.expired.storefile`: drop whole TTL-expired files before selecting.
pub const DELETE_EXPIRED_STOREFILE_KEY: &str = "hbase.store.delete.expired.storefile";
/// `hbase.hstore.defaultengine.compactionpolicy.class` (`DefaultStoreEngine`): which policy
/// the default store engine uses; see [`super::CompactionPolicyKind`].
pub const COMPACTION_POLICY_CLASS_KEY: &str = "hbase.hstore.defaultengine.compactionpolicy.class";

/// Default of [`COMPACTION_MIN_KEY`].
pub const DEFAULT_MIN_FILES: usize = 3;
/// Default of [`COMPACTION_MAX_KEY`].
pub const DEFAULT_MAX_FILES: usize = 10;
/// Default of [`COMPACTION_RATIO_KEY`] (`1.2F`).
pub const DEFAULT_RATIO: f32 = 1.2;
/// Default of [`COMPACTION_RATIO_OFFPEAK_KEY`] (`5.0F`).
pub const DEFAULT_OFFPEAK_RATIO: f32 = 5.0;
/// The memstore flush size HBase ships with (`hbase.hregion.memstore.flush.size`, 128 MiB).
pub const DEFAULT_FLUSH_SIZE: u64 = 128 * 1024 * 1024;
/// Default of [`COMPACTION_MIN_SIZE_KEY`] as shipped in `hbase-default.xml` (128 MiB). The
/// code falls back to the store's flush size only when the key is absent altogether; see
/// [`CompactionConfig::from_flush_size`].
pub const DEFAULT_MIN_COMPACT_SIZE: u64 = 128 * 1024 * 1024;
/// Default of [`COMPACTION_MAX_SIZE_KEY`] (`Long.MAX_VALUE`).
pub const DEFAULT_MAX_COMPACT_SIZE: u64 = i64::MAX as u64;
/// Default of the off-peak hour keys: off.
pub const DEFAULT_OFFPEAK_HOUR: i32 = -1;
/// Default of [`MAJOR_COMPACTION_PERIOD_KEY`]: 7 days in ms.
pub const DEFAULT_MAJOR_COMPACTION_PERIOD_MS: i64 = 7 * 24 * 60 * 60 * 1000;
/// Default of [`MAJOR_COMPACTION_JITTER_KEY`] (`0.50F`).
pub const DEFAULT_MAJOR_COMPACTION_JITTER: f32 = 0.5;
/// Default of [`BLOCKING_STORE_FILES_KEY`] in HBase 2.x (`HStore.
/// DEFAULT_BLOCKING_STOREFILE_COUNT`; 1.x's hbase-default.xml said 10, very old code 7).
pub const DEFAULT_BLOCKING_STORE_FILES: usize = 16;
/// Default of [`BLOCKING_WAIT_TIME_KEY`], 90 s.
pub const DEFAULT_BLOCKING_WAIT_TIME_MS: u64 = 90_000;
/// Default of [`DELETE_EXPIRED_STOREFILE_KEY`].
pub const DEFAULT_DELETE_EXPIRED_STOREFILE: bool = true;

/// The compaction knobs of one store, as HBase's `CompactionConfiguration` (plus the
/// store's blocking-file count and expired-file switch) holds them. [`Default`] gives
/// HBase's shipped defaults for the default 128 MiB flush size.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct CompactionConfig {
    /// [`COMPACTION_MIN_KEY`]. HBase forces it to at least 2 when it reads it; the policy
    /// does the same at use ([`Self::min_files_to_compact`]).
    pub min_files: usize,
    /// [`COMPACTION_MAX_KEY`].
    pub max_files: usize,
    /// [`COMPACTION_RATIO_KEY`].
    pub ratio: f32,
    /// [`COMPACTION_RATIO_OFFPEAK_KEY`].
    pub offpeak_ratio: f32,
    /// [`COMPACTION_MIN_SIZE_KEY`] in bytes.
    pub min_compact_size: u64,
    /// [`COMPACTION_MAX_SIZE_KEY`] in bytes.
    pub max_compact_size: u64,
    /// [`COMPACTION_MAX_SIZE_OFFPEAK_KEY`] in bytes (defaults to `max_compact_size`).
    pub max_compact_size_offpeak: u64,
    /// [`OFFPEAK_START_HOUR_KEY`].
    pub offpeak_start_hour: i32,
    /// [`OFFPEAK_END_HOUR_KEY`].
    pub offpeak_end_hour: i32,
    /// [`MAJOR_COMPACTION_PERIOD_KEY`] in ms; `<= 0` turns time-based majors off.
    pub major_compaction_period_ms: i64,
    /// [`MAJOR_COMPACTION_JITTER_KEY`]; `<= 0` means no jitter.
    pub major_compaction_jitter: f32,
    /// [`BLOCKING_STORE_FILES_KEY`].
    pub blocking_store_files: usize,
    /// [`BLOCKING_WAIT_TIME_KEY`] in ms.
    pub blocking_wait_time_ms: u64,
    /// [`COMPACTION_THROTTLE_KEY`] in bytes: `2 × max_files × flush size` unless set.
    pub throttle_point: u64,
    /// [`DELETE_EXPIRED_STOREFILE_KEY`].
    pub delete_expired_storefile: bool,
}

impl Default for CompactionConfig {
    fn default() -> Self {
        Self {
            min_files: DEFAULT_MIN_FILES,
            max_files: DEFAULT_MAX_FILES,
            ratio: DEFAULT_RATIO,
            offpeak_ratio: DEFAULT_OFFPEAK_RATIO,
            min_compact_size: DEFAULT_MIN_COMPACT_SIZE,
            max_compact_size: DEFAULT_MAX_COMPACT_SIZE,
            max_compact_size_offpeak: DEFAULT_MAX_COMPACT_SIZE,
            offpeak_start_hour: DEFAULT_OFFPEAK_HOUR,
            offpeak_end_hour: DEFAULT_OFFPEAK_HOUR,
            major_compaction_period_ms: DEFAULT_MAJOR_COMPACTION_PERIOD_MS,
            major_compaction_jitter: DEFAULT_MAJOR_COMPACTION_JITTER,
            blocking_store_files: DEFAULT_BLOCKING_STORE_FILES,
            blocking_wait_time_ms: DEFAULT_BLOCKING_WAIT_TIME_MS,
            throttle_point: default_throttle_point(DEFAULT_MAX_FILES, DEFAULT_FLUSH_SIZE),
            delete_expired_storefile: DEFAULT_DELETE_EXPIRED_STOREFILE,
        }
    }
}

/// HBase's fallback for [`COMPACTION_THROTTLE_KEY`]: `2 × max_files × flush_size`
/// (2684354560 with the defaults).
pub fn default_throttle_point(max_files: usize, flush_size: u64) -> u64 {
    2u64.saturating_mul(max_files as u64)
        .saturating_mul(flush_size)
}

impl CompactionConfig {
    /// The defaults for a store whose region flushes at `flush_size`, with the values that
    /// HBase derives from the flush size when their keys are not set: the minimum
    /// compaction size (`CompactionConfiguration` falls back to the store's flush size) and
    /// the large/small pool throttle point (`2 × max_files × flush_size`).
    ///
    /// Note: a stock `hbase-default.xml` *does* set `hbase.hstore.compaction.min.size` to
    /// 128 MiB, so a real cluster keeps 128 MiB whatever the table's flush size; use
    /// [`Default`] and change `throttle_point` to model that.
    pub fn from_flush_size(flush_size: u64) -> Self {
        let base = Self::default();
        Self {
            min_compact_size: flush_size,
            throttle_point: default_throttle_point(base.max_files, flush_size),
            ..base
        }
    }

    /// The minimum file count actually used: HBase reads `max(2, hbase.hstore.compaction.min)`.
    pub fn min_files_to_compact(&self) -> usize {
        self.min_files.max(2)
    }

    /// The ratio to use, widened from the Java float: the off-peak one when off-peak
    /// compaction may be used.
    pub fn ratio_for(&self, may_use_off_peak: bool) -> f64 {
        f64::from(if may_use_off_peak {
            self.offpeak_ratio
        } else {
            self.ratio
        })
    }

    /// The size cap to use (`getMaxCompactSize(mayUseOffPeak)`).
    pub fn max_compact_size_for(&self, may_use_off_peak: bool) -> u64 {
        if may_use_off_peak {
            self.max_compact_size_offpeak
        } else {
            self.max_compact_size
        }
    }

    /// Whether `hour` (0..=23, local time) is an off-peak hour; see [`is_off_peak`].
    pub fn is_off_peak(&self, hour: u32) -> bool {
        is_off_peak(self, hour)
    }
}

/// HBase's `OffPeakHours`: off-peak is disabled when both hours are -1, when either is
/// outside 0..=23, or when they are equal. Otherwise the start is inclusive and the end
/// exclusive, and a window with `start > end` wraps past midnight. `hour` is the hour of
/// day in the server's local time zone (HBase's `CurrentHourProvider`); the caller reads
/// the clock, this stays pure.
pub fn is_off_peak(cfg: &CompactionConfig, hour: u32) -> bool {
    let (start, end) = (cfg.offpeak_start_hour, cfg.offpeak_end_hour);
    let valid = |h: i32| (0..=23).contains(&h);
    if !valid(start) || !valid(end) || start == end {
        // Covers the (-1, -1) "disabled" default as well as invalid hours.
        return false;
    }
    let Ok(hour) = i32::try_from(hour) else {
        return false;
    };
    if start < end {
        start <= hour && hour < end
    } else {
        hour < end || start <= hour
    }
}
