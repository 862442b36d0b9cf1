//! A merge of adjacent regions (HBase's `MergeTableRegionsProcedure`) as a
//! [`RegionTransition`]: the shape of a split with one child whose references cover
//! every file of every parent. Close the parents (closes for a split), write the merged
//! region's directory and manifest, commit the catalog with it in place of the parents,
//! open it and swap it into the region map.

use super::{RegionTransition, Tx, child_region_id, replaced_regions, swap_back, swap_regions};
use crate::catalog::Catalog;
use crate::coprocessor::Bypass;
use crate::db::{RegionServer, TableHandle};
use crate::error::{Error, MergeProblem, Result};
use regionkv_region::split::daughters::merged_manifest;
use regionkv_region::{Manifest, Region, RegionInfo, TableDescriptor};
use std::collections::BTreeSet;
use std::sync::Arc;

/// One merge, checked and ready to run.
pub(crate) struct MergeTableRegions {
    handle: Arc<TableHandle>,
    desc: Arc<TableDescriptor>,
    /// Sorted by start key.
    parents: Vec<Arc<Region>>,
    merged_id: u64,
    next_region_id: u64,
    merged: Option<Manifest>,
}

fn refused(problem: MergeProblem) -> Error {
    Error::MergeRefused(problem)
}

impl MergeTableRegions {
    /// Checks a merge of the regions named by `encoded` (two or more of one table,
    /// adjacent once sorted; `force` only changes the message, as regionkv cannot merge
    /// regions with others between them).
    pub(crate) fn prepare(
        db: &RegionServer,
        catalog: &Catalog,
        encoded: &[&str],
        force: bool,
    ) -> Result<Self> {
        if encoded.len() < 2 {
            return Err(refused(MergeProblem::TooFewRegions));
        }
        let mut unique = BTreeSet::new();
        if let Some(twice) = encoded.iter().find(|e| !unique.insert(**e)) {
            return Err(refused(MergeProblem::DuplicateRegion {
                region: twice.to_string(),
            }));
        }
        let mut found: Vec<(Arc<TableHandle>, Arc<Region>)> = Vec::new();
        {
            let tables = db.tables.read();
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
                    None => {
                        return Err(refused(MergeProblem::UnknownRegion {
                            region: e.to_string(),
                        }));
                    }
                }
            }
        }
        let handle = found[0].0.clone();
        if found.iter().any(|(t, _)| t.name != handle.name) {
            return Err(refused(MergeProblem::DifferentTables));
        }
        let desc = handle.descriptor.load_full();
        if !desc.merge_enabled {
            return Err(refused(MergeProblem::MergeDisabled {
                table: desc.name.clone(),
            }));
        }
        let mut parents: Vec<Arc<Region>> = found.into_iter().map(|(_, r)| r).collect();
        parents.sort_by(|a, b| a.info().start_key.cmp(&b.info().start_key));
        for w in parents.windows(2) {
            if w[0].info().end_key != w[1].info().start_key {
                return Err(refused(MergeProblem::NotAdjacent {
                    first: w[0].encoded_name().to_string(),
                    second: w[1].encoded_name().to_string(),
                    forcible: force,
                }));
            }
        }
        for p in &parents {
            if p.has_references() {
                return Err(refused(MergeProblem::HasReferences {
                    region: p.encoded_name().to_string(),
                }));
            }
        }
        let infos: Vec<&RegionInfo> = parents.iter().map(|p| p.info()).collect();
        let (merged_id, next_region_id) = child_region_id(db, catalog, &infos);
        Ok(Self {
            handle,
            desc,
            parents,
            merged_id,
            next_region_id,
            merged: None,
        })
    }

    fn merged(&self) -> Result<&Manifest> {
        self.merged
            .as_ref()
            .ok_or_else(|| Error::InvalidArgument("merge: no merged manifest after close".into()))
    }
}

impl RegionTransition for MergeTableRegions {
    type Output = RegionInfo;

    fn name(&self) -> &'static str {
        "merge"
    }

    fn close(&mut self, tx: &mut Tx<'_>) -> Result<()> {
        let mut closed = Vec::with_capacity(self.parents.len());
        for p in &self.parents {
            closed.push(tx.close(p, Region::close_for_split)?);
        }
        let sources: Vec<(&Manifest, u64)> = closed.iter().map(|(m, s)| (m, *s)).collect();
        self.merged = Some(merged_manifest(&sources, self.merged_id));
        Ok(())
    }

    fn stage(&mut self, tx: &mut Tx<'_>) -> Result<()> {
        let merged = self.merged()?.clone();
        tx.write_region(&merged)
    }

    fn next_catalog(&self, current: &Catalog) -> Catalog {
        let olds: Vec<RegionInfo> = self.parents.iter().map(|p| p.info().clone()).collect();
        // `stage` ran before the commit, so the manifest is there.
        let new: Vec<RegionInfo> = self.merged.iter().map(|m| m.region.clone()).collect();
        replaced_regions(current, &self.desc.name, &olds, &new, self.next_region_id)
    }

    fn publish(&mut self, tx: &mut Tx<'_>) -> Result<Self::Output> {
        let info = self.merged()?.region.clone();
        let region = tx.open_region(&info, &self.desc)?;
        let names: Vec<&str> = self.parents.iter().map(|p| p.encoded_name()).collect();
        swap_regions(&self.handle, &names, vec![region]);
        Ok(info)
    }

    fn reopen_descriptor(&self) -> Option<&TableDescriptor> {
        Some(&self.desc)
    }

    fn restore(&mut self, _tx: &Tx<'_>, reopened: Vec<Arc<Region>>) {
        swap_back(&self.handle, reopened);
    }
}

impl RegionServer {
    /// Merges the regions named by `encoded` (two or more, adjacent once sorted) of one
    /// table into one region.
    pub(crate) fn merge_regions(&self, encoded: &[&str], force: bool) -> Result<RegionInfo> {
        let mut catalog = self.catalog.lock();
        let mut merge = MergeTableRegions::prepare(self, &catalog, encoded, force)?;
        // The pre hook runs without the catalog lock (it may use the Db), so the merge is
        // checked again afterwards; if a region was reopened meanwhile (an alter), the
        // first region's new observers are asked in turn.
        let regions: Vec<RegionInfo> = merge.parents.iter().map(|p| p.info().clone()).collect();
        let mut host = self.observers_of(&merge.parents[0]);
        let mut attempts = 0;
        while let Some(h) = host.clone() {
            attempts += 1;
            let asked = merge.parents.clone();
            drop(catalog);
            h.exec(Bypass::Refused, |o, c| o.pre_merge(c, &regions))?;
            catalog = self.catalog.lock();
            merge = MergeTableRegions::prepare(self, &catalog, encoded, force)?;
            if merge
                .parents
                .iter()
                .zip(&asked)
                .all(|(a, b)| Arc::ptr_eq(a, b))
            {
                break;
            }
            if attempts == 3 {
                return Err(Error::InvalidArgument(format!(
                    "merge of {}: the regions kept reopening while pre_merge ran",
                    encoded.join(", ")
                )));
            }
            host = self.observers_of(&merge.parents[0]);
        }
        let span = tracing::info_span!("merge", regions = %encoded.join(", "));
        let _enter = span.enter();
        let merged = super::execute(self, &mut catalog, &mut merge)?;
        drop(catalog);
        tracing::info!(merged = %merged.encoded_name(), "merged");
        if let Some(host) = &host
            && let Err(e) = host.exec(Bypass::Refused, |o, c| o.post_merge(c, &regions, &merged))
        {
            tracing::warn!(error = %e, "post_merge hook failed; the merge stands");
        }
        Ok(merged)
    }
}
