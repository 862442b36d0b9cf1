//! An alter (HBase's `ModifyTableProcedure`) as a [`RegionTransition`]: close every
//! region of an enabled table (flushed), commit the catalog with the new descriptor,
//! then reopen the regions with it. A disabled table's regions are opened and closed
//! once after the commit, so that a dropped family's files go now. The table's region
//! map is held for the whole run: no read or write starts on a region being changed.

use super::{RegionTransition, Tx, restore_in_slot};
use crate::catalog::Catalog;
use crate::db::TableHandle;
use crate::error::{Error, Result};
use crate::region_map::{RegionMap, RegionMapWriteGuard};
use crate::table_info::TableInfoState;
use regionkv_region::{Region, RegionInfo, TableDescriptor};
use std::sync::Arc;

/// One alter, checked and ready to run.
pub(crate) struct ModifyTable<'a> {
    handle: &'a TableHandle,
    slot: RegionMapWriteGuard<'a>,
    old_desc: TableDescriptor,
    desc: TableDescriptor,
    /// The table's regions as the catalog lists them.
    infos: Vec<RegionInfo>,
    state: TableInfoState,
}

impl<'a> ModifyTable<'a> {
    /// An alter of `handle`'s table to `desc` (validated, named as the table), under the
    /// catalog lock (`catalog`).
    pub(crate) fn prepare(
        catalog: &Catalog,
        handle: &'a TableHandle,
        desc: TableDescriptor,
    ) -> Result<Self> {
        let entry = catalog
            .tables
            .get(&desc.name)
            .ok_or_else(|| Error::TableNotFound(desc.name.clone()))?;
        let infos = entry.regions.iter().map(|r| r.info.clone()).collect();
        let state = entry.state.into();
        let slot = handle.regions.write();
        let old_desc = (**handle.descriptor.load()).clone();
        Ok(Self {
            handle,
            slot,
            old_desc,
            desc,
            infos,
            state,
        })
    }
}

impl RegionTransition for ModifyTable<'_> {
    type Output = ();

    fn name(&self) -> &'static str {
        "alter"
    }

    fn close(&mut self, tx: &mut Tx<'_>) -> Result<()> {
        if let Some(map) = self.slot.clone() {
            for r in map.regions() {
                tx.close(r, Region::close)?;
            }
        }
        Ok(())
    }

    fn next_catalog(&self, current: &Catalog) -> Catalog {
        let mut next = current.clone();
        if let Some(entry) = next.tables.get_mut(&self.desc.name) {
            entry.descriptor = self.desc.clone();
        }
        next
    }

    fn publish(&mut self, tx: &mut Tx<'_>) -> Result<()> {
        self.handle.descriptor.store(Arc::new(self.desc.clone()));
        tx.db.refresh_table_info(&self.desc, self.state);
        let mut opened = Vec::with_capacity(self.infos.len());
        for info in &self.infos {
            opened.push(tx.open_region(info, &self.desc)?);
        }
        if self.slot.is_some() {
            // The regions serve only with the new descriptor from here on.
            *self.slot = Some(Arc::new(RegionMap::new(opened)));
        } else {
            // Disabled: the open dropped the removed families' files; close again.
            for r in opened {
                r.close()?;
            }
        }
        Ok(())
    }

    fn reopen_descriptor(&self) -> Option<&TableDescriptor> {
        Some(&self.old_desc)
    }

    fn restore(&mut self, _tx: &Tx<'_>, reopened: Vec<Arc<Region>>) {
        restore_in_slot(&mut self.slot, reopened);
    }
}
