//! Splits, merges and parent clean-up at the table level (HBase's
//! `SplitTableRegionProcedure`, `MergeTableRegionsProcedure` and `CatalogJanitor`), and
//! the worker that runs the splits regions ask for (HBase's `CompactSplit` split pool).
//!
//! A split, under the catalog lock:
//! 1. close the parent (two-phase close: every acknowledged edit is in its storefiles; a
//!    running compaction finishes first and none starts after);
//! 2. write each daughter's directory and manifest: references to the bottom or top half
//!    of every parent file (no data is copied);
//! 3. **commit**: replace the parent by the daughters in the catalog (one atomic file
//!    replacement) — the point of no return;
//! 4. open the daughters and swap them into the table's region map; they compact their
//!    references away in the background.
//!
//! A failure or crash before step 3 leaves the catalog naming the parent: it is reopened
//! (at once, or at the next `Db::open`) and the daughters' directories, which nothing
//! live refers to, are deleted. After step 3 the daughters serve; the parent's directory
//! stays while a daughter's manifest refers to it. Either way every row is served by
//! exactly one region. A merge is the same with one child whose references cover every
//! file of both parents.
//!
//! The janitor's rule (checked at `Db::open` and whenever a region rewrote its last
//! reference): a region directory in the table's directory is kept if the catalog lists
//! it or a listed region's manifest refers to it; of the others, only a recognised
//! leftover is deleted (a parent superseded by newer regions, an uncommitted child that
//! refers to a listed region, a region holding nothing: `region_leftover`). Anything
//! else — a region the catalog may have lost, a name that is no region's — is kept and
//! reported, for `regionkv repair`.

use crate::catalog::{Catalog, RegionEntry};
use crate::db::{DbInner, TableHandle};
use crate::error::{Error, Result};
use crate::region_map::RegionMap;
use parking_lot::{Condvar, Mutex};
use regionkv_cell::bytes::to_string_binary;
use regionkv_region::region_split::merged_manifest;
use regionkv_region::{Manifest, Region, RegionInfo, RegionObserver};
use std::collections::{BTreeSet, VecDeque};
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::{Arc, OnceLock, Weak};
use std::thread::JoinHandle;

/// Work the regions ask the Db for.
#[derive(Debug, Clone, PartialEq, Eq)]
enum Job {
    /// Split region `encoded` of `table` at its policy's split point.
    Split { table: String, encoded: String },
    /// Delete the table's unreferenced parent directories.
    Janitor { table: String },
}

/// The Db's [`RegionObserver`]: queues splits and clean-ups for a worker thread (when the
/// Db runs background threads) or for the next admin call to run (when it does not).
#[derive(Debug, Default)]
pub(crate) struct SplitWorker {
    db: OnceLock<Weak<DbInner>>,
    queue: Mutex<VecDeque<Job>>,
    wake: Condvar,
    busy: AtomicUsize,
    idle: Condvar,
    stop: Mutex<bool>,
    thread: Mutex<Option<JoinHandle<()>>>,
}

impl RegionObserver for SplitWorker {
    fn regions_of_table(&self, table: &str) -> u32 {
        let Some(db) = self.db.get().and_then(Weak::upgrade) else {
            return 0;
        };
        let tables = db.tables.read();
        tables
            .get(table)
            .and_then(|t| t.regions.read().as_ref().map(|m| m.len() as u32))
            .unwrap_or(0)
    }

    fn split_requested(&self, table: &str, encoded: &str) {
        self.push(Job::Split {
            table: table.to_string(),
            encoded: encoded.to_string(),
        });
    }

    fn references_cleared(&self, table: &str) {
        self.push(Job::Janitor {
            table: table.to_string(),
        });
    }
}

impl SplitWorker {
    fn push(&self, job: Job) {
        let mut q = self.queue.lock();
        if !q.contains(&job) {
            q.push_back(job);
        }
        self.wake.notify_one();
    }

    /// Connects the worker to its Db and, with `background`, starts its thread.
    pub(crate) fn attach(self: &Arc<Self>, db: &Arc<DbInner>, background: bool) {
        let _ = self.db.set(Arc::downgrade(db));
        if background {
            let me = Arc::downgrade(self);
            match std::thread::Builder::new()
                .name("regionkv-split".to_string())
                .spawn(move || Self::run(me))
            {
                Ok(h) => *self.thread.lock() = Some(h),
                Err(e) => tracing::error!(error = %e, "could not start the split thread"),
            }
        }
    }

    fn run(me: Weak<Self>) {
        loop {
            let Some(w) = me.upgrade() else { return };
            let job = {
                let mut q = w.queue.lock();
                if q.is_empty() && !*w.stop.lock() {
                    w.wake
                        .wait_for(&mut q, std::time::Duration::from_millis(200));
                }
                if *w.stop.lock() {
                    return;
                }
                let job = q.pop_front();
                if job.is_some() {
                    w.busy.fetch_add(1, Ordering::AcqRel);
                }
                job
            };
            if let Some(job) = job {
                w.execute(job);
                let q = w.queue.lock();
                w.busy.fetch_sub(1, Ordering::AcqRel);
                if q.is_empty() {
                    w.idle.notify_all();
                }
            }
        }
    }

    fn execute(&self, job: Job) {
        let Some(db) = self.db.get().and_then(Weak::upgrade) else {
            return;
        };
        if db.check_open().is_err() {
            return;
        }
        match job {
            Job::Split { table, encoded } => match db.split_region(&table, &encoded, None, false) {
                Ok(_) => {}
                Err(e) => {
                    tracing::warn!(table = %table, region = %encoded, error = %e, "requested split not done")
                }
            },
            Job::Janitor { table } => {
                if let Err(e) = db.clean_table_dir(&table) {
                    tracing::warn!(table = %table, error = %e, "parent clean-up failed");
                }
            }
        }
    }

    /// Runs the queued jobs on the calling thread (a Db without background threads).
    pub(crate) fn run_pending(&self) {
        if self.thread.lock().is_some() {
            return;
        }
        loop {
            let Some(job) = self.queue.lock().pop_front() else {
                return;
            };
            self.execute(job);
        }
    }

    /// True when nothing is queued or running.
    pub(crate) fn is_idle(&self) -> bool {
        self.queue.lock().is_empty() && self.busy.load(Ordering::Acquire) == 0
    }

    /// Waits until nothing is queued or running (with a thread), or runs what is queued.
    pub(crate) fn wait_idle(&self) {
        if self.thread.lock().is_none() {
            self.run_pending();
            return;
        }
        let mut q = self.queue.lock();
        while !q.is_empty() || self.busy.load(Ordering::Acquire) > 0 {
            self.idle
                .wait_for(&mut q, std::time::Duration::from_millis(50));
        }
    }

    /// Stops the thread (a running job finishes first).
    pub(crate) fn shutdown(&self) {
        *self.stop.lock() = true;
        self.wake.notify_all();
        if let Some(t) = self.thread.lock().take()
            && t.thread().id() != std::thread::current().id()
        {
            let _ = t.join();
        }
    }
}

fn invalid(msg: impl Into<String>) -> Error {
    Error::InvalidArgument(msg.into())
}

/// HBase's `RegionInfo.toString` shape, for messages.
fn describe(info: &RegionInfo) -> String {
    format!(
        "{{ENCODED => {}, NAME => '{}', STARTKEY => '{}', ENDKEY => '{}'}}",
        info.encoded_name(),
        crate::admin::region_name(info),
        to_string_binary(&info.start_key),
        to_string_binary(&info.end_key)
    )
}

impl DbInner {
    fn open_region(
        &self,
        info: &RegionInfo,
        desc: &regionkv_region::TableDescriptor,
    ) -> Result<Arc<Region>> {
        Ok(Region::open_as(
            &self.region_dir(info),
            info,
            desc.clone(),
            self.services.clone(),
            &[],
        )?)
    }

    /// Replaces `old` regions (by encoded name) with `new` in the table's region map.
    fn swap_regions(handle: &TableHandle, old: &[&str], new: Vec<Arc<Region>>) {
        let mut slot = handle.regions.write();
        let current: Vec<Arc<Region>> = slot
            .as_ref()
            .map(|m| m.regions().to_vec())
            .unwrap_or_default();
        let mut next: Vec<Arc<Region>> = current
            .into_iter()
            .filter(|r| !old.contains(&r.encoded_name()))
            .collect();
        next.extend(new);
        *slot = Some(Arc::new(RegionMap::new(next)));
    }

    /// Writes a child region's directory and manifest (not yet live).
    fn write_child(&self, m: &Manifest) -> Result<()> {
        let dir = self.region_dir(&m.region);
        if self.fs.exists(&dir)? {
            self.fs.remove_dir_all(&dir)?;
        }
        self.fs.create_dir_all(&dir)?;
        m.write(self.fs.as_ref(), &dir)?;
        if let Some(parent) = dir.parent() {
            self.fs.sync_dir(parent)?;
        }
        Ok(())
    }

    /// Removes children written for a split or merge that did not commit.
    fn remove_children(&self, children: &[RegionInfo]) {
        for c in children {
            let dir = self.region_dir(c);
            if let Err(e) = self.fs.remove_dir_all(&dir)
                && self.fs.exists(&dir).unwrap_or(false)
            {
                tracing::warn!(dir = %dir.display(), error = %e, "could not remove an uncommitted child region");
            }
        }
    }

    /// The catalog with `old` replaced by `new` in `table`'s region list.
    fn replaced(catalog: &Catalog, table: &str, old: &[RegionInfo], new: &[RegionInfo]) -> Catalog {
        let mut next = catalog.clone();
        if let Some(t) = next.tables.get_mut(table) {
            t.regions.retain(|r| !old.contains(&r.info));
            t.regions
                .extend(new.iter().map(|info| RegionEntry { info: info.clone() }));
            t.regions
                .sort_by(|a, b| a.info.start_key.cmp(&b.info.start_key));
        }
        next
    }

    /// Splits region `encoded` of `table` at `split_row`, or at the policy's split point
    /// when `None` (`Ok(None)`: the region has no split point). `user` marks an
    /// `Admin` request, which fails loudly where an automatic request is dropped.
    pub(crate) fn split_region(
        &self,
        table: &str,
        encoded: &str,
        split_row: Option<&[u8]>,
        user: bool,
    ) -> Result<Option<[RegionInfo; 2]>> {
        let mut catalog = self.catalog.lock();
        let handle = self.table(table)?;
        let map = handle.region_map()?;
        let Some(parent) = map
            .regions()
            .iter()
            .find(|r| r.encoded_name() == encoded)
            .cloned()
        else {
            if user {
                return Err(invalid(format!(
                    "Unknown region {encoded} of table {table}"
                )));
            }
            return Ok(None);
        };
        let desc = handle.descriptor.load_full();
        if !desc.split_enabled {
            return Err(invalid(format!(
                "Table {} isn't enabled for split (SPLIT_ENABLED => false)",
                desc.name
            )));
        }
        if !user && !parent.should_split(map.len() as u32) {
            return Ok(None);
        }
        if parent.has_references() {
            if !user {
                return Ok(None);
            }
            return Err(invalid(format!(
                "{encoded} NOT splittable: it still has references to its parent's files; compact it first"
            )));
        }
        let row = match split_row {
            Some(r) => {
                let info = parent.info();
                if r.is_empty() {
                    return Err(invalid("Split row cannot be null"));
                }
                if r == info.start_key.as_slice() {
                    return Err(invalid(format!(
                        "Split row is equal to startkey: {}",
                        to_string_binary(r)
                    )));
                }
                if !info.contains_row(r) {
                    return Err(invalid(format!(
                        "Split row is not inside region key range splitKey:{} region: {}",
                        to_string_binary(r),
                        describe(info)
                    )));
                }
                r.to_vec()
            }
            None => match parent.split_point()? {
                Some(r) => r,
                // HBase's region server flushes a region whose data is all in the
                // memstore and asks again.
                None if user && parent.memstore_data_size() > 0 => {
                    parent.flush_all()?;
                    parent.split_point()?.ok_or_else(|| {
                        invalid(
                            "Region not splittable because bestSplitPoint = null, maybe table is too small for auto split. For force split, try specifying split row",
                        )
                    })?
                }
                None => {
                    if user {
                        return Err(invalid(
                            "Region not splittable because bestSplitPoint = null, maybe table is too small for auto split. For force split, try specifying split row",
                        ));
                    }
                    return Ok(None);
                }
            },
        };
        let span =
            tracing::info_span!("split", region = %encoded, split_row = %to_string_binary(&row));
        let _enter = span.enter();
        let mut next_catalog = catalog.clone();
        // HBase's getDaughterRegionIdTimestamp: now, but above the parent's id.
        let id = self
            .next_region_id(&mut next_catalog)
            .max(parent.info().region_id + 1);
        next_catalog.next_region_id = next_catalog.next_region_id.max(id + 1);

        self.ensure_catalog_certain()?;
        let (closing, seq) = match parent.close_for_split() {
            Ok(c) => c,
            Err(e) => {
                // The close failed in its flush: the region is closed with edits that are
                // only in the WAL, which the next Db::open replays; reopening it here
                // would serve without them.
                if parent.is_closed() {
                    self.set_offline(encoded);
                }
                return Err(e.into());
            }
        };
        // Crash points (docs/reliability.md): before the commit a restart serves the
        // parent (rolled back), after it the daughters (rolled forward).
        fail::fail_point!("split-after-close");
        let attempt = (|| -> Result<[Manifest; 2]> {
            let children = parent.daughter_manifests(&closing, seq, &row, id)?;
            for c in &children {
                self.write_child(c)?;
                fail::fail_point!("split-after-daughter");
            }
            let infos: Vec<RegionInfo> = children.iter().map(|m| m.region.clone()).collect();
            let next = Self::replaced(&next_catalog, &desc.name, &[parent.info().clone()], &infos);
            // The commit point.
            self.write_catalog(&catalog, &next)?;
            *catalog = next;
            fail::fail_point!("split-after-commit");
            Ok(children)
        })();
        let children = match attempt {
            Ok(c) => c,
            Err(e) if matches!(e, Error::CatalogUncertain { .. }) => {
                // Either catalog may be the one a restart reads: the daughters' directories
                // stay (the next open's janitor removes whichever set is unnamed) and so
                // does the parent, closed (serving it could take edits a restart that
                // reads the new catalog would not replay).
                tracing::error!(error = %e, "split commit uncertain; the parent stays closed until the Db is reopened");
                self.set_offline(encoded);
                return Err(e);
            }
            Err(e) => {
                tracing::error!(error = %e, "split failed before its commit; reopening the parent");
                let a = RegionInfo {
                    region_id: id,
                    end_key: row.clone(),
                    ..parent.info().clone()
                };
                let b = RegionInfo {
                    region_id: id,
                    start_key: row.clone(),
                    ..parent.info().clone()
                };
                self.remove_children(&[a, b]);
                match self.open_region(parent.info(), &desc) {
                    Ok(reopened) => Self::swap_regions(&handle, &[encoded], vec![reopened]),
                    Err(reopen) => {
                        tracing::error!(error = %reopen, "the parent of a failed split could not be reopened");
                        self.set_offline(encoded);
                    }
                }
                return Err(e);
            }
        };
        let mut opened = Vec::new();
        for c in &children {
            match self.open_region(&c.region, &desc) {
                Ok(r) => opened.push(r),
                Err(e) => {
                    // Committed, but a daughter does not open (an I/O error): the map keeps
                    // the closed parent, offline, so its rows fail at once; the next
                    // Db::open opens the daughters the catalog names.
                    tracing::error!(error = %e, "a daughter of a committed split did not open");
                    self.set_offline(encoded);
                    return Err(e);
                }
            }
        }
        fail::fail_point!("split-after-open-daughters");
        Self::swap_regions(&handle, &[encoded], opened);
        tracing::info!(
            parent = %encoded,
            daughters = %format!("{}, {}", children[0].region.encoded_name(), children[1].region.encoded_name()),
            "split"
        );
        Ok(Some(children.map(|m| m.region)))
    }

    /// Merges the regions named by `encoded` (two or more, adjacent once sorted) of one
    /// table into one region.
    pub(crate) fn merge_regions(&self, encoded: &[&str], force: bool) -> Result<RegionInfo> {
        if encoded.len() < 2 {
            return Err(invalid("Need at least two regions to merge"));
        }
        let unique: BTreeSet<&str> = encoded.iter().copied().collect();
        if unique.len() != encoded.len() {
            return Err(invalid(
                "Duplicate regions specified; cannot merge a region to itself",
            ));
        }
        let mut catalog = self.catalog.lock();
        // Find every region and its table.
        let mut found: Vec<(Arc<TableHandle>, Arc<Region>)> = Vec::new();
        {
            let tables = self.tables.read();
            for e in encoded {
                let hit = tables.values().find_map(|t| {
                    let map = t.regions.read().clone()?;
                    let r = map
                        .regions()
                        .iter()
                        .find(|r| r.encoded_name() == *e)?
                        .clone();
                    Some((t.clone(), r))
                });
                match hit {
                    Some(h) => found.push(h),
                    None => return Err(invalid(format!("Unknown region {e}"))),
                }
            }
        }
        let handle = found[0].0.clone();
        if found.iter().any(|(t, _)| t.name != handle.name) {
            return Err(invalid("Can't merge regions from different tables"));
        }
        let desc = handle.descriptor.load_full();
        if !desc.merge_enabled {
            return Err(invalid(format!(
                "Table {} isn't enabled for merge (MERGE_ENABLED => false)",
                desc.name
            )));
        }
        let mut parents: Vec<Arc<Region>> = found.into_iter().map(|(_, r)| r).collect();
        parents.sort_by(|a, b| a.info().start_key.cmp(&b.info().start_key));
        for w in parents.windows(2) {
            if w[0].info().end_key != w[1].info().start_key {
                return Err(invalid(if force {
                    format!(
                        "regionkv cannot force-merge non-adjacent regions '{}', '{}' (the merged region would overlap the regions between them)",
                        w[0].encoded_name(),
                        w[1].encoded_name()
                    )
                } else {
                    format!(
                        "Unable to merge non-adjacent or non-overlapping regions '{}', '{}' when force=false",
                        w[0].encoded_name(),
                        w[1].encoded_name()
                    )
                }));
            }
        }
        for p in &parents {
            if p.has_references() {
                return Err(invalid(format!(
                    "Unable to merge {}: it has references to a parent region's files; compact it first",
                    p.encoded_name()
                )));
            }
        }
        let span = tracing::info_span!("merge", regions = %encoded.join(", "));
        let _enter = span.enter();
        let mut next_catalog = catalog.clone();
        let max_parent = parents
            .iter()
            .map(|p| p.info().region_id)
            .max()
            .unwrap_or(0);
        let id = self.next_region_id(&mut next_catalog).max(max_parent + 1);
        next_catalog.next_region_id = next_catalog.next_region_id.max(id + 1);
        self.ensure_catalog_certain()?;
        let mut closed: Vec<(Manifest, u64)> = Vec::new();
        let mut failure = None;
        for p in &parents {
            match p.close_for_split() {
                Ok(c) => closed.push(c),
                Err(e) => {
                    failure = Some(e.into());
                    break;
                }
            }
        }
        let names: Vec<&str> = parents.iter().map(|p| p.encoded_name()).collect();
        let attempt = match failure {
            Some(e) => Err(e),
            None => (|| -> Result<Manifest> {
                let sources: Vec<(&Manifest, u64)> = closed.iter().map(|(m, s)| (m, *s)).collect();
                let m = merged_manifest(&sources, id);
                fail::fail_point!("merge-after-close");
                self.write_child(&m)?;
                fail::fail_point!("merge-before-commit");
                let olds: Vec<RegionInfo> = parents.iter().map(|p| p.info().clone()).collect();
                let next = Self::replaced(
                    &next_catalog,
                    &desc.name,
                    &olds,
                    std::slice::from_ref(&m.region),
                );
                self.write_catalog(&catalog, &next)?;
                *catalog = next;
                fail::fail_point!("merge-after-commit");
                Ok(m)
            })(),
        };
        let merged = match attempt {
            Ok(m) => m,
            Err(e) if matches!(e, Error::CatalogUncertain { .. }) => {
                // As for a split: the merged region's directory and the parents stay, the
                // parents closed, until a reopen reads whichever catalog survived.
                tracing::error!(error = %e, "merge commit uncertain; the parents stay closed until the Db is reopened");
                for n in &names {
                    self.set_offline(n);
                }
                return Err(e);
            }
            Err(e) => {
                tracing::error!(error = %e, "merge failed before its commit; reopening the parents");
                let info = RegionInfo {
                    table: desc.name.clone(),
                    start_key: parents[0].info().start_key.clone(),
                    end_key: parents[parents.len() - 1].info().end_key.clone(),
                    region_id: id,
                };
                self.remove_children(&[info]);
                // Reopen the parents that closed cleanly (all flushed). One whose close
                // failed stays as it is: its unflushed edits are only in the WAL, which
                // the next Db::open replays; one that was never closed still serves.
                if closed.len() < names.len() {
                    self.set_offline(names[closed.len()]);
                }
                let mut closed_names: Vec<&str> = Vec::new();
                let mut reopened = Vec::new();
                for p in &parents[..closed.len()] {
                    match self.open_region(p.info(), &desc) {
                        Ok(r) => {
                            closed_names.push(p.encoded_name());
                            reopened.push(r);
                        }
                        Err(reopen) => {
                            tracing::error!(error = %reopen, region = %p.encoded_name(), "a parent of a failed merge could not be reopened");
                            self.set_offline(p.encoded_name());
                        }
                    }
                }
                Self::swap_regions(&handle, &closed_names, reopened);
                return Err(e);
            }
        };
        let region = match self.open_region(&merged.region, &desc) {
            Ok(r) => r,
            Err(e) => {
                // Committed, but the merged region does not open: as for a split.
                tracing::error!(error = %e, "the region of a committed merge did not open");
                for n in &names {
                    self.set_offline(n);
                }
                return Err(e);
            }
        };
        Self::swap_regions(&handle, &names, vec![region]);
        tracing::info!(merged = %merged.region.encoded_name(), "merged");
        Ok(merged.region)
    }

    /// Why the region directory `path` (named `name`), which the catalog does not list
    /// and no listed region refers to, is a leftover the janitor may delete; `None` when it
    /// may hold data the catalog lost (it is kept, for `regionkv repair`). Leftovers:
    /// * a split or merge parent, or a truncated table's old region: every listed region
    ///   overlapping its key range is newer (a higher region id);
    /// * an uncommitted split or merge child: its manifest refers to a listed region, and it
    ///   holds nothing of its own (no file, no WAL edit: a child that never opened);
    /// * a region holding nothing: no file and no WAL edit (an uncommitted truncate's new
    ///   region, a create interrupted before the manifest).
    fn region_leftover(
        &self,
        path: &std::path::Path,
        name: &str,
        listed: &[RegionEntry],
    ) -> Result<Option<&'static str>> {
        let empty = !self.wal_edit_regions.contains(name)
            && !crate::layout::holds_files(self.fs.as_ref(), path)?;
        let manifest = match Manifest::read(self.fs.as_ref(), path) {
            Ok(Some(m)) => m,
            Ok(None) if empty => return Ok(Some("an empty region directory without a manifest")),
            Ok(None) => return Ok(None),
            Err(e) => {
                tracing::warn!(dir = %path.display(), error = %e, "unreadable manifest in an unlisted region directory");
                return Ok(None);
            }
        };
        let info = &manifest.region;
        if info.encoded_name() != name || !listed.iter().all(|r| r.info.table == info.table) {
            // Not what its directory says it is: only a repair decides.
            return Ok(None);
        }
        let overlapping: Vec<&RegionEntry> =
            listed.iter().filter(|r| r.info.overlaps(info)).collect();
        if !overlapping.is_empty()
            && overlapping
                .iter()
                .all(|r| r.info.region_id > info.region_id)
        {
            return Ok(Some(
                "superseded by newer regions (a split or merge parent, or a truncated region)",
            ));
        }
        let listed_names: BTreeSet<String> = listed.iter().map(|r| r.info.encoded_name()).collect();
        let refers_to_listed = manifest.stores.values().any(|sm| {
            sm.files.iter().any(|f| {
                f.reference
                    .as_ref()
                    .is_some_and(|r| listed_names.contains(&r.region))
            })
        });
        if refers_to_listed && empty {
            return Ok(Some("an uncommitted split or merge child"));
        }
        if empty && manifest.stores.values().all(|sm| sm.files.is_empty()) {
            return Ok(Some("a region holding no data"));
        }
        Ok(None)
    }

    /// The janitor: deletes the region directories in the table's directory that the
    /// catalog does not list, no listed region refers to, and [`Self::region_leftover`]
    /// recognises as leftovers. Returns how many it removed.
    pub(crate) fn clean_table_dir(&self, table: &str) -> Result<usize> {
        let catalog = self.catalog.lock();
        if self.catalog_uncertain() {
            // The directories the on-disk catalog names may not be the ones `catalog`
            // names: delete nothing until a reopen settles it.
            return Ok(0);
        }
        let Some(entry) = catalog.tables.get(table) else {
            return Ok(0);
        };
        let dir = self.table_dir(table);
        if !self.fs.exists(&dir)? {
            return Ok(0);
        }
        let mut keep: BTreeSet<String> = BTreeSet::new();
        for r in &entry.regions {
            let encoded = r.info.encoded_name();
            let region_dir = dir.join(&encoded);
            keep.insert(encoded);
            if let Some(m) = Manifest::read(self.fs.as_ref(), &region_dir)? {
                for sm in m.stores.values() {
                    for f in &sm.files {
                        if let Some(r) = &f.reference {
                            keep.insert(r.region.clone());
                        }
                    }
                }
            }
        }
        let mut removed = 0;
        for name in crate::layout::region_dirs(self.fs.as_ref(), &dir)? {
            if keep.contains(&name) {
                continue;
            }
            let path = dir.join(&name);
            let Some(why) = self.region_leftover(&path, &name, &entry.regions)? else {
                tracing::warn!(
                    dir = %path.display(),
                    "a region directory the catalog does not list and that is no known leftover; kept (run `regionkv repair`)"
                );
                continue;
            };
            fail::fail_point!("janitor-before-remove");
            tracing::info!(dir = %path.display(), why, "removing a region directory nothing refers to");
            self.fs.remove_dir_all(&path)?;
            removed += 1;
        }
        if removed > 0 {
            self.fs.sync_dir(&dir)?;
        }
        Ok(removed)
    }
}
