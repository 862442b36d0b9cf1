//! The knobs: [`Durability`] (per table or mutation), [`RecoveryMode`] (per replay) and
//! [`WalConfig`] (per WAL).

use std::time::Duration;

use crate::error::{Error, Result};

/// How durable a write is when it is acknowledged: HBase's `Durability`, with its names and
/// meaning. See RELIABILITY.md §0 and [`Wal::append`](crate::Wal::append).
///
/// | level       | acknowledged when                              | survives a killed process | survives power loss |
/// |-------------|------------------------------------------------|---------------------------|---------------------|
/// | `SkipWal`   | never written to the log                       | no (unless flushed)       | no                  |
/// | `AsyncWal`  | in the log buffer; written and synced by the background syncer within [`WalConfig::async_sync_interval`] | what the syncer wrote | what the syncer synced |
/// | `SyncWal`   | `write(2)` of the record returned              | yes                       | no                  |
/// | `FsyncWal`  | `fdatasync` of the log returned                | yes                       | yes                 |
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Default)]
pub enum Durability {
    /// Use the table's durability (whose own default is [`SyncWal`](Durability::SyncWal)).
    /// [`Wal::append`](crate::Wal::append) treats it as `SyncWal`; callers that know the
    /// table's setting resolve it first with [`Durability::resolve`].
    #[default]
    UseDefault,
    /// Do not write the edit to the log at all.
    SkipWal,
    /// Buffer the edit; a background thread writes and syncs the log periodically.
    AsyncWal,
    /// Write the edit to the OS before acknowledging (HBase's default).
    SyncWal,
    /// Write the edit and `fdatasync` the log before acknowledging.
    FsyncWal,
}

impl Durability {
    /// What HBase's `USE_DEFAULT` means for a table that does not set `DURABILITY`.
    pub const TABLE_DEFAULT: Durability = Durability::SyncWal;

    /// Every level, in HBase's declaration order.
    pub const ALL: [Durability; 5] = [
        Durability::UseDefault,
        Durability::SkipWal,
        Durability::AsyncWal,
        Durability::SyncWal,
        Durability::FsyncWal,
    ];

    /// `self`, or `table_default` when `self` is [`UseDefault`](Durability::UseDefault) (and
    /// [`TABLE_DEFAULT`](Durability::TABLE_DEFAULT) if that is `UseDefault` too).
    pub fn resolve(self, table_default: Durability) -> Durability {
        match (self, table_default) {
            (Durability::UseDefault, Durability::UseDefault) => Durability::TABLE_DEFAULT,
            (Durability::UseDefault, d) => d,
            (d, _) => d,
        }
    }

    /// HBase's name of the level, as the shell prints it (`SYNC_WAL`).
    pub const fn name(self) -> &'static str {
        match self {
            Durability::UseDefault => "USE_DEFAULT",
            Durability::SkipWal => "SKIP_WAL",
            Durability::AsyncWal => "ASYNC_WAL",
            Durability::SyncWal => "SYNC_WAL",
            Durability::FsyncWal => "FSYNC_WAL",
        }
    }

    /// The level with HBase's name `name` (case-insensitive), if any.
    pub fn from_name(name: &str) -> Option<Durability> {
        Durability::ALL
            .into_iter()
            .find(|d| d.name().eq_ignore_ascii_case(name))
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
    /// How often the background syncer writes and syncs what [`Durability::AsyncWal`] appends
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
    fn use_default_resolves_to_the_table_then_to_sync_wal() {
        assert_eq!(
            Durability::UseDefault.resolve(Durability::FsyncWal),
            Durability::FsyncWal
        );
        assert_eq!(
            Durability::UseDefault.resolve(Durability::UseDefault),
            Durability::SyncWal
        );
        assert_eq!(
            Durability::AsyncWal.resolve(Durability::FsyncWal),
            Durability::AsyncWal
        );
        assert_eq!(Durability::default(), Durability::UseDefault);
    }

    #[test]
    fn names_round_trip() {
        for d in Durability::ALL {
            assert_eq!(Durability::from_name(d.name()), Some(d));
        }
        assert_eq!(
            Durability::from_name("fsync_wal"),
            Some(Durability::FsyncWal)
        );
        assert_eq!(Durability::from_name("FSYNC"), None);
    }

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
