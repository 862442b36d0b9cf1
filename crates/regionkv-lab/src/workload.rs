//! Workloads: the records a design's keys are made from, generated at a rate over
//! simulated time. A workload file names each field's generator — YCSB's distributions
//! (uniform, zipfian, scrambled zipfian, latest, hotspot; the generators of
//! `regionkv_bench`, which follow YCSB's code), sequences, event times — and the rate and
//! duration; the same seed gives the same records.
//!
//! ```toml
//! name = "ad events"
//! seed = 7
//! start = 1767225600000        # event time of the first record, epoch ms (default 2026-01-01)
//! duration = "6h"              # simulated time (s, m, h, d)
//! rate = 50                    # records per simulated second
//!
//! [fields]
//! company_id = { kind = "zipfian", min = 1, max = 10000 }
//! campaign_id = { kind = "uniform", min = 1, max = 500 }
//! user = { kind = "scrambled_zipfian", min = 0, max = 99999999 }
//! hot = { kind = "hotspot", min = 0, max = 999, hot_fraction = 0.2, hot_ops = 0.8 }
//! recent = { kind = "latest" }  # near the newest sequence number
//! seq = { kind = "sequence" }   # 0, 1, 2, ...
//! ts = { kind = "timestamp" }   # the record's event time, epoch ms
//! stat_date = { kind = "date" } # the event time's UTC date as "yyyyMMdd"
//! region = { kind = "choice", values = ["eu", "us", "ap"] }
//! source = { kind = "constant", value = "web" }
//!
//! read_rate = 5                # reads per simulated second, drawn from [[reads]] by weight
//! [[reads]]
//! kind = "get"                 # a get of a written record's row
//! pick = "recent"              # recent (YCSB's latest) or random (uniform over those written)
//! weight = 2
//! [[reads]]
//! kind = "scan"                # every row with a picked record's values of `fields`
//! fields = ["company_id", "stat_date"]
//! [[reads]]
//! kind = "range"               # rows with `fields`' values and `field` in [t - span, t]
//! fields = ["host"]
//! field = "ts"
//! span = "1h"
//! [[reads]]
//! kind = "latest"              # the newest `limit` rows with `fields`' values (by `field`)
//! fields = ["user"]
//! limit = 10
//! [[reads]]
//! kind = "index"               # the rows with `fields`' values, found through the design's
//! index = "by_user"            # index of this name (a design without it scans its table)
//! fields = ["user"]
//!
//! [replay]                     # instead of generating keys: real ones, one a line
//! file = "keys.txt"            # (`\xHH` escapes, as Bytes.toBytesBinary), or a CSV with
//! csv_column = 2               # the 0-based column; each becomes the field `key`
//! ```
//!
//! Every record has the fields `id` (0, 1, 2 ... in write order) and `ts` (its event time,
//! epoch ms) besides those declared. Integer fields are `Value::Int`; `date`, `choice` and
//! `constant` are text, `key` bytes. With `[replay]` and no `duration`, the run writes each
//! replayed key once; with a duration, the keys repeat in order.

use std::collections::BTreeMap;
use std::path::Path;
use std::sync::Arc;

use rand::rngs::SmallRng;
use rand::{RngExt, SeedableRng};
use regionkv_bench::generator::{ScrambledZipfian, Zipfian};
use serde::Deserialize;

use crate::expr::{Record, Value};

/// 2026-01-01T00:00:00Z, the default start of simulated time.
pub const DEFAULT_START_MS: i64 = 1_767_225_600_000;

/// The widest range a plain zipfian field takes (its constant is summed over the range
/// once); wider ranges use `scrambled_zipfian`, whose constant is YCSB's precomputed one.
const MAX_ZIPFIAN_ITEMS: u64 = 100_000_000;

/// A workload file that cannot be used.
#[derive(Debug, thiserror::Error)]
#[error("{file}: {message}")]
pub struct WorkloadError {
    /// The file (or `<text>`).
    pub file: String,
    /// What is wrong.
    pub message: String,
}

/// How one field is generated.
#[derive(Debug, Clone, PartialEq, Deserialize)]
#[serde(tag = "kind", rename_all = "snake_case", deny_unknown_fields)]
pub enum FieldKind {
    /// Every integer in `min..=max` equally likely.
    Uniform {
        /// Smallest value.
        min: i64,
        /// Largest value.
        max: i64,
    },
    /// YCSB's zipfian (θ 0.99): `min` most popular, then `min + 1`, ...
    Zipfian {
        /// Smallest (most popular) value.
        min: i64,
        /// Largest value.
        max: i64,
    },
    /// YCSB's scrambled zipfian: hot values scattered over the range.
    ScrambledZipfian {
        /// Smallest value.
        min: i64,
        /// Largest value.
        max: i64,
    },
    /// YCSB's hotspot: `hot_ops` of the draws fall in the first `hot_fraction` of the range.
    Hotspot {
        /// Smallest value.
        min: i64,
        /// Largest value.
        max: i64,
        /// Share of the range that is hot (0.2).
        #[serde(default = "default_hot_fraction")]
        hot_fraction: f64,
        /// Share of the draws that go to it (0.8).
        #[serde(default = "default_hot_ops")]
        hot_ops: f64,
    },
    /// YCSB's latest: a sequence number near the newest (zipfian back from it).
    Latest,
    /// The record's number: `start`, `start + 1`, ...
    Sequence {
        /// First value.
        #[serde(default)]
        start: i64,
    },
    /// The record's event time, epoch ms.
    Timestamp,
    /// The event time's UTC date, `yyyyMMdd`.
    Date,
    /// One of `values`, uniformly.
    Choice {
        /// The values.
        values: Vec<String>,
    },
    /// Always `value`.
    Constant {
        /// The value.
        value: String,
    },
}

fn default_hot_fraction() -> f64 {
    0.2
}

fn default_hot_ops() -> f64 {
    0.8
}

/// A parsed workload.
#[derive(Debug, Clone, PartialEq)]
pub struct Workload {
    /// Its name.
    pub name: String,
    /// The random seed.
    pub seed: u64,
    /// Event time of the first record, epoch ms.
    pub start_ms: i64,
    /// Simulated time, ms.
    pub duration_ms: i64,
    /// Records per simulated second.
    pub rate: f64,
    /// The fields, in name order.
    pub fields: Vec<(String, FieldKind)>,
    /// Reads per simulated second.
    pub read_rate: f64,
    /// The read mix.
    pub reads: Vec<ReadSpec>,
    /// Replayed keys (the field `key` of record `i` is key `i % len`).
    pub replay: Option<Arc<Vec<Vec<u8>>>>,
}

/// Which written record a read is about.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Pick {
    /// Near the newest (YCSB's latest distribution).
    #[default]
    Recent,
    /// Any written record, uniformly.
    Random,
}

/// What a read asks.
#[derive(Debug, Clone, PartialEq)]
pub enum ReadKind {
    /// The row of a written record.
    Get,
    /// Every row with the picked record's values of the read's fields.
    Scan,
    /// Those rows with `field` in `[t - span_ms, t]`, `t` the picked record's value.
    Range {
        /// The ranged field (an integer, e.g. `ts`).
        field: String,
        /// The range's width.
        span_ms: i64,
    },
    /// The newest `limit` of those rows, by `field`.
    Latest {
        /// The field that orders them (e.g. `ts`).
        field: String,
        /// How many.
        limit: u64,
    },
    /// The rows with the read's fields' values, looked up through the design's index of
    /// this name: a scan (or get) of the index table, then gets of the base rows its
    /// entries name; a summary index answers alone. A design without the index answers
    /// it as a [`ReadKind::Scan`] of its own table.
    Index {
        /// The index's name (`[[index]] name` in the design).
        index: String,
    },
}

impl ReadKind {
    /// The name of the kind (`get`, `scan`, `range`, `latest`).
    pub fn name(&self) -> &'static str {
        match self {
            ReadKind::Get => "get",
            ReadKind::Scan => "scan",
            ReadKind::Range { .. } => "range",
            ReadKind::Latest { .. } => "latest",
            ReadKind::Index { .. } => "index",
        }
    }
}

/// One entry of the read mix.
#[derive(Debug, Clone, PartialEq)]
pub struct ReadSpec {
    /// What it asks.
    pub kind: ReadKind,
    /// Which record it is about.
    pub pick: Pick,
    /// The fields whose values (the picked record's) select the rows (all of them for a get).
    pub fields: Vec<String>,
    /// Its share of the reads, relative to the others'.
    pub weight: u32,
}

impl ReadSpec {
    /// A short label: `latest(user) ×10`, `scan(company_id, stat_date)`.
    pub fn label(&self) -> String {
        let fields = self.fields.join(", ");
        match &self.kind {
            ReadKind::Get => format!("get ({:?})", self.pick).to_lowercase(),
            ReadKind::Scan => format!("scan({fields})"),
            ReadKind::Range { field, span_ms } => {
                format!("range({fields}; {field} over {})", show_duration(*span_ms))
            }
            ReadKind::Latest { field, limit } => format!("latest {limit} ({fields}; by {field})"),
            ReadKind::Index { index } => format!("index {index}({fields})"),
        }
    }
}

fn show_duration(ms: i64) -> String {
    for (unit, n) in [
        ("d", 86_400_000),
        ("h", 3_600_000),
        ("m", 60_000),
        ("s", 1_000),
    ] {
        if ms % n == 0 {
            return format!("{}{unit}", ms / n);
        }
    }
    format!("{ms}ms")
}

#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
struct ReadFile {
    kind: String,
    #[serde(default)]
    pick: Pick,
    #[serde(default)]
    fields: Vec<String>,
    field: Option<String>,
    span: Option<String>,
    limit: Option<u64>,
    weight: Option<u32>,
    index: Option<String>,
}

#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
struct ReplayFile {
    file: String,
    csv_column: Option<usize>,
}

/// The built-in workloads (`--workload NAME`), by name.
pub const BUILTIN: [(&str, &str); 2] = [
    ("events", include_str!("../workloads/events.toml")),
    ("timeseries", include_str!("../workloads/timeseries.toml")),
];

#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
struct File {
    name: Option<String>,
    #[serde(default)]
    seed: u64,
    start: Option<i64>,
    duration: Option<String>,
    rate: f64,
    #[serde(default)]
    fields: BTreeMap<String, FieldKind>,
    #[serde(default)]
    read_rate: f64,
    #[serde(default)]
    reads: Vec<ReadFile>,
    replay: Option<ReplayFile>,
}

impl Workload {
    /// Reads a workload file (a `[replay]` file is read beside it).
    ///
    /// # Errors
    /// [`WorkloadError`] naming the file.
    pub fn load(path: &Path) -> Result<Workload, WorkloadError> {
        let file = path.display().to_string();
        let text = std::fs::read_to_string(path).map_err(|e| WorkloadError {
            file: file.clone(),
            message: e.to_string(),
        })?;
        Workload::parse_in(&text, &file, path.parent().unwrap_or(Path::new(".")))
    }

    /// A workload file, or else the built-in workload of that name ([`BUILTIN`]).
    ///
    /// # Errors
    /// [`WorkloadError`] for a bad file, or a name that is neither.
    pub fn find(name_or_path: &str) -> Result<Workload, WorkloadError> {
        let path = Path::new(name_or_path);
        if path.exists() {
            return Workload::load(path);
        }
        match BUILTIN.iter().find(|(n, _)| *n == name_or_path) {
            Some((n, text)) => Workload::parse(text, n),
            None => Err(WorkloadError {
                file: name_or_path.to_string(),
                message: format!(
                    "no such file, and no built-in workload of that name (built in: {})",
                    BUILTIN.map(|(n, _)| n).join(", ")
                ),
            }),
        }
    }

    /// Parses a workload; `file` names it in errors (a `[replay]` file is looked for in
    /// the current directory).
    ///
    /// # Errors
    /// [`WorkloadError`] naming the file.
    pub fn parse(text: &str, file: &str) -> Result<Workload, WorkloadError> {
        Workload::parse_in(text, file, Path::new("."))
    }

    /// Parses a workload whose `[replay]` file is relative to `dir`.
    ///
    /// # Errors
    /// [`WorkloadError`] naming the file.
    pub fn parse_in(text: &str, file: &str, dir: &Path) -> Result<Workload, WorkloadError> {
        let err = |message: String| WorkloadError {
            file: file.to_string(),
            message,
        };
        let f: File = toml::from_str(text).map_err(|e| err(e.to_string()))?;
        if !(f.rate > 0.0 && f.rate.is_finite()) {
            return Err(err(format!("rate must be above 0, not {}", f.rate)));
        }
        if !(f.read_rate >= 0.0 && f.read_rate.is_finite()) {
            return Err(err(format!(
                "read_rate must be 0 or above, not {}",
                f.read_rate
            )));
        }
        for (name, kind) in &f.fields {
            if ["id", "ts"].contains(&name.as_str()) || (name == "key" && f.replay.is_some()) {
                return Err(err(format!(
                    "field '{name}' is one every record has; name yours differently"
                )));
            }
            check_field(kind).map_err(|m| err(format!("field '{name}': {m}")))?;
        }
        let replay = match &f.replay {
            None => None,
            Some(r) => {
                let keys = crate::splits::read_keys(&dir.join(&r.file), r.csv_column)
                    .map_err(|m| err(format!("[replay] {m}")))?;
                if keys.is_empty() {
                    return Err(err(format!("[replay] {}: no keys", r.file)));
                }
                Some(Arc::new(keys))
            }
        };
        let duration_ms = match (&f.duration, &replay) {
            (Some(d), _) => parse_duration(d).map_err(err)?,
            (None, Some(keys)) => ((keys.len() as f64 * 1000.0 / f.rate).ceil() as i64).max(1),
            (None, None) => return Err(err("missing field `duration`".into())),
        };
        let mut known: Vec<&str> = f.fields.keys().map(String::as_str).collect();
        known.extend(["id", "ts"]);
        if replay.is_some() {
            known.push("key");
        }
        let reads = f
            .reads
            .into_iter()
            .enumerate()
            .map(|(i, r)| {
                read_spec(r, &known).map_err(|m| err(format!("[[reads]] #{}: {m}", i + 1)))
            })
            .collect::<Result<Vec<_>, _>>()?;
        if f.read_rate > 0.0 && reads.is_empty() {
            return Err(err(
                "read_rate without [[reads]]: say what the reads ask".into()
            ));
        }
        Ok(Workload {
            name: f.name.unwrap_or_else(|| file.to_string()),
            seed: f.seed,
            start_ms: f.start.unwrap_or(DEFAULT_START_MS),
            duration_ms,
            rate: f.rate,
            fields: f.fields.into_iter().collect(),
            read_rate: f.read_rate,
            reads,
            replay,
        })
    }

    /// The same workload cut or stretched to `records` writes (its rate kept; reads keep
    /// their rate too).
    pub fn with_records(mut self, records: u64) -> Workload {
        self.duration_ms = ((records as f64 * 1000.0 / self.rate).ceil() as i64).max(1);
        self
    }

    /// How many reads the duration holds at the read rate.
    pub fn read_count(&self) -> u64 {
        (self.duration_ms as f64 / 1000.0 * self.read_rate).floor() as u64
    }

    /// How many records the duration holds at the rate.
    pub fn records(&self) -> u64 {
        (self.duration_ms as f64 / 1000.0 * self.rate).round() as u64
    }

    /// The records, in event-time order.
    pub fn stream(&self) -> RecordStream {
        RecordStream {
            rng: SmallRng::seed_from_u64(self.seed),
            gens: self
                .fields
                .iter()
                .map(|(n, k)| (n.clone(), Gen::new(k)))
                .collect(),
            n: 0,
            total: self.records(),
            start_ms: self.start_ms,
            rate: self.rate,
            replay: self.replay.clone(),
        }
    }
}

fn read_spec(r: ReadFile, known: &[&str]) -> Result<ReadSpec, String> {
    for f in r.fields.iter().chain(r.field.as_ref()) {
        if !known.contains(&f.as_str()) {
            return Err(format!("no field '{f}' in the workload"));
        }
    }
    let only = |allowed: &[&str]| -> Result<(), String> {
        for (name, present) in [
            ("field", r.field.is_some()),
            ("span", r.span.is_some()),
            ("limit", r.limit.is_some()),
            ("index", r.index.is_some()),
        ] {
            if present && !allowed.contains(&name) {
                return Err(format!("a {} read takes no '{name}'", r.kind));
            }
        }
        Ok(())
    };
    let needs_fields = || {
        if r.fields.is_empty() {
            Err(format!("a {} read needs `fields`", r.kind))
        } else {
            Ok(())
        }
    };
    let kind = match r.kind.as_str() {
        "get" => {
            only(&[])?;
            if !r.fields.is_empty() {
                return Err("a get reads a whole record's row: it takes no `fields`".into());
            }
            ReadKind::Get
        }
        "scan" => {
            only(&[])?;
            needs_fields()?;
            ReadKind::Scan
        }
        "range" => {
            only(&["field", "span"])?;
            let span = r.span.as_deref().ok_or("a range read needs `span`")?;
            ReadKind::Range {
                field: r.field.clone().unwrap_or_else(|| "ts".into()),
                span_ms: parse_duration(span)?,
            }
        }
        "latest" => {
            only(&["field", "limit"])?;
            needs_fields()?;
            ReadKind::Latest {
                field: r.field.clone().unwrap_or_else(|| "ts".into()),
                limit: r.limit.unwrap_or(1).max(1),
            }
        }
        "index" => {
            only(&["index"])?;
            needs_fields()?;
            let index = r
                .index
                .clone()
                .filter(|i| !i.is_empty())
                .ok_or("an index read needs `index` (the design's index name)")?;
            ReadKind::Index { index }
        }
        other => {
            return Err(format!(
                "unknown read kind '{other}' (get, scan, range, latest, index)"
            ));
        }
    };
    Ok(ReadSpec {
        kind,
        pick: r.pick,
        fields: r.fields,
        weight: r.weight.unwrap_or(1),
    })
}

fn check_field(kind: &FieldKind) -> Result<(), String> {
    let range = |min: i64, max: i64| {
        if min > max {
            Err(format!("min {min} is above max {max}"))
        } else {
            Ok(())
        }
    };
    match kind {
        FieldKind::Uniform { min, max } | FieldKind::ScrambledZipfian { min, max } => {
            range(*min, *max)
        }
        FieldKind::Zipfian { min, max } => {
            range(*min, *max)?;
            if max.abs_diff(*min) >= MAX_ZIPFIAN_ITEMS {
                return Err(format!(
                    "a zipfian over more than {MAX_ZIPFIAN_ITEMS} values: use scrambled_zipfian"
                ));
            }
            Ok(())
        }
        FieldKind::Hotspot {
            min,
            max,
            hot_fraction,
            hot_ops,
        } => {
            range(*min, *max)?;
            if !(0.0..=1.0).contains(hot_fraction) || !(0.0..=1.0).contains(hot_ops) {
                return Err("hot_fraction and hot_ops must be between 0 and 1".into());
            }
            Ok(())
        }
        FieldKind::Choice { values } if values.is_empty() => Err("choice needs values".into()),
        _ => Ok(()),
    }
}

/// `90s`, `15m`, `6h`, `2d`, or plain seconds.
pub fn parse_duration(s: &str) -> Result<i64, String> {
    let t = s.trim();
    let (num, unit_ms) = match t.chars().last() {
        Some('s') => (&t[..t.len() - 1], 1_000),
        Some('m') => (&t[..t.len() - 1], 60_000),
        Some('h') => (&t[..t.len() - 1], 3_600_000),
        Some('d') => (&t[..t.len() - 1], 86_400_000),
        _ => (t, 1_000),
    };
    let v: f64 = num
        .trim()
        .parse()
        .map_err(|_| format!("not a duration: '{s}'"))?;
    if !(v > 0.0 && v.is_finite()) {
        return Err(format!("a duration must be above 0: '{s}'"));
    }
    Ok((v * f64::from(unit_ms)).round() as i64)
}

enum Gen {
    Uniform(i64, i64),
    Zipfian(i64, Zipfian),
    Scrambled(i64, ScrambledZipfian),
    Hotspot {
        min: i64,
        max: i64,
        hot_fraction: f64,
        hot_ops: f64,
    },
    Latest(Zipfian),
    Sequence(i64),
    Timestamp,
    Date,
    Choice(Vec<String>),
    Constant(String),
}

impl Gen {
    fn new(k: &FieldKind) -> Gen {
        let span = |min: &i64, max: &i64| max.abs_diff(*min);
        match k {
            FieldKind::Uniform { min, max } => Gen::Uniform(*min, *max),
            FieldKind::Zipfian { min, max } => Gen::Zipfian(*min, Zipfian::new(0, span(min, max))),
            FieldKind::ScrambledZipfian { min, max } => {
                Gen::Scrambled(*min, ScrambledZipfian::new(0, span(min, max)))
            }
            FieldKind::Hotspot {
                min,
                max,
                hot_fraction,
                hot_ops,
            } => Gen::Hotspot {
                min: *min,
                max: *max,
                hot_fraction: *hot_fraction,
                hot_ops: *hot_ops,
            },
            // YCSB's latest draws over the records inserted so far; the zipfian's own
            // constant is over a million back, as far as "recent" reaches.
            FieldKind::Latest => Gen::Latest(Zipfian::new(0, 999_999)),
            FieldKind::Sequence { start } => Gen::Sequence(*start),
            FieldKind::Timestamp => Gen::Timestamp,
            FieldKind::Date => Gen::Date,
            FieldKind::Choice { values } => Gen::Choice(values.clone()),
            FieldKind::Constant { value } => Gen::Constant(value.clone()),
        }
    }

    fn next(&mut self, rng: &mut SmallRng, n: u64, ts: i64) -> Value {
        let off = |base: i64, k: u64| {
            Value::Int(base.saturating_add(i64::try_from(k).unwrap_or(i64::MAX)))
        };
        match self {
            Gen::Uniform(min, max) => Value::Int(rng.random_range(*min..=*max)),
            Gen::Zipfian(min, z) => off(*min, z.next(rng)),
            Gen::Scrambled(min, z) => off(*min, z.next(rng)),
            Gen::Hotspot {
                min,
                max,
                hot_fraction,
                hot_ops,
            } => {
                let span = max.abs_diff(*min) + 1;
                let hot = ((span as f64 * *hot_fraction) as u64).clamp(1, span);
                let k = if rng.random::<f64>() < *hot_ops {
                    rng.random_range(0..hot)
                } else if hot < span {
                    rng.random_range(hot..span)
                } else {
                    rng.random_range(0..span)
                };
                off(*min, k)
            }
            Gen::Latest(z) => {
                let back = z.next_with_count(rng, n + 1);
                Value::Int(i64::try_from(n.saturating_sub(back.min(n))).unwrap_or(i64::MAX))
            }
            Gen::Sequence(start) => off(*start, n),
            Gen::Timestamp => Value::Int(ts),
            Gen::Date => Value::Bytes(utc_date(ts).into_bytes()),
            Gen::Choice(values) => {
                let i = rng.random_range(0..values.len().max(1));
                Value::from(values.get(i).cloned().unwrap_or_default())
            }
            Gen::Constant(v) => Value::from(v.clone()),
        }
    }
}

/// The records of a workload, in event-time order: `(event time ms, record)`.
pub struct RecordStream {
    rng: SmallRng,
    gens: Vec<(String, Gen)>,
    n: u64,
    total: u64,
    start_ms: i64,
    rate: f64,
    replay: Option<Arc<Vec<Vec<u8>>>>,
}

impl Iterator for RecordStream {
    type Item = (i64, Record);

    fn next(&mut self) -> Option<Self::Item> {
        if self.n >= self.total {
            return None;
        }
        let ts = self.start_ms + (self.n as f64 * 1000.0 / self.rate) as i64;
        let mut r = Record::new();
        r.set("id", Value::Int(i64::try_from(self.n).unwrap_or(i64::MAX)));
        r.set("ts", Value::Int(ts));
        if let Some(keys) = &self.replay {
            let i = usize::try_from(self.n % keys.len() as u64).unwrap_or(0);
            r.set("key", Value::Bytes(keys[i].clone()));
        }
        for (name, g) in &mut self.gens {
            r.set(name, g.next(&mut self.rng, self.n, ts));
        }
        self.n += 1;
        Some((ts, r))
    }

    fn size_hint(&self) -> (usize, Option<usize>) {
        let left = usize::try_from(self.total - self.n).unwrap_or(usize::MAX);
        (left, Some(left))
    }
}

/// `yyyyMMdd` of epoch milliseconds, UTC.
pub fn utc_date(ms: i64) -> String {
    let (y, m, d) = regionkv::cell::civil_from_days(ms.div_euclid(86_400_000));
    format!("{y:04}{m:02}{d:02}")
}

#[cfg(test)]
mod tests {
    use super::*;

    const W: &str = r#"
name = "ad events"
seed = 7
duration = "1h"
rate = 10
[fields]
company = { kind = "zipfian", min = 1, max = 1000 }
user = { kind = "scrambled_zipfian", min = 0, max = 99999999 }
campaign = { kind = "uniform", min = 1, max = 500 }
hot = { kind = "hotspot", min = 0, max = 999 }
recent = { kind = "latest" }
seq = { kind = "sequence", start = 100 }
when = { kind = "timestamp" }
day = { kind = "date" }
region = { kind = "choice", values = ["eu", "us"] }
source = { kind = "constant", value = "web" }
"#;

    fn ints(w: &Workload, field: &str) -> Vec<i64> {
        w.stream()
            .map(|(_, r)| match r.get(field) {
                Some(Value::Int(n)) => *n,
                _ => i64::MIN,
            })
            .collect()
    }

    #[test]
    fn a_workload_generates_its_fields_at_its_rate() -> Result<(), WorkloadError> {
        let w = Workload::parse(W, "w.toml")?;
        assert_eq!(w.records(), 36_000);
        let recs: Vec<_> = w.stream().take(3).collect();
        assert_eq!(recs[1].0 - recs[0].0, 100, "10 records a second");
        assert_eq!(recs[0].0, DEFAULT_START_MS);
        assert_eq!(recs[0].1.get("day"), Some(&Value::from("20260101")));
        assert_eq!(recs[2].1.get("seq"), Some(&Value::Int(102)));
        assert_eq!(recs[2].1.get("source"), Some(&Value::from("web")));
        // The same seed, the same records.
        assert!(w.stream().zip(w.stream()).take(500).all(|(a, b)| a == b));
        for v in ints(&w, "campaign") {
            assert!((1..=500).contains(&v));
        }
        Ok(())
    }

    #[test]
    fn distributions_have_their_shapes() -> Result<(), WorkloadError> {
        let w = Workload::parse(W, "w.toml")?;
        let n = w.records() as f64;
        // Zipfian: the most popular value takes far more than a uniform share.
        let company = ints(&w, "company");
        let top = company.iter().filter(|&&c| c == 1).count() as f64;
        assert!(top / n > 0.05, "zipfian top share {}", top / n);
        // Hotspot: about 80% of draws in the first 20% of the range.
        let hot = ints(&w, "hot").iter().filter(|&&h| h < 200).count() as f64;
        assert!((hot / n - 0.8).abs() < 0.02, "hotspot share {}", hot / n);
        // Latest: near the newest sequence number (a uniform pick would be within 1,000 of
        // it 3% of the time).
        let recent = ints(&w, "recent");
        let last = recent.len() as i64 - 1;
        assert!(recent[recent.len() - 1] <= last);
        let near = recent
            .iter()
            .enumerate()
            .filter(|&(i, &r)| (i as i64 - r) < 1000)
            .count() as f64;
        assert!(near / n > 0.5, "latest near share {}", near / n);
        // Scrambled zipfian: spread over the range, not crowded at its start.
        let user = ints(&w, "user");
        let low = user.iter().filter(|&&u| u < 1_000_000).count() as f64;
        assert!(low / n < 0.2, "scrambled low share {}", low / n);
        Ok(())
    }

    #[test]
    fn reads_and_replay() -> Result<(), Box<dyn std::error::Error>> {
        let dir = tempfile::tempdir()?;
        std::fs::write(
            dir.path().join("keys.csv"),
            "a,row1\nb,row\\x002\n\nc,row3\n",
        )?;
        let text = r#"
rate = 10
read_rate = 2
[replay]
file = "keys.csv"
csv_column = 1
[[reads]]
kind = "latest"
fields = ["key"]
limit = 3
weight = 2
[[reads]]
kind = "range"
span = "5m"
"#;
        let w = Workload::parse_in(text, "w.toml", dir.path())?;
        // Each key once: three records at 10 a second.
        assert_eq!(w.records(), 3);
        let recs: Vec<_> = w.stream().collect();
        assert_eq!(
            recs[1].1.get("key"),
            Some(&Value::Bytes(b"row\x002".to_vec()))
        );
        assert_eq!(recs[2].1.get("id"), Some(&Value::Int(2)));
        assert_eq!(recs[2].1.get("ts"), Some(&Value::Int(recs[2].0)));
        assert_eq!(w.reads.len(), 2);
        assert_eq!(
            w.reads[0].kind,
            ReadKind::Latest {
                field: "ts".into(),
                limit: 3
            }
        );
        assert_eq!(w.reads[1].label(), "range(; ts over 5m)");
        // Longer runs repeat the keys in order.
        let long = w.clone().with_records(7);
        assert_eq!(
            long.stream().nth(4).map(|r| r.1.get("key").cloned()),
            Some(Some(Value::from("row\x002")))
        );
        Ok(())
    }

    #[test]
    fn an_index_read_names_its_index() -> Result<(), WorkloadError> {
        let w = Workload::parse(
            "duration = \"1m\"\nrate = 1\nread_rate = 1\n[fields]\nu = { kind = \"uniform\", min = 0, max = 9 }\n\
             [[reads]]\nkind = \"index\"\nindex = \"by_u\"\nfields = [\"u\"]\npick = \"random\"\n",
            "w.toml",
        )?;
        assert_eq!(
            w.reads[0].kind,
            ReadKind::Index {
                index: "by_u".into()
            }
        );
        assert_eq!(
            (w.reads[0].kind.name(), w.reads[0].label().as_str()),
            ("index", "index by_u(u)")
        );
        Ok(())
    }

    #[test]
    fn read_mistakes_are_named() {
        for (reads, expected) in [
            ("[[reads]]\nkind = \"scan\"\n", "needs `fields`"),
            (
                "[[reads]]\nkind = \"get\"\nfields = [\"u\"]\n",
                "no `fields`",
            ),
            (
                "[[reads]]\nkind = \"scan\"\nfields = [\"nope\"]\n",
                "no field 'nope'",
            ),
            ("[[reads]]\nkind = \"range\"\n", "span"),
            ("[[reads]]\nkind = \"get\"\nlimit = 3\n", "takes no 'limit'"),
            ("[[reads]]\nkind = \"peek\"\n", "unknown read kind"),
            (
                "[[reads]]\nkind = \"index\"\nfields = [\"u\"]\n",
                "needs `index`",
            ),
            (
                "[[reads]]\nkind = \"index\"\nindex = \"by_u\"\n",
                "needs `fields`",
            ),
            (
                "[[reads]]\nkind = \"scan\"\nfields = [\"u\"]\nindex = \"by_u\"\n",
                "takes no 'index'",
            ),
            ("", "read_rate without"),
        ] {
            let text = format!(
                "duration = \"1m\"\nrate = 1\nread_rate = 1\n[fields]\nu = {{ kind = \"uniform\", min = 0, max = 9 }}\n{reads}"
            );
            match Workload::parse(&text, "w.toml") {
                Ok(_) => panic!("accepted: {reads}"),
                Err(e) => assert!(e.to_string().contains(expected), "{reads} => {e}"),
            }
        }
        assert!(
            Workload::parse(
                "duration = \"1m\"\nrate = 1\n[fields]\nid = { kind = \"sequence\" }\n",
                "w"
            )
            .is_err()
        );
        assert!(
            Workload::find("events")
                .is_ok_and(|w| w.records() == 1_000_000 && w.read_count() == 100_000)
        );
        assert!(Workload::find("timeseries").is_ok());
        assert!(Workload::find("nonesuch").is_err());
    }

    #[test]
    fn dates_and_durations() {
        assert_eq!(utc_date(0), "19700101");
        assert_eq!(utc_date(951_782_400_000), "20000229");
        assert_eq!(utc_date(DEFAULT_START_MS + 86_400_000 * 59), "20260301");
        assert_eq!(utc_date(-1), "19691231");
        assert_eq!(parse_duration("6h"), Ok(21_600_000));
        assert_eq!(parse_duration("90"), Ok(90_000));
        assert_eq!(parse_duration("1.5m"), Ok(90_000));
        assert!(parse_duration("0s").is_err());
        assert!(parse_duration("soon").is_err());
    }

    #[test]
    fn mistakes_are_named() {
        for (text, expected) in [
            ("duration = \"1h\"\nrate = 0\n[fields]\n", "rate"),
            ("duration = \"x\"\nrate = 1\n[fields]\n", "duration"),
            (
                "duration = \"1h\"\nrate = 1\n[fields]\na = { kind = \"uniform\", min = 5, max = 1 }\n",
                "field 'a'",
            ),
            (
                "duration = \"1h\"\nrate = 1\n[fields]\na = { kind = \"zipfian\", min = 0, max = 1000000000 }\n",
                "scrambled_zipfian",
            ),
            (
                "duration = \"1h\"\nrate = 1\n[fields]\na = { kind = \"nope\" }\n",
                "nope",
            ),
            (
                "duration = \"1h\"\nrate = 1\n[fields]\na = { kind = \"choice\", values = [] }\n",
                "values",
            ),
        ] {
            match Workload::parse(text, "w.toml") {
                Ok(_) => panic!("accepted: {text}"),
                Err(e) => assert!(e.to_string().contains(expected), "{text} => {e}"),
            }
        }
    }
}
