//! `Region::mutate_rows`: many row mutations in one pass (HBase's `HRegion.batchMutate`
//! and its mini-batches). Each row stays atomic and isolated exactly as with
//! [`Region::mutate_row`]; what the rows of a mini-batch share is what need not be paid per
//! row: one resource check, one clock read, one MVCC entry (so one sequence id), one WAL
//! record written with one write, and one wait for visibility. That is how HBase's
//! `doMiniBatchMutate` works, and what makes a client's batch or BufferedMutator cheaper
//! than the same puts one by one.
//!
//! A mini-batch is the longest run of the remaining writes that
//! - holds at most [`MINI_BATCH_SIZE`] writes (`hbase.regionserver.minibatch.size`) and, past
//!   its first write, at most [`MINI_BATCH_BYTES`] of cells (regionkv: one WAL record holds
//!   the mini-batch, and a record may not pass the WAL format's 256 MiB);
//! - repeats no row: a row's second write goes to the next mini-batch, with a later
//!   sequence id, so it lands after the first exactly as if written alone;
//! - could take its row locks without waiting, except the first write, which waits as
//!   `mutate_row` does. A batch never waits while it holds locks, so two batches over the
//!   same rows cannot deadlock.
//!
//! Visibility: the rows of a mini-batch become visible together (one MVCC entry), as in
//! HBase. Durability: the WAL record holds the cells of the writes whose durability logs
//! them, written at the strongest of their sync modes (HBase's batch rule); SKIP_WAL
//! writes only reach the memstore.
//!
//! Failures: a write that fails its own checks (a row outside the region, a cell of
//! another row or of an unknown family, a row lock wait that timed out) gets its error and
//! the others go on. A failure of the region itself (closed, poisoned, read-only, too busy,
//! a WAL write) ends the call: writes not attempted keep `outcome: None`, and the caller
//! applies those one by one through `mutate_row`, which reports or retries each as it
//! would alone.

use super::Region;
use crate::durability::Durability;
use crate::error::{Error, Result};
use crate::row_lock::RowLockGuard;
use regionkv_cell::Cell;
use regionkv_cell::bytes::to_string_binary;
use regionkv_wal::SyncMode;
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
        let mut next = 0;
        while next < writes.len() {
            match self.mini_batch(&mut writes[next..]) {
                Some(settled) => next += settled,
                None => return,
            }
        }
    }

    /// Applies the first mini-batch of `writes`. Returns how many writes from the front it
    /// settled (at least one), or `None` when the region failed: writes still without an
    /// outcome were not attempted.
    fn mini_batch(self: &Arc<Self>, writes: &mut [RowWrite<'_>]) -> Option<usize> {
        self.check_open().ok()?;
        self.check_writable("write").ok()?;
        self.check_resources().ok()?;
        let mut guards: Vec<RowLockGuard<'_>> = Vec::new();
        let mut taken: Vec<usize> = Vec::new();
        let mut bytes = 0usize;
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
            if let Err(e) = self
                .check_row_of_region(row)
                .and_then(|()| self.check_cells_of_row(row, &w.cells))
            {
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
                // Fails for a row held elsewhere, and for a row this mini-batch already
                // holds: a repeated row starts the next mini-batch.
                match self.row_locks.try_lock(row) {
                    Some(g) => g,
                    None => break,
                }
            };
            guards.push(guard);
            bytes += size;
            taken.push(i);
            end = i + 1;
        }
        if taken.is_empty() {
            return Some(end);
        }
        // HBase reads the batch time once, after taking the row locks.
        let now = self.services.clock.now_millis();
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
            return Some(end);
        }
        self.metrics
            .write_requests
            .fetch_add(taken.len() as u64, Ordering::Relaxed);
        // The WAL record holds the logged writes' cells, first in `cells`; the SKIP_WAL
        // writes' cells follow.
        let mut mode: Option<SyncMode> = None;
        let mut cells: Vec<Cell> =
            Vec::with_capacity(taken.iter().map(|&i| writes[i].cells.len()).sum());
        let mut skipped = Vec::new();
        for &i in &taken {
            let w = &mut writes[i];
            match self.table.effective_durability(w.durability).sync_mode() {
                Some(m) => {
                    mode = Some(mode.map_or(
                        m,
                        |old| {
                            if strength(m) > strength(old) { m } else { old }
                        },
                    ));
                    cells.append(&mut w.cells);
                }
                None => skipped.push(i),
            }
        }
        let logged = cells.len();
        for i in skipped {
            cells.append(&mut writes[i].cells);
        }
        let updates = self.updates.read();
        self.check_open().ok()?;
        let entry = self.mvcc.begin();
        let seq = entry.write_number();
        super::stamp(&mut cells, now, seq);
        if let Some(mode) = mode
            && let Err(e) = self.append_to_wal(seq, now, &cells[..logged], mode)
        {
            // Nothing of the mini-batch reached the memstore: complete the entry as empty.
            self.mvcc.complete(entry);
            // The first write reports the WAL's error; the region is poisoned, so the
            // others, applied alone by the caller, report that.
            writes[taken[0]].outcome = Some(Err(e));
            return None;
        }
        self.add_to_memstore(&cells, now);
        self.mvcc.complete_and_wait(entry);
        drop(updates);
        drop(guards);
        for &i in &taken {
            writes[i].outcome = Some(Ok(seq));
        }
        self.after_write();
        Some(end)
    }
}
