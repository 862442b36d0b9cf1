//! URL grammar of HBase's REST gateway: percent decoding as Java's `URLDecoder` (path row
//! specifications) and as JAX-RS (other path parameters), query strings, and the row
//! specification of `RowSpec.java`:
//!
//! ```text
//! /{table}/{row}[,{endrow}]                  a row, or a row range [row, endrow)
//! /{table}/{prefix}*                         as a row spec with columns: rows starting with prefix
//!         [/{column}[,{column}...]           cf (whole family), cf: (empty qualifier) or cf:q
//!         [/{ts} | /{startts},{endts}]]      [0, ts) or [startts, endts)
//! ```
//!
//! Each piece is URL-decoded on its own, so an encoded `/` or `,` (`%2F`, `%2C`) belongs to
//! the row or column. The decoded bytes are kept as they are: HBase turns them into a Java
//! String first (invalid UTF-8 becomes U+FFFD), regionkv does not, so binary keys survive.

use std::collections::BTreeSet;

/// A bad URL piece (answered 400).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct UrlError(pub String);

impl std::fmt::Display for UrlError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(&self.0)
    }
}

fn hex(b: u8) -> Option<u8> {
    match b {
        b'0'..=b'9' => Some(b - b'0'),
        b'a'..=b'f' => Some(b - b'a' + 10),
        b'A'..=b'F' => Some(b - b'A' + 10),
        _ => None,
    }
}

fn decode(s: &[u8], plus_is_space: bool) -> Result<Vec<u8>, UrlError> {
    let mut out = Vec::with_capacity(s.len());
    let mut i = 0;
    while let Some(&b) = s.get(i) {
        match b {
            b'%' => {
                let hi = s.get(i + 1).copied().and_then(hex);
                let lo = s.get(i + 2).copied().and_then(hex);
                match (hi, lo) {
                    (Some(h), Some(l)) => out.push(h << 4 | l),
                    _ => {
                        return Err(UrlError(format!(
                            "URLDecoder: Illegal hex characters in escape (%) pattern in '{}'",
                            String::from_utf8_lossy(s)
                        )));
                    }
                }
                i += 3;
            }
            b'+' if plus_is_space => {
                out.push(b' ');
                i += 1;
            }
            _ => {
                out.push(b);
                i += 1;
            }
        }
    }
    Ok(out)
}

/// Java's `URLDecoder.decode`: `%xy` escapes and `+` as a space (RowSpec's pieces, query
/// values).
///
/// # Errors
/// A `%` not followed by two hex digits.
pub fn form_decode(s: &[u8]) -> Result<Vec<u8>, UrlError> {
    decode(s, true)
}

/// JAX-RS path parameter decoding: `%xy` escapes only (`+` stays).
///
/// # Errors
/// A `%` not followed by two hex digits.
pub fn path_decode(s: &[u8]) -> Result<Vec<u8>, UrlError> {
    decode(s, false)
}

/// `application/x-www-form-urlencoded` query pairs, in order (`a&b=1` gives `a` = empty).
///
/// # Errors
/// A bad escape.
pub fn parse_query(query: &str) -> Result<Vec<(String, Vec<u8>)>, UrlError> {
    let mut out = Vec::new();
    for pair in query.split('&').filter(|p| !p.is_empty()) {
        let (k, v) = pair.split_once('=').unwrap_or((pair, ""));
        let key = String::from_utf8_lossy(&form_decode(k.as_bytes())?).into_owned();
        out.push((key, form_decode(v.as_bytes())?));
    }
    Ok(out)
}

/// The query of a request, by name.
#[derive(Debug, Clone, Default)]
pub struct Query(pub Vec<(String, Vec<u8>)>);

impl Query {
    /// The first value of `name`.
    pub fn get(&self, name: &str) -> Option<&[u8]> {
        self.0
            .iter()
            .find(|(k, _)| k == name)
            .map(|(_, v)| v.as_slice())
    }

    /// The first value of `name` as text.
    pub fn text(&self, name: &str) -> Option<String> {
        self.get(name)
            .map(|v| String::from_utf8_lossy(v).into_owned())
    }

    /// Every value of `name`.
    pub fn all(&self, name: &str) -> Vec<&[u8]> {
        self.0
            .iter()
            .filter(|(k, _)| k == name)
            .map(|(_, v)| v.as_slice())
            .collect()
    }

    /// True when `name` is present.
    pub fn has(&self, name: &str) -> bool {
        self.0.iter().any(|(k, _)| k == name)
    }
}

/// HBase's `RowSpec`: which rows, columns, time range and versions a row URL names.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct RowSpec {
    /// The row, or the first row of a range.
    pub row: Vec<u8>,
    /// The end of a range (exclusive); `None` for a single row.
    pub end_row: Option<Vec<u8>>,
    /// The columns (`cf`, `cf:` or `cf:q`), sorted and without duplicates (HBase keeps
    /// them in a `TreeSet` ordered by bytes, which decides which one `columns[0]` is).
    pub columns: BTreeSet<Vec<u8>>,
    /// Lower bound of the time range (inclusive).
    pub start_time: i64,
    /// Upper bound of the time range (exclusive).
    pub end_time: i64,
    /// Versions to return (1 unless `?v=`).
    pub max_versions: u32,
}

impl RowSpec {
    /// Parses the part of a row URL after `/{table}/` (still percent-encoded).
    ///
    /// # Errors
    /// A bad escape, an empty row, an empty column in a list, a timestamp that is not a
    /// number, or a wildcard row with an end row.
    pub fn parse(path: &[u8]) -> Result<RowSpec, UrlError> {
        let mut spec = RowSpec {
            row: Vec::new(),
            end_row: None,
            columns: BTreeSet::new(),
            start_time: 0,
            end_time: i64::MAX,
            max_versions: 1,
        };
        let start = path.iter().position(|&b| b != b'/').unwrap_or(path.len());
        let mut pieces = path
            .get(start..)
            .unwrap_or_default()
            .splitn(3, |&b| b == b'/');
        spec.parse_rows(pieces.next().unwrap_or_default())?;
        if let Some(columns) = pieces.next() {
            spec.parse_columns(columns)?;
        }
        if let Some(times) = pieces.next() {
            spec.parse_times(times)?;
        }
        Ok(spec)
    }

    fn parse_rows(&mut self, piece: &[u8]) -> Result<(), UrlError> {
        let (start, end) = match piece.iter().position(|&b| b == b',') {
            Some(i) => (
                form_decode(piece.get(..i).unwrap_or_default())?,
                Some(form_decode(piece.get(i + 1..).unwrap_or_default())?),
            ),
            None => (form_decode(piece)?, None),
        };
        match start.split_last() {
            None => Err(UrlError("invalid path: empty row".to_string())),
            // A trailing `*` asks for a prefix: [prefix, prefix + 0xFF).
            Some((b'*', prefix)) => {
                if end.is_some() {
                    return Err(UrlError(
                        "invalid path: start row specified with wildcard".to_string(),
                    ));
                }
                self.row = prefix.to_vec();
                let mut end = prefix.to_vec();
                end.push(0xFF);
                self.end_row = Some(end);
                Ok(())
            }
            Some(_) => {
                self.row = start;
                self.end_row = end;
                Ok(())
            }
        }
    }

    fn parse_columns(&mut self, piece: &[u8]) -> Result<(), UrlError> {
        let parts: Vec<&[u8]> = piece.split(|&b| b == b',').collect();
        let last = parts.len().saturating_sub(1);
        for (i, part) in parts.into_iter().enumerate() {
            if part.is_empty() {
                // HBase: an empty entry before a comma is an error; a trailing one is not.
                if i < last {
                    return Err(UrlError("invalid path".to_string()));
                }
                continue;
            }
            self.columns.insert(form_decode(part)?);
        }
        Ok(())
    }

    fn parse_times(&mut self, piece: &[u8]) -> Result<(), UrlError> {
        let piece = match piece.iter().position(|&b| b == b'/') {
            Some(i) => piece.get(..i).unwrap_or_default(),
            None => piece,
        };
        let number = |s: &[u8]| -> Result<i64, UrlError> {
            let text = String::from_utf8_lossy(&form_decode(s)?).into_owned();
            text.parse::<i64>().map_err(|_| {
                UrlError(format!(
                    "java.lang.NumberFormatException: For input string: \"{text}\""
                ))
            })
        };
        let (t0, t1) = match piece.iter().position(|&b| b == b',') {
            Some(i) => (
                number(piece.get(..i).unwrap_or_default())?,
                number(piece.get(i + 1..).unwrap_or_default())?,
            ),
            None => (number(piece)?, 0),
        };
        // HBase: a second timestamp of 0 is taken as "no second timestamp".
        if t1 != 0 {
            self.start_time = t0;
            self.end_time = t1;
        } else {
            self.end_time = t0;
        }
        Ok(())
    }

    /// True when the URL gave a single timestamp (HBase's `hasTimestamp`).
    pub fn has_timestamp(&self) -> bool {
        self.start_time == 0 && self.end_time != i64::MAX
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn spec(path: &str) -> RowSpec {
        match RowSpec::parse(path.as_bytes()) {
            Ok(s) => s,
            Err(e) => panic!("{path}: {e}"),
        }
    }

    fn cols(s: &RowSpec) -> Vec<String> {
        s.columns
            .iter()
            .map(|c| String::from_utf8_lossy(c).into_owned())
            .collect()
    }

    #[test]
    fn a_row_alone() {
        let s = spec("row1");
        assert_eq!(s.row, b"row1");
        assert_eq!(s.end_row, None);
        assert!(s.columns.is_empty());
        assert_eq!((s.start_time, s.end_time, s.max_versions), (0, i64::MAX, 1));
        assert!(!s.has_timestamp());
    }

    #[test]
    fn columns_are_a_sorted_set() {
        let s = spec("r/cf:b,cf:a,cg,cf:a,cf:");
        assert_eq!(cols(&s), ["cf:", "cf:a", "cf:b", "cg"]);
        assert!(RowSpec::parse(b"r/cf:a,,cf:b").is_err());
        assert_eq!(cols(&spec("r/cf:a,")), ["cf:a"]);
    }

    #[test]
    fn timestamps_give_half_open_ranges() {
        let s = spec("r/cf:q/100");
        assert_eq!((s.start_time, s.end_time), (0, 100));
        assert!(s.has_timestamp());
        let s = spec("r/cf/5,10");
        assert_eq!((s.start_time, s.end_time), (5, 10));
        assert!(!s.has_timestamp());
        let s = spec("r/cf/7,0");
        assert_eq!((s.start_time, s.end_time), (0, 7));
        assert!(RowSpec::parse(b"r/cf/abc").is_err());
        assert!(RowSpec::parse(b"r/cf/").is_err());
        // An empty column list with a timestamp.
        let s = spec("r//42");
        assert!(s.columns.is_empty());
        assert_eq!(s.end_time, 42);
    }

    #[test]
    fn ranges_and_wildcards() {
        let s = spec("a,m/cf");
        assert_eq!(
            (s.row.as_slice(), s.end_row.as_deref()),
            (&b"a"[..], Some(&b"m"[..]))
        );
        let s = spec("ab*/cf");
        assert_eq!(s.row, b"ab");
        assert_eq!(s.end_row.as_deref(), Some(&b"ab\xff"[..]));
        assert!(RowSpec::parse(b"a*,b").is_err());
        assert!(RowSpec::parse(b"").is_err());
        assert!(RowSpec::parse(b",x").is_err());
    }

    #[test]
    fn pieces_are_decoded_one_by_one() {
        let s = spec("a%2Fb%2Cc+d/cf%3Aq%2C");
        assert_eq!(s.row, b"a/b,c d");
        assert_eq!(cols(&s), ["cf:q,"]);
        let s = spec("%FF%00");
        assert_eq!(s.row, b"\xff\x00");
        assert!(RowSpec::parse(b"%zz").is_err());
        assert!(RowSpec::parse(b"a%2").is_err());
        assert_eq!(spec("//lead").row, b"lead");
    }

    #[test]
    fn queries_decode_plus_and_escapes() -> Result<(), UrlError> {
        let q = Query(parse_query("row=a+b&row=c%2Fd&v=2&flag")?);
        assert_eq!(q.all("row"), [&b"a b"[..], b"c/d"]);
        assert_eq!(q.text("v").as_deref(), Some("2"));
        assert!(q.has("flag"));
        assert!(parse_query("x=%G0").is_err());
        assert_eq!(path_decode(b"a+b%20")?, b"a+b ");
        Ok(())
    }
}
