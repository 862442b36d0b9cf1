//! The interpreter of the shell's Ruby: runs the tree `grammar.rs` builds, with Ruby's values,
//! operators and the methods HBase shell users call on them, and hands shell commands to the
//! session, which prints them as HBase's shell does (a loop of 1,000 puts prints 1,000
//! `Took` lines, as JRuby's shell does).
//!
//! Values ([`Obj`]) are Ruby's: `nil`, booleans, 64-bit integers, floats, byte strings,
//! symbols, arrays and hashes (shared by reference, as Ruby's are), ranges, the table handles
//! `get_table` and `create` return, the Java `byte[]` that `Bytes.toBytes` and `to_java_bytes`
//! return, and a few classes (`Bytes`, `String`, `Time`, `Math`). HBase's constants
//! (`VERSIONS`, `COLUMNS`, ...) are strings whose value is their name, as in HBase's shell.
//!
//! Errors are Ruby's exceptions by class and message (`NoMethodError: undefined method
//! `foo' for 5:Integer`, `ZeroDivisionError: divided by 0`). One ends its top-level statement;
//! the session goes on with the next. Where regionkv parts from Ruby it says so: integers are
//! 64-bit (an overflow is an error, not a Bignum), `rand` is not Ruby's Mersenne Twister, and
//! Java classes other than `Bytes` are not there.
//!
//! Speed: the tree is walked once per evaluation with no re-parsing; variables live in one
//! map per session (block parameters are saved and restored around a block, so a block's
//! `|i|` never clobbers an outer `i`).

use std::cell::RefCell;
use std::collections::HashMap;
use std::fmt;
use std::io::{self, Write};
use std::rc::Rc;

use rand::rngs::SmallRng;
use rand::{RngExt, SeedableRng};

use super::ast::{Block, Call, Expr, Node, Piece, Target};
use super::engine::Ret;
use super::format::{ruby_float, ruby_inspect};
use super::parse::{Pos, Value};
use super::session::Session;
use super::sprintf::sprintf;

/// A Ruby value.
#[derive(Debug, Clone)]
pub enum Obj {
    /// `nil`.
    Nil,
    /// `true`, `false`.
    Bool(bool),
    /// An Integer (64-bit here).
    Int(i64),
    /// A Float.
    Float(f64),
    /// A String (bytes, as JRuby's strings from `to_s` of Java bytes may be).
    Str(Vec<u8>),
    /// A Symbol.
    Sym(String),
    /// An HBase shell constant: a String whose value is its name.
    Const(String),
    /// An Array, shared.
    Array(Rc<RefCell<Vec<Obj>>>),
    /// A Hash in insertion order, shared.
    Hash(Rc<RefCell<Vec<(Obj, Obj)>>>),
    /// A Range: start, end, and whether the end is excluded.
    Range(Box<Obj>, Box<Obj>, bool),
    /// `Hbase::Table` for the named table.
    Table(String),
    /// A Java `byte[]`.
    JBytes(Rc<Vec<u8>>),
    /// A class or module: `Bytes`, `String`, `Time`, `Math`, ...
    Class(&'static str),
    /// A Java package on the way to a class (`org.apache...`).
    Package(String),
    /// A Time, in milliseconds since the epoch.
    Time(i64),
}

impl Obj {
    fn array(items: Vec<Obj>) -> Obj {
        Obj::Array(Rc::new(RefCell::new(items)))
    }

    fn str(text: impl Into<Vec<u8>>) -> Obj {
        Obj::Str(text.into())
    }

    fn truthy(&self) -> bool {
        !matches!(self, Obj::Nil | Obj::Bool(false))
    }
}

/// What a shell command returns, as the Ruby value HBase's command method returns.
impl From<Ret> for Obj {
    fn from(ret: Ret) -> Obj {
        match ret {
            Ret::Nil => Obj::Nil,
            Ret::Bool(b) => Obj::Bool(b),
            Ret::Int(i) => Obj::Int(i),
            Ret::List(items) => Obj::array(items.into_iter().map(Obj::str).collect()),
            Ret::Table(name) => Obj::Table(name),
            Ret::Str(text) => Obj::str(text),
        }
    }
}

/// A Ruby exception: its class and message, and where it was raised.
#[derive(Debug, Clone, PartialEq)]
pub struct RubyError {
    /// The exception class (`NoMethodError`, `ArgumentError`, ...).
    pub class: &'static str,
    /// The message.
    pub message: String,
    /// The expression that raised it, once known.
    pub pos: Option<Pos>,
    /// For a call of an unknown name on `main`: the name (the session prints an unknown
    /// statement-level command as HBase's shell users know it).
    pub unknown: Option<String>,
}

impl RubyError {
    /// An exception of `class`.
    pub fn new(class: &'static str, message: impl Into<String>) -> RubyError {
        RubyError {
            class,
            message: message.into(),
            pos: None,
            unknown: None,
        }
    }
}

impl fmt::Display for RubyError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}: {}", self.class, self.message)?;
        if let Some(pos) = self.pos {
            write!(f, " ({pos})")?;
        }
        Ok(())
    }
}

/// Why evaluation stopped early.
#[derive(Debug)]
pub enum Unwind {
    /// An exception.
    Error(RubyError),
    /// `break`, with its value.
    Break(Obj),
    /// `next`, with its value.
    Next(Obj),
    /// `exit`/`quit`, with its code.
    Exit(Option<u8>),
    /// Ctrl-C.
    Interrupt,
    /// Writing the output failed.
    Io(io::Error),
}

impl From<RubyError> for Unwind {
    fn from(e: RubyError) -> Self {
        Unwind::Error(e)
    }
}

impl From<io::Error> for Unwind {
    fn from(e: io::Error) -> Self {
        Unwind::Io(e)
    }
}

type R<T> = Result<T, Unwind>;

fn err<T>(class: &'static str, message: impl Into<String>) -> R<T> {
    Err(Unwind::Error(RubyError::new(class, message)))
}

/// The state the interpreter keeps between statements: IRB's locals and `rand`'s generator.
pub struct Interp {
    /// Local variables of the top-level scope (blocks share it; see the module docs).
    pub vars: HashMap<String, Obj>,
    rng: SmallRng,
    /// Evaluations in progress (see [`MAX_EVAL_DEPTH`]).
    depth: usize,
}

/// The most items an array built in one step may have (`[0] * n`, `(a..b).to_a`,
/// `Array.new(n)`): Ruby would try, and the process would run out of memory.
const MAX_ITEMS: usize = 10_000_000;

/// The longest string built in one step (`'x' * n`, `rjust(n)`, a format width): 1 GiB.
pub const MAX_STRING_BYTES: usize = 1 << 30;

/// How deep evaluation may recurse before Ruby's `SystemStackError`. The grammar bounds
/// nesting (32) and chains (256) separately; this bounds a statement that maxes out both.
const MAX_EVAL_DEPTH: usize = 600;

impl Default for Interp {
    fn default() -> Self {
        let seed = std::time::SystemTime::now()
            .duration_since(std::time::UNIX_EPOCH)
            .map(|d| d.as_nanos() as u64)
            .unwrap_or(0);
        Interp {
            vars: HashMap::new(),
            rng: SmallRng::seed_from_u64(seed),
            depth: 0,
        }
    }
}

// ---------------------------------------------------------------------------------------------
// Conversions

/// Ruby's `to_s`.
pub fn to_s(v: &Obj) -> Vec<u8> {
    match v {
        Obj::Nil => Vec::new(),
        Obj::Bool(b) => b.to_string().into_bytes(),
        Obj::Int(i) => i.to_string().into_bytes(),
        Obj::Float(f) => float_to_s(*f).into_bytes(),
        Obj::Str(s) => s.clone(),
        Obj::Sym(s) | Obj::Const(s) | Obj::Package(s) => s.clone().into_bytes(),
        Obj::Range(a, b, x) => {
            let mut out = to_s(a);
            out.extend_from_slice(if *x { b"..." } else { b".." });
            out.extend(to_s(b));
            out
        }
        Obj::Class(name) => name.as_bytes().to_vec(),
        Obj::Time(ms) => time_to_s(*ms).into_bytes(),
        other => inspect(other).into_bytes(),
    }
}

/// Ruby's `Float#to_s`.
pub fn float_to_s(f: f64) -> String {
    ruby_float(f)
}

/// Ruby's `inspect`.
pub fn inspect(v: &Obj) -> String {
    match v {
        Obj::Nil => "nil".into(),
        Obj::Str(s) => ruby_inspect(&String::from_utf8_lossy(s)),
        Obj::Const(s) => ruby_inspect(s),
        Obj::Sym(s) => format!(":{s}"),
        Obj::Array(items) => {
            let items: Vec<String> = items.borrow().iter().map(inspect).collect();
            format!("[{}]", items.join(", "))
        }
        Obj::Hash(pairs) => {
            let pairs: Vec<String> = pairs
                .borrow()
                .iter()
                .map(|(k, v)| format!("{}=>{}", inspect(k), inspect(v)))
                .collect();
            format!("{{{}}}", pairs.join(", "))
        }
        Obj::Range(a, b, x) => format!(
            "{}{}{}",
            inspect(a),
            if *x { "..." } else { ".." },
            inspect(b)
        ),
        Obj::Table(name) => format!("Hbase::Table - {name}"),
        Obj::JBytes(bytes) => {
            let items: Vec<String> = bytes.iter().map(|b| (*b as i8).to_string()).collect();
            format!("byte[{}]", items.join(", "))
        }
        Obj::Package(p) => format!("Java::{p}"),
        other => String::from_utf8_lossy(&to_s(other)).into_owned(),
    }
}

/// The class name Ruby reports.
pub fn class_of(v: &Obj) -> &'static str {
    match v {
        Obj::Nil => "NilClass",
        Obj::Bool(true) => "TrueClass",
        Obj::Bool(false) => "FalseClass",
        Obj::Int(_) => "Integer",
        Obj::Float(_) => "Float",
        Obj::Str(_) | Obj::Const(_) => "String",
        Obj::Sym(_) => "Symbol",
        Obj::Array(_) => "Array",
        Obj::Hash(_) => "Hash",
        Obj::Range(..) => "Range",
        Obj::Table(_) => "Hbase::Table",
        Obj::JBytes(_) => "byte[]",
        Obj::Class(_) => "Class",
        Obj::Package(_) => "Module",
        Obj::Time(_) => "Time",
    }
}

/// How Ruby names a receiver in `undefined method ... for X`.
fn receiver_text(v: &Obj) -> String {
    match v {
        Obj::Nil => "nil:NilClass".into(),
        Obj::Class(name) => format!("{name}:Class"),
        other => {
            let mut text = inspect(other);
            if text.len() > 60 {
                text = format!("#<{}>", class_of(other));
                return text;
            }
            text.push(':');
            text.push_str(class_of(other));
            text
        }
    }
}

fn no_method<T>(name: &str, recv: &Obj) -> R<T> {
    err(
        "NoMethodError",
        format!("undefined method `{name}' for {}", receiver_text(recv)),
    )
}

/// `Integer("12")`: the whole string must be an integer (with `_`, sign, `0x`...).
pub fn parse_integer_strict(s: &[u8]) -> Result<i64, RubyError> {
    let invalid = || {
        RubyError::new(
            "ArgumentError",
            format!(
                "invalid value for Integer(): {}",
                ruby_inspect(&String::from_utf8_lossy(s))
            ),
        )
    };
    let text = std::str::from_utf8(s).map_err(|_| invalid())?.trim();
    let (negative, body) = match text.strip_prefix('-') {
        Some(rest) => (true, rest),
        None => (false, text.strip_prefix('+').unwrap_or(text)),
    };
    let (radix, digits) = match body.get(..2).map(str::to_ascii_lowercase).as_deref() {
        Some("0x") => (16, &body[2..]),
        Some("0b") => (2, &body[2..]),
        Some("0o") => (8, &body[2..]),
        _ if body.len() > 1 && body.starts_with('0') => (8, &body[1..]),
        _ => (10, body),
    };
    if digits.is_empty()
        || digits.starts_with('_')
        || digits.ends_with('_')
        || digits.contains("__")
    {
        return Err(invalid());
    }
    let clean: String = digits.chars().filter(|&c| c != '_').collect();
    let magnitude = i128::from_str_radix(&clean, radix).map_err(|_| invalid())?;
    let value = if negative { -magnitude } else { magnitude };
    i64::try_from(value).map_err(|_| {
        RubyError::new(
            "RangeError",
            format!("integer {value} too big for a 64-bit integer"),
        )
    })
}

/// `String#to_i`: the leading integer, 0 if none.
fn lenient_to_i(s: &[u8], radix: u32) -> i64 {
    let text = String::from_utf8_lossy(s);
    let text = text.trim_start();
    let (negative, body) = match text.strip_prefix('-') {
        Some(rest) => (true, rest),
        None => (false, text.strip_prefix('+').unwrap_or(text)),
    };
    let mut value: i64 = 0;
    let mut last_underscore = true;
    for c in body.chars() {
        if c == '_' && !last_underscore {
            last_underscore = true;
            continue;
        }
        let Some(d) = c.to_digit(radix) else { break };
        last_underscore = false;
        value = value
            .saturating_mul(i64::from(radix))
            .saturating_add(i64::from(d));
    }
    if negative { -value } else { value }
}

/// `String#to_f`: the leading float, 0.0 if none.
fn lenient_to_f(s: &[u8]) -> f64 {
    let text = String::from_utf8_lossy(s);
    let text = text.trim_start();
    let mut end = 0;
    let mut seen_dot = false;
    let mut seen_e = false;
    let bytes = text.as_bytes();
    while end < bytes.len() {
        let c = bytes[end];
        let ok = c.is_ascii_digit()
            || (c == b'_' && end > 0)
            || ((c == b'-' || c == b'+') && (end == 0 || matches!(bytes[end - 1], b'e' | b'E')))
            || (c == b'.'
                && !seen_dot
                && !seen_e
                && bytes.get(end + 1).is_some_and(u8::is_ascii_digit))
            || ((c == b'e' || c == b'E') && !seen_e && end > 0);
        if !ok {
            break;
        }
        seen_dot |= c == b'.';
        seen_e |= c == b'e' || c == b'E';
        end += 1;
    }
    let mut candidate: String = text[..end].chars().filter(|&c| c != '_').collect();
    while !candidate.is_empty() && candidate.parse::<f64>().is_err() {
        candidate.pop();
    }
    candidate.parse().unwrap_or(0.0)
}

/// Ruby's `Time#to_s`, in UTC (`2023-11-14 22:13:20 +0000`).
fn time_to_s(ms: i64) -> String {
    let secs = ms.div_euclid(1000);
    let days = secs.div_euclid(86_400);
    let rem = secs.rem_euclid(86_400);
    let (y, m, d) = regionkv::cell::civil_from_days(days);
    format!(
        "{y:04}-{m:02}-{d:02} {:02}:{:02}:{:02} +0000",
        rem / 3600,
        rem / 60 % 60,
        rem % 60
    )
}

/// Ruby's `==`.
fn equal(a: &Obj, b: &Obj) -> bool {
    match (a, b) {
        (Obj::Nil, Obj::Nil) => true,
        (Obj::Bool(x), Obj::Bool(y)) => x == y,
        (Obj::Int(x), Obj::Int(y)) => x == y,
        (Obj::Float(x), Obj::Float(y)) => x == y,
        (Obj::Int(x), Obj::Float(y)) | (Obj::Float(y), Obj::Int(x)) => (*x as f64) == *y,
        (Obj::Str(_) | Obj::Const(_), Obj::Str(_) | Obj::Const(_)) => to_s(a) == to_s(b),
        (Obj::Sym(x), Obj::Sym(y)) => x == y,
        (Obj::Array(x), Obj::Array(y)) => {
            Rc::ptr_eq(x, y) || {
                let (x, y) = (x.borrow(), y.borrow());
                x.len() == y.len() && x.iter().zip(y.iter()).all(|(a, b)| equal(a, b))
            }
        }
        (Obj::Hash(x), Obj::Hash(y)) => {
            Rc::ptr_eq(x, y) || {
                let (x, y) = (x.borrow(), y.borrow());
                x.len() == y.len()
                    && x.iter()
                        .all(|(k, v)| y.iter().any(|(k2, v2)| equal(k, k2) && equal(v, v2)))
            }
        }
        (Obj::Range(a1, b1, x1), Obj::Range(a2, b2, x2)) => {
            x1 == x2 && equal(a1, a2) && equal(b1, b2)
        }
        (Obj::Table(x), Obj::Table(y)) => x == y,
        (Obj::JBytes(x), Obj::JBytes(y)) => Rc::ptr_eq(x, y),
        (Obj::Class(x), Obj::Class(y)) => x == y,
        (Obj::Time(x), Obj::Time(y)) => x == y,
        _ => false,
    }
}

/// Ruby's `<=>` where defined.
fn compare(a: &Obj, b: &Obj) -> Option<std::cmp::Ordering> {
    match (a, b) {
        (Obj::Int(x), Obj::Int(y)) => Some(x.cmp(y)),
        (Obj::Float(x), Obj::Float(y)) => x.partial_cmp(y),
        (Obj::Int(x), Obj::Float(y)) => (*x as f64).partial_cmp(y),
        (Obj::Float(x), Obj::Int(y)) => x.partial_cmp(&(*y as f64)),
        (Obj::Str(_) | Obj::Const(_), Obj::Str(_) | Obj::Const(_)) => Some(to_s(a).cmp(&to_s(b))),
        (Obj::Sym(x), Obj::Sym(y)) => Some(x.cmp(y)),
        (Obj::Time(x), Obj::Time(y)) => Some(x.cmp(y)),
        (Obj::Array(x), Obj::Array(y)) => {
            let (x, y) = (x.borrow(), y.borrow());
            for (a, b) in x.iter().zip(y.iter()) {
                match compare(a, b)? {
                    std::cmp::Ordering::Equal => {}
                    other => return Some(other),
                }
            }
            Some(x.len().cmp(&y.len()))
        }
        _ => None,
    }
}

fn compare_or_fail(a: &Obj, b: &Obj) -> R<std::cmp::Ordering> {
    compare(a, b).ok_or_else(|| {
        Unwind::Error(RubyError::new(
            "ArgumentError",
            format!(
                "comparison of {} with {} failed",
                class_of(a),
                inspect_short(b)
            ),
        ))
    })
}

fn inspect_short(v: &Obj) -> String {
    match v {
        Obj::Nil => "nil".into(),
        Obj::Int(_) | Obj::Float(_) => inspect(v),
        other => class_of(other).into(),
    }
}

fn overflow<T>() -> R<T> {
    err(
        "RangeError",
        "integer overflow: regionkv's shell computes with 64-bit integers (Ruby would make a Bignum)",
    )
}

/// The integers of an integer range, as `(first, last inclusive)`; `None` when empty.
fn int_bounds(a: &Obj, b: &Obj, exclusive: bool) -> R<Option<(i64, i64)>> {
    let (Obj::Int(lo), Obj::Int(hi)) = (a, b) else {
        return err("TypeError", format!("can't iterate from {}", class_of(a)));
    };
    let hi = if exclusive {
        match hi.checked_sub(1) {
            Some(h) => h,
            None => return Ok(None),
        }
    } else {
        *hi
    };
    Ok((lo <= &hi).then_some((*lo, hi)))
}

/// Ruby's `String#succ` for the common cases (alphanumerics carry; others step the last byte).
fn string_succ(s: &[u8]) -> Vec<u8> {
    let mut out = s.to_vec();
    if out.is_empty() {
        return out;
    }
    let alnum = out.iter().any(u8::is_ascii_alphanumeric);
    let mut i = out.len();
    while i > 0 {
        i -= 1;
        let c = out[i];
        if alnum && !c.is_ascii_alphanumeric() {
            continue;
        }
        let (next, carry, first) = match c {
            b'z' => (b'a', true, b'a'),
            b'Z' => (b'A', true, b'A'),
            b'9' => (b'0', true, b'1'),
            c if alnum => (c + 1, false, 0),
            0xff => (0, true, 1),
            c => (c + 1, false, 0),
        };
        out[i] = next;
        if !carry {
            return out;
        }
        // Carry past the first alphanumeric: insert a new leading digit or letter.
        let leftmost = out[..i].iter().all(|c| alnum && !c.is_ascii_alphanumeric());
        if leftmost {
            out.insert(i, first);
            return out;
        }
    }
    out
}

/// Bytes of a `byte[]` argument of a `Bytes` method.
fn java_bytes<'a>(method: &str, v: &'a Obj) -> R<&'a [u8]> {
    match v {
        Obj::JBytes(b) => Ok(b.as_slice()),
        other => err(
            "NameError",
            format!(
                "no method '{method}' for arguments ({}) on Java::OrgApacheHadoopHbaseUtil::Bytes (give a byte[]: \"...\".to_java_bytes)",
                java_class(other)
            ),
        ),
    }
}

fn java_class(v: &Obj) -> &'static str {
    match v {
        Obj::Str(_) | Obj::Const(_) => "org.jruby.RubyString",
        Obj::Int(_) => "org.jruby.RubyFixnum",
        Obj::Float(_) => "org.jruby.RubyFloat",
        Obj::Nil => "NilClass",
        Obj::Bool(_) => "org.jruby.RubyBoolean",
        _ => "org.jruby.RubyObject",
    }
}

/// `Bytes.toLong` and friends: the value of the first `N` bytes, big-endian.
fn read_be<const N: usize>(bytes: &[u8]) -> R<[u8; N]> {
    match bytes.get(..N).and_then(|b| <[u8; N]>::try_from(b).ok()) {
        Some(a) if bytes.len() == N => Ok(a),
        _ => err(
            "Java::JavaLang::IllegalArgumentException",
            format!(
                "offset (0) + length ({N}) exceed the capacity of the array: {}",
                bytes.len()
            ),
        ),
    }
}

/// The Ruby the shell leaves out, for a call of that name: what to do instead.
fn unsupported_call(name: &str) -> Option<&'static str> {
    Some(match name {
        "require" | "require_relative" | "load" => {
            "files cannot be loaded; run them with regionkv shell -f"
        }
        "import" | "java_import" | "include" | "include_class" => "Java classes cannot be imported",
        "lambda" | "proc" | "define_method" | "method" => "procs and methods cannot be defined",
        "eval" | "instance_eval" | "binding" | "send" | "public_send" => {
            "dynamic evaluation is not run"
        }
        "system" | "exec" | "spawn" | "fork" | "open" | "gets" | "readline" => {
            "the shell does not run programs or read files"
        }
        "catch" | "throw" => "catch/throw is not run",
        _ => return None,
    })
}

// ---------------------------------------------------------------------------------------------
// Evaluation

impl<W: Write> Session<W> {
    /// Evaluates statements; the value is the last one's.
    pub(super) fn eval_body(&mut self, body: &[Node]) -> R<Obj> {
        let mut last = Obj::Nil;
        for node in body {
            last = self.eval(node)?;
        }
        Ok(last)
    }

    /// Evaluates one expression.
    pub(super) fn eval(&mut self, node: &Node) -> R<Obj> {
        // The parser bounds nesting and chains, so this only guards the product of the two.
        if self.interp.depth >= MAX_EVAL_DEPTH {
            return err("SystemStackError", "stack level too deep");
        }
        self.interp.depth += 1;
        let result = self.eval_inner(node);
        self.interp.depth -= 1;
        result.map_err(|e| match e {
            Unwind::Error(mut e) if e.pos.is_none() => {
                e.pos = Some(node.pos);
                Unwind::Error(e)
            }
            other => other,
        })
    }

    fn eval_inner(&mut self, node: &Node) -> R<Obj> {
        match &node.expr {
            Expr::Lit(v) => Ok(match v {
                Value::Str(s) => Obj::Str(s.clone()),
                Value::Int(i) => Obj::Int(*i),
                Value::Float(f) => Obj::Float(*f),
                Value::Bool(b) => Obj::Bool(*b),
                _ => Obj::Nil,
            }),
            Expr::DStr(pieces) => {
                let mut out = Vec::new();
                for piece in pieces {
                    match piece {
                        Piece::Lit(bytes) => out.extend_from_slice(bytes),
                        Piece::Code(body) => {
                            let v = self.eval_body(body)?;
                            out.extend(to_s(&v));
                        }
                    }
                }
                Ok(Obj::Str(out))
            }
            Expr::Sym(s) => Ok(Obj::Sym(s.clone())),
            Expr::Const(name) => Ok(constant(name)),
            Expr::Scope(outer, name) => {
                let outer = self.eval(outer)?;
                match (&outer, name.as_str()) {
                    (Obj::Class("Math"), "PI") => Ok(Obj::Float(std::f64::consts::PI)),
                    (Obj::Class("Math"), "E") => Ok(Obj::Float(std::f64::consts::E)),
                    (Obj::Class("HConstants"), "LATEST_TIMESTAMP") => Ok(Obj::Int(i64::MAX)),
                    (Obj::Class("HConstants"), "EMPTY_START_ROW" | "EMPTY_END_ROW") => {
                        Ok(Obj::JBytes(Rc::new(Vec::new())))
                    }
                    (Obj::Class("Integer"), "MAX") => Ok(Obj::Int(i64::MAX)),
                    _ => err(
                        "NameError",
                        format!(
                            "uninitialized constant {}::{name}",
                            String::from_utf8_lossy(&to_s(&outer))
                        ),
                    ),
                }
            }
            Expr::Array(items) => {
                let mut out = Vec::with_capacity(items.len());
                for item in items {
                    out.push(self.eval(item)?);
                }
                Ok(Obj::array(out))
            }
            Expr::Hash(pairs) => {
                let mut out: Vec<(Obj, Obj)> = Vec::with_capacity(pairs.len());
                for (k, v) in pairs {
                    let k = self.eval(k)?;
                    let v = self.eval(v)?;
                    hash_set(&mut out, k, v);
                }
                Ok(Obj::Hash(Rc::new(RefCell::new(out))))
            }
            Expr::Range(a, b, x) => {
                let a = self.eval(a)?;
                let b = self.eval(b)?;
                let ok = matches!(
                    (&a, &b),
                    (Obj::Int(_) | Obj::Float(_), Obj::Int(_) | Obj::Float(_))
                        | (Obj::Str(_) | Obj::Const(_), Obj::Str(_) | Obj::Const(_))
                        | (Obj::Nil, _)
                        | (_, Obj::Nil)
                );
                if !ok {
                    return err("ArgumentError", "bad value for range");
                }
                Ok(Obj::Range(Box::new(a), Box::new(b), *x))
            }
            Expr::Var(name) => Ok(self.interp.vars.get(name).cloned().unwrap_or(Obj::Nil)),
            Expr::Assign(target, value) => {
                let value = self.eval(value)?;
                self.assign(target, value.clone())?;
                Ok(value)
            }
            Expr::OpAssign(target, op, value) => {
                let current = match target {
                    Target::Var(name) => self.interp.vars.get(name).cloned().unwrap_or(Obj::Nil),
                    Target::Index(recv, index) => {
                        let recv = self.eval(recv)?;
                        let index = self.eval_args(index)?;
                        self.send(recv, "[]", index, None, node.pos)?
                    }
                };
                let value = match *op {
                    "||" if current.truthy() => return Ok(current),
                    "&&" if !current.truthy() => return Ok(current),
                    "||" | "&&" => self.eval(value)?,
                    op => {
                        let right = self.eval(value)?;
                        self.binary(op, current, right)?
                    }
                };
                self.assign(target, value.clone())?;
                Ok(value)
            }
            Expr::Call(call) => self.call(call, node.pos),
            Expr::Binary(op, left, right) => {
                // `s << "x"` appends to the string in the variable, as Ruby's mutable
                // strings do (arrays and hashes are shared already).
                if *op == "<<"
                    && let Expr::Var(name) = &left.expr
                    && let Some(Obj::Str(_)) = self.interp.vars.get(name)
                {
                    let right = self.eval(right)?;
                    let add = match right {
                        Obj::Int(i) => char::from_u32(u32::try_from(i).unwrap_or(u32::MAX))
                            .map(|c| c.to_string().into_bytes())
                            .ok_or_else(|| {
                                RubyError::new("RangeError", format!("{i} out of char range"))
                            })?,
                        Obj::Str(_) | Obj::Const(_) | Obj::Sym(_) => to_s(&right),
                        other => {
                            return err(
                                "TypeError",
                                format!(
                                    "no implicit conversion of {} into String",
                                    class_of(&other)
                                ),
                            );
                        }
                    };
                    if let Some(Obj::Str(s)) = self.interp.vars.get_mut(name) {
                        s.extend_from_slice(&add);
                        return Ok(Obj::Str(s.clone()));
                    }
                }
                let left = self.eval(left)?;
                let right = self.eval(right)?;
                self.binary(op, left, right)
            }
            Expr::Neg(inner) => match self.eval(inner)? {
                Obj::Int(i) => i.checked_neg().map(Obj::Int).map_or_else(overflow, Ok),
                Obj::Float(f) => Ok(Obj::Float(-f)),
                other => no_method("-@", &other),
            },
            Expr::Not(inner) => Ok(Obj::Bool(!self.eval(inner)?.truthy())),
            Expr::And(a, b) => {
                let a = self.eval(a)?;
                if a.truthy() { self.eval(b) } else { Ok(a) }
            }
            Expr::Or(a, b) => {
                let a = self.eval(a)?;
                if a.truthy() { Ok(a) } else { self.eval(b) }
            }
            Expr::If(cond, yes, no) => {
                if self.eval(cond)?.truthy() {
                    self.eval_body(yes)
                } else {
                    self.eval_body(no)
                }
            }
            Expr::While { cond, negate, body } => loop {
                super::interrupt::check()?;
                if self.eval(cond)?.truthy() == *negate {
                    return Ok(Obj::Nil);
                }
                match self.eval_body(body) {
                    Ok(_) | Err(Unwind::Next(_)) => {}
                    Err(Unwind::Break(v)) => return Ok(v),
                    Err(e) => return Err(e),
                }
            },
            Expr::For(vars, iterable, body) => {
                let iterable = self.eval(iterable)?;
                let mut run = |s: &mut Self, item: Obj| -> R<bool> {
                    s.bind(vars, vec![item]);
                    match s.eval_body(body) {
                        Ok(_) | Err(Unwind::Next(_)) => Ok(true),
                        Err(Unwind::Break(v)) => Err(Unwind::Break(v)),
                        Err(e) => Err(e),
                    }
                };
                let result = self.each_item(&iterable, &mut run);
                match result {
                    Ok(()) => Ok(iterable),
                    Err(Unwind::Break(v)) => Ok(v),
                    Err(e) => Err(e),
                }
            }
            Expr::Break(value) => {
                let v = match value {
                    Some(v) => self.eval(v)?,
                    None => Obj::Nil,
                };
                Err(Unwind::Break(v))
            }
            Expr::Next(value) => {
                let v = match value {
                    Some(v) => self.eval(v)?,
                    None => Obj::Nil,
                };
                Err(Unwind::Next(v))
            }
            Expr::Seq(body) => self.eval_body(body),
        }
    }

    fn assign(&mut self, target: &Target, value: Obj) -> R<()> {
        match target {
            Target::Var(name) => {
                self.interp.vars.insert(name.clone(), value);
                Ok(())
            }
            Target::Index(recv_node, index) => {
                let recv = self.eval(recv_node)?;
                let mut args = self.eval_args(index)?;
                args.push(value);
                self.send(recv, "[]=", args, None, recv_node.pos)
                    .map(|_| ())
            }
        }
    }

    /// Sets block or loop variables: one value, or an array spread over several names.
    fn bind(&mut self, names: &[String], mut values: Vec<Obj>) {
        if names.len() > 1
            && values.len() == 1
            && let Obj::Array(items) = &values[0]
        {
            let items = items.borrow().clone();
            values = items;
        }
        for (i, name) in names.iter().enumerate() {
            let v = values.get(i).cloned().unwrap_or(Obj::Nil);
            self.interp.vars.insert(name.clone(), v);
        }
    }

    /// Calls `block` with `args`; `next` ends just this call.
    fn yield_block(&mut self, block: &Block, args: Vec<Obj>) -> R<Obj> {
        super::interrupt::check()?;
        self.bind(&block.params, args);
        match self.eval_body(&block.body) {
            Err(Unwind::Next(v)) => Ok(v),
            other => other,
        }
    }

    /// Runs `f` for each item of an enumerable (ranges of integers lazily).
    fn each_item(&mut self, v: &Obj, f: &mut dyn FnMut(&mut Self, Obj) -> R<bool>) -> R<()> {
        match v {
            Obj::Range(a, b, x) if matches!(**a, Obj::Int(_)) => {
                if let Some((lo, hi)) = int_bounds(a, b, *x)? {
                    let mut i = lo;
                    loop {
                        super::interrupt::check()?;
                        if !f(self, Obj::Int(i))? {
                            break;
                        }
                        if i == hi {
                            break;
                        }
                        i += 1;
                    }
                }
                Ok(())
            }
            other => {
                for item in self.items(other)? {
                    super::interrupt::check()?;
                    if !f(self, item)? {
                        break;
                    }
                }
                Ok(())
            }
        }
    }

    /// The items of an enumerable, as an array would hold them.
    fn items(&mut self, v: &Obj) -> R<Vec<Obj>> {
        match v {
            Obj::Array(items) => Ok(items.borrow().clone()),
            Obj::Hash(pairs) => Ok(pairs
                .borrow()
                .iter()
                .map(|(k, v)| Obj::array(vec![k.clone(), v.clone()]))
                .collect()),
            Obj::Range(a, b, x) => match (&**a, &**b) {
                (Obj::Int(_), _) => {
                    let Some((lo, hi)) = int_bounds(a, b, *x)? else {
                        return Ok(Vec::new());
                    };
                    if hi.saturating_sub(lo) >= MAX_ITEMS as i64 {
                        return err(
                            "RangeError",
                            "range too large to make an array of (use each, which does not)",
                        );
                    }
                    Ok((lo..=hi).map(Obj::Int).collect())
                }
                (Obj::Str(_) | Obj::Const(_), Obj::Str(_) | Obj::Const(_)) => {
                    let (lo, hi) = (to_s(a), to_s(b));
                    let mut out = Vec::new();
                    let mut cur = lo;
                    while cur.len() <= hi.len() {
                        if *x && cur == hi {
                            break;
                        }
                        out.push(Obj::Str(cur.clone()));
                        if cur == hi || out.len() >= MAX_ITEMS {
                            break;
                        }
                        cur = string_succ(&cur);
                    }
                    Ok(out)
                }
                _ => err("TypeError", format!("can't iterate from {}", class_of(a))),
            },
            other => no_method("each", other),
        }
    }

    fn eval_args(&mut self, args: &[Node]) -> R<Vec<Obj>> {
        let mut out = Vec::with_capacity(args.len());
        for a in args {
            out.push(self.eval(a)?);
        }
        Ok(out)
    }

    fn call(&mut self, call: &Call, pos: Pos) -> R<Obj> {
        let block = call.block.as_deref();
        // A block's parameters are its own: an outer `i` is the same after `each { |i| }`.
        let saved: Vec<(String, Option<Obj>)> = block
            .map(|b| {
                b.params
                    .iter()
                    .map(|p| (p.clone(), self.interp.vars.get(p).cloned()))
                    .collect()
            })
            .unwrap_or_default();
        let result = self.call_inner(call, block, pos);
        for (name, value) in saved {
            match value {
                Some(v) => self.interp.vars.insert(name, v),
                None => self.interp.vars.remove(&name),
            };
        }
        result
    }

    fn call_inner(&mut self, call: &Call, block: Option<&Block>, pos: Pos) -> R<Obj> {
        let result = match &call.recv {
            None => {
                let args = self.eval_args(&call.args)?;
                self.call_main(&call.name, args, block, pos)
            }
            Some(recv) => {
                let recv = self.eval(recv)?;
                let args = self.eval_args(&call.args)?;
                self.send(recv, &call.name, args, block, pos)
            }
        };
        match result {
            // `break` in a block ends the method the block was given to.
            Err(Unwind::Break(v)) if block.is_some() => Ok(v),
            other => other,
        }
    }

    /// A call with no receiver: Kernel methods, the shell's commands.
    fn call_main(&mut self, name: &str, args: Vec<Obj>, block: Option<&Block>, pos: Pos) -> R<Obj> {
        match name {
            "puts" => {
                if args.is_empty() {
                    writeln!(self.out())?;
                }
                for a in &args {
                    self.puts(a)?;
                }
                Ok(Obj::Nil)
            }
            "print" => {
                for a in &args {
                    let bytes = to_s(a);
                    self.out().write_all(&bytes)?;
                }
                Ok(Obj::Nil)
            }
            "p" | "pp" => {
                for a in &args {
                    let text = inspect(a);
                    writeln!(self.out(), "{text}")?;
                }
                Ok(match args.len() {
                    0 => Obj::Nil,
                    1 => args.into_iter().next().unwrap_or(Obj::Nil),
                    _ => Obj::array(args),
                })
            }
            "format" | "sprintf" | "printf" => {
                let Some((fmt, rest)) = args.split_first() else {
                    return err("ArgumentError", "too few arguments");
                };
                let text = sprintf(&to_s(fmt), rest)?;
                if name == "printf" {
                    self.out().write_all(&text)?;
                    Ok(Obj::Nil)
                } else {
                    Ok(Obj::Str(text))
                }
            }
            "rand" => self.rand(args.first()),
            "srand" => {
                let seed = match args.first() {
                    Some(Obj::Int(i)) => *i as u64,
                    _ => 0,
                };
                self.interp.rng = SmallRng::seed_from_u64(seed);
                Ok(Obj::Int(0))
            }
            "sleep" => {
                let secs = match args.first() {
                    Some(Obj::Int(i)) => *i as f64,
                    Some(Obj::Float(f)) => *f,
                    _ => return err("ArgumentError", "sleep takes a number of seconds"),
                };
                // At most a day: a longer sleep is a mistake, and Ctrl-C stops any of them.
                let nap = std::time::Duration::try_from_secs_f64(secs.clamp(0.0, 86_400.0))
                    .unwrap_or_default();
                let until = std::time::Instant::now() + nap;
                while std::time::Instant::now() < until {
                    super::interrupt::check()?;
                    std::thread::sleep(
                        std::time::Duration::from_millis(20)
                            .min(until.saturating_duration_since(std::time::Instant::now())),
                    );
                }
                Ok(Obj::Int(secs.round() as i64))
            }
            "loop" => {
                let Some(block) = block else {
                    return err("ArgumentError", "loop needs a block");
                };
                loop {
                    self.yield_block(block, vec![])?;
                }
            }
            "Integer" => match args.first() {
                Some(Obj::Int(i)) => Ok(Obj::Int(*i)),
                Some(Obj::Float(f)) if f.is_finite() => Ok(Obj::Int(f.trunc() as i64)),
                Some(Obj::Str(s)) => Ok(Obj::Int(parse_integer_strict(s)?)),
                Some(other) => err(
                    "TypeError",
                    format!("can't convert {} into Integer", class_of(other)),
                ),
                None => err(
                    "ArgumentError",
                    "wrong number of arguments (given 0, expected 1..2)",
                ),
            },
            "Float" => match args.first() {
                Some(Obj::Int(i)) => Ok(Obj::Float(*i as f64)),
                Some(Obj::Float(f)) => Ok(Obj::Float(*f)),
                Some(Obj::Str(s)) => std::str::from_utf8(s)
                    .ok()
                    .and_then(|t| t.trim().replace('_', "").parse::<f64>().ok())
                    .map(Obj::Float)
                    .map_or_else(
                        || {
                            err(
                                "ArgumentError",
                                format!(
                                    "invalid value for Float(): {}",
                                    inspect(&Obj::Str(s.clone()))
                                ),
                            )
                        },
                        Ok,
                    ),
                Some(other) => err(
                    "TypeError",
                    format!("can't convert {} into Float", class_of(other)),
                ),
                None => err(
                    "ArgumentError",
                    "wrong number of arguments (given 0, expected 1)",
                ),
            },
            "String" => Ok(Obj::Str(args.first().map(to_s).unwrap_or_default())),
            "Array" => Ok(match args.into_iter().next() {
                Some(Obj::Array(a)) => Obj::Array(a),
                Some(Obj::Nil) | None => Obj::array(vec![]),
                Some(other) => Obj::array(vec![other]),
            }),
            "raise" | "fail" => {
                let message = args
                    .first()
                    .map(|m| String::from_utf8_lossy(&to_s(m)).into_owned());
                err(
                    "RuntimeError",
                    message.unwrap_or_else(|| "unhandled exception".into()),
                )
            }
            "block_given?" => Ok(Obj::Bool(false)),
            "org" | "java" | "javax" | "com" => Ok(Obj::Package(name.to_string())),
            "exit" | "quit" => {
                let values: Vec<Value> = args.iter().map(to_value).collect::<Result<_, _>>()?;
                match self.exit_code(&values)? {
                    Some(code) => Err(Unwind::Exit(code)),
                    None => Ok(Obj::Nil),
                }
            }
            "help" | "clock" | "refresh" => {
                let values: Vec<Value> = args.iter().map(to_value).collect::<Result<_, _>>()?;
                match name {
                    "help" => self.help_command(&values)?,
                    "clock" => self.clock_command(&values)?,
                    _ => self.refresh_command(&values)?,
                }
                Ok(Obj::Nil)
            }
            _ => {
                if let Some(why) = unsupported_call(name) {
                    return err(
                        "NotImplementedError",
                        format!(
                            "{name} is not supported by regionkv's shell: {why} (SHELL.md lists the Ruby it runs)"
                        ),
                    );
                }
                if super::commands::lookup(name).is_none() {
                    let message = if args.is_empty() && block.is_none() {
                        format!("undefined local variable or method `{name}' for main:Object")
                    } else {
                        format!("undefined method `{name}' for main:Object")
                    };
                    let mut e = RubyError::new(
                        if args.is_empty() {
                            "NameError"
                        } else {
                            "NoMethodError"
                        },
                        message,
                    );
                    e.unknown = Some(name.to_string());
                    e.pos = Some(pos);
                    return Err(Unwind::Error(e));
                }
                // Moved, not copied: an argument may be a value of many megabytes.
                let values: Vec<Value> =
                    args.into_iter().map(into_value).collect::<Result<_, _>>()?;
                Ok(self.run_shell_command(name, &values)?.into())
            }
        }
    }

    fn puts(&mut self, v: &Obj) -> R<()> {
        match v {
            Obj::Array(items) => {
                let items = items.borrow().clone();
                if items.is_empty() {
                    writeln!(self.out())?;
                }
                for item in &items {
                    self.puts(item)?;
                }
            }
            other => {
                let mut bytes = to_s(other);
                if bytes.last() != Some(&b'\n') {
                    bytes.push(b'\n');
                }
                self.out().write_all(&bytes)?;
            }
        }
        Ok(())
    }

    fn rand(&mut self, arg: Option<&Obj>) -> R<Obj> {
        let rng = &mut self.interp.rng;
        Ok(match arg {
            None | Some(Obj::Nil) | Some(Obj::Int(0)) => Obj::Float(rng.random::<f64>()),
            Some(Obj::Int(n)) => Obj::Int(rng.random_range(0..n.unsigned_abs()) as i64),
            Some(Obj::Float(f)) => Obj::Float(rng.random::<f64>() * f.abs()),
            Some(Obj::Range(a, b, x)) => match int_bounds(a, b, *x)? {
                Some((lo, hi)) => Obj::Int(rng.random_range(lo..=hi)),
                None => Obj::Nil,
            },
            Some(other) => {
                return err(
                    "TypeError",
                    format!("no implicit conversion of {} into Integer", class_of(other)),
                );
            }
        })
    }

    /// A binary operator.
    fn binary(&mut self, op: &str, left: Obj, right: Obj) -> R<Obj> {
        use Obj::{Float as F, Int as I};
        let float_op = |a: f64, b: f64| -> Option<Obj> {
            Some(match op {
                "+" => F(a + b),
                "-" => F(a - b),
                "*" => F(a * b),
                "/" => F(a / b),
                "%" => F(a - b * (a / b).floor()),
                "**" => F(a.powf(b)),
                _ => return None,
            })
        };
        match op {
            "==" => return Ok(Obj::Bool(equal(&left, &right))),
            "===" => {
                return Ok(Obj::Bool(match &left {
                    Obj::Range(..) => self.range_include(&left, &right)?,
                    Obj::Class(name) => class_of(&right) == *name,
                    _ => equal(&left, &right),
                }));
            }
            "<=>" => {
                return Ok(compare(&left, &right)
                    .map(|o| Obj::Int(o as i64))
                    .unwrap_or(Obj::Nil));
            }
            "<" | "<=" | ">" | ">=" if !matches!(left, Obj::Array(_) | Obj::Hash(_) | Obj::Nil) => {
                let o = compare_or_fail(&left, &right)?;
                return Ok(Obj::Bool(match op {
                    "<" => o.is_lt(),
                    "<=" => o.is_le(),
                    ">" => o.is_gt(),
                    _ => o.is_ge(),
                }));
            }
            "=~" | "!~" => {
                return err(
                    "NotImplementedError",
                    "regular expressions are not supported by regionkv's shell (SHELL.md lists the Ruby it runs)",
                );
            }
            _ => {}
        }
        match (&left, &right) {
            (I(a), I(b)) => {
                let (a, b) = (*a, *b);
                let v = match op {
                    "+" => a.checked_add(b),
                    "-" => a.checked_sub(b),
                    "*" => a.checked_mul(b),
                    "/" | "%" if b == 0 => return err("ZeroDivisionError", "divided by 0"),
                    "/" => a
                        .checked_div_euclid(b)
                        .map(|_| a.div_euclid(b) - i64::from(b < 0 && a.rem_euclid(b) != 0)),
                    "%" if b == -1 => Some(0),
                    "%" => a
                        .checked_rem_euclid(b)
                        .map(|r| if b < 0 && r != 0 { r + b } else { r }),
                    "**" if b < 0 => return Ok(F((a as f64).powf(b as f64))),
                    "**" => u32::try_from(b).ok().and_then(|b| a.checked_pow(b)),
                    "&" => Some(a & b),
                    "|" => Some(a | b),
                    "^" => Some(a ^ b),
                    "<<" if b < 0 => Some(a >> b.unsigned_abs().min(63)),
                    "<<" => u32::try_from(b)
                        .ok()
                        .filter(|b| *b < 63)
                        .and_then(|b| a.checked_mul(1 << b)),
                    ">>" if b < 0 => u32::try_from(b.unsigned_abs())
                        .ok()
                        .filter(|b| *b < 63)
                        .and_then(|b| a.checked_mul(1 << b)),
                    ">>" => Some(a >> b.min(63)),
                    _ => return no_method(op, &left),
                };
                v.map(I).map_or_else(overflow, Ok)
            }
            (I(a), F(b)) => float_op(*a as f64, *b).map_or_else(|| no_method(op, &left), Ok),
            (F(a), I(b)) => float_op(*a, *b as f64).map_or_else(|| no_method(op, &left), Ok),
            (F(a), F(b)) => float_op(*a, *b).map_or_else(|| no_method(op, &left), Ok),
            (I(_) | F(_), _) if matches!(op, "+" | "-" | "*" | "/" | "%" | "**") => err(
                "TypeError",
                format!(
                    "{} can't be coerced into {}",
                    conversion_name(&right),
                    class_of(&left)
                ),
            ),
            (Obj::Str(_) | Obj::Const(_), _) => self.string_op(op, &left, right),
            (Obj::Array(items), _) => match (op, &right) {
                ("+", Obj::Array(other)) => {
                    let mut v = items.borrow().clone();
                    v.extend(other.borrow().iter().cloned());
                    Ok(Obj::array(v))
                }
                ("-", Obj::Array(other)) => {
                    let other = other.borrow();
                    let v = items
                        .borrow()
                        .iter()
                        .filter(|x| !other.iter().any(|y| equal(x, y)))
                        .cloned()
                        .collect();
                    Ok(Obj::array(v))
                }
                ("*", I(n)) => {
                    let n = usize::try_from(*n)
                        .map_err(|_| RubyError::new("ArgumentError", "negative argument"))?;
                    let items = items.borrow();
                    if items.len().saturating_mul(n) > MAX_ITEMS {
                        return err("ArgumentError", "argument too big");
                    }
                    Ok(Obj::array(
                        items
                            .iter()
                            .cloned()
                            .cycle()
                            .take(items.len() * n)
                            .collect(),
                    ))
                }
                ("*", Obj::Str(sep)) => {
                    let parts: Vec<Vec<u8>> = items.borrow().iter().map(to_s).collect();
                    Ok(Obj::Str(parts.join(sep.as_slice())))
                }
                ("<<", _) => {
                    items.borrow_mut().push(right);
                    Ok(left.clone())
                }
                ("&", Obj::Array(other)) => {
                    let other = other.borrow();
                    let mut v: Vec<Obj> = Vec::new();
                    for x in items.borrow().iter() {
                        if other.iter().any(|y| equal(x, y)) && !v.iter().any(|y| equal(x, y)) {
                            v.push(x.clone());
                        }
                    }
                    Ok(Obj::array(v))
                }
                ("+" | "-" | "&", _) => err(
                    "TypeError",
                    format!("no implicit conversion of {} into Array", class_of(&right)),
                ),
                _ => no_method(op, &left),
            },
            (Obj::Time(ms), _) if op == "-" => match right {
                Obj::Time(other) => Ok(F(ms.saturating_sub(other) as f64 / 1000.0)),
                I(s) => Ok(Obj::Time(ms.saturating_sub(s.saturating_mul(1000)))),
                F(s) => Ok(Obj::Time(ms.saturating_sub((s * 1000.0) as i64))),
                _ => no_method(op, &left),
            },
            (Obj::Time(ms), _) if op == "+" => match right {
                I(s) => Ok(Obj::Time(ms.saturating_add(s.saturating_mul(1000)))),
                F(s) => Ok(Obj::Time(ms.saturating_add((s * 1000.0) as i64))),
                _ => no_method(op, &left),
            },
            (Obj::Bool(a), _) if matches!(op, "&" | "|" | "^") => {
                let b = right.truthy();
                Ok(Obj::Bool(match op {
                    "&" => *a && b,
                    "|" => *a || b,
                    _ => *a != b,
                }))
            }
            _ => no_method(op, &left),
        }
    }

    fn string_op(&mut self, op: &str, left: &Obj, right: Obj) -> R<Obj> {
        let s = to_s(left);
        match op {
            "+" => match &right {
                Obj::Str(_) | Obj::Const(_) => {
                    let mut out = s;
                    out.extend(to_s(&right));
                    Ok(Obj::Str(out))
                }
                other => err(
                    "TypeError",
                    format!(
                        "no implicit conversion of {} into String",
                        conversion_name(other)
                    ),
                ),
            },
            "*" => match right {
                Obj::Int(n) if n >= 0 => {
                    let n = usize::try_from(n).unwrap_or(usize::MAX);
                    if s.len().saturating_mul(n) > MAX_STRING_BYTES {
                        return err("ArgumentError", "argument too big");
                    }
                    Ok(Obj::Str(s.repeat(n)))
                }
                Obj::Int(_) => err("ArgumentError", "negative argument"),
                other => err(
                    "TypeError",
                    format!(
                        "no implicit conversion of {} into Integer",
                        conversion_name(&other)
                    ),
                ),
            },
            "%" => {
                let args = match &right {
                    Obj::Array(items) => items.borrow().clone(),
                    _ => vec![right],
                };
                Ok(Obj::Str(sprintf(&s, &args)?))
            }
            "<<" => {
                let mut out = s;
                match &right {
                    Obj::Int(i) => out.extend(
                        char::from_u32(u32::try_from(*i).unwrap_or(u32::MAX))
                            .ok_or_else(|| {
                                RubyError::new("RangeError", format!("{i} out of char range"))
                            })?
                            .to_string()
                            .into_bytes(),
                    ),
                    Obj::Str(_) | Obj::Const(_) => out.extend(to_s(&right)),
                    other => {
                        return err(
                            "TypeError",
                            format!(
                                "no implicit conversion of {} into String",
                                conversion_name(other)
                            ),
                        );
                    }
                }
                Ok(Obj::Str(out))
            }
            _ => no_method(op, left),
        }
    }

    fn range_include(&mut self, range: &Obj, v: &Obj) -> R<bool> {
        let Obj::Range(a, b, x) = range else {
            return Ok(false);
        };
        let above = match &**a {
            Obj::Nil => true,
            a => compare(a, v).is_some_and(|o| o.is_le()),
        };
        let below = match &**b {
            Obj::Nil => true,
            b => compare(v, b).is_some_and(|o| if *x { o.is_lt() } else { o.is_le() }),
        };
        Ok(above && below)
    }

    /// A method call on a value.
    fn send(
        &mut self,
        recv: Obj,
        name: &str,
        args: Vec<Obj>,
        block: Option<&Block>,
        pos: Pos,
    ) -> R<Obj> {
        // Methods every object has.
        match (name, args.len()) {
            ("nil?", 0) => return Ok(Obj::Bool(matches!(recv, Obj::Nil))),
            ("inspect", 0) => return Ok(Obj::str(inspect(&recv))),
            ("class", 0) => return Ok(Obj::Class(class_of(&recv))),
            ("==" | "eql?" | "equal?", 1) => return Ok(Obj::Bool(equal(&recv, &args[0]))),
            ("!=", 1) => return Ok(Obj::Bool(!equal(&recv, &args[0]))),
            ("!", 0) => return Ok(Obj::Bool(!recv.truthy())),
            ("is_a?" | "kind_of?" | "instance_of?", 1) => {
                let Obj::Class(class) = &args[0] else {
                    return err("TypeError", "class or module required");
                };
                let mine = class_of(&recv);
                let numeric = matches!(mine, "Integer" | "Float") && *class == "Numeric";
                let enumerable =
                    matches!(mine, "Array" | "Hash" | "Range") && *class == "Enumerable";
                return Ok(Obj::Bool(
                    mine == *class || *class == "Object" || numeric || enumerable,
                ));
            }
            ("dup" | "clone" | "freeze" | "itself", 0) => {
                return Ok(match recv {
                    Obj::Array(items) if name != "freeze" && name != "itself" => {
                        Obj::array(items.borrow().clone())
                    }
                    Obj::Hash(pairs) if name != "freeze" && name != "itself" => {
                        Obj::Hash(Rc::new(RefCell::new(pairs.borrow().clone())))
                    }
                    other => other,
                });
            }
            ("frozen?", 0) => return Ok(Obj::Bool(false)),
            ("to_s", 0) if !matches!(recv, Obj::Int(_)) => return Ok(Obj::Str(to_s(&recv))),
            ("tap", 0) => {
                if let Some(block) = block {
                    self.yield_block(block, vec![recv.clone()])?;
                }
                return Ok(recv);
            }
            ("then" | "yield_self", 0) => {
                if let Some(block) = block {
                    return self.yield_block(block, vec![recv]);
                }
                return Ok(recv);
            }
            _ => {}
        }
        if let (
            "+" | "-" | "*" | "/" | "%" | "**" | "<<" | "<" | ">" | "<=" | ">=" | "<=>" | "&" | "|"
            | "^",
            1,
        ) = (name, args.len())
        {
            let right = args.into_iter().next().unwrap_or(Obj::Nil);
            return self.binary(name, recv, right);
        }
        match &recv {
            Obj::Int(i) => self.int_method(*i, name, args, block, &recv),
            Obj::Float(f) => float_method(*f, name, &args, &recv),
            Obj::Str(_) | Obj::Const(_) => self.string_method(&recv, name, args, block),
            Obj::Sym(s) => match name {
                "to_sym" => Ok(recv.clone()),
                "length" | "size" => Ok(Obj::Int(s.chars().count() as i64)),
                "to_proc" => err(
                    "NotImplementedError",
                    "procs are not supported by regionkv's shell",
                ),
                _ => no_method(name, &recv),
            },
            Obj::Array(_) | Obj::Range(..) | Obj::Hash(_) => {
                self.enum_method(&recv, name, args, block)
            }
            Obj::Table(table) => self.table_method(table.clone(), name, args, block, &recv),
            Obj::JBytes(bytes) => match name {
                "length" | "size" => Ok(Obj::Int(bytes.len() as i64)),
                "to_a" => Ok(Obj::array(
                    bytes
                        .iter()
                        .map(|b| Obj::Int(i64::from(*b as i8)))
                        .collect(),
                )),
                "[]" => match args.first() {
                    Some(Obj::Int(i)) => Ok(usize::try_from(*i)
                        .ok()
                        .and_then(|i| bytes.get(i))
                        .map_or(Obj::Nil, |b| Obj::Int(i64::from(*b as i8)))),
                    _ => no_method(name, &recv),
                },
                _ => no_method(name, &recv),
            },
            Obj::Class(class) => self.class_method(class, name, args, &recv),
            Obj::Package(path) => {
                let full = format!("{path}.{name}");
                match full.as_str() {
                    "org.apache.hadoop.hbase.util.Bytes" => Ok(Obj::Class("Bytes")),
                    "org.apache.hadoop.hbase.HConstants" => Ok(Obj::Class("HConstants")),
                    "java.lang.System" => Ok(Obj::Class("System")),
                    _ if name.starts_with(|c: char| c.is_ascii_uppercase()) => err(
                        "NotImplementedError",
                        format!(
                            "Java class {full} is not supported by regionkv's shell (only Bytes is); for a filter, give its filter-language string: FILTER => \"PrefixFilter('r')\""
                        ),
                    ),
                    _ => Ok(Obj::Package(full)),
                }
            }
            Obj::Time(ms) => match name {
                "to_i" => Ok(Obj::Int(ms.div_euclid(1000))),
                "to_f" => Ok(Obj::Float(*ms as f64 / 1000.0)),
                "usec" => Ok(Obj::Int(ms.rem_euclid(1000) * 1000)),
                "year" => Ok(Obj::Int(
                    regionkv::cell::civil_from_days(ms.div_euclid(86_400_000)).0,
                )),
                _ => no_method(name, &recv),
            },
            Obj::Bool(_) | Obj::Nil => match (&recv, name) {
                (Obj::Nil, "to_a") => Ok(Obj::array(vec![])),
                (Obj::Nil, "to_i") => Ok(Obj::Int(0)),
                (Obj::Nil, "to_f") => Ok(Obj::Float(0.0)),
                (Obj::Bool(a), "&" | "|" | "^") => {
                    let b = args.first().is_some_and(Obj::truthy);
                    Ok(Obj::Bool(match name {
                        "&" => *a && b,
                        "|" => *a || b,
                        _ => *a != b,
                    }))
                }
                _ => {
                    let _ = pos;
                    no_method(name, &recv)
                }
            },
        }
    }

    fn int_method(
        &mut self,
        i: i64,
        name: &str,
        args: Vec<Obj>,
        block: Option<&Block>,
        recv: &Obj,
    ) -> R<Obj> {
        let arg_int = |n: usize| int_arg(&args, n, true);
        match name {
            "times" | "upto" | "downto" | "step" => {
                let (start, stop, step) = match name {
                    "times" => (0, i.saturating_sub(1), 1),
                    "upto" => (i, arg_int(0)?, 1),
                    "downto" => (i, arg_int(0)?, -1),
                    _ => {
                        let step = if args.len() > 1 { arg_int(1)? } else { 1 };
                        if step == 0 {
                            return err("ArgumentError", "step can't be 0");
                        }
                        (i, arg_int(0)?, step)
                    }
                };
                let Some(block) = block else {
                    // Ruby returns an Enumerator; the array of its items is what scripts use.
                    let mut out = Vec::new();
                    let mut k = start;
                    while (step > 0 && k <= stop) || (step < 0 && k >= stop) {
                        out.push(Obj::Int(k));
                        if out.len() >= MAX_ITEMS {
                            return err("RangeError", "too many items without a block");
                        }
                        let Some(next) = k.checked_add(step) else {
                            break;
                        };
                        k = next;
                    }
                    return Ok(Obj::array(out));
                };
                let mut k = start;
                while (step > 0 && k <= stop) || (step < 0 && k >= stop) {
                    self.yield_block(block, vec![Obj::Int(k)])?;
                    let Some(next) = k.checked_add(step) else {
                        break;
                    };
                    k = next;
                }
                Ok(recv.clone())
            }
            "to_s" | "inspect" => {
                let base = if args.is_empty() { 10 } else { arg_int(0)? };
                if !(2..=36).contains(&base) {
                    return err("ArgumentError", format!("invalid radix {base}"));
                }
                Ok(Obj::str(to_radix(i, base as u32)))
            }
            "to_i" | "to_int" | "floor" | "ceil" | "round" | "truncate" | "ord" => Ok(Obj::Int(i)),
            "to_f" => Ok(Obj::Float(i as f64)),
            "chr" => u8::try_from(i).map(|b| Obj::Str(vec![b])).map_err(|_| {
                Unwind::Error(RubyError::new(
                    "RangeError",
                    format!("{i} out of char range"),
                ))
            }),
            "abs" | "magnitude" => i.checked_abs().map(Obj::Int).map_or_else(overflow, Ok),
            "succ" | "next" => i.checked_add(1).map(Obj::Int).map_or_else(overflow, Ok),
            "pred" => i.checked_sub(1).map(Obj::Int).map_or_else(overflow, Ok),
            "even?" => Ok(Obj::Bool(i % 2 == 0)),
            "odd?" => Ok(Obj::Bool(i % 2 != 0)),
            "zero?" => Ok(Obj::Bool(i == 0)),
            "positive?" => Ok(Obj::Bool(i > 0)),
            "negative?" => Ok(Obj::Bool(i < 0)),
            "fdiv" => Ok(Obj::Float(i as f64 / arg_int(0)? as f64)),
            "div" => self.binary("/", recv.clone(), Obj::Int(arg_int(0)?)),
            "modulo" => self.binary("%", recv.clone(), Obj::Int(arg_int(0)?)),
            "pow" => self.binary("**", recv.clone(), Obj::Int(arg_int(0)?)),
            "divmod" => {
                let q = self.binary("/", recv.clone(), Obj::Int(arg_int(0)?))?;
                let r = self.binary("%", recv.clone(), Obj::Int(arg_int(0)?))?;
                Ok(Obj::array(vec![q, r]))
            }
            "between?" => {
                let (lo, hi) = (arg_int(0)?, arg_int(1)?);
                Ok(Obj::Bool(lo <= i && i <= hi))
            }
            "size" => Ok(Obj::Int(8)),
            "~" => Ok(Obj::Int(!i)),
            "-@" => i.checked_neg().map(Obj::Int).map_or_else(overflow, Ok),
            "digits" => {
                let mut d = Vec::new();
                let mut n = i.unsigned_abs();
                loop {
                    d.push(Obj::Int((n % 10) as i64));
                    n /= 10;
                    if n == 0 {
                        break;
                    }
                }
                Ok(Obj::array(d))
            }
            _ => no_method(name, recv),
        }
    }

    fn string_method(
        &mut self,
        recv: &Obj,
        name: &str,
        args: Vec<Obj>,
        block: Option<&Block>,
    ) -> R<Obj> {
        let s = to_s(recv);
        let text = || String::from_utf8_lossy(&s).into_owned();
        let str_arg = |n: usize| -> R<Vec<u8>> {
            match args.get(n) {
                Some(v @ (Obj::Str(_) | Obj::Const(_))) => Ok(to_s(v)),
                Some(other) => err(
                    "TypeError",
                    format!(
                        "no implicit conversion of {} into String",
                        conversion_name(other)
                    ),
                ),
                None => err(
                    "ArgumentError",
                    "wrong number of arguments (given 0, expected 1)",
                ),
            }
        };
        let int_arg = |n: usize| int_arg(&args, n, false);
        match name {
            "length" | "size" => Ok(Obj::Int(char_len(&s) as i64)),
            "bytesize" => Ok(Obj::Int(s.len() as i64)),
            "to_s" | "to_str" => Ok(Obj::Str(s)),
            "to_sym" | "intern" => Ok(Obj::Sym(text())),
            "to_i" => {
                let base = if args.is_empty() { 10 } else { int_arg(0)? };
                if !(2..=36).contains(&base) {
                    return err("ArgumentError", format!("invalid radix {base}"));
                }
                Ok(Obj::Int(lenient_to_i(&s, base as u32)))
            }
            "hex" => Ok(Obj::Int(lenient_to_i(
                text().trim_start_matches("0x").as_bytes(),
                16,
            ))),
            "oct" => Ok(Obj::Int(lenient_to_i(&s, 8))),
            "to_f" => Ok(Obj::Float(lenient_to_f(&s))),
            "to_java_bytes" | "to_java" => Ok(Obj::JBytes(Rc::new(s))),
            "upcase" => Ok(Obj::str(text().to_uppercase())),
            "downcase" => Ok(Obj::str(text().to_lowercase())),
            "capitalize" => {
                let t = text().to_lowercase();
                let mut c = t.chars();
                Ok(Obj::str(match c.next() {
                    Some(f) => f.to_uppercase().collect::<String>() + c.as_str(),
                    None => String::new(),
                }))
            }
            "reverse" => Ok(Obj::str(text().chars().rev().collect::<String>())),
            "strip" => Ok(Obj::str(
                text().trim_matches(|c: char| c.is_whitespace() || c == '\0'),
            )),
            "lstrip" => Ok(Obj::str(text().trim_start())),
            "rstrip" => {
                Ok(Obj::str(text().trim_end_matches(|c: char| {
                    c.is_whitespace() || c == '\0'
                })))
            }
            "chomp" => {
                if let Some(suffix) = args.first() {
                    let suffix = to_s(suffix);
                    return Ok(Obj::Str(
                        s.strip_suffix(suffix.as_slice()).unwrap_or(&s).to_vec(),
                    ));
                }
                let t = text();
                let t = t
                    .strip_suffix("\r\n")
                    .or_else(|| t.strip_suffix('\n'))
                    .or_else(|| t.strip_suffix('\r'))
                    .unwrap_or(&t);
                Ok(Obj::str(t))
            }
            "chop" => {
                let mut t = text();
                t.pop();
                Ok(Obj::str(t))
            }
            "chars" => Ok(Obj::array(
                text().chars().map(|c| Obj::str(c.to_string())).collect(),
            )),
            "bytes" => Ok(Obj::array(
                s.iter().map(|b| Obj::Int(i64::from(*b))).collect(),
            )),
            "ord" => match text().chars().next() {
                Some(c) => Ok(Obj::Int(i64::from(u32::from(c)))),
                None => err("ArgumentError", "empty string"),
            },
            "empty?" => Ok(Obj::Bool(s.is_empty())),
            "include?" => Ok(Obj::Bool(contains(&s, &str_arg(0)?))),
            "start_with?" => {
                let mut any = false;
                for a in &args {
                    any |= s.starts_with(&to_s(a));
                }
                Ok(Obj::Bool(any))
            }
            "end_with?" => {
                let mut any = false;
                for a in &args {
                    any |= s.ends_with(&to_s(a));
                }
                Ok(Obj::Bool(any))
            }
            "index" => {
                let needle = str_arg(0)?;
                Ok(find(&s, &needle).map_or(Obj::Nil, |i| Obj::Int(char_len(&s[..i]) as i64)))
            }
            "rjust" | "ljust" | "center" => {
                let width = usize::try_from(int_arg(0)?).unwrap_or(0);
                if width > MAX_STRING_BYTES {
                    return err("ArgumentError", "argument too big");
                }
                let pad = if args.len() > 1 {
                    str_arg(1)?
                } else {
                    b" ".to_vec()
                };
                if pad.is_empty() {
                    return err("ArgumentError", "zero width padding");
                }
                let len = char_len(&s);
                if width <= len {
                    return Ok(Obj::Str(s));
                }
                let fill = width - len;
                let pad_chars: Vec<char> = String::from_utf8_lossy(&pad).chars().collect();
                let make = |n: usize| -> Vec<u8> {
                    pad_chars
                        .iter()
                        .cycle()
                        .take(n)
                        .collect::<String>()
                        .into_bytes()
                };
                let (left, right) = match name {
                    "rjust" => (fill, 0),
                    "ljust" => (0, fill),
                    _ => (fill / 2, fill - fill / 2),
                };
                let mut out = make(left);
                out.extend_from_slice(&s);
                out.extend(make(right));
                Ok(Obj::Str(out))
            }
            "split" => {
                let parts: Vec<Obj> = match args.first() {
                    None | Some(Obj::Nil) => text().split_whitespace().map(Obj::str).collect(),
                    Some(sep) => {
                        let sep = to_s(sep);
                        let mut parts: Vec<Obj> = if sep.is_empty() {
                            text().chars().map(|c| Obj::str(c.to_string())).collect()
                        } else if sep == b" " {
                            text().split_whitespace().map(Obj::str).collect()
                        } else {
                            split_bytes(&s, &sep).into_iter().map(Obj::Str).collect()
                        };
                        // Ruby drops trailing empty fields.
                        while matches!(parts.last(), Some(Obj::Str(p)) if p.is_empty()) {
                            parts.pop();
                        }
                        parts
                    }
                };
                Ok(Obj::array(parts))
            }
            "sub" | "gsub" => {
                let from = str_arg(0).map_err(|_| {
                    Unwind::Error(RubyError::new(
                        "NotImplementedError",
                        "regular expressions are not supported by regionkv's shell; give a string pattern",
                    ))
                })?;
                let to = str_arg(1)?;
                if from.is_empty() {
                    return Ok(Obj::Str(s));
                }
                let mut out = Vec::with_capacity(s.len());
                let mut rest = s.as_slice();
                let mut done = false;
                while let Some(i) = find(rest, &from).filter(|_| !done) {
                    out.extend_from_slice(&rest[..i]);
                    out.extend_from_slice(&to);
                    rest = &rest[i + from.len()..];
                    done = name == "sub";
                }
                out.extend_from_slice(rest);
                Ok(Obj::Str(out))
            }
            "[]" | "slice" => self.string_index(&s, &args),
            "succ" | "next" => Ok(Obj::Str(string_succ(&s))),
            "each_char" => {
                let chars: Vec<Obj> = text().chars().map(|c| Obj::str(c.to_string())).collect();
                if let Some(block) = block {
                    for c in chars {
                        self.yield_block(block, vec![c])?;
                    }
                    Ok(recv.clone())
                } else {
                    Ok(Obj::array(chars))
                }
            }
            "concat" => {
                let mut out = s;
                for a in &args {
                    out.extend(to_s(a));
                }
                Ok(Obj::Str(out))
            }
            "force_encoding" | "b" | "encode" | "scrub" | "unicode_normalize" => Ok(Obj::Str(s)),
            "hash" => Ok(Obj::Int(java_string_hash(&s) as i64)),
            "upto" => {
                let end = Obj::Str(str_arg(0)?);
                let items =
                    self.items(&Obj::Range(Box::new(recv.clone()), Box::new(end), false))?;
                if let Some(block) = block {
                    for item in items {
                        self.yield_block(block, vec![item])?;
                    }
                    Ok(recv.clone())
                } else {
                    Ok(Obj::array(items))
                }
            }
            "count" | "tr" | "delete" | "squeeze" | "match" | "scan" | "unpack" | "unpack1" => err(
                "NotImplementedError",
                format!(
                    "String#{name} is not supported by regionkv's shell (SHELL.md lists the Ruby it runs)"
                ),
            ),
            _ => no_method(name, recv),
        }
    }

    fn string_index(&mut self, s: &[u8], args: &[Obj]) -> R<Obj> {
        let chars: Vec<char> = String::from_utf8_lossy(s).chars().collect();
        let len = chars.len() as i64;
        let norm = |i: i64| if i < 0 { i + len } else { i };
        let slice = |start: i64, count: i64| -> Obj {
            let start = norm(start);
            if start < 0 || start > len || count < 0 {
                return Obj::Nil;
            }
            let end = (start + count).min(len);
            Obj::str(
                chars[start as usize..end as usize]
                    .iter()
                    .collect::<String>(),
            )
        };
        Ok(match args {
            [Obj::Int(i)] => {
                let i = norm(*i);
                if i < 0 || i >= len {
                    Obj::Nil
                } else {
                    Obj::str(chars[i as usize].to_string())
                }
            }
            [Obj::Int(start), Obj::Int(count)] => slice(*start, *count),
            [Obj::Range(a, b, x)] => {
                let (Obj::Int(a), Obj::Int(b)) = (&**a, &**b) else {
                    return err("TypeError", "no implicit conversion of Range into Integer");
                };
                let (a, mut b) = (norm(*a), norm(*b));
                if *x {
                    b -= 1;
                }
                slice(a, (b - a + 1).max(0))
            }
            [needle @ (Obj::Str(_) | Obj::Const(_))] => {
                let needle = to_s(needle);
                if contains(s, &needle) {
                    Obj::Str(needle)
                } else {
                    Obj::Nil
                }
            }
            _ => return err("TypeError", "no implicit conversion into Integer"),
        })
    }

    /// Methods of arrays, hashes and ranges (Enumerable and their own).
    fn enum_method(
        &mut self,
        recv: &Obj,
        name: &str,
        args: Vec<Obj>,
        block: Option<&Block>,
    ) -> R<Obj> {
        // Own methods first.
        match recv {
            Obj::Array(items) => {
                if let Some(v) = self.array_method(items, recv, name, &args)? {
                    return Ok(v);
                }
            }
            Obj::Hash(pairs) => {
                if let Some(v) = self.hash_method(pairs, recv, name, &args, block)? {
                    return Ok(v);
                }
            }
            Obj::Range(a, b, x) => match name {
                "first" | "begin" | "min"
                    if args.is_empty() && name != "min" || (name == "min" && block.is_none()) =>
                {
                    if name == "min" {
                        let items = self.items(recv)?;
                        return Ok(items.into_iter().next().unwrap_or(Obj::Nil));
                    }
                    return Ok((**a).clone());
                }
                "last" | "end" | "max" if args.is_empty() => {
                    if name == "end" || (name == "last" && !matches!(**a, Obj::Int(_))) {
                        return Ok((**b).clone());
                    }
                    return Ok(match int_bounds(a, b, *x)? {
                        Some((_, hi)) => Obj::Int(hi),
                        None if name == "max" => Obj::Nil,
                        None => (**b).clone(),
                    });
                }
                "exclude_end?" => return Ok(Obj::Bool(*x)),
                "include?" | "member?" | "cover?" | "===" => {
                    let v = args.first().cloned().unwrap_or(Obj::Nil);
                    return Ok(Obj::Bool(self.range_include(recv, &v)?));
                }
                "size" | "count"
                    if args.is_empty() && block.is_none() && matches!(**a, Obj::Int(_)) =>
                {
                    let n = match int_bounds(a, b, *x)? {
                        None => 0,
                        Some((lo, hi)) => match hi.checked_sub(lo).and_then(|d| d.checked_add(1)) {
                            Some(n) => n,
                            None => return overflow(),
                        },
                    };
                    return Ok(Obj::Int(n));
                }
                "step" => {
                    let step = match args.first() {
                        Some(Obj::Int(s)) if *s > 0 => *s,
                        _ => return err("ArgumentError", "step can't be negative or zero"),
                    };
                    let mut out = Vec::new();
                    if let Some((lo, hi)) = int_bounds(a, b, *x)? {
                        let mut k = lo;
                        while k <= hi {
                            if let Some(block) = block {
                                self.yield_block(block, vec![Obj::Int(k)])?;
                            } else {
                                out.push(Obj::Int(k));
                            }
                            let Some(next) = k.checked_add(step) else {
                                break;
                            };
                            k = next;
                        }
                    }
                    return Ok(if block.is_some() {
                        recv.clone()
                    } else {
                        Obj::array(out)
                    });
                }
                "each" => {
                    let Some(block) = block else {
                        return Ok(Obj::array(self.items(recv)?));
                    };
                    let mut run = |s: &mut Self, item: Obj| -> R<bool> {
                        s.yield_block(block, vec![item])?;
                        Ok(true)
                    };
                    self.each_item(recv, &mut run)?;
                    return Ok(recv.clone());
                }
                _ => {}
            },
            _ => {}
        }
        // Enumerable over the items.
        let with_block =
            |s: &mut Self, f: &mut dyn FnMut(&mut Self, Obj, Obj) -> R<bool>| -> R<()> {
                let Some(block) = block else {
                    return Ok(());
                };
                let mut run = |s: &mut Self, item: Obj| -> R<bool> {
                    let result = s.yield_block(block, vec![item.clone()])?;
                    f(s, item, result)
                };
                s.each_item(recv, &mut run)
            };
        let needs_block = || -> R<()> {
            if block.is_none() {
                err(
                    "NotImplementedError",
                    format!(
                        "{name} without a block is not supported by regionkv's shell (enumerators are not)"
                    ),
                )
            } else {
                Ok(())
            }
        };
        match name {
            "each" => {
                needs_block()?;
                with_block(self, &mut |_, _, _| Ok(true))?;
                Ok(recv.clone())
            }
            "each_with_index" => {
                needs_block()?;
                let Some(block) = block else {
                    return Ok(Obj::Nil);
                };
                let mut i = 0i64;
                let mut run = |s: &mut Self, item: Obj| -> R<bool> {
                    s.yield_block(block, vec![item, Obj::Int(i)])?;
                    i += 1;
                    Ok(true)
                };
                self.each_item(recv, &mut run)?;
                Ok(recv.clone())
            }
            "map" | "collect" | "flat_map" => {
                needs_block()?;
                let mut out = Vec::new();
                with_block(self, &mut |_, _, r| {
                    match r {
                        Obj::Array(items) if name == "flat_map" => {
                            out.extend(items.borrow().iter().cloned())
                        }
                        r => out.push(r),
                    }
                    Ok(true)
                })?;
                Ok(Obj::array(out))
            }
            "select" | "filter" | "reject" => {
                needs_block()?;
                let keep = name != "reject";
                let mut out = Vec::new();
                with_block(self, &mut |_, item, r| {
                    if r.truthy() == keep {
                        out.push(item);
                    }
                    Ok(true)
                })?;
                if let Obj::Hash(_) = recv {
                    let mut pairs = Vec::new();
                    for item in out {
                        if let Obj::Array(kv) = item {
                            let kv = kv.borrow();
                            pairs.push((kv[0].clone(), kv[1].clone()));
                        }
                    }
                    return Ok(Obj::Hash(Rc::new(RefCell::new(pairs))));
                }
                Ok(Obj::array(out))
            }
            "find" | "detect" => {
                needs_block()?;
                let mut found = Obj::Nil;
                with_block(self, &mut |_, item, r| {
                    if r.truthy() {
                        found = item;
                        return Ok(false);
                    }
                    Ok(true)
                })?;
                Ok(found)
            }
            "any?" | "all?" | "none?" if block.is_some() => {
                let mut hits = 0usize;
                let mut total = 0usize;
                with_block(self, &mut |_, _, r| {
                    total += 1;
                    hits += usize::from(r.truthy());
                    Ok(true)
                })?;
                Ok(Obj::Bool(match name {
                    "any?" => hits > 0,
                    "all?" => hits == total,
                    _ => hits == 0,
                }))
            }
            "count" if block.is_some() => {
                let mut n = 0i64;
                with_block(self, &mut |_, _, r| {
                    n += i64::from(r.truthy());
                    Ok(true)
                })?;
                Ok(Obj::Int(n))
            }
            "sort_by" | "min_by" | "max_by" | "group_by" | "partition" | "each_with_object"
            | "zip" | "chunk" => err(
                "NotImplementedError",
                format!(
                    "Enumerable#{name} is not supported by regionkv's shell (SHELL.md lists the Ruby it runs)"
                ),
            ),
            "inject" | "reduce" | "sum" => {
                let items = self.items(recv)?;
                let (mut acc, symbol) = match (name, args.as_slice()) {
                    ("sum", [init]) => (Some(init.clone()), Some("+".to_string())),
                    ("sum", []) => (Some(Obj::Int(0)), Some("+".to_string())),
                    (_, [Obj::Sym(op)]) => (None, Some(op.clone())),
                    (_, [init, Obj::Sym(op)]) => (Some(init.clone()), Some(op.clone())),
                    (_, [init]) => (Some(init.clone()), None),
                    _ => (None, None),
                };
                for item in items {
                    acc = Some(match acc {
                        None => item,
                        Some(a) => match (&symbol, block) {
                            (_, Some(block)) if name != "sum" => {
                                self.yield_block(block, vec![a, item])?
                            }
                            (Some(op), _) => self.binary(op, a, item)?,
                            (None, None) => {
                                return err("ArgumentError", "inject needs a block or a symbol");
                            }
                            (None, Some(block)) => self.yield_block(block, vec![a, item])?,
                        },
                    });
                }
                Ok(acc.unwrap_or(Obj::Nil))
            }
            "to_a" | "entries" => Ok(Obj::array(self.items(recv)?)),
            "size" | "length" | "count" => Ok(Obj::Int(self.items(recv)?.len() as i64)),
            "first" | "take" => {
                let items = self.items(recv)?;
                match args.first() {
                    None => Ok(items.into_iter().next().unwrap_or(Obj::Nil)),
                    Some(Obj::Int(n)) => Ok(Obj::array(
                        items
                            .into_iter()
                            .take(usize::try_from(*n).unwrap_or(0))
                            .collect(),
                    )),
                    Some(other) => err(
                        "TypeError",
                        format!("no implicit conversion of {} into Integer", class_of(other)),
                    ),
                }
            }
            "min" | "max" => {
                let items = self.items(recv)?;
                let mut best: Option<Obj> = None;
                for item in items {
                    best = Some(match best {
                        None => item,
                        Some(b) => {
                            let o = compare_or_fail(&item, &b)?;
                            if (name == "min" && o.is_lt()) || (name == "max" && o.is_gt()) {
                                item
                            } else {
                                b
                            }
                        }
                    });
                }
                Ok(best.unwrap_or(Obj::Nil))
            }
            "include?" | "member?" => {
                let v = args.first().cloned().unwrap_or(Obj::Nil);
                Ok(Obj::Bool(self.items(recv)?.iter().any(|x| equal(x, &v))))
            }
            "reverse_each" => {
                needs_block()?;
                let Some(block) = block else {
                    return Ok(Obj::Nil);
                };
                for item in self.items(recv)?.into_iter().rev() {
                    self.yield_block(block, vec![item])?;
                }
                Ok(recv.clone())
            }
            "each_slice" => {
                let n = match args.first() {
                    Some(Obj::Int(n)) if *n > 0 => *n as usize,
                    _ => return err("ArgumentError", "invalid slice size"),
                };
                let items = self.items(recv)?;
                let slices: Vec<Obj> = items.chunks(n).map(|c| Obj::array(c.to_vec())).collect();
                match block {
                    Some(block) => {
                        for slice in slices {
                            self.yield_block(block, vec![slice])?;
                        }
                        Ok(Obj::Nil)
                    }
                    None => Ok(Obj::array(slices)),
                }
            }
            "sort" | "uniq" | "reverse" | "join" | "to_h" | "shuffle" | "sample" | "last"
            | "empty?" => {
                let items = Obj::array(self.items(recv)?);
                let Obj::Array(rc) = &items else {
                    return Ok(Obj::Nil);
                };
                match self.array_method(rc, &items, name, &args)? {
                    Some(v) => Ok(v),
                    None => no_method(name, recv),
                }
            }
            _ => no_method(name, recv),
        }
    }

    /// Array's own methods; `None` when `name` is an Enumerable method for the caller.
    fn array_method(
        &mut self,
        items: &Rc<RefCell<Vec<Obj>>>,
        recv: &Obj,
        name: &str,
        args: &[Obj],
    ) -> R<Option<Obj>> {
        let len = items.borrow().len() as i64;
        let norm = |i: i64| if i < 0 { i + len } else { i };
        let v = match (name, args) {
            ("size" | "length", []) => Obj::Int(len),
            ("empty?", []) => Obj::Bool(len == 0),
            ("[]" | "slice" | "at", [Obj::Int(i)]) => {
                let i = norm(*i);
                usize::try_from(i)
                    .ok()
                    .and_then(|i| items.borrow().get(i).cloned())
                    .unwrap_or(Obj::Nil)
            }
            ("[]" | "slice", [Obj::Int(start), Obj::Int(count)]) => {
                let start = norm(*start);
                if start < 0 || start > len || *count < 0 {
                    Obj::Nil
                } else {
                    let end = (start + count).min(len);
                    Obj::array(items.borrow()[start as usize..end as usize].to_vec())
                }
            }
            ("[]" | "slice", [Obj::Range(a, b, x)]) => {
                let (Obj::Int(a), Obj::Int(b)) = (&**a, &**b) else {
                    return err("TypeError", "no implicit conversion of Range into Integer");
                };
                let (a, mut b) = (norm(*a), norm(*b));
                if *x {
                    b -= 1;
                }
                if a < 0 || a > len {
                    Obj::Nil
                } else {
                    let end = (b + 1).clamp(a, len);
                    Obj::array(items.borrow()[a as usize..end as usize].to_vec())
                }
            }
            ("[]=", [Obj::Int(i), value]) => {
                let i = norm(*i);
                let Ok(i) = usize::try_from(i) else {
                    return err("IndexError", format!("index {} too small for array", i));
                };
                let mut v = items.borrow_mut();
                if i >= v.len().saturating_add(MAX_ITEMS) {
                    return err("IndexError", format!("index {i} too big"));
                }
                if i >= v.len() {
                    v.resize(i + 1, Obj::Nil);
                }
                v[i] = value.clone();
                value.clone()
            }
            ("first", []) => items.borrow().first().cloned().unwrap_or(Obj::Nil),
            ("last", []) => items.borrow().last().cloned().unwrap_or(Obj::Nil),
            ("last", [Obj::Int(n)]) => {
                let v = items.borrow();
                let n = usize::try_from(*n).unwrap_or(0).min(v.len());
                Obj::array(v[v.len() - n..].to_vec())
            }
            ("push" | "append" | "<<", _) => {
                items.borrow_mut().extend(args.iter().cloned());
                recv.clone()
            }
            ("unshift" | "prepend", _) => {
                let mut v = items.borrow_mut();
                for (i, a) in args.iter().enumerate() {
                    v.insert(i, a.clone());
                }
                recv.clone()
            }
            ("pop", []) => items.borrow_mut().pop().unwrap_or(Obj::Nil),
            ("shift", []) => {
                let mut v = items.borrow_mut();
                if v.is_empty() { Obj::Nil } else { v.remove(0) }
            }
            ("concat", _) => {
                for a in args {
                    if let Obj::Array(other) = a {
                        let other = other.borrow().clone();
                        items.borrow_mut().extend(other);
                    }
                }
                recv.clone()
            }
            ("clear", []) => {
                items.borrow_mut().clear();
                recv.clone()
            }
            ("delete", [x]) => {
                let mut v = items.borrow_mut();
                let before = v.len();
                v.retain(|y| !equal(x, y));
                if v.len() == before {
                    Obj::Nil
                } else {
                    x.clone()
                }
            }
            ("delete_at", [Obj::Int(i)]) => {
                let i = norm(*i);
                let mut v = items.borrow_mut();
                match usize::try_from(i).ok().filter(|i| *i < v.len()) {
                    Some(i) => v.remove(i),
                    None => Obj::Nil,
                }
            }
            ("index", [x]) => items
                .borrow()
                .iter()
                .position(|y| equal(x, y))
                .map_or(Obj::Nil, |i| Obj::Int(i as i64)),
            ("join", _) => {
                let sep = args.first().map(to_s).unwrap_or_default();
                let parts: Vec<Vec<u8>> = items
                    .borrow()
                    .iter()
                    .map(|x| match x {
                        Obj::Array(_) => to_s(&Obj::Str(Vec::new())),
                        other => to_s(other),
                    })
                    .collect();
                Obj::Str(parts.join(sep.as_slice()))
            }
            ("reverse", []) => Obj::array(items.borrow().iter().rev().cloned().collect()),
            ("sort", []) => {
                let mut v = items.borrow().clone();
                let mut failed = None;
                v.sort_by(|a, b| {
                    compare(a, b).unwrap_or_else(|| {
                        failed = Some((class_of(a), inspect_short(b)));
                        std::cmp::Ordering::Equal
                    })
                });
                if let Some((a, b)) = failed {
                    return err(
                        "ArgumentError",
                        format!("comparison of {a} with {b} failed"),
                    );
                }
                Obj::array(v)
            }
            ("uniq", []) => {
                let mut out: Vec<Obj> = Vec::new();
                for x in items.borrow().iter() {
                    if !out.iter().any(|y| equal(x, y)) {
                        out.push(x.clone());
                    }
                }
                Obj::array(out)
            }
            ("compact", []) => Obj::array(
                items
                    .borrow()
                    .iter()
                    .filter(|x| !matches!(x, Obj::Nil))
                    .cloned()
                    .collect(),
            ),
            ("flatten", []) => {
                fn flat(v: &[Obj], out: &mut Vec<Obj>, depth: usize) {
                    for x in v {
                        match x {
                            Obj::Array(inner) if depth < 64 => {
                                flat(&inner.borrow(), out, depth + 1)
                            }
                            other => out.push(other.clone()),
                        }
                    }
                }
                let mut out = Vec::new();
                flat(&items.borrow(), &mut out, 0);
                Obj::array(out)
            }
            ("shuffle", []) => {
                let mut v = items.borrow().clone();
                for i in (1..v.len()).rev() {
                    let j = self.interp.rng.random_range(0..=i);
                    v.swap(i, j);
                }
                Obj::array(v)
            }
            ("sample", []) => {
                let v = items.borrow();
                if v.is_empty() {
                    Obj::Nil
                } else {
                    v[self.interp.rng.random_range(0..v.len())].clone()
                }
            }
            ("to_a" | "entries", []) => recv.clone(),
            ("to_h", []) => {
                let mut pairs = Vec::new();
                for x in items.borrow().iter() {
                    let Obj::Array(kv) = x else {
                        return err(
                            "TypeError",
                            format!("wrong element type {} (expected array)", class_of(x)),
                        );
                    };
                    let kv = kv.borrow();
                    if kv.len() != 2 {
                        return err(
                            "ArgumentError",
                            format!("wrong array length (expected 2, was {})", kv.len()),
                        );
                    }
                    hash_set(&mut pairs, kv[0].clone(), kv[1].clone());
                }
                Obj::Hash(Rc::new(RefCell::new(pairs)))
            }
            ("drop", [Obj::Int(n)]) => Obj::array(
                items
                    .borrow()
                    .iter()
                    .skip(usize::try_from(*n).unwrap_or(0))
                    .cloned()
                    .collect(),
            ),
            _ => return Ok(None),
        };
        Ok(Some(v))
    }

    fn hash_method(
        &mut self,
        pairs: &Rc<RefCell<Vec<(Obj, Obj)>>>,
        recv: &Obj,
        name: &str,
        args: &[Obj],
        block: Option<&Block>,
    ) -> R<Option<Obj>> {
        let get = |k: &Obj| {
            pairs
                .borrow()
                .iter()
                .find(|(k2, _)| equal(k, k2))
                .map(|(_, v)| v.clone())
        };
        let v = match (name, args) {
            ("[]", [k]) => get(k).unwrap_or(Obj::Nil),
            ("fetch", [k]) => match get(k) {
                Some(v) => v,
                None => return err("KeyError", format!("key not found: {}", inspect(k))),
            },
            ("fetch", [k, default]) => get(k).unwrap_or_else(|| default.clone()),
            ("[]=" | "store", [k, v]) => {
                hash_set(&mut pairs.borrow_mut(), k.clone(), v.clone());
                v.clone()
            }
            ("key?" | "has_key?" | "include?" | "member?", [k]) => Obj::Bool(get(k).is_some()),
            ("value?" | "has_value?", [v]) => {
                Obj::Bool(pairs.borrow().iter().any(|(_, x)| equal(x, v)))
            }
            ("keys", []) => Obj::array(pairs.borrow().iter().map(|(k, _)| k.clone()).collect()),
            ("values", []) => Obj::array(pairs.borrow().iter().map(|(_, v)| v.clone()).collect()),
            ("size" | "length", []) => Obj::Int(pairs.borrow().len() as i64),
            ("empty?", []) => Obj::Bool(pairs.borrow().is_empty()),
            ("delete", [k]) => {
                let mut p = pairs.borrow_mut();
                match p.iter().position(|(k2, _)| equal(k, k2)) {
                    Some(i) => p.remove(i).1,
                    None => Obj::Nil,
                }
            }
            ("merge", [Obj::Hash(other)]) => {
                let mut out = pairs.borrow().clone();
                for (k, v) in other.borrow().iter() {
                    hash_set(&mut out, k.clone(), v.clone());
                }
                Obj::Hash(Rc::new(RefCell::new(out)))
            }
            ("to_h", []) => recv.clone(),
            ("each" | "each_pair", []) if block.is_some() => {
                let Some(block) = block else { return Ok(None) };
                let items = pairs.borrow().clone();
                for (k, v) in items {
                    self.yield_block(block, vec![Obj::array(vec![k, v])])?;
                }
                recv.clone()
            }
            _ => return Ok(None),
        };
        Ok(Some(v))
    }

    /// `t.put ...`: the shell command of that name on the handle's table.
    fn table_method(
        &mut self,
        table: String,
        name: &str,
        args: Vec<Obj>,
        block: Option<&Block>,
        recv: &Obj,
    ) -> R<Obj> {
        const DATA: &[&str] = &[
            "put",
            "get",
            "scan",
            "count",
            "delete",
            "deleteall",
            "incr",
            "get_counter",
            "append",
            "get_splits",
            "truncate",
            "truncate_preserve",
            "enable",
            "disable",
            "flush",
            "drop",
            "describe",
            "exists",
            "is_enabled",
            "is_disabled",
            "compact",
            "major_compact",
            "split",
        ];
        let _ = block;
        match name {
            "name" => Ok(Obj::str(table)),
            "to_s" | "inspect" => Ok(Obj::str(inspect(recv))),
            "close" => Ok(Obj::Nil),
            "help" => {
                let topic = match args.first() {
                    Some(v) => to_value(v)?,
                    None => Value::Str(b"table_help".to_vec()),
                };
                self.help_command(&[topic])?;
                Ok(Obj::Nil)
            }
            "get_all_columns" => {
                let families = self
                    .engine()
                    .families(&table)
                    .map_err(|m| Unwind::Error(RubyError::new("ArgumentError", m)))?;
                Ok(Obj::array(
                    families
                        .into_iter()
                        .map(|f| Obj::str(format!("{f}:")))
                        .collect(),
                ))
            }
            _ if DATA.contains(&name) => {
                let mut values = Vec::with_capacity(args.len() + 1);
                values.push(Value::Str(table.into_bytes()));
                for a in args {
                    values.push(into_value(a)?);
                }
                Ok(self.run_shell_command(name, &values)?.into())
            }
            _ => no_method(name, recv),
        }
    }

    fn class_method(&mut self, class: &str, name: &str, args: Vec<Obj>, recv: &Obj) -> R<Obj> {
        let one = |n: usize| -> R<&Obj> {
            args.get(n).ok_or_else(|| {
                Unwind::Error(RubyError::new(
                    "ArgumentError",
                    format!(
                        "wrong number of arguments (given {}, expected {})",
                        args.len(),
                        n + 1
                    ),
                ))
            })
        };
        match (class, name) {
            ("Bytes", "toBytes") => {
                let bytes = match one(0)? {
                    Obj::Str(s) => s.clone(),
                    Obj::Const(s) => s.clone().into_bytes(),
                    Obj::Int(i) => i.to_be_bytes().to_vec(),
                    Obj::Float(f) => f.to_bits().to_be_bytes().to_vec(),
                    Obj::Bool(b) => vec![if *b { 0xff } else { 0 }],
                    other => {
                        return err(
                            "NameError",
                            format!(
                                "no method 'toBytes' for arguments ({}) on Java::OrgApacheHadoopHbaseUtil::Bytes",
                                java_class(other)
                            ),
                        );
                    }
                };
                Ok(Obj::JBytes(Rc::new(bytes)))
            }
            ("Bytes", "toBytesBinary") => {
                let s = to_s(one(0)?);
                let bytes = super::args::to_bytes_binary(&s).map_err(|e| match e {
                    super::args::CmdError::Failed(m) => Unwind::Error(RubyError::new(
                        "Java::JavaLang::StringIndexOutOfBoundsException",
                        m,
                    )),
                    super::args::CmdError::Io(e) => Unwind::Io(e),
                })?;
                Ok(Obj::JBytes(Rc::new(bytes)))
            }
            ("Bytes", "toStringBinary") => Ok(Obj::str(regionkv::cell::bytes::to_string_binary(
                java_bytes(name, one(0)?)?,
            ))),
            ("Bytes", "toString") => Ok(Obj::Str(java_bytes(name, one(0)?)?.to_vec())),
            ("Bytes", "toHex") => Ok(Obj::str(
                java_bytes(name, one(0)?)?
                    .iter()
                    .map(|b| format!("{b:02x}"))
                    .collect::<String>(),
            )),
            ("Bytes", "toLong") => Ok(Obj::Int(i64::from_be_bytes(read_be::<8>(java_bytes(
                name,
                one(0)?,
            )?)?))),
            ("Bytes", "toInt") => Ok(Obj::Int(i64::from(i32::from_be_bytes(read_be::<4>(
                java_bytes(name, one(0)?)?,
            )?)))),
            ("Bytes", "toShort") => Ok(Obj::Int(i64::from(i16::from_be_bytes(read_be::<2>(
                java_bytes(name, one(0)?)?,
            )?)))),
            ("Bytes", "toDouble") => {
                Ok(Obj::Float(f64::from_bits(u64::from_be_bytes(
                    read_be::<8>(java_bytes(name, one(0)?)?)?,
                ))))
            }
            ("Bytes", "toFloat") => Ok(Obj::Float(f64::from(f32::from_bits(u32::from_be_bytes(
                read_be::<4>(java_bytes(name, one(0)?)?)?,
            ))))),
            ("Bytes", "toBoolean") => {
                let b = read_be::<1>(java_bytes(name, one(0)?)?)?;
                Ok(Obj::Bool(b[0] != 0))
            }
            ("Bytes", "add") => {
                let mut out = Vec::new();
                for (i, a) in args.iter().enumerate() {
                    let _ = i;
                    out.extend_from_slice(java_bytes(name, a)?);
                }
                Ok(Obj::JBytes(Rc::new(out)))
            }
            ("String", "from_java_bytes") => Ok(Obj::Str(java_bytes(name, one(0)?)?.to_vec())),
            ("String", "new") => Ok(Obj::Str(args.first().map(to_s).unwrap_or_default())),
            ("Array", "new") => {
                let n = match args.first() {
                    Some(Obj::Int(n)) if *n >= 0 && (*n as u64) < MAX_ITEMS as u64 => *n as usize,
                    Some(Obj::Int(n)) if *n >= 0 => {
                        return err("ArgumentError", "array size too big");
                    }
                    None => 0,
                    _ => return err("ArgumentError", "negative array size"),
                };
                Ok(Obj::array(vec![
                    args.get(1).cloned().unwrap_or(Obj::Nil);
                    n
                ]))
            }
            ("Hash", "new") => Ok(Obj::Hash(Rc::new(RefCell::new(Vec::new())))),
            ("Time", "now") => Ok(Obj::Time(regionkv::cell::Clock::now_millis(
                self.engine().clock(),
            ))),
            ("Time", "at") => match one(0)? {
                Obj::Int(s) => Ok(Obj::Time(s.saturating_mul(1000))),
                Obj::Float(f) => Ok(Obj::Time((f * 1000.0) as i64)),
                other => err(
                    "TypeError",
                    format!("can't convert {} into an exact number", class_of(other)),
                ),
            },
            ("System", "currentTimeMillis") => Ok(Obj::Int(regionkv::cell::Clock::now_millis(
                self.engine().clock(),
            ))),
            ("Math", "sqrt" | "log" | "log10" | "log2" | "cbrt") => {
                let x = match one(0)? {
                    Obj::Int(i) => *i as f64,
                    Obj::Float(f) => *f,
                    other => {
                        return err(
                            "TypeError",
                            format!("can't convert {} into Float", class_of(other)),
                        );
                    }
                };
                Ok(Obj::Float(match name {
                    "sqrt" => x.sqrt(),
                    "log" => x.ln(),
                    "log10" => x.log10(),
                    "log2" => x.log2(),
                    _ => x.cbrt(),
                }))
            }
            (_, "name" | "to_s") => Ok(Obj::str(class)),
            _ => no_method(name, recv),
        }
    }
}

/// What an HBase constant or class name evaluates to.
fn constant(name: &str) -> Obj {
    const CLASSES: &[&str] = &[
        "Bytes",
        "String",
        "Integer",
        "Float",
        "Array",
        "Hash",
        "Range",
        "Symbol",
        "Time",
        "Math",
        "NilClass",
        "TrueClass",
        "FalseClass",
        "Numeric",
        "Object",
        "Enumerable",
        "HConstants",
    ];
    match CLASSES.iter().find(|c| **c == name) {
        Some(c) => Obj::Class(c),
        None => Obj::Const(name.to_string()),
    }
}

/// A command argument from a Ruby value.
fn to_value(v: &Obj) -> R<Value> {
    Ok(match v {
        Obj::Nil => Value::Nil,
        Obj::Bool(b) => Value::Bool(*b),
        Obj::Int(i) => Value::Int(*i),
        Obj::Float(f) => Value::Float(*f),
        Obj::Str(s) => Value::Str(s.clone()),
        Obj::Sym(s) => Value::Str(s.clone().into_bytes()),
        Obj::Const(s) => Value::Const(s.clone()),
        Obj::Table(name) => Value::Str(name.clone().into_bytes()),
        Obj::Array(items) => Value::Array(items.borrow().iter().map(to_value).collect::<R<_>>()?),
        Obj::Hash(pairs) => Value::Hash(
            pairs
                .borrow()
                .iter()
                .map(|(k, v)| Ok((to_value(k)?, to_value(v)?)))
                .collect::<R<_>>()?,
        ),
        Obj::JBytes(_) => {
            return err(
                "TypeError",
                "a Java byte[] given to a shell command: HBase's shell would store its Java toString ('[B@...'), not its bytes; pass String.from_java_bytes(...) or Bytes.toStringBinary(...) instead",
            );
        }
        Obj::Time(ms) => Value::Str(time_to_s(*ms).into_bytes()),
        other => Value::Str(to_s(other)),
    })
}

/// [`to_value`] of an owned value: strings move instead of being copied.
fn into_value(v: Obj) -> R<Value> {
    match v {
        Obj::Str(s) => Ok(Value::Str(s)),
        other => to_value(&other),
    }
}

fn hash_set(pairs: &mut Vec<(Obj, Obj)>, k: Obj, v: Obj) {
    match pairs.iter_mut().find(|(k2, _)| equal(&k, k2)) {
        Some(slot) => slot.1 = v,
        None => pairs.push((k, v)),
    }
}

fn float_method(f: f64, name: &str, args: &[Obj], recv: &Obj) -> R<Obj> {
    let digits = match args.first() {
        Some(Obj::Int(d)) => Some(*d),
        _ => None,
    };
    let to_int = |x: f64| -> R<Obj> {
        if x.is_finite() && x.abs() < 9.2e18 {
            Ok(Obj::Int(x as i64))
        } else {
            err("FloatDomainError", float_to_s(x))
        }
    };
    match name {
        "to_i" | "to_int" | "truncate" => to_int(f.trunc()),
        "to_f" => Ok(Obj::Float(f)),
        "floor" => to_int(f.floor()),
        "ceil" => to_int(f.ceil()),
        "round" => match digits {
            Some(d) if d > 0 => {
                let m = 10f64.powi(i32::try_from(d).unwrap_or(15).min(15));
                Ok(Obj::Float((f * m).round() / m))
            }
            _ => to_int(f.round()),
        },
        "abs" => Ok(Obj::Float(f.abs())),
        "nan?" => Ok(Obj::Bool(f.is_nan())),
        "infinite?" => Ok(if f.is_infinite() {
            Obj::Int(if f > 0.0 { 1 } else { -1 })
        } else {
            Obj::Nil
        }),
        "zero?" => Ok(Obj::Bool(f == 0.0)),
        "positive?" => Ok(Obj::Bool(f > 0.0)),
        "negative?" => Ok(Obj::Bool(f < 0.0)),
        "-@" => Ok(Obj::Float(-f)),
        _ => no_method(name, recv),
    }
}

/// Argument `n` of a method that takes an Integer (`floats`: a Float is truncated, as
/// Integer's own methods take one).
fn int_arg(args: &[Obj], n: usize, floats: bool) -> R<i64> {
    match args.get(n) {
        Some(Obj::Int(v)) => Ok(*v),
        Some(Obj::Float(f)) if floats => Ok(*f as i64),
        Some(other) => err(
            "TypeError",
            format!(
                "no implicit conversion of {} into Integer",
                conversion_name(other)
            ),
        ),
        None => err(
            "ArgumentError",
            format!(
                "wrong number of arguments (given {}, expected {})",
                args.len(),
                n + 1
            ),
        ),
    }
}

/// How Ruby names a value in a conversion or coercion error (`nil`, `true`, or its class).
fn conversion_name(v: &Obj) -> String {
    match v {
        Obj::Nil => "nil".into(),
        Obj::Bool(b) => b.to_string(),
        other => class_of(other).into(),
    }
}

fn to_radix(i: i64, base: u32) -> String {
    let mut n = i.unsigned_abs();
    if n == 0 {
        return "0".into();
    }
    let mut digits = Vec::new();
    while n > 0 {
        digits.push(char::from_digit((n % u64::from(base)) as u32, base).unwrap_or('?'));
        n /= u64::from(base);
    }
    if i < 0 {
        digits.push('-');
    }
    digits.iter().rev().collect()
}

fn char_len(s: &[u8]) -> usize {
    match std::str::from_utf8(s) {
        Ok(t) => t.chars().count(),
        Err(_) => s.len(),
    }
}

fn find(hay: &[u8], needle: &[u8]) -> Option<usize> {
    if needle.is_empty() {
        return Some(0);
    }
    hay.windows(needle.len()).position(|w| w == needle)
}

fn contains(hay: &[u8], needle: &[u8]) -> bool {
    find(hay, needle).is_some()
}

fn split_bytes(s: &[u8], sep: &[u8]) -> Vec<Vec<u8>> {
    let mut out = Vec::new();
    let mut rest = s;
    while let Some(i) = find(rest, sep) {
        out.push(rest[..i].to_vec());
        rest = &rest[i + sep.len()..];
    }
    out.push(rest.to_vec());
    out
}

/// Java's `String.hashCode` over the bytes as chars (what JRuby users see for ASCII keys).
fn java_string_hash(s: &[u8]) -> i32 {
    String::from_utf8_lossy(s)
        .encode_utf16()
        .fold(0i32, |h, c| {
            h.wrapping_mul(31).wrapping_add(i32::from(c as i16))
        })
}

#[cfg(test)]
#[allow(clippy::unwrap_used)]
mod tests {
    use super::super::session::{Flow, Settings, test_session};

    /// Runs `src` (statement by statement, as a script) on a fresh directory without `Took`
    /// lines; returns what was printed.
    fn ruby(src: &str) -> String {
        ruby_with(src, false)
    }

    fn ruby_with(src: &str, echo: bool) -> String {
        let (_dir, mut session) = test_session(Settings {
            echo,
            timing: false,
            width: 0,
        });
        let flow = session.run_chunk(src, 1).unwrap();
        assert_eq!(flow, Flow::Continue);
        String::from_utf8(session.out().clone()).unwrap()
    }

    /// Every expected output below is what `ruby -e` (2.5, as JRuby 9.2 in HBase 2.x)
    /// prints for the same program.
    #[test]
    fn arithmetic_follows_ruby() {
        assert_eq!(
            ruby("puts 7 / 2, -7 / 2, 7 % 3, -7 % 3, 7 % -3, 2 ** 10, 2 ** -1"),
            "3\n-4\n1\n2\n-2\n1024\n0.5\n"
        );
        assert_eq!(
            ruby("puts 1 + 2 * 3 - 4, (1 + 2) * 3, -2 ** 2, 10 - -1"),
            "3\n9\n-4\n11\n"
        );
        assert_eq!(
            ruby("puts 7.0 / 2, 1.5 + 1, 0.1 + 0.2, 1e20, 10.0 / 3"),
            "3.5\n2.5\n0.30000000000000004\n1.0e+20\n3.3333333333333335\n"
        );
        assert_eq!(ruby("x = 5\nputs x -1, x - 1, x-1"), "4\n4\n4\n");
        assert_eq!(
            ruby("puts 1 / 0"),
            "ERROR: ZeroDivisionError: divided by 0 (line 1, column 6)\n"
        );
        assert_eq!(
            ruby("puts 9223372036854775807 + 1").lines().next().unwrap(),
            "ERROR: RangeError: integer overflow: regionkv's shell computes with 64-bit integers (Ruby would make a Bignum) (line 1, column 6)"
        );
        assert_eq!(
            ruby("puts 1 + 'a'"),
            "ERROR: TypeError: String can't be coerced into Integer (line 1, column 6)\n"
        );
        assert_eq!(
            ruby("puts 'a' + 1"),
            "ERROR: TypeError: no implicit conversion of Integer into String (line 1, column 6)\n"
        );
        assert_eq!(
            ruby("puts 3 <=> 4, 1 == 1.0, 2 > 1, 'b' > 'a', 1 != 2"),
            "-1\ntrue\ntrue\ntrue\ntrue\n"
        );
        assert_eq!(
            ruby("puts 10.fdiv(4), 7.divmod(2).inspect, 255.to_s(16), 3.7.round, 3.14159.round(2)"),
            "2.5\n[3, 1]\nff\n4\n3.14\n"
        );
    }

    #[test]
    fn strings_follow_ruby() {
        assert_eq!(
            ruby("i = 7\nputs \"row#{i}\", \"a#{i * 2}b#{'c'}\", 'no #{i}'"),
            "row7\na14bc\nno #{i}\n"
        );
        assert_eq!(
            ruby("puts '%05d' % 42, '%s-%03d' % ['k', 7], 'x' * 3, 'a' + 'b'"),
            "00042\nk-007\nxxx\nab\n"
        );
        assert_eq!(
            ruby("puts 'abc'.upcase, 'AbC'.downcase, 'abc'.reverse, 'abc'.length, '42'.to_i + 1"),
            "ABC\nabc\ncba\n3\n43\n"
        );
        assert_eq!(
            ruby("puts '7'.rjust(3, '0'), 'a'.ljust(3, '.') + '|', 'a,b,,'.split(',').inspect"),
            "007\na..|\n[\"a\", \"b\"]\n"
        );
        assert_eq!(
            ruby("s = 'a'\ns << 'b'\ns << 99\nputs s, s.include?('bc'), s[0], s[1..2], s[-1]"),
            "abc\ntrue\na\nbc\nc\n"
        );
        assert_eq!(
            ruby(
                "puts 'az'.succ, 'a9'.succ, 'Zz'.succ, 'hello world'.sub('o', '0'), 'hello world'.gsub('o', '0')"
            ),
            "ba\nb0\nAAa\nhell0 world\nhell0 w0rld\n"
        );
        assert_eq!(
            ruby("p 'a\"b', :sym, nil, 1.0, [1, [2]], {'k' => 'v', 1 => nil}"),
            "\"a\\\"b\"\n:sym\nnil\n1.0\n[1, [2]]\n{\"k\"=>\"v\", 1=>nil}\n"
        );
        assert_eq!(
            ruby("puts format('%-4s|%+d|%x', 'ab', 5, 255)"),
            "ab  |+5|ff\n"
        );
        assert_eq!(
            ruby("puts '%d' % 'x'"),
            "ERROR: ArgumentError: invalid value for Integer(): \"x\" (line 1, column 6)\n"
        );
    }

    #[test]
    fn loops_blocks_and_control_flow() {
        assert_eq!(ruby("for i in 1..3 do print i end\nputs"), "123\n");
        assert_eq!(ruby("for i in 1...3\n  print i\nend\nputs"), "12\n");
        assert_eq!(ruby("3.times { |i| print i }\nputs"), "012\n");
        assert_eq!(
            ruby("(1..10).each do |i|\n  next if i.odd?\n  break if i > 6\n  print i\nend\nputs"),
            "246\n"
        );
        assert_eq!(
            ruby(
                "1.upto(3) { |i| print i }; 3.downto(1) { |i| print i }; 1.step(9, 4) { |i| print i }\nputs"
            ),
            "123321159\n"
        );
        assert_eq!(
            ruby("i = 0\nwhile i < 3\n  i += 1\nend\nputs i\nuntil i == 0 do i -= 1 end\nputs i"),
            "3\n0\n"
        );
        assert_eq!(
            ruby(
                "x = 5\nif x > 3 then puts 'big' elsif x > 1 then puts 'mid' else puts 'small' end"
            ),
            "big\n"
        );
        assert_eq!(
            ruby(
                "x = 2\nunless x > 3\n  puts 'not big'\nelse\n  puts 'big'\nend\nputs(x > 1 ? 'y' : 'n')"
            ),
            "not big\ny\n"
        );
        assert_eq!(ruby("puts 'yes' if 1 < 2\nputs 'no' unless 1 < 2"), "yes\n");
        assert_eq!(
            ruby("puts [1, 2, 3].map { |v| v * 2 }.inspect, (1..6).select(&:even?).inspect")
                .lines()
                .next()
                .unwrap(),
            "[2, 4, 6]"
        );
        assert_eq!(
            ruby(
                "puts (1..4).inject { |a, b| a * b }, [3, 1, 2].sort.inspect, (1..10).sum, [1, 2].include?(2)"
            ),
            "24\n[1, 2, 3]\n55\ntrue\n"
        );
        assert_eq!(
            ruby(
                "h = {'a' => 1}\nh['b'] = 2\nh.each { |k, v| puts \"#{k}=#{v}\" }\nputs h.keys.inspect, h.size"
            ),
            "a=1\nb=2\n[\"a\", \"b\"]\n2\n"
        );
        assert_eq!(
            ruby(
                "a = []\n3.times { |i| a << i * i }\np a\n[[1, 'x'], [2, 'y']].each { |n, s| print n, s }\nputs"
            ),
            "[0, 1, 4]\n1x2y\n"
        );
        assert_eq!(ruby("i = 10\n[1, 2].each { |i| }\nputs i"), "10\n");
        assert_eq!(
            ruby("[1].each { |v| inner = v }\nputs inner"),
            "ERROR: NameError: undefined local variable or method `inner' for main:Object (line 2, column 6)\n"
        );
        assert_eq!(
            ruby("n = 0\nloop do\n  n += 1\n  break if n == 4\nend\nputs n"),
            "4\n"
        );
        assert_eq!(
            ruby("r = [1, 2, 3].each { |v| break v * 10 if v == 2 }\nputs r"),
            "20\n"
        );
    }

    #[test]
    fn bytes_and_java_conversions() {
        assert_eq!(
            ruby(
                "puts Bytes.toStringBinary(Bytes.toBytes(5)), Bytes.toLong(Bytes.toBytes(1234)), Bytes.toInt(\"\\x00\\x00\\x01\\x00\".to_java_bytes)"
            ),
            "\\x00\\x00\\x00\\x00\\x00\\x00\\x00\\x05\n1234\n256\n"
        );
        assert_eq!(
            ruby(
                "puts String.from_java_bytes(Bytes.toBytes('abc')), org.apache.hadoop.hbase.util.Bytes.toString(Bytes.toBytes('x'))"
            ),
            "abc\nx\n"
        );
        assert_eq!(
            ruby("puts Bytes.toLong(Bytes.toBytes('abc'))"),
            "ERROR: Java::JavaLang::IllegalArgumentException: offset (0) + length (8) exceed the capacity of the array: 3 (line 1, column 6)\n"
        );
        let out = ruby("create 't', 'f'\nput 't', 'r', 'f:q', Bytes.toBytes(1)");
        assert!(out.contains("TypeError: a Java byte[] given to a shell command: HBase's shell would store its Java toString"), "{out}");
        let out = ruby("f = org.apache.hadoop.hbase.filter.PrefixFilter.new('r')");
        assert!(
            out.contains("Java class org.apache.hadoop.hbase.filter.PrefixFilter is not supported"),
            "{out}"
        );
    }

    #[test]
    fn commands_in_loops_and_table_handles() {
        let out = ruby(
            "create 't', 'f'\n\
             for i in 1..3 do put 't', \"row#{i}\", 'f:c', \"value#{i}\" end\n\
             10.times do |i| put 't', 'k%02d' % i, 'f:c', 'x' * i end\n\
             t = get_table 't'\n\
             t.put 'r9', 'f:c', 'v9'\n\
             t.get 'r9'\n\
             n = t.count\n\
             puts \"counted #{n}\"\n\
             t.delete 'r9', 'f:c'\n\
             puts count('t'), t.name, t.inspect\n\
             puts list.inspect, exists('t')",
        );
        assert!(out.contains(" f:c timestamp="), "{out}");
        assert!(out.contains("value=v9\n1 row(s)\n"), "{out}");
        assert!(out.contains("counted 14\n"), "{out}");
        assert!(out.contains("13\nt\nHbase::Table - t\n"), "{out}");
        assert!(out.contains("[\"t\"]\ntrue\n"), "{out}");
        let scan =
            ruby("create 't', 'f'\n(1..3).each { |i| put 't', \"r#{i}\", 'f:a', i }\nscan 't'");
        assert_eq!(scan.matches("column=f:a").count(), 3, "{scan}");
    }

    #[test]
    fn deep_but_legal_programs_run_within_the_shell_threads_stack() {
        std::thread::Builder::new()
            .stack_size(super::super::SHELL_STACK_BYTES)
            .spawn(deep_programs)
            .unwrap()
            .join()
            .unwrap();
    }

    fn deep_programs() {
        let nested = format!("p {}1{}", "[".repeat(31), "]".repeat(31));
        assert!(ruby(&nested).starts_with("[[[[[[[["));
        let sum = format!("puts 1{}", " + 1".repeat(255));
        assert_eq!(ruby(&sum), "256\n");
        let blocks = format!(
            "n = 0\n{}n += 1{}\nputs n",
            "1.times { ".repeat(15),
            " }".repeat(15)
        );
        assert_eq!(ruby(&blocks), "1\n");
        // 30 levels of 101-term sums, each nested in the leftmost term: past the evaluation
        // bound, Ruby's error, no crash.
        let too_deep = format!(
            "x = {}1{}",
            "[".repeat(30),
            format!("{}]", " + 1".repeat(100)).repeat(30)
        );
        let out = ruby(&too_deep);
        assert!(
            out.contains("SystemStackError: stack level too deep"),
            "{out}"
        );
    }

    #[test]
    fn index_assignment_follows_ruby() {
        assert_eq!(
            ruby("a = [1]\na[2] = 3\np a\nh = {}\nh['k'] ||= 5\nh['k'] += 1\np h"),
            "[1, nil, 3]\n{\"k\"=>6}\n"
        );
        assert_eq!(
            ruby("a = 5\na[0] = 1"),
            "ERROR: NoMethodError: undefined method `[]=' for 5:Integer (line 2, column 1)\n"
        );
    }

    #[test]
    fn limits_are_ruby_errors_not_crashes() {
        assert_eq!(ruby("puts -9223372036854775808 % -1"), "0\n");
        assert_eq!(
            ruby("puts((-9223372036854775808) / -1)")
                .lines()
                .next()
                .unwrap_or(""),
            "ERROR: RangeError: integer overflow: regionkv's shell computes with 64-bit integers (Ruby would make a Bignum) (line 1, column 7)"
        );
        assert!(ruby("x = [0] * 100_000_000").contains("ArgumentError: argument too big"));
        assert!(ruby("x = Array.new(100_000_000)").contains("ArgumentError: array size too big"));
        assert!(ruby("x = 'a'.rjust(2_000_000_000)").contains("ArgumentError: argument too big"));
        assert!(ruby("x = '%2000000000d' % 1").contains("ArgumentError: width too big"));
        assert!(ruby("x = (1..100_000_000).to_a").contains("RangeError"));
        assert!(ruby("a = []\na[100_000_000] = 1").contains("IndexError"));
        assert!(
            ruby("puts (-9223372036854775808..9223372036854775807).size")
                .contains("RangeError: integer overflow")
        );
        assert_eq!(
            ruby("t = Time.at(9223372036854775807)\nputs (t + 1).to_i > 0"),
            "true\n"
        );
    }

    #[test]
    fn interactive_echo_follows_irb() {
        let out = ruby_with(
            "x = 5\nputs 'a'\nfor i in 1..2 do end\n3.times { }\ncreate 't', 'f'\nlist\nnil\n'x' * 2",
            true,
        );
        assert_eq!(
            out,
            "=> 5\na\n=> 1..2\n=> 3\nCreated table t\n=> Hbase::Table - t\nTABLE\nt\n1 row(s)\n=> [\"t\"]\n=> \"xx\"\n"
        );
    }

    #[test]
    fn errors_name_ruby_classes_and_stop_only_their_statement() {
        let out = ruby("foo\nputs bar\nx = nil\nx.frob\nputs 'still here'\nrequire 'x'");
        assert_eq!(
            out,
            "ERROR: Unknown command 'foo'. Try 'help'.\n\
             ERROR: NameError: undefined local variable or method `bar' for main:Object (line 2, column 6)\n\
             ERROR: NoMethodError: undefined method `frob' for nil:NilClass (line 4, column 1)\n\
             still here\n\
             ERROR: NotImplementedError: require is not supported by regionkv's shell: files cannot be loaded; run them with regionkv shell -f (SHELL.md lists the Ruby it runs) (line 6, column 1)\n"
        );
    }

    #[test]
    fn an_interrupt_stops_a_loop() {
        // The flag is this test thread's own; raised, it stops the loop at its next turn.
        let (_dir, mut session) = test_session(Settings {
            echo: false,
            timing: false,
            width: 0,
        });
        let program =
            super::super::grammar::parse_program("loop { x = 1 }", 1, &Default::default()).unwrap();
        super::super::interrupt::raise();
        let result = session.eval(&program[0]);
        super::super::interrupt::clear();
        assert!(
            matches!(result, Err(super::Unwind::Interrupt)),
            "{result:?}"
        );
    }
}
