//! [`Durability`]: HBase's per-table and per-mutation choice of how a write reaches the WAL,
//! with its names. It lives above the WAL because two of its levels are not the WAL's
//! business: `USE_DEFAULT` defers to the table, and `SKIP_WAL` never calls the WAL at all.
//! The WAL sees only the resolved [`SyncMode`].

use regionkv_wal::SyncMode;

/// How durable a write is when it is acknowledged: HBase's `Durability`, with its names and
/// meaning. See RELIABILITY.md §0.
///
/// | level       | acknowledged when                              | survives a killed process | survives power loss |
/// |-------------|------------------------------------------------|---------------------------|---------------------|
/// | `SkipWal`   | never written to the log                       | no (unless flushed)       | no                  |
/// | `AsyncWal`  | in the log buffer; written and synced by the background syncer within `WalConfig::async_sync_interval` | what the syncer wrote | what the syncer synced |
/// | `SyncWal`   | `write(2)` of the record returned              | yes                       | no                  |
/// | `FsyncWal`  | `fdatasync` of the log returned                | yes                       | yes                 |
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Default)]
pub enum Durability {
    /// Use the table's durability (whose own default is [`SyncWal`](Durability::SyncWal)).
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

    /// How the WAL is written for this level: `None` for [`SkipWal`](Durability::SkipWal)
    /// (no append), and `UseDefault` as [`TABLE_DEFAULT`](Durability::TABLE_DEFAULT) (resolve
    /// against the table first to honour its setting).
    pub const fn sync_mode(self) -> Option<SyncMode> {
        match self {
            Durability::SkipWal => None,
            Durability::AsyncWal => Some(SyncMode::Async),
            Durability::UseDefault | Durability::SyncWal => Some(SyncMode::Sync),
            Durability::FsyncWal => Some(SyncMode::Fsync),
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
    fn each_level_maps_to_its_wal_sync_mode() {
        assert_eq!(Durability::SkipWal.sync_mode(), None);
        assert_eq!(Durability::AsyncWal.sync_mode(), Some(SyncMode::Async));
        assert_eq!(Durability::SyncWal.sync_mode(), Some(SyncMode::Sync));
        assert_eq!(Durability::UseDefault.sync_mode(), Some(SyncMode::Sync));
        assert_eq!(Durability::FsyncWal.sync_mode(), Some(SyncMode::Fsync));
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
}
