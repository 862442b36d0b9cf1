//! The worker that runs the splits regions ask for (HBase's `CompactSplit` split pool)
//! and the parent clean-up (HBase's `CatalogJanitor`). The split and merge themselves are
//! transitions (`crate::transition`): a failure or crash before their catalog commit
//! leaves the parent serving (at once, or at the next `Db::open`) and the children's
//! directories, which nothing live refers to, deleted; after the commit the children
//! serve, and a parent's directory stays while a child's manifest refers to it. Either
//! way every row is served by exactly one region.
//!
//! The janitor's rule (checked at `Db::open` and whenever a region rewrote its last
//! reference): a region directory in the table's directory is kept if the catalog lists
//! it or a listed region's manifest refers to it; of the others, only a recognised
//! leftover is deleted (a parent superseded by newer regions, an uncommitted child that
//! refers to a listed region, a region holding nothing: `region_leftover`). Anything
//! else — a region the catalog may have lost, a name that is no region's — is kept and
//! reported, for `regionkv repair`.

use crate::catalog::RegionEntry;
use crate::db::RegionServer;
use crate::error::Result;
use parking_lot::{Condvar, Mutex};
use regionkv_region::Manifest;
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

/// The Db's split worker (HBase's `CompactSplit` split pool): queues the splits and
/// clean-ups regions ask for (through [`crate::server_services::ServerServices`]) for a
/// worker thread (when the Db runs background threads) or for the next admin call to run
/// (when it does not).
#[derive(Debug, Default)]
pub(crate) struct SplitWorker {
    db: OnceLock<Weak<RegionServer>>,
    queue: Mutex<VecDeque<Job>>,
    wake: Condvar,
    busy: AtomicUsize,
    idle: Condvar,
    stop: Mutex<bool>,
    thread: Mutex<Option<JoinHandle<()>>>,
}

impl SplitWorker {
    /// Online regions of `table` (for split policies).
    pub(crate) fn regions_of_table(&self, table: &str) -> u32 {
        let Some(db) = self.db.get().and_then(Weak::upgrade) else {
            return 0;
        };
        let tables = db.tables.read();
        tables
            .get(table)
            .and_then(|t| t.regions.read().as_ref().map(|m| m.len() as u32))
            .unwrap_or(0)
    }

    /// Queues a split of region `encoded` of `table` its policy asked for.
    pub(crate) fn split_requested(&self, table: &str, encoded: &str) {
        self.push(Job::Split {
            table: table.to_string(),
            encoded: encoded.to_string(),
        });
    }

    /// Queues the janitor for `table`: a region rewrote its last reference.
    pub(crate) fn references_cleared(&self, table: &str) {
        self.push(Job::Janitor {
            table: table.to_string(),
        });
    }

    fn push(&self, job: Job) {
        let mut q = self.queue.lock();
        if !q.contains(&job) {
            q.push_back(job);
        }
        self.wake.notify_one();
    }

    /// Connects the worker to its Db and, with `background`, starts its thread.
    pub(crate) fn attach(self: &Arc<Self>, db: &Arc<RegionServer>, background: bool) {
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

impl RegionServer {
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
        // Holding nothing but links to a snapshot's files: an uncommitted clone or
        // restore region, a restore's replaced region, or a holder of a parent's linked
        // files no listed region refers to any more. Its data lives in the snapshot.
        let only_links = !self.wal_edit_regions.contains(name)
            && !crate::layout::holds_own_files(self.fs.as_ref(), path)?;
        let links_only_manifest = |m: &Manifest| {
            m.stores.values().all(|sm| {
                sm.files.iter().all(|f| {
                    let file = f.reference.as_ref().map_or(&f.name, |r| &r.file);
                    regionkv_region::file_link::FileLink::parse(file).is_some()
                })
            })
        };
        let manifest = match Manifest::read(self.fs.as_ref(), path) {
            Ok(Some(m)) => m,
            Ok(None) if empty => return Ok(Some("an empty region directory without a manifest")),
            Ok(None) if only_links => {
                return Ok(Some(
                    "a holder of linked snapshot files no listed region refers to",
                ));
            }
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
        if only_links && links_only_manifest(&manifest) {
            return Ok(Some(
                "a region whose files are all links to a snapshot's (an uncommitted clone or restore, or a replaced one)",
            ));
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
            crate::layout::remove_region_dir(self.fs.as_ref(), &path)?;
            removed += 1;
        }
        if removed > 0 {
            self.fs.sync_dir(&dir)?;
        }
        Ok(removed)
    }
}
