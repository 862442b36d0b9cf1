//! The data commands, as HBase 2.4's shell runs them (hbase-shell/src/main/ruby/hbase/
//! table.rb and shell/commands/{put,get,scan,count,delete,deleteall,incr,get_counter,
//! append}.rb): argument normalisation, the `_hash_to_scan` options, and the cell text
//! `timestamp=TS, value=VALUE` (or `type=DeleteColumn` for a delete marker in a raw scan),
//! with values escaped by `Bytes.toStringBinary` unless a column or FORMATTER converter
//! (`cf:q:toInt`) says otherwise.
//!
//! Two deliberate differences from HBase's shell, both where HBase misbehaves:
//! `deleteall 't', {ROWPREFIXFILTER => ...}` deletes the rows it scanned (HBase deletes the
//! rows named by their `toStringBinary` text, which differ for binary row keys), and a
//! filter string must be UTF-8 (the engine's filter parser reads text).

use std::collections::HashMap;

use regionkv::cell::bytes::to_string_binary;
use regionkv::cell::key::LATEST_TIMESTAMP;
use regionkv::filter::parse_filter;
use regionkv::{Append, Cell, Delete, Get, Increment, Put, Scan, TimeRange};

use super::args::{
    CmdError, CmdResult, ColumnSpec, Opts, arity, class_name, column_spec, fail, inspect, int_arg,
    table_arg, to_s, to_text, truthy,
};
use super::ddl::flatten;
use super::engine::{Engine, Out, Ret, hbase_error};
use super::format::ruby_float;
use super::parse::Value;

/// The `Bytes` methods a converter may name (`cf:q:toInt`, `FORMATTER => 'toString'`).
fn convert_bytes(bytes: &[u8], converter: &str) -> CmdResult<String> {
    // `c(org.apache.hadoop.hbase.util.Bytes).toInt` names the default class explicitly.
    let method = match converter.strip_prefix("c(") {
        Some(rest) => match rest.split_once(").") {
            Some(("org.apache.hadoop.hbase.util.Bytes", method)) => method,
            Some((class, _)) => {
                return fail(format!(
                    "custom converter classes are not supported by regionkv: {class}"
                ));
            }
            None => converter,
        },
        None => converter,
    };
    /// The first `n` bytes, or Java's `explainWrongLengthOrOffset` message.
    fn first<const N: usize>(b: &[u8]) -> CmdResult<[u8; N]> {
        match b.get(..N).and_then(|s| <[u8; N]>::try_from(s).ok()) {
            Some(a) => Ok(a),
            None => fail(format!(
                "offset (0) + length ({N}) exceed the capacity of the array: {}",
                b.len()
            )),
        }
    }
    Ok(match method {
        "toStringBinary" => to_string_binary(bytes),
        "toString" => String::from_utf8_lossy(bytes).into_owned(),
        "toInt" => i32::from_be_bytes(first::<4>(bytes)?).to_string(),
        "toLong" => i64::from_be_bytes(first::<8>(bytes)?).to_string(),
        "toShort" => i16::from_be_bytes(first::<2>(bytes)?).to_string(),
        "toDouble" => ruby_float(f64::from_bits(u64::from_be_bytes(first::<8>(bytes)?))),
        "toFloat" => ruby_float(f64::from(f32::from_bits(u32::from_be_bytes(first::<4>(
            bytes,
        )?)))),
        "toBoolean" => match bytes {
            [b] => (*b != 0).to_string(),
            _ => return fail(format!("Array has wrong size: {}", bytes.len())),
        },
        "toHex" => bytes.iter().map(|b| format!("{b:02x}")).collect(),
        other => {
            return fail(format!(
                "undefined method `{other}' for class `Java::OrgApacheHadoopHbaseUtil::Bytes'"
            ));
        }
    })
}

/// How one read prints its cells: per-column converters, FORMATTER and MAXLENGTH.
#[derive(Default)]
struct CellText {
    /// Converters named in column specs, by (family, qualifier).
    converters: HashMap<(Vec<u8>, Vec<u8>), String>,
    /// FORMATTER: the converter for row keys, column names and other values.
    formatter: Option<String>,
    /// MAXLENGTH: cell text is cut to this many characters.
    max_length: Option<usize>,
}

impl CellText {
    fn note(&mut self, spec: &ColumnSpec) {
        if let (Some(q), Some(c)) = (&spec.qualifier, &spec.converter) {
            self.converters
                .insert((spec.family.clone(), q.clone()), c.clone());
        }
    }

    fn bytes(&self, b: &[u8]) -> CmdResult<String> {
        convert_bytes(b, self.formatter.as_deref().unwrap_or("toStringBinary"))
    }

    /// `family:qualifier`.
    fn column(&self, cell: &Cell) -> CmdResult<String> {
        Ok(format!(
            "{}:{}",
            self.bytes(cell.family())?,
            self.bytes(cell.qualifier())?
        ))
    }

    /// `timestamp=TS, value=V` or, for a delete marker, `timestamp=TS, type=KIND`.
    fn cell(&self, engine: &Engine, cell: &Cell) -> CmdResult<String> {
        let ts = engine.timestamps.format(cell.timestamp());
        let text = if cell.cell_type().is_delete() {
            format!("timestamp={ts}, type={}", cell.cell_type().name())
        } else {
            let key = (cell.family().to_vec(), cell.qualifier().to_vec());
            let value = match self.converters.get(&key) {
                Some(c) => convert_bytes(cell.value(), c)?,
                None => self.bytes(cell.value())?,
            };
            format!("timestamp={ts}, value={value}")
        };
        Ok(match self.max_length {
            Some(n) => text.chars().take(n).collect(),
            None => text,
        })
    }

    /// MAXLENGTH and FORMATTER (FORMATTER_CLASS must be `Bytes`) out of a read's options.
    fn take_options(&mut self, opts: &mut Opts) -> CmdResult<()> {
        if let Some(n) = opts.get_set("MAXLENGTH").cloned() {
            opts.remove("MAXLENGTH");
            let n = int_arg(&n, "MAXLENGTH")?;
            // MAXLENGTH => -1 means no limit, as in HBase.
            self.max_length = usize::try_from(n).ok();
        }
        if let Some(f) = opts.remove("FORMATTER").filter(truthy) {
            self.formatter = Some(to_text(&f));
        }
        if let Some(class) = opts.remove("FORMATTER_CLASS").filter(truthy) {
            let class = to_text(&class);
            if class != "org.apache.hadoop.hbase.util.Bytes" {
                return fail(format!(
                    "custom FORMATTER_CLASS is not supported by regionkv: {class}"
                ));
            }
        }
        Ok(())
    }
}

/// A `TIMERANGE => [min, max]` value.
fn time_range(v: &Value) -> CmdResult<TimeRange> {
    let (min, max) = match v {
        Value::Array(items) if items.len() >= 2 => (
            int_arg(&items[0], "TIMERANGE")?,
            int_arg(&items[1], "TIMERANGE")?,
        ),
        other => {
            return fail(format!(
                "TIMERANGE must be [min, max], not {}",
                inspect(other)
            ));
        }
    };
    TimeRange::between(min, max).or_else(|e| fail(e.to_string()))
}

/// A filter string (HBase's filter language).
fn filter(v: &Value) -> CmdResult<Box<dyn regionkv::filter::Filter>> {
    let Value::Str(bytes) = v else {
        return fail(format!(
            "FILTER must be a filter string, not {}",
            inspect(v)
        ));
    };
    let Ok(text) = std::str::from_utf8(bytes) else {
        return fail("regionkv reads filter strings as UTF-8; this one is not");
    };
    parse_filter(text).or_else(|e| fail(e.to_string()))
}

/// A boolean option (`REVERSED`, `RAW`): Ruby truthiness of `true`/`false`.
/// `CACHE_BLOCKS` of `scan` and `count` (HBase's `Scan#setCacheBlocks`): `true` or
/// `false`, as a boolean or a string; `default` when absent (true for `scan`, false for
/// `count`, as HBase's shell has them).
fn cache_blocks_opt(opts: &Opts, default: bool) -> bool {
    match opts.get("CACHE_BLOCKS") {
        Some(Value::Bool(b)) => *b,
        Some(Value::Str(b)) if b.eq_ignore_ascii_case(b"true") => true,
        Some(Value::Str(b)) if b.eq_ignore_ascii_case(b"false") => false,
        _ => default,
    }
}

fn bool_opt(opts: &Opts, key: &str) -> CmdResult<bool> {
    match opts.get(key) {
        None | Some(Value::Nil) | Some(Value::Bool(false)) => Ok(false),
        Some(Value::Bool(true)) => Ok(true),
        Some(other) => fail(format!(
            "{key} must be true or false, not {}",
            inspect(other)
        )),
    }
}

/// Checks the operation options HBase applies to mutations and returns the cell TTL:
/// ATTRIBUTES have no effect on the data and are accepted; VISIBILITY needs labels regionkv
/// lacks; TTL is a cell TTL in milliseconds (the shell's `set_op_ttl`, `Mutation#setTTL`).
fn check_mutation_opts(opts: Option<&Opts>) -> CmdResult<Option<i64>> {
    let Some(opts) = opts else {
        return Ok(None);
    };
    if opts.get_set("VISIBILITY").is_some() {
        return fail("cell visibility labels are not supported by regionkv");
    }
    if let Some(a) = opts.get_set("ATTRIBUTES")
        && !matches!(a, Value::Hash(_))
    {
        return fail("Attributes must be a Hash type");
    }
    match opts.get_set("TTL") {
        None => Ok(None),
        Some(Value::Int(ms)) => Ok(Some(*ms)),
        Some(other) => fail(format!(
            "TTL must be an integer number of milliseconds, not {}",
            inspect(other)
        )),
    }
}

/// The options hash at `args[i]`, if that argument is a hash.
fn hash_at(args: &[Value], i: usize) -> Option<Opts> {
    args.get(i).and_then(Opts::of)
}

impl Engine {
    /// `_hash_to_scan`: a scan from the scan options, noting column converters.
    fn hash_to_scan(&self, opts: &Opts, text: &mut CellText) -> CmdResult<Scan> {
        let mut scan = Scan::new();
        if opts.is_empty() {
            return Ok(scan);
        }
        for key in ["ALL_METRICS", "METRICS"] {
            if opts.get_set(key).is_some() {
                return fail(format!("scan {key} is not supported by regionkv"));
            }
        }
        if opts.get_set("AUTHORIZATIONS").is_some() {
            return fail("visibility label AUTHORIZATIONS are not supported by regionkv");
        }
        if let Some(a) = opts.get_set("ATTRIBUTES")
            && !matches!(a, Value::Hash(_))
        {
            return fail("Attributes must be a Hash type");
        }
        scan = scan.reversed(bool_opt(opts, "REVERSED")?);
        if let Some(start) = opts.get_set("STARTROW") {
            scan = scan.start_row(to_s(start));
        }
        if let Some(stop) = opts.get_set("STOPROW") {
            scan = scan.stop_row(to_s(stop));
        }
        // This overrides STARTROW and STOPROW, as in HBase.
        if let Some(prefix) = opts.get_set("ROWPREFIXFILTER") {
            scan = scan.row_prefix(to_s(prefix));
        }
        let columns = opts
            .get_set("COLUMNS")
            .or_else(|| opts.get_set("COLUMN"))
            .cloned()
            .unwrap_or(Value::Array(Vec::new()));
        let columns = match columns {
            Value::Array(items) => items,
            s @ (Value::Str(_) | Value::Const(_)) => vec![s],
            _ => return fail("COLUMNS must be specified as a String or an Array"),
        };
        for c in &columns {
            let spec = column_spec(&to_s(c));
            text.note(&spec);
            scan = match &spec.qualifier {
                Some(q) => scan.add_column(&spec.family, q),
                None => scan.add_family(&spec.family),
            };
        }
        if let Some(f) = opts.get_set("FILTER") {
            scan = scan.filter(filter(f)?);
        }
        if let Some(ts) = opts.get_set("TIMESTAMP") {
            scan = scan.timestamp(int_arg(ts, "TIMESTAMP")?);
        }
        if let Some(cache) = opts.get_set("CACHE") {
            let cache = int_arg(cache, "CACHE")?;
            if cache > 0 {
                scan = scan.caching(usize::try_from(cache).unwrap_or(usize::MAX));
            }
        }
        if let Some(v) = opts.get_set("VERSIONS") {
            let v = int_arg(v, "VERSIONS")?;
            if v > 1 {
                scan = scan.max_versions(u32::try_from(v).unwrap_or(u32::MAX));
            }
        }
        if let Some(tr) = opts.get_set("TIMERANGE") {
            scan = scan.time_range(time_range(tr)?);
        }
        scan = scan.raw(bool_opt(opts, "RAW")?);
        scan = scan.cache_blocks(cache_blocks_opt(opts, true));
        if let Some(limit) = opts.get_set("LIMIT") {
            let limit = int_arg(limit, "LIMIT")?;
            if limit > 0 {
                scan = scan.limit(limit.unsigned_abs());
            }
        }
        if let Some(batch) = opts.get_set("BATCH") {
            let batch = int_arg(batch, "BATCH")?;
            if batch > 0 {
                scan = scan.batch(usize::try_from(batch).unwrap_or(usize::MAX));
            }
        }
        Ok(scan)
    }

    pub(super) fn put(&self, args: &[Value]) -> CmdResult<Ret> {
        arity(args, 4, Some(6))?;
        let name = table_arg(&args[0])?;
        let table = self.table(&name)?;
        let row = to_s(&args[1]);
        let spec = column_spec(&to_s(&args[2]));
        let value = to_s(&args[3]);
        let (ts, ts_opts) = match args.get(4) {
            None | Some(Value::Nil) => (LATEST_TIMESTAMP, None),
            Some(Value::Int(ts)) => (*ts, None),
            Some(v @ Value::Hash(_)) => (LATEST_TIMESTAMP, Opts::of(v)),
            Some(other) => {
                return fail(format!(
                    "the timestamp must be an integer, not {}",
                    inspect(other)
                ));
            }
        };
        let ttl = match ts_opts {
            // `put 't', 'r', 'c', 'v', {TTL => ...}`: the hash stands for the options.
            Some(opts) => check_mutation_opts(Some(&opts))?,
            None => check_mutation_opts(hash_at(args, 5).as_ref())?,
        };
        let qualifier = spec.qualifier.unwrap_or_default();
        let mut put = Put::new(&row).add_column_at(&spec.family, &qualifier, ts, &value);
        if let Some(ttl) = ttl {
            put = put.ttl(ttl);
        }
        table.put(&put).map_err(|e| hbase_error(e, &name))?;
        Ok(Ret::Nil)
    }

    pub(super) fn get(&self, args: &[Value], out: &mut Out<'_>) -> CmdResult<Ret> {
        arity(args, 2, None)?;
        let name = table_arg(&args[0])?;
        // HBase prints the header before it reads the options or the table.
        out.header(&["COLUMN", "CELL"])?;
        let table = self.table(&name)?;
        let row = to_s(&args[1]);
        let mut opts = match args.get(2).and_then(Opts::of) {
            Some(opts) => opts,
            None => {
                // `get 't', 'r', 'c1', 'c2'` or `get 't', 'r', ['c1', 'c2']`.
                let columns = flatten(&args[2..]);
                Opts::of(&Value::Hash(vec![(
                    Value::Const("COLUMNS".into()),
                    Value::Array(columns),
                )]))
                .unwrap_or_default()
            }
        };
        let mut text = CellText::default();
        text.take_options(&mut opts)?;
        let filter_value = opts.remove("FILTER").filter(truthy);
        for key in ["CONSISTENCY", "REGION_REPLICA_ID"] {
            opts.remove(key);
        }
        if opts.get_set("AUTHORIZATIONS").is_some() {
            return fail("visibility label AUTHORIZATIONS are not supported by regionkv");
        }
        let mut get = Get::new(&row);
        if !opts.is_empty() {
            let columns = opts.get_set("COLUMN").or_else(|| opts.get_set("COLUMNS"));
            let versions = match opts.get_set("VERSIONS") {
                Some(v) => int_arg(v, "VERSIONS")?,
                None => 1,
            };
            // Get.readVersions refuses these (an IOException in HBase).
            let versions = match u32::try_from(versions) {
                Ok(v) if v > 0 => v,
                _ => return fail("versions must be positive"),
            };
            match columns {
                Some(columns) => {
                    let items = match columns {
                        Value::Array(items) => items.clone(),
                        s @ (Value::Str(_) | Value::Const(_)) => vec![s.clone()],
                        _ => {
                            return fail(format!(
                                "Failed parse column argument type {}, Hash",
                                opts.inspect()
                            ));
                        }
                    };
                    for c in &items {
                        let spec = column_spec(&to_s(c));
                        text.note(&spec);
                        get = match &spec.qualifier {
                            Some(q) => get.add_column(&spec.family, q),
                            None => get.add_family(&spec.family),
                        };
                    }
                }
                None => {
                    let point =
                        opts.get_set("TIMESTAMP").is_some() || opts.get_set("TIMERANGE").is_some();
                    if opts.get_set("ATTRIBUTES").is_none() && !point {
                        return fail(format!("Failed parse of {}, Hash", opts.inspect()));
                    }
                }
            }
            get = get.max_versions(versions);
            if let Some(ts) = opts.get_set("TIMESTAMP") {
                get = get.timestamp(int_arg(ts, "TIMESTAMP")?);
            }
            if let Some(tr) = opts.get_set("TIMERANGE") {
                get = get.time_range(time_range(tr)?);
            }
        }
        if let Some(f) = &filter_value {
            get = get.filter(filter(f)?);
        }
        let result = table.get(&get).map_err(|e| hbase_error(e, &name))?;
        for cell in result.cells() {
            let column = text.column(cell)?;
            let value = text.cell(self, cell)?;
            out.row(&[&column, &value])?;
        }
        out.footer(None)?;
        Ok(Ret::Nil)
    }

    pub(super) fn scan(&self, args: &[Value], out: &mut Out<'_>) -> CmdResult<Ret> {
        arity(args, 1, Some(2))?;
        let name = table_arg(&args[0])?;
        // HBase prints the header before it reads the options or the table.
        out.header(&["ROW", "COLUMN+CELL"])?;
        let table = self.table(&name)?;
        let mut opts = match args.get(1) {
            None => Opts::default(),
            Some(v) => match Opts::of(v) {
                Some(opts) => opts,
                None => return fail("Args should be a Hash"),
            },
        };
        let mut text = CellText::default();
        text.take_options(&mut opts)?;
        let scan = self.hash_to_scan(&opts, &mut text)?;
        let rows = table.scan(&scan).map_err(|e| hbase_error(e, &name))?;
        let mut count = 0u64;
        for result in rows {
            // Ctrl-C: the rows so far stay printed; no `N row(s)` footer (HBase's Interrupt
            // skips it), and the session prints `Took` and `Interrupt`.
            if super::interrupt::requested() {
                return Ok(Ret::Nil);
            }
            let result = result.map_err(|e| hbase_error(e, &name))?;
            let key = text.bytes(result.row())?;
            for cell in result.cells() {
                let column = text.column(cell)?;
                let value = text.cell(self, cell)?;
                out.row(&[&key, &format!("column={column}, {value}")])?;
            }
            count += 1;
        }
        out.footer(Some(count))?;
        Ok(Ret::Nil)
    }

    /// `aggregate 't', 'METHOD'[, {COLUMNS => ..., STARTROW => ..., FILTER => ...}]`:
    /// regionkv's own command (HBase's shell has none) calling the AggregateImplementation
    /// endpoint as HBase's `AggregationClient` does with the long interpreter; METHOD is
    /// rowcount, sum, min, max, avg, std or median. The table must load the endpoint
    /// (`alter 't', METHOD => 'table_att', 'coprocessor' => '|org.apache.hadoop.hbase.
    /// coprocessor.AggregateImplementation||'`). Prints the result (`nil` for none).
    pub(super) fn aggregate(&self, args: &[Value], out: &mut Out<'_>) -> CmdResult<Ret> {
        arity(args, 2, Some(3))?;
        let name = table_arg(&args[0])?;
        let method = to_text(&args[1]).to_ascii_lowercase();
        let table = self.table(&name)?;
        let opts = match args.get(2) {
            None => Opts::default(),
            Some(v) => Opts::of(v)
                .ok_or_else(|| CmdError::Failed(format!("{} is not a Hash", inspect(v))))?,
        };
        let mut text = CellText::default();
        let scan = self.hash_to_scan(&opts, &mut text)?;
        let agg = table.aggregation();
        let err = |e| hbase_error(e, &name);
        let long = |v: Option<i64>| v.map_or_else(|| "nil".to_string(), |v| v.to_string());
        let (shown, ret) = match method.as_str() {
            "rowcount" => {
                let n = agg.row_count(&scan).map_err(err)?;
                (n.to_string(), Ret::Int(n))
            }
            "sum" | "min" | "max" | "median" => {
                let v = match method.as_str() {
                    "sum" => agg.sum(&scan),
                    "min" => agg.min(&scan),
                    "max" => agg.max(&scan),
                    _ => agg.median(&scan),
                }
                .map_err(err)?;
                (long(v), v.map_or(Ret::Nil, Ret::Int))
            }
            "avg" => (ruby_float(agg.avg(&scan).map_err(err)?), Ret::Nil),
            "std" => (ruby_float(agg.std(&scan).map_err(err)?), Ret::Nil),
            other => {
                return fail(format!(
                    "unknown aggregate method {other}: rowcount, sum, min, max, avg, std or median"
                ));
            }
        };
        out.line(&shown)?;
        Ok(ret)
    }

    pub(super) fn count(&self, args: &[Value], out: &mut Out<'_>) -> CmdResult<Ret> {
        arity(args, 1, Some(2))?;
        let name = table_arg(&args[0])?;
        let table = self.table(&name)?;
        let mut opts = match args.get(1) {
            None => Opts::default(),
            Some(n @ Value::Int(_)) => Opts::of(&Value::Hash(vec![(
                Value::Str(b"INTERVAL".to_vec()),
                n.clone(),
            )]))
            .unwrap_or_default(),
            Some(v) => match Opts::of(v) {
                Some(opts) => opts,
                None => {
                    return fail(format!(
                        "undefined method `include?' for {}:{}",
                        inspect(v),
                        class_name(v)
                    ));
                }
            },
        };
        if let Some(Value::Str(b)) = opts.get("CACHE_BLOCKS") {
            let b = String::from_utf8_lossy(b).to_ascii_lowercase();
            if b != "true" && b != "false" {
                return fail(
                    "Expected CACHE_BLOCKS value to be a boolean or the string 'true' or 'false'",
                );
            }
        }
        let interval = match opts.remove("INTERVAL") {
            None => 1000,
            Some(Value::Int(n)) => n,
            // Ruby's `to_i`: the leading digits, else 0.
            Some(other) => {
                let s = to_text(&other);
                let digits: String = s
                    .trim_start()
                    .chars()
                    .enumerate()
                    .take_while(|(i, c)| c.is_ascii_digit() || (*i == 0 && *c == '-'))
                    .map(|(_, c)| c)
                    .collect();
                digits.parse().unwrap_or(0)
            }
        };
        let mut text = CellText::default();
        // HBase's `count` scans with CACHE_BLOCKS false unless told otherwise.
        let mut scan = self
            .hash_to_scan(&opts, &mut text)?
            .cache_blocks(cache_blocks_opt(&opts, false));
        // HBase counts with a FirstKeyOnlyFilter, combined with the user's filter.
        let counting = match opts.get_set("FILTER") {
            Some(Value::Str(f)) => {
                format!("({}) AND FirstKeyOnlyFilter()", String::from_utf8_lossy(f))
            }
            _ => "FirstKeyOnlyFilter()".to_string(),
        };
        scan = scan.filter(parse_filter(&counting).or_else(|e| fail(e.to_string()))?);
        out.header(&[])?;
        let rows = table.scan(&scan).map_err(|e| hbase_error(e, &name))?;
        let mut count: i64 = 0;
        for result in rows {
            // Ctrl-C: as in `scan`, no footer.
            if super::interrupt::requested() {
                return Ok(Ret::Nil);
            }
            let result = result.map_err(|e| hbase_error(e, &name))?;
            count += 1;
            if interval == 0 {
                return fail("divided by 0");
            }
            if count % interval == 0 {
                out.fmt.row(
                    &mut *out.w,
                    &[&format!(
                        "Current count: {count}, row: {}",
                        to_string_binary(result.row())
                    )],
                    true,
                    &[],
                )?;
            }
        }
        out.footer(Some(count.unsigned_abs()))?;
        Ok(Ret::Int(count))
    }

    /// `delete` (one version: `Delete.addColumn`, or `addFamilyVersion` for a family) and
    /// `deleteall` (`addColumns`, `addFamily`, or the whole row).
    pub(super) fn delete(&self, args: &[Value], all_versions: bool) -> CmdResult<Ret> {
        if all_versions {
            arity(args, 2, Some(5))?;
        } else {
            arity(args, 3, Some(5))?;
        }
        let name = table_arg(&args[0])?;
        let table = self.table(&name)?;
        let column = args.get(2).filter(|v| !matches!(v, Value::Nil)).map(to_s);
        let ts = match args.get(3) {
            None | Some(Value::Hash(_)) => LATEST_TIMESTAMP,
            Some(Value::Int(ts)) => *ts,
            Some(other) => {
                return fail(format!(
                    "the timestamp must be an integer, not {}",
                    inspect(other)
                ));
            }
        };
        let visibility = |v: Option<&Value>| {
            v.and_then(Opts::of)
                .is_some_and(|o| o.pairs().any(|(_, v)| matches!(v, Value::Str(_))))
        };
        if visibility(args.get(3))
            || hash_at(args, 4).is_some_and(|o| o.get_set("VISIBILITY").is_some())
        {
            return fail("cell visibility labels are not supported by regionkv");
        }
        let make = |row: &[u8]| {
            let mut d = Delete::with_timestamp(row, ts);
            if let Some(column) = column.as_deref().filter(|c| !c.is_empty()) {
                let spec = column_spec(column);
                d = match (&spec.qualifier, all_versions) {
                    (Some(q), true) => d.add_columns_at(&spec.family, q, ts),
                    (None, true) => d.add_family_at(&spec.family, ts),
                    (Some(q), false) => d.add_column_at(&spec.family, q, ts),
                    (None, false) => d.add_family_version(&spec.family, ts),
                };
            }
            d
        };
        let deletes = match Opts::of(&args[1]) {
            None => vec![make(&to_s(&args[1]))],
            Some(opts) => {
                // `deleteall 't', {ROWPREFIXFILTER => 'p'}`: every row with the prefix.
                let Some(prefix) = opts.get_set("ROWPREFIXFILTER") else {
                    return fail("ROWPREFIXFILTER is required to delete rows by prefix");
                };
                let scan = Scan::new()
                    .row_prefix(to_s(prefix))
                    .filter(parse_filter("FirstKeyOnlyFilter()").or_else(|e| fail(e.to_string()))?);
                let rows = table.scan(&scan).map_err(|e| hbase_error(e, &name))?;
                let mut deletes = Vec::new();
                for result in rows {
                    // Ctrl-C while the rows are gathered deletes none of them.
                    if super::interrupt::requested() {
                        return Ok(Ret::Nil);
                    }
                    let result = result.map_err(|e| hbase_error(e, &name))?;
                    deletes.push(make(result.row()));
                }
                deletes
            }
        };
        for d in &deletes {
            table.delete(d).map_err(|e| hbase_error(e, &name))?;
        }
        Ok(Ret::Nil)
    }

    pub(super) fn incr(&self, args: &[Value], out: &mut Out<'_>) -> CmdResult<Ret> {
        arity(args, 3, Some(5))?;
        let name = table_arg(&args[0])?;
        let table = self.table(&name)?;
        let row = to_s(&args[1]);
        let spec = column_spec(&to_s(&args[2]));
        let amount = match args.get(3) {
            None | Some(Value::Nil) | Some(Value::Hash(_)) => 1,
            Some(v) => int_arg(v, "the increment")?,
        };
        let ttl = check_mutation_opts(hash_at(args, 4).as_ref())?;
        let qualifier = spec.qualifier.unwrap_or_default();
        let mut inc = Increment::new(&row).add_column(&spec.family, &qualifier, amount);
        if let Some(ttl) = ttl {
            inc = inc.ttl(ttl);
        }
        let result = table
            .increment(&inc)
            .map_err(|e| increment_error(e, &name))?;
        match result.cells().first() {
            Some(cell) => match <[u8; 8]>::try_from(cell.value()) {
                Ok(b) => out.line(&format!("COUNTER VALUE = {}", i64::from_be_bytes(b)))?,
                Err(_) => return fail(wrong_length(cell.value().len())),
            },
            None => out.line("No counter found at specified coordinates")?,
        }
        Ok(Ret::Nil)
    }

    pub(super) fn get_counter(&self, args: &[Value], out: &mut Out<'_>) -> CmdResult<Ret> {
        arity(args, 3, Some(4))?;
        let name = table_arg(&args[0])?;
        let table = self.table(&name)?;
        let row = to_s(&args[1]);
        let spec = column_spec(&to_s(&args[2]));
        let qualifier = spec.qualifier.unwrap_or_default();
        let get = Get::new(&row)
            .add_column(&spec.family, &qualifier)
            .max_versions(1);
        let result = table.get(&get).map_err(|e| hbase_error(e, &name))?;
        match result.cells().first() {
            Some(cell) => match <[u8; 8]>::try_from(cell.value()) {
                Ok(b) => out.line(&format!("COUNTER VALUE = {}", i64::from_be_bytes(b)))?,
                Err(_) => return fail(wrong_length(cell.value().len())),
            },
            None => out.line("No counter found at specified coordinates")?,
        }
        Ok(Ret::Nil)
    }

    pub(super) fn append(&self, args: &[Value], out: &mut Out<'_>) -> CmdResult<Ret> {
        arity(args, 4, Some(5))?;
        let name = table_arg(&args[0])?;
        let table = self.table(&name)?;
        let row = to_s(&args[1]);
        let spec = column_spec(&to_s(&args[2]));
        let value = to_s(&args[3]);
        let ttl = check_mutation_opts(hash_at(args, 4).as_ref())?;
        let qualifier = spec.qualifier.unwrap_or_default();
        let mut app = Append::new(&row).add_column(&spec.family, &qualifier, &value);
        if let Some(ttl) = ttl {
            app = app.ttl(ttl);
        }
        let result = table.append(&app).map_err(|e| hbase_error(e, &name))?;
        if let Some(cell) = result.cells().first() {
            out.line(&format!(
                "CURRENT VALUE = {}",
                to_string_binary(cell.value())
            ))?;
        }
        Ok(Ret::Nil)
    }
}

/// `Bytes.toLong` of a value that is not 8 bytes long.
fn wrong_length(len: usize) -> String {
    format!("Wrong length: {len}, expected 8")
}

/// An increment failure: a value that is no counter is the server's DoNotRetryIOException.
fn increment_error(e: regionkv::Error, table: &str) -> CmdError {
    match e {
        regionkv::Error::InvalidArgument(m) if m.starts_with("Field is not a long") => {
            CmdError::Failed(format!(
                "org.apache.hadoop.hbase.DoNotRetryIOException: {m}"
            ))
        }
        e => hbase_error(e, table),
    }
}

#[cfg(test)]
#[allow(clippy::unwrap_used)]
mod tests {
    use super::*;

    #[test]
    fn converters_follow_bytes() {
        assert_eq!(convert_bytes(b"a\x00", "toStringBinary").unwrap(), "a\\x00");
        assert_eq!(convert_bytes(&7i32.to_be_bytes(), "toInt").unwrap(), "7");
        assert_eq!(
            convert_bytes(&(-2i64).to_be_bytes(), "toLong").unwrap(),
            "-2"
        );
        assert_eq!(
            convert_bytes(&1.5f64.to_bits().to_be_bytes(), "toDouble").unwrap(),
            "1.5"
        );
        assert_eq!(convert_bytes(&[1], "toBoolean").unwrap(), "true");
        assert_eq!(convert_bytes(&[0xab, 1], "toHex").unwrap(), "ab01");
        assert_eq!(
            convert_bytes(
                &5i32.to_be_bytes(),
                "c(org.apache.hadoop.hbase.util.Bytes).toInt"
            )
            .unwrap(),
            "5"
        );
        let err = |b: &[u8], c: &str| match convert_bytes(b, c) {
            Err(CmdError::Failed(m)) => m,
            _ => String::new(),
        };
        assert_eq!(
            err(b"x", "toInt"),
            "offset (0) + length (4) exceed the capacity of the array: 1"
        );
        assert_eq!(err(b"xy", "toBoolean"), "Array has wrong size: 2");
        assert!(err(b"x", "c(my.Formatter).f").contains("my.Formatter"));
        assert!(err(b"x", "toNothing").contains("toNothing"));
    }
}
