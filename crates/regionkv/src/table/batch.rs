//! The batched write path of a table: many puts and deletes in one call (HBase's
//! `Table.batch`, `Table.put(List)` and the BufferedMutator's flush). Each mutation stays
//! atomic on its own row and nothing is atomic across rows, as with one call per
//! mutation; what changes is the cost. The mutations are grouped by region and each group
//! goes through [`Region::mutate_rows`], which shares a clock read, an MVCC entry, a WAL
//! record and a WAL write among the rows of each mini-batch (see its module docs).
//!
//! Anything the batch does not settle — a region that split or closed under it — is
//! applied again alone through the one-mutation path, which follows moved rows to their
//! new region. A region that refuses (poisoned, read-only, too busy) refuses each of its
//! remaining mutations with that error, without a wait per mutation.

use super::{Table, delete_cells, put_cells, region_moved};
use crate::error::Result;
use crate::mutation::{Delete, Put};
use regionkv_cell::Cell;
use regionkv_region::{Durability, Region, RowWrite};
use std::sync::Arc;

/// One mutation of a batch, borrowed.
#[derive(Debug, Clone, Copy)]
pub(crate) enum WriteRef<'a> {
    /// A put.
    Put(&'a Put),
    /// A delete.
    Delete(&'a Delete),
}

impl WriteRef<'_> {
    fn row(&self) -> &[u8] {
        match self {
            WriteRef::Put(p) => &p.row,
            WriteRef::Delete(d) => &d.row,
        }
    }

    fn durability(&self) -> Durability {
        match self {
            WriteRef::Put(p) => p.durability,
            WriteRef::Delete(d) => d.durability,
        }
    }

    /// The mutation on its own (the one-mutation path).
    fn apply_alone(&self, table: &Table) -> Result<()> {
        match self {
            WriteRef::Put(p) => table.put(p),
            WriteRef::Delete(d) => table.delete(d),
        }
    }
}

/// The writes of one region, with the batch positions they came from.
struct Group<'a> {
    region: &'a Arc<Region>,
    positions: Vec<usize>,
    writes: Vec<RowWrite<'a>>,
}

impl Table {
    /// Applies `mutations`, each atomically on its own; one result per mutation, in order.
    pub(crate) fn write_batch(&self, mutations: &[WriteRef<'_>]) -> Vec<Result<()>> {
        if self.has_observers() {
            // Each mutation through the one-mutation path, which runs its observers' hooks.
            return mutations.iter().map(|m| m.apply_alone(self)).collect();
        }
        let cells = self.batch_cells(mutations);
        self.apply_batch(mutations, cells)
    }

    /// [`Table::write_batch`] after the client's checks of every mutation (HBase's
    /// `HTable.put(List)` validates every put before sending any): the first mutation that
    /// fails them fails the call, and nothing is written.
    pub(crate) fn write_batch_checked(
        &self,
        mutations: &[WriteRef<'_>],
    ) -> Result<Vec<Result<()>>> {
        let mut cells = self.batch_cells(mutations);
        if let Some(at) = cells.iter().position(|c| matches!(c, Some(Err(_))))
            && let Some(Some(Err(e))) = cells.get_mut(at).map(Option::take)
        {
            return Err(e);
        }
        if self.has_observers() {
            return Ok(mutations.iter().map(|m| m.apply_alone(self)).collect());
        }
        Ok(self.apply_batch(mutations, cells))
    }

    /// Each mutation's cells (the client's checks); `None` for all when the table refuses
    /// writes (the one-mutation path then reports its own error for each).
    fn batch_cells(&self, mutations: &[WriteRef<'_>]) -> Vec<Option<Result<Vec<Cell>>>> {
        match self.check_writable() {
            Ok(desc) => mutations
                .iter()
                .map(|m| {
                    Some(match m {
                        WriteRef::Put(p) => put_cells(p),
                        WriteRef::Delete(d) => delete_cells(d, &desc),
                    })
                })
                .collect(),
            Err(_) => mutations.iter().map(|_| None).collect(),
        }
    }

    fn apply_batch(
        &self,
        mutations: &[WriteRef<'_>],
        cells: Vec<Option<Result<Vec<Cell>>>>,
    ) -> Vec<Result<()>> {
        let mut results: Vec<Option<Result<()>>> = (0..mutations.len()).map(|_| None).collect();
        if self.db.inner.check_open().is_ok() {
            let map = self.handle.regions.load();
            if let Some(map) = map.as_ref() {
                let mut groups: Vec<Group<'_>> = Vec::new();
                for ((i, m), cells) in mutations.iter().enumerate().zip(cells) {
                    let cells = match cells {
                        Some(Ok(cells)) => cells,
                        Some(Err(e)) => {
                            results[i] = Some(Err(e));
                            continue;
                        }
                        None => continue,
                    };
                    let Some(region) = map.locate(m.row()) else {
                        continue;
                    };
                    let at = match groups.iter().position(|g| Arc::ptr_eq(g.region, region)) {
                        Some(at) => at,
                        None => {
                            groups.push(Group {
                                region,
                                positions: Vec::new(),
                                writes: Vec::new(),
                            });
                            groups.len() - 1
                        }
                    };
                    let g = &mut groups[at];
                    g.positions.push(i);
                    g.writes.push(RowWrite::new(m.row(), cells, m.durability()));
                }
                for mut g in groups {
                    g.region.mutate_rows(&mut g.writes);
                    for (w, i) in g.writes.into_iter().zip(g.positions) {
                        results[i] = match w.outcome {
                            Some(Ok(_)) => Some(Ok(())),
                            Some(Err(e)) => {
                                let e = crate::Error::from(e);
                                // A region that moved: the one-mutation path follows it.
                                (!region_moved(&e)).then_some(Err(e))
                            }
                            None => None,
                        };
                    }
                }
            }
        }
        results
            .into_iter()
            .zip(mutations)
            .map(|(r, m)| r.unwrap_or_else(|| m.apply_alone(self)))
            .collect()
    }
}
