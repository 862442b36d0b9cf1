//! Helpers shared by the integration tests: edit builders, a WAL on a `MemFs`, and a file
//! system wrapper whose syncs are slow (to make group commit observable).

#![allow(dead_code, clippy::unwrap_used, clippy::expect_used)]

use std::path::{Path, PathBuf};
use std::sync::Arc;
use std::time::Duration;

use regionkv_cell::{Cell, CellType};
use regionkv_fs::{FileLock, Fs, MemFs, ReadableFile, WritableFile};
use regionkv_wal::format::{
    HEADER_LEN, compactable, encode_compact_into, encode_declaration_into, encode_record_into,
};
use regionkv_wal::{RecoveryMode, Wal, WalConfig, WalEdit, WalKey, replay};
use std::collections::HashMap;

pub const DIR: &str = "/db/wal";

pub fn dir() -> &'static Path {
    Path::new(DIR)
}

/// An edit of `region` with sequence id `seq` and `cells` cells.
pub fn edit(region: &str, seq: u64, cells: usize) -> WalEdit {
    let cells = (0..cells)
        .map(|i| {
            let row = format!("row-{seq:06}");
            if i % 5 == 4 {
                Cell::delete_marker(row.as_bytes(), b"cf", b"", 7, CellType::DeleteFamily)
            } else {
                Cell::put(
                    row.as_bytes(),
                    b"cf",
                    format!("q{i}").as_bytes(),
                    1_700_000_000_000 + i as i64,
                    format!("value-{seq}-{i}").as_bytes(),
                )
            }
            .unwrap()
            .with_seq_id(seq)
        })
        .collect();
    WalEdit::new(
        WalKey {
            region: region.as_bytes().to_vec(),
            table: "t1".into(),
            seq_id: seq,
            write_time: 1_700_000_000_000 + seq as i64,
        },
        cells,
    )
}

/// A config with a syncer that stays out of the way (1 hour) unless a test wants it.
pub fn quiet_config() -> WalConfig {
    WalConfig {
        async_sync_interval: Duration::from_secs(3600),
        ..WalConfig::default()
    }
}

pub fn open(fs: &MemFs, config: WalConfig) -> Wal {
    Wal::open(Arc::new(fs.clone()), dir(), config).unwrap()
}

/// Every edit replay returns with its report; panics on an error.
pub fn replay_report(
    fs: &dyn Fs,
    mode: RecoveryMode,
) -> (Vec<WalEdit>, regionkv_wal::ReplayReport) {
    replay(fs, dir(), mode).unwrap().read_all().unwrap()
}

/// Every edit replay returns, or the error.
pub fn replay_all(fs: &dyn Fs, mode: RecoveryMode) -> regionkv_wal::Result<Vec<WalEdit>> {
    replay(fs, dir(), mode)?.read_all().map(|(edits, _)| edits)
}

/// The records a fresh WAL writes for `edits` appended one at a time (each append its own
/// group-commit round), as `docs/wal-format.md` specifies them: a region's first edit is
/// preceded by its declaration (ids from 1, in order of first use), and edits are compact
/// (named when a cell carries another sequence id). Returns the bytes after the header and
/// the file offset of each edit's record.
pub fn expected_records(edits: &[WalEdit]) -> (Vec<u8>, Vec<u64>) {
    let mut ids: HashMap<Vec<u8>, u64> = HashMap::new();
    let mut out = Vec::new();
    let mut offsets = Vec::new();
    for e in edits {
        let key = e.key.as_ref();
        let id = match ids.get(&e.key.region) {
            Some(&id) => id,
            None => {
                let id = ids.len() as u64 + 1;
                ids.insert(e.key.region.clone(), id);
                encode_declaration_into(&mut out, id, &e.key.region, &e.key.table).unwrap();
                id
            }
        };
        offsets.push((HEADER_LEN + out.len()) as u64);
        if compactable(&key, &e.cells) {
            encode_compact_into(&mut out, id, &key, &e.cells).unwrap();
        } else {
            encode_record_into(&mut out, e).unwrap();
        }
    }
    (out, offsets)
}

/// Writes `edits` into one fresh log (closed afterwards) and returns its path and the offset
/// of each edit's record. Checks the log holds exactly [`expected_records`]. The log is
/// written without preallocation (its header does not claim a reserved tail), so that the
/// damage tests see every zero byte classified as damage; [`write_preallocated_log`] is the
/// default writer's.
pub fn write_log(fs: &MemFs, edits: &[WalEdit]) -> (PathBuf, Vec<u64>) {
    write_log_with(
        fs,
        edits,
        WalConfig {
            preallocate: 0,
            ..quiet_config()
        },
    )
}

/// [`write_log`] with the default preallocation (the header flags the reserved tail).
pub fn write_preallocated_log(fs: &MemFs, edits: &[WalEdit]) -> (PathBuf, Vec<u64>) {
    write_log_with(fs, edits, quiet_config())
}

fn write_log_with(fs: &MemFs, edits: &[WalEdit], config: WalConfig) -> (PathBuf, Vec<u64>) {
    let wal = open(fs, config);
    for e in edits {
        wal.append(e, regionkv_wal::SyncMode::Sync).unwrap();
    }
    let path = wal.log_files().last().unwrap().clone();
    wal.close().unwrap();
    let (records, offsets) = expected_records(edits);
    // Close ends the log with its seal; the damage tests work on the log a killed writer
    // leaves (its records, no seal), so the seal is cut off again.
    let bytes = fs.contents(&path).unwrap();
    let records_end = HEADER_LEN + records.len();
    let mut seal = Vec::new();
    regionkv_wal::format::encode_seal_into(&mut seal, records_end as u64);
    assert_eq!(
        bytes[records_end..],
        seal[..],
        "a closed log ends with its seal"
    );
    fs.truncate(&path, records_end as u64).unwrap();
    assert_eq!(fs.contents(&path).unwrap()[HEADER_LEN..], records[..]);
    (path, offsets)
}

/// Creates (or replaces) the file at `path` with `bytes`.
pub fn write_file(fs: &MemFs, path: &Path, bytes: &[u8]) {
    let _ = fs.remove_file(path);
    let mut w = fs.create_new(path).unwrap();
    w.append(bytes).unwrap();
    w.sync_data().unwrap();
}

/// Replaces the contents of the file at `path`.
pub fn overwrite(fs: &MemFs, path: &Path, bytes: &[u8]) {
    fs.truncate(path, 0).unwrap();
    let mut w = fs.open_append(path).unwrap();
    w.append(bytes).unwrap();
    w.sync_data().unwrap();
}

/// A file system whose `sync_data`/`sync_all` sleep first, like a real disk's fdatasync.
#[derive(Debug, Clone)]
pub struct SlowSyncFs {
    pub inner: Arc<dyn Fs>,
    pub delay: Duration,
}

#[derive(Debug)]
struct SlowFile {
    inner: Box<dyn WritableFile>,
    delay: Duration,
}

impl WritableFile for SlowFile {
    fn append(&mut self, buf: &[u8]) -> regionkv_fs::Result<()> {
        self.inner.append(buf)
    }
    fn sync_data(&mut self) -> regionkv_fs::Result<()> {
        std::thread::sleep(self.delay);
        self.inner.sync_data()
    }
    fn sync_all(&mut self) -> regionkv_fs::Result<()> {
        std::thread::sleep(self.delay);
        self.inner.sync_all()
    }
    fn reserve(&mut self, len: u64) -> regionkv_fs::Result<()> {
        self.inner.reserve(len)
    }
    fn trim(&mut self) -> regionkv_fs::Result<()> {
        self.inner.trim()
    }
    fn len(&self) -> u64 {
        self.inner.len()
    }
    fn path(&self) -> &Path {
        self.inner.path()
    }
}

impl Fs for SlowSyncFs {
    fn create_dir_all(&self, path: &Path) -> regionkv_fs::Result<()> {
        self.inner.create_dir_all(path)
    }
    fn create_new(&self, path: &Path) -> regionkv_fs::Result<Box<dyn WritableFile>> {
        Ok(Box::new(SlowFile {
            inner: self.inner.create_new(path)?,
            delay: self.delay,
        }))
    }
    fn open_append(&self, path: &Path) -> regionkv_fs::Result<Box<dyn WritableFile>> {
        Ok(Box::new(SlowFile {
            inner: self.inner.open_append(path)?,
            delay: self.delay,
        }))
    }
    fn open_read(&self, path: &Path) -> regionkv_fs::Result<Arc<dyn ReadableFile>> {
        self.inner.open_read(path)
    }
    fn rename(&self, from: &Path, to: &Path) -> regionkv_fs::Result<()> {
        self.inner.rename(from, to)
    }
    fn hard_link(&self, from: &Path, to: &Path) -> regionkv_fs::Result<()> {
        self.inner.hard_link(from, to)
    }
    fn remove_file(&self, path: &Path) -> regionkv_fs::Result<()> {
        self.inner.remove_file(path)
    }
    fn remove_dir_all(&self, path: &Path) -> regionkv_fs::Result<()> {
        self.inner.remove_dir_all(path)
    }
    fn list(&self, dir: &Path) -> regionkv_fs::Result<Vec<String>> {
        self.inner.list(dir)
    }
    fn exists(&self, path: &Path) -> regionkv_fs::Result<bool> {
        self.inner.exists(path)
    }
    fn file_len(&self, path: &Path) -> regionkv_fs::Result<u64> {
        self.inner.file_len(path)
    }
    fn sync_dir(&self, dir: &Path) -> regionkv_fs::Result<()> {
        std::thread::sleep(self.delay);
        self.inner.sync_dir(dir)
    }
    fn lock(&self, path: &Path) -> regionkv_fs::Result<Box<dyn FileLock>> {
        self.inner.lock(path)
    }
    fn lock_dir(&self, dir: &Path) -> regionkv_fs::Result<Box<dyn FileLock>> {
        self.inner.lock_dir(dir)
    }
}
