//! Secondary-index recipe 4: a periodic job rebuilds the index from the base table (HBase
//! reference guide, "Periodic-Update Secondary Index", there a MapReduce job).
//! docs/secondary-indexes.md has the trade-offs.
//!
//! The job makes two passes, each streaming region by region in batches:
//! 1. scan `users` and put every entry the index lacks (one multiget of the index per batch
//!    to see which), at the timestamp of the base cell it indexes;
//! 2. scan `users_by_email` and delete every entry whose base row does not carry its
//!    email (one multiget of the base per batch), unless the entry was written less than
//!    a grace period before the job started: a dual writer may be between its two writes,
//!    and the next run decides.
//!
//! So it repairs both failure modes of the other recipes: a base row the index misses
//! (an observer killed before its writes) and an entry naming a row that does not carry
//! it (a dual write killed between its writes). A job killed between its passes leaves the
//! index with every entry it needs plus the stale ones, which lookups drop; the next run
//! finishes the work, as the job is idempotent.
//!
//! `cargo run -p regionkv --example index_rebuild [DIR]` (on a terminal, a progress bar
//! counts the regions of both passes)

#[path = "support/users.rs"]
pub mod users;

use indicatif::{ProgressBar, ProgressStyle};
use regionkv::{Db, DbOptions, Delete, Get, Put, RowResult, Scan};
use std::io::IsTerminal;
use users::{Between, EMAIL, I, INFO, R};

/// Rows per multiget and per batch of writes.
const BATCH: usize = 500;

/// What a rebuild did.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct RebuildReport {
    /// Base rows with an email.
    pub base_rows: u64,
    /// Entries the index lacked, put.
    pub added: u64,
    /// Index entries read in the second pass.
    pub entries: u64,
    /// Stale entries deleted.
    pub removed: u64,
    /// Stale-looking entries within the grace period, kept for the next run.
    pub kept_young: u64,
}

/// A bar over `regions` on a terminal, nothing in a script or a test.
fn progress(show: bool, regions: u64) -> ProgressBar {
    if !show || !std::io::stderr().is_terminal() {
        return ProgressBar::hidden();
    }
    let bar = ProgressBar::new(regions);
    if let Ok(style) =
        ProgressStyle::with_template("[{elapsed_precise}] {bar:30} {pos}/{len} regions  {msg}")
    {
        bar.set_style(style);
    }
    bar
}

/// Scans (family, qualifier) of `table` region by region, calling `each` with each row
/// and with `None` after each region.
fn scan_by_region(
    db: &Db,
    table: &str,
    column: (&[u8], &[u8]),
    each: &mut dyn FnMut(Option<RowResult>) -> regionkv::Result<()>,
) -> regionkv::Result<()> {
    let t = db.table(table)?;
    for region in db.admin().regions(table)? {
        let mut scan = Scan::new()
            .start_row(&region.start_key)
            .add_column(column.0, column.1);
        if !region.end_key.is_empty() {
            scan = scan.stop_row(&region.end_key);
        }
        for row in t.scan(&scan)? {
            each(Some(row?))?;
        }
        each(None)?;
    }
    Ok(())
}

/// Rebuilds the email index. Entries younger than `grace_ms` at the job's start are never
/// deleted (a minute is safe next to dual writers; a test with no writers passes 0).
/// `between` runs between the two passes.
pub fn rebuild(
    db: &Db,
    between: &Between,
    grace_ms: i64,
    show_progress: bool,
) -> regionkv::Result<RebuildReport> {
    let keep_after = users::now_ms(db) - grace_ms;
    let base = db.table(users::USERS)?;
    let index = db.table(users::BY_EMAIL)?;
    let regions =
        db.admin().regions(users::USERS)?.len() + db.admin().regions(users::BY_EMAIL)?.len();
    let bar = progress(show_progress, regions as u64);
    let mut report = RebuildReport::default();

    // Pass 1: every base row's entry exists.
    let mut batch: Vec<(Vec<u8>, Vec<u8>, i64)> = Vec::with_capacity(BATCH);
    let add = |batch: &mut Vec<(Vec<u8>, Vec<u8>, i64)>,
               report: &mut RebuildReport|
     -> regionkv::Result<()> {
        let gets: Vec<Get> = batch
            .iter()
            .map(|(email, user, _)| Get::new(users::index_row(email, user)).add_column(I, R))
            .collect();
        let have = index.get_all(&gets)?;
        let missing: Vec<Put> = batch
            .iter()
            .zip(&have)
            .filter(|(_, found)| found.is_empty())
            .map(|((email, user, ts), _)| users::index_put(email, user, *ts))
            .collect();
        index.put_all(&missing)?;
        report.added += missing.len() as u64;
        batch.clear();
        Ok(())
    };
    scan_by_region(db, users::USERS, (INFO, EMAIL), &mut |row| {
        let Some(row) = row else {
            add(&mut batch, &mut report)?;
            bar.inc(1);
            bar.set_message(format!("pass 1/2: {} entries added", report.added));
            return Ok(());
        };
        if let Some(cell) = row.latest_cell(INFO, EMAIL) {
            batch.push((cell.value().to_vec(), row.row().to_vec(), cell.timestamp()));
            report.base_rows += 1;
        }
        if batch.len() == BATCH {
            add(&mut batch, &mut report)?;
        }
        Ok(())
    })?;
    between();

    // Pass 2: every entry's base row carries its email.
    let mut entries: Vec<RowResult> = Vec::with_capacity(BATCH);
    let prune =
        |entries: &mut Vec<RowResult>, report: &mut RebuildReport| -> regionkv::Result<()> {
            let gets: Vec<Get> = entries
                .iter()
                .filter_map(|e| {
                    e.value(I, R)
                        .map(|user| Get::new(user).add_column(INFO, EMAIL))
                })
                .collect();
            let rows = base.get_all(&gets)?;
            let mut stale = Vec::new();
            for (entry, row) in entries
                .iter()
                .filter(|e| e.value(I, R).is_some())
                .zip(&rows)
            {
                let email = entry.row().split(|&b| b == 0).next().unwrap_or_default();
                if row.value(INFO, EMAIL) == Some(email) {
                    continue;
                }
                let Some(cell) = entry.latest_cell(I, R) else {
                    continue;
                };
                if cell.timestamp() > keep_after {
                    report.kept_young += 1;
                } else {
                    stale.push(Delete::new(entry.row()).add_column_at(I, R, cell.timestamp()));
                }
            }
            index.delete_all(&stale)?;
            report.removed += stale.len() as u64;
            entries.clear();
            Ok(())
        };
    scan_by_region(db, users::BY_EMAIL, (I, R), &mut |entry| {
        let Some(entry) = entry else {
            prune(&mut entries, &mut report)?;
            bar.inc(1);
            bar.set_message(format!(
                "pass 2/2: {} stale entries removed",
                report.removed
            ));
            return Ok(());
        };
        entries.push(entry);
        report.entries += 1;
        if entries.len() == BATCH {
            prune(&mut entries, &mut report)?;
        }
        Ok(())
    })?;
    bar.finish_and_clear();
    Ok(report)
}

/// The demonstration `main` runs: a base table written without its index, then rebuilt.
pub fn demo(dir: &std::path::Path) -> regionkv::Result<()> {
    let db = Db::open(dir, DbOptions::default())?;
    users::create_tables(&db, &users::users_descriptor()?)?;
    let base = db.table(users::USERS)?;
    let puts: Vec<Put> = (0..2_000)
        .map(|i| {
            Put::new(format!("u{i:05}"))
                .add_column(INFO, users::NAME, format!("user {i}"))
                .add_column(INFO, EMAIL, format!("user{}@example.com", i % 1_500))
        })
        .collect();
    base.put_all(&puts)?;
    // An entry no base row backs.
    db.table(users::BY_EMAIL)?.put(&users::index_put(
        b"gone@example.com",
        b"u99999",
        users::now_ms(&db) - 120_000,
    ))?;
    let report = rebuild(&db, &users::no_pause(), 60_000, true)?;
    println!("{report:?}");
    println!(
        "user7@example.com: {:?}",
        users::lookup(&db, "user7@example.com")?.users
    );
    db.close()
}

#[allow(dead_code)] // a test includes this file as a module
fn main() -> regionkv::Result<()> {
    let dir = std::env::args()
        .nth(1)
        .unwrap_or_else(|| "./index-rebuild-data".to_string());
    demo(std::path::Path::new(&dir))
}
