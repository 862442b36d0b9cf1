//! Read plans: how a read a workload states in fields — a get of a record's row, the rows
//! with some fields' values, those rows over a range of one field, the newest N of them —
//! becomes gets and key-range scans under a design's rowkey, the way an HBase client of
//! that design would have to ask.
//!
//! The rowkey's top-level parts are walked in key order, building the key prefixes the
//! read can pin down:
//! - a part whose fields the read knows (and that draws no random salt) adds its bytes;
//! - a salt — a hash bucket of fields the read does not know, or a random one — cannot be
//!   computed, so the read asks every bucket: the prefixes multiply by the bucket count
//!   (the fan-out the HBase literature warns of);
//! - an order-preserving encoding of the ranged or ordering field (the field, `pad`,
//!   `long`/`be32`/`be16` ascending; `reverse_ts` descending) bounds a range and ends the
//!   walk;
//! - anything else ends the walk: every row under the prefix must be read.
//!
//! An empty prefix is a full-table scan. Nothing here is executed; `simulate` runs the
//! plans against the engine and counts the rows and regions they touch.

use std::collections::BTreeSet;

use crate::expr::{Expr, ExprError, Function, Record, Value, bucket_width, seeded_rng};
use crate::workload::ReadKind;

/// More key prefixes than this (salts within salts) and the walk stops at the salt.
pub const MAX_FANOUT: usize = 4096;

/// `[start, stop)`; an empty `stop` is the end of the table.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct KeyRange {
    /// First row (inclusive).
    pub start: Vec<u8>,
    /// Last row (exclusive); empty: no bound.
    pub stop: Vec<u8>,
}

/// What the client sends.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Access {
    /// Gets of these rows (more than one when a random salt hides which).
    Gets(Vec<Vec<u8>>),
    /// Scans of these ranges, each `reversed` and limited to `limit` rows if said.
    Scans {
        /// The ranges.
        ranges: Vec<KeyRange>,
        /// Newest-last keys read backwards (HBase's reversed scan).
        reversed: bool,
        /// Rows per scan.
        limit: Option<u64>,
    },
}

/// A read's plan.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Plan {
    /// The requests.
    pub access: Access,
    /// No key prefix pins the read down: every region is scanned.
    pub full_scan: bool,
}

impl Plan {
    /// How many requests (gets or scans) the client sends.
    pub fn requests(&self) -> usize {
        match &self.access {
            Access::Gets(keys) => keys.len(),
            Access::Scans { ranges, .. } => ranges.len(),
        }
    }
}

enum Part {
    Fixed(Vec<u8>),
    Fan(Vec<Vec<u8>>),
    /// An order-keeping encoding of the ordered field; `truncated` when only a prefix of
    /// it (OpenTSDB's base time): still good for bounding a range, not for "newest first".
    Ordered {
        descending: bool,
        truncated: bool,
    },
    Open,
}

/// The plan of a read of `kind` that knows `fields` of `record` (every field, for a get).
///
/// # Errors
/// A part of the key that fails to evaluate on the record.
pub fn plan(
    key: &Expr,
    kind: &ReadKind,
    fields: &[String],
    record: &Record,
) -> Result<Plan, ExprError> {
    let get = matches!(kind, ReadKind::Get);
    let bound: BTreeSet<&str> = if get {
        key.fields().into_iter().collect()
    } else {
        fields.iter().map(String::as_str).collect()
    };
    let ordered_field = match kind {
        ReadKind::Range { field, .. } | ReadKind::Latest { field, .. } => Some(field.as_str()),
        // An index read planned on a key is a scan of what it knows: on the index's own
        // key (simulate plans it there), or on the base key of a design without the index.
        ReadKind::Get | ReadKind::Scan | ReadKind::Index { .. } => None,
    };
    let mut prefixes: Vec<Vec<u8>> = vec![Vec::new()];
    let mut complete = true;
    let mut ordered = None;
    // The read's fields the prefix has taken in so far.
    let mut used: BTreeSet<&str> = BTreeSet::new();
    for part in key.parts() {
        let class = classify(part, &bound, ordered_field, record)?;
        if matches!(class, Part::Fixed(_)) {
            used.extend(pinned(part));
        }
        match class {
            Part::Fixed(bytes) => prefixes
                .iter_mut()
                .for_each(|p| p.extend_from_slice(&bytes)),
            Part::Fan(values) if prefixes.len() * values.len() <= MAX_FANOUT => {
                prefixes = prefixes
                    .iter()
                    .flat_map(|p| {
                        values.iter().map(move |v| {
                            let mut k = p.clone();
                            k.extend_from_slice(v);
                            k
                        })
                    })
                    .collect();
            }
            // The newest rows of what the read knows are in order only when the prefix
            // holds all of it; a range needs no such thing (it reads the others' rows too).
            Part::Ordered {
                descending,
                truncated,
            } if matches!(kind, ReadKind::Range { .. })
                || (!truncated && bound.iter().all(|f| used.contains(f))) =>
            {
                ordered = Some((part, descending));
                complete = false;
                break;
            }
            Part::Ordered { .. } => {
                complete = false;
                break;
            }
            Part::Fan(_) | Part::Open => {
                complete = false;
                break;
            }
        }
    }
    let full_scan = prefixes.len() == 1 && prefixes[0].is_empty() && ordered.is_none();
    if get && complete {
        return Ok(Plan {
            access: Access::Gets(prefixes),
            full_scan: false,
        });
    }
    let prefix_range = |p: &Vec<u8>| KeyRange {
        start: p.clone(),
        stop: successor(p),
    };
    let (ranges, reversed, limit) = match (kind, ordered) {
        (ReadKind::Range { field, span_ms }, Some((part, descending))) => {
            let hi = int_field(record, field)?;
            let lo = hi.saturating_sub(*span_ms);
            let (first, last) = if descending { (hi, lo) } else { (lo, hi) };
            let (a, b) = (
                eval_with(part, record, field, first)?,
                eval_with(part, record, field, last)?,
            );
            let ranges = prefixes
                .iter()
                .map(|p| KeyRange {
                    start: [p.as_slice(), &a].concat(),
                    stop: successor(&[p.as_slice(), &b].concat()),
                })
                .collect();
            (ranges, false, None)
        }
        (ReadKind::Latest { limit, .. }, Some((_, descending))) => {
            // Newest first in key order: a forward scan stops after `limit` rows; newest
            // last: a reversed scan does.
            (
                prefixes.iter().map(prefix_range).collect(),
                !descending,
                Some(*limit),
            )
        }
        // No order to use: every row under the prefix is read (the newest picked by the
        // client), and a range is filtered client-side.
        _ => (prefixes.iter().map(prefix_range).collect(), false, None),
    };
    Ok(Plan {
        access: Access::Scans {
            ranges,
            reversed,
            limit,
        },
        full_scan,
    })
}

/// The fields whose whole value `part` carries, in an order-keeping or reversible form:
/// a hash, a bucket or a slice of one tells which bucket, not which value, so a read
/// that knows the field still sees every other value of the bucket.
pub fn pinned(part: &Expr) -> Vec<&str> {
    match part {
        Expr::Field(f) => vec![f.as_str()],
        Expr::Concat(parts) => parts.iter().flat_map(pinned).collect(),
        Expr::Call(
            Function::Pad
            | Function::Be64
            | Function::Be32
            | Function::Be16
            | Function::Reverse
            | Function::ReverseTs
            | Function::BitReverse
            | Function::Hex,
            args,
        ) => args.first().map(pinned).unwrap_or_default(),
        _ => Vec::new(),
    }
}

fn classify(
    part: &Expr,
    bound: &BTreeSet<&str>,
    ordered_field: Option<&str>,
    record: &Record,
) -> Result<Part, ExprError> {
    let fields = part.fields();
    let random = part.functions().iter().any(|f| f.is_random());
    if !random && fields.iter().all(|f| bound.contains(f)) {
        // No random call: the rng is never drawn from.
        return Ok(Part::Fixed(part.eval(record, &mut seeded_rng(0))?));
    }
    if let Expr::Call(f, args) = part {
        let count = if f.is_random() {
            args.first()
        } else {
            args.get(1)
        };
        if let (
            Function::Salt | Function::Bucket | Function::RandomSalt | Function::RandomBucket,
            Some(Expr::Int(n)),
        ) = (f, count)
            && (1..=256).contains(n)
        {
            let values = (0..*n)
                .map(|b| match f {
                    Function::Salt | Function::RandomSalt => vec![u8::try_from(b).unwrap_or(0)],
                    _ => format!("{b:0w$}", w = bucket_width(*n)).into_bytes(),
                })
                .collect();
            return Ok(Part::Fan(values));
        }
    }
    if let Some(o) = ordered_field
        && fields.iter().all(|f| *f == o || bound.contains(f))
        && fields.contains(&o)
        && !random
    {
        let on_field = |e: Option<&Expr>| matches!(e, Some(Expr::Field(f)) if f == o);
        // The field in an ascending encoding of fixed width.
        let ascending = |e: &Expr| match e {
            Expr::Field(f) => f == o,
            Expr::Call(Function::Pad | Function::Be64 | Function::Be32 | Function::Be16, args) => {
                on_field(args.first())
            }
            _ => false,
        };
        let whole = |descending| Part::Ordered {
            descending,
            truncated: false,
        };
        match part {
            e if ascending(e) => return Ok(whole(false)),
            Expr::Call(Function::ReverseTs, args) if on_field(args.first()) => {
                return Ok(whole(true));
            }
            // A leading piece of an ascending encoding keeps its order (not strictly).
            Expr::Call(Function::Substr, args)
                if args.first().is_some_and(ascending)
                    && matches!(args.get(1), Some(Expr::Int(0))) =>
            {
                return Ok(Part::Ordered {
                    descending: false,
                    truncated: true,
                });
            }
            Expr::Slice(inner, None | Some(0), Some(end)) if ascending(inner) && *end > 0 => {
                return Ok(Part::Ordered {
                    descending: false,
                    truncated: true,
                });
            }
            _ => {}
        }
    }
    Ok(Part::Open)
}

fn int_field(record: &Record, field: &str) -> Result<i64, ExprError> {
    match record.get(field) {
        Some(Value::Int(n)) => Ok(*n),
        Some(Value::Bytes(b)) => std::str::from_utf8(b)
            .ok()
            .and_then(|s| s.parse().ok())
            .ok_or_else(|| {
                ExprError::Eval(format!("a range over '{field}', which is not a number"))
            }),
        None => Err(ExprError::Eval(format!(
            "the record has no field '{field}'"
        ))),
    }
}

fn eval_with(part: &Expr, record: &Record, field: &str, value: i64) -> Result<Vec<u8>, ExprError> {
    let mut r = record.clone();
    r.set(field, Value::Int(value));
    part.eval(&r, &mut seeded_rng(0))
}

/// The first key after every key that starts with `prefix` (empty: none, the table's end).
pub fn successor(prefix: &[u8]) -> Vec<u8> {
    let mut k = prefix.to_vec();
    while let Some(&last) = k.last() {
        if last == u8::MAX {
            k.pop();
        } else {
            *k.last_mut().unwrap_or(&mut 0) = last + 1;
            return k;
        }
    }
    Vec::new()
}

/// The plan of a lookup in an index keyed by `key`, knowing `fields` of `record`: a get
/// when the read knows every field of the index key (a summary's counter row, or an entry
/// key of known fields), else a scan of the prefix it knows.
///
/// # Errors
/// A part of the key that fails to evaluate on the record.
pub fn index_plan(key: &Expr, fields: &[String], record: &Record) -> Result<Plan, ExprError> {
    let knows_all = key.fields().iter().all(|f| fields.iter().any(|g| g == f));
    let random = key.functions().iter().any(|f| f.is_random());
    let kind = if knows_all && !random {
        ReadKind::Get
    } else {
        ReadKind::Scan
    };
    plan(key, &kind, fields, record)
}

#[cfg(test)]
mod tests {
    use super::*;

    type R = Result<(), Box<dyn std::error::Error>>;

    fn rec() -> Record {
        let mut r = Record::new();
        r.set("user", Value::from("u7"));
        r.set("id", Value::Int(5));
        r.set("ts", Value::Int(1_000_000));
        r.set("metric", Value::from("cpu"));
        r
    }

    fn scans(p: &Plan) -> (&[KeyRange], bool, Option<u64>) {
        match &p.access {
            Access::Scans {
                ranges,
                reversed,
                limit,
            } => (ranges, *reversed, *limit),
            Access::Gets(_) => panic!("gets: {p:?}"),
        }
    }

    #[test]
    fn a_get_computes_the_key_unless_a_random_salt_hides_it() -> R {
        let r = rec();
        let p = plan(
            &Expr::parse("hashmod(user, 4) + user + pad(id, 3)")?,
            &ReadKind::Get,
            &[],
            &r,
        )?;
        let key =
            Expr::parse("hashmod(user, 4) + user + pad(id, 3)")?.eval(&r, &mut seeded_rng(1))?;
        assert_eq!(p.access, Access::Gets(vec![key]));
        let p = plan(&Expr::parse("salt(8) + user")?, &ReadKind::Get, &[], &r)?;
        match p.access {
            Access::Gets(keys) => {
                assert_eq!(keys.len(), 8);
                assert_eq!(keys[3], b"3u7");
            }
            other => panic!("{other:?}"),
        }
        Ok(())
    }

    #[test]
    fn scans_take_the_prefix_they_know_and_fan_out_over_salts() -> R {
        let r = rec();
        let fields = ["user".to_string()];
        let p = plan(
            &Expr::parse("user + '|' + reverse_ts(ts)")?,
            &ReadKind::Scan,
            &fields,
            &r,
        )?;
        assert_eq!(
            scans(&p).0,
            [KeyRange {
                start: b"u7|".to_vec(),
                stop: b"u7}".to_vec()
            }]
        );
        assert!(!p.full_scan);
        // A hash of the id, which the read does not know: every bucket.
        let p = plan(
            &Expr::parse("hashmod(id, 16) + user")?,
            &ReadKind::Scan,
            &fields,
            &r,
        )?;
        assert_eq!(p.requests(), 16);
        assert_eq!(scans(&p).0[15].start, b"15u7");
        // A full hash of what the read does not know: the whole table.
        let p = plan(
            &Expr::parse("md5(id) + user")?,
            &ReadKind::Scan,
            &fields,
            &r,
        )?;
        assert!(p.full_scan);
        assert_eq!(
            scans(&p).0,
            [KeyRange {
                start: vec![],
                stop: vec![]
            }]
        );
        Ok(())
    }

    #[test]
    fn ranges_and_latest_use_the_order_of_the_time_part() -> R {
        let r = rec();
        let fields = ["metric".to_string()];
        let range = ReadKind::Range {
            field: "ts".into(),
            span_ms: 1000,
        };
        let p = plan(
            &Expr::parse("metric + long(ts) + user")?,
            &range,
            &fields,
            &r,
        )?;
        let (ranges, ..) = scans(&p);
        assert_eq!(
            ranges[0].start,
            [b"cpu".as_slice(), &999_000i64.to_be_bytes()].concat()
        );
        assert_eq!(
            ranges[0].stop,
            successor(&[b"cpu".as_slice(), &1_000_000i64.to_be_bytes()].concat())
        );
        // Reverse timestamps: the newest end of the range comes first.
        let p = plan(
            &Expr::parse("metric + reverse_ts(ts)")?,
            &range,
            &fields,
            &r,
        )?;
        assert_eq!(
            scans(&p).0[0].start[3..],
            (i64::MAX - 1_000_000).to_be_bytes()
        );
        let latest = ReadKind::Latest {
            field: "ts".into(),
            limit: 10,
        };
        let p = plan(
            &Expr::parse("metric + reverse_ts(ts)")?,
            &latest,
            &fields,
            &r,
        )?;
        assert_eq!((scans(&p).1, scans(&p).2), (false, Some(10)));
        let p = plan(&Expr::parse("metric + pad(ts, 13)")?, &latest, &fields, &r)?;
        assert_eq!(
            (scans(&p).1, scans(&p).2),
            (true, Some(10)),
            "reversed scan"
        );
        // No time part after the prefix: all the metric's rows.
        let p = plan(
            &Expr::parse("metric + user + long(ts)")?,
            &latest,
            &fields,
            &r,
        )?;
        assert_eq!((scans(&p).1, scans(&p).2), (false, None));
        // A hash of the metric pins its bucket, not the metric: the bucket's newest rows
        // are other metrics' too, so all of the bucket is read.
        let p = plan(
            &Expr::parse("hashmod(metric, 8) + reverse_ts(ts)")?,
            &latest,
            &fields,
            &r,
        )?;
        assert_eq!((scans(&p).1, scans(&p).2), (false, None));
        assert_eq!(scans(&p).0[0].start.len(), 1, "the bucket's prefix");
        let p = plan(
            &Expr::parse("hashmod(metric, 8) + metric + reverse_ts(ts)")?,
            &latest,
            &fields,
            &r,
        )?;
        assert_eq!((scans(&p).1, scans(&p).2), (false, Some(10)));
        // Time first: the newest rows of the table are not the metric's newest; every
        // row is read.
        let p = plan(&Expr::parse("long(ts) + metric")?, &latest, &fields, &r)?;
        assert_eq!((scans(&p).1, scans(&p).2), (false, None));
        assert!(p.full_scan);
        // OpenTSDB's base time (a leading piece of the time) bounds a range, not "latest".
        let tsdb = Expr::parse("metric + substr(pad(ts, 13), 0, 8) + user + pad(ts, 13)")?;
        let p = plan(&tsdb, &range, &fields, &r)?;
        assert_eq!(scans(&p).0[0].start, b"cpu00000009".to_vec());
        assert_eq!(scans(&p).0[0].stop, b"cpu00000011".to_vec());
        let p = plan(&tsdb, &latest, &fields, &r)?;
        assert_eq!((scans(&p).1, scans(&p).2), (false, None));
        // A salted series: one scan per bucket.
        let p = plan(
            &Expr::parse("hashmod(user, 20) + metric + long(ts)")?,
            &range,
            &fields,
            &r,
        )?;
        assert_eq!(p.requests(), 20);
        Ok(())
    }

    #[test]
    fn index_lookups_get_what_they_know_whole_and_scan_the_rest() -> R {
        let r = rec();
        let fields = ["user".to_string()];
        // An entry index on user + id: the user's prefix.
        let p = index_plan(&Expr::parse("user + pad(id, 3)")?, &fields, &r)?;
        assert_eq!(
            scans(&p).0,
            [KeyRange {
                start: b"u7".to_vec(),
                stop: b"u8".to_vec()
            }]
        );
        // Hashed by the user: still one bucket, one scan.
        let p = index_plan(&Expr::parse("hashmod(user, 8) + user + id")?, &fields, &r)?;
        assert_eq!(p.requests(), 1);
        // Hashed by the id the read does not know: one scan per bucket.
        let p = index_plan(&Expr::parse("hashmod(id, 8) + user + id")?, &fields, &r)?;
        assert_eq!(p.requests(), 8);
        // A summary row of what the read knows: one get.
        let p = index_plan(
            &Expr::parse("user + '|' + metric")?,
            &["user".into(), "metric".into()],
            &r,
        )?;
        assert_eq!(p.access, Access::Gets(vec![b"u7|cpu".to_vec()]));
        Ok(())
    }

    #[test]
    fn successors() {
        assert_eq!(successor(b"ab"), b"ac");
        assert_eq!(successor(b"a\xff"), b"b");
        assert_eq!(successor(b"\xff\xff"), b"");
        assert_eq!(successor(b""), b"");
    }
}
