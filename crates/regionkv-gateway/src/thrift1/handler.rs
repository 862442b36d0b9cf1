//! The Thrift1 methods with HBase's rules (ThriftHBaseServiceHandler and ThriftUtilities of
//! HBase 2.x, restated): what each call reads and writes, and the errors it raises.
//!
//! The rules that surprise people, kept on purpose because HBase has them:
//! - every `*Ts` read asks for timestamps in `[0, ts)`: the given timestamp is excluded;
//! - rows without cells are left out of `getRow*`, `getRows*` and scanner results;
//! - `mutateRow(Ts)` applies the row's deletes, then its put (two operations); `mutateRows(Ts)`
//!   applies every put of the batch, then every delete; a put of a family without a
//!   qualifier is ignored by `mutateRow` and refused by `mutateRows`;
//! - a delete of `cf:q` removes every version up to the timestamp (HBase's `addColumns`);
//! - `majorCompact` runs the same (minor) compaction as `compact`;
//! - scanner ids count up from 0 and are shared by every connection;
//! - errors a Java handler does not catch (an unparsable filter, a family-only column where
//!   a qualifier is needed) reach the client as TApplicationException INTERNAL_ERROR.

use std::collections::BTreeMap;

use parking_lot::Mutex;
use regionkv::{
    Append, CheckAndMutate, ColumnFamilyDescriptor, Db, Delete, Durability, Get, Increment, Put,
    ResultScanner, RowResult, Scan, TableDescriptor, TimeRange,
};
use thrift::protocol::{
    TBinaryOutputProtocol, TCompactOutputProtocol, TFieldIdentifier, TInputProtocol,
    TListIdentifier, TMapIdentifier, TMessageIdentifier, TMessageType, TOutputProtocol,
    TSerializable, TStructIdentifier, TType,
};
use thrift::{ApplicationError, ApplicationErrorKind};

use super::generated::{
    AlreadyExists, BatchMutation, Bytes, ColumnDescriptor, HbaseSyncHandler, IOError,
    IllegalArgument, Mutation, ScannerID, TAccessControlEntity, TAppend, TCell, TColumn,
    TIncrement, TRegionInfo, TRowResult, TScan, TThriftServerType, Text,
};
use crate::GatewayConfig;
use crate::common::{
    Column, ErrorKind, LATEST_TIMESTAMP, THRIFT_READ_ONLY, column_name, java_message,
};
use crate::scanners::ScannerRegistry;

/// HBase's `ThriftHBaseServiceHandler.HREGION_VERSION`.
const HREGION_VERSION: i8 = 1;

/// The port HBase's region servers listen on (regionkv's regions are served in-process;
/// region descriptions name this host and HBase's default port).
const REGION_SERVER_PORT: i32 = 16020;

type Attributes = BTreeMap<Text, Text>;
type TResult<T> = thrift::Result<T>;

/// An open scanner and whether its rows go out as `sortedColumns`.
pub struct ThriftScanner {
    scanner: ResultScanner,
    sort_columns: bool,
}

/// The Thrift1 handler over one Db.
pub struct Handler {
    db: Db,
    read_only: bool,
    scanners: ScannerRegistry<ThriftScanner>,
    host: String,
}

impl Handler {
    /// A handler over `db`.
    pub fn new(db: Db, config: &GatewayConfig) -> Self {
        let host = if config.bind.is_unspecified() || config.bind.is_loopback() {
            "localhost".to_string()
        } else {
            config.bind.to_string()
        };
        Handler {
            db,
            read_only: config.read_only,
            scanners: ScannerRegistry::new(config.limits.max_scanners, config.limits.scanner_lease),
            host,
        }
    }

    /// Open scanners (for tests and metrics).
    pub fn open_scanners(&self) -> usize {
        self.scanners.len()
    }

    fn table(&self, name: &[u8]) -> TResult<regionkv::Table> {
        let name = table_name(name)?;
        self.db.table(&name).map_err(|e| io_error(&e))
    }

    fn check_writable(&self) -> TResult<()> {
        if self.read_only {
            return Err(io_message(THRIFT_READ_ONLY.to_string()));
        }
        Ok(())
    }

    fn get_cells(
        &self,
        table: &[u8],
        row: &[u8],
        column: &[u8],
        timestamp: Option<i64>,
        versions: Option<i32>,
    ) -> TResult<Vec<TCell>> {
        let t = self.table(table)?;
        let mut get = Get::new(row);
        get = match Column::parse(column) {
            Column::Family(f) => get.add_family(f),
            Column::Qualified(f, q) => get.add_column(f, q),
        };
        if let Some(ts) = timestamp {
            get = get.time_range(until(ts)?);
        }
        if let Some(n) = versions {
            get = get.max_versions(read_versions(n)?);
        }
        let r = t.get(&get).map_err(|e| io_error(&e))?;
        Ok(cells_of(&r))
    }

    fn get_rows(
        &self,
        table: &[u8],
        rows: Vec<Text>,
        columns: Option<Vec<Text>>,
        timestamp: i64,
    ) -> TResult<Vec<TRowResult>> {
        let t = self.table(table)?;
        let range = until(timestamp)?;
        let gets: Vec<Get> = rows
            .iter()
            .map(|row| {
                let mut get = Get::new(row);
                for c in columns.iter().flatten() {
                    get = match Column::parse(c) {
                        Column::Family(f) => get.add_family(f),
                        Column::Qualified(f, q) => get.add_column(f, q),
                    };
                }
                get.time_range(range)
            })
            .collect();
        let results = t.get_all(&gets).map_err(|e| io_error(&e))?;
        Ok(row_results(results.iter(), false))
    }

    fn mutate_row(
        &self,
        table: &[u8],
        row: Text,
        mutations: Vec<Mutation>,
        timestamp: i64,
    ) -> TResult<()> {
        self.check_writable()?;
        let t = self.table(table)?;
        let (put, delete) = row_mutations(&row, &mutations, timestamp, false)?;
        if let Some(d) = delete {
            t.delete(&d).map_err(|e| write_error(&e))?;
        }
        if let Some(p) = put {
            t.put(&p).map_err(|e| write_error(&e))?;
        }
        Ok(())
    }

    fn mutate_rows(
        &self,
        table: &[u8],
        batches: Vec<BatchMutation>,
        timestamp: i64,
    ) -> TResult<()> {
        self.check_writable()?;
        let mut puts = Vec::new();
        let mut deletes = Vec::new();
        for b in batches {
            let row = b.row.unwrap_or_default();
            let mutations = b.mutations.unwrap_or_default();
            let (put, delete) = row_mutations(&row, &mutations, timestamp, true)?;
            puts.extend(put);
            deletes.extend(delete);
        }
        let t = self.table(table)?;
        if !puts.is_empty() {
            t.put_all(&puts).map_err(|e| write_error(&e))?;
        }
        if !deletes.is_empty() {
            t.delete_all(&deletes).map_err(|e| write_error(&e))?;
        }
        Ok(())
    }

    fn delete_all_ts(&self, table: &[u8], row: &[u8], column: &[u8], ts: i64) -> TResult<()> {
        self.check_writable()?;
        let t = self.table(table)?;
        let d = match Column::parse(column) {
            Column::Family(f) => delete_family(Delete::new(row), &f, ts),
            Column::Qualified(f, q) => delete_columns(Delete::new(row), &f, &q, ts),
        };
        t.delete(&d).map_err(|e| io_error(&e))
    }

    fn delete_all_row_ts(&self, table: &[u8], row: &[u8], ts: i64) -> TResult<()> {
        self.check_writable()?;
        let t = self.table(table)?;
        let d = if ts == LATEST_TIMESTAMP {
            Delete::new(row)
        } else {
            Delete::with_timestamp(row, ts)
        };
        t.delete(&d).map_err(|e| io_error(&e))
    }

    fn open_scanner(&self, table: &[u8], scan: Scan, sort_columns: bool) -> TResult<ScannerID> {
        let t = self.table(table)?;
        let scanner = t.scan(&scan).map_err(|e| io_error(&e))?;
        let id = self
            .scanners
            .insert(ThriftScanner {
                scanner,
                sort_columns,
            })
            .map_err(|e| io_message(format!("java.io.IOException: {e}")))?;
        // HBase numbers scanners with a Java int.
        Ok((id % (i32::MAX as u64 + 1)) as i32)
    }

    fn scanner(&self, id: ScannerID) -> TResult<std::sync::Arc<Mutex<ThriftScanner>>> {
        u64::try_from(id)
            .ok()
            .and_then(|id| self.scanners.get(id))
            .ok_or_else(|| illegal("scanner ID is invalid".to_string()))
    }

    /// Up to `nb_rows` rows of scanner `id` (`ResultScanner.next(n)`), and whether they go
    /// out as sortedColumns.
    fn next_rows(&self, id: ScannerID, nb_rows: i32) -> TResult<(Vec<RowResult>, bool)> {
        let scanner = self.scanner(id)?;
        let mut guard = scanner.lock();
        let want = usize::try_from(nb_rows).unwrap_or(0);
        let mut results = Vec::with_capacity(want.min(10_000));
        while results.len() < want {
            match guard.scanner.next() {
                None => break,
                Some(Ok(r)) => results.push(r),
                Some(Err(e)) => return Err(io_error(&e)),
            }
        }
        Ok((results, guard.sort_columns))
    }

    /// Encodes up to `nb_rows` rows of scanner `id` into `out` as TRowResult structs (empty
    /// rows left out) and returns how many it wrote. Each row is encoded as it comes and
    /// dropped: a reply never holds the engine's rows, only their bytes.
    fn encode_next_rows(
        &self,
        id: ScannerID,
        nb_rows: i32,
        compact: bool,
        out: &mut Vec<u8>,
    ) -> TResult<usize> {
        let scanner = self.scanner(id)?;
        let mut guard = scanner.lock();
        let sort_columns = guard.sort_columns;
        let want = usize::try_from(nb_rows).unwrap_or(0);
        let mut scratch = Vec::new();
        let (mut binary, mut compact_protocol);
        let o: &mut dyn TOutputProtocol = if compact {
            compact_protocol = TCompactOutputProtocol::new(&mut *out);
            &mut compact_protocol
        } else {
            binary = TBinaryOutputProtocol::new(&mut *out, true);
            &mut binary
        };
        let (mut taken, mut written) = (0, 0);
        while taken < want {
            match guard.scanner.next() {
                None => break,
                Some(Ok(r)) => {
                    taken += 1;
                    if !r.is_empty() {
                        write_row_result(o, &r, sort_columns, &mut scratch)?;
                        written += 1;
                    }
                }
                Some(Err(e)) => return Err(io_error(&e)),
            }
        }
        Ok(written)
    }

    /// `scannerGet` / `scannerGetList` without the generated structs: the arguments are read
    /// and the reply's rows encoded straight from the engine's rows, the same bytes the
    /// generated code writes (a TRowResult's column map keeps the last cell of a column, as
    /// Java's TreeMap.put does) without a Vec and a map allocated per row — the bulk read
    /// path. The rows are encoded apart and appended through `raw` after the list header.
    pub(crate) fn scanner_get_direct(
        &self,
        name: &str,
        sequence_number: i32,
        input: &mut dyn TInputProtocol,
        output: &mut dyn TOutputProtocol,
        raw: &mut super::RawOut<'_>,
    ) -> thrift::Result<()> {
        let (mut id, mut nb_rows) = (0i32, 1i32);
        input.read_struct_begin()?;
        loop {
            let field = input.read_field_begin()?;
            if field.field_type == TType::Stop {
                break;
            }
            match (field.id, field.field_type) {
                (Some(1), TType::I32) => id = input.read_i32()?,
                (Some(2), TType::I32) if name == "scannerGetList" => nb_rows = input.read_i32()?,
                (_, t) => input.skip(t)?,
            }
            input.read_field_end()?;
        }
        input.read_struct_end()?;
        input.read_message_end()?;
        let mut rows = std::mem::take(raw.scratch);
        rows.clear();
        let encoded = self.encode_next_rows(id, nb_rows, raw.compact, &mut rows);
        let reply = TMessageIdentifier::new(name, TMessageType::Reply, sequence_number);
        output.write_message_begin(&reply)?;
        output.write_struct_begin(&TStructIdentifier {
            name: String::new(),
        })?;
        match encoded {
            Ok(count) => {
                output.write_field_begin(&field(TType::List, 0))?;
                output.write_list_begin(&TListIdentifier::new(TType::Struct, wire_len(count)?))?;
                raw.write_all(&rows)?;
                // Keep the buffer for the next reply, unless one reply made it huge.
                if rows.capacity() <= 8 << 20 {
                    *raw.scratch = rows;
                }
                output.write_list_end()?;
                output.write_field_end()?;
            }
            Err(thrift::Error::User(e)) => {
                if let Some(ia) = e.downcast_ref::<IllegalArgument>() {
                    output.write_field_begin(&field(TType::Struct, 2))?;
                    ia.write_to_out_protocol(output)?;
                } else {
                    let io = e.downcast_ref::<IOError>().cloned().unwrap_or(IOError {
                        message: Some(e.to_string()),
                        can_retry: Some(false),
                    });
                    output.write_field_begin(&field(TType::Struct, 1))?;
                    io.write_to_out_protocol(output)?;
                }
                output.write_field_end()?;
            }
            Err(other) => return Err(other),
        }
        output.write_field_stop()?;
        output.write_struct_end()?;
        output.write_message_end()?;
        output.flush()
    }

    fn increment_one(&self, inc: TIncrement) -> TResult<()> {
        let (table, row) = (inc.table.unwrap_or_default(), inc.row.unwrap_or_default());
        if row.is_empty() || table.is_empty() {
            return Err(internal("increment"));
        }
        let Column::Qualified(f, q) = Column::parse(&inc.column.unwrap_or_default()) else {
            // HBase indexes the missing qualifier and fails outside its handlers.
            return Err(internal("increment"));
        };
        let t = self.table(&table)?;
        let increment = Increment::new(&row).add_column(f, q, inc.ammount.unwrap_or(0));
        t.increment(&increment)
            .map(|_| ())
            .map_err(|e| io_error(&e))
    }
}

/// `[0, ts)`, the time range of every `*Ts` read.
fn until(ts: i64) -> TResult<TimeRange> {
    TimeRange::until(ts).map_err(|e| internal_because("get", &e.to_string()))
}

fn read_versions(n: i32) -> TResult<u32> {
    u32::try_from(n)
        .ok()
        .filter(|&n| n > 0)
        .ok_or_else(|| internal_because("getVer", &format!("invalid number of versions {n}")))
}

fn table_name(name: &[u8]) -> TResult<String> {
    String::from_utf8(name.to_vec()).map_err(|_| {
        internal_because(
            "table",
            "a table name must be valid UTF-8 (HBase's TableName rules)",
        )
    })
}

/// The Put and the Delete one row's mutations make (HBase's `mutateRowTs` loop): deletes of a
/// family or of every version of a column up to `timestamp`, puts at `timestamp`; the
/// durability of the last put (or delete) mutation wins. `strict`: a put of a bare family
/// is an error (mutateRows) rather than skipped (mutateRow).
fn row_mutations(
    row: &[u8],
    mutations: &[Mutation],
    timestamp: i64,
    strict: bool,
) -> TResult<(Option<Put>, Option<Delete>)> {
    let mut put = if timestamp == LATEST_TIMESTAMP {
        Put::new(row)
    } else {
        Put::with_timestamp(row, timestamp)
    };
    // The Delete is made only when a mutation deletes (most batches only put).
    let mut delete: Option<Delete> = None;
    let mut any_put = false;
    for m in mutations {
        let (family, qualifier) = Column::split(m.column.as_deref().unwrap_or_default());
        let durability = if m.write_to_w_a_l.unwrap_or(true) {
            Durability::SyncWal
        } else {
            Durability::SkipWal
        };
        if m.is_delete.unwrap_or(false) {
            let d = delete.take().unwrap_or_else(|| Delete::new(row));
            let d = match qualifier {
                None => delete_family(d, family, timestamp),
                Some(q) => delete_columns(d, family, q, timestamp),
            };
            delete = Some(d.durability(durability));
        } else {
            match qualifier {
                None if strict => {
                    return Err(illegal(
                        "java.lang.IllegalArgumentException: Invalid famAndQf provided."
                            .to_string(),
                    ));
                }
                None => {
                    tracing::debug!(
                        "No column qualifier specified. Delete is the only mutation supported \
                         over the whole column family."
                    );
                }
                Some(q) => {
                    let value = m.value.as_deref().unwrap_or_default();
                    put = put.add_column(family, q, value);
                    any_put = true;
                }
            }
            put = put.durability(durability);
        }
    }
    Ok((any_put.then_some(put), delete))
}

fn delete_family(d: Delete, family: &[u8], ts: i64) -> Delete {
    if ts == LATEST_TIMESTAMP {
        d.add_family(family)
    } else {
        d.add_family_at(family, ts)
    }
}

fn delete_columns(d: Delete, family: &[u8], qualifier: &[u8], ts: i64) -> Delete {
    if ts == LATEST_TIMESTAMP {
        d.add_columns(family, qualifier)
    } else {
        d.add_columns_at(family, qualifier, ts)
    }
}

fn add_columns_to_scan(mut scan: Scan, columns: &[Text]) -> Scan {
    for c in columns {
        scan = match Column::parse(c) {
            Column::Family(f) => scan.add_family(f),
            Column::Qualified(f, q) => scan.add_column(f, q),
        };
    }
    scan
}

fn tcell(value: &[u8], timestamp: i64) -> TCell {
    TCell {
        value: Some(value.to_vec()),
        timestamp: Some(timestamp),
    }
}

/// `ThriftUtilities.cellFromHBase`: every cell of the result, in result order.
fn cells_of(r: &RowResult) -> Vec<TCell> {
    r.cells()
        .iter()
        .map(|c| tcell(c.value(), c.timestamp()))
        .collect()
}

/// `ThriftUtilities.rowResultFromHBase`: one TRowResult per non-empty result; columns as a
/// map keyed `family:qualifier`, or as a list in cell order when `sort_columns`.
fn row_results<'a>(
    results: impl Iterator<Item = &'a RowResult>,
    sort_columns: bool,
) -> Vec<TRowResult> {
    results
        .filter(|r| !r.is_empty())
        .map(|r| {
            if sort_columns {
                let sorted = r
                    .cells()
                    .iter()
                    .map(|c| TColumn {
                        column_name: Some(column_name(c.family(), c.qualifier())),
                        cell: Some(tcell(c.value(), c.timestamp())),
                    })
                    .collect();
                TRowResult {
                    row: Some(r.row().to_vec()),
                    columns: None,
                    sorted_columns: Some(sorted),
                }
            } else {
                let mut columns = BTreeMap::new();
                for c in r.cells() {
                    columns.insert(
                        column_name(c.family(), c.qualifier()),
                        tcell(c.value(), c.timestamp()),
                    );
                }
                TRowResult {
                    row: Some(r.row().to_vec()),
                    columns: Some(columns),
                    sorted_columns: None,
                }
            }
        })
        .collect()
}

/// A field header without a name (the binary and compact protocols send none).
fn field(field_type: TType, id: i16) -> TFieldIdentifier {
    TFieldIdentifier {
        name: None,
        field_type,
        id: Some(id),
    }
}

fn wire_len(n: usize) -> thrift::Result<i32> {
    i32::try_from(n).map_err(|_| {
        thrift::Error::Application(ApplicationError::new(
            ApplicationErrorKind::InternalError,
            "reply too large",
        ))
    })
}

/// One TRowResult as its generated `write_to_out_protocol` writes it: `row`, then the column
/// map (or the sortedColumns list), each cell a TCell.
fn write_row_result(
    o: &mut dyn TOutputProtocol,
    r: &RowResult,
    sort_columns: bool,
    scratch: &mut Vec<u8>,
) -> thrift::Result<()> {
    o.write_struct_begin(&TStructIdentifier {
        name: String::new(),
    })?;
    o.write_field_begin(&field(TType::String, 1))?;
    o.write_bytes(r.row())?;
    o.write_field_end()?;
    let cells = r.cells();
    let mut write_name = |o: &mut dyn TOutputProtocol, c: &regionkv::Cell| {
        scratch.clear();
        scratch.extend_from_slice(c.family());
        scratch.push(b':');
        scratch.extend_from_slice(c.qualifier());
        o.write_bytes(scratch)
    };
    let write_cell = |o: &mut dyn TOutputProtocol, c: &regionkv::Cell| -> thrift::Result<()> {
        o.write_struct_begin(&TStructIdentifier {
            name: String::new(),
        })?;
        o.write_field_begin(&field(TType::String, 1))?;
        o.write_bytes(c.value())?;
        o.write_field_end()?;
        o.write_field_begin(&field(TType::I64, 2))?;
        o.write_i64(c.timestamp())?;
        o.write_field_end()?;
        o.write_field_stop()?;
        o.write_struct_end()
    };
    if sort_columns {
        o.write_field_begin(&field(TType::List, 3))?;
        o.write_list_begin(&TListIdentifier::new(TType::Struct, wire_len(cells.len())?))?;
        for c in cells {
            o.write_struct_begin(&TStructIdentifier {
                name: String::new(),
            })?;
            o.write_field_begin(&field(TType::String, 1))?;
            write_name(o, c)?;
            o.write_field_end()?;
            o.write_field_begin(&field(TType::Struct, 2))?;
            write_cell(o, c)?;
            o.write_field_end()?;
            o.write_field_stop()?;
            o.write_struct_end()?;
        }
        o.write_list_end()?;
    } else {
        // A map keeps one cell per column: the last one of the column in result order.
        let same_column = |a: &regionkv::Cell, b: &regionkv::Cell| {
            a.family() == b.family() && a.qualifier() == b.qualifier()
        };
        let last_of_column = |i: usize| {
            cells
                .get(i + 1)
                .is_none_or(|next| !same_column(&cells[i], next))
        };
        let distinct = (0..cells.len()).filter(|&i| last_of_column(i)).count();
        o.write_field_begin(&field(TType::Map, 2))?;
        o.write_map_begin(&TMapIdentifier::new(
            TType::String,
            TType::Struct,
            wire_len(distinct)?,
        ))?;
        for (i, c) in cells.iter().enumerate() {
            if last_of_column(i) {
                write_name(o, c)?;
                write_cell(o, c)?;
            }
        }
        o.write_map_end()?;
    }
    o.write_field_end()?;
    o.write_field_stop()?;
    o.write_struct_end()
}

fn io_message(message: String) -> thrift::Error {
    thrift::Error::User(Box::new(IOError {
        message: Some(message),
        can_retry: Some(false),
    }))
}

/// HBase's `getIOError`: an IOError whose message is the Java exception.
fn io_error(e: &regionkv::Error) -> thrift::Error {
    io_message(java_message(e))
}

/// For methods declaring IllegalArgument: HBase reports an IllegalArgumentException as one.
fn write_error(e: &regionkv::Error) -> thrift::Error {
    if ErrorKind::of(e) == ErrorKind::IllegalArgument {
        illegal(java_message(e))
    } else {
        io_error(e)
    }
}

fn illegal(message: String) -> thrift::Error {
    thrift::Error::User(Box::new(IllegalArgument {
        message: Some(message),
    }))
}

/// What a Java handler's uncaught RuntimeException becomes (TBaseProcessor).
fn internal(method: &str) -> thrift::Error {
    thrift::Error::Application(ApplicationError::new(
        ApplicationErrorKind::InternalError,
        format!("Internal error processing {method}"),
    ))
}

/// As [`internal`], with the reason (HBase logs it on the server; regionkv tells the client).
fn internal_because(method: &str, reason: &str) -> thrift::Error {
    thrift::Error::Application(ApplicationError::new(
        ApplicationErrorKind::InternalError,
        format!("Internal error processing {method}: {reason}"),
    ))
}

/// `ThriftUtilities.colDescFromThrift`: the family name is the part before a colon; a TTL
/// of 0 or less is FOREVER; compression and bloom type go by HBase's names.
fn family_from_thrift(cd: &ColumnDescriptor) -> Result<ColumnFamilyDescriptor, String> {
    let name = cd.name.as_deref().unwrap_or_default();
    if name.is_empty() {
        return Err("column name is empty".to_string());
    }
    let family = Column::parse(name).family().to_vec();
    let mut out = ColumnFamilyDescriptor::new(&family).map_err(|e| e.to_string())?;
    let compression = cd
        .compression
        .as_deref()
        .unwrap_or("NONE")
        .to_ascii_uppercase();
    out.set_attribute("COMPRESSION", &compression)
        .map_err(|e| e.to_string())?;
    let bloom = cd.bloom_filter_type.as_deref().unwrap_or("NONE");
    if !matches!(bloom, "NONE" | "ROW" | "ROWCOL" | "ROWPREFIX_FIXED_LENGTH") {
        return Err(format!(
            "No enum constant org.apache.hadoop.hbase.regionserver.BloomType.{bloom}"
        ));
    }
    out.set_attribute("BLOOMFILTER", bloom)
        .map_err(|e| e.to_string())?;
    let versions = cd.max_versions.unwrap_or(3);
    out.set_attribute("VERSIONS", &versions.to_string())
        .map_err(|e| e.to_string())?;
    out.in_memory = cd.in_memory.unwrap_or(false);
    out.block_cache_enabled = cd.block_cache_enabled.unwrap_or(false);
    let ttl = cd.time_to_live.unwrap_or(i32::MAX);
    out.ttl_seconds = if ttl > 0 {
        ttl as u32
    } else {
        regionkv::descriptor::FOREVER
    };
    Ok(out)
}

/// `ThriftUtilities.colDescFromHbase`.
fn family_to_thrift(f: &ColumnFamilyDescriptor) -> ColumnDescriptor {
    let attr = |key: &str| {
        f.attributes()
            .into_iter()
            .find(|(k, _)| *k == key)
            .map(|(_, v)| v)
            .unwrap_or_else(|| "NONE".to_string())
    };
    ColumnDescriptor {
        name: Some(column_name(&f.name, b"")),
        max_versions: Some(i32::try_from(f.max_versions).unwrap_or(i32::MAX)),
        compression: Some(attr("COMPRESSION")),
        in_memory: Some(f.in_memory),
        bloom_filter_type: Some(attr("BLOOMFILTER")),
        bloom_filter_vector_size: Some(0),
        bloom_filter_nb_hashes: Some(0),
        block_cache_enabled: Some(f.block_cache_enabled),
        time_to_live: Some(i32::try_from(f.ttl_seconds).unwrap_or(i32::MAX)),
    }
}

impl HbaseSyncHandler for std::sync::Arc<Handler> {
    fn handle_enable_table(&self, table_name: Bytes) -> TResult<()> {
        self.check_writable()?;
        let name = table_name_str(&table_name)?;
        self.db
            .admin()
            .enable_table(&name)
            .map_err(|e| io_error(&e))
    }

    fn handle_disable_table(&self, table_name: Bytes) -> TResult<()> {
        self.check_writable()?;
        let name = table_name_str(&table_name)?;
        self.db
            .admin()
            .disable_table(&name)
            .map_err(|e| io_error(&e))
    }

    fn handle_is_table_enabled(&self, table_name: Bytes) -> TResult<bool> {
        let name = table_name_str(&table_name)?;
        self.db
            .admin()
            .is_table_enabled(&name)
            .map_err(|e| io_error(&e))
    }

    fn handle_compact(&self, table_name_or_region_name: Bytes) -> TResult<()> {
        self.check_writable()?;
        compact(&self.db, &table_name_or_region_name)
    }

    fn handle_major_compact(&self, table_name_or_region_name: Bytes) -> TResult<()> {
        self.check_writable()?;
        // HBase's handler runs the same request as `compact` (not a major compaction).
        compact(&self.db, &table_name_or_region_name)
    }

    fn handle_get_table_names(&self) -> TResult<Vec<Text>> {
        let names = self.db.admin().list_tables().map_err(|e| io_error(&e))?;
        Ok(names.into_iter().map(String::into_bytes).collect())
    }

    fn handle_get_table_names_with_is_table_enabled(&self) -> TResult<BTreeMap<Text, bool>> {
        let admin = self.db.admin();
        let mut out = BTreeMap::new();
        for name in admin.list_tables().map_err(|e| io_error(&e))? {
            let enabled = admin.is_table_enabled(&name).map_err(|e| io_error(&e))?;
            out.insert(name.into_bytes(), enabled);
        }
        Ok(out)
    }

    fn handle_get_column_descriptors(
        &self,
        table_name: Text,
    ) -> TResult<BTreeMap<Text, ColumnDescriptor>> {
        let t = self.table(&table_name)?;
        let desc = t.descriptor();
        Ok(desc
            .families
            .iter()
            .map(|f| (column_name(&f.name, b""), family_to_thrift(f)))
            .collect())
    }

    fn handle_get_table_regions(&self, table_name: Text) -> TResult<Vec<TRegionInfo>> {
        let name = table_name_str(&table_name)?;
        match self.db.admin().regions(&name) {
            Ok(regions) => Ok(regions
                .into_iter()
                .map(|r| TRegionInfo {
                    start_key: Some(r.start_key),
                    end_key: Some(r.end_key),
                    id: Some(i64::try_from(r.region_id).unwrap_or(i64::MAX)),
                    name: Some(r.name.into_bytes()),
                    version: Some(HREGION_VERSION),
                    server_name: Some(self.host.clone().into_bytes()),
                    port: Some(REGION_SERVER_PORT),
                })
                .collect()),
            // HBase answers an empty list for a table that does not exist.
            Err(regionkv::Error::TableNotFound(_)) => Ok(Vec::new()),
            Err(e) => Err(io_error(&e)),
        }
    }

    fn handle_create_table(
        &self,
        table_name: Text,
        column_families: Vec<ColumnDescriptor>,
    ) -> TResult<()> {
        self.check_writable()?;
        let name = table_name_str(&table_name)?;
        let admin = self.db.admin();
        match admin.table_exists(&name) {
            Ok(true) => {
                return Err(thrift::Error::User(Box::new(AlreadyExists {
                    message: Some("table name already in use".to_string()),
                })));
            }
            Ok(false) => {}
            Err(e) => return Err(write_error(&e)),
        }
        let families = column_families
            .iter()
            .map(family_from_thrift)
            .collect::<Result<Vec<_>, _>>()
            .map_err(|m| illegal(format!("java.lang.IllegalArgumentException: {m}")))?;
        let desc = TableDescriptor::new(&name, families).map_err(|e| illegal(e.to_string()))?;
        admin.create_table(&desc).map_err(|e| write_error(&e))
    }

    fn handle_delete_table(&self, table_name: Text) -> TResult<()> {
        self.check_writable()?;
        let name = table_name_str(&table_name)?;
        let admin = self.db.admin();
        if !admin.table_exists(&name).map_err(|e| io_error(&e))? {
            return Err(io_message(
                "java.io.IOException: table does not exist".to_string(),
            ));
        }
        admin.delete_table(&name).map_err(|e| io_error(&e))
    }

    fn handle_get(
        &self,
        table_name: Text,
        row: Text,
        column: Text,
        _a: Attributes,
    ) -> TResult<Vec<TCell>> {
        self.get_cells(&table_name, &row, &column, None, None)
    }

    fn handle_get_ver(
        &self,
        table_name: Text,
        row: Text,
        column: Text,
        num_versions: i32,
        _a: Attributes,
    ) -> TResult<Vec<TCell>> {
        self.get_cells(&table_name, &row, &column, None, Some(num_versions))
    }

    fn handle_get_ver_ts(
        &self,
        table_name: Text,
        row: Text,
        column: Text,
        timestamp: i64,
        num_versions: i32,
        _a: Attributes,
    ) -> TResult<Vec<TCell>> {
        self.get_cells(
            &table_name,
            &row,
            &column,
            Some(timestamp),
            Some(num_versions),
        )
    }

    fn handle_get_row(
        &self,
        table_name: Text,
        row: Text,
        _a: Attributes,
    ) -> TResult<Vec<TRowResult>> {
        self.get_rows(&table_name, vec![row], None, LATEST_TIMESTAMP)
    }

    fn handle_get_row_with_columns(
        &self,
        table_name: Text,
        row: Text,
        columns: Vec<Text>,
        _a: Attributes,
    ) -> TResult<Vec<TRowResult>> {
        self.get_rows(&table_name, vec![row], Some(columns), LATEST_TIMESTAMP)
    }

    fn handle_get_row_ts(
        &self,
        table_name: Text,
        row: Text,
        timestamp: i64,
        _a: Attributes,
    ) -> TResult<Vec<TRowResult>> {
        self.get_rows(&table_name, vec![row], None, timestamp)
    }

    fn handle_get_row_with_columns_ts(
        &self,
        table_name: Text,
        row: Text,
        columns: Vec<Text>,
        timestamp: i64,
        _a: Attributes,
    ) -> TResult<Vec<TRowResult>> {
        self.get_rows(&table_name, vec![row], Some(columns), timestamp)
    }

    fn handle_get_rows(
        &self,
        table_name: Text,
        rows: Vec<Text>,
        _a: Attributes,
    ) -> TResult<Vec<TRowResult>> {
        self.get_rows(&table_name, rows, None, LATEST_TIMESTAMP)
    }

    fn handle_get_rows_with_columns(
        &self,
        table_name: Text,
        rows: Vec<Text>,
        columns: Vec<Text>,
        _a: Attributes,
    ) -> TResult<Vec<TRowResult>> {
        self.get_rows(&table_name, rows, Some(columns), LATEST_TIMESTAMP)
    }

    fn handle_get_rows_ts(
        &self,
        table_name: Text,
        rows: Vec<Text>,
        timestamp: i64,
        _a: Attributes,
    ) -> TResult<Vec<TRowResult>> {
        self.get_rows(&table_name, rows, None, timestamp)
    }

    fn handle_get_rows_with_columns_ts(
        &self,
        table_name: Text,
        rows: Vec<Text>,
        columns: Vec<Text>,
        timestamp: i64,
        _a: Attributes,
    ) -> TResult<Vec<TRowResult>> {
        self.get_rows(&table_name, rows, Some(columns), timestamp)
    }

    fn handle_mutate_row(
        &self,
        table_name: Text,
        row: Text,
        mutations: Vec<Mutation>,
        _a: Attributes,
    ) -> TResult<()> {
        self.mutate_row(&table_name, row, mutations, LATEST_TIMESTAMP)
    }

    fn handle_mutate_row_ts(
        &self,
        table_name: Text,
        row: Text,
        mutations: Vec<Mutation>,
        timestamp: i64,
        _a: Attributes,
    ) -> TResult<()> {
        self.mutate_row(&table_name, row, mutations, timestamp)
    }

    fn handle_mutate_rows(
        &self,
        table_name: Text,
        row_batches: Vec<BatchMutation>,
        _a: Attributes,
    ) -> TResult<()> {
        self.mutate_rows(&table_name, row_batches, LATEST_TIMESTAMP)
    }

    fn handle_mutate_rows_ts(
        &self,
        table_name: Text,
        row_batches: Vec<BatchMutation>,
        timestamp: i64,
        _a: Attributes,
    ) -> TResult<()> {
        self.mutate_rows(&table_name, row_batches, timestamp)
    }

    fn handle_atomic_increment(
        &self,
        table_name: Text,
        row: Text,
        column: Text,
        value: i64,
    ) -> TResult<i64> {
        self.check_writable()?;
        let (family, qualifier) = match Column::parse(&column) {
            Column::Family(f) => (f, Vec::new()),
            Column::Qualified(f, q) => (f, q),
        };
        let t = self.table(&table_name)?;
        t.increment_column_value(&row, &family, &qualifier, value)
            .map_err(|e| write_error(&e))
    }

    fn handle_delete_all(
        &self,
        table_name: Text,
        row: Text,
        column: Text,
        _a: Attributes,
    ) -> TResult<()> {
        self.delete_all_ts(&table_name, &row, &column, LATEST_TIMESTAMP)
    }

    fn handle_delete_all_ts(
        &self,
        table_name: Text,
        row: Text,
        column: Text,
        timestamp: i64,
        _a: Attributes,
    ) -> TResult<()> {
        self.delete_all_ts(&table_name, &row, &column, timestamp)
    }

    fn handle_delete_all_row(&self, table_name: Text, row: Text, _a: Attributes) -> TResult<()> {
        self.delete_all_row_ts(&table_name, &row, LATEST_TIMESTAMP)
    }

    fn handle_increment(&self, increment: TIncrement) -> TResult<()> {
        self.check_writable()?;
        self.increment_one(increment)
    }

    fn handle_increment_rows(&self, increments: Vec<TIncrement>) -> TResult<()> {
        self.check_writable()?;
        for inc in increments {
            self.increment_one(inc)?;
        }
        Ok(())
    }

    fn handle_delete_all_row_ts(
        &self,
        table_name: Text,
        row: Text,
        timestamp: i64,
        _a: Attributes,
    ) -> TResult<()> {
        self.delete_all_row_ts(&table_name, &row, timestamp)
    }

    fn handle_scanner_open_with_scan(
        &self,
        table_name: Text,
        scan: TScan,
        _a: Attributes,
    ) -> TResult<ScannerID> {
        let mut s = Scan::new();
        if let Some(start) = &scan.start_row {
            s = s.start_row(start);
        }
        if let Some(stop) = &scan.stop_row {
            s = s.stop_row(stop);
        }
        if let Some(ts) = scan.timestamp {
            s = s.time_range(
                TimeRange::until(ts)
                    .map_err(|e| internal_because("scannerOpenWithScan", &e.to_string()))?,
            );
        }
        if let Some(caching) = scan.caching.filter(|&n| n > 0) {
            s = s.caching(caching as usize);
        }
        if let Some(batch) = scan.batch_size.filter(|&n| n > 0) {
            s = s.batch(batch as usize);
        }
        if let Some(columns) = &scan.columns {
            s = add_columns_to_scan(s, columns);
        }
        if let Some(filter) = &scan.filter_string {
            let text = String::from_utf8_lossy(filter);
            let f = regionkv::filter::parse_filter(&text)
                .map_err(|e| internal_because("scannerOpenWithScan", &e.to_string()))?;
            s = s.filter(f);
        }
        if let Some(reversed) = scan.reversed {
            s = s.reversed(reversed);
        }
        if let Some(cache_blocks) = scan.cache_blocks {
            s = s.cache_blocks(cache_blocks);
        }
        self.open_scanner(&table_name, s, scan.sort_columns.unwrap_or(false))
    }

    fn handle_scanner_open(
        &self,
        table_name: Text,
        start_row: Text,
        columns: Vec<Text>,
        _a: Attributes,
    ) -> TResult<ScannerID> {
        let s = add_columns_to_scan(Scan::new().start_row(&start_row), &columns);
        self.open_scanner(&table_name, s, false)
    }

    fn handle_scanner_open_with_stop(
        &self,
        table_name: Text,
        start_row: Text,
        stop_row: Text,
        columns: Vec<Text>,
        _a: Attributes,
    ) -> TResult<ScannerID> {
        let s = add_columns_to_scan(
            Scan::new().start_row(&start_row).stop_row(&stop_row),
            &columns,
        );
        self.open_scanner(&table_name, s, false)
    }

    fn handle_scanner_open_with_prefix(
        &self,
        table_name: Text,
        start_and_prefix: Text,
        columns: Vec<Text>,
        _a: Attributes,
    ) -> TResult<ScannerID> {
        // HBase: start at the prefix, stop at the first row without it
        // (WhileMatchFilter(PrefixFilter(prefix))).
        let filter = regionkv::filter::WhileMatchFilter::new(Box::new(
            regionkv::filter::PrefixFilter::new(start_and_prefix.clone()),
        ));
        let s = Scan::new()
            .start_row(&start_and_prefix)
            .filter(Box::new(filter));
        self.open_scanner(&table_name, add_columns_to_scan(s, &columns), false)
    }

    fn handle_scanner_open_ts(
        &self,
        table_name: Text,
        start_row: Text,
        columns: Vec<Text>,
        timestamp: i64,
        _a: Attributes,
    ) -> TResult<ScannerID> {
        let range = TimeRange::until(timestamp)
            .map_err(|e| internal_because("scannerOpenTs", &e.to_string()))?;
        let s = add_columns_to_scan(
            Scan::new().start_row(&start_row).time_range(range),
            &columns,
        );
        self.open_scanner(&table_name, s, false)
    }

    fn handle_scanner_open_with_stop_ts(
        &self,
        table_name: Text,
        start_row: Text,
        stop_row: Text,
        columns: Vec<Text>,
        timestamp: i64,
        _a: Attributes,
    ) -> TResult<ScannerID> {
        let range = TimeRange::until(timestamp)
            .map_err(|e| internal_because("scannerOpenWithStopTs", &e.to_string()))?;
        let s = Scan::new()
            .start_row(&start_row)
            .stop_row(&stop_row)
            .time_range(range);
        self.open_scanner(&table_name, add_columns_to_scan(s, &columns), false)
    }

    fn handle_scanner_get(&self, id: ScannerID) -> TResult<Vec<TRowResult>> {
        self.handle_scanner_get_list(id, 1)
    }

    fn handle_scanner_get_list(&self, id: ScannerID, nb_rows: i32) -> TResult<Vec<TRowResult>> {
        let (results, sort_columns) = self.next_rows(id, nb_rows)?;
        Ok(row_results(results.iter(), sort_columns))
    }

    fn handle_scanner_close(&self, id: ScannerID) -> TResult<()> {
        let removed = u64::try_from(id).is_ok_and(|id| self.scanners.remove(id));
        if removed {
            Ok(())
        } else {
            Err(illegal("scanner ID is invalid".to_string()))
        }
    }

    fn handle_get_region_info(&self, row: Text) -> TResult<TRegionInfo> {
        // `row` is a hbase:meta row key, `table,row,id` (clients pass `table,row,99999999999999`
        // to find the region holding `row`).
        let not_found = || {
            io_message(format!(
                "java.io.IOException: Cannot find row in hbase:meta, row={}",
                regionkv::cell::bytes::to_string_binary(&row)
            ))
        };
        let Some(first) = row.iter().position(|&b| b == b',') else {
            return Err(not_found());
        };
        let table = String::from_utf8(row[..first].to_vec()).map_err(|_| not_found())?;
        let rest = &row[first + 1..];
        let key = match rest.iter().rposition(|&b| b == b',') {
            Some(last) => &rest[..last],
            None => rest,
        };
        let regions = match self.db.admin().regions(&table) {
            Ok(r) => r,
            Err(regionkv::Error::TableNotFound(_)) => return Err(not_found()),
            Err(e) => return Err(io_error(&e)),
        };
        let region = regions
            .into_iter()
            .rfind(|r| r.start_key.as_slice() <= key)
            .ok_or_else(not_found)?;
        Ok(TRegionInfo {
            start_key: Some(region.start_key),
            end_key: Some(region.end_key),
            id: Some(i64::try_from(region.region_id).unwrap_or(i64::MAX)),
            name: Some(region.name.into_bytes()),
            version: Some(HREGION_VERSION),
            server_name: Some(self.host.clone().into_bytes()),
            port: Some(REGION_SERVER_PORT),
        })
    }

    fn handle_append(&self, append: TAppend) -> TResult<Vec<TCell>> {
        self.check_writable()?;
        let (table, row) = (
            append.table.unwrap_or_default(),
            append.row.unwrap_or_default(),
        );
        if row.is_empty() || table.is_empty() {
            return Err(internal("append"));
        }
        let columns = append.columns.unwrap_or_default();
        let values = append.values.unwrap_or_default();
        let mut a = Append::new(&row);
        for (column, value) in columns.iter().zip(values.iter()) {
            let Column::Qualified(f, q) = Column::parse(column) else {
                return Err(internal("append"));
            };
            a = a.add_column(f, q, value);
        }
        let t = self.table(&table)?;
        let r = t.append(&a).map_err(|e| io_error(&e))?;
        Ok(cells_of(&r))
    }

    fn handle_check_and_put(
        &self,
        table_name: Text,
        row: Text,
        column: Text,
        value: Text,
        mput: Mutation,
        _a: Attributes,
    ) -> TResult<bool> {
        self.check_writable()?;
        let Column::Qualified(pf, pq) = Column::parse(mput.column.as_deref().unwrap_or_default())
        else {
            return Err(internal("checkAndPut"));
        };
        let durability = if mput.write_to_w_a_l.unwrap_or(true) {
            Durability::SyncWal
        } else {
            Durability::SkipWal
        };
        let put = Put::new(&row)
            .add_column(pf, pq, mput.value.as_deref().unwrap_or_default())
            .durability(durability);
        let Column::Qualified(cf, cq) = Column::parse(&column) else {
            return Err(internal("checkAndPut"));
        };
        let t = self.table(&table_name)?;
        // A missing expected value reaches the handler as an empty one; HBase's region
        // treats an empty expected value as "absent or empty", the same test.
        let check = if value.is_empty() {
            CheckAndMutate::builder(&row).if_not_exists(&cf, &cq)
        } else {
            CheckAndMutate::builder(&row).if_equals(&cf, &cq, &value)
        };
        let r = t
            .check_and_mutate(&check.then_put(put))
            .map_err(|e| write_error(&e))?;
        Ok(r.success)
    }

    fn handle_get_thrift_server_type(&self) -> TResult<TThriftServerType> {
        Ok(TThriftServerType::ONE)
    }

    fn handle_get_cluster_id(&self) -> TResult<String> {
        Ok(self.db.cluster_id())
    }

    fn handle_grant(&self, _info: TAccessControlEntity) -> TResult<bool> {
        Err(no_access_control())
    }

    fn handle_revoke(&self, _info: TAccessControlEntity) -> TResult<bool> {
        Err(no_access_control())
    }
}

/// grant/revoke on a cluster without the AccessController: the call fails.
fn no_access_control() -> thrift::Error {
    io_message(
        "org.apache.hadoop.hbase.exceptions.UnknownProtocolException: No registered Master \
         Coprocessor Endpoint found for AccessControlService (regionkv has no access control)"
            .to_string(),
    )
}

fn table_name_str(name: &[u8]) -> TResult<String> {
    table_name(name)
}

/// HBase's `compact`: a region name compacts that region, anything else is a table name.
fn compact(db: &Db, name: &[u8]) -> TResult<()> {
    let text = table_name(name)?;
    let admin = db.admin();
    if admin.compact_region(&text, None, false).is_ok() {
        return Ok(());
    }
    admin.compact(&text).map_err(|e| io_error(&e))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn cell(
        row: &str,
        col: &str,
        ts: i64,
        value: &str,
    ) -> Result<regionkv::Cell, Box<dyn std::error::Error>> {
        let (f, q) = col.split_once(':').ok_or("no colon")?;
        Ok(regionkv::Cell::put(
            row.as_bytes(),
            f.as_bytes(),
            q.as_bytes(),
            ts,
            value.as_bytes(),
        )?)
    }

    fn decode(bytes: &[u8], compact: bool) -> thrift::Result<Vec<TRowResult>> {
        use thrift::protocol::{TBinaryInputProtocol, TCompactInputProtocol};
        let mut i: Box<dyn TInputProtocol> = if compact {
            Box::new(TCompactInputProtocol::new(bytes))
        } else {
            Box::new(TBinaryInputProtocol::new(bytes, true))
        };
        let mut out = Vec::new();
        for _ in 0..2 {
            out.push(TRowResult::read_from_in_protocol(i.as_mut())?);
        }
        Ok(out)
    }

    /// The direct scanner reply writes exactly the bytes the generated structs write.
    #[test]
    fn direct_row_results_match_the_generated_encoding() -> Result<(), Box<dyn std::error::Error>> {
        let rows = vec![
            RowResult::new(vec![
                cell("r1", "cf:a", 30, "new")?,
                cell("r1", "cf:a", 20, "old")?,
                cell("r1", "cf:", 5, "empty-q")?,
                cell("r1", "cg:\u{ff}x", 7, "")?,
            ]),
            RowResult::new(vec![cell("r2", "cf:b", 1, "v")?]),
        ];
        for sort in [false, true] {
            for compact in [false, true] {
                let mut expected = Vec::new();
                let mut direct = Vec::new();
                {
                    let mut o: Box<dyn TOutputProtocol> = if compact {
                        Box::new(TCompactOutputProtocol::new(&mut expected))
                    } else {
                        Box::new(TBinaryOutputProtocol::new(&mut expected, true))
                    };
                    for r in row_results(rows.iter(), sort) {
                        r.write_to_out_protocol(o.as_mut())?;
                    }
                    o.flush()?;
                }
                {
                    let mut o: Box<dyn TOutputProtocol> = if compact {
                        Box::new(TCompactOutputProtocol::new(&mut direct))
                    } else {
                        Box::new(TBinaryOutputProtocol::new(&mut direct, true))
                    };
                    let mut scratch = Vec::new();
                    for r in &rows {
                        write_row_result(o.as_mut(), r, sort, &mut scratch)?;
                    }
                    o.flush()?;
                }
                if sort {
                    assert_eq!(direct, expected, "sort_columns compact={compact}");
                } else {
                    // A map's entries may come in another order; what they say must agree.
                    assert_eq!(
                        decode(&direct, compact)?,
                        decode(&expected, compact)?,
                        "compact={compact}"
                    );
                }
            }
        }
        // The map form keeps the last (oldest) cell of a column, as Java's TreeMap.put.
        let map = row_results(rows.iter(), false);
        let cols = map[0].columns.as_ref().ok_or("no map")?;
        assert_eq!(cols[&b"cf:a".to_vec()].timestamp, Some(20));
        Ok(())
    }
}
