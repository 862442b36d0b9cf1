//! The single I/O seam of regionkv: every byte the engine reads or writes, and every directory
//! entry it creates, renames or removes, goes through the [`Fs`] trait defined here.
//!
//! Three implementations sit behind it:
//!
//! - [`RealFs`]: `std::fs`, with memory-mapped ([`ReadMode::Mmap`]) or `pread`
//!   ([`ReadMode::Pread`]) reads, a bounded descriptor cache in pread mode
//!   ([`RealFs::with_max_open_files`]) and `flock`-style lock files.
//! - [`MemFs`]: an in-memory file system that tracks what is *durable* separately from what is
//!   *visible*, and can [`crash`](MemFs::crash) to leave only what a power loss would keep
//!   (the design of LevelDB's `FaultInjectionTestEnv` and RocksDB's `FaultInjectionTestFS`).
//! - [`FaultFs`]: a wrapper over any `Fs` that counts operations and fails the N-th one with a
//!   chosen [`FaultKind`], once or for ever after.
//!
//! # Durability contract
//!
//! The engine may rely on exactly these promises, which every implementation keeps:
//!
//! - Bytes passed to [`WritableFile::append`] are durable once a later
//!   [`sync_data`](WritableFile::sync_data) or [`sync_all`](WritableFile::sync_all) on the same
//!   file returns `Ok`. Until then any prefix of them may survive a power loss, and the last page
//!   of that prefix may be torn.
//! - A length set by [`WritableFile::reserve`] or [`WritableFile::trim`] is durable once a later
//!   sync returns `Ok`. In a file with a durable reserved tail, appended bytes a power loss does
//!   not keep read back as zeros (the reserved space), never as other data.
//! - A file's *name* (its creation, a rename to it, its removal) is durable once
//!   [`Fs::sync_dir`] on its parent directory returns `Ok`. Syncing a file's data does not make
//!   its name durable, and syncing the directory does not make the data durable.
//! - [`Fs::rename`] atomically replaces the destination: after a crash either the old or the new
//!   file is found under the destination name, never a mix and never nothing (if the destination
//!   existed durably before).
//!
//! ```
//! use std::path::Path;
//! use regionkv_fs::{CrashMode, Fs, MemFs};
//!
//! # fn main() -> regionkv_fs::Result<()> {
//! let fs = MemFs::new();
//! fs.create_dir_all(Path::new("/db"))?;
//! let mut wal = fs.create_new(Path::new("/db/wal"))?;
//! wal.append(b"acked")?;
//! wal.sync_data()?;
//! fs.sync_dir(Path::new("/db"))?;
//! wal.append(b" not yet")?;
//! fs.crash(CrashMode::DropUnsynced);
//! assert_eq!(fs.contents(Path::new("/db/wal"))?, b"acked");
//! # Ok(())
//! # }
//! ```
//!
//! # Threading
//!
//! An [`Fs`] is shared (`Send + Sync`) and is normally held as `Arc<dyn Fs>`. A
//! [`WritableFile`] has one owner at a time (`&mut self`); a [`ReadableFile`] is shared through an
//! `Arc` and can be read from many threads at once.

mod descriptors;
mod error;
mod fault;
mod map_budget;
mod mem;
mod open;
mod real;
mod rng;

use std::fmt::Debug;
use std::path::Path;
use std::sync::Arc;

pub use descriptors::DescriptorStats;
pub use error::{Error, FileKind, Result};
pub use fault::{FaultFs, FaultKind, FaultOp, Persistence};
pub use mem::{CrashMode, MemFs};
pub use real::{DEFAULT_MAP_BUDGET, ReadMode, RealFs};

/// A file system: the operations the engine performs on files and directories.
///
/// Paths are used as given; implementations do not resolve `..`. Every method that fails
/// returns an [`Error`] naming the operation and the path.
///
/// **Files are regular files.** The methods that open a file (`open_append`, `open_read`,
/// `lock`) and `file_len` fail with [`Error::NotAFile`] when the path leads to anything
/// else, without blocking (a FIFO) and without following a symbolic link: the last
/// component of a file's path is never followed. Directories on the way may be links (a
/// Db directory, or its `wal` directory, may live elsewhere).
pub trait Fs: Send + Sync + Debug {
    /// Creates `path` and any missing ancestors. Succeeds if the directory already exists.
    fn create_dir_all(&self, path: &Path) -> Result<()>;

    /// Creates a new, empty file at `path` open for appending. Fails with kind
    /// [`AlreadyExists`](std::io::ErrorKind::AlreadyExists) if anything already exists there,
    /// and with [`NotFound`](std::io::ErrorKind::NotFound) if the parent directory is missing.
    fn create_new(&self, path: &Path) -> Result<Box<dyn WritableFile>>;

    /// Opens the existing file at `path` to append after its current end (for example to reopen
    /// a write-ahead log). Fails with kind [`NotFound`](std::io::ErrorKind::NotFound) if it does
    /// not exist.
    fn open_append(&self, path: &Path) -> Result<Box<dyn WritableFile>>;

    /// Opens the existing file at `path` for random-access reads.
    ///
    /// The engine only reads files that are no longer written to; what a reader sees of bytes
    /// appended after it was opened is implementation-defined.
    fn open_read(&self, path: &Path) -> Result<Arc<dyn ReadableFile>>;

    /// Renames `from` to `to`, atomically replacing `to` if it is a file, like POSIX `rename`.
    /// The change is durable only after [`sync_dir`](Fs::sync_dir) of the directories involved.
    fn rename(&self, from: &Path, to: &Path) -> Result<()>;

    /// Gives the existing file `from` a second name `to`, like POSIX `link`: both names reach
    /// the same bytes, and removing one leaves the other (how a snapshot keeps a storefile a
    /// compaction or a table drop removes). Fails with kind
    /// [`AlreadyExists`](std::io::ErrorKind::AlreadyExists) when `to` exists. The new name is
    /// durable only after [`sync_dir`](Fs::sync_dir) of its directory.
    fn hard_link(&self, from: &Path, to: &Path) -> Result<()>;

    /// Removes the file at `path`. Handles already open on it keep working. The removal is
    /// durable only after [`sync_dir`](Fs::sync_dir) of its parent.
    fn remove_file(&self, path: &Path) -> Result<()>;

    /// Removes the directory at `path` and everything under it.
    fn remove_dir_all(&self, path: &Path) -> Result<()>;

    /// The names (not full paths) of the files and directories directly inside `dir`, sorted
    /// ascending. Names that are not valid UTF-8 cannot be ours and are skipped with a warning.
    fn list(&self, dir: &Path) -> Result<Vec<String>>;

    /// Whether anything (a file, a directory, a symbolic link even if dangling, ...) exists
    /// at `path`.
    fn exists(&self, path: &Path) -> Result<bool>;

    /// The current length in bytes of the file at `path`.
    fn file_len(&self, path: &Path) -> Result<u64>;

    /// Makes the creations, renames and removals of entries directly inside `dir` durable
    /// (`fsync` of the directory).
    fn sync_dir(&self, dir: &Path) -> Result<()>;

    /// Takes an exclusive, non-blocking lock on the lock file at `path`, creating the file if it
    /// is missing. Fails with [`Error::Locked`] if another holder has it. The lock is released
    /// when the returned [`FileLock`] is dropped.
    ///
    /// The lock belongs to the file, not to its name: if the file is removed, a new file at
    /// `path` can be locked by someone else. [`FileLock::state`] tells.
    fn lock(&self, path: &Path) -> Result<Box<dyn FileLock>>;

    /// Takes an exclusive, non-blocking lock on the existing directory `dir` itself. Fails
    /// with [`Error::Locked`] if another holder has it. Unlike a lock file, a directory
    /// cannot be removed while it holds files, so this lock cannot be lost to a deleted
    /// name. Released when the returned [`FileLock`] is dropped.
    fn lock_dir(&self, dir: &Path) -> Result<Box<dyn FileLock>>;
}

/// A file open for appending.
///
/// Dropping it closes the file; bytes for which [`append`](WritableFile::append) returned `Ok` are
/// not lost by the drop (they are as durable as they were: synced or not).
pub trait WritableFile: Send + Debug {
    /// Appends all of `buf` at the end of the file. On error a prefix of `buf` may have been
    /// written (a short write); [`len`](WritableFile::len) then counts what was written as far
    /// as the implementation knows.
    fn append(&mut self, buf: &[u8]) -> Result<()>;

    /// Makes the appended bytes durable (`fdatasync`).
    fn sync_data(&mut self) -> Result<()>;

    /// Makes the appended bytes and the file's metadata durable (`fsync`). This does not make
    /// the file's directory entry durable: use [`Fs::sync_dir`] for that.
    fn sync_all(&mut self) -> Result<()>;

    /// Reserves room for appends: when the file is shorter than `len` bytes, extends it to
    /// `len` with zero bytes (a sparse tail on a real file: no blocks are allocated) without
    /// moving the append position. Later appends overwrite the zeros, [`len`](WritableFile::len)
    /// still counts only what was appended, and readers see the zeros. The new length is
    /// durable after the next [`sync_data`](WritableFile::sync_data), like appended bytes.
    ///
    /// Why: `fdatasync` after an append that grows the file must also commit the new size
    /// (a journal commit on ext4 and xfs); an append inside the reserved length needs none,
    /// which is what makes a write-ahead log's synced appends fast (RocksDB and fjall
    /// preallocate theirs for the same reason).
    fn reserve(&mut self, len: u64) -> Result<()>;

    /// Cuts the file back to its append position, dropping the zeros
    /// [`reserve`](WritableFile::reserve) left beyond it (`ftruncate`). Like a reservation, the
    /// cut is durable only after the next sync: a crash before it may bring the zeros back.
    fn trim(&mut self) -> Result<()>;

    /// The append position: what the file held when opened plus what was appended since (a
    /// reserved zero tail is not counted).
    fn len(&self) -> u64;

    /// Whether [`len`](WritableFile::len) is zero.
    fn is_empty(&self) -> bool {
        self.len() == 0
    }

    /// The path the file was opened at.
    fn path(&self) -> &Path;
}

/// A file open for random-access reads.
pub trait ReadableFile: Send + Sync + Debug {
    /// The length of the file in bytes, fixed when it was opened.
    fn len(&self) -> u64;

    /// Whether [`len`](ReadableFile::len) is zero.
    fn is_empty(&self) -> bool {
        self.len() == 0
    }

    /// Fills `buf` with the bytes starting at `offset`. Reading past the end of the file fails
    /// with [`Error::UnexpectedEof`], which names the path and the offset.
    fn read_at(&self, offset: u64, buf: &mut [u8]) -> Result<()>;

    /// Like [`read_at`](ReadableFile::read_at), but a memory-mapped file is read with a
    /// positioned read of its descriptor instead of through the mapping, so the pages read
    /// do not join the process's resident set. Readers that decode what they read into a
    /// cache of their own (compressed storefile blocks) use it: the mapping would only add
    /// a second, uncounted copy. Other files read as `read_at` does.
    fn pread_at(&self, offset: u64, buf: &mut [u8]) -> Result<()> {
        self.read_at(offset, buf)
    }

    /// Like [`read_at`](ReadableFile::read_at), for a point read whose result the reader
    /// caches and whose range it may read again on a cache miss (a storefile data block for a
    /// Get): a memory-mapped file is read through the mapping while the file system's
    /// mapped-read budget lasts ([`RealFs::with_map_budget`]), a copy from resident pages, and
    /// as [`pread_at`](ReadableFile::pread_at) beyond it. Other files read as `read_at` does.
    fn read_mapped_at(&self, offset: u64, buf: &mut [u8]) -> Result<()> {
        self.read_at(offset, buf)
    }

    /// The whole file as one slice, when it is memory-mapped or held in memory; `None` when
    /// reads must go through [`read_at`](ReadableFile::read_at).
    fn as_slice(&self) -> Option<&[u8]>;

    /// The path the file was opened at.
    fn path(&self) -> &Path;

    /// Reads `len` bytes at `offset` into a new vector. The range is checked against the file's
    /// length *before* anything is allocated, so a corrupt length field cannot trigger a huge
    /// allocation.
    fn read_to_vec(&self, offset: u64, len: usize) -> Result<Vec<u8>> {
        check_range(self.path(), offset, len, self.len())?;
        let mut buf = vec![0; len];
        self.read_at(offset, &mut buf)?;
        Ok(buf)
    }
}

/// An exclusive lock on a lock file (or a directory), released when dropped.
pub trait FileLock: Send + Debug {
    /// The lock file.
    fn path(&self) -> &Path;

    /// Whether [`path`](FileLock::path) still leads to the file this lock holds (same device
    /// and inode). A lock outlives the removal or replacement of its file's name, and then
    /// no longer keeps anyone else from locking a new file at that path.
    fn state(&self) -> Result<LockState>;
}

/// What a held lock's path leads to now ([`FileLock::state`]).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum LockState {
    /// The locked file itself.
    Held,
    /// Nothing: the file was removed (the lock is still held, on a file with no name).
    Removed,
    /// Another file: a new lock file there may be locked by someone else.
    Replaced,
}

/// Checks that `len` bytes at `offset` lie within a file of `file_len` bytes, returning the
/// range as `usize` bounds.
pub(crate) fn check_range(
    path: &Path,
    offset: u64,
    len: usize,
    file_len: u64,
) -> Result<std::ops::Range<usize>> {
    let eof = || Error::UnexpectedEof {
        path: path.to_path_buf(),
        offset,
        len: len as u64,
        file_len,
    };
    let end = offset.checked_add(len as u64).ok_or_else(eof)?;
    if end > file_len {
        return Err(eof());
    }
    let start = usize::try_from(offset).map_err(|_| eof())?;
    let end = usize::try_from(end).map_err(|_| eof())?;
    Ok(start..end)
}

/// The name of the last component of `path` as UTF-8, or `None` (with a warning) if it is not
/// valid UTF-8.
pub(crate) fn utf8_name(dir: &Path, name: &std::ffi::OsStr) -> Option<String> {
    match name.to_str() {
        Some(s) => Some(s.to_owned()),
        None => {
            tracing::warn!(dir = %dir.display(), name = ?name, "skipping a non-UTF-8 file name");
            None
        }
    }
}

/// Atomically replaces `path` with `bytes` (write `<path>.tmp`, fsync it, rename it over
/// `path`, fsync the directory): after a crash at any point the file holds either its old
/// or its new contents. A stale temp file of an earlier crash is replaced.
pub fn write_atomic(fs: &dyn Fs, path: &Path, bytes: &[u8]) -> Result<()> {
    let dir = path.parent().unwrap_or_else(|| Path::new("."));
    let mut tmp_name = path.as_os_str().to_owned();
    tmp_name.push(".tmp");
    let tmp = std::path::PathBuf::from(tmp_name);
    if fs.exists(&tmp)? {
        fs.remove_file(&tmp)?;
    }
    let mut f = fs.create_new(&tmp)?;
    f.append(bytes)?;
    f.sync_all()?;
    drop(f);
    fs.rename(&tmp, path)?;
    fs.sync_dir(dir)?;
    Ok(())
}
