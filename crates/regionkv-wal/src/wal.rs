//! [`Wal`]: the write side of the log — appends with per-edit durability, group commit, the
//! background syncer, rolling, and deleting logs whose edits are all flushed.
//!
//! # Group commit
//!
//! Every appender encodes its edit into a framed record *before* taking the lock (the CRC is
//! the expensive part), then, under one mutex, copies the record into a pending buffer and
//! notes the logical position where it ends (`appended`; positions count record bytes over
//! the WAL's whole life, across log files). Three more positions describe progress:
//! `written` (handed to the OS with `write(2)`), `synced` (covered by an `fdatasync`), and
//! `fsync_wanted` (the highest position some waiter needs synced). Then:
//!
//! - `AsyncWal` returns at once; the background syncer writes and syncs the buffer every
//!   [`async_sync_interval`](crate::WalConfig::async_sync_interval) (and an appender writes it
//!   early once it exceeds 1 MiB, to bound memory).
//! - `SyncWal` waits until `written` covers its end; `FsyncWal` raises `fsync_wanted` to its
//!   end and waits until `synced` covers it.
//! - A waiter that finds no I/O in progress (`busy` is false) becomes the *leader*: it takes the
//!   whole pending buffer and the log file out of the state, sets `busy`, drops the lock,
//!   writes the buffer with one `append`, `fdatasync`s if `fsync_wanted` is past `synced`,
//!   retakes the lock, publishes the new positions, clears `busy` and wakes everyone
//!   (`notify_all` on one condition variable). Followers wake, find their position covered and
//!   return, or find it not covered and lead the next round.
//!
//! While a leader is inside `fdatasync` (about 1–2 ms on the work disk), new appenders pile
//! into the buffer; the next leader writes and syncs them all with one call each.
//!
//! A follower behind a round waits a few microseconds (the leader's `write(2)`), or one
//! `fdatasync` (tens to hundreds of microseconds, the leader asleep in the kernel), so
//! before parking on the condition variable it releases the lock and watches a counter of
//! finished rounds (`epoch`), spinning and then yielding while yields stay quick
//! (`sync::relax_for`, RocksDB's adaptive wait): for at most 100 µs behind a round that
//! only writes, and for a little longer than the last `fdatasync` took (at most 1 ms)
//! behind one that syncs. It relaxes again after each round or gathering it saw end, and
//! parks once a relax ends without one. Released together, the writers of one round come
//! back together and share the next one. Parking there cost a futex sleep and wake-up per
//! append: two writer threads made 156,000 context switches per million puts and wrote at
//! 0.6-0.7x one thread's rate (issue 32; measured in docs/benchmarks.md, "Client threads").
//!
//! ## Gathering
//!
//! That alone does not batch a small closed loop. With two threads each doing `FsyncWal`
//! appends back to back, thread A syncs its record while B's record arrives; when A's round
//! ends, B leads a round holding only its own record while A is still on its way back with
//! the next one, and so on: one sync per append, strictly alternating (the first version of
//! this module did exactly that; `tests/durability.rs` caught it). So a thread about to lead
//! a round that will `fdatasync` first *gathers*: it waits, at most a quarter of the last
//! sync's duration (capped at 500 µs), until as many records are pending as the last round
//! wrote plus those left waiting at its end, i.e. until the writers the last round released
//! are back. It watches a count of enqueued records before it parks, as a follower
//! watches rounds (a wake-up from a park cost two writers' rounds 10 µs more of the
//! ~100 µs sync). Others arriving meanwhile only enqueue and wake it. A lone writer never waits
//! (the estimate is its own one record), nor does anyone when syncs are instant (in-memory
//! file systems) or the last round is long past. This is PostgreSQL's `commit_delay` /
//! `commit_siblings`, made adaptive. Two threads then share every sync (measured: see
//! `tests/durability.rs` `two_fsync_writers_share_syncs` and `examples/wal_group_commit.rs`).
//!
//! ## The syncing CPU
//!
//! An `fdatasync` is not equally long from every CPU. On a machine whose log device
//! interrupts one CPU (a single-queue virtio disk: the work VM's `virtio1-req.0` interrupts
//! only CPU 1), a leader asleep on another CPU is woken by an inter-processor interrupt to a
//! halted virtual CPU: 113-138 µs per sync from CPU 0 against 87-97 µs from CPU 1 in the
//! same two-writer run (`perf record -e syscalls:sys_{enter,exit}_fdatasync`, split by the
//! CPU that issued it; a bare C loop pinned to each CPU shows the same). One writer stays on
//! the interrupted CPU and syncs fast; two writers sit one per CPU, and which of them leads
//! decided whether a run went at 1.4x or 1.9x one writer's rate.
//!
//! So the leader keeps a moving average of sync time per CPU (`sched_getcpu`, a vDSO call),
//! and a waiter whose enqueued record completes a gathering leads the gathered round itself
//! when syncs from its CPU have taken at most 5/6 as long as from the gatherer's; the
//! gatherer, watching for that record, sees a round start under it and waits behind it as a
//! follower. Counted in [`WalStats::handoffs`]. On a disk with a queue per CPU (NVMe) the
//! averages stay within the margin and nothing changes; where the CPU is unknown (not
//! Linux) neither. Two writers then sync as fast as one (1.85-1.94x one writer's rate in
//! `examples/wal_group_commit.rs`, 1.4-1.6x before). The shuttle models give each task one
//! of two model CPUs and check that some schedules lead rounds this way.
//!
//! Failure: if the leader's write or sync fails, the WAL is *poisoned*: the error is kept, the
//! log file is dropped, every waiter and every later call gets [`Error::Poisoned`]. Nothing is
//! retried: after a failed `fsync` Linux may have dropped the dirty pages and would report the
//! next `fsync` as a success (fsyncgate, RELIABILITY.md F7). Reopen and replay to recover.
//!
//! ## Roads not taken
//!
//! - **A dedicated writer thread** (HBase's `FSHLog` ring buffer with sync runners, or a
//!   channel to a log thread): every commit pays two thread hand-offs even when it is alone,
//!   which on a 2-core machine costs more than the lock it saves. Here an uncontended
//!   appender writes on its own thread with no hand-off at all.
//! - **LevelDB's writer deque** (`DBImpl::Write`: the front writer gathers a batch group,
//!   each writer waits on its own condition variable): equivalent in effect. Byte positions
//!   make the follower's test a single comparison and need no per-writer queue nodes; the
//!   price is that `notify_all` wakes followers whose position is not covered yet, a small
//!   herd with a handful of writers.
//! - **Pebble's `commitPipeline`**, which lets new batches be *written* while an earlier sync
//!   is still in flight (the log writer's flush loop syncs behind the writes): a `SyncWal`
//!   appender here waits behind an in-flight `fdatasync`, because one leader owns the file
//!   for the whole round and [`WritableFile`] needs `&mut` to sync. Worth revisiting if mixed
//!   `SyncWal`/`FsyncWal` latency matters; it needs a second handle on the file from the `Fs`
//!   seam.
//! - **Syncing per appender**: one `fdatasync` per `FsyncWal` write, ~600 writes/s on the work
//!   disk whatever the concurrency.
//!
//! # Rolling
//!
//! When the current log reaches [`roll_size`](crate::WalConfig::roll_size) (checked by the
//! leader after each write), or on [`Wal::roll`], the leader `fdatasync`s the old log if needed
//! and starts the next: the header is written under a temporary name, synced, renamed into
//! place and the directory synced, so a log file with a log name always has a durable,
//! complete header, and the new log's name survives a power loss (F5). Syncing the old log
//! first is what lets replay treat damage at the end of a rolled-away log as corruption.
//!
//! # Log deletion
//!
//! See [`Accounting`](crate::accounting): a log that is not the current one is deleted once
//! every region with edits in it has called [`Wal::mark_flushed`] with a sequence id at or
//! above the log's largest one for that region, or [`Wal::forget_region`].
//!
//! A WAL opened with an [`Ownership`] ([`Wal::open_owned`]) asks it after every roll and
//! every flush, and deletes nothing once it says no (see `ownership.rs`).

use std::mem;
use std::panic::{self, AssertUnwindSafe};
use std::path::{Path, PathBuf};
use std::sync::Arc;
use std::time::{Duration, SystemTime, UNIX_EPOCH};

use regionkv_fs::{Fs, WritableFile};

// Locks, the syncer thread and the clock of group commit come through `super::sync`, so that
// `crate::shuttle` can compile this file again over shuttle's (crates/regionkv-models runs
// it under shuttle's schedulers). Only `SystemTime`, a log header's creation stamp, comes
// from std directly: no decision here depends on it.
use super::sync::thread::{self, JoinHandle};
use super::sync::{
    AtomicU64, Condvar, Instant, Mutex, MutexGuard, Ordering, current_cpu, relax_for,
};

use crate::accounting::{Accounting, RoundRegions};
use crate::config::{SyncMode, WalConfig};
use crate::dictionary::Dictionary;
use crate::edit::{WalEdit, WalKeyRef};
use crate::error::{Error, Result};
use crate::format::{
    self, FORMAT_VERSION, LogHeader, LogName, LogOrigin, log_path, parse_log_name, temp_log_path,
};
use crate::ownership::Ownership;
use crate::replay::ReplayReport;

/// Past this many buffered bytes an `AsyncWal` appender writes the buffer itself.
const ASYNC_BUFFER_LIMIT: usize = 1 << 20;
/// A written batch buffer up to this size is kept for reuse.
const RECYCLE_LIMIT: usize = 4 << 20;
/// The longest a leader gathers before an `fdatasync` round (see "Gathering").
const MAX_GATHER: Duration = Duration::from_micros(500);
/// How long a waiter behind a round that only writes relaxes before it parks.
const RELAX_FOR_WRITE: Duration = Duration::from_micros(100);
/// The longest a waiter for an `fdatasync` relaxes before it parks (slower disks: park).
const MAX_RELAX_FOR_SYNC: Duration = Duration::from_millis(1);
/// CPUs told apart by [`SyncCpus`]; higher numbers share slots (modulo), which only blurs
/// their estimates.
const CPU_SLOTS: usize = 64;

/// How long `fdatasync`s issued from each CPU have taken, for the choice of who leads a
/// gathered round (see "The syncing CPU" in the module docs).
#[derive(Debug)]
struct SyncCpus {
    /// Moving average (weight 1/8) of the `fdatasync` time of rounds led from each CPU,
    /// in nanoseconds; 0 until one was.
    sync_ns: [u64; CPU_SLOTS],
}

impl SyncCpus {
    fn new() -> Self {
        Self {
            sync_ns: [0; CPU_SLOTS],
        }
    }

    /// Notes a sync of `took` led from `cpu`.
    fn record(&mut self, cpu: usize, took: Duration) {
        let sample = u64::try_from(took.as_nanos()).unwrap_or(u64::MAX).max(1);
        let slot = &mut self.sync_ns[cpu % CPU_SLOTS];
        *slot = if *slot == 0 {
            sample
        } else {
            (*slot - *slot / 8).saturating_add(sample / 8).max(1)
        };
    }

    /// Whether syncs from `cpu` have taken at most 5/6 as long as those from `than` (the
    /// margin keeps noise from moving the lead back and forth). False while either is
    /// unknown.
    fn faster(&self, cpu: usize, than: usize) -> bool {
        let (a, b) = (
            self.sync_ns[cpu % CPU_SLOTS],
            self.sync_ns[than % CPU_SLOTS],
        );
        a != 0 && b != 0 && a.saturating_mul(6) <= b.saturating_mul(5)
    }
}

/// Counters of one [`Wal`] since it was opened.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct WalStats {
    /// Edits appended.
    pub appends: u64,
    /// Record bytes appended.
    pub bytes: u64,
    /// `write(2)` calls on log files: one per group-commit round that had records to write.
    pub writes: u64,
    /// `fdatasync` calls on log data (a new log's header sync is not counted).
    pub syncs: u64,
    /// Logs started after the first one.
    pub rolls: u64,
    /// Logs deleted because all their edits were flushed.
    pub logs_deleted: u64,
    /// Logs live now, the current one included.
    pub live_logs: u64,
    /// Times a log's reserved zero tail was extended ([`WalConfig::preallocate`]): the only
    /// appends whose sync also commits a new file size.
    pub reserves: u64,
    /// Logs whose edits were all flushed but that were kept on disk because the
    /// [`Ownership`] said this process may no longer own the directory.
    pub logs_kept: u64,
    /// Gathered `fdatasync` rounds led by the writer whose record completed the gathering,
    /// not by the gatherer, because syncs from its CPU have been faster (see "The syncing
    /// CPU" in the module docs).
    pub handoffs: u64,
}

/// What a caller of [`Shared::await_position`] waits for.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Wait {
    /// `written` to reach the target.
    Written,
    /// `synced` to reach the target.
    Synced,
    /// `synced` to reach the target, gathering before leading (an `FsyncWal` appender).
    SyncedGathering,
}

/// The log file being appended to.
#[derive(Debug)]
struct LogWriter {
    file: Box<dyn WritableFile>,
    number: u64,
    /// Its header's creation time: with the number, what names this log in a
    /// [`Wal::synced_position`] (numbers restart if the directory is emptied).
    created_ms: i64,
    /// The file's length as last reserved (see [`WalConfig::preallocate`]): appends below it
    /// fill a zero tail instead of growing the file.
    reserved: u64,
}

impl LogWriter {
    /// Makes room for `bytes` more: when they would not fit in the reserved length, reserves
    /// `chunk` past them, never past `limit` (the roll size: the log is rolled once it gets
    /// there). `chunk` 0 turns preallocation off.
    /// Returns whether it reserved.
    fn reserve_for(&mut self, bytes: u64, chunk: u64, limit: u64) -> regionkv_fs::Result<bool> {
        let need = self.file.len() + bytes;
        if chunk == 0 || need <= self.reserved {
            return Ok(false);
        }
        let target = need.saturating_add(chunk).min(limit);
        if target <= need {
            return Ok(false);
        }
        self.file.reserve(target)?;
        self.reserved = target;
        Ok(true)
    }

    /// Ends a log that is done (rolled from, or closed): appends its seal, cuts off the
    /// reserved zero tail, and syncs. Returns the log's final length. After this the log is
    /// complete: replay refuses it if it is later found shorter, or with bytes after the
    /// seal.
    fn seal(&mut self) -> regionkv_fs::Result<u64> {
        let mut seal = Vec::with_capacity(format::FRAME_HEADER_LEN + 8);
        format::encode_seal_into(&mut seal, self.file.len());
        self.file.append(&seal)?;
        // Before the sync, so that the log ends at its seal for good.
        self.trim();
        self.file.sync_data()?;
        Ok(self.file.len())
    }

    /// Cuts a reserved zero tail off a log that is done (rolled from, or closed). A failure
    /// costs nothing but the zeros, which readers take for the log's end.
    fn trim(&mut self) {
        if self.reserved > self.file.len()
            && let Err(e) = self.file.trim()
        {
            tracing::warn!(error = %e, "cutting the reserved tail off a WAL log failed");
        }
    }
}

/// Everything under the WAL's mutex. Invariants: `synced <= written <= appended`,
/// `appended - written == pending.len()` unless `busy` (a leader holds the difference);
/// `writer` is `None` while `busy`, after a failure and after close.
#[derive(Debug)]
struct State {
    /// Encoded records not yet handed to a leader.
    pending: Vec<u8>,
    /// Region → largest sequence id among the edits in `pending`.
    pending_regions: RoundRegions,
    /// The previous round's (emptied) `pending_regions`, kept for its buffers.
    spare_regions: RoundRegions,
    /// Region ids of compact edits (see `dictionary.rs`).
    dict: Dictionary,
    /// The declarations a round writes before its batch (kept for its buffer).
    declarations: Vec<u8>,
    /// How many records `pending` holds.
    pending_records: u64,
    appended: u64,
    written: u64,
    synced: u64,
    fsync_wanted: u64,
    /// A leader (appender, syncer, roll) is doing log I/O and owns the log file.
    busy: bool,
    /// A would-be leader is gathering records before its round (see "Gathering").
    gathering: bool,
    /// The CPU the gathering thread ran on when it began, if known.
    gathering_cpu: Option<usize>,
    /// The pending records the gathering waits for.
    gather_expected: u64,
    /// Rounds led so far (a gathering ends when one starts under it).
    rounds: u64,
    /// Records written by the last round that wrote any.
    last_round_records: u64,
    /// Records left pending when that round ended (their writers were still waiting).
    leftover_records: u64,
    /// When that round ended.
    last_round_end: Option<Instant>,
    /// How long the last `fdatasync` took.
    last_sync: Duration,
    /// Sync times by the CPU that issued them.
    cpus: SyncCpus,
    writer: Option<LogWriter>,
    /// The failure that poisoned the WAL.
    failure: Option<Arc<regionkv_fs::Error>>,
    /// The background syncer must stop.
    shutdown: bool,
    /// `close` or drop has begun: the final sync must not start a new log.
    closing: bool,
    accounting: Accounting,
    next_number: u64,
    stats: WalStats,
    /// Why the [`Ownership`] said no, once it did: no log is deleted after that.
    disowned: Option<String>,
    /// The last log position known durable: (log number, file length after its last
    /// sync). Regions record it in their manifests at a flush, as evidence of how long
    /// that log is (see [`Wal::synced_position`]).
    synced_to: Option<SyncedPosition>,
}

/// A position of the log known to be on disk (see [`Wal::synced_position`]).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct SyncedPosition {
    /// The log's number.
    pub log: u64,
    /// Its header's creation time: numbers restart when the directory is emptied, so the
    /// number alone could name another log later.
    pub created_ms: i64,
    /// The log's length after its last sync.
    pub len: u64,
}

/// What the WAL's threads share.
#[derive(Debug)]
struct Shared {
    fs: Arc<dyn Fs>,
    dir: PathBuf,
    config: WalConfig,
    /// Asked before logs are deleted; `None`: the WAL owns its directory unconditionally.
    owner: Option<Arc<dyn Ownership>>,
    state: Mutex<State>,
    /// Signalled when a leader publishes progress, fails, or stops being busy.
    progress: Condvar,
    /// Counts those signals ([`Shared::announce`]), so a `SyncWal` waiter can watch for
    /// the end of a round without the lock before it parks on `progress`.
    epoch: AtomicU64,
    /// Wakes the background syncer (for shutdown).
    wake_syncer: Condvar,
    /// Wakes a gathering would-be leader when a record is enqueued.
    gather: Condvar,
    /// Records enqueued while a leader gathers (counted only then: off the lone
    /// writer's path), for the gathering leader to watch without the lock.
    enqueued: AtomicU64,
}

/// The write-ahead log of one Db: one log file at a time, shared by every region.
///
/// `Send + Sync`; share it as `Arc<Wal>`. See the module docs for group commit, rolling and
/// log deletion.
#[derive(Debug)]
pub struct Wal {
    shared: Arc<Shared>,
    syncer: Option<JoinHandle<()>>,
}

fn now_ms() -> i64 {
    SystemTime::now()
        .duration_since(UNIX_EPOCH)
        .map_or(0, |d| i64::try_from(d.as_millis()).unwrap_or(i64::MAX))
}

/// Creates log `number` in `dir`: header written under a temporary name and synced, renamed
/// into place, directory synced. Returns it open for appending.
/// `prev_len` is what is known of `prev_log`'s length (see [`LogHeader::prev_len`]).
fn create_log(
    fs: &dyn Fs,
    dir: &Path,
    number: u64,
    origin: LogOrigin,
    (prev_log, prev_len): (u64, u64),
    config: &WalConfig,
) -> regionkv_fs::Result<LogWriter> {
    let header = LogHeader {
        version: FORMAT_VERSION,
        origin,
        number,
        created_ms: now_ms(),
        prev_log,
        preallocated: config.preallocate > 0,
        db_id: config.db_id.unwrap_or_default(),
        prev_len,
    };
    let tmp = temp_log_path(dir, number);
    let path = log_path(dir, number);
    {
        let mut f = fs.create_new(&tmp)?;
        f.append(&header.encode())?;
        f.sync_data()?;
    }
    fs.rename(&tmp, &path)?;
    fs.sync_dir(dir)?;
    let file = fs.open_append(&path)?;
    tracing::debug!(path = %path.display(), ?origin, prev_log, "started a WAL log");
    Ok(LogWriter {
        reserved: file.len(),
        file,
        number,
        created_ms: header.created_ms,
    })
}

impl Wal {
    /// Opens the WAL in `dir` (created if missing) and starts a new log after any existing
    /// ones; it never appends to an old log and does not replay. Leftover temporary logs of a
    /// crashed roll are deleted. Existing logs stay until their edits are flushed: pass
    /// what [`replay`](crate::replay) found to [`adopt_replayed`](Wal::adopt_replayed), or
    /// they are kept for ever.
    pub fn open(fs: Arc<dyn Fs>, dir: &Path, config: WalConfig) -> Result<Self> {
        Self::open_inner(fs, dir, config, None, None)
    }

    /// [`Wal::open`] for a process that owns `dir` only while `owner` says so: every
    /// deletion in the directory is asked of it first (after every roll and flush), and
    /// once it says no, flushed logs are kept instead of deleted until the WAL is
    /// reopened (see [`Ownership`]).
    pub fn open_owned(
        fs: Arc<dyn Fs>,
        dir: &Path,
        config: WalConfig,
        owner: Arc<dyn Ownership>,
    ) -> Result<Self> {
        Self::open_inner(fs, dir, config, None, Some(owner))
    }

    /// [`Self::open`] (or [`Self::open_owned`], with an `owner`) after `replayed` read the
    /// directory's logs: the new log's header records how long the newest of them was
    /// found to be (its valid records), so that a later truncation of it is told from a
    /// torn tail ([`LogHeader::prev_len`]).
    pub fn open_after_replay(
        fs: Arc<dyn Fs>,
        dir: &Path,
        config: WalConfig,
        replayed: &ReplayReport,
        owner: Option<Arc<dyn Ownership>>,
    ) -> Result<Self> {
        Self::open_inner(fs, dir, config, Some(replayed), owner)
    }

    fn open_inner(
        fs: Arc<dyn Fs>,
        dir: &Path,
        config: WalConfig,
        replayed: Option<&ReplayReport>,
        owner: Option<Arc<dyn Ownership>>,
    ) -> Result<Self> {
        config.validate()?;
        fs.create_dir_all(dir)?;
        let mut accounting = Accounting::default();
        let mut newest_log = 0;
        let mut newest_any = 0;
        let mut disowned = None;
        for name in fs.list(dir)? {
            match parse_log_name(&name) {
                Some(LogName::Log(n)) => {
                    accounting.add_inherited(n, dir.join(&name));
                    newest_log = newest_log.max(n);
                    newest_any = newest_any.max(n);
                }
                Some(LogName::Temp(n)) => {
                    // Another process's log being created, if the directory is not ours.
                    if disowned.is_none()
                        && let Some(Err(why)) = owner.as_ref().map(|o| o.verify())
                    {
                        tracing::error!(dir = %dir.display(), %why, "this process may not own the WAL directory: no log will be deleted");
                        disowned = Some(why);
                    }
                    if disowned.is_none() {
                        tracing::info!(dir = %dir.display(), %name, "deleting a half-created log");
                        fs.remove_file(&dir.join(&name))?;
                    }
                    newest_any = newest_any.max(n);
                }
                None => {
                    tracing::warn!(dir = %dir.display(), %name, "ignoring a file that is not a WAL log")
                }
            }
        }
        let number = newest_any + 1;
        let mut prev_len = replayed
            .and_then(|r| r.logs.iter().find(|l| l.header.number == newest_log))
            .map_or(0, |l| l.valid_len);
        if prev_len > 0 {
            // The length goes on record only once it is durable: a process killed before
            // its last sync leaves records in the page cache, which a power cut after this
            // open could still take; recorded unsynced, they would later read as a
            // truncation of a log that merely lost its unsynced tail.
            let path = log_path(dir, newest_log);
            if let Err(e) = fs.open_append(&path).and_then(|mut f| f.sync_data()) {
                tracing::warn!(log = %path.display(), error = %e, "could not sync the previous log; its length is not recorded");
                prev_len = 0;
            }
        }
        let writer = create_log(
            &*fs,
            dir,
            number,
            LogOrigin::Open,
            (newest_log, prev_len),
            &config,
        )?;
        accounting.add_current(number, log_path(dir, number), LogOrigin::Open);
        let shared = Arc::new(Shared {
            fs,
            dir: dir.to_path_buf(),
            config,
            owner,
            state: Mutex::new(State {
                pending: Vec::new(),
                pending_regions: RoundRegions::default(),
                spare_regions: RoundRegions::default(),
                dict: Dictionary::default(),
                declarations: Vec::new(),
                pending_records: 0,
                appended: 0,
                written: 0,
                synced: 0,
                fsync_wanted: 0,
                busy: false,
                gathering: false,
                gathering_cpu: None,
                gather_expected: 0,
                rounds: 0,
                last_round_records: 0,
                leftover_records: 0,
                last_round_end: None,
                last_sync: Duration::ZERO,
                cpus: SyncCpus::new(),
                writer: Some(writer),
                failure: None,
                shutdown: false,
                closing: false,
                accounting,
                next_number: number + 1,
                stats: WalStats::default(),
                synced_to: None,
                disowned,
            }),
            progress: Condvar::new(),
            epoch: AtomicU64::new(0),
            enqueued: AtomicU64::new(0),
            wake_syncer: Condvar::new(),
            gather: Condvar::new(),
        });
        let for_thread = Arc::clone(&shared);
        let syncer = thread::Builder::new()
            .name("regionkv-wal-sync".into())
            .spawn(move || run_syncer(&for_thread))
            .map_err(|e| regionkv_fs::Error::io("spawn WAL syncer", dir, e))?;
        Ok(Wal {
            shared,
            syncer: Some(syncer),
        })
    }

    /// The WAL's directory.
    pub fn dir(&self) -> &Path {
        &self.shared.dir
    }

    /// Appends `edit` and returns once it is as durable as `mode` promises:
    ///
    /// - [`Async`](SyncMode::Async): the edit is in the log buffer; the background syncer
    ///   writes and `fdatasync`s it within
    ///   [`async_sync_interval`](WalConfig::async_sync_interval);
    /// - [`Sync`](SyncMode::Sync): the record has been handed to the OS (`write(2)`
    ///   returned): it survives a killed process;
    /// - [`Fsync`](SyncMode::Fsync): the log has been `fdatasync`ed past the record: it
    ///   survives a power loss.
    ///
    /// Concurrent appenders share writes and syncs (see the module docs). An error means the
    /// edit is not acknowledged; it may or may not be in the log.
    pub fn append(&self, edit: &WalEdit, mode: SyncMode) -> Result<()> {
        self.append_cells(edit.key.as_ref(), &edit.cells, mode)
    }

    /// [`Self::append`] of the edit of `key` and `cells`, without building a [`WalEdit`]:
    /// the region write path. The record is encoded straight into the pending batch.
    pub fn append_cells(
        &self,
        key: WalKeyRef<'_>,
        cells: &[regionkv_cell::Cell],
        mode: SyncMode,
    ) -> Result<()> {
        let shared = &*self.shared;
        let mut guard = shared.state.lock();
        shared.check_open(&guard)?;
        let st = &mut *guard;
        let id = st.dict.id_of(key.region, key.table)?;
        // Encoded straight into the batch; appends nothing on an error (bad lengths are
        // found before any byte goes out). A mutation's cells all carry its sequence id,
        // so the compact form is the rule; the named form stays for anything else.
        let record_len = if format::compactable(&key, cells) {
            format::encode_compact_into(&mut st.pending, id, &key, cells)?
        } else {
            format::encode_parts_into(&mut st.pending, &key, cells)?
        };
        st.pending_regions.note(id, key.seq_id);
        let mut st = guard;
        st.appended += record_len as u64;
        st.pending_records += 1;
        if st.gathering {
            shared.enqueued.fetch_add(1, Ordering::Release);
            shared.gather.notify_one();
        }
        st.stats.appends += 1;
        st.stats.bytes += record_len as u64;
        let end = st.appended;
        match mode {
            SyncMode::Async => {
                if st.pending.len() >= ASYNC_BUFFER_LIMIT && !st.busy {
                    shared.lead(&mut st);
                }
                shared.check_open(&st)
            }
            SyncMode::Fsync => {
                st.fsync_wanted = st.fsync_wanted.max(end);
                shared.await_position(&mut st, end, Wait::SyncedGathering)
            }
            SyncMode::Sync => shared.await_position(&mut st, end, Wait::Written),
        }
    }

    /// Makes everything appended so far `fdatasync`-durable.
    pub fn sync(&self) -> Result<()> {
        let shared = &*self.shared;
        let mut st = shared.state.lock();
        shared.check_open(&st)?;
        let target = st.appended;
        if st.synced >= target {
            return Ok(());
        }
        st.fsync_wanted = st.fsync_wanted.max(target);
        shared.await_position(&mut st, target, Wait::Synced)
    }

    /// Starts a new log file now. Everything appended before the call is written to the old
    /// log, which is synced before the new one is created. Also done automatically when the
    /// current log reaches [`roll_size`](WalConfig::roll_size).
    pub fn roll(&self) -> Result<()> {
        let shared = &*self.shared;
        let mut st = shared.state.lock();
        let target = st.appended;
        shared.await_position(&mut st, target, Wait::Written)?;
        loop {
            shared.check_open(&st)?;
            if !st.busy {
                break;
            }
            shared.progress.wait(&mut st);
        }
        let Some(writer) = st.writer.take() else {
            return Err(Error::Closed);
        };
        st.busy = true;
        let deletable = shared.roll_from(&mut st, writer)?;
        shared.delete_logs(&mut st, deletable)
    }

    /// Records that every edit of `region` with a sequence id up to `flushed_seq_id` is in a
    /// storefile, and deletes the logs (never the current one) that no region needs any more.
    pub fn mark_flushed(&self, region: &[u8], flushed_seq_id: u64) -> Result<()> {
        let shared = &*self.shared;
        let mut st = shared.state.lock();
        st.accounting.mark_flushed(region, flushed_seq_id);
        let deletable = st.accounting.take_deletable();
        shared.delete_logs(&mut st, deletable)
    }

    /// Stops holding logs for `region`, which was closed, split or dropped after its last
    /// flush (or whose edits are no longer wanted). Edits of it still in the buffer are
    /// written first, so they are accounted to their log before it is forgotten. The region
    /// must not append again until it is reopened.
    pub fn forget_region(&self, region: &[u8]) -> Result<()> {
        let shared = &*self.shared;
        let mut st = shared.state.lock();
        if st.failure.is_none() && (st.writer.is_some() || st.busy) {
            let target = st.appended;
            shared.await_position(&mut st, target, Wait::Written)?;
        }
        st.accounting.forget(region);
        let deletable = st.accounting.take_deletable();
        shared.delete_logs(&mut st, deletable)
    }

    /// Tells the WAL what [`replay`](crate::replay) found in the logs that existed when it
    /// was opened, so they can be deleted once their regions flush. Call it after
    /// [`open`](Wal::open) with the report of the replay that preceded it; then call
    /// [`mark_flushed`](Wal::mark_flushed) for every region (with its flushed sequence id) and
    /// [`forget_region`](Wal::forget_region) for regions that no longer exist.
    pub fn adopt_replayed(&self, report: &ReplayReport) -> Result<()> {
        let shared = &*self.shared;
        let mut st = shared.state.lock();
        st.accounting.adopt(&report.logs);
        let deletable = st.accounting.take_deletable();
        shared.delete_logs(&mut st, deletable)
    }

    /// When more than [`max_logs`](WalConfig::max_logs) logs are live: the encoded names of the
    /// regions with unflushed edits in the oldest log (HBase's `findRegionsToForceFlush`),
    /// sorted. Flushing them (and calling [`mark_flushed`](Wal::mark_flushed)) frees that
    /// log. Empty otherwise.
    pub fn regions_to_flush(&self) -> Vec<Vec<u8>> {
        let st = self.shared.state.lock();
        st.accounting.regions_to_flush(self.shared.config.max_logs)
    }

    /// The live log files, oldest first; the last is the current one.
    pub fn log_files(&self) -> Vec<PathBuf> {
        self.shared.state.lock().accounting.paths()
    }

    /// The last position of the log known to be on disk: which log, and its length after
    /// its last `fdatasync`; `None` before the first sync. A flush records it in the
    /// region's manifest: whatever happens later, that log holds at least that many bytes
    /// of valid records, so finding it shorter is a truncation, not a torn tail. Syncs come
    /// from `FSYNC_WAL` writes, the background syncer (every `async_sync_interval` for
    /// `SYNC_WAL` and `ASYNC_WAL` writes) and rolls.
    pub fn synced_position(&self) -> Option<SyncedPosition> {
        self.shared.state.lock().synced_to
    }

    /// The counters.
    pub fn stats(&self) -> WalStats {
        let st = self.shared.state.lock();
        WalStats {
            live_logs: st.accounting.live() as u64,
            ..st.stats
        }
    }

    /// Syncs everything appended and closes the log. The background syncer is stopped even
    /// when the sync fails (the error is returned).
    pub fn close(mut self) -> Result<()> {
        self.shared.state.lock().closing = true;
        let result = self.sync();
        self.shutdown();
        result
    }

    /// Stops the syncer and closes the log file. Idempotent.
    fn shutdown(&mut self) {
        let shared = &*self.shared;
        {
            let mut st = shared.state.lock();
            st.shutdown = true;
            shared.wake_syncer.notify_all();
        }
        if let Some(handle) = self.syncer.take()
            && handle.join().is_err()
        {
            tracing::error!("the WAL syncer thread panicked");
        }
        let mut st = shared.state.lock();
        while st.busy {
            shared.progress.wait(&mut st);
        }
        if let Some(mut writer) = st.writer.take() {
            // Closed cleanly: the log is complete. (Not after a failure: the writer is
            // gone then, and the log's end is left to replay.)
            if let Err(e) = writer.seal() {
                tracing::warn!(error = %e, "sealing the WAL log at close failed");
            }
        }
    }
}

impl Drop for Wal {
    /// Syncs what was appended (best effort: errors are logged) and stops the syncer. Call
    /// [`Wal::close`] to see the error.
    fn drop(&mut self) {
        if self.syncer.is_none() {
            return;
        }
        self.shared.state.lock().closing = true;
        if let Err(e) = self.sync()
            && !matches!(e, Error::Poisoned { .. } | Error::Closed)
        {
            tracing::warn!(error = %e, "syncing the WAL on drop failed");
        }
        self.shutdown();
    }
}

impl Shared {
    /// Wakes the waiters on `progress` (a round ended, failed or published), and counts it
    /// for those watching without the lock.
    fn announce(&self) {
        self.epoch.fetch_add(1, Ordering::Release);
        self.progress.notify_all();
    }

    /// `Ok` if the WAL accepts calls: not poisoned, not closed.
    fn check_open(&self, st: &State) -> Result<()> {
        if let Some(cause) = &st.failure {
            return Err(Error::Poisoned {
                cause: Arc::clone(cause),
            });
        }
        if st.writer.is_none() && !st.busy {
            return Err(Error::Closed);
        }
        Ok(())
    }

    /// Waits until `written` (or `synced`) reaches `target`, leading rounds whenever no one
    /// else is.
    fn await_position(
        &self,
        st: &mut MutexGuard<'_, State>,
        target: u64,
        wait: Wait,
    ) -> Result<()> {
        // A waiter for `synced` must have asked for it, or no round would ever sync.
        debug_assert!(wait == Wait::Written || st.fsync_wanted >= target);
        let mut gathered = false;
        // Relaxes while relaxing ends in progress (a round or a gathering ended); a relax
        // that ends without it parks, and a park ends in progress.
        let mut may_relax = true;
        loop {
            if let Some(cause) = &st.failure {
                return Err(Error::Poisoned {
                    cause: Arc::clone(cause),
                });
            }
            let reached = match wait {
                Wait::Written => st.written >= target,
                Wait::Synced | Wait::SyncedGathering => st.synced >= target,
            };
            if reached {
                return Ok(());
            }
            if !st.busy
                && st.gathering
                && wait != Wait::Written
                && st.writer.is_some()
                && st.pending_records >= st.gather_expected
                && let (Some(mine), Some(theirs)) = (current_cpu(), st.gathering_cpu)
                && st.cpus.faster(mine, theirs)
            {
                // The gathering is complete, and syncs from this CPU have been faster than
                // from the gatherer's: lead its round from here (see "The syncing CPU").
                st.stats.handoffs += 1;
                gathered = true;
                self.lead(st);
                continue;
            }
            if st.busy || st.gathering {
                // A waiter behind a round watches for the round's end before parking. A
                // round that only writes takes microseconds; one that syncs takes the
                // disk's `fdatasync` (~90 µs on the work disk), with the leader asleep in
                // the kernel and the CPU free, and a waiter for the sync relaxes through
                // it (a little longer than the last one took). `relax_for` gives up
                // sooner when other threads want the CPU.
                if may_relax {
                    let limit = match wait {
                        Wait::Written => RELAX_FOR_WRITE,
                        Wait::Synced | Wait::SyncedGathering => (st.last_sync + st.last_sync / 4)
                            .clamp(RELAX_FOR_WRITE, MAX_RELAX_FOR_SYNC),
                    };
                    let epoch = self.epoch.load(Ordering::Acquire);
                    may_relax = MutexGuard::unlocked(st, || {
                        relax_for(limit, || self.epoch.load(Ordering::Acquire) != epoch)
                    });
                    continue;
                }
                self.progress.wait(st);
                may_relax = true;
                continue;
            }
            if st.writer.is_none() {
                return Err(Error::Closed);
            }
            if wait == Wait::SyncedGathering && !gathered {
                gathered = true;
                self.gather(st);
                continue;
            }
            self.lead(st);
        }
    }

    /// Before leading an `fdatasync` round, waits briefly for the writers the last round
    /// released to enqueue again (see "Gathering" in the module docs).
    fn gather(&self, st: &mut MutexGuard<'_, State>) {
        let Some(last_end) = st.last_round_end else {
            return;
        };
        let patience = (st.last_sync / 4).min(MAX_GATHER);
        let expected = st.last_round_records + st.leftover_records;
        if patience.is_zero()
            || st.pending_records >= expected
            || last_end.elapsed() > st.last_sync * 2
        {
            return;
        }
        let deadline = Instant::now() + patience;
        st.gathering = true;
        st.gathering_cpu = current_cpu();
        st.gather_expected = expected;
        let rounds = st.rounds;
        // The writers the last round released are usually microseconds away: watch for
        // their records before parking (a park's wake-up would cost the round more than
        // the wait it ends).
        let missing = expected - st.pending_records;
        let seen = self.enqueued.load(Ordering::Acquire);
        MutexGuard::unlocked(st, || {
            relax_for(patience, || {
                self.enqueued.load(Ordering::Acquire) >= seen + missing
            })
        });
        // A round led meanwhile (by a waiter on a faster-syncing CPU) took the records.
        while st.pending_records < expected && st.rounds == rounds && st.failure.is_none() {
            if self.gather.wait_until(st, deadline).timed_out() {
                break;
            }
        }
        st.gathering = false;
        // Whoever queued behind the gathering may lead now if this thread does not.
        self.announce();
    }

    /// One group-commit round (see the module docs). Requires `!busy` and a writer.
    fn lead(&self, st: &mut MutexGuard<'_, State>) {
        let Some(mut writer) = st.writer.take() else {
            return;
        };
        st.busy = true;
        st.rounds += 1;
        let batch = mem::take(&mut st.pending);
        let spare = mem::take(&mut st.spare_regions);
        let mut regions = mem::replace(&mut st.pending_regions, spare);
        // Declarations of the round's regions this log has not seen go out first.
        let mut declarations = mem::take(&mut st.declarations);
        declarations.clear();
        let declared = st
            .dict
            .declare_into(writer.number, &regions, &mut declarations);
        st.stats.bytes += declared as u64;
        let records = mem::take(&mut st.pending_records);
        let end = st.appended;
        let sync = st.fsync_wanted > st.synced;
        let mut sync_time = Duration::ZERO;
        let round_bytes = (declarations.len() + batch.len()) as u64;
        let (chunk, limit) = (self.config.preallocate, self.config.roll_size);
        let mut reserved = false;
        let mut sync_cpu = None;
        let result = MutexGuard::unlocked(st, || {
            // Crash points (docs/reliability.md): a round taken but not written, written
            // but not synced, synced but not yet acknowledged.
            fail::fail_point!("wal-before-append");
            reserved = writer.reserve_for(round_bytes, chunk, limit)?;
            if declarations.is_empty() {
                if !batch.is_empty() {
                    writer.file.append(&batch)?;
                }
            } else {
                // One write per round still: the declarations go first, in the same
                // buffer (a copy of the batch, paid only by a log's first rounds).
                declarations.extend_from_slice(&batch);
                writer.file.append(&declarations)?;
            }
            if sync {
                fail::fail_point!("wal-before-sync");
                sync_cpu = current_cpu();
                let start = Instant::now();
                writer.file.sync_data()?;
                sync_time = start.elapsed();
                fail::fail_point!("wal-after-sync");
            }
            Ok(())
        });
        if let Err(e) = result {
            self.poison(st, e);
            return;
        }
        if !batch.is_empty() {
            st.stats.writes += 1;
        }
        st.stats.reserves += u64::from(reserved);
        st.written = end;
        if sync {
            st.synced = end;
            st.stats.syncs += 1;
            st.last_sync = sync_time;
            if let Some(cpu) = sync_cpu {
                st.cpus.record(cpu, sync_time);
            }
            st.synced_to = Some(SyncedPosition {
                log: writer.number,
                created_ms: writer.created_ms,
                len: writer.file.len(),
            });
        }
        if records > 0 {
            st.last_round_records = records;
            st.leftover_records = st.pending_records;
            st.last_round_end = Some(Instant::now());
        }
        let st_ref = &mut **st;
        st_ref
            .accounting
            .record_round(writer.number, &mut regions, &st_ref.dict);
        st.spare_regions = regions;
        st.declarations = declarations;
        if st.pending.is_empty() && batch.capacity() <= RECYCLE_LIMIT {
            let mut batch = batch;
            batch.clear();
            st.pending = batch;
        }
        if writer.file.len() >= self.config.roll_size && !st.closing {
            // Let the writers whose records are out go before rolling.
            self.announce();
            match self.roll_from(st, writer) {
                Ok(deletable) => {
                    if let Err(e) = self.delete_logs(st, deletable) {
                        tracing::warn!(error = %e, "deleting flushed WAL logs failed");
                    }
                }
                Err(e) => tracing::error!(error = %e, "rolling the WAL failed"),
            }
        } else {
            st.writer = Some(writer);
            st.busy = false;
            self.announce();
        }
    }

    /// Rolls from `old` to a new log. Requires `busy`, with `old` taken out of the state;
    /// clears `busy`. Returns the logs that became deletable.
    fn roll_from(
        &self,
        st: &mut MutexGuard<'_, State>,
        mut old: LogWriter,
    ) -> Result<Vec<(u64, PathBuf)>> {
        let number = st.next_number;
        st.next_number += 1;
        let old_number = old.number;
        let written = st.written;
        let sync_old = st.synced < written;
        let mut sealed = None;
        let result = MutexGuard::unlocked(st, || {
            // Sealed and synced before the next log exists: a log that has a successor is
            // complete, and the successor records its length.
            let sealed_len = old.seal()?;
            sealed = Some(SyncedPosition {
                log: old.number,
                created_ms: old.created_ms,
                len: sealed_len,
            });
            fail::fail_point!("wal-roll-before-create");
            let new = create_log(
                &*self.fs,
                &self.dir,
                number,
                LogOrigin::Roll,
                (old.number, sealed_len),
                &self.config,
            )?;
            drop(old);
            fail::fail_point!("wal-roll-after-create");
            Ok(new)
        });
        if sealed.is_some() {
            st.synced_to = sealed;
        }
        match result {
            Ok(new) => {
                st.synced = st.synced.max(written);
                if sync_old {
                    st.stats.syncs += 1;
                }
                st.accounting
                    .add_current(number, log_path(&self.dir, number), LogOrigin::Roll);
                let st_ref = &mut **st;
                st_ref.dict.prune(old_number, &st_ref.pending_regions);
                st.stats.rolls += 1;
                st.writer = Some(new);
                st.busy = false;
                self.announce();
                Ok(st.accounting.take_deletable())
            }
            Err(e) => Err(self.poison(st, e)),
        }
    }

    /// Records `e` as the WAL's failure (the first one wins), releases `busy` and wakes
    /// every waiter. Returns the error to give the caller.
    fn poison(&self, st: &mut MutexGuard<'_, State>, e: regionkv_fs::Error) -> Error {
        tracing::error!(error = %e, dir = %self.dir.display(), "WAL I/O failed; the WAL is poisoned until reopened");
        let cause = st.failure.get_or_insert_with(|| Arc::new(e)).clone();
        st.busy = false;
        st.writer = None;
        self.announce();
        Error::Poisoned { cause }
    }

    /// Deletes `logs` (outside the lock) and syncs the directory. Files already gone count
    /// as deleted. Called after every roll and flush: asks the [`Ownership`] each time,
    /// even with nothing to delete, so that a lost lock is noticed (and a removed lock file
    /// re-created) at once; once it says no, the logs are kept, and every later call keeps
    /// them too.
    fn delete_logs(&self, st: &mut MutexGuard<'_, State>, logs: Vec<(u64, PathBuf)>) -> Result<()> {
        if let Some(owner) = &self.owner
            && st.disowned.is_none()
            && let Err(why) = MutexGuard::unlocked(st, || owner.verify())
        {
            tracing::error!(
                dir = %self.dir.display(),
                %why,
                "this process may no longer own the WAL directory: no log will be deleted until it is reopened"
            );
            st.disowned = Some(why);
        }
        if st.disowned.is_some() {
            if !logs.is_empty() {
                tracing::warn!(
                    dir = %self.dir.display(),
                    logs = logs.len(),
                    "keeping flushed WAL logs: the directory may not be this process's"
                );
                st.stats.logs_kept += logs.len() as u64;
            }
            return Ok(());
        }
        if logs.is_empty() {
            return Ok(());
        }
        let (deleted, result) = MutexGuard::unlocked(st, || {
            let mut deleted = 0;
            for (number, path) in &logs {
                fail::fail_point!("wal-before-delete-log");
                match self.fs.remove_file(path) {
                    Ok(()) => deleted += 1,
                    Err(e) if e.kind() == std::io::ErrorKind::NotFound => deleted += 1,
                    Err(e) => return (deleted, Err(e)),
                }
                tracing::debug!(number, path = %path.display(), "deleted a flushed WAL log");
            }
            (deleted, self.fs.sync_dir(&self.dir))
        });
        st.stats.logs_deleted += deleted;
        Ok(result?)
    }
}

/// The background syncer: every interval, writes and syncs whatever is not yet synced
/// (AsyncWal edits, and SyncWal edits written but not synced). A panic poisons the WAL
/// rather than leaving it silently without a syncer.
fn run_syncer(shared: &Shared) {
    let outcome = panic::catch_unwind(AssertUnwindSafe(|| {
        let mut st = shared.state.lock();
        while !st.shutdown {
            shared
                .wake_syncer
                .wait_for(&mut st, shared.config.async_sync_interval);
            if st.shutdown || st.failure.is_some() {
                continue;
            }
            if st.synced < st.appended {
                let target = st.appended;
                st.fsync_wanted = st.fsync_wanted.max(target);
                if let Err(e) = shared.await_position(&mut st, target, Wait::Synced) {
                    tracing::warn!(error = %e, "background WAL sync failed");
                }
            }
        }
    }));
    if outcome.is_err() {
        let mut st = shared.state.lock();
        let e = regionkv_fs::Error::io(
            "background sync",
            &shared.dir,
            std::io::Error::other("the WAL syncer thread panicked"),
        );
        shared.poison(&mut st, e);
    }
}

#[cfg(test)]
#[allow(clippy::unwrap_used)]
mod tests {
    use super::*;
    use regionkv_fs::MemFs;

    fn assert_send_sync<T: Send + Sync>() {}

    #[test]
    fn sync_cpus_average_and_compare_with_a_margin() {
        let us = Duration::from_micros;
        let mut cpus = SyncCpus::new();
        assert!(!cpus.faster(1, 0), "nothing known yet");
        cpus.record(0, us(120));
        assert!(!cpus.faster(1, 0), "CPU 1 unknown");
        cpus.record(1, us(105));
        // 105 is more than 5/6 of 120: within the margin, no faster.
        assert!(!cpus.faster(1, 0));
        cpus.record(1, us(90));
        assert!(
            cpus.sync_ns[1] < 105_000 && cpus.sync_ns[1] > 90_000,
            "a moving average"
        );
        for _ in 0..40 {
            cpus.record(1, us(90));
        }
        assert!(cpus.faster(1, 0), "90 against 120");
        assert!(!cpus.faster(0, 1));
        // One slow sync moves the average by an eighth of the difference, not to it.
        cpus.record(1, us(150));
        assert!(cpus.faster(1, 0), "{:?}", cpus.sync_ns[1]);
        // CPUs past the slots share them.
        assert!(cpus.faster(CPU_SLOTS + 1, 0));
        // A zero-length sync (an in-memory file system) still counts as known.
        let mut mem = SyncCpus::new();
        mem.record(3, Duration::ZERO);
        mem.record(4, us(1));
        assert!(mem.faster(3, 4));
    }

    #[test]
    fn wal_is_send_and_sync() {
        assert_send_sync::<Wal>();
    }

    #[test]
    fn open_starts_a_new_log_after_existing_ones_and_removes_temp_files() {
        let fs = MemFs::new();
        let dir = Path::new("/db/wal");
        let wal = Wal::open(Arc::new(fs.clone()), dir, WalConfig::default()).unwrap();
        assert_eq!(wal.log_files(), [dir.join("wal.00000000000000000001.log")]);
        wal.close().unwrap();
        drop(fs.create_new(&temp_log_path(dir, 2)).unwrap());
        let wal = Wal::open(Arc::new(fs.clone()), dir, WalConfig::default()).unwrap();
        assert_eq!(
            wal.log_files(),
            [
                dir.join("wal.00000000000000000001.log"),
                dir.join("wal.00000000000000000003.log")
            ]
        );
        assert!(!fs.exists(&temp_log_path(dir, 2)).unwrap());
        drop(wal);
        // A log name always has a complete, durable header, and a closed log its seal:
        // nothing is lost by a crash.
        fs.crash(regionkv_fs::CrashMode::DropUnsynced);
        let sealed = format::HEADER_LEN + format::FRAME_HEADER_LEN + 8;
        for f in fs.files() {
            assert_eq!(fs.contents(&f).unwrap().len(), sealed, "{f:?}");
        }
    }

    #[test]
    fn calls_after_close_in_drop_order_are_safe() {
        let fs = MemFs::new();
        let wal = Wal::open(Arc::new(fs), Path::new("/w"), WalConfig::default()).unwrap();
        let mut wal = wal;
        wal.shutdown();
        assert!(matches!(wal.sync(), Err(Error::Closed)));
        assert!(matches!(wal.roll(), Err(Error::Closed)));
        drop(wal);
    }
}
