//! `BufferedMutator`: HBase's client-side write buffer. Mutations collect in memory and
//! are written when the buffer passes its size (HBase's `hbase.client.write.buffer`,
//! 2 MiB), on `flush`, and on drop. Failures are kept and reported by the next `flush`
//! (HBase reports them as RetriesExhaustedWithDetailsException).

use crate::error::{Error, Result};
use crate::mutation::Mutation;
use crate::table::Table;
use parking_lot::Mutex;

/// HBase's default `hbase.client.write.buffer`: 2 MiB.
pub const DEFAULT_WRITE_BUFFER: usize = 2 * 1024 * 1024;

#[derive(Debug, Default)]
struct Buffer {
    pending: Vec<Mutation>,
    bytes: usize,
    failed: Vec<Error>,
}

/// A buffering writer for one table. `Send + Sync`: many threads may share one.
#[derive(Debug)]
pub struct BufferedMutator {
    table: Table,
    limit: usize,
    buffer: Mutex<Buffer>,
}

/// Rough heap size of a mutation, for the buffer limit (HBase's `heapSize`).
fn size_of(m: &Mutation) -> usize {
    match m {
        Mutation::Put(p) => {
            p.row.len()
                + p.cells
                    .iter()
                    .map(|(f, q, _, v)| f.len() + q.len() + v.len() + 32)
                    .sum::<usize>()
        }
        Mutation::Delete(d) => {
            d.row.len()
                + d.entries
                    .iter()
                    .map(|(f, q, _, _)| f.len() + q.as_ref().map_or(0, Vec::len) + 32)
                    .sum::<usize>()
        }
    }
}

impl BufferedMutator {
    /// A mutator writing to `table` once `limit` bytes are buffered.
    pub fn new(table: Table, limit: usize) -> Self {
        Self {
            table,
            limit: limit.max(1),
            buffer: Mutex::new(Buffer::default()),
        }
    }

    /// Buffers a put or delete; writes the buffer when it passes the limit. Returns the
    /// failures of earlier writes, if any (HBase throws them from the next `mutate`).
    pub fn mutate(&self, m: impl Into<Mutation>) -> Result<()> {
        let m = m.into();
        let full = {
            let mut b = self.buffer.lock();
            b.bytes += size_of(&m);
            b.pending.push(m);
            b.bytes >= self.limit
        };
        if full { self.flush() } else { Ok(()) }
    }

    /// Writes everything buffered; reports every failure since the last report.
    pub fn flush(&self) -> Result<()> {
        let pending = {
            let mut b = self.buffer.lock();
            b.bytes = 0;
            std::mem::take(&mut b.pending)
        };
        let mut failed = Vec::new();
        for m in &pending {
            let r = match m {
                Mutation::Put(p) => self.table.put(p),
                Mutation::Delete(d) => self.table.delete(d),
            };
            if let Err(e) = r {
                failed.push(e);
            }
        }
        let mut b = self.buffer.lock();
        b.failed.extend(failed);
        if b.failed.is_empty() {
            return Ok(());
        }
        let failed = std::mem::take(&mut b.failed);
        Err(Error::MutationsFailed {
            failed: failed.len(),
            first: failed[0].to_string(),
        })
    }

    /// Bytes buffered now.
    pub fn buffered_bytes(&self) -> usize {
        self.buffer.lock().bytes
    }

    /// The buffer limit.
    pub fn write_buffer_size(&self) -> usize {
        self.limit
    }
}

impl Drop for BufferedMutator {
    fn drop(&mut self) {
        if let Err(e) = self.flush() {
            tracing::error!(error = %e, "buffered mutations failed when the mutator closed");
        }
    }
}
