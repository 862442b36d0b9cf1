//! Fault-injection sweep and crash matrix over one workload that crosses puts, deletes,
//! atomic row mutations, flushes, a minor and a major compaction, a split and a merge
//! (RELIABILITY.md §3, issue 10).
//!
//! **Sweep.** For every file-system operation N of the workload, every fault kind (EIO on
//! write, short write, ENOSPC, EIO on fsync, failed rename) and both persistences
//! (transient: one failure; persistent: every later operation of that class fails), the
//! workload runs on a `FaultFs` over a `MemFs` with the fault armed at N, stopping at the
//! first operation that fails (a client whose server gave up); then the power is cut
//! (unsynced data dropped) and the Db reopens on the bare file system. Asserted:
//! * open never fails or panics (I5);
//! * the table equals the model of the acknowledged operations, or that model plus the
//!   one failed operation, whole (I1 acknowledged writes, I2 no holes, I3 atomicity,
//!   I4 deletes stay deleted — the model is exact, so a resurrected cell is a mismatch);
//! * after a failed WAL fsync the engine refuses writes until it is reopened;
//! * recovering again after a second crash gives the same table (I6);
//! * the reopened Db takes writes, and they land after the recovered ones.
//!
//! **Crash matrix.** After every operation of the fault-free workload, each crash mode of
//! `MemFs` (drop unsynced data, keep a random prefix, torn last page, drop undurable
//! directory entries, renames durable before data) is applied to a copy of that moment
//! and the Db reopened: it must hold exactly the acknowledged state.
//!
//! Every write is FSYNC_WAL, so "acknowledged" means "on disk" and a power cut may lose
//! nothing acknowledged. `REGIONKV_SOAK=1` widens both (more seeds, every crash mode in
//! the sweep).

#![allow(clippy::unwrap_used, clippy::expect_used)]

use regionkv::{
    ColumnFamilyDescriptor, Db, DbOptions, Delete, ManualClock, Put, RowMutations, Scan,
    TableDescriptor,
};
use regionkv_fs::{CrashMode, FaultFs, FaultKind, Fs, MemFs, Persistence};
use std::collections::BTreeMap;
use std::sync::Arc;

type Model = BTreeMap<(Vec<u8>, Vec<u8>, Vec<u8>), Vec<u8>>;

fn soak() -> bool {
    std::env::var_os("REGIONKV_SOAK").is_some()
}

fn open(fs: Arc<dyn Fs>, clock: &ManualClock) -> regionkv::Result<Db> {
    Db::open(
        "/db",
        DbOptions::default()
            .background(false)
            .clock(Arc::new(clock.clone()))
            .fs(fs),
    )
}

/// A value of about 100 bytes, so that a dozen rows fill several 1 KiB blocks.
fn val(v: &str) -> Vec<u8> {
    format!("{v}-{}", "x".repeat(90)).into_bytes()
}

fn row(i: u32) -> Vec<u8> {
    format!("row{i:04}").into_bytes()
}

/// One step of the workload.
#[derive(Debug, Clone)]
enum Step {
    Put(u32, &'static str),
    /// A row mutation: put cf:a and cg:b, delete cf:q — all or nothing.
    Mutate(u32, &'static str),
    DeleteRow(u32),
    Flush,
    Compact,
    MajorCompact,
    Split(u32),
    /// Merge every region of the table back into one.
    Merge,
    /// Alter the table (family `cf` to VERSIONS 3): every region closes and reopens.
    Alter,
    /// Disable the table, then enable it again.
    DisableEnable,
}

fn workload() -> Vec<Step> {
    use Step::*;
    let mut w = Vec::new();
    for i in 0..12 {
        w.push(Put(i, "one"));
    }
    w.push(Flush);
    for i in 6..16 {
        w.push(Put(i, "two"));
    }
    w.push(DeleteRow(3));
    w.push(Mutate(4, "m1"));
    w.push(Flush);
    w.push(Put(20, "three"));
    w.push(Mutate(7, "m2"));
    w.push(Flush);
    w.push(Compact);
    w.push(DeleteRow(8));
    w.push(Put(3, "back"));
    w.push(Split(10));
    w.push(Put(11, "after-split"));
    w.push(Put(2, "after-split"));
    w.push(MajorCompact);
    w.push(Merge);
    w.push(Mutate(12, "m3"));
    // The closes of an alter and a disable flush what is in the memstore.
    w.push(Alter);
    w.push(Put(13, "four"));
    w.push(DisableEnable);
    w.push(DeleteRow(6));
    w
}

/// What `step` does to the model (the same whether it runs or is replayed).
fn apply(model: &mut Model, step: &Step) {
    let key = |i: u32, f: &[u8], q: &[u8]| (row(i), f.to_vec(), q.to_vec());
    match step {
        Step::Put(i, v) => {
            model.insert(key(*i, b"cf", b"q"), val(v));
            model.insert(key(*i, b"cg", b"q"), val(&format!("{v}-g")));
        }
        Step::Mutate(i, v) => {
            model.insert(key(*i, b"cf", b"a"), val(v));
            model.insert(key(*i, b"cg", b"b"), val(v));
            model.remove(&key(*i, b"cf", b"q"));
        }
        Step::DeleteRow(i) => model.retain(|(r, _, _), _| *r != row(*i)),
        Step::Flush
        | Step::Compact
        | Step::MajorCompact
        | Step::Split(_)
        | Step::Merge
        | Step::Alter
        | Step::DisableEnable => {}
    }
}

fn run(db: &Db, clock: &ManualClock, step: &Step) -> regionkv::Result<()> {
    // Every step at its own millisecond: a delete then covers only what came before it,
    // and a put after it (same row) is newer than the delete marker.
    clock.advance(1);
    let t = db.table("t")?;
    let admin = db.admin();
    match step {
        Step::Put(i, v) => t.put(
            &Put::new(row(*i))
                .add_column(b"cf", b"q", val(v))
                .add_column(b"cg", b"q", val(&format!("{v}-g"))),
        ),
        Step::Mutate(i, v) => t.mutate_row(
            &RowMutations::new(row(*i))
                .add_mutation(
                    Put::new(row(*i))
                        .add_column(b"cf", b"a", val(v))
                        .add_column(b"cg", b"b", val(v)),
                )
                .add_mutation(Delete::new(row(*i)).add_columns(b"cf", b"q")),
        ),
        Step::DeleteRow(i) => t.delete(&Delete::new(row(*i))),
        Step::Flush => admin.flush("t"),
        Step::Compact => admin.compact("t"),
        Step::MajorCompact => admin.major_compact("t"),
        Step::Split(i) => admin.split_at("t", &row(*i)).map(|_| ()),
        Step::Merge => {
            let names: Vec<String> = admin
                .regions("t")?
                .into_iter()
                .map(|r| r.encoded_name)
                .collect();
            let names: Vec<&str> = names.iter().map(String::as_str).collect();
            admin.merge_regions(&names, false).map(|_| ())
        }
        Step::Alter => {
            let mut cf = admin.describe("t")?.families[0].clone();
            cf.set_attribute("VERSIONS", "3")?;
            admin.modify_family("t", cf)
        }
        Step::DisableEnable => {
            admin.disable_table("t")?;
            admin.enable_table("t")
        }
    }
}

fn create(db: &Db) -> regionkv::Result<()> {
    let mut families = Vec::new();
    for f in [&b"cf"[..], b"cg"] {
        let mut cf = ColumnFamilyDescriptor::new(f)?;
        cf.block_size = 1024; // several blocks per file, so splits find a mid-key
        families.push(cf);
    }
    let mut d = TableDescriptor::new("t", families)?;
    d.set_attribute("DURABILITY", "FSYNC_WAL")?;
    // Minor compactions of two files, so the `Compact` step compacts.
    db.admin().create_table(&d)
}

/// The whole table, every cell, through a scan (and so across regions), after a reopen.
/// A disable that committed before a failed enable (or a crash) leaves the table
/// disabled: enable it first.
fn dump(db: &Db) -> Model {
    if !db.admin().is_table_enabled("t").unwrap() {
        db.admin().enable_table("t").unwrap();
    }
    try_dump(db).unwrap()
}

fn try_dump(db: &Db) -> regionkv::Result<Model> {
    let mut m = Model::new();
    for r in db.table("t")?.scan(&Scan::new())? {
        let r = r?;
        for c in r.cells() {
            m.insert(
                (
                    c.row().to_vec(),
                    c.family().to_vec(),
                    c.qualifier().to_vec(),
                ),
                c.value().to_vec(),
            );
        }
    }
    Ok(m)
}

/// Shows the first difference of two models.
fn diff(got: &Model, want: &Model) -> String {
    for (k, v) in want {
        match got.get(k) {
            None => return format!("missing {k:?}"),
            Some(g) if g != v => return format!("{k:?}: got {g:?}, want {v:?}"),
            _ => {}
        }
    }
    for k in got.keys() {
        if !want.contains_key(k) {
            return format!("unexpected {k:?}");
        }
    }
    "equal".into()
}

/// Counts the file-system operations of the fault-free workload (table creation
/// included), so the sweep knows where to stop.
fn count_ops() -> u64 {
    let mem = MemFs::new();
    let fault = Arc::new(FaultFs::new(Arc::new(mem)));
    let clock = ManualClock::new(1_700_000_000_000);
    let db = open(fault.clone(), &clock).unwrap();
    let start = fault.op_count();
    create(&db).unwrap();
    for s in &workload() {
        run(&db, &clock, s).unwrap();
    }
    fault.op_count() - start
}

struct Outcome {
    acked: Model,
    with_failed: Option<Model>,
    failed_step: Option<Step>,
}

/// Runs the workload on `fs` until the first failure.
fn run_until_failure(db: &Db, clock: &ManualClock) -> Outcome {
    let mut acked = Model::new();
    if create(db).is_err() {
        return Outcome {
            acked,
            with_failed: None,
            failed_step: None,
        };
    }
    for s in workload() {
        if run(db, clock, &s).is_ok() {
            apply(&mut acked, &s);
        } else {
            let mut with_failed = acked.clone();
            apply(&mut with_failed, &s);
            return Outcome {
                acked,
                with_failed: Some(with_failed),
                failed_step: Some(s),
            };
        }
    }
    Outcome {
        acked,
        with_failed: None,
        failed_step: None,
    }
}

/// What one sweep run exercised.
#[derive(Default)]
struct Seen {
    injected: bool,
    failed_op: bool,
    refusal_checked: bool,
    failed_step_survived: bool,
}

fn sweep_one(at: u64, kind: FaultKind, persistence: Persistence, crash: CrashMode) -> Seen {
    let mut seen = Seen::default();
    let what = format!("fault {kind:?} ({persistence:?}) at op {at}, crash {crash:?}");
    let mem = MemFs::new();
    let fault = Arc::new(FaultFs::new(Arc::new(mem.clone())));
    let clock = ManualClock::new(1_700_000_000_000);
    let db = open(fault.clone(), &clock).unwrap();
    fault.fail_at(fault.op_count() + at, kind, persistence);
    let out = run_until_failure(&db, &clock);
    seen.injected = fault.faults_injected() > 0;
    seen.failed_op = out.failed_step.is_some();
    let table_exists = db.admin().table_exists("t").unwrap_or(false);
    // A failed WAL fsync is never retried: the engine refuses writes until reopened.
    if kind == FaultKind::EioOnSync
        && matches!(
            out.failed_step,
            Some(Step::Put(..) | Step::Mutate(..) | Step::DeleteRow(..))
        )
        && fault.faults_injected() > 0
    {
        fault.clear_faults();
        let later = db
            .table("t")
            .unwrap()
            .put(&Put::new(row(99)).add_column(b"cf", b"q", b"refused"));
        assert!(
            later.is_err(),
            "{what}: a write after a failed fsync was accepted"
        );
        seen.refusal_checked = true;
    }
    // A failed split, merge, alter, disable or enable rolls back or leaves its regions
    // offline: a live scan (the faults still armed) gives the acknowledged state or fails,
    // and fails at once rather than retrying a region that stays closed until the Db is
    // reopened.
    if matches!(
        out.failed_step,
        Some(Step::Split(_) | Step::Merge | Step::Alter | Step::DisableEnable)
    ) {
        let started = std::time::Instant::now();
        if let Ok(got) = try_dump(&db) {
            assert!(
                got == out.acked,
                "{what}: after the failed {:?} a live scan is not the acknowledged state: {}",
                out.failed_step,
                diff(&got, &out.acked)
            );
        }
        // Not a timing assertion on speed: the retry window is a minute, a scan of this
        // table takes milliseconds, so only a retried offline region comes near it.
        assert!(
            started.elapsed() < regionkv::table::REGION_RETRY_FOR / 2,
            "{what}: the scan after the failed {:?} waited out the region retry",
            out.failed_step
        );
    }
    drop(db);
    mem.crash(crash);
    let db = open(Arc::new(mem.clone()), &clock)
        .unwrap_or_else(|e| panic!("{what}: reopen failed: {e}"));
    if !db.admin().table_exists("t").unwrap() {
        // The fault hit table creation; it must not half exist.
        assert!(
            out.acked.is_empty() && !table_exists || out.failed_step.is_none(),
            "{what}: the table vanished"
        );
        return seen;
    }
    let got = dump(&db);
    seen.failed_step_survived = got != out.acked;
    let ok = got == out.acked || out.with_failed.as_ref() == Some(&got);
    assert!(
        ok,
        "{what}: after {:?} the table is neither the acknowledged state nor it plus the \
         failed step: {}",
        out.failed_step,
        diff(&got, &out.acked)
    );
    // Recovery is idempotent: crash again (nothing new was written) and reopen.
    drop(db);
    mem.crash(CrashMode::DropUnsynced);
    let db = open(Arc::new(mem.clone()), &clock)
        .unwrap_or_else(|e| panic!("{what}: second reopen failed: {e}"));
    assert_eq!(
        dump(&db),
        got,
        "{what}: a second recovery changed the table"
    );
    // The recovered Db takes new writes, and they win over the recovered cells.
    clock.advance(1);
    let t = db.table("t").unwrap();
    t.put(&Put::new(row(0)).add_column(b"cf", b"q", b"new"))
        .unwrap_or_else(|e| panic!("{what}: write after recovery: {e}"));
    let v = dump(&db)
        .get(&(row(0), b"cf".to_vec(), b"q".to_vec()))
        .cloned();
    assert_eq!(v.as_deref(), Some(&b"new"[..]), "{what}");
    seen
}

#[test]
fn every_fault_at_every_io_keeps_acknowledged_writes_and_nothing_else() {
    let total = count_ops();
    assert!(total > 100, "the workload should do real I/O: {total} ops");
    // CI: one crash mode per run, rotated over the five by position and fault, so every
    // mode meets every phase of the workload (a failed catalog fsync followed by a crash
    // that keeps the rename needs `KeepRenamesDropData`). Soak: every mode for every run.
    let crashes_for = |at: u64, k: usize, p: usize| -> Vec<CrashMode> {
        let all = CrashMode::all(7 + at);
        if soak() {
            all.to_vec()
        } else {
            vec![all[(at as usize + k * 2 + p) % all.len()]]
        }
    };
    let (mut runs, mut injected, mut failed, mut refused, mut survived) = (0, 0, 0, 0, 0);
    for at in 0..total + 2 {
        for (k, kind) in FaultKind::ALL.into_iter().enumerate() {
            for (p, persistence) in [Persistence::Transient, Persistence::Persistent]
                .into_iter()
                .enumerate()
            {
                for crash in &crashes_for(at, k, p) {
                    let s = sweep_one(at, kind, persistence, *crash);
                    runs += 1;
                    injected += usize::from(s.injected);
                    failed += usize::from(s.failed_op);
                    refused += usize::from(s.refusal_checked);
                    survived += usize::from(s.failed_step_survived);
                }
            }
        }
    }
    eprintln!(
        "fault sweep: {total} I/O operations, {runs} runs, {injected} with a fault injected, \
         {failed} with a failed step, {refused} refusals after a failed WAL fsync checked, \
         {survived} where the failed step was durable anyway"
    );
    // The sweep is not vacuous: faults hit, steps failed, and fsync refusals were seen.
    assert!(
        injected > runs / 2 && failed > runs / 4,
        "{injected} {failed} of {runs}"
    );
    assert!(refused > 10, "{refused}");
}

#[test]
fn a_crash_after_any_step_in_any_mode_recovers_exactly_the_acknowledged_state() {
    let seeds: Vec<u64> = if soak() {
        (1..=20).collect()
    } else {
        vec![1, 2]
    };
    let steps = workload();
    for seed in seeds {
        // Replay the workload up to each step on a fresh file system, then crash a copy.
        for upto in 0..=steps.len() {
            for mode in CrashMode::all(seed.wrapping_mul(1000) + upto as u64) {
                let mem = MemFs::new();
                let clock = ManualClock::new(1_700_000_000_000);
                let db = open(Arc::new(mem.clone()), &clock).unwrap();
                create(&db).unwrap();
                let mut model = Model::new();
                for s in &steps[..upto] {
                    run(&db, &clock, s).unwrap();
                    apply(&mut model, s);
                }
                drop(db);
                mem.crash(mode);
                let db = open(Arc::new(mem.clone()), &clock).unwrap_or_else(|e| {
                    panic!("crash {mode:?} after step {upto}: reopen failed: {e}")
                });
                let got = dump(&db);
                assert!(
                    got == model,
                    "crash {mode:?} after step {upto} ({:?}): {}",
                    steps.get(upto.wrapping_sub(1)),
                    diff(&got, &model)
                );
            }
        }
    }
}

/// The test table on a fault file system with rows 0..12 put (FSYNC_WAL), the first
/// `flushed` of them flushed, and its model.
fn table_of_12_rows(flushed: u32) -> (MemFs, Arc<FaultFs>, ManualClock, Db, Model) {
    let mem = MemFs::new();
    let fault = Arc::new(FaultFs::new(Arc::new(mem.clone())));
    let clock = ManualClock::new(1_700_000_000_000);
    let db = open(fault.clone(), &clock).unwrap();
    create(&db).unwrap();
    let mut model = Model::new();
    for i in 0..12 {
        let s = Step::Put(i, "v");
        run(&db, &clock, &s).unwrap();
        apply(&mut model, &s);
        if i + 1 == flushed {
            run(&db, &clock, &Step::Flush).unwrap();
        }
    }
    (mem, fault, clock, db, model)
}

/// The catalog commit of a split, failed at each of its file-system operations by an EIO
/// on fsync (the write of `CATALOG.tmp`, then the directory fsync after the rename):
/// * a transient failure of the directory fsync is retried, and the split commits;
/// * a persistent one leaves the commit uncertain: `CatalogUncertain`, later catalog
///   changes refused, the parent's rows failing at once (offline), and after a power cut
///   that keeps or loses the rename the Db opens with parent or daughters and every row.
#[test]
fn a_split_whose_catalog_fsync_fails_commits_rolls_back_or_is_uncertain() {
    let (mut retried, mut uncertain) = (0, 0);
    for persistence in [Persistence::Transient, Persistence::Persistent] {
        for crash in [CrashMode::DropUnsynced, CrashMode::KeepRenamesDropData] {
            for at in 0..40 {
                let (mem, fault, clock, db, model) = table_of_12_rows(12);
                fault.fail_at(fault.op_count() + at, FaultKind::EioOnSync, persistence);
                let what = format!("{persistence:?} fsync failure at split op {at}, {crash:?}");
                let split = db.admin().split_at("t", &row(6));
                let injected = fault.faults_injected() > 0;
                match &split {
                    Ok(_) if injected => retried += 1,
                    Ok(_) => {}
                    Err(regionkv::Error::CatalogUncertain { .. }) => {
                        uncertain += 1;
                        assert_eq!(persistence, Persistence::Persistent, "{what}");
                        // No further catalog change until reopened.
                        let again = db.admin().create_namespace("later");
                        assert!(
                            matches!(again, Err(regionkv::Error::CatalogUncertain { .. })),
                            "{what}: {again:?}"
                        );
                        // The parent stays offline: its rows fail (at once).
                        let get = db.table("t").unwrap().get(&regionkv::Get::new(row(3)));
                        assert!(get.is_err(), "{what}: the offline parent served");
                    }
                    Err(_) => {}
                }
                drop(db);
                mem.crash(crash);
                let db = open(Arc::new(mem.clone()), &clock)
                    .unwrap_or_else(|e| panic!("{what}: reopen failed: {e} (split: {split:?})"));
                assert_eq!(dump(&db), model, "{what}");
                let regions = db.admin().regions("t").unwrap().len();
                assert!(regions == 1 || regions == 2, "{what}: {regions} regions");
                if split.is_ok() {
                    assert_eq!(regions, 2, "{what}: an acknowledged split rolled back");
                }
            }
        }
    }
    assert!(retried > 0, "no directory fsync was retried into a commit");
    assert!(uncertain > 0, "no commit was left uncertain");
}

/// A region poisoned by a failed flush holds acknowledged edits only in its memstore and
/// the WAL. Closing it for a disable, an alter or a split must fail (its files are not
/// complete) and leave it offline; the edits come back when the Db reopens and replays
/// the WAL. Before the fix, the close of a poisoned region reported success: a disable
/// then enable reopened it empty, and a split committed daughters without the edits.
#[test]
fn a_poisoned_region_with_unflushed_edits_is_never_reopened_or_split_without_them() {
    type Change = fn(&Db) -> regionkv::Result<()>;
    let changes: [(&str, Change); 3] = [
        ("disable", |db| db.admin().disable_table("t")),
        ("alter", |db| {
            let mut cf = db.admin().describe("t")?.families[0].clone();
            cf.set_attribute("VERSIONS", "3")?;
            db.admin().modify_family("t", cf)
        }),
        ("split", |db| db.admin().split_at("t", &row(6)).map(|_| ())),
    ];
    for (name, change) in changes {
        // Rows 0..6 flushed, 6..12 only in the memstore (and the WAL).
        let (mem, fault, clock, db, model) = table_of_12_rows(6);
        // The next flush fails at its first write: the region is poisoned with rows 6..12
        // in its memstore only.
        fault.fail_at(
            fault.op_count(),
            FaultKind::EioOnWrite,
            Persistence::Transient,
        );
        assert!(run(&db, &clock, &Step::Flush).is_err(), "{name}: flush");
        assert!(fault.faults_injected() > 0, "{name}");
        // Reads still see everything acknowledged.
        assert_eq!(dump(&db), model, "{name}: before the change");
        let r = change(&db);
        assert!(
            r.is_err(),
            "{name}: closing a poisoned region with edits succeeded"
        );
        // Twice: a second attempt must not find the region "closed cleanly".
        assert!(change(&db).is_err(), "{name}: the second attempt succeeded");
        // Offline: reads of it fail at once instead of answering without the edits.
        let started = std::time::Instant::now();
        if let Ok(got) = try_dump(&db) {
            assert_eq!(got, model, "{name}: a live scan lost edits");
        }
        assert!(
            started.elapsed() < regionkv::table::REGION_RETRY_FOR / 2,
            "{name}: the scan waited out the region retry"
        );
        // A clean shutdown reports the edits it could not flush; the next open replays.
        assert!(db.close().is_err(), "{name}: close hid the unflushed edits");
        drop(db);
        let db = open(Arc::new(mem.clone()), &clock).unwrap();
        assert_eq!(dump(&db), model, "{name}: after reopen");
        assert_eq!(db.admin().regions("t").unwrap().len(), 1, "{name}");
    }
}
