//! The `-s` statistics of `regionkv hfile` for HBase HFiles, in the text HBase 2.4's
//! `HFilePrettyPrinter` prints: its `KeyValueStatsCollector` (per cell: value length; per
//! row: bytes, cells and the key length of the row's last cell; the biggest row) reported by
//! its `SimpleReporter`, which prints one Dropwizard-metrics histogram snapshot per series
//! with Java's `%d` and `%2.2f`.
//!
//! HBase 2.4 (before HBASE-27224, fixed in 2.5) registers the histograms with Dropwizard's
//! default reservoir, an `ExponentiallyDecayingReservoir` of 1028 samples chosen at random
//! once a series has more values than that. HBase's own figures for a longer series are
//! therefore a random sample, different from run to run; this printer computes the snapshot
//! over every value instead, with the equal weights (1.0) that HBase gives samples taken
//! within one second. So the output equals HBase's exactly whenever a series has at most
//! 1028 values (a scan of well under a second) or all its values are equal, and is the
//! value HBase's sampling estimates otherwise.

use regionkv_cell::bytes::to_string_binary;
use std::collections::BTreeMap;

/// Java's `String.format("%2.2f", x)` (and `%.2f`): the shortest decimal digits that
/// identify the double (Java's `FloatingDecimal`, as Rust's `{:e}` also gives them),
/// rounded half up to two decimals (Java's `FormattedFloatingDecimal.applyPrecision`), not
/// the exact binary value rounded half to even that Rust's `{:.2}` prints: 0.125 is
/// "0.13" in Java and "0.12" in Rust.
pub(crate) fn java_fixed2(x: f64) -> String {
    if x.is_nan() {
        return "NaN".into();
    }
    if x.is_infinite() {
        return if x > 0.0 { "Infinity" } else { "-Infinity" }.into();
    }
    let sign = if x.is_sign_negative() { "-" } else { "" };
    if x == 0.0 {
        return format!("{sign}0.00");
    }
    let sci = format!("{:e}", x.abs());
    let (mantissa, exponent) = sci.split_once('e').unwrap_or((sci.as_str(), "0"));
    let exponent: i64 = exponent.parse().unwrap_or(0);
    let mut digits: Vec<u8> = mantissa
        .bytes()
        .filter(u8::is_ascii_digit)
        .map(|b| b - b'0')
        .collect();
    // value = 0.d1 d2 d3 ... × 10^dec_exp, Java's convention.
    let mut dec_exp = exponent + 1;
    let keep = dec_exp + 2;
    if keep < 0 {
        digits = vec![0];
    } else if let Ok(k) = usize::try_from(keep)
        && k < digits.len()
    {
        let up = digits[k] >= 5;
        digits.truncate(k);
        if up {
            // Add one at the last kept digit, carrying through nines; a carry out of the
            // first digit (or keeping no digit at all) makes "1" one decimal place higher.
            let mut i = k;
            loop {
                if i == 0 {
                    digits.insert(0, 1);
                    dec_exp += 1;
                    break;
                }
                i -= 1;
                if digits[i] == 9 {
                    digits[i] = 0;
                } else {
                    digits[i] += 1;
                    break;
                }
            }
        }
    }
    let digit = |i: i64| -> char {
        usize::try_from(i)
            .ok()
            .and_then(|i| digits.get(i))
            .map_or('0', |d| char::from(b'0' + d))
    };
    let int_part: String = if dec_exp <= 0 {
        "0".into()
    } else {
        (0..dec_exp).map(digit).collect()
    };
    format!("{sign}{int_part}.{}{}", digit(dec_exp), digit(dec_exp + 1))
}

/// One series (HBase's Dropwizard `Histogram`), kept as value → count so that a file of
/// millions of cells costs as many entries as it has distinct lengths.
#[derive(Debug, Default)]
pub(crate) struct Series {
    counts: BTreeMap<i64, u64>,
    n: u64,
}

/// What the reporter prints of a series: Dropwizard's `WeightedSnapshot` of every value
/// with weight 1.0.
#[derive(Debug, Clone, PartialEq)]
struct Snapshot {
    min: i64,
    max: i64,
    mean: f64,
    stddev: f64,
    /// median, 75%, 95%, 98%, 99%, 99.9%.
    quantiles: [f64; 6],
}

const QUANTILES: [f64; 6] = [0.5, 0.75, 0.95, 0.98, 0.99, 0.999];

impl Series {
    pub(crate) fn update(&mut self, v: i64) {
        *self.counts.entry(v).or_default() += 1;
        self.n += 1;
    }

    /// The values in snapshot order (ascending), each as often as it was seen.
    fn values(&self) -> impl Iterator<Item = i64> + '_ {
        self.counts
            .iter()
            .flat_map(|(v, n)| std::iter::repeat_n(*v, usize::try_from(*n).unwrap_or(0)))
    }

    /// `WeightedSnapshot` with equal weights, computed with the same floating-point
    /// operations in the same order as Dropwizard's: normalised weight 1/n, quantile
    /// positions as running sums of the weights, mean and variance as weighted sums.
    fn snapshot(&self) -> Option<Snapshot> {
        let min = *self.counts.keys().next()?;
        let max = *self.counts.keys().next_back()?;
        let w = 1.0 / (self.n as f64);
        let mean = self.values().fold(0.0, |acc, v| acc + (v as f64) * w);
        let stddev = if self.n <= 1 {
            0.0
        } else {
            let var = self.values().fold(0.0, |acc, v| {
                let d = (v as f64) - mean;
                acc + w * d * d
            });
            var.sqrt()
        };
        // getValue(q): Arrays.binarySearch over the running sums, i.e. the last position
        // whose running sum is <= q (the sums are strictly increasing), then its value.
        let mut quantiles = [min as f64; 6];
        let mut cum = 0.0;
        for v in self.values() {
            for (q, out) in QUANTILES.iter().zip(quantiles.iter_mut()) {
                if cum <= *q {
                    *out = v as f64;
                }
            }
            cum += w;
        }
        Some(Snapshot {
            min,
            max,
            mean,
            stddev,
            quantiles,
        })
    }

    /// `SimpleReporter.printHistogram`.
    fn report(&self, name: &str, out: &mut String) {
        use std::fmt::Write as _;
        let Some(s) = self.snapshot() else {
            return;
        };
        let f = java_fixed2;
        let _ = writeln!(out, "   {name}:");
        let _ = writeln!(out, "               min = {}", s.min);
        let _ = writeln!(out, "               max = {}", s.max);
        let _ = writeln!(out, "              mean = {}", f(s.mean));
        let _ = writeln!(out, "            stddev = {}", f(s.stddev));
        let _ = writeln!(out, "            median = {}", f(s.quantiles[0]));
        let _ = writeln!(out, "              75% <= {}", f(s.quantiles[1]));
        let _ = writeln!(out, "              95% <= {}", f(s.quantiles[2]));
        let _ = writeln!(out, "              98% <= {}", f(s.quantiles[3]));
        let _ = writeln!(out, "              99% <= {}", f(s.quantiles[4]));
        let _ = writeln!(out, "            99.9% <= {}", f(s.quantiles[5]));
        let _ = writeln!(out, "             count = {}", self.n);
    }
}

/// HBase's `KeyValueStatsCollector`.
#[derive(Debug, Default)]
pub(crate) struct StatsCollector {
    key_len: Series,
    val_len: Series,
    row_bytes: Series,
    row_cols: Series,
    cur_row_bytes: i64,
    cur_row_cols: i64,
    cur_row_key_len: i64,
    max_row_bytes: i64,
    biggest_row: Option<Vec<u8>>,
    prev_row: Option<Vec<u8>>,
}

impl StatsCollector {
    /// One cell: its row, key length, value length and serialized size
    /// (`Cell.getSerializedSize`: 8 + key + value, plus 2 + tags when it has tags).
    pub(crate) fn collect(&mut self, row: &[u8], key_len: usize, value_len: usize, size: usize) {
        self.val_len.update(value_len as i64);
        if self.prev_row.as_deref().is_some_and(|p| p != row) {
            self.collect_row();
        }
        self.cur_row_bytes += size as i64;
        self.cur_row_key_len = key_len as i64;
        self.cur_row_cols += 1;
        match &mut self.prev_row {
            Some(p) if p.as_slice() == row => {}
            p => *p = Some(row.to_vec()),
        }
    }

    /// A row ends: its sizes go into the row series, and it is the biggest row if it is
    /// strictly bigger than every row before it.
    fn collect_row(&mut self) {
        self.row_bytes.update(self.cur_row_bytes);
        self.row_cols.update(self.cur_row_cols);
        self.key_len.update(self.cur_row_key_len);
        if self.cur_row_bytes > self.max_row_bytes && self.prev_row.is_some() {
            self.biggest_row = self.prev_row.clone();
            self.max_row_bytes = self.cur_row_bytes;
        }
        self.cur_row_bytes = 0;
        self.cur_row_cols = 0;
    }

    /// The last row ends.
    pub(crate) fn finish(&mut self) {
        if self.cur_row_cols > 0 {
            self.collect_row();
        }
    }

    /// `KeyValueStatsCollector.toString`: the histograms in name order (the registry's
    /// sorted map), a blank line after them and another from the reporter's end, then the
    /// biggest row.
    pub(crate) fn report(&self) -> String {
        if self.prev_row.is_none() {
            return "no data available for statistics".into();
        }
        let mut out = String::new();
        self.key_len.report("Key length", &mut out);
        self.row_bytes.report("Row size (bytes)", &mut out);
        self.row_cols.report("Row size (columns)", &mut out);
        self.val_len.report("Val length", &mut out);
        out.push_str("\n\n");
        out.push_str("Key of biggest row: ");
        out.push_str(&to_string_binary(
            self.biggest_row.as_deref().unwrap_or_default(),
        ));
        out
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn java_rounds_the_shortest_digits_half_up() {
        for (x, want) in [
            (0.125, "0.13"),
            (0.15, "0.15"),
            (1.005, "1.01"),
            (2.675, "2.68"),
            (30.0, "30.00"),
            (29.999_999_999_999_996, "30.00"),
            (0.004, "0.00"),
            (0.005, "0.01"),
            (0.0001, "0.00"),
            (9.995, "10.00"),
            (99.999, "100.00"),
            (1234.5, "1234.50"),
            (0.0, "0.00"),
            (5e-324, "0.00"),
            (1e21, "1000000000000000000000.00"),
        ] {
            assert_eq!(java_fixed2(x), want, "{x}");
        }
    }

    #[test]
    fn quantiles_are_the_weighted_snapshot_s() {
        let mut s = Series::default();
        for v in [1, 2, 3, 4] {
            s.update(v);
        }
        let snap = s.snapshot().unwrap_or_else(|| unreachable!());
        // Running sums 0, .25, .5, .75: the last one <= q.
        assert_eq!(snap.quantiles, [3.0, 4.0, 4.0, 4.0, 4.0, 4.0]);
        assert_eq!((snap.min, snap.max), (1, 4));
        assert_eq!(java_fixed2(snap.mean), "2.50");
        // Population standard deviation (weights sum to one): sqrt(1.25).
        assert_eq!(java_fixed2(snap.stddev), "1.12");
        let mut one = Series::default();
        one.update(7);
        let snap = one.snapshot().unwrap_or_else(|| unreachable!());
        assert_eq!((snap.stddev, snap.quantiles[5]), (0.0, 7.0));
    }

    #[test]
    fn the_biggest_row_is_the_first_of_the_largest() {
        let mut c = StatsCollector::default();
        c.collect(b"a", 10, 5, 23);
        c.collect(b"b", 10, 5, 23);
        c.collect(b"b", 10, 5, 23);
        c.collect(b"c", 11, 5, 24);
        c.collect(b"c", 11, 5, 22);
        c.finish();
        let text = c.report();
        assert!(text.ends_with("\n\n\nKey of biggest row: b"), "{text}");
        assert!(text.starts_with("   Key length:\n               min = 10\n"));
        assert!(
            text.contains(
                "   Row size (columns):\n               min = 1\n               max = 2\n"
            )
        );
        assert_eq!(
            StatsCollector::default().report(),
            "no data available for statistics"
        );
    }
}
