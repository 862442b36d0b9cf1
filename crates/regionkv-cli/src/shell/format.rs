//! How the shell prints: HBase's `Shell::Formatter::Base` (hbase-shell/src/main/ruby/shell/
//! formatter.rb) and the small text conversions HBase's shell gets from Ruby and Java —
//! `LocalDateTime.toString` timestamps (hbase/table.rb `toLocalDateTime`), PrettyPrinter's TTL
//! text, Java `HashMap` iteration order (describe's CONFIGURATION), Ruby's `inspect` (the
//! `=> ...` echo and argument error messages) and Ruby's `Float#to_s`.
//!
//! The formatter has HBase's two modes: a width of 0 (standard output is not a terminal:
//! scripts, pipes, tests) prints columns unpadded, separated by one space, data rows inset by
//! one space; a terminal width pads and wraps the columns as HBase does on a console.

use std::io::{self, Write};

use super::tz::{TimeZone, civil_from_days};

/// HBase's results formatter: headers, rows and the `N row(s)` footer.
#[derive(Debug)]
pub struct Formatter {
    /// The terminal width, 0 when the output is not a terminal.
    width: usize,
    /// Rows printed since the last header.
    row_count: u64,
}

impl Formatter {
    /// A formatter for an output `width` columns wide (0: not a terminal).
    pub fn new(width: usize) -> Self {
        Formatter {
            width,
            row_count: 0,
        }
    }

    /// `header(args, widths)`: prints `cols` as an un-inset row (if any) and restarts the
    /// row count.
    pub fn header(
        &mut self,
        out: &mut dyn Write,
        cols: &[&str],
        widths: &[usize],
    ) -> io::Result<()> {
        if !cols.is_empty() {
            self.row(out, cols, false, widths)?;
        }
        self.row_count = 0;
        Ok(())
    }

    /// `row(args, inset, widths)`: one column wraps at the width; two columns are laid out
    /// side by side (the first a quarter of the width unless `widths` gives percentages),
    /// inset by a space when `inset`; more columns are printed space-separated.
    pub fn row(
        &mut self,
        out: &mut dyn Write,
        cols: &[&str],
        inset: bool,
        widths: &[usize],
    ) -> io::Result<()> {
        match cols {
            [] => return Ok(()),
            [one] => {
                for piece in split(self.width, one) {
                    self.output(out, self.width, &piece)?;
                    writeln!(out)?;
                }
            }
            [first, second] => {
                let (w1, w2) = if self.width == 0 {
                    (0, 0)
                } else {
                    let w1 = match widths.first() {
                        Some(pct) => self.width * pct / 100,
                        None => self.width / 4,
                    };
                    let w2 = match widths.get(1) {
                        Some(pct) => (self.width * pct / 100).saturating_sub(2),
                        None => self.width.saturating_sub(w1 + 2),
                    };
                    (w1, w2)
                };
                let s1 = split(w1, first);
                let s2 = split(w2, second);
                for i in 0..s1.len().max(s2.len()) {
                    if inset {
                        out.write_all(b" ")?;
                    }
                    self.output(out, w1, s1.get(i).map_or("", String::as_str))?;
                    if !inset {
                        out.write_all(b" ")?;
                    }
                    out.write_all(b" ")?;
                    self.output(out, w2, s2.get(i).map_or("", String::as_str))?;
                    writeln!(out)?;
                }
            }
            many => {
                writeln!(out, " {}", many.join(" "))?;
            }
        }
        self.row_count += 1;
        Ok(())
    }

    /// `footer(count)`: `N row(s)`, with the rows printed since the header by default.
    pub fn footer(&mut self, out: &mut dyn Write, count: Option<u64>) -> io::Result<()> {
        writeln!(out, "{} row(s)", count.unwrap_or(self.row_count))
    }

    /// `output_str`: `s` padded to the full width (how `Took X seconds` is printed), without
    /// a line end.
    pub fn output_str(&self, out: &mut dyn Write, s: &str) -> io::Result<()> {
        self.output(out, self.width, s)
    }

    /// `output(width, str)`: `str`, left-justified in `width` characters.
    fn output(&self, out: &mut dyn Write, width: usize, s: &str) -> io::Result<()> {
        let len = s.chars().count();
        write!(out, "{s}")?;
        for _ in len..width {
            out.write_all(b" ")?;
        }
        Ok(())
    }
}

/// `split(width, str)`: `str` cut into pieces of `width` characters (all of it when the
/// width is 0; nothing for an empty string otherwise, as in Ruby).
fn split(width: usize, s: &str) -> Vec<String> {
    if width == 0 {
        return vec![s.to_string()];
    }
    // Cut points by character count, slicing the text (no copy of it as chars).
    let mut pieces = Vec::new();
    let mut start = 0;
    for (n, (at, _)) in s.char_indices().enumerate() {
        if n > 0 && n % width == 0 {
            pieces.push(s[start..at].to_string());
            start = at;
        }
    }
    if start < s.len() {
        pieces.push(s[start..].to_string());
    }
    pieces
}

// ---------------------------------------------------------------------------------------------
// Timestamps

/// How cell timestamps are printed.
#[derive(Debug, Clone, PartialEq)]
pub enum TimestampFormat {
    /// HBase 2.4+ (the shell's `--iso-ts`): local date-time, `LocalDateTime.toString()`
    /// (`2021-07-23T06:33:12.762`).
    Local(TimeZone),
    /// HBase up to 2.3, or `hbase.shell.timestamp.format.epoch=true`: epoch milliseconds
    /// (the shell's default).
    Epoch,
}

impl TimestampFormat {
    /// `millis` as this format prints it.
    pub fn format(&self, millis: i64) -> String {
        match self {
            TimestampFormat::Epoch => millis.to_string(),
            TimestampFormat::Local(tz) => {
                let offset = tz.offset_at(millis.div_euclid(1000));
                local_date_time(i128::from(millis) + i128::from(offset) * 1000)
            }
        }
    }
}

/// `LocalDateTime.toString()` of local milliseconds since 1970-01-01T00:00: seconds are
/// left out when they and the fraction are zero, the fraction when it is zero; years below
/// 1000 are zero-padded to four digits and years above 9999 get a `+`.
pub fn local_date_time(local_millis: i128) -> String {
    let day_millis = 86_400_000i128;
    let days = local_millis.div_euclid(day_millis);
    let in_day = local_millis.rem_euclid(day_millis);
    // Any i64 millisecond count (plus an offset) is a few hundred million years at most.
    let days = i64::try_from(days).unwrap_or(0);
    let (year, month, day) = civil_from_days(days);
    let (hour, minute) = (in_day / 3_600_000, in_day / 60_000 % 60);
    let (second, milli) = (in_day / 1000 % 60, in_day % 1000);
    let year_text = if year.abs() < 1000 {
        if year < 0 {
            format!("-{:04}", -year)
        } else {
            format!("{year:04}")
        }
    } else if year > 9999 {
        format!("+{year}")
    } else {
        year.to_string()
    };
    let mut s = format!("{year_text}-{month:02}-{day:02}T{hour:02}:{minute:02}");
    if second > 0 || milli > 0 {
        s.push_str(&format!(":{second:02}"));
        if milli > 0 {
            s.push_str(&format!(".{milli:03}"));
        }
    }
    s
}

// ---------------------------------------------------------------------------------------------
// Descriptor text

/// PrettyPrinter's `humanReadableTTL` (hbase-common PrettyPrinter.java), including its
/// quirk of pluralising SECOND by the minute count.
pub fn human_ttl(interval: i64) -> String {
    if interval == i64::from(i32::MAX) {
        return "FOREVER".to_string();
    }
    if interval < 60 {
        let plural = if interval == 1 { "" } else { "S" };
        return format!("{interval} SECOND{plural}");
    }
    let days = interval / 86_400;
    let hours = (interval - 86_400 * days) / 3600;
    let minutes = (interval - 86_400 * days - 3600 * hours) / 60;
    let seconds = interval - 86_400 * days - 3600 * hours - 60 * minutes;
    let plural = |n: i64| if n == 1 { "" } else { "S" };
    let mut s = format!("{interval} SECONDS (");
    if days > 0 {
        s.push_str(&format!("{days} DAY{}", plural(days)));
    }
    if hours > 0 {
        s.push_str(if days > 0 { " " } else { "" });
        s.push_str(&format!("{hours} HOUR{}", plural(hours)));
    }
    if minutes > 0 {
        s.push_str(if days + hours > 0 { " " } else { "" });
        s.push_str(&format!("{minutes} MINUTE{}", plural(minutes)));
    }
    if seconds > 0 {
        s.push_str(if days + hours + minutes > 0 { " " } else { "" });
        s.push_str(&format!("{seconds} SECOND{}", plural(minutes)));
    }
    s.push(')');
    s
}

/// Java's `String.hashCode` (over UTF-16 code units, wrapping).
fn java_string_hash(s: &str) -> i32 {
    s.encode_utf16().fold(0i32, |h, unit| {
        h.wrapping_mul(31).wrapping_add(i32::from(unit))
    })
}

/// The order a `java.util.HashMap<String, _>` holding `keys` iterates them in: by bucket
/// (the spread hash masked by the table size, which starts at 16 and doubles past a 0.75
/// load), ties in the order given (insertion order). Trees in crowded buckets are not
/// modelled; they need eight keys in one bucket.
pub fn java_hashmap_order<'a>(keys: &[&'a str]) -> Vec<&'a str> {
    let mut capacity = 16usize;
    while keys.len() * 4 > capacity * 3 {
        capacity *= 2;
    }
    let mut indexed: Vec<(usize, usize, &str)> = keys
        .iter()
        .enumerate()
        .map(|(i, k)| {
            let h = java_string_hash(k);
            let spread = h ^ ((h as u32) >> 16) as i32;
            ((spread as u32 as usize) & (capacity - 1), i, *k)
        })
        .collect();
    indexed.sort();
    indexed.into_iter().map(|(_, _, k)| k).collect()
}

// ---------------------------------------------------------------------------------------------
// Ruby text

/// Ruby's `String#inspect` of `s`: double-quoted, with `"`, `\`, `#{` and control
/// characters escaped.
pub fn ruby_inspect(s: &str) -> String {
    let mut out = String::with_capacity(s.len() + 2);
    out.push('"');
    let mut chars = s.chars().peekable();
    while let Some(c) = chars.next() {
        match c {
            '"' => out.push_str("\\\""),
            '\\' => out.push_str("\\\\"),
            '#' if matches!(chars.peek(), Some('{' | '$' | '@')) => out.push_str("\\#"),
            '\n' => out.push_str("\\n"),
            '\t' => out.push_str("\\t"),
            '\r' => out.push_str("\\r"),
            '\x1b' => out.push_str("\\e"),
            '\x07' => out.push_str("\\a"),
            '\x08' => out.push_str("\\b"),
            '\x0c' => out.push_str("\\f"),
            '\x0b' => out.push_str("\\v"),
            '\x7f' => out.push_str("\\x7F"),
            c if (c as u32) < 0x20 => out.push_str(&format!("\\u{:04X}", c as u32)),
            c => out.push(c),
        }
    }
    out.push('"');
    out
}

/// Ruby's `Float#to_s`: the shortest digits that read back, in fixed notation (with `.0`
/// for whole numbers) for magnitudes in [1e-4, 1e16), else `d.ddde+XX`.
pub fn ruby_float(f: f64) -> String {
    if f.is_nan() {
        return "NaN".to_string();
    }
    if f.is_infinite() {
        return if f > 0.0 { "Infinity" } else { "-Infinity" }.to_string();
    }
    if f == 0.0 {
        return if f.is_sign_negative() { "-0.0" } else { "0.0" }.to_string();
    }
    let abs = f.abs();
    if (1e-4..1e16).contains(&abs) {
        let s = format!("{f}");
        return if s.contains('.') { s } else { format!("{s}.0") };
    }
    // `{:e}` gives the shortest digits as `d.ddde-5` / `1e20`.
    let e = format!("{f:e}");
    let (mantissa, exp) = e.split_once('e').unwrap_or((&e, "0"));
    let mantissa = if mantissa.contains('.') {
        mantissa.to_string()
    } else {
        format!("{mantissa}.0")
    };
    let exp: i32 = exp.parse().unwrap_or(0);
    let sign = if exp < 0 { '-' } else { '+' };
    format!("{mantissa}e{sign}{:02}", exp.abs())
}

#[cfg(test)]
#[allow(clippy::unwrap_used)]
mod tests {
    #[test]
    fn split_cuts_by_characters_not_bytes() {
        assert_eq!(split(3, "abcdefg"), ["abc", "def", "g"]);
        assert_eq!(split(2, "äöü€"), ["äö", "ü€"]);
        assert_eq!(split(4, "abcd"), ["abcd"]);
        assert_eq!(split(0, "abc"), ["abc"]);
        assert!(split(3, "").is_empty());
    }

    use super::*;

    fn render(width: usize, f: impl FnOnce(&mut Formatter, &mut Vec<u8>)) -> String {
        let mut fmt = Formatter::new(width);
        let mut out = Vec::new();
        f(&mut fmt, &mut out);
        String::from_utf8(out).unwrap()
    }

    #[test]
    fn unpadded_rows_as_hbase_prints_them_off_a_terminal() {
        let text = render(0, |f, out| {
            f.header(out, &["ROW", "COLUMN+CELL"], &[]).unwrap();
            f.row(out, &["r1", "column=f:a, timestamp=1, value=x"], true, &[])
                .unwrap();
            f.row(out, &["r2", "column=f:a, timestamp=2, value=y"], true, &[])
                .unwrap();
            f.footer(out, None).unwrap();
            f.row(out, &["Table t1 does exist"], true, &[]).unwrap();
            f.row(out, &["", ""], true, &[]).unwrap();
            f.row(out, &["a", "b", "c"], true, &[]).unwrap();
            f.output_str(out, "Took 0.0100 seconds").unwrap();
        });
        assert_eq!(
            text,
            "ROW  COLUMN+CELL\n \
             r1 column=f:a, timestamp=1, value=x\n \
             r2 column=f:a, timestamp=2, value=y\n\
             2 row(s)\n\
             Table t1 does exist\n  \n a b c\nTook 0.0100 seconds"
        );
    }

    #[test]
    fn terminal_rows_pad_and_wrap() {
        let text = render(20, |f, out| {
            f.header(out, &["ROW", "CELL"], &[]).unwrap();
            f.row(out, &["row-key-1", "0123456789abcdefghij"], true, &[])
                .unwrap();
            f.row(out, &["0123456789012345678901"], true, &[]).unwrap();
            f.row(out, &[""], true, &[]).unwrap();
            f.footer(out, Some(7)).unwrap();
        });
        // col1 = 20 / 4 = 5, col2 = 20 - 5 - 2 = 13.
        assert_eq!(
            text,
            "ROW    CELL         \n \
             row-k 0123456789abc\n \
             ey-1  defghij      \n\
             01234567890123456789\n\
             01                  \n\
             7 row(s)\n"
        );
        let text = render(100, |f, out| {
            f.row(out, &["DESCRIPTION"], false, &[64]).unwrap();
            f.row(out, &["a", "b"], true, &[10, 50]).unwrap();
        });
        assert_eq!(text.lines().nth(1).unwrap().len(), 1 + 10 + 1 + 48);
    }

    #[test]
    fn timestamps_print_like_local_date_time() {
        let utc = TimestampFormat::Local(TimeZone::utc());
        assert_eq!(utc.format(1_627_022_392_762), "2021-07-23T06:39:52.762");
        assert_eq!(utc.format(1_700_000_000_000), "2023-11-14T22:13:20");
        assert_eq!(utc.format(1_699_999_980_000), "2023-11-14T22:13");
        assert_eq!(utc.format(1_699_999_980_010), "2023-11-14T22:13:00.010");
        assert_eq!(utc.format(0), "1970-01-01T00:00");
        assert_eq!(utc.format(-1), "1969-12-31T23:59:59.999");
        assert_eq!(utc.format(-62_135_596_800_001), "0000-12-31T23:59:59.999");
        assert_eq!(utc.format(-62_198_755_200_000), "-0001-01-01T00:00");
        assert_eq!(utc.format(253_402_300_800_000), "+10000-01-01T00:00");
        assert_eq!(utc.format(i64::MAX), "+292278994-08-17T07:12:55.807");
        assert!(!utc.format(i64::MIN).is_empty());
        assert_eq!(
            TimestampFormat::Epoch.format(1_700_000_000_000),
            "1700000000000"
        );
    }

    #[test]
    fn ttl_text_follows_pretty_printer() {
        assert_eq!(human_ttl(2_147_483_647), "FOREVER");
        assert_eq!(human_ttl(1), "1 SECOND");
        assert_eq!(human_ttl(59), "59 SECONDS");
        assert_eq!(human_ttl(60), "60 SECONDS (1 MINUTE)");
        assert_eq!(human_ttl(86_400), "86400 SECONDS (1 DAY)");
        assert_eq!(
            human_ttl(90_061),
            "90061 SECONDS (1 DAY 1 HOUR 1 MINUTE 1 SECOND)"
        );
        assert_eq!(
            human_ttl(7_322),
            "7322 SECONDS (2 HOURS 2 MINUTES 2 SECONDS)"
        );
        // The seconds are pluralised by the minutes.
        assert_eq!(human_ttl(3_662), "3662 SECONDS (1 HOUR 1 MINUTE 2 SECOND)");
        assert_eq!(human_ttl(2_592_000), "2592000 SECONDS (30 DAYS)");
    }

    #[test]
    fn hashmap_order_matches_java() {
        // "a" hashes to 97 (bucket 1 of 16) and "b" to 98 (bucket 2), whatever the
        // insertion order.
        assert_eq!(java_hashmap_order(&["b", "a"]), ["a", "b"]);
        assert_eq!(java_string_hash("hello"), 99_162_322);
        assert_eq!(java_string_hash("hbase.hstore.blockingStoreFiles"), {
            let mut h = 0i32;
            for b in "hbase.hstore.blockingStoreFiles".bytes() {
                h = h.wrapping_mul(31).wrapping_add(i32::from(b));
            }
            h
        });
        // "Aa" and "BB" collide in Java; insertion order breaks the tie.
        assert_eq!(java_hashmap_order(&["BB", "Aa"]), ["BB", "Aa"]);
        let many: Vec<String> = (0..20).map(|i| format!("k{i}")).collect();
        let keys: Vec<&str> = many.iter().map(String::as_str).collect();
        assert_eq!(java_hashmap_order(&keys).len(), 20);
    }

    #[test]
    fn ruby_text() {
        assert_eq!(ruby_inspect("t1"), "\"t1\"");
        assert_eq!(
            ruby_inspect("a\"b\\c#{d}\n\x01"),
            "\"a\\\"b\\\\c\\#{d}\\n\\u0001\""
        );
        assert_eq!(ruby_float(1.5), "1.5");
        assert_eq!(ruby_float(100.0), "100.0");
        assert_eq!(ruby_float(1e20), "1.0e+20");
        assert_eq!(ruby_float(1.25e-5), "1.25e-05");
        assert_eq!(ruby_float(0.0001), "0.0001");
        assert_eq!(ruby_float(-0.0), "-0.0");
        assert_eq!(ruby_float(f64::NAN), "NaN");
    }
}
