//! Concurrency stress (RELIABILITY.md, issue 10): eight writers, scanners, readers and an admin
//! thread on one `Db` at once, with the background flusher, compactions and size-driven
//! splits running under them.
//!
//! Each writer owns its rows and writes each one as an atomic row mutation of three
//! columns in two families carrying the same generation number, counting up. Readers
//! check, on every scan and get:
//! * no torn row: the three columns of a row always carry one generation;
//! * no lost or rolled-back write: a row's generation is at least the one acknowledged
//!   before the read started, and at most the highest one attempted when it ended;
//! * a scan returns rows in strictly ascending order, none twice and none missing (rows
//!   are never deleted, so every row written before the scan started must be in it),
//!   across the splits and merges that happen while it runs.
//!
//! The admin thread flushes, compacts, splits at random rows and merges regions back.
//! At the end the table must equal the model (every row at its last generation), and
//! again after a reopen. `REGIONKV_SOAK=1` runs longer.
//!
//! It runs twice: with memory-mapped storefiles, and with pread through a descriptor cache
//! of 4 (`RealFs::with_max_open_files`), so that reads keep reopening files by path while
//! compactions, splits and merges remove them.

#![allow(clippy::unwrap_used, clippy::expect_used)]

use regionkv::{ColumnFamilyDescriptor, Db, DbOptions, Get, Put, Scan, TableDescriptor};
use regionkv_fs::RealFs;
use regionkv_suite::XorShift;
use std::sync::Arc;
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::time::{Duration, Instant};

/// Eight writers on a 2-core machine: more threads than cores, as a gateway under load
/// has (issue 32), so writers are preempted in the middle of their commit.
const WRITERS: usize = 8;
const ROWS_PER_WRITER: usize = 120;
const COLUMNS: [(&[u8], &[u8]); 3] = [(b"cf", b"a"), (b"cf", b"b"), (b"cg", b"c")];

fn row(writer: usize, i: usize) -> Vec<u8> {
    // Interleave the writers' rows so every region holds rows of every writer.
    format!("row{:05}-w{writer}", i * 7919 % 100_000).into_bytes()
}

fn value(generation: u64) -> Vec<u8> {
    format!("{generation:08}-{}", "x".repeat(80)).into_bytes()
}

fn generation(v: &[u8]) -> u64 {
    std::str::from_utf8(&v[..8]).unwrap().parse().unwrap()
}

/// Per row: the last acknowledged generation and the highest attempted one.
struct Progress {
    acked: Vec<AtomicU64>,
    attempted: Vec<AtomicU64>,
}

impl Progress {
    fn index(writer: usize, i: usize) -> usize {
        writer * ROWS_PER_WRITER + i
    }
}

fn row_index(row: &[u8]) -> usize {
    let s = std::str::from_utf8(row).unwrap();
    let (key, w) = s.split_once("-w").unwrap();
    let writer: usize = w.parse().unwrap();
    let k: usize = key[3..].parse().unwrap();
    // Invert i * 7919 % 100_000 over the writer's rows.
    let i = (0..ROWS_PER_WRITER)
        .find(|i| i * 7919 % 100_000 == k)
        .unwrap();
    Progress::index(writer, i)
}

fn duration() -> Duration {
    if std::env::var_os("REGIONKV_SOAK").is_some() {
        Duration::from_secs(60)
    } else {
        Duration::from_secs(6)
    }
}

fn open(dir: &std::path::Path, fs: &RealFs) -> Db {
    let mut options = DbOptions::default()
        .background(true)
        .fs(Arc::new(fs.clone()));
    options.compaction_check_interval = Duration::from_millis(50);
    Db::open(dir, options).unwrap()
}

/// Checks one row's cells against the progress bounds taken before and after the read.
fn check_row(
    label: &str,
    r: &regionkv::RowResult,
    before: &[u64],
    progress: &Progress,
) -> (usize, u64) {
    let idx = row_index(r.row());
    let gens: Vec<Option<u64>> = COLUMNS
        .iter()
        .map(|(f, q)| r.value(f, q).map(generation))
        .collect();
    let g = gens[0].unwrap_or_else(|| panic!("{label}: row {idx} misses a column: {gens:?}"));
    assert!(
        gens.iter().all(|x| *x == Some(g)),
        "{label}: torn row {idx}: {gens:?}"
    );
    let after = progress.attempted[idx].load(Ordering::SeqCst);
    assert!(
        g >= before[idx] && g <= after,
        "{label}: row {idx} at generation {g}, acknowledged {} before the read, attempted {after} after",
        before[idx]
    );
    (idx, g)
}

#[test]
fn writers_scanners_flushes_compactions_and_splits_at_once() {
    stress(RealFs::new());
}

#[test]
fn the_same_through_a_descriptor_cache_of_four() {
    let fs = RealFs::with_max_open_files(4);
    stress(fs.clone());
    let st = fs.descriptor_stats().unwrap();
    println!("descriptors: {st:?}");
    assert!(st.reopens > 0, "{st:?}");
    // Dropping the Db dropped every reader, and with them every pinned descriptor.
    assert_eq!((st.readers, st.open, st.pinned), (0, 0, 0), "{st:?}");
}

fn stress(fs: RealFs) {
    let dir = tempfile::tempdir().unwrap();
    let db = Arc::new(open(dir.path(), &fs));
    let mut desc = TableDescriptor::new(
        "stress",
        vec![
            ColumnFamilyDescriptor::new(b"cf").unwrap(),
            ColumnFamilyDescriptor::new(b"cg").unwrap(),
        ],
    )
    .unwrap();
    // Small memstores and files: flushes every few hundred writes, splits by size.
    desc.memstore_flush_size = 64 * 1024;
    desc.max_file_size = 256 * 1024;
    db.admin().create_table(&desc).unwrap();

    let progress = Arc::new(Progress {
        acked: (0..WRITERS * ROWS_PER_WRITER)
            .map(|_| AtomicU64::new(0))
            .collect(),
        attempted: (0..WRITERS * ROWS_PER_WRITER)
            .map(|_| AtomicU64::new(0))
            .collect(),
    });
    let stop = Arc::new(AtomicBool::new(false));
    let deadline = Instant::now() + duration();
    let mut threads = Vec::new();

    for w in 0..WRITERS {
        let (db, progress, stop) = (db.clone(), progress.clone(), stop.clone());
        threads.push(std::thread::spawn(move || {
            let t = db.table("stress").unwrap();
            let mut rng = XorShift(0x1234_5678 + w as u64);
            let mut writes = 0u64;
            while !stop.load(Ordering::Relaxed) {
                let i = (rng.next_u64() % ROWS_PER_WRITER as u64) as usize;
                let idx = Progress::index(w, i);
                let g = progress.attempted[idx].load(Ordering::SeqCst) + 1;
                progress.attempted[idx].store(g, Ordering::SeqCst);
                let mut put = Put::new(row(w, i));
                for (f, q) in COLUMNS {
                    put = put.add_column(f, q, value(g));
                }
                t.put(&put).unwrap();
                progress.acked[idx].store(g, Ordering::SeqCst);
                writes += 1;
            }
            writes
        }));
    }

    let mut readers = Vec::new();
    for s in 0..2 {
        let (db, progress, stop) = (db.clone(), progress.clone(), stop.clone());
        readers.push(std::thread::spawn(move || {
            let t = db.table("stress").unwrap();
            let mut rng = XorShift(0x9e37_79b9 + s);
            let (mut scans, mut gets) = (0u64, 0u64);
            while !stop.load(Ordering::Relaxed) {
                let before: Vec<u64> = progress
                    .acked
                    .iter()
                    .map(|a| a.load(Ordering::SeqCst))
                    .collect();
                let label = format!("scan {scans} of reader {s}");
                let mut seen = vec![false; before.len()];
                let mut last: Option<Vec<u8>> = None;
                for r in t.scan(&Scan::new().caching(7)).unwrap() {
                    let r = r.unwrap();
                    if let Some(prev) = &last {
                        assert!(
                            prev.as_slice() < r.row(),
                            "{label}: rows out of order or repeated: {:?} then {:?}",
                            String::from_utf8_lossy(prev),
                            String::from_utf8_lossy(r.row())
                        );
                    }
                    last = Some(r.row().to_vec());
                    let (idx, _) = check_row(&label, &r, &before, &progress);
                    seen[idx] = true;
                }
                for (idx, g) in before.iter().enumerate() {
                    assert!(
                        *g == 0 || seen[idx],
                        "{label}: row {idx} (acknowledged at generation {g}) missing"
                    );
                }
                scans += 1;
                // A few point reads between scans.
                for _ in 0..20 {
                    let w = (rng.next_u64() % WRITERS as u64) as usize;
                    let i = (rng.next_u64() % ROWS_PER_WRITER as u64) as usize;
                    let idx = Progress::index(w, i);
                    let before_one = progress.acked[idx].load(Ordering::SeqCst);
                    let r = t.get(&Get::new(row(w, i))).unwrap();
                    if r.is_empty() {
                        assert_eq!(before_one, 0, "get of row {idx}: acknowledged write lost");
                    } else {
                        let mut snapshot = vec![0; before.len()];
                        snapshot[idx] = before_one;
                        check_row("get", &r, &snapshot, &progress);
                    }
                    gets += 1;
                }
            }
            (scans, gets)
        }));
    }

    // The admin thread: explicit flushes, compactions, splits and merges on top of the
    // background ones.
    let admin_thread = {
        let (db, stop) = (db.clone(), stop.clone());
        std::thread::spawn(move || {
            let admin = db.admin();
            let mut rng = XorShift(0xadd1_7105);
            let (mut splits, mut merges, mut refused) = (0u64, 0u64, 0u64);
            while !stop.load(Ordering::Relaxed) {
                std::thread::sleep(Duration::from_millis(100));
                match rng.next_u64() % 5 {
                    0 => admin.flush("stress").unwrap(),
                    1 => admin.compact("stress").unwrap(),
                    2 => admin.major_compact("stress").unwrap(),
                    3 => {
                        let at = format!("row{:05}", rng.next_u64() % 100_000);
                        // Refused while a region still has references, or at a boundary.
                        match admin.split_at("stress", at.as_bytes()) {
                            Ok(_) => splits += 1,
                            Err(_) => refused += 1,
                        }
                    }
                    _ => {
                        let rs = admin.regions("stress").unwrap();
                        if rs.len() > 2 {
                            let k = (rng.next_u64() % (rs.len() as u64 - 1)) as usize;
                            let pair =
                                [rs[k].encoded_name.as_str(), rs[k + 1].encoded_name.as_str()];
                            match admin.merge_regions(&pair, false) {
                                Ok(_) => merges += 1,
                                Err(_) => refused += 1,
                            }
                        }
                    }
                }
            }
            (splits, merges, refused)
        })
    };

    while Instant::now() < deadline {
        std::thread::sleep(Duration::from_millis(50));
    }
    stop.store(true, Ordering::Relaxed);
    let writes: u64 = threads.into_iter().map(|t| t.join().unwrap()).sum();
    let (mut scans, mut gets) = (0, 0);
    for r in readers {
        let (s, g) = r.join().unwrap();
        scans += s;
        gets += g;
    }
    let (splits, merges, refused) = admin_thread.join().unwrap();
    let regions = db.admin().regions("stress").unwrap().len();

    // The end state is the model: every row at its last acknowledged generation.
    let check_final = |db: &Db, label: &str| {
        let t = db.table("stress").unwrap();
        let mut n = 0;
        for r in t.scan(&Scan::new()).unwrap() {
            let r = r.unwrap();
            let (idx, g) = check_row(label, &r, &vec![0; WRITERS * ROWS_PER_WRITER], &progress);
            assert_eq!(
                g,
                progress.acked[idx].load(Ordering::SeqCst),
                "{label}: row {idx}"
            );
            n += 1;
        }
        let expected = progress
            .acked
            .iter()
            .filter(|a| a.load(Ordering::SeqCst) > 0)
            .count();
        assert_eq!(n, expected, "{label}: row count");
    };
    check_final(&db, "final");
    drop(
        Arc::try_unwrap(db)
            .map_err(|_| ())
            .expect("every thread is joined"),
    );
    let db = open(dir.path(), &fs);
    check_final(&db, "after reopen");
    drop(db);
    println!(
        "stress: {writes} writes, {scans} scans, {gets} gets, {splits} splits and {merges} merges \
         by hand ({refused} refused), {regions} regions at the end"
    );
    assert!(writes > 0 && scans > 0);
}
