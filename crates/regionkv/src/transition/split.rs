//! A region split (HBase's `SplitTableRegionProcedure`) as a [`RegionTransition`]:
//! close the parent (a close for a split: a running compaction finishes first, none
//! starts after, every acknowledged edit is flushed), write the two daughters'
//! directories and manifests (references to the bottom and top half of every parent file:
//! no data is copied), commit the catalog with the daughters in place of the parent,
//! open the daughters and swap them into the region map. The daughters compact their
//! references away in the background; the janitor removes the parent's directory once no
//! daughter refers to it.

use super::{RegionTransition, Tx, child_region_id, replaced_regions, swap_back, swap_regions};
use crate::catalog::Catalog;
use crate::coprocessor::Bypass;
use crate::db::{RegionServer, TableHandle};
use crate::error::{Error, Result, SplitProblem};
use regionkv_cell::bytes::to_string_binary;
use regionkv_region::{Manifest, Region, RegionInfo, TableDescriptor};
use std::sync::Arc;

/// One split, checked and ready to run.
pub(crate) struct SplitTableRegion {
    handle: Arc<TableHandle>,
    desc: Arc<TableDescriptor>,
    parent: Arc<Region>,
    row: Vec<u8>,
    daughter_id: u64,
    next_region_id: u64,
    daughters: Vec<Manifest>,
}

fn refused(problem: SplitProblem) -> Error {
    Error::SplitRefused(problem)
}

impl SplitTableRegion {
    /// Checks a split of region `encoded` of `table` at `split_row`, or at the policy's
    /// split point when `None`. `Ok(None)`: nothing to do (an automatic request the
    /// region no longer needs, or cannot take now). `user` marks an `Admin` request,
    /// which fails loudly where an automatic request is dropped.
    pub(crate) fn prepare(
        db: &RegionServer,
        catalog: &Catalog,
        table: &str,
        encoded: &str,
        split_row: Option<&[u8]>,
        user: bool,
    ) -> Result<Option<Self>> {
        let handle = db.table(table)?;
        let map = handle.region_map()?;
        let Some(parent) = map
            .regions()
            .iter()
            .find(|r| r.encoded_name() == encoded)
            .cloned()
        else {
            if user {
                return Err(refused(SplitProblem::UnknownRegion {
                    region: encoded.to_string(),
                    table: table.to_string(),
                }));
            }
            return Ok(None);
        };
        let desc = handle.descriptor.load_full();
        if !desc.split_enabled {
            return Err(refused(SplitProblem::SplitDisabled {
                table: desc.name.clone(),
            }));
        }
        if !user && !parent.should_split(map.len() as u32) {
            return Ok(None);
        }
        if parent.has_references() {
            if !user {
                return Ok(None);
            }
            return Err(refused(SplitProblem::HasReferences {
                region: encoded.to_string(),
            }));
        }
        let row = match split_row {
            Some(r) => {
                let info = parent.info();
                if r.is_empty() {
                    return Err(refused(SplitProblem::EmptySplitRow));
                }
                if r == info.start_key.as_slice() {
                    return Err(refused(SplitProblem::SplitRowIsStartKey {
                        row: to_string_binary(r),
                    }));
                }
                if !info.contains_row(r) {
                    return Err(refused(SplitProblem::SplitRowOutsideRegion {
                        row: to_string_binary(r),
                        region: info.encoded_name(),
                        name: info.region_name(),
                        start: to_string_binary(&info.start_key),
                        end: to_string_binary(&info.end_key),
                    }));
                }
                r.to_vec()
            }
            None => {
                let no_split_point = || {
                    refused(SplitProblem::NoSplitPoint {
                        region: encoded.to_string(),
                    })
                };
                match parent.split_point()? {
                    Some(r) => r,
                    // HBase's region server flushes a region whose data is all in the
                    // memstore and asks again.
                    None if user && parent.memstore_data_size() > 0 => {
                        parent.flush_all()?;
                        parent.split_point()?.ok_or_else(no_split_point)?
                    }
                    None if user => return Err(no_split_point()),
                    None => return Ok(None),
                }
            }
        };
        let (daughter_id, next_region_id) = child_region_id(db, catalog, &[parent.info()]);
        Ok(Some(Self {
            handle,
            desc,
            parent,
            row,
            daughter_id,
            next_region_id,
            daughters: Vec::new(),
        }))
    }

    /// The split row.
    pub(crate) fn row(&self) -> &[u8] {
        &self.row
    }
}

impl RegionTransition for SplitTableRegion {
    type Output = [RegionInfo; 2];

    fn name(&self) -> &'static str {
        "split"
    }

    fn close(&mut self, tx: &mut Tx<'_>) -> Result<()> {
        let (closing, seq) = tx.close(&self.parent, Region::close_for_split)?;
        self.daughters = self
            .parent
            .daughter_manifests(&closing, seq, &self.row, self.daughter_id)?
            .into();
        Ok(())
    }

    fn stage(&mut self, tx: &mut Tx<'_>) -> Result<()> {
        for d in &self.daughters {
            tx.write_region(d)?;
        }
        Ok(())
    }

    fn next_catalog(&self, current: &Catalog) -> Catalog {
        let infos: Vec<RegionInfo> = self.daughters.iter().map(|m| m.region.clone()).collect();
        replaced_regions(
            current,
            &self.desc.name,
            std::slice::from_ref(self.parent.info()),
            &infos,
            self.next_region_id,
        )
    }

    fn publish(&mut self, tx: &mut Tx<'_>) -> Result<Self::Output> {
        let mut opened = Vec::with_capacity(2);
        for d in &self.daughters {
            opened.push(tx.open_region(&d.region, &self.desc)?);
        }
        swap_regions(&self.handle, &[self.parent.encoded_name()], opened);
        Ok([
            self.daughters[0].region.clone(),
            self.daughters[1].region.clone(),
        ])
    }

    fn reopen_descriptor(&self) -> Option<&TableDescriptor> {
        Some(&self.desc)
    }

    fn restore(&mut self, _tx: &Tx<'_>, reopened: Vec<Arc<Region>>) {
        swap_back(&self.handle, reopened);
    }
}

impl RegionServer {
    /// Splits region `encoded` of `table` at `split_row`, or at the policy's split point
    /// when `None` (`Ok(None)`: nothing to do; see [`SplitTableRegion::prepare`]).
    pub(crate) fn split_region(
        &self,
        table: &str,
        encoded: &str,
        split_row: Option<&[u8]>,
        user: bool,
    ) -> Result<Option<[RegionInfo; 2]>> {
        let mut catalog = self.catalog.lock();
        let Some(mut split) =
            SplitTableRegion::prepare(self, &catalog, table, encoded, split_row, user)?
        else {
            return Ok(None);
        };
        // The pre hook runs without the catalog lock (it may use the Db), so the split is
        // checked again at the row it saw; if the region was reopened meanwhile (an alter),
        // its new observers are asked in turn.
        let mut host = self.observers_of(&split.parent);
        let mut attempts = 0;
        while let Some(h) = host.clone() {
            attempts += 1;
            let (row, asked) = (split.row.clone(), split.parent.clone());
            drop(catalog);
            h.exec(Bypass::Refused, |o, c| o.pre_split(c, &row))?;
            catalog = self.catalog.lock();
            match SplitTableRegion::prepare(self, &catalog, table, encoded, Some(&row), user)? {
                Some(again) => split = again,
                None => return Ok(None),
            }
            if Arc::ptr_eq(&split.parent, &asked) {
                break;
            }
            if attempts == 3 {
                return Err(Error::InvalidArgument(format!(
                    "split of {encoded}: the region kept reopening while pre_split ran"
                )));
            }
            host = self.observers_of(&split.parent);
        }
        let span = tracing::info_span!("split", region = %encoded, split_row = %to_string_binary(split.row()));
        let _enter = span.enter();
        let daughters = super::execute(self, &mut catalog, &mut split)?;
        drop(catalog);
        tracing::info!(
            parent = %encoded,
            daughters = %format!("{}, {}", daughters[0].encoded_name(), daughters[1].encoded_name()),
            "split"
        );
        if let Some(host) = &host
            && let Err(e) = host.exec(Bypass::Refused, |o, c| o.post_split(c, &daughters))
        {
            tracing::warn!(error = %e, "post_split hook failed; the split stands");
        }
        Ok(Some(daughters))
    }
}
