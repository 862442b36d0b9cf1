//! The parser of the shell's Ruby: tokens from `parse.rs` in, a tree of [`Node`]s out.
//!
//! The grammar is Ruby's, cut down to what HBase shell users write to drive the shell:
//! command calls with or without parentheses (`put 't', 'r', 'cf:c', 'v'`), literals, arrays,
//! hashes, string interpolation, operators with Ruby's precedence, local variables, method
//! calls with `{ |x| }` and `do |x| ... end` blocks, `if`/`unless`/`while`/`until` (also as
//! modifiers), `for ... in`, the ternary `?:`, `break` and `next`. The Ruby it does not run
//! (`def`, `class`, `begin`/`rescue`, `case`, `return`, `yield`, ...) is a syntax error that
//! says so, rather than something half-run.
//!
//! Ruby decides at parse time whether a bare name is a variable or a call: a name assigned
//! earlier in the text is a variable from there on. The parser keeps that set of locals,
//! seeded with the session's variables (IRB keeps locals between lines), and scopes it as Ruby
//! does: a block's parameters and the variables it first assigns are its own.
//!
//! Whitespace matters where it matters to Ruby: `foo -1` passes `-1` to a command `foo` but
//! `x -1` subtracts when `x` is a variable; `foo [1]` passes an array, `a[1]` indexes;
//! `foo (1)` and `foo(1)` both call.

use std::collections::HashSet;

use super::ast::{Block, Call, Expr, Node, Piece, Target};
use super::parse::{ErrorKind, Lexer, ParseError, Pos, StrPart, Tok, Token, Value};

/// How deep expressions may nest. The parser recurses per level, so without a bound a line of
/// `[[[[...` would overflow the stack; real statements nest a handful of levels.
pub const MAX_NESTING: usize = 32;

/// How long a chain of binary operators, method calls or statement modifiers may be
/// (`1 + 1 + ...`, `x.succ.succ...`): each link deepens the tree the interpreter walks
/// recursively, so a generated 100,000-term sum must be an error, not a stack overflow.
pub const MAX_CHAIN: usize = 256;

/// Ruby words the subset leaves out, each with what to write instead.
const UNSUPPORTED: &[(&str, &str)] = &[
    ("def", "methods cannot be defined"),
    ("class", "classes cannot be defined"),
    ("module", "modules cannot be defined"),
    ("begin", "begin/rescue blocks are not run"),
    ("rescue", "exceptions cannot be rescued"),
    ("ensure", "ensure blocks are not run"),
    ("retry", "retry is not run"),
    ("redo", "redo is not run"),
    ("case", "use if/elsif/else instead of case"),
    ("when", "use if/elsif/else instead of case"),
    ("return", "there are no methods to return from"),
    ("yield", "there are no methods to yield from"),
    ("super", "there are no classes"),
    ("self", "there is no self"),
    ("alias", "methods cannot be aliased"),
    ("undef", "methods cannot be undefined"),
];

/// Parses `src` (whose first line is `first_line`) into statements. `locals` are the
/// variables the session already has.
pub fn parse_program(
    src: &str,
    first_line: u32,
    locals: &HashSet<String>,
) -> Result<Vec<Node>, ParseError> {
    let (tokens, error) = Lexer::new(src, first_line).run();
    if let Some(e) = error {
        return Err(e);
    }
    let mut parser = Parser::new(tokens, locals.clone());
    parser.program()
}

/// Whether an input is ready to run or needs more lines, as an interactive reader asks
/// before each new line.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Completeness {
    /// Parse it: it is complete, or broken in a way more input cannot fix.
    Complete,
    /// More input could complete it.
    Incomplete {
        /// How many brackets and blocks are open.
        depth: usize,
        /// The quote of the string literal left open, if any.
        quote: Option<char>,
    },
}

/// Says whether `src` is complete or needs more lines (an open string, bracket or block, or a
/// trailing `,`, `=>`, operator or `\`).
pub fn completeness(src: &str, locals: &HashSet<String>) -> Completeness {
    let (tokens, lex_error) = Lexer::new(src, 1).run();
    // Counted before the parser takes the tokens (they may hold a huge string: no copy).
    let depth = tokens.iter().fold(0usize, |depth, t| match t.tok {
        Tok::LParen
        | Tok::LBracket
        | Tok::LBrace
        | Tok::Keyword("do" | "if" | "unless" | "while" | "until" | "for")
            if !is_modifier(t) =>
        {
            depth + 1
        }
        Tok::RParen | Tok::RBracket | Tok::RBrace | Tok::Keyword("end") => depth.saturating_sub(1),
        _ => depth,
    });
    let error = match lex_error {
        Some(e) => e,
        None => match Parser::new(tokens, locals.clone()).program() {
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

/// A rough guess, for the prompt's depth only, of whether an `if`/`while`/... keyword is a
/// statement modifier (it follows something on the same line).
fn is_modifier(t: &Token) -> bool {
    matches!(t.tok, Tok::Keyword("if" | "unless" | "while" | "until"))
        && t.spaced
        && t.pos.column > 1
}

const EOF_TOKEN: Token = Token {
    tok: Tok::Eof,
    pos: Pos { line: 0, column: 0 },
    spaced: false,
    signed: false,
};

struct Parser {
    /// Always ends with an `Eof` token.
    tokens: Vec<Token>,
    next: usize,
    /// Open nesting levels (at most [`MAX_NESTING`]).
    depth: usize,
    /// The names that are local variables at this point of the text.
    locals: HashSet<String>,
    /// Parsing the condition of `while`/`until` or the iterable of `for`, whose `do` belongs
    /// to the loop, not to a block of the last call.
    no_do: bool,
    /// A `&:name` argument seen in the argument list being parsed: the call's block.
    block_arg: Option<Block>,
}

/// The arguments of a call as they are parsed: values, then a trailing run of `key => value`
/// pairs that becomes one hash argument, as in Ruby.
#[derive(Default)]
struct Args {
    items: Vec<Node>,
    /// The pairs, and where the first one starts.
    pairs: Option<(Vec<(Node, Node)>, Pos)>,
}

impl Args {
    fn pair(&mut self, key: Node, value: Node) {
        let pos = key.pos;
        self.pairs
            .get_or_insert_with(|| (Vec::new(), pos))
            .0
            .push((key, value));
    }

    fn finish(mut self) -> Vec<Node> {
        if let Some((pairs, pos)) = self.pairs {
            self.items.push(Node::new(Expr::Hash(pairs), pos));
        }
        self.items
    }
}

/// Where a list of statements stops.
fn ends_body(tok: &Tok) -> bool {
    matches!(
        tok,
        Tok::Eof
            | Tok::RBrace
            | Tok::RParen
            | Tok::Keyword("end" | "else" | "elsif" | "when" | "rescue" | "ensure")
    )
}

impl Parser {
    fn new(tokens: Vec<Token>, locals: HashSet<String>) -> Parser {
        Parser {
            tokens,
            next: 0,
            depth: 0,
            locals,
            no_do: false,
            block_arg: None,
        }
    }

    fn peek_token(&self) -> &Token {
        self.tokens
            .get(self.next)
            .or_else(|| self.tokens.last())
            .unwrap_or(&EOF_TOKEN)
    }

    fn peek(&self) -> &Tok {
        &self.peek_token().tok
    }

    fn peek_at(&self, ahead: usize) -> &Token {
        self.tokens
            .get(self.next + ahead)
            .or_else(|| self.tokens.last())
            .unwrap_or(&EOF_TOKEN)
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
                    signed: false,
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

    fn skip_terms(&mut self) {
        while matches!(self.peek(), Tok::Newline | Tok::Semi) {
            self.advance();
        }
    }

    fn eat(&mut self, tok: &Tok) -> bool {
        if self.peek() == tok {
            self.advance();
            true
        } else {
            false
        }
    }

    fn expect(&mut self, tok: &Tok, expected: &'static str) -> Result<Token, ParseError> {
        if self.peek() == tok {
            Ok(self.advance())
        } else {
            Err(Self::unexpected(self.peek_token(), expected))
        }
    }

    /// The error for `token` appearing where `expected` was required.
    fn unexpected(token: &Token, expected: &'static str) -> ParseError {
        let kind = match &token.tok {
            Tok::Eof => ErrorKind::UnexpectedEnd { expected },
            Tok::Keyword(word) if unsupported(word).is_some() => {
                ErrorKind::Unsupported(word, unsupported(word).unwrap_or_default())
            }
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

    fn nest(&mut self, pos: Pos) -> Result<(), ParseError> {
        if self.depth >= MAX_NESTING {
            return Err(ParseError {
                kind: ErrorKind::TooDeep { limit: MAX_NESTING },
                pos,
            });
        }
        self.depth += 1;
        Ok(())
    }

    fn program(&mut self) -> Result<Vec<Node>, ParseError> {
        let body = self.statements()?;
        if *self.peek() != Tok::Eof {
            return Err(Self::unexpected(self.peek_token(), "a statement"));
        }
        Ok(body)
    }

    /// Statements up to (not including) a token that ends a body.
    fn statements(&mut self) -> Result<Vec<Node>, ParseError> {
        let mut body = Vec::new();
        loop {
            self.skip_terms();
            if ends_body(self.peek()) {
                return Ok(body);
            }
            body.push(self.statement()?);
            match self.peek() {
                Tok::Newline | Tok::Semi => {}
                tok if ends_body(tok) => {}
                _ => {
                    return Err(Self::unexpected(
                        self.peek_token(),
                        "',' or the end of the statement",
                    ));
                }
            }
        }
    }

    /// A statement: an expression with any `if`/`unless`/`while`/`until` modifiers.
    fn statement(&mut self) -> Result<Node, ParseError> {
        let mut node = self.not_expr()?;
        let mut links = 0usize;
        loop {
            links += 1;
            if links > MAX_CHAIN {
                return Err(ParseError {
                    kind: ErrorKind::TooDeep { limit: MAX_CHAIN },
                    pos: self.peek_token().pos,
                });
            }
            let word = match self.peek() {
                Tok::Keyword(w @ ("if" | "unless" | "while" | "until")) => *w,
                _ => return Ok(node),
            };
            let at = self.advance().pos;
            let cond = self.not_expr()?;
            let pos = node.pos;
            node = match word {
                "if" => Node::new(Expr::If(Box::new(cond), vec![node], vec![]), pos),
                "unless" => Node::new(Expr::If(Box::new(cond), vec![], vec![node]), pos),
                _ => Node::new(
                    Expr::While {
                        cond: Box::new(cond),
                        negate: word == "until",
                        body: vec![node],
                    },
                    at,
                ),
            };
        }
    }

    /// `not`, `and`, `or`: the lowest-precedence operators.
    fn not_expr(&mut self) -> Result<Node, ParseError> {
        let mut left = if let Tok::Keyword("not") = self.peek() {
            let pos = self.advance().pos;
            self.nest(pos)?;
            let inner = self.not_expr();
            self.depth -= 1;
            Node::new(Expr::Not(Box::new(inner?)), pos)
        } else {
            self.expr()?
        };
        let mut links = 0usize;
        loop {
            links += 1;
            if links > MAX_CHAIN {
                return Err(ParseError {
                    kind: ErrorKind::TooDeep { limit: MAX_CHAIN },
                    pos: self.peek_token().pos,
                });
            }
            let and = match self.peek() {
                Tok::Keyword("and") => true,
                Tok::Keyword("or") => false,
                _ => return Ok(left),
            };
            self.advance();
            self.skip_newlines();
            let right = if let Tok::Keyword("not") = self.peek() {
                let pos = self.advance().pos;
                let inner = self.expr()?;
                Node::new(Expr::Not(Box::new(inner)), pos)
            } else {
                self.expr()?
            };
            let pos = left.pos;
            let (l, r) = (Box::new(left), Box::new(right));
            left = Node::new(if and { Expr::And(l, r) } else { Expr::Or(l, r) }, pos);
        }
    }

    /// An expression: an assignment or a ternary.
    fn expr(&mut self) -> Result<Node, ParseError> {
        // `name = ...` declares `name` before its value is parsed, as in Ruby.
        if let Tok::Ident(name) = self.peek()
            && matches!(self.peek_at(1).tok, Tok::Assign | Tok::OpAssign(_))
        {
            let name = name.clone();
            let pos = self.advance().pos;
            let op = self.advance();
            self.locals.insert(name.clone());
            self.skip_newlines();
            self.nest(pos)?;
            let value = self.expr();
            self.depth -= 1;
            let value = Box::new(value?);
            let target = Target::Var(name);
            return Ok(Node::new(
                match op.tok {
                    Tok::OpAssign(op) => Expr::OpAssign(target, op, value),
                    _ => Expr::Assign(target, value),
                },
                pos,
            ));
        }
        let left = self.ternary()?;
        match self.peek() {
            Tok::Assign | Tok::OpAssign(_) => {
                // Only `x[i] = v` assigns here (`x = v` was handled above); anything else
                // leaves the `=` to the caller's error (`{LIMIT = 1}` expects `=>`).
                let Expr::Call(Call {
                    recv: Some(recv),
                    name,
                    args,
                    block: None,
                }) = &left.expr
                else {
                    return Ok(left);
                };
                if name != "[]" {
                    return Ok(left);
                }
                let target = Target::Index(recv.clone(), args.clone());
                let op = self.advance();
                self.skip_newlines();
                let value = Box::new(self.expr()?);
                Ok(Node::new(
                    match op.tok {
                        Tok::OpAssign(op) => Expr::OpAssign(target, op, value),
                        _ => Expr::Assign(target, value),
                    },
                    left.pos,
                ))
            }
            _ => Ok(left),
        }
    }

    /// `cond ? a : b`.
    fn ternary(&mut self) -> Result<Node, ParseError> {
        let cond = self.range()?;
        if *self.peek() != Tok::Question {
            return Ok(cond);
        }
        self.advance();
        self.skip_newlines();
        let yes = self.ternary()?;
        self.skip_newlines();
        if !self.eat(&Tok::Colon) {
            // `a ? b :c` lexes `:c` as a symbol; `a ? b: c` as a label.
            return Err(Self::unexpected(
                self.peek_token(),
                "':' of the ternary operator",
            ));
        }
        self.skip_newlines();
        let no = self.ternary()?;
        let pos = cond.pos;
        Ok(Node::new(
            Expr::If(Box::new(cond), vec![yes], vec![no]),
            pos,
        ))
    }

    /// `a..b`, `a...b`.
    fn range(&mut self) -> Result<Node, ParseError> {
        let lo = self.binary(0)?;
        let exclusive = match self.peek() {
            Tok::Dot2 => false,
            Tok::Dot3 => true,
            _ => return Ok(lo),
        };
        self.advance();
        let hi = self.binary(0)?;
        let pos = lo.pos;
        Ok(Node::new(
            Expr::Range(Box::new(lo), Box::new(hi), exclusive),
            pos,
        ))
    }

    /// Binary operators by precedence climbing: `min_level` is the loosest level this call
    /// may take (see [`binary_level`]); all are left-associative (`**` is handled below them).
    /// One frame per operand rather than one per level keeps deep nesting cheap on the stack.
    fn binary(&mut self, min_level: usize) -> Result<Node, ParseError> {
        let mut left = self.unary_minus()?;
        let mut links = 0usize;
        loop {
            let token = self.peek_token();
            links += 1;
            if links > MAX_CHAIN {
                return Err(ParseError {
                    kind: ErrorKind::TooDeep { limit: MAX_CHAIN },
                    pos: token.pos,
                });
            }
            // `x -1`: a signed literal right after a value subtracts.
            let signed = token.signed && matches!(token.tok, Tok::Int(_) | Tok::Float(_));
            let (op, level) = if signed {
                ("-", ADDITIVE)
            } else {
                match &token.tok {
                    Tok::Op(op) => match binary_level(op) {
                        Some(level) => (*op, level),
                        None => return Ok(left),
                    },
                    Tok::Pipe => ("|", 4),
                    _ => return Ok(left),
                }
            };
            if level < min_level {
                return Ok(left);
            }
            let pos = left.pos;
            let right = if signed {
                negate_literal(self.binary(level + 1)?)
            } else {
                self.advance();
                self.skip_newlines();
                self.binary(level + 1)?
            };
            left = Node::new(
                match op {
                    "&&" => Expr::And(Box::new(left), Box::new(right)),
                    "||" => Expr::Or(Box::new(left), Box::new(right)),
                    "!=" => Expr::Not(Box::new(Node::new(
                        Expr::Binary("==", Box::new(left), Box::new(right)),
                        pos,
                    ))),
                    op => Expr::Binary(op, Box::new(left), Box::new(right)),
                },
                pos,
            );
        }
    }

    /// `-x` (looser than `**`: `-2 ** 2` is -4, as in Ruby).
    fn unary_minus(&mut self) -> Result<Node, ParseError> {
        if let Tok::Op("-") = self.peek() {
            let pos = self.advance().pos;
            self.nest(pos)?;
            let inner = self.unary_minus();
            self.depth -= 1;
            return Ok(Node::new(Expr::Neg(Box::new(inner?)), pos));
        }
        // A signed numeric literal is a negated operand too, for `-2 ** 2`.
        let token = self.peek_token();
        if token.signed && matches!(self.peek_at(1).tok, Tok::Op("**")) {
            let pos = token.pos;
            let lit = self.advance();
            let magnitude = match lit.tok {
                Tok::Int(i) => Value::Int(i.wrapping_neg()),
                Tok::Float(f) => Value::Float(-f),
                _ => Value::Nil,
            };
            let operand = Node::new(Expr::Lit(magnitude), pos);
            let powered = self.power_rest(operand)?;
            return Ok(Node::new(Expr::Neg(Box::new(powered)), pos));
        }
        self.power()
    }

    fn power(&mut self) -> Result<Node, ParseError> {
        let base = self.unary()?;
        self.power_rest(base)
    }

    fn power_rest(&mut self, base: Node) -> Result<Node, ParseError> {
        if let Tok::Op("**") = self.peek() {
            self.advance();
            self.skip_newlines();
            let exponent = self.unary_minus()?;
            let pos = base.pos;
            return Ok(Node::new(
                Expr::Binary("**", Box::new(base), Box::new(exponent)),
                pos,
            ));
        }
        Ok(base)
    }

    /// `!x`, `~x`, `+x`.
    fn unary(&mut self) -> Result<Node, ParseError> {
        match self.peek() {
            Tok::Op("!") => {
                let pos = self.advance().pos;
                self.nest(pos)?;
                let inner = self.unary();
                self.depth -= 1;
                Ok(Node::new(Expr::Not(Box::new(inner?)), pos))
            }
            Tok::Op("~") => {
                let pos = self.advance().pos;
                self.nest(pos)?;
                let inner = self.unary();
                self.depth -= 1;
                let inner = inner?;
                Ok(Node::new(
                    Expr::Call(Call {
                        recv: Some(Box::new(inner)),
                        name: "~".into(),
                        args: vec![],
                        block: None,
                    }),
                    pos,
                ))
            }
            Tok::Op("+") => {
                let pos = self.advance().pos;
                self.nest(pos)?;
                let inner = self.unary();
                self.depth -= 1;
                inner
            }
            _ => self.postfix(),
        }
    }

    /// A primary followed by `.method`, `::Name` and `[index]`.
    fn postfix(&mut self) -> Result<Node, ParseError> {
        let mut node = self.primary()?;
        let mut links = 0usize;
        loop {
            links += 1;
            if links > MAX_CHAIN {
                return Err(ParseError {
                    kind: ErrorKind::TooDeep { limit: MAX_CHAIN },
                    pos: self.peek_token().pos,
                });
            }
            match self.peek() {
                Tok::Dot => {
                    self.advance();
                    self.skip_newlines();
                    let token = self.advance();
                    let name = match token.tok {
                        Tok::Ident(name) | Tok::Const(name) => name,
                        Tok::Keyword(word) => word.to_string(),
                        // `x.class`, `x.nil?` lex as keywords or identifiers above; anything
                        // else after a dot is not a method name.
                        _ => return Err(Self::unexpected(&token, "a method name after '.'")),
                    };
                    let pos = node.pos;
                    node = self.call_rest(Some(node), name, pos, token.pos)?;
                }
                Tok::ColonColon => {
                    self.advance();
                    let token = self.advance();
                    let pos = node.pos;
                    node = match token.tok {
                        Tok::Const(name) => Node::new(Expr::Scope(Box::new(node), name), pos),
                        Tok::Ident(name) => self.call_rest(Some(node), name, pos, token.pos)?,
                        _ => return Err(Self::unexpected(&token, "a name after '::'")),
                    };
                }
                Tok::LBracket if !self.peek_token().spaced => {
                    let open = self.advance().pos;
                    self.nest(open)?;
                    let args = self.list(Tok::RBracket, "',' or ']'");
                    self.depth -= 1;
                    let pos = node.pos;
                    node = Node::new(
                        Expr::Call(Call {
                            recv: Some(Box::new(node)),
                            name: "[]".into(),
                            args: args?,
                            block: None,
                        }),
                        pos,
                    );
                }
                _ => return Ok(node),
            }
        }
    }

    /// The arguments and block of a call of `name` whose name token is at `name_pos`.
    fn call_rest(
        &mut self,
        recv: Option<Node>,
        name: String,
        pos: Pos,
        name_pos: Pos,
    ) -> Result<Node, ParseError> {
        let _ = name_pos;
        let after = self.peek_token();
        let args = if after.tok == Tok::LParen && !after.spaced {
            let open = self.advance().pos;
            self.nest(open)?;
            let args = self.list(Tok::RParen, "',' or ')'");
            self.depth -= 1;
            args?
        } else if self.starts_command_args() {
            self.command_args()?
        } else {
            Vec::new()
        };
        let block = match self.block_arg.take() {
            Some(block) => Some(Box::new(block)),
            None => self.block()?,
        };
        Ok(Node::new(
            Expr::Call(Call {
                recv: recv.map(Box::new),
                name,
                args,
                block,
            }),
            pos,
        ))
    }

    /// Whether the token after a method name starts arguments given without parentheses.
    fn starts_command_args(&self) -> bool {
        let t = self.peek_token();
        match &t.tok {
            Tok::Str(_)
            | Tok::DStr(_)
            | Tok::Ident(_)
            | Tok::Const(_)
            | Tok::Symbol(_)
            | Tok::Label(_)
            | Tok::True
            | Tok::False
            | Tok::Nil => true,
            Tok::Int(_) | Tok::Float(_) => !t.signed || t.spaced,
            Tok::LBracket | Tok::LParen => t.spaced,
            Tok::Op("!") => t.spaced,
            Tok::Op("-") => t.spaced && !self.peek_at(1).spaced,
            Tok::Keyword("not" | "if" | "unless" | "while" | "until") => false,
            Tok::Keyword(_) => false,
            _ => false,
        }
    }

    /// Arguments without parentheses, up to the end of the statement.
    fn command_args(&mut self) -> Result<Vec<Node>, ParseError> {
        let mut args = Args::default();
        loop {
            self.argument(&mut args, false)?;
            if *self.peek() == Tok::Comma {
                self.advance();
                // A trailing comma continues the statement on the next line.
                self.skip_newlines();
                continue;
            }
            return Ok(args.finish());
        }
    }

    /// One argument into `args`: `&:name` (the call's block), `label: value`,
    /// `key => value` (into the trailing hash) or a value. `nested`: inside brackets, where
    /// newlines are free.
    fn argument(&mut self, args: &mut Args, nested: bool) -> Result<(), ParseError> {
        if let (Tok::Op("&"), Tok::Symbol(name)) = (self.peek(), &self.peek_at(1).tok) {
            // `map(&:to_s)`: the block `{ |x| x.to_s }`.
            let name = name.clone();
            let pos = self.advance().pos;
            self.advance();
            let param = "\u{0}it".to_string();
            let recv = Node::new(Expr::Var(param.clone()), pos);
            let body = Node::new(
                Expr::Call(Call {
                    recv: Some(Box::new(recv)),
                    name,
                    args: vec![],
                    block: None,
                }),
                pos,
            );
            self.block_arg = Some(Block {
                params: vec![param],
                body: vec![body],
            });
            return Ok(());
        }
        if let Tok::Label(_) = self.peek() {
            let (key, value) = self.label_pair()?;
            args.pair(key, value);
            return Ok(());
        }
        let item = self.arg()?;
        if nested {
            self.skip_newlines();
        }
        if *self.peek() == Tok::Arrow {
            self.advance();
            self.skip_newlines();
            let value = self.arg()?;
            args.pair(item, value);
        } else if args.pairs.is_some() {
            return Err(Self::unexpected(
                self.peek_token(),
                "'=>' (a bare KEY => value list must come last)",
            ));
        } else {
            args.items.push(item);
        }
        Ok(())
    }

    /// One argument: an expression without the statement-level `and`/`or`/modifiers.
    fn arg(&mut self) -> Result<Node, ParseError> {
        let token = self.peek_token();
        match token.tok {
            Tok::Eof | Tok::Newline | Tok::Semi => Err(Self::unexpected(token, "a value")),
            _ => self.expr(),
        }
    }

    fn label_pair(&mut self) -> Result<(Node, Node), ParseError> {
        let token = self.advance();
        let Tok::Label(name) = token.tok else {
            return Err(Self::unexpected(&token, "a label"));
        };
        self.skip_newlines();
        let value = self.arg()?;
        Ok((Node::new(Expr::Sym(name), token.pos), value))
    }

    /// A comma-separated list up to `close` (consumed); newlines are free inside. A trailing
    /// run of `key => value` items becomes one hash, the list's last element.
    fn list(&mut self, close: Tok, expected_sep: &'static str) -> Result<Vec<Node>, ParseError> {
        let saved_no_do = std::mem::replace(&mut self.no_do, false);
        let result = self.list_items(close, expected_sep);
        self.no_do = saved_no_do;
        result
    }

    fn list_items(
        &mut self,
        close: Tok,
        expected_sep: &'static str,
    ) -> Result<Vec<Node>, ParseError> {
        let mut args = Args::default();
        loop {
            self.skip_newlines();
            if *self.peek() == close {
                self.advance();
                return Ok(args.finish());
            }
            self.argument(&mut args, true)?;
            self.skip_newlines();
            match self.peek() {
                Tok::Comma => {
                    self.advance();
                }
                tok if *tok == close => {
                    self.advance();
                    return Ok(args.finish());
                }
                _ => return Err(Self::unexpected(self.peek_token(), expected_sep)),
            }
        }
    }

    /// A `{ |x| ... }` or `do |x| ... end` block after a call, if one follows.
    fn block(&mut self) -> Result<Option<Box<Block>>, ParseError> {
        let close = match self.peek() {
            Tok::LBrace => Tok::RBrace,
            Tok::Keyword("do") if !self.no_do => Tok::Keyword("end"),
            _ => return Ok(None),
        };
        let open = self.advance().pos;
        self.nest(open)?;
        let outer = self.locals.clone();
        let saved_no_do = std::mem::replace(&mut self.no_do, false);
        let result = self.block_body(&close);
        self.no_do = saved_no_do;
        self.locals = outer;
        self.depth -= 1;
        result.map(|b| Some(Box::new(b)))
    }

    fn block_body(&mut self, close: &Tok) -> Result<Block, ParseError> {
        self.skip_newlines();
        let mut params = Vec::new();
        if *self.peek() == Tok::Pipe {
            self.advance();
            loop {
                let token = self.advance();
                match token.tok {
                    Tok::Ident(name) => {
                        self.locals.insert(name.clone());
                        params.push(name);
                    }
                    Tok::Pipe if params.is_empty() => break,
                    _ => return Err(Self::unexpected(&token, "a block parameter name")),
                }
                match self.advance() {
                    Token {
                        tok: Tok::Comma, ..
                    } => {}
                    Token { tok: Tok::Pipe, .. } => break,
                    token => return Err(Self::unexpected(&token, "',' or '|'")),
                }
            }
        }
        let body = self.statements()?;
        let expected = if *close == Tok::RBrace {
            "'}'"
        } else {
            "'end'"
        };
        self.expect(close, expected)?;
        Ok(Block { params, body })
    }

    fn primary(&mut self) -> Result<Node, ParseError> {
        let token = self.advance();
        let pos = token.pos;
        let node = |expr| Ok(Node::new(expr, pos));
        match token.tok {
            Tok::Str(mut bytes) => {
                // Adjacent literals concatenate: 'a' "b" is "ab".
                let mut pieces: Vec<Piece> = Vec::new();
                loop {
                    match self.peek() {
                        Tok::Str(more) => {
                            bytes.extend_from_slice(more);
                            self.advance();
                        }
                        Tok::DStr(_) => {
                            let Tok::DStr(parts) = self.advance().tok else {
                                break;
                            };
                            pieces.push(Piece::Lit(std::mem::take(&mut bytes)));
                            pieces.extend(self.pieces(parts)?);
                        }
                        _ => break,
                    }
                }
                if pieces.is_empty() {
                    return node(Expr::Lit(Value::Str(bytes)));
                }
                if !bytes.is_empty() {
                    pieces.push(Piece::Lit(bytes));
                }
                node(Expr::DStr(pieces))
            }
            Tok::DStr(parts) => {
                let mut pieces = self.pieces(parts)?;
                loop {
                    match self.peek() {
                        Tok::Str(more) => {
                            pieces.push(Piece::Lit(more.clone()));
                            self.advance();
                        }
                        Tok::DStr(_) => {
                            let Tok::DStr(parts) = self.advance().tok else {
                                break;
                            };
                            pieces.extend(self.pieces(parts)?);
                        }
                        _ => break,
                    }
                }
                node(Expr::DStr(pieces))
            }
            Tok::Int(i) => node(Expr::Lit(Value::Int(i))),
            Tok::Float(f) => node(Expr::Lit(Value::Float(f))),
            Tok::True => node(Expr::Lit(Value::Bool(true))),
            Tok::False => node(Expr::Lit(Value::Bool(false))),
            Tok::Nil => node(Expr::Lit(Value::Nil)),
            Tok::Symbol(name) => node(Expr::Sym(name)),
            Tok::Const(name) => {
                let after = self.peek_token();
                // `Integer("12")`, `Float(x)`: Kernel conversion methods.
                if after.tok == Tok::LParen && !after.spaced {
                    return self.call_rest(None, name, pos, pos);
                }
                node(Expr::Const(name))
            }
            Tok::Ident(name) => {
                if self.locals.contains(&name) {
                    let after = self.peek_token();
                    if after.tok != Tok::LParen || after.spaced {
                        return node(Expr::Var(name));
                    }
                }
                self.call_rest(None, name, pos, pos)
            }
            Tok::LParen => {
                self.nest(pos)?;
                let saved_no_do = std::mem::replace(&mut self.no_do, false);
                let body = self.statements();
                self.no_do = saved_no_do;
                self.depth -= 1;
                let body = body?;
                self.expect(&Tok::RParen, "')'")?;
                match <[Node; 1]>::try_from(body) {
                    Ok([one]) => Ok(one),
                    Err(body) => node(Expr::Seq(body)),
                }
            }
            Tok::LBracket => {
                self.nest(pos)?;
                let items = self.list(Tok::RBracket, "',' or ']'");
                self.depth -= 1;
                node(Expr::Array(items?))
            }
            Tok::LBrace => {
                self.nest(pos)?;
                let pairs = self.hash();
                self.depth -= 1;
                node(Expr::Hash(pairs?))
            }
            Tok::Keyword("if") => self.if_rest(pos, false),
            Tok::Keyword("unless") => self.if_rest(pos, true),
            Tok::Keyword(word @ ("while" | "until")) => {
                let cond = self.loop_head()?;
                let body = self.body_until_end()?;
                node(Expr::While {
                    cond: Box::new(cond),
                    negate: word == "until",
                    body,
                })
            }
            Tok::Keyword("for") => {
                let mut vars = Vec::new();
                loop {
                    let token = self.advance();
                    let Tok::Ident(name) = token.tok else {
                        return Err(Self::unexpected(&token, "a loop variable"));
                    };
                    self.locals.insert(name.clone());
                    vars.push(name);
                    if !self.eat(&Tok::Comma) {
                        break;
                    }
                }
                self.expect(&Tok::Keyword("in"), "'in'")?;
                let iterable = self.loop_head()?;
                let body = self.body_until_end()?;
                node(Expr::For(vars, Box::new(iterable), body))
            }
            Tok::Keyword(word @ ("break" | "next")) => {
                let value = if self.starts_value() {
                    Some(Box::new(self.expr()?))
                } else {
                    None
                };
                node(if word == "break" {
                    Expr::Break(value)
                } else {
                    Expr::Next(value)
                })
            }
            Tok::Keyword(word) if unsupported(word).is_some() => Err(ParseError {
                kind: ErrorKind::Unsupported(word, unsupported(word).unwrap_or_default()),
                pos,
            }),
            Tok::Op("*") => Err(ParseError {
                kind: ErrorKind::Unsupported("splat arguments (*args)", "list the arguments"),
                pos,
            }),
            Tok::Op("&") => Err(ParseError {
                kind: ErrorKind::Unsupported("block arguments (&block)", "write a block"),
                pos,
            }),
            _ => Err(Self::unexpected(&token, "a value")),
        }
    }

    /// Whether a value starts here (for `break value`).
    fn starts_value(&self) -> bool {
        !matches!(
            self.peek(),
            Tok::Newline
                | Tok::Semi
                | Tok::Eof
                | Tok::RBrace
                | Tok::RParen
                | Tok::Keyword("end" | "if" | "unless" | "while" | "until")
        )
    }

    /// The pieces of an interpolated string, each `#{...}` parsed with the current locals.
    fn pieces(&mut self, parts: Vec<StrPart>) -> Result<Vec<Piece>, ParseError> {
        let mut pieces = Vec::with_capacity(parts.len());
        for part in parts {
            match part {
                StrPart::Lit(bytes) => pieces.push(Piece::Lit(bytes)),
                StrPart::Code(tokens, at) => {
                    let mut inner = Parser::new(tokens, std::mem::take(&mut self.locals));
                    inner.depth = self.depth;
                    let result = inner.statements().and_then(|body| {
                        if *inner.peek() == Tok::Eof {
                            Ok(body)
                        } else {
                            Err(Self::unexpected(
                                inner.peek_token(),
                                "'}' to close the interpolation",
                            ))
                        }
                    });
                    self.locals = inner.locals;
                    let _ = at;
                    pieces.push(Piece::Code(result?));
                }
            }
        }
        Ok(pieces)
    }

    /// The condition of a `while` or the iterable of a `for`, and the `do`, newline or `;`
    /// that ends it.
    fn loop_head(&mut self) -> Result<Node, ParseError> {
        let saved = std::mem::replace(&mut self.no_do, true);
        let head = self.not_expr();
        self.no_do = saved;
        let head = head?;
        match self.peek() {
            Tok::Keyword("do") | Tok::Semi | Tok::Newline => {
                self.advance();
                Ok(head)
            }
            _ => Err(Self::unexpected(
                self.peek_token(),
                "'do' or the end of the line",
            )),
        }
    }

    /// Statements up to `end` (consumed).
    fn body_until_end(&mut self) -> Result<Vec<Node>, ParseError> {
        let start = self.peek_token().pos;
        self.nest(start)?;
        let saved_no_do = std::mem::replace(&mut self.no_do, false);
        let body = self.statements();
        self.no_do = saved_no_do;
        self.depth -= 1;
        let body = body?;
        self.expect(&Tok::Keyword("end"), "'end'")?;
        Ok(body)
    }

    /// After `if`/`unless`: the condition, `then` or a line end, the branches and `end`.
    fn if_rest(&mut self, pos: Pos, unless: bool) -> Result<Node, ParseError> {
        let cond = self.not_expr()?;
        match self.peek() {
            Tok::Keyword("then") | Tok::Semi | Tok::Newline => {
                self.advance();
            }
            _ => {
                return Err(Self::unexpected(
                    self.peek_token(),
                    "'then' or the end of the line",
                ));
            }
        }
        self.nest(pos)?;
        let result = self.if_branches(cond, pos, unless);
        self.depth -= 1;
        result
    }

    fn if_branches(&mut self, cond: Node, pos: Pos, unless: bool) -> Result<Node, ParseError> {
        let then = self.statements()?;
        let token = self.advance();
        let otherwise = match token.tok {
            Tok::Keyword("end") => Vec::new(),
            Tok::Keyword("else") => {
                let body = self.statements()?;
                self.expect(&Tok::Keyword("end"), "'end'")?;
                body
            }
            Tok::Keyword("elsif") if !unless => vec![self.if_rest(token.pos, false)?],
            _ => return Err(Self::unexpected(&token, "'end'")),
        };
        let (yes, no) = if unless {
            (otherwise, then)
        } else {
            (then, otherwise)
        };
        Ok(Node::new(Expr::If(Box::new(cond), yes, no), pos))
    }

    /// The pairs of a `{...}` hash, after its `{`.
    fn hash(&mut self) -> Result<Vec<(Node, Node)>, ParseError> {
        let saved_no_do = std::mem::replace(&mut self.no_do, false);
        let result = self.hash_pairs();
        self.no_do = saved_no_do;
        result
    }

    fn hash_pairs(&mut self) -> Result<Vec<(Node, Node)>, ParseError> {
        let mut pairs = Vec::new();
        loop {
            self.skip_newlines();
            if *self.peek() == Tok::RBrace {
                self.advance();
                return Ok(pairs);
            }
            if let Tok::Label(_) = self.peek() {
                pairs.push(self.label_pair()?);
            } else {
                let key = self.arg()?;
                self.skip_newlines();
                if *self.peek() != Tok::Arrow {
                    return Err(Self::unexpected(self.peek_token(), "'=>'"));
                }
                self.advance();
                self.skip_newlines();
                let value = self.arg()?;
                pairs.push((key, value));
            }
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

/// The level of `+` and `-`.
const ADDITIVE: usize = 7;

/// The precedence level of a binary operator, loosest (0) to tightest, as Ruby ranks them.
fn binary_level(op: &str) -> Option<usize> {
    Some(match op {
        "||" => 0,
        "&&" => 1,
        "<=>" | "==" | "===" | "!=" | "=~" | "!~" => 2,
        "<" | "<=" | ">" | ">=" => 3,
        "|" | "^" => 4,
        "&" => 5,
        "<<" | ">>" => 6,
        "+" | "-" => ADDITIVE,
        "*" | "/" | "%" => 8,
        _ => return None,
    })
}

/// Why a Ruby keyword the subset leaves out is left out.
fn unsupported(word: &str) -> Option<&'static str> {
    UNSUPPORTED
        .iter()
        .find(|(w, _)| *w == word)
        .map(|(_, why)| *why)
}

/// `-literal` as the literal's magnitude: the right operand of `x -1` read as `x - 1`.
fn negate_literal(node: Node) -> Node {
    match node.expr {
        Expr::Lit(Value::Int(i)) => Node::new(Expr::Lit(Value::Int(i.wrapping_neg())), node.pos),
        Expr::Lit(Value::Float(f)) => Node::new(Expr::Lit(Value::Float(-f)), node.pos),
        // `x -1 * 2`: the literal was the first factor; negate the whole product instead,
        // which is the same number.
        _ => Node::new(Expr::Neg(Box::new(node.clone())), node.pos),
    }
}

#[cfg(test)]
#[allow(clippy::unwrap_used)]
mod tests {
    use super::*;

    /// A statement as the tests see it: a command call with literal arguments.
    #[derive(Debug, PartialEq)]
    struct Command {
        name: String,
        args: Vec<Value>,
        pos: Pos,
    }

    fn parse_program(src: &str, first_line: u32) -> Result<Vec<Command>, ParseError> {
        let nodes = super::parse_program(src, first_line, &HashSet::new())?;
        Ok(nodes.into_iter().map(command).collect())
    }

    fn completeness(src: &str) -> Completeness {
        super::completeness(src, &HashSet::new())
    }

    fn command(node: Node) -> Command {
        match node.expr {
            Expr::Call(Call {
                recv: None,
                name,
                args,
                ..
            }) => Command {
                name,
                args: args.iter().map(literal).collect(),
                pos: node.pos,
            },
            Expr::Assign(_, value) => command(*value),
            other => panic!("not a command: {other:?}"),
        }
    }

    fn literal(node: &Node) -> Value {
        match &node.expr {
            Expr::Lit(v) => v.clone(),
            Expr::Const(c) => Value::Const(c.clone()),
            Expr::Sym(s) => Value::Str(s.clone().into_bytes()),
            Expr::Array(items) => Value::Array(items.iter().map(literal).collect()),
            Expr::Hash(pairs) => Value::Hash(
                pairs
                    .iter()
                    .map(|(k, v)| (literal(k), literal(v)))
                    .collect(),
            ),
            other => panic!("not a literal: {other:?}"),
        }
    }

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
        let mut a = args(&format!("cmd({value_src})"));
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
    fn long_chains_are_bounded_too() {
        let sum = |n: usize| format!("puts 1{}", " + 1".repeat(n));
        assert!(super::parse_program(&sum(MAX_CHAIN - 1), 1, &HashSet::new()).is_ok());
        let err = super::parse_program(&sum(100_000), 1, &HashSet::new()).unwrap_err();
        assert_eq!(err.kind, ErrorKind::TooDeep { limit: MAX_CHAIN });
        let calls = format!("x = 1\nputs x{}", ".succ".repeat(100_000));
        let err = super::parse_program(&calls, 1, &HashSet::new()).unwrap_err();
        assert_eq!(err.kind, ErrorKind::TooDeep { limit: MAX_CHAIN });
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
                "put 't1',",
                at(1, 10),
                "unexpected end of input, expecting a value",
            ),
            (
                "put 't1', ;",
                at(1, 11),
                "unexpected ';', expecting a value",
            ),
            ("put \"\\xZZ\"", at(1, 6), "invalid hex escape"),
            ("put \"\\u12\"", at(1, 6), "invalid Unicode escape"),
            ("put \"\\u{D800}\"", at(1, 6), "invalid Unicode escape"),
            (
                "put \"#@var\"",
                at(1, 6),
                "interpolation of instance and global variables is not supported",
            ),
            (
                "def f; end",
                at(1, 1),
                "def is not supported by regionkv's shell",
            ),
            (
                "x = 1\nbegin\n",
                at(2, 1),
                "begin/rescue blocks are not run",
            ),
            (
                "for i in 1..3 do",
                at(1, 17),
                "unexpected end of input, expecting 'end'",
            ),
            (
                "3.times { |i| put 't', i",
                at(1, 25),
                "unexpected end of input, expecting '}'",
            ),
            (
                "if x > 1\n puts 1\nelse",
                at(3, 5),
                "unexpected end of input, expecting 'end'",
            ),
            (
                "puts 1 +",
                at(1, 9),
                "unexpected end of input, expecting a value",
            ),
            (
                "puts \"#{1 +}\"",
                at(1, 12),
                "unexpected end of input, expecting a value",
            ),
            (
                "puts \"#{1\"",
                at(1, 10),
                "unterminated string meets end of file",
            ),
            (
                "puts \"#{1",
                at(1, 10),
                "expecting '}' to close the interpolation",
            ),
            (
                "[1].each { |a b| }",
                at(1, 15),
                "unexpected identifier 'b', expecting ',' or '|'",
            ),
            ("x ? 1", at(1, 6), "unexpected end of input, expecting ':'"),
            (
                "puts(*a)",
                at(1, 6),
                "splat arguments (*args) is not supported",
            ),
            (
                "puts 1 2",
                at(1, 8),
                "unexpected integer literal, expecting ',' or the end of the statement",
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
            let _ = super::parse_program(src, 1, &HashSet::new());
            let _ = completeness(src);
        }
    }
}
