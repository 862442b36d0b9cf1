//! The shell's snapshot commands, HBase's `snapshot`, `list_snapshots`,
//! `list_table_snapshots`, `clone_snapshot`, `restore_snapshot`, `delete_snapshot`,
//! `delete_table_snapshots` and `delete_all_snapshot` (hbase-shell `commands/*.rb` and
//! `hbase/admin.rb`), over `regionkv::Admin`'s snapshots (docs/snapshots.md): the same
//! arguments, output tables, questions and error texts.

use regionkv::SnapshotDescription;

use super::args::{CmdError, CmdResult, Opts, arity, fail, int_arg, string_arg, table_arg};
use super::engine::{Engine, Out, Ret, hbase_error};
use super::parse::Value;
use super::tz::TimeZone;

/// Ruby's `Time#to_s` of `secs` since the epoch in the local zone:
/// `2024-10-15 14:13:25 +0800`.
fn ruby_time(secs: i64) -> String {
    let offset = TimeZone::local().offset_at(secs);
    let local = secs + i64::from(offset);
    let (y, m, d) = regionkv::cell::civil_from_days(local.div_euclid(86_400));
    let in_day = local.rem_euclid(86_400);
    let sign = if offset < 0 { '-' } else { '+' };
    let off = offset.unsigned_abs();
    format!(
        "{y:04}-{m:02}-{d:02} {:02}:{:02}:{:02} {sign}{:02}{:02}",
        in_day / 3600,
        in_day / 60 % 60,
        in_day % 60,
        off / 3600,
        off / 60 % 60
    )
}

/// The message HBase's shell prints for an engine error of a snapshot command.
fn snapshot_error(e: regionkv::Error, table: &str) -> CmdError {
    use regionkv::Error as E;
    let class = match &e {
        E::SnapshotExists(_) => "org.apache.hadoop.hbase.snapshot.SnapshotExistsException",
        E::SnapshotDoesNotExist(_) => {
            "org.apache.hadoop.hbase.snapshot.SnapshotDoesNotExistException"
        }
        E::SnapshotTtlExpired(_) => "org.apache.hadoop.hbase.snapshot.SnapshotTTLExpiredException",
        E::InvalidRequest(_) => "java.lang.IllegalArgumentException",
        _ => return hbase_error(e, table),
    };
    CmdError::Failed(format!("{class}: {e}"))
}

impl Engine {
    /// The snapshots whose names fully match `regex` (HBase's `listSnapshots(Pattern)`).
    fn snapshots_matching(&self, regex: &str) -> CmdResult<Vec<SnapshotDescription>> {
        let re = super::ddl::full_match(regex)?;
        let all = self
            .db
            .admin()
            .list_snapshots()
            .map_err(|e| snapshot_error(e, ""))?;
        Ok(all.into_iter().filter(|d| re.is_match(&d.name)).collect())
    }

    /// The `SNAPSHOT | TABLE + CREATION TIME` rows of `list_table_snapshots` and the
    /// delete commands.
    fn snapshot_rows(&self, list: &[SnapshotDescription], out: &mut Out<'_>) -> CmdResult<()> {
        for d in list {
            let created = ruby_time(d.creation_time.div_euclid(1000));
            out.row(&[&d.name, &format!("{} ({created})", d.table)])?;
        }
        Ok(())
    }

    /// `snapshot 'table', 'name'[, {SKIP_FLUSH => true, TTL => secs}]`.
    pub(super) fn snapshot(&self, args: &[Value]) -> CmdResult<Ret> {
        arity(args, 2, None)?;
        let table = match &args[0] {
            Value::Str(_) => table_arg(&args[0])?,
            _ => return fail("Table name must be of type String"),
        };
        let Value::Str(_) = &args[1] else {
            return fail("Snapshot name must be of type String");
        };
        let name = string_arg(&args[1], "Snapshot name")?;
        let mut options = regionkv::SnapshotOptions::default();
        for arg in &args[2..] {
            let Some(opts) = Opts::of(arg) else {
                return fail("Arguments should be a Hash");
            };
            if let Some(ttl) = opts.get_set("TTL") {
                options.ttl = int_arg(ttl, "TTL")?;
            }
            options.skip_flush |= matches!(opts.get("SKIP_FLUSH"), Some(Value::Bool(true)));
        }
        self.db
            .admin()
            .snapshot_with(&name, &table, &options)
            .map_err(|e| snapshot_error(e, &table))?;
        Ok(Ret::Nil)
    }

    /// `list_snapshots ['regex']`: HBase 2.x's table, `TTL(Sec)` column included.
    pub(super) fn list_snapshots(&self, args: &[Value], out: &mut Out<'_>) -> CmdResult<Ret> {
        arity(args, 0, Some(1))?;
        let regex = match args.first() {
            None => ".*".to_string(),
            Some(v) => string_arg(v, "The regular expression")?,
        };
        let list = self.snapshots_matching(&regex)?;
        out.header(&["SNAPSHOT", "TABLE + CREATION TIME + TTL(Sec)"])?;
        let now = regionkv::Clock::now_millis(&self.clock);
        for d in &list {
            let created = ruby_time(d.creation_time.div_euclid(1000));
            let ttl = match d.ttl {
                0 => "FOREVER".to_string(),
                ttl if d.is_expired(now) => format!("{ttl} (Expired) "),
                ttl => ttl.to_string(),
            };
            out.row(&[&d.name, &format!("{} ({created}) {ttl}", d.table)])?;
        }
        out.footer(Some(list.len() as u64))?;
        Ok(Ret::List(list.into_iter().map(|d| d.name).collect()))
    }

    /// The snapshots of tables matching `table_regex` whose names match `snapshot_regex`
    /// (HBase's `listTableSnapshots`).
    fn table_snapshots(
        &self,
        table_regex: &str,
        snapshot_regex: &str,
    ) -> CmdResult<Vec<SnapshotDescription>> {
        let tables = super::ddl::full_match(table_regex)?;
        Ok(self
            .snapshots_matching(snapshot_regex)?
            .into_iter()
            .filter(|d| {
                tables.is_match(&d.table)
                    || (!d.table.contains(':') && tables.is_match(&format!("default:{}", d.table)))
            })
            .collect())
    }

    /// `list_table_snapshots 'tableRegex'[, 'snapshotRegex']`.
    pub(super) fn list_table_snapshots(&self, args: &[Value], out: &mut Out<'_>) -> CmdResult<Ret> {
        arity(args, 1, Some(2))?;
        let table_regex = string_arg(&args[0], "The regular expression")?;
        let snapshot_regex = match args.get(1) {
            None => ".*".to_string(),
            Some(v) => string_arg(v, "The regular expression")?,
        };
        let list = self.table_snapshots(&table_regex, &snapshot_regex)?;
        out.header(&["SNAPSHOT", "TABLE + CREATION TIME"])?;
        self.snapshot_rows(&list, out)?;
        out.footer(Some(list.len() as u64))?;
        Ok(Ret::List(list.into_iter().map(|d| d.name).collect()))
    }

    /// `clone_snapshot 'name', 'table'[, {RESTORE_ACL => true}]` (regionkv has no ACLs:
    /// the option is accepted and has nothing to restore).
    pub(super) fn clone_snapshot(&self, args: &[Value]) -> CmdResult<Ret> {
        arity(args, 2, Some(3))?;
        let name = string_arg(&args[0], "Snapshot name")?;
        let table = table_arg(&args[1])?;
        if let Some(v) = args.get(2)
            && Opts::of(v).is_none()
        {
            return fail("Arguments should be a Hash");
        }
        match self.db.admin().clone_snapshot(&name, &table) {
            Ok(()) => Ok(Ret::Nil),
            // clone_snapshot.rb's handle_exceptions.
            Err(regionkv::Error::TableExists(_)) => fail(format!("Table already exists: {table}!")),
            Err(regionkv::Error::NamespaceNotFound(ns)) => {
                fail(format!("Unknown namespace: {ns}!"))
            }
            Err(e) => Err(snapshot_error(e, &table)),
        }
    }

    /// `restore_snapshot 'name'[, {RESTORE_ACL => true}]`: the table must be disabled.
    pub(super) fn restore_snapshot(&self, args: &[Value]) -> CmdResult<Ret> {
        arity(args, 1, Some(2))?;
        let name = string_arg(&args[0], "Snapshot name")?;
        self.db
            .admin()
            .restore_snapshot(&name)
            .map_err(|e| match e {
                regionkv::Error::TableNotDisabled(t) => CmdError::Failed(format!(
                    "org.apache.hadoop.hbase.TableNotDisabledException: {t}"
                )),
                e => snapshot_error(e, ""),
            })?;
        Ok(Ret::Nil)
    }

    /// `delete_snapshot 'name'`.
    pub(super) fn delete_snapshot(&self, args: &[Value]) -> CmdResult<Ret> {
        arity(args, 1, Some(1))?;
        let name = string_arg(&args[0], "Snapshot name")?;
        self.db
            .admin()
            .delete_snapshot(&name)
            .map_err(|e| snapshot_error(e, ""))?;
        Ok(Ret::Nil)
    }

    /// `delete_all_snapshot 'regex'`: lists the matches, asks `(y/n)?`, deletes on a `y`.
    pub(super) fn delete_all_snapshot(&self, args: &[Value], out: &mut Out<'_>) -> CmdResult<Ret> {
        arity(args, 1, Some(1))?;
        let regex = string_arg(&args[0], "The regular expression")?;
        let list = self.snapshots_matching(&regex)?;
        out.header(&["SNAPSHOT", "TABLE + CREATION TIME"])?;
        self.snapshot_rows(&list, out)?;
        if list.is_empty() {
            out.line(&format!("No snapshots matched the regex {regex}"))?;
            return Ok(Ret::Nil);
        }
        if !self.confirm(
            out,
            &format!("Delete the above {} snapshots (y/n)?", list.len()),
        )? {
            return Ok(Ret::Nil);
        }
        let admin = self.db.admin();
        for d in &list {
            if let Err(e) = admin.delete_snapshot(&d.name) {
                tracing::warn!(snapshot = %d.name, error = %e, "delete_all_snapshot: not deleted");
            }
        }
        let left = self.snapshots_matching(&regex)?;
        let deleted = list.len() - left.len().min(list.len());
        if deleted > 0 {
            out.line(&format!("{deleted} snapshots successfully deleted."))?;
        }
        if !left.is_empty() {
            out.line(&format!(
                "\nFailed to delete the below {} snapshots.",
                left.len()
            ))?;
            out.header(&["SNAPSHOT", "TABLE + CREATION TIME"])?;
            self.snapshot_rows(&left, out)?;
        }
        Ok(Ret::Nil)
    }

    /// `delete_table_snapshots 'tableRegex'[, 'snapshotRegex']`: lists, asks, deletes each,
    /// reporting each as HBase does.
    pub(super) fn delete_table_snapshots(
        &self,
        args: &[Value],
        out: &mut Out<'_>,
    ) -> CmdResult<Ret> {
        arity(args, 1, Some(2))?;
        let table_regex = string_arg(&args[0], "The regular expression")?;
        let snapshot_regex = match args.get(1) {
            None => ".*".to_string(),
            Some(v) => string_arg(v, "The regular expression")?,
        };
        out.header(&["SNAPSHOT", "TABLE + CREATION TIME"])?;
        let list = self.table_snapshots(&table_regex, &snapshot_regex)?;
        self.snapshot_rows(&list, out)?;
        if list.is_empty() {
            out.line(&format!(
                "No snapshots matched the table name regular expression {table_regex} and the snapshot name regular expression {snapshot_regex}"
            ))?;
            return Ok(Ret::Nil);
        }
        if !self.confirm(
            out,
            &format!("Delete the above {} snapshots (y/n)?", list.len()),
        )? {
            return Ok(Ret::Nil);
        }
        let admin = self.db.admin();
        for d in &list {
            match admin.delete_snapshot(&d.name) {
                Ok(()) => out.line(&format!("Successfully deleted snapshot: {}", d.name))?,
                Err(e) => out.line(&format!(
                    "Failed to delete snapshot: {}, due to below exception,\n{e}",
                    d.name
                ))?,
            }
            // Ruby's `puts "\n"`: one empty line.
            out.line("")?;
        }
        Ok(Ret::Nil)
    }
}
