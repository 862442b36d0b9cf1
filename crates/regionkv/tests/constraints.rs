//! Constraints (HBase's Constraint API): a check on every path that puts and on nothing
//! else, priority order, enabling and disabling, Rust-registered classes, and constraints
//! surviving splits and reopen.

#![allow(clippy::unwrap_used)]

use regionkv::constraint::{
    Constraint, ConstraintConfig, Constraints, MAX_VALUE_SIZE, REQUIRED_COLUMNS, VALUE_IS_NUMBER,
};
use regionkv::{
    Append, BatchAction, CheckAndMutate, ColumnFamilyDescriptor, Db, DbOptions, Delete, Error, Get,
    Increment, Put, RowMutations, TableDescriptor,
};
use std::sync::Arc;

/// Refuses rows that start with "bad".
struct NoBadRows;

impl Constraint for NoBadRows {
    fn check(&self, put: &Put) -> Result<(), String> {
        match put.row().starts_with(b"bad") {
            true => Err("bad row".into()),
            false => Ok(()),
        }
    }
}

fn options() -> DbOptions {
    DbOptions::default()
        .background(false)
        .constraint("com.example.NoBadRows", |_| Ok(Arc::new(NoBadRows)))
}

fn config(pairs: &[(&str, &str)]) -> ConstraintConfig {
    pairs
        .iter()
        .map(|(k, v)| (k.to_string(), v.to_string()))
        .collect()
}

/// Table "t" (family f, split at "m"): f:n must be a number, no value above 8 bytes, and
/// the registered NoBadRows.
fn create(db: &Db) -> TableDescriptor {
    let mut desc =
        TableDescriptor::new("t", vec![ColumnFamilyDescriptor::new(b"f").unwrap()]).unwrap();
    Constraints::add(&mut desc, VALUE_IS_NUMBER, config(&[("columns", "f:n")]));
    Constraints::add(&mut desc, MAX_VALUE_SIZE, config(&[("max.bytes", "8")]));
    Constraints::add(&mut desc, "com.example.NoBadRows", ConstraintConfig::new());
    db.admin()
        .create_table_with_splits(&desc, vec![b"m".to_vec()])
        .unwrap();
    db.admin().describe("t").unwrap()
}

fn violation(r: regionkv::Result<impl std::fmt::Debug>) -> String {
    match r {
        Err(Error::ConstraintViolation {
            constraint,
            message,
        }) => format!("{constraint}: {message}"),
        other => panic!("expected a constraint violation, got {other:?}"),
    }
}

#[test]
fn every_put_path_is_checked_and_nothing_else() {
    let dir = tempfile::tempdir().unwrap();
    let db = Db::open(dir.path(), options()).unwrap();
    create(&db);
    let t = db.table("t").unwrap();
    t.put(
        &Put::new("a")
            .add_column("f", "n", "12")
            .add_column("f", "s", "text"),
    )
    .unwrap();
    // The whole put is refused: its valid column is not written either.
    let v = violation(
        t.put(
            &Put::new("b")
                .add_column("f", "s", "ok")
                .add_column("f", "n", "x"),
        ),
    );
    assert_eq!(
        v,
        "regionkv.constraint.ValueIsNumber: value of f:n is not a number: x"
    );
    assert!(t.get(&Get::new("b")).unwrap().is_empty());
    // Batches, BufferedMutator, mutate_row and check_and_mutate's put.
    assert!(matches!(
        t.put_all(&[Put::new("z").add_column("f", "s", "123456789")]),
        Err(Error::ConstraintViolation { .. })
    ));
    let results = t.batch(&[
        BatchAction::Put(Put::new("c").add_column("f", "n", "1")),
        BatchAction::Put(Put::new("bad1").add_column("f", "n", "1")),
    ]);
    assert!(results[0].is_ok());
    assert!(matches!(results[1], Err(Error::ConstraintViolation { .. })));
    let m = t.buffered_mutator();
    m.mutate(Put::new("bad2").add_column("f", "n", "1"))
        .unwrap();
    assert!(m.flush().is_err());
    violation(
        t.mutate_row(
            &RowMutations::new("d")
                .add_mutation(Put::new("d").add_column("f", "n", "nope"))
                .add_mutation(Delete::new("d")),
        ),
    );
    let cam = CheckAndMutate::builder("e")
        .if_not_exists("f", "n")
        .then_put(Put::new("e").add_column("f", "n", "NaN?"));
    violation(t.check_and_mutate(&cam));
    // A failing check runs no constraint: nothing is put.
    let failing = CheckAndMutate::builder("a")
        .if_not_exists("f", "n")
        .then_put(Put::new("a").add_column("f", "n", "x"));
    assert!(!t.check_and_mutate(&failing).unwrap().success);
    // Deletes, increments and appends are not checked (HBase runs constraints on Puts).
    t.delete(&Delete::new("a")).unwrap();
    t.increment(&Increment::new("bad3").add_column("f", "c", 1))
        .unwrap();
    t.append(&Append::new("bad3").add_column("f", "s", "0123456789"))
        .unwrap();
    assert_eq!(t.get(&Get::new("bad3")).unwrap().len(), 2);
}

#[test]
fn constraints_run_by_priority_and_can_be_disabled() {
    let dir = tempfile::tempdir().unwrap();
    let db = Db::open(dir.path(), options()).unwrap();
    let mut desc = create(&db);
    let t = db.table("t").unwrap();
    // Violating all three: the lowest priority (added first) reports.
    let all_three = Put::new("bad").add_column("f", "n", "not a number at all");
    assert!(violation(t.put(&all_three)).starts_with("regionkv.constraint.ValueIsNumber"));
    Constraints::set_enabled(&mut desc, VALUE_IS_NUMBER, false).unwrap();
    db.admin().modify_table(&desc).unwrap();
    assert!(violation(t.put(&all_three)).starts_with("regionkv.constraint.MaxValueSize"));
    // Disabling the processor keeps the constraints but runs none.
    Constraints::disable(&mut desc);
    db.admin().modify_table(&desc).unwrap();
    t.put(&all_three).unwrap();
    Constraints::enable(&mut desc);
    db.admin().modify_table(&desc).unwrap();
    assert!(violation(t.put(&all_three)).starts_with("regionkv.constraint.MaxValueSize"));
    Constraints::remove(&mut desc);
    db.admin().modify_table(&desc).unwrap();
    t.put(&all_three).unwrap();
}

#[test]
fn an_unknown_class_is_refused_and_constraints_survive_splits_reopen_and_merges() {
    let dir = tempfile::tempdir().unwrap();
    {
        let db = Db::open(dir.path(), options()).unwrap();
        let mut other =
            TableDescriptor::new("u", vec![ColumnFamilyDescriptor::new(b"f").unwrap()]).unwrap();
        Constraints::add(&mut other, "com.example.Missing", ConstraintConfig::new());
        let e = db.admin().create_table(&other).unwrap_err();
        assert!(e.to_string().contains("com.example.Missing"), "{e}");
        let mut required =
            TableDescriptor::new("r", vec![ColumnFamilyDescriptor::new(b"f").unwrap()]).unwrap();
        Constraints::add(
            &mut required,
            REQUIRED_COLUMNS,
            config(&[("columns", "f:id")]),
        );
        db.admin().create_table(&required).unwrap();
        let r = db.table("r").unwrap();
        assert_eq!(
            violation(r.put(&Put::new("x").add_column("f", "name", "n"))),
            "regionkv.constraint.RequiredColumns: put of row x lacks the required column f:id"
        );
        create(&db);
        let t = db.table("t").unwrap();
        for row in ["a", "b", "c"] {
            t.put(&Put::new(row).add_column("f", "n", "1")).unwrap();
        }
        db.admin().flush("t").unwrap();
        db.admin().split_at("t", b"b").unwrap();
        violation(t.put(&Put::new("a").add_column("f", "n", "x")));
        violation(t.put(&Put::new("c").add_column("f", "n", "x")));
    }
    let db = Db::open(dir.path(), options()).unwrap();
    let t = db.table("t").unwrap();
    violation(t.put(&Put::new("bad").add_column("f", "n", "1")));
    t.put(&Put::new("ok").add_column("f", "n", "2")).unwrap();
    // And a merge of the daughters.
    db.admin().major_compact("t").unwrap();
    let regions = db.admin().regions("t").unwrap();
    assert!(regions.len() > 1);
    let names: Vec<&str> = regions.iter().map(|r| r.encoded_name.as_str()).collect();
    db.admin().merge_regions(&names, false).unwrap();
    assert_eq!(db.admin().regions("t").unwrap().len(), 1);
    violation(t.put(&Put::new("a").add_column("f", "n", "x")));
    t.put(&Put::new("a").add_column("f", "n", "3")).unwrap();
}
