//! The region's side of splits and merges (HBase's `HRegion.checkSplit`, the split policy
//! configured for the region, `HRegionFileSystem.splitStoreFile` / `mergeStoreFile`):
//! whether the policy asks for a split, at which row, closing a parent so that its file set
//! is frozen, and the manifests of the children — daughters whose entries are references
//! to the top or bottom half of each parent file, or a merged region whose entries are
//! references to every file of both parents. Committing the children (the table's region
//! list) and opening them is the Db's job: until then the children's directories are
//! invisible and a crash leaves the parent serving.
//!
//! Invariant: a region with references never splits or merges again until compaction has
//! rewritten them, so a reference always points at a real file of its parent.

use crate::error::{Error, Result, SplitRefusal};
use crate::manifest::{Manifest, RegionInfo, StoreManifest};
use crate::reference::Reference;
use crate::region::Region;
use crate::split::{
    BusyConfig, BusyTracker, SplitConfig, SplitPolicy, adjust_split_point, desired_max_file_size,
    should_split,
};
use parking_lot::Mutex;
use regionkv_cell::bytes::to_string_binary;
use std::sync::atomic::Ordering;

/// The split policy as configured for one region (HBase's `configureForRegion`): the
/// policy, its sizes, the jitter drawn once, and the busy policy's running state.
#[derive(Debug)]
pub(crate) struct RegionSplitState {
    policy: SplitPolicy,
    config: SplitConfig,
    desired_max: u64,
    busy: Option<(BusyConfig, Mutex<BusyTracker>)>,
}

fn parse<T: std::str::FromStr>(v: Option<&str>) -> Option<T> {
    v.and_then(|s| s.trim().parse().ok())
}

impl RegionSplitState {
    pub(crate) fn new(region: &Region, now_ms: i64) -> Result<Self> {
        let table = region.table();
        let policy = table.split_policy()?;
        let config = SplitConfig {
            memstore_flush_size: table.memstore_flush_size,
            max_file_size: table.max_file_size,
            max_file_size_jitter_rate: parse(
                table.config(crate::split::policy::MAX_FILESIZE_JITTER_KEY),
            )
            .unwrap_or(crate::split::policy::DEFAULT_MAX_FILESIZE_JITTER),
            initial_size: parse(table.config(crate::split::policy::INITIAL_SIZE_KEY)),
            overall_files: parse(table.config(crate::split::policy::OVERALL_FILES_KEY))
                .unwrap_or(crate::split::policy::DEFAULT_OVERALL_FILES),
        };
        // HBase draws the jitter from a random source once per region; regionkv derives it
        // from the region's encoded name, so a rerun of the same workload splits at the
        // same sizes (repeatable benchmarks) while regions still differ from each other.
        let hash = u64::from_str_radix(&region.encoded_name()[..16], 16).unwrap_or(0);
        let draw = (hash >> 11) as f64 / (1u64 << 53) as f64;
        let desired_max = desired_max_file_size(&config, draw);
        let busy = matches!(policy.size_policy(), SplitPolicy::Busy).then(|| {
            let d = BusyConfig::default();
            let cfg = BusyConfig {
                max_blocked_requests: parse(
                    table.config(crate::split::policy::BUSY_BLOCKED_REQUESTS_KEY),
                )
                .unwrap_or(d.max_blocked_requests),
                min_age_ms: parse(table.config(crate::split::policy::BUSY_MIN_AGE_KEY))
                    .unwrap_or(d.min_age_ms),
                aggregation_window_ms: parse(
                    table.config(crate::split::policy::BUSY_AGG_WINDOW_KEY),
                )
                .unwrap_or(d.aggregation_window_ms),
            }
            .sanitized();
            let m = region.metrics();
            let tracker = BusyTracker::new(
                now_ms,
                m.blocked_writes.load(Ordering::Relaxed) as i64,
                m.write_requests.load(Ordering::Relaxed) as i64,
            );
            (cfg, Mutex::new(tracker))
        });
        Ok(Self {
            policy,
            config,
            desired_max,
            busy,
        })
    }
}

impl RegionSplitState {
    /// HBase's default policy with default sizes from the table.
    pub(crate) fn fallback(region: &Region) -> Self {
        let config = SplitConfig {
            memstore_flush_size: region.table().memstore_flush_size,
            max_file_size: region.table().max_file_size,
            ..SplitConfig::default()
        };
        Self {
            policy: SplitPolicy::default(),
            desired_max: desired_max_file_size(&config, 0.5),
            config,
            busy: None,
        }
    }
}

impl Region {
    /// The region's maximum size after jitter (HBase's `desiredMaxFileSize`).
    pub fn desired_max_file_size(&self) -> u64 {
        self.split_state().desired_max
    }

    /// HBase's `canSplit`: open, and no store holds references.
    pub fn can_split(&self) -> bool {
        !self.is_closed() && !self.stores().values().any(|s| s.has_references())
    }

    /// True while some store reads half files of a parent region.
    pub fn has_references(&self) -> bool {
        self.stores().values().any(|s| s.has_references())
    }

    /// The policy's `shouldSplit` for this region when its table has `regions_of_table`
    /// online regions. False when the table has SPLIT_ENABLED off.
    pub fn should_split(&self, regions_of_table: u32) -> bool {
        let st = self.split_state();
        if !self.table().split_enabled {
            return false;
        }
        let sizes: Vec<u64> = self.stores().values().map(|s| s.size()).collect();
        let can = self.can_split();
        let size_rule = should_split(
            &st.policy,
            &st.config,
            st.desired_max,
            regions_of_table,
            &sizes,
            can,
        );
        match &st.busy {
            None => size_rule,
            Some((cfg, tracker)) => {
                let m = self.metrics();
                tracker.lock().should_split(
                    cfg,
                    self.services().clock.now_millis(),
                    (
                        m.blocked_writes.load(Ordering::Relaxed) as i64,
                        m.write_requests.load(Ordering::Relaxed) as i64,
                    ),
                    size_rule,
                    can,
                )
            }
        }
    }

    /// The split row the policy picks (HBase's `RegionSplitPolicy.getSplitPoint` then
    /// `checkSplit`'s row check): the split row of the largest store that has one, cut to
    /// its prefix by the key-prefix policies; `None` when no store can split (references,
    /// single-row files, no files) or the row is not strictly inside the region.
    pub fn split_point(&self) -> Result<Option<Vec<u8>>> {
        if !self.can_split() {
            return Ok(None);
        }
        let mut best: Option<(u64, Vec<u8>)> = None;
        for store in self.stores().values() {
            let Some(row) = store.split_row()? else {
                continue;
            };
            let size = store.size();
            if best.as_ref().is_none_or(|(s, _)| *s < size) {
                best = Some((size, row));
            }
        }
        let Some((_, row)) = best else {
            return Ok(None);
        };
        let row = adjust_split_point(&self.split_state().policy, &row);
        Ok(self.valid_split_row(&row).then_some(row))
    }

    /// A split row must lie inside the region and not be its start key (HBase's
    /// `checkRow` plus its "split row equals start key" refusal).
    pub fn valid_split_row(&self, row: &[u8]) -> bool {
        !row.is_empty() && self.info().contains_row(row) && row != self.info().start_key.as_slice()
    }

    /// HBase's `checkSplit()` as run after a flush or compaction: the split row when the
    /// policy says the region should split now.
    pub fn check_split(&self) -> Result<Option<Vec<u8>>> {
        let Some(server) = &self.services().server else {
            return Ok(None);
        };
        if !self.should_split(server.regions_of_table(&self.table().name)) {
            return Ok(None);
        }
        self.split_point()
    }

    /// After a flush or a compaction: ask the Db for a split when the policy wants one.
    pub(crate) fn request_split_if_needed(&self) {
        let Some(server) = &self.services().server else {
            return;
        };
        if self.is_closing() {
            return;
        }
        match self.check_split() {
            Ok(Some(row)) => {
                tracing::info!(region = %self.encoded_name(), split_row = %to_string_binary(&row), "split policy asks for a split");
                server.request_split(&self.table().name, self.encoded_name());
            }
            Ok(None) => {}
            Err(e) => {
                tracing::warn!(region = %self.encoded_name(), error = %e, "split check failed")
            }
        }
    }

    /// Closes the region for a split or merge: waits for a running compaction (none starts
    /// afterwards), flushes everything and refuses further reads and writes (callers retry
    /// on the children). Returns the final manifest and the highest sequence id used: the
    /// children start above it.
    pub fn close_for_split(&self) -> Result<(Manifest, u64)> {
        self.check_writable("split")?;
        let _no_compaction = self.compaction_lock().lock();
        if self.has_references() {
            return Err(Error::NotSplittable {
                region: self.encoded_name().to_string(),
                reason: SplitRefusal::HasReferences,
            });
        }
        self.close()?;
        let seq = self.mvcc().read_point();
        Ok((self.manifest(), seq))
    }

    /// The manifests of the two daughters of splitting at `split_row` a parent whose
    /// closing manifest is `parent` (every file flushed) and whose last sequence id is
    /// `seq`. Every parent file with rows below the split row gets a bottom reference in
    /// the first daughter, every file with rows at or above it a top reference in the
    /// second (HBase's `splitStoreFile` skips a half the file has no row in).
    pub fn daughter_manifests(
        &self,
        parent: &Manifest,
        seq: u64,
        split_row: &[u8],
        daughter_id: u64,
    ) -> Result<[Manifest; 2]> {
        let info = &parent.region;
        let mut out = [
            RegionInfo {
                table: info.table.clone(),
                start_key: info.start_key.clone(),
                end_key: split_row.to_vec(),
                region_id: daughter_id,
            },
            RegionInfo {
                table: info.table.clone(),
                start_key: split_row.to_vec(),
                end_key: info.end_key.clone(),
                region_id: daughter_id,
            },
        ]
        .map(|region| Manifest {
            region,
            next_file_id: 1,
            stores: Default::default(),
            // The parent's evidence of the WAL's length holds for its daughters too.
            wal_mark: parent.wal_mark,
        });
        let parent_encoded = info.encoded_name();
        for (family, sm) in &parent.stores {
            let store = self.store(family)?;
            let files = store.files();
            for (d, top) in [(0usize, false), (1usize, true)] {
                let mut refs = Vec::new();
                for meta in &sm.files {
                    let Some(h) = files.iter().find(|h| h.meta.name == meta.name) else {
                        return Err(Error::Inconsistent {
                            region: self.encoded_name().to_string(),
                            what: format!("storefile {} of the manifest is not open", meta.name),
                        });
                    };
                    let fi = h.reader.file_info();
                    let row = |k: &Option<Vec<u8>>| {
                        k.as_deref()
                            .and_then(|k| regionkv_cell::KeyView::parse(k).ok())
                            .map(|v| v.row().to_vec())
                    };
                    let (Some(first), Some(last)) = (row(&fi.first_key), row(&fi.last_key)) else {
                        continue;
                    };
                    let has_rows = if top {
                        last.as_slice() >= split_row
                    } else {
                        first.as_slice() < split_row
                    };
                    if has_rows {
                        refs.push(Reference::entry(meta, &parent_encoded, split_row, top));
                    }
                }
                out[d].stores.insert(
                    family.clone(),
                    StoreManifest {
                        flushed_seq_id: seq,
                        files: refs,
                    },
                );
            }
        }
        Ok(out)
    }
}

/// The manifest of the region merging `parents` (adjacent, in key order), given each
/// parent's closing manifest and last sequence id: every file of every parent as a top
/// reference from the parent's start row, i.e. the whole file (HBase's `mergeStoreFile`).
/// The merged region starts above every parent's sequence ids.
pub fn merged_manifest(parents: &[(&Manifest, u64)], merged_id: u64) -> Manifest {
    let (Some(first), Some(last)) = (parents.first(), parents.last()) else {
        return Manifest {
            region: RegionInfo::whole_table("", merged_id),
            next_file_id: 1,
            stores: Default::default(),
            wal_mark: None,
        };
    };
    let region = RegionInfo {
        table: first.0.region.table.clone(),
        start_key: first.0.region.start_key.clone(),
        end_key: last.0.region.end_key.clone(),
        region_id: merged_id,
    };
    let seq = parents.iter().map(|p| p.1).max().unwrap_or(0);
    let mut m = Manifest {
        region,
        next_file_id: 1,
        stores: Default::default(),
        wal_mark: parents
            .iter()
            .filter_map(|p| p.0.wal_mark)
            .max_by_key(|m| (m.log, m.len)),
    };
    for (parent, _) in parents {
        let encoded = parent.region.encoded_name();
        for (family, sm) in &parent.stores {
            let entry = m.stores.entry(family.clone()).or_default();
            entry.flushed_seq_id = seq;
            for f in &sm.files {
                entry.files.push(Reference::entry(
                    f,
                    &encoded,
                    &parent.region.start_key,
                    true,
                ));
            }
        }
    }
    for sm in m.stores.values_mut() {
        sm.flushed_seq_id = seq;
        sm.files.sort_by_key(|f| f.max_seq_id);
    }
    m
}
