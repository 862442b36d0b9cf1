//! The gateways against real clients nobody on this project wrote: happybase 1.3.0 (PyPI)
//! over every transport and protocol and HBase compat level, and a plain-HTTP REST client
//! (Python's standard library), each talking to a `regionkv serve` process.
//!
//! The clients run from a virtualenv that `crates/regionkv-gateway/tests/python/setup-venv.sh`
//! creates under the target directory (idempotently). When it cannot be created — no
//! python3, PyPI unreachable — these tests fail with the reason; they never pass silently.

use std::io::{BufRead, BufReader};
use std::net::SocketAddr;
use std::path::{Path, PathBuf};
use std::process::{Child, Command, Stdio};
use std::sync::OnceLock;
use std::time::{Duration, Instant};

fn python_dir() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../regionkv-gateway/tests/python")
}

/// The venv's python, set up once per test binary.
fn python() -> &'static Path {
    static PYTHON: OnceLock<PathBuf> = OnceLock::new();
    PYTHON.get_or_init(|| {
        // target/debug/regionkv -> target/python-venv
        let bin = Path::new(env!("CARGO_BIN_EXE_regionkv"));
        let target = bin
            .parent()
            .and_then(Path::parent)
            .unwrap_or(Path::new("target"));
        let venv = target.join("python-venv");
        let out = Command::new("bash")
            .arg(python_dir().join("setup-venv.sh"))
            .arg(&venv)
            .stderr(Stdio::inherit())
            .output()
            .unwrap_or_else(|e| panic!("cannot run setup-venv.sh: {e}"));
        assert!(
            out.status.success(),
            "the Python test environment (happybase from PyPI) could not be set up; see the \
             setup-venv.sh messages above"
        );
        let path = String::from_utf8_lossy(&out.stdout).trim().to_string();
        PathBuf::from(path)
    })
}

/// A `regionkv serve` process on a fresh data directory; SIGTERM on drop.
struct Server {
    child: Child,
    thrift: Option<SocketAddr>,
    rest: Option<SocketAddr>,
    _dir: Option<tempfile::TempDir>,
    data: PathBuf,
}

impl Server {
    fn start(extra: &[&str]) -> Server {
        let dir = tempfile::tempdir().unwrap_or_else(|e| panic!("tempdir: {e}"));
        let data = dir.path().join("data");
        let mut s = Server::start_on(&data, extra);
        s._dir = Some(dir);
        s
    }

    fn start_on(data: &Path, extra: &[&str]) -> Server {
        let mut child = Command::new(env!("CARGO_BIN_EXE_regionkv"))
            .args(["serve", "--thrift", "0", "--rest", "0", "--data"])
            .arg(data)
            .args(extra)
            .stdout(Stdio::piped())
            .stderr(Stdio::inherit())
            .spawn()
            .unwrap_or_else(|e| panic!("cannot start regionkv serve: {e}"));
        let stdout = child.stdout.take().unwrap_or_else(|| panic!("no stdout"));
        let mut lines = BufReader::new(stdout).lines();
        let (mut thrift, mut rest) = (None, None);
        let want_thrift = !extra.contains(&"--no-thrift");
        let want_rest = !extra.contains(&"--no-rest");
        while (want_thrift && thrift.is_none()) || (want_rest && rest.is_none()) {
            let line = match lines.next() {
                Some(Ok(l)) => l,
                other => panic!("regionkv serve ended before listening: {other:?}"),
            };
            let addr = |prefix: &str| -> Option<SocketAddr> {
                line.strip_prefix(prefix).and_then(|a| a.parse().ok())
            };
            if let Some(a) = addr("thrift listening on ") {
                thrift = Some(a);
            } else if let Some(a) = addr("rest listening on ") {
                rest = Some(a);
            } else {
                panic!("unexpected line from regionkv serve: {line:?}");
            }
        }
        Server {
            child,
            thrift,
            rest,
            _dir: None,
            data: data.to_path_buf(),
        }
    }

    /// SIGTERM, then the exit status (the process must stop by itself).
    fn terminate(&mut self) -> std::process::ExitStatus {
        let pid = i32::try_from(self.child.id()).unwrap_or(i32::MAX);
        // SAFETY: kill(2) with a pid this test started and still owns (not yet waited for).
        unsafe {
            libc::kill(pid, libc::SIGTERM);
        }
        let deadline = Instant::now() + Duration::from_secs(30);
        loop {
            if let Ok(Some(status)) = self.child.try_wait() {
                return status;
            }
            assert!(
                Instant::now() < deadline,
                "regionkv serve did not stop within 30 s of SIGTERM"
            );
            std::thread::sleep(Duration::from_millis(20));
        }
    }
}

impl Drop for Server {
    fn drop(&mut self) {
        if let Ok(None) = self.child.try_wait() {
            let _ = self.child.kill();
            let _ = self.child.wait();
        }
    }
}

fn run_python(script: &str, args: &[String]) {
    let out = Command::new(python())
        .arg(python_dir().join(script))
        .args(args)
        .output()
        .unwrap_or_else(|e| panic!("cannot run {script}: {e}"));
    let stdout = String::from_utf8_lossy(&out.stdout);
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(
        out.status.success(),
        "{script} {args:?} failed ({}):\n{stdout}\n{stderr}",
        out.status
    );
    assert!(
        stdout.contains("PASS"),
        "{script} printed no PASS line:\n{stdout}"
    );
}

fn happybase(transport: &str, protocol: &str, compat: &str) {
    let server = Server::start(&["--no-rest"]);
    let addr = server.thrift.unwrap_or_else(|| panic!("no thrift address"));
    run_python(
        "happybase_suite.py",
        &[
            addr.ip().to_string(),
            addr.port().to_string(),
            transport.to_string(),
            protocol.to_string(),
            compat.to_string(),
        ],
    );
}

#[test]
fn happybase_buffered_binary() {
    happybase("buffered", "binary", "0.98");
}

#[test]
fn happybase_buffered_compact() {
    happybase("buffered", "compact", "0.98");
}

#[test]
fn happybase_framed_binary() {
    happybase("framed", "binary", "0.98");
}

#[test]
fn happybase_framed_compact() {
    happybase("framed", "compact", "0.98");
}

/// compat 0.90: scans through scannerOpen, scannerOpenWithStop and their Ts variants.
#[test]
fn happybase_compat_090() {
    happybase("buffered", "binary", "0.90");
}

/// compat 0.96: no reverse scans, sorted columns.
#[test]
fn happybase_compat_096_framed() {
    happybase("framed", "binary", "0.96");
}

/// The REST gateway with a plain HTTP client (Python's urllib): every endpoint, JSON and XML.
#[test]
fn rest_with_a_plain_http_client() {
    let server = Server::start(&["--no-thrift"]);
    let addr = server.rest.unwrap_or_else(|| panic!("no rest address"));
    run_python("rest_client.py", &[format!("http://{addr}")]);
}

/// Every client on one port at once: the server tells each connection's wire apart.
#[test]
fn one_port_serves_every_wire_at_once() {
    let server = Server::start(&["--no-rest"]);
    let addr = server.thrift.unwrap_or_else(|| panic!("no thrift address"));
    let handles: Vec<_> = [
        ("buffered", "binary"),
        ("buffered", "compact"),
        ("framed", "binary"),
        ("framed", "compact"),
    ]
    .into_iter()
    .map(|(t, p)| {
        let args = vec![
            addr.ip().to_string(),
            addr.port().to_string(),
            t.to_string(),
            p.to_string(),
            "0.98".to_string(),
        ];
        std::thread::spawn(move || run_python("happybase_suite.py", &args))
    })
    .collect();
    for h in handles {
        if let Err(e) = h.join() {
            std::panic::resume_unwind(e);
        }
    }
}

/// Read-only mode: every mutation is refused with HBase's message; reads work.
#[test]
fn read_only_refuses_mutations() {
    let dir = tempfile::tempdir().unwrap_or_else(|e| panic!("tempdir: {e}"));
    let data = dir.path().join("data");
    {
        let mut s = Server::start_on(&data, &["--no-rest"]);
        let addr = s.thrift.unwrap_or_else(|| panic!("no thrift address"));
        run_inline(
            addr,
            "c.create_table('t', {'cf': dict()}); c.table('t').put(b'r', {b'cf:a': b'v'}); print('PASS')",
        );
        assert!(s.terminate().success());
    }
    let s = Server::start_on(&data, &["--no-rest", "--read-only"]);
    let addr = s.thrift.unwrap_or_else(|| panic!("no thrift address"));
    run_inline(
        addr,
        r#"
t = c.table('t')
assert t.row(b'r') == {b'cf:a': b'v'}, t.row(b'r')
for what, fn in [('put', lambda: t.put(b'r2', {b'cf:a': b'x'})),
                 ('delete', lambda: t.delete(b'r')),
                 ('counter', lambda: t.counter_inc(b'r', b'cf:n')),
                 ('create', lambda: c.create_table('u', {'cf': dict()})),
                 ('disable', lambda: c.disable_table('t'))]:
    try:
        fn()
        raise SystemExit('read-only server accepted a ' + what)
    except Exception as e:
        assert 'Read-only mode' in str(e), (what, e)
assert t.row(b'r') == {b'cf:a': b'v'}
assert c.is_table_enabled('t')
print('PASS')
"#,
    );
}

/// SIGTERM stops the server cleanly; every acknowledged write is there after a restart.
#[test]
fn sigterm_stops_cleanly_and_keeps_acknowledged_writes() {
    let dir = tempfile::tempdir().unwrap_or_else(|e| panic!("tempdir: {e}"));
    let data = dir.path().join("data");
    let mut s = Server::start_on(&data, &[]);
    let addr = s.thrift.unwrap_or_else(|| panic!("no thrift address"));
    run_inline(
        addr,
        r#"
c.create_table('t', {'cf': dict()})
with c.table('t').batch(batch_size=100) as b:
    for i in range(1000):
        b.put(b'row%04d' % i, {b'cf:a': b'%d' % i})
print('PASS')
"#,
    );
    let status = s.terminate();
    assert!(
        status.success(),
        "regionkv serve exited with {status} on SIGTERM"
    );
    let again = Server::start_on(&data, &[]);
    assert_eq!(again.data, data);
    let addr = again.thrift.unwrap_or_else(|| panic!("no thrift address"));
    run_inline(
        addr,
        "rows = list(c.table('t').scan()); assert len(rows) == 1000, len(rows); \
         assert rows[999] == (b'row0999', {b'cf:a': b'999'}); print('PASS')",
    );
}

/// A second server on a directory in use says so and exits.
#[test]
fn a_second_server_on_the_same_directory_is_refused() {
    let first = Server::start(&["--no-rest"]);
    let out = Command::new(env!("CARGO_BIN_EXE_regionkv"))
        .args(["thrift", "start", "-p", "0", "--data"])
        .arg(&first.data)
        .output()
        .unwrap_or_else(|e| panic!("cannot run regionkv: {e}"));
    assert!(!out.status.success());
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(stderr.contains("in use by another process"), "{stderr}");
}

/// `thrift start` and `rest start` print only their own gateway's line.
#[test]
fn hbase_style_commands_start_one_gateway() {
    let dir = tempfile::tempdir().unwrap_or_else(|e| panic!("tempdir: {e}"));
    for (which, expected) in [
        ("thrift", "thrift listening on 127.0.0.1:"),
        ("rest", "rest listening on 127.0.0.1:"),
    ] {
        let mut child = Command::new(env!("CARGO_BIN_EXE_regionkv"))
            .args([which, "start", "-p", "0", "--data"])
            .arg(dir.path().join(which))
            .stdout(Stdio::piped())
            .spawn()
            .unwrap_or_else(|e| panic!("cannot start regionkv {which} start: {e}"));
        let stdout = child.stdout.take().unwrap_or_else(|| panic!("no stdout"));
        let mut line = String::new();
        let _ = BufReader::new(stdout).read_line(&mut line);
        assert!(line.starts_with(expected), "{which}: {line:?}");
        let pid = i32::try_from(child.id()).unwrap_or(i32::MAX);
        // SAFETY: kill(2) with a pid this test started and still owns.
        unsafe {
            libc::kill(pid, libc::SIGINT);
        }
        let status = child.wait().unwrap_or_else(|e| panic!("wait: {e}"));
        assert!(
            status.success(),
            "{which} start exited with {status} on SIGINT"
        );
    }
}

/// Runs a happybase snippet with `c` connected to `addr` (buffered, binary).
fn run_inline(addr: SocketAddr, body: &str) {
    let script = format!(
        "import happybase\nc = happybase.Connection('{}', {})\n{}\n",
        addr.ip(),
        addr.port(),
        body.trim()
    );
    let out = Command::new(python())
        .args(["-c", &script])
        .output()
        .unwrap_or_else(|e| panic!("cannot run python: {e}"));
    let stdout = String::from_utf8_lossy(&out.stdout);
    assert!(
        out.status.success() && stdout.contains("PASS"),
        "happybase snippet failed ({}):\n{script}\n{stdout}\n{}",
        out.status,
        String::from_utf8_lossy(&out.stderr)
    );
}
