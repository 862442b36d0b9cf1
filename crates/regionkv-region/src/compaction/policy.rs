//! Compaction selection: which storefiles of one store to compact, and whether that is a
//! major. Pure functions of a [`SelectionInput`] snapshot; no clock, no I/O, no locks.
//!
//! The pipeline follows HBase 2.x (`HStore.requestCompaction` →
//! `SortedCompactionPolicy.selectCompaction` → `RatioBasedCompactionPolicy.
//! createCompactionRequest` → `ExploringCompactionPolicy.applyCompactionPolicy`):
//!
//! 0. Whole files whose every cell is past the TTL are dropped first ([`expired_files`]);
//!    the newest file never is.
//! 1. "Might be stuck" = files − compacting (+1 if anything is compacting) ≥ blocking.
//! 2. Files up to and including the newest file under compaction are not eligible.
//! 3. Unless this is a forced major over all files: drop leading (oldest) non-reference
//!    files larger than the size cap. Large files further in are kept.
//! 4. Try a major when a user forced one over all files, or when (forced over all files or
//!    time-based due) and fewer than `max_files` candidates remain.
//! 5. A major try or any reference file among the candidates takes all candidates;
//!    otherwise bulk-loaded files flagged "exclude from minor" go, the policy picks a
//!    window ([`exploring_window`] or [`ratio_based_start`]) and fewer than `min_files`
//!    picks mean nothing.
//! 6. More than `max_files` picks keep the oldest `max_files`, except for a user major.
//! 7. It is a major if a major was tried and the pick covers every file of the store.
//!
//! Invariants of the inputs: `files` are ordered oldest → newest by sequence id, as
//! HBase's `DefaultStoreFileManager` keeps them (selection relies on it for contiguity);
//! `files_compacting` are indexes into `files`. Output indexes are ascending.

use super::config::{CompactionConfig, is_off_peak};
use std::ops::Range;

/// HBase's `Store.PRIORITY_USER`: the priority of a user-requested compaction, the most
/// urgent ordinary value (lower is more urgent).
pub const PRIORITY_USER: i32 = 1;
/// HBase's `HStore.SPLIT_REGION_COMPACTION_PRIORITY`: compactions of a daughter region's
/// reference files run before nearly everything else.
pub const SPLIT_REGION_COMPACTION_PRIORITY: i32 = i32::MIN + 1000;
/// `ExploringCompactionPolicy`'s `REPLACE_IF_BETTER_BY`: when stuck, a later window must
/// remove more than 5 % more files per byte to replace the best one so far.
const REPLACE_IF_BETTER_BY: f64 = 1.05;
/// HBase's `HConstants.FOREVER` (`Integer.MAX_VALUE`), which `shouldPerformMajorCompaction`
/// compares a millisecond TTL against (a leftover of second-based TTLs; kept for fidelity).
const HCONSTANTS_FOREVER: i64 = i32::MAX as i64;

/// What selection reads of one storefile (HBase's `HStoreFile` and its reader).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub struct StoreFileStats {
    /// On-disk length in bytes (`getReader().length()`); every size rule uses it.
    pub size: u64,
    /// Highest sequence id in the file: the store's sort key (oldest first).
    pub max_seq_id: u64,
    /// Smallest cell timestamp (`getMinimumTimestamp`), for the single-file TTL major.
    pub min_timestamp: i64,
    /// Largest cell timestamp (`getMaxTimestamp`), for whole-file TTL expiry.
    pub max_timestamp: i64,
    /// File modification time in ms (`getModificationTimestamp`): a time-based major is
    /// due when the oldest candidate was written more than one (jittered) period ago.
    pub modification_time_ms: i64,
    /// Whether the file is the output of a major compaction (`MAJOR_COMPACTION_KEY`).
    pub major_compaction: bool,
    /// Whether the file is a reference (half) file of a split parent: such files are never
    /// skipped for size and force an all-candidates compaction.
    pub is_reference: bool,
    /// A bulk-loaded file flagged to stay out of minor compactions
    /// (`excludeFromMinorCompaction`).
    pub exclude_from_minor: bool,
    /// Number of cells (`getEntries`); informational, selection does not use it.
    pub cell_count: u64,
    /// Java `String.hashCode` of the file name: HBase seeds the major-compaction jitter
    /// with the oldest candidate's, so a restart does not set off a major storm. See
    /// [`java_string_hash`].
    pub name_hash: i32,
}

/// Which `SortedCompactionPolicy` chooses the window of a minor compaction.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum CompactionPolicyKind {
    /// `ExploringCompactionPolicy`, HBase's default since 0.96.
    #[default]
    Exploring,
    /// `RatioBasedCompactionPolicy`, the pre-0.96 default (still selectable).
    RatioBased,
}

impl CompactionPolicyKind {
    /// The HBase class name for [`super::config::COMPACTION_POLICY_CLASS_KEY`].
    pub const fn hbase_class(self) -> &'static str {
        match self {
            Self::Exploring => {
                "org.apache.hadoop.hbase.regionserver.compactions.ExploringCompactionPolicy"
            }
            Self::RatioBased => {
                "org.apache.hadoop.hbase.regionserver.compactions.RatioBasedCompactionPolicy"
            }
        }
    }
}

/// A snapshot of one store at the moment a compaction is requested.
#[derive(Debug, Clone, Copy, Default)]
pub struct SelectionInput<'a> {
    /// The store's files, oldest → newest by sequence id.
    pub files: &'a [StoreFileStats],
    /// Indexes (into `files`) of the files already being compacted (HBase's
    /// `filesCompacting`; need not be contiguous).
    pub files_compacting: &'a [usize],
    /// The current time in ms.
    pub now_ms: i64,
    /// The current hour of day (0..=23, server local time) for off-peak hours.
    pub current_hour: u32,
    /// Whether the server-wide off-peak slot is free: HBase lets only one off-peak
    /// compaction run at a time (`offPeakCompactionTracker`). If a selection comes back
    /// with [`Selection::off_peak`], the caller holds the slot until it finishes.
    pub off_peak_available: bool,
    /// A user asked for this compaction (HBase: request priority `PRIORITY_USER`).
    pub is_user_compaction: bool,
    /// The store's force-major flag (set by a user major request). HBase only honours it
    /// when nothing is compacting, and clears it once a request comes back major.
    pub force_major: bool,
    /// The family's TTL in ms (`None` = FOREVER).
    pub ttl_ms: Option<i64>,
    /// The family's MIN_VERSIONS; above 0, TTL plays no part in selection.
    pub min_versions: u32,
}

impl<'a> SelectionInput<'a> {
    /// A system (not user) request over `files` at `now_ms`, nothing compacting, no TTL.
    pub fn new(files: &'a [StoreFileStats], now_ms: i64) -> Self {
        Self {
            files,
            now_ms,
            off_peak_available: true,
            ..Self::default()
        }
    }
}

/// The outcome of the selection step, with HBase's request flags.
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub struct Selection {
    /// Indexes into [`SelectionInput::files`], ascending (a contiguous run unless
    /// bulk-load exclusions punched holes in it). Empty: no compaction.
    pub files: Vec<usize>,
    /// HBase's `isMajor`: a major was tried and the pick covers every file.
    pub is_major: bool,
    /// The pick covers every file of the store, so the compaction drops delete markers
    /// like a major whatever `is_major` says (HBase's `isAllFiles`).
    pub all_files: bool,
    /// The request uses the off-peak slot (non-empty, not all files, off-peak allowed).
    pub off_peak: bool,
    /// Reference files were among the candidates (a daughter region after a split).
    pub after_split: bool,
    /// The store might be stuck (close to the blocking file count).
    pub may_be_stuck: bool,
}

impl Selection {
    /// The selection as a [`CompactionDecision`].
    pub fn decision(&self) -> CompactionDecision {
        if self.files.is_empty() {
            CompactionDecision::None
        } else if self.all_files {
            CompactionDecision::Major(self.files.clone())
        } else {
            CompactionDecision::Minor(self.files.clone())
        }
    }
}

/// What to do with a store now.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum CompactionDecision {
    /// Nothing.
    None,
    /// Drop these whole files, every cell of which is past the TTL, without writing an
    /// output (HBase's `removeUnneededFiles`). Ask again afterwards for the selection,
    /// which HBase makes within the same request once these are gone.
    ExpiredFiles(Vec<usize>),
    /// Compact these files under the minor rules (delete markers kept).
    Minor(Vec<usize>),
    /// Compact these files, which are all of the store's files, under the major rules.
    /// This includes a "minor" that happens to pick every file: HBase's compactor drops
    /// deletes for any all-files compaction. [`Selection::is_major`] tells the two apart.
    Major(Vec<usize>),
}

/// The whole request: expired files first, then the selection ([`select_compaction`]).
pub fn select(
    kind: CompactionPolicyKind,
    cfg: &CompactionConfig,
    input: &SelectionInput<'_>,
) -> CompactionDecision {
    let expired = expired_files(cfg, input);
    if !expired.is_empty() {
        return CompactionDecision::ExpiredFiles(expired);
    }
    select_compaction(kind, cfg, input).decision()
}

/// HBase's selection proper (steps 1–7 of the module docs), with the request-level rules
/// of `HStore.requestCompaction`: off-peak needs both the hour and the free slot, and a
/// forced major is passed on only when nothing is compacting. Expired files are not
/// considered here; see [`select`].
pub fn select_compaction(
    kind: CompactionPolicyKind,
    cfg: &CompactionConfig,
    input: &SelectionInput<'_>,
) -> Selection {
    let files = input.files;
    let n = files.len();
    let compacting = compacting_mask(n, input.files_compacting);
    let compacting_count = compacting.iter().filter(|c| **c).count();
    let stuck = may_be_stuck(cfg, n, compacting_count);
    let may_use_off_peak = input.off_peak_available && is_off_peak(cfg, input.current_hour);
    let force_major = input.force_major && compacting_count == 0;
    let max_files = cfg.max_files;

    // Keep compactions contiguous: nothing at or before the newest compacting file.
    let first_eligible = compacting.iter().rposition(|c| *c).map_or(0, |i| i + 1);
    let mut candidates: Vec<usize> = (first_eligible..n).collect();
    let mut all_files = candidates.len() == n;

    if !(force_major && all_files) {
        let cap = cfg.max_compact_size_for(may_use_off_peak);
        let too_large = candidates
            .iter()
            .take_while(|&&i| !files[i].is_reference && files[i].size > cap)
            .count();
        candidates.drain(..too_large);
        all_files = candidates.len() == n;
    }

    let candidate_files: Vec<&StoreFileStats> = candidates.iter().map(|&i| &files[i]).collect();
    let store_ttl = store_file_ttl(input.ttl_ms, input.min_versions);
    let time_due = major_due(cfg, &candidate_files, input.now_ms, store_ttl);
    let trying_major = (force_major && all_files && input.is_user_compaction)
        || (((force_major && all_files) || time_due) && candidates.len() < max_files);
    let after_split = candidate_files.iter().any(|f| f.is_reference);

    let mut picked = if trying_major || after_split {
        candidates
    } else {
        candidates.retain(|&i| !files[i].exclude_from_minor);
        let sizes: Vec<u64> = candidates.iter().map(|&i| files[i].size).collect();
        let window = match kind {
            CompactionPolicyKind::Exploring => {
                exploring_window(cfg, &sizes, stuck, may_use_off_peak)
            }
            CompactionPolicyKind::RatioBased => {
                ratio_based_start(cfg, &sizes, may_use_off_peak, stuck)..sizes.len()
            }
        };
        let window = candidates
            .get(window)
            .map(<[usize]>::to_vec)
            .unwrap_or_default();
        if window.len() < cfg.min_files_to_compact() {
            Vec::new()
        } else {
            window
        }
    };

    if picked.len() > max_files && !(trying_major && input.is_user_compaction) {
        picked.truncate(max_files);
    }
    let all_files = picked.len() == n;
    Selection {
        is_major: trying_major && all_files,
        off_peak: !picked.is_empty() && !all_files && may_use_off_peak,
        all_files,
        after_split,
        may_be_stuck: stuck,
        files: picked,
    }
}

/// `ExploringCompactionPolicy.applyCompactionPolicy` on the candidates' sizes: the window
/// (a range of positions in `sizes`) to compact, empty for none. No size skipping,
/// `max_files` capping or `min_files` check happens here beyond the window lengths.
///
/// Every contiguous window of `min_files..=max_files` files is visited, start ascending
/// then end ascending. A window over the size cap is out; a window of at least
/// `min_compact_size` bytes must have every file within `ratio` of the rest
/// (`size ≤ (total − size) × ratio`). Among the valid ones, more files win, then a
/// strictly smaller total; when stuck, a window replaces the best only if it removes more
/// than 5 % more files per byte. When stuck and no window is valid, the smallest-total
/// window (ignoring the size cap) is the fallback.
pub fn exploring_window(
    cfg: &CompactionConfig,
    sizes: &[u64],
    might_be_stuck: bool,
    may_use_off_peak: bool,
) -> Range<usize> {
    let min_files = cfg.min_files_to_compact();
    let max_files = cfg.max_files;
    let ratio = cfg.ratio_for(may_use_off_peak);
    let max_size = cfg.max_compact_size_for(may_use_off_peak);
    let n = sizes.len();

    let mut best = 0..0;
    let mut best_size = 0u64;
    let mut smallest = 0..0;
    let mut smallest_size = u64::MAX;
    for start in 0..n {
        for end in start + min_files..=n {
            if end - start > max_files {
                // Windows only grow from here; HBase skips each of them.
                break;
            }
            let window = &sizes[start..end];
            let size = total(window);
            if might_be_stuck && size < smallest_size {
                smallest = start..end;
                smallest_size = size;
            }
            if size > max_size {
                continue;
            }
            if size >= cfg.min_compact_size && !files_in_ratio(window, ratio) {
                continue;
            }
            if is_better_selection(best.len(), best_size, window.len(), size, might_be_stuck) {
                best = start..end;
                best_size = size;
            }
        }
    }
    if best.is_empty() && might_be_stuck {
        return smallest;
    }
    best
}

/// Whether every file is within `ratio` of the others' total (one-file windows pass).
/// The comparison is in `double`, as HBase's `long × double`.
fn files_in_ratio(sizes: &[u64], ratio: f64) -> bool {
    if sizes.len() < 2 {
        return true;
    }
    let sum = total(sizes);
    sizes
        .iter()
        .all(|&s| (s as f64) <= (sum.saturating_sub(s) as f64) * ratio)
}

/// `ExploringCompactionPolicy.isBetterSelection`.
fn is_better_selection(
    best_len: usize,
    best_size: u64,
    len: usize,
    size: u64,
    might_be_stuck: bool,
) -> bool {
    if might_be_stuck && best_size > 0 && size > 0 {
        let threshold = (best_len as f64 / best_size as f64) * REPLACE_IF_BETTER_BY;
        return threshold < len as f64 / size as f64;
    }
    len > best_len || (len == best_len && size < best_size)
}

/// `RatioBasedCompactionPolicy.applyCompactionPolicy` on the candidates' sizes: the
/// position of the first file to compact (everything from it on is picked).
///
/// Starting at the oldest, a file is skipped while at least `min_files` files remain from
/// it and it is larger than both `min_compact_size` and `ratio ×` the total of the next
/// `max_files − 1` files (the product truncated to a whole number, as Java's `(long)`).
pub fn ratio_based_start(
    cfg: &CompactionConfig,
    sizes: &[u64],
    may_use_off_peak: bool,
    may_be_stuck: bool,
) -> usize {
    let n = sizes.len();
    if n == 0 {
        return 0;
    }
    let ratio = cfg.ratio_for(may_use_off_peak);
    let min_files = cfg.min_files_to_compact();
    let span = cfg.max_files.saturating_sub(1);
    // HBase's sumSize[i]: the sizes of files i .. i + max_files − 1 (exclusive).
    let sum_from = |i: usize| total(&sizes[i.min(n)..(i + span).min(n)]);
    let mut start = 0;
    while n - start >= min_files {
        // Java's `(long)` of a non-negative double truncates and saturates at Long.MAX.
        let scaled = ((sum_from(start + 1) as f64) * ratio) as i64;
        let threshold = cfg.min_compact_size.max(scaled.max(0) as u64);
        if sizes[start] > threshold {
            start += 1;
        } else {
            break;
        }
    }
    // HBase's "we may be stuck, compact the newest min_files" branch needs start == n,
    // which the loop above cannot reach for n ≥ 1 (it stops with min_files − 1 left);
    // kept for fidelity.
    if start >= n && may_be_stuck && n >= min_files {
        start = n - min_files;
    }
    start
}

/// Sum of sizes, saturating instead of wrapping like Java's `long`.
fn total(sizes: &[u64]) -> u64 {
    sizes.iter().fold(0u64, |acc, s| acc.saturating_add(*s))
}

/// `files_compacting` as one flag per file (out-of-range indexes are ignored).
fn compacting_mask(n: usize, files_compacting: &[usize]) -> Vec<bool> {
    debug_assert!(
        files_compacting.iter().all(|&i| i < n),
        "files_compacting indexes must point into files"
    );
    let mut mask = vec![false; n];
    for &i in files_compacting {
        if let Some(m) = mask.get_mut(i) {
            *m = true;
        }
    }
    mask
}

/// The TTL that whole-file rules use (HBase's `getStoreFileTtl`): none when MIN_VERSIONS
/// is above 0 or the TTL is FOREVER (`None` or `Long.MAX_VALUE`).
pub fn store_file_ttl(ttl_ms: Option<i64>, min_versions: u32) -> Option<i64> {
    if min_versions > 0 {
        return None;
    }
    ttl_ms.filter(|t| *t != i64::MAX)
}

/// Files that can be dropped whole because every cell in them is past the TTL (HBase's
/// `HStore.removeUnneededFiles` with `DefaultStoreFileManager.getUnneededFiles`): needs
/// `hbase.store.delete.expired.storefile`, MIN_VERSIONS 0 and a finite TTL. A file goes
/// when its max timestamp is below `now − TTL` and it is not being compacted. The newest
/// file is never dropped, so the store keeps its highest sequence id.
pub fn expired_files(cfg: &CompactionConfig, input: &SelectionInput<'_>) -> Vec<usize> {
    if !cfg.delete_expired_storefile {
        return Vec::new();
    }
    let Some(ttl) = store_file_ttl(input.ttl_ms, input.min_versions) else {
        return Vec::new();
    };
    let cutoff = input.now_ms.saturating_sub(ttl);
    let n = input.files.len();
    let compacting = compacting_mask(n, input.files_compacting);
    (0..n.saturating_sub(1))
        .filter(|&i| input.files[i].max_timestamp < cutoff && !compacting[i])
        .collect()
}

/// Whether a time-based major compaction of `files` (the candidates, oldest first) is due
/// (`RatioBasedCompactionPolicy.shouldPerformMajorCompaction`). `store_file_ttl_ms` is
/// [`store_file_ttl`] of the family.
///
/// Due when the oldest modification time is positive and older than now minus the
/// jittered period ([`next_major_compaction_interval`], seeded by the first file's
/// [`StoreFileStats::name_hash`]). A lone file that is already a major's output is not
/// redone unless its oldest cell is older than the TTL (HBase would also redo it for HDFS
/// block locality, which does not apply here); a lone file that is not a major's output is
/// redone only for the TTL.
pub fn should_major_compact(
    cfg: &CompactionConfig,
    files: &[StoreFileStats],
    now_ms: i64,
    store_file_ttl_ms: Option<i64>,
) -> bool {
    let refs: Vec<&StoreFileStats> = files.iter().collect();
    major_due(cfg, &refs, now_ms, store_file_ttl_ms)
}

fn major_due(
    cfg: &CompactionConfig,
    files: &[&StoreFileStats],
    now_ms: i64,
    store_file_ttl_ms: Option<i64>,
) -> bool {
    let Some(first) = files.first() else {
        return false;
    };
    let interval = next_major_compaction_interval(cfg, Some(first.name_hash));
    if interval == 0 {
        // Note: a negative period is returned as is and does *not* disable majors in
        // HBase (only 0 does, via this check); kept for fidelity.
        return false;
    }
    let lowest = files
        .iter()
        .map(|f| f.modification_time_ms)
        .min()
        .unwrap_or(i64::MAX);
    if !(lowest > 0 && lowest < now_ms.saturating_sub(interval)) {
        return false;
    }
    let [only] = files else {
        return true;
    };
    // Java: `now - minTimestamp` in long arithmetic.
    let oldest = now_ms.wrapping_sub(only.min_timestamp);
    let ttl = store_file_ttl_ms.unwrap_or(i64::MAX);
    if only.major_compaction && (ttl == i64::MAX || oldest < ttl) {
        // HBase redoes it only to restore HDFS block locality
        // (`hbase.hstore.min.locality.to.skip.major.compact`, default 0: never).
        false
    } else {
        ttl != HCONSTANTS_FOREVER && oldest > ttl
    }
}

/// The jittered major-compaction interval in ms (`SortedCompactionPolicy.
/// getNextMajorCompactTime`): `period + jitter − round(2 × jitter × r)` with
/// `jitter = round(period × jitter_fraction)` and `r` the first `nextDouble()` of a
/// `java.util.Random` seeded with `seed`. Returns the period itself when it is ≤ 0 or
/// there is no jitter, and 0 (no time-based major) when jitter is on but there is no seed
/// (no files).
pub fn next_major_compaction_interval(cfg: &CompactionConfig, seed: Option<i32>) -> i64 {
    let period = cfg.major_compaction_period_ms;
    if period <= 0 {
        return period;
    }
    let jitter_fraction = f64::from(cfg.major_compaction_jitter);
    if jitter_fraction <= 0.0 {
        return period;
    }
    let Some(seed) = seed else {
        return 0;
    };
    let jitter = java_round(period as f64 * jitter_fraction);
    let r = JavaRandom::new(i64::from(seed)).next_double();
    period
        .saturating_add(jitter)
        .saturating_sub(java_round(jitter.saturating_mul(2) as f64 * r))
}

/// The range `[min, max]` of [`next_major_compaction_interval`] over all seeds, or `None`
/// when time-based majors are off (period ≤ 0). With the defaults: 3.5 to 10.5 days.
pub fn major_compaction_interval_bounds(cfg: &CompactionConfig) -> Option<(i64, i64)> {
    let period = cfg.major_compaction_period_ms;
    if period <= 0 {
        return None;
    }
    let jitter_fraction = f64::from(cfg.major_compaction_jitter);
    if jitter_fraction <= 0.0 {
        return Some((period, period));
    }
    let jitter = java_round(period as f64 * jitter_fraction);
    Some((period.saturating_sub(jitter), period.saturating_add(jitter)))
}

/// Java's `String.hashCode` (over UTF-16 code units): HBase's jitter seed for a file name.
pub fn java_string_hash(s: &str) -> i32 {
    s.encode_utf16()
        .fold(0i32, |h, c| h.wrapping_mul(31).wrapping_add(i32::from(c)))
}

/// Java's `Math.round(double)`: nearest, ties toward positive infinity, NaN → 0,
/// saturating.
fn java_round(x: f64) -> i64 {
    let floor = x.floor();
    let rounded = if x - floor >= 0.5 { floor + 1.0 } else { floor };
    rounded as i64
}

/// The part of `java.util.Random` HBase uses here: `setSeed` then `nextDouble`.
struct JavaRandom {
    state: u64,
}

impl JavaRandom {
    const MULTIPLIER: u64 = 0x5_DEEC_E66D;
    const ADDEND: u64 = 0xB;
    const MASK: u64 = (1 << 48) - 1;

    fn new(seed: i64) -> Self {
        Self {
            state: (seed as u64 ^ Self::MULTIPLIER) & Self::MASK,
        }
    }

    fn next(&mut self, bits: u32) -> u64 {
        self.state = self
            .state
            .wrapping_mul(Self::MULTIPLIER)
            .wrapping_add(Self::ADDEND)
            & Self::MASK;
        self.state >> (48 - bits)
    }

    fn next_double(&mut self) -> f64 {
        let high = self.next(26);
        let low = self.next(27);
        ((high << 27) + low) as f64 * (1.0 / (1u64 << 53) as f64)
    }
}

/// Whether the store might be stuck (`SortedCompactionPolicy.selectCompaction`): the files
/// not under compaction, plus one for the output of a running compaction, reach the
/// blocking count. The policy then prefers the cheapest way to remove files.
pub fn may_be_stuck(cfg: &CompactionConfig, file_count: usize, compacting: usize) -> bool {
    let future_files = usize::from(compacting > 0);
    file_count.saturating_sub(compacting) + future_files >= cfg.blocking_store_files
}

/// Whether a system compaction should be queued (`RatioBasedCompactionPolicy.
/// needsCompaction`): at least `min_files` files are not being compacted.
pub fn needs_compaction(cfg: &CompactionConfig, file_count: usize, compacting: usize) -> bool {
    file_count.saturating_sub(compacting) >= cfg.min_files_to_compact()
}

/// Whether flushes are delayed for too many files (`HStore.hasTooManyStoreFiles`): more
/// than the blocking count (strictly; selection's "stuck" uses ≥).
pub fn has_too_many_store_files(cfg: &CompactionConfig, file_count: usize) -> bool {
    file_count > cfg.blocking_store_files
}

/// The store's compaction priority (`DefaultStoreFileManager.getStoreCompactionPriority`):
/// blocking count − file count, lower is more urgent; the value [`PRIORITY_USER`] is
/// bumped to 2 so system requests never pose as user ones.
pub fn compact_priority(cfg: &CompactionConfig, file_count: usize) -> i32 {
    let raw = cfg.blocking_store_files as i64 - file_count as i64;
    let p = i32::try_from(raw).unwrap_or(if raw < 0 { i32::MIN } else { i32::MAX });
    if p == PRIORITY_USER { p + 1 } else { p }
}

/// The priority a request carries (`HStore.requestCompaction`): [`PRIORITY_USER`] for a
/// user request, else the store's [`compact_priority`]; a daughter region's request
/// (`after_split`) is raised to at least [`SPLIT_REGION_COMPACTION_PRIORITY`].
pub fn request_priority(
    cfg: &CompactionConfig,
    file_count: usize,
    is_user_compaction: bool,
    after_split: bool,
) -> i32 {
    let p = if is_user_compaction {
        PRIORITY_USER
    } else {
        compact_priority(cfg, file_count)
    };
    if after_split {
        p.min(SPLIT_REGION_COMPACTION_PRIORITY)
    } else {
        p
    }
}

/// A region's priority (`HRegion.getCompactPriority`): the most urgent of its stores';
/// `i32::MAX` for a region without stores.
pub fn region_compact_priority(store_priorities: impl IntoIterator<Item = i32>) -> i32 {
    store_priorities.into_iter().min().unwrap_or(i32::MAX)
}

/// Whether a region's priority lets it split (`CompactSplit.requestSplit`): at least
/// [`PRIORITY_USER`], i.e. every store is below its blocking count.
pub fn split_allowed_by_priority(region_priority: i32) -> bool {
    region_priority >= PRIORITY_USER
}

/// Compaction pressure (`DefaultStoreFileManager.getCompactionPressure`), which drives
/// throughput tuning only: `(files − min_files) / (blocking − min_files)`, 0 at or below
/// `min_files`.
pub fn compaction_pressure(cfg: &CompactionConfig, file_count: usize) -> f64 {
    let min = cfg.min_files_to_compact();
    if file_count <= min {
        return 0.0;
    }
    (file_count - min) as f64 / (cfg.blocking_store_files as f64 - min as f64)
}

/// Whether a compaction of `total_size` bytes goes to the large pool
/// (`throttleCompaction`): strictly above the throttle point.
pub fn is_large_compaction(cfg: &CompactionConfig, total_size: u64) -> bool {
    total_size > cfg.throttle_point
}
