//! Split policies as pure functions of a stats snapshot: HBase 2.x's `RegionSplitPolicy`
//! family (`ConstantSizeRegionSplitPolicy`, `IncreasingToUpperBoundRegionSplitPolicy`,
//! `SteppingSplitPolicy` (the 2.x default), `BusyRegionSplitPolicy`,
//! `KeyPrefixRegionSplitPolicy`, `DelimitedKeyPrefixRegionSplitPolicy`,
//! `DisabledRegionSplitPolicy`).
//!
//! HBase keeps per-region state in the policy object: the jittered maximum size drawn once
//! when the policy is configured for a region, and the busy policy's blocked-request
//! window. Here the caller keeps both: it draws the jitter once per region and passes it to
//! [`desired_max_file_size`], and keeps a [`BusyTracker`] per region for the busy policy.
//!
//! Sizes are Java `long`s in HBase. Two places can go negative there (a jitter rate above
//! 2, and the unchecked `initialSize × R³` product, both reproduced); we return 0 instead.
//! Store sizes are never negative, so "size > negative" and "size > 0" differ only for a
//! region whose stores are all empty, and such a region has no split point, so HBase does
//! not split it either.

use super::{Result, SplitError};
use crate::descriptor::{DEFAULT_MAX_FILESIZE, DEFAULT_MEMSTORE_FLUSH_SIZE};
use std::collections::BTreeMap;

/// Site key naming the default policy class (`HConstants.HBASE_REGION_SPLIT_POLICY_KEY`).
pub const SPLIT_POLICY_KEY: &str = "hbase.regionserver.region.split.policy";
/// Table descriptor key holding the table's policy class (`TableDescriptor.SPLIT_POLICY`).
pub const TABLE_SPLIT_POLICY_KEY: &str = "SPLIT_POLICY";
/// `hbase.hregion.max.filesize` (`HConstants.HREGION_MAX_FILESIZE`).
pub const MAX_FILESIZE_KEY: &str = "hbase.hregion.max.filesize";
/// `hbase.hregion.max.filesize.jitter`: fraction by which each region's maximum is varied.
pub const MAX_FILESIZE_JITTER_KEY: &str = "hbase.hregion.max.filesize.jitter";
/// `hbase.increasing.policy.initial.size`: the size a table's first region splits at.
pub const INITIAL_SIZE_KEY: &str = "hbase.increasing.policy.initial.size";
/// `hbase.hregion.split.overallfiles` (`HConstants.OVERALL_HREGION_FILES`).
pub const OVERALL_FILES_KEY: &str = "hbase.hregion.split.overallfiles";
/// Table key of the key-prefix policy's prefix length.
pub const PREFIX_LENGTH_KEY: &str = "KeyPrefixRegionSplitPolicy.prefix_length";
/// The deprecated name of [`PREFIX_LENGTH_KEY`], read when the new one is absent.
pub const PREFIX_LENGTH_KEY_DEPRECATED: &str = "prefix_split_key_policy.prefix_length";
/// Table key naming the policy that decides *when* a key-prefix table splits.
pub const KEY_PREFIX_BASE_POLICY_KEY: &str =
    "KeyPrefixRegionSplitPolicy.base_region_split_policy_class";
/// Table key of the delimited-prefix policy's delimiter.
pub const DELIMITER_KEY: &str = "DelimitedKeyPrefixRegionSplitPolicy.delimiter";
/// Table key naming the policy that decides *when* a delimited-prefix table splits.
pub const DELIMITED_BASE_POLICY_KEY: &str =
    "DelimitedKeyPrefixRegionSplitPolicy.base_region_split_policy_class";
/// `hbase.busy.policy.blockedRequests`: blocked-write fraction that makes a region busy.
pub const BUSY_BLOCKED_REQUESTS_KEY: &str = "hbase.busy.policy.blockedRequests";
/// `hbase.busy.policy.minAge`: ms a region must live before it may split for busyness.
pub const BUSY_MIN_AGE_KEY: &str = "hbase.busy.policy.minAge";
/// `hbase.busy.policy.aggWindow`: ms over which the blocked rate is averaged.
pub const BUSY_AGG_WINDOW_KEY: &str = "hbase.busy.policy.aggWindow";

/// Default of [`MAX_FILESIZE_JITTER_KEY`].
pub const DEFAULT_MAX_FILESIZE_JITTER: f64 = 0.25;
/// Default of [`OVERALL_FILES_KEY`] as HBase 2.x ships it: `hbase-default.xml` says
/// `true`, and that file is always loaded, so `true` is what a cluster runs with. (The
/// Java constant `HConstants.DEFAULT_OVERALL_HREGION_FILES` says `false`; only code
/// building a `Configuration` without the defaults file sees it. Releases before the key
/// existed behave as `false`.)
pub const DEFAULT_OVERALL_FILES: bool = true;
/// Above this many regions of the table on the server, the increasing policy stops
/// growing the threshold (HBase's guard against overflowing `R³`).
const MAX_REGIONS_FOR_CUBE: u32 = 100;

const POLICY_PACKAGE: &str = "org.apache.hadoop.hbase.regionserver.";

/// A table's split policy (HBase's `RegionSplitPolicy` subclasses a table can name).
///
/// The key-prefix policies decide *when* to split with a base policy (since HBASE-24670;
/// `SteppingSplitPolicy` unless the table names another) and only change *where*.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub enum SplitPolicy {
    /// `ConstantSizeRegionSplitPolicy`: split past the (jittered) maximum size.
    ConstantSize,
    /// `IncreasingToUpperBoundRegionSplitPolicy` (the 0.94–1.x default): the threshold
    /// grows with the cube of the table's region count on the server, up to the maximum.
    IncreasingToUpperBound,
    /// `SteppingSplitPolicy`, the HBase 2.x default: the initial size while the table has
    /// one region on the server, the maximum size after that.
    #[default]
    Stepping,
    /// `BusyRegionSplitPolicy`: the increasing rule, or a high blocked-write rate (see
    /// [`BusyTracker`]).
    Busy,
    /// `KeyPrefixRegionSplitPolicy`: the split row is cut to its first `prefix_length`
    /// bytes, so rows sharing a prefix stay in one region.
    KeyPrefix {
        /// Bytes of the row kept (positive when built by
        /// [`from_class_name`](Self::from_class_name); 0 leaves rows unchanged).
        prefix_length: usize,
        /// The policy deciding when to split.
        base: Box<SplitPolicy>,
    },
    /// `DelimitedKeyPrefixRegionSplitPolicy`: the split row is cut before the first
    /// occurrence of `delimiter`.
    DelimitedKeyPrefix {
        /// The delimiter bytes (UTF-8 of the table value; empty leaves rows unchanged).
        delimiter: Vec<u8>,
        /// The policy deciding when to split.
        base: Box<SplitPolicy>,
    },
    /// `DisabledRegionSplitPolicy`: never splits on its own.
    Disabled,
}

impl SplitPolicy {
    /// The policy named by a class name, as a table's `SPLIT_POLICY` or the site's
    /// [`SPLIT_POLICY_KEY`] gives it: fully qualified
    /// (`org.apache.hadoop.hbase.regionserver.DisabledRegionSplitPolicy`) or, as a
    /// convenience HBase itself does not offer (it loads the class by name), the short
    /// class name.
    ///
    /// `table_values` are the table descriptor's values (the shell's `METADATA`, *not* its
    /// `CONFIGURATION` map: HBase reads the prefix policies' parameters with
    /// `TableDescriptor.getValue`). The key-prefix policy needs a positive
    /// [`PREFIX_LENGTH_KEY`] (or [`PREFIX_LENGTH_KEY_DEPRECATED`]), the delimited one a
    /// non-empty [`DELIMITER_KEY`]; without them HBase logs an error and the region's
    /// split check then fails, so they are refused here. Their base policy comes from
    /// [`KEY_PREFIX_BASE_POLICY_KEY`] / [`DELIMITED_BASE_POLICY_KEY`]; a name that does not
    /// resolve falls back to `SteppingSplitPolicy` as in HBase, while a prefix policy as
    /// its own base (endless recursion in HBase) is refused.
    pub fn from_class_name(name: &str, table_values: &BTreeMap<String, String>) -> Result<Self> {
        let short = name.strip_prefix(POLICY_PACKAGE).unwrap_or(name);
        Ok(match short {
            "ConstantSizeRegionSplitPolicy" => Self::ConstantSize,
            "IncreasingToUpperBoundRegionSplitPolicy" => Self::IncreasingToUpperBound,
            "SteppingSplitPolicy" => Self::Stepping,
            "BusyRegionSplitPolicy" => Self::Busy,
            "DisabledRegionSplitPolicy" => Self::Disabled,
            "KeyPrefixRegionSplitPolicy" => {
                const POLICY: &str = "KeyPrefixRegionSplitPolicy";
                let (key, value) = match table_values.get(PREFIX_LENGTH_KEY) {
                    Some(v) => (PREFIX_LENGTH_KEY, Some(v)),
                    None => (
                        PREFIX_LENGTH_KEY_DEPRECATED,
                        table_values.get(PREFIX_LENGTH_KEY_DEPRECATED),
                    ),
                };
                let invalid = |reason| SplitError::InvalidPolicyParameter {
                    policy: POLICY,
                    key: if value.is_some() {
                        key
                    } else {
                        PREFIX_LENGTH_KEY
                    },
                    value: value.cloned(),
                    reason,
                };
                let text = value.ok_or_else(|| invalid("not set"))?;
                // Integer.parseInt: optional sign, decimal digits, fits an int.
                let length: i32 = text.parse().map_err(|_| invalid("not an int"))?;
                let prefix_length = usize::try_from(length).map_err(|_| invalid("not positive"))?;
                if prefix_length == 0 {
                    return Err(invalid("not positive"));
                }
                Self::KeyPrefix {
                    prefix_length,
                    base: Box::new(base_policy(
                        POLICY,
                        KEY_PREFIX_BASE_POLICY_KEY,
                        table_values,
                    )?),
                }
            }
            "DelimitedKeyPrefixRegionSplitPolicy" => {
                const POLICY: &str = "DelimitedKeyPrefixRegionSplitPolicy";
                let value = table_values.get(DELIMITER_KEY);
                let delimiter = match value {
                    Some(d) if !d.is_empty() => d.as_bytes().to_vec(),
                    _ => {
                        return Err(SplitError::InvalidPolicyParameter {
                            policy: POLICY,
                            key: DELIMITER_KEY,
                            value: value.cloned(),
                            reason: "not set",
                        });
                    }
                };
                Self::DelimitedKeyPrefix {
                    delimiter,
                    base: Box::new(base_policy(
                        POLICY,
                        DELIMITED_BASE_POLICY_KEY,
                        table_values,
                    )?),
                }
            }
            _ => return Err(SplitError::UnknownPolicy(name.to_string())),
        })
    }

    /// The short class name (`"SteppingSplitPolicy"`).
    pub fn short_name(&self) -> &'static str {
        match self {
            Self::ConstantSize => "ConstantSizeRegionSplitPolicy",
            Self::IncreasingToUpperBound => "IncreasingToUpperBoundRegionSplitPolicy",
            Self::Stepping => "SteppingSplitPolicy",
            Self::Busy => "BusyRegionSplitPolicy",
            Self::KeyPrefix { .. } => "KeyPrefixRegionSplitPolicy",
            Self::DelimitedKeyPrefix { .. } => "DelimitedKeyPrefixRegionSplitPolicy",
            Self::Disabled => "DisabledRegionSplitPolicy",
        }
    }

    /// The fully qualified class name, as `describe` prints `SPLIT_POLICY`.
    pub fn class_name(&self) -> String {
        format!("{POLICY_PACKAGE}{}", self.short_name())
    }

    /// The policy that decides *when* to split: the base of a prefix policy, else itself.
    pub fn size_policy(&self) -> &SplitPolicy {
        match self {
            Self::KeyPrefix { base, .. } | Self::DelimitedKeyPrefix { base, .. } => {
                base.size_policy()
            }
            other => other,
        }
    }
}

/// The base policy of a prefix policy, named by `key` in the table's values.
fn base_policy(
    policy: &'static str,
    key: &'static str,
    table_values: &BTreeMap<String, String>,
) -> Result<SplitPolicy> {
    let Some(name) = table_values.get(key) else {
        return Ok(SplitPolicy::Stepping);
    };
    // Checked by name before resolving: a prefix base would read this same key again.
    let short = name.strip_prefix(POLICY_PACKAGE).unwrap_or(name);
    if short == "KeyPrefixRegionSplitPolicy" || short == "DelimitedKeyPrefixRegionSplitPolicy" {
        return Err(SplitError::InvalidPolicyParameter {
            policy,
            key,
            value: Some(name.clone()),
            reason: "a prefix policy, which cannot be the base of one",
        });
    }
    // An unresolvable name: HBase logs "Invalid class ... Using default RegionSplitPolicy".
    Ok(SplitPolicy::from_class_name(name, table_values).unwrap_or(SplitPolicy::Stepping))
}

/// The sizes a split policy reads, resolved by the caller from the table descriptor and
/// the site configuration (the table's value wins when positive, as in HBase).
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct SplitConfig {
    /// The table's `MEMSTORE_FLUSHSIZE`, else `hbase.hregion.memstore.flush.size`; 0 means
    /// unset (HBase's 128 MiB). Twice this is the default initial size.
    pub memstore_flush_size: u64,
    /// The table's `MAX_FILESIZE`, else [`MAX_FILESIZE_KEY`]; 0 means unset (10 GiB).
    pub max_file_size: u64,
    /// [`MAX_FILESIZE_JITTER_KEY`] (Java `double`, default 0.25: ±12.5 %).
    pub max_file_size_jitter_rate: f64,
    /// [`INITIAL_SIZE_KEY`]; `None` or 0 means twice the flush size.
    pub initial_size: Option<u64>,
    /// [`OVERALL_FILES_KEY`]: compare the sum of all stores (true) or each store (false)
    /// against the threshold. See [`DEFAULT_OVERALL_FILES`] for the default chosen.
    pub overall_files: bool,
}

impl Default for SplitConfig {
    fn default() -> Self {
        Self {
            memstore_flush_size: DEFAULT_MEMSTORE_FLUSH_SIZE,
            max_file_size: DEFAULT_MAX_FILESIZE,
            max_file_size_jitter_rate: DEFAULT_MAX_FILESIZE_JITTER,
            initial_size: None,
            overall_files: DEFAULT_OVERALL_FILES,
        }
    }
}

/// A `u64` as the Java `long` HBase holds it in (values beyond `Long.MAX_VALUE` cannot be
/// configured in HBase at all).
fn java_long(v: u64) -> i64 {
    i64::try_from(v).unwrap_or(i64::MAX)
}

fn from_java_long(v: i64) -> u64 {
    u64::try_from(v).unwrap_or(0)
}

/// The initial size of the increasing and stepping policies: [`INITIAL_SIZE_KEY`] when
/// positive, else twice the flush size (twice HBase's 128 MiB default when that is unset
/// or the doubling wraps negative in Java `long` arithmetic).
pub fn initial_size(config: &SplitConfig) -> u64 {
    from_java_long(java_initial_size(config))
}

fn java_initial_size(config: &SplitConfig) -> i64 {
    if let Some(size) = config.initial_size.filter(|&s| s > 0) {
        return java_long(size);
    }
    let doubled = java_long(config.memstore_flush_size).wrapping_mul(2);
    if doubled > 0 {
        doubled
    } else {
        2 * java_long(DEFAULT_MEMSTORE_FLUSH_SIZE)
    }
}

/// The region's maximum size after jitter, fixed once per region when HBase configures
/// the policy (`ConstantSizeRegionSplitPolicy.configureForRegion`).
///
/// `jitter_draw` is the random draw in `[0, 1)` (HBase's `nextFloat()`; tests pass fixed
/// values). `rate = (jitter_draw − 0.5) × jitter_rate`; the size grows by
/// `(long)(size × rate)` (truncated toward zero), saturating at `Long.MAX_VALUE`. With the
/// default 0.25 the result lies in `[size − 12.5 %, size + 12.5 %)`.
pub fn desired_max_file_size(config: &SplitConfig, jitter_draw: f64) -> u64 {
    let desired = java_long(if config.max_file_size == 0 {
        DEFAULT_MAX_FILESIZE
    } else {
        config.max_file_size
    });
    let rate = (jitter_draw - 0.5) * config.max_file_size_jitter_rate;
    // Java's (long) of a double: toward zero, saturating, NaN → 0; Rust's `as` is the same.
    let jitter = (desired as f64 * rate) as i64;
    let jittered = if rate > 0.0 && jitter > i64::MAX - desired {
        i64::MAX
    } else {
        desired.saturating_add(jitter)
    };
    from_java_long(jittered)
}

/// The size a store (or the region, see [`SplitConfig::overall_files`]) must exceed for
/// the region to split (`getSizeToCheck`). `desired_max` is [`desired_max_file_size`];
/// `regions_of_table_on_server` counts the online regions of the same table on this
/// server (newer 2.x counts default replicas only), i.e. all of the table's regions in an
/// embedded engine.
///
/// * `ConstantSize`, `Disabled`: `desired_max`.
/// * `IncreasingToUpperBound`, `Busy`: `desired_max` when R is 0 or above 100, else
///   `min(desired_max, initial × R³)`. The cube is not jittered and, as in HBase, is
///   multiplied in unchecked 64-bit arithmetic (only absurd initial sizes wrap).
/// * `Stepping`: the initial size when R is 1 (even if above `desired_max`), else
///   `desired_max`.
/// * Prefix policies: their base policy's rule.
pub fn size_to_check(
    policy: &SplitPolicy,
    config: &SplitConfig,
    desired_max: u64,
    regions_of_table_on_server: u32,
) -> u64 {
    let r = regions_of_table_on_server;
    match policy.size_policy() {
        SplitPolicy::IncreasingToUpperBound | SplitPolicy::Busy => {
            if r == 0 || r > MAX_REGIONS_FOR_CUBE {
                return desired_max;
            }
            let r = i64::from(r);
            let cube = java_initial_size(config)
                .wrapping_mul(r)
                .wrapping_mul(r)
                .wrapping_mul(r);
            from_java_long(java_long(desired_max).min(cube))
        }
        SplitPolicy::Stepping if r == 1 => initial_size(config),
        _ => desired_max,
    }
}

/// HBase's `isExceedSize`: with `overall_files` the sum of all store sizes, otherwise any
/// single store, must be strictly greater than `size_to_check`.
pub fn exceeds_size(size_to_check: u64, overall_files: bool, store_sizes: &[u64]) -> bool {
    if overall_files {
        // Java sums in a long; real store sizes never come near overflowing it.
        store_sizes.iter().fold(0u64, |a, &s| a.saturating_add(s)) > size_to_check
    } else {
        store_sizes.iter().any(|&s| s > size_to_check)
    }
}

/// `shouldSplit()`: whether the policy asks for an automatic split of a region whose
/// stores (one entry per family, the total size of its storefiles) are `store_sizes`.
///
/// `can_split` is HBase's `canSplit()`: the region is not meta, is available, and no store
/// holds reference (half) files; false vetoes the split. `Disabled` never splits. For
/// `Busy` this is the size half only; combine it with [`BusyTracker::should_split`].
pub fn should_split(
    policy: &SplitPolicy,
    config: &SplitConfig,
    desired_max: u64,
    regions_of_table_on_server: u32,
    store_sizes: &[u64],
    can_split: bool,
) -> bool {
    if matches!(policy.size_policy(), SplitPolicy::Disabled) || !can_split {
        return false;
    }
    let threshold = size_to_check(policy, config, desired_max, regions_of_table_on_server);
    exceeds_size(threshold, config.overall_files, store_sizes)
}

/// The split row after the policy's adjustment (`getSplitPoint` of the prefix policies):
///
/// * `KeyPrefix`: the first `prefix_length` bytes (all of a shorter row);
/// * `DelimitedKeyPrefix`: the bytes before the first occurrence of the delimiter, which
///   may be empty when the row starts with it (the region's row check then refuses the
///   split); a row without the delimiter is unchanged;
/// * every other policy: unchanged.
///
/// An empty row is returned unchanged (HBase skips the cut when there is no split point).
pub fn adjust_split_point(policy: &SplitPolicy, split_row: &[u8]) -> Vec<u8> {
    match policy {
        SplitPolicy::KeyPrefix { prefix_length, .. } if *prefix_length > 0 => {
            split_row[..split_row.len().min(*prefix_length)].to_vec()
        }
        SplitPolicy::DelimitedKeyPrefix { delimiter, .. } if !delimiter.is_empty() => {
            match split_row
                .windows(delimiter.len())
                .position(|w| w == delimiter.as_slice())
            {
                Some(i) => split_row[..i].to_vec(),
                None => split_row.to_vec(),
            }
        }
        _ => split_row.to_vec(),
    }
}

/// `BusyRegionSplitPolicy`'s knobs, read from the region's configuration.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct BusyConfig {
    /// [`BUSY_BLOCKED_REQUESTS_KEY`] (Java `float`, default 0.2).
    pub max_blocked_requests: f32,
    /// [`BUSY_MIN_AGE_KEY`] in ms (default 600000, 10 minutes).
    pub min_age_ms: i64,
    /// [`BUSY_AGG_WINDOW_KEY`] in ms (default 300000, 5 minutes).
    pub aggregation_window_ms: i64,
}

impl Default for BusyConfig {
    fn default() -> Self {
        Self {
            max_blocked_requests: 0.2,
            min_age_ms: 600_000,
            aggregation_window_ms: 300_000,
        }
    }
}

impl BusyConfig {
    /// The values HBase actually uses: a blocked fraction outside `[0.00001, 0.99999]`
    /// and a window of 0 or less are reset to their defaults (with a warning in HBase).
    pub fn sanitized(self) -> Self {
        let d = Self::default();
        Self {
            max_blocked_requests: if self.max_blocked_requests < 0.00001
                || self.max_blocked_requests > 0.99999
            {
                d.max_blocked_requests
            } else {
                self.max_blocked_requests
            },
            aggregation_window_ms: if self.aggregation_window_ms <= 0 {
                d.aggregation_window_ms
            } else {
                self.aggregation_window_ms
            },
            ..self
        }
    }
}

/// The busy policy's per-region state: the blocked-write rate over a running window, as
/// `BusyRegionSplitPolicy.updateRate` keeps it. Counts are the region's cumulative
/// blocked and total write requests; times are ms from the engine clock.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct BusyTracker {
    start_ms: i64,
    prev_ms: i64,
    blocked_requests: i64,
    write_requests: i64,
    blocked_rate: f32,
}

impl BusyTracker {
    /// State when the policy is configured for a region (HBase's `init()`).
    pub fn new(now_ms: i64, blocked_requests: i64, write_requests: i64) -> Self {
        Self {
            start_ms: now_ms,
            prev_ms: now_ms,
            blocked_requests,
            write_requests,
            blocked_rate: 0.0,
        }
    }

    /// The blocked rate now, in Java `float` arithmetic: Δblocked / (Δwrites + 0.00001)
    /// since the window mark. When a full window has passed since the mark, that becomes
    /// the stored rate and the mark moves; otherwise, once the region is older than one
    /// window, it is blended with the stored rate weighted by the elapsed part of the
    /// window; before that it is 0.
    pub fn update_rate(
        &mut self,
        config: &BusyConfig,
        now_ms: i64,
        blocked_requests: i64,
        write_requests: i64,
    ) -> f32 {
        let window = config.aggregation_window_ms;
        let rate = blocked_requests.wrapping_sub(self.blocked_requests) as f32
            / (write_requests.wrapping_sub(self.write_requests) as f32 + 0.00001);
        if now_ms.saturating_sub(self.prev_ms) >= window {
            self.blocked_rate = rate;
            self.prev_ms = now_ms;
            self.blocked_requests = blocked_requests;
            self.write_requests = write_requests;
            rate
        } else if now_ms.saturating_sub(self.start_ms) >= window {
            let slice = now_ms.saturating_sub(self.prev_ms) as f32 / (window as f32 + 0.0);
            (1.0 - slice) * self.blocked_rate + slice * rate
        } else {
            0.0
        }
    }

    /// `BusyRegionSplitPolicy.shouldSplit`: the rate is updated first (always), then the
    /// region splits if the size rule says so (`size_rule`, [`should_split`] with
    /// [`SplitPolicy::Busy`]), or if it is at least `min_age_ms` old, can split, and its
    /// blocked rate is at least `max_blocked_requests`. Pass a [`BusyConfig::sanitized`]
    /// configuration.
    pub fn should_split(
        &mut self,
        config: &BusyConfig,
        now_ms: i64,
        (blocked_requests, write_requests): (i64, i64),
        size_rule: bool,
        can_split: bool,
    ) -> bool {
        let rate = self.update_rate(config, now_ms, blocked_requests, write_requests);
        if size_rule {
            return true;
        }
        if now_ms < self.start_ms.saturating_add(config.min_age_ms) || !can_split {
            return false;
        }
        rate >= config.max_blocked_requests
    }
}
