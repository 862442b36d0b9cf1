//! `Region::mutate_rows`: many row mutations in one pass (HBase's `HRegion.batchMutate`
//! and its mini-batches, `doMiniBatchMutate`). Each mutation is atomic on its row; what the
//! mutations of a mini-batch share is what HBase shares: one resource check, one clock read
//! (every "latest" timestamp of the mini-batch is the same `now`), one MVCC entry (so one
//! sequence id), one WAL record written with one write, and one wait for visibility. That
//! is what makes a client's batch or BufferedMutator cheaper than the same puts one by one.
//!
//! A mini-batch is the longest run of the remaining writes that
//! - holds at most [`MINI_BATCH_SIZE`] writes (`hbase.regionserver.minibatch.size`) and, past
//!   its first write, at most [`MINI_BATCH_BYTES`] of cells (regionkv: one WAL record holds
//!   the mini-batch, and a record may not pass the WAL format's 256 MiB);
//! - could take its row locks without waiting, except the first write, which waits as
//!   `mutate_row` does. A batch never waits while it holds locks, so two batches over the
//!   same rows cannot deadlock.
//!
//! A row may come more than once in a mini-batch, as in HBase (a non-atomic batch takes
//! shared row locks there, and a repeated row reuses its lock): its writes get the same
//! timestamp and sequence id, so of two cells with the same coordinates the later in the
//! batch replaces the earlier (HBase's `CellSet.add`), a Delete masks a Put of the same
//! timestamp whatever their order, and a one-version Delete without a timestamp targets
//! the newest version from before the mini-batch (`prepareDeleteTimestamps` runs before any
//! of its cells reach the memstore).
//!
//! Visibility: the rows of a mini-batch become visible together (one MVCC entry).
//! Durability: the WAL record holds the cells of the writes whose durability logs them,
//! written at the strongest sync mode any write of the whole call asks for (HBase's
//! `BatchOperation.durability`); SKIP_WAL writes only reach the memstore.
//!
//! Failures: a write that fails its own checks (a row outside the region, a cell of
//! another row or of an unknown family, a row lock wait that timed out) gets its error and
//! the others go on. When the region refuses (poisoned, read-only, too busy), every write
//! not settled yet gets that refusal. When a mini-batch's WAL write fails, every write of
//! the mini-batch gets the failure (its first the WAL's own error, the others
//! [`Error::BatchWalFailed`]): their outcome is unknown, as for any failed WAL write, and
//! the region is poisoned, so the writes after them are refused. Only a region closed
//! under the call (a split, a merge, the Db closing) leaves writes without an outcome: the
//! caller finds their new region and applies them there. A write's cells are taken only
//! once it is settled or being written, so an unsettled write still holds its cells.

use super::Region;
use crate::durability::Durability;
use crate::error::{Error, Result};
use crate::row_lock::RowLockGuard;
use regionkv_cell::Cell;
use regionkv_cell::bytes::to_string_binary;
use regionkv_wal::SyncMode;
use rustc_hash::FxHashSet;
use std::sync::Arc;
use std::sync::atomic::Ordering;

/// Most writes in one mini-batch (HBase's `hbase.regionserver.minibatch.size` default).
pub const MINI_BATCH_SIZE: usize = 20_000;

/// Most cell bytes in one mini-batch beyond its first write: its WAL record stays well
/// inside the format's largest record (256 MiB), whatever a caller batches.
pub const MINI_BATCH_BYTES: usize = 64 << 20;

/// One row mutation of a [`Region::mutate_rows`] batch.
#[derive(Debug)]
pub struct RowWrite<'a> {
    /// The row every cell must be of.
    pub row: &'a [u8],
    /// The cells to apply; taken by the write (empty afterwards, whatever the outcome).
    pub cells: Vec<Cell>,
    /// The durability the mutation asks for (the table's default resolves `UseDefault`).
    pub durability: Durability,
    /// `Some(Ok(sequence id))` once applied, `Some(Err)` when refused, `None` when not
    /// attempted (see the module docs).
    pub outcome: Option<Result<u64>>,
}

impl<'a> RowWrite<'a> {
    /// A write of `cells` to `row`, not attempted yet.
    pub fn new(row: &'a [u8], cells: Vec<Cell>, durability: Durability) -> Self {
        Self {
            row,
            cells,
            durability,
            outcome: None,
        }
    }
}

/// Order of sync modes by strength, for a mini-batch's WAL write.
fn strength(mode: SyncMode) -> u8 {
    match mode {
        SyncMode::Async => 0,
        SyncMode::Sync => 1,
        SyncMode::Fsync => 2,
    }
}

impl Region {
    /// Applies `writes`, each atomically on its own, sharing per mini-batch what the module
    /// docs list. Writes of several rows of this region; each write's `outcome` says what
    /// became of it.
    pub fn mutate_rows(self: &Arc<Self>, writes: &mut [RowWrite<'_>]) {
        // HBase's batch durability: the strongest any write of the call asks for.
        let mode = writes
            .iter()
            .filter_map(|w| self.table.effective_durability(w.durability).sync_mode())
            .max_by_key(|m| strength(*m));
        let mut next = 0;
        while next < writes.len() {
            match self.mini_batch(&mut writes[next..], mode) {
                Ok(settled) => next += settled,
                Err(refusal) => {
                    self.refuse_rest(&mut writes[next..], refusal);
                    return;
                }
            }
        }
    }

    /// Gives every write still without an outcome the region's `refusal`, except when the
    /// region closed (the caller finds the writes' new region).
    fn refuse_rest(&self, writes: &mut [RowWrite<'_>], refusal: Error) {
        let copy = |e: &Error| match e {
            Error::Poisoned { region, cause } => Some(Error::Poisoned {
                region: region.clone(),
                cause: cause.clone(),
            }),
            Error::ReadOnly { region, what } => Some(Error::ReadOnly {
                region: region.clone(),
                what,
            }),
            Error::RegionTooBusy {
                region,
                size,
                limit,
            } => Some(Error::RegionTooBusy {
                region: region.clone(),
                size: *size,
                limit: *limit,
            }),
            _ => None,
        };
        if matches!(refusal, Error::Closed(_)) {
            return;
        }
        let mut refusal = Some(refusal);
        for w in writes.iter_mut().filter(|w| w.outcome.is_none()) {
            let e = match refusal.as_ref().and_then(copy) {
                Some(e) => e,
                // The first unsettled write reports an error that has no copy; the others
                // are left to the caller, which applies them alone.
                None => match refusal.take() {
                    Some(e) => e,
                    None => return,
                },
            };
            w.outcome = Some(Err(e));
        }
    }

    /// Applies the first mini-batch of `writes` with the WAL written at `mode` (none: every
    /// write skips the WAL). Returns how many writes from the front it settled (at least
    /// one), or the region's refusal, given before anything of the mini-batch was applied
    /// or taken.
    fn mini_batch(
        self: &Arc<Self>,
        writes: &mut [RowWrite<'_>],
        mode: Option<SyncMode>,
    ) -> Result<usize> {
        self.check_open()?;
        self.check_writable("write")?;
        self.check_resources()?;
        // A commit slot before any row lock, as `mutate_row` takes one (`commit_slots`).
        let slot = (mode != Some(SyncMode::Fsync)).then(|| self.commit_slots.acquire());
        let mut guards: Vec<RowLockGuard<'_>> = Vec::new();
        // Rows this mini-batch holds the lock of: a repeated row reuses its lock.
        let mut held: FxHashSet<&[u8]> = FxHashSet::default();
        let mut taken: Vec<usize> = Vec::new();
        let mut bytes = 0usize;
        let mut counted = 0u64;
        let mut end = 0;
        for (i, w) in writes.iter_mut().enumerate() {
            if taken.len() >= MINI_BATCH_SIZE {
                break;
            }
            let row = w.row;
            if w.outcome.is_some() {
                end = i + 1;
                continue;
            }
            if let Err(e) = self.check_row_of_region(row) {
                w.outcome = Some(Err(e));
                end = i + 1;
                continue;
            }
            if w.cells.is_empty() {
                w.outcome = Some(Ok(self.mvcc.read_point()));
                end = i + 1;
                continue;
            }
            let size: usize = w.cells.iter().map(Cell::encoded_len).sum();
            if !taken.is_empty() && bytes + size > MINI_BATCH_BYTES {
                break;
            }
            // HBase counts a batch's mutations before checking them (`batchMutate` adds
            // the batch's size to `writeRequestsCount`), as `mutate_row` does.
            counted += 1;
            if let Err(e) = self.check_cells_of_row(row, &w.cells) {
                w.outcome = Some(Err(e));
                end = i + 1;
                continue;
            }
            if !held.contains(row) {
                let guard = if guards.is_empty() {
                    match self.row_locks.lock(row, self.services.config.row_lock_wait) {
                        Some(g) => g,
                        None => {
                            w.outcome = Some(Err(Error::RowLockTimeout(to_string_binary(row))));
                            end = i + 1;
                            continue;
                        }
                    }
                } else {
                    // A row held elsewhere ends the mini-batch: it never waits holding locks.
                    match self.row_locks.try_lock(row) {
                        Some(g) => g,
                        None => {
                            counted -= 1;
                            break;
                        }
                    }
                };
                guards.push(guard);
                held.insert(row);
            }
            bytes += size;
            taken.push(i);
            end = i + 1;
        }
        self.metrics
            .write_requests
            .fetch_add(counted, Ordering::Relaxed);
        if taken.is_empty() {
            return Ok(end);
        }
        let updates = self.updates.read();
        // Closed or poisoned meanwhile: nothing of the mini-batch was changed or taken yet.
        self.check_open()?;
        // HBase reads the batch time once, after taking the row locks.
        let now = self.services.clock.now_millis();
        // Against the rows as they were before the mini-batch: none of its cells is in the
        // memstore yet.
        taken.retain(|&i| {
            let w = &mut writes[i];
            match self.prepare_delete_timestamps(w.row, &mut w.cells, now) {
                Ok(()) => true,
                Err(e) => {
                    w.outcome = Some(Err(e));
                    false
                }
            }
        });
        if taken.is_empty() {
            return Ok(end);
        }
        // The cells in batch order (the memstore keeps the later of two equal cells), each
        // write's span noted with whether its durability logs it.
        let mut cells: Vec<Cell> =
            Vec::with_capacity(taken.iter().map(|&i| writes[i].cells.len()).sum());
        let mut spans: Vec<(std::ops::Range<usize>, bool)> = Vec::with_capacity(taken.len());
        for &i in &taken {
            let w = &mut writes[i];
            let logs = self
                .table
                .effective_durability(w.durability)
                .sync_mode()
                .is_some();
            let from = cells.len();
            cells.append(&mut w.cells);
            spans.push((from..cells.len(), logs));
        }
        let entry = self.mvcc.begin();
        let seq = entry.write_number();
        super::stamp(&mut cells, now, seq);
        if let Some(mode) = mode
            && spans.iter().any(|(_, logs)| *logs)
        {
            // The record holds the logged writes' cells; SKIP_WAL writes (rarely mixed with
            // logged ones in one batch) are left out of a copy.
            let appended = if spans.iter().all(|(_, logs)| *logs) {
                self.append_to_wal(seq, now, &cells, mode)
            } else {
                let logged: Vec<Cell> = spans
                    .iter()
                    .filter(|(_, logs)| *logs)
                    .flat_map(|(span, _)| cells[span.clone()].iter().cloned())
                    .collect();
                self.append_to_wal(seq, now, &logged, mode)
            };
            if let Err(e) = appended {
                // Nothing of the mini-batch reached the memstore: complete the entry empty.
                self.mvcc.complete(entry);
                // Every write of the record shares the failure (module docs).
                let cause = e.to_string();
                let mut first = Some(e);
                for &i in &taken {
                    let e = first.take().unwrap_or_else(|| Error::BatchWalFailed {
                        region: self.encoded.clone(),
                        cause: cause.clone(),
                    });
                    writes[i].outcome = Some(Err(e));
                }
                return Ok(end);
            }
        }
        self.add_to_memstore(&cells, now);
        self.mvcc.complete_and_wait(entry);
        drop(updates);
        drop(guards);
        drop(slot);
        for &i in &taken {
            writes[i].outcome = Some(Ok(seq));
        }
        self.after_write();
        Ok(end)
    }
}
