//! Disable and enable (HBase's `DisableTableProcedure` and `EnableTableProcedure`) as
//! [`RegionTransition`]s. A disable closes every region (flushed) and commits the table
//! DISABLED; an enable opens every region first and commits the table ENABLED, so that a
//! table the catalog calls enabled always has regions that opened. Both hold the table's
//! region map for the whole run.

use super::{RegionTransition, Tx, restore_in_slot};
use crate::catalog::{Catalog, TableState};
use crate::db::TableHandle;
use crate::error::{Error, Result};
use crate::region_map::{RegionMap, RegionMapWriteGuard};
use regionkv_region::{Region, RegionInfo, TableDescriptor};
use std::sync::Arc;

/// One disable or enable, checked and ready to run.
pub(crate) struct SetTableState<'a> {
    handle: &'a TableHandle,
    slot: RegionMapWriteGuard<'a>,
    desc: Arc<TableDescriptor>,
    state: TableState,
    /// The table's regions as the catalog lists them.
    infos: Vec<RegionInfo>,
    /// An enable's regions, opened in Stage.
    opened: Vec<Arc<Region>>,
}

impl<'a> SetTableState<'a> {
    /// A change of `handle`'s table to `state`, under the catalog lock (`catalog`):
    /// TableNotEnabled / TableNotDisabled when it is already there.
    pub(crate) fn prepare(
        catalog: &Catalog,
        handle: &'a TableHandle,
        state: TableState,
    ) -> Result<Self> {
        let slot = handle.regions.write();
        match (state, slot.is_some()) {
            (TableState::Disabled, false) => {
                return Err(Error::TableNotEnabled(handle.name.clone()));
            }
            (TableState::Enabled, true) => {
                return Err(Error::TableNotDisabled(handle.name.clone()));
            }
            _ => {}
        }
        let entry = catalog
            .tables
            .get(&handle.name)
            .ok_or_else(|| Error::TableNotFound(handle.name.clone()))?;
        Ok(Self {
            handle,
            infos: entry.regions.iter().map(|r| r.info.clone()).collect(),
            slot,
            desc: handle.descriptor.load_full(),
            state,
            opened: Vec::new(),
        })
    }
}

impl RegionTransition for SetTableState<'_> {
    type Output = ();

    fn name(&self) -> &'static str {
        match self.state {
            TableState::Disabled => "disable",
            TableState::Enabled => "enable",
        }
    }

    fn close(&mut self, tx: &mut Tx<'_>) -> Result<()> {
        if self.state == TableState::Disabled
            && let Some(map) = self.slot.clone()
        {
            for r in map.regions() {
                tx.close(r, Region::close)?;
            }
        }
        Ok(())
    }

    fn stage(&mut self, tx: &mut Tx<'_>) -> Result<()> {
        if self.state == TableState::Enabled {
            for info in &self.infos {
                let region = tx.open_region(info, &self.desc)?;
                tx.staged_open(region.clone());
                self.opened.push(region);
            }
        }
        Ok(())
    }

    fn next_catalog(&self, current: &Catalog) -> Catalog {
        let mut next = current.clone();
        if let Some(entry) = next.tables.get_mut(&self.handle.name) {
            entry.state = self.state;
        }
        next
    }

    fn publish(&mut self, tx: &mut Tx<'_>) -> Result<()> {
        *self.slot = match self.state {
            TableState::Disabled => None,
            TableState::Enabled => Some(Arc::new(RegionMap::new(std::mem::take(&mut self.opened)))),
        };
        tx.db.refresh_table_info(&self.desc, self.state.into());
        Ok(())
    }

    fn reopen_descriptor(&self) -> Option<&TableDescriptor> {
        Some(&self.desc)
    }

    fn restore(&mut self, _tx: &Tx<'_>, reopened: Vec<Arc<Region>>) {
        restore_in_slot(&mut self.slot, reopened);
    }
}
