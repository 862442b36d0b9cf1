//! The lexer and parser of the shell language: the small, literal-only subset of Ruby that
//! HBase shell commands are written in. It turns text into [`Command`]s whose arguments are
//! [`Value`] trees; it evaluates nothing and knows no command names.
//!
//! What is accepted, following Ruby (and so HBase's JRuby shell):
//!
//! - **Statements** are `name arg, arg, ...` or `name(arg, ...)`, separated by newlines or `;`.
//!   A statement continues onto the next line after a `,` or `=>`, inside `()`, `[]` or `{}`,
//!   and after a `\` at the end of a line. `t = create ...` is accepted and the assignment
//!   dropped (HBase returns a table handle there; regionkv has none). `#` starts a comment that
//!   runs to the end of the line.
//! - **Strings**: `'...'` knows only the `\\` and `\'` escapes; `"..."` knows Ruby's escapes
//!   (`\n \t \s \r \a \b \e \f \v`, octal `\NNN`, `\xNN`, `\uNNNN`, `\u{...}`, `\cx`, `\C-x`,
//!   `\M-x`; any other escaped character stands for itself). Adjacent literals concatenate.
//!   `#{...}` interpolation is rejected rather than copied literally.
//! - **Numbers**: integers with an optional leading `-`, `_` between digits, and the `0x`, `0b`,
//!   `0o`/leading-`0` (octal) and `0d` prefixes; floats such as `1.5`, `-2e3`, `1_000.5`.
//! - `true`, `false`, `nil`; **constants** (identifiers starting with an upper-case letter:
//!   `VERSIONS`, `TTL`, `NAME`, ...); **arrays** `[a, b]`; **hashes** `{KEY => value, ...}`.
//!   A trailing `KEY => value, ...` list without braces in an argument list is one hash
//!   argument, as in Ruby (`alter 't1', NAME => 'f1', VERSIONS => 5`).
//!
//! Errors carry the line and column (1-based, columns counted in characters) where they were
//! found. [`completeness`] tells an interactive reader whether more lines are needed.

use std::fmt;

/// A position in the shell input: 1-based line and 1-based column, counted in characters.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub struct Pos {
    /// The line, from the first line number given to the parser.
    pub line: u32,
    /// The column, in characters, from 1.
    pub column: u32,
}

impl fmt::Display for Pos {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "line {}, column {}", self.line, self.column)
    }
}

/// A literal argument value.
#[derive(Debug, Clone, PartialEq)]
pub enum Value {
    /// A string: arbitrary bytes (double-quoted escapes can produce any byte).
    Str(Vec<u8>),
    /// An integer.
    Int(i64),
    /// A floating-point number.
    Float(f64),
    /// `true` or `false`.
    Bool(bool),
    /// `nil`.
    Nil,
    /// A bare constant such as `VERSIONS`.
    Const(String),
    /// A hash, its pairs in source order (duplicates are kept; commands decide).
    Hash(Vec<(Value, Value)>),
    /// An array.
    Array(Vec<Value>),
}

/// One parsed command: its name and its arguments.
#[derive(Debug, Clone, PartialEq)]
pub struct Command {
    /// The command name, as written (`put`, `create`, ...).
    pub name: String,
    /// The arguments in order; a trailing bare `KEY => value` list is one [`Value::Hash`].
    pub args: Vec<Value>,
    /// Where the command name starts.
    pub pos: Pos,
}

/// A syntax error and where it was found.
#[derive(Debug, Clone, PartialEq, thiserror::Error)]
#[error("syntax error, {kind} ({pos})")]
pub struct ParseError {
    /// What is wrong.
    pub kind: ErrorKind,
    /// Where: for an unterminated string its opening quote, otherwise the offending token.
    pub pos: Pos,
}

/// The kinds of syntax error.
#[derive(Debug, Clone, PartialEq, thiserror::Error)]
pub enum ErrorKind {
    /// A string literal is still open at the end of the input.
    #[error("unterminated string meets end of file")]
    UnterminatedString {
        /// The opening quote, `'` or `"`.
        quote: char,
    },
    /// The input ended where something else was required.
    #[error("unexpected end of input, expecting {expected}")]
    UnexpectedEnd {
        /// What was required.
        expected: &'static str,
    },
    /// A token appeared where it is not allowed.
    #[error("unexpected {found}, expecting {expected}")]
    Unexpected {
        /// The token found, described (`']'`, `string literal`, ...).
        found: String,
        /// What was allowed there.
        expected: &'static str,
    },
    /// A character that starts no token of the language.
    #[error("unexpected character {0:?}")]
    UnexpectedChar(char),
    /// A malformed escape sequence in a double-quoted string.
    #[error("{0}")]
    InvalidEscape(&'static str),
    /// `#{...}`, `#@var` or `#$var` inside a double-quoted string.
    #[error("string interpolation is not supported; write \\# for a literal '#'")]
    Interpolation,
    /// A malformed number.
    #[error("invalid number '{0}'")]
    InvalidNumber(String),
    /// An integer that does not fit in an `i64`.
    #[error("integer '{0}' is out of range for a 64-bit signed integer")]
    IntegerOutOfRange(String),
    /// A float whose magnitude is too large to represent.
    #[error("float '{0}' is out of range")]
    FloatOutOfRange(String),
    /// A lower-case identifier where a value was expected (an unquoted name, a variable).
    #[error("unexpected identifier '{0}', expecting a value (quote names: '{0}')")]
    BareIdentifier(String),
    /// Arrays and hashes nested deeper than [`MAX_NESTING`].
    #[error("arrays and hashes nest more than {limit} levels deep")]
    TooDeep {
        /// The limit.
        limit: usize,
    },
    /// `Const.method`: method calls such as `Bytes.toBytes(...)` are not supported.
    #[error("method calls such as {0}.method are not supported; write bytes as a \"\\xNN\" string")]
    MethodCall(String),
}

impl ErrorKind {
    /// Whether the error only says that the input stopped too early, so that more lines could
    /// complete it.
    pub fn is_at_end(&self) -> bool {
        matches!(
            self,
            ErrorKind::UnterminatedString { .. } | ErrorKind::UnexpectedEnd { .. }
        )
    }
}

/// Parses a whole input (one or more statements) into commands. `first_line` is the line
/// number of its first line, used in error positions.
pub fn parse_program(src: &str, first_line: u32) -> Result<Vec<Command>, ParseError> {
    let (tokens, error) = Lexer::new(src, first_line).run();
    if let Some(e) = error {
        return Err(e);
    }
    Parser {
        tokens,
        next: 0,
        depth: 0,
    }
    .program()
}

/// Whether an input is ready to run or needs more lines, as an interactive reader asks
/// before each new line.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Completeness {
    /// Parse it: it is complete, or broken in a way more input cannot fix.
    Complete,
    /// More input could complete it.
    Incomplete {
        /// How many brackets are open.
        depth: usize,
        /// The quote of the string literal left open, if any.
        quote: Option<char>,
    },
}

/// Says whether `src` is complete or needs more lines (an open string, bracket, or a trailing
/// `,`, `=>` or `\`).
pub fn completeness(src: &str) -> Completeness {
    let (tokens, lex_error) = Lexer::new(src, 1).run();
    // Counted before the parser takes the tokens (they may hold a huge string: no copy).
    let depth = tokens.iter().fold(0usize, |depth, t| match t.tok {
        Tok::LParen | Tok::LBracket | Tok::LBrace => depth + 1,
        Tok::RParen | Tok::RBracket | Tok::RBrace => depth.saturating_sub(1),
        _ => depth,
    });
    let error = match lex_error {
        Some(e) => e,
        None => match (Parser {
            tokens,
            next: 0,
            depth: 0,
        })
        .program()
        {
            Ok(_) => return Completeness::Complete,
            Err(e) => e,
        },
    };
    if !error.kind.is_at_end() {
        return Completeness::Complete;
    }
    let quote = match error.kind {
        ErrorKind::UnterminatedString { quote } => Some(quote),
        _ => None,
    };
    Completeness::Incomplete { depth, quote }
}

// ---------------------------------------------------------------------------------------------
// Lexer

/// A token.
#[derive(Debug, Clone, PartialEq)]
enum Tok {
    Str(Vec<u8>),
    Int(i64),
    Float(f64),
    /// An identifier starting with a lower-case letter or `_`.
    Ident(String),
    /// An identifier starting with an upper-case letter.
    Const(String),
    True,
    False,
    Nil,
    Comma,
    Arrow,
    Assign,
    Dot,
    LParen,
    RParen,
    LBracket,
    RBracket,
    LBrace,
    RBrace,
    Newline,
    Semi,
    Eof,
}

impl Tok {
    /// How an error message names this token.
    fn describe(&self) -> String {
        match self {
            Tok::Str(_) => "string literal".into(),
            Tok::Int(_) => "integer literal".into(),
            Tok::Float(_) => "float literal".into(),
            Tok::Ident(name) => format!("identifier '{name}'"),
            Tok::Const(name) => format!("constant '{name}'"),
            Tok::True => "'true'".into(),
            Tok::False => "'false'".into(),
            Tok::Nil => "'nil'".into(),
            Tok::Comma => "','".into(),
            Tok::Arrow => "'=>'".into(),
            Tok::Assign => "'='".into(),
            Tok::Dot => "'.'".into(),
            Tok::LParen => "'('".into(),
            Tok::RParen => "')'".into(),
            Tok::LBracket => "'['".into(),
            Tok::RBracket => "']'".into(),
            Tok::LBrace => "'{'".into(),
            Tok::RBrace => "'}'".into(),
            Tok::Newline => "end of line".into(),
            Tok::Semi => "';'".into(),
            Tok::Eof => "end of input".into(),
        }
    }
}

/// A token, where it starts, and whether whitespace precedes it.
#[derive(Debug, Clone, PartialEq)]
struct Token {
    tok: Tok,
    pos: Pos,
    spaced: bool,
}

/// The tokenizer, over the source text itself: `next` is a byte offset (always on a char
/// boundary), so a long line costs its own bytes once, not four bytes a char as a
/// `Vec<char>` copy would (a 60 MB line took 760 MB that way).
struct Lexer<'a> {
    src: &'a str,
    next: usize,
    line: u32,
    column: u32,
}

impl<'a> Lexer<'a> {
    fn new(src: &'a str, first_line: u32) -> Self {
        Lexer {
            src,
            next: 0,
            line: first_line,
            column: 1,
        }
    }

    fn pos(&self) -> Pos {
        Pos {
            line: self.line,
            column: self.column,
        }
    }

    fn peek(&self) -> Option<char> {
        self.peek_at(0)
    }

    fn peek_at(&self, ahead: usize) -> Option<char> {
        self.src.get(self.next..)?.chars().nth(ahead)
    }

    fn bump(&mut self) -> Option<char> {
        let c = self.peek()?;
        self.next += c.len_utf8();
        if c == '\n' {
            self.line += 1;
            self.column = 1;
        } else {
            self.column += 1;
        }
        Some(c)
    }

    fn text_from(&self, start: usize) -> String {
        self.src
            .get(start..self.next)
            .unwrap_or_default()
            .to_string()
    }

    /// Tokenizes everything; on error returns the tokens before it and the error.
    fn run(mut self) -> (Vec<Token>, Option<ParseError>) {
        let mut tokens = Vec::new();
        loop {
            let spaced = match self.skip_blanks() {
                Ok(spaced) => spaced,
                Err(e) => return (tokens, Some(e)),
            };
            let pos = self.pos();
            match self.token(pos) {
                Ok(tok) => {
                    let eof = tok == Tok::Eof;
                    tokens.push(Token { tok, pos, spaced });
                    if eof {
                        return (tokens, None);
                    }
                }
                Err(e) => return (tokens, Some(e)),
            }
        }
    }

    /// Skips spaces, comments and `\`-newline continuations; says whether anything was skipped.
    fn skip_blanks(&mut self) -> Result<bool, ParseError> {
        let start = self.next;
        loop {
            match self.peek() {
                Some(' ' | '\t' | '\r' | '\x0b' | '\x0c') => {
                    self.bump();
                }
                Some('#') => {
                    while self.peek().is_some_and(|c| c != '\n') {
                        self.bump();
                    }
                }
                Some('\\') => match self.peek_at(1) {
                    Some('\n') => {
                        self.bump();
                        self.bump();
                    }
                    Some('\r') if self.peek_at(2) == Some('\n') => {
                        self.bump();
                        self.bump();
                        self.bump();
                    }
                    None => {
                        return Err(ParseError {
                            kind: ErrorKind::UnexpectedEnd {
                                expected: "a line continuing after '\\'",
                            },
                            pos: self.pos(),
                        });
                    }
                    Some(_) => break,
                },
                _ => break,
            }
        }
        Ok(self.next > start)
    }

    fn token(&mut self, pos: Pos) -> Result<Tok, ParseError> {
        let Some(c) = self.peek() else {
            return Ok(Tok::Eof);
        };
        let single = match c {
            '\n' => Some(Tok::Newline),
            ';' => Some(Tok::Semi),
            ',' => Some(Tok::Comma),
            '.' => Some(Tok::Dot),
            '(' => Some(Tok::LParen),
            ')' => Some(Tok::RParen),
            '[' => Some(Tok::LBracket),
            ']' => Some(Tok::RBracket),
            '{' => Some(Tok::LBrace),
            '}' => Some(Tok::RBrace),
            _ => None,
        };
        if let Some(tok) = single {
            self.bump();
            return Ok(tok);
        }
        match c {
            '=' => {
                self.bump();
                match self.peek() {
                    Some('>') => {
                        self.bump();
                        Ok(Tok::Arrow)
                    }
                    Some('=') => Err(ParseError {
                        kind: ErrorKind::UnexpectedChar('='),
                        pos: self.pos(),
                    }),
                    _ => Ok(Tok::Assign),
                }
            }
            '\'' => self.single_quoted(pos),
            '"' => self.double_quoted(pos),
            '-' if self.peek_at(1).is_some_and(|d| d.is_ascii_digit()) => self.number(pos),
            '0'..='9' => self.number(pos),
            c if c.is_ascii_alphabetic() || c == '_' => Ok(self.identifier()),
            c => Err(ParseError {
                kind: ErrorKind::UnexpectedChar(c),
                pos,
            }),
        }
    }

    fn identifier(&mut self) -> Tok {
        let start = self.next;
        while self
            .peek()
            .is_some_and(|c| c.is_ascii_alphanumeric() || c == '_')
        {
            self.bump();
        }
        let word = self.text_from(start);
        match word.as_str() {
            "true" => Tok::True,
            "false" => Tok::False,
            "nil" => Tok::Nil,
            _ if word.starts_with(|c: char| c.is_ascii_uppercase()) => Tok::Const(word),
            _ => Tok::Ident(word),
        }
    }

    /// `'...'`: only `\\` and `\'` are escapes; any other backslash is kept as is.
    fn single_quoted(&mut self, open: Pos) -> Result<Tok, ParseError> {
        self.bump();
        let mut out = String::new();
        loop {
            match self.bump() {
                None => return Err(unterminated(open, '\'')),
                Some('\'') => return Ok(Tok::Str(out.into_bytes())),
                Some('\\') => match self.peek() {
                    Some(c @ ('\\' | '\'')) => {
                        self.bump();
                        out.push(c);
                    }
                    _ => out.push('\\'),
                },
                Some(c) => out.push(c),
            }
        }
    }

    /// `"..."` with Ruby's escapes.
    fn double_quoted(&mut self, open: Pos) -> Result<Tok, ParseError> {
        self.bump();
        let mut out = Vec::new();
        loop {
            let here = self.pos();
            match self.bump() {
                None => return Err(unterminated(open, '"')),
                Some('"') => return Ok(Tok::Str(out)),
                Some('\\') => self.escape(&mut out, here, open)?,
                Some('#') => {
                    let interpolates = match self.peek() {
                        Some('{') => true,
                        Some('@') => self
                            .peek_at(1)
                            .is_some_and(|c| c.is_ascii_alphabetic() || c == '_' || c == '@'),
                        Some('$') => self
                            .peek_at(1)
                            .is_some_and(|c| c.is_ascii_alphanumeric() || c == '_'),
                        _ => false,
                    };
                    if interpolates {
                        return Err(ParseError {
                            kind: ErrorKind::Interpolation,
                            pos: here,
                        });
                    }
                    out.push(b'#');
                }
                Some(c) => push_char(&mut out, c),
            }
        }
    }

    /// One escape after a `\` (already consumed, at `at`) inside a double-quoted string.
    fn escape(&mut self, out: &mut Vec<u8>, at: Pos, open: Pos) -> Result<(), ParseError> {
        let invalid = |msg| ParseError {
            kind: ErrorKind::InvalidEscape(msg),
            pos: at,
        };
        let Some(c) = self.bump() else {
            return Err(unterminated(open, '"'));
        };
        match c {
            'n' => out.push(b'\n'),
            't' => out.push(b'\t'),
            's' => out.push(b' '),
            'r' => out.push(b'\r'),
            'a' => out.push(0x07),
            'b' => out.push(0x08),
            'e' => out.push(0x1b),
            'f' => out.push(0x0c),
            'v' => out.push(0x0b),
            '\n' => {} // a line continuation inside the string
            '0'..='7' => {
                let mut value = c.to_digit(8).unwrap_or(0);
                for _ in 0..2 {
                    match self.peek().and_then(|d| d.to_digit(8)) {
                        Some(d) => {
                            self.bump();
                            value = value * 8 + d;
                        }
                        None => break,
                    }
                }
                // Ruby keeps the low 8 bits of "\400".."\777".
                out.push((value & 0xff) as u8);
            }
            'x' => {
                let mut value = 0;
                let mut digits = 0;
                while digits < 2 {
                    match self.peek().and_then(|d| d.to_digit(16)) {
                        Some(d) => {
                            self.bump();
                            value = value * 16 + d;
                            digits += 1;
                        }
                        None => break,
                    }
                }
                if digits == 0 {
                    return Err(invalid("invalid hex escape"));
                }
                out.push((value & 0xff) as u8);
            }
            'u' => self.unicode_escape(out, at)?,
            'c' => {
                let b = self.escaped_byte(at, open)?;
                out.push(control(b));
            }
            'C' => {
                if self.peek() != Some('-') {
                    return Err(invalid("invalid control escape"));
                }
                self.bump();
                let b = self.escaped_byte(at, open)?;
                out.push(control(b));
            }
            'M' => {
                if self.peek() != Some('-') {
                    return Err(invalid("invalid meta escape"));
                }
                self.bump();
                let b = self.escaped_byte(at, open)?;
                out.push(b | 0x80);
            }
            // Any other escaped character stands for itself: \" \\ \# \' ...
            other => push_char(out, other),
        }
        Ok(())
    }

    /// The single byte that `\c`, `\C-` or `\M-` modifies: an ASCII character or a nested
    /// escape that yields exactly one byte.
    fn escaped_byte(&mut self, at: Pos, open: Pos) -> Result<u8, ParseError> {
        let invalid = ParseError {
            kind: ErrorKind::InvalidEscape("invalid control or meta escape"),
            pos: at,
        };
        match self.bump() {
            None => Err(unterminated(open, '"')),
            Some('\\') => {
                let nested_at = self.pos();
                let mut nested = Vec::new();
                self.escape(&mut nested, nested_at, open)?;
                match nested.as_slice() {
                    [b] => Ok(*b),
                    _ => Err(invalid),
                }
            }
            Some(c) if c.is_ascii() && c != '"' => Ok(c as u8),
            Some(_) => Err(invalid),
        }
    }

    /// `\uXXXX` or `\u{X...}` (several code points separated by spaces), as UTF-8.
    fn unicode_escape(&mut self, out: &mut Vec<u8>, at: Pos) -> Result<(), ParseError> {
        let invalid = ParseError {
            kind: ErrorKind::InvalidEscape("invalid Unicode escape"),
            pos: at,
        };
        let mut push_code_point = |cp: u32| match char::from_u32(cp) {
            Some(ch) => {
                push_char(out, ch);
                Ok(())
            }
            None => Err(invalid.clone()),
        };
        if self.peek() == Some('{') {
            self.bump();
            let mut any = false;
            loop {
                while matches!(self.peek(), Some(' ' | '\t')) {
                    self.bump();
                }
                match self.peek() {
                    Some('}') => {
                        self.bump();
                        return if any { Ok(()) } else { Err(invalid.clone()) };
                    }
                    Some(c) if c.is_ascii_hexdigit() => {
                        let mut cp: u32 = 0;
                        let mut digits = 0;
                        while let Some(d) = self.peek().and_then(|c| c.to_digit(16)) {
                            self.bump();
                            digits += 1;
                            if digits > 6 {
                                return Err(invalid.clone());
                            }
                            cp = cp * 16 + d;
                        }
                        push_code_point(cp)?;
                        any = true;
                    }
                    _ => return Err(invalid.clone()),
                }
            }
        }
        let mut cp = 0;
        for _ in 0..4 {
            match self.peek().and_then(|d| d.to_digit(16)) {
                Some(d) => {
                    self.bump();
                    cp = cp * 16 + d;
                }
                None => return Err(invalid.clone()),
            }
        }
        push_code_point(cp)
    }

    /// An integer or float, with an optional leading `-` (Ruby's literal rules).
    fn number(&mut self, pos: Pos) -> Result<Tok, ParseError> {
        let start = self.next;
        let negative = self.peek() == Some('-');
        if negative {
            self.bump();
        }
        let err = |kind| ParseError { kind, pos };
        let radix_prefix = match (self.peek(), self.peek_at(1)) {
            (Some('0'), Some('x' | 'X')) => Some(16),
            (Some('0'), Some('b' | 'B')) => Some(2),
            (Some('0'), Some('o' | 'O')) => Some(8),
            (Some('0'), Some('d' | 'D')) => Some(10),
            _ => None,
        };
        let legacy_octal =
            self.peek() == Some('0') && matches!(self.peek_at(1), Some('0'..='9' | '_'));

        if radix_prefix.is_some() || legacy_octal {
            let radix = radix_prefix.unwrap_or(8);
            self.bump(); // '0'
            if radix_prefix.is_some() {
                self.bump(); // the radix letter
            }
            let body_start = self.next;
            self.eat_word();
            let body = self.text_from(body_start);
            if self.peek() == Some('.') && self.peek_at(1).is_some_and(|c| c.is_ascii_digit()) {
                self.bump();
                self.eat_word();
                return Err(err(ErrorKind::InvalidNumber(self.text_from(start))));
            }
            let text = self.text_from(start);
            return match digits_value(&body, radix) {
                Some(Ok(magnitude)) => to_int(magnitude, negative)
                    .map(Tok::Int)
                    .ok_or_else(|| err(ErrorKind::IntegerOutOfRange(text))),
                Some(Err(Overflow)) => Err(err(ErrorKind::IntegerOutOfRange(text))),
                None => Err(err(ErrorKind::InvalidNumber(text))),
            };
        }

        // Decimal: digits, then an optional fraction and exponent.
        let int_start = self.next;
        self.eat_digits();
        let int_part = self.text_from(int_start);
        let mut is_float = false;
        if self.peek() == Some('.') && self.peek_at(1).is_some_and(|c| c.is_ascii_digit()) {
            self.bump();
            self.eat_digits();
            is_float = true;
        }
        if matches!(self.peek(), Some('e' | 'E')) {
            let exponent_follows = match self.peek_at(1) {
                Some(c) if c.is_ascii_digit() => true,
                Some('+' | '-') => self.peek_at(2).is_some_and(|c| c.is_ascii_digit()),
                _ => false,
            };
            if exponent_follows {
                self.bump();
                if matches!(self.peek(), Some('+' | '-')) {
                    self.bump();
                }
                self.eat_digits();
                is_float = true;
            }
        }
        if self
            .peek()
            .is_some_and(|c| c.is_ascii_alphanumeric() || c == '_')
        {
            self.eat_word();
            return Err(err(ErrorKind::InvalidNumber(self.text_from(start))));
        }
        let text = self.text_from(start);
        if !is_float {
            return match digits_value(&int_part, 10) {
                Some(Ok(magnitude)) => to_int(magnitude, negative)
                    .map(Tok::Int)
                    .ok_or_else(|| err(ErrorKind::IntegerOutOfRange(text))),
                Some(Err(Overflow)) => Err(err(ErrorKind::IntegerOutOfRange(text))),
                None => Err(err(ErrorKind::InvalidNumber(text))),
            };
        }
        if !underscores_between_digits(&text) {
            return Err(err(ErrorKind::InvalidNumber(text)));
        }
        let plain: String = text.chars().filter(|&c| c != '_').collect();
        match plain.parse::<f64>() {
            Ok(f) if f.is_finite() => Ok(Tok::Float(f)),
            Ok(_) => Err(err(ErrorKind::FloatOutOfRange(text))),
            Err(_) => Err(err(ErrorKind::InvalidNumber(text))),
        }
    }

    fn eat_digits(&mut self) {
        while self.peek().is_some_and(|c| c.is_ascii_digit() || c == '_') {
            self.bump();
        }
    }

    fn eat_word(&mut self) {
        while self
            .peek()
            .is_some_and(|c| c.is_ascii_alphanumeric() || c == '_')
        {
            self.bump();
        }
    }
}

fn unterminated(open: Pos, quote: char) -> ParseError {
    ParseError {
        kind: ErrorKind::UnterminatedString { quote },
        pos: open,
    }
}

fn push_char(out: &mut Vec<u8>, c: char) {
    let mut buf = [0; 4];
    out.extend_from_slice(c.encode_utf8(&mut buf).as_bytes());
}

/// Ruby's `\cx`: `?` is DEL, anything else keeps bits 0-4 and the meta bit.
fn control(b: u8) -> u8 {
    if b == b'?' { 0x7f } else { b & 0x9f }
}

/// An integer literal too large even for the parser's wide accumulator.
struct Overflow;

/// The value of `body` in `radix`: `None` if malformed (empty, a non-digit, or an `_` that is
/// not between two digits), `Some(Err)` if it overflows `u128`.
fn digits_value(body: &str, radix: u32) -> Option<Result<u128, Overflow>> {
    if body.is_empty() || !underscores_between_digits(body) {
        return None;
    }
    let mut value: u128 = 0;
    let mut overflow = false;
    for c in body.chars().filter(|&c| c != '_') {
        let d = c.to_digit(radix)?;
        match value
            .checked_mul(u128::from(radix))
            .and_then(|v| v.checked_add(u128::from(d)))
        {
            Some(v) => value = v,
            None => overflow = true,
        }
    }
    Some(if overflow { Err(Overflow) } else { Ok(value) })
}

/// Whether every `_` in `text` has an alphanumeric digit on both sides.
fn underscores_between_digits(text: &str) -> bool {
    let b = text.as_bytes();
    b.iter().enumerate().all(|(i, &c)| {
        c != b'_'
            || (i > 0
                && b.get(i - 1).is_some_and(u8::is_ascii_alphanumeric)
                && b.get(i + 1).is_some_and(u8::is_ascii_alphanumeric))
    })
}

fn to_int(magnitude: u128, negative: bool) -> Option<i64> {
    if negative {
        i64::try_from(-i128::try_from(magnitude).ok()?).ok()
    } else {
        i64::try_from(magnitude).ok()
    }
}

// ---------------------------------------------------------------------------------------------
// Parser

/// Where an argument list ends.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Close {
    /// At the end of the statement (a newline, `;` or the end of input).
    Statement,
    /// At `)`.
    Paren,
    /// At `]`.
    Bracket,
}

struct Parser {
    /// Always ends with a [`Tok::Eof`] token.
    tokens: Vec<Token>,
    next: usize,
    /// Arrays and hashes open around the value being parsed (at most [`MAX_NESTING`]).
    depth: usize,
}

/// How deep arrays and hashes may nest in one value. The parser recurses once per level,
/// so without a bound a line of `[[[[...` would overflow the stack; HBase shell arguments
/// nest two or three levels (`{COLUMNS => ['cf:a'], FILTER => ...}`).
pub const MAX_NESTING: usize = 64;

const EOF_TOKEN: Token = Token {
    tok: Tok::Eof,
    pos: Pos { line: 0, column: 0 },
    spaced: false,
};

impl Parser {
    fn peek_token(&self) -> &Token {
        self.tokens
            .get(self.next)
            .or_else(|| self.tokens.last())
            .unwrap_or(&EOF_TOKEN)
    }

    fn peek(&self) -> &Tok {
        &self.peek_token().tok
    }

    /// The next token, moved out (a string token may be megabytes: no copy); the parser
    /// never goes back, and the final `Eof` stays for [`Self::peek_token`].
    fn advance(&mut self) -> Token {
        if self.next + 1 < self.tokens.len() {
            let slot = &mut self.tokens[self.next];
            let token = std::mem::replace(
                slot,
                Token {
                    tok: Tok::Nil,
                    pos: slot.pos,
                    spaced: slot.spaced,
                },
            );
            self.next += 1;
            return token;
        }
        let token = self.peek_token().clone();
        if self.next < self.tokens.len() {
            self.next += 1;
        }
        token
    }

    fn skip_newlines(&mut self) {
        while *self.peek() == Tok::Newline {
            self.advance();
        }
    }

    /// The error for `token` appearing where `expected` was required.
    fn unexpected(token: &Token, expected: &'static str) -> ParseError {
        let kind = match &token.tok {
            Tok::Eof => ErrorKind::UnexpectedEnd { expected },
            Tok::Ident(name) if expected == "a value" => ErrorKind::BareIdentifier(name.clone()),
            tok => ErrorKind::Unexpected {
                found: tok.describe(),
                expected,
            },
        };
        ParseError {
            kind,
            pos: token.pos,
        }
    }

    fn program(&mut self) -> Result<Vec<Command>, ParseError> {
        let mut commands = Vec::new();
        loop {
            while matches!(self.peek(), Tok::Newline | Tok::Semi) {
                self.advance();
            }
            if *self.peek() == Tok::Eof {
                return Ok(commands);
            }
            commands.push(self.statement()?);
            match self.peek() {
                Tok::Newline | Tok::Semi | Tok::Eof => {}
                _ => {
                    return Err(Self::unexpected(
                        self.peek_token(),
                        "',' or the end of the statement",
                    ));
                }
            }
        }
    }

    fn statement(&mut self) -> Result<Command, ParseError> {
        let mut first = self.advance();
        let name = match &first.tok {
            Tok::Ident(name) => name.clone(),
            Tok::Const(name) if *self.peek() == Tok::Dot => {
                return Err(ParseError {
                    kind: ErrorKind::MethodCall(name.clone()),
                    pos: first.pos,
                });
            }
            _ => return Err(Self::unexpected(&first, "a command name")),
        };
        let name = if *self.peek() == Tok::Assign {
            // `t = create ...`: HBase hands back a table handle; we keep only the command.
            self.advance();
            first = self.advance();
            match &first.tok {
                Tok::Ident(name) => name.clone(),
                _ => return Err(Self::unexpected(&first, "a command name after '='")),
            }
        } else {
            name
        };
        let after = self.peek_token();
        let args = match after.tok {
            Tok::LParen if !after.spaced => {
                self.advance();
                self.list(Close::Paren)?
            }
            Tok::Newline | Tok::Semi | Tok::Eof => Vec::new(),
            Tok::Dot => {
                return Err(ParseError {
                    kind: ErrorKind::Unexpected {
                        found: "'.'".into(),
                        expected: "arguments (table handles such as t.put are not supported)",
                    },
                    pos: after.pos,
                });
            }
            _ => self.list(Close::Statement)?,
        };
        Ok(Command {
            name,
            args,
            pos: first.pos,
        })
    }

    /// A comma-separated list of values, ending as `close` says. A trailing run of
    /// `key => value` items becomes one hash, the list's last element.
    fn list(&mut self, close: Close) -> Result<Vec<Value>, ParseError> {
        let (closer, expected_sep) = match close {
            Close::Statement => (None, "',' or the end of the statement"),
            Close::Paren => (Some(Tok::RParen), "',' or ')'"),
            Close::Bracket => (Some(Tok::RBracket), "',' or ']'"),
        };
        let nested = closer.is_some();
        let mut items = Vec::new();
        let mut pairs: Option<Vec<(Value, Value)>> = None;
        loop {
            if nested {
                self.skip_newlines();
                if Some(self.peek()) == closer.as_ref() {
                    self.advance();
                    break;
                }
            }
            let item = self.value()?;
            if nested {
                self.skip_newlines();
            }
            if *self.peek() == Tok::Arrow {
                self.advance();
                self.skip_newlines();
                let value = self.value()?;
                pairs.get_or_insert_with(Vec::new).push((item, value));
                if nested {
                    self.skip_newlines();
                }
            } else if pairs.is_some() {
                return Err(Self::unexpected(
                    self.peek_token(),
                    "'=>' (a bare KEY => value list must come last)",
                ));
            } else {
                items.push(item);
            }
            match self.peek() {
                Tok::Comma => {
                    self.advance();
                    if !nested {
                        // A trailing comma continues the statement on the next line.
                        self.skip_newlines();
                    }
                }
                tok if nested && Some(tok) == closer.as_ref() => {
                    self.advance();
                    break;
                }
                Tok::Newline | Tok::Semi | Tok::Eof if !nested => break,
                _ => return Err(Self::unexpected(self.peek_token(), expected_sep)),
            }
        }
        if let Some(pairs) = pairs {
            items.push(Value::Hash(pairs));
        }
        Ok(items)
    }

    fn value(&mut self) -> Result<Value, ParseError> {
        let token = self.advance();
        match token.tok {
            Tok::Str(mut bytes) => {
                // Adjacent literals concatenate: 'a' "b" is "ab".
                while let Tok::Str(more) = self.peek() {
                    bytes.extend_from_slice(more);
                    self.advance();
                }
                Ok(Value::Str(bytes))
            }
            Tok::Int(i) => Ok(Value::Int(i)),
            Tok::Float(f) => Ok(Value::Float(f)),
            Tok::True => Ok(Value::Bool(true)),
            Tok::False => Ok(Value::Bool(false)),
            Tok::Nil => Ok(Value::Nil),
            Tok::Const(name) => {
                if *self.peek() == Tok::Dot {
                    return Err(ParseError {
                        kind: ErrorKind::MethodCall(name),
                        pos: token.pos,
                    });
                }
                Ok(Value::Const(name))
            }
            Tok::LBracket | Tok::LBrace => {
                if self.depth >= MAX_NESTING {
                    return Err(ParseError {
                        kind: ErrorKind::TooDeep { limit: MAX_NESTING },
                        pos: token.pos,
                    });
                }
                self.depth += 1;
                let value = if token.tok == Tok::LBracket {
                    self.list(Close::Bracket).map(Value::Array)
                } else {
                    self.hash().map(Value::Hash)
                };
                self.depth -= 1;
                value
            }
            _ => Err(Self::unexpected(&token, "a value")),
        }
    }

    /// The pairs of a `{...}` hash, after its `{`.
    fn hash(&mut self) -> Result<Vec<(Value, Value)>, ParseError> {
        let mut pairs = Vec::new();
        loop {
            self.skip_newlines();
            if *self.peek() == Tok::RBrace {
                self.advance();
                return Ok(pairs);
            }
            let key = self.value()?;
            self.skip_newlines();
            if *self.peek() != Tok::Arrow {
                return Err(Self::unexpected(self.peek_token(), "'=>'"));
            }
            self.advance();
            self.skip_newlines();
            let value = self.value()?;
            pairs.push((key, value));
            self.skip_newlines();
            match self.peek() {
                Tok::Comma => {
                    self.advance();
                }
                Tok::RBrace => {
                    self.advance();
                    return Ok(pairs);
                }
                _ => return Err(Self::unexpected(self.peek_token(), "',' or '}'")),
            }
        }
    }
}

#[cfg(test)]
#[allow(clippy::unwrap_used)]
mod tests {
    use super::*;

    fn s(text: &str) -> Value {
        Value::Str(text.as_bytes().to_vec())
    }

    fn c(name: &str) -> Value {
        Value::Const(name.into())
    }

    /// The arguments of the single command in `src`.
    fn args(src: &str) -> Vec<Value> {
        let mut commands = parse_program(src, 1).unwrap();
        assert_eq!(commands.len(), 1, "{src}");
        commands.remove(0).args
    }

    /// The one value in `cmd VALUE`.
    fn one(value_src: &str) -> Value {
        let mut a = args(&format!("cmd {value_src}"));
        assert_eq!(a.len(), 1, "{value_src}");
        a.remove(0)
    }

    fn err(src: &str) -> ParseError {
        parse_program(src, 1).unwrap_err()
    }

    fn at(line: u32, column: u32) -> Pos {
        Pos { line, column }
    }

    #[test]
    fn single_quoted_strings_know_only_two_escapes() {
        assert_eq!(one("'abc'"), s("abc"));
        assert_eq!(one("''"), s(""));
        assert_eq!(one(r"'it\'s'"), s("it's"));
        assert_eq!(one(r"'back\\slash'"), s(r"back\slash"));
        assert_eq!(one(r"'\n\x41'"), s(r"\n\x41"));
        assert_eq!(one("'a#{b}'"), s("a#{b}"));
        assert_eq!(one("'two\nlines'"), s("two\nlines"));
        assert_eq!(one("'héllo'"), s("héllo"));
    }

    #[test]
    fn double_quoted_strings_know_ruby_escapes() {
        assert_eq!(one(r#""a\nb\tc""#), s("a\nb\tc"));
        assert_eq!(one(r#""\s\r\a\b\e\f\v""#), s(" \r\x07\x08\x1b\x0c\x0b"));
        assert_eq!(one(r#""q\"uote\\""#), s("q\"uote\\"));
        assert_eq!(
            one(r#""key\x03\x3f\xcd""#),
            Value::Str(b"key\x03\x3f\xcd".to_vec())
        );
        assert_eq!(one(r#""\xA""#), Value::Str(vec![0x0a]));
        assert_eq!(one(r#""\xfff""#), Value::Str(vec![0xff, b'f']));
        assert_eq!(
            one(r#""key\003\023\011""#),
            Value::Str(b"key\x03\x13\x09".to_vec())
        );
        assert_eq!(one(r#""\0""#), Value::Str(vec![0]));
        assert_eq!(one(r#""\08""#), Value::Str(vec![0, b'8']));
        assert_eq!(one(r#""\777""#), Value::Str(vec![0xff]));
        assert_eq!(one(r#""\u00e9\u{1F600 41}""#), s("é😀A"));
        assert_eq!(one(r#""\ca\C-z\c?""#), Value::Str(vec![0x01, 0x1a, 0x7f]));
        assert_eq!(one(r#""\M-a\M-\C-a""#), Value::Str(vec![0xe1, 0x81]));
        assert_eq!(one(r#""\q\#\'""#), s("q#'"));
        assert_eq!(one("\"cont\\\ninued\""), s("continued"));
        assert_eq!(one(r##""#x # #@ #$""##), s("#x # #@ #$"));
    }

    #[test]
    fn adjacent_string_literals_concatenate() {
        assert_eq!(one(r#"'ab' "c\x21" 'd'"#), s("abc!d"));
    }

    #[test]
    fn integers_follow_ruby() {
        assert_eq!(one("0"), Value::Int(0));
        assert_eq!(one("42"), Value::Int(42));
        assert_eq!(one("-7"), Value::Int(-7));
        assert_eq!(one("1_000_000"), Value::Int(1_000_000));
        assert_eq!(one("0x1F"), Value::Int(31));
        assert_eq!(one("-0xff"), Value::Int(-255));
        assert_eq!(one("0b1010"), Value::Int(10));
        assert_eq!(one("0o17"), Value::Int(15));
        assert_eq!(one("017"), Value::Int(15));
        assert_eq!(one("0d19"), Value::Int(19));
        assert_eq!(one("9223372036854775807"), Value::Int(i64::MAX));
        assert_eq!(one("-9223372036854775808"), Value::Int(i64::MIN));
    }

    #[test]
    fn floats_follow_ruby() {
        assert_eq!(one("1.5"), Value::Float(1.5));
        assert_eq!(one("-0.25"), Value::Float(-0.25));
        assert_eq!(one("2e3"), Value::Float(2000.0));
        assert_eq!(one("1.5E-2"), Value::Float(0.015));
        assert_eq!(one("1_000.5"), Value::Float(1000.5));
        assert_eq!(one("6e+1"), Value::Float(60.0));
    }

    #[test]
    fn keywords_and_constants() {
        assert_eq!(
            args("cmd true, false, nil, VERSIONS, TTL, KeepDeleted"),
            [
                Value::Bool(true),
                Value::Bool(false),
                Value::Nil,
                c("VERSIONS"),
                c("TTL"),
                c("KeepDeleted"),
            ]
        );
    }

    #[test]
    fn nesting_is_bounded_not_a_stack_overflow() {
        let deep = |n: usize| format!("put 't', 'r', 'cf:q', {}1{}", "[".repeat(n), "]".repeat(n));
        assert!(parse_program(&deep(MAX_NESTING), 1).is_ok());
        let err = parse_program(&deep(MAX_NESTING + 1), 1).unwrap_err();
        assert_eq!(err.kind, ErrorKind::TooDeep { limit: MAX_NESTING });
        let err = parse_program(&deep(1_000_000), 1).unwrap_err();
        assert_eq!(err.kind, ErrorKind::TooDeep { limit: MAX_NESTING });
        let hashes = format!(
            "scan 't', {}{}",
            "{'a' => ".repeat(100_000),
            "1}".repeat(100_000)
        );
        assert!(matches!(
            parse_program(&hashes, 1).unwrap_err().kind,
            ErrorKind::TooDeep { .. }
        ));
    }

    #[test]
    fn arrays_and_hashes_nest() {
        assert_eq!(one("[]"), Value::Array(vec![]));
        assert_eq!(one("{}"), Value::Hash(vec![]));
        assert_eq!(
            one("['10', '20', [1, [2]],]"),
            Value::Array(vec![
                s("10"),
                s("20"),
                Value::Array(vec![Value::Int(1), Value::Array(vec![Value::Int(2)])]),
            ])
        );
        assert_eq!(
            one("{NAME => 'f1', 'k' => {CONFIGURATION => {'a.b' => '1'}}, VERSIONS => 5,}"),
            Value::Hash(vec![
                (c("NAME"), s("f1")),
                (
                    s("k"),
                    Value::Hash(vec![(
                        c("CONFIGURATION"),
                        Value::Hash(vec![(s("a.b"), s("1"))])
                    )])
                ),
                (c("VERSIONS"), Value::Int(5)),
            ])
        );
        // A bare pair inside an array is a trailing hash element, as in Ruby.
        assert_eq!(
            one("[1, A => 2]"),
            Value::Array(vec![
                Value::Int(1),
                Value::Hash(vec![(c("A"), Value::Int(2))])
            ])
        );
    }

    #[test]
    fn a_trailing_bare_pair_list_is_one_hash_argument() {
        let cmds = parse_program("alter 't1', NAME => 'f1', VERSIONS => 5", 1).unwrap();
        assert_eq!(
            cmds,
            [Command {
                name: "alter".into(),
                args: vec![
                    s("t1"),
                    Value::Hash(vec![(c("NAME"), s("f1")), (c("VERSIONS"), Value::Int(5))]),
                ],
                pos: at(1, 1),
            }]
        );
        assert_eq!(
            args("alter 't1', 'delete' => 'f1'"),
            [s("t1"), Value::Hash(vec![(s("delete"), s("f1"))])]
        );
        let e = err("alter 't1', NAME => 'f1', 'x'");
        assert_eq!(e.pos, at(1, 30));
        assert!(e.to_string().contains("must come last"), "{e}");
    }

    #[test]
    fn hbase_shell_statements() {
        let src = "create 't1', {NAME => 'f1', VERSIONS => 5, MIN_VERSIONS => 1, \
                   TTL => 2592000, KEEP_DELETED_CELLS => 'TTL', IN_MEMORY => true}, \
                   SPLITS => ['10', '20']";
        assert_eq!(
            args(src),
            [
                s("t1"),
                Value::Hash(vec![
                    (c("NAME"), s("f1")),
                    (c("VERSIONS"), Value::Int(5)),
                    (c("MIN_VERSIONS"), Value::Int(1)),
                    (c("TTL"), Value::Int(2_592_000)),
                    (c("KEEP_DELETED_CELLS"), s("TTL")),
                    (c("IN_MEMORY"), Value::Bool(true)),
                ]),
                Value::Hash(vec![(c("SPLITS"), Value::Array(vec![s("10"), s("20")]))]),
            ]
        );
        assert_eq!(
            args(
                "scan 't1', {COLUMNS => ['f1:c1'], LIMIT => 10, REVERSED => true, FILTER => \"PrefixFilter('p')\"}"
            ),
            [
                s("t1"),
                Value::Hash(vec![
                    (c("COLUMNS"), Value::Array(vec![s("f1:c1")])),
                    (c("LIMIT"), Value::Int(10)),
                    (c("REVERSED"), Value::Bool(true)),
                    (c("FILTER"), s("PrefixFilter('p')")),
                ])
            ]
        );
        assert_eq!(
            args("put 't1', \"r\\x001\", 'f1:c1', 'value', 1421762485768"),
            [
                s("t1"),
                Value::Str(b"r\x001".to_vec()),
                s("f1:c1"),
                s("value"),
                Value::Int(1_421_762_485_768),
            ]
        );
    }

    #[test]
    fn statements_split_on_newlines_and_semicolons() {
        let cmds = parse_program("version; list\n\n  help 'dml' ;; exit\n", 1).unwrap();
        let names: Vec<_> = cmds.iter().map(|c| c.name.as_str()).collect();
        assert_eq!(names, ["version", "list", "help", "exit"]);
        assert_eq!(cmds[1].pos, at(1, 10));
        assert_eq!(cmds[2].pos, at(3, 3));
        assert_eq!(cmds[2].args, [s("dml")]);
        assert!(parse_program("", 1).unwrap().is_empty());
        assert!(parse_program("  \n ; # nothing\n", 1).unwrap().is_empty());
    }

    #[test]
    fn statements_continue_after_commas_arrows_brackets_and_backslashes() {
        let cmds = parse_program(
            "create 't1',\n  {NAME =>\n 'f1',\n VERSIONS\n => 3\n }\nput 't1', \\\n 'r1'",
            1,
        )
        .unwrap();
        assert_eq!(cmds.len(), 2);
        assert_eq!(
            cmds[0].args,
            [
                s("t1"),
                Value::Hash(vec![(c("NAME"), s("f1")), (c("VERSIONS"), Value::Int(3))])
            ]
        );
        assert_eq!(cmds[1].args, [s("t1"), s("r1")]);
        assert_eq!(cmds[1].pos, at(7, 1));
        assert_eq!(
            args("cmd [\n1,\n2\n]"),
            [Value::Array(vec![Value::Int(1), Value::Int(2)])]
        );
    }

    #[test]
    fn comments_run_to_the_end_of_the_line_outside_strings() {
        let cmds = parse_program(
            "# a script\nput 't1', 'r#1' # the row\n# done\nget 't1', \"#x\"",
            1,
        )
        .unwrap();
        assert_eq!(cmds.len(), 2);
        assert_eq!(cmds[0].args, [s("t1"), s("r#1")]);
        assert_eq!(cmds[1].args, [s("t1"), s("#x")]);
        assert_eq!(
            args("cmd [1, # one\n 2]"),
            [Value::Array(vec![Value::Int(1), Value::Int(2)])]
        );
    }

    #[test]
    fn parenthesised_calls_and_assignments() {
        assert_eq!(args("create('t1', 'f1')"), [s("t1"), s("f1")]);
        assert_eq!(args("list()"), Vec::<Value>::new());
        assert_eq!(
            args("get('t1', 'r1', COLUMN => 'c')"),
            [s("t1"), s("r1"), Value::Hash(vec![(c("COLUMN"), s("c"))])]
        );
        let cmds = parse_program("t = create 't1', 'f1'", 1).unwrap();
        assert_eq!(cmds[0].name, "create");
        assert_eq!(cmds[0].args, [s("t1"), s("f1")]);
        assert_eq!(cmds[0].pos, at(1, 5));
    }

    #[test]
    fn unterminated_strings_name_the_opening_quote() {
        let e = err("put 't1', 'r1");
        assert_eq!(e.kind, ErrorKind::UnterminatedString { quote: '\'' });
        assert_eq!(e.pos, at(1, 11));
        assert_eq!(
            e.to_string(),
            "syntax error, unterminated string meets end of file (line 1, column 11)"
        );
        let e = parse_program("version\nget \"abc\\\"", 7).unwrap_err();
        assert_eq!(e.kind, ErrorKind::UnterminatedString { quote: '"' });
        assert_eq!(e.pos, at(8, 5));
    }

    #[test]
    fn errors_carry_positions() {
        let cases: &[(&str, Pos, &str)] = &[
            (
                "put 't1' 'r1'\nput 't1', ]",
                at(2, 11),
                "unexpected ']', expecting a value",
            ),
            (
                "scan 't1', {LIMIT = 1}",
                at(1, 19),
                "unexpected '=', expecting '=>'",
            ),
            (
                "scan 't1', {LIMIT => 1",
                at(1, 23),
                "unexpected end of input, expecting ',' or '}'",
            ),
            (
                "get 't1' 'r1' ]",
                at(1, 15),
                "unexpected ']', expecting ',' or the end of the statement",
            ),
            (
                "put 't1', [1, 2",
                at(1, 16),
                "unexpected end of input, expecting ',' or ']'",
            ),
            ("put 't1', @x", at(1, 11), "unexpected character '@'"),
            (
                "'t1'",
                at(1, 1),
                "unexpected string literal, expecting a command name",
            ),
            (
                "put t1, 'r'",
                at(1, 5),
                "unexpected identifier 't1', expecting a value (quote names: 't1')",
            ),
            (
                "put 't1',",
                at(1, 10),
                "unexpected end of input, expecting a value",
            ),
            (
                "put 't1', ;",
                at(1, 11),
                "unexpected ';', expecting a value",
            ),
            (
                "get 't', Bytes.toBytes(1)",
                at(1, 10),
                "method calls such as Bytes.method are not supported",
            ),
            (
                "t.put 'r1'",
                at(1, 2),
                "table handles such as t.put are not supported",
            ),
            ("put \"\\xZZ\"", at(1, 6), "invalid hex escape"),
            ("put \"\\u12\"", at(1, 6), "invalid Unicode escape"),
            ("put \"\\u{D800}\"", at(1, 6), "invalid Unicode escape"),
            (
                "put \"a#{1}\"",
                at(1, 7),
                "string interpolation is not supported",
            ),
            (
                "put \"#@var\"",
                at(1, 6),
                "string interpolation is not supported",
            ),
            ("put 1__0", at(1, 5), "invalid number '1__0'"),
            ("put 10_", at(1, 5), "invalid number '10_'"),
            ("put 12ab", at(1, 5), "invalid number '12ab'"),
            ("put 08", at(1, 5), "invalid number '08'"),
            ("put 0x", at(1, 5), "invalid number '0x'"),
            (
                "put 9223372036854775808",
                at(1, 5),
                "integer '9223372036854775808' is out of range",
            ),
            ("put -9223372036854775809", at(1, 5), "is out of range"),
            ("put 1e999", at(1, 5), "float '1e999' is out of range"),
            ("put 'a' == 'b'", at(1, 10), "unexpected character '='"),
            ("t = 'x'", at(1, 5), "expecting a command name after '='"),
        ];
        for (src, pos, message) in cases {
            let e = err(src);
            assert_eq!(e.pos, *pos, "{src}: {e}");
            let text = e.to_string();
            assert!(text.starts_with("syntax error, "), "{src}: {text}");
            assert!(text.contains(message), "{src}: {text}");
            assert!(text.ends_with(&format!("({pos})")), "{src}: {text}");
        }
    }

    #[test]
    fn completeness_asks_for_more_only_when_more_could_help() {
        use Completeness::{Complete, Incomplete};
        assert_eq!(completeness(""), Complete);
        assert_eq!(completeness("version"), Complete);
        assert_eq!(completeness("put 't1' ]"), Complete);
        assert_eq!(completeness("put \"\\xZZ"), Complete);
        assert_eq!(
            completeness("put 't1', 'r"),
            Incomplete {
                depth: 0,
                quote: Some('\'')
            }
        );
        assert_eq!(
            completeness("create 't1', {NAME => \"f"),
            Incomplete {
                depth: 1,
                quote: Some('"')
            }
        );
        assert_eq!(
            completeness("create 't1', {NAME => ['a',"),
            Incomplete {
                depth: 2,
                quote: None
            }
        );
        assert_eq!(
            completeness("put 't1',"),
            Incomplete {
                depth: 0,
                quote: None
            }
        );
        assert_eq!(
            completeness("alter 't1', NAME =>"),
            Incomplete {
                depth: 0,
                quote: None
            }
        );
        assert_eq!(
            completeness("put 't1', \\"),
            Incomplete {
                depth: 0,
                quote: None
            }
        );
        assert_eq!(
            completeness("list(\n"),
            Incomplete {
                depth: 1,
                quote: None
            }
        );
        assert_eq!(completeness("create 't1', {NAME => 'f'}\n"), Complete);
    }

    #[test]
    fn parsing_arbitrary_input_never_panics() {
        let samples = [
            "",
            "\\",
            "\"",
            "'",
            "\"\\",
            "\"\\x",
            "\"\\u{",
            "\"\\u{1",
            "\"\\M-",
            "\"\\C",
            "\"\\c",
            "-",
            "-x",
            "0",
            "0_",
            "0b",
            "1.",
            "1.e5",
            "1e",
            "1e+",
            "{",
            "}",
            "[",
            "]",
            "(",
            ")",
            "=",
            "=>",
            ",",
            ".",
            "a(",
            "a (1)",
            "a=",
            "a = b = c",
            "A",
            "A.",
            "\u{0}",
            "é",
            "a {",
            "a {1 => }",
            "a [,]",
            "a {,}",
            "a 1 => 2 => 3",
            "a\r\n",
            "\"#",
            "\"#{",
        ];
        for src in samples {
            let _ = parse_program(src, 1);
            let _ = completeness(src);
        }
    }
}
