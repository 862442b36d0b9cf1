//! The write-ahead log of regionkv: framed, checksummed records of row mutations, appended
//! with a per-edit [`SyncMode`] and group commit, rolled into numbered log files, deleted once
//! every region with edits in a log has flushed them, and replayed on open under a
//! [`RecoveryMode`].
//!
//! One [`Wal`] serves a whole Db (as HBase has one WAL per region server): every edit carries
//! its region's encoded name, and concurrent writers to different regions share writes and
//! syncs. Sequence ids are per region, assigned by the region and carried in the [`WalKey`].
//! The format is specified in `docs/wal-format.md`; the one-WAL-per-Db decision and its cost
//! in `docs/decisions/20261121_wal_per_db.md`.
//!
//! All I/O goes through [`regionkv_fs::Fs`]. This crate depends on `regionkv-cell` and
//! `regionkv-fs` only (and on shuttle under its `shuttle` feature, which adds
//! `regionkv_wal::shuttle`: the group commit compiled against shuttle's primitives, for the
//! models of `regionkv-models`).
//!
//! # Life cycle, as the region layer drives it
//!
//! 1. [`replay`] the WAL directory: every edit of every log, in order; apply those above
//!    each region's flushed sequence id.
//! 2. [`Wal::open`] the directory: a new log is started after the old ones.
//! 3. [`Wal::adopt_replayed`] with the replay's report, then [`Wal::mark_flushed`] for every
//!    region once its replayed edits are flushed, [`Wal::forget_region`] for regions that are
//!    gone: the old logs are deleted as soon as nothing needs them.
//! 4. [`Wal::append`] each row mutation, [`Wal::mark_flushed`] after each flush, and flush
//!    the regions [`Wal::regions_to_flush`] names when there are too many logs.
//! 5. [`Wal::close`].
//!
//! ```
//! use std::path::Path;
//! use std::sync::Arc;
//! use regionkv_cell::Cell;
//! use regionkv_fs::{CrashMode, MemFs};
//! use regionkv_wal::{RecoveryMode, SyncMode, Wal, WalConfig, WalEdit, WalKey, replay};
//!
//! # fn main() -> Result<(), Box<dyn std::error::Error>> {
//! let fs = MemFs::new();
//! let dir = Path::new("/db/wal");
//! let wal = Wal::open(Arc::new(fs.clone()), dir, WalConfig::default())?;
//! let edit = WalEdit::new(
//!     WalKey { region: b"region-a".to_vec(), table: "t1".into(), seq_id: 1, write_time: 0 },
//!     vec![Cell::put(b"row", b"cf", b"q", 1, b"v")?.with_seq_id(1)],
//! );
//! wal.append(&edit, SyncMode::Fsync)?;
//! fs.crash(CrashMode::DropUnsynced); // power loss: the fsynced edit survives
//! drop(wal);
//! let (edits, _report) = replay(&fs, dir, RecoveryMode::TolerateCorruptedTail)?.read_all()?;
//! assert_eq!(edits, [edit]);
//! # Ok(())
//! # }
//! ```

#![forbid(unsafe_code)]

mod accounting;
mod config;
mod dictionary;
mod edit;
mod error;
pub mod format;
mod ownership;
mod reader;
mod replay;
#[cfg(all(feature = "shuttle", not(test)))]
pub mod shuttle;
mod sync;

/// The short wait before parking that the WAL's group commit uses, for the region's MVCC
/// to wait the same way.
pub mod relax {
    pub use crate::sync::relax_until;
}
mod wal;

pub use config::{RecoveryMode, SyncMode, WalConfig};
pub use edit::{WalEdit, WalKey, WalKeyRef};
pub use error::{Error, Result};
pub use format::{LogHeader, LogOrigin};
pub use ownership::Ownership;
pub use reader::{DamagedRange, LogSummary, WalReader};
pub use replay::{RecordedLength, Replay, ReplayReport, replay, replay_for_db, verify_logs};
pub use wal::{SyncedPosition, Wal, WalStats};
