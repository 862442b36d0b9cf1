//! `BufferedMutator`: HBase's client-side write buffer. Mutations collect in memory and
//! are written when the buffer passes its size (HBase's `hbase.client.write.buffer`,
//! 2 MiB), on `flush`, and on drop. Failures are kept and reported by the next `flush`
//! (HBase reports them as RetriesExhaustedWithDetailsException).
//!
//! ```
//! use regionkv::{Get, Put};
//! # let dir = tempfile::tempdir()?;
//! # let options = regionkv::DbOptions::default().background(false);
//! # let db = regionkv::Db::open(dir.path(), options)?;
//! # let cf = regionkv::ColumnFamilyDescriptor::new(b"cf")?;
//! # db.admin().create_table(&regionkv::TableDescriptor::new("t", vec![cf])?)?;
//! # let table = db.table("t")?;
//! let mutator = table.buffered_mutator();
//! mutator.mutate(Put::new("r").add_column("cf", "q", "v"))?;
//! mutator.flush()?;
//! assert!(table.exists(&Get::new("r"))?);
//! # Ok::<(), Box<dyn std::error::Error>>(())
//! ```

use crate::error::{Error, Result};
use crate::mutation::Mutation;
use crate::table::{Table, WriteRef};
use parking_lot::Mutex;

/// HBase's default `hbase.client.write.buffer`: 2 MiB.
///
/// ```
/// use regionkv::buffered::DEFAULT_WRITE_BUFFER;
/// # let dir = tempfile::tempdir()?;
/// # let options = regionkv::DbOptions::default().background(false);
/// # let db = regionkv::Db::open(dir.path(), options)?;
/// # let cf = regionkv::ColumnFamilyDescriptor::new(b"cf")?;
/// # db.admin().create_table(&regionkv::TableDescriptor::new("t", vec![cf])?)?;
/// # let table = db.table("t")?;
/// assert_eq!(DEFAULT_WRITE_BUFFER, 2 << 20);
/// assert_eq!(table.buffered_mutator().write_buffer_size(), DEFAULT_WRITE_BUFFER);
/// # Ok::<(), Box<dyn std::error::Error>>(())
/// ```
pub const DEFAULT_WRITE_BUFFER: usize = 2 * 1024 * 1024;

#[derive(Debug, Default)]
struct Buffer {
    pending: Vec<Mutation>,
    bytes: usize,
    failed: Vec<Error>,
}

/// A buffering writer for one table. `Send + Sync`: many threads may share one.
///
/// ```
/// use regionkv::{Delete, Get, Put};
/// # let dir = tempfile::tempdir()?;
/// # let options = regionkv::DbOptions::default().background(false);
/// # let db = regionkv::Db::open(dir.path(), options)?;
/// # let cf = regionkv::ColumnFamilyDescriptor::new(b"cf")?;
/// # db.admin().create_table(&regionkv::TableDescriptor::new("t", vec![cf])?)?;
/// # let table = db.table("t")?;
/// {
///     let mutator = table.buffered_mutator();
///     for i in 0..10 {
///         mutator.mutate(Put::new(format!("r{i}")).add_column("cf", "q", "v"))?;
///     }
///     mutator.mutate(Delete::new("r0"))?;
///     assert!(!table.exists(&Get::new("r1"))?); // nothing written yet
/// } // dropping the mutator writes what is left
/// assert!(table.exists(&Get::new("r1"))?);
/// assert!(!table.exists(&Get::new("r0"))?);
/// # Ok::<(), Box<dyn std::error::Error>>(())
/// ```
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
    ///
    /// ```
    /// use regionkv::{BufferedMutator, Get, Put};
    /// # let dir = tempfile::tempdir()?;
    /// # let options = regionkv::DbOptions::default().background(false);
    /// # let db = regionkv::Db::open(dir.path(), options)?;
    /// # let cf = regionkv::ColumnFamilyDescriptor::new(b"cf")?;
    /// # db.admin().create_table(&regionkv::TableDescriptor::new("t", vec![cf])?)?;
    /// # let table = db.table("t")?;
    /// let mutator = BufferedMutator::new(table.clone(), 100); // a 100-byte buffer
    /// mutator.mutate(Put::new("a").add_column("cf", "q", "v"))?;
    /// assert!(!table.exists(&Get::new("a"))?);
    /// mutator.mutate(Put::new("b").add_column("cf", "q", [0u8; 100]))?; // passes the limit
    /// assert!(table.exists(&Get::new("a"))? && table.exists(&Get::new("b"))?);
    /// assert_eq!(mutator.buffered_bytes(), 0);
    /// # Ok::<(), Box<dyn std::error::Error>>(())
    /// ```
    pub fn new(table: Table, limit: usize) -> Self {
        Self {
            table,
            limit: limit.max(1),
            buffer: Mutex::new(Buffer::default()),
        }
    }

    /// Buffers a put or delete; writes the buffer when it passes the limit. Returns the
    /// failures of earlier writes, if any (HBase throws them from the next `mutate`).
    ///
    /// ```
    /// use regionkv::{BufferedMutator, Error, Put};
    /// # let dir = tempfile::tempdir()?;
    /// # let options = regionkv::DbOptions::default().background(false);
    /// # let db = regionkv::Db::open(dir.path(), options)?;
    /// # let cf = regionkv::ColumnFamilyDescriptor::new(b"cf")?;
    /// # db.admin().create_table(&regionkv::TableDescriptor::new("t", vec![cf])?)?;
    /// # let table = db.table("t")?;
    /// let mutator = BufferedMutator::new(table.clone(), 1); // every mutation is written at once
    /// mutator.mutate(Put::new("ok").add_column("cf", "q", "v"))?;
    /// // A failure is reported by the call that wrote it (or by the next flush).
    /// let failed = mutator.mutate(Put::new("bad").add_column("nope", "q", "v"));
    /// assert!(matches!(failed, Err(Error::MutationsFailed { failed: 1, .. })));
    /// mutator.flush()?; // reported once
    /// # Ok::<(), Box<dyn std::error::Error>>(())
    /// ```
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
    ///
    /// ```
    /// use regionkv::{Get, Put};
    /// # let dir = tempfile::tempdir()?;
    /// # let options = regionkv::DbOptions::default().background(false);
    /// # let db = regionkv::Db::open(dir.path(), options)?;
    /// # let cf = regionkv::ColumnFamilyDescriptor::new(b"cf")?;
    /// # db.admin().create_table(&regionkv::TableDescriptor::new("t", vec![cf])?)?;
    /// # let table = db.table("t")?;
    /// let mutator = table.buffered_mutator();
    /// mutator.mutate(Put::new("r").add_column("cf", "q", "v"))?;
    /// mutator.flush()?;
    /// assert_eq!(table.get(&Get::new("r"))?.value(b"cf", b"q"), Some(&b"v"[..]));
    /// assert_eq!(mutator.buffered_bytes(), 0);
    /// # Ok::<(), Box<dyn std::error::Error>>(())
    /// ```
    pub fn flush(&self) -> Result<()> {
        let pending = {
            let mut b = self.buffer.lock();
            b.bytes = 0;
            std::mem::take(&mut b.pending)
        };
        let batch: Vec<WriteRef<'_>> = pending
            .iter()
            .map(|m| match m {
                Mutation::Put(p) => WriteRef::Put(p),
                Mutation::Delete(d) => WriteRef::Delete(d),
            })
            .collect();
        let failed: Vec<Error> = self
            .table
            .write_batch(&batch)
            .into_iter()
            .filter_map(std::result::Result::err)
            .collect();
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
    ///
    /// ```
    /// use regionkv::Put;
    /// # let dir = tempfile::tempdir()?;
    /// # let options = regionkv::DbOptions::default().background(false);
    /// # let db = regionkv::Db::open(dir.path(), options)?;
    /// # let cf = regionkv::ColumnFamilyDescriptor::new(b"cf")?;
    /// # db.admin().create_table(&regionkv::TableDescriptor::new("t", vec![cf])?)?;
    /// # let table = db.table("t")?;
    /// let mutator = table.buffered_mutator();
    /// assert_eq!(mutator.buffered_bytes(), 0);
    /// mutator.mutate(Put::new("r").add_column("cf", "q", "value"))?;
    /// assert!(mutator.buffered_bytes() > 0);
    /// mutator.flush()?;
    /// assert_eq!(mutator.buffered_bytes(), 0);
    /// # Ok::<(), Box<dyn std::error::Error>>(())
    /// ```
    pub fn buffered_bytes(&self) -> usize {
        self.buffer.lock().bytes
    }

    /// The buffer limit.
    ///
    /// ```
    /// use regionkv::BufferedMutator;
    /// # let dir = tempfile::tempdir()?;
    /// # let options = regionkv::DbOptions::default().background(false);
    /// # let db = regionkv::Db::open(dir.path(), options)?;
    /// # let cf = regionkv::ColumnFamilyDescriptor::new(b"cf")?;
    /// # db.admin().create_table(&regionkv::TableDescriptor::new("t", vec![cf])?)?;
    /// # let table = db.table("t")?;
    /// assert_eq!(BufferedMutator::new(table.clone(), 4096).write_buffer_size(), 4096);
    /// assert_eq!(BufferedMutator::new(table.clone(), 0).write_buffer_size(), 1); // at least 1
    /// # Ok::<(), Box<dyn std::error::Error>>(())
    /// ```
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
