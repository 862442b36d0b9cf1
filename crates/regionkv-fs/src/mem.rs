//! [`MemFs`]: an in-memory [`Fs`] that knows what a power loss would keep.
//!
//! It follows LevelDB's `FaultInjectionTestEnv` and RocksDB's `FaultInjectionTestFS`. Files are
//! inodes, each holding its bytes, its append position (`end`: bytes past it are a reserved zero
//! tail), how many appended bytes are synced (`synced_len`) and the length a crash keeps at
//! least (`synced_size`: a synced reservation, read back as zeros). Names live in
//! two namespaces, both mapping a path to an inode:
//!
//! - the **live** namespace, which every operation reads and changes, and
//! - the **durable** namespace, what a crash would leave. [`Fs::sync_dir`] of a directory copies
//!   the live entries of that directory (and only those) into it, so creates, renames and
//!   removes are not durable until their directory is synced.
//!
//! [`MemFs::crash`] turns the live state into what would survive, according to a [`CrashMode`],
//! and ends the simulated process: writers and locks taken before it stop working.
//!
//! Simplifications, each a subset of what real file systems may do:
//!
//! - Directories made by [`Fs::create_dir_all`] and removals by [`Fs::remove_dir_all`] are
//!   durable at once; only file entries are tracked per directory. Renaming a directory is not
//!   supported (kind [`Unsupported`](io::ErrorKind::Unsupported)).
//! - `sync_data` and `sync_all` both make all appended bytes of the file, and its length,
//!   durable.
//! - A reader from [`Fs::open_read`] sees the file as it was when opened (the engine only reads
//!   files it no longer writes). Snapshots share memory with the file until it is changed again.
//! - Paths are compared after dropping `.` components and redundant separators; `..` is not
//!   resolved. A path with no parent (`/` or the empty path) is an always-present root.
//!
//! Invariants: every inode named by either namespace, or open in a live writer, is in the inode
//! table, and no other inode is; `synced_len <= end <= data.len()` for every inode.

use std::collections::{BTreeMap, BTreeSet};
use std::fmt;
use std::io;
use std::path::{Component, Path, PathBuf};
use std::sync::Arc;

use parking_lot::Mutex;

use crate::rng::SplitMix64;
use crate::{
    Error, FileLock, Fs, LockState, ReadableFile, Result, WritableFile, check_range, utf8_name,
};

/// What a simulated power loss ([`MemFs::crash`]) keeps of the state that was not yet durable.
///
/// Files whose names vanish lose their data too. After any crash everything that survived is
/// durable.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum CrashMode {
    /// Every file is cut back to its synced bytes, and the namespace reverts to the durable one:
    /// unsynced creates vanish, unsynced renames revert (the old name is back and the new name
    /// is gone or names its previous durable file again), unsynced removes come back.
    DropUnsynced,
    /// Like [`DropUnsynced`](CrashMode::DropUnsynced), but each file keeps a random prefix of
    /// its unsynced bytes (from none to all), drawn from `seed`.
    KeepRandomPrefix {
        /// Fixes the prefix lengths.
        seed: u64,
    },
    /// Like [`KeepRandomPrefix`](CrashMode::KeepRandomPrefix), and then the kept unsynced bytes
    /// that lie in the last [`PAGE_SIZE`](CrashMode::PAGE_SIZE) page (aligned to file offsets)
    /// of what was kept are garbled: each of them is changed to a different, random value.
    /// Synced bytes are never garbled.
    TornPage {
        /// Fixes the prefix lengths and the garbage.
        seed: u64,
    },
    /// The namespace reverts to the durable one, but every file keeps all its appended bytes.
    DropUnsyncedDirEntries,
    /// The live namespace is kept as it is (creates, renames and removes all persisted), but
    /// every file is cut back to its synced bytes: the "rename durable before the data" case.
    KeepRenamesDropData,
}

impl CrashMode {
    /// The page size of [`CrashMode::TornPage`].
    pub const PAGE_SIZE: usize = 4096;

    /// One of each mode, with `seed` for the random ones (for crash matrices).
    pub fn all(seed: u64) -> [CrashMode; 5] {
        [
            CrashMode::DropUnsynced,
            CrashMode::KeepRandomPrefix { seed },
            CrashMode::TornPage { seed },
            CrashMode::DropUnsyncedDirEntries,
            CrashMode::KeepRenamesDropData,
        ]
    }
}

/// An in-memory file system that tracks durability and can simulate a crash.
///
/// Cloning is cheap and gives another handle to the same file system, so a test can keep one
/// while the engine holds another as `Arc<dyn Fs>`.
#[derive(Clone, Default)]
pub struct MemFs {
    state: Arc<Mutex<State>>,
}

/// A file's contents.
#[derive(Debug)]
struct Inode {
    /// Every appended byte. Shared with readers' snapshots until the next change.
    data: Arc<Vec<u8>>,
    /// The append position: `data[end..]` is a reserved zero tail.
    end: usize,
    /// How many leading bytes of `data` are durable.
    synced_len: usize,
    /// The file length a crash keeps at least (zeros past the kept bytes): the length at the
    /// last sync.
    synced_size: usize,
    /// Writers of the current generation open on this inode; keeps an unlinked inode alive.
    open_writers: usize,
}

impl Inode {
    /// What `fdatasync` makes durable: every appended byte and the file's length.
    fn sync(&mut self) {
        self.synced_len = self.end;
        self.synced_size = self.data.len();
    }
}

/// Everything behind a [`MemFs`], under one lock.
#[derive(Debug, Default)]
struct State {
    inodes: BTreeMap<u64, Inode>,
    next_inode: u64,
    /// What the running process sees.
    live: BTreeMap<PathBuf, u64>,
    /// What a crash would leave.
    durable: BTreeMap<PathBuf, u64>,
    /// Directories (always durable).
    dirs: BTreeSet<PathBuf>,
    /// Held file locks: the locked inode to the id of the holding lock object. A lock
    /// belongs to the file, not its name, as `flock` does: remove the name, and a new file
    /// there can be locked again.
    locks: BTreeMap<u64, u64>,
    /// Held directory locks: directory to the id of the holding lock object.
    dir_locks: BTreeMap<PathBuf, u64>,
    next_lock: u64,
    /// Bumped by every crash; handles from an older generation are dead.
    generation: u64,
}

/// `path` without `.` components or redundant separators.
fn normalize(path: &Path) -> PathBuf {
    path.components()
        .filter(|c| !matches!(c, Component::CurDir))
        .collect()
}

fn not_found(op: &'static str, path: &Path) -> Error {
    Error::simulated(
        op,
        path,
        io::ErrorKind::NotFound,
        "no such file or directory",
    )
}

impl State {
    fn dir_exists(&self, dir: &Path) -> bool {
        dir.parent().is_none() || self.dirs.contains(dir)
    }

    /// Fails unless the parent directory of `key` exists.
    fn check_parent(&self, op: &'static str, path: &Path, key: &Path) -> Result<()> {
        match key.parent() {
            Some(parent) if !self.dir_exists(parent) => Err(not_found(op, path)),
            _ => Ok(()),
        }
    }

    /// The inode of the live file at `key`.
    fn file(&self, op: &'static str, path: &Path, key: &Path) -> Result<u64> {
        match self.live.get(key) {
            Some(&id) => Ok(id),
            None if self.dirs.contains(key) => Err(Error::NotAFile {
                op,
                path: path.to_path_buf(),
                kind: crate::FileKind::Directory,
            }),
            None => Err(not_found(op, path)),
        }
    }

    fn inode_mut(&mut self, op: &'static str, path: &Path, key: &Path) -> Result<&mut Inode> {
        let id = self.file(op, path, key)?;
        self.inodes.get_mut(&id).ok_or_else(|| not_found(op, path))
    }

    fn new_inode(&mut self, open_writers: usize) -> u64 {
        let id = self.next_inode;
        self.next_inode += 1;
        self.inodes.insert(
            id,
            Inode {
                data: Arc::default(),
                end: 0,
                synced_len: 0,
                synced_size: 0,
                open_writers,
            },
        );
        id
    }

    /// Drops inodes that no name and no live writer refers to.
    fn collect_garbage(&mut self) {
        let named: BTreeSet<u64> = self
            .live
            .values()
            .chain(self.durable.values())
            .copied()
            .collect();
        self.inodes
            .retain(|id, inode| inode.open_writers > 0 || named.contains(id));
    }

    /// Sorted paths of a namespace.
    fn paths(namespace: &BTreeMap<PathBuf, u64>) -> Vec<PathBuf> {
        namespace.keys().cloned().collect()
    }
}

impl MemFs {
    /// An empty file system.
    pub fn new() -> Self {
        MemFs::default()
    }

    /// Simulates `kill -9` of the process using the file system: its writers and locks stop
    /// working (their calls fail with [`Error::Crashed`]; locks are released), while every
    /// byte it handed to the "kernel" stays, durable or not: a later [`MemFs::crash`] can
    /// still drop what was never synced.
    pub fn kill_process(&self) {
        let mut st = self.state.lock();
        st.generation += 1;
        st.locks.clear();
        st.dir_locks.clear();
        for inode in st.inodes.values_mut() {
            inode.open_writers = 0;
        }
        tracing::debug!(generation = st.generation, "simulated process kill");
    }

    /// Simulates a power loss followed by a restart: what was not durable is treated as
    /// `mode` says, everything left becomes durable, and the writers and locks of the old
    /// process stop working (their calls fail with [`Error::Crashed`]; locks are released).
    pub fn crash(&self, mode: CrashMode) {
        let mut guard = self.state.lock();
        let st = &mut *guard;
        match mode {
            CrashMode::KeepRenamesDropData => {}
            CrashMode::DropUnsynced
            | CrashMode::KeepRandomPrefix { .. }
            | CrashMode::TornPage { .. }
            | CrashMode::DropUnsyncedDirEntries => st.live = st.durable.clone(),
        }
        st.durable = st.live.clone();
        st.generation += 1;
        st.locks.clear();
        st.dir_locks.clear();
        for inode in st.inodes.values_mut() {
            inode.open_writers = 0;
        }
        st.collect_garbage();

        let seed = match mode {
            CrashMode::KeepRandomPrefix { seed } | CrashMode::TornPage { seed } => seed,
            _ => 0,
        };
        let mut rng = SplitMix64::new(seed);
        // Inodes are visited in id order, so the outcome depends on the seed alone.
        for inode in st.inodes.values_mut() {
            let len = inode.data.len();
            let end = inode.end.min(len);
            let synced = inode.synced_len.min(end);
            let keep = match mode {
                CrashMode::DropUnsynced | CrashMode::KeepRenamesDropData => synced,
                CrashMode::DropUnsyncedDirEntries => len,
                CrashMode::KeepRandomPrefix { .. } | CrashMode::TornPage { .. } => {
                    synced + rng.up_to((end - synced) as u64) as usize
                }
            };
            if keep < len {
                Arc::make_mut(&mut inode.data).truncate(keep);
            }
            if matches!(mode, CrashMode::TornPage { .. }) && keep > synced {
                let page_start = (keep - 1) / CrashMode::PAGE_SIZE * CrashMode::PAGE_SIZE;
                let start = page_start.max(synced);
                let data = Arc::make_mut(&mut inode.data);
                for byte in data.get_mut(start..keep).unwrap_or_default() {
                    *byte ^= rng.nonzero_byte();
                }
            }
            // A synced reservation survives: appended bytes that did not read back as the
            // zeros the reservation put there.
            if inode.synced_size > inode.data.len() {
                Arc::make_mut(&mut inode.data).resize(inode.synced_size, 0);
            }
            inode.end = inode.data.len();
            inode.synced_len = inode.data.len();
            inode.synced_size = inode.data.len();
        }
        tracing::debug!(
            ?mode,
            files = st.live.len(),
            generation = st.generation,
            "simulated crash"
        );
    }

    /// All bytes appended to the live file at `path`, synced or not.
    pub fn contents(&self, path: &Path) -> Result<Vec<u8>> {
        let st = self.state.lock();
        let id = st.file("contents", path, &normalize(path))?;
        Ok(st
            .inodes
            .get(&id)
            .map(|inode| inode.data.to_vec())
            .unwrap_or_default())
    }

    /// How many leading bytes of the live file at `path` are durable.
    pub fn synced_len(&self, path: &Path) -> Result<u64> {
        let st = self.state.lock();
        let id = st.file("synced_len", path, &normalize(path))?;
        Ok(st
            .inodes
            .get(&id)
            .map_or(0, |inode| inode.synced_len as u64))
    }

    /// The paths of all files in the live namespace, sorted.
    pub fn files(&self) -> Vec<PathBuf> {
        State::paths(&self.state.lock().live)
    }

    /// The paths of all files in the durable namespace (what a crash would leave), sorted.
    pub fn durable_files(&self) -> Vec<PathBuf> {
        State::paths(&self.state.lock().durable)
    }

    /// XORs the byte at `offset` of the file at `path` with `xor_mask`, as silent media
    /// corruption would. Readers opened earlier keep their snapshot.
    pub fn corrupt(&self, path: &Path, offset: u64, xor_mask: u8) -> Result<()> {
        let mut st = self.state.lock();
        let inode = st.inode_mut("corrupt", path, &normalize(path))?;
        let range = check_range(path, offset, 1, inode.data.len() as u64)?;
        for byte in Arc::make_mut(&mut inode.data)
            .get_mut(range)
            .unwrap_or_default()
        {
            *byte ^= xor_mask;
        }
        Ok(())
    }

    /// Sets the length of the file at `path`, cutting it or extending it with zeros like
    /// `ftruncate`. Readers opened earlier keep their snapshot.
    pub fn truncate(&self, path: &Path, len: u64) -> Result<()> {
        let mut st = self.state.lock();
        let inode = st.inode_mut("truncate", path, &normalize(path))?;
        let len = usize::try_from(len).map_err(|_| {
            Error::simulated(
                "truncate",
                path,
                io::ErrorKind::InvalidInput,
                "length too large",
            )
        })?;
        Arc::make_mut(&mut inode.data).resize(len, 0);
        inode.end = inode.end.min(len);
        inode.synced_len = inode.synced_len.min(len);
        inode.synced_size = inode.synced_size.min(len);
        Ok(())
    }
}

impl fmt::Debug for MemFs {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let mut d = f.debug_struct("MemFs");
        // try_lock: formatting must not deadlock when the state lock is already held.
        match self.state.try_lock() {
            Some(st) => d
                .field("files", &st.live.len())
                .field("durable_files", &st.durable.len())
                .field("dirs", &st.dirs.len())
                .field("generation", &st.generation),
            None => d.field("state", &"<locked>"),
        };
        d.finish()
    }
}

impl Fs for MemFs {
    fn create_dir_all(&self, path: &Path) -> Result<()> {
        let op = "create_dir_all";
        let key = normalize(path);
        let mut st = self.state.lock();
        let mut missing = Vec::new();
        for dir in key.ancestors().filter(|d| d.parent().is_some()) {
            if st.live.contains_key(dir) {
                let kind = if dir == key {
                    io::ErrorKind::AlreadyExists
                } else {
                    io::ErrorKind::NotADirectory
                };
                return Err(Error::simulated(op, path, kind, "a file is in the way"));
            }
            if !st.dirs.contains(dir) {
                missing.push(dir.to_path_buf());
            }
        }
        st.dirs.extend(missing);
        Ok(())
    }

    fn create_new(&self, path: &Path) -> Result<Box<dyn WritableFile>> {
        let op = "create_new";
        let key = normalize(path);
        let mut st = self.state.lock();
        st.check_parent(op, path, &key)?;
        if st.live.contains_key(&key) || st.dir_exists(&key) {
            return Err(Error::simulated(
                op,
                path,
                io::ErrorKind::AlreadyExists,
                "file exists",
            ));
        }
        let inode = st.new_inode(1);
        st.live.insert(key, inode);
        Ok(Box::new(MemWritableFile {
            state: Arc::clone(&self.state),
            inode,
            generation: st.generation,
            path: path.to_path_buf(),
            len: 0,
        }))
    }

    fn open_append(&self, path: &Path) -> Result<Box<dyn WritableFile>> {
        let mut st = self.state.lock();
        let generation = st.generation;
        let inode = st.file("open_append", path, &normalize(path))?;
        let len = match st.inodes.get_mut(&inode) {
            Some(i) => {
                i.open_writers += 1;
                // Appends go after the whole file, a zero tail included (as on a real file).
                i.end = i.data.len();
                i.end as u64
            }
            None => return Err(not_found("open_append", path)),
        };
        Ok(Box::new(MemWritableFile {
            state: Arc::clone(&self.state),
            inode,
            generation,
            path: path.to_path_buf(),
            len,
        }))
    }

    fn open_read(&self, path: &Path) -> Result<Arc<dyn ReadableFile>> {
        let st = self.state.lock();
        let id = st.file("open_read", path, &normalize(path))?;
        let data = st
            .inodes
            .get(&id)
            .map(|inode| Arc::clone(&inode.data))
            .ok_or_else(|| not_found("open_read", path))?;
        Ok(Arc::new(MemReadableFile {
            path: path.to_path_buf(),
            data,
        }))
    }

    fn rename(&self, from: &Path, to: &Path) -> Result<()> {
        let err = |kind: io::ErrorKind, msg: &str| Error::Rename {
            from: from.to_path_buf(),
            to: to.to_path_buf(),
            source: io::Error::new(kind, msg.to_owned()),
        };
        let (src, dst) = (normalize(from), normalize(to));
        let mut st = self.state.lock();
        let Some(&inode) = st.live.get(&src) else {
            return Err(if st.dirs.contains(&src) {
                err(io::ErrorKind::Unsupported, "MemFs renames files only")
            } else {
                err(io::ErrorKind::NotFound, "no such file")
            });
        };
        if st.dir_exists(&dst) {
            return Err(err(
                io::ErrorKind::IsADirectory,
                "destination is a directory",
            ));
        }
        if dst.parent().is_some_and(|p| !st.dir_exists(p)) {
            return Err(err(
                io::ErrorKind::NotFound,
                "destination directory missing",
            ));
        }
        if src != dst {
            st.live.remove(&src);
            st.live.insert(dst, inode);
            st.collect_garbage();
        }
        Ok(())
    }

    fn hard_link(&self, from: &Path, to: &Path) -> Result<()> {
        let op = "hard_link";
        let (src, dst) = (normalize(from), normalize(to));
        let mut st = self.state.lock();
        let inode = st.file(op, from, &src)?;
        if st.live.contains_key(&dst) || st.dir_exists(&dst) {
            return Err(Error::simulated(
                op,
                to,
                io::ErrorKind::AlreadyExists,
                "destination exists",
            ));
        }
        if dst.parent().is_some_and(|p| !st.dir_exists(p)) {
            return Err(not_found(op, to));
        }
        // A second name of the same inode: appends through either reach both, and the
        // name is durable once its directory is synced (as a created file's is).
        st.live.insert(dst, inode);
        Ok(())
    }

    fn remove_file(&self, path: &Path) -> Result<()> {
        let key = normalize(path);
        let mut st = self.state.lock();
        st.file("remove_file", path, &key)?;
        st.live.remove(&key);
        st.collect_garbage();
        Ok(())
    }

    fn remove_dir_all(&self, path: &Path) -> Result<()> {
        let op = "remove_dir_all";
        let key = normalize(path);
        let mut st = self.state.lock();
        if !st.dirs.contains(&key) {
            return Err(if st.live.contains_key(&key) {
                Error::simulated(op, path, io::ErrorKind::NotADirectory, "not a directory")
            } else {
                not_found(op, path)
            });
        }
        st.dirs.retain(|d| !d.starts_with(&key));
        st.live.retain(|p, _| !p.starts_with(&key));
        st.durable.retain(|p, _| !p.starts_with(&key));
        st.collect_garbage();
        Ok(())
    }

    fn list(&self, dir: &Path) -> Result<Vec<String>> {
        let op = "list";
        let key = normalize(dir);
        let st = self.state.lock();
        if !st.dir_exists(&key) {
            return Err(if st.live.contains_key(&key) {
                Error::simulated(op, dir, io::ErrorKind::NotADirectory, "not a directory")
            } else {
                not_found(op, dir)
            });
        }
        let names: BTreeSet<String> = st
            .live
            .keys()
            .chain(st.dirs.iter())
            .filter(|p| p.parent() == Some(key.as_path()))
            .filter_map(|p| p.file_name().and_then(|name| utf8_name(dir, name)))
            .collect();
        Ok(names.into_iter().collect())
    }

    fn exists(&self, path: &Path) -> Result<bool> {
        let key = normalize(path);
        let st = self.state.lock();
        Ok(st.live.contains_key(&key) || st.dir_exists(&key))
    }

    fn file_len(&self, path: &Path) -> Result<u64> {
        let st = self.state.lock();
        let id = st.file("file_len", path, &normalize(path))?;
        Ok(st
            .inodes
            .get(&id)
            .map_or(0, |inode| inode.data.len() as u64))
    }

    fn sync_dir(&self, dir: &Path) -> Result<()> {
        let op = "sync_dir";
        let key = normalize(dir);
        let mut guard = self.state.lock();
        let st = &mut *guard;
        if !st.dir_exists(&key) {
            return Err(if st.live.contains_key(&key) {
                Error::simulated(op, dir, io::ErrorKind::NotADirectory, "not a directory")
            } else {
                not_found(op, dir)
            });
        }
        let in_dir = |p: &Path| p.parent() == Some(key.as_path());
        st.durable.retain(|p, _| !in_dir(p));
        st.durable.extend(
            st.live
                .iter()
                .filter(|(p, _)| in_dir(p))
                .map(|(p, &id)| (p.clone(), id)),
        );
        st.collect_garbage();
        Ok(())
    }

    fn lock(&self, path: &Path) -> Result<Box<dyn FileLock>> {
        let op = "lock";
        let key = normalize(path);
        let mut st = self.state.lock();
        let inode = match st.live.get(&key) {
            Some(&inode) => inode,
            None if st.dir_exists(&key) => {
                return Err(Error::NotAFile {
                    op,
                    path: path.to_path_buf(),
                    kind: crate::FileKind::Directory,
                });
            }
            None => {
                st.check_parent(op, path, &key)?;
                let inode = st.new_inode(0);
                st.live.insert(key.clone(), inode);
                inode
            }
        };
        if st.locks.contains_key(&inode) {
            return Err(Error::Locked {
                path: path.to_path_buf(),
            });
        }
        let id = st.next_lock;
        st.next_lock += 1;
        st.locks.insert(inode, id);
        Ok(Box::new(MemFileLock {
            state: Arc::clone(&self.state),
            path: path.to_path_buf(),
            key,
            target: LockTarget::File(inode),
            id,
        }))
    }

    fn lock_dir(&self, dir: &Path) -> Result<Box<dyn FileLock>> {
        let op = "lock_dir";
        let key = normalize(dir);
        let mut st = self.state.lock();
        if !st.dir_exists(&key) {
            return Err(if st.live.contains_key(&key) {
                Error::simulated(op, dir, io::ErrorKind::NotADirectory, "not a directory")
            } else {
                not_found(op, dir)
            });
        }
        if st.dir_locks.contains_key(&key) {
            return Err(Error::Locked {
                path: dir.to_path_buf(),
            });
        }
        let id = st.next_lock;
        st.next_lock += 1;
        st.dir_locks.insert(key.clone(), id);
        Ok(Box::new(MemFileLock {
            state: Arc::clone(&self.state),
            path: dir.to_path_buf(),
            key,
            target: LockTarget::Dir,
            id,
        }))
    }
}

/// A writer on a [`MemFs`] inode.
struct MemWritableFile {
    state: Arc<Mutex<State>>,
    inode: u64,
    /// The process generation that opened it.
    generation: u64,
    path: PathBuf,
    /// The inode's length after the last call through this writer.
    len: u64,
}

impl MemWritableFile {
    /// Runs `f` on this writer's inode, unless a crash has ended the process that opened it.
    fn with_inode<T>(&mut self, op: &'static str, f: impl FnOnce(&mut Inode) -> T) -> Result<T> {
        let mut st = self.state.lock();
        if st.generation != self.generation {
            return Err(Error::Crashed {
                op,
                path: self.path.clone(),
            });
        }
        let inode = st
            .inodes
            .get_mut(&self.inode)
            .ok_or_else(|| not_found(op, &self.path))?;
        let out = f(inode);
        self.len = inode.end as u64;
        Ok(out)
    }
}

impl WritableFile for MemWritableFile {
    fn append(&mut self, buf: &[u8]) -> Result<()> {
        self.with_inode("append", |inode| {
            let data = Arc::make_mut(&mut inode.data);
            // Overwrite what is reserved, extend with the rest.
            let end = inode.end.min(data.len());
            let inside = buf.len().min(data.len() - end);
            let (over, beyond) = buf.split_at(inside);
            if let Some(slot) = data.get_mut(end..end + inside) {
                slot.copy_from_slice(over);
            }
            data.extend_from_slice(beyond);
            inode.end = end + buf.len();
        })
    }

    fn sync_data(&mut self) -> Result<()> {
        self.with_inode("sync_data", Inode::sync)
    }

    fn sync_all(&mut self) -> Result<()> {
        self.with_inode("sync_all", Inode::sync)
    }

    fn reserve(&mut self, len: u64) -> Result<()> {
        let len = usize::try_from(len).map_err(|_| {
            Error::simulated(
                "reserve",
                &self.path,
                io::ErrorKind::InvalidInput,
                "length too large",
            )
        })?;
        self.with_inode("reserve", |inode| {
            if len > inode.data.len() {
                Arc::make_mut(&mut inode.data).resize(len, 0);
            }
        })
    }

    fn trim(&mut self) -> Result<()> {
        self.with_inode("trim", |inode| {
            if inode.data.len() > inode.end {
                Arc::make_mut(&mut inode.data).truncate(inode.end);
            }
        })
    }

    fn len(&self) -> u64 {
        self.len
    }

    fn path(&self) -> &Path {
        &self.path
    }
}

impl fmt::Debug for MemWritableFile {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("MemWritableFile")
            .field("path", &self.path)
            .field("inode", &self.inode)
            .field("generation", &self.generation)
            .field("len", &self.len)
            .finish()
    }
}

impl Drop for MemWritableFile {
    fn drop(&mut self) {
        let mut st = self.state.lock();
        if st.generation != self.generation {
            return; // The crash already closed it.
        }
        if let Some(inode) = st.inodes.get_mut(&self.inode) {
            inode.open_writers = inode.open_writers.saturating_sub(1);
        }
        st.collect_garbage();
    }
}

/// A reader's snapshot of a [`MemFs`] file.
struct MemReadableFile {
    path: PathBuf,
    data: Arc<Vec<u8>>,
}

impl ReadableFile for MemReadableFile {
    fn len(&self) -> u64 {
        self.data.len() as u64
    }

    fn read_at(&self, offset: u64, buf: &mut [u8]) -> Result<()> {
        let range = check_range(&self.path, offset, buf.len(), self.len())?;
        let src = self
            .data
            .get(range)
            .ok_or_else(|| not_found("read_at", &self.path))?;
        buf.copy_from_slice(src);
        Ok(())
    }

    fn as_slice(&self) -> Option<&[u8]> {
        Some(&self.data)
    }

    fn path(&self) -> &Path {
        &self.path
    }
}

impl fmt::Debug for MemReadableFile {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("MemReadableFile")
            .field("path", &self.path)
            .field("len", &self.data.len())
            .finish()
    }
}

/// What a [`MemFileLock`] holds.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum LockTarget {
    /// A lock file's inode.
    File(u64),
    /// The directory at the lock's key.
    Dir,
}

/// A held lock on a [`MemFs`] lock file or directory.
struct MemFileLock {
    state: Arc<Mutex<State>>,
    path: PathBuf,
    key: PathBuf,
    target: LockTarget,
    /// Distinguishes this holder from a later one after a crash released it.
    id: u64,
}

impl FileLock for MemFileLock {
    fn path(&self) -> &Path {
        &self.path
    }

    fn state(&self) -> Result<LockState> {
        let st = self.state.lock();
        Ok(match self.target {
            LockTarget::Dir if st.dir_exists(&self.key) => LockState::Held,
            LockTarget::Dir => LockState::Removed,
            LockTarget::File(inode) => match st.live.get(&self.key) {
                Some(&now) if now == inode => LockState::Held,
                Some(_) => LockState::Replaced,
                None if st.dir_exists(&self.key) => LockState::Replaced,
                None => LockState::Removed,
            },
        })
    }
}

impl fmt::Debug for MemFileLock {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("MemFileLock")
            .field("path", &self.path)
            .field("id", &self.id)
            .finish()
    }
}

impl Drop for MemFileLock {
    fn drop(&mut self) {
        let mut st = self.state.lock();
        match self.target {
            LockTarget::File(inode) => {
                if st.locks.get(&inode) == Some(&self.id) {
                    st.locks.remove(&inode);
                }
            }
            LockTarget::Dir => {
                if st.dir_locks.get(&self.key) == Some(&self.id) {
                    st.dir_locks.remove(&self.key);
                }
            }
        }
    }
}

#[cfg(test)]
#[allow(clippy::unwrap_used)]
mod tests {
    use super::*;
    use proptest::prelude::*;

    fn p(s: &str) -> &Path {
        Path::new(s)
    }

    /// A MemFs with a durable `/db` directory.
    fn fs_with_db() -> MemFs {
        let fs = MemFs::new();
        fs.create_dir_all(p("/db")).unwrap();
        fs
    }

    /// Creates `path` holding `synced` (synced) followed by `unsynced`.
    fn write(fs: &MemFs, path: &str, synced: &[u8], unsynced: &[u8]) {
        let mut w = fs.create_new(p(path)).unwrap();
        w.append(synced).unwrap();
        w.sync_data().unwrap();
        w.append(unsynced).unwrap();
    }

    fn read_all(fs: &MemFs, path: &str) -> Vec<u8> {
        let r = fs.open_read(p(path)).unwrap();
        r.read_to_vec(0, usize::try_from(r.len()).unwrap()).unwrap()
    }

    /// Creates `path` holding `bytes`, reserved to `len`, all of it (name included) durable.
    fn durable_reserved(fs: &MemFs, path: &str, bytes: &[u8], len: u64) -> Box<dyn WritableFile> {
        let mut w = fs.create_new(p(path)).unwrap();
        w.append(bytes).unwrap();
        w.reserve(len).unwrap();
        w.sync_data().unwrap();
        fs.sync_dir(p(path).parent().unwrap()).unwrap();
        w
    }

    #[test]
    fn a_killed_process_keeps_its_unsynced_bytes_until_a_power_cut() {
        let fs = fs_with_db();
        fs.sync_dir(p("/db")).unwrap();
        write(&fs, "/db/f", b"synced ", b"unsynced");
        fs.sync_dir(p("/db")).unwrap();
        let lock = fs.lock(p("/db/LOCK")).unwrap();
        fs.kill_process();
        // Its lock is free, its bytes are all there...
        drop(fs.lock(p("/db/LOCK")).unwrap());
        drop(lock);
        assert_eq!(read_all(&fs, "/db/f"), b"synced unsynced");
        // ...but what it never synced is still not durable.
        fs.crash(CrashMode::DropUnsynced);
        assert_eq!(read_all(&fs, "/db/f"), b"synced ");
    }

    #[test]
    fn appends_fill_a_reserved_tail_and_trim_cuts_it() {
        let fs = fs_with_db();
        let mut w = fs.create_new(p("/db/log")).unwrap();
        w.append(b"ab").unwrap();
        w.reserve(8).unwrap();
        assert_eq!(w.len(), 2);
        assert_eq!(read_all(&fs, "/db/log"), b"ab\0\0\0\0\0\0");
        w.append(b"cdefghij").unwrap();
        assert_eq!(w.len(), 10);
        assert_eq!(read_all(&fs, "/db/log"), b"abcdefghij");
        w.reserve(16).unwrap();
        w.append(b"k").unwrap();
        w.trim().unwrap();
        assert_eq!(read_all(&fs, "/db/log"), b"abcdefghijk");
        assert_eq!(w.len(), 11);
    }

    #[test]
    fn a_crash_keeps_a_synced_reservation_as_zeros_in_place_of_lost_appends() {
        for mode in CrashMode::all(7) {
            let fs = fs_with_db();
            let mut w = durable_reserved(&fs, "/db/log", b"synced", 64);
            w.append(b"unsynced").unwrap();
            // Neither an unsynced trim nor an unsynced larger reservation is durable.
            w.trim().unwrap();
            w.reserve(128).unwrap();
            fs.crash(mode);
            let got = read_all(&fs, "/db/log");
            match mode {
                CrashMode::DropUnsyncedDirEntries => assert_eq!(got.len(), 128, "{mode:?}"),
                _ => assert_eq!(got.len(), 64, "{mode:?}"),
            }
            assert_eq!(&got[..6], b"synced", "{mode:?}");
            // Whatever of the unsynced append survived is a prefix of it, maybe garbled in
            // the torn page; past it only zeros.
            let kept = got[6..14]
                .iter()
                .rposition(|&b| b != 0)
                .map_or(0, |i| i + 1);
            if !matches!(mode, CrashMode::TornPage { .. }) {
                assert_eq!(&got[6..6 + kept], &b"unsynced"[..kept], "{mode:?}");
            }
            assert!(got[6 + kept..].iter().all(|&b| b == 0), "{mode:?}");
            // A writer reopened after the crash appends after the whole file.
            let mut w = fs.open_append(p("/db/log")).unwrap();
            assert_eq!(w.len(), got.len() as u64);
            w.append(b"!").unwrap();
            assert_eq!(read_all(&fs, "/db/log").len(), got.len() + 1);
        }
    }

    #[test]
    fn a_synced_trim_survives_a_crash() {
        let fs = fs_with_db();
        let mut w = durable_reserved(&fs, "/db/log", b"abc", 64);
        w.trim().unwrap();
        w.sync_data().unwrap();
        fs.crash(CrashMode::DropUnsynced);
        assert_eq!(read_all(&fs, "/db/log"), b"abc");
    }

    #[test]
    fn unsynced_data_is_lost_synced_data_is_not() {
        let fs = fs_with_db();
        write(&fs, "/db/a", b"synced", b" unsynced");
        fs.sync_dir(p("/db")).unwrap();
        assert_eq!(fs.contents(p("/db/a")).unwrap(), b"synced unsynced");
        assert_eq!(fs.synced_len(p("/db/a")).unwrap(), 6);
        fs.crash(CrashMode::DropUnsynced);
        assert_eq!(read_all(&fs, "/db/a"), b"synced");
    }

    #[test]
    fn a_synced_file_needs_its_directory_synced_to_survive() {
        let fs = fs_with_db();
        write(&fs, "/db/a", b"data", b"");
        fs.crash(CrashMode::DropUnsynced);
        assert!(!fs.exists(p("/db/a")).unwrap());
        assert!(
            fs.exists(p("/db")).unwrap(),
            "directories are durable at once"
        );

        write(&fs, "/db/a", b"data", b"");
        fs.sync_dir(p("/db")).unwrap();
        assert_eq!(fs.durable_files(), [PathBuf::from("/db/a")]);
        fs.crash(CrashMode::DropUnsynced);
        assert_eq!(read_all(&fs, "/db/a"), b"data");
    }

    #[test]
    fn sync_dir_covers_only_its_own_directory() {
        let fs = fs_with_db();
        fs.create_dir_all(p("/db/sub")).unwrap();
        write(&fs, "/db/a", b"a", b"");
        write(&fs, "/db/sub/b", b"b", b"");
        fs.sync_dir(p("/db")).unwrap();
        fs.crash(CrashMode::DropUnsynced);
        assert_eq!(fs.files(), [PathBuf::from("/db/a")]);
    }

    #[test]
    fn unsynced_rename_reverts_synced_rename_persists() {
        let fs = fs_with_db();
        write(&fs, "/db/tmp", b"new", b"");
        write(&fs, "/db/CURRENT", b"old", b"");
        fs.sync_dir(p("/db")).unwrap();

        fs.rename(p("/db/tmp"), p("/db/CURRENT")).unwrap();
        assert!(!fs.exists(p("/db/tmp")).unwrap());
        assert_eq!(read_all(&fs, "/db/CURRENT"), b"new");
        fs.crash(CrashMode::DropUnsynced);
        assert_eq!(read_all(&fs, "/db/CURRENT"), b"old");
        assert_eq!(read_all(&fs, "/db/tmp"), b"new");

        fs.rename(p("/db/tmp"), p("/db/CURRENT")).unwrap();
        fs.sync_dir(p("/db")).unwrap();
        fs.crash(CrashMode::DropUnsynced);
        assert_eq!(read_all(&fs, "/db/CURRENT"), b"new");
        assert!(!fs.exists(p("/db/tmp")).unwrap());
        assert_eq!(fs.files().len(), 1);
    }

    #[test]
    fn a_hard_link_is_a_second_name_of_the_same_file_durable_with_its_directory() {
        let fs = fs_with_db();
        fs.create_dir_all(p("/snap")).unwrap();
        write(&fs, "/db/sf", b"cells", b"");
        fs.sync_dir(p("/db")).unwrap();
        fs.hard_link(p("/db/sf"), p("/snap/sf")).unwrap();
        assert_eq!(read_all(&fs, "/snap/sf"), b"cells");
        // Removing the first name leaves the second.
        fs.remove_file(p("/db/sf")).unwrap();
        assert_eq!(read_all(&fs, "/snap/sf"), b"cells");
        // Not durable until its directory is synced...
        fs.crash(CrashMode::DropUnsynced);
        assert!(!fs.exists(p("/snap/sf")).unwrap());
        assert_eq!(
            read_all(&fs, "/db/sf"),
            b"cells",
            "the unsynced remove came back"
        );
        // ...then it is, and it survives the other name's durable removal.
        fs.hard_link(p("/db/sf"), p("/snap/sf")).unwrap();
        fs.sync_dir(p("/snap")).unwrap();
        fs.remove_file(p("/db/sf")).unwrap();
        fs.sync_dir(p("/db")).unwrap();
        fs.crash(CrashMode::DropUnsynced);
        assert_eq!(read_all(&fs, "/snap/sf"), b"cells");
        assert!(!fs.exists(p("/db/sf")).unwrap());
        // Errors: an existing destination, a missing source, a missing directory.
        write(&fs, "/db/x", b"x", b"");
        let kind = |r: Result<()>| match r {
            Err(Error::Io { source, .. }) => source.kind(),
            other => panic!("{other:?}"),
        };
        assert_eq!(
            kind(fs.hard_link(p("/db/x"), p("/snap/sf"))),
            io::ErrorKind::AlreadyExists
        );
        assert_eq!(
            kind(fs.hard_link(p("/db/none"), p("/snap/n"))),
            io::ErrorKind::NotFound
        );
        assert_eq!(
            kind(fs.hard_link(p("/db/x"), p("/nodir/x"))),
            io::ErrorKind::NotFound
        );
        assert!(matches!(
            fs.hard_link(p("/db"), p("/snap/db")),
            Err(Error::NotAFile { .. })
        ));
    }

    #[test]
    fn unsynced_remove_comes_back_synced_remove_does_not() {
        let fs = fs_with_db();
        write(&fs, "/db/a", b"keep me", b"");
        fs.sync_dir(p("/db")).unwrap();
        fs.remove_file(p("/db/a")).unwrap();
        assert!(!fs.exists(p("/db/a")).unwrap());
        fs.crash(CrashMode::DropUnsynced);
        assert_eq!(read_all(&fs, "/db/a"), b"keep me");

        fs.remove_file(p("/db/a")).unwrap();
        fs.sync_dir(p("/db")).unwrap();
        fs.crash(CrashMode::DropUnsynced);
        assert!(!fs.exists(p("/db/a")).unwrap());
        assert!(fs.state.lock().inodes.is_empty(), "the inode is freed");
    }

    /// The scene every crash-mode test starts from:
    /// - `/db/a`: durable name, 100 synced bytes then 50 unsynced;
    /// - `/db/b`: 30 synced bytes, name never dir-synced;
    /// - `/db/c`: durable name and data, renamed to `/db/d` without a dir sync.
    fn scene() -> (MemFs, Vec<u8>) {
        let fs = fs_with_db();
        let a: Vec<u8> = (0..150u8).collect();
        write(&fs, "/db/a", &a[..100], &a[100..]);
        write(&fs, "/db/c", b"ccc", b"");
        fs.sync_dir(p("/db")).unwrap();
        write(&fs, "/db/b", &[b'b'; 30], b"");
        fs.rename(p("/db/c"), p("/db/d")).unwrap();
        (fs, a)
    }

    fn names(fs: &MemFs) -> Vec<String> {
        fs.list(p("/db")).unwrap()
    }

    #[test]
    fn crash_drop_unsynced() {
        let (fs, a) = scene();
        fs.crash(CrashMode::DropUnsynced);
        assert_eq!(names(&fs), ["a", "c"]);
        assert_eq!(read_all(&fs, "/db/a"), &a[..100]);
        assert_eq!(read_all(&fs, "/db/c"), b"ccc");
    }

    #[test]
    fn crash_drop_unsynced_dir_entries_keeps_all_data() {
        let (fs, a) = scene();
        fs.crash(CrashMode::DropUnsyncedDirEntries);
        assert_eq!(names(&fs), ["a", "c"]);
        assert_eq!(read_all(&fs, "/db/a"), a);
        assert_eq!(read_all(&fs, "/db/c"), b"ccc");
    }

    #[test]
    fn crash_keep_renames_drop_data() {
        let (fs, a) = scene();
        fs.crash(CrashMode::KeepRenamesDropData);
        assert_eq!(names(&fs), ["a", "b", "d"]);
        assert_eq!(read_all(&fs, "/db/a"), &a[..100]);
        assert_eq!(read_all(&fs, "/db/b"), [b'b'; 30]);
        assert_eq!(read_all(&fs, "/db/d"), b"ccc");
        // Everything left is durable now: a second crash changes nothing.
        fs.crash(CrashMode::DropUnsynced);
        assert_eq!(names(&fs), ["a", "b", "d"]);
        assert_eq!(read_all(&fs, "/db/a"), &a[..100]);
    }

    #[test]
    fn crash_keep_random_prefix_is_seeded_and_keeps_a_prefix() {
        let mut lens = BTreeSet::new();
        for seed in 0..32 {
            let outcome = |seed| {
                let (fs, _) = scene();
                fs.crash(CrashMode::KeepRandomPrefix { seed });
                (names(&fs), read_all(&fs, "/db/a"))
            };
            let (names, kept) = outcome(seed);
            assert_eq!((names.clone(), kept.clone()), outcome(seed), "seed {seed}");
            assert_eq!(names, ["a", "c"]);
            let (_, a) = scene();
            assert!((100..=150).contains(&kept.len()), "seed {seed}");
            assert_eq!(kept, a[..kept.len()], "seed {seed}");
            lens.insert(kept.len());
        }
        assert!(
            lens.len() > 5,
            "prefix lengths vary with the seed: {lens:?}"
        );
    }

    #[test]
    fn crash_torn_page_garbles_the_last_kept_page_only() {
        let synced: Vec<u8> = (0..5000u32).map(|i| (i % 251) as u8).collect();
        let unsynced: Vec<u8> = (0..10_000u32).map(|i| (i % 241) as u8).collect();
        let written = [synced.clone(), unsynced.clone()].concat();
        let mut garbled_some = false;
        for seed in 0..16 {
            let fs = fs_with_db();
            write(&fs, "/db/wal", &synced, &unsynced);
            fs.sync_dir(p("/db")).unwrap();
            fs.crash(CrashMode::TornPage { seed });
            let kept = read_all(&fs, "/db/wal");
            let len = kept.len();
            assert!((5000..=15_000).contains(&len), "seed {seed}: {len}");
            let intact = if len > 5000 {
                ((len - 1) / 4096 * 4096).max(5000)
            } else {
                len
            };
            assert_eq!(kept[..intact], written[..intact], "seed {seed}");
            for i in intact..len {
                assert_ne!(kept[i], written[i], "seed {seed}: byte {i} not garbled");
            }
            garbled_some |= len > 5000;

            let again = fs_with_db();
            write(&again, "/db/wal", &synced, &unsynced);
            again.sync_dir(p("/db")).unwrap();
            again.crash(CrashMode::TornPage { seed });
            assert_eq!(read_all(&again, "/db/wal"), kept, "seed {seed}");
        }
        assert!(garbled_some);
    }

    #[test]
    fn torn_page_never_touches_synced_bytes_in_the_same_page() {
        // 4000 synced bytes and 50 unsynced: all in page 0. Whatever is kept, the synced part
        // stays whole.
        for seed in 0..16 {
            let fs = fs_with_db();
            write(&fs, "/db/f", &[1; 4000], &[2; 50]);
            fs.sync_dir(p("/db")).unwrap();
            fs.crash(CrashMode::TornPage { seed });
            let kept = read_all(&fs, "/db/f");
            assert_eq!(kept[..4000], [1; 4000]);
            assert!(kept[4000..].iter().all(|&b| b != 2), "seed {seed}");
        }
    }

    #[test]
    fn writers_from_before_a_crash_fail_afterwards() {
        let fs = fs_with_db();
        let mut w = fs.create_new(p("/db/wal")).unwrap();
        w.append(b"x").unwrap();
        w.sync_data().unwrap();
        fs.sync_dir(p("/db")).unwrap();
        fs.crash(CrashMode::DropUnsynced);
        for err in [w.append(b"y").unwrap_err(), w.sync_all().unwrap_err()] {
            assert!(matches!(err, Error::Crashed { .. }), "{err:?}");
            assert_eq!(err.path(), p("/db/wal"));
        }
        drop(w);
        let mut w = fs.open_append(p("/db/wal")).unwrap();
        assert_eq!(w.len(), 1);
        w.append(b"z").unwrap();
        assert_eq!(fs.contents(p("/db/wal")).unwrap(), b"xz");
    }

    #[test]
    fn a_crash_forgets_a_file_open_only_in_a_dead_writer() {
        let fs = fs_with_db();
        let w = fs.create_new(p("/db/a")).unwrap();
        fs.remove_file(p("/db/a")).unwrap();
        assert_eq!(fs.state.lock().inodes.len(), 1, "kept alive by the writer");
        fs.crash(CrashMode::DropUnsynced);
        assert!(fs.state.lock().inodes.is_empty());
        drop(w);
        // Without a crash, dropping the last writer frees an unlinked inode.
        let w = fs.create_new(p("/db/b")).unwrap();
        fs.remove_file(p("/db/b")).unwrap();
        drop(w);
        assert!(fs.state.lock().inodes.is_empty());
    }

    #[test]
    fn locks_conflict_and_are_released_on_drop_and_on_crash() {
        let fs = fs_with_db();
        let lock = fs.lock(p("/db/LOCK")).unwrap();
        assert!(fs.exists(p("/db/LOCK")).unwrap(), "lock() creates the file");
        let err = fs.lock(p("/db/LOCK")).unwrap_err();
        assert!(matches!(err, Error::Locked { .. }), "{err:?}");
        assert!(fs.lock(p("/db/./LOCK")).is_err(), "paths are normalized");
        drop(lock);
        let old = fs.lock(p("/db/LOCK")).unwrap();

        fs.sync_dir(p("/db")).unwrap();
        fs.crash(CrashMode::DropUnsynced);
        let new = fs.lock(p("/db/LOCK")).unwrap();
        drop(old); // must not release the new process's lock
        assert!(matches!(
            fs.lock(p("/db/LOCK")).unwrap_err(),
            Error::Locked { .. }
        ));
        drop(new);
        drop(fs.lock(p("/db/LOCK")).unwrap());
    }

    #[test]
    fn a_lock_belongs_to_its_file_not_its_name() {
        let fs = fs_with_db();
        let lock = fs.lock(p("/db/LOCK")).unwrap();
        assert_eq!(lock.state().unwrap(), LockState::Held);
        // Removing the name frees the path, as with flock: a new file there locks.
        fs.remove_file(p("/db/LOCK")).unwrap();
        assert_eq!(lock.state().unwrap(), LockState::Removed);
        let other = fs.lock(p("/db/LOCK")).unwrap();
        assert_eq!(lock.state().unwrap(), LockState::Replaced);
        assert_eq!(other.state().unwrap(), LockState::Held);
        drop(lock);
        assert!(matches!(
            fs.lock(p("/db/LOCK")).unwrap_err(),
            Error::Locked { .. }
        ));
        // Renaming another file over it replaces it too.
        drop(fs.create_new(p("/db/x")).unwrap());
        fs.rename(p("/db/x"), p("/db/LOCK")).unwrap();
        assert_eq!(other.state().unwrap(), LockState::Replaced);
        let err = fs.lock(p("/db")).unwrap_err();
        assert!(
            matches!(
                err,
                Error::NotAFile {
                    kind: crate::FileKind::Directory,
                    ..
                }
            ),
            "{err:?}"
        );
    }

    #[test]
    fn directory_locks_conflict_until_dropped_or_crashed() {
        let fs = fs_with_db();
        let held = fs.lock_dir(p("/db")).unwrap();
        assert_eq!(held.state().unwrap(), LockState::Held);
        assert!(matches!(
            fs.lock_dir(p("/db/.")).unwrap_err(),
            Error::Locked { .. }
        ));
        // The directory lock and a lock file inside it are independent.
        drop(fs.lock(p("/db/LOCK")).unwrap());
        drop(held);
        let again = fs.lock_dir(p("/db")).unwrap();
        fs.crash(CrashMode::DropUnsynced);
        let after = fs.lock_dir(p("/db")).unwrap();
        drop(again); // must not release the new process's lock
        assert!(fs.lock_dir(p("/db")).is_err());
        drop(after);
        assert_eq!(
            fs.lock_dir(p("/nope")).unwrap_err().kind(),
            io::ErrorKind::NotFound
        );
        drop(fs.create_new(p("/db/f")).unwrap());
        assert_eq!(
            fs.lock_dir(p("/db/f")).unwrap_err().kind(),
            io::ErrorKind::NotADirectory
        );
    }

    #[test]
    fn namespace_errors_match_posix_kinds() {
        let fs = fs_with_db();
        drop(fs.create_new(p("/db/a")).unwrap());
        let kind = |r: Result<()>| r.unwrap_err().kind();
        assert_eq!(
            fs.create_new(p("/db/a")).unwrap_err().kind(),
            io::ErrorKind::AlreadyExists
        );
        assert_eq!(
            fs.create_new(p("/nope/a")).unwrap_err().kind(),
            io::ErrorKind::NotFound
        );
        assert_eq!(
            fs.open_read(p("/db/zz")).unwrap_err().kind(),
            io::ErrorKind::NotFound
        );
        assert_eq!(
            fs.open_append(p("/db")).unwrap_err().kind(),
            io::ErrorKind::IsADirectory
        );
        assert_eq!(
            kind(fs.rename(p("/db/zz"), p("/db/b"))),
            io::ErrorKind::NotFound
        );
        assert_eq!(
            kind(fs.rename(p("/db/a"), p("/nope/b"))),
            io::ErrorKind::NotFound
        );
        assert_eq!(kind(fs.remove_file(p("/db/zz"))), io::ErrorKind::NotFound);
        assert_eq!(kind(fs.sync_dir(p("/nope"))), io::ErrorKind::NotFound);
        assert_eq!(
            kind(fs.create_dir_all(p("/db/a/x"))),
            io::ErrorKind::NotADirectory
        );
        assert_eq!(
            fs.list(p("/nope")).unwrap_err().kind(),
            io::ErrorKind::NotFound
        );
    }

    #[test]
    fn list_is_sorted_and_remove_dir_all_removes_the_tree() {
        let fs = fs_with_db();
        fs.create_dir_all(p("/db/region-2/cf")).unwrap();
        for name in ["/db/wal-10", "/db/wal-9", "/db/LOCK", "/db/region-2/cf/f1"] {
            write(&fs, name, b"x", b"");
        }
        assert_eq!(names(&fs), ["LOCK", "region-2", "wal-10", "wal-9"]);
        assert_eq!(fs.list(p("/")).unwrap(), ["db"]);
        fs.sync_dir(p("/db/region-2/cf")).unwrap();
        fs.remove_dir_all(p("/db/region-2")).unwrap();
        assert!(!fs.exists(p("/db/region-2/cf/f1")).unwrap());
        fs.crash(CrashMode::DropUnsynced);
        assert!(!fs.exists(p("/db/region-2")).unwrap(), "durable at once");
        assert!(fs.durable_files().is_empty());
    }

    #[test]
    fn readers_see_a_snapshot_from_open_time() {
        let fs = fs_with_db();
        let mut w = fs.create_new(p("/db/f")).unwrap();
        w.append(b"abc").unwrap();
        let r = fs.open_read(p("/db/f")).unwrap();
        w.append(b"def").unwrap();
        fs.corrupt(p("/db/f"), 0, 0xFF).unwrap();
        assert_eq!(r.as_slice(), Some(&b"abc"[..]));
        assert_eq!(fs.file_len(p("/db/f")).unwrap(), 6);
        assert_eq!(
            read_all(&fs, "/db/f"),
            [b'a' ^ 0xFF, b'b', b'c', b'd', b'e', b'f']
        );
        let mut buf = [0; 2];
        let err = r.read_at(2, &mut buf).unwrap_err();
        assert!(err.to_string().contains("offset 2"), "{err}");
    }

    #[test]
    fn truncate_and_corrupt_helpers() {
        let fs = fs_with_db();
        write(&fs, "/db/f", b"0123456789", b"");
        fs.truncate(p("/db/f"), 4).unwrap();
        assert_eq!(fs.synced_len(p("/db/f")).unwrap(), 4);
        fs.truncate(p("/db/f"), 6).unwrap();
        assert_eq!(fs.contents(p("/db/f")).unwrap(), b"0123\0\0");
        assert_eq!(
            fs.corrupt(p("/db/f"), 6, 1).unwrap_err().kind(),
            io::ErrorKind::UnexpectedEof
        );
        fs.corrupt(p("/db/f"), 5, 0x41).unwrap();
        assert_eq!(fs.contents(p("/db/f")).unwrap(), b"0123\0A");
    }

    #[test]
    fn relative_paths_work_from_the_root() {
        let fs = MemFs::new();
        write(&fs, "a", b"x", b"");
        fs.sync_dir(p("")).unwrap();
        fs.crash(CrashMode::DropUnsynced);
        assert_eq!(fs.list(p(".")).unwrap(), ["a"]);
        assert_eq!(read_all(&fs, "./a"), b"x");
    }

    #[derive(Debug, Clone)]
    enum Step {
        Append(Vec<u8>),
        Sync,
    }

    fn step() -> impl Strategy<Value = Step> {
        prop_oneof![
            3 => proptest::collection::vec(any::<u8>(), 0..64).prop_map(Step::Append),
            1 => Just(Step::Sync),
        ]
    }

    proptest! {
        #[test]
        fn drop_unsynced_keeps_exactly_the_prefix_up_to_the_last_sync(
            steps in proptest::collection::vec(step(), 0..40),
        ) {
            let fs = fs_with_db();
            let mut w = fs.create_new(p("/db/log")).unwrap();
            fs.sync_dir(p("/db")).unwrap();
            let mut written = Vec::new();
            let mut synced = 0;
            for s in &steps {
                match s {
                    Step::Append(bytes) => {
                        w.append(bytes).unwrap();
                        written.extend_from_slice(bytes);
                    }
                    Step::Sync => {
                        w.sync_data().unwrap();
                        synced = written.len();
                    }
                }
                prop_assert_eq!(w.len(), written.len() as u64);
            }
            fs.crash(CrashMode::DropUnsynced);
            prop_assert_eq!(read_all(&fs, "/db/log"), &written[..synced]);
        }

        #[test]
        fn keep_random_prefix_keeps_a_prefix_at_least_as_long_as_the_synced_one(
            steps in proptest::collection::vec(step(), 0..40),
            seed in any::<u64>(),
        ) {
            let fs = fs_with_db();
            let mut w = fs.create_new(p("/db/log")).unwrap();
            fs.sync_dir(p("/db")).unwrap();
            let mut written = Vec::new();
            let mut synced = 0;
            for s in &steps {
                match s {
                    Step::Append(bytes) => {
                        w.append(bytes).unwrap();
                        written.extend_from_slice(bytes);
                    }
                    Step::Sync => {
                        w.sync_all().unwrap();
                        synced = written.len();
                    }
                }
            }
            fs.crash(CrashMode::KeepRandomPrefix { seed });
            let kept = read_all(&fs, "/db/log");
            prop_assert!(kept.len() >= synced && kept.len() <= written.len());
            prop_assert_eq!(&kept[..], &written[..kept.len()]);
        }
    }
}
