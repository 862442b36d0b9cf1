//! Shared helpers for regionkv's workspace-level integration tests and benchmarks.
//!
//! The root package exists to own `tests/` and `benches/`; this library is deliberately
//! small so that test files stay self-describing.

/// Marsaglia's xorshift64 with a fixed seed: the same values on every run, no `rand`
/// dependency. Used by benchmarks for key and value streams and by crash tests for kill
/// delays (the seed is printed on failure, so a run replays).
#[derive(Debug, Clone)]
pub struct XorShift(pub u64);

impl XorShift {
    /// The next value (the state must not be 0).
    pub fn next_u64(&mut self) -> u64 {
        let mut x = self.0;
        x ^= x << 13;
        x ^= x >> 7;
        x ^= x << 17;
        self.0 = x;
        x
    }
}

/// Bytes of the benchmark value.
pub const VALUE_LEN: usize = 100;
/// Incompressible bytes at the start of the benchmark value.
pub const RANDOM_PREFIX: usize = 50;

/// A 100-byte value, about half compressible: 50 random bytes, then 50 copies of one byte
/// (the "about half compressible" values of the project's benchmark targets).
pub fn value(rng: &mut XorShift) -> Vec<u8> {
    let mut v = Vec::with_capacity(VALUE_LEN);
    while v.len() < RANDOM_PREFIX {
        v.extend_from_slice(&rng.next_u64().to_be_bytes());
    }
    v.truncate(RANDOM_PREFIX);
    v.resize(VALUE_LEN, b'v');
    v
}

/// The 16-byte benchmark row key of `n` (zero-padded decimal).
pub fn row(n: u64) -> Vec<u8> {
    format!("{n:016}").into_bytes()
}

/// What a killed crash-test child printed: its `START <n>` marker, if it got that far, and
/// every `ACK <n>` in order.
#[derive(Debug, Default)]
pub struct ChildRun {
    /// The first write number the child announced.
    pub start: Option<u64>,
    /// Acknowledged write numbers, in order.
    pub acks: Vec<u64>,
}

/// Runs test `test_name` of the current test binary as a crash-test child with `envs`,
/// SIGKILLs it after `delay`, and returns what it printed. libtest prints
/// `test <name> ... ` without a newline before the test runs, so a marker may follow
/// other text on its line.
// Test harness: a child that cannot be spawned, killed or read is a failed test.
#[allow(clippy::expect_used)]
pub fn run_and_kill_child(
    test_name: &str,
    envs: &[(&str, String)],
    delay: std::time::Duration,
) -> ChildRun {
    use std::io::{BufRead, BufReader};
    use std::process::{Command, Stdio};
    let mut cmd = Command::new(std::env::current_exe().expect("the test binary's path"));
    cmd.args(["--exact", test_name, "--nocapture", "--test-threads=1"])
        .stdout(Stdio::piped())
        .stderr(Stdio::null());
    for (k, v) in envs {
        cmd.env(k, v);
    }
    let mut child = cmd.spawn().expect("spawn the crash-test child");
    let stdout = child.stdout.take().expect("piped stdout");
    let reader = std::thread::spawn(move || {
        let mut run = ChildRun::default();
        for line in BufReader::new(stdout).lines() {
            let Ok(line) = line else { break };
            let number = |at: usize| line[at..].trim().parse::<u64>().expect("a marker number");
            if let Some(i) = line.find("ACK ") {
                run.acks.push(number(i + 4));
            } else if let Some(i) = line.find("START ") {
                run.start = Some(number(i + 6));
            }
        }
        run
    });
    std::thread::sleep(delay);
    child.kill().expect("kill the child");
    child.wait().expect("reap the child");
    reader.join().expect("the child's output reader")
}

/// The value of a `/proc/self/status` field (`"RssAnon:"`, `"VmHWM:"` ...), in KiB. Panics
/// off Linux or on a field the kernel does not print: the memory tests need it.
pub fn status_kib(field: &str) -> u64 {
    let status = std::fs::read_to_string("/proc/self/status")
        .unwrap_or_else(|e| panic!("/proc/self/status: {e}"));
    status
        .lines()
        .find_map(|l| l.strip_prefix(field))
        .and_then(|v| v.trim().trim_end_matches("kB").trim().parse().ok())
        .unwrap_or_else(|| panic!("no {field} in /proc/self/status"))
}

/// An error and every source under it, on one line (`outer <- inner <- ...`).
pub fn error_chain(e: &dyn std::error::Error) -> String {
    let mut s = e.to_string();
    let mut cur = e.source();
    while let Some(c) = cur {
        s.push_str(" <- ");
        s.push_str(&c.to_string());
        cur = c.source();
    }
    s
}
