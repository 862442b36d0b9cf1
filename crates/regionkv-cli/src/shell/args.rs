//! Reading command arguments the way HBase's JRuby shell reads them: Ruby's `to_s` and
//! `inspect` of literal values, option hashes whose keys are HBase's constant names
//! (`VERSIONS` and `'VERSIONS'` are the same key, as HBase's constants are strings), column
//! specs split as `CellUtil.parseColumn` splits them (`family[:qualifier[:converter]]`), and
//! the errors commands report (`ERROR: ...` in the session).

use std::io;

use super::format::{ruby_float, ruby_inspect};
use super::parse::Value;

/// Why a command failed.
#[derive(Debug)]
pub enum CmdError {
    /// Writing the output failed; the session stops.
    Io(io::Error),
    /// The command failed; the text follows `ERROR: `.
    Failed(String),
}

impl From<io::Error> for CmdError {
    fn from(e: io::Error) -> Self {
        CmdError::Io(e)
    }
}

/// The result of a command.
pub type CmdResult<T> = Result<T, CmdError>;

/// A failure with `message`.
pub fn fail<T>(message: impl Into<String>) -> CmdResult<T> {
    Err(CmdError::Failed(message.into()))
}

/// Checks the number of arguments as Ruby does for a method taking `min` to `max`
/// arguments (`None`: any number more).
pub fn arity(args: &[Value], min: usize, max: Option<usize>) -> CmdResult<()> {
    let given = args.len();
    let ok = given >= min && max.is_none_or(|max| given <= max);
    if ok {
        return Ok(());
    }
    let expected = match max {
        Some(max) if max == min => min.to_string(),
        Some(max) => format!("{min}..{max}"),
        None => format!("{min}+"),
    };
    fail(format!(
        "wrong number of arguments (given {given}, expected {expected})"
    ))
}

/// Ruby's `to_s` of a value, as bytes (`value.to_s.to_java_bytes`): strings as they are,
/// numbers in decimal, constants by name (HBase's constants are strings of their names),
/// `nil` as nothing, arrays and hashes by `inspect`.
pub fn to_s(v: &Value) -> Vec<u8> {
    match v {
        Value::Str(b) => b.clone(),
        Value::Int(i) => i.to_string().into_bytes(),
        Value::Float(f) => ruby_float(*f).into_bytes(),
        Value::Bool(b) => b.to_string().into_bytes(),
        Value::Nil => Vec::new(),
        Value::Const(name) => name.clone().into_bytes(),
        Value::Hash(_) | Value::Array(_) => inspect(v).into_bytes(),
    }
}

/// [`to_s`] as text (invalid UTF-8 replaced).
pub fn to_text(v: &Value) -> String {
    String::from_utf8_lossy(&to_s(v)).into_owned()
}

/// Ruby's `inspect` of a value, as JRuby 9.2 (HBase 2.x's) prints it: `{"VERSIONS"=>3}`.
pub fn inspect(v: &Value) -> String {
    match v {
        Value::Str(b) => ruby_inspect(&String::from_utf8_lossy(b)),
        Value::Int(i) => i.to_string(),
        Value::Float(f) => ruby_float(*f),
        Value::Bool(b) => b.to_string(),
        Value::Nil => "nil".to_string(),
        Value::Const(name) => ruby_inspect(name),
        Value::Array(items) => {
            let items: Vec<String> = items.iter().map(inspect).collect();
            format!("[{}]", items.join(", "))
        }
        Value::Hash(pairs) => {
            let pairs: Vec<String> = dedup(pairs)
                .iter()
                .map(|(k, v)| format!("{}=>{}", inspect(k), inspect(v)))
                .collect();
            format!("{{{}}}", pairs.join(", "))
        }
    }
}

/// Ruby's class name of a value, for messages such as `Failed parse of {...}, Hash`.
pub fn class_name(v: &Value) -> &'static str {
    match v {
        Value::Str(_) | Value::Const(_) => "String",
        Value::Int(_) => "Integer",
        Value::Float(_) => "Float",
        Value::Bool(true) => "TrueClass",
        Value::Bool(false) => "FalseClass",
        Value::Nil => "NilClass",
        Value::Array(_) => "Array",
        Value::Hash(_) => "Hash",
    }
}

/// A hash literal's pairs as Ruby keeps them: a repeated key keeps its first position and
/// takes the last value.
fn dedup(pairs: &[(Value, Value)]) -> Vec<(Value, Value)> {
    let mut out: Vec<(Value, Value)> = Vec::with_capacity(pairs.len());
    for (k, v) in pairs {
        let key = key_text(k);
        match out.iter_mut().find(|(k2, _)| key_text(k2) == key) {
            Some(slot) => slot.1 = v.clone(),
            None => out.push((k.clone(), v.clone())),
        }
    }
    out
}

/// How a hash key compares: strings and constants by their text, other keys by their
/// `inspect` (so `1` and `'1'` differ, as in Ruby).
fn key_text(k: &Value) -> String {
    match k {
        Value::Str(_) | Value::Const(_) => to_text(k),
        other => format!("\u{0}{}", inspect(other)),
    }
}

/// A string argument: a table, namespace or family name.
pub fn string_arg(v: &Value, what: &str) -> CmdResult<String> {
    match v {
        Value::Str(_) | Value::Const(_) => Ok(to_text(v)),
        other => fail(format!(
            "{what} must be of type String, not {} ({})",
            class_name(other),
            inspect(other)
        )),
    }
}

/// A table name argument (HBase: `Table name must be of type String`).
pub fn table_arg(v: &Value) -> CmdResult<String> {
    match v {
        Value::Str(_) | Value::Const(_) => Ok(to_text(v)),
        _ => fail("Table name must be of type String"),
    }
}

/// An integer argument (Ruby Integer, or a string of digits as `JLong.valueOf` reads it).
pub fn int_arg(v: &Value, what: &str) -> CmdResult<i64> {
    match v {
        Value::Int(i) => Ok(*i),
        Value::Str(_) => {
            let text = to_text(v);
            text.trim()
                .parse()
                .or_else(|_| fail(format!("{what}: For input string: {}", ruby_inspect(&text))))
        }
        other => fail(format!(
            "{what} must be an integer, not {} ({})",
            class_name(other),
            inspect(other)
        )),
    }
}

/// An integer that HBase passes to a Java `int` (VERSIONS, MIN_VERSIONS, BLOCKSIZE,
/// REPLICATION_SCOPE ...): [`int_arg`], refused when it does not fit in 32 bits, as the
/// shell's `JInteger.valueOf` refuses it, instead of being stored as another number.
pub fn java_int_arg(v: &Value, what: &str) -> CmdResult<i32> {
    let n = int_arg(v, what)?;
    i32::try_from(n).or_else(|_| {
        fail(format!(
            "{what} {n} is out of range: it is a Java int, from -2147483648 to 2147483647"
        ))
    })
}

/// A boolean as `JBoolean.valueOf` reads it: `true`, or a string equal to "true" in any
/// case; everything else is false.
pub fn java_bool(v: &Value) -> bool {
    match v {
        Value::Bool(b) => *b,
        Value::Str(_) | Value::Const(_) => to_text(v).eq_ignore_ascii_case("true"),
        _ => false,
    }
}

/// Ruby truthiness: everything but `nil` and `false`.
pub fn truthy(v: &Value) -> bool {
    !matches!(v, Value::Nil | Value::Bool(false))
}

/// An option hash: its pairs by key text, in order, first position and last value for a
/// repeated key.
#[derive(Debug, Clone, Default)]
pub struct Opts {
    pairs: Vec<(String, Value, Value)>,
}

impl Opts {
    /// The options of a hash value; `None` for any other value.
    pub fn of(v: &Value) -> Option<Opts> {
        match v {
            Value::Hash(pairs) => Some(Opts {
                pairs: dedup(pairs)
                    .into_iter()
                    .map(|(k, v)| (key_text(&k), k, v))
                    .collect(),
            }),
            _ => None,
        }
    }

    /// The value of `key`.
    pub fn get(&self, key: &str) -> Option<&Value> {
        self.pairs
            .iter()
            .find(|(k, _, _)| k == key)
            .map(|(_, _, v)| v)
    }

    /// The value of `key` unless it is `nil` (Ruby's `args[KEY]` in a condition).
    pub fn get_set(&self, key: &str) -> Option<&Value> {
        self.get(key).filter(|v| !matches!(v, Value::Nil))
    }

    /// Whether `key` is present (even with a `nil` value).
    pub fn has(&self, key: &str) -> bool {
        self.get(key).is_some()
    }

    /// Removes `key` and returns its value.
    pub fn remove(&mut self, key: &str) -> Option<Value> {
        let i = self.pairs.iter().position(|(k, _, _)| k == key)?;
        Some(self.pairs.remove(i).2)
    }

    /// Whether no key is left.
    pub fn is_empty(&self) -> bool {
        self.pairs.is_empty()
    }

    /// The keys left, as Ruby prints them with `%s` (strings bare).
    pub fn keys(&self) -> Vec<String> {
        self.pairs.iter().map(|(_, k, _)| to_text(k)).collect()
    }

    /// The pairs left (original keys).
    pub fn pairs(&self) -> impl Iterator<Item = (&Value, &Value)> {
        self.pairs.iter().map(|(_, k, v)| (k, v))
    }

    /// The hash as Ruby's `inspect` prints it.
    pub fn inspect(&self) -> String {
        inspect(&self.to_value())
    }

    /// The hash as a value again.
    pub fn to_value(&self) -> Value {
        Value::Hash(
            self.pairs
                .iter()
                .map(|(_, k, v)| (k.clone(), v.clone()))
                .collect(),
        )
    }
}

/// A column spec as the shell splits it (`parse_column_name`, `CellUtil.parseColumn`
/// twice): `family`, `family:` (the empty qualifier), `family:qualifier`, or
/// `family:qualifier:converter` (a `Bytes` method that formats the column's values).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ColumnSpec {
    /// The family.
    pub family: Vec<u8>,
    /// The qualifier; `None` for a whole family.
    pub qualifier: Option<Vec<u8>>,
    /// The value converter, if one follows the qualifier.
    pub converter: Option<String>,
}

/// `CellUtil.parseColumn`: splits at the first `:`; a trailing `:` gives an empty second
/// part.
fn parse_column(c: &[u8]) -> (Vec<u8>, Option<Vec<u8>>) {
    match c.iter().position(|&b| b == b':') {
        None => (c.to_vec(), None),
        Some(i) => (c[..i].to_vec(), Some(c[i + 1..].to_vec())),
    }
}

/// Splits a column spec.
pub fn column_spec(spec: &[u8]) -> ColumnSpec {
    let (family, rest) = parse_column(spec);
    let Some(rest) = rest else {
        return ColumnSpec {
            family,
            qualifier: None,
            converter: None,
        };
    };
    let (qualifier, converter) = parse_column(&rest);
    ColumnSpec {
        family,
        qualifier: Some(qualifier),
        converter: converter
            .filter(|c| !c.is_empty())
            .map(|c| String::from_utf8_lossy(&c).into_owned()),
    }
}

/// `Bytes.toBytesBinary` over bytes: `\xHH` (upper-case hex) becomes one byte; a bogus
/// escape drops only its backslash; everything else is kept.
pub fn to_bytes_binary(s: &[u8]) -> CmdResult<Vec<u8>> {
    let hex = |c: u8| match c {
        b'0'..=b'9' => Some(c - b'0'),
        b'A'..=b'F' => Some(c - b'A' + 10),
        _ => None,
    };
    let mut out = Vec::with_capacity(s.len());
    let mut i = 0;
    while i < s.len() {
        if s[i] == b'\\' && s.get(i + 1) == Some(&b'x') {
            let (Some(&h1), Some(&h2)) = (s.get(i + 2), s.get(i + 3)) else {
                // Java's charAt past the end.
                return fail(format!(
                    "String index out of range: {}",
                    i + if s.get(i + 2).is_some() { 3 } else { 2 }
                ));
            };
            match (hex(h1), hex(h2)) {
                (Some(hi), Some(lo)) => {
                    out.push((hi << 4) | lo);
                    i += 4;
                }
                _ => i += 1,
            }
        } else {
            out.push(s[i]);
            i += 1;
        }
    }
    Ok(out)
}

#[cfg(test)]
#[allow(clippy::unwrap_used)]
mod tests {
    use super::*;

    fn s(text: &str) -> Value {
        Value::Str(text.as_bytes().to_vec())
    }

    fn c(name: &str) -> Value {
        Value::Const(name.to_string())
    }

    #[test]
    fn ruby_conversions() {
        assert_eq!(to_s(&Value::Int(-5)), b"-5");
        assert_eq!(to_s(&c("VERSIONS")), b"VERSIONS");
        assert_eq!(to_s(&Value::Nil), b"");
        assert_eq!(to_s(&Value::Float(2.0)), b"2.0");
        let hash = Value::Hash(vec![
            (c("VERSIONS"), Value::Int(3)),
            (
                s("k"),
                Value::Array(vec![s("a"), Value::Nil, Value::Bool(true)]),
            ),
            (c("VERSIONS"), Value::Int(4)),
        ]);
        assert_eq!(inspect(&hash), r#"{"VERSIONS"=>4, "k"=>["a", nil, true]}"#);
        assert_eq!(class_name(&hash), "Hash");
        assert!(truthy(&s("false")) && !truthy(&Value::Nil));
        assert!(java_bool(&s("TRUE")) && !java_bool(&s("yes")) && !java_bool(&Value::Int(1)));
    }

    #[test]
    fn arity_messages_follow_ruby() {
        let two = [s("a"), s("b")];
        assert!(arity(&two, 1, Some(2)).is_ok());
        let msg = |r: CmdResult<()>| match r {
            Err(CmdError::Failed(m)) => m,
            _ => String::new(),
        };
        assert_eq!(
            msg(arity(&two, 3, Some(5))),
            "wrong number of arguments (given 2, expected 3..5)"
        );
        assert_eq!(
            msg(arity(&two, 1, Some(1))),
            "wrong number of arguments (given 2, expected 1)"
        );
        assert_eq!(
            msg(arity(&[], 1, None)),
            "wrong number of arguments (given 0, expected 1+)"
        );
    }

    #[test]
    fn option_hashes_match_constants_and_strings() {
        let v = Value::Hash(vec![
            (c("NAME"), s("f")),
            (s("VERSIONS"), Value::Int(2)),
            (c("TTL"), Value::Nil),
        ]);
        let mut o = Opts::of(&v).unwrap();
        assert_eq!(o.get("VERSIONS"), Some(&Value::Int(2)));
        assert!(o.has("TTL") && o.get_set("TTL").is_none());
        assert_eq!(o.remove("NAME"), Some(s("f")));
        assert_eq!(o.keys(), ["VERSIONS", "TTL"]);
        assert_eq!(o.inspect(), r#"{"VERSIONS"=>2, "TTL"=>nil}"#);
        assert!(Opts::of(&s("x")).is_none());
    }

    #[test]
    fn column_specs_split_like_parse_column() {
        let spec = |t: &str| column_spec(t.as_bytes());
        assert_eq!(spec("f").qualifier, None);
        assert_eq!(spec("f:").qualifier, Some(vec![]));
        assert_eq!(spec("f:q").qualifier, Some(b"q".to_vec()));
        let with = spec("f:q:toInt");
        assert_eq!(
            (with.family, with.qualifier, with.converter),
            (
                b"f".to_vec(),
                Some(b"q".to_vec()),
                Some("toInt".to_string())
            )
        );
        assert_eq!(spec("f:q:").converter, None);
    }

    #[test]
    fn bytes_binary_follows_hbase() {
        assert_eq!(to_bytes_binary(b"a\\x00\\xFFb").unwrap(), b"a\x00\xffb");
        assert_eq!(to_bytes_binary(b"\\xzz").unwrap(), b"xzz");
        assert_eq!(to_bytes_binary(b"\\x0a").unwrap(), b"x0a");
        assert_eq!(to_bytes_binary(b"\xff").unwrap(), b"\xff");
        assert!(to_bytes_binary(b"ab\\x1").is_err());
        assert!(to_bytes_binary(b"\\x").is_err());
    }
}
