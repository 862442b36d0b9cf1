//! The one executor of changes to the set of regions (HBase's procedures:
//! `SplitTableRegionProcedure`, `MergeTableRegionsProcedure`, ...). A transition states
//! what it does in each phase; [`execute`] runs the phases in order, fires the crash
//! point at each boundary, and applies the single rollback rule, so that no transition
//! writes its own recovery.
//!
//! | # | Phase | The transition does | A failure in or after it |
//! |---|---|---|---|
//! | 1 | Close | closes the regions it replaces or changes (all flushed) | reopen what closed; a region whose close failed after closing stays offline |
//! | 2 | Stage | writes new region directories and manifests; opens regions that must be open before the commit | close what Stage opened, remove what it wrote, then as 1 |
//! | 3 | CommitCatalog | — (the executor replaces the catalog with [`RegionTransition::next_catalog`]) | known unchanged: as 2. **Uncertain**: close what Stage opened; everything closed goes offline; written directories stay (the next open's janitor decides) |
//! | 4 | Publish | opens what serves from now on, swaps it into the region map | roll forward only: everything closed goes offline (it stays in the map), the error is returned; the next `Db::open` opens what the catalog names |
//! | 5 | Cleanup | best effort: what the next open would otherwise do | logged, never returned |
//!
//! In one sentence: before the commit, undo; at an uncertain commit, take offline;
//! after the commit, only go forward. A restart applies the same rule: recovery keeps the
//! catalog it reads and removes what that catalog does not name.
//!
//! Invariants the executor relies on: it runs under the catalog lock (the caller passes
//! the locked catalog), so transitions are serial; a region in the "closed" list has
//! every acknowledged edit in its storefiles, so reopening it loses nothing; a region in
//! the "failed close" list may hold edits only in the WAL, so it is never reopened here
//! (the next `Db::open` replays them).
//!
//! Crash points sit at the boundaries and are named once: `<transition>-after-close`,
//! `-after-stage`, `-after-commit` and `-after-publish` (only those a transition
//! reaches; see [`crate::crash_points`]). Configured with `return`, a point fails the
//! transition there with an injected error, which the same rule then handles.

mod create_table;
mod merge;
mod modify_table;
mod namespace;
mod snapshot;
mod split;
mod table_state;

pub(crate) use create_table::{CreateTable, DeleteTable, TruncateTable};
pub(crate) use modify_table::ModifyTable;
pub(crate) use namespace::{ChangeNamespace, NamespaceChange};
pub(crate) use snapshot::{CloneSnapshot, RestoreSnapshot};
pub(crate) use table_state::SetTableState;

use crate::catalog::{Catalog, RegionEntry};
use crate::db::{RegionServer, TableHandle};
use crate::error::{Error, Result};
use crate::region_map::RegionMap;
use regionkv_region::{Manifest, Region, RegionInfo, TableDescriptor};
use std::sync::Arc;

/// The phase boundaries that carry a crash point, in order (`After::Commit`: after the
/// catalog commit).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum After {
    /// Phase 1 done: the regions are closed, nothing written.
    Close,
    /// Phase 2 done: the new regions are on disk, the catalog names the old ones.
    Stage,
    /// Phase 3 done: the catalog names the new regions, nothing of them serves yet.
    Commit,
    /// Phase 4 done: the new regions serve; clean-up not yet done.
    Publish,
}

impl After {
    /// The suffix of the crash point's name.
    #[cfg_attr(not(feature = "failpoints"), allow(dead_code))]
    pub(crate) fn suffix(self) -> &'static str {
        match self {
            After::Close => "after-close",
            After::Stage => "after-stage",
            After::Commit => "after-commit",
            After::Publish => "after-publish",
        }
    }
}

/// One change of the region set, stated phase by phase (see the module table).
pub(crate) trait RegionTransition {
    /// What a successful transition returns.
    type Output;

    /// The transition's name: the prefix of its crash points and its log span.
    fn name(&self) -> &'static str;

    /// Phase 1: closes the regions the transition replaces, through
    /// [`Tx::close`] so the executor knows what to reopen.
    fn close(&mut self, _tx: &mut Tx<'_>) -> Result<()> {
        Ok(())
    }

    /// Phase 2: writes the new regions ([`Tx::write_region`]) and opens those that must
    /// be open before the commit ([`Tx::staged_open`]).
    fn stage(&mut self, _tx: &mut Tx<'_>) -> Result<()> {
        Ok(())
    }

    /// Phase 3's content: the catalog to commit in place of `current`.
    fn next_catalog(&self, current: &Catalog) -> Catalog;

    /// Phase 4: makes the committed state serve.
    fn publish(&mut self, tx: &mut Tx<'_>) -> Result<Self::Output>;

    /// Phase 5: best-effort clean-up; failures are logged (the next open redoes it).
    fn cleanup(&mut self, _tx: &Tx<'_>) {}

    /// Before the commit, or after one known not to have happened: undoes what Stage
    /// wrote besides region directories (which the executor removes itself).
    fn unstage(&mut self, _tx: &Tx<'_>) {}

    /// The descriptor the regions closed in phase 1 reopen with after a rollback (`None`:
    /// the transition closes no region).
    fn reopen_descriptor(&self) -> Option<&TableDescriptor> {
        None
    }

    /// After a rollback: serves `reopened` (regions of the same names as some the
    /// transition closed) in place of the closed ones.
    fn restore(&mut self, _tx: &Tx<'_>, _reopened: Vec<Arc<Region>>) {}
}

/// What a transition in progress has done: the executor's rollback state, filled by the
/// transition through these methods.
pub(crate) struct Tx<'a> {
    /// The Db the transition changes.
    pub(crate) db: &'a RegionServer,
    /// Regions closed cleanly (every acknowledged edit in their storefiles).
    closed: Vec<Arc<Region>>,
    /// The region whose close failed, if one did.
    failed_close: Option<Arc<Region>>,
    /// Region directories Stage (began to) write.
    written: Vec<RegionInfo>,
    /// Regions Stage opened, not yet serving.
    opened: Vec<Arc<Region>>,
}

impl<'a> Tx<'a> {
    fn new(db: &'a RegionServer) -> Self {
        Self {
            db,
            closed: Vec::new(),
            failed_close: None,
            written: Vec::new(),
            opened: Vec::new(),
        }
    }

    /// Closes `region` with `how` (a plain close, or a close for a split), recording the
    /// outcome for the rollback.
    pub(crate) fn close<T>(
        &mut self,
        region: &Arc<Region>,
        how: impl FnOnce(&Region) -> regionkv_region::Result<T>,
    ) -> Result<T> {
        match how(region) {
            Ok(v) => {
                self.closed.push(region.clone());
                Ok(v)
            }
            Err(e) => {
                self.failed_close = Some(region.clone());
                Err(e.into())
            }
        }
    }

    /// Writes a new region's directory and manifest (not live until published). The
    /// directory is recorded first, so that a partial write is removed by a rollback.
    pub(crate) fn write_region(&mut self, m: &Manifest) -> Result<()> {
        self.written.push(m.region.clone());
        let db = self.db;
        let dir = db.region_dir(&m.region);
        if db.fs.exists(&dir)? {
            db.fs.remove_dir_all(&dir)?;
        }
        db.fs.create_dir_all(&dir)?;
        m.write(db.fs.as_ref(), &dir)?;
        if let Some(parent) = dir.parent() {
            db.fs.sync_dir(parent)?;
        }
        Ok(())
    }

    /// Records a region Stage opened (closed again by a rollback or an uncertain commit).
    pub(crate) fn staged_open(&mut self, region: Arc<Region>) {
        self.opened.push(region);
    }

    /// Creates a new, empty region on disk and opens it (not serving until published);
    /// a rollback closes it and removes its directory.
    pub(crate) fn create_region(
        &mut self,
        info: &RegionInfo,
        desc: &TableDescriptor,
    ) -> Result<Arc<Region>> {
        self.written.push(info.clone());
        let region = Region::create(
            &self.db.region_dir(info),
            info.clone(),
            desc.clone(),
            self.db.services.clone(),
        )?;
        self.staged_open(region.clone());
        Ok(region)
    }

    /// Opens a region of `desc` with no WAL edits to replay (every region a transition
    /// opens is new, or was closed flushed). A region of that name marked offline is
    /// online again once this succeeds.
    pub(crate) fn open_region(
        &self,
        info: &RegionInfo,
        desc: &TableDescriptor,
    ) -> Result<Arc<Region>> {
        let region = Region::open_as(
            &self.db.region_dir(info),
            info,
            desc.clone(),
            self.db.services.clone(),
            &[],
        )?;
        self.db.set_online(region.encoded_name());
        Ok(region)
    }

    /// Rule for a failure before the commit (or a commit known not to have happened).
    fn roll_back<T: RegionTransition + ?Sized>(&mut self, t: &mut T) {
        self.close_staged();
        for info in std::mem::take(&mut self.written) {
            let dir = self.db.region_dir(&info);
            if let Err(e) = self.db.fs.remove_dir_all(&dir)
                && self.db.fs.exists(&dir).unwrap_or(false)
            {
                tracing::warn!(dir = %dir.display(), error = %e, "could not remove an uncommitted region directory");
            }
        }
        // A region whose close failed after it closed may hold edits only in the WAL:
        // serving it again would lose them, so it waits for the next open's replay. One
        // that never closed (refused before closing) still serves.
        if let Some(r) = self.failed_close.take()
            && r.is_closed()
        {
            self.db.set_offline(r.encoded_name());
        }
        t.unstage(self);
        let desc = t.reopen_descriptor().cloned();
        let mut reopened = Vec::new();
        for r in std::mem::take(&mut self.closed) {
            if self.db.is_offline(r.encoded_name()) {
                // Offline before this transition (it waits for the next open's replay):
                // closing it again changed nothing, and reopening it here could serve
                // without edits that are only in the WAL.
                continue;
            }
            let Some(desc) = &desc else {
                tracing::error!(region = %r.encoded_name(), "a transition closed a region it cannot reopen");
                self.db.set_offline(r.encoded_name());
                continue;
            };
            match self.open_region(r.info(), desc) {
                Ok(again) => reopened.push(again),
                Err(e) => {
                    tracing::error!(region = %r.encoded_name(), error = %e, "a region closed for a failed change could not be reopened");
                    self.db.set_offline(r.encoded_name());
                }
            }
        }
        if !reopened.is_empty() {
            t.restore(self, reopened);
        }
    }

    /// Rule for an uncertain commit: either catalog may be the one a restart reads.
    fn take_offline(&mut self) {
        self.close_staged();
        for r in self.closed.iter().chain(&self.failed_close) {
            self.db.set_offline(r.encoded_name());
        }
    }

    fn close_staged(&mut self) {
        for r in std::mem::take(&mut self.opened) {
            if let Err(e) = r.close() {
                tracing::warn!(region = %r.encoded_name(), error = %e, "could not close a region opened for a failed change");
            }
        }
    }
}

/// Runs `t` under the catalog lock (`catalog` is the locked catalog), applying the
/// module's rollback rule; returns what its publish phase returned.
pub(crate) fn execute<T: RegionTransition>(
    db: &RegionServer,
    catalog: &mut Catalog,
    t: &mut T,
) -> Result<T::Output> {
    let name = t.name();
    // A read-only open changes nothing: every Admin entry point refuses first, and this
    // catches any transition that does not go through one.
    db.ensure_writable(name)?;
    // Refuse before closing anything: an earlier uncertain commit means only a reopen
    // knows which catalog is on disk.
    db.ensure_catalog_certain()?;
    let mut tx = Tx::new(db);
    let staged = (|| {
        t.close(&mut tx)?;
        boundary(name, After::Close)?;
        t.stage(&mut tx)?;
        boundary(name, After::Stage)
    })();
    if let Err(e) = staged {
        tracing::error!(transition = name, error = %e, "failed before its catalog commit; rolling back");
        tx.roll_back(t);
        return Err(e);
    }
    let next = t.next_catalog(catalog);
    match db.write_catalog(catalog, &next) {
        Ok(()) => *catalog = next,
        Err(e @ Error::CatalogUncertain { .. }) => {
            tracing::error!(transition = name, error = %e, "catalog commit uncertain; what was closed stays offline until the Db is reopened");
            tx.take_offline();
            return Err(e);
        }
        Err(e) => {
            tracing::error!(transition = name, error = %e, "catalog commit failed, catalog unchanged; rolling back");
            tx.roll_back(t);
            return Err(e);
        }
    }
    let published = boundary(name, After::Commit).and_then(|()| t.publish(&mut tx));
    let out = match published {
        Ok(out) => out,
        Err(e) => {
            // A publish puts what Stage opened into service only as its last, infallible
            // step, so on a failure those regions serve nothing: close them (the next
            // open opens what the catalog names).
            tx.close_staged();
            // Committed: the old regions must not serve again, the new ones did not
            // open. The closed regions stay in the map, offline, so their rows fail at
            // once; the next Db::open opens what the catalog names.
            tracing::error!(transition = name, error = %e, "failed after its catalog commit; the closed regions stay offline until the Db is reopened");
            for r in &tx.closed {
                db.set_offline(r.encoded_name());
            }
            return Err(e);
        }
    };
    // Done and serving; a failure from here on leaves only clean-up to the next open.
    boundary(name, After::Publish)?;
    t.cleanup(&tx);
    Ok(out)
}

/// The crash point `<transition>-<boundary>` (compiled in with the `failpoints` feature
/// only). `return` makes it fail the transition with [`Error::Injected`].
fn boundary(transition: &str, at: After) -> Result<()> {
    #[cfg(feature = "failpoints")]
    {
        let point = format!("{transition}-{}", at.suffix());
        fail::fail_point!(&point, |_| Err(Error::Injected(point.clone())));
    }
    #[cfg(not(feature = "failpoints"))]
    let _ = (transition, at);
    Ok(())
}

/// Replaces the regions named `old` with `new` in the table's region map (published
/// when the change guard drops).
pub(crate) fn swap_regions(handle: &TableHandle, old: &[&str], new: Vec<Arc<Region>>) {
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

/// Puts `reopened` back in the table's region map in place of the regions of the same
/// names (a rollback's [`RegionTransition::restore`] for a table whose map is not held).
pub(crate) fn swap_back(handle: &TableHandle, reopened: Vec<Arc<Region>>) {
    let names: Vec<String> = reopened
        .iter()
        .map(|r| r.encoded_name().to_string())
        .collect();
    let names: Vec<&str> = names.iter().map(String::as_str).collect();
    swap_regions(handle, &names, reopened);
}

/// Puts `reopened` back in a held region map slot in place of the regions of the same
/// names (a rollback's [`RegionTransition::restore`] for a transition that holds the
/// table's map for its whole run).
pub(crate) fn restore_in_slot(slot: &mut Option<Arc<RegionMap>>, reopened: Vec<Arc<Region>>) {
    let Some(map) = slot.clone() else {
        return;
    };
    let mut regions = map.regions().to_vec();
    for r in reopened {
        if let Some(at) = regions
            .iter()
            .position(|x| x.encoded_name() == r.encoded_name())
        {
            regions[at] = r;
        }
    }
    *slot = Some(Arc::new(RegionMap::new(regions)));
}

/// `catalog` with `old` replaced by `new` in `table`'s region list (kept sorted by
/// start key) and the region-id counter at `next_region_id` or above.
pub(crate) fn replaced_regions(
    catalog: &Catalog,
    table: &str,
    old: &[RegionInfo],
    new: &[RegionInfo],
    next_region_id: u64,
) -> Catalog {
    let mut next = catalog.clone();
    next.next_region_id = next.next_region_id.max(next_region_id);
    if let Some(t) = next.tables.get_mut(table) {
        t.regions.retain(|r| !old.contains(&r.info));
        t.regions
            .extend(new.iter().map(|info| RegionEntry { info: info.clone() }));
        t.regions
            .sort_by(|a, b| a.info.start_key.cmp(&b.info.start_key));
    }
    next
}

/// The regions of a new (or truncated) table `table` split at `split_keys`, with ids
/// drawn from `scratch`'s counter (the catalog to commit).
pub(crate) fn new_table_regions(
    db: &RegionServer,
    scratch: &mut Catalog,
    table: &str,
    split_keys: &[Vec<u8>],
) -> Vec<RegionInfo> {
    let mut bounds = Vec::with_capacity(split_keys.len() + 2);
    bounds.push(Vec::new());
    bounds.extend(split_keys.iter().cloned());
    bounds.push(Vec::new());
    bounds
        .windows(2)
        .map(|w| RegionInfo {
            table: table.to_string(),
            start_key: w[0].clone(),
            end_key: w[1].clone(),
            region_id: db.next_region_id(scratch),
        })
        .collect()
}

/// An id for the regions that replace `parents` (HBase's
/// `getDaughterRegionIdTimestamp`: now, but above every parent's id), and the catalog's
/// region-id counter after it.
pub(crate) fn child_region_id(
    db: &RegionServer,
    catalog: &Catalog,
    parents: &[&RegionInfo],
) -> (u64, u64) {
    let mut scratch = catalog.clone();
    let max_parent = parents.iter().map(|p| p.region_id).max().unwrap_or(0);
    let id = db.next_region_id(&mut scratch).max(max_parent + 1);
    (id, scratch.next_region_id.max(id + 1))
}
