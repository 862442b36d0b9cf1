//! [`Ownership`]: what the WAL asks before it deletes a file in its directory.
//!
//! A log is deleted once every region with edits in it has flushed them — edits of *this*
//! process's regions. If a second process shares the directory (its lock file was removed
//! and someone got in), the logs it writes and the logs it replays are not this process's
//! to delete: deleting one loses that process's acknowledged edits the moment it crashes.
//! So a WAL opened with an owner ([`Wal::open_owned`](crate::Wal::open_owned)) asks it after
//! every roll and every flush (every call that may delete logs), and once the owner says
//! no, it deletes nothing more until it is reopened: flushed logs are kept on disk (their
//! edits are all in storefiles; the next open replays and then deletes them).

use std::fmt::Debug;

/// Whether this process still owns the WAL's directory. The Db answers from its lock.
pub trait Ownership: Send + Sync + Debug {
    /// `Ok` while this process owns the directory; otherwise why not (logged by the WAL).
    /// Called with no WAL lock held; may do I/O (and repair what it can, such as re-creating
    /// a removed lock file).
    fn verify(&self) -> Result<(), String>;
}
