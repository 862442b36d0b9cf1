//! Region observers (HBase's RegionObserver): loading by `coprocessor$N` spec and
//! registered class, the hooks of every client path, bypass, errors and panics (the region
//! keeps serving), run order, and fresh instances for split daughters and reopened regions.

#![allow(clippy::unwrap_used)]

use parking_lot::Mutex;
use regionkv::coprocessor::{
    CoprocessorError, CoprocessorResult, ObserverContext, RegionEnvironment, RegionObserver,
};
use regionkv::{
    Append, BatchAction, Cell, CheckAndMutate, ColumnFamilyDescriptor, Db, DbOptions, Delete,
    Error, Get, Increment, Put, RowMutations, RowResult, Scan, Table, TableDescriptor,
};
use std::sync::Arc;
use std::sync::atomic::{AtomicUsize, Ordering};

/// What the test observers saw, in order.
type Log = Arc<Mutex<Vec<String>>>;

/// An observer that logs every hook, adds an `audit` column to puts, refuses deletes of
/// row "locked", bypasses puts of row "skip", answers gets of row "virtual" itself, and
/// panics on a put of row "boom".
struct Recorder {
    name: String,
    log: Log,
}

impl Recorder {
    fn note(&self, what: String) {
        self.log.lock().push(format!("{}:{what}", self.name));
    }
}

impl RegionObserver for Recorder {
    fn pre_put(&self, c: &mut ObserverContext<'_>, put: &mut Put) -> CoprocessorResult<()> {
        let row = String::from_utf8_lossy(put.row()).into_owned();
        self.note(format!("pre_put {row}"));
        match row.as_str() {
            "boom" => panic!("observer bug"),
            "skip" => c.bypass(),
            _ => *put = put.clone().add_column("f", "audit", self.name.as_bytes()),
        }
        Ok(())
    }
    fn post_put(&self, _: &mut ObserverContext<'_>, put: &Put) -> CoprocessorResult<()> {
        self.note(format!("post_put {}", String::from_utf8_lossy(put.row())));
        Ok(())
    }
    fn pre_delete(&self, _: &mut ObserverContext<'_>, d: &mut Delete) -> CoprocessorResult<()> {
        self.note(format!("pre_delete {}", String::from_utf8_lossy(d.row())));
        if d.row() == b"locked" {
            return Err(CoprocessorError::new("row is locked"));
        }
        Ok(())
    }
    fn pre_get(
        &self,
        c: &mut ObserverContext<'_>,
        get: &Get,
        result: &mut Vec<Cell>,
    ) -> CoprocessorResult<()> {
        if get.row() == b"virtual" {
            result.push(Cell::put(b"virtual", b"f", b"q", 1, b"made up").unwrap());
            c.bypass();
        }
        Ok(())
    }
    fn post_get(
        &self,
        _: &mut ObserverContext<'_>,
        _: &Get,
        result: &mut Vec<Cell>,
    ) -> CoprocessorResult<()> {
        // Hide the audit column from readers.
        result.retain(|c| c.qualifier() != b"audit");
        Ok(())
    }
    fn pre_scanner_open(
        &self,
        c: &mut ObserverContext<'_>,
        scan: &mut Scan,
    ) -> CoprocessorResult<()> {
        self.note(format!(
            "pre_scanner_open {}",
            String::from_utf8_lossy(&c.environment().start_key)
        ));
        *scan = scan.clone().add_column("f", "q");
        Ok(())
    }
    fn pre_increment(
        &self,
        c: &mut ObserverContext<'_>,
        inc: &mut Increment,
    ) -> CoprocessorResult<Option<RowResult>> {
        if inc.row() == b"frozen" {
            c.bypass();
            return Ok(Some(RowResult::new(vec![
                Cell::put(b"frozen", b"f", b"n", 1, &42i64.to_be_bytes()).unwrap(),
            ])));
        }
        Ok(None)
    }
    fn post_append(
        &self,
        _: &mut ObserverContext<'_>,
        _: &Append,
        result: RowResult,
    ) -> CoprocessorResult<RowResult> {
        self.note(format!("post_append {}", result.len()));
        Ok(result)
    }
    fn pre_check_and_mutate(
        &self,
        _: &mut ObserverContext<'_>,
        check: &CheckAndMutate,
    ) -> CoprocessorResult<Option<regionkv::CheckAndMutateResult>> {
        self.note(format!(
            "pre_check_and_mutate {}",
            String::from_utf8_lossy(check.row())
        ));
        Ok(None)
    }
}

struct Setup {
    db: Db,
    log: Log,
    instances: Arc<AtomicUsize>,
}

fn options(log: &Log, instances: &Arc<AtomicUsize>) -> DbOptions {
    let (l1, l2) = (log.clone(), log.clone());
    let (n1, n2) = (instances.clone(), instances.clone());
    DbOptions::default()
        .background(false)
        .coprocessor("com.example.First", move |_: &RegionEnvironment| {
            n1.fetch_add(1, Ordering::SeqCst);
            Arc::new(Recorder {
                name: "first".into(),
                log: l1.clone(),
            })
        })
        .coprocessor("com.example.Second", move |_: &RegionEnvironment| {
            n2.fetch_add(1, Ordering::SeqCst);
            Arc::new(Recorder {
                name: "second".into(),
                log: l2.clone(),
            })
        })
}

/// A table "t" (family f, split at "m") loading both observers: Second at priority 10 runs
/// before First at the default priority.
fn setup(dir: &std::path::Path) -> Setup {
    let log: Log = Arc::default();
    let instances = Arc::new(AtomicUsize::new(0));
    let db = Db::open(dir, options(&log, &instances)).unwrap();
    let mut desc =
        TableDescriptor::new("t", vec![ColumnFamilyDescriptor::new(b"f").unwrap()]).unwrap();
    desc.add_coprocessor("|com.example.First||").unwrap();
    desc.add_coprocessor("|com.example.Second|10|").unwrap();
    db.admin()
        .create_table_with_splits(&desc, vec![b"m".to_vec()])
        .unwrap();
    Setup { db, log, instances }
}

fn take(log: &Log) -> Vec<String> {
    std::mem::take(&mut *log.lock())
}

#[test]
fn put_hooks_run_in_priority_order_and_may_change_or_bypass_the_put() {
    let dir = tempfile::tempdir().unwrap();
    let s = setup(dir.path());
    let t = s.db.table("t").unwrap();
    t.put(&Put::new("a").add_column("f", "q", "1")).unwrap();
    assert_eq!(
        take(&s.log),
        [
            "second:pre_put a",
            "first:pre_put a",
            "second:post_put a",
            "first:post_put a"
        ]
    );
    // Both pre hooks added their audit column; the last one written wins.
    let raw = t.get(&Get::new("a").add_column("f", "audit")).unwrap();
    assert!(raw.is_empty(), "post_get hides the audit column");
    let scanned: Vec<RowResult> = t
        .scan(&Scan::new().add_family("f"))
        .unwrap()
        .map(|r| r.unwrap())
        .collect();
    assert_eq!(scanned.len(), 1);
    take(&s.log);
    // A bypassed put writes nothing, reports success, and still gets its post hooks.
    t.put(&Put::new("skip").add_column("f", "q", "1")).unwrap();
    assert_eq!(
        take(&s.log),
        [
            "second:pre_put skip",
            "second:post_put skip",
            "first:post_put skip"
        ]
    );
    assert!(t.get(&Get::new("skip")).unwrap().is_empty());
}

#[test]
fn an_error_fails_the_operation_and_a_panic_removes_the_observer() {
    let dir = tempfile::tempdir().unwrap();
    let s = setup(dir.path());
    let t = s.db.table("t").unwrap();
    t.put(&Put::new("locked").add_column("f", "q", "1"))
        .unwrap();
    let e = t.delete(&Delete::new("locked")).unwrap_err();
    assert!(
        matches!(&e, Error::Coprocessor { class, .. } if class == "com.example.Second"),
        "{e:?}"
    );
    assert_eq!(
        e.to_string(),
        "coprocessor com.example.Second: row is locked"
    );
    assert_eq!(
        t.get(&Get::new("locked")).unwrap().len(),
        1,
        "nothing deleted"
    );
    // A panic: the operation fails, the observer leaves that region, the region serves on.
    let e = t
        .put(&Put::new("boom").add_column("f", "q", "1"))
        .unwrap_err();
    assert!(
        matches!(&e, Error::CoprocessorRemoved { class, cause } if class == "com.example.Second" && cause == "observer bug"),
        "{e:?}"
    );
    take(&s.log);
    t.put(&Put::new("boom").add_column("f", "q", "1"))
        .unwrap_err();
    assert_eq!(
        take(&s.log),
        ["first:pre_put boom"],
        "only First is left, and it panics too"
    );
    t.put(&Put::new("boom").add_column("f", "q", "1")).unwrap();
    assert!(take(&s.log).is_empty(), "no observer left in region [, m)");
    assert_eq!(t.get(&Get::new("boom")).unwrap().len(), 1);
    // The other region keeps both.
    t.put(&Put::new("x").add_column("f", "q", "1")).unwrap();
    assert_eq!(take(&s.log).len(), 4);
}

#[test]
fn every_write_path_runs_the_hooks() {
    let dir = tempfile::tempdir().unwrap();
    let s = setup(dir.path());
    let t = s.db.table("t").unwrap();
    t.put_all(&[
        Put::new("a").add_column("f", "q", "1"),
        Put::new("skip").add_column("f", "q", "1"),
    ])
    .unwrap();
    assert!(t.get(&Get::new("skip")).unwrap().is_empty());
    let results = t.batch(&[
        BatchAction::Put(Put::new("b").add_column("f", "q", "1")),
        BatchAction::Delete(Delete::new("locked")),
    ]);
    assert!(results[0].is_ok());
    assert!(matches!(results[1], Err(Error::Coprocessor { .. })));
    {
        let m = t.buffered_mutator();
        m.mutate(Put::new("c").add_column("f", "q", "1")).unwrap();
        m.flush().unwrap();
    }
    t.mutate_row(
        &RowMutations::new("d")
            .add_mutation(Put::new("d").add_column("f", "q", "1"))
            .add_mutation(Delete::new("d").add_columns("f", "gone")),
    )
    .unwrap();
    let log = take(&s.log);
    for row in ["a", "b", "c", "d"] {
        assert!(
            log.contains(&format!("first:post_put {row}")),
            "{row}: {log:?}"
        );
    }
    assert!(log.contains(&"second:pre_delete d".to_string()), "{log:?}");
    // check_and_mutate: its own hook, then the action's put hooks only when the check passes.
    let cam = CheckAndMutate::builder("e")
        .if_not_exists("f", "q")
        .then_put(Put::new("e").add_column("f", "q", "1"));
    assert!(t.check_and_mutate(&cam).unwrap().success);
    assert!(!t.check_and_mutate(&cam).unwrap().success);
    assert_eq!(
        take(&s.log),
        [
            "second:pre_check_and_mutate e",
            "first:pre_check_and_mutate e",
            "second:pre_put e",
            "first:pre_put e",
            "second:post_put e",
            "first:post_put e",
            "second:pre_check_and_mutate e",
            "first:pre_check_and_mutate e",
        ]
    );
    // Increment bypassed with a result; append's post hook sees the result.
    let r = t
        .increment(&Increment::new("frozen").add_column("f", "n", 1))
        .unwrap();
    assert_eq!(r.counter(b"f", b"n"), Some(42));
    assert!(
        t.get(&Get::new("frozen")).unwrap().is_empty(),
        "nothing written"
    );
    t.append(&Append::new("g").add_column("f", "q", "x"))
        .unwrap();
    assert_eq!(
        take(&s.log),
        ["second:post_append 1", "first:post_append 1"]
    );
}

#[test]
fn read_hooks_answer_filter_and_narrow_scans_per_region() {
    let dir = tempfile::tempdir().unwrap();
    let s = setup(dir.path());
    let t = s.db.table("t").unwrap();
    let r = t.get(&Get::new("virtual")).unwrap();
    assert_eq!(r.value(b"f", b"q"), Some(&b"made up"[..]));
    assert!(t.exists(&Get::new("virtual")).unwrap());
    for row in ["a", "z"] {
        t.put(
            &Put::new(row)
                .add_column("f", "q", "1")
                .add_column("f", "other", "2"),
        )
        .unwrap();
    }
    take(&s.log);
    let rows: Vec<RowResult> = t.scan(&Scan::new()).unwrap().map(|r| r.unwrap()).collect();
    // Each region's scanner opened with the observers' narrower scan: only f:q.
    assert!(rows.iter().all(|r| r.len() == 1), "{rows:?}");
    assert_eq!(
        take(&s.log),
        [
            "second:pre_scanner_open ",
            "first:pre_scanner_open ",
            "second:pre_scanner_open m",
            "first:pre_scanner_open m"
        ]
    );
}

#[test]
fn daughters_and_reopened_regions_get_fresh_instances_and_unregistered_classes_are_refused() {
    let dir = tempfile::tempdir().unwrap();
    {
        let s = setup(dir.path());
        let t = s.db.table("t").unwrap();
        for row in ["a", "b", "c"] {
            t.put(&Put::new(row).add_column("f", "q", "1")).unwrap();
        }
        // One region touched: its two observers.
        assert_eq!(s.instances.load(Ordering::SeqCst), 2);
        s.db.admin().flush("t").unwrap();
        s.db.admin().split_at("t", b"b").unwrap();
        take(&s.log);
        t.put(&Put::new("a").add_column("f", "q", "2")).unwrap();
        t.put(&Put::new("c").add_column("f", "q", "2")).unwrap();
        // Two more for [m, ) when the flush reached it, two for each daughter of [, m).
        assert_eq!(
            s.instances.load(Ordering::SeqCst),
            8,
            "both daughters made their own"
        );
        assert_eq!(take(&s.log).len(), 8);
        // A spec naming a class neither shipped nor registered is refused.
        let mut desc = s.db.admin().describe("t").unwrap();
        desc.add_coprocessor("|com.example.Missing||").unwrap();
        let e = s.db.admin().modify_table(&desc).unwrap_err();
        assert!(
            e.to_string()
                .starts_with("Class com.example.Missing cannot be loaded"),
            "{e}"
        );
    }
    // Reopened with the classes registered: fresh instances, hooks run.
    let log: Log = Arc::default();
    let instances = Arc::new(AtomicUsize::new(0));
    {
        let db = Db::open(dir.path(), options(&log, &instances)).unwrap();
        let t: Table = db.table("t").unwrap();
        t.put(&Put::new("a").add_column("f", "q", "3")).unwrap();
        assert_eq!(take(&log).len(), 4);
        assert_eq!(instances.load(Ordering::SeqCst), 2);
    }
    // Reopened without them: the table serves, without the hooks (HBase's outcome for a
    // class it cannot load under abortonerror=false).
    let db = Db::open(dir.path(), DbOptions::default().background(false)).unwrap();
    let t = db.table("t").unwrap();
    t.put(&Put::new("skip").add_column("f", "q", "1")).unwrap();
    assert_eq!(
        t.get(&Get::new("skip")).unwrap().len(),
        1,
        "no observer bypassed it"
    );
}

/// Flush and compaction hooks: refuses flushes while `hold` is set, and drops cells whose
/// value is "expired" from what a compaction writes.
struct Purger {
    hold: Arc<std::sync::atomic::AtomicBool>,
    log: Log,
}

impl RegionObserver for Purger {
    fn pre_flush(&self, _: &mut ObserverContext<'_>) -> CoprocessorResult<()> {
        match self.hold.load(Ordering::SeqCst) {
            true => Err(CoprocessorError::new("flushes are on hold")),
            false => Ok(()),
        }
    }
    fn post_flush(
        &self,
        _: &mut ObserverContext<'_>,
        family: &[u8],
        _: &str,
    ) -> CoprocessorResult<()> {
        self.log
            .lock()
            .push(format!("post_flush {}", String::from_utf8_lossy(family)));
        Ok(())
    }
    fn pre_compact(
        &self,
        _: &mut ObserverContext<'_>,
        _: &[u8],
        major: bool,
        row: &mut Vec<Cell>,
    ) -> CoprocessorResult<()> {
        assert!(major);
        row.retain(|c| c.value() != b"expired");
        Ok(())
    }
    fn post_compact(
        &self,
        _: &mut ObserverContext<'_>,
        family: &[u8],
        file: Option<&str>,
    ) -> CoprocessorResult<()> {
        self.log.lock().push(format!(
            "post_compact {} {}",
            String::from_utf8_lossy(family),
            file.is_some()
        ));
        Ok(())
    }
}

#[test]
fn flush_and_compaction_hooks_refuse_flushes_and_rewrite_what_compactions_write() {
    let dir = tempfile::tempdir().unwrap();
    let log: Log = Arc::default();
    let hold = Arc::new(std::sync::atomic::AtomicBool::new(true));
    let (l, h) = (log.clone(), hold.clone());
    let options = DbOptions::default().background(false).coprocessor(
        "com.example.Purger",
        move |_: &RegionEnvironment| {
            Arc::new(Purger {
                hold: h.clone(),
                log: l.clone(),
            })
        },
    );
    let db = Db::open(dir.path(), options).unwrap();
    let mut desc =
        TableDescriptor::new("t", vec![ColumnFamilyDescriptor::new(b"f").unwrap()]).unwrap();
    desc.add_coprocessor("|com.example.Purger||").unwrap();
    db.admin().create_table(&desc).unwrap();
    let t = db.table("t").unwrap();
    t.put(
        &Put::new("a")
            .add_column("f", "q", "kept")
            .add_column("f", "x", "expired"),
    )
    .unwrap();
    let e = db.admin().flush("t").unwrap_err();
    assert!(e.to_string().contains("flushes are on hold"), "{e}");
    assert_eq!(
        t.get(&Get::new("a")).unwrap().len(),
        2,
        "still in the memstore"
    );
    hold.store(false, Ordering::SeqCst);
    db.admin().flush("t").unwrap();
    t.put(&Put::new("b").add_column("f", "q", "expired"))
        .unwrap();
    db.admin().flush("t").unwrap();
    assert_eq!(take(&log), ["post_flush f", "post_flush f"]);
    db.admin().major_compact("t").unwrap();
    assert_eq!(take(&log), ["post_compact f true"]);
    // The compaction wrote what the hook left: the "expired" cells are gone for good.
    let rows: Vec<RowResult> = t.scan(&Scan::new()).unwrap().map(|r| r.unwrap()).collect();
    assert_eq!(rows.len(), 1);
    assert_eq!(rows[0].value(b"f", b"q"), Some(&b"kept"[..]));
    assert_eq!(rows[0].len(), 1);
}

/// Split and merge hooks, and an observer writing another table through its connection:
/// refuses splits at row "x", records what splits and merges did in table "audit".
struct Lifecycle {
    log: Log,
    /// Refuse merges while set.
    refuse_merges: Arc<std::sync::atomic::AtomicBool>,
}

impl Lifecycle {
    fn audit(&self, ctx: &ObserverContext<'_>, row: &str, what: String) -> CoprocessorResult<()> {
        let db = ctx
            .environment()
            .connection()
            .ok_or_else(|| CoprocessorError::new("the Db is closing"))?;
        let audit = db
            .table("audit")
            .map_err(|e| CoprocessorError::new(e.to_string()))?;
        audit
            .put(&Put::new(row).add_column("f", "what", what.as_str()))
            .map_err(|e| CoprocessorError::new(e.to_string()))?;
        self.log.lock().push(what);
        Ok(())
    }
}

fn range(info: &regionkv::RegionInfo) -> String {
    format!(
        "[{},{})",
        String::from_utf8_lossy(&info.start_key),
        String::from_utf8_lossy(&info.end_key)
    )
}

impl RegionObserver for Lifecycle {
    fn pre_split(&self, ctx: &mut ObserverContext<'_>, row: &[u8]) -> CoprocessorResult<()> {
        if row == b"x" {
            return Err(CoprocessorError::new("no split at x"));
        }
        let here = format!(
            "pre_split {} at {}",
            ctx.environment().region_name,
            String::from_utf8_lossy(row)
        );
        self.log.lock().push(here);
        Ok(())
    }
    fn post_split(
        &self,
        ctx: &mut ObserverContext<'_>,
        daughters: &[regionkv::RegionInfo; 2],
    ) -> CoprocessorResult<()> {
        let what = format!("split {} {}", range(&daughters[0]), range(&daughters[1]));
        self.audit(ctx, "split", what)
    }
    fn pre_merge(
        &self,
        _: &mut ObserverContext<'_>,
        regions: &[regionkv::RegionInfo],
    ) -> CoprocessorResult<()> {
        if self.refuse_merges.load(Ordering::SeqCst) {
            return Err(CoprocessorError::new("no merges now"));
        }
        let what: Vec<String> = regions.iter().map(range).collect();
        self.log
            .lock()
            .push(format!("pre_merge {}", what.join(" ")));
        Ok(())
    }
    fn post_merge(
        &self,
        ctx: &mut ObserverContext<'_>,
        _: &[regionkv::RegionInfo],
        merged: &regionkv::RegionInfo,
    ) -> CoprocessorResult<()> {
        self.audit(ctx, "merge", format!("merged {}", range(merged)))
    }
}

#[test]
fn split_and_merge_hooks_may_refuse_and_reach_other_tables_through_the_connection() {
    let dir = tempfile::tempdir().unwrap();
    let log: Log = Arc::default();
    let l = log.clone();
    let refuse_merges = Arc::new(std::sync::atomic::AtomicBool::new(false));
    let r = refuse_merges.clone();
    let options = DbOptions::default().background(false).coprocessor(
        "com.example.Lifecycle",
        move |_: &RegionEnvironment| {
            Arc::new(Lifecycle {
                log: l.clone(),
                refuse_merges: r.clone(),
            })
        },
    );
    let db = Db::open(dir.path(), options).unwrap();
    let f = || vec![ColumnFamilyDescriptor::new(b"f").unwrap()];
    db.admin()
        .create_table(&TableDescriptor::new("audit", f()).unwrap())
        .unwrap();
    let mut desc = TableDescriptor::new("t", f()).unwrap();
    desc.add_coprocessor("|com.example.Lifecycle||").unwrap();
    db.admin().create_table(&desc).unwrap();
    let t = db.table("t").unwrap();
    for row in ["a", "g", "p", "x"] {
        t.put(&Put::new(row).add_column("f", "q", "1")).unwrap();
    }
    db.admin().flush("t").unwrap();

    // A refused split: the client sees the hook's error, the region stays whole.
    let e = db.admin().split_at("t", b"x").unwrap_err();
    assert!(
        matches!(&e, Error::Coprocessor { class, message }
            if class == "com.example.Lifecycle" && message == "no split at x"),
        "{e:?}"
    );
    assert_eq!(db.admin().regions("t").unwrap().len(), 1);

    db.admin().split_at("t", b"m").unwrap();
    let regions = db.admin().regions("t").unwrap();
    assert_eq!(regions.len(), 2);
    let audit = db.table("audit").unwrap();
    let said = |row: &str| {
        let r = audit.get(&Get::new(row)).unwrap();
        String::from_utf8(r.value(b"f", b"what").unwrap().to_vec()).unwrap()
    };
    assert_eq!(said("split"), "split [,m) [m,)");
    // The daughters serve with the hooks (a fresh instance each).
    db.admin().major_compact("t").unwrap();
    let e = db.admin().split_at("t", b"x").unwrap_err();
    assert!(matches!(e, Error::Coprocessor { .. }), "{e:?}");

    let names: Vec<String> = regions.iter().map(|r| r.encoded_name.clone()).collect();
    refuse_merges.store(true, Ordering::SeqCst);
    let e = db
        .admin()
        .merge_regions(&[&names[1], &names[0]], false)
        .unwrap_err();
    assert!(
        matches!(&e, Error::Coprocessor { message, .. } if message == "no merges now"),
        "{e:?}"
    );
    assert_eq!(db.admin().regions("t").unwrap().len(), 2);
    refuse_merges.store(false, Ordering::SeqCst);
    db.admin()
        .merge_regions(&[&names[1], &names[0]], false)
        .unwrap();
    assert_eq!(db.admin().regions("t").unwrap().len(), 1);
    assert_eq!(said("merge"), "merged [,)");
    // The merged region runs the hooks too.
    db.admin().major_compact("t").unwrap();
    let e = db.admin().split_at("t", b"x").unwrap_err();
    assert!(matches!(e, Error::Coprocessor { .. }), "{e:?}");
    let log = take(&log);
    assert!(
        log[0].starts_with("pre_split t,,") && log[0].ends_with(" at m"),
        "{log:?}"
    );
    assert_eq!(
        log[1..],
        ["split [,m) [m,)", "pre_merge [,m) [m,)", "merged [,)"]
    );
    // Every row is still there.
    assert_eq!(t.scan(&Scan::new()).unwrap().count(), 4);
}

/// An observer that keeps its environment, to reach the Db later.
struct Keeper;

impl RegionObserver for Keeper {}

#[test]
fn an_observers_connection_does_not_keep_the_db_open_and_cannot_close_it() {
    let dir = tempfile::tempdir().unwrap();
    let envs: Arc<Mutex<Vec<RegionEnvironment>>> = Arc::default();
    let e = envs.clone();
    let options = move || {
        let e = e.clone();
        DbOptions::default().background(false).coprocessor(
            "com.example.Keeper",
            move |env: &RegionEnvironment| {
                e.lock().push(env.clone());
                Arc::new(Keeper)
            },
        )
    };
    let db = Db::open(dir.path(), options()).unwrap();
    let mut desc =
        TableDescriptor::new("t", vec![ColumnFamilyDescriptor::new(b"f").unwrap()]).unwrap();
    desc.add_coprocessor("|com.example.Keeper||").unwrap();
    db.admin().create_table(&desc).unwrap();
    db.table("t")
        .unwrap()
        .put(&Put::new("r").add_column("f", "q", "1"))
        .unwrap();
    let env = envs.lock()[0].clone();
    let conn = env.connection().unwrap();
    assert_eq!(
        conn.table("t").unwrap().get(&Get::new("r")).unwrap().len(),
        1
    );
    assert!(matches!(conn.close(), Err(Error::InvalidArgument(_))));
    // The program's last handle closes the Db although the connection lives on.
    drop(db);
    assert!(env.connection().is_none());
    assert!(matches!(conn.table("t"), Err(Error::Closed)));
    let again = Db::open(dir.path(), options()).unwrap();
    assert_eq!(
        again.table("t").unwrap().get(&Get::new("r")).unwrap().len(),
        1
    );
    drop(conn);
}
