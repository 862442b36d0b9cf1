//! The syntax tree of the shell's Ruby: what `grammar.rs` builds and `interp.rs` runs.
//!
//! Every node keeps the position of its first token, so a runtime error names the line and
//! column of the expression that raised it. Names are resolved as Ruby resolves them at parse
//! time: an identifier that has been assigned earlier in the text (or in an earlier statement
//! of the session, as IRB keeps locals) is a [`Expr::Var`]; any other is a [`Call`] of a
//! method or shell command with no receiver.

use super::parse::{Pos, Value};

/// An expression and where it starts.
#[derive(Debug, Clone, PartialEq)]
pub struct Node {
    /// What it is.
    pub expr: Expr,
    /// Its first token.
    pub pos: Pos,
}

/// One piece of an interpolated string.
#[derive(Debug, Clone, PartialEq)]
pub enum Piece {
    /// Literal bytes.
    Lit(Vec<u8>),
    /// `#{...}`: statements whose last value is converted with `to_s`.
    Code(Vec<Node>),
}

/// What an assignment assigns to.
#[derive(Debug, Clone, PartialEq)]
pub enum Target {
    /// A local variable.
    Var(String),
    /// `receiver[index...]`.
    Index(Box<Node>, Vec<Node>),
}

/// A method or command call.
#[derive(Debug, Clone, PartialEq)]
pub struct Call {
    /// The receiver; `None` for a call on `main` (a shell command, `puts`, ...).
    pub recv: Option<Box<Node>>,
    /// The method name.
    pub name: String,
    /// The arguments; a trailing `KEY => value` list is one [`Expr::Hash`].
    pub args: Vec<Node>,
    /// `{ |x| ... }` or `do |x| ... end`.
    pub block: Option<Box<Block>>,
}

/// A block and its parameters.
#[derive(Debug, Clone, PartialEq)]
pub struct Block {
    /// The names between the bars.
    pub params: Vec<String>,
    /// Its statements.
    pub body: Vec<Node>,
}

/// The expressions of the subset.
#[derive(Debug, Clone, PartialEq)]
pub enum Expr {
    /// A literal: string, integer, float, `true`, `false` or `nil`.
    Lit(Value),
    /// A double-quoted string with interpolations.
    DStr(Vec<Piece>),
    /// `:name`.
    Sym(String),
    /// A constant (`VERSIONS`, `Bytes`).
    Const(String),
    /// `Outer::Name`.
    Scope(Box<Node>, String),
    /// `[a, b]`.
    Array(Vec<Node>),
    /// `{k => v}`.
    Hash(Vec<(Node, Node)>),
    /// `a..b` (`exclusive`: `a...b`).
    Range(Box<Node>, Box<Node>, bool),
    /// A local variable read.
    Var(String),
    /// `target = value`.
    Assign(Target, Box<Node>),
    /// `target op= value` (`||=` and `&&=` included).
    OpAssign(Target, &'static str, Box<Node>),
    /// A call.
    Call(Call),
    /// A binary operator, sent as a method to the left operand (`+`, `<<`, `==`, ...).
    Binary(&'static str, Box<Node>, Box<Node>),
    /// `-x`.
    Neg(Box<Node>),
    /// `!x` and `not x`.
    Not(Box<Node>),
    /// `a && b`, `a and b`.
    And(Box<Node>, Box<Node>),
    /// `a || b`, `a or b`.
    Or(Box<Node>, Box<Node>),
    /// `if`/`unless`/`?:` (an `unless` is an `if` with its branches swapped).
    If(Box<Node>, Vec<Node>, Vec<Node>),
    /// `while cond` (`until`: `negate`).
    While {
        /// The condition.
        cond: Box<Node>,
        /// Loop while the condition is false.
        negate: bool,
        /// The body.
        body: Vec<Node>,
    },
    /// `for a, b in iterable ... end`.
    For(Vec<String>, Box<Node>, Vec<Node>),
    /// `break` (with a value).
    Break(Option<Box<Node>>),
    /// `next` (with a value).
    Next(Option<Box<Node>>),
    /// `(a; b)`: statements whose value is the last one's.
    Seq(Vec<Node>),
}

impl Node {
    /// A node.
    pub fn new(expr: Expr, pos: Pos) -> Node {
        Node { expr, pos }
    }
}
