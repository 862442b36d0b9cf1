//! Secondary-index recipe 3: a summary table kept with counters (HBase reference guide,
//! "Summary Tables"). docs/secondary-indexes.md has the trade-offs.
//!
//! Every page view is a row of `pageviews` (`day#page#event`, family `e`), and bumps the
//! counter `c:<page>` of the day's row in `pageviews_daily`: a question such as "views
//! per page on a day" reads one row instead of scanning the day's events.
//!
//! The event and the counter are two writes in two tables. The event goes first, so a
//! process that dies between them leaves a counter one short (never one too many), and
//! a retried view is idempotent on the event row (its id is in the key) but not on the
//! counter: an increment the application sends again after losing its answer counts
//! twice (HBase's client de-duplicates its own RPC retries with nonces; an application's
//! resend is a new increment). The repair is [`recount`]: scan the day's events and put
//! the exact counts, for a day nobody writes to any more (a recount racing increments of
//! the same day loses them).
//!
//! `cargo run -p regionkv --example summary_table [DIR]`

#[path = "support/users.rs"]
pub mod users;

use regionkv::{ColumnFamilyDescriptor, Db, DbOptions, Get, Increment, Put, Scan, TableDescriptor};
use std::collections::BTreeMap;
use users::Between;

/// The event table.
pub const EVENTS: &str = "pageviews";
/// The summary table.
pub const DAILY: &str = "pageviews_daily";

/// Opens the Db at `dir` with both tables.
pub fn open(dir: &std::path::Path) -> regionkv::Result<Db> {
    let db = Db::open(dir, DbOptions::default())?;
    for (name, family) in [(EVENTS, b"e"), (DAILY, b"c")] {
        if !db.admin().table_exists(name)? {
            let desc = TableDescriptor::new(name, vec![ColumnFamilyDescriptor::new(family)?])?;
            db.admin().create_table(&desc)?;
        }
    }
    Ok(db)
}

/// Records a view of `page` on `day` by `user`: the event row, then the counter.
pub fn record_view(
    db: &Db,
    day: &str,
    page: &str,
    event: &str,
    user: &str,
    between: &Between,
) -> regionkv::Result<()> {
    db.table(EVENTS)?
        .put(&Put::new(format!("{day}#{page}#{event}")).add_column("e", "user", user))?;
    between();
    db.table(DAILY)?
        .increment(&Increment::new(day).add_column("c", page, 1))?;
    Ok(())
}

/// The day's counters, as the summary table has them.
pub fn daily(db: &Db, day: &str) -> regionkv::Result<BTreeMap<String, i64>> {
    let row = db.table(DAILY)?.get(&Get::new(day))?;
    Ok(row
        .cells()
        .iter()
        .filter_map(|c| {
            let n = <[u8; 8]>::try_from(c.value())
                .ok()
                .map(i64::from_be_bytes)?;
            Some((String::from_utf8_lossy(c.qualifier()).into_owned(), n))
        })
        .collect())
}

/// The day's views per page, counted from the events.
pub fn count_events(db: &Db, day: &str) -> regionkv::Result<BTreeMap<String, i64>> {
    let mut counts = BTreeMap::new();
    let prefix = format!("{day}#");
    for row in db.table(EVENTS)?.scan(&Scan::new().row_prefix(&prefix))? {
        let row = row?;
        let rest = &row.row()[prefix.len()..];
        let page = rest.split(|&b| b == b'#').next().unwrap_or_default();
        *counts
            .entry(String::from_utf8_lossy(page).into_owned())
            .or_insert(0) += 1;
    }
    Ok(counts)
}

/// Rewrites the day's counters from its events (8-byte values, so increments go on
/// working), and returns the counters that changed: (page, before, after).
pub fn recount(db: &Db, day: &str) -> regionkv::Result<Vec<(String, i64, i64)>> {
    let before = daily(db, day)?;
    let mut after = count_events(db, day)?;
    // A counter with no event left (an increment sent twice, say) goes to 0.
    for page in before.keys() {
        after.entry(page.clone()).or_insert(0);
    }
    let mut put = Put::new(day);
    let mut changed = Vec::new();
    for (page, n) in &after {
        let was = before.get(page).copied().unwrap_or(0);
        if was != *n {
            put = put.add_column("c", page, n.to_be_bytes());
            changed.push((page.clone(), was, *n));
        }
    }
    if !put.is_empty() {
        db.table(DAILY)?.put(&put)?;
    }
    Ok(changed)
}

/// The demonstration `main` runs.
pub fn demo(dir: &std::path::Path) -> regionkv::Result<()> {
    let db = open(dir)?;
    let go = users::no_pause();
    for (i, page) in ["/", "/about", "/", "/pricing", "/"].iter().enumerate() {
        record_view(&db, "20261128", page, &format!("ev{i:04}"), "u1", &go)?;
    }
    println!("views on 20261128: {:?}", daily(&db, "20261128")?);
    // What a crash between the two writes leaves: an event nobody counted.
    db.table(EVENTS)?
        .put(&Put::new("20261128#/about#ev9999").add_column("e", "user", "u2"))?;
    println!("recount changed {:?}", recount(&db, "20261128")?);
    println!("views on 20261128: {:?}", daily(&db, "20261128")?);
    db.close()
}

#[allow(dead_code)] // a test includes this file as a module
fn main() -> regionkv::Result<()> {
    let dir = std::env::args()
        .nth(1)
        .unwrap_or_else(|| "./summary-table-data".to_string());
    demo(std::path::Path::new(&dir))
}
