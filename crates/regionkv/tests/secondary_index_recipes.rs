//! The secondary-index recipes of `crates/regionkv/examples/` (docs/secondary-indexes.md)
//! run, and each survives a real process kill between its two writes: a child process
//! (this test binary, run again with `REGIONKV_RECIPE_CHILD` set) stops between the writes
//! and prints `BETWEEN`; the parent kills it with SIGKILL, reopens the directory, and
//! checks what a reader sees and what the recipe's repair does.

#![allow(clippy::unwrap_used, clippy::expect_used)]
// Each example is a crate of its own and includes `examples/support/users.rs`; included
// together here, that file is loaded once per example.
#![allow(clippy::duplicate_mod)]

#[allow(dead_code)]
#[path = "../examples/index_dual_write.rs"]
mod dual_write;
#[allow(dead_code)]
#[path = "../examples/index_observer.rs"]
mod observer;
#[allow(dead_code)]
#[path = "../examples/index_rebuild.rs"]
mod rebuild;
#[allow(dead_code)]
#[path = "../examples/summary_table.rs"]
mod summary;

use dual_write::users::{self, Between, INFO};
use regionkv::{Db, DbOptions, Put};
use std::io::{BufRead, BufReader, Write};
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::sync::Arc;
use std::sync::atomic::{AtomicBool, Ordering};
use std::time::Duration;

const CHILD_ENV: &str = "REGIONKV_RECIPE_CHILD";
const DIR_ENV: &str = "REGIONKV_RECIPE_DIR";

/// Stops the child between its two writes: tells the parent, then waits to be killed.
fn pause() -> Between {
    Arc::new(|| {
        println!("BETWEEN");
        std::io::stdout().flush().unwrap();
        loop {
            std::thread::sleep(Duration::from_secs(60));
        }
    })
}

/// Runs `scenario` in a child process until it reaches `BETWEEN`, then kills it.
fn run_until_between_and_kill(scenario: &str, dir: &Path) {
    // The child's stderr goes to a file beside its directory (a pipe nobody reads could
    // fill and stall it).
    let log = dir.with_extension("stderr");
    let mut child = Command::new(std::env::current_exe().unwrap())
        .args(["--exact", "recipe_child", "--nocapture", "--test-threads=1"])
        .env(CHILD_ENV, scenario)
        .env(DIR_ENV, dir)
        .stdout(Stdio::piped())
        .stderr(std::fs::File::create(&log).unwrap())
        .spawn()
        .unwrap();
    let stdout = child.stdout.take().unwrap();
    let (tx, rx) = std::sync::mpsc::channel();
    std::thread::spawn(move || {
        for line in BufReader::new(stdout).lines() {
            let Ok(line) = line else { break };
            // libtest may have started the line ("test recipe_child ... ").
            if line.ends_with("BETWEEN") {
                let _ = tx.send(());
                return;
            }
        }
    });
    let reached = rx.recv_timeout(Duration::from_secs(120));
    child.kill().unwrap();
    child.wait().unwrap();
    assert!(
        reached.is_ok(),
        "{scenario}: the child never reached its pause: {}",
        std::fs::read_to_string(&log).unwrap_or_default()
    );
}

/// The child's side: runs the scenario named by the environment (nothing without it).
#[test]
fn recipe_child() {
    let Ok(scenario) = std::env::var(CHILD_ENV) else {
        return;
    };
    let dir = PathBuf::from(std::env::var(DIR_ENV).unwrap());
    let go = users::no_pause();
    match scenario.as_str() {
        "dual-write-new-user" => {
            let db = dual_write::open(&dir).unwrap();
            dual_write::set_email(&db, "u1", "Ada", "ada@example.com", &go).unwrap();
            dual_write::set_email(&db, "u2", "Grace", "grace@example.com", &pause()).unwrap();
        }
        "dual-write-change" => {
            let db = dual_write::open(&dir).unwrap();
            dual_write::set_email(&db, "u1", "Ada", "ada@example.com", &go).unwrap();
            dual_write::set_email(&db, "u1", "Ada", "ada@lovelace.org", &pause()).unwrap();
        }
        "observer-change" => {
            let armed = Arc::new(AtomicBool::new(false));
            let a = armed.clone();
            let stop = pause();
            let between: Between = Arc::new(move || {
                if a.load(Ordering::SeqCst) {
                    stop();
                }
            });
            let db = observer::open(&dir, between).unwrap();
            observer::set_email(&db, "u1", "Ada", "ada@example.com").unwrap();
            observer::set_email(&db, "u2", "Grace", "grace@example.com").unwrap();
            armed.store(true, Ordering::SeqCst);
            observer::set_email(&db, "u1", "Ada", "ada@lovelace.org").unwrap();
        }
        "summary" => {
            let db = summary::open(&dir).unwrap();
            for (i, page) in ["/", "/about", "/"].iter().enumerate() {
                summary::record_view(&db, "20261128", page, &format!("ev{i}"), "u1", &go).unwrap();
            }
            summary::record_view(&db, "20261128", "/about", "ev3", "u2", &pause()).unwrap();
        }
        "rebuild" => {
            let db = Db::open(&dir, DbOptions::default()).unwrap();
            rebuild::rebuild(&db, &pause(), 0, false).unwrap();
        }
        other => panic!("unknown scenario {other}"),
    }
    unreachable!("the scenario should have paused");
}

#[test]
fn the_examples_run() {
    for demo in [
        dual_write::demo,
        observer::demo,
        summary::demo,
        rebuild::demo,
    ] {
        let dir = tempfile::tempdir().unwrap();
        demo(dir.path()).unwrap();
    }
}

#[test]
fn dual_write_killed_after_the_index_write_leaves_an_entry_lookups_drop_and_repair_deletes() {
    // A new user: the entry is written, the base row never is.
    let dir = tempfile::tempdir().unwrap();
    run_until_between_and_kill("dual-write-new-user", dir.path());
    let db = dual_write::open(dir.path()).unwrap();
    assert_eq!(
        users::index_entries(&db).unwrap(),
        [
            ("ada@example.com".to_string(), "u1".to_string()),
            ("grace@example.com".to_string(), "u2".to_string())
        ],
        "the index entry survived the kill"
    );
    assert_eq!(
        users::current_email(&db, b"u2").unwrap(),
        None,
        "no base row"
    );
    let found = users::lookup(&db, "grace@example.com").unwrap();
    assert!(found.users.is_empty(), "a reader finds no user: {found:?}");
    assert_eq!(found.stale.len(), 1);
    // Inside the grace period the repair leaves the entry (a writer may be mid-way).
    let now = users::now_ms(&db);
    assert_eq!(
        users::read_repair(&db, &found.stale, 60_000, found.stale[0].timestamp + 1).unwrap(),
        0
    );
    assert_eq!(users::read_repair(&db, &found.stale, 0, now).unwrap(), 1);
    assert_eq!(users::index_entries(&db).unwrap().len(), 1);
    assert_eq!(
        users::lookup(&db, "grace@example.com").unwrap(),
        users::Lookup::default()
    );
    // The write, retried, completes.
    dual_write::set_email(&db, "u2", "Grace", "grace@example.com", &users::no_pause()).unwrap();
    assert_eq!(
        users::lookup(&db, "grace@example.com").unwrap().users[0].id,
        "u2"
    );
    db.close().unwrap();

    // A changed email: the new entry is written, the base row keeps the old address.
    let dir = tempfile::tempdir().unwrap();
    run_until_between_and_kill("dual-write-change", dir.path());
    let db = dual_write::open(dir.path()).unwrap();
    assert_eq!(users::index_entries(&db).unwrap().len(), 2, "both entries");
    assert_eq!(
        users::lookup(&db, "ada@example.com").unwrap().users[0].id,
        "u1",
        "the old address still finds the user: the change never happened"
    );
    let found = users::lookup(&db, "ada@lovelace.org").unwrap();
    assert!(found.users.is_empty());
    assert_eq!(found.stale[0].user, "u1");
    users::read_repair(&db, &found.stale, 0, users::now_ms(&db)).unwrap();
    assert_eq!(
        users::index_entries(&db).unwrap(),
        [("ada@example.com".to_string(), "u1".to_string())]
    );
    db.close().unwrap();
}

#[test]
fn observer_killed_after_the_base_write_leaves_a_missing_entry_a_retry_or_a_rebuild_restores() {
    let dir = tempfile::tempdir().unwrap();
    run_until_between_and_kill("observer-change", dir.path());
    let db = observer::open(dir.path(), users::no_pause()).unwrap();
    assert_eq!(
        users::current_email(&db, b"u1").unwrap().as_deref(),
        Some(&b"ada@lovelace.org"[..]),
        "the base write is durable"
    );
    // The new address misses the user: its entry was never written.
    assert_eq!(
        users::lookup(&db, "ada@lovelace.org").unwrap(),
        users::Lookup::default()
    );
    // The old address has an entry, which the check drops and a read repair deletes.
    let found = users::lookup(&db, "ada@example.com").unwrap();
    assert!(found.users.is_empty());
    assert_eq!(found.stale.len(), 1);
    users::read_repair(&db, &found.stale, 0, users::now_ms(&db)).unwrap();
    assert_eq!(
        users::lookup(&db, "ada@lovelace.org").unwrap().users,
        [],
        "read repair cannot restore a missing entry"
    );
    let report = rebuild::rebuild(&db, &users::no_pause(), 0, false).unwrap();
    assert_eq!((report.base_rows, report.added, report.removed), (2, 1, 0));
    assert_eq!(
        users::lookup(&db, "ada@lovelace.org").unwrap().users[0].id,
        "u1"
    );
    // The entry carries the base cell's timestamp (post_put sees it, as in HBase).
    let (_, base_ts) = users::email_cell(&db, b"u1").unwrap().unwrap();
    let entry = db
        .table(users::BY_EMAIL)
        .unwrap()
        .get(&regionkv::Get::new(users::index_row(
            b"ada@lovelace.org",
            b"u1",
        )))
        .unwrap();
    assert_eq!(
        entry.latest_cell(users::I, users::R).unwrap().timestamp(),
        base_ts
    );
    // A retried put restores a lost entry too: the observer writes it even when the
    // email did not change.
    db.table(users::BY_EMAIL)
        .unwrap()
        .delete(
            &regionkv::Delete::new(users::index_row(b"ada@lovelace.org", b"u1")).add_column_at(
                users::I,
                users::R,
                base_ts,
            ),
        )
        .unwrap();
    assert!(
        users::lookup(&db, "ada@lovelace.org")
            .unwrap()
            .users
            .is_empty()
    );
    observer::set_email(&db, "u1", "Ada", "ada@lovelace.org").unwrap();
    assert_eq!(
        users::lookup(&db, "ada@lovelace.org").unwrap().users[0].id,
        "u1"
    );
    // The observer goes on maintaining the index after the reopen.
    observer::set_email(&db, "u2", "Grace", "grace@hopper.org").unwrap();
    assert_eq!(
        users::index_entries(&db).unwrap(),
        [
            ("ada@lovelace.org".to_string(), "u1".to_string()),
            ("grace@hopper.org".to_string(), "u2".to_string())
        ]
    );
    db.close().unwrap();
}

#[test]
fn summary_killed_after_the_event_write_counts_one_short_until_a_recount() {
    let dir = tempfile::tempdir().unwrap();
    run_until_between_and_kill("summary", dir.path());
    let db = summary::open(dir.path()).unwrap();
    let events = summary::count_events(&db, "20261128").unwrap();
    let counted = summary::daily(&db, "20261128").unwrap();
    assert_eq!(
        events.get("/about"),
        Some(&2),
        "the fourth event is durable"
    );
    assert_eq!(counted.get("/about"), Some(&1), "its counter never moved");
    assert_eq!(counted.get("/"), Some(&2));
    assert_eq!(
        summary::recount(&db, "20261128").unwrap(),
        [("/about".to_string(), 1, 2)]
    );
    assert_eq!(summary::daily(&db, "20261128").unwrap(), events);
    // Counters keep working after a recount put their values.
    summary::record_view(&db, "20261128", "/about", "ev4", "u3", &users::no_pause()).unwrap();
    assert_eq!(
        summary::daily(&db, "20261128").unwrap().get("/about"),
        Some(&3)
    );
    db.close().unwrap();
}

#[test]
fn rebuild_killed_between_its_passes_leaves_stale_entries_the_next_run_removes() {
    let dir = tempfile::tempdir().unwrap();
    {
        let db = Db::open(dir.path(), DbOptions::default()).unwrap();
        users::create_tables(&db, &users::users_descriptor().unwrap()).unwrap();
        // More than one batch of base rows, written without the index.
        let puts: Vec<Put> = (0..1_200)
            .map(|i| {
                Put::new(format!("u{i:05}")).add_column(INFO, users::EMAIL, format!("user{i}@x"))
            })
            .collect();
        db.table(users::USERS).unwrap().put_all(&puts).unwrap();
        // Entries no base row backs: a gone user and an old address.
        let index = db.table(users::BY_EMAIL).unwrap();
        let t = users::now_ms(&db);
        index
            .put(&users::index_put(b"gone@x", b"u99999", t))
            .unwrap();
        index
            .put(&users::index_put(b"old@x", b"u00001", t))
            .unwrap();
        db.close().unwrap();
    }
    run_until_between_and_kill("rebuild", dir.path());
    let db = Db::open(dir.path(), DbOptions::default()).unwrap();
    assert_eq!(
        users::index_entries(&db).unwrap().len(),
        1_202,
        "the first pass's entries are durable, the stale ones not yet removed"
    );
    assert_eq!(users::lookup(&db, "user1@x").unwrap().users[0].id, "u00001");
    let old = users::lookup(&db, "old@x").unwrap();
    assert!(
        old.users.is_empty(),
        "a reader never sees the stale entry's user"
    );
    assert_eq!(old.stale.len(), 1);
    let report = rebuild::rebuild(&db, &users::no_pause(), 0, false).unwrap();
    assert_eq!(
        report,
        rebuild::RebuildReport {
            base_rows: 1_200,
            added: 0,
            entries: 1_202,
            removed: 2,
            kept_young: 0
        }
    );
    assert_eq!(users::index_entries(&db).unwrap().len(), 1_200);
    // Idempotent: a third run finds nothing to do.
    let again = rebuild::rebuild(&db, &users::no_pause(), 0, false).unwrap();
    assert_eq!((again.added, again.removed), (0, 0));
    db.close().unwrap();
}

#[test]
fn two_writers_of_one_row_never_leave_the_winning_value_without_its_entry() {
    // The race a reviewer found: W1 changes X -> Y and stalls before deleting X's entry;
    // W2 changes Y -> X meanwhile. With one timestamp per change, W1's late delete of X
    // covers only versions before W1's time and cannot hide W2's newer X entry.
    let dir = tempfile::tempdir().unwrap();
    let db = dual_write::open(dir.path()).unwrap();
    let index = db.table(users::BY_EMAIL).unwrap();
    let base = db.table(users::USERS).unwrap();
    let write = |email: &[u8], t: i64| {
        index.put(&users::index_put(email, b"u1", t)).unwrap();
        base.put(&Put::new("u1").add_column_at(INFO, users::EMAIL, t, email))
            .unwrap();
    };
    write(b"x@", 100);
    write(b"y@", 200); // W1's first two writes
    write(b"x@", 300); // W2's first two writes
    index
        .delete(&users::index_delete_before(b"y@", b"u1", 300))
        .unwrap(); // W2's delete
    index
        .delete(&users::index_delete_before(b"x@", b"u1", 200))
        .unwrap(); // W1's late delete
    assert_eq!(
        users::current_email(&db, b"u1").unwrap().as_deref(),
        Some(&b"x@"[..])
    );
    assert_eq!(users::lookup(&db, "x@").unwrap().users[0].id, "u1");
    assert_eq!(
        users::index_entries(&db).unwrap(),
        [("x@".to_string(), "u1".to_string())]
    );

    // A tie (one millisecond for both) leaves an extra entry, never a missing one.
    write(b"p@", 400);
    write(b"q@", 400);
    index
        .delete(&users::index_delete_before(b"p@", b"u1", 400))
        .unwrap();
    index
        .delete(&users::index_delete_before(b"x@", b"u1", 400))
        .unwrap();
    assert_eq!(
        users::current_email(&db, b"u1").unwrap().as_deref(),
        Some(&b"q@"[..])
    );
    assert_eq!(users::lookup(&db, "q@").unwrap().users.len(), 1);
    let extra = users::lookup(&db, "p@").unwrap();
    assert_eq!((extra.users.len(), extra.stale.len()), (0, 1));
    db.close().unwrap();
}

#[test]
fn the_rebuild_keeps_young_stale_looking_entries_for_the_next_run() {
    let dir = tempfile::tempdir().unwrap();
    let db = dual_write::open(dir.path()).unwrap();
    // A dual writer between its two writes: the entry is there, the base row not yet.
    let now = users::now_ms(&db);
    let index = db.table(users::BY_EMAIL).unwrap();
    index.put(&users::index_put(b"new@", b"u7", now)).unwrap();
    index
        .put(&users::index_put(b"old@", b"u8", now - 120_000))
        .unwrap();
    let report = rebuild::rebuild(&db, &users::no_pause(), 60_000, false).unwrap();
    assert_eq!(
        (report.entries, report.removed, report.kept_young),
        (2, 1, 1)
    );
    assert_eq!(
        users::index_entries(&db).unwrap(),
        [("new@".to_string(), "u7".to_string())]
    );
    // The writer's base write lands: the entry was right.
    dual_write::set_email(&db, "u7", "Kim", "new@", &users::no_pause()).unwrap();
    assert_eq!(users::lookup(&db, "new@").unwrap().users[0].id, "u7");
    db.close().unwrap();
}
