//! `lab splits`: pre-split points from a sample of real keys — the quantiles of the key
//! distribution, so each region starts with about the same share of rows — rather than
//! RegionSplitter's arithmetic, which assumes keys spread evenly over an alphabet
//! (HexStringSplit over keys that are not hex leaves regions empty: LAB.md lint rule 2).
//!
//! When the design's key starts with a salt (`salt(x, n)` or `bucket(x, n)`), split points
//! fall on bucket boundaries, as Phoenix pre-splits on its salt byte: fewer regions than
//! buckets group whole buckets; a multiple of the buckets splits each bucket at its own
//! quantiles. Each point is cut to the shortest prefix that still separates the keys on
//! either side, so the points stay readable.

use crate::expr::{Expr, Function};

/// The salt a key starts with: its bucket count and how a bucket is written.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Salt {
    /// `salt(x, n)`: one byte, `0..n`.
    Byte(u32),
    /// `bucket(x, n)`: zero-padded decimal of `width` digits.
    Decimal(u32, usize),
}

impl Salt {
    /// The salt `expr` starts with, if any.
    pub fn of(expr: &Expr) -> Option<Salt> {
        let Expr::Call(f, args) = expr.parts().first()? else {
            return None;
        };
        // The bucket count: the second argument of a hash salt, the only one of a random one.
        let count = if f.is_random() {
            args.first()
        } else {
            args.get(1)
        };
        let Some(Expr::Int(n)) = count else {
            return None;
        };
        let n = u32::try_from(*n).ok().filter(|n| (1..=256).contains(n))?;
        match f {
            Function::Salt | Function::RandomSalt => Some(Salt::Byte(n)),
            Function::RandomBucket => {
                Some(Salt::Decimal(n, crate::expr::bucket_width(i64::from(n))))
            }
            Function::Bucket => Some(Salt::Decimal(n, crate::expr::bucket_width(i64::from(n)))),
            _ => None,
        }
    }

    /// Whether `key` is a bucket boundary: exactly some bucket's prefix.
    pub fn is_boundary(self, key: &[u8]) -> bool {
        (1..self.buckets()).any(|b| self.prefix(b) == key)
    }

    fn buckets(self) -> u32 {
        match self {
            Salt::Byte(n) | Salt::Decimal(n, _) => n,
        }
    }

    fn prefix(self, bucket: u32) -> Vec<u8> {
        match self {
            Salt::Byte(_) => vec![u8::try_from(bucket).unwrap_or(u8::MAX)],
            Salt::Decimal(_, width) => format!("{bucket:0width$}").into_bytes(),
        }
    }

    fn prefix_len(self) -> usize {
        match self {
            Salt::Byte(_) => 1,
            Salt::Decimal(_, width) => width,
        }
    }
}

/// Split points for `regions` regions from `keys` (any order, duplicates count as rows).
///
/// # Errors
/// Fewer than 2 regions, or too few distinct keys to make them.
pub fn from_keys(
    mut keys: Vec<Vec<u8>>,
    regions: usize,
    salt: Option<Salt>,
) -> Result<Vec<Vec<u8>>, String> {
    if regions < 2 {
        return Err("at least 2 regions are needed for a split".into());
    }
    keys.sort();
    match salt {
        None => quantiles(&keys, regions),
        Some(salt) => salted(&keys, regions, salt),
    }
}

/// The `regions - 1` quantile keys of sorted `keys`, each cut to its shortest separator.
fn quantiles(keys: &[Vec<u8>], regions: usize) -> Result<Vec<Vec<u8>>, String> {
    let distinct = keys.windows(2).filter(|w| w[0] != w[1]).count() + usize::from(!keys.is_empty());
    if distinct < regions {
        return Err(format!(
            "{distinct} distinct keys cannot make {regions} regions"
        ));
    }
    let mut out: Vec<Vec<u8>> = Vec::with_capacity(regions - 1);
    // The first index the next point may take: past the previous point, so duplicates
    // never yield two equal points and the later points move on instead.
    let mut next = 1;
    for i in 1..regions {
        let mut idx = (i * keys.len() / regions).max(next);
        while idx < keys.len() && keys[idx] == keys[idx - 1] {
            idx += 1;
        }
        let (Some(prev), Some(key)) = (keys.get(idx - 1), keys.get(idx)) else {
            break;
        };
        out.push(shortest_separator(prev, key));
        next = idx + 1;
    }
    Ok(out)
}

fn salted(keys: &[Vec<u8>], regions: usize, salt: Salt) -> Result<Vec<Vec<u8>>, String> {
    let n = salt.buckets() as usize;
    if regions <= n {
        // Whole buckets per region: boundaries at round(i * n / regions).
        let mut out: Vec<Vec<u8>> = Vec::new();
        for i in 1..regions {
            let b = u32::try_from((i * n + regions / 2) / regions).unwrap_or(u32::MAX);
            let p = salt.prefix(b);
            if out.last().is_none_or(|last| *last < p) {
                out.push(p);
            }
        }
        return Ok(out);
    }
    if !regions.is_multiple_of(n) {
        return Err(format!(
            "{regions} regions over {n} salt buckets: use a multiple of the buckets ({} or {})",
            regions / n * n,
            (regions / n + 1) * n
        ));
    }
    let per_bucket = regions / n;
    let mut out = Vec::new();
    for b in 0..n {
        let prefix = salt.prefix(u32::try_from(b).unwrap_or(u32::MAX));
        if b > 0 {
            out.push(prefix.clone());
        }
        let in_bucket: Vec<Vec<u8>> = keys
            .iter()
            .filter(|k| k.len() > salt.prefix_len() && k.starts_with(&prefix))
            .cloned()
            .collect();
        let inner =
            quantiles(&in_bucket, per_bucket).map_err(|e| format!("salt bucket {b}: {e}"))?;
        out.extend(inner);
    }
    Ok(out)
}

/// The shortest prefix of `b` that is greater than `a` (`a < b`): a region boundary needs
/// no more bytes than that.
pub fn shortest_separator(a: &[u8], b: &[u8]) -> Vec<u8> {
    for len in 1..=b.len() {
        if &b[..len] > a {
            return b[..len].to_vec();
        }
    }
    b.to_vec()
}

/// Row keys from a file: one a line (`\xHH` escapes, as HBase's `Bytes.toBytesBinary`
/// reads them), or the 0-based `csv_column` of a comma-separated file; blank entries are
/// skipped.
///
/// # Errors
/// The file and line of a key that cannot be read.
pub fn read_keys(
    path: &std::path::Path,
    csv_column: Option<usize>,
) -> Result<Vec<Vec<u8>>, String> {
    let text = std::fs::read_to_string(path).map_err(|e| format!("{}: {e}", path.display()))?;
    let mut keys = Vec::new();
    for (n, line) in text.lines().enumerate() {
        let field = match csv_column {
            None => line.trim(),
            Some(c) => line.split(',').nth(c).map(str::trim).unwrap_or(""),
        };
        if field.is_empty() {
            continue;
        }
        let key = regionkv::cell::bytes::to_bytes_binary(field)
            .map_err(|e| format!("{} line {}: {e}", path.display(), n + 1))?;
        keys.push(key);
    }
    Ok(keys)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn keys(list: &[&str]) -> Vec<Vec<u8>> {
        list.iter().map(|k| k.as_bytes().to_vec()).collect()
    }

    #[test]
    fn quantiles_give_regions_equal_shares_of_rows() -> Result<(), String> {
        // 1,000 keys crowded at "user0..." and a few elsewhere: four even shares.
        let mut sample: Vec<Vec<u8>> = (0..1000)
            .map(|i| format!("user{i:04}").into_bytes())
            .collect();
        sample.push(b"zzz".to_vec());
        let points = from_keys(sample.clone(), 4, None)?;
        assert_eq!(points, keys(&["user025", "user05", "user075"]));
        for w in points.windows(2) {
            assert!(w[0] < w[1]);
        }
        // Duplicates count as rows but never become two equal points.
        let dup = keys(&["a", "a", "a", "a", "b", "c"]);
        assert_eq!(from_keys(dup, 3, None)?, keys(&["b", "c"]));
        assert!(from_keys(keys(&["a", "a"]), 2, None).is_err());
        assert!(from_keys(keys(&["a", "b"]), 1, None).is_err());
        Ok(())
    }

    #[test]
    fn separators_are_as_short_as_they_can_be() {
        assert_eq!(shortest_separator(b"apple", b"banana"), b"b");
        assert_eq!(shortest_separator(b"user0249", b"user0250"), b"user025");
        assert_eq!(shortest_separator(b"ab", b"abc"), b"abc");
    }

    #[test]
    fn salted_keys_split_on_bucket_boundaries() -> Result<(), Box<dyn std::error::Error>> {
        let e = Expr::parse("salt(id, 8) + id")?;
        let salt = Salt::of(&e).ok_or("no salt")?;
        assert_eq!(salt, Salt::Byte(8));
        // Four regions over eight buckets: two buckets each.
        assert_eq!(
            from_keys(Vec::new(), 4, Some(salt))?,
            vec![vec![2], vec![4], vec![6]]
        );
        // Sixteen regions: each bucket split once more at its own median.
        let sample: Vec<Vec<u8>> = (0u8..8)
            .flat_map(|b| (0..100).map(move |i| [vec![b], format!("{i:03}").into_bytes()].concat()))
            .collect();
        let points = from_keys(sample, 16, Some(salt))?;
        assert_eq!(points.len(), 15);
        assert_eq!(points[0], [vec![0u8], b"05".to_vec()].concat());
        assert_eq!(points[1], vec![1u8]);
        assert!(
            from_keys(Vec::new(), 12, Some(salt)).is_err(),
            "12 is no multiple of 8"
        );
        let d = Salt::of(&Expr::parse("bucket(user, 16) + user")?).ok_or("no bucket")?;
        assert_eq!(d, Salt::Decimal(16, 2));
        assert_eq!(
            from_keys(Vec::new(), 4, Some(d))?,
            keys(&["04", "08", "12"])
        );
        assert_eq!(
            Salt::of(&Expr::parse("user + salt(user, 4)")?),
            None,
            "not leading"
        );
        Ok(())
    }
}
