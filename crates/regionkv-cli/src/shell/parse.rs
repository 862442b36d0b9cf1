//! The lexer of the shell language (Ruby, as HBase's JRuby shell reads it), the literal
//! [`Value`]s commands take as arguments, and the syntax errors of the language. The grammar
//! over these tokens is in `grammar.rs`; it evaluates nothing and knows no command names.
//!
//! What the lexer reads, following Ruby:
//!
//! - **Strings**: `'...'` knows only the `\\` and `\'` escapes; `"..."` knows Ruby's escapes
//!   (`\n \t \s \r \a \b \e \f \v`, octal `\NNN`, `\xNN`, `\uNNNN`, `\u{...}`, `\cx`, `\C-x`,
//!   `\M-x`; any other escaped character stands for itself) and `#{...}` interpolation, whose
//!   code is lexed in place into its own tokens.
//! - **Numbers**: integers with `_` between digits and the `0x`, `0b`, `0o`/leading-`0` (octal)
//!   and `0d` prefixes; floats such as `1.5`, `2e3`, `1_000.5`. A `-` right before a digit is
//!   the literal's sign unless it follows a value with no space between (`x-1` subtracts);
//!   the parser decides the rest (`x -1` subtracts when `x` is a variable).
//! - Identifiers (`empty?` and `reverse!` included), constants, `:symbols`, `label:` hash
//!   keys, Ruby's keywords, operators, and the punctuation of calls, arrays, hashes, blocks
//!   and ranges. `#` starts a comment that runs to the end of the line; a `\` at the end of a
//!   line continues it.
//!
//! Errors carry the line and column (1-based, columns counted in characters) where they were
//! found.

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
    /// `#@var` or `#$var` inside a double-quoted string.
    #[error(
        "interpolation of instance and global variables is not supported by regionkv; write \\# for a literal '#'"
    )]
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
    /// Expressions nested deeper (or chained longer) than the parser's limit.
    #[error("expressions nest or chain more than {limit} levels deep")]
    TooDeep {
        /// The limit.
        limit: usize,
    },
    /// Ruby the shell does not run: what it is and what to do instead.
    #[error("{0} is not supported by regionkv's shell: {1} (SHELL.md lists the Ruby it runs)")]
    Unsupported(&'static str, &'static str),
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

// ---------------------------------------------------------------------------------------------
// Lexer

/// A token.
#[derive(Debug, Clone, PartialEq)]
pub(super) enum Tok {
    Str(Vec<u8>),
    /// A double-quoted string with `#{...}` interpolations.
    DStr(Vec<StrPart>),
    Int(i64),
    Float(f64),
    /// An identifier starting with a lower-case letter or `_`; it may end in `?` or `!`
    /// (`empty?`, `nil?`).
    Ident(String),
    /// An identifier starting with an upper-case letter.
    Const(String),
    /// `name:` (a hash key in Ruby's label syntax, `{a: 1}`).
    Label(String),
    /// `:name`.
    Symbol(String),
    /// A reserved word of Ruby (`if`, `do`, `end`, `def`, ...).
    Keyword(&'static str),
    True,
    False,
    Nil,
    Comma,
    Arrow,
    Assign,
    /// `+=`, `-=`, `*=`, `/=`, `%=`, `**=`, `<<=`, `||=`, `&&=`: the operator before `=`.
    OpAssign(&'static str),
    /// An operator: `+ - * / % ** == != < <= > >= <=> && || ! << >> & ^ ~ =~ ===`.
    Op(&'static str),
    /// `|`: bitwise or, or the bars around block parameters.
    Pipe,
    Question,
    Colon,
    ColonColon,
    Dot,
    /// `..`
    Dot2,
    /// `...`
    Dot3,
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

/// A piece of an interpolated string: literal bytes or the tokens of one `#{...}`.
#[derive(Debug, Clone, PartialEq)]
pub(super) enum StrPart {
    Lit(Vec<u8>),
    /// The tokens between `#{` and `}`, ending with an `Eof` token; `Pos` is the `#`.
    Code(Vec<Token>, Pos),
}

/// The reserved words the lexer knows. Those the shell's Ruby does not run are still
/// recognised, so that using one is a clear error instead of a call of a missing command.
const KEYWORDS: &[&str] = &[
    "alias", "and", "begin", "break", "case", "class", "def", "do", "else", "elsif", "end",
    "ensure", "for", "if", "in", "module", "next", "not", "or", "redo", "rescue", "retry",
    "return", "self", "super", "then", "undef", "unless", "until", "when", "while", "yield",
];

impl Tok {
    /// How an error message names this token.
    pub(super) fn describe(&self) -> String {
        match self {
            Tok::Str(_) | Tok::DStr(_) => "string literal".into(),
            Tok::Int(_) => "integer literal".into(),
            Tok::Float(_) => "float literal".into(),
            Tok::Ident(name) => format!("identifier '{name}'"),
            Tok::Const(name) => format!("constant '{name}'"),
            Tok::Label(name) => format!("label '{name}:'"),
            Tok::Symbol(name) => format!("symbol ':{name}'"),
            Tok::Keyword(word) => format!("'{word}'"),
            Tok::True => "'true'".into(),
            Tok::False => "'false'".into(),
            Tok::Nil => "'nil'".into(),
            Tok::Comma => "','".into(),
            Tok::Arrow => "'=>'".into(),
            Tok::Assign => "'='".into(),
            Tok::OpAssign(op) => format!("'{op}='"),
            Tok::Op(op) => format!("'{op}'"),
            Tok::Pipe => "'|'".into(),
            Tok::Question => "'?'".into(),
            Tok::Colon => "':'".into(),
            Tok::ColonColon => "'::'".into(),
            Tok::Dot => "'.'".into(),
            Tok::Dot2 => "'..'".into(),
            Tok::Dot3 => "'...'".into(),
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

    /// Whether a value can end with this token, so that a `-` right after it (with no space
    /// between) is subtraction, not the sign of a literal.
    fn ends_value(&self) -> bool {
        matches!(
            self,
            Tok::Str(_)
                | Tok::DStr(_)
                | Tok::Int(_)
                | Tok::Float(_)
                | Tok::Ident(_)
                | Tok::Const(_)
                | Tok::Symbol(_)
                | Tok::True
                | Tok::False
                | Tok::Nil
                | Tok::RParen
                | Tok::RBracket
                | Tok::RBrace
                | Tok::Keyword("end")
        )
    }
}

/// How deep `#{"#{...}"}` interpolations may nest.
const MAX_INTERPOLATION_DEPTH: usize = 16;

/// A token, where it starts, and whether whitespace precedes it.
#[derive(Debug, Clone, PartialEq)]
pub(super) struct Token {
    pub(super) tok: Tok,
    pub(super) pos: Pos,
    /// Whitespace (or a comment or line continuation) comes right before the token.
    pub(super) spaced: bool,
    /// For an `Int`/`Float`: it was written with a leading `-` (`x -1` is then `x - 1` when
    /// `x` is a value, and the argument `-1` when `x` is a command).
    pub(super) signed: bool,
}

/// The tokenizer, over the source text itself: `next` is a byte offset (always on a char
/// boundary), so a long line costs its own bytes once, not four bytes a char as a
/// `Vec<char>` copy would (a 60 MB line took 760 MB that way).
pub(super) struct Lexer<'a> {
    src: &'a str,
    next: usize,
    line: u32,
    column: u32,
    /// The previous token can end a value (see [`Tok::ends_value`]).
    after_value: bool,
    /// Whitespace precedes the token being read.
    spaced: bool,
    /// How many `#{...}` are open around the token being read: bounded, since each level
    /// recurses.
    interpolations: usize,
}

impl<'a> Lexer<'a> {
    pub(super) fn new(src: &'a str, first_line: u32) -> Self {
        Lexer {
            src,
            next: 0,
            line: first_line,
            column: 1,
            after_value: false,
            spaced: false,
            interpolations: 0,
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
    pub(super) fn run(mut self) -> (Vec<Token>, Option<ParseError>) {
        let mut tokens = Vec::new();
        match self.tokens_until(&mut tokens, false) {
            Ok(()) => (tokens, None),
            Err(e) => (tokens, Some(e)),
        }
    }

    /// Reads tokens into `tokens` up to the end of input, or, `inside` an interpolation, up
    /// to the `}` that closes it (consumed, not kept). Either way an `Eof` token ends them.
    fn tokens_until(&mut self, tokens: &mut Vec<Token>, inside: bool) -> Result<(), ParseError> {
        let mut braces = 0usize;
        loop {
            self.spaced = self.skip_blanks()?;
            let pos = self.pos();
            if inside && self.peek().is_none() {
                return Err(ParseError {
                    kind: ErrorKind::UnexpectedEnd {
                        expected: "'}' to close the interpolation",
                    },
                    pos,
                });
            }
            if inside && self.peek() == Some('}') && braces == 0 {
                self.bump();
                tokens.push(Token {
                    tok: Tok::Eof,
                    pos,
                    spaced: false,
                    signed: false,
                });
                return Ok(());
            }
            let signed = self.peek() == Some('-');
            let tok = self.token(pos)?;
            match tok {
                Tok::LBrace => braces += 1,
                Tok::RBrace => braces = braces.saturating_sub(1),
                _ => {}
            }
            self.after_value = tok.ends_value();
            let eof = tok == Tok::Eof;
            let signed = signed && matches!(tok, Tok::Int(_) | Tok::Float(_));
            tokens.push(Token {
                tok,
                pos,
                spaced: self.spaced,
                signed,
            });
            if eof {
                return Ok(());
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
        let next = self.peek_at(1);
        let (tok, len) = match (c, next, self.peek_at(2)) {
            ('\n', ..) => (Tok::Newline, 1),
            (';', ..) => (Tok::Semi, 1),
            (',', ..) => (Tok::Comma, 1),
            ('.', Some('.'), Some('.')) => (Tok::Dot3, 3),
            ('.', Some('.'), _) => (Tok::Dot2, 2),
            ('.', ..) => (Tok::Dot, 1),
            ('(', ..) => (Tok::LParen, 1),
            (')', ..) => (Tok::RParen, 1),
            ('[', ..) => (Tok::LBracket, 1),
            (']', ..) => (Tok::RBracket, 1),
            ('{', ..) => (Tok::LBrace, 1),
            ('}', ..) => (Tok::RBrace, 1),
            ('=', Some('>'), _) => (Tok::Arrow, 2),
            ('=', Some('='), Some('=')) => (Tok::Op("==="), 3),
            ('=', Some('='), _) => (Tok::Op("=="), 2),
            ('=', Some('~'), _) => (Tok::Op("=~"), 2),
            ('=', ..) => (Tok::Assign, 1),
            ('!', Some('='), _) => (Tok::Op("!="), 2),
            ('!', Some('~'), _) => (Tok::Op("!~"), 2),
            ('!', ..) => (Tok::Op("!"), 1),
            ('<', Some('='), Some('>')) => (Tok::Op("<=>"), 3),
            ('<', Some('<'), Some('=')) => (Tok::OpAssign("<<"), 3),
            ('<', Some('<'), _) => (Tok::Op("<<"), 2),
            ('<', Some('='), _) => (Tok::Op("<="), 2),
            ('<', ..) => (Tok::Op("<"), 1),
            ('>', Some('>'), Some('=')) => (Tok::OpAssign(">>"), 3),
            ('>', Some('>'), _) => (Tok::Op(">>"), 2),
            ('>', Some('='), _) => (Tok::Op(">="), 2),
            ('>', ..) => (Tok::Op(">"), 1),
            ('&', Some('&'), Some('=')) => (Tok::OpAssign("&&"), 3),
            ('&', Some('&'), _) => (Tok::Op("&&"), 2),
            ('&', ..) => (Tok::Op("&"), 1),
            ('|', Some('|'), Some('=')) => (Tok::OpAssign("||"), 3),
            ('|', Some('|'), _) => (Tok::Op("||"), 2),
            ('|', ..) => (Tok::Pipe, 1),
            ('*', Some('*'), Some('=')) => (Tok::OpAssign("**"), 3),
            ('*', Some('*'), _) => (Tok::Op("**"), 2),
            ('*', Some('='), _) => (Tok::OpAssign("*"), 2),
            ('*', ..) => (Tok::Op("*"), 1),
            ('/', Some('='), _) => (Tok::OpAssign("/"), 2),
            ('/', ..) => (Tok::Op("/"), 1),
            ('%', Some('='), _) => (Tok::OpAssign("%"), 2),
            ('%', ..) => (Tok::Op("%"), 1),
            ('+', Some('='), _) => (Tok::OpAssign("+"), 2),
            ('+', ..) => (Tok::Op("+"), 1),
            ('-', Some(d), _) if d.is_ascii_digit() && (self.spaced || !self.after_value) => {
                return self.number(pos);
            }
            ('-', Some('='), _) => (Tok::OpAssign("-"), 2),
            ('-', ..) => (Tok::Op("-"), 1),
            ('^', ..) => (Tok::Op("^"), 1),
            ('~', ..) => (Tok::Op("~"), 1),
            ('?', ..) => (Tok::Question, 1),
            (':', Some(':'), _) => (Tok::ColonColon, 2),
            (':', Some(d), _) if d.is_ascii_alphabetic() || d == '_' => {
                self.bump();
                let (Tok::Ident(name) | Tok::Const(name)) = self.identifier() else {
                    return Err(ParseError {
                        kind: ErrorKind::UnexpectedChar(':'),
                        pos,
                    });
                };
                return Ok(Tok::Symbol(name));
            }
            (':', ..) => (Tok::Colon, 1),
            ('\'', ..) => return self.single_quoted(pos),
            ('"', ..) => return self.double_quoted(pos),
            ('0'..='9', ..) => return self.number(pos),
            (c, ..) if c.is_ascii_alphabetic() || c == '_' => {
                let tok = self.identifier();
                // `name: value` in a hash (Ruby's label syntax), not `a ? b : c` or `A::B`.
                if let Tok::Ident(name) | Tok::Const(name) = &tok
                    && self.peek() == Some(':')
                    && self.peek_at(1) != Some(':')
                    && self.peek_at(1).is_none_or(char::is_whitespace)
                {
                    let name = name.clone();
                    self.bump();
                    return Ok(Tok::Label(name));
                }
                return Ok(tok);
            }
            (c, ..) => {
                return Err(ParseError {
                    kind: ErrorKind::UnexpectedChar(c),
                    pos,
                });
            }
        };
        for _ in 0..len {
            self.bump();
        }
        Ok(tok)
    }

    fn identifier(&mut self) -> Tok {
        let start = self.next;
        while self
            .peek()
            .is_some_and(|c| c.is_ascii_alphanumeric() || c == '_')
        {
            self.bump();
        }
        // `empty?`, `nil?`, `reverse!`: but not `a ?b :c`'s `?` or `a != b`'s `!`.
        if matches!(self.peek(), Some('?' | '!')) && self.peek_at(1) != Some('=') {
            let after = self.peek_at(1);
            if self.peek() == Some('!') || !after.is_some_and(|c| c.is_ascii_alphanumeric()) {
                self.bump();
            }
        }
        let word = self.text_from(start);
        match word.as_str() {
            "true" => Tok::True,
            "false" => Tok::False,
            "nil" => Tok::Nil,
            _ if word.starts_with(|c: char| c.is_ascii_uppercase()) => Tok::Const(word),
            _ => match KEYWORDS.iter().find(|k| **k == word) {
                // After a `.` a keyword is a method name: `(1..3).end`, `x.then`.
                Some(k) if !self.src[..start].ends_with('.') => Tok::Keyword(k),
                _ => Tok::Ident(word),
            },
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
        let mut lit = Vec::new();
        let mut parts = Vec::new();
        loop {
            let here = self.pos();
            match self.bump() {
                None => return Err(unterminated(open, '"')),
                Some('"') if parts.is_empty() => return Ok(Tok::Str(lit)),
                Some('"') => {
                    if !lit.is_empty() {
                        parts.push(StrPart::Lit(lit));
                    }
                    return Ok(Tok::DStr(parts));
                }
                Some('\\') => self.escape(&mut lit, here, open)?,
                Some('#') if self.peek() == Some('{') => {
                    self.bump();
                    if !lit.is_empty() {
                        parts.push(StrPart::Lit(std::mem::take(&mut lit)));
                    }
                    if self.interpolations >= MAX_INTERPOLATION_DEPTH {
                        return Err(ParseError {
                            kind: ErrorKind::TooDeep {
                                limit: MAX_INTERPOLATION_DEPTH,
                            },
                            pos: here,
                        });
                    }
                    let mut tokens = Vec::new();
                    let saved = (self.after_value, self.spaced);
                    self.after_value = false;
                    self.interpolations += 1;
                    let result = self.tokens_until(&mut tokens, true);
                    self.interpolations -= 1;
                    result?;
                    (self.after_value, self.spaced) = saved;
                    parts.push(StrPart::Code(tokens, here));
                }
                Some('#') => {
                    let interpolates = match self.peek() {
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
                    lit.push(b'#');
                }
                Some(c) => push_char(&mut lit, c),
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
