//! A full file system (issue 24, point 4): every operation gets a typed error naming its
//! file, and nothing kills the process with a signal.
//!
//! The bug: a WAL log keeps a sparse zero tail reserved ahead of its appends
//! (`WalConfig::preallocate`), and a process that dies leaves it in place. Replay (and
//! `repair`) read logs through `mmap`, and on tmpfs touching a mapped hole allocates a page;
//! on a full tmpfs that allocation fails and the kernel sends SIGBUS. Symptom: reopening
//! (or repairing) a Db on a full tmpfs killed the process instead of returning an error.
//! The fix: `RealFs` never maps a file with holes (`lseek(SEEK_HOLE)` on open; such a file
//! is read with `pread`, which reads holes as zeros without allocating), so a full disk is
//! an `ENOSPC` error like any other.
//!
//! The test mounts a small tmpfs (it needs root, or it prints `SKIPPED` and passes), has a
//! child process write a Db and exit without closing it (the reserved tail stays), fills
//! the file system, then reopens and repairs it in children and checks how each ended: a
//! typed error naming a file under the mount, or success; never a signal. A last child
//! fills the disk under an open Db and checks that a table creation (catalog and
//! manifest), a flush (storefile) and WAL appends all fail typed.

#![allow(clippy::unwrap_used, clippy::expect_used)]

use regionkv::{ColumnFamilyDescriptor, Db, DbOptions, Put, TableDescriptor};
use regionkv_suite::error_chain;
use std::io::Write;
use std::os::unix::fs::{FileExt, MetadataExt};
use std::os::unix::process::ExitStatusExt;
use std::path::{Path, PathBuf};
use std::process::{Command, Output};

const ROLE_ENV: &str = "FULL_DISK_CHILD";
const DIR_ENV: &str = "FULL_DISK_DIR";

/// A tmpfs mounted on a fresh temporary directory, unmounted when dropped.
struct Tmpfs {
    dir: tempfile::TempDir,
}

impl Tmpfs {
    /// Mounts a tmpfs of `size` (`mount -o size=`), or says why it could not.
    fn mount(size: &str) -> Result<Tmpfs, String> {
        let dir = tempfile::tempdir().map_err(|e| e.to_string())?;
        let out = Command::new("mount")
            .args(["-t", "tmpfs", "-o", &format!("size={size},mode=0700")])
            .arg("regionkv-full-disk")
            .arg(dir.path())
            .output()
            .map_err(|e| format!("cannot run mount: {e}"))?;
        if !out.status.success() {
            return Err(String::from_utf8_lossy(&out.stderr).trim().to_string());
        }
        Ok(Tmpfs { dir })
    }

    fn path(&self) -> &Path {
        self.dir.path()
    }
}

impl Drop for Tmpfs {
    fn drop(&mut self) {
        // Lazy: a child that is still around must not keep the mount alive for ever.
        let _ = Command::new("umount")
            .arg("-l")
            .arg(self.dir.path())
            .status();
    }
}

/// Writes `<dir>/fill` until the file system says ENOSPC, the last bytes in small pieces
/// so that no page is left free.
fn fill(dir: &Path) -> PathBuf {
    let path = dir.join("fill");
    let mut f = std::fs::File::create(&path).unwrap();
    for chunk in [64 << 10, 512] {
        let buf = vec![0x5a_u8; chunk];
        loop {
            match f.write(&buf) {
                Ok(n) if n == chunk => {}
                Ok(_) => break,
                Err(e) if e.raw_os_error() == Some(28) => break,
                Err(e) => panic!("filling {}: {e}", path.display()),
            }
        }
    }
    path
}

fn outcome<T: std::fmt::Debug>(what: &str, r: &regionkv::Result<T>) {
    match r {
        Ok(v) => println!("{what} ok {v:?}"),
        Err(e) => println!("{what} err {}", error_chain(e)),
    }
}

fn run_child(role: &str, dir: &Path) -> Output {
    Command::new(std::env::current_exe().unwrap())
        .args(["--exact", "child", "--nocapture", "--test-threads=1"])
        .env(ROLE_ENV, role)
        .env(DIR_ENV, dir)
        .output()
        .unwrap()
}

/// The child's line starting with `what`, after checking that it ended on its own.
fn line_of(out: &Output, what: &str) -> String {
    let stdout = String::from_utf8_lossy(&out.stdout);
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert_eq!(
        out.status.signal(),
        None,
        "the child died of a signal ({:?}) instead of returning an error\nstdout:\n{stdout}\nstderr:\n{stderr}",
        out.status
    );
    stdout
        .lines()
        .find_map(|l| l.find(what).map(|i| l[i..].to_string()))
        .unwrap_or_else(|| panic!("no {what} line\nstdout:\n{stdout}\nstderr:\n{stderr}"))
}

/// `line` reports an ENOSPC error naming a file under `mount`, or (if `may_succeed`)
/// success.
fn assert_typed_no_space(line: &str, mount: &Path, may_succeed: bool) {
    if may_succeed && line.contains(" ok ") {
        return;
    }
    assert!(line.contains(" err "), "{line}");
    assert!(
        line.contains("No space left on device"),
        "not ENOSPC: {line}"
    );
    assert!(
        line.contains(&mount.display().to_string()),
        "the error names no file: {line}"
    );
}

fn table(db: &Db) -> regionkv::Table {
    db.table("t").unwrap()
}

fn put_rows(db: &Db, from: u32, n: u32) {
    let t = table(db);
    for i in from..from + n {
        t.put(&Put::new(format!("row{i:06}")).add_column(b"cf", b"q", vec![b'v'; 100]))
            .unwrap();
    }
}

/// The children, chosen by `FULL_DISK_CHILD`; a no-op in a normal test run.
#[test]
fn child() {
    let Ok(role) = std::env::var(ROLE_ENV) else {
        return;
    };
    let dir = PathBuf::from(std::env::var(DIR_ENV).unwrap());
    let options = || DbOptions::default().background(false);
    match role.as_str() {
        // A flushed storefile, a complete (rolled) log and a current log with its reserved
        // tail, left as a killed process leaves it.
        "write" => {
            let db = Db::open(&dir, options()).unwrap();
            let cf = ColumnFamilyDescriptor::new(b"cf").unwrap();
            db.admin()
                .create_table(&TableDescriptor::new("t", vec![cf]).unwrap())
                .unwrap();
            put_rows(&db, 0, 200);
            db.admin().flush("t").unwrap();
            put_rows(&db, 200, 50);
            db.admin().roll_wal_writer().unwrap();
            put_rows(&db, 250, 50);
            println!("WROTE");
            std::process::exit(0);
        }
        "open" => outcome("OPEN", &Db::open(&dir, options()).map(drop)),
        "repair" => outcome("REPAIR", &regionkv::repair::repair(&dir, options())),
        // Fills the disk under an open Db, then asks it for a catalog and manifest change,
        // a flush and WAL appends.
        "fill_while_open" => {
            let db = Db::open(dir.join("db"), options()).unwrap();
            let cf = || ColumnFamilyDescriptor::new(b"cf").unwrap();
            // `w` only takes the WAL appends: a failed flush of `t` poisons `t` alone.
            for name in ["t", "w"] {
                db.admin()
                    .create_table(&TableDescriptor::new(name, vec![cf()]).unwrap())
                    .unwrap();
            }
            put_rows(&db, 0, 100);
            fill(&dir);
            let created = db
                .admin()
                .create_table(&TableDescriptor::new("t2", vec![cf()]).unwrap());
            outcome("CREATE", &created);
            println!("T2EXISTS {}", db.admin().table_exists("t2").unwrap());
            outcome("FLUSH", &db.admin().flush("t"));
            let t = db.table("w").unwrap();
            let mut put = Ok(());
            let mut acked = 0;
            // Far more than the reserved tail holds: the WAL must write new pages.
            for i in 0..5_000u32 {
                put =
                    t.put(&Put::new(format!("row{i:06}")).add_column(b"cf", b"q", vec![b'v'; 100]));
                if put.is_err() {
                    break;
                }
                acked += 1;
            }
            outcome("PUT", &put);
            println!("ACKED {acked}");
            outcome("CLOSE", &db.close());
        }
        other => panic!("unknown role {other}"),
    }
}

#[test]
fn a_full_disk_is_a_typed_error_never_a_signal() {
    if std::env::var(ROLE_ENV).is_ok() {
        return;
    }
    let mount = match Tmpfs::mount("8m") {
        Ok(m) => m,
        Err(why) => {
            println!(
                "SKIPPED a_full_disk_is_a_typed_error_never_a_signal: cannot mount a tmpfs ({why})"
            );
            return;
        }
    };
    let dir = mount.path().join("db");
    let out = run_child("write", &dir);
    line_of(&out, "WROTE");

    let wal_dir = dir.join("wal");
    let mut logs: Vec<PathBuf> = std::fs::read_dir(&wal_dir)
        .unwrap()
        .map(|e| e.unwrap().path())
        .collect();
    logs.sort();
    assert_eq!(logs.len(), 2, "{logs:?}");
    let current = std::fs::metadata(&logs[1]).unwrap();
    assert!(
        current.blocks() * 512 + 4096 < current.len(),
        "the current log should end in a sparse reserved tail: {} bytes, {} blocks",
        current.len(),
        current.blocks()
    );

    let filler = fill(mount.path());
    // Reopening reads the logs (the reserved tail included), then must start a new log.
    let open = line_of(&run_child("open", &dir), "OPEN");
    println!("reopen on a full disk: {open}");
    assert_typed_no_space(&open, mount.path(), true);
    // Repair reads every log strictly; nothing is damaged, so it has nothing to write.
    let repair = line_of(&run_child("repair", &dir), "REPAIR");
    println!("repair on a full disk: {repair}");
    assert_typed_no_space(&repair, mount.path(), true);

    // A damaged complete log must be copied aside by repair: no room for the copy.
    let f = std::fs::OpenOptions::new()
        .read(true)
        .write(true)
        .open(&logs[0])
        .unwrap();
    let mut byte = [0u8];
    let at = f.metadata().unwrap().len() / 2;
    f.read_exact_at(&mut byte, at).unwrap();
    f.write_all_at(&[byte[0] ^ 0x10], at).unwrap();
    drop(f);
    let repair = line_of(&run_child("repair", &dir), "REPAIR");
    println!("repair of a damaged log on a full disk: {repair}");
    assert_typed_no_space(&repair, mount.path(), false);
    assert!(repair.contains("corrupt"), "{repair}");

    // A Db that runs out of space while open.
    std::fs::remove_file(&filler).unwrap();
    std::fs::remove_dir_all(&dir).unwrap();
    let out = run_child("fill_while_open", mount.path());
    for what in ["CREATE", "FLUSH", "PUT"] {
        let line = line_of(&out, what);
        println!("while open: {line}");
        assert_typed_no_space(&line, mount.path(), false);
    }
    let close = line_of(&out, "CLOSE");
    println!("while open: {close}");
    assert_eq!(line_of(&out, "T2EXISTS"), "T2EXISTS false");
    let acked: u32 = line_of(&out, "ACKED ")["ACKED ".len()..].parse().unwrap();
    assert!(acked > 0, "no put went through before the disk was full");

    // With room again, everything acknowledged is there: `t`'s rows, whose flush failed,
    // and `w`'s acknowledged puts, from the WAL.
    std::fs::remove_file(mount.path().join("fill")).unwrap();
    let db = Db::open(
        mount.path().join("db"),
        DbOptions::default().background(false),
    )
    .unwrap();
    assert!(!db.admin().table_exists("t2").unwrap());
    for (name, n) in [("t", 100), ("w", acked)] {
        let t = db.table(name).unwrap();
        for i in 0..n {
            let row = t.get(&regionkv::Get::new(format!("row{i:06}"))).unwrap();
            assert_eq!(
                row.value(b"cf", b"q"),
                Some(&[b'v'; 100][..]),
                "{name} row {i}"
            );
        }
    }
    println!("after freeing space: {acked} acknowledged puts and 100 unflushed rows all there");
}
