//! Compaction mechanics: merge chosen storefiles of one store into one new file through
//! the store scanner with the compaction rules, commit the swap in the manifest, then
//! remove the inputs. Which files to choose, and when, is the compaction policy's job
//! (HBase's `Compactor` vs `CompactionPolicy`).
//!
//! A compaction that covers every file of the store runs under the major rules (delete
//! markers and what they mask are dropped, unless KEEP_DELETED_CELLS), as HBase turns a
//! selection of all files into a major compaction; otherwise the minor rules (markers
//! kept). The memstore is never part of a compaction.
//!
//! Crash safety: the new file is complete and synced before the manifest names it; the
//! manifest swap (inputs out, output in) is one atomic replacement; inputs are unlinked
//! only after it. Readers opened earlier keep reading the unlinked inputs (on Unix an
//! unlinked file lives while it is open or mapped; `MemFs` readers hold a snapshot).

use crate::compaction::{
    CompactionDecision, SelectionInput, StoreFileStats, compact_priority, expired_files,
    has_too_many_store_files, java_string_hash, needs_compaction, select_compaction,
    should_major_compact, store_file_ttl,
};
use crate::error::{Error, Result};
use crate::manifest::StoreFileMeta;
use crate::region::Region;
use crate::scan::heap::{KeyValueHeap, SourceScanner};
use crate::scan::query_matcher::{MatcherKind, QueryMatcher};
use crate::scan::store_scanner::StoreScanner;
use crate::store::STOREFILE_EXT;
use crate::store::Store;
use regionkv_cell::bytes::to_string_binary;
use regionkv_storefile::StoreFileScanner;

/// HBase's `hbase.hstore.time.to.purge.deletes` (default 0: drop at once).
pub const TIME_TO_PURGE_DELETES_KEY: &str = "hbase.hstore.time.to.purge.deletes";

/// What a compaction did.
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub struct CompactionResult {
    /// Whether the major rules applied (every file of the store was compacted).
    pub major: bool,
    /// Input files.
    pub inputs: Vec<StoreFileMeta>,
    /// The output file (`None` when nothing survived).
    pub output: Option<StoreFileMeta>,
}

impl Region {
    /// Compacts the files named in `files` of `family`, or all of its files when `None`.
    pub fn compact_files(
        &self,
        family: &[u8],
        files: Option<&[String]>,
    ) -> Result<CompactionResult> {
        self.check_readable()?;
        self.check_writable("compaction")?;
        let _one_at_a_time = self.compaction_lock().lock();
        self.compact_files_locked(family, files)
    }

    /// [`Self::compact_files`] with the compaction lock held by the caller.
    fn compact_files_locked(
        &self,
        family: &[u8],
        files: Option<&[String]>,
    ) -> Result<CompactionResult> {
        // A split or merge may have closed the region while the caller waited for the lock.
        self.check_readable()?;
        let store = self.store(family)?;
        let live = store.files();
        let inputs: Vec<_> = match files {
            None => live.iter().cloned().collect(),
            Some(names) => {
                for n in names {
                    if !live.iter().any(|f| &f.meta.name == n) {
                        return Err(Error::Inconsistent {
                            region: self.encoded_name().to_string(),
                            what: format!(
                                "storefile {n} is not live in store {}",
                                to_string_binary(family)
                            ),
                        });
                    }
                }
                live.iter()
                    .filter(|f| names.contains(&f.meta.name))
                    .cloned()
                    .collect()
            }
        };
        if inputs.is_empty() {
            return Ok(CompactionResult::default());
        }
        let major = inputs.len() == live.len();
        let span = tracing::info_span!(
            "compaction",
            region = %self.encoded_name(),
            family = %to_string_binary(family),
            files = inputs.len(),
            major
        );
        let _enter = span.enter();
        let now = self.services().clock.now_millis();
        let started = std::time::Instant::now();
        let kind = if major {
            MatcherKind::MajorCompaction {
                earliest_put_ts: inputs
                    .iter()
                    .map(|f| f.reader.file_info().earliest_put_ts)
                    .min()
                    .unwrap_or(i64::MAX),
                time_to_purge_deletes: 0,
            }
        } else {
            MatcherKind::MinorCompaction
        };
        // Readers registered from here on hold a read point at least this high; those
        // registered before are covered by it.
        let smallest_read_point = self.mvcc().smallest_read_point();
        let mut sources = Vec::with_capacity(inputs.len());
        for f in &inputs {
            // As HBase's compaction scanners: blocks read here are not cached.
            let mut s = StoreFileScanner::new(f.reader.clone()).cache_blocks(false);
            s.seek_to_first()?;
            sources.push(SourceScanner::File(s));
        }
        let scanner = StoreScanner::new(
            KeyValueHeap::new(sources),
            QueryMatcher::compaction(store.family(), kind, now, smallest_read_point),
        );
        let name = format!("{}.{STOREFILE_EXT}", self.next_file_id());
        let tags = inputs.iter().any(|f| f.reader.includes_tags());
        // HBase's preCompact scanner wrapper: the region's observers see each row written.
        let hooks = self.hooks();
        let row_hook = |cells: &mut Vec<regionkv_cell::Cell>| -> Result<()> {
            match hooks {
                Some(h) => Ok(h.compaction_row(family, major, cells)?),
                None => Ok(()),
            }
        };
        let row_hook: Option<crate::store::RowHook<'_>> =
            hooks.map(|_| &row_hook as crate::store::RowHook<'_>);
        let output = match store.write_file(scanner, &name, major, tags, now, row_hook) {
            Ok(o) => o,
            Err(e) => {
                // The inputs are untouched; a partial output is an orphan removed on open.
                tracing::error!(error = %e, "compaction failed");
                return Err(e);
            }
        };
        // HBase stamps a compaction output with the largest sequence id of its inputs
        // (even when the cells carrying it were dropped), so the output keeps its inputs'
        // place in the store's seq-id order.
        let inputs_max_seq = inputs.iter().map(|f| f.meta.max_seq_id).max().unwrap_or(0);
        let output = output.map(|mut h| {
            h.meta.max_seq_id = h.meta.max_seq_id.max(inputs_max_seq);
            h
        });
        let removed: Vec<String> = inputs.iter().map(|f| f.meta.name.clone()).collect();
        fail::fail_point!("compaction-before-commit");
        self.commit_compaction(family, &removed, output.as_ref().map(|h| h.meta.clone()))?;
        fail::fail_point!("compaction-after-commit");
        // HBase's postCompact, after the commit: an error cannot undo it and is logged.
        if let Some(h) = hooks {
            h.post_compact(family, output.as_ref().map(|o| o.meta.name.as_str()));
        }
        store.replace_files(&removed, output.clone());
        // A reference's file belongs to the parent region: the janitor removes it once no
        // region refers to it.
        let own: Vec<&String> = inputs
            .iter()
            .filter(|f| f.meta.reference.is_none())
            .map(|f| &f.meta.name)
            .collect();
        for n in own {
            let path = store.dir().join(n);
            fail::fail_point!("compaction-before-delete-input");
            if let Err(e) = self.services().fs.remove_file(&path) {
                // Harmless: the next open removes files the manifest does not name.
                tracing::warn!(file = %path.display(), error = %e, "could not remove a compacted file");
            }
        }
        let _ = self.services().fs.sync_dir(store.dir());
        let sm = store.metrics();
        sm.last_compaction_kvs.store(
            output.as_ref().map_or(0, |h| h.meta.cell_count),
            std::sync::atomic::Ordering::Relaxed,
        );
        let m = self.metrics();
        m.compactions
            .fetch_add(1, std::sync::atomic::Ordering::Relaxed);
        m.compacted_bytes_in.fetch_add(
            inputs.iter().map(|f| f.meta.size).sum(),
            std::sync::atomic::Ordering::Relaxed,
        );
        m.compacted_bytes_out.fetch_add(
            output.as_ref().map_or(0, |h| h.meta.size),
            std::sync::atomic::Ordering::Relaxed,
        );
        m.compaction_micros.fetch_add(
            started.elapsed().as_micros() as u64,
            std::sync::atomic::Ordering::Relaxed,
        );
        tracing::info!(
            inputs = removed.len(),
            output = output.as_ref().map_or(0, |h| h.meta.size),
            "compacted"
        );
        Ok(CompactionResult {
            major,
            inputs: inputs.iter().map(|f| f.meta.clone()).collect(),
            output: output.map(|h| h.meta),
        })
    }

    /// Removes whole storefiles of `family` whose every cell has expired under the
    /// family's TTL, without rewriting anything (HBase's expired-file selection, only when
    /// MIN_VERSIONS is 0 — otherwise expired cells may still have to be returned). Files
    /// whose newest cell is not expired at the region clock's "now" are left alone.
    pub fn remove_expired_files(
        &self,
        family: &[u8],
        names: &[String],
    ) -> Result<CompactionResult> {
        self.check_readable()?;
        self.check_writable("compaction")?;
        let _one_at_a_time = self.compaction_lock().lock();
        self.remove_expired_files_locked(family, names)
    }

    /// [`Self::remove_expired_files`] with the compaction lock held by the caller.
    fn remove_expired_files_locked(
        &self,
        family: &[u8],
        names: &[String],
    ) -> Result<CompactionResult> {
        self.check_readable()?;
        let store = self.store(family)?;
        let f = store.family();
        let now = self.services().clock.now_millis();
        let Some(ttl) = f.ttl_millis().filter(|_| f.min_versions == 0) else {
            return Ok(CompactionResult::default());
        };
        let cutoff = now.saturating_sub(ttl);
        let live = store.files();
        let expired: Vec<_> = live
            .iter()
            .filter(|h| names.contains(&h.meta.name) && h.reader.file_info().max_timestamp < cutoff)
            .cloned()
            .collect();
        if expired.is_empty() {
            return Ok(CompactionResult::default());
        }
        let removed: Vec<String> = expired.iter().map(|h| h.meta.name.clone()).collect();
        tracing::info!(region = %self.encoded_name(), files = removed.len(), "removing TTL-expired storefiles");
        self.commit_compaction(family, &removed, None)?;
        store.replace_files(&removed, None);
        for h in expired.iter().filter(|h| h.meta.reference.is_none()) {
            let _ = self
                .services()
                .fs
                .remove_file(&store.dir().join(&h.meta.name));
        }
        let _ = self.services().fs.sync_dir(store.dir());
        Ok(CompactionResult {
            major: false,
            inputs: expired.iter().map(|h| h.meta.clone()).collect(),
            output: None,
        })
    }

    /// Major-compacts every store (HBase's `major_compact`; the memstore is not flushed).
    pub fn major_compact(&self) -> Result<Vec<CompactionResult>> {
        let families: Vec<Vec<u8>> = self.stores().keys().cloned().collect();
        families
            .iter()
            .map(|f| self.compact_files(f, None))
            .collect()
    }

    /// What the selection policy reads of a store's files, oldest first.
    fn file_stats(store: &Store) -> Vec<StoreFileStats> {
        store
            .files()
            .iter()
            .map(|h| {
                let info = h.reader.file_info();
                let created = info
                    .extra
                    .get(crate::store::CREATE_TIME_KEY)
                    .and_then(|v| <[u8; 8]>::try_from(v.as_slice()).ok())
                    .map_or(0, i64::from_be_bytes);
                StoreFileStats {
                    size: h.meta.size,
                    max_seq_id: h.meta.max_seq_id,
                    min_timestamp: info.min_timestamp,
                    max_timestamp: info.max_timestamp,
                    modification_time_ms: created,
                    major_compaction: info.major_compaction,
                    is_reference: h.meta.reference.is_some(),
                    exclude_from_minor: false,
                    cell_count: info.cell_count,
                    name_hash: java_string_hash(&h.meta.name),
                }
            })
            .collect()
    }

    /// Runs the compaction policy on one store and carries out what it picks: whole
    /// TTL-expired files are removed first, then at most one compaction (HBase's
    /// `HStore.requestCompaction` + `CompactSplit`). `user` marks a user request; `force_major`
    /// a user major request. Returns what ran.
    pub fn compact_store(
        &self,
        family: &[u8],
        user: bool,
        force_major: bool,
    ) -> Result<Vec<CompactionResult>> {
        self.check_writable("compaction")?;
        let had_references = self.has_references();
        let done = self.compact_store_inner(family, user, force_major)?;
        if !done.is_empty() {
            if had_references
                && !self.has_references()
                && let Some(server) = &self.services().server
            {
                server.references_cleared(&self.table().name);
            }
            // HBase's CompactSplit asks for a split after a compaction unless the region
            // is under compaction pressure.
            if crate::compaction::split_allowed_by_priority(self.compaction_priority()) {
                self.request_split_if_needed();
            }
        }
        Ok(done)
    }

    fn compact_store_inner(
        &self,
        family: &[u8],
        user: bool,
        force_major: bool,
    ) -> Result<Vec<CompactionResult>> {
        let store = self.store(family)?;
        let cfg = &self.services().config.compaction;
        let mut done = Vec::new();
        // Expired files first; then ask again for the selection (bounded: each round
        // removes files).
        for _ in 0..4 {
            // Selection and compaction under one hold of the lock: another compaction of
            // the store cannot replace the selected files in between.
            let _one_at_a_time = self.compaction_lock().lock();
            self.check_readable()?;
            let stats = Self::file_stats(store);
            let names: Vec<String> = store.files().iter().map(|h| h.meta.name.clone()).collect();
            let now = self.services().clock.now_millis();
            let f = store.family();
            let current_hour = ((now.rem_euclid(86_400_000)) / 3_600_000) as u32;
            // HBase lets one compaction per server run under the off-peak ratio at a time:
            // take the slot before selecting, give it back unless the selection uses it.
            let slot = OffPeakSlot::try_take(self, cfg.is_off_peak(current_hour));
            let input = SelectionInput {
                is_user_compaction: user,
                force_major,
                ttl_ms: f.ttl_millis(),
                min_versions: f.min_versions,
                current_hour,
                off_peak_available: slot.is_some(),
                ..SelectionInput::new(&stats, now)
            };
            let pick = |idx: &[usize]| -> Vec<String> {
                idx.iter().filter_map(|i| names.get(*i).cloned()).collect()
            };
            let expired = expired_files(cfg, &input);
            if !expired.is_empty() {
                drop(slot);
                let r = self.remove_expired_files_locked(family, &pick(&expired))?;
                if r.inputs.is_empty() {
                    break;
                }
                done.push(r);
                continue;
            }
            let selection =
                select_compaction(self.services().config.compaction_policy, cfg, &input);
            // Held until this compaction ends when the selection used the off-peak ratio.
            let _slot = slot.filter(|_| selection.off_peak);
            match selection.decision() {
                CompactionDecision::None | CompactionDecision::ExpiredFiles(_) => break,
                CompactionDecision::Minor(idx) | CompactionDecision::Major(idx) => {
                    if selection.off_peak {
                        tracing::info!(region = %self.encoded_name(), "compaction selected with the off-peak ratio");
                    }
                    done.push(self.compact_files_locked(family, Some(&pick(&idx)))?);
                    break;
                }
            }
        }
        Ok(done)
    }

    /// A user `compact` (or `major_compact` with `major`) of every store, through the
    /// policy (HBase: a user minor with fewer than `hbase.hstore.compaction.min` files
    /// selects nothing).
    pub fn compact(&self, major: bool) -> Result<Vec<CompactionResult>> {
        let families: Vec<Vec<u8>> = self.stores().keys().cloned().collect();
        let mut out = Vec::new();
        for f in &families {
            out.extend(self.compact_store(f, true, major)?);
        }
        Ok(out)
    }

    /// Queues a system compaction on the region server's threads, if there is one.
    pub fn request_compaction(self: &std::sync::Arc<Self>) {
        if let Some(server) = &self.services().server {
            server.request_compaction(self);
        }
    }

    /// True when some store has enough files for the policy to consider a compaction.
    pub fn needs_compaction(&self) -> bool {
        let cfg = &self.services().config.compaction;
        self.stores()
            .values()
            .any(|s| needs_compaction(cfg, s.files().len(), 0))
    }

    /// True when some store is due its periodic major compaction (HBase's
    /// `HStore.isMajorCompaction`, asked by the compaction checker).
    pub fn major_compaction_due(&self) -> bool {
        let cfg = &self.services().config.compaction;
        let now = self.services().clock.now_millis();
        self.stores().values().any(|s| {
            let f = s.family();
            should_major_compact(
                cfg,
                &Self::file_stats(s),
                now,
                store_file_ttl(f.ttl_millis(), f.min_versions),
            )
        })
    }

    /// True when some store has more files than `hbase.hstore.blockingStoreFiles`: flushes
    /// wait (bounded) for compactions, so writes slow down and then block on the memstore.
    pub fn has_too_many_store_files(&self) -> bool {
        let cfg = &self.services().config.compaction;
        self.stores()
            .values()
            .any(|s| has_too_many_store_files(cfg, s.files().len()))
    }

    /// HBase's compaction priority of the region (lower is more urgent): the minimum over
    /// its stores of `blockingStoreFiles − file count`.
    pub fn compaction_priority(&self) -> i32 {
        let cfg = &self.services().config.compaction;
        self.stores()
            .values()
            .map(|s| compact_priority(cfg, s.files().len()))
            .min()
            .unwrap_or(i32::MAX)
    }
}

/// The server-wide off-peak compaction slot (HBase's `offPeakCompactionTracker`), held
/// while a compaction selected with the off-peak ratio runs; released on drop.
struct OffPeakSlot<'a>(&'a std::sync::atomic::AtomicBool);

impl<'a> OffPeakSlot<'a> {
    /// Takes the slot when it is an off-peak hour and no other compaction holds it.
    fn try_take(region: &'a Region, off_peak_hour: bool) -> Option<Self> {
        use std::sync::atomic::Ordering;
        let flag = region.services().off_peak_compaction.as_ref();
        (off_peak_hour
            && flag
                .compare_exchange(false, true, Ordering::AcqRel, Ordering::Acquire)
                .is_ok())
        .then_some(Self(flag))
    }
}

impl Drop for OffPeakSlot<'_> {
    fn drop(&mut self) {
        self.0.store(false, std::sync::atomic::Ordering::Release);
    }
}
