//! [`FaultFs`]: a wrapper that counts I/O operations and fails a chosen one.
//!
//! Error injection in the manner of redb's `FuzzerBackend` and pebble's `errorfs`: a test runs
//! a workload once to learn how many operations it performs ([`FaultFs::op_count`], call it K),
//! then reruns it K times, failing operation 0, 1, ..., K-1 in turn with each [`FaultKind`].
//!
//! # Which calls count
//!
//! Every call that touches data or metadata counts as one operation, whether it succeeds, fails
//! in the inner file system, or has a fault injected:
//!
//! - [`Fs`]: `create_dir_all`, `create_new`, `open_append`, `open_read`, `rename`,
//!   `remove_file`, `remove_dir_all`, `list`, `exists`, `file_len`, `sync_dir`, `lock`,
//!   `lock_dir`;
//! - [`WritableFile`]: `append`, `sync_data`, `sync_all`, `reserve`, `trim`;
//! - [`ReadableFile`]: `read_at` (and so `read_to_vec`).
//!
//! Accessors that do no I/O do not count: `len`, `is_empty`, `path`, and
//! [`ReadableFile::as_slice`], which hands out the inner file's bytes directly. Dropping a
//! writer, reader or lock does not count either, nor does [`FileLock::state`] (the lock is
//! the inner file system's own). Operations are numbered from 0 in the order
//! they start; with a single-threaded workload the numbering is deterministic.
//!
//! # When a fault fires
//!
//! [`FaultFs::fail_at`]`(n, kind, persistence)` arms a fault. It fires at the first operation
//! numbered `n` or later that `kind` applies to (see [`FaultKind`]); operations of other kinds
//! pass through. A [`Persistence::Transient`] fault then disarms; a
//! [`Persistence::Persistent`] one fails every later operation it applies to as well.
//! Injected faults are ordinary [`Error::Io`] (or [`Error::Rename`]) values with a realistic
//! [`io::Error`]; see [`FaultKind`] for each one's [`io::ErrorKind`].
//!
//! [`FaultFs::halt_at`] instead stops *every* operation from `n` on, which simulates the process
//! dying just before operation `n`. Followed by [`MemFs::crash`](crate::MemFs::crash) on the
//! inner file system, it gives the crash matrix: crash after each of the K operations.

use std::fmt;
use std::io;
use std::path::Path;
use std::sync::Arc;

use parking_lot::Mutex;

use crate::{Error, FileLock, Fs, ReadableFile, Result, WritableFile};

/// A kind of injected fault, and the operations it applies to.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum FaultKind {
    /// `append` fails with EIO (kind [`Other`](io::ErrorKind::Other)) and writes nothing.
    EioOnWrite,
    /// `append` writes the first half of the buffer (rounded down) to the inner file, then fails
    /// with kind [`WriteZero`](io::ErrorKind::WriteZero), as `write_all` does when the OS stops
    /// accepting bytes.
    ShortWrite,
    /// `append` or `create_new` fails with ENOSPC (kind
    /// [`StorageFull`](io::ErrorKind::StorageFull)) and changes nothing.
    NoSpace,
    /// `sync_data`, `sync_all` or `sync_dir` fails with EIO (kind [`Other`](io::ErrorKind::Other))
    /// without syncing anything.
    EioOnSync,
    /// `rename` fails with EIO (kind [`Other`](io::ErrorKind::Other)) and renames nothing.
    RenameFailure,
    /// `remove_file` or `remove_dir_all` fails with EIO (kind
    /// [`Other`](io::ErrorKind::Other)) and removes nothing. Not in [`FaultKind::ALL`]: a
    /// removal is cleanup after a change has committed, so it cannot threaten acknowledged
    /// data; the sweeps over `ALL` stay about the operations that can.
    RemoveFailure,
}

impl FaultKind {
    /// Every kind, for sweeps.
    pub const ALL: [FaultKind; 5] = [
        FaultKind::EioOnWrite,
        FaultKind::ShortWrite,
        FaultKind::NoSpace,
        FaultKind::EioOnSync,
        FaultKind::RenameFailure,
    ];

    /// Whether this fault fails an operation of class `op` (a halt stops every class).
    pub fn applies_to(self, op: FaultOp) -> bool {
        match self {
            FaultKind::EioOnWrite | FaultKind::ShortWrite => op == FaultOp::Append,
            FaultKind::NoSpace => matches!(op, FaultOp::Append | FaultOp::CreateNew),
            FaultKind::EioOnSync => op == FaultOp::Sync,
            FaultKind::RenameFailure => op == FaultOp::Rename,
            FaultKind::RemoveFailure => op == FaultOp::Remove,
        }
    }

    /// The error this fault surfaces as.
    fn io_error(self) -> io::Error {
        match self {
            FaultKind::EioOnWrite
            | FaultKind::EioOnSync
            | FaultKind::RenameFailure
            | FaultKind::RemoveFailure => io::Error::other("injected EIO"),
            FaultKind::ShortWrite => {
                io::Error::new(io::ErrorKind::WriteZero, "injected short write")
            }
            FaultKind::NoSpace => io::Error::new(io::ErrorKind::StorageFull, "injected ENOSPC"),
        }
    }
}

/// How long an injected fault lasts.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Persistence {
    /// The fault fails one operation, then disarms.
    Transient,
    /// The fault fails every operation it applies to from the first one on.
    Persistent,
}

/// The classes of operation that faults distinguish (see [`FaultKind::applies_to`]).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum FaultOp {
    /// A write to an open file.
    Append,
    /// Creating a new file.
    CreateNew,
    /// An fsync of a file or directory.
    Sync,
    /// A rename.
    Rename,
    /// Removing a file or directory.
    Remove,
    /// Counted, but only a halt applies.
    Other,
}

/// What an armed plan does when it fires.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Injection {
    /// An injected fault of this kind.
    Fault(FaultKind),
    /// The simulated process is down: every operation fails.
    Halt,
}

impl Injection {
    fn io_error(self) -> io::Error {
        match self {
            Injection::Fault(kind) => kind.io_error(),
            Injection::Halt => io::Error::other("injected EIO: the simulated process has halted"),
        }
    }
}

/// An armed fault or halt.
#[derive(Debug, Clone, Copy)]
struct Plan {
    at: u64,
    injection: Injection,
    persistence: Persistence,
}

/// Counters and the armed plan, shared by the [`FaultFs`] and every file it opened.
#[derive(Debug, Default)]
struct Shared {
    ops: u64,
    injected: u64,
    plan: Option<Plan>,
}

/// A file system wrapper that counts operations and injects faults; see the module docs.
///
/// Cloning gives another handle to the same counters and fault.
#[derive(Clone)]
pub struct FaultFs {
    inner: Arc<dyn Fs>,
    shared: Arc<Mutex<Shared>>,
}

impl FaultFs {
    /// Wraps `inner` (commonly a [`MemFs`](crate::MemFs)), with no fault armed.
    pub fn new(inner: Arc<dyn Fs>) -> Self {
        FaultFs {
            inner,
            shared: Arc::default(),
        }
    }

    /// The wrapped file system.
    pub fn inner(&self) -> &Arc<dyn Fs> {
        &self.inner
    }

    /// Arms a fault of `kind` at operation `n` (numbered from 0 since this `FaultFs` was
    /// created), replacing whatever was armed. It fires at the first operation numbered `n` or
    /// later that `kind` applies to.
    pub fn fail_at(&self, n: u64, kind: FaultKind, persistence: Persistence) {
        self.arm(n, Injection::Fault(kind), persistence);
    }

    /// Makes operation `n` and every later operation, of any kind, fail with an injected EIO
    /// (kind [`Other`](io::ErrorKind::Other)) without reaching the inner file system, as if the
    /// process had died just before operation `n`. Replaces whatever was armed.
    pub fn halt_at(&self, n: u64) {
        self.arm(n, Injection::Halt, Persistence::Persistent);
    }

    fn arm(&self, at: u64, injection: Injection, persistence: Persistence) {
        self.shared.lock().plan = Some(Plan {
            at,
            injection,
            persistence,
        });
    }

    /// Disarms any fault or halt. Operations keep being counted.
    pub fn clear_faults(&self) {
        self.shared.lock().plan = None;
    }

    /// How many operations have started so far.
    pub fn op_count(&self) -> u64 {
        self.shared.lock().ops
    }

    /// How many operations have failed by injection (faults and halts) so far.
    pub fn faults_injected(&self) -> u64 {
        self.shared.lock().injected
    }
}

/// Counts one operation of class `op` and says what, if anything, it must fail with.
fn begin(shared: &Mutex<Shared>, op: FaultOp) -> Option<Injection> {
    let mut s = shared.lock();
    let index = s.ops;
    s.ops += 1;
    let plan = s.plan?;
    let applies = match plan.injection {
        Injection::Fault(kind) => kind.applies_to(op),
        Injection::Halt => true,
    };
    if index < plan.at || !applies {
        return None;
    }
    if plan.persistence == Persistence::Transient {
        s.plan = None;
    }
    s.injected += 1;
    tracing::debug!(index, injection = ?plan.injection, ?op, "injecting a fault");
    Some(plan.injection)
}

/// Counts one operation and fails it if something is injected there.
fn guard(shared: &Mutex<Shared>, op: FaultOp, name: &'static str, path: &Path) -> Result<()> {
    match begin(shared, op) {
        None => Ok(()),
        Some(injection) => Err(Error::io(name, path, injection.io_error())),
    }
}

impl fmt::Debug for FaultFs {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let mut d = f.debug_struct("FaultFs");
        d.field("inner", &self.inner);
        if let Some(s) = self.shared.try_lock() {
            d.field("ops", &s.ops)
                .field("injected", &s.injected)
                .field("plan", &s.plan);
        }
        d.finish()
    }
}

impl Fs for FaultFs {
    fn create_dir_all(&self, path: &Path) -> Result<()> {
        guard(&self.shared, FaultOp::Other, "create_dir_all", path)?;
        self.inner.create_dir_all(path)
    }

    fn create_new(&self, path: &Path) -> Result<Box<dyn WritableFile>> {
        guard(&self.shared, FaultOp::CreateNew, "create_new", path)?;
        let inner = self.inner.create_new(path)?;
        Ok(Box::new(FaultWritableFile {
            inner,
            shared: Arc::clone(&self.shared),
        }))
    }

    fn open_append(&self, path: &Path) -> Result<Box<dyn WritableFile>> {
        guard(&self.shared, FaultOp::Other, "open_append", path)?;
        let inner = self.inner.open_append(path)?;
        Ok(Box::new(FaultWritableFile {
            inner,
            shared: Arc::clone(&self.shared),
        }))
    }

    fn open_read(&self, path: &Path) -> Result<Arc<dyn ReadableFile>> {
        guard(&self.shared, FaultOp::Other, "open_read", path)?;
        let inner = self.inner.open_read(path)?;
        Ok(Arc::new(FaultReadableFile {
            inner,
            shared: Arc::clone(&self.shared),
        }))
    }

    fn rename(&self, from: &Path, to: &Path) -> Result<()> {
        if let Some(injection) = begin(&self.shared, FaultOp::Rename) {
            return Err(Error::Rename {
                from: from.to_path_buf(),
                to: to.to_path_buf(),
                source: injection.io_error(),
            });
        }
        self.inner.rename(from, to)
    }

    fn hard_link(&self, from: &Path, to: &Path) -> Result<()> {
        // A link creates a name, as creating a file does.
        guard(&self.shared, FaultOp::CreateNew, "hard_link", to)?;
        self.inner.hard_link(from, to)
    }

    fn remove_file(&self, path: &Path) -> Result<()> {
        guard(&self.shared, FaultOp::Remove, "remove_file", path)?;
        self.inner.remove_file(path)
    }

    fn remove_dir_all(&self, path: &Path) -> Result<()> {
        guard(&self.shared, FaultOp::Remove, "remove_dir_all", path)?;
        self.inner.remove_dir_all(path)
    }

    fn list(&self, dir: &Path) -> Result<Vec<String>> {
        guard(&self.shared, FaultOp::Other, "list", dir)?;
        self.inner.list(dir)
    }

    fn exists(&self, path: &Path) -> Result<bool> {
        guard(&self.shared, FaultOp::Other, "exists", path)?;
        self.inner.exists(path)
    }

    fn file_len(&self, path: &Path) -> Result<u64> {
        guard(&self.shared, FaultOp::Other, "file_len", path)?;
        self.inner.file_len(path)
    }

    fn sync_dir(&self, dir: &Path) -> Result<()> {
        guard(&self.shared, FaultOp::Sync, "sync_dir", dir)?;
        self.inner.sync_dir(dir)
    }

    fn lock(&self, path: &Path) -> Result<Box<dyn FileLock>> {
        guard(&self.shared, FaultOp::Other, "lock", path)?;
        self.inner.lock(path)
    }

    fn lock_dir(&self, dir: &Path) -> Result<Box<dyn FileLock>> {
        guard(&self.shared, FaultOp::Other, "lock_dir", dir)?;
        self.inner.lock_dir(dir)
    }
}

/// A writer whose operations are counted and may fail.
#[derive(Debug)]
struct FaultWritableFile {
    inner: Box<dyn WritableFile>,
    shared: Arc<Mutex<Shared>>,
}

impl WritableFile for FaultWritableFile {
    fn append(&mut self, buf: &[u8]) -> Result<()> {
        match begin(&self.shared, FaultOp::Append) {
            None => self.inner.append(buf),
            Some(injection) => {
                if injection == Injection::Fault(FaultKind::ShortWrite) {
                    let half = buf.get(..buf.len() / 2).unwrap_or_default();
                    self.inner.append(half)?;
                }
                Err(Error::io("append", self.inner.path(), injection.io_error()))
            }
        }
    }

    fn sync_data(&mut self) -> Result<()> {
        guard(&self.shared, FaultOp::Sync, "sync_data", self.inner.path())?;
        self.inner.sync_data()
    }

    fn sync_all(&mut self) -> Result<()> {
        guard(&self.shared, FaultOp::Sync, "sync_all", self.inner.path())?;
        self.inner.sync_all()
    }

    fn reserve(&mut self, len: u64) -> Result<()> {
        // A sparse extension allocates nothing, so no injected kind applies; a halt does.
        guard(&self.shared, FaultOp::Other, "reserve", self.inner.path())?;
        self.inner.reserve(len)
    }

    fn trim(&mut self) -> Result<()> {
        guard(&self.shared, FaultOp::Other, "trim", self.inner.path())?;
        self.inner.trim()
    }

    fn len(&self) -> u64 {
        self.inner.len()
    }

    fn path(&self) -> &Path {
        self.inner.path()
    }
}

/// A reader whose `read_at` calls are counted.
#[derive(Debug)]
struct FaultReadableFile {
    inner: Arc<dyn ReadableFile>,
    shared: Arc<Mutex<Shared>>,
}

impl ReadableFile for FaultReadableFile {
    fn len(&self) -> u64 {
        self.inner.len()
    }

    fn read_at(&self, offset: u64, buf: &mut [u8]) -> Result<()> {
        guard(&self.shared, FaultOp::Other, "read_at", self.inner.path())?;
        self.inner.read_at(offset, buf)
    }

    fn pread_at(&self, offset: u64, buf: &mut [u8]) -> Result<()> {
        guard(&self.shared, FaultOp::Other, "read_at", self.inner.path())?;
        self.inner.pread_at(offset, buf)
    }

    fn read_mapped_at(&self, offset: u64, buf: &mut [u8]) -> Result<()> {
        guard(&self.shared, FaultOp::Other, "read_at", self.inner.path())?;
        self.inner.read_mapped_at(offset, buf)
    }

    fn as_slice(&self) -> Option<&[u8]> {
        self.inner.as_slice()
    }

    fn path(&self) -> &Path {
        self.inner.path()
    }
}

#[cfg(test)]
#[allow(clippy::unwrap_used)]
mod tests {
    use super::*;
    use crate::{CrashMode, MemFs};

    fn p(s: &str) -> &Path {
        Path::new(s)
    }

    fn setup() -> (MemFs, FaultFs) {
        let mem = MemFs::new();
        mem.create_dir_all(p("/db")).unwrap();
        let fault = FaultFs::new(Arc::new(mem.clone()));
        (mem, fault)
    }

    /// A fixed workload touching every counted operation; returns the first error.
    /// Operations, by number: 0 create_new, 1 append, 2 sync_data, 3 append, 4 sync_all,
    /// 5 sync_dir, 6 rename, 7 open_read, 8 read_at, 9 list, 10 exists, 11 file_len,
    /// 12 open_append, 13 append, 14 lock, 15 create_dir_all, 16 remove_file,
    /// 17 remove_dir_all.
    fn workload(fs: &dyn Fs) -> Result<()> {
        let mut w = fs.create_new(p("/db/tmp"))?;
        w.append(b"0123456789")?;
        w.sync_data()?;
        w.append(b"abcd")?;
        w.sync_all()?;
        fs.sync_dir(p("/db"))?;
        fs.rename(p("/db/tmp"), p("/db/f"))?;
        let r = fs.open_read(p("/db/f"))?;
        r.read_at(0, &mut [0; 4])?;
        fs.list(p("/db"))?;
        fs.exists(p("/db/f"))?;
        fs.file_len(p("/db/f"))?;
        fs.open_append(p("/db/f"))?.append(b"!")?;
        let _lock = fs.lock(p("/db/LOCK"))?;
        fs.create_dir_all(p("/db/x"))?;
        fs.remove_file(p("/db/f"))?;
        fs.remove_dir_all(p("/db/x"))?;
        Ok(())
    }

    const WORKLOAD_OPS: u64 = 18;

    #[test]
    fn op_count_is_deterministic_and_counts_every_operation() {
        for _ in 0..3 {
            let (_, fault) = setup();
            workload(&fault).unwrap();
            assert_eq!(fault.op_count(), WORKLOAD_OPS);
            assert_eq!(fault.faults_injected(), 0);
        }
    }

    #[test]
    fn the_nth_op_fails_with_the_kind_of_each_fault() {
        // (kind, n, the op that must fail, its error kind)
        let cases = [
            (FaultKind::EioOnWrite, 1, "append", io::ErrorKind::Other),
            (FaultKind::ShortWrite, 3, "append", io::ErrorKind::WriteZero),
            (
                FaultKind::NoSpace,
                0,
                "create_new",
                io::ErrorKind::StorageFull,
            ),
            (FaultKind::NoSpace, 13, "append", io::ErrorKind::StorageFull),
            (FaultKind::EioOnSync, 2, "sync_data", io::ErrorKind::Other),
            (FaultKind::EioOnSync, 4, "sync_all", io::ErrorKind::Other),
            (FaultKind::EioOnSync, 5, "sync_dir", io::ErrorKind::Other),
        ];
        for (kind, n, op, io_kind) in cases {
            let (_, fault) = setup();
            fault.fail_at(n, kind, Persistence::Transient);
            let err = workload(&fault).unwrap_err();
            assert!(
                matches!(&err, Error::Io { op: o, .. } if *o == op),
                "{kind:?} at {n}: {err:?}"
            );
            assert_eq!(err.kind(), io_kind, "{kind:?} at {n}");
            assert_eq!(
                fault.op_count(),
                n + 1,
                "{kind:?} at {n}: it was op {n} that failed"
            );
            assert_eq!(fault.faults_injected(), 1);
        }
        let (_, fault) = setup();
        fault.fail_at(6, FaultKind::RenameFailure, Persistence::Transient);
        let err = workload(&fault).unwrap_err();
        assert!(matches!(err, Error::Rename { .. }), "{err:?}");
        assert_eq!(err.kind(), io::ErrorKind::Other);
        assert_eq!(fault.op_count(), 7);
    }

    #[test]
    fn a_hard_link_is_a_creation_for_faults() {
        let (mem, fault) = setup();
        fault.create_new(p("/db/a")).unwrap();
        // ENOSPC applies to creations: the link is op 1 and fails, creating nothing.
        fault.fail_at(1, FaultKind::NoSpace, Persistence::Transient);
        match fault.hard_link(p("/db/a"), p("/db/b")) {
            Err(Error::Io { op, source, .. }) => {
                assert_eq!(
                    (op, source.kind()),
                    ("hard_link", io::ErrorKind::StorageFull)
                );
            }
            other => panic!("{other:?}"),
        }
        assert!(!mem.exists(p("/db/b")).unwrap());
        fault.hard_link(p("/db/a"), p("/db/b")).unwrap();
        assert!(mem.exists(p("/db/b")).unwrap());
    }

    #[test]
    fn a_fault_waits_for_the_first_op_it_applies_to() {
        let (_, fault) = setup();
        // FaultOp 3 is an append; the first sync at or after it is op 4 (sync_all).
        fault.fail_at(3, FaultKind::EioOnSync, Persistence::Transient);
        let err = workload(&fault).unwrap_err();
        assert!(matches!(err, Error::Io { op: "sync_all", .. }), "{err:?}");
        assert_eq!(fault.op_count(), 5);

        let (_, fault) = setup();
        // No rename at or after op 7: the workload completes.
        fault.fail_at(7, FaultKind::RenameFailure, Persistence::Persistent);
        workload(&fault).unwrap();
        assert_eq!(fault.faults_injected(), 0);
    }

    #[test]
    fn transient_fails_once_persistent_keeps_failing() {
        let (mem, fault) = setup();
        let mut w = fault.create_new(p("/db/wal")).unwrap();
        fault.fail_at(1, FaultKind::EioOnWrite, Persistence::Transient);
        assert!(w.append(b"lost").is_err());
        w.append(b"kept").unwrap();
        assert_eq!(mem.contents(p("/db/wal")).unwrap(), b"kept");

        fault.fail_at(
            fault.op_count(),
            FaultKind::EioOnSync,
            Persistence::Persistent,
        );
        for _ in 0..3 {
            assert_eq!(w.sync_data().unwrap_err().kind(), io::ErrorKind::Other);
            assert_eq!(
                fault.sync_dir(p("/db")).unwrap_err().kind(),
                io::ErrorKind::Other
            );
        }
        w.append(b"!").unwrap(); // appends are not affected
        assert_eq!(
            mem.synced_len(p("/db/wal")).unwrap(),
            0,
            "no sync reached MemFs"
        );
        assert_eq!(fault.faults_injected(), 7);
        fault.clear_faults();
        w.sync_data().unwrap();
        assert_eq!(mem.synced_len(p("/db/wal")).unwrap(), 5);
    }

    #[test]
    fn short_write_leaves_exactly_half_the_bytes() {
        let (mem, fault) = setup();
        let mut w = fault.create_new(p("/db/wal")).unwrap();
        w.append(b"head").unwrap();
        fault.fail_at(0, FaultKind::ShortWrite, Persistence::Transient);
        let err = w.append(b"0123456789").unwrap_err();
        assert_eq!(err.kind(), io::ErrorKind::WriteZero);
        assert_eq!(err.path(), p("/db/wal"));
        assert_eq!(mem.contents(p("/db/wal")).unwrap(), b"head01234");
        assert_eq!(w.len(), 9);
    }

    #[test]
    fn no_space_on_create_creates_nothing() {
        let (mem, fault) = setup();
        fault.fail_at(0, FaultKind::NoSpace, Persistence::Persistent);
        assert_eq!(
            fault.create_new(p("/db/a")).unwrap_err().kind(),
            io::ErrorKind::StorageFull
        );
        assert!(mem.files().is_empty());
        // Other operations still work.
        assert_eq!(fault.list(p("/db")).unwrap(), Vec::<String>::new());
    }

    #[test]
    fn halt_stops_everything_and_pairs_with_crash() {
        let (mem, fault) = setup();
        fault.halt_at(5); // just before sync_dir
        assert!(workload(&fault).is_err());
        assert_eq!(fault.op_count(), 6);
        assert!(fault.exists(p("/db")).is_err());
        mem.crash(CrashMode::DropUnsynced);
        assert!(mem.files().is_empty(), "the create was never dir-synced");
        fault.clear_faults();
        assert!(!fault.exists(p("/db/tmp")).unwrap());
    }

    #[test]
    fn reads_are_counted_and_as_slice_passes_through() {
        let (mem, fault) = setup();
        mem.create_new(p("/db/f")).unwrap().append(b"xyz").unwrap();
        let r = fault.open_read(p("/db/f")).unwrap();
        assert_eq!(r.as_slice(), Some(&b"xyz"[..]));
        assert_eq!(r.len(), 3);
        assert_eq!(fault.op_count(), 1);
        assert_eq!(r.read_to_vec(1, 2).unwrap(), b"yz");
        assert_eq!(fault.op_count(), 2);
    }
}
