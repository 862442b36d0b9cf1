//! Crash test of splits and merges with real processes and real files (RELIABILITY.md T3,
//! issue 7's "a kill at any step leaves either the parent or both daughters serving every
//! row exactly once").
//!
//! A child process (this test binary, re-run with `REGIONKV_SPLIT_CHILD` set) opens a Db
//! with background flushes, compactions and splits on a table with a 16 KiB flush size and
//! a 192 KiB MAX_FILESIZE, so the stepping policy splits it again and again; it writes rows
//! spread over the key space, printing `ACK <n>` after each acknowledged put, and every few
//! hundred rows merges the first two regions when it can. The parent kills it with SIGKILL
//! after a random delay — during writes, flushes, compactions, splits and merges — then
//! reopens the Db in-process and checks through a forward and a reversed scan:
//!
//! 1. every acknowledged row is present, once, with its value;
//! 2. no row appears that was never attempted;
//! 3. the regions cover the key space without gaps or overlaps.
//!
//! Rounds: 4, or a fifth of `REGIONKV_CRASH_ITERATIONS` (the soak command sets it).

#![allow(clippy::unwrap_used, clippy::expect_used)]

use regionkv::{ColumnFamilyDescriptor, Db, DbOptions, Put, Scan, TableDescriptor};
use regionkv_suite::{ChildRun, XorShift, run_and_kill_child};
use std::collections::BTreeSet;
use std::io::Write;
use std::path::Path;
use std::time::Duration;

const CHILD_ENV: &str = "REGIONKV_SPLIT_CHILD";
/// The first write number of a child run: every write below it was attempted before
/// (rewriting a row that a killed child may have written is harmless: same value).
const START_ENV: &str = "REGIONKV_SPLIT_START";

/// Row of write `n`: a hashed prefix spreads writes over every region.
fn row_key(n: u64) -> Vec<u8> {
    let h = n.wrapping_mul(0x9E37_79B9_7F4A_7C15) >> 48;
    format!("{h:04x}-{n:010}").into_bytes()
}

fn value(n: u64) -> Vec<u8> {
    format!("value-{n}-{}", "x".repeat(80)).into_bytes()
}

fn open(dir: &Path, background: bool) -> Db {
    let db = Db::open(dir, DbOptions::default().background(background)).unwrap();
    if !db.admin().table_exists("t").unwrap() {
        let mut f = ColumnFamilyDescriptor::new(b"cf").unwrap();
        f.block_size = 1024;
        let mut t = TableDescriptor::new("t", vec![f]).unwrap();
        t.memstore_flush_size = 16 << 10;
        t.max_file_size = 192 << 10;
        db.admin().create_table(&t).unwrap();
    }
    db
}

/// Every row of the table (checked in both scan directions), as write numbers.
fn recovered(db: &Db) -> Vec<u64> {
    let t = db.table("t").unwrap();
    let mut rows = Vec::new();
    let mut prev: Option<Vec<u8>> = None;
    for r in t.scan(&Scan::new()).unwrap() {
        let r = r.unwrap();
        let key = r.row().to_vec();
        assert!(
            prev.as_ref().is_none_or(|p| *p < key),
            "rows out of order or repeated"
        );
        let n: u64 = std::str::from_utf8(&key[5..]).unwrap().parse().unwrap();
        assert_eq!(r.value(b"cf", b"q"), Some(value(n).as_slice()), "row {n}");
        rows.push(n);
        prev = Some(key);
    }
    let back = t.scan(&Scan::new().reversed(true)).unwrap().count();
    assert_eq!(back, rows.len(), "reversed scan");
    // The regions tile the key space.
    let regions = db.admin().regions("t").unwrap();
    assert!(regions.first().unwrap().start_key.is_empty());
    assert!(regions.last().unwrap().end_key.is_empty());
    for w in regions.windows(2) {
        assert_eq!(
            w[0].end_key, w[1].start_key,
            "gap or overlap between regions"
        );
    }
    rows
}

#[test]
fn split_crash_child() {
    let Ok(dir) = std::env::var(CHILD_ENV) else {
        return; // not a child run
    };
    let db = open(Path::new(&dir), true);
    let start: u64 = std::env::var(START_ENV).unwrap().parse().unwrap();
    let t = db.table("t").unwrap();
    let mut out = std::io::stdout().lock();
    writeln!(out, "START {start}").unwrap();
    out.flush().unwrap();
    for n in start.. {
        t.put(&Put::new(row_key(n)).add_column(b"cf", b"q", value(n)))
            .unwrap();
        writeln!(out, "ACK {n}").unwrap();
        out.flush().unwrap();
        if n % 700 == 699 {
            let regions = db.admin().regions("t").unwrap();
            if regions.len() > 2 {
                // Fails while either still has references; that is fine.
                let _ = db
                    .admin()
                    .merge_regions(&[&regions[0].encoded_name, &regions[1].encoded_name], false);
            }
        }
    }
}

/// Rounds: 4, or a fifth of `REGIONKV_CRASH_ITERATIONS` (a round here reopens a whole
/// table that has split into a hundred regions and more, and checks every row twice).
fn iterations() -> u64 {
    std::env::var("REGIONKV_CRASH_ITERATIONS")
        .ok()
        .and_then(|s| s.parse::<u64>().ok())
        .map_or(4, |n| (n / 5).max(4))
}

#[test]
fn kills_during_splits_and_merges_lose_or_duplicate_nothing() {
    let dir = tempfile::tempdir().unwrap();
    let mut rng = XorShift(0x5eed_0007);
    let mut acked: BTreeSet<u64> = BTreeSet::new();
    let mut attempted_max = 0u64;
    let mut most_regions = 0;
    // The child needs a moment to open the Db (WAL replay, regions on references), more
    // as the table grows: a round whose child was killed before it opened moves the base
    // delay up, so rounds keep landing in the writes, splits and merges.
    let mut base = 600;
    let mut unopened = 0;
    for round in 0..iterations() {
        let delay = base + rng.next_u64() % 800;
        let ChildRun { start, acks } = run_and_kill_child(
            "split_crash_child",
            &[
                (CHILD_ENV, dir.path().display().to_string()),
                (START_ENV, attempted_max.to_string()),
            ],
            Duration::from_millis(delay),
        );
        if let Some(s) = start {
            assert_eq!(s, attempted_max);
        } else {
            unopened += 1;
            base += 400;
        }
        // The write after the last acknowledged one may have reached the WAL; with no
        // acknowledgement, the child's first write (its start) may have.
        let attempted = match (acks.last(), start) {
            (Some(n), _) => n + 2,
            (None, Some(s)) => s + 1,
            (None, None) => attempted_max,
        };
        attempted_max = attempted_max.max(attempted);
        acked.extend(acks.iter().copied());

        let db = open(dir.path(), false);
        let rows = recovered(&db);
        let regions = db.admin().regions("t").unwrap().len();
        most_regions = most_regions.max(regions);
        db.close().unwrap();
        drop(db);
        eprintln!(
            "round {round}: delay {delay} ms, start {start:?}, {} acks, {} rows, {regions} regions ({unopened} rounds so far killed before the open finished)",
            acks.len(),
            rows.len()
        );
        let present: BTreeSet<u64> = rows.iter().copied().collect();
        assert_eq!(
            present.len(),
            rows.len(),
            "round {round}: a row appears twice"
        );
        for n in &acked {
            assert!(
                present.contains(n),
                "round {round}: acknowledged row {n} lost"
            );
        }
        for n in &present {
            assert!(
                *n < attempted_max,
                "round {round}: row {n} was never written"
            );
        }
    }
    assert!(
        acked.len() > 1000,
        "the child made progress: {} acks",
        acked.len()
    );
    assert!(
        most_regions >= 3,
        "the table split: at most {most_regions} regions"
    );
}
