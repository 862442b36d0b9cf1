//! Whitebox and blackbox process-kill tests of a whole `Db` (RELIABILITY.md T3/T4, issue
//! 10): a child process (this test binary, re-run with `CP_CHILD` set) runs a fixed
//! script — puts, deletes, flushes, a minor compaction, a split, major compactions, a
//! merge and a WAL roll, three rounds of it — printing `ACK <i>` after each step and
//! `SEQ <s>` (the highest region sequence id) after each write.
//!
//! **Whitebox.** For every crash point of [`regionkv::crash_points::ALL`], a census run
//! counts how often the script reaches it; then the child is run with the point armed
//! (`fail::cfg_callback`) to exit the process at its first, middle and last hit — no
//! destructor runs, no buffer is flushed, exactly as if killed there. Recovery points are
//! reached by killing a writer mid-script and then killing three opens in a row at the
//! point. A point the script never reaches fails the test.
//!
//! **Blackbox.** The child is SIGKILLed after a random delay, some before its open
//! finished; the next child continues where the last one stopped.
//!
//! After every crash the parent reopens the Db and checks the invariants of
//! docs/reliability.md: the table is exactly the model of the acknowledged steps, or of
//! those plus the step in flight (I1, I2, I4); each row's two families agree (I3); open
//! succeeds (I5); a second open gives the same table (I6); the highest sequence id is
//! not below any the child printed (I8); a split or merge in flight is rolled back before
//! its catalog commit and forward after it, and no uncommitted child directory survives.
//! Then a clean child finishes the script and the final table is checked again.

#![allow(clippy::unwrap_used, clippy::expect_used)]

use regionkv::{
    ColumnFamilyDescriptor, Db, DbOptions, Delete, Durability, Put, Scan, TableDescriptor,
};
use regionkv_suite::XorShift;
use std::collections::{BTreeMap, BTreeSet};
use std::io::{BufRead, BufReader, Write};
use std::path::Path;
use std::process::{Command, Stdio};
use std::sync::Arc;
use std::sync::atomic::{AtomicU64, Ordering};
use std::time::{Duration, Instant};

const CHILD_ENV: &str = "CP_CHILD";
const DIR_ENV: &str = "CP_DIR";
const POINT_ENV: &str = "CP_POINT";
const HIT_ENV: &str = "CP_HIT";
const START_ENV: &str = "CP_START";
const CENSUS_ENV: &str = "CP_CENSUS";
/// The exit code of a child that stopped itself at a crash point.
const DIED: i32 = 77;
const TABLE: &str = "t";

/// One step of the script.
#[derive(Debug, Clone, Copy)]
enum Op {
    Create,
    /// Row `r` gets value `v<i>` in both families (`i`: the step's index).
    Put(u32),
    DeleteRow(u32),
    Flush,
    Compact,
    Major,
    SplitAt(u32),
    MergeAll,
    RollWal,
    /// Family `cf` gets VERSIONS n (an alter: every region closes and reopens).
    Alter(u32),
    /// Disable, then enable (a crash between leaves the table disabled).
    DisableEnable,
    /// Disable if enabled, then truncate (one region, no data).
    Truncate,
    /// Disable and drop the table, then create it again (one region, no data).
    Recreate,
    /// Create a namespace, change its properties, drop it (no data).
    Namespace,
    /// Bulk-load rows `bulk_rows(n)` with value `v<i>` in both families (one table-wide
    /// commit: all rows or none).
    BulkLoad(u32),
    /// Snapshot `s<n>` of the table, clone it as `c<n>`, restore the table from it
    /// (disable, restore, enable), delete it: the table's rows and region count are what
    /// they were, its regions new ones on the snapshot's linked files.
    SnapshotRestore(u32),
}

/// The rows a `BulkLoad(n)` writes, ascending.
fn bulk_rows(n: u32) -> Vec<u32> {
    let mut rows: Vec<u32> = (0..6u32).map(|j| (n * 11 + j * 19) % 100).collect();
    rows.sort_unstable();
    rows.dedup();
    rows
}

fn row(r: u32) -> Vec<u8> {
    format!("r{r:03}").into_bytes()
}

fn text(b: &[u8]) -> String {
    String::from_utf8_lossy(b).into_owned()
}

fn script() -> Vec<Op> {
    let mut s = vec![Op::Create];
    for round in 0..3u32 {
        for batch in 0..3u32 {
            for j in 0..10u32 {
                s.push(Op::Put((round * 31 + batch * 7 + j * 13) % 100));
                // A roll with unflushed edits in the old log: the next flush is what
                // lets that log go.
                if batch == 1 && j == 4 {
                    s.push(Op::RollWal);
                }
            }
            s.push(Op::DeleteRow((round * 17 + batch * 5) % 100));
            s.push(Op::Flush);
        }
        s.push(Op::Compact);
        s.push(Op::SplitAt(30 + round * 20));
        s.push(Op::Major);
        s.push(Op::MergeAll);
        s.push(Op::Major);
        s.push(Op::RollWal);
        // The other transitions, each with data on both sides of it.
        s.push(Op::Alter(round + 2));
        s.push(Op::BulkLoad(round));
        s.push(Op::SnapshotRestore(round));
        s.push(Op::DisableEnable);
        match round {
            1 => s.push(Op::Truncate),
            2 => {
                s.push(Op::Recreate);
                s.push(Op::Namespace);
            }
            _ => {}
        }
        for j in 0..4u32 {
            s.push(Op::Put((round * 3 + j * 29) % 100));
        }
    }
    s.push(Op::Flush);
    s
}

/// How many times the steps before `k` replaced the table by an empty one (a truncate,
/// a drop and create): sequence ids are per region, so they start again.
fn generation(script: &[Op], k: usize) -> usize {
    script[..k]
        .iter()
        .filter(|op| matches!(op, Op::Truncate | Op::Recreate | Op::SnapshotRestore(_)))
        .count()
}

/// Row → value (both families), as text for readable failures.
type Model = BTreeMap<String, String>;

/// The table after the first `k` steps, and how many regions it has.
fn model(script: &[Op], k: usize) -> (Model, usize) {
    let mut m = Model::new();
    let mut regions = 1;
    for (i, op) in script[..k].iter().enumerate() {
        match op {
            Op::Put(r) => {
                m.insert(text(&row(*r)), format!("v{i}"));
            }
            Op::DeleteRow(r) => {
                m.remove(&text(&row(*r)));
            }
            Op::BulkLoad(n) => {
                for r in bulk_rows(*n) {
                    m.insert(text(&row(r)), format!("v{i}"));
                }
            }
            Op::SplitAt(_) => regions += 1,
            Op::MergeAll => regions = 1,
            Op::Truncate | Op::Recreate => {
                m.clear();
                regions = 1;
            }
            _ => {}
        }
    }
    (m, regions)
}

fn options() -> DbOptions {
    let mut o = DbOptions::default().background(false);
    // The WAL's background syncer runs a round whenever its interval finds written but
    // unsynced bytes (every SYNC_WAL put leaves some): how many such rounds a run has
    // depends on how long it takes, and the hit numbers of the WAL's crash points with it.
    // The script writes no ASYNC_WAL edit, so the syncer has nothing of its own to do:
    // an interval longer than any run keeps the census and the kills counting alike.
    o.wal.async_sync_interval = Duration::from_secs(3600);
    o
}

fn max_seq(db: &Db) -> u64 {
    db.admin()
        .regions(TABLE)
        .map(|rs| rs.iter().map(|r| r.sequence_id).max().unwrap_or(0))
        .unwrap_or(0)
}

fn run_op(db: &Db, i: usize, op: Op) -> regionkv::Result<()> {
    let admin = db.admin();
    let create = || -> regionkv::Result<()> {
        if !admin.table_exists(TABLE)? {
            let families = vec![
                ColumnFamilyDescriptor::new(b"cf")?,
                ColumnFamilyDescriptor::new(b"cg")?,
            ];
            admin.create_table(&TableDescriptor::new(TABLE, families)?)?;
        }
        Ok(())
    };
    let disable = || -> regionkv::Result<()> {
        if admin.is_table_enabled(TABLE)? {
            admin.disable_table(TABLE)?;
        }
        Ok(())
    };
    // Every step is written so that re-running it after a crash that committed it
    // without acknowledging it does what it would have done (see `model`).
    match op {
        Op::Create => create()?,
        Op::Put(r) => {
            let v = format!("v{i}");
            // Every other put is FSYNC_WAL, the rest SYNC_WAL (the default): both reach
            // the OS before the acknowledgement, which is all a process kill tests.
            let durability = if i.is_multiple_of(2) {
                Durability::FsyncWal
            } else {
                Durability::SyncWal
            };
            db.table(TABLE)?.put(
                &Put::new(row(r))
                    .add_column(b"cf", b"q", v.clone())
                    .add_column(b"cg", b"q", v)
                    .durability(durability),
            )?;
        }
        Op::DeleteRow(r) => db.table(TABLE)?.delete(&Delete::new(row(r)))?,
        // Loaded cells need a timestamp; now is at or after every earlier put's, and a
        // loaded cell's sequence id beats an earlier write at an equal one.
        Op::BulkLoad(n) => {
            let v = format!("v{i}");
            let ts = regionkv::Clock::now_millis(&regionkv::SystemClock);
            let family = |f: &'static [u8]| {
                let cells: Vec<regionkv::Cell> = bulk_rows(n)
                    .into_iter()
                    .map(|r| regionkv::Cell::put(&row(r), f, b"q", ts, v.as_bytes()).unwrap())
                    .collect();
                regionkv::FamilyCells::new(f, cells)
            };
            admin.bulk_load(TABLE, vec![family(b"cf"), family(b"cg")])?;
        }
        Op::Flush => admin.flush(TABLE)?,
        Op::Compact => admin.compact(TABLE)?,
        Op::Major => admin.major_compact(TABLE)?,
        // A step re-run after a crash that committed it without acknowledging it is a
        // no-op, like the puts and deletes.
        Op::SplitAt(r) => {
            if !admin.splits(TABLE)?.contains(&row(r)) {
                admin.split_at(TABLE, &row(r))?;
            }
        }
        Op::MergeAll => {
            let rs = admin.regions(TABLE)?;
            if rs.len() > 1 {
                let names: Vec<&str> = rs.iter().map(|r| r.encoded_name.as_str()).collect();
                admin.merge_regions(&names, false)?;
            }
        }
        Op::RollWal => admin.roll_wal_writer()?,
        Op::Alter(versions) => {
            let mut desc = admin.describe(TABLE)?;
            desc.families[0].max_versions = versions;
            admin.modify_table(&desc)?;
        }
        Op::DisableEnable => {
            disable()?;
            admin.enable_table(TABLE)?;
        }
        Op::Truncate => {
            disable()?;
            admin.truncate_table(TABLE, false)?;
        }
        Op::Recreate => {
            if admin.table_exists(TABLE)? {
                disable()?;
                admin.delete_table(TABLE)?;
            }
            create()?;
        }
        Op::SnapshotRestore(n) => {
            let name = format!("s{n}");
            let exists = admin.list_snapshots()?.iter().any(|d| d.name == name);
            if !exists {
                admin.snapshot(&name, TABLE)?;
            }
            let clone = format!("c{n}");
            if !admin.table_exists(&clone)? {
                admin.clone_snapshot(&name, &clone)?;
            }
            disable()?;
            admin.restore_snapshot(&name)?;
            admin.enable_table(TABLE)?;
            admin.delete_snapshot(&name)?;
        }
        Op::Namespace => {
            if !admin.list_namespaces()?.iter().any(|n| n == "ns") {
                admin.create_namespace("ns")?;
            }
            let props = BTreeMap::from([("owner".to_string(), "crash".to_string())]);
            admin.modify_namespace("ns", props)?;
            admin.drop_namespace("ns")?;
        }
    }
    Ok(())
}

/// The child: arm the crash point (if any), open, run the script from `CP_START`.
#[test]
fn crash_points_child() {
    if std::env::var_os(CHILD_ENV).is_none() {
        return; // not a child run
    }
    let dir = std::env::var(DIR_ENV).unwrap();
    let start: usize = std::env::var(START_ENV).unwrap().parse().unwrap();
    let census = std::env::var_os(CENSUS_ENV).is_some();
    let mut counters = Vec::new();
    if census {
        for (name, _) in regionkv::crash_points::ALL {
            let n = Arc::new(AtomicU64::new(0));
            let c = n.clone();
            fail::cfg_callback(*name, move || {
                c.fetch_add(1, Ordering::Relaxed);
            })
            .unwrap();
            counters.push((*name, n));
        }
    } else if let Ok(point) = std::env::var(POINT_ENV) {
        let hit: u64 = std::env::var(HIT_ENV).unwrap().parse().unwrap();
        let n = AtomicU64::new(0);
        let name = point.clone();
        fail::cfg_callback(&point, move || {
            if n.fetch_add(1, Ordering::Relaxed) + 1 == hit {
                let mut out = std::io::stdout().lock();
                let _ = writeln!(out, "DIE {name}");
                let _ = out.flush();
                // No unwinding, no destructor: what is on disk is what a kill leaves.
                std::process::exit(DIED);
            }
        })
        .unwrap();
    }
    let mut out = std::io::stdout().lock();
    let db = Db::open(&dir, options()).unwrap();
    writeln!(out, "OPENED").unwrap();
    out.flush().unwrap();
    let script = script();
    for (i, op) in script.iter().enumerate().skip(start) {
        if let Err(e) = run_op(&db, i, *op) {
            writeln!(out, "ERR {i} {op:?}: {e}").unwrap();
            out.flush().unwrap();
            std::process::exit(3);
        }
        writeln!(out, "ACK {i}").unwrap();
        if matches!(op, Op::Put(_) | Op::DeleteRow(_)) {
            writeln!(out, "SEQ {} {}", generation(&script, i), max_seq(&db)).unwrap();
        }
        out.flush().unwrap();
    }
    for (name, n) in counters {
        writeln!(out, "HITS {name} {}", n.load(Ordering::Relaxed)).unwrap();
    }
    writeln!(out, "DONE").unwrap();
    out.flush().unwrap();
}

/// What a child printed and how it ended.
#[derive(Debug, Default)]
struct Child {
    opened: bool,
    acks: Vec<usize>,
    /// (table generation, sequence id) pairs.
    seqs: Vec<(usize, u64)>,
    died_at: Option<String>,
    hits: BTreeMap<String, u64>,
    done: bool,
    exit: Option<i32>,
    errors: Vec<String>,
}

/// Runs the child with `envs`, killing it after `kill_after` if given.
fn spawn(dir: &Path, start: usize, envs: &[(&str, String)], kill_after: Option<Duration>) -> Child {
    let mut cmd = Command::new(std::env::current_exe().unwrap());
    cmd.args([
        "--exact",
        "crash_points_child",
        "--nocapture",
        "--test-threads=1",
    ])
    .stdout(Stdio::piped())
    .stderr(Stdio::null())
    .env(CHILD_ENV, "1")
    .env(DIR_ENV, dir)
    .env(START_ENV, start.to_string());
    for (k, v) in envs {
        cmd.env(k, v);
    }
    let mut child = cmd.spawn().unwrap();
    let stdout = child.stdout.take().unwrap();
    let reader = std::thread::spawn(move || {
        let mut c = Child::default();
        for line in BufReader::new(stdout).lines() {
            let Ok(line) = line else { break };
            // libtest prints `test crash_points_child ... ` before the test's own output.
            for (tag, i) in ["OPENED", "ACK ", "SEQ ", "DIE ", "HITS ", "DONE", "ERR "]
                .iter()
                .filter_map(|t| line.find(t).map(|i| (*t, i)))
            {
                let rest = line[i + tag.len()..].trim();
                match tag {
                    "OPENED" => c.opened = true,
                    "ACK " => c.acks.push(rest.parse().unwrap()),
                    "SEQ " => {
                        let (g, s) = rest.split_once(' ').unwrap();
                        c.seqs.push((g.parse().unwrap(), s.parse().unwrap()));
                    }
                    "DIE " => c.died_at = Some(rest.to_string()),
                    "HITS " => {
                        let (name, n) = rest.split_once(' ').unwrap();
                        c.hits.insert(name.to_string(), n.parse().unwrap());
                    }
                    "DONE" => c.done = true,
                    _ => c.errors.push(rest.to_string()),
                }
            }
        }
        c
    });
    let status = match kill_after {
        Some(d) => {
            let deadline = Instant::now() + d;
            loop {
                if let Some(s) = child.try_wait().unwrap() {
                    break s;
                }
                if Instant::now() >= deadline {
                    child.kill().unwrap();
                    break child.wait().unwrap();
                }
                std::thread::sleep(Duration::from_millis(1));
            }
        }
        None => child.wait().unwrap(),
    };
    let mut c = reader.join().unwrap();
    c.exit = status.code();
    assert!(c.errors.is_empty(), "the child failed: {:?}", c.errors);
    c
}

/// What the parent knows across children of one directory.
struct Run<'a> {
    script: &'a [Op],
    /// Steps known applied (the last acknowledged one + 1).
    applied: usize,
    /// The highest sequence id a child printed, with its table generation.
    seq: (usize, u64),
    label: String,
}

impl Run<'_> {
    /// Takes in what a child printed.
    fn absorb(&mut self, c: &Child) {
        if let Some(&last) = c.acks.last() {
            assert!(
                last + 1 >= self.applied,
                "{}: acks went backwards",
                self.label
            );
            self.applied = last + 1;
        }
        for &(g, s) in &c.seqs {
            assert!(
                g > self.seq.0 || (g == self.seq.0 && s >= self.seq.1),
                "{}: sequence id {s} of table generation {g} after {:?} (I8)",
                self.label,
                self.seq
            );
            self.seq = (g, s);
        }
    }

    /// Reopens the Db after a crash and checks the invariants; `point` is where the child
    /// stopped, if it stopped itself.
    fn verify(&self, dir: &Path, point: Option<&str>) {
        let label = &self.label;
        let first = read_table(dir, label);
        let second = read_table(dir, label);
        assert_eq!(first.0, second.0, "{label}: a second recovery differs (I6)");
        let (rows, regions, seq) = first;
        // Sequence ids are per region, so only the same table generation compares: not
        // when the step in flight may have made a new one (a truncate, a drop and
        // create), nor when there is no table (a crash inside a drop and create).
        let new_generation = matches!(
            self.script.get(self.applied),
            Some(Op::Truncate | Op::Recreate | Op::SnapshotRestore(_))
        );
        if let Some(seq) = seq
            && !new_generation
            && generation(self.script, self.applied) == self.seq.0
        {
            assert!(
                seq >= self.seq.1,
                "{label}: sequence id {seq} after recovery is below {} printed before (I8)",
                self.seq.1
            );
        }
        let (acked, acked_regions) = model(self.script, self.applied);
        let inflight = (self.applied < self.script.len()).then(|| self.applied + 1);
        let with_inflight = inflight.map(|k| model(self.script, k));
        let matches_acked = rows == acked;
        let matches_inflight = with_inflight.as_ref().is_some_and(|(m, _)| rows == *m);
        assert!(
            matches_acked || matches_inflight,
            "{label}: the table is neither the {} acknowledged steps nor those plus the one \
             in flight ({:?})\n got {rows:?}\n acked {acked:?}",
            self.applied,
            self.script.get(self.applied)
        );
        // A split or merge in flight: rolled back before its commit, forward after it.
        let inflight_regions = with_inflight.as_ref().map(|(_, r)| *r);
        let allowed: Vec<usize> = match point {
            // A transition's points after its catalog commit roll forward, before it back.
            Some(p) if regionkv::crash_points::rolls_forward(p) == Some(true) => {
                inflight_regions.into_iter().collect()
            }
            Some(p) if regionkv::crash_points::rolls_forward(p) == Some(false) => {
                vec![acked_regions]
            }
            _ => {
                let mut v = Vec::new();
                if matches_acked {
                    v.push(acked_regions);
                }
                if matches_inflight {
                    v.extend(inflight_regions);
                }
                v
            }
        };
        assert!(
            allowed.contains(&regions),
            "{label}: {regions} regions after a crash at {point:?}, expected one of {allowed:?}"
        );
    }
}

/// Opens the Db, reads the table (row → value, both families agreeing), the region
/// count and the highest sequence id, checks the table directory holds no uncommitted
/// child, and closes it again.
fn read_table(dir: &Path, label: &str) -> (Model, usize, Option<u64>) {
    let db = Db::open(dir, options()).unwrap_or_else(|e| panic!("{label}: open failed (I5): {e}"));
    let admin = db.admin();
    if !admin.table_exists(TABLE).unwrap() {
        return (Model::new(), 1, None);
    }
    if !admin.is_table_enabled(TABLE).unwrap() {
        // A crash between a disable and its enable (or a truncate's or drop's disable):
        // enabling is what a user would do, and a re-run of the step does it again.
        admin
            .enable_table(TABLE)
            .unwrap_or_else(|e| panic!("{label}: the disabled table does not enable: {e}"));
    }
    let mut rows = Model::new();
    for r in db.table(TABLE).unwrap().scan(&Scan::new()).unwrap() {
        let r = r.unwrap();
        let (cf, cg) = (r.value(b"cf", b"q"), r.value(b"cg", b"q"));
        assert_eq!(
            cf,
            cg,
            "{label}: row {:?} has its families out of step (I3)",
            String::from_utf8_lossy(r.row())
        );
        rows.insert(text(r.row()), text(cf.unwrap()));
    }
    let status = admin.regions(TABLE).unwrap();
    let seq = status.iter().map(|r| r.sequence_id).max();
    // Every directory of the table is a live region or one a live region refers to.
    let table_dir = dir.join("data").join("default").join(TABLE);
    let mut allowed: BTreeSet<String> = BTreeSet::new();
    for r in &status {
        allowed.insert(r.encoded_name.clone());
        let m = regionkv_region::Manifest::read(
            &regionkv_fs::RealFs::new(),
            &table_dir.join(&r.encoded_name),
        )
        .unwrap()
        .unwrap();
        for sm in m.stores.values() {
            for f in &sm.files {
                if let Some(reference) = &f.reference {
                    allowed.insert(reference.region.clone());
                }
            }
        }
    }
    for e in std::fs::read_dir(&table_dir).unwrap() {
        let name = e.unwrap().file_name().to_string_lossy().into_owned();
        if !(allowed.contains(&name) || name.starts_with('.')) {
            let m = regionkv_region::Manifest::read(
                &regionkv_fs::RealFs::new(),
                &table_dir.join(&name),
            );
            let listing: Vec<String> = std::fs::read_dir(table_dir.join(&name))
                .map(|d| {
                    d.filter_map(|e| e.ok())
                        .map(|e| e.file_name().to_string_lossy().into_owned())
                        .collect()
                })
                .unwrap_or_default();
            panic!(
                "{label}: directory {name} of the table is neither a region nor referred to; live {allowed:?}; its manifest {m:?}; entries {listing:?}"
            );
        }
    }
    drop(db);
    (rows, status.len(), seq)
}

fn soak() -> bool {
    std::env::var_os("REGIONKV_SOAK").is_some()
}

fn is_recovery(point: &str) -> bool {
    point.starts_with("recovery-")
}

/// Runs clean children until the script is done, then checks the final table.
fn finish(run: &mut Run<'_>, dir: &Path) {
    let c = spawn(dir, run.applied, &[], None);
    run.absorb(&c);
    assert!(
        c.done,
        "{}: the clean child did not finish: {c:?}",
        run.label
    );
    run.verify(dir, None);
    assert_eq!(run.applied, run.script.len());
}

#[test]
fn every_crash_point_recovers() {
    let script = script();
    // Census: how often the script reaches each point.
    let census_dir = tempfile::tempdir().unwrap();
    let census = spawn(census_dir.path(), 0, &[(CENSUS_ENV, "1".into())], None);
    assert!(census.done, "census run failed: {census:?}");
    let mut kills = 0;
    for (point, what) in regionkv::crash_points::ALL {
        let hits = census.hits.get(*point).copied().unwrap_or(0);
        if is_recovery(point) {
            // Reached only by opening a Db with something to recover: kill a writer
            // half-way, then kill three opens in a row at the point.
            let dir = tempfile::tempdir().unwrap();
            let mut run = Run {
                script: &script,
                applied: 0,
                seq: (0, 0),
                label: format!("{point} ({what})"),
            };
            let writes = census.hits["wal-after-sync"];
            let c = spawn(
                dir.path(),
                0,
                &[
                    (POINT_ENV, "wal-after-sync".into()),
                    (HIT_ENV, (writes / 2).to_string()),
                ],
                None,
            );
            assert_eq!(c.exit, Some(DIED), "{}: {c:?}", run.label);
            run.absorb(&c);
            for attempt in 0..3 {
                let c = spawn(
                    dir.path(),
                    run.applied,
                    &[(POINT_ENV, point.to_string()), (HIT_ENV, "1".into())],
                    None,
                );
                assert_eq!(
                    (c.exit, c.died_at.as_deref(), c.opened),
                    (Some(DIED), Some(*point), false),
                    "{}: open {attempt} did not stop at the point",
                    run.label
                );
                kills += 1;
            }
            run.verify(dir.path(), None);
            finish(&mut run, dir.path());
            continue;
        }
        assert!(
            hits > 0,
            "crash point {point} is never reached by the script"
        );
        // Every hit of a point the script reaches up to 32 times (and of every point
        // under REGIONKV_SOAK); 8 spread over the run of the per-write WAL points.
        let chosen: Vec<u64> = if hits <= 32 || soak() {
            (1..=hits).collect()
        } else {
            let mut v: Vec<u64> = (0..8).map(|i| 1 + i * (hits - 1) / 7).collect();
            v.dedup();
            v
        };
        for hit in chosen {
            let dir = tempfile::tempdir().unwrap();
            let mut run = Run {
                script: &script,
                applied: 0,
                seq: (0, 0),
                label: format!("{point} hit {hit}/{hits} ({what})"),
            };
            let c = spawn(
                dir.path(),
                0,
                &[(POINT_ENV, point.to_string()), (HIT_ENV, hit.to_string())],
                None,
            );
            assert_eq!(
                (c.exit, c.died_at.as_deref()),
                (Some(DIED), Some(*point)),
                "{}: the child did not stop at the point: {c:?}",
                run.label
            );
            kills += 1;
            run.absorb(&c);
            run.verify(dir.path(), Some(point));
            finish(&mut run, dir.path());
        }
    }
    println!(
        "crash points: {} points, {kills} kills, script of {} steps",
        regionkv::crash_points::ALL.len(),
        script.len()
    );
}

fn iterations() -> u64 {
    std::env::var("REGIONKV_CRASH_ITERATIONS")
        .ok()
        .and_then(|s| s.parse().ok())
        .unwrap_or(20)
}

#[test]
fn random_kills_recover() {
    let script = script();
    let seed = 0x5eed_c0de_u64;
    let mut rng = XorShift(seed);
    let mut dir = tempfile::tempdir().unwrap();
    let mut run = Run {
        script: &script,
        applied: 0,
        seq: (0, 0),
        label: String::new(),
    };
    // How long a whole script takes here (debug or release, loaded machine or not), so
    // that kills land all over it.
    let timing = tempfile::tempdir().unwrap();
    let started = Instant::now();
    assert!(spawn(timing.path(), 0, &[], None).done);
    let whole = started.elapsed().as_millis() as u64;
    let (mut during_open, mut kills, mut finished) = (0, 0, 0);
    for round in 0..iterations() {
        // A quarter of the kills in the first twentieth of a run (process start and
        // open), the rest anywhere in it.
        let delay = if rng.next_u64().is_multiple_of(4) {
            rng.next_u64() % (whole / 20).max(1)
        } else {
            rng.next_u64() % whole.max(1)
        };
        run.label = format!("random kill {round} after {delay} ms (seed {seed:#x})");
        let c = spawn(
            dir.path(),
            run.applied,
            &[],
            Some(Duration::from_millis(delay)),
        );
        run.absorb(&c);
        if c.done {
            run.verify(dir.path(), None);
            finished += 1;
            dir = tempfile::tempdir().unwrap();
            run.applied = 0;
            run.seq = (0, 0);
            continue;
        }
        kills += 1;
        if !c.opened {
            during_open += 1;
        }
        run.verify(dir.path(), None);
    }
    println!(
        "random kills: a clean run takes {whole} ms; {kills} kills ({during_open} before the open \
         finished), {finished} scripts finished"
    );
    assert!(kills > 0, "no kill landed");
}
