//! The descriptor cache of [`RealFs`](crate::RealFs) in pread mode: a bounded, least-recently
//! used set of open file descriptors shared by every file that `RealFs` opened for reading
//! (RocksDB's `max_open_files`, HBase's answer being "raise the ulimit").
//!
//! A reader ([`RealReadableFile`](crate::real) in pread mode) is registered here when opened
//! and owns an entry until it is dropped. The entry holds the open descriptor while it is among
//! the `capacity` most recently used; an evicted entry is reopened **by path** on its next read.
//!
//! Reopening by path is only sound while the path still names the file that was opened. Two
//! rules keep it so:
//!
//! - **Pinning.** Before `RealFs` removes or renames a path (or a directory above it), every
//!   live reader of a file at or under that path is *pinned*: reopened now if it was evicted,
//!   and never evicted again. An open descriptor survives the unlink or the rename, as a
//!   mapping does in mmap mode, so a compaction may delete the files an open scanner still
//!   reads. Pinned descriptors count as open but can exceed `capacity` (they are bounded by
//!   the files removed while still read, and close when their readers drop).
//! - **Identity.** Each entry remembers the file's identity (device and inode on Unix) and a
//!   reopen that finds a different file fails with an error naming the path, instead of
//!   reading someone else's bytes. This catches changes made behind `RealFs`'s back.
//!
//! Reads clone the entry's `Arc<File>` under the lock and `pread` outside it, so an eviction
//! racing a read only closes the descriptor when that read ends.
//!
//! A `namespace` read-write lock orders opens against removals: `open_read` holds it shared
//! from its `open(2)` until the reader is registered, and a removal or rename holds it
//! exclusively from pinning until its system call returns. Without it, a file opened just
//! before an unlink but registered just after would be left unpinned on a name that no
//! longer leads to it.
//!
//! A reader that cannot be pinned (its evicted file cannot be reopened, say for want of
//! descriptors) makes the removal or rename fail, as if the system call had, rather than
//! strand the reader: the engine retries removals later, and a failed rename fails the
//! operation that asked for it.

use std::collections::{BTreeMap, HashMap};
use std::fs::{File, Metadata};
use std::io;
use std::path::{Path, PathBuf};
use std::sync::Arc;

use parking_lot::{Mutex, RwLock, RwLockReadGuard, RwLockWriteGuard};

/// What makes two opens of a path the same file: device and inode where there are any, and
/// the length and modification time. A new file can reuse a freed inode, so the inode alone
/// would not do; all together they catch a replacement short of one made within the file
/// system's timestamp granularity with the same inode and length.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) struct Identity {
    #[cfg(unix)]
    dev: u64,
    #[cfg(unix)]
    ino: u64,
    len: u64,
    modified: Option<std::time::SystemTime>,
}

impl Identity {
    pub(crate) fn of(meta: &Metadata) -> Self {
        #[cfg(unix)]
        use std::os::unix::fs::MetadataExt;
        Identity {
            #[cfg(unix)]
            dev: meta.dev(),
            #[cfg(unix)]
            ino: meta.ino(),
            len: meta.len(),
            modified: meta.modified().ok(),
        }
    }
}

/// Counters of a descriptor cache, for tests and for tuning `max_open_files`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub struct DescriptorStats {
    /// The most descriptors kept open for unpinned readers (`usize::MAX`: unbounded).
    pub capacity: usize,
    /// Readers alive now (files opened for reading and not yet dropped).
    pub readers: usize,
    /// Descriptors open now, pinned ones included.
    pub open: usize,
    /// Open descriptors pinned because their path was removed or renamed.
    pub pinned: usize,
    /// Reopens of evicted descriptors since the cache was made.
    pub reopens: u64,
    /// Evictions since the cache was made.
    pub evictions: u64,
}

/// One reader's entry.
#[derive(Debug)]
struct Entry {
    path: PathBuf,
    identity: Identity,
    /// The descriptor, while open.
    file: Option<Arc<File>>,
    /// This entry's key in [`State::lru`] while it is open and not pinned.
    tick: u64,
    pinned: bool,
}

#[derive(Debug, Default)]
struct State {
    next_id: u64,
    next_tick: u64,
    entries: HashMap<u64, Entry>,
    /// Open, unpinned entries by last use, oldest first.
    lru: BTreeMap<u64, u64>,
    open: usize,
    pinned: usize,
    reopens: u64,
    evictions: u64,
}

/// A bounded LRU set of read descriptors. See the module documentation.
#[derive(Debug)]
pub(crate) struct DescriptorCache {
    capacity: usize,
    state: Mutex<State>,
    /// Shared by opens, exclusive for removals and renames; see the module documentation.
    namespace: RwLock<()>,
}

impl DescriptorCache {
    /// A cache keeping at most `capacity` unpinned descriptors open (at least one).
    pub(crate) fn new(capacity: usize) -> Self {
        DescriptorCache {
            capacity: capacity.max(1),
            state: Mutex::new(State::default()),
            namespace: RwLock::new(()),
        }
    }

    /// Held (shared) by `open_read` from opening a file until its reader is registered.
    pub(crate) fn opening(&self) -> RwLockReadGuard<'_, ()> {
        self.namespace.read()
    }

    /// Held (exclusive) by a removal or rename from pinning until its system call returns.
    pub(crate) fn changing_names(&self) -> RwLockWriteGuard<'_, ()> {
        self.namespace.write()
    }

    pub(crate) fn stats(&self) -> DescriptorStats {
        let s = self.state.lock();
        DescriptorStats {
            capacity: self.capacity,
            readers: s.entries.len(),
            open: s.open,
            pinned: s.pinned,
            reopens: s.reopens,
            evictions: s.evictions,
        }
    }

    /// Registers a reader of `path` whose descriptor `file` was just opened; returns its id.
    pub(crate) fn register(&self, path: &Path, file: File, identity: Identity) -> u64 {
        let mut s = self.state.lock();
        let id = bump(&mut s.next_id);
        let tick = bump(&mut s.next_tick);
        s.lru.insert(tick, id);
        s.entries.insert(
            id,
            Entry {
                path: path.to_path_buf(),
                identity,
                file: Some(Arc::new(file)),
                tick,
                pinned: false,
            },
        );
        s.open += 1;
        s.evict_to(self.capacity);
        id
    }

    /// The open descriptor of reader `id`, reopening it by path if it was evicted.
    pub(crate) fn file(&self, id: u64) -> io::Result<Arc<File>> {
        let mut guard = self.state.lock();
        let s = &mut *guard;
        let Some(entry) = s.entries.get_mut(&id) else {
            // Ids are only used by their live reader, which removes its entry on drop.
            return Err(io::Error::other("descriptor cache entry missing"));
        };
        if let Some(file) = &entry.file {
            let file = Arc::clone(file);
            if !entry.pinned {
                s.lru.remove(&entry.tick);
                entry.tick = bump(&mut s.next_tick);
                s.lru.insert(entry.tick, id);
            }
            return Ok(file);
        }
        // Reopen under the lock: a concurrent remove or rename of the path pins under the same
        // lock, so it either sees this descriptor open or runs after this reopen. Evict first,
        // so the reopen itself stays within the bound.
        let (path, identity) = (entry.path.clone(), entry.identity);
        s.evict_to(self.capacity - 1);
        let file = Arc::new(reopen(&path, identity)?);
        let Some(entry) = s.entries.get_mut(&id) else {
            return Err(io::Error::other("descriptor cache entry missing"));
        };
        entry.file = Some(Arc::clone(&file));
        s.reopens += 1;
        s.open += 1;
        if entry.pinned {
            s.pinned += 1;
        } else {
            entry.tick = bump(&mut s.next_tick);
            s.lru.insert(entry.tick, id);
        }
        s.evict_to(self.capacity);
        Ok(file)
    }

    /// Drops reader `id`'s entry and closes its descriptor (once no read is using it).
    pub(crate) fn release(&self, id: u64) {
        let mut s = self.state.lock();
        if let Some(entry) = s.entries.remove(&id)
            && entry.file.is_some()
        {
            s.open -= 1;
            if entry.pinned {
                s.pinned -= 1;
            } else {
                s.lru.remove(&entry.tick);
            }
        }
    }

    /// Pins every reader of a file at or under `path`, reopening evicted ones first, so that
    /// removing or renaming `path` does not strand them. Call with
    /// [`changing_names`](Self::changing_names) held. Fails, naming the reader's file, if an
    /// evicted reader cannot be reopened; readers pinned before that stay pinned.
    pub(crate) fn pin_under(&self, path: &Path) -> Result<(), (PathBuf, io::Error)> {
        let mut guard = self.state.lock();
        let s = &mut *guard;
        let ids: Vec<u64> = s
            .entries
            .iter()
            .filter(|(_, e)| !e.pinned && e.path.starts_with(path))
            .map(|(id, _)| *id)
            .collect();
        for id in ids {
            let Some(entry) = s.entries.get(&id) else {
                continue;
            };
            if entry.file.is_some() {
                let tick = entry.tick;
                s.lru.remove(&tick);
            } else {
                let (path, identity) = (entry.path.clone(), entry.identity);
                // Make room among the unpinned ones first: the pinned are beyond the bound.
                s.evict_to(self.capacity - 1);
                let file = reopen(&path, identity).map_err(|e| (path, e))?;
                if let Some(e) = s.entries.get_mut(&id) {
                    e.file = Some(Arc::new(file));
                }
                s.reopens += 1;
                s.open += 1;
            }
            if let Some(e) = s.entries.get_mut(&id) {
                e.pinned = true;
            }
            s.pinned += 1;
        }
        Ok(())
    }
}

/// Takes the next value of a tick counter.
fn bump(counter: &mut u64) -> u64 {
    let t = *counter;
    *counter += 1;
    t
}

impl State {
    /// Closes the least recently used unpinned descriptors until at most `capacity` unpinned
    /// ones are open.
    fn evict_to(&mut self, capacity: usize) {
        while self.open - self.pinned > capacity {
            let Some((_, id)) = self.lru.pop_first() else {
                return;
            };
            if let Some(e) = self.entries.get_mut(&id) {
                // A read holding a clone keeps the descriptor open until it returns.
                e.file = None;
                self.open -= 1;
                self.evictions += 1;
            }
        }
    }
}

/// Opens `path` again and checks that it is still the file first opened there.
fn reopen(path: &Path, identity: Identity) -> io::Result<File> {
    // Neither through a link nor blocked by a FIFO put there since (see `open.rs`).
    let (file, meta) =
        crate::open::open_regular("reopen", path, std::fs::OpenOptions::new().read(true))
            .map_err(|e| io::Error::new(e.kind(), e))?;
    let now = Identity::of(&meta);
    if now != identity {
        return Err(io::Error::other(
            "the path names a different file than when it was opened for reading",
        ));
    }
    Ok(file)
}

#[cfg(test)]
#[allow(clippy::unwrap_used)]
mod tests {
    use super::*;

    fn files(dir: &Path, n: usize) -> Vec<PathBuf> {
        (0..n)
            .map(|i| {
                let p = dir.join(format!("f{i}"));
                std::fs::write(&p, format!("file {i}")).unwrap();
                p
            })
            .collect()
    }

    fn register(cache: &DescriptorCache, path: &Path) -> u64 {
        let f = File::open(path).unwrap();
        let identity = Identity::of(&f.metadata().unwrap());
        cache.register(path, f, identity)
    }

    #[test]
    fn keeps_at_most_capacity_open_and_evicts_the_least_recently_used() {
        let dir = tempfile::tempdir().unwrap();
        let paths = files(dir.path(), 4);
        let cache = DescriptorCache::new(2);
        let ids: Vec<u64> = paths.iter().map(|p| register(&cache, p)).collect();
        let st = cache.stats();
        assert_eq!((st.readers, st.open, st.evictions), (4, 2, 2));
        // f2 and f3 are open; using f2 makes f3 the oldest, so reopening f0 evicts f3.
        cache.file(ids[2]).unwrap();
        assert_eq!(cache.stats().reopens, 0);
        cache.file(ids[0]).unwrap();
        assert_eq!(cache.stats().reopens, 1);
        cache.file(ids[2]).unwrap();
        assert_eq!(cache.stats().reopens, 1, "f2 stayed open");
        cache.file(ids[3]).unwrap();
        assert_eq!(cache.stats().reopens, 2, "f3 was evicted");
        assert_eq!(cache.stats().open, 2);
        for id in ids {
            cache.release(id);
        }
        let st = cache.stats();
        assert_eq!((st.readers, st.open, st.pinned), (0, 0, 0));
    }

    #[test]
    fn a_pinned_reader_survives_removal_and_is_never_evicted() {
        let dir = tempfile::tempdir().unwrap();
        let paths = files(dir.path(), 3);
        let cache = DescriptorCache::new(1);
        let a = register(&cache, &paths[0]);
        let b = register(&cache, &paths[1]);
        // a was evicted by b; pinning reopens it while its path still exists.
        cache.pin_under(&paths[0]).unwrap();
        std::fs::remove_file(&paths[0]).unwrap();
        // b was evicted to make room for a's reopen: the pinned are beyond the bound, the
        // unpinned within it.
        let st = cache.stats();
        assert_eq!((st.open, st.pinned), (1, 1));
        let c = register(&cache, &paths[2]);
        assert_eq!(cache.stats().open, 2, "c open, pinned a kept");
        cache.file(b).unwrap();
        assert_eq!(
            cache.stats().open,
            2,
            "b reopened, c evicted, pinned a kept"
        );
        let f = cache.file(a).unwrap();
        let mut s = String::new();
        io::Read::read_to_string(&mut &*f, &mut s).unwrap();
        assert_eq!(s, "file 0");
        for id in [a, b, c] {
            cache.release(id);
        }
        assert_eq!(cache.stats().open, 0);
    }

    #[test]
    fn pinning_a_directory_pins_everything_under_it_only() {
        let dir = tempfile::tempdir().unwrap();
        let sub = dir.path().join("region");
        std::fs::create_dir(&sub).unwrap();
        let inside = files(&sub, 2);
        let outside = files(dir.path(), 1);
        let cache = DescriptorCache::new(8);
        let ids: Vec<u64> = inside
            .iter()
            .chain(&outside)
            .map(|p| register(&cache, p))
            .collect();
        // A sibling whose name extends the directory's is not under it.
        let sibling = dir.path().join("region2");
        std::fs::write(&sibling, "x").unwrap();
        let s = register(&cache, &sibling);
        cache.pin_under(&sub).unwrap();
        assert_eq!(cache.stats().pinned, 2);
        for id in ids.into_iter().chain([s]) {
            cache.release(id);
        }
        assert_eq!(cache.stats().pinned, 0);
    }

    #[test]
    fn a_reopen_that_finds_another_file_is_an_error() {
        let dir = tempfile::tempdir().unwrap();
        let paths = files(dir.path(), 2);
        let cache = DescriptorCache::new(1);
        let a = register(&cache, &paths[0]);
        let _b = register(&cache, &paths[1]);
        // Replaced behind the cache's back, so nothing was pinned.
        std::fs::remove_file(&paths[0]).unwrap();
        std::fs::write(&paths[0], "another file, longer").unwrap();
        let err = cache.file(a).unwrap_err();
        assert!(err.to_string().contains("different file"), "{err}");
        std::fs::remove_file(&paths[0]).unwrap();
        let err = cache.file(a).unwrap_err();
        assert_eq!(err.kind(), io::ErrorKind::NotFound);
    }
}
