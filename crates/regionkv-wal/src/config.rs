//! The knobs: [`SyncMode`] (per append), [`RecoveryMode`] (per replay) and [`WalConfig`]
//! (per WAL).

use std::time::Duration;

use crate::error::{Error, Result};

/// What an append waits for before it returns: the three ways HBase's WAL is written
/// (`ASYNC_WAL`, `SYNC_WAL`, `FSYNC_WAL`). The table- and mutation-level choice, with
/// `USE_DEFAULT` and `SKIP_WAL`, is the region layer's `Durability`, which resolves to one of
/// these or to no append at all. See RELIABILITY.md §0 and [`Wal::append`](crate::Wal::append).
///
/// | mode    | the append returns when                        | survives a killed process | survives power loss |
/// |---------|------------------------------------------------|---------------------------|---------------------|
/// | `Async` | in the log buffer; written and synced by the background syncer within [`WalConfig::async_sync_interval`] | what the syncer wrote | what the syncer synced |
/// | `Sync`  | `write(2)` of the record returned              | yes                       | no                  |
/// | `Fsync` | `fdatasync` of the log returned                | yes                       | yes                 |
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum SyncMode {
    /// Buffer the edit; a background thread writes and syncs the log periodically.
    Async,
    /// Write the edit to the OS before returning (HBase's default, `SYNC_WAL`).
    Sync,
    /// Write the edit and `fdatasync` the log before returning.
    Fsync,
}

impl SyncMode {
    /// The name of the HBase durability level that writes the log this way (`SYNC_WAL`).
    pub const fn name(self) -> &'static str {
        match self {
            SyncMode::Async => "ASYNC_WAL",
            SyncMode::Sync => "SYNC_WAL",
            SyncMode::Fsync => "FSYNC_WAL",
        }
    }
}

/// What replay does with damaged log records (RocksDB's WAL recovery modes, RELIABILITY.md §0).
///
/// "Torn" damage is what a crash in the middle of an append leaves at the end of the log that
/// was being written: a record with fewer bytes than its header announces, a header cut
/// short, a tail of zero bytes (a file system that extended the file before its data reached
/// the disk; in a log whose header says it was preallocated, a zero tail at a record
/// boundary is no damage but the log's end), or any damage after which no record verifies (a power
/// cut garbling the unsynced end of the last page leaves a complete-length record whose
/// checksum fails). Damage followed by a record that verifies, and torn damage in a log
/// that was not the last one its process wrote, are corruption. Like RocksDB's
/// point-in-time recovery and HBase's WAL reader (which ends a log at the first record it
/// cannot parse), the default opens with the longest valid prefix of the last log.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Default)]
pub enum RecoveryMode {
    /// The default: torn damage at the end of the last log a process wrote is dropped (and
    /// reported in [`ReplayReport::dropped_tails`](crate::ReplayReport::dropped_tails));
    /// anything else is an error naming the file and offset.
    #[default]
    TolerateCorruptedTail,
    /// Any damage, torn or not, is an error.
    AbsoluteConsistency,
    /// Salvage: skip every damaged stretch up to the next record that verifies, and report
    /// what was skipped. For an explicit repair only: edits are lost silently otherwise.
    SkipAnyCorrupted,
}

/// Settings of one [`Wal`](crate::Wal).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct WalConfig {
    /// Roll to a new log file once the current one reaches this many bytes. Default 128 MiB:
    /// HBase rolls at `hbase.regionserver.logroll.multiplier` (0.5) × the WAL block size, which
    /// defaults to 2 × the HDFS block size (128 MiB), so 0.5 × 2 × 128 MiB.
    pub roll_size: u64,
    /// How often the background syncer writes and syncs what [`SyncMode::Async`] appends
    /// left in the buffer. Default 1 s (HBase's `hbase.regionserver.optionallogflushinterval`).
    pub async_sync_interval: Duration,
    /// When more logs than this are live, [`Wal::regions_to_flush`](crate::Wal::regions_to_flush)
    /// names the regions holding the oldest one. Default 32 (HBase's
    /// `hbase.regionserver.maxlogs`).
    pub max_logs: usize,
    /// How far ahead of the append position a log reserves room, in bytes (0: never). A log
    /// is extended with a sparse zero tail this much at a time, so that a synced append
    /// rarely changes the file's size: `fdatasync` then writes the data alone instead of
    /// also committing the size to the file system's journal (RocksDB preallocates its WAL,
    /// fjall its journal, for the same reason). A rolled or closed log is cut back to its
    /// records. Default 64 KiB: one size change per 64 KiB of log, about one synced append
    /// in 400 for the comparison suite's 160-byte edits (1 MiB measured the same within the
    /// noise), and little to read past when a crashed log is replayed.
    pub preallocate: u64,
    /// The Db the WAL belongs to, written into every log header (format version 3) so that
    /// a log copied into another Db's directory is refused by its replay
    /// ([`replay_for_db`](crate::replay_for_db)). `None`: the logs name no Db.
    pub db_id: Option<[u8; 16]>,
}

impl WalConfig {
    /// The default [`roll_size`](WalConfig::roll_size): 128 MiB.
    pub const DEFAULT_ROLL_SIZE: u64 = 128 << 20;
    /// The default [`async_sync_interval`](WalConfig::async_sync_interval): 1 s.
    pub const DEFAULT_ASYNC_SYNC_INTERVAL: Duration = Duration::from_secs(1);
    /// The default [`max_logs`](WalConfig::max_logs): 32.
    pub const DEFAULT_MAX_LOGS: usize = 32;
    /// The default [`preallocate`](WalConfig::preallocate): 64 KiB.
    pub const DEFAULT_PREALLOCATE: u64 = 64 << 10;

    /// Checks every field against its legal range.
    pub fn validate(&self) -> Result<()> {
        if self.roll_size == 0 {
            return Err(Error::InvalidConfig("roll_size must be positive"));
        }
        if self.async_sync_interval.is_zero() {
            return Err(Error::InvalidConfig("async_sync_interval must be positive"));
        }
        if self.max_logs == 0 {
            return Err(Error::InvalidConfig("max_logs must be at least 1"));
        }
        Ok(())
    }
}

impl Default for WalConfig {
    fn default() -> Self {
        WalConfig {
            roll_size: WalConfig::DEFAULT_ROLL_SIZE,
            async_sync_interval: WalConfig::DEFAULT_ASYNC_SYNC_INTERVAL,
            max_logs: WalConfig::DEFAULT_MAX_LOGS,
            preallocate: WalConfig::DEFAULT_PREALLOCATE,
            db_id: None,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn defaults_are_hbase_s_and_validation_rejects_zeros() {
        let c = WalConfig::default();
        assert_eq!(c.roll_size, 134_217_728);
        assert_eq!(c.async_sync_interval, Duration::from_secs(1));
        assert_eq!(c.max_logs, 32);
        assert_eq!(c.preallocate, 64 << 10);
        assert!(c.validate().is_ok());
        for bad in [
            WalConfig {
                roll_size: 0,
                ..WalConfig::default()
            },
            WalConfig {
                async_sync_interval: Duration::ZERO,
                ..WalConfig::default()
            },
            WalConfig {
                max_logs: 0,
                ..WalConfig::default()
            },
        ] {
            assert!(matches!(bad.validate(), Err(Error::InvalidConfig(_))));
        }
        assert_eq!(RecoveryMode::default(), RecoveryMode::TolerateCorruptedTail);
    }
}
