//! The crate's one error type.
//!
//! Every error names the operation and the path it failed on, so that a caller several layers up
//! can still say *where* an I/O problem happened. The underlying [`std::io::Error`] is kept as the
//! [`source`](std::error::Error::source) and is not repeated in `Display`; print the whole chain
//! to see it. Faults injected by [`FaultFs`](crate::FaultFs) are ordinary [`Error::Io`] values
//! carrying a realistic `io::Error`, so engine code cannot tell them from real ones.

use std::io;
use std::path::{Path, PathBuf};

/// The result type of every fallible call in this crate.
pub type Result<T> = std::result::Result<T, Error>;

/// An error from a file system operation.
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum Error {
    /// The operating system (or a simulated one) failed an operation on a path.
    #[error("{op} failed on {}", path.display())]
    Io {
        /// The operation, named after the [`Fs`](crate::Fs) method (`"append"`, `"sync_dir"`, ...).
        op: &'static str,
        /// The path the operation was applied to.
        path: PathBuf,
        /// What went wrong.
        #[source]
        source: io::Error,
    },
    /// A rename failed; both ends are named.
    #[error("rename of {} to {} failed", from.display(), to.display())]
    Rename {
        /// The path being renamed.
        from: PathBuf,
        /// The destination path.
        to: PathBuf,
        /// What went wrong.
        #[source]
        source: io::Error,
    },
    /// An exact read asked for bytes past the end of the file.
    #[error(
        "read of {len} bytes at offset {offset} in {} runs past the end of the file ({file_len} bytes)",
        path.display()
    )]
    UnexpectedEof {
        /// The file read from.
        path: PathBuf,
        /// The offset of the read.
        offset: u64,
        /// The number of bytes asked for.
        len: u64,
        /// The length of the file.
        file_len: u64,
    },
    /// The lock file is held by another holder: another process for
    /// [`RealFs`](crate::RealFs), another live lock object for [`MemFs`](crate::MemFs).
    #[error("{} is locked by another holder", path.display())]
    Locked {
        /// The lock file.
        path: PathBuf,
    },
    /// Where a file was expected, the path leads to something else: a directory, a FIFO, a
    /// socket, a device, or a symbolic link (which [`RealFs`](crate::RealFs) never follows
    /// to a file). Checked on open, before a byte is read, so a FIFO cannot block the
    /// caller and a planted link cannot lead it out of its directory.
    #[error("{op} refused {}: it is a {kind}, not a regular file", path.display())]
    NotAFile {
        /// The operation (`"open_read"`, `"lock"`, ...).
        op: &'static str,
        /// The path.
        path: PathBuf,
        /// What is there instead.
        kind: FileKind,
    },
    /// A file handle was used after [`MemFs::crash`](crate::MemFs::crash) ended the simulated
    /// process that opened it.
    #[error("{op} on {} through a handle opened before a simulated crash", path.display())]
    Crashed {
        /// The operation attempted.
        op: &'static str,
        /// The file the handle refers to.
        path: PathBuf,
    },
}

/// What a path leads to when it is not a regular file ([`Error::NotAFile`]).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
#[non_exhaustive]
pub enum FileKind {
    /// A directory.
    Directory,
    /// A symbolic link (never followed to a file).
    Symlink,
    /// A named pipe (`mkfifo`).
    Fifo,
    /// A Unix domain socket.
    Socket,
    /// A block device.
    BlockDevice,
    /// A character device.
    CharDevice,
    /// Anything else the platform has.
    Other,
}

impl std::fmt::Display for FileKind {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(match self {
            FileKind::Directory => "directory",
            FileKind::Symlink => "symbolic link",
            FileKind::Fifo => "FIFO",
            FileKind::Socket => "socket",
            FileKind::BlockDevice => "block device",
            FileKind::CharDevice => "character device",
            FileKind::Other => "special file",
        })
    }
}

impl Error {
    /// Builds an [`Error::Io`].
    pub fn io(op: &'static str, path: impl Into<PathBuf>, source: io::Error) -> Self {
        Error::Io {
            op,
            path: path.into(),
            source,
        }
    }

    /// Builds an [`Error::Io`] from a bare error kind and message (used by the simulated file
    /// systems, which have no OS error to wrap).
    pub(crate) fn simulated(
        op: &'static str,
        path: impl Into<PathBuf>,
        kind: io::ErrorKind,
        msg: &str,
    ) -> Self {
        Error::io(op, path, io::Error::new(kind, msg.to_owned()))
    }

    /// The [`io::ErrorKind`] that best describes this error.
    ///
    /// [`Error::Locked`] is [`io::ErrorKind::WouldBlock`] (what a non-blocking `flock` reports),
    /// [`Error::UnexpectedEof`] is [`io::ErrorKind::UnexpectedEof`], [`Error::NotAFile`] is
    /// [`io::ErrorKind::IsADirectory`] for a directory and [`io::ErrorKind::InvalidInput`]
    /// for anything else, and [`Error::Crashed`] is [`io::ErrorKind::Other`].
    pub fn kind(&self) -> io::ErrorKind {
        match self {
            Error::Io { source, .. } | Error::Rename { source, .. } => source.kind(),
            Error::UnexpectedEof { .. } => io::ErrorKind::UnexpectedEof,
            Error::Locked { .. } => io::ErrorKind::WouldBlock,
            Error::NotAFile {
                kind: FileKind::Directory,
                ..
            } => io::ErrorKind::IsADirectory,
            Error::NotAFile { .. } => io::ErrorKind::InvalidInput,
            Error::Crashed { .. } => io::ErrorKind::Other,
        }
    }

    /// The path the failed operation was applied to (for a rename, its source).
    pub fn path(&self) -> &Path {
        match self {
            Error::Io { path, .. }
            | Error::UnexpectedEof { path, .. }
            | Error::Locked { path }
            | Error::NotAFile { path, .. }
            | Error::Crashed { path, .. } => path,
            Error::Rename { from, .. } => from,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn display_names_op_and_path_and_keeps_source() {
        let e = Error::io("sync_dir", "/db/wal", io::Error::other("boom"));
        assert_eq!(e.to_string(), "sync_dir failed on /db/wal");
        assert_eq!(e.kind(), io::ErrorKind::Other);
        assert_eq!(e.path(), Path::new("/db/wal"));
        let source = std::error::Error::source(&e).map(ToString::to_string);
        assert_eq!(source.as_deref(), Some("boom"));
    }

    #[test]
    fn eof_names_path_and_offset() {
        let e = Error::UnexpectedEof {
            path: "/db/f".into(),
            offset: 10,
            len: 4,
            file_len: 12,
        };
        let s = e.to_string();
        assert!(s.contains("/db/f") && s.contains("offset 10"), "{s}");
        assert_eq!(e.kind(), io::ErrorKind::UnexpectedEof);
    }

    #[test]
    fn not_a_file_names_path_and_what_is_there() {
        let e = Error::NotAFile {
            op: "open_read",
            path: "/db/CATALOG".into(),
            kind: FileKind::Fifo,
        };
        assert_eq!(
            e.to_string(),
            "open_read refused /db/CATALOG: it is a FIFO, not a regular file"
        );
        assert_eq!(e.kind(), io::ErrorKind::InvalidInput);
        assert_eq!(e.path(), Path::new("/db/CATALOG"));
        let dir = Error::NotAFile {
            op: "lock",
            path: "/db/LOCK".into(),
            kind: FileKind::Directory,
        };
        assert_eq!(dir.kind(), io::ErrorKind::IsADirectory);
    }

    #[test]
    fn rename_names_both_ends() {
        let e = Error::Rename {
            from: "/a".into(),
            to: "/b".into(),
            source: io::ErrorKind::NotFound.into(),
        };
        assert_eq!(e.to_string(), "rename of /a to /b failed");
        assert_eq!(e.kind(), io::ErrorKind::NotFound);
        assert_eq!(e.path(), Path::new("/a"));
    }
}
