//! Pre-split arithmetic: HBase's `RegionSplitter` algorithms (`HexStringSplit`,
//! `DecimalStringSplit`, `UniformSplit`), `Bytes.split` (`hbase-common` `util/Bytes.java`,
//! `split` / `iterateOnSplits`) and the start/end/count form of `Admin.createTable`
//! (`RawAsyncHBaseAdmin.getSplitKeys`).
//!
//! HBase does this arithmetic with `java.math.BigInteger` on rows of any length, so a
//! minimal unsigned big integer (`BigUint`) lives at the bottom of this file; only the
//! operations HBase uses are implemented (add, subtract, multiply and divide by a Java
//! `int`, radix parsing and printing, big-endian bytes).
//!
//! Counts are Java `int`s in HBase; larger ones are refused with [`SplitError::TooMany`]
//! rather than wrapped. The result is materialised, so a caller asking for a billion
//! regions gets a billion keys (as from HBase): bound the count at the user interface.

use super::{Result, SplitError};
use regionkv_cell::bytes::{to_bytes_binary, to_string_binary};
use std::cmp::Ordering;

/// Largest count HBase can hold (`Integer.MAX_VALUE`).
const JAVA_INT_MAX: usize = i32::MAX as usize;

/// HBase's `Bytes.split(a, b, inclusive, num)`: `num` evenly spaced keys strictly between
/// `a` and `b`, returned with both ends (`num + 2` entries).
///
/// The rule, in HBase's order:
/// 1. pad the shorter of `a`, `b` with trailing `0x00` to equal length; the padded `a` must
///    sort before the padded `b`, and `num` must be positive;
/// 2. read both as unsigned big-endian integers A and B; `diff = B − A`, plus one when
///    `inclusive` (the end row then counts as part of the range);
/// 3. while `diff < num + 1`, append one `0x00` to *both* and retry (each byte multiplies
///    the room by 256); the returned ends are then the padded arrays, otherwise the
///    arguments exactly as given;
/// 4. `interval = ⌊diff / (num + 1)⌋`; key *i* is `A + i × interval`, as many bytes as the
///    padded inputs.
///
/// For example `01 01 01 .. 01 01 03` with `num = 2` has room 2 < 3, so both grow a byte:
/// `01010100, 010101aa, 01010254, 01010300`.
pub fn bytes_split(a: &[u8], b: &[u8], inclusive: bool, num: usize) -> Result<Vec<Vec<u8>>> {
    let width = a.len().max(b.len());
    let mut a_pad = padded(a, width);
    let mut b_pad = padded(b, width);
    if a_pad >= b_pad {
        return Err(SplitError::EndNotAfterStart {
            start: to_string_binary(a),
            end: to_string_binary(b),
        });
    }
    if num == 0 {
        return Err(SplitError::NoSplitPoints);
    }
    // HBase sizes its result array as `num + 2` in an int.
    if num > JAVA_INT_MAX - 2 {
        return Err(SplitError::TooMany(num));
    }
    let parts = num as u32 + 1; // cannot overflow: num < i32::MAX
    let mut widened = false;
    let (start, diff) = loop {
        let start = BigUint::from_be_bytes(&a_pad);
        let mut diff = BigUint::from_be_bytes(&b_pad).sub(&start);
        if inclusive {
            diff = diff.add_small(1);
        }
        if diff >= BigUint::from_u32(parts) {
            break (start, diff);
        }
        // Terminates: a < b, so diff ≥ 1 and every round multiplies it by 256.
        a_pad.push(0);
        b_pad.push(0);
        widened = true;
    };
    let (interval, _) = diff.div_small(parts);
    let mut out = Vec::new();
    out.push(if widened { a_pad.clone() } else { a.to_vec() });
    let mut cur = start;
    for _ in 0..num {
        cur = cur.add(&interval);
        // Never wider than the padded inputs: A + num × interval ≤ B.
        out.push(cur.to_be_bytes(a_pad.len()));
    }
    out.push(if widened { b_pad } else { b.to_vec() });
    Ok(out)
}

/// The split keys `Admin.createTable(desc, startKey, endKey, numRegions)` creates the
/// table with (`RawAsyncHBaseAdmin.getSplitKeys` in 2.x): `startKey`, `numRegions − 3`
/// keys from `Bytes.split(startKey, endKey, numRegions − 3)` (exclusive end), then
/// `endKey`, so `numRegions − 1` keys in all, the first region being `[∅, startKey)` and
/// the last `[endKey, ∅)`. With exactly 3 regions the keys are `[startKey, endKey]`.
///
/// Refused as in HBase: fewer than 3 regions, or `startKey >= endKey` (compared before
/// padding). `Bytes.split`'s widening can make the first and last keys longer than given
/// (`"aaa".."aab"` in 5 regions gives `aaa\x00 … aab\x00`). An empty `startKey` is
/// returned as a key here; `createTable` itself then rejects the empty split key, which
/// is the caller's check, as it is HBase's.
pub fn split_keys_for_range(start: &[u8], end: &[u8], num_regions: usize) -> Result<Vec<Vec<u8>>> {
    if num_regions < 3 {
        return Err(SplitError::TooFewRegions {
            min: 3,
            got: num_regions,
        });
    }
    if num_regions > JAVA_INT_MAX {
        return Err(SplitError::TooMany(num_regions));
    }
    if start >= end {
        return Err(SplitError::StartNotBeforeEnd);
    }
    if num_regions == 3 {
        return Ok(vec![start.to_vec(), end.to_vec()]);
    }
    bytes_split(start, end, false, num_regions - 3)
}

/// Which of `RegionSplitter`'s built-in algorithms.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum SplitAlgorithmKind {
    /// Rows are zero-padded lower-case hex numbers, `"00000000"` to `"FFFFFFFF"` by
    /// default (for keys that start with an MD5-style hash).
    HexString,
    /// Rows are zero-padded decimal numbers, `"00000000"` to `"99999999"` by default.
    DecimalString,
    /// Rows are raw bytes, from the empty row to eight `0xFF` bytes by default.
    Uniform,
}

impl SplitAlgorithmKind {
    /// The short name the shell's `SPLITALGO` and `RegionSplitter` accept.
    pub const fn name(self) -> &'static str {
        match self {
            Self::HexString => "HexStringSplit",
            Self::DecimalString => "DecimalStringSplit",
            Self::Uniform => "UniformSplit",
        }
    }

    /// The Java binary class name (what `Class.forName` resolves).
    pub const fn class_name(self) -> &'static str {
        match self {
            Self::HexString => "org.apache.hadoop.hbase.util.RegionSplitter$HexStringSplit",
            Self::DecimalString => "org.apache.hadoop.hbase.util.RegionSplitter$DecimalStringSplit",
            Self::Uniform => "org.apache.hadoop.hbase.util.RegionSplitter$UniformSplit",
        }
    }
}

/// One of `RegionSplitter`'s split algorithms with its configured first and last row
/// (HBase's `SplitAlgorithm` instance, including `setFirstRow` / `setLastRow` state).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct SplitAlgorithm {
    kind: SplitAlgorithmKind,
    range: Range,
}

/// The configured row range. Number algorithms keep the strings as typed (HBase prints
/// them in errors, and the last row's length is the key width) next to their values.
#[derive(Clone, Debug, PartialEq, Eq)]
enum Range {
    Number {
        radix: u32,
        first: String,
        first_int: BigUint,
        last: String,
        last_int: BigUint,
        /// `rowComparisonLength`: keys are left-padded with '0' to this many characters.
        width: usize,
    },
    Bytes {
        first: Vec<u8>,
        last: Vec<u8>,
    },
}

impl SplitAlgorithm {
    /// `HexStringSplit` over `"00000000"..="FFFFFFFF"`.
    pub fn hex_string() -> Self {
        Self::number(SplitAlgorithmKind::HexString, 16, "00000000", "FFFFFFFF")
    }

    /// `DecimalStringSplit` over `"00000000"..="99999999"`.
    pub fn decimal_string() -> Self {
        Self::number(
            SplitAlgorithmKind::DecimalString,
            10,
            "00000000",
            "99999999",
        )
    }

    /// `UniformSplit` over the empty row to `FF FF FF FF FF FF FF FF`.
    pub fn uniform() -> Self {
        Self {
            kind: SplitAlgorithmKind::Uniform,
            range: Range::Bytes {
                first: Vec::new(),
                last: vec![0xff; 8],
            },
        }
    }

    fn number(kind: SplitAlgorithmKind, radix: u32, first: &str, last: &str) -> Self {
        Self {
            kind,
            range: Range::Number {
                radix,
                first: first.to_string(),
                // HBase starts from BigInteger.ZERO rather than parsing the default string.
                first_int: BigUint::default(),
                last: last.to_string(),
                last_int: BigUint::parse(last, radix).unwrap_or_default(),
                width: last.chars().count(),
            },
        }
    }

    /// The algorithm named as `RegionSplitter.newSplitAlgoInstance` accepts it: the short
    /// name (`"HexStringSplit"`) or the binary class name
    /// (`"org.apache.hadoop.hbase.util.RegionSplitter$HexStringSplit"`), case-sensitive.
    pub fn from_name(name: &str) -> Result<Self> {
        [
            SplitAlgorithmKind::HexString,
            SplitAlgorithmKind::DecimalString,
            SplitAlgorithmKind::Uniform,
        ]
        .into_iter()
        .find(|k| name == k.name() || name == k.class_name())
        .map(Self::of_kind)
        .ok_or_else(|| SplitError::UnknownAlgorithm(name.to_string()))
    }

    /// The algorithm of `kind` with its default range.
    pub fn of_kind(kind: SplitAlgorithmKind) -> Self {
        match kind {
            SplitAlgorithmKind::HexString => Self::hex_string(),
            SplitAlgorithmKind::DecimalString => Self::decimal_string(),
            SplitAlgorithmKind::Uniform => Self::uniform(),
        }
    }

    /// Which algorithm this is.
    pub fn kind(&self) -> SplitAlgorithmKind {
        self.kind
    }

    /// The short name (`"HexStringSplit"`).
    pub fn name(&self) -> &'static str {
        self.kind.name()
    }

    /// `split(numRegions)`: the `numRegions − 1` split keys of a table pre-split into
    /// `numRegions` regions (the first region starts and the last ends at the empty row).
    ///
    /// Number algorithms: `range = last − first + 1` (the last row is included), `step =
    /// ⌊range / n⌋`, key *i* = `first + i × step` for `i = 1..n`, written in lower-case
    /// digits left-padded with '0' to the length of the configured last row; the last
    /// region takes the remainder. Refused when `last ≤ first` or `range < n`; `n = 1`
    /// gives no keys and `n = 0` is refused (HBase fails allocating a −1 array).
    ///
    /// `UniformSplit`: the inner keys of `Bytes.split(first, last, inclusive = true,
    /// n − 1)`, so `n < 2` is refused and key *i* is `i × ⌊2⁶⁴ / n⌋` by default.
    pub fn split(&self, num_regions: usize) -> Result<Vec<Vec<u8>>> {
        if num_regions > JAVA_INT_MAX {
            return Err(SplitError::TooMany(num_regions));
        }
        match &self.range {
            Range::Number {
                radix,
                first,
                first_int,
                last,
                last_int,
                width,
            } => {
                if last_int <= first_int {
                    return Err(SplitError::LastRowNotAfterFirst {
                        first: first.clone(),
                        last: last.clone(),
                    });
                }
                let range = last_int.sub(first_int).add_small(1);
                // Fits: num_regions ≤ i32::MAX.
                let n = num_regions as u32;
                if range < BigUint::from_u32(n) {
                    return Err(SplitError::TooGranular {
                        regions: num_regions,
                        range: range.to_string_radix(10),
                    });
                }
                if n == 0 {
                    return Err(SplitError::TooFewRegions { min: 1, got: 0 });
                }
                let (step, _) = range.div_small(n);
                let mut cur = first_int.clone();
                Ok((1..n)
                    .map(|_| {
                        cur = cur.add(&step);
                        number_row(&cur, *radix, *width)
                    })
                    .collect())
            }
            Range::Bytes { first, last } => {
                if last <= first {
                    return Err(SplitError::LastRowNotAfterFirst {
                        first: to_string_binary(first),
                        last: to_string_binary(last),
                    });
                }
                let mut parts = bytes_split(first, last, true, num_regions.saturating_sub(1))?;
                // Drop the two ends; bytes_split always returns num + 2 ≥ 3 entries.
                parts.pop();
                parts.remove(0);
                Ok(parts)
            }
        }
    }

    /// `split(start, end)`: the row splitting an existing region `[start, end)` in two.
    ///
    /// Number algorithms: `⌊(start + end) / 2⌋` with an empty row read as 0, written like
    /// [`split`](Self::split)'s keys; an end of 0 is refused. `UniformSplit`:
    /// `Bytes.split(start, end, 1)[1]` (exclusive end), e.g. `aaa`, `aab` → `aaa\x80`.
    pub fn split2(&self, start: &[u8], end: &[u8]) -> Result<Vec<u8>> {
        match &self.range {
            Range::Number { radix, width, .. } => {
                let s = self.row_to_int(start, *radix)?;
                let e = self.row_to_int(end, *radix)?;
                if e.is_zero() {
                    return Err(SplitError::ZeroEndRow(self.name()));
                }
                let (mid, _) = s.add(&e).div_small(2);
                Ok(number_row(&mid, *radix, *width))
            }
            Range::Bytes { .. } => {
                let mut parts = bytes_split(start, end, false, 1)?;
                // bytes_split(.., 1) returns exactly [start, mid, end].
                Ok(parts.swap_remove(1))
            }
        }
    }

    /// `firstRow()`: the configured first row as a row key (number algorithms print it
    /// padded to the key width: `"00000000"`).
    pub fn first_row(&self) -> Vec<u8> {
        match &self.range {
            Range::Number {
                radix,
                first_int,
                width,
                ..
            } => number_row(first_int, *radix, *width),
            Range::Bytes { first, .. } => first.clone(),
        }
    }

    /// `lastRow()`: the configured last row as a row key (`"ffffffff"`, lower case, for
    /// the default `HexStringSplit`).
    pub fn last_row(&self) -> Vec<u8> {
        match &self.range {
            Range::Number {
                radix,
                last_int,
                width,
                ..
            } => number_row(last_int, *radix, *width),
            Range::Bytes { last, .. } => last.clone(),
        }
    }

    /// `setFirstRow(String)`: number algorithms parse it in their radix (either case of
    /// hex digits); `UniformSplit` reads it with `Bytes.toBytesBinary` (`\xAB` escapes).
    pub fn set_first_row(&mut self, input: &str) -> Result<()> {
        let name = self.name();
        match &mut self.range {
            Range::Number {
                radix,
                first,
                first_int,
                ..
            } => {
                *first_int = parse_row(name, input, *radix)?;
                *first = input.to_string();
            }
            Range::Bytes { first, .. } => *first = binary_row(name, input)?,
        }
        Ok(())
    }

    /// `setLastRow(String)`, read like [`set_first_row`](Self::set_first_row). For number
    /// algorithms the length of this string becomes the width keys are padded to.
    pub fn set_last_row(&mut self, input: &str) -> Result<()> {
        let name = self.name();
        match &mut self.range {
            Range::Number {
                radix,
                last,
                last_int,
                width,
                ..
            } => {
                *last_int = parse_row(name, input, *radix)?;
                *last = input.to_string();
                *width = input.chars().count();
            }
            Range::Bytes { last, .. } => *last = binary_row(name, input)?,
        }
        Ok(())
    }

    /// `convertToBigInteger`: the empty row is 0, any other row is its UTF-8 text parsed in
    /// the radix.
    fn row_to_int(&self, row: &[u8], radix: u32) -> Result<BigUint> {
        if row.is_empty() {
            return Ok(BigUint::default());
        }
        let text = std::str::from_utf8(row).map_err(|_| SplitError::InvalidRow {
            algorithm: self.name(),
            input: to_string_binary(row),
            reason: "not UTF-8 text",
        })?;
        parse_row(self.name(), text, radix)
    }
}

/// `convertToByte`: `BigInteger.toString(radix)` (lower case), left-padded with '0'.
fn number_row(v: &BigUint, radix: u32, width: usize) -> Vec<u8> {
    format!("{:0>width$}", v.to_string_radix(radix)).into_bytes()
}

/// `new BigInteger(s, radix)`, refusing what it refuses. A leading '-' is refused too:
/// HBase would accept it and then print keys like `000000-5`, which no table wants.
fn parse_row(algorithm: &'static str, input: &str, radix: u32) -> Result<BigUint> {
    let invalid = |reason| SplitError::InvalidRow {
        algorithm,
        input: input.to_string(),
        reason,
    };
    if input.starts_with('-') {
        return Err(invalid("negative rows are not supported"));
    }
    let digits = input.strip_prefix('+').unwrap_or(input);
    BigUint::parse(digits, radix).ok_or_else(|| {
        invalid(if radix == 16 {
            "not a hexadecimal number"
        } else {
            "not a decimal number"
        })
    })
}

fn binary_row(algorithm: &'static str, input: &str) -> Result<Vec<u8>> {
    to_bytes_binary(input).map_err(|_| SplitError::InvalidRow {
        algorithm,
        input: input.to_string(),
        reason: "truncated \\x escape",
    })
}

/// `b` followed by `0x00` up to `width` bytes (`Bytes.padTail`).
fn padded(b: &[u8], width: usize) -> Vec<u8> {
    let mut v = Vec::with_capacity(width + 1);
    v.extend_from_slice(b);
    v.resize(width, 0);
    v
}

/// Unsigned big integer: little-endian `u32` limbs without high zero limbs (so zero is
/// the empty vector and derived equality is numeric equality).
#[derive(Clone, Debug, Default, PartialEq, Eq)]
struct BigUint(Vec<u32>);

impl BigUint {
    fn from_u32(v: u32) -> Self {
        Self(vec![v]).trimmed()
    }

    fn trimmed(mut self) -> Self {
        while self.0.last() == Some(&0) {
            self.0.pop();
        }
        self
    }

    fn is_zero(&self) -> bool {
        self.0.is_empty()
    }

    fn from_be_bytes(b: &[u8]) -> Self {
        Self(
            b.rchunks(4)
                .map(|c| c.iter().fold(0u32, |v, &byte| (v << 8) | u32::from(byte)))
                .collect(),
        )
        .trimmed()
    }

    /// The low `width` bytes, big-endian.
    fn to_be_bytes(&self, width: usize) -> Vec<u8> {
        (0..width)
            .rev()
            .map(|i| {
                let limb = self.0.get(i / 4).copied().unwrap_or(0);
                (limb >> (8 * (i % 4))) as u8
            })
            .collect()
    }

    fn add(&self, other: &Self) -> Self {
        let mut out = Vec::with_capacity(self.0.len().max(other.0.len()) + 1);
        let mut carry = 0u64;
        for i in 0..self.0.len().max(other.0.len()) {
            let s = u64::from(self.0.get(i).copied().unwrap_or(0))
                + u64::from(other.0.get(i).copied().unwrap_or(0))
                + carry;
            out.push(s as u32);
            carry = s >> 32;
        }
        out.push(carry as u32);
        Self(out).trimmed()
    }

    fn add_small(&self, v: u32) -> Self {
        self.add(&Self::from_u32(v))
    }

    /// `self − other`; zero if `other` is larger (callers subtract the smaller only).
    fn sub(&self, other: &Self) -> Self {
        if *other >= *self {
            return Self::default();
        }
        let mut out = Vec::with_capacity(self.0.len());
        let mut borrow = 0i64;
        for (i, &limb) in self.0.iter().enumerate() {
            let mut d = i64::from(limb) - i64::from(other.0.get(i).copied().unwrap_or(0)) - borrow;
            borrow = i64::from(d < 0);
            if d < 0 {
                d += 1 << 32;
            }
            out.push(d as u32);
        }
        Self(out).trimmed()
    }

    fn mul_small(&self, m: u32) -> Self {
        let mut out = Vec::with_capacity(self.0.len() + 1);
        let mut carry = 0u64;
        for &limb in &self.0 {
            let p = u64::from(limb) * u64::from(m) + carry;
            out.push(p as u32);
            carry = p >> 32;
        }
        out.push(carry as u32);
        Self(out).trimmed()
    }

    /// Quotient and remainder by a non-zero `d` (callers never pass 0).
    fn div_small(&self, d: u32) -> (Self, u32) {
        let d = u64::from(d.max(1));
        let mut q = vec![0u32; self.0.len()];
        let mut rem = 0u64;
        for i in (0..self.0.len()).rev() {
            let cur = (rem << 32) | u64::from(self.0[i]);
            q[i] = (cur / d) as u32;
            rem = cur % d;
        }
        (Self(q).trimmed(), rem as u32)
    }

    /// ASCII digits of `radix` (either case), at least one. (Java's `Character.digit`
    /// also takes non-ASCII Unicode digits; rows never contain them.)
    fn parse(digits: &str, radix: u32) -> Option<Self> {
        if digits.is_empty() {
            return None;
        }
        digits.chars().try_fold(Self::default(), |acc, c| {
            c.to_digit(radix).map(|d| acc.mul_small(radix).add_small(d))
        })
    }

    /// Lower-case digits in `radix` (2..=36), `"0"` for zero.
    fn to_string_radix(&self, radix: u32) -> String {
        // Peel off as many digits per division as fit in a u32.
        let mut chunk_digits = 1;
        let mut chunk = radix;
        while let Some(next) = chunk.checked_mul(radix) {
            chunk = next;
            chunk_digits += 1;
        }
        let mut groups = Vec::new();
        let mut n = self.clone();
        loop {
            let (q, r) = n.div_small(chunk);
            groups.push(r);
            if q.is_zero() {
                break;
            }
            n = q;
        }
        let mut out = String::new();
        for (i, &g) in groups.iter().rev().enumerate() {
            let mut digits = Vec::with_capacity(chunk_digits);
            let mut g = g;
            loop {
                digits.push(char::from_digit(g % radix, radix).unwrap_or('0'));
                g /= radix;
                if g == 0 {
                    break;
                }
            }
            // Every group but the most significant is zero-padded to full width.
            if i > 0 {
                digits.resize(chunk_digits, '0');
            }
            out.extend(digits.iter().rev());
        }
        out
    }
}

impl Ord for BigUint {
    fn cmp(&self, other: &Self) -> Ordering {
        // Trimmed: more limbs means larger.
        self.0
            .len()
            .cmp(&other.0.len())
            .then_with(|| self.0.iter().rev().cmp(other.0.iter().rev()))
    }
}

impl PartialOrd for BigUint {
    fn partial_cmp(&self, other: &Self) -> Option<Ordering> {
        Some(self.cmp(other))
    }
}

#[cfg(test)]
mod bigint_tests {
    use super::BigUint;

    #[test]
    fn round_trips_and_arithmetic() {
        let v = BigUint::parse("FFFFFFFF", 16).unwrap_or_default();
        assert_eq!(v.to_string_radix(16), "ffffffff");
        assert_eq!(v.add_small(1).to_string_radix(10), "4294967296");
        let big = BigUint::parse("123456789012345678901234567890", 10).unwrap_or_default();
        assert_eq!(big.to_string_radix(10), "123456789012345678901234567890");
        assert_eq!(big.to_string_radix(16), "18ee90ff6c373e0ee4e3f0ad2");
        assert_eq!(big.sub(&big), BigUint::default());
        assert_eq!(BigUint::default().to_string_radix(10), "0");
        assert_eq!(
            BigUint::from_be_bytes(&[1, 0, 0, 0, 0]).to_be_bytes(6),
            [0, 1, 0, 0, 0, 0]
        );
        let (q, r) = big.div_small(7);
        assert_eq!(q.mul_small(7).add_small(r), big);
        assert!(BigUint::parse("", 10).is_none());
        assert!(BigUint::parse("12a", 10).is_none());
    }
}
