//! `DirLock`: how an open Db (or a repair) holds its directory, so that no second process
//! uses it at the same time (docs/durability.md, "One process per directory").
//!
//! Two `flock`s, taken in this order:
//!
//! 1. **The directory itself.** This is the lock that counts. `flock` locks a file, not its
//!    name: delete `LOCK` while a Db is open and anyone can create a new `LOCK` and lock it.
//!    A directory holding a Db's files cannot be deleted, so its lock cannot be lost that
//!    way. A second open fails here, before it touches `LOCK` (it would otherwise create a
//!    new `LOCK` that the first process takes for an intruder's).
//! 2. **`<dir>/LOCK`**, as before the directory lock existed, so that older builds (which
//!    take `LOCK` only) still find the directory in use.
//!
//! While the Db runs, the WAL asks [`DirLock::verify`] (its [`Ownership`]) after every roll
//! and every flush, before it deletes logs:
//!
//! | what it finds | what it does |
//! |---|---|
//! | `LOCK` is the file it locked | nothing |
//! | `LOCK` is gone | re-creates and locks it (so older builds see the directory in use again), logs a warning; nothing was compromised: a new build is kept out by the directory lock, and an older one would have left a `LOCK` of its own |
//! | `LOCK` is another file | an older build may be using the directory: says no, and the WAL deletes no log until the Db is reopened (they are replayed, then deleted, by the next open) |
//! | the directory path leads elsewhere (moved or replaced) | says no, likewise |
//! | the Db is closed (lock released) | says no |

use crate::error::{Error, Result};
use parking_lot::Mutex;
use regionkv_fs::{FileLock, Fs, LockState};
use regionkv_wal::Ownership;
use std::path::{Path, PathBuf};
use std::sync::Arc;

/// The name of the lock file in a Db directory.
pub(crate) const LOCK_FILE: &str = "LOCK";

/// The two locks of a Db directory; see the module docs.
#[derive(Debug)]
pub(crate) struct DirLock {
    fs: Arc<dyn Fs>,
    dir: PathBuf,
    lock_file: PathBuf,
    /// `None` once released.
    held: Mutex<Option<Held>>,
}

#[derive(Debug)]
struct Held {
    /// `None` where the file system cannot lock a directory (some network file systems):
    /// `LOCK` alone then, with a warning.
    dir: Option<Box<dyn FileLock>>,
    file: Box<dyn FileLock>,
}

/// The first of the two locks (the directory's), taken before anything in the directory
/// is written: [`Self::lock_file`] takes the second.
#[derive(Debug)]
pub(crate) struct DirLocking {
    fs: Arc<dyn Fs>,
    dir: PathBuf,
    dir_lock: Option<Box<dyn FileLock>>,
}

fn locked_error(dir: &Path, lock: &Path) -> impl FnOnce(regionkv_fs::Error) -> Error {
    let (dir, lock) = (dir.to_path_buf(), lock.to_path_buf());
    move |e| match e {
        regionkv_fs::Error::Locked { .. } => Error::Locked { dir, lock },
        e => Error::from(e),
    }
}

/// True when `e` says the file system does not lock directories (NFS emulates `flock` with
/// byte-range locks, which need a file open for writing: EBADF; others: ENOLCK, ENOTSUP,
/// EINVAL), as opposed to a directory that is locked, missing or not a directory.
fn lock_unsupported(e: &regionkv_fs::Error) -> bool {
    let regionkv_fs::Error::Io { source, .. } = e else {
        return false;
    };
    let by_code = cfg!(target_os = "linux")
        && matches!(
            source.raw_os_error(),
            Some(libc_codes::EBADF | libc_codes::ENOLCK | libc_codes::ENOTSUP | libc_codes::EINVAL)
        );
    by_code || source.kind() == std::io::ErrorKind::Unsupported
}

/// The Linux error numbers [`lock_unsupported`] looks for (other systems number them
/// otherwise; this crate does not depend on `libc` for four constants).
mod libc_codes {
    pub(super) const EBADF: i32 = 9;
    pub(super) const EINVAL: i32 = 22;
    pub(super) const ENOLCK: i32 = 37;
    pub(super) const ENOTSUP: i32 = 95;
}

/// `e` with its sources, for a log line.
fn chain(e: &dyn std::error::Error) -> String {
    let mut s = e.to_string();
    let mut cur = e.source();
    while let Some(c) = cur {
        s.push_str(": ");
        s.push_str(&c.to_string());
        cur = c.source();
    }
    s
}

impl DirLock {
    /// Locks the directory `dir`, then its `LOCK` file. [`Error::Locked`] names whichever
    /// was held: the directory (another Db of this build) or `LOCK` (an older build).
    pub(crate) fn acquire(fs: Arc<dyn Fs>, dir: &Path) -> Result<Arc<DirLock>> {
        Self::lock_directory(fs, dir)?.lock_file()
    }

    /// Locks the directory `dir` (creating nothing in it), so that what an open writes
    /// before it takes `LOCK` (the identity file, with a new Db id) is written by one
    /// process only. A file system that cannot lock a directory (`flock` on a directory
    /// fails on some network file systems) leaves `LOCK` alone to keep others out, with a
    /// warning.
    pub(crate) fn lock_directory(fs: Arc<dyn Fs>, dir: &Path) -> Result<DirLocking> {
        let dir_lock = match fs.lock_dir(dir) {
            Ok(l) => Some(l),
            Err(e) if lock_unsupported(&e) => {
                tracing::warn!(dir = %dir.display(), error = %chain(&e), "the Db directory cannot be locked; relying on its LOCK file alone");
                None
            }
            Err(e) => return Err(locked_error(dir, dir)(e)),
        };
        Ok(DirLocking {
            fs,
            dir: dir.to_path_buf(),
            dir_lock,
        })
    }

    /// Releases both locks (the Db is closed); later [`verify`](Ownership::verify) calls
    /// say no.
    pub(crate) fn release(&self) {
        drop(self.held.lock().take());
    }
}

impl DirLocking {
    /// Takes `LOCK`, the second lock: the directory is then the caller's.
    pub(crate) fn lock_file(self) -> Result<Arc<DirLock>> {
        let lock_file = self.dir.join(LOCK_FILE);
        let file_lock = self
            .fs
            .lock(&lock_file)
            .map_err(locked_error(&self.dir, &lock_file))?;
        Ok(Arc::new(DirLock {
            fs: self.fs,
            dir: self.dir,
            lock_file,
            held: Mutex::new(Some(Held {
                dir: self.dir_lock,
                file: file_lock,
            })),
        }))
    }
}

impl Ownership for DirLock {
    fn verify(&self) -> std::result::Result<(), String> {
        let mut held = self.held.lock();
        let Some(held) = held.as_mut() else {
            return Err(format!(
                "the Db in {} is closed and its lock released",
                self.dir.display()
            ));
        };
        match held
            .dir
            .as_ref()
            .map(|d| d.state())
            .unwrap_or(Ok(LockState::Held))
        {
            Ok(LockState::Held) => {}
            Ok(state) => {
                return Err(format!(
                    "the Db directory {} was {} while the Db was open",
                    self.dir.display(),
                    if state == LockState::Removed {
                        "moved or removed"
                    } else {
                        "replaced"
                    }
                ));
            }
            Err(e) => return Err(chain(&e)),
        }
        match held.file.state() {
            Ok(LockState::Held) => Ok(()),
            Ok(LockState::Removed) => match self.fs.lock(&self.lock_file) {
                Ok(again) => {
                    held.file = again;
                    tracing::warn!(
                        lock = %self.lock_file.display(),
                        "the lock file was removed while the Db was open; re-created and locked again"
                    );
                    Ok(())
                }
                Err(e) => Err(format!(
                    "{} was removed while the Db was open, and locking it again failed: {}",
                    self.lock_file.display(),
                    chain(&e)
                )),
            },
            Ok(LockState::Replaced) => Err(format!(
                "{} was replaced by another file while the Db was open: another process may be \
                 using the directory",
                self.lock_file.display()
            )),
            Err(e) => Err(chain(&e)),
        }
    }
}

#[cfg(test)]
#[allow(clippy::unwrap_used)]
mod tests {
    use super::*;
    use regionkv_fs::MemFs;

    #[test]
    fn verify_recreates_a_removed_lock_file_and_refuses_a_replaced_one() {
        let mem = MemFs::new();
        let fs: Arc<dyn Fs> = Arc::new(mem.clone());
        let dir = Path::new("/db");
        fs.create_dir_all(dir).unwrap();
        let lock = DirLock::acquire(fs.clone(), dir).unwrap();
        assert!(matches!(
            DirLock::acquire(fs.clone(), dir),
            Err(Error::Locked { lock, .. }) if lock == dir
        ));
        lock.verify().unwrap();

        let lock_file = dir.join(LOCK_FILE);
        fs.remove_file(&lock_file).unwrap();
        lock.verify().unwrap();
        assert!(fs.exists(&lock_file).unwrap(), "re-created");
        assert!(matches!(
            fs.lock(&lock_file),
            Err(regionkv_fs::Error::Locked { .. })
        ));
        // Still refused while the directory lock is held, although LOCK is free.
        fs.remove_file(&lock_file).unwrap();
        let intruder = fs.lock(&lock_file).unwrap();
        let why = lock.verify().unwrap_err();
        assert!(why.contains("replaced"), "{why}");
        drop(intruder);
        lock.release();
        assert!(lock.verify().unwrap_err().contains("closed"));
        // An older build holding LOCK (and not the directory) keeps a new one out too.
        let old = fs.lock(&lock_file).unwrap();
        assert!(matches!(
            DirLock::acquire(fs.clone(), dir),
            Err(Error::Locked { lock, .. }) if lock == lock_file
        ));
        drop(old);
        DirLock::acquire(fs, dir).unwrap().verify().unwrap();
    }
}
