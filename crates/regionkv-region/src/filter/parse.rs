//! HBase's filter language (`ParseFilter`, `ParseConstants` and each filter's
//! `createFilterFromArguments`): the strings of the shell's `FILTER => "..."` and Thrift's
//! `TScan.filterString`, parsed by [`parse_filter`].
//!
//! # Grammar
//!
//! ```text
//! filter  := or EOF
//! or      := and ( "OR" and )*                 -- one MUST_PASS_ONE FilterList for 2+ operands
//! and     := unary ( "AND" unary )*            -- one MUST_PASS_ALL FilterList for 2+ operands
//! unary   := "SKIP" unary | "WHILE" unary | primary
//! primary := "(" or ")" | Name "(" args ")"
//! args    := ( separator* arg )* separator*   -- separator: whitespace or ','
//! arg     := quoted | bare
//! quoted  := "'" ( any byte but "'" | "''" )* "'"   -- '' is an escaped quote
//! bare    := compare operator (< <= = != >= >), integer (-?[0-9]+) or boolean (true/false,
//!            any case)
//! ```
//!
//! So `SKIP`/`WHILE` bind tightest, then `AND`, then `OR`; `A AND B AND C` is one list of
//! three while `(A AND B) AND C` nests, as in HBase. Operators are upper case and must be
//! followed by whitespace or `(` (HBase's `checkForAnd` and friends). Quoted arguments are raw
//! bytes (the UTF-8 of the string); comparators are quoted `type:value` with `binary`,
//! `binaryprefix`, `substring` or `regexstring` (case-sensitive), split at the first `:`.
//! `substring` and `regexstring` only go with `=` and `!=`.
//!
//! # Differences from HBase's parser
//!
//! Every string HBase accepts parses to the same filter here. This parser also accepts a few
//! strings HBase's operator-stack parser wrongly rejects (a mixed-precedence expression inside
//! parentheses such as `(A OR B AND C)`, which HBase 2.x reports as mismatched parentheses) and
//! treats tabs and newlines as whitespace everywhere (HBase: only spaces between arguments). A
//! bare argument may not contain `'` or `(`, and `-` alone is not the integer 0. Nesting deeper
//! than [`MAX_NESTING`] is rejected instead of exhausting the stack. Errors name the 0-based
//! character position and what was expected.

use super::compare::{Comparator, CompareOperator, RegexStringComparator, SubstringComparator};
use super::{
    ColumnCountGetFilter, ColumnPaginationFilter, ColumnPrefixFilter, ColumnRangeFilter,
    ColumnValueFilter, DependentColumnFilter, FamilyFilter, Filter, FilterError, FilterList,
    FirstKeyOnlyFilter, InclusiveStopFilter, KeyOnlyFilter, MultipleColumnPrefixFilter, PageFilter,
    PrefixFilter, QualifierFilter, RowFilter, SingleColumnValueExcludeFilter,
    SingleColumnValueFilter, SkipFilter, TimestampsFilter, ValueFilter, WhileMatchFilter,
};

/// The deepest nesting of parentheses and `SKIP`/`WHILE` a filter string may have.
pub const MAX_NESTING: usize = 100;

/// The filter names HBase 2.x's language registers (`ParseFilter.filterHashMap`).
pub const SUPPORTED_FILTERS: &[&str] = &[
    "KeyOnlyFilter",
    "FirstKeyOnlyFilter",
    "PrefixFilter",
    "ColumnPrefixFilter",
    "MultipleColumnPrefixFilter",
    "ColumnCountGetFilter",
    "PageFilter",
    "ColumnPaginationFilter",
    "InclusiveStopFilter",
    "TimestampsFilter",
    "RowFilter",
    "FamilyFilter",
    "QualifierFilter",
    "ValueFilter",
    "ColumnRangeFilter",
    "SingleColumnValueFilter",
    "SingleColumnValueExcludeFilter",
    "DependentColumnFilter",
    "ColumnValueFilter",
];

/// Parses a filter string of HBase's filter language (see the module docs), e.g.
/// `"PrefixFilter('row') AND (QualifierFilter(>=, 'binary:c') OR KeyOnlyFilter())"`.
pub fn parse_filter(s: &str) -> Result<Box<dyn Filter>, FilterError> {
    let mut parser = Parser {
        src: s,
        bytes: s.as_bytes(),
        pos: 0,
        depth: 0,
    };
    parser.skip_whitespace();
    if parser.peek().is_none() {
        return Err(parser.syntax(parser.pos, "a filter"));
    }
    let filter = parser.parse_or()?;
    parser.skip_whitespace();
    if parser.peek().is_some() {
        let word = parser.word_at(parser.pos);
        let expected = if word.eq_ignore_ascii_case("and") || word.eq_ignore_ascii_case("or") {
            "AND, OR or end of input (operators are upper case)"
        } else {
            "AND, OR or end of input"
        };
        return Err(parser.syntax(parser.pos, expected));
    }
    Ok(filter)
}

struct Parser<'a> {
    src: &'a str,
    bytes: &'a [u8],
    /// Byte offset of the next unread byte.
    pos: usize,
    /// Current nesting of parentheses and unary operators.
    depth: usize,
}

/// One argument of a simple filter expression.
struct Arg {
    /// Byte offset where it starts.
    pos: usize,
    value: ArgValue,
}

enum ArgValue {
    /// A quoted string, unescaped.
    Quoted(Vec<u8>),
    /// Anything else: an operator, number or boolean.
    Bare(String),
}

fn is_whitespace(b: u8) -> bool {
    matches!(b, b' ' | b'\t' | b'\n' | b'\r')
}

impl Parser<'_> {
    fn peek(&self) -> Option<u8> {
        self.bytes.get(self.pos).copied()
    }

    fn skip_whitespace(&mut self) {
        while self.peek().is_some_and(is_whitespace) {
            self.pos += 1;
        }
    }

    /// The 0-based character index of byte offset `at`.
    fn char_pos(&self, at: usize) -> usize {
        self.src.get(..at).map_or(at, |head| head.chars().count())
    }

    /// The bytes from `at` up to the next whitespace or parenthesis, for messages.
    fn word_at(&self, at: usize) -> &str {
        let rest = self.src.get(at..).unwrap_or("");
        let end = rest
            .find(|c: char| c.is_whitespace() || c == '(' || c == ')')
            .unwrap_or(rest.len());
        rest.get(..end).unwrap_or(rest)
    }

    /// A description of the input at byte offset `at`.
    fn found(&self, at: usize) -> String {
        let rest = self.src.get(at..).unwrap_or("");
        if rest.is_empty() {
            return "end of input".to_owned();
        }
        let mut snippet: String = rest.chars().take(20).collect();
        if rest.chars().nth(20).is_some() {
            snippet.push('…');
        }
        format!("{snippet:?}")
    }

    fn syntax(&self, at: usize, expected: &str) -> FilterError {
        FilterError::Syntax {
            position: self.char_pos(at),
            expected: expected.to_owned(),
            found: self.found(at),
        }
    }

    /// True when `keyword` starts at the current position and is followed by whitespace, `(`
    /// or the end (HBase: whitespace or `(`; the end gives a clearer error afterwards).
    fn at_keyword(&self, keyword: &str) -> bool {
        let Some(rest) = self.bytes.get(self.pos..) else {
            return false;
        };
        rest.starts_with(keyword.as_bytes())
            && rest
                .get(keyword.len())
                .is_none_or(|&b| is_whitespace(b) || b == b'(')
    }

    fn enter(&mut self) -> Result<(), FilterError> {
        self.depth += 1;
        if self.depth > MAX_NESTING {
            return Err(self.syntax(
                self.pos,
                &format!("at most {MAX_NESTING} levels of parentheses, SKIP and WHILE"),
            ));
        }
        Ok(())
    }

    fn parse_or(&mut self) -> Result<Box<dyn Filter>, FilterError> {
        let mut operands = vec![self.parse_and()?];
        loop {
            self.skip_whitespace();
            if !self.at_keyword("OR") {
                break;
            }
            self.pos += 2;
            operands.push(self.parse_and()?);
        }
        if operands.len() > 1 {
            return Ok(Box::new(FilterList::or(operands)));
        }
        // One operand: no list around it.
        operands
            .pop()
            .ok_or_else(|| self.syntax(self.pos, "a filter"))
    }

    fn parse_and(&mut self) -> Result<Box<dyn Filter>, FilterError> {
        let mut operands = vec![self.parse_unary()?];
        loop {
            self.skip_whitespace();
            if !self.at_keyword("AND") {
                break;
            }
            self.pos += 3;
            operands.push(self.parse_unary()?);
        }
        if operands.len() > 1 {
            return Ok(Box::new(FilterList::and(operands)));
        }
        // One operand: no list around it.
        operands
            .pop()
            .ok_or_else(|| self.syntax(self.pos, "a filter"))
    }

    fn parse_unary(&mut self) -> Result<Box<dyn Filter>, FilterError> {
        self.skip_whitespace();
        if self.at_keyword("SKIP") {
            self.pos += 4;
            let inner = self.parse_operand_of_unary()?;
            return Ok(Box::new(SkipFilter::new(inner)));
        }
        if self.at_keyword("WHILE") {
            self.pos += 5;
            let inner = self.parse_operand_of_unary()?;
            return Ok(Box::new(WhileMatchFilter::new(inner)));
        }
        self.parse_primary()
    }

    /// The operand of `SKIP` or `WHILE`, one nesting level deeper.
    fn parse_operand_of_unary(&mut self) -> Result<Box<dyn Filter>, FilterError> {
        self.enter()?;
        let inner = self.parse_unary()?;
        self.depth -= 1;
        Ok(inner)
    }

    fn parse_primary(&mut self) -> Result<Box<dyn Filter>, FilterError> {
        self.skip_whitespace();
        match self.peek() {
            Some(b'(') => {
                let open = self.pos;
                self.pos += 1;
                self.enter()?;
                let inner = self.parse_or()?;
                self.skip_whitespace();
                if self.peek() != Some(b')') {
                    return Err(self.syntax(
                        self.pos,
                        &format!(
                            "AND, OR or ')' to close the '(' at position {}",
                            self.char_pos(open)
                        ),
                    ));
                }
                self.pos += 1;
                self.depth -= 1;
                Ok(inner)
            }
            _ => self.parse_simple(),
        }
    }

    /// `Name(args)`: one filter of the language.
    fn parse_simple(&mut self) -> Result<Box<dyn Filter>, FilterError> {
        let start = self.pos;
        while self
            .peek()
            .is_some_and(|b| !is_whitespace(b) && !matches!(b, b'(' | b')' | b'\'' | b','))
        {
            self.pos += 1;
        }
        if self.pos == start {
            return Err(self.syntax(start, "a filter name or '('"));
        }
        let name = self.src.get(start..self.pos).unwrap_or("");
        self.skip_whitespace();
        if self.peek() != Some(b'(') {
            return Err(self.syntax(self.pos, &format!("'(' after the filter name {name}")));
        }
        self.pos += 1;
        let args = self.parse_args(name)?;
        Builder {
            parser: self,
            name,
            name_pos: start,
            args,
        }
        .build()
    }

    /// The arguments up to and including the closing `)`.
    fn parse_args(&mut self, name: &str) -> Result<Vec<Arg>, FilterError> {
        let mut args = Vec::new();
        loop {
            while self.peek().is_some_and(|b| is_whitespace(b) || b == b',') {
                self.pos += 1;
            }
            let start = self.pos;
            match self.peek() {
                None => {
                    return Err(self.syntax(
                        start,
                        &format!("an argument or ')' to close the arguments of {name}"),
                    ));
                }
                Some(b')') => {
                    self.pos += 1;
                    return Ok(args);
                }
                Some(b'\'') => {
                    let value = self.parse_quoted()?;
                    args.push(Arg {
                        pos: start,
                        value: ArgValue::Quoted(value),
                    });
                }
                Some(b'(') => return Err(self.syntax(start, "an argument")),
                Some(_) => {
                    while let Some(b) = self.peek() {
                        if is_whitespace(b) || matches!(b, b',' | b')') {
                            break;
                        }
                        if matches!(b, b'\'' | b'(') {
                            return Err(self.syntax(
                                self.pos,
                                "',' or ')' after an unquoted argument (quote strings whole)",
                            ));
                        }
                        self.pos += 1;
                    }
                    let text = self.src.get(start..self.pos).unwrap_or("").to_owned();
                    args.push(Arg {
                        pos: start,
                        value: ArgValue::Bare(text),
                    });
                }
            }
        }
    }

    /// A quoted string starting at the current `'`; `''` inside is one quote.
    fn parse_quoted(&mut self) -> Result<Vec<u8>, FilterError> {
        let open = self.pos;
        self.pos += 1;
        let mut out = Vec::new();
        loop {
            match self.peek() {
                None => {
                    return Err(FilterError::Syntax {
                        position: self.char_pos(self.pos),
                        expected: format!(
                            "a closing quote for the string opened at position {}",
                            self.char_pos(open)
                        ),
                        found: "end of input".to_owned(),
                    });
                }
                Some(b'\'') => {
                    if self.bytes.get(self.pos + 1) == Some(&b'\'') {
                        out.push(b'\'');
                        self.pos += 2;
                    } else {
                        self.pos += 1;
                        return Ok(out);
                    }
                }
                Some(b) => {
                    out.push(b);
                    self.pos += 1;
                }
            }
        }
    }
}

/// Builds one filter from its parsed arguments, checking them as the filter's
/// `createFilterFromArguments` does.
struct Builder<'p, 'a> {
    parser: &'p Parser<'a>,
    name: &'p str,
    name_pos: usize,
    args: Vec<Arg>,
}

impl Builder<'_, '_> {
    fn error_at(&self, at: usize, message: impl Into<String>) -> FilterError {
        FilterError::InvalidArgument {
            filter: self.name.to_owned(),
            position: self.parser.char_pos(at),
            message: message.into(),
        }
    }

    /// Fails unless the argument count is one of `allowed`.
    fn expect_count(&self, allowed: &[usize]) -> Result<(), FilterError> {
        if allowed.contains(&self.args.len()) {
            return Ok(());
        }
        let wanted = match allowed {
            [n] => n.to_string(),
            [a, b] => format!("{a} or {b}"),
            [head @ .., last] => {
                let head: Vec<String> = head.iter().map(ToString::to_string).collect();
                format!("{} or {last}", head.join(", "))
            }
            [] => "no".to_owned(),
        };
        Err(self.error_at(
            self.name_pos,
            format!("expected {wanted} arguments but got {}", self.args.len()),
        ))
    }

    fn arg(&self, i: usize) -> Result<&Arg, FilterError> {
        self.args
            .get(i)
            .ok_or_else(|| self.error_at(self.name_pos, format!("missing argument {}", i + 1)))
    }

    fn bytes(&self, i: usize) -> Result<Vec<u8>, FilterError> {
        let arg = self.arg(i)?;
        match &arg.value {
            ArgValue::Quoted(v) => Ok(v.clone()),
            ArgValue::Bare(text) => Err(self.error_at(
                arg.pos,
                format!(
                    "argument {} must be a quoted string like 'abc', got {text}",
                    i + 1
                ),
            )),
        }
    }

    fn bare(&self, i: usize, what: &str) -> Result<(&str, usize), FilterError> {
        let arg = self.arg(i)?;
        match &arg.value {
            ArgValue::Bare(text) => Ok((text, arg.pos)),
            ArgValue::Quoted(_) => Err(self.error_at(
                arg.pos,
                format!("argument {} must be an unquoted {what}", i + 1),
            )),
        }
    }

    /// HBase's `ParseFilter.convertByteArrayToLong`: optional `-`, then decimal digits.
    fn long(&self, i: usize) -> Result<i64, FilterError> {
        let (text, pos) = self.bare(i, "integer")?;
        let (negative, digits) = match text.strip_prefix('-') {
            Some(rest) => (true, rest),
            None => (false, text),
        };
        if digits.is_empty() || !digits.bytes().all(|b| b.is_ascii_digit()) {
            return Err(self.error_at(pos, format!("expected an integer, got {text}")));
        }
        let magnitude = digits
            .bytes()
            .try_fold(0i64, |acc, d| {
                acc.checked_mul(10)?.checked_add(i64::from(d - b'0'))
            })
            .ok_or_else(|| self.error_at(pos, format!("integer {text} is too large")))?;
        Ok(if negative { -magnitude } else { magnitude })
    }

    /// HBase's `ParseFilter.convertByteArrayToInt`.
    fn int(&self, i: usize) -> Result<i32, FilterError> {
        let value = self.long(i)?;
        let pos = self.arg(i)?.pos;
        i32::try_from(value).map_err(|_| {
            self.error_at(pos, format!("integer {value} does not fit in a 32-bit int"))
        })
    }

    /// A non-negative int (HBase's constructors check `>= 0`).
    fn count(&self, i: usize, what: &str) -> Result<u32, FilterError> {
        let value = self.int(i)?;
        let pos = self.arg(i)?.pos;
        u32::try_from(value)
            .map_err(|_| self.error_at(pos, format!("{what} must not be negative, got {value}")))
    }

    /// HBase's `ParseFilter.convertByteArrayToBoolean`: `true`/`false` in any case.
    fn boolean(&self, i: usize) -> Result<bool, FilterError> {
        let (text, pos) = self.bare(i, "boolean (true or false)")?;
        if text.eq_ignore_ascii_case("true") {
            Ok(true)
        } else if text.eq_ignore_ascii_case("false") {
            Ok(false)
        } else {
            Err(self.error_at(pos, format!("expected true or false, got {text}")))
        }
    }

    fn compare_op(&self, i: usize) -> Result<CompareOperator, FilterError> {
        let (text, pos) = self.bare(i, "compare operator (<, <=, =, !=, >=, >)")?;
        CompareOperator::from_symbol(text).ok_or_else(|| {
            self.error_at(
                pos,
                format!("invalid compare operator {text} (expected <, <=, =, !=, >= or >)"),
            )
        })
    }

    /// HBase's `ParseFilter.createComparator`: a quoted `type:value`.
    fn comparator(&self, i: usize) -> Result<Comparator, FilterError> {
        let pos = self.arg(i)?.pos;
        let raw = self.bytes(i).map_err(|_| {
            self.error_at(
                pos,
                format!(
                    "argument {} must be a quoted comparator like 'binary:abc'",
                    i + 1
                ),
            )
        })?;
        let Some(colon) = raw.iter().position(|&b| b == b':') else {
            return Err(self.error_at(
                pos,
                "a comparator is 'type:value' with type binary, binaryprefix, regexstring or substring",
            ));
        };
        let (kind, value) = (
            raw.get(..colon).unwrap_or(&[]),
            raw.get(colon + 1..).unwrap_or(&[]),
        );
        match kind {
            b"binary" => Ok(Comparator::Binary(value.to_vec())),
            b"binaryprefix" => Ok(Comparator::BinaryPrefix(value.to_vec())),
            b"substring" => Ok(Comparator::Substring(SubstringComparator::new(
                &String::from_utf8_lossy(value),
            ))),
            b"regexstring" => RegexStringComparator::new(&String::from_utf8_lossy(value))
                .map(Comparator::RegexString)
                .map_err(|e| self.error_at(pos, e.to_string())),
            other => Err(self.error_at(
                pos,
                format!(
                    "unknown comparator type {:?} (expected binary, binaryprefix, regexstring or substring)",
                    String::from_utf8_lossy(other)
                ),
            )),
        }
    }

    /// An operator and comparator, checked as `CompareFilter.extractArguments` does.
    fn op_and_comparator(
        &self,
        op_index: usize,
    ) -> Result<(CompareOperator, Comparator), FilterError> {
        let op = self.compare_op(op_index)?;
        let comparator = self.comparator(op_index + 1)?;
        if comparator.is_match_only()
            && !matches!(op, CompareOperator::Equal | CompareOperator::NotEqual)
        {
            let pos = self.arg(op_index)?.pos;
            return Err(self.error_at(
                pos,
                "a regexstring or substring comparator can only be used with = and !=",
            ));
        }
        Ok((op, comparator))
    }

    fn build(self) -> Result<Box<dyn Filter>, FilterError> {
        let filter: Box<dyn Filter> = match self.name {
            "KeyOnlyFilter" => {
                self.expect_count(&[0, 1])?;
                let len_as_val = if self.args.is_empty() {
                    false
                } else {
                    self.boolean(0)?
                };
                Box::new(KeyOnlyFilter::new(len_as_val))
            }
            "FirstKeyOnlyFilter" => {
                self.expect_count(&[0])?;
                Box::new(FirstKeyOnlyFilter::new())
            }
            "PrefixFilter" => {
                self.expect_count(&[1])?;
                Box::new(PrefixFilter::new(self.bytes(0)?))
            }
            "ColumnPrefixFilter" => {
                self.expect_count(&[1])?;
                Box::new(ColumnPrefixFilter::new(self.bytes(0)?))
            }
            "MultipleColumnPrefixFilter" => {
                let prefixes = (0..self.args.len())
                    .map(|i| self.bytes(i))
                    .collect::<Result<Vec<_>, _>>()?;
                Box::new(
                    MultipleColumnPrefixFilter::new(prefixes)
                        .map_err(|e| self.error_at(self.name_pos, e.to_string()))?,
                )
            }
            "ColumnCountGetFilter" => {
                self.expect_count(&[1])?;
                Box::new(ColumnCountGetFilter::new(self.count(0, "the limit")?))
            }
            "PageFilter" => {
                self.expect_count(&[1])?;
                let size = self.long(0)?;
                let size = u64::try_from(size).map_err(|_| {
                    self.error_at(
                        self.args.first().map_or(self.name_pos, |a| a.pos),
                        format!("the page size must not be negative, got {size}"),
                    )
                })?;
                Box::new(PageFilter::new(size))
            }
            "ColumnPaginationFilter" => {
                self.expect_count(&[2])?;
                Box::new(ColumnPaginationFilter::new(
                    self.count(0, "the limit")?,
                    self.count(1, "the offset")?,
                ))
            }
            "InclusiveStopFilter" => {
                self.expect_count(&[1])?;
                Box::new(InclusiveStopFilter::new(self.bytes(0)?))
            }
            "TimestampsFilter" => {
                let mut timestamps = Vec::with_capacity(self.args.len());
                for (i, arg) in self.args.iter().enumerate() {
                    let ts = self.long(i)?;
                    if ts < 0 {
                        return Err(self.error_at(
                            arg.pos,
                            format!("timestamps must not be negative, got {ts}"),
                        ));
                    }
                    timestamps.push(ts);
                }
                Box::new(
                    TimestampsFilter::new(timestamps)
                        .map_err(|e| self.error_at(self.name_pos, e.to_string()))?,
                )
            }
            "RowFilter" | "FamilyFilter" | "QualifierFilter" | "ValueFilter" => {
                self.expect_count(&[2])?;
                let (op, comparator) = self.op_and_comparator(0)?;
                match self.name {
                    "RowFilter" => Box::new(RowFilter::new(op, comparator)),
                    "FamilyFilter" => Box::new(FamilyFilter::new(op, comparator)),
                    "QualifierFilter" => Box::new(QualifierFilter::new(op, comparator)),
                    _ => Box::new(ValueFilter::new(op, comparator)),
                }
            }
            "ColumnRangeFilter" => {
                self.expect_count(&[4])?;
                // An empty bound is an open side, as in HBase.
                let min = Some(self.bytes(0)?).filter(|m| !m.is_empty());
                let min_inclusive = self.boolean(1)?;
                let max = Some(self.bytes(2)?).filter(|m| !m.is_empty());
                let max_inclusive = self.boolean(3)?;
                Box::new(ColumnRangeFilter::new(
                    min,
                    min_inclusive,
                    max,
                    max_inclusive,
                ))
            }
            "SingleColumnValueFilter" | "SingleColumnValueExcludeFilter" => {
                self.expect_count(&[4, 6])?;
                let family = self.bytes(0)?;
                let qualifier = self.bytes(1)?;
                let (op, comparator) = self.op_and_comparator(2)?;
                let (filter_if_missing, latest_version_only) = if self.args.len() == 6 {
                    (self.boolean(4)?, self.boolean(5)?)
                } else {
                    (false, true)
                };
                if self.name == "SingleColumnValueFilter" {
                    Box::new(
                        SingleColumnValueFilter::new(family, qualifier, op, comparator)
                            .with_filter_if_missing(filter_if_missing)
                            .with_latest_version_only(latest_version_only),
                    )
                } else {
                    Box::new(
                        SingleColumnValueExcludeFilter::new(family, qualifier, op, comparator)
                            .with_filter_if_missing(filter_if_missing)
                            .with_latest_version_only(latest_version_only),
                    )
                }
            }
            "ColumnValueFilter" => {
                self.expect_count(&[4])?;
                let family = self.bytes(0)?;
                let qualifier = self.bytes(1)?;
                let (op, comparator) = self.op_and_comparator(2)?;
                Box::new(ColumnValueFilter::new(family, qualifier, op, comparator))
            }
            "DependentColumnFilter" => {
                // HBase's createFilterFromArguments: (family, qualifier), plus
                // dropDependentColumn, plus an operator and comparator for the value.
                self.expect_count(&[2, 3, 5])?;
                let family = self.bytes(0)?;
                let qualifier = self.bytes(1)?;
                let drop = if self.args.len() >= 3 {
                    self.boolean(2)?
                } else {
                    false
                };
                if self.args.len() == 5 {
                    // Unlike the compare filters, HBase does not restrict regexstring and
                    // substring to = and != here.
                    let (op, comparator) = (self.compare_op(3)?, self.comparator(4)?);
                    Box::new(DependentColumnFilter::with_value_check(
                        family, qualifier, drop, op, comparator,
                    ))
                } else {
                    Box::new(DependentColumnFilter::with_drop(family, qualifier, drop))
                }
            }
            unknown => {
                let hint = SUPPORTED_FILTERS
                    .iter()
                    .find(|known| known.eq_ignore_ascii_case(unknown))
                    .map(|known| format!(" (did you mean {known}?)"))
                    .unwrap_or_default();
                return Err(FilterError::UnknownFilter {
                    name: unknown.to_owned(),
                    position: self.parser.char_pos(self.name_pos),
                    hint,
                });
            }
        };
        Ok(filter)
    }
}
