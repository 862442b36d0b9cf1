//! Secondary-index recipe 2: a region observer maintains the index (HBase reference
//! guide, "Coprocessor Secondary Index"). docs/secondary-indexes.md has the trade-offs.
//!
//! The client writes only the base table. The observer, loaded on `users` by the spec
//! `|com.example.EmailIndexObserver||index=users_by_email`, reads the row's old email in
//! `pre_put` / `pre_delete` and, once the base write is durable, writes the new entry and
//! deletes the old one in `post_put` / `post_delete`, through the Db's connection. The
//! entry takes the timestamp the base cell was written with (`post_put` sees it, as in
//! HBase), and the old entry's delete covers only versions before it, so two writers of
//! one row cannot leave a missing entry (see `users::index_delete_before`).
//!
//! As in HBase the two writes are not atomic: the base write comes first, so a process
//! that dies before the observer's writes leaves a base row the index misses (a lookup
//! by the new email does not find it) and an old entry that names it (a lookup by the old
//! email checks the base row and drops it). Read repair cleans the second; the first comes
//! back when the client retries the put (the observer always writes the entry, which is
//! idempotent) or from a rebuild (`index_rebuild`). A failed index write fails the
//! client's put although the base row was written, as an IOException from HBase's
//! `postPut` does: the client should retry it.
//!
//! `cargo run -p regionkv --example index_observer [DIR]`

#[path = "support/users.rs"]
pub mod users;

use parking_lot::Mutex;
use regionkv::coprocessor::{
    CoprocessorError, CoprocessorResult, ObserverContext, RegionEnvironment, RegionObserver,
};
use regionkv::{Db, DbOptions, Delete, Put};
use std::collections::HashMap;
use std::sync::Arc;
use users::{Between, EMAIL, INFO};

/// The observer's class name, as the table's `coprocessor$N` spec names it.
pub const CLASS: &str = "com.example.EmailIndexObserver";

/// Maintains `index=` (from the spec) for the `info:email` column of its region.
pub struct EmailIndexObserver {
    index: String,
    /// The email each row had when its pre hook ran, for the post hook to delete. Keyed by
    /// row: two writers of one row racing between their pre and post hooks may swap what
    /// they delete, which leaves a stale entry (lookups drop it, a rebuild removes it) but
    /// never removes the winner's entry, whose timestamp their deletes do not reach. A
    /// write that fails after its pre hook leaves its row's note here until the row's
    /// next write replaces it.
    old: Mutex<HashMap<Vec<u8>, Option<Vec<u8>>>>,
    between: Between,
}

fn failed(e: regionkv::Error) -> CoprocessorError {
    CoprocessorError::new(format!("index maintenance failed: {e}"))
}

impl EmailIndexObserver {
    fn new(env: &RegionEnvironment, between: Between) -> Self {
        let index = env
            .spec
            .properties
            .iter()
            .find(|(k, _)| k == "index")
            .map(|(_, v)| v.clone())
            .unwrap_or_else(|| users::BY_EMAIL.to_string());
        Self {
            index,
            old: Mutex::new(HashMap::new()),
            between,
        }
    }

    fn db(ctx: &ObserverContext<'_>) -> CoprocessorResult<Db> {
        ctx.environment()
            .connection()
            .ok_or_else(|| CoprocessorError::new("the Db is closing"))
    }

    /// Notes the row's current email before a write that may change it.
    fn remember(&self, ctx: &ObserverContext<'_>, row: &[u8]) -> CoprocessorResult<()> {
        let old = users::current_email(&Self::db(ctx)?, row).map_err(failed)?;
        self.old.lock().insert(row.to_vec(), old);
        Ok(())
    }

    /// Points the index at `new` (the email and the timestamp it was written with) for
    /// `row`; `None`: the row lost its email, at `at`.
    fn reindex(
        &self,
        ctx: &ObserverContext<'_>,
        row: &[u8],
        new: Option<(&[u8], i64)>,
        at: i64,
    ) -> CoprocessorResult<()> {
        let old = self.old.lock().remove(row).flatten();
        (self.between)();
        let index = Self::db(ctx)?.table(&self.index).map_err(failed)?;
        if let Some((email, ts)) = new {
            // Always, even when the email did not change: a retried put then restores an
            // entry a failed or killed first attempt never wrote.
            index
                .put(&users::index_put(email, row, ts))
                .map_err(failed)?;
        }
        if let Some(old) = old.filter(|o| Some(o.as_slice()) != new.map(|(e, _)| e)) {
            index
                .delete(&users::index_delete_before(&old, row, at))
                .map_err(failed)?;
        }
        Ok(())
    }
}

/// The email a put writes, and the timestamp it was written with, if it writes one.
fn written_email(put: &Put) -> Option<(&[u8], i64)> {
    put.entries()
        .iter()
        .rev()
        .find(|(family, qualifier, _, _)| family == INFO && qualifier == EMAIL)
        .map(|(_, _, ts, value)| (value.as_slice(), *ts))
}

impl RegionObserver for EmailIndexObserver {
    fn pre_put(&self, ctx: &mut ObserverContext<'_>, put: &mut Put) -> CoprocessorResult<()> {
        if written_email(put).is_some() {
            self.remember(ctx, put.row())?;
        }
        Ok(())
    }

    fn post_put(&self, ctx: &mut ObserverContext<'_>, put: &Put) -> CoprocessorResult<()> {
        match written_email(put) {
            Some((email, ts)) => self.reindex(ctx, put.row(), Some((email, ts)), ts),
            None => Ok(()),
        }
    }

    fn pre_delete(&self, ctx: &mut ObserverContext<'_>, d: &mut Delete) -> CoprocessorResult<()> {
        self.remember(ctx, d.row())
    }

    fn post_delete(&self, ctx: &mut ObserverContext<'_>, d: &Delete) -> CoprocessorResult<()> {
        // What the row still has after the delete (a delete of another column keeps it).
        let db = Self::db(ctx)?;
        let now = users::email_cell(&db, d.row()).map_err(failed)?;
        let at = users::now_ms(&db) + 1;
        self.reindex(
            ctx,
            d.row(),
            now.as_ref().map(|(e, ts)| (e.as_slice(), *ts)),
            at,
        )
    }
}

/// Db options with the observer class registered; `between` runs in the post hooks,
/// after the base write and before the index writes.
pub fn options(between: Between) -> DbOptions {
    DbOptions::default().coprocessor(CLASS, move |env: &RegionEnvironment| {
        Arc::new(EmailIndexObserver::new(env, between.clone()))
    })
}

/// Opens the Db at `dir` and creates `users` (loading the observer) and the index table.
pub fn open(dir: &std::path::Path, between: Between) -> regionkv::Result<Db> {
    let db = Db::open(dir, options(between))?;
    let mut desc = users::users_descriptor()?;
    desc.add_coprocessor(&format!("|{CLASS}||index={}", users::BY_EMAIL))?;
    users::create_tables(&db, &desc)?;
    Ok(db)
}

/// Sets `user`'s name and email: one put of the base row; the observer does the rest.
pub fn set_email(db: &Db, user: &str, name: &str, email: &str) -> regionkv::Result<()> {
    db.table(users::USERS)?.put(
        &Put::new(user)
            .add_column(INFO, users::NAME, name)
            .add_column(INFO, EMAIL, email),
    )
}

/// The demonstration `main` runs.
pub fn demo(dir: &std::path::Path) -> regionkv::Result<()> {
    let db = open(dir, users::no_pause())?;
    set_email(&db, "u1", "Ada", "ada@example.com")?;
    set_email(&db, "u2", "Grace", "grace@example.com")?;
    println!("index after two puts: {:?}", users::index_entries(&db)?);
    set_email(&db, "u1", "Ada", "ada@lovelace.org")?;
    println!("index after u1's change: {:?}", users::index_entries(&db)?);
    println!(
        "lookup ada@lovelace.org: {:?}",
        users::lookup(&db, "ada@lovelace.org")?.users
    );
    db.table(users::USERS)?.delete(&Delete::new("u2"))?;
    println!("index after u2's delete: {:?}", users::index_entries(&db)?);
    db.close()
}

#[allow(dead_code)] // a test includes this file as a module
fn main() -> regionkv::Result<()> {
    let dir = std::env::args()
        .nth(1)
        .unwrap_or_else(|| "./index-observer-data".to_string());
    demo(std::path::Path::new(&dir))
}
