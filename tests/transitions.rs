//! Datadriven characterisation of every change of the region set (issue 28, design record
//! `docs/decisions/2026-11-27-regionserver-and-transitions.md`, §4 "Datadriven transition
//! format"): create, alter, disable, enable, truncate, drop, split and merge, each run to
//! success, into an injected I/O fault, into an uncertain catalog commit and into a crash
//! at a named crash point, and the state a restart recovers. This file owns the commands
//! of `tests/testdata/transitions/*.txt` (documented in that directory's README); the line
//! notation and the rewrite are `regionkv_testkit::datadriven`'s.
//!
//! Every file gets its own Db: `MemFs` under `FaultFs` under [`AimFs`] (which aims
//! FaultFs's faults at a path), a `ManualClock` at 1000 and no background threads, so that
//! every run does the same operations in the same order. The files run one after the
//! other in one test: the `fail` crate's registry is process-global, and each file holds
//! `fail::FailScenario` (no other test in this binary touches a fail point).
//!
//! The expected blocks pin TODAY's behaviour: `REGIONKV_REWRITE=1 cargo test --test
//! transitions` rewrites them from the engine, and the diff of a rewrite must be read
//! against the design record's rules before it is kept.
//!
//! Outputs never show an encoded region name (a hash of the region id, which the clock
//! and the id allocation decide): each is printed as its key range, `[g,p)`, primed
//! (`[g,p)'`) when another region of the file had that range first, or `<new region>` for
//! a region no catalog or manifest has shown yet.

#![allow(clippy::unwrap_used, clippy::expect_used)]

use regionkv::catalog::{Catalog, TableState};
use regionkv::table_info::{TableInfo, TableInfoState};
use regionkv::{ColumnFamilyDescriptor, Db, DbOptions, ManualClock, Put, Scan, TableDescriptor};
use regionkv_cell::bytes::to_string_binary;
use regionkv_fs::{
    CrashMode, FaultFs, FaultKind, FaultOp, FileLock, Fs, MemFs, Persistence, ReadableFile,
    WritableFile,
};
use regionkv_region::{Manifest, RegionInfo};
use regionkv_testkit::datadriven::{self, Step};
use std::collections::{BTreeMap, BTreeSet};
use std::fmt::Write as _;
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, Mutex};
use std::time::Duration;

/// The Db's directory on the MemFs.
const DB_DIR: &str = "/db";
/// The ManualClock's time (ms): cell timestamps and region ids start here.
const CLOCK_MS: i64 = 1_000;
/// How long a read may take before the runner calls it stuck: a region that is closed but
/// not marked offline makes reads retry for `REGION_RETRY_FOR` (60 s).
const READ_DEADLINE: Duration = Duration::from_secs(10);

// ---------------------------------------------------------------------------------------
// AimFs: FaultFs with faults aimed at a path
// ---------------------------------------------------------------------------------------

/// Where an aimed fault fires.
#[derive(Debug, Clone)]
enum Target {
    /// The first operation of its kind whose path contains this text.
    Path(String),
    /// The directory fsync right after a rename onto `CATALOG`: the catalog commit's
    /// last step, whose persistent failure makes the commit uncertain.
    CatalogDirSync { renamed: bool },
}

#[derive(Debug, Clone)]
struct Aim {
    kind: FaultKind,
    persistence: Persistence,
    target: Target,
}

/// What the runner has armed on the file system, and what fired.
#[derive(Debug, Default)]
struct AimState {
    aim: Option<Aim>,
    /// A fault (aimed or raw) was armed since the last `disarm`, `reopen` or `crash`.
    watching: bool,
    /// The first operation an armed fault failed, not yet printed.
    fired: Option<String>,
    /// Whether the armed fault ever fired.
    ever_fired: bool,
    /// A crash point halted the file system: failures from here on are the halt's.
    halted: bool,
    /// `REGIONKV_TRACE_FS=1`: every operation on stderr, for writing new files.
    trace: bool,
}

/// The file system the Db sees: it forwards to FaultFs and, just before an operation the
/// armed aim matches, arms FaultFs at that very operation; it also notes the first
/// operation a fault failed, so the file shows where its fault landed.
#[derive(Debug, Clone)]
struct AimFs {
    fault: Arc<FaultFs>,
    state: Arc<Mutex<AimState>>,
    /// The World's region labels: a target is matched against the path as the file
    /// prints it, so `[,g)/MANIFEST` or `<new region>/MANIFEST` can name a region.
    labels: Arc<Mutex<Labels>>,
}

impl AimFs {
    fn before(&self, class: FaultOp, op: &str, path: &Path) -> u64 {
        let mut st = self.state.lock().unwrap();
        if st.trace {
            eprintln!("fs op {} {op} {}", self.fault.op_count(), path.display());
        }
        if let Some(aim) = &mut st.aim {
            let hit = aim.kind.applies_to(class)
                && match &aim.target {
                    Target::Path(text) => {
                        let shown = self.labels.lock().unwrap().mask(&path.to_string_lossy());
                        shown.contains(text.as_str())
                    }
                    Target::CatalogDirSync { renamed } => *renamed && op == "sync_dir",
                };
            if hit {
                // Single-threaded (no background work): FaultFs's next operation is this.
                self.fault
                    .fail_at(self.fault.op_count(), aim.kind, aim.persistence);
                st.aim = None;
            }
        }
        self.fault.faults_injected()
    }

    fn after<T>(
        &self,
        injected_before: u64,
        op: &str,
        path: &Path,
        r: regionkv_fs::Result<T>,
    ) -> regionkv_fs::Result<T> {
        if self.fault.faults_injected() > injected_before {
            let mut st = self.state.lock().unwrap();
            if st.watching && !st.halted && !st.ever_fired {
                st.ever_fired = true;
                st.fired = Some(format!("{op} {}", path.display()));
            }
        }
        r
    }

    fn wrap(&self, file: Box<dyn WritableFile>) -> Box<dyn WritableFile> {
        Box::new(AimWritableFile {
            inner: file,
            fs: self.clone(),
        })
    }
}

impl Fs for AimFs {
    fn create_dir_all(&self, path: &Path) -> regionkv_fs::Result<()> {
        let n = self.before(FaultOp::Other, "create_dir_all", path);
        self.after(n, "create_dir_all", path, self.fault.create_dir_all(path))
    }

    fn create_new(&self, path: &Path) -> regionkv_fs::Result<Box<dyn WritableFile>> {
        let n = self.before(FaultOp::CreateNew, "create_new", path);
        let r = self.fault.create_new(path).map(|f| self.wrap(f));
        self.after(n, "create_new", path, r)
    }

    fn open_append(&self, path: &Path) -> regionkv_fs::Result<Box<dyn WritableFile>> {
        let n = self.before(FaultOp::Other, "open_append", path);
        let r = self.fault.open_append(path).map(|f| self.wrap(f));
        self.after(n, "open_append", path, r)
    }

    fn open_read(&self, path: &Path) -> regionkv_fs::Result<Arc<dyn ReadableFile>> {
        // Readers are not wrapped: no fault kind applies to a read (only a halt does).
        let n = self.before(FaultOp::Other, "open_read", path);
        self.after(n, "open_read", path, self.fault.open_read(path))
    }

    fn rename(&self, from: &Path, to: &Path) -> regionkv_fs::Result<()> {
        let n = self.before(FaultOp::Rename, "rename", from);
        let r = self.fault.rename(from, to);
        if r.is_ok() && to.file_name().is_some_and(|f| f == "CATALOG") {
            let mut st = self.state.lock().unwrap();
            if let Some(Aim {
                target: Target::CatalogDirSync { renamed },
                ..
            }) = &mut st.aim
            {
                *renamed = true;
            }
        }
        self.after(n, "rename", from, r)
    }

    fn hard_link(&self, from: &Path, to: &Path) -> regionkv_fs::Result<()> {
        let n = self.before(FaultOp::CreateNew, "hard_link", to);
        self.after(n, "hard_link", to, self.fault.hard_link(from, to))
    }

    fn remove_file(&self, path: &Path) -> regionkv_fs::Result<()> {
        let n = self.before(FaultOp::Remove, "remove_file", path);
        self.after(n, "remove_file", path, self.fault.remove_file(path))
    }

    fn remove_dir_all(&self, path: &Path) -> regionkv_fs::Result<()> {
        let n = self.before(FaultOp::Remove, "remove_dir_all", path);
        self.after(n, "remove_dir_all", path, self.fault.remove_dir_all(path))
    }

    fn list(&self, dir: &Path) -> regionkv_fs::Result<Vec<String>> {
        let n = self.before(FaultOp::Other, "list", dir);
        self.after(n, "list", dir, self.fault.list(dir))
    }

    fn exists(&self, path: &Path) -> regionkv_fs::Result<bool> {
        let n = self.before(FaultOp::Other, "exists", path);
        self.after(n, "exists", path, self.fault.exists(path))
    }

    fn file_len(&self, path: &Path) -> regionkv_fs::Result<u64> {
        let n = self.before(FaultOp::Other, "file_len", path);
        self.after(n, "file_len", path, self.fault.file_len(path))
    }

    fn sync_dir(&self, dir: &Path) -> regionkv_fs::Result<()> {
        let n = self.before(FaultOp::Sync, "sync_dir", dir);
        self.after(n, "sync_dir", dir, self.fault.sync_dir(dir))
    }

    fn lock(&self, path: &Path) -> regionkv_fs::Result<Box<dyn FileLock>> {
        let n = self.before(FaultOp::Other, "lock", path);
        self.after(n, "lock", path, self.fault.lock(path))
    }

    fn lock_dir(&self, dir: &Path) -> regionkv_fs::Result<Box<dyn FileLock>> {
        let n = self.before(FaultOp::Other, "lock_dir", dir);
        self.after(n, "lock_dir", dir, self.fault.lock_dir(dir))
    }
}

#[derive(Debug)]
struct AimWritableFile {
    inner: Box<dyn WritableFile>,
    fs: AimFs,
}

impl AimWritableFile {
    fn op<T>(
        &mut self,
        class: FaultOp,
        op: &str,
        f: impl FnOnce(&mut dyn WritableFile) -> regionkv_fs::Result<T>,
    ) -> regionkv_fs::Result<T> {
        let path = self.inner.path().to_path_buf();
        let n = self.fs.before(class, op, &path);
        let r = f(self.inner.as_mut());
        self.fs.after(n, op, &path, r)
    }
}

impl WritableFile for AimWritableFile {
    fn append(&mut self, buf: &[u8]) -> regionkv_fs::Result<()> {
        self.op(FaultOp::Append, "append", |f| f.append(buf))
    }

    fn sync_data(&mut self) -> regionkv_fs::Result<()> {
        self.op(FaultOp::Sync, "sync_data", |f| f.sync_data())
    }

    fn sync_all(&mut self) -> regionkv_fs::Result<()> {
        self.op(FaultOp::Sync, "sync_all", |f| f.sync_all())
    }

    fn reserve(&mut self, len: u64) -> regionkv_fs::Result<()> {
        self.op(FaultOp::Other, "reserve", |f| f.reserve(len))
    }

    fn trim(&mut self) -> regionkv_fs::Result<()> {
        self.op(FaultOp::Other, "trim", |f| f.trim())
    }

    fn len(&self) -> u64 {
        self.inner.len()
    }

    fn path(&self) -> &Path {
        self.inner.path()
    }
}

// ---------------------------------------------------------------------------------------
// Region names as key ranges
// ---------------------------------------------------------------------------------------

/// Labels of the regions a file has met (encoded name → `[start,end)`, primed when the
/// range was taken by another region first).
#[derive(Debug, Default)]
struct Labels {
    by_name: BTreeMap<String, (RegionInfo, String)>,
}

fn range(info: &RegionInfo) -> String {
    format!(
        "[{},{})",
        to_string_binary(&info.start_key),
        to_string_binary(&info.end_key)
    )
}

fn is_encoded_name(s: &str) -> bool {
    s.len() == 32
        && s.bytes()
            .all(|b| b.is_ascii_digit() || (b'a'..=b'f').contains(&b))
}

impl Labels {
    /// Gives `info` a label. An encoded name hashes the table, start key and region id
    /// only, so a region that did not commit can leave its name to a later region with
    /// another end key (a create rolled back and done again hands out the same id): the
    /// name then gets that region's label.
    fn learn(&mut self, info: &RegionInfo) {
        let name = info.encoded_name();
        if self
            .by_name
            .get(&name)
            .is_some_and(|(known, _)| known == info)
        {
            return;
        }
        let mut label = range(info);
        while self
            .by_name
            .iter()
            .any(|(n, (_, l))| *l == label && *n != name)
        {
            label.push('\'');
        }
        self.by_name.insert(name, (info.clone(), label));
    }

    fn of(&self, encoded: &str) -> String {
        self.by_name
            .get(encoded)
            .map(|(_, label)| label.clone())
            .unwrap_or_else(|| "<new region>".into())
    }

    /// `text` with every encoded region name replaced by its label.
    fn mask(&self, text: &str) -> String {
        let mut out = String::with_capacity(text.len());
        let bytes = text.as_bytes();
        let mut i = 0;
        while i < bytes.len() {
            let boundary = |j: usize| j == 0 || !bytes[j - 1].is_ascii_alphanumeric();
            let end = i + 32;
            if boundary(i)
                && end <= bytes.len()
                && text.is_char_boundary(end)
                && is_encoded_name(&text[i..end])
                && bytes.get(end).is_none_or(|b| !b.is_ascii_alphanumeric())
            {
                out.push_str(&self.of(&text[i..end]));
                i = end;
            } else {
                let c = text[i..].chars().next().unwrap();
                out.push(c);
                i += c.len_utf8();
            }
        }
        out
    }
}

// ---------------------------------------------------------------------------------------
// The world of one file
// ---------------------------------------------------------------------------------------

/// A crash point armed by `arm POINT crash` or `arm POINT fail`.
#[derive(Debug)]
struct ArmedPoint {
    name: String,
    /// `fail`: the point returns an injected error instead of halting the file system.
    fail: bool,
    /// The crash mode `crash` applies when it names none.
    mode: Option<CrashMode>,
    reached: Arc<AtomicBool>,
}

struct World {
    mem: MemFs,
    fs: AimFs,
    clock: ManualClock,
    db: Option<Db>,
    point: Option<ArmedPoint>,
    labels: Arc<Mutex<Labels>>,
}

type Out = Result<String, String>;

fn err(e: impl std::fmt::Display) -> String {
    format!("error: {e}")
}

fn crash_mode(name: &str) -> Result<CrashMode, String> {
    Ok(match name {
        "drop-unsynced" => CrashMode::DropUnsynced,
        "drop-unsynced-dir-entries" => CrashMode::DropUnsyncedDirEntries,
        "keep-renames-drop-data" => CrashMode::KeepRenamesDropData,
        "keep-random-prefix" => CrashMode::KeepRandomPrefix { seed: 1 },
        "torn-page" => CrashMode::TornPage { seed: 1 },
        other => return Err(format!("unknown crash mode `{other}`")),
    })
}

fn mode_name(mode: CrashMode) -> &'static str {
    match mode {
        CrashMode::DropUnsynced => "drop-unsynced",
        CrashMode::DropUnsyncedDirEntries => "drop-unsynced-dir-entries",
        CrashMode::KeepRenamesDropData => "keep-renames-drop-data",
        CrashMode::KeepRandomPrefix { .. } => "keep-random-prefix",
        CrashMode::TornPage { .. } => "torn-page",
    }
}

fn fault_kind(name: &str) -> Result<FaultKind, String> {
    Ok(match name {
        "eio-write" => FaultKind::EioOnWrite,
        "short-write" => FaultKind::ShortWrite,
        "no-space" => FaultKind::NoSpace,
        "eio-sync" => FaultKind::EioOnSync,
        "rename" => FaultKind::RenameFailure,
        "remove" => FaultKind::RemoveFailure,
        other => return Err(format!("unknown fault kind `{other}`")),
    })
}

fn table_state(s: TableState) -> &'static str {
    match s {
        TableState::Enabled => "ENABLED",
        TableState::Disabled => "DISABLED",
    }
}

fn info_state(s: TableInfoState) -> &'static str {
    match s {
        TableInfoState::Creating => "CREATING",
        TableInfoState::Enabled => "ENABLED",
        TableInfoState::Disabled => "DISABLED",
        TableInfoState::Dropping => "DROPPING",
    }
}

/// The family names of a descriptor, `cf,cg`.
fn families(desc: &TableDescriptor) -> String {
    desc.families
        .iter()
        .map(|f| to_string_binary(&f.name))
        .collect::<Vec<_>>()
        .join(",")
}

/// The table directory of `table` (`crates/regionkv/src/layout.rs`, private there).
fn table_dir(table: &str) -> PathBuf {
    let (ns, q) = table.split_once(':').unwrap_or(("default", table));
    Path::new(DB_DIR).join("data").join(ns).join(q)
}

fn list_arg(step: &Step, key: &str) -> Vec<String> {
    step.value(key)
        .map(|v| v.split(',').map(String::from).collect())
        .unwrap_or_default()
}

/// Runs `read` on a thread and waits at most [`READ_DEADLINE`]: a read of a region that
/// is closed without being marked offline would retry for a minute, which is a finding
/// to report, not a wait to sit out.
fn with_deadline<T: Send + 'static>(
    db: &Db,
    what: &str,
    read: impl FnOnce(Db) -> T + Send + 'static,
) -> T {
    let (tx, rx) = std::sync::mpsc::channel();
    let db = db.clone();
    std::thread::spawn(move || {
        let _ = tx.send(read(db));
    });
    match rx.recv_timeout(READ_DEADLINE) {
        Ok(v) => v,
        Err(std::sync::mpsc::RecvTimeoutError::Timeout) => panic!(
            "{what} still retrying after {READ_DEADLINE:?}: a region is closed but not offline"
        ),
        Err(std::sync::mpsc::RecvTimeoutError::Disconnected) => panic!("{what} panicked"),
    }
}

impl World {
    fn new() -> Self {
        let mem = MemFs::new();
        let fault = Arc::new(FaultFs::new(Arc::new(mem.clone())));
        let state = AimState {
            trace: std::env::var_os("REGIONKV_TRACE_FS").is_some(),
            ..AimState::default()
        };
        let labels = Arc::new(Mutex::new(Labels::default()));
        World {
            mem,
            fs: AimFs {
                fault,
                state: Arc::new(Mutex::new(state)),
                labels: labels.clone(),
            },
            clock: ManualClock::new(CLOCK_MS),
            db: None,
            point: None,
            labels,
        }
    }

    fn db(&self) -> Result<&Db, String> {
        self.db
            .as_ref()
            .ok_or_else(|| "no Db is open (`open` or `reopen` first)".to_string())
    }

    /// One command's output. The engine's errors are output (`error: ...`); `Err` from a
    /// command is a misuse of the notation.
    fn run(&mut self, step: &Step) -> String {
        if self.fs.state.lock().unwrap().trace {
            eprintln!("== line {}: {}", step.line, step.text);
        }
        self.learn_regions();
        // A misuse of the notation fails the file (a rewrite must not pin it).
        let mut out = self.dispatch(step).unwrap_or_else(|e| panic!("usage: {e}"));
        // A `fail` point has no callback to say it was reached: its injected error does.
        if let Some(p) = &self.point
            && p.fail
            && out.contains(&format!("injected failure at {}", p.name))
        {
            p.reached.store(true, Ordering::SeqCst);
        }
        if let Some(fired) = self.fs.state.lock().unwrap().fired.take() {
            let _ = writeln!(out, "fault hit: {fired}");
        }
        self.learn_regions();
        self.labels.lock().unwrap().mask(&out)
    }

    fn dispatch(&mut self, step: &Step) -> Out {
        let t = || {
            step.arg(0)
                .filter(|a| !a.contains('='))
                .ok_or_else(|| format!("{}: name the table", step.command))
        };
        match step.command.as_str() {
            "open" => self.open(),
            "reopen" => self.reopen(),
            "crash" => self.crash(step.arg(0)),
            "arm" => self.arm(step),
            "fault" => self.fault(step),
            "uncertain" => {
                self.watch(Some(Aim {
                    kind: FaultKind::EioOnSync,
                    persistence: Persistence::Persistent,
                    target: Target::CatalogDirSync { renamed: false },
                }));
                Ok(String::new())
            }
            "disarm" => Ok(self.disarm()),
            "create" => self.create(t()?, step),
            "put" => self.put(t()?, step),
            "bulkload" => self.bulkload(t()?, step),
            "flush" => {
                let t = t()?;
                self.admin(|db| db.admin().flush(t).map_err(err))
            }
            "split" => self.split(t()?, step),
            "merge" => self.merge(t()?, step),
            "alter" => self.alter(t()?, step),
            "disable" => {
                let t = t()?;
                self.admin(|db| db.admin().disable_table(t).map_err(err))
            }
            "enable" => {
                let t = t()?;
                self.admin(|db| db.admin().enable_table(t).map_err(err))
            }
            "truncate" => {
                let (t, preserve) = (t()?, step.has("preserve"));
                self.admin(|db| db.admin().truncate_table(t, preserve).map_err(err))
            }
            "drop" => {
                let t = t()?;
                self.admin(|db| db.admin().delete_table(t).map_err(err))
            }
            "snapshot" => {
                let t = t()?;
                let name = step.arg(1).ok_or("snapshot TABLE NAME [skip_flush]")?;
                let options = regionkv::SnapshotOptions {
                    skip_flush: step.has("skip_flush"),
                    ttl: 0,
                };
                self.admin(|db| {
                    db.admin()
                        .snapshot_with(name, t, &options)
                        .map(|_| ())
                        .map_err(err)
                })
            }
            "clone" => {
                let (name, table) = (
                    step.arg(0).ok_or("clone SNAPSHOT TABLE")?,
                    step.arg(1).ok_or("clone SNAPSHOT TABLE")?,
                );
                self.admin(|db| db.admin().clone_snapshot(name, table).map_err(err))
            }
            "restore" => {
                let name = step.arg(0).ok_or("restore SNAPSHOT")?;
                self.admin(|db| db.admin().restore_snapshot(name).map_err(err))
            }
            "delete_snapshot" => {
                let name = step.arg(0).ok_or("delete_snapshot SNAPSHOT")?;
                self.admin(|db| db.admin().delete_snapshot(name).map_err(err))
            }
            "snapshots" => Ok(self.snapshots()),
            "namespace" => self.namespace(step),
            "namespaces" => Ok(self.namespaces()),
            "regions" => self.regions(t()?),
            "tables" => self.tables(),
            "catalog" => Ok(self.catalog()),
            "dirs" => Ok(self.dirs(t()?)),
            "scan" => self.scan(t()?),
            other => Err(format!("unknown command `{other}`")),
        }
    }

    /// Runs an admin call whose success prints nothing.
    fn admin(&self, f: impl FnOnce(&Db) -> Result<(), String>) -> Out {
        let db = self.db()?;
        Ok(match f(db) {
            Ok(()) => String::new(),
            Err(e) => format!("{e}\n"),
        })
    }

    // ---- the Db's life ------------------------------------------------------------------

    fn open(&mut self) -> Out {
        if self.db.is_some() {
            return Err("a Db is open already".into());
        }
        let options = DbOptions::default()
            .background(false)
            .clock(Arc::new(self.clock.clone()))
            .fs(Arc::new(self.fs.clone()));
        match Db::open(DB_DIR, options) {
            Ok(db) => {
                self.db = Some(db);
                Ok(String::new())
            }
            Err(e) => Ok(format!("{}\n", err(e))),
        }
    }

    /// Removes the armed fail point (before the Db closes: a close must not hit it).
    fn remove_point(&mut self) -> Option<ArmedPoint> {
        let p = self.point.take()?;
        fail::remove(&p.name);
        Some(p)
    }

    fn clear_faults(&self) {
        self.fs.fault.clear_faults();
        let mut st = self.fs.state.lock().unwrap();
        let trace = st.trace;
        *st = AimState {
            trace,
            ..AimState::default()
        };
    }

    /// A clean restart: faults and fail points cleared (saying when one never fired),
    /// the Db closed (a close error is printed), and opened again on the same file system.
    fn reopen(&mut self) -> Out {
        let mut out = self.disarm();
        if let Some(db) = self.db.take() {
            if let Err(e) = db.close() {
                let _ = writeln!(out, "close: {}", err(e));
            }
            drop(db);
        }
        out.push_str(&self.open()?);
        Ok(out)
    }

    /// A power cut now: the file system halts (nothing more reaches it, the Db's drop
    /// included), then MemFs drops what `mode` says was not durable. No Db is open after.
    fn crash(&mut self, mode: Option<&str>) -> Out {
        let mut out = String::new();
        if self.unfired_fault() {
            out.push_str("the fault was never hit\n");
        }
        let point = self.remove_point();
        let mode = match (mode, point.as_ref().and_then(|p| p.mode)) {
            (Some(m), _) => crash_mode(m)?,
            (None, Some(m)) => m,
            (None, None) => CrashMode::DropUnsynced,
        };
        self.fs.fault.halt_at(self.fs.fault.op_count());
        self.fs.state.lock().unwrap().halted = true;
        drop(self.db.take());
        self.mem.crash(mode);
        self.clear_faults();
        let mode = mode_name(mode);
        let _ = match point {
            Some(p) if p.reached.load(Ordering::SeqCst) => {
                writeln!(out, "crashed at {} ({mode})", p.name)
            }
            Some(p) => writeln!(out, "{} was never reached; crashed ({mode})", p.name),
            None => writeln!(out, "crashed ({mode})"),
        };
        Ok(out)
    }

    // ---- faults -------------------------------------------------------------------------

    fn arm(&mut self, step: &Step) -> Out {
        let name = step
            .arg(0)
            .ok_or("arm POINT crash[=MODE] | arm POINT fail")?;
        if !regionkv::crash_points::ALL.iter().any(|(n, _)| *n == name) {
            return Ok(format!(
                "error: `{name}` is not in regionkv::crash_points::ALL\n"
            ));
        }
        self.remove_point();
        let action = step
            .arg(1)
            .ok_or("arm POINT crash[=MODE] | arm POINT fail")?;
        if action == "fail" {
            // The transition executor's boundary points return an injected error on
            // "return" (a one-argument `fail_point!(name)` elsewhere panics on it).
            fail::cfg(name, "return").map_err(|e| format!("fail::cfg: {e}"))?;
            self.point = Some(ArmedPoint {
                name: name.to_string(),
                fail: true,
                mode: None,
                reached: Arc::new(AtomicBool::new(false)),
            });
            return Ok(String::new());
        }
        let mode = match action {
            "crash" => None,
            _ => match action.strip_prefix("crash=") {
                Some(m) => Some(crash_mode(m)?),
                None => return Err(format!("arm: `{action}` is not crash[=MODE] or fail")),
            },
        };
        let reached = Arc::new(AtomicBool::new(false));
        let (fault, state, flag) = (
            self.fs.fault.clone(),
            self.fs.state.clone(),
            reached.clone(),
        );
        fail::cfg_callback(name, move || {
            // The process dies here: nothing after this point reaches the disk.
            if !flag.swap(true, Ordering::SeqCst) {
                state.lock().unwrap().halted = true;
                fault.halt_at(fault.op_count());
            }
        })
        .map_err(|e| format!("fail::cfg_callback: {e}"))?;
        self.point = Some(ArmedPoint {
            name: name.to_string(),
            fail: false,
            mode,
            reached,
        });
        Ok(String::new())
    }

    /// Starts watching for the next fault to fire, aimed (`Some`) or raw (`None`).
    fn watch(&self, aim: Option<Aim>) {
        let mut st = self.fs.state.lock().unwrap();
        st.aim = aim;
        st.watching = true;
        st.ever_fired = false;
        st.fired = None;
    }

    fn fault(&mut self, step: &Step) -> Out {
        let usage = "fault io=N kind=KIND [persist] | fault kind=KIND path=TEXT [persist]";
        let kind = fault_kind(step.value("kind").ok_or(usage)?)?;
        let persistence = if step.has("persist") {
            Persistence::Persistent
        } else {
            Persistence::Transient
        };
        match (step.value("io"), step.value("path")) {
            (Some(n), None) => {
                let n: u64 = n.parse().map_err(|_| format!("io=`{n}` is not a number"))?;
                // A raw operation number, counted from now.
                self.watch(None);
                self.fs
                    .fault
                    .fail_at(self.fs.fault.op_count() + n, kind, persistence);
            }
            (None, Some(text)) => self.watch(Some(Aim {
                kind,
                persistence,
                target: Target::Path(text.to_string()),
            })),
            _ => return Err(usage.into()),
        }
        Ok(String::new())
    }

    /// True when a fault is armed and has not fired: the file would not show what it says.
    fn unfired_fault(&self) -> bool {
        let st = self.fs.state.lock().unwrap();
        st.watching && !st.ever_fired
    }

    /// Clears faults and the armed fail point; says when either never fired.
    fn disarm(&mut self) -> String {
        let mut out = String::new();
        if self.unfired_fault() {
            out.push_str("the fault was never hit\n");
        }
        if let Some(p) = self.remove_point()
            && !p.reached.load(Ordering::SeqCst)
        {
            let _ = writeln!(out, "{} was never reached", p.name);
        }
        self.clear_faults();
        out
    }

    // ---- changes ------------------------------------------------------------------------

    fn create(&self, table: &str, step: &Step) -> Out {
        let families = list_arg(step, "families");
        let splits: Vec<Vec<u8>> = list_arg(step, "splits")
            .into_iter()
            .map(String::into_bytes)
            .collect();
        self.admin(|db| {
            let cfs = families
                .iter()
                .map(|f| ColumnFamilyDescriptor::new(f.as_bytes()))
                .collect::<Result<Vec<_>, _>>()
                .map_err(err)?;
            let mut desc = TableDescriptor::new(table, cfs).map_err(err)?;
            // Every acknowledged put is on disk: a crash loses no write, so the files
            // show what the transitions do, not what an unsynced WAL loses.
            desc.set_attribute("DURABILITY", "FSYNC_WAL").map_err(err)?;
            for a in &step.args[1..] {
                if let Some((k, v)) = a.split_once('=')
                    && k.chars().all(|c| c.is_ascii_uppercase() || c == '_')
                {
                    desc.set_attribute(k, v).map_err(err)?;
                }
            }
            db.admin()
                .create_table_with_splits(&desc, splits)
                .map_err(err)
        })
    }

    fn put(&self, table: &str, step: &Step) -> Out {
        let row = step
            .arg(1)
            .ok_or("put T ROW FAM:QUAL=VALUE ...")?
            .to_string();
        let mut put = Put::new(row.as_bytes());
        for cell in &step.args[2..] {
            let (col, value) = cell
                .split_once('=')
                .ok_or_else(|| format!("`{cell}` is not FAM:QUAL=VALUE"))?;
            let (fam, qual) = col
                .split_once(':')
                .ok_or_else(|| format!("`{col}` is not FAM:QUAL"))?;
            put = put.add_column(fam, qual, value);
        }
        let db = self.db()?;
        let table = table.to_string();
        Ok(with_deadline(db, "a put", move |db| {
            match db.table(&table).and_then(|t| t.put(&put)) {
                Ok(()) => String::new(),
                Err(e) => format!("{}\n", err(e)),
            }
        }))
    }

    /// `bulkload T ROW/FAM:QUAL=VALUE ...`: one table-wide bulk load of the cells, at the
    /// clock's time.
    fn bulkload(&self, table: &str, step: &Step) -> Out {
        let mut families: BTreeMap<String, Vec<(String, String, String)>> = BTreeMap::new();
        for cell in &step.args[1..] {
            let (row, rest) = cell
                .split_once('/')
                .ok_or_else(|| format!("`{cell}` is not ROW/FAM:QUAL=VALUE"))?;
            let (col, value) = rest
                .split_once('=')
                .ok_or_else(|| format!("`{cell}` is not ROW/FAM:QUAL=VALUE"))?;
            let (fam, qual) = col
                .split_once(':')
                .ok_or_else(|| format!("`{col}` is not FAM:QUAL"))?;
            families.entry(fam.to_string()).or_default().push((
                row.to_string(),
                qual.to_string(),
                value.to_string(),
            ));
        }
        let ts = regionkv::Clock::now_millis(&self.clock);
        self.admin(|db| {
            let mut input = Vec::new();
            for (family, mut cells) in families {
                cells.sort();
                let cells: Vec<regionkv::Cell> = cells
                    .into_iter()
                    .map(|(r, q, v)| {
                        regionkv::Cell::put(
                            r.as_bytes(),
                            family.as_bytes(),
                            q.as_bytes(),
                            ts,
                            v.as_bytes(),
                        )
                    })
                    .collect::<Result<_, _>>()
                    .map_err(|e| e.to_string())?;
                input.push(regionkv::FamilyCells::new(family.into_bytes(), cells));
            }
            db.admin().bulk_load(table, input).map(|_| ()).map_err(err)
        })
    }

    /// The encoded names of regions `indexes` of the table, as the Admin lists them.
    fn region_names(db: &Db, table: &str, indexes: &[String]) -> Result<Vec<String>, String> {
        let regions = db.admin().regions(table).map_err(err)?;
        indexes
            .iter()
            .map(|i| {
                let i: usize = i
                    .parse()
                    .map_err(|_| format!("`{i}` is not a region index"))?;
                regions
                    .get(i)
                    .map(|r| r.encoded_name.clone())
                    .ok_or_else(|| format!("error: no region {i} in {table}"))
            })
            .collect()
    }

    fn split(&self, table: &str, step: &Step) -> Out {
        let at = step.value("at").map(|r| r.as_bytes().to_vec());
        let region = step.value("region").map(String::from);
        self.admin(|db| match (at, region) {
            (Some(row), None) => db.admin().split_at(table, &row).map(|_| ()).map_err(err),
            (None, Some(i)) => {
                let name = Self::region_names(db, table, &[i])?;
                db.admin()
                    .split_region(&name[0], None)
                    .map(|_| ())
                    .map_err(err)
            }
            _ => Err("usage: split T at=ROW | split T region=N".into()),
        })
    }

    fn merge(&self, table: &str, step: &Step) -> Out {
        let indexes = list_arg(step, "regions");
        self.admin(|db| {
            let names = Self::region_names(db, table, &indexes)?;
            let names: Vec<&str> = names.iter().map(String::as_str).collect();
            db.admin()
                .merge_regions(&names, false)
                .map(|_| ())
                .map_err(err)
        })
    }

    fn alter(&self, table: &str, step: &Step) -> Out {
        let change = step
            .arg(1)
            .ok_or("alter T add=FAM | delete=FAM | FAM:ATTR=VALUE")?
            .to_string();
        self.admin(|db| {
            let admin = db.admin();
            if let Some(fam) = change.strip_prefix("add=") {
                let cf = ColumnFamilyDescriptor::new(fam.as_bytes()).map_err(err)?;
                admin.add_family(table, cf).map_err(err)
            } else if let Some(fam) = change.strip_prefix("delete=") {
                admin.delete_family(table, fam.as_bytes()).map_err(err)
            } else {
                let (fam, setting) = change
                    .split_once(':')
                    .ok_or("usage: alter T add=FAM | delete=FAM | FAM:ATTR=VALUE")?;
                let (key, value) = setting
                    .split_once('=')
                    .ok_or("usage: alter T FAM:ATTR=VALUE")?;
                let desc = admin.describe(table).map_err(err)?;
                let mut cf = desc
                    .families
                    .iter()
                    .find(|f| f.name == fam.as_bytes())
                    .cloned()
                    .ok_or_else(|| format!("error: no family {fam}"))?;
                cf.set_attribute(key, value).map_err(err)?;
                admin.modify_family(table, cf).map_err(err)
            }
        })
    }

    // ---- what is observable -------------------------------------------------------------

    /// The table's regions as the Admin lists them. The Admin reports no region state, so
    /// each region's is what a read of it sees: `online`, or `offline: <error>` (a region
    /// marked offline fails at once).
    fn regions(&self, table: &str) -> Out {
        let db = self.db()?;
        let regions = match db.admin().regions(table) {
            Ok(r) => r,
            Err(e) => return Ok(format!("{}\n", err(e))),
        };
        let mut out = String::new();
        for r in regions {
            let label = self.label(&r.encoded_name);
            let label = if label.starts_with('<') {
                format!(
                    "[{},{})",
                    to_string_binary(&r.start_key),
                    to_string_binary(&r.end_key)
                )
            } else {
                label
            };
            let (table, start, end) = (table.to_string(), r.start_key.clone(), r.end_key);
            let probe = with_deadline(db, "a read of a region", move |db| {
                let mut scan = Scan::new().start_row(&start).limit(1);
                if !end.is_empty() {
                    scan = scan.stop_row(&end);
                }
                db.table(&table)
                    .and_then(|t| t.scan(&scan))
                    .and_then(|rows| rows.collect::<Result<Vec<_>, _>>())
                    .map(|_| ())
            });
            match probe {
                Ok(()) => {
                    let _ = writeln!(out, "{label} online");
                }
                Err(e) => {
                    let _ = writeln!(out, "{label} offline: {e}");
                }
            }
        }
        Ok(out)
    }

    /// The tables as the Admin reports them: state, and the regions of an enabled one
    /// (the Admin lists none for a disabled table).
    fn tables(&self) -> Out {
        let db = self.db()?;
        let admin = db.admin();
        let names = match admin.list_tables() {
            Ok(n) => n,
            Err(e) => return Ok(format!("{}\n", err(e))),
        };
        if names.is_empty() {
            return Ok("(no tables)\n".into());
        }
        let mut out = String::new();
        for name in names {
            let families = match admin.describe(&name) {
                Ok(d) => families(&d),
                Err(e) => err(e),
            };
            match admin.is_table_enabled(&name) {
                Ok(true) => {
                    let regions = match admin.regions(&name) {
                        Ok(rs) => rs
                            .iter()
                            .map(|r| self.label(&r.encoded_name))
                            .collect::<Vec<_>>()
                            .join(" "),
                        Err(e) => err(e),
                    };
                    let _ = writeln!(out, "{name} ENABLED families={families} {regions}");
                }
                Ok(false) => {
                    let _ = writeln!(out, "{name} DISABLED families={families}");
                }
                Err(e) => {
                    let _ = writeln!(out, "{name} {}", err(e));
                }
            }
        }
        Ok(out)
    }

    fn label(&self, encoded: &str) -> String {
        self.labels.lock().unwrap().of(encoded)
    }

    /// The CATALOG file as the file system shows it now (read past the faults; what a
    /// clean restart would read, not necessarily what survives a power cut).
    /// `namespace create|modify|drop NAME [KEY=VALUE ...]` through the Admin.
    fn namespace(&self, step: &Step) -> Out {
        let (Some(verb), Some(name)) = (step.arg(0), step.arg(1)) else {
            return Err("namespace create|modify|drop NAME [KEY=VALUE ...]".into());
        };
        let properties: BTreeMap<String, String> = step
            .args
            .iter()
            .skip(2)
            .filter_map(|a| a.split_once('='))
            .map(|(k, v)| (k.to_string(), v.to_string()))
            .collect();
        let name = name.to_string();
        match verb {
            "create" => self.admin(|db| {
                db.admin()
                    .create_namespace_with_properties(&name, properties)
                    .map_err(err)
            }),
            "modify" => {
                self.admin(|db| db.admin().modify_namespace(&name, properties).map_err(err))
            }
            "drop" => self.admin(|db| db.admin().drop_namespace(&name).map_err(err)),
            other => Err(format!("unknown namespace change `{other}`")),
        }
    }

    /// The namespaces the CATALOG file names (with properties), each with whether its
    /// directory exists, and the directories the catalog does not name.
    fn namespaces(&self) -> String {
        let catalog = match self.read_catalog() {
            Err(e) => return format!("{e}\n"),
            Ok(None) => return "(no catalog)\n".into(),
            Ok(Some(c)) => c,
        };
        let data = Path::new(DB_DIR).join("data");
        let dirs: BTreeSet<String> = self
            .mem
            .list(&data)
            .unwrap_or_default()
            .into_iter()
            .collect();
        let mut out = String::new();
        for ns in &catalog.namespaces {
            let props = catalog
                .namespace_properties
                .get(ns)
                .map(|p| {
                    p.iter()
                        .map(|(k, v)| format!(" {k}={v}"))
                        .collect::<String>()
                })
                .unwrap_or_default();
            let dir = if dirs.contains(ns) { "dir" } else { "no dir" };
            let _ = writeln!(out, "{ns}{props} ({dir})");
        }
        for d in dirs.iter().filter(|d| !catalog.namespaces.contains(*d)) {
            let _ = writeln!(out, "unlisted dir: {d}");
        }
        out
    }

    fn read_catalog(&self) -> Result<Option<Catalog>, String> {
        Catalog::read(&self.mem, Path::new(DB_DIR)).map_err(err)
    }

    fn catalog(&self) -> String {
        match self.read_catalog() {
            Err(e) => format!("{e}\n"),
            Ok(None) => "(no catalog)\n".into(),
            Ok(Some(c)) if c.tables.is_empty() => "(no tables)\n".into(),
            Ok(Some(c)) => {
                let mut out = String::new();
                for (name, t) in &c.tables {
                    let regions: Vec<String> = t
                        .regions
                        .iter()
                        .map(|r| self.label(&r.info.encoded_name()))
                        .collect();
                    let _ = writeln!(
                        out,
                        "{name} {} families={} {}",
                        table_state(t.state),
                        families(&t.descriptor),
                        regions.join(" ")
                    );
                }
                out
            }
        }
    }

    /// The table's directory: its `.tableinfo` state, every region directory (listed by
    /// the CATALOG file or not, and how many files its families hold), the regions the
    /// catalog lists without a directory, and anything else there.
    /// What `.hbase-snapshot/` holds on disk, read without the Db: each snapshot
    /// directory, committed (its `snapshotinfo` is there: table, type, data files) or not.
    fn snapshots(&self) -> String {
        let root = Path::new(DB_DIR).join(regionkv::snapshot::SNAPSHOT_DIR);
        let Ok(mut names) = self.mem.list(&root) else {
            return "no snapshot directory\n".into();
        };
        names.sort();
        let mut out = String::new();
        for name in names {
            let dir = root.join(&name);
            let files = count_files(&self.mem, &dir.join("data"));
            match regionkv::snapshot::read_description(&self.mem, Path::new(DB_DIR), &name) {
                Ok(d) => {
                    let _ = writeln!(
                        out,
                        "{name} of {} {} files={files}",
                        d.table,
                        d.snapshot_type.name()
                    );
                }
                Err(regionkv::Error::SnapshotDoesNotExist(_)) => {
                    let _ = writeln!(out, "{name} uncommitted, files={files}");
                }
                Err(e) => {
                    let _ = writeln!(out, "{name} {}", err(e));
                }
            }
        }
        if out.is_empty() {
            out.push_str("no snapshots\n");
        }
        out
    }

    fn dirs(&self, table: &str) -> String {
        let tdir = table_dir(table);
        let Ok(entries) = self.mem.list(&tdir) else {
            return "no table directory\n".into();
        };
        let listed: Vec<String> = match self.read_catalog() {
            Ok(Some(c)) => c
                .tables
                .get(table)
                .map(|t| t.regions.iter().map(|r| r.info.encoded_name()).collect())
                .unwrap_or_default(),
            _ => Vec::new(),
        };
        let mut out = String::new();
        match TableInfo::read(&self.mem, &tdir) {
            Ok(Some(info)) => {
                let _ = writeln!(out, ".tableinfo {}", info_state(info.state));
            }
            Ok(None) => out.push_str("no .tableinfo\n"),
            Err(e) => {
                let _ = writeln!(out, ".tableinfo {}", err(e));
            }
        }
        let mut lines = Vec::new();
        let mut others = Vec::new();
        for name in &entries {
            if name == regionkv::table_info::TABLE_INFO_FILE {
                continue;
            }
            if !is_encoded_name(name) {
                others.push(name.clone());
                continue;
            }
            let dir = tdir.join(name);
            let files: usize = self
                .mem
                .list(&dir)
                .unwrap_or_default()
                .iter()
                .filter_map(|f| self.mem.list(&dir.join(f)).ok())
                .map(|fam| fam.len())
                .sum();
            let manifest = match Manifest::read(&self.mem, &dir) {
                Ok(Some(_)) => "",
                Ok(None) => ", no manifest",
                Err(_) => ", unreadable manifest",
            };
            let status = if listed.contains(name) {
                "listed"
            } else {
                "unlisted"
            };
            lines.push(format!(
                "{} {status}, files={files}{manifest}",
                self.label(name)
            ));
        }
        for name in &listed {
            if !entries.contains(name) {
                lines.push(format!("{} listed, no directory", self.label(name)));
            }
        }
        lines.sort();
        for l in lines {
            let _ = writeln!(out, "{l}");
        }
        for o in others {
            let _ = writeln!(out, "other: {o}");
        }
        out
    }

    fn scan(&self, table: &str) -> Out {
        let db = self.db()?;
        let table = table.to_string();
        Ok(with_deadline(db, "a scan", move |db| {
            let mut out = String::new();
            let rows = match db.table(&table).and_then(|t| t.scan(&Scan::new())) {
                Ok(rows) => rows,
                Err(e) => return format!("{}\n", err(e)),
            };
            let mut n = 0;
            for row in rows {
                match row {
                    Ok(r) => {
                        for c in r.cells() {
                            n += 1;
                            let _ = writeln!(
                                out,
                                "{}/{}:{}={}",
                                to_string_binary(c.row()),
                                to_string_binary(c.family()),
                                to_string_binary(c.qualifier()),
                                to_string_binary(c.value())
                            );
                        }
                    }
                    Err(e) => {
                        let _ = writeln!(out, "{}", err(e));
                        return out;
                    }
                }
            }
            if n == 0 {
                out.push_str("(no rows)\n");
            }
            out
        }))
    }

    /// Learns the key range of every region the CATALOG file and the table directories
    /// name (read past the faults), so that outputs print ranges, not encoded names.
    fn learn_regions(&self) {
        let mut labels = self.labels.lock().unwrap();
        if let Ok(Some(c)) = self.read_catalog() {
            for t in c.tables.values() {
                for r in &t.regions {
                    labels.learn(&r.info);
                }
            }
        }
        let data = Path::new(DB_DIR).join("data");
        for ns in self.mem.list(&data).unwrap_or_default() {
            for t in self.mem.list(&data.join(&ns)).unwrap_or_default() {
                let tdir = data.join(&ns).join(&t);
                let mut regions = self.mem.list(&tdir).unwrap_or_default();
                regions.retain(|r| is_encoded_name(r));
                // By region id, so that an older region keeps the unprimed label.
                let mut infos: Vec<RegionInfo> = regions
                    .iter()
                    .filter_map(|r| Manifest::read(&self.mem, &tdir.join(r)).ok().flatten())
                    .map(|m| m.region)
                    .collect();
                infos.sort_by_key(|i| i.region_id);
                for info in &infos {
                    labels.learn(info);
                }
            }
        }
    }
}

impl Drop for World {
    fn drop(&mut self) {
        // Close with nothing armed, so the drop neither fails nor hits a fail point.
        self.clear_faults();
        self.remove_point();
        drop(self.db.take());
    }
}

#[test]
fn transitions() {
    let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/testdata/transitions");
    let rewrite = regionkv_testkit::rewrite_requested();
    let files = datadriven::test_files(&dir);
    let mut failures = Vec::new();
    let mut steps = 0;
    for path in &files {
        // Holds the fail registry for this file and clears it after (also on a panic).
        let scenario = fail::FailScenario::setup();
        let mut world = World::new();
        let out = datadriven::check_file(path, rewrite, |step| world.run(step));
        drop(world);
        scenario.teardown();
        if out.rewritten {
            eprintln!("rewrote {}", path.display());
        }
        steps += out.steps;
        failures.extend(out.failures);
    }
    eprintln!("transitions: {} files, {steps} commands", files.len());
    assert!(
        failures.is_empty(),
        "{} failure(s):\n\n{}",
        failures.len(),
        failures.join("\n\n")
    );
}

/// The files under `dir`, at any depth.
fn count_files(fs: &dyn Fs, dir: &Path) -> usize {
    let Ok(entries) = fs.list(dir) else {
        return 0;
    };
    entries
        .iter()
        .map(|e| {
            let p = dir.join(e);
            match fs.list(&p) {
                Ok(_) => count_files(fs, &p),
                Err(_) => 1,
            }
        })
        .sum()
}
