//! How [`RealFs`](crate::RealFs) opens an engine file: never through a symbolic link, never
//! blocking, and only if it is a regular file.
//!
//! A plain `open(2)` follows a symbolic link planted as the file's name, so the engine
//! would read, lock or even create a file outside its directory; and it blocks on a FIFO
//! until a writer comes, so `Db::open` would hang for ever. Here a file is opened with
//! `O_NOFOLLOW | O_NONBLOCK`: a link fails with `ELOOP`, a FIFO opens at once. Then
//! `fstat` on the new descriptor (not `stat` on the path, which may change in between)
//! says what was opened, and anything but a regular file is [`Error::NotAFile`]. For a
//! regular file `O_NONBLOCK` is cleared again: local file systems ignore it, but a FUSE
//! file system is told about it and may act on it.
//!
//! When the open itself fails (`ELOOP` for a link, `EISDIR` for a directory opened for
//! writing, `ENXIO` for a socket, or for a FIFO opened for writing with no reader), an
//! `lstat` of the path tells [`Error::NotAFile`] from an ordinary I/O error.
//!
//! Only the last component is guarded: directories on the way may be links (a Db
//! directory, or its `wal` directory, moved to another disk and linked back).

use std::fs::{File, Metadata, OpenOptions};
use std::io;
use std::path::Path;

use crate::{Error, FileKind, Result};

/// What `meta` (from `fstat` or `lstat`) describes, or `None` for a regular file.
pub(crate) fn kind_of(meta: &Metadata) -> Option<FileKind> {
    let t = meta.file_type();
    if t.is_file() {
        return None;
    }
    if t.is_dir() {
        return Some(FileKind::Directory);
    }
    if t.is_symlink() {
        return Some(FileKind::Symlink);
    }
    #[cfg(unix)]
    {
        use std::os::unix::fs::FileTypeExt;
        if t.is_fifo() {
            return Some(FileKind::Fifo);
        }
        if t.is_socket() {
            return Some(FileKind::Socket);
        }
        if t.is_block_device() {
            return Some(FileKind::BlockDevice);
        }
        if t.is_char_device() {
            return Some(FileKind::CharDevice);
        }
    }
    Some(FileKind::Other)
}

/// Opens the regular file at `path` with `options` (which must not set custom flags),
/// without following a link and without blocking. Returns the file and its `fstat`
/// metadata. `op` names the errors.
pub(crate) fn open_regular(
    op: &'static str,
    path: &Path,
    options: &mut OpenOptions,
) -> Result<(File, Metadata)> {
    #[cfg(unix)]
    {
        use std::os::unix::fs::OpenOptionsExt;
        options.custom_flags(libc::O_NOFOLLOW | libc::O_NONBLOCK);
    }
    let file = options.open(path).map_err(|e| open_error(op, path, e))?;
    let meta = file.metadata().map_err(|e| Error::io(op, path, e))?;
    if let Some(kind) = kind_of(&meta) {
        return Err(Error::NotAFile {
            op,
            path: path.to_path_buf(),
            kind,
        });
    }
    #[cfg(unix)]
    clear_nonblocking(&file).map_err(|e| Error::io(op, path, e))?;
    Ok((file, meta))
}

/// The error for a failed open of `path`: [`Error::NotAFile`] when something other than a
/// regular file is there, else [`Error::Io`].
pub(crate) fn open_error(op: &'static str, path: &Path, e: io::Error) -> Error {
    // Missing, or there already (`create_new`): the kinds callers act on stay as they are.
    if !matches!(
        e.kind(),
        io::ErrorKind::NotFound | io::ErrorKind::AlreadyExists
    ) && let Ok(meta) = std::fs::symlink_metadata(path)
        && let Some(kind) = kind_of(&meta)
    {
        return Error::NotAFile {
            op,
            path: path.to_path_buf(),
            kind,
        };
    }
    Error::io(op, path, e)
}

/// Clears `O_NONBLOCK`, which [`open_regular`] set only to open a FIFO without blocking.
#[cfg(unix)]
fn clear_nonblocking(file: &File) -> io::Result<()> {
    use std::os::fd::AsRawFd;
    let fd = file.as_raw_fd();
    // SAFETY: F_GETFL on a descriptor `file` keeps open for the whole call; no memory is
    // passed to the kernel.
    let flags = unsafe { libc::fcntl(fd, libc::F_GETFL) };
    if flags < 0 {
        return Err(io::Error::last_os_error());
    }
    if flags & libc::O_NONBLOCK != 0 {
        // SAFETY: as above; F_SETFL with an integer argument.
        let r = unsafe { libc::fcntl(fd, libc::F_SETFL, flags & !libc::O_NONBLOCK) };
        if r < 0 {
            return Err(io::Error::last_os_error());
        }
    }
    Ok(())
}

#[cfg(all(test, unix))]
#[allow(clippy::unwrap_used)]
mod tests {
    use super::*;
    use std::os::fd::AsRawFd;

    fn fifo(path: &Path) {
        let c = std::ffi::CString::new(path.as_os_str().as_encoded_bytes()).unwrap();
        // SAFETY: a valid NUL-terminated path; mkfifo reads it and keeps nothing.
        assert_eq!(unsafe { libc::mkfifo(c.as_ptr(), 0o600) }, 0);
    }

    #[test]
    fn a_regular_file_opens_blocking() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("f");
        std::fs::write(&path, b"x").unwrap();
        let (file, meta) = open_regular("t", &path, OpenOptions::new().read(true)).unwrap();
        assert_eq!(meta.len(), 1);
        // SAFETY: F_GETFL on an open descriptor.
        let flags = unsafe { libc::fcntl(file.as_raw_fd(), libc::F_GETFL) };
        assert_eq!(flags & libc::O_NONBLOCK, 0, "O_NONBLOCK left set");
    }

    #[test]
    fn a_fifo_a_directory_a_link_and_a_socket_are_refused_at_once() {
        let dir = tempfile::tempdir().unwrap();
        let target = dir.path().join("target");
        std::fs::write(&target, b"x").unwrap();
        let f = dir.path().join("fifo");
        fifo(&f);
        let d = dir.path().join("dir");
        std::fs::create_dir(&d).unwrap();
        let l = dir.path().join("link");
        std::os::unix::fs::symlink(&target, &l).unwrap();
        let dangling = dir.path().join("dangling");
        std::os::unix::fs::symlink(dir.path().join("nowhere"), &dangling).unwrap();
        let s = dir.path().join("sock");
        let _listener = std::os::unix::net::UnixListener::bind(&s).unwrap();
        let cases = [
            (&f, FileKind::Fifo),
            (&d, FileKind::Directory),
            (&l, FileKind::Symlink),
            (&dangling, FileKind::Symlink),
            (&s, FileKind::Socket),
        ];
        for (path, kind) in cases {
            let options: [OpenOptions; 3] = [
                {
                    let mut o = OpenOptions::new();
                    o.read(true);
                    o
                },
                {
                    let mut o = OpenOptions::new();
                    o.write(true);
                    o
                },
                {
                    let mut o = OpenOptions::new();
                    o.read(true).write(true).create(true).truncate(false);
                    o
                },
            ];
            for mut o in options {
                match open_regular("t", path, &mut o) {
                    Err(Error::NotAFile {
                        path: p, kind: k, ..
                    }) => {
                        assert_eq!((&p, k), (path, kind), "{o:?}");
                    }
                    other => panic!("{}: {other:?} with {o:?}", path.display()),
                }
            }
        }
        assert!(!dir.path().join("nowhere").exists(), "a link was followed");
        let err = open_regular(
            "t",
            &dir.path().join("missing"),
            OpenOptions::new().read(true),
        )
        .unwrap_err();
        assert_eq!(err.kind(), io::ErrorKind::NotFound);
    }
}
