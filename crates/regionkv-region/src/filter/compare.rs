//! Compare operators and comparators: HBase's `CompareOperator` (with `CompareFilter.compare`'s
//! truth table) and `ByteArrayComparable` with its subclasses `BinaryComparator`,
//! `BinaryPrefixComparator`, `SubstringComparator`, `RegexStringComparator`, `NullComparator`
//! and `BitComparator`.
//!
//! # The inverted convention
//!
//! A comparator compares *its own operand* to the cell's bytes: `Comparator::compare_to(cell)`
//! returns `operand.cmp(cell)`. [`CompareOperator::filters_out`] then answers "does this cell go
//! away?" (HBase's `CompareFilter.compare` returns true to filter out). The operator names the
//! relation a *kept* cell has to the operand: `LESS` keeps cells whose bytes are less than the
//! operand, because it filters out when `operand.cmp(cell)` is `Less` or `Equal`.
//!
//! Substring, regex, null and bit comparators only answer "match" (`Equal`) or "no match"
//! (`Greater`), so only `EQUAL` (keep matches) and `NOT_EQUAL` (keep non-matches) make sense
//! with them; the filter language rejects other operators for substring and regex, as HBase's
//! `CompareFilter.extractArguments` does.

use super::FilterError;
use std::cmp::Ordering;
use std::fmt;

/// HBase's `CompareOperator` (and the deprecated `CompareFilter.CompareOp`).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum CompareOperator {
    /// Keep cells less than the operand (`<`).
    Less,
    /// Keep cells less than or equal to the operand (`<=`).
    LessOrEqual,
    /// Keep cells equal to the operand, or matching it (`=`).
    Equal,
    /// Keep cells not equal to the operand, or not matching it (`!=`).
    NotEqual,
    /// Keep cells greater than or equal to the operand (`>=`).
    GreaterOrEqual,
    /// Keep cells greater than the operand (`>`).
    Greater,
    /// No comparison: HBase's compare filters then filter *every* cell out.
    NoOp,
}

impl CompareOperator {
    /// HBase's `CompareFilter.compare`: true when a cell must be filtered out, given
    /// `operand_vs_cell`, the comparator's result of comparing its operand to the cell's bytes.
    /// `NoOp` filters out everything (HBase's compare filters test it before comparing; its
    /// `SingleColumnValueFilter` throws instead, see [`super::SingleColumnValueFilter`]).
    pub fn filters_out(self, operand_vs_cell: Ordering) -> bool {
        match self {
            Self::Less => operand_vs_cell != Ordering::Greater,
            Self::LessOrEqual => operand_vs_cell == Ordering::Less,
            Self::Equal => operand_vs_cell != Ordering::Equal,
            Self::NotEqual => operand_vs_cell == Ordering::Equal,
            Self::GreaterOrEqual => operand_vs_cell == Ordering::Greater,
            Self::Greater => operand_vs_cell != Ordering::Less,
            Self::NoOp => true,
        }
    }

    /// The filter-language symbol (`NoOp` has none in HBase's language; shown as `NO_OP`).
    pub fn symbol(self) -> &'static str {
        match self {
            Self::Less => "<",
            Self::LessOrEqual => "<=",
            Self::Equal => "=",
            Self::NotEqual => "!=",
            Self::GreaterOrEqual => ">=",
            Self::Greater => ">",
            Self::NoOp => "NO_OP",
        }
    }

    /// Parses a filter-language symbol (HBase's `ParseFilter.createCompareOperator`).
    pub fn from_symbol(symbol: &str) -> Option<Self> {
        Some(match symbol {
            "<" => Self::Less,
            "<=" => Self::LessOrEqual,
            "=" => Self::Equal,
            "!=" => Self::NotEqual,
            ">=" => Self::GreaterOrEqual,
            ">" => Self::Greater,
            _ => return None,
        })
    }

    /// HBase's enum constant name (`LESS`, `GREATER_OR_EQUAL`, ...).
    pub fn name(self) -> &'static str {
        match self {
            Self::Less => "LESS",
            Self::LessOrEqual => "LESS_OR_EQUAL",
            Self::Equal => "EQUAL",
            Self::NotEqual => "NOT_EQUAL",
            Self::GreaterOrEqual => "GREATER_OR_EQUAL",
            Self::Greater => "GREATER",
            Self::NoOp => "NO_OP",
        }
    }
}

impl fmt::Display for CompareOperator {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.name())
    }
}

/// True when the cell bytes `cell` are filtered out by `op` and `comparator` (HBase's
/// `CompareFilter.compareRow/Family/Qualifier/Value`): `NoOp` filters out without asking the
/// comparator.
pub(crate) fn compare_filters_out(
    op: CompareOperator,
    comparator: &Comparator,
    cell: &[u8],
) -> bool {
    op == CompareOperator::NoOp || op.filters_out(comparator.compare_to(cell))
}

/// HBase's `BitComparator.BitwiseOp`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum BitwiseOp {
    /// `operand & cell`.
    And,
    /// `operand | cell`.
    Or,
    /// `operand ^ cell`.
    Xor,
}

/// HBase's `ByteArrayComparable` family: what a compare filter compares the cell's bytes with.
#[derive(Debug, Clone)]
pub enum Comparator {
    /// `BinaryComparator` (`binary:`): unsigned lexicographic order.
    Binary(Vec<u8>),
    /// `BinaryPrefixComparator` (`binaryprefix:`): like `Binary` against the cell's first
    /// `operand.len()` bytes (a shorter cell compares as itself, so the operand is greater).
    BinaryPrefix(Vec<u8>),
    /// `SubstringComparator` (`substring:`), case-insensitive.
    Substring(SubstringComparator),
    /// `RegexStringComparator` (`regexstring:`).
    RegexString(RegexStringComparator),
    /// `NullComparator`: matches only a missing (Java `null`) value, which a stored cell never
    /// has, so every cell compares as "no match".
    Null,
    /// `BitComparator`: matches when the cell has the operand's length and
    /// `operand <op> cell` has a non-zero byte.
    Bit {
        /// The operand.
        value: Vec<u8>,
        /// The bitwise operation.
        op: BitwiseOp,
    },
}

impl Comparator {
    /// A `BinaryComparator`.
    pub fn binary(value: impl Into<Vec<u8>>) -> Self {
        Self::Binary(value.into())
    }

    /// A `BinaryPrefixComparator`.
    pub fn binary_prefix(value: impl Into<Vec<u8>>) -> Self {
        Self::BinaryPrefix(value.into())
    }

    /// A `SubstringComparator` (case-insensitive).
    pub fn substring(substr: &str) -> Self {
        Self::Substring(SubstringComparator::new(substr))
    }

    /// A `RegexStringComparator` with HBase's default flags (`DOTALL`).
    pub fn regex(expr: &str) -> Result<Self, FilterError> {
        Ok(Self::RegexString(RegexStringComparator::new(expr)?))
    }

    /// Compares the operand to `cell` (operand first: HBase's `compareTo(cellBytes)`). Match-only
    /// comparators return `Equal` for a match and `Greater` otherwise.
    pub fn compare_to(&self, cell: &[u8]) -> Ordering {
        match self {
            Self::Binary(v) => v.as_slice().cmp(cell),
            Self::BinaryPrefix(v) => {
                let n = v.len().min(cell.len());
                v.as_slice().cmp(cell.get(..n).unwrap_or(cell))
            }
            Self::Substring(s) => match_to_ordering(s.matches(cell)),
            Self::RegexString(r) => match_to_ordering(r.matches(cell)),
            Self::Null => Ordering::Greater,
            Self::Bit { value, op } => match_to_ordering(bit_matches(value, *op, cell)),
        }
    }

    /// The operand's bytes (HBase's `getValue`; a substring comparator's is lower-cased).
    pub fn value(&self) -> &[u8] {
        match self {
            Self::Binary(v) | Self::BinaryPrefix(v) | Self::Bit { value: v, .. } => v,
            Self::Substring(s) => s.substr.as_bytes(),
            Self::RegexString(r) => r.pattern.as_bytes(),
            Self::Null => &[],
        }
    }

    /// True for the comparators that only tell match from no match and that the filter
    /// language allows only with `=` and `!=` (substring and regex, as in HBase).
    pub(crate) fn is_match_only(&self) -> bool {
        matches!(self, Self::Substring(_) | Self::RegexString(_))
    }
}

/// `0` (Equal) for a match, `1` (Greater) otherwise, as HBase's match-only comparators return.
fn match_to_ordering(matched: bool) -> Ordering {
    if matched {
        Ordering::Equal
    } else {
        Ordering::Greater
    }
}

fn bit_matches(value: &[u8], op: BitwiseOp, cell: &[u8]) -> bool {
    if value.len() != cell.len() {
        return false;
    }
    value.iter().zip(cell).any(|(a, b)| {
        let r = match op {
            BitwiseOp::And => a & b,
            BitwiseOp::Or => a | b,
            BitwiseOp::Xor => a ^ b,
        };
        r != 0
    })
}

/// HBase's `SubstringComparator`: true when the cell, decoded as UTF-8 and lower-cased,
/// contains the lower-cased operand.
///
/// Lower-casing is Unicode's full mapping (Java's `toLowerCase(Locale.ROOT)` and Rust's
/// `str::to_lowercase` agree on it, final sigma included); malformed UTF-8 in the cell decodes
/// to U+FFFD as in Java (the number of replacement characters may differ, which cannot change a
/// match of a well-formed operand).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct SubstringComparator {
    substr: String,
}

impl SubstringComparator {
    /// A comparator for `substr` (stored lower-cased, as HBase does).
    pub fn new(substr: &str) -> Self {
        Self {
            substr: substr.to_lowercase(),
        }
    }

    /// The lower-cased operand.
    pub fn substr(&self) -> &str {
        &self.substr
    }

    /// True when `cell` contains the operand, ignoring case.
    pub fn matches(&self, cell: &[u8]) -> bool {
        String::from_utf8_lossy(cell)
            .to_lowercase()
            .contains(&self.substr)
    }
}

/// The charset a [`RegexStringComparator`] decodes cells with before matching (HBase's
/// `RegexStringComparator.setCharset`; HBase recommends ISO-8859-1 for binary row keys).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Default)]
pub enum RegexCharset {
    /// UTF-8, malformed bytes decoded as U+FFFD (HBase's default).
    #[default]
    Utf8,
    /// ISO-8859-1: every byte is the code point of the same value, so any byte string decodes.
    Iso8859_1,
}

/// HBase's `RegexStringComparator` (Java engine): true when the pattern matches *somewhere* in
/// the decoded cell (`Matcher.find`, not a whole-string match).
///
/// Patterns run on the `regex` crate, not `java.util.regex`. Flags use Java's `Pattern` bit
/// values ([`Self::CASE_INSENSITIVE`] ...); the default is `DOTALL`, as in HBase. Differences
/// from Java:
/// - unsupported syntax fails at construction: look-around, back-references, possessive and
///   atomic groups, `\Q...\E`, `\Z`, `\G`, `\p{javaLowerCase}`-style classes;
/// - `\d`, `\w`, `\s`, `\b` are Unicode-aware here (Java: ASCII unless
///   `UNICODE_CHARACTER_CLASS`); `CASE_INSENSITIVE` folds Unicode here (Java: ASCII unless
///   `UNICODE_CASE`);
/// - without `DOTALL`, `.` excludes only `\n` (Java also excludes `\r`, U+0085, U+2028,
///   U+2029); `MULTILINE` anchors `^`/`$` at `\n` only; inline `(?U)` means "swap greed" here
///   and "Unicode classes" in Java;
/// - `CANON_EQ` and `UNIX_LINES` are accepted and ignored.
#[derive(Debug, Clone)]
pub struct RegexStringComparator {
    pattern: String,
    flags: u32,
    charset: RegexCharset,
    regex: regex::Regex,
}

impl RegexStringComparator {
    /// Java's `Pattern.UNIX_LINES` (accepted, no effect).
    pub const UNIX_LINES: u32 = 0x01;
    /// Java's `Pattern.CASE_INSENSITIVE`.
    pub const CASE_INSENSITIVE: u32 = 0x02;
    /// Java's `Pattern.COMMENTS` (whitespace and `#` comments ignored in the pattern).
    pub const COMMENTS: u32 = 0x04;
    /// Java's `Pattern.MULTILINE`.
    pub const MULTILINE: u32 = 0x08;
    /// Java's `Pattern.LITERAL` (the pattern is a literal string).
    pub const LITERAL: u32 = 0x10;
    /// Java's `Pattern.DOTALL` (`.` matches newlines too); HBase's default.
    pub const DOTALL: u32 = 0x20;
    /// Java's `Pattern.UNICODE_CASE` (implied here).
    pub const UNICODE_CASE: u32 = 0x40;
    /// Java's `Pattern.CANON_EQ` (accepted, no effect).
    pub const CANON_EQ: u32 = 0x80;
    /// Java's `Pattern.UNICODE_CHARACTER_CLASS` (implied here).
    pub const UNICODE_CHARACTER_CLASS: u32 = 0x100;

    /// A comparator for `expr` with HBase's default flags (`DOTALL`).
    pub fn new(expr: &str) -> Result<Self, FilterError> {
        Self::with_flags(expr, Self::DOTALL)
    }

    /// A comparator for `expr` with Java `Pattern` flags (see the type docs).
    pub fn with_flags(expr: &str, flags: u32) -> Result<Self, FilterError> {
        let known = Self::UNIX_LINES
            | Self::CASE_INSENSITIVE
            | Self::COMMENTS
            | Self::MULTILINE
            | Self::LITERAL
            | Self::DOTALL
            | Self::UNICODE_CASE
            | Self::CANON_EQ
            | Self::UNICODE_CHARACTER_CLASS;
        if flags & !known != 0 {
            return Err(FilterError::invalid(
                "RegexStringComparator",
                format!(
                    "unknown java.util.regex.Pattern flags {:#x}",
                    flags & !known
                ),
            ));
        }
        let source = if flags & Self::LITERAL != 0 {
            regex::escape(expr)
        } else {
            expr.to_owned()
        };
        let regex = regex::RegexBuilder::new(&source)
            .case_insensitive(flags & Self::CASE_INSENSITIVE != 0)
            .ignore_whitespace(flags & Self::COMMENTS != 0 && flags & Self::LITERAL == 0)
            .multi_line(flags & Self::MULTILINE != 0)
            .dot_matches_new_line(flags & Self::DOTALL != 0)
            .build()
            .map_err(|e| FilterError::InvalidRegex {
                pattern: expr.to_owned(),
                message: e.to_string(),
            })?;
        Ok(Self {
            pattern: expr.to_owned(),
            flags,
            charset: RegexCharset::Utf8,
            regex,
        })
    }

    /// The same comparator decoding cells with `charset`.
    #[must_use]
    pub fn with_charset(mut self, charset: RegexCharset) -> Self {
        self.charset = charset;
        self
    }

    /// The pattern as given.
    pub fn pattern(&self) -> &str {
        &self.pattern
    }

    /// The Java `Pattern` flags.
    pub fn flags(&self) -> u32 {
        self.flags
    }

    /// The charset cells are decoded with.
    pub fn charset(&self) -> RegexCharset {
        self.charset
    }

    /// True when the pattern is found in the decoded `cell`.
    pub fn matches(&self, cell: &[u8]) -> bool {
        match self.charset {
            RegexCharset::Utf8 => self.regex.is_match(&String::from_utf8_lossy(cell)),
            RegexCharset::Iso8859_1 => {
                let decoded: String = cell.iter().map(|&b| char::from(b)).collect();
                self.regex.is_match(&decoded)
            }
        }
    }
}
