//! The disk under the WAL models, and the two ways a model reads it back. The real
//! [`Wal`](crate::wal::Wal) writes through [`regionkv_fs::Fs`]; here that is a [`MemFs`]
//! (which tracks what is durable apart from what the OS has), under a [`FaultFs`] (which
//! fails a chosen write or sync, to poison the WAL), under a [`YieldingFs`] (which lets other
//! threads run while a write or sync is in progress, as a real disk does; it is also what
//! makes a sync take model time, see `regionkv_wal::shuttle::sync`, so that the WAL's
//! gathering has a sync duration to go by).
//!
//! Read back: [`Disk::written`] is every edit in the logs as the OS has them (what a killed
//! process leaves: a SYNC_WAL append's promise), [`Disk::durable`] every edit in what a power
//! cut would leave (the durable names with their synced bytes: a FSYNC_WAL append's
//! promise), each by the WAL's own replay. Neither read is a shuttle scheduling point, so a
//! model that reads right after an append returns sees the disk as the append left it.

use std::path::Path;
use std::sync::Arc;

use regionkv_fs::{FaultFs, FileLock, Fs, MemFs, ReadableFile, WritableFile};
use regionkv_wal::format::{LogName, parse_log_name};
use regionkv_wal::{RecoveryMode, WalEdit, replay};

/// The WAL directory of every model.
pub const WAL_DIR: &str = "/db/wal";

/// A [`MemFs`] under a [`FaultFs`] under a [`YieldingFs`]. Clones share the file system.
#[derive(Debug, Clone)]
pub struct Disk {
    /// The files.
    pub mem: MemFs,
    /// Arm a fault here ([`FaultFs::fail_at`]).
    pub faults: FaultFs,
    fs: Arc<dyn Fs>,
}

impl Default for Disk {
    fn default() -> Self {
        Self::new()
    }
}

impl Disk {
    /// An empty disk with no fault armed.
    pub fn new() -> Self {
        let mem = MemFs::new();
        let faults = FaultFs::new(Arc::new(mem.clone()));
        let fs = Arc::new(YieldingFs(Arc::new(faults.clone())));
        Self { mem, faults, fs }
    }

    /// What the WAL is opened on.
    pub fn fs(&self) -> Arc<dyn Fs> {
        Arc::clone(&self.fs)
    }

    /// Every edit the OS has, in log order: a replay of the logs as they are.
    pub fn written(&self) -> Vec<WalEdit> {
        read_logs(&self.mem)
    }

    /// Every edit a power cut now would keep, in log order: a replay of a copy of the WAL
    /// directory that holds the durable log names, each cut to its synced bytes (what
    /// [`MemFs::crash`] with `CrashMode::DropUnsynced` leaves).
    pub fn durable(&self) -> Vec<WalEdit> {
        let copy = MemFs::new();
        let dir = Path::new(WAL_DIR);
        copy.create_dir_all(dir).unwrap_or_else(|e| panic!("{e}"));
        for path in self.mem.durable_files() {
            let is_log = path.parent() == Some(dir)
                && path
                    .file_name()
                    .and_then(|n| n.to_str())
                    .and_then(parse_log_name)
                    .is_some_and(|n| matches!(n, LogName::Log(_)));
            if !is_log {
                continue;
            }
            // A durable name whose live file is gone was removed after the last directory
            // sync; the models' WALs never remove a log.
            let (Ok(bytes), Ok(synced)) = (self.mem.contents(&path), self.mem.synced_len(&path))
            else {
                continue;
            };
            let synced = usize::try_from(synced).unwrap_or(usize::MAX);
            let mut f = copy.create_new(&path).unwrap_or_else(|e| panic!("{e}"));
            f.append(bytes.get(..synced).unwrap_or(&bytes))
                .unwrap_or_else(|e| panic!("{e}"));
        }
        read_logs(&copy)
    }
}

/// Replays [`WAL_DIR`] in `fs` as the WAL's recovery does by default (a torn end of the last
/// log is dropped). Panics on anything else: the logs a model's WAL wrote must replay.
fn read_logs(fs: &MemFs) -> Vec<WalEdit> {
    replay(fs, Path::new(WAL_DIR), RecoveryMode::TolerateCorruptedTail)
        .and_then(|r| r.read_all())
        .map(|(edits, _)| edits)
        .unwrap_or_else(|e| panic!("the WAL's logs do not replay: {e}"))
}

/// A file system that yields to the shuttle scheduler before each write and sync (of a file
/// or a directory), so that other threads run while one is in progress.
#[derive(Debug)]
pub struct YieldingFs(pub Arc<dyn Fs>);

#[derive(Debug)]
struct YieldingFile(Box<dyn WritableFile>);

impl WritableFile for YieldingFile {
    fn append(&mut self, buf: &[u8]) -> regionkv_fs::Result<()> {
        shuttle::thread::yield_now();
        self.0.append(buf)
    }
    fn sync_data(&mut self) -> regionkv_fs::Result<()> {
        shuttle::thread::yield_now();
        self.0.sync_data()
    }
    fn sync_all(&mut self) -> regionkv_fs::Result<()> {
        shuttle::thread::yield_now();
        self.0.sync_all()
    }
    fn reserve(&mut self, len: u64) -> regionkv_fs::Result<()> {
        self.0.reserve(len)
    }
    fn trim(&mut self) -> regionkv_fs::Result<()> {
        self.0.trim()
    }
    fn len(&self) -> u64 {
        self.0.len()
    }
    fn path(&self) -> &Path {
        self.0.path()
    }
}

impl Fs for YieldingFs {
    fn create_dir_all(&self, path: &Path) -> regionkv_fs::Result<()> {
        self.0.create_dir_all(path)
    }
    fn create_new(&self, path: &Path) -> regionkv_fs::Result<Box<dyn WritableFile>> {
        Ok(Box::new(YieldingFile(self.0.create_new(path)?)))
    }
    fn open_append(&self, path: &Path) -> regionkv_fs::Result<Box<dyn WritableFile>> {
        Ok(Box::new(YieldingFile(self.0.open_append(path)?)))
    }
    fn open_read(&self, path: &Path) -> regionkv_fs::Result<Arc<dyn ReadableFile>> {
        self.0.open_read(path)
    }
    fn rename(&self, from: &Path, to: &Path) -> regionkv_fs::Result<()> {
        self.0.rename(from, to)
    }
    fn hard_link(&self, from: &Path, to: &Path) -> regionkv_fs::Result<()> {
        self.0.hard_link(from, to)
    }
    fn remove_file(&self, path: &Path) -> regionkv_fs::Result<()> {
        self.0.remove_file(path)
    }
    fn remove_dir_all(&self, path: &Path) -> regionkv_fs::Result<()> {
        self.0.remove_dir_all(path)
    }
    fn list(&self, dir: &Path) -> regionkv_fs::Result<Vec<String>> {
        self.0.list(dir)
    }
    fn exists(&self, path: &Path) -> regionkv_fs::Result<bool> {
        self.0.exists(path)
    }
    fn file_len(&self, path: &Path) -> regionkv_fs::Result<u64> {
        self.0.file_len(path)
    }
    fn sync_dir(&self, dir: &Path) -> regionkv_fs::Result<()> {
        shuttle::thread::yield_now();
        self.0.sync_dir(dir)
    }
    fn lock(&self, path: &Path) -> regionkv_fs::Result<Box<dyn FileLock>> {
        self.0.lock(path)
    }
    fn lock_dir(&self, dir: &Path) -> regionkv_fs::Result<Box<dyn FileLock>> {
        self.0.lock_dir(dir)
    }
}
