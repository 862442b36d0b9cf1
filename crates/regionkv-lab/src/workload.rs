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
//! ```
//!
//! Integer fields are `Value::Int`; `date`, `choice` and `constant` are text.

use std::collections::BTreeMap;
use std::path::Path;

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
}

#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
struct File {
    name: Option<String>,
    #[serde(default)]
    seed: u64,
    start: Option<i64>,
    duration: String,
    rate: f64,
    fields: BTreeMap<String, FieldKind>,
}

impl Workload {
    /// Reads a workload file.
    ///
    /// # Errors
    /// [`WorkloadError`] naming the file.
    pub fn load(path: &Path) -> Result<Workload, WorkloadError> {
        let file = path.display().to_string();
        let text = std::fs::read_to_string(path).map_err(|e| WorkloadError {
            file: file.clone(),
            message: e.to_string(),
        })?;
        Workload::parse(&text, &file)
    }

    /// Parses a workload; `file` names it in errors.
    ///
    /// # Errors
    /// [`WorkloadError`] naming the file.
    pub fn parse(text: &str, file: &str) -> Result<Workload, WorkloadError> {
        let err = |message: String| WorkloadError {
            file: file.to_string(),
            message,
        };
        let f: File = toml::from_str(text).map_err(|e| err(e.to_string()))?;
        let duration_ms = parse_duration(&f.duration).map_err(err)?;
        if !(f.rate > 0.0 && f.rate.is_finite()) {
            return Err(err(format!("rate must be above 0, not {}", f.rate)));
        }
        for (name, kind) in &f.fields {
            check_field(kind).map_err(|m| err(format!("field '{name}': {m}")))?;
        }
        Ok(Workload {
            name: f.name.unwrap_or_else(|| file.to_string()),
            seed: f.seed,
            start_ms: f.start.unwrap_or(DEFAULT_START_MS),
            duration_ms,
            rate: f.rate,
            fields: f.fields.into_iter().collect(),
        })
    }

    /// How many records the duration holds at the rate.
    pub fn records(&self) -> u64 {
        (self.duration_ms as f64 / 1000.0 * self.rate).floor() as u64
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
        }
    }
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
}

impl Iterator for RecordStream {
    type Item = (i64, Record);

    fn next(&mut self) -> Option<Self::Item> {
        if self.n >= self.total {
            return None;
        }
        let ts = self.start_ms + (self.n as f64 * 1000.0 / self.rate) as i64;
        let mut r = Record::new();
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

/// `yyyyMMdd` of epoch milliseconds, UTC (the civil-from-days algorithm).
pub fn utc_date(ms: i64) -> String {
    let days = ms.div_euclid(86_400_000);
    let z = days + 719_468;
    let era = z.div_euclid(146_097);
    let doe = z - era * 146_097;
    let yoe = (doe - doe / 1460 + doe / 36_524 - doe / 146_096) / 365;
    let doy = doe - (365 * yoe + yoe / 4 - yoe / 100);
    let mp = (5 * doy + 2) / 153;
    let d = doy - (153 * mp + 2) / 5 + 1;
    let m = if mp < 10 { mp + 3 } else { mp - 9 };
    let y = yoe + era * 400 + i64::from(m <= 2);
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
ts = { kind = "timestamp" }
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
