//! The users table and its email index, shared by the secondary-index recipes
//! (`index_dual_write`, `index_observer`, `index_rebuild`; docs/secondary-indexes.md).
//!
//! The base table `users` is keyed by user id, with the family `info` holding `name` and
//! `email`. The index table `users_by_email` has one row per (email, user): the row is
//! `email 0x00 user`, so a lookup is a prefix scan and two users may share an address;
//! its one cell `i:r` holds the base row. Emails never contain a NUL byte, so the prefix
//! `email 0x00` matches that address only.
//!
//! Nothing in HBase makes an index row and its base row one atomic write (they are in two
//! tables, usually on two servers), so every read here goes through the index and then
//! checks the base row: an index entry is a hint, the base row is the truth. The entries
//! that fail the check are returned as stale, for a read repair to delete.

#![allow(dead_code)] // each recipe uses part of this module

use regionkv::{Cell, ColumnFamilyDescriptor, Db, Delete, Get, Put, Scan, TableDescriptor};
use std::sync::Arc;

/// The base table.
pub const USERS: &str = "users";
/// The index table.
pub const BY_EMAIL: &str = "users_by_email";
/// The base table's family.
pub const INFO: &[u8] = b"info";
/// The indexed column.
pub const EMAIL: &[u8] = b"email";
/// The other column.
pub const NAME: &[u8] = b"name";
/// The index table's family.
pub const I: &[u8] = b"i";
/// The index table's one qualifier: its value is the base row.
pub const R: &[u8] = b"r";

/// What a recipe calls between its two writes. A test's child process prints a marker
/// there and waits to be killed; the examples pass [`no_pause`].
pub type Between = Arc<dyn Fn() + Send + Sync>;

/// A [`Between`] that does nothing.
pub fn no_pause() -> Between {
    Arc::new(|| {})
}

/// The base table's descriptor.
pub fn users_descriptor() -> regionkv::Result<TableDescriptor> {
    Ok(TableDescriptor::new(
        USERS,
        vec![ColumnFamilyDescriptor::new(INFO)?],
    )?)
}

/// Creates `users` (from `users`, which may carry a coprocessor spec) and the index table,
/// unless they exist.
pub fn create_tables(db: &Db, users: &TableDescriptor) -> regionkv::Result<()> {
    let admin = db.admin();
    if !admin.table_exists(USERS)? {
        admin.create_table(users)?;
    }
    if !admin.table_exists(BY_EMAIL)? {
        let index = TableDescriptor::new(BY_EMAIL, vec![ColumnFamilyDescriptor::new(I)?])?;
        admin.create_table(&index)?;
    }
    Ok(())
}

/// The index row of (`email`, `user`).
pub fn index_row(email: &[u8], user: &[u8]) -> Vec<u8> {
    let mut row = Vec::with_capacity(email.len() + 1 + user.len());
    row.extend_from_slice(email);
    row.push(0);
    row.extend_from_slice(user);
    row
}

/// The prefix of every index row of `email`.
pub fn index_prefix(email: &[u8]) -> Vec<u8> {
    let mut p = email.to_vec();
    p.push(0);
    p
}

/// The put of the index entry (`email`, `user`) at `ts`: the timestamp of the base cell it
/// indexes, so that a later change's delete of it (below) cannot hide a newer entry.
pub fn index_put(email: &[u8], user: &[u8], ts: i64) -> Put {
    Put::new(index_row(email, user)).add_column_at(I, R, ts, user)
}

/// The delete of the entry (`email`, `user`) that a change written at `ts` makes: every
/// version before `ts`. Two writers changing one row race; with one timestamp per change,
/// the change with the newer timestamp wins the base row, and its entry is at that
/// timestamp, which no older change's delete reaches. A tie leaves an extra entry (which
/// lookups drop), never a missing one.
pub fn index_delete_before(email: &[u8], user: &[u8], ts: i64) -> Delete {
    Delete::new(index_row(email, user)).add_columns_at(I, R, ts - 1)
}

/// A user as the base table has it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct User {
    /// The base row.
    pub id: String,
    /// `info:name`.
    pub name: String,
    /// `info:email`.
    pub email: String,
}

/// An index entry whose base row does not (or no longer) carry its email.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct StaleEntry {
    /// The index row.
    pub row: Vec<u8>,
    /// The base row it names.
    pub user: String,
    /// The entry cell's timestamp: a repair deletes exactly this version, so an entry
    /// written again since is kept.
    pub timestamp: i64,
}

/// What a lookup through the index found.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Lookup {
    /// The users whose base row carries the email.
    pub users: Vec<User>,
    /// The entries that named a user whose base row does not.
    pub stale: Vec<StaleEntry>,
}

/// The current email of `user` and its timestamp, from the base table.
pub fn email_cell(db: &Db, user: &[u8]) -> regionkv::Result<Option<(Vec<u8>, i64)>> {
    let row = db
        .table(USERS)?
        .get(&Get::new(user).add_column(INFO, EMAIL))?;
    Ok(row
        .latest_cell(INFO, EMAIL)
        .map(|c| (c.value().to_vec(), c.timestamp())))
}

/// The current email of `user`, from the base table.
pub fn current_email(db: &Db, user: &[u8]) -> regionkv::Result<Option<Vec<u8>>> {
    Ok(email_cell(db, user)?.map(|(email, _)| email))
}

/// Looks `email` up: a prefix scan of the index, then one multiget of the base rows it
/// names (grouped per region by the client), each checked against the email.
pub fn lookup(db: &Db, email: &str) -> regionkv::Result<Lookup> {
    let index = db.table(BY_EMAIL)?;
    let mut entries: Vec<Cell> = Vec::new();
    for row in index.scan(&Scan::new().row_prefix(index_prefix(email.as_bytes())))? {
        if let Some(cell) = row?.latest_cell(I, R) {
            entries.push(cell.clone());
        }
    }
    let gets: Vec<Get> = entries.iter().map(|c| Get::new(c.value())).collect();
    let rows = db.table(USERS)?.get_all(&gets)?;
    let mut found = Lookup::default();
    for (entry, row) in entries.iter().zip(rows) {
        let user = String::from_utf8_lossy(entry.value()).into_owned();
        match row.value(INFO, EMAIL) {
            Some(e) if e == email.as_bytes() => found.users.push(User {
                id: user,
                name: String::from_utf8_lossy(row.value(INFO, NAME).unwrap_or_default())
                    .into_owned(),
                email: email.to_string(),
            }),
            _ => found.stale.push(StaleEntry {
                row: entry.row().to_vec(),
                user,
                timestamp: entry.timestamp(),
            }),
        }
    }
    Ok(found)
}

/// Deletes the stale entries a lookup found that are older than `grace_ms` at `now_ms`,
/// each at its own timestamp, and returns how many it deleted.
///
/// The grace period is what makes a read repair safe next to dual writers: an entry a
/// writer has just put, whose base row is not written yet, looks stale for that moment,
/// and deleting it would lose the index entry of a row about to exist. Production
/// systems pick a grace far above a write's longest life (a minute, say).
pub fn read_repair(
    db: &Db,
    stale: &[StaleEntry],
    grace_ms: i64,
    now_ms: i64,
) -> regionkv::Result<usize> {
    let index = db.table(BY_EMAIL)?;
    let old: Vec<Delete> = stale
        .iter()
        .filter(|s| s.timestamp <= now_ms - grace_ms)
        .map(|s| Delete::new(&s.row).add_column_at(I, R, s.timestamp))
        .collect();
    index.delete_all(&old)?;
    Ok(old.len())
}

/// Every entry of the index as (email, user), in index order: what a reader of the raw
/// index table sees.
pub fn index_entries(db: &Db) -> regionkv::Result<Vec<(String, String)>> {
    let mut out = Vec::new();
    for row in db.table(BY_EMAIL)?.scan(&Scan::new())? {
        let row = row?;
        if let Some(nul) = row.row().iter().position(|&b| b == 0) {
            let (email, user) = row.row().split_at(nul);
            out.push((
                String::from_utf8_lossy(email).into_owned(),
                String::from_utf8_lossy(&user[1..]).into_owned(),
            ));
        }
    }
    Ok(out)
}

/// The current time of the Db's clock, in ms (what cell timestamps are).
pub fn now_ms(db: &Db) -> i64 {
    db.clock().now_millis()
}
