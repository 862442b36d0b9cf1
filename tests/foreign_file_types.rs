//! Something other than a regular file in place of an engine file (issue 24, points 5 and 7).
//!
//! The bug: `RealFs` opened engine files with a plain `open(2)`, which follows symbolic
//! links and blocks on a FIFO until a writer comes. Symptom: a FIFO planted as `REGIONKV`,
//! `CATALOG`, a `MANIFEST`, a storefile or a WAL log made `Db::open` hang for ever; a
//! symbolic link planted as any of them (or as `LOCK`, which is created if missing) was
//! followed, so the engine read, locked or created a file outside its directory; a
//! directory gave an `mmap` error that did not say what was wrong. The fix: `RealFs` opens
//! every file with `O_NOFOLLOW | O_NONBLOCK` and checks with `fstat` that it got a regular
//! file before using it; anything else is `regionkv_fs::Error::NotAFile`, naming the path
//! and what is there.
//!
//! Every case runs its `Db::open`, then a `repair`, on a thread and fails if it has not
//! returned within `TIMEOUT`, so a hang is a failure, not a stuck test run.

#![allow(clippy::unwrap_used, clippy::expect_used)]

use regionkv::{ColumnFamilyDescriptor, Db, DbOptions, Put, TableDescriptor};
use regionkv_suite::error_chain;
use std::path::{Path, PathBuf};
use std::process::Command;
use std::sync::mpsc;
use std::time::Duration;

const TIMEOUT: Duration = Duration::from_secs(10);

/// What is planted in place of an engine file.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Plant {
    Fifo,
    Directory,
    /// A symbolic link to a copy of the file outside the Db (following it would "work"),
    /// or, for `LOCK`, a dangling link (following it would create its target).
    Symlink,
    Socket,
}

impl Plant {
    const ALL: [Plant; 4] = [Plant::Fifo, Plant::Directory, Plant::Symlink, Plant::Socket];

    /// The word the error must use for it.
    fn word(self) -> &'static str {
        match self {
            Plant::Fifo => "FIFO",
            Plant::Directory => "directory",
            Plant::Symlink => "symbolic link",
            Plant::Socket => "socket",
        }
    }
}

/// A closed Db with a table, a flushed storefile and a WAL log holding edits.
fn build(dir: &Path) {
    let db = Db::open(dir, DbOptions::default().background(false)).unwrap();
    let cf = ColumnFamilyDescriptor::new(b"cf").unwrap();
    db.admin()
        .create_table(&TableDescriptor::new("t", vec![cf]).unwrap())
        .unwrap();
    let t = db.table("t").unwrap();
    for i in 0..20 {
        t.put(&Put::new(format!("row{i:03}")).add_column(b"cf", b"q", "v"))
            .unwrap();
    }
    db.admin().flush("t").unwrap();
    t.put(&Put::new("unflushed").add_column(b"cf", b"q", "v"))
        .unwrap();
    drop(db);
}

/// Every file under `dir`, recursively.
fn walk(dir: &Path, out: &mut Vec<PathBuf>) {
    for e in std::fs::read_dir(dir).unwrap() {
        let path = e.unwrap().path();
        if path.is_dir() {
            walk(&path, out);
        } else {
            out.push(path);
        }
    }
}

/// The engine file called `what` in the Db at `dir`.
fn engine_file(dir: &Path, what: &str) -> PathBuf {
    let mut files = Vec::new();
    walk(dir, &mut files);
    let found = files.into_iter().find(|p| {
        let name = p.file_name().unwrap().to_str().unwrap();
        let parent = p.parent().unwrap().file_name().unwrap().to_str().unwrap();
        match what {
            "storefile" => parent == "cf",
            "WAL log" => parent == "wal" && name.ends_with(".log"),
            _ => name == what,
        }
    });
    found.unwrap_or_else(|| panic!("no {what} in {}", dir.display()))
}

/// Replaces `path` by `plant`; `outside` is a directory outside the Db.
fn plant(path: &Path, plant: Plant, outside: &Path) {
    let copy = outside.join("original");
    std::fs::rename(path, &copy).unwrap();
    match plant {
        Plant::Fifo => {
            let st = Command::new("mkfifo").arg(path).status().unwrap();
            assert!(st.success(), "mkfifo");
        }
        Plant::Directory => std::fs::create_dir(path).unwrap(),
        Plant::Symlink if path.file_name().unwrap() == "LOCK" => {
            std::os::unix::fs::symlink(outside.join("created-through-the-link"), path).unwrap();
        }
        Plant::Symlink => std::os::unix::fs::symlink(&copy, path).unwrap(),
        Plant::Socket => {
            // Socket paths are short (108 bytes): bind nearby, then move it into place.
            let short = outside.join("s");
            drop(std::os::unix::net::UnixListener::bind(&short).unwrap());
            std::fs::rename(&short, path).unwrap();
        }
    }
}

/// Runs `f` on a thread: `None` if it has not returned within `TIMEOUT`.
fn with_timeout<T: Send + 'static>(
    f: impl FnOnce() -> regionkv::Result<T> + Send + 'static,
) -> Option<Result<T, String>> {
    let (tx, rx) = mpsc::channel();
    std::thread::spawn(move || {
        let _ = tx.send(f().map_err(|e| error_chain(&e)));
    });
    rx.recv_timeout(TIMEOUT).ok()
}

/// Opens the Db at `dir` on a thread: `None` if it has not returned within `TIMEOUT`.
fn open_with_timeout(dir: &Path) -> Option<Result<(), String>> {
    let dir = dir.to_path_buf();
    with_timeout(move || Db::open(&dir, DbOptions::default().background(false)).map(drop))
}

/// Repairs the Db at `dir` on a thread: `None` if it has not returned within `TIMEOUT`.
fn repair_with_timeout(dir: &Path) -> Option<Result<regionkv::repair::RepairReport, String>> {
    let dir = dir.to_path_buf();
    with_timeout(move || regionkv::repair::repair(&dir, DbOptions::default().background(false)))
}

#[test]
fn a_non_regular_file_in_place_of_an_engine_file_is_an_error_naming_it() {
    let files = [
        "REGIONKV",
        "LOCK",
        "CATALOG",
        "MANIFEST",
        "storefile",
        "WAL log",
    ];
    let mut failures = Vec::new();
    for what in files {
        for kind in Plant::ALL {
            let tmp = tempfile::tempdir().unwrap();
            let dir = tmp.path().join("db");
            let outside = tmp.path().join("outside");
            std::fs::create_dir(&outside).unwrap();
            build(&dir);
            let path = engine_file(&dir, what);
            plant(&path, kind, &outside);
            let (verdict, message) = match open_with_timeout(&dir) {
                None => (Some(format!("hung for more than {TIMEOUT:?}")), None),
                Some(Ok(())) => (Some("opened".to_string()), None),
                Some(Err(e)) => {
                    let named = e.contains(&path.display().to_string());
                    let typed = e.to_lowercase().contains(&kind.word().to_lowercase());
                    let verdict = (!named || !typed).then(|| {
                        format!(
                            "an error not naming both the path and the {}: {e}",
                            kind.word()
                        )
                    });
                    (verdict, Some(e))
                }
            };
            if outside.join("created-through-the-link").exists() {
                failures.push(format!("{what} as a {kind:?}: the link was followed"));
            }
            match verdict {
                None => println!("{what} as a {kind:?}: {}", message.unwrap_or_default()),
                Some(v) => failures.push(format!("{what} as a {kind:?}: {v}")),
            }
            // Repair must not hang either. It may get past a file it does not need (it
            // never reads REGIONKV) or set an unreadable storefile aside; an error must
            // name the file.
            match repair_with_timeout(&dir) {
                None => failures.push(format!(
                    "{what} as a {kind:?}: repair hung for more than {TIMEOUT:?}"
                )),
                Some(Ok(report)) => println!("{what} as a {kind:?}: repair: {report:?}"),
                Some(Err(e)) if e.contains(&path.display().to_string()) => {
                    println!("{what} as a {kind:?}: repair: {e}")
                }
                Some(Err(e)) => failures.push(format!(
                    "{what} as a {kind:?}: repair failed without naming it: {e}"
                )),
            }
        }
    }
    assert!(failures.is_empty(), "\n{}", failures.join("\n"));
}
