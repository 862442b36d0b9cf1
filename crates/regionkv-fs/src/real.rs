//! [`RealFs`]: the [`Fs`] seam over `std::fs`, the only place in regionkv that touches real files.
//!
//! Writes are unbuffered `write(2)` calls on a file opened in append mode, so the OS holds every
//! byte for which [`WritableFile::append`] returned `Ok`; callers do their own buffering. Syncs
//! use `File::sync_data`/`File::sync_all` (which issue `F_FULLFSYNC` on Apple targets), never raw
//! `fsync`. Directory syncs open the directory and `fsync` it (Unix; a no-op elsewhere).
//!
//! Reads are memory-mapped ([`ReadMode::Mmap`], the default) or go through `pread`
//! ([`ReadMode::Pread`]). A mapping holds no file descriptor, so mmap mode opens any number of
//! files under a low `ulimit -n`. Pread mode keeps its descriptors in a bounded LRU cache
//! ([`RealFs::with_max_open_files`], RocksDB's `max_open_files`; unbounded by default) and
//! reopens evicted files by path; see `descriptors.rs` for how removals and renames stay safe.
//!
//! **Mmap caveat (SIGBUS).** Touching a mapped page whose file has been truncated underneath, or
//! whose backing storage reports an I/O error, kills the process with `SIGBUS` instead of
//! returning an error. The engine only maps files it wrote, published and never truncates, but
//! another process truncating one of them would still crash it: use [`ReadMode::Pread`] for
//! directories that other programs may modify. In pread mode such a truncation surfaces as an
//! [`Error`].
//!
//! **No mapped holes.** A mapped page that is a hole in its file (a sparse tail, as a WAL log
//! reserves ahead of its appends) is allocated when touched on some file systems, tmpfs
//! among them; on a full one that fails and the process gets `SIGBUS`. So mmap mode maps
//! only files without holes (`lseek(SEEK_HOLE)` on Linux, the allocated block count
//! elsewhere) and reads any other with `pread`, which reads a hole as zeros without
//! allocating.
//!
//! **Engine files are regular files.** Files are opened with `O_NOFOLLOW | O_NONBLOCK` and
//! checked with `fstat` (see `open.rs`): a symbolic link, FIFO, directory, socket or device
//! in place of one is [`Error::NotAFile`], never followed, never waited on.
//!
//! Locks are `flock`-style exclusive locks taken with `File::try_lock`. They belong to the open
//! file, so two lock calls on the same path conflict even within one process. A lock on a
//! file is lost to its name if the file is removed ([`FileLock::state`] tells); a lock on
//! a directory ([`Fs::lock_dir`]) is not, since a directory holding files cannot be removed.

use std::fs::{self, File, Metadata, OpenOptions, TryLockError};
use std::io;
use std::path::{Path, PathBuf};
use std::sync::Arc;

use memmap2::Mmap;

use crate::descriptors::{DescriptorCache, DescriptorStats, Identity};
use crate::map_budget::{MapBudget, MappedWindows};
use crate::open::{kind_of, open_regular};
use crate::{
    Error, FileLock, Fs, LockState, ReadableFile, Result, WritableFile, check_range, utf8_name,
};

/// How [`RealFs`] serves reads of files opened with [`Fs::open_read`].
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum ReadMode {
    /// Memory-map the whole file; [`ReadableFile::as_slice`] gives zero-copy access. Fast, but
    /// see the SIGBUS caveat in the module docs. A file with holes is read with `pread`
    /// instead (its `as_slice` is `None`).
    #[default]
    Mmap,
    /// Read with positioned reads (`pread`); [`ReadableFile::as_slice`] returns `None`. Safe
    /// against files truncated by other processes.
    Pread,
}

/// The default [mapped-read budget](RealFs::with_map_budget): 32 MiB, the size of the
/// engine's default block cache, so that point reads' mapped pages at most double what the
/// cache holds (the measurements behind it: `docs/benchmarks.md`, the third pass of
/// "Peers at HBase's defaults").
pub const DEFAULT_MAP_BUDGET: u64 = 32 << 20;

/// The real file system, through `std::fs`. Clones share one descriptor cache and one
/// mapped-read budget.
#[derive(Debug, Clone)]
pub struct RealFs {
    read_mode: ReadMode,
    /// Pread mode's bounded descriptor cache; `None` in mmap mode and in unbounded pread mode,
    /// where each reader owns its descriptor.
    descriptors: Option<Arc<DescriptorCache>>,
    /// What [`ReadableFile::read_mapped_at`] may make resident (see `map_budget.rs`).
    map_budget: Arc<MapBudget>,
}

impl Default for RealFs {
    fn default() -> Self {
        RealFs::with_read_mode(ReadMode::default())
    }
}

impl RealFs {
    /// A real file system that memory-maps files opened for reading.
    pub fn new() -> Self {
        RealFs::default()
    }

    /// This file system with a mapped-read budget of `bytes` (default
    /// [`DEFAULT_MAP_BUDGET`]): point reads of mapped files
    /// ([`ReadableFile::read_mapped_at`]) go through the mapping until the 64 KiB windows
    /// they have touched add up to `bytes`, and through `pread` beyond, so the pages they map
    /// into the resident set stay bounded. 0 sends every such read to `pread`. Clones made
    /// before the call keep the old budget.
    pub fn with_map_budget(mut self, bytes: u64) -> Self {
        self.map_budget = MapBudget::new(bytes);
        self
    }

    /// The mapped-read budget and how much of it mapped files have charged.
    pub fn map_budget(&self) -> (u64, u64) {
        (self.map_budget.limit(), self.map_budget.used())
    }

    /// A real file system that serves reads as `mode` says. Pread mode keeps one descriptor
    /// open per file open for reading; [`with_max_open_files`](RealFs::with_max_open_files)
    /// bounds them.
    pub fn with_read_mode(mode: ReadMode) -> Self {
        RealFs {
            read_mode: mode,
            descriptors: None,
            map_budget: MapBudget::new(DEFAULT_MAP_BUDGET),
        }
    }

    /// A real file system in pread mode that keeps at most `max_open_files` (at least 1)
    /// descriptors of files open for reading, closing the least recently used and reopening
    /// them by path when read again, like RocksDB's `max_open_files`. Files removed or renamed
    /// through this `RealFs` while still read keep their descriptors until their readers drop,
    /// beyond the bound if need be.
    pub fn with_max_open_files(max_open_files: usize) -> Self {
        RealFs {
            read_mode: ReadMode::Pread,
            descriptors: Some(Arc::new(DescriptorCache::new(max_open_files))),
            map_budget: MapBudget::new(DEFAULT_MAP_BUDGET),
        }
    }

    /// The read mode chosen at construction.
    pub fn read_mode(&self) -> ReadMode {
        self.read_mode
    }

    /// The descriptor cache's counters with [`with_max_open_files`](RealFs::with_max_open_files);
    /// `None` otherwise.
    pub fn descriptor_stats(&self) -> Option<DescriptorStats> {
        self.descriptors.as_ref().map(|d| d.stats())
    }

    /// Runs `change` (a removal or rename of `paths[0]`, or of `paths[0]` to `paths[1]`)
    /// with the readers of files at or under `paths` pinned first, so that it does not strand
    /// them (see `descriptors.rs`). `op` and the path name the error if a reader cannot be
    /// pinned, in which case `change` does not run.
    fn changing_names<T>(
        &self,
        op: &'static str,
        paths: &[&Path],
        change: impl FnOnce() -> Result<T>,
    ) -> Result<T> {
        let Some(cache) = &self.descriptors else {
            return change();
        };
        let _exclusive = cache.changing_names();
        for path in paths {
            cache
                .pin_under(path)
                .map_err(|(reader, e)| Error::io(op, reader, e))?;
        }
        change()
    }
}

impl Fs for RealFs {
    fn create_dir_all(&self, path: &Path) -> Result<()> {
        fs::create_dir_all(path).map_err(|e| Error::io("create_dir_all", path, e))
    }

    fn create_new(&self, path: &Path) -> Result<Box<dyn WritableFile>> {
        // Not O_APPEND: appends are positioned writes at `len`, so that they land inside a
        // reserved zero tail rather than after it. O_CREAT | O_EXCL never follows a link
        // and fails on anything already there, a FIFO included.
        let file = OpenOptions::new()
            .write(true)
            .create_new(true)
            .open(path)
            .map_err(|e| Error::io("create_new", path, e))?;
        Ok(Box::new(RealWritableFile {
            file,
            path: path.to_path_buf(),
            len: 0,
            size: 0,
            written_back: 0,
        }))
    }

    fn open_append(&self, path: &Path) -> Result<Box<dyn WritableFile>> {
        let (file, meta) = open_regular("open_append", path, OpenOptions::new().write(true))?;
        let len = meta.len();
        Ok(Box::new(RealWritableFile {
            file,
            path: path.to_path_buf(),
            len,
            size: len,
            written_back: len,
        }))
    }

    fn open_read(&self, path: &Path) -> Result<Arc<dyn ReadableFile>> {
        let op = "open_read";
        // Held until the reader is registered, so no removal or rename slips in between.
        let _shared = self.descriptors.as_ref().map(|c| c.opening());
        let (file, meta) = open_regular(op, path, OpenOptions::new().read(true))?;
        let len = meta.len();
        let backing = match (&self.descriptors, self.read_mode) {
            (Some(cache), _) => Backing::Cached {
                id: cache.register(path, file, Identity::of(&meta)),
                cache: Arc::clone(cache),
            },
            (None, ReadMode::Pread) => Backing::Pread(file),
            // A zero-length mapping is an error on some platforms, and there is nothing to map.
            (None, ReadMode::Mmap) if len == 0 => Backing::Empty,
            (None, ReadMode::Mmap) if may_have_holes(&file, &meta) => {
                tracing::debug!(path = %path.display(), "the file has holes: reading it with pread");
                Backing::Pread(file)
            }
            (None, ReadMode::Mmap) => {
                // SAFETY: memmap2 requires that the mapped file is not modified or truncated
                // while mapped, or reads through the map may change or fault. The engine only
                // opens for reading files it has finished writing and published; it never
                // appends to, rewrites or truncates them afterwards, and removes them only by
                // unlinking, which leaves the mapping valid. Another process truncating the file
                // is outside that contract and would raise SIGBUS (documented on this module;
                // use ReadMode::Pread for directories others may touch).
                let map = unsafe { Mmap::map(&file) }.map_err(|e| Error::io("mmap", path, e))?;
                let windows = MappedWindows::new(
                    Arc::clone(&self.map_budget),
                    map.as_ptr() as usize,
                    map.len(),
                );
                Backing::Mmap(
                    map,
                    MappedPread {
                        identity: Identity::of(&meta),
                        file: std::sync::OnceLock::new(),
                    },
                    windows,
                )
            }
        };
        Ok(Arc::new(RealReadableFile {
            backing,
            path: path.to_path_buf(),
            len,
        }))
    }

    fn rename(&self, from: &Path, to: &Path) -> Result<()> {
        self.changing_names("rename", &[from, to], || {
            fs::rename(from, to).map_err(|source| Error::Rename {
                from: from.to_path_buf(),
                to: to.to_path_buf(),
                source,
            })
        })
    }

    fn hard_link(&self, from: &Path, to: &Path) -> Result<()> {
        self.changing_names("hard_link", &[from, to], || {
            // `link(2)` does not follow a symbolic link at `from` (Linux), so the new name
            // reaches a regular file only if `from` is one: checked first, as for opens.
            let meta = fs::symlink_metadata(from).map_err(|e| Error::io("hard_link", from, e))?;
            if let Some(kind) = kind_of(&meta) {
                return Err(Error::NotAFile {
                    op: "hard_link",
                    path: from.to_path_buf(),
                    kind,
                });
            }
            fs::hard_link(from, to).map_err(|e| Error::io("hard_link", to, e))
        })
    }

    fn remove_file(&self, path: &Path) -> Result<()> {
        self.changing_names("remove_file", &[path], || {
            fs::remove_file(path).map_err(|e| Error::io("remove_file", path, e))
        })
    }

    fn remove_dir_all(&self, path: &Path) -> Result<()> {
        self.changing_names("remove_dir_all", &[path], || {
            fs::remove_dir_all(path).map_err(|e| Error::io("remove_dir_all", path, e))
        })
    }

    fn list(&self, dir: &Path) -> Result<Vec<String>> {
        let op = "list";
        let mut names = Vec::new();
        for entry in fs::read_dir(dir).map_err(|e| Error::io(op, dir, e))? {
            let entry = entry.map_err(|e| Error::io(op, dir, e))?;
            names.extend(utf8_name(dir, &entry.file_name()));
        }
        names.sort_unstable();
        Ok(names)
    }

    fn exists(&self, path: &Path) -> Result<bool> {
        // lstat: a dangling link planted as an engine file is there (and refused when
        // opened), not missing (and silently re-created).
        match fs::symlink_metadata(path) {
            Ok(_) => Ok(true),
            Err(e) if e.kind() == io::ErrorKind::NotFound => Ok(false),
            Err(e) => Err(Error::io("exists", path, e)),
        }
    }

    fn file_len(&self, path: &Path) -> Result<u64> {
        let op = "file_len";
        let meta = fs::symlink_metadata(path).map_err(|e| Error::io(op, path, e))?;
        match kind_of(&meta) {
            None => Ok(meta.len()),
            Some(kind) => Err(Error::NotAFile {
                op,
                path: path.to_path_buf(),
                kind,
            }),
        }
    }

    #[cfg(unix)]
    fn sync_dir(&self, dir: &Path) -> Result<()> {
        let op = "sync_dir";
        let d = open_dir(dir).map_err(|e| Error::io(op, dir, e))?;
        d.sync_all().map_err(|e| Error::io(op, dir, e))
    }

    /// Directories cannot be opened for `fsync` outside Unix; NTFS journals directory changes
    /// itself, so this only checks that `dir` exists.
    #[cfg(not(unix))]
    fn sync_dir(&self, dir: &Path) -> Result<()> {
        fs::metadata(dir)
            .map(drop)
            .map_err(|e| Error::io("sync_dir", dir, e))
    }

    fn lock(&self, path: &Path) -> Result<Box<dyn FileLock>> {
        let op = "lock";
        let (file, _) = open_regular(
            op,
            path,
            OpenOptions::new()
                .read(true)
                .write(true)
                .create(true)
                .truncate(false),
        )?;
        try_lock(op, file, path, false)
    }

    #[cfg(unix)]
    fn lock_dir(&self, dir: &Path) -> Result<Box<dyn FileLock>> {
        let op = "lock_dir";
        let file = open_dir(dir).map_err(|e| Error::io(op, dir, e))?;
        try_lock(op, file, dir, true)
    }

    /// Outside Unix a directory cannot be opened to lock it; there (Windows) a file open
    /// without `FILE_SHARE_DELETE`, as the lock file is, cannot be removed while held, so
    /// the lock file cannot be lost and this only checks that `dir` exists.
    #[cfg(not(unix))]
    fn lock_dir(&self, dir: &Path) -> Result<Box<dyn FileLock>> {
        fs::metadata(dir).map_err(|e| Error::io("lock_dir", dir, e))?;
        Ok(Box::new(RealFileLock {
            file: None,
            path: dir.to_path_buf(),
            follow: true,
        }))
    }
}

/// Opens the directory `dir` for `fsync` or `flock`. `O_DIRECTORY`: anything else at `dir`
/// (a FIFO would block) fails at once with `ENOTDIR`. A link to a directory is followed.
#[cfg(unix)]
fn open_dir(dir: &Path) -> io::Result<File> {
    use std::os::unix::fs::OpenOptionsExt;
    OpenOptions::new()
        .read(true)
        .custom_flags(libc::O_DIRECTORY)
        .open(dir)
}

/// Takes the lock on `file`, open at `path`; `follow`: whether [`FileLock::state`] follows
/// a link at `path` (a directory's) or not (a lock file's).
fn try_lock(op: &'static str, file: File, path: &Path, follow: bool) -> Result<Box<dyn FileLock>> {
    match file.try_lock() {
        Ok(()) => Ok(Box::new(RealFileLock {
            file: Some(file),
            path: path.to_path_buf(),
            follow,
        })),
        Err(TryLockError::WouldBlock) => Err(Error::Locked {
            path: path.to_path_buf(),
        }),
        Err(TryLockError::Error(e)) => Err(Error::io(op, path, e)),
    }
}

/// Whether a mapping of `file` could touch a hole: a page the file system would have to
/// allocate on first touch, which fails with `SIGBUS` when it is full (see the module
/// docs). When unsure, says yes: `pread` is always safe.
#[cfg(any(target_os = "linux", target_os = "android"))]
fn may_have_holes(file: &File, meta: &Metadata) -> bool {
    use std::os::fd::AsRawFd;
    // SAFETY: lseek on a descriptor `file` keeps open for the call; no memory is passed. It
    // moves this descriptor's offset, which nothing uses: reads are positioned or mapped.
    let hole = unsafe { libc::lseek(file.as_raw_fd(), 0, libc::SEEK_HOLE) };
    // Every file ends in a virtual hole at its end; one before it is a real hole. A file
    // system that cannot say fails the call, or reports the end.
    u64::try_from(hole).map_or(true, |hole| hole < meta.len())
}

/// Whether a mapping of `file` could touch a hole: fewer blocks allocated than its length
/// needs (compression can make this say yes needlessly, which costs only the mapping).
#[cfg(all(unix, not(any(target_os = "linux", target_os = "android"))))]
fn may_have_holes(_file: &File, meta: &Metadata) -> bool {
    use std::os::unix::fs::MetadataExt;
    meta.blocks().saturating_mul(512) < meta.len()
}

/// Sparse files are rare outside Unix and not made by the engine there.
#[cfg(not(unix))]
fn may_have_holes(_file: &File, _meta: &Metadata) -> bool {
    false
}

/// A real file open for appending, unbuffered. Appends are positioned writes (`pwrite`) at
/// `len`, the one owner's append position (`&mut self`), so they can fill a reserved tail.
#[derive(Debug)]
struct RealWritableFile {
    file: File,
    path: PathBuf,
    /// Length when opened plus every byte the OS accepted since: the append position.
    len: u64,
    /// The file's length as this writer last set it: `len`, or more after `reserve`.
    size: u64,
    /// Bytes before this offset were handed to the OS's writeback ([`BYTES_PER_SYNC`]).
    written_back: u64,
}

/// Every this many appended bytes, the OS is asked to start writing them to the device
/// without waiting (`sync_file_range(SYNC_FILE_RANGE_WRITE)`, RocksDB's `bytes_per_sync`
/// at its usual 1 MiB). The device then works while the writer goes on, and the file's
/// closing `fsync` waits only for the last stretch: without it, a 167 MB storefile's fsync
/// took 0.4 s of a 1.6 s bulk load. It is a hint: durability still comes from the syncs
/// the callers make.
const BYTES_PER_SYNC: u64 = 1 << 20;

impl RealWritableFile {
    /// Starts writeback of what was appended since the last call, once that is
    /// [`BYTES_PER_SYNC`] or more. Errors are ignored: a failed hint only means the final
    /// sync does the work, and it reports any error.
    fn start_writeback(&mut self) {
        if self.len.saturating_sub(self.written_back) < BYTES_PER_SYNC {
            return;
        }
        #[cfg(any(target_os = "linux", target_os = "android"))]
        {
            use std::os::fd::AsRawFd;
            let (Ok(offset), Ok(len)) = (
                libc::off64_t::try_from(self.written_back),
                libc::off64_t::try_from(self.len - self.written_back),
            ) else {
                return;
            };
            // SAFETY: sync_file_range on a descriptor `self.file` keeps open for the call,
            // over a range of it; no memory is passed and nothing is waited for.
            unsafe {
                libc::sync_file_range(
                    self.file.as_raw_fd(),
                    offset,
                    len,
                    libc::SYNC_FILE_RANGE_WRITE,
                );
            }
        }
        self.written_back = self.len;
    }
}

impl WritableFile for RealWritableFile {
    fn append(&mut self, buf: &[u8]) -> Result<()> {
        let mut rest = buf;
        let result = loop {
            if rest.is_empty() {
                break Ok(());
            }
            match pwrite(&self.file, rest, self.len) {
                Ok(0) => {
                    let e = io::Error::from(io::ErrorKind::WriteZero);
                    break Err(Error::io("append", &self.path, e));
                }
                Ok(n) => {
                    self.len += n as u64;
                    rest = rest.get(n..).unwrap_or_default();
                }
                Err(e) if e.kind() == io::ErrorKind::Interrupted => {}
                Err(e) => break Err(Error::io("append", &self.path, e)),
            }
        };
        self.size = self.size.max(self.len);
        self.start_writeback();
        result
    }

    fn reserve(&mut self, len: u64) -> Result<()> {
        if len > self.size {
            // `set_len` extends with a hole: zeros on read, no blocks allocated.
            self.file
                .set_len(len)
                .map_err(|e| Error::io("reserve", &self.path, e))?;
            self.size = len;
        }
        Ok(())
    }

    fn trim(&mut self) -> Result<()> {
        if self.size > self.len {
            self.file
                .set_len(self.len)
                .map_err(|e| Error::io("trim", &self.path, e))?;
            self.size = self.len;
        }
        Ok(())
    }

    fn sync_data(&mut self) -> Result<()> {
        self.file
            .sync_data()
            .map_err(|e| Error::io("sync_data", &self.path, e))
    }

    fn sync_all(&mut self) -> Result<()> {
        self.file
            .sync_all()
            .map_err(|e| Error::io("sync_all", &self.path, e))
    }

    fn len(&self) -> u64 {
        self.len
    }

    fn path(&self) -> &Path {
        &self.path
    }
}

/// How a [`RealReadableFile`] reaches its bytes.
#[derive(Debug)]
enum Backing {
    /// The whole file, mapped (its descriptor is closed), what `pread_at` needs, and the
    /// windows `read_mapped_at` has charged to the budget.
    Mmap(Mmap, MappedPread, MappedWindows),
    /// A zero-length file in mmap mode (nothing to map).
    Empty,
    /// Positioned reads on the reader's own descriptor (unbounded pread mode).
    Pread(File),
    /// Positioned reads on a descriptor from the cache, reopened by path if evicted.
    Cached {
        cache: Arc<DescriptorCache>,
        id: u64,
    },
}

/// `pread_at` on a mapped file: a descriptor opened on first use, so that mapped files
/// that are never read this way (uncompressed storefiles, logs) hold no descriptor, as
/// mmap mode promises.
#[derive(Debug)]
struct MappedPread {
    /// The mapped file's identity: a reopen by path must find the same file.
    identity: Identity,
    file: std::sync::OnceLock<File>,
}

impl MappedPread {
    /// The descriptor, opened by path on first use; `None` when the path no longer names
    /// the mapped file (unlinked by a compaction, replaced) or cannot be opened (out of
    /// descriptors), and the caller reads through the mapping instead.
    fn descriptor(&self, path: &Path) -> Option<&File> {
        if let Some(f) = self.file.get() {
            return Some(f);
        }
        let (file, meta) = open_regular("open_read", path, OpenOptions::new().read(true)).ok()?;
        if Identity::of(&meta) != self.identity {
            return None;
        }
        // A racing thread may have set it first; either descriptor reads the same file.
        let _ = self.file.set(file);
        self.file.get()
    }
}

/// A real file open for reading. Its length is fixed at open time.
#[derive(Debug)]
struct RealReadableFile {
    backing: Backing,
    path: PathBuf,
    len: u64,
}

impl ReadableFile for RealReadableFile {
    fn len(&self) -> u64 {
        self.len
    }

    fn read_mapped_at(&self, offset: u64, buf: &mut [u8]) -> Result<()> {
        if let Backing::Mmap(_, _, windows) = &self.backing {
            let range = check_range(&self.path, offset, buf.len(), self.len)?;
            if !windows.admit(range.start, buf.len()) {
                return self.pread_at(offset, buf);
            }
        }
        self.read_at(offset, buf)
    }

    fn pread_at(&self, offset: u64, buf: &mut [u8]) -> Result<()> {
        if let Backing::Mmap(_, p, _) = &self.backing
            && let Some(file) = p.descriptor(&self.path)
        {
            check_range(&self.path, offset, buf.len(), self.len)?;
            return pread_exact(file, offset, buf).map_err(|e| Error::io("read_at", &self.path, e));
        }
        self.read_at(offset, buf)
    }

    fn read_at(&self, offset: u64, buf: &mut [u8]) -> Result<()> {
        let range = check_range(&self.path, offset, buf.len(), self.len)?;
        match &self.backing {
            Backing::Mmap(map, ..) => {
                let src = map.get(range).ok_or_else(|| Error::UnexpectedEof {
                    path: self.path.clone(),
                    offset,
                    len: buf.len() as u64,
                    file_len: map.len() as u64,
                })?;
                buf.copy_from_slice(src);
                Ok(())
            }
            // check_range admitted only an empty read at offset 0.
            Backing::Empty => Ok(()),
            Backing::Pread(file) => {
                pread_exact(file, offset, buf).map_err(|e| Error::io("read_at", &self.path, e))
            }
            Backing::Cached { cache, id } => {
                let file = cache
                    .file(*id)
                    .map_err(|e| Error::io("reopen", &self.path, e))?;
                pread_exact(&file, offset, buf).map_err(|e| Error::io("read_at", &self.path, e))
            }
        }
    }

    fn as_slice(&self) -> Option<&[u8]> {
        match &self.backing {
            Backing::Mmap(map, ..) => Some(&map[..]),
            Backing::Empty => Some(&[]),
            Backing::Pread(_) | Backing::Cached { .. } => None,
        }
    }

    fn path(&self) -> &Path {
        &self.path
    }
}

impl Drop for RealReadableFile {
    fn drop(&mut self) {
        if let Backing::Cached { cache, id } = &self.backing {
            cache.release(*id);
        }
    }
}

/// Writes some of `buf` to `file` at `offset`.
#[cfg(unix)]
fn pwrite(file: &File, buf: &[u8], offset: u64) -> io::Result<usize> {
    use std::os::unix::fs::FileExt;
    file.write_at(buf, offset)
}

/// Writes some of `buf` to `file` at `offset`.
#[cfg(windows)]
fn pwrite(file: &File, buf: &[u8], offset: u64) -> io::Result<usize> {
    use std::os::windows::fs::FileExt;
    file.seek_write(buf, offset)
}

/// Fills `buf` from `file` at `offset` without moving a shared cursor.
#[cfg(unix)]
fn pread_exact(file: &File, offset: u64, buf: &mut [u8]) -> io::Result<()> {
    use std::os::unix::fs::FileExt;
    file.read_exact_at(buf, offset)
}

/// Fills `buf` from `file` at `offset` (positioned reads; the Windows cursor moves, but every
/// read names its offset).
#[cfg(windows)]
fn pread_exact(file: &File, mut offset: u64, mut buf: &mut [u8]) -> io::Result<()> {
    use std::os::windows::fs::FileExt;
    while !buf.is_empty() {
        match file.seek_read(buf, offset) {
            Ok(0) => return Err(io::ErrorKind::UnexpectedEof.into()),
            Ok(n) => {
                let tmp = buf;
                buf = tmp.get_mut(n..).unwrap_or_default();
                offset += n as u64;
            }
            Err(e) if e.kind() == io::ErrorKind::Interrupted => {}
            Err(e) => return Err(e),
        }
    }
    Ok(())
}

/// A held `flock`-style lock; closing the file releases it.
#[derive(Debug)]
struct RealFileLock {
    /// The locked file or directory (`None`: a directory "lock" outside Unix).
    file: Option<File>,
    path: PathBuf,
    /// Whether `state` follows a link at `path` (a directory lock) or not (a lock file).
    follow: bool,
}

impl FileLock for RealFileLock {
    fn path(&self) -> &Path {
        &self.path
    }

    fn state(&self) -> Result<LockState> {
        let op = "lock_state";
        let now = if self.follow {
            fs::metadata(&self.path)
        } else {
            fs::symlink_metadata(&self.path)
        };
        let now = match now {
            Ok(m) => m,
            Err(e) if e.kind() == io::ErrorKind::NotFound => return Ok(LockState::Removed),
            Err(e) => return Err(Error::io(op, &self.path, e)),
        };
        let Some(file) = &self.file else {
            return Ok(LockState::Held);
        };
        let held = file.metadata().map_err(|e| Error::io(op, &self.path, e))?;
        Ok(if same_file(&held, &now) {
            LockState::Held
        } else {
            LockState::Replaced
        })
    }
}

/// Whether two `stat`s describe the same file (device and inode).
#[cfg(unix)]
fn same_file(a: &Metadata, b: &Metadata) -> bool {
    use std::os::unix::fs::MetadataExt;
    (a.dev(), a.ino()) == (b.dev(), b.ino())
}

/// Outside Unix an open lock file cannot be removed or replaced (see `lock_dir`).
#[cfg(not(unix))]
fn same_file(_a: &Metadata, _b: &Metadata) -> bool {
    true
}

impl Drop for RealFileLock {
    fn drop(&mut self) {
        // Closing the file releases the lock anyway; unlocking first makes the release not
        // depend on other handles to the same open file description.
        if let Some(file) = &self.file
            && let Err(e) = file.unlock()
        {
            tracing::warn!(path = %self.path.display(), error = %e, "unlocking a lock file failed");
        }
    }
}

#[cfg(test)]
#[allow(clippy::unwrap_used)]
mod tests {
    use super::*;

    fn both_modes() -> [RealFs; 2] {
        [
            RealFs::with_read_mode(ReadMode::Mmap),
            RealFs::with_read_mode(ReadMode::Pread),
        ]
    }

    #[test]
    fn pread_at_reads_what_read_at_reads_in_both_modes() {
        let dir = tempfile::tempdir().unwrap();
        let data: Vec<u8> = (0..20_000u32).map(|i| (i * 7 % 251) as u8).collect();
        for (n, fs) in both_modes().into_iter().enumerate() {
            let path = dir.path().join(format!("f{n}"));
            let mut w = fs.create_new(&path).unwrap();
            w.append(&data).unwrap();
            w.sync_data().unwrap();
            drop(w);
            let r = fs.open_read(&path).unwrap();
            for (off, len) in [(0usize, 1usize), (4095, 2), (12_345, 7_000), (19_999, 1)] {
                let (mut a, mut b) = (vec![0; len], vec![0; len]);
                r.read_at(off as u64, &mut a).unwrap();
                r.pread_at(off as u64, &mut b).unwrap();
                assert_eq!(a, b);
                assert_eq!(a, &data[off..off + len]);
            }
            let mut past = [0u8; 2];
            assert!(matches!(
                r.pread_at(19_999, &mut past),
                Err(Error::UnexpectedEof { .. })
            ));
            // A file removed, or replaced under its name, before its first pread_at still
            // reads its own bytes (mmap mode falls back to its mapping).
            let r2 = fs.open_read(&path).unwrap();
            std::fs::remove_file(&path).unwrap();
            std::fs::write(&path, vec![0xEEu8; 20_000]).unwrap();
            let mut b = vec![0; 100];
            r2.pread_at(500, &mut b).unwrap();
            assert_eq!(b, &data[500..600]);
        }
    }

    #[test]
    fn read_mapped_at_maps_within_the_budget_and_preads_beyond_it() {
        let dir = tempfile::tempdir().unwrap();
        let data: Vec<u8> = (0..1u32 << 20).map(|i| (i * 13 % 251) as u8).collect();
        let window = 64 << 10;
        for fs in both_modes() {
            let fs = fs.with_map_budget(3 * window as u64);
            let path = dir.path().join(format!("{:?}", fs.read_mode()));
            std::fs::write(&path, &data).unwrap();
            let r = fs.open_read(&path).unwrap();
            // Sixteen reads in sixteen different windows: the first charge the budget, the
            // rest find it spent; every one reads the file's bytes.
            for i in 0..16 {
                let (off, len) = (i * window + 1000, 3000);
                let mut b = vec![0; len];
                r.read_mapped_at(off as u64, &mut b).unwrap();
                assert_eq!(b, &data[off..off + len], "read {i}");
            }
            let (limit, used) = fs.map_budget();
            assert_eq!(limit, 3 * window as u64);
            match fs.read_mode() {
                ReadMode::Mmap => assert_eq!(used, limit, "the budget is spent, never passed"),
                ReadMode::Pread => assert_eq!(used, 0, "nothing is mapped in pread mode"),
            }
            let mut past = [0u8; 2];
            assert!(matches!(
                r.read_mapped_at(data.len() as u64 - 1, &mut past),
                Err(Error::UnexpectedEof { .. })
            ));
            // Neither kind of read charges it.
            let mut b = vec![0; 100];
            r.read_at(500_000, &mut b).unwrap();
            r.pread_at(600_000, &mut b).unwrap();
            assert_eq!(fs.map_budget().1, used);
            drop(r);
            assert_eq!(fs.map_budget().1, 0, "unmapping gives the charge back");
        }
        // A zero budget sends every read to pread, and clones share one budget.
        let fs = RealFs::new().with_map_budget(0);
        let clone = fs.clone();
        let path = dir.path().join("zero");
        std::fs::write(&path, &data).unwrap();
        let r = clone.open_read(&path).unwrap();
        let mut b = vec![0; 4096];
        r.read_mapped_at(8192, &mut b).unwrap();
        assert_eq!(b, &data[8192..8192 + 4096]);
        assert_eq!(fs.map_budget(), (0, 0));
        let roomy = RealFs::new().with_map_budget(1 << 30);
        let r = roomy.clone().open_read(&path).unwrap();
        r.read_mapped_at(8192, &mut b).unwrap();
        assert!(
            roomy.map_budget().1 >= window as u64,
            "{:?}",
            roomy.map_budget()
        );
    }

    #[test]
    fn a_reserved_tail_is_sparse_zeros_that_appends_overwrite_and_trim_cuts() {
        let fs = RealFs::new();
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("log");
        let mut w = fs.create_new(&path).unwrap();
        w.append(b"head").unwrap();
        w.reserve(1 << 20).unwrap();
        w.sync_data().unwrap();
        assert_eq!(
            w.len(),
            4,
            "the reservation does not move the append position"
        );
        assert_eq!(fs.file_len(&path).unwrap(), 1 << 20);
        #[cfg(unix)]
        {
            use std::os::unix::fs::MetadataExt;
            let blocks = std::fs::metadata(&path).unwrap().blocks();
            assert!(blocks * 512 < 1 << 19, "not sparse: {blocks} blocks");
        }
        w.append(b"-tail").unwrap();
        // A smaller reservation changes nothing.
        w.reserve(10).unwrap();
        assert_eq!(w.len(), 9);
        let r = fs.open_read(&path).unwrap();
        assert_eq!(r.len(), 1 << 20);
        assert_eq!(r.read_to_vec(0, 12).unwrap(), b"head-tail\0\0\0");
        drop(r);
        w.trim().unwrap();
        assert_eq!(fs.file_len(&path).unwrap(), 9);
        // Past the reservation the file grows as before.
        w.reserve(12).unwrap();
        w.append(b"0123456789").unwrap();
        assert_eq!(w.len(), 19);
        drop(w);
        let w = fs.open_append(&path).unwrap();
        assert_eq!(w.len(), 19);
        assert_eq!(std::fs::read(&path).unwrap(), b"head-tail0123456789");
    }

    #[test]
    fn write_sync_read_round_trip_in_both_modes() {
        for fs in both_modes() {
            let dir = tempfile::tempdir().unwrap();
            let path = dir.path().join("data").join("f1");
            fs.create_dir_all(path.parent().unwrap()).unwrap();
            let mut w = fs.create_new(&path).unwrap();
            w.append(b"hello ").unwrap();
            w.append(b"world").unwrap();
            assert_eq!(w.len(), 11);
            w.sync_data().unwrap();
            w.sync_all().unwrap();
            fs.sync_dir(path.parent().unwrap()).unwrap();
            drop(w);

            let mut w = fs.open_append(&path).unwrap();
            assert_eq!(w.len(), 11);
            w.append(b"!").unwrap();
            assert_eq!(w.len(), 12);
            drop(w);
            assert_eq!(fs.file_len(&path).unwrap(), 12);

            let r = fs.open_read(&path).unwrap();
            assert_eq!(r.len(), 12);
            let mut buf = [0u8; 5];
            r.read_at(6, &mut buf).unwrap();
            assert_eq!(&buf, b"world");
            assert_eq!(r.read_to_vec(0, 12).unwrap(), b"hello world!");
            match fs.read_mode() {
                ReadMode::Mmap => assert_eq!(r.as_slice(), Some(&b"hello world!"[..])),
                ReadMode::Pread => assert_eq!(r.as_slice(), None),
            }
        }
    }

    #[test]
    fn create_new_refuses_an_existing_file() {
        let dir = tempfile::tempdir().unwrap();
        let fs = RealFs::new();
        let path = dir.path().join("f");
        drop(fs.create_new(&path).unwrap());
        let err = fs.create_new(&path).unwrap_err();
        assert_eq!(err.kind(), io::ErrorKind::AlreadyExists);
        assert_eq!(err.path(), path);
        let err = fs.open_append(&dir.path().join("missing")).unwrap_err();
        assert_eq!(err.kind(), io::ErrorKind::NotFound);
    }

    #[test]
    fn read_past_eof_names_path_and_offset() {
        for fs in both_modes() {
            let dir = tempfile::tempdir().unwrap();
            let path = dir.path().join("f");
            let mut w = fs.create_new(&path).unwrap();
            w.append(&[7; 10]).unwrap();
            drop(w);
            let r = fs.open_read(&path).unwrap();
            let mut buf = [0u8; 4];
            let err = r.read_at(8, &mut buf).unwrap_err();
            assert_eq!(err.kind(), io::ErrorKind::UnexpectedEof);
            let msg = err.to_string();
            assert!(msg.contains(&path.display().to_string()), "{msg}");
            assert!(msg.contains("offset 8"), "{msg}");
            assert!(r.read_at(u64::MAX, &mut buf).is_err());
            // A huge length is refused before allocating.
            assert!(r.read_to_vec(0, usize::MAX).is_err());
        }
    }

    #[test]
    fn truncation_under_a_pread_reader_is_an_error() {
        let dir = tempfile::tempdir().unwrap();
        let fs = RealFs::with_read_mode(ReadMode::Pread);
        let path = dir.path().join("f");
        let mut w = fs.create_new(&path).unwrap();
        w.append(&[1; 100]).unwrap();
        drop(w);
        let r = fs.open_read(&path).unwrap();
        OpenOptions::new()
            .write(true)
            .open(&path)
            .unwrap()
            .set_len(10)
            .unwrap();
        let mut buf = [0u8; 20];
        let err = r.read_at(50, &mut buf).unwrap_err();
        assert_eq!(err.kind(), io::ErrorKind::UnexpectedEof);
        assert_eq!(err.path(), path);
    }

    #[test]
    fn empty_file_opens_in_both_modes() {
        for fs in both_modes() {
            let dir = tempfile::tempdir().unwrap();
            let path = dir.path().join("empty");
            drop(fs.create_new(&path).unwrap());
            let r = fs.open_read(&path).unwrap();
            assert!(r.is_empty());
            r.read_at(0, &mut []).unwrap();
            assert!(r.read_at(0, &mut [0]).is_err());
            if fs.read_mode() == ReadMode::Mmap {
                assert_eq!(r.as_slice(), Some(&[][..]));
            }
        }
    }

    #[test]
    fn hard_link_names_the_same_file_twice_and_refuses_what_is_not_a_file() {
        let dir = tempfile::tempdir().unwrap();
        let fs = RealFs::new();
        let (a, b) = (dir.path().join("a"), dir.path().join("b"));
        fs.create_new(&a).unwrap().append(b"cells").unwrap();
        fs.hard_link(&a, &b).unwrap();
        fs.remove_file(&a).unwrap();
        assert_eq!(std::fs::read(&b).unwrap(), b"cells");
        fs.create_new(&a).unwrap();
        match fs.hard_link(&a, &b) {
            Err(Error::Io { source, .. }) => {
                assert_eq!(source.kind(), io::ErrorKind::AlreadyExists);
            }
            other => panic!("{other:?}"),
        }
        assert!(matches!(
            fs.hard_link(dir.path(), &dir.path().join("d")),
            Err(Error::NotAFile { .. })
        ));
    }

    #[test]
    fn rename_replaces_the_destination() {
        let dir = tempfile::tempdir().unwrap();
        let fs = RealFs::new();
        let (a, b) = (dir.path().join("a"), dir.path().join("b"));
        fs.create_new(&a).unwrap().append(b"new").unwrap();
        fs.create_new(&b).unwrap().append(b"old!").unwrap();
        fs.rename(&a, &b).unwrap();
        fs.sync_dir(dir.path()).unwrap();
        assert!(!fs.exists(&a).unwrap());
        assert_eq!(fs.file_len(&b).unwrap(), 3);
        assert_eq!(fs.open_read(&b).unwrap().as_slice(), Some(&b"new"[..]));
        let err = fs.rename(&a, &b).unwrap_err();
        assert!(matches!(err, Error::Rename { .. }));
        assert_eq!(err.kind(), io::ErrorKind::NotFound);
    }

    #[test]
    fn list_is_sorted_and_remove_works() {
        let dir = tempfile::tempdir().unwrap();
        let fs = RealFs::new();
        for name in ["c", "a", "b10", "b2"] {
            drop(fs.create_new(&dir.path().join(name)).unwrap());
        }
        fs.create_dir_all(&dir.path().join("d").join("e")).unwrap();
        assert_eq!(fs.list(dir.path()).unwrap(), ["a", "b10", "b2", "c", "d"]);
        fs.remove_file(&dir.path().join("a")).unwrap();
        fs.remove_dir_all(&dir.path().join("d")).unwrap();
        assert_eq!(fs.list(dir.path()).unwrap(), ["b10", "b2", "c"]);
        let err = fs.list(&dir.path().join("nope")).unwrap_err();
        assert_eq!(err.kind(), io::ErrorKind::NotFound);
    }

    #[test]
    fn a_removed_file_stays_readable_through_an_open_map() {
        let dir = tempfile::tempdir().unwrap();
        let fs = RealFs::new();
        let path = dir.path().join("f");
        fs.create_new(&path).unwrap().append(b"abc").unwrap();
        let r = fs.open_read(&path).unwrap();
        fs.remove_file(&path).unwrap();
        assert!(!fs.exists(&path).unwrap());
        assert_eq!(r.as_slice(), Some(&b"abc"[..]));
    }

    #[test]
    fn a_bounded_descriptor_cache_reads_many_files_with_few_descriptors() {
        let dir = tempfile::tempdir().unwrap();
        let fs = RealFs::with_max_open_files(3);
        let readers: Vec<_> = (0..20)
            .map(|i| {
                let path = dir.path().join(format!("f{i:02}"));
                fs.create_new(&path)
                    .unwrap()
                    .append(format!("content {i:02}").as_bytes())
                    .unwrap();
                fs.open_read(&path).unwrap()
            })
            .collect();
        assert_eq!(fs.descriptor_stats().unwrap().open, 3);
        for round in 0..3 {
            for (i, r) in readers.iter().enumerate() {
                assert_eq!(
                    r.read_to_vec(8, 2).unwrap(),
                    format!("{i:02}").as_bytes(),
                    "{round}"
                );
            }
        }
        let st = fs.descriptor_stats().unwrap();
        assert_eq!((st.readers, st.open), (20, 3));
        assert!(st.reopens >= 50, "{st:?}");
        // Removing, renaming over, and removing the directory of files still read keeps them
        // readable; their descriptors are pinned beyond the bound until the readers drop.
        fs.remove_file(&dir.path().join("f00")).unwrap();
        let other = dir.path().join("other");
        fs.create_new(&other)
            .unwrap()
            .append(b"replacement")
            .unwrap();
        fs.rename(&other, &dir.path().join("f01")).unwrap();
        fs.rename(&dir.path().join("f02"), &dir.path().join("moved"))
            .unwrap();
        for (i, r) in readers.iter().enumerate().take(3) {
            assert_eq!(r.read_to_vec(8, 2).unwrap(), format!("{i:02}").as_bytes());
        }
        let st = fs.descriptor_stats().unwrap();
        assert_eq!(st.pinned, 3, "{st:?}");
        assert!(st.open <= st.capacity + st.pinned, "{st:?}");
        fs.remove_dir_all(dir.path()).unwrap();
        for (i, r) in readers.iter().enumerate() {
            assert_eq!(r.read_to_vec(8, 2).unwrap(), format!("{i:02}").as_bytes());
        }
        assert_eq!(fs.descriptor_stats().unwrap().pinned, 20);
        drop(readers);
        let st = fs.descriptor_stats().unwrap();
        assert_eq!((st.readers, st.open, st.pinned), (0, 0, 0));
    }

    #[test]
    fn concurrent_readers_share_a_small_descriptor_cache() {
        let dir = tempfile::tempdir().unwrap();
        let fs = RealFs::with_max_open_files(2);
        let readers: Vec<_> = (0..8u8)
            .map(|i| {
                let path = dir.path().join(format!("f{i}"));
                fs.create_new(&path).unwrap().append(&[i; 4096]).unwrap();
                fs.open_read(&path).unwrap()
            })
            .collect();
        std::thread::scope(|scope| {
            for t in 0..4usize {
                let readers = &readers;
                scope.spawn(move || {
                    let mut buf = [0u8; 64];
                    for n in 0..2000usize {
                        let i = (n * 7 + t) % readers.len();
                        readers[i].read_at((n % 64 * 64) as u64, &mut buf).unwrap();
                        assert!(buf.iter().all(|&b| b as usize == i));
                    }
                });
            }
        });
        assert!(fs.descriptor_stats().unwrap().open <= 2);
    }

    /// Opens readers of `a` then `b` through one cached descriptor (so `a`'s is evicted),
    /// then swaps `a` behind the cache's back, as another program would.
    fn evicted_and_swapped(fs: &RealFs, a: &Path, b: &Path) -> [Arc<dyn ReadableFile>; 2] {
        fs.create_new(a).unwrap().append(b"aaaa").unwrap();
        fs.create_new(b).unwrap().append(b"bbbb").unwrap();
        let readers = [fs.open_read(a).unwrap(), fs.open_read(b).unwrap()];
        std::fs::remove_file(a).unwrap();
        std::fs::write(a, b"other bytes").unwrap();
        readers
    }

    #[test]
    fn an_evicted_file_replaced_behind_the_cache_is_an_error_naming_it() {
        let dir = tempfile::tempdir().unwrap();
        let fs = RealFs::with_max_open_files(1);
        let a = dir.path().join("a");
        let [ra, _rb] = evicted_and_swapped(&fs, &a, &dir.path().join("b"));
        let err = ra.read_to_vec(0, 4).unwrap_err();
        assert_eq!(err.path(), a);
        assert!(format!("{err}").contains("reopen"), "{err}");
    }

    #[test]
    fn a_reader_that_cannot_be_pinned_fails_the_removal_and_keeps_the_files() {
        let dir = tempfile::tempdir().unwrap();
        let sub = dir.path().join("region");
        let fs = RealFs::with_max_open_files(1);
        fs.create_dir_all(&sub).unwrap();
        let a = sub.join("a");
        // a is evicted, then swapped: it cannot be pinned.
        let _readers = evicted_and_swapped(&fs, &a, &dir.path().join("b"));
        let err = fs.remove_dir_all(&sub).unwrap_err();
        assert_eq!(err.path(), a, "{err}");
        assert!(fs.exists(&a).unwrap());
        assert_eq!(fs.descriptor_stats().unwrap().pinned, 0);
    }

    #[test]
    fn unbounded_pread_mode_keeps_no_cache() {
        let fs = RealFs::with_read_mode(ReadMode::Pread);
        assert_eq!(fs.descriptor_stats(), None);
        assert_eq!(RealFs::new().descriptor_stats(), None);
        assert_eq!(
            RealFs::with_max_open_files(0)
                .descriptor_stats()
                .unwrap()
                .capacity,
            1
        );
    }

    #[test]
    fn a_file_with_holes_is_read_with_pread_even_in_mmap_mode() {
        let dir = tempfile::tempdir().unwrap();
        let fs = RealFs::new();
        let sparse = dir.path().join("sparse");
        let mut w = fs.create_new(&sparse).unwrap();
        w.append(b"head").unwrap();
        w.reserve(1 << 20).unwrap();
        drop(w);
        let dense = dir.path().join("dense");
        fs.create_new(&dense).unwrap().append(&[7; 10_000]).unwrap();
        let r = fs.open_read(&sparse).unwrap();
        assert_eq!(r.as_slice(), None, "a file with holes was mapped");
        assert_eq!(r.read_to_vec(0, 6).unwrap(), b"head\0\0");
        assert_eq!(r.read_to_vec((1 << 20) - 2, 2).unwrap(), [0, 0]);
        let r = fs.open_read(&dense).unwrap();
        assert_eq!(r.as_slice().map(<[u8]>::len), Some(10_000));
    }

    #[cfg(unix)]
    #[test]
    fn engine_files_are_never_opened_through_a_link_or_as_a_fifo() {
        use crate::FileKind;
        let dir = tempfile::tempdir().unwrap();
        let target = dir.path().join("target");
        std::fs::write(&target, b"x").unwrap();
        let link = dir.path().join("link");
        std::os::unix::fs::symlink(&target, &link).unwrap();
        let dangling = dir.path().join("dangling");
        std::os::unix::fs::symlink(dir.path().join("created"), &dangling).unwrap();
        let fifo = dir.path().join("fifo");
        let c = std::ffi::CString::new(fifo.as_os_str().as_encoded_bytes()).unwrap();
        // SAFETY: a valid NUL-terminated path; mkfifo keeps nothing.
        assert_eq!(unsafe { libc::mkfifo(c.as_ptr(), 0o600) }, 0);
        let sub = dir.path().join("sub");
        std::fs::create_dir(&sub).unwrap();
        let refused = |r: Result<()>, path: &Path, kind: FileKind| match r {
            Err(Error::NotAFile {
                path: p, kind: k, ..
            }) => {
                assert_eq!((p.as_path(), k), (path, kind));
            }
            other => panic!("{}: {other:?}", path.display()),
        };
        for fs in [RealFs::new(), RealFs::with_read_mode(ReadMode::Pread)] {
            for (path, kind) in [
                (&link, FileKind::Symlink),
                (&dangling, FileKind::Symlink),
                (&fifo, FileKind::Fifo),
                (&sub, FileKind::Directory),
            ] {
                refused(fs.open_read(path).map(drop), path, kind);
                refused(fs.open_append(path).map(drop), path, kind);
                refused(fs.lock(path).map(drop), path, kind);
                refused(fs.file_len(path).map(drop), path, kind);
                assert!(fs.exists(path).unwrap());
            }
        }
        assert!(!dir.path().join("created").exists(), "a link was followed");
        // A cached reader reopening by path finds a FIFO there instead of waiting on it.
        let fs = RealFs::with_max_open_files(1);
        let a = dir.path().join("a");
        fs.create_new(&a).unwrap().append(b"aaaa").unwrap();
        let ra = fs.open_read(&a).unwrap();
        let b = dir.path().join("b");
        fs.create_new(&b).unwrap().append(b"bbbb").unwrap();
        let _rb = fs.open_read(&b).unwrap();
        std::fs::remove_file(&a).unwrap();
        std::fs::rename(&fifo, &a).unwrap();
        let err = ra.read_to_vec(0, 4).unwrap_err();
        assert_eq!(err.path(), a);
        assert!(format!("{err}").contains("reopen"), "{err}");
    }

    #[test]
    fn a_lock_file_removed_or_replaced_is_reported_by_its_state() {
        let dir = tempfile::tempdir().unwrap();
        let fs = RealFs::new();
        let path = dir.path().join("LOCK");
        let held = fs.lock(&path).unwrap();
        assert_eq!(held.state().unwrap(), LockState::Held);
        std::fs::remove_file(&path).unwrap();
        assert_eq!(held.state().unwrap(), LockState::Removed);
        // flock belongs to the file: a new file at the path locks although `held` lives.
        let other = fs.lock(&path).unwrap();
        assert_eq!(held.state().unwrap(), LockState::Replaced);
        assert_eq!(other.state().unwrap(), LockState::Held);
    }

    #[cfg(unix)]
    #[test]
    fn a_directory_lock_survives_the_removal_of_every_file_in_it() {
        let dir = tempfile::tempdir().unwrap();
        let fs = RealFs::new();
        let db = dir.path().join("db");
        fs.create_dir_all(&db).unwrap();
        let held = fs.lock_dir(&db).unwrap();
        assert_eq!(held.path(), db);
        drop(fs.lock(&db.join("LOCK")).unwrap());
        std::fs::remove_file(db.join("LOCK")).unwrap();
        let err = fs.lock_dir(&db).unwrap_err();
        assert!(matches!(err, Error::Locked { .. }), "{err:?}");
        assert_eq!(held.state().unwrap(), LockState::Held);
        // Through a link to the directory: the same directory, the same lock.
        let link = dir.path().join("link");
        std::os::unix::fs::symlink(&db, &link).unwrap();
        assert!(matches!(fs.lock_dir(&link), Err(Error::Locked { .. })));
        let via_link = {
            drop(held);
            fs.lock_dir(&link).unwrap()
        };
        assert_eq!(via_link.state().unwrap(), LockState::Held);
        assert!(fs.lock_dir(&db).is_err());
        drop(via_link);
        // Not a directory: an error at once (a FIFO would otherwise block the open).
        let f = db.join("file");
        std::fs::write(&f, b"").unwrap();
        assert_eq!(
            fs.lock_dir(&f).unwrap_err().kind(),
            io::ErrorKind::NotADirectory
        );
    }

    #[test]
    fn second_lock_in_the_same_process_is_locked_until_the_first_drops() {
        let dir = tempfile::tempdir().unwrap();
        let fs = RealFs::new();
        let path = dir.path().join("LOCK");
        let held = fs.lock(&path).unwrap();
        assert_eq!(held.path(), path);
        let err = fs.lock(&path).unwrap_err();
        assert!(matches!(err, Error::Locked { .. }), "{err:?}");
        assert_eq!(err.kind(), io::ErrorKind::WouldBlock);
        drop(held);
        let again = fs.lock(&path).unwrap();
        drop(again);
        assert!(fs.exists(&path).unwrap());
    }
}
