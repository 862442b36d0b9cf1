//! The WAL's group commit (crates/regionkv-wal/src/wal.rs, "Group commit"), restated over
//! the [`crate::sync`] primitives. Same state and rules: an appender queues its record
//! under the lock and raises `fsync_wanted` if it needs durability; whoever finds no round
//! in progress leads one — takes the whole queue, sets `busy`, writes (and syncs if
//! anyone wants it) *without* the lock, publishes the new positions, clears `busy` and
//! wakes everyone; a failed write or sync poisons the log for good. The file is two
//! vectors: what reached the OS and what is durable. Left out: the time-based gathering
//! (it only delays a leader) and rolling.

use crate::sync::{Condvar, Mutex, MutexGuard};

/// The durability an append waits for.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Durability {
    /// Returns once the record is handed to the OS (SYNC_WAL).
    Sync,
    /// Returns once the record is fdatasync'ed (FSYNC_WAL).
    Fsync,
}

/// The log is poisoned: an I/O failed.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Poisoned;

#[derive(Debug, Default)]
struct State {
    pending: Vec<u64>,
    /// Every record in append order (what the file must hold, as a prefix).
    order: Vec<u64>,
    appended: u64,
    written: u64,
    synced: u64,
    fsync_wanted: u64,
    busy: bool,
    failed: bool,
}

/// The simulated file.
#[derive(Debug, Default)]
pub struct File {
    /// Records handed to the OS, in order.
    pub os: Vec<u64>,
    /// How many of them are durable.
    pub durable: usize,
    io_calls: u64,
}

/// The model WAL.
#[derive(Debug, Default)]
pub struct Wal {
    state: Mutex<State>,
    progress: Condvar,
    file: Mutex<File>,
    /// The I/O call (write or sync, counted from 0) that fails, if any.
    fail_at: Option<u64>,
}

impl Wal {
    /// A log whose `fail_at`-th I/O call fails.
    pub fn new(fail_at: Option<u64>) -> Self {
        Self {
            fail_at,
            ..Self::default()
        }
    }

    /// Appends record `id` and waits for `durability`.
    pub fn append(&self, id: u64, durability: Durability) -> Result<(), Poisoned> {
        let mut st = self.state.lock();
        if st.failed {
            return Err(Poisoned);
        }
        st.pending.push(id);
        st.order.push(id);
        st.appended += 1;
        let end = st.appended;
        if durability == Durability::Fsync {
            st.fsync_wanted = st.fsync_wanted.max(end);
        }
        self.await_position(&mut st, end, durability)
    }

    fn await_position(
        &self,
        st: &mut MutexGuard<'_, State>,
        target: u64,
        durability: Durability,
    ) -> Result<(), Poisoned> {
        loop {
            if st.failed {
                return Err(Poisoned);
            }
            let reached = match durability {
                Durability::Sync => st.written >= target,
                Durability::Fsync => st.synced >= target,
            };
            if reached {
                return Ok(());
            }
            if st.busy {
                self.progress.wait(st);
                continue;
            }
            self.lead(st);
        }
    }

    fn io(&self, file: &mut File) -> Result<(), Poisoned> {
        let n = file.io_calls;
        file.io_calls += 1;
        if self.fail_at == Some(n) {
            Err(Poisoned)
        } else {
            Ok(())
        }
    }

    fn lead(&self, st: &mut MutexGuard<'_, State>) {
        st.busy = true;
        let batch = std::mem::take(&mut st.pending);
        let end = st.appended;
        let sync = st.fsync_wanted > st.synced;
        let result: Result<(), Poisoned> = MutexGuard::unlocked(st, || {
            let mut file = self.file.lock();
            if !batch.is_empty() {
                self.io(&mut file)?;
                file.os.extend(&batch);
            }
            if sync {
                self.io(&mut file)?;
                file.durable = file.os.len();
            }
            Ok(())
        });
        if result.is_err() {
            st.failed = true;
            st.busy = false;
            self.progress.notify_all();
            return;
        }
        st.written = end;
        if sync {
            st.synced = end;
        }
        st.busy = false;
        self.progress.notify_all();
    }

    /// Every record in append order.
    pub fn order(&self) -> Vec<u64> {
        self.state.lock().order.clone()
    }

    /// The records that reached the OS, and how many are durable.
    pub fn file(&self) -> (Vec<u64>, usize) {
        let f = self.file.lock();
        (f.os.clone(), f.durable)
    }
}
