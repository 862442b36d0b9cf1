//! Secondary-index recipe 1: the client writes the index itself (HBase reference guide,
//! "Dual-Write Secondary Index"). docs/secondary-indexes.md has the trade-offs.
//!
//! Setting a user's email is three writes in this order, all at one timestamp `t`: the new
//! index entry, the base row, then the delete of the old entry's versions before `t`. The
//! order is the recipe: whatever the process dies between, the index never misses a base
//! row. It may hold entries that name a base row which does not carry that email (a new
//! entry whose base write never came, or an old entry whose delete never came), so every
//! lookup checks the base row and a read repair deletes what failed the check. The one
//! timestamp is what makes two writers of one row safe (see `users::index_delete_before`).
//! A failed write is retried whole: each of its writes is idempotent.
//!
//! `cargo run -p regionkv --example index_dual_write [DIR]`

#[path = "support/users.rs"]
pub mod users;

use regionkv::{Db, DbOptions, Put};
use users::{Between, INFO};

/// Sets `user`'s name and email: index entry first, then the base row, then the old
/// entry's delete, all at one timestamp. `between` runs between the first two writes.
pub fn set_email(
    db: &Db,
    user: &str,
    name: &str,
    email: &str,
    between: &Between,
) -> regionkv::Result<()> {
    let t = users::now_ms(db);
    let old = users::current_email(db, user.as_bytes())?;
    let index = db.table(users::BY_EMAIL)?;
    index.put(&users::index_put(email.as_bytes(), user.as_bytes(), t))?;
    between();
    db.table(users::USERS)?.put(
        &Put::new(user)
            .add_column_at(INFO, users::NAME, t, name)
            .add_column_at(INFO, users::EMAIL, t, email),
    )?;
    if let Some(old) = old.filter(|o| o != email.as_bytes()) {
        index.delete(&users::index_delete_before(&old, user.as_bytes(), t))?;
    }
    Ok(())
}

/// Opens the Db at `dir` with both tables.
pub fn open(dir: &std::path::Path) -> regionkv::Result<Db> {
    let db = Db::open(dir, DbOptions::default())?;
    users::create_tables(&db, &users::users_descriptor()?)?;
    Ok(db)
}

/// The demonstration `main` runs: writes, a lookup, an email change, and a lookup that
/// meets a dangling entry (what a crash between the first two writes leaves) and repairs it.
pub fn demo(dir: &std::path::Path) -> regionkv::Result<()> {
    let db = open(dir)?;
    let go = users::no_pause();
    set_email(&db, "u1", "Ada", "ada@example.com", &go)?;
    set_email(&db, "u2", "Grace", "grace@example.com", &go)?;
    println!(
        "lookup ada@example.com: {:?}",
        users::lookup(&db, "ada@example.com")?.users
    );
    set_email(&db, "u1", "Ada", "ada@lovelace.org", &go)?;
    println!(
        "after the change, ada@example.com finds {} user(s), ada@lovelace.org finds {:?}",
        users::lookup(&db, "ada@example.com")?.users.len(),
        users::lookup(&db, "ada@lovelace.org")?.users
    );
    // The state a crash after the first write leaves: an entry with no base row.
    db.table(users::BY_EMAIL)?.put(&users::index_put(
        b"ghost@example.com",
        b"u9",
        users::now_ms(&db),
    ))?;
    let found = users::lookup(&db, "ghost@example.com")?;
    println!(
        "ghost@example.com: {} user(s), {} stale entr(y/ies)",
        found.users.len(),
        found.stale.len()
    );
    let repaired = users::read_repair(&db, &found.stale, 0, users::now_ms(&db))?;
    println!(
        "read repair deleted {repaired}; the index now holds {:?}",
        users::index_entries(&db)?
    );
    db.close()
}

#[allow(dead_code)] // a test includes this file as a module
fn main() -> regionkv::Result<()> {
    let dir = std::env::args()
        .nth(1)
        .unwrap_or_else(|| "./index-dual-write-data".to_string());
    demo(std::path::Path::new(&dir))
}
