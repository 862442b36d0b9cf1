//! Table creation, truncation and deletion (HBase's `CreateTableProcedure`,
//! `TruncateTableProcedure` and `DeleteTableProcedure`) as [`RegionTransition`]s.
//!
//! * Create: mark the table directory CREATING (`.tableinfo`), create and open the
//!   regions, commit the table ENABLED, publish its handle. A crash before the commit
//!   leaves a CREATING directory, which the next create or open removes.
//! * Truncate (a disabled table): create and open new empty regions, commit them in place
//!   of the old ones with the table ENABLED, serve them, then remove the old regions'
//!   directories (a crash before that leaves superseded regions the janitor removes).
//! * Delete (a disabled table): mark the directory DROPPING, commit the catalog without
//!   the table, drop its handle, remove the directory (a crash before that leaves a
//!   DROPPING directory the next open removes).

use super::{RegionTransition, Tx, new_table_regions};
use crate::catalog::{Catalog, RegionEntry, TableEntry, TableState};
use crate::db::{RegionServer, TableHandle};
use crate::error::{Error, Result};
use crate::region_map::{RegionMap, RegionMapSlot, RegionMapWriteGuard};
use crate::table_info::{TableInfo, TableInfoState};
use arc_swap::ArcSwap;
use regionkv_region::{Region, RegionInfo, TableDescriptor};
use std::path::PathBuf;
use std::sync::Arc;

/// `current` with table `desc` listed ENABLED on the new regions `infos` (a create, or a
/// truncate replacing the old ones) and the region-id counter at `next_region_id` or
/// above.
fn with_new_regions(
    current: &Catalog,
    desc: &TableDescriptor,
    infos: &[RegionInfo],
    next_region_id: u64,
) -> Catalog {
    let mut next = current.clone();
    next.next_region_id = next.next_region_id.max(next_region_id);
    next.tables.insert(
        desc.name.clone(),
        TableEntry {
            descriptor: desc.clone(),
            state: TableState::Enabled,
            regions: infos
                .iter()
                .map(|info| RegionEntry { info: info.clone() })
                .collect(),
        },
    );
    next
}

/// Creates and opens the new, empty regions `infos` of `desc` (Stage of a create or a
/// truncate).
fn create_all(
    tx: &mut Tx<'_>,
    infos: &[RegionInfo],
    desc: &TableDescriptor,
) -> Result<Vec<Arc<Region>>> {
    infos
        .iter()
        .map(|info| tx.create_region(info, desc))
        .collect()
}

/// One create, checked and ready to run.
pub(crate) struct CreateTable {
    pub(super) desc: TableDescriptor,
    pub(super) infos: Vec<RegionInfo>,
    pub(super) next_region_id: u64,
    /// The opened regions, published as the table's map.
    pub(super) regions: Vec<Arc<Region>>,
}

impl CreateTable {
    /// Marks the directory as a create in progress until the catalog names the table.
    pub(super) fn mark_creating(&self, tx: &Tx<'_>) -> Result<()> {
        TableInfo {
            descriptor: self.desc.clone(),
            state: TableInfoState::Creating,
        }
        .write(tx.db.fs.as_ref(), &tx.db.table_dir(&self.desc.name))
    }
}

/// Removes the directories of the regions `old` a committed change replaced (truncate,
/// restore); a failure is logged: the next open's janitor removes them as superseded.
pub(super) fn remove_region_dirs(tx: &Tx<'_>, old: &[RegionInfo], what: &str) {
    for info in old {
        let dir = tx.db.region_dir(info);
        let removed = tx
            .db
            .fs
            .exists(&dir)
            .map_err(Error::from)
            .and_then(|there| {
                if there {
                    crate::layout::remove_region_dir(tx.db.fs.as_ref(), &dir)
                } else {
                    Ok(())
                }
            });
        if let Err(e) = removed {
            tracing::warn!(dir = %dir.display(), error = %e, transition = what, "could not remove a replaced region directory; the next open will");
        }
    }
}

impl CreateTable {
    /// A create of `desc` (validated, canonically named) split at `split_keys` (checked),
    /// under the catalog lock (`catalog`). A leftover directory of the same name is
    /// removed here when it is recognisably one (a create or drop a crash interrupted);
    /// any other is refused as an orphan table, never deleted.
    pub(crate) fn prepare(
        db: &RegionServer,
        catalog: &Catalog,
        desc: TableDescriptor,
        split_keys: &[Vec<u8>],
    ) -> Result<Self> {
        let ns = crate::db::namespace_of(&desc.name).to_string();
        if !catalog.namespaces.contains(&ns) {
            return Err(Error::NamespaceNotFound(ns));
        }
        if catalog.tables.contains_key(&desc.name) {
            return Err(Error::TableExists(desc.name.clone()));
        }
        db.ensure_catalog_certain()?;
        let table_dir = db.table_dir(&desc.name);
        if db.fs.exists(&table_dir)? {
            match db.unlisted_table_leftover(&table_dir)? {
                Some(why) => {
                    tracing::info!(dir = %table_dir.display(), why, "removing a leftover table directory");
                    crate::layout::remove_table_dir(db.fs.as_ref(), &table_dir)?;
                }
                None => {
                    let regions = crate::layout::region_dirs(db.fs.as_ref(), &table_dir)?;
                    return Err(Error::OrphanTable {
                        path: table_dir,
                        reason: format!("{} region directories", regions.len()),
                    });
                }
            }
        }
        let mut scratch = catalog.clone();
        let infos = new_table_regions(db, &mut scratch, &desc.name, split_keys);
        Ok(Self {
            desc,
            infos,
            next_region_id: scratch.next_region_id,
            regions: Vec::new(),
        })
    }
}

impl RegionTransition for CreateTable {
    type Output = ();

    fn name(&self) -> &'static str {
        "create"
    }

    fn stage(&mut self, tx: &mut Tx<'_>) -> Result<()> {
        self.mark_creating(tx)?;
        self.regions = create_all(tx, &self.infos, &self.desc)?;
        Ok(())
    }

    fn next_catalog(&self, current: &Catalog) -> Catalog {
        with_new_regions(current, &self.desc, &self.infos, self.next_region_id)
    }

    fn publish(&mut self, tx: &mut Tx<'_>) -> Result<()> {
        let regions = std::mem::take(&mut self.regions);
        tx.db.tables.write().insert(
            self.desc.name.clone(),
            Arc::new(TableHandle {
                name: self.desc.name.clone(),
                descriptor: ArcSwap::from_pointee(self.desc.clone()),
                regions: RegionMapSlot::new(Some(Arc::new(RegionMap::new(regions)))),
            }),
        );
        Ok(())
    }

    fn cleanup(&mut self, tx: &Tx<'_>) {
        tx.db
            .refresh_table_info(&self.desc, TableInfoState::Enabled);
    }
}

/// One truncate, checked and ready to run.
pub(crate) struct TruncateTable<'a> {
    slot: RegionMapWriteGuard<'a>,
    desc: TableDescriptor,
    old: Vec<RegionInfo>,
    infos: Vec<RegionInfo>,
    next_region_id: u64,
    regions: Vec<Arc<Region>>,
}

impl<'a> TruncateTable<'a> {
    /// A truncate of `handle`'s table (TableNotDisabled unless it is disabled), keeping
    /// its region boundaries when `preserve_splits`, under the catalog lock (`catalog`).
    pub(crate) fn prepare(
        db: &RegionServer,
        catalog: &Catalog,
        handle: &'a TableHandle,
        preserve_splits: bool,
    ) -> Result<Self> {
        let slot = handle.regions.write();
        if slot.is_some() {
            return Err(Error::TableNotDisabled(handle.name.clone()));
        }
        let old = catalog
            .tables
            .get(&handle.name)
            .ok_or_else(|| Error::TableNotFound(handle.name.clone()))?;
        let keys: Vec<Vec<u8>> = if preserve_splits {
            old.regions
                .iter()
                .skip(1)
                .map(|r| r.info.start_key.clone())
                .collect()
        } else {
            Vec::new()
        };
        let mut scratch = catalog.clone();
        let infos = new_table_regions(db, &mut scratch, &handle.name, &keys);
        Ok(Self {
            slot,
            desc: (**handle.descriptor.load()).clone(),
            old: old.regions.iter().map(|r| r.info.clone()).collect(),
            infos,
            next_region_id: scratch.next_region_id,
            regions: Vec::new(),
        })
    }
}

impl RegionTransition for TruncateTable<'_> {
    type Output = ();

    fn name(&self) -> &'static str {
        "truncate"
    }

    fn stage(&mut self, tx: &mut Tx<'_>) -> Result<()> {
        self.regions = create_all(tx, &self.infos, &self.desc)?;
        Ok(())
    }

    fn next_catalog(&self, current: &Catalog) -> Catalog {
        with_new_regions(current, &self.desc, &self.infos, self.next_region_id)
    }

    fn publish(&mut self, _tx: &mut Tx<'_>) -> Result<()> {
        *self.slot = Some(Arc::new(RegionMap::new(std::mem::take(&mut self.regions))));
        Ok(())
    }

    fn cleanup(&mut self, tx: &Tx<'_>) {
        tx.db
            .refresh_table_info(&self.desc, TableInfoState::Enabled);
        remove_region_dirs(tx, &self.old, "truncate");
    }
}

/// One delete, checked and ready to run.
pub(crate) struct DeleteTable {
    name: String,
    desc: Arc<TableDescriptor>,
    dir: PathBuf,
}

impl DeleteTable {
    /// A delete of `handle`'s table: TableNotDisabled unless it is disabled.
    pub(crate) fn prepare(db: &RegionServer, handle: &TableHandle) -> Result<Self> {
        if handle.regions.read().is_some() {
            return Err(Error::TableNotDisabled(handle.name.clone()));
        }
        Ok(Self {
            name: handle.name.clone(),
            desc: handle.descriptor.load_full(),
            dir: db.table_dir(&handle.name),
        })
    }
}

impl RegionTransition for DeleteTable {
    type Output = ();

    fn name(&self) -> &'static str {
        "delete"
    }

    fn stage(&mut self, tx: &mut Tx<'_>) -> Result<()> {
        // Once the catalog no longer names the table, a crash before the directory is
        // gone leaves a recognisable leftover (the next open finishes the drop) rather
        // than an unlisted table.
        TableInfo {
            descriptor: (*self.desc).clone(),
            state: TableInfoState::Dropping,
        }
        .write(tx.db.fs.as_ref(), &self.dir)
    }

    fn unstage(&mut self, tx: &Tx<'_>) {
        // Not dropped: the table is as it was. (After an uncertain commit the mark stays:
        // if the new catalog survives, the directory is the drop's leftover; if the old
        // one does, the open rewrites the file from it.)
        tx.db
            .refresh_table_info(&self.desc, TableInfoState::Disabled);
    }

    fn next_catalog(&self, current: &Catalog) -> Catalog {
        let mut next = current.clone();
        next.tables.remove(&self.name);
        next
    }

    fn publish(&mut self, tx: &mut Tx<'_>) -> Result<()> {
        tx.db.tables.write().remove(&self.name);
        Ok(())
    }

    fn cleanup(&mut self, tx: &Tx<'_>) {
        let removed = tx
            .db
            .fs
            .exists(&self.dir)
            .map_err(Error::from)
            .and_then(|there| {
                if there {
                    crate::layout::remove_table_dir(tx.db.fs.as_ref(), &self.dir)
                } else {
                    Ok(())
                }
            });
        if let Err(e) = removed {
            tracing::warn!(dir = %self.dir.display(), error = %e, "drop could not remove the table directory; the next open will");
        }
    }
}
