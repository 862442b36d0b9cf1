//! Ruby's `format` (`Kernel#sprintf`, `String#%`): the directives HBase shell users write to
//! build row keys and values, with Ruby's flags, width, precision and errors.
//!
//! Supported: `%d %i %u`, `%s`, `%p` (inspect), `%x %X %o %b %B`, `%f %e %E %g %G`, `%c`,
//! `%%`, the flags `-`, `0`, `+`, space and `#`, widths and precisions (also `*`). Unknown
//! directives raise Ruby's `ArgumentError: malformed format string - %y`; too few arguments
//! raise `ArgumentError: too few arguments`. Named references (`%<a>d`) are not supported.

use super::interp::{Obj, RubyError, inspect, to_s};

/// Formats `args` by `fmt`.
pub fn sprintf(fmt: &[u8], args: &[Obj]) -> Result<Vec<u8>, RubyError> {
    let mut out = Vec::with_capacity(fmt.len() + 16);
    let mut next = 0usize;
    let take = |next: &mut usize| -> Result<Obj, RubyError> {
        let arg = args
            .get(*next)
            .cloned()
            .ok_or_else(|| RubyError::new("ArgumentError", "too few arguments"))?;
        *next += 1;
        Ok(arg)
    };
    let mut i = 0;
    while i < fmt.len() {
        let c = fmt[i];
        if c != b'%' {
            out.push(c);
            i += 1;
            continue;
        }
        i += 1;
        let mut spec = Spec::default();
        // Flags.
        while let Some(&f) = fmt.get(i) {
            match f {
                b'-' => spec.left = true,
                b'0' => spec.zero = true,
                b'+' => spec.plus = true,
                b' ' => spec.space = true,
                b'#' => spec.alt = true,
                _ => break,
            }
            i += 1;
        }
        // Width.
        if fmt.get(i) == Some(&b'*') {
            i += 1;
            let w = int_of(&take(&mut next)?)?;
            if w < 0 {
                spec.left = true;
            }
            spec.width = usize::try_from(w.unsigned_abs()).unwrap_or(usize::MAX);
        } else {
            while let Some(d) = fmt.get(i).filter(|d| d.is_ascii_digit()) {
                spec.width = spec
                    .width
                    .saturating_mul(10)
                    .saturating_add(usize::from(d - b'0'));
                i += 1;
            }
        }
        // Precision.
        if fmt.get(i) == Some(&b'.') {
            i += 1;
            let mut p = 0usize;
            if fmt.get(i) == Some(&b'*') {
                i += 1;
                p = usize::try_from(int_of(&take(&mut next)?)?.max(0)).unwrap_or(0);
            } else {
                while let Some(d) = fmt.get(i).filter(|d| d.is_ascii_digit()) {
                    p = p.saturating_mul(10).saturating_add(usize::from(d - b'0'));
                    i += 1;
                }
            }
            spec.precision = Some(p);
        }
        // Ruby's own limit is the memory; a shell statement stops at 1 GiB.
        if spec.width > super::interp::MAX_STRING_BYTES
            || spec
                .precision
                .is_some_and(|p| p > super::interp::MAX_STRING_BYTES)
        {
            return Err(RubyError::new("ArgumentError", "width too big"));
        }
        let Some(&conv) = fmt.get(i) else {
            return Err(RubyError::new(
                "ArgumentError",
                "incomplete format specifier; use %% (double %) instead",
            ));
        };
        i += 1;
        match conv {
            b'%' => out.push(b'%'),
            b'd' | b'i' | b'u' => {
                let n = int_of(&take(&mut next)?)?;
                let digits = n.unsigned_abs().to_string();
                spec.number(&mut out, n < 0, "", &digits);
            }
            b'x' | b'X' | b'o' | b'b' | b'B' => {
                let n = int_of(&take(&mut next)?)?;
                let m = n.unsigned_abs();
                let (digits, prefix) = match conv {
                    b'x' => (format!("{m:x}"), "0x"),
                    b'X' => (format!("{m:X}"), "0X"),
                    b'o' => (format!("{m:o}"), "0"),
                    b'b' => (format!("{m:b}"), "0b"),
                    _ => (format!("{m:b}"), "0B"),
                };
                let prefix = if spec.alt && m != 0 { prefix } else { "" };
                // Ruby prints negative numbers with a sign here when a sign flag or no
                // two's-complement form is asked for; `-..f` forms are left out.
                spec.number(&mut out, n < 0, prefix, &digits);
            }
            b'f' | b'e' | b'E' | b'g' | b'G' => {
                let f = float_of(&take(&mut next)?)?;
                let p = spec.precision.unwrap_or(6);
                let body = if f.is_nan() {
                    "NaN".to_string()
                } else if f.is_infinite() {
                    "Inf".to_string()
                } else {
                    match conv {
                        b'f' => format!("{:.*}", p, f.abs()),
                        b'e' => exp_form(f.abs(), p, false),
                        b'E' => exp_form(f.abs(), p, true),
                        _ => g_form(f.abs(), p, conv == b'G', spec.alt),
                    }
                };
                let saved = spec.precision.take();
                spec.number(&mut out, f.is_sign_negative() && !f.is_nan(), "", &body);
                spec.precision = saved;
            }
            b's' | b'p' => {
                let arg = take(&mut next)?;
                let mut text = if conv == b's' {
                    to_s(&arg)
                } else {
                    inspect(&arg).into_bytes()
                };
                if let Some(p) = spec.precision {
                    text = truncate_chars(&text, p);
                }
                spec.pad(&mut out, &text);
            }
            b'c' => {
                let arg = take(&mut next)?;
                let text =
                    match &arg {
                        Obj::Str(s) => truncate_chars(s, 1),
                        other => {
                            let n = int_of(other)?;
                            let c = u32::try_from(n).ok().and_then(char::from_u32).ok_or_else(
                                || RubyError::new("RangeError", format!("{n} out of char range")),
                            )?;
                            c.to_string().into_bytes()
                        }
                    };
                spec.pad(&mut out, &text);
            }
            other => {
                return Err(RubyError::new(
                    "ArgumentError",
                    format!("malformed format string - %{}", char::from(other)),
                ));
            }
        }
    }
    Ok(out)
}

#[derive(Default)]
struct Spec {
    left: bool,
    zero: bool,
    plus: bool,
    space: bool,
    alt: bool,
    width: usize,
    precision: Option<usize>,
}

impl Spec {
    /// Writes a number: sign, prefix, zero padding (precision or `0` flag) and width.
    fn number(&self, out: &mut Vec<u8>, negative: bool, prefix: &str, digits: &str) {
        let sign = if negative {
            "-"
        } else if self.plus {
            "+"
        } else if self.space {
            " "
        } else {
            ""
        };
        let mut body = String::new();
        body.push_str(sign);
        body.push_str(prefix);
        if let Some(p) = self.precision {
            for _ in digits.len()..p {
                body.push('0');
            }
        }
        body.push_str(digits);
        let len = body.chars().count();
        if len >= self.width {
            out.extend_from_slice(body.as_bytes());
        } else if self.left {
            out.extend_from_slice(body.as_bytes());
            out.extend(std::iter::repeat_n(b' ', self.width - len));
        } else if self.zero && self.precision.is_none() {
            out.extend_from_slice(sign.as_bytes());
            out.extend_from_slice(prefix.as_bytes());
            out.extend(std::iter::repeat_n(b'0', self.width - len));
            out.extend_from_slice(digits.as_bytes());
        } else {
            out.extend(std::iter::repeat_n(b' ', self.width - len));
            out.extend_from_slice(body.as_bytes());
        }
    }

    /// Writes text padded with spaces to the width (counted in characters).
    fn pad(&self, out: &mut Vec<u8>, text: &[u8]) {
        let len = String::from_utf8_lossy(text).chars().count();
        let fill = self.width.saturating_sub(len);
        if !self.left {
            out.extend(std::iter::repeat_n(b' ', fill));
        }
        out.extend_from_slice(text);
        if self.left {
            out.extend(std::iter::repeat_n(b' ', fill));
        }
    }
}

/// The first `n` characters of `text` (bytes that are not UTF-8 count one each).
fn truncate_chars(text: &[u8], n: usize) -> Vec<u8> {
    match std::str::from_utf8(text) {
        Ok(s) => s.chars().take(n).collect::<String>().into_bytes(),
        Err(_) => text.iter().take(n).copied().collect(),
    }
}

/// `%e`: C's exponent form, at least two exponent digits.
fn exp_form(f: f64, p: usize, upper: bool) -> String {
    let s = format!("{f:.p$e}");
    let (mantissa, exp) = s.split_once('e').unwrap_or((&s, "0"));
    let exp: i32 = exp.parse().unwrap_or(0);
    let e = if upper { 'E' } else { 'e' };
    let sign = if exp < 0 { '-' } else { '+' };
    format!("{mantissa}{e}{sign}{:02}", exp.abs())
}

/// `%g`: `%e` when the exponent is below -4 or at least the precision, else `%f`, with
/// trailing zeros removed unless `#`.
fn g_form(f: f64, p: usize, upper: bool, alt: bool) -> String {
    let p = p.max(1);
    if f == 0.0 {
        return "0".to_string();
    }
    let exp = f.log10().floor() as i64;
    let strip = |s: String| {
        if alt || !s.contains('.') {
            s
        } else {
            s.trim_end_matches('0').trim_end_matches('.').to_string()
        }
    };
    let p_i = i64::try_from(p).unwrap_or(i64::MAX);
    if exp < -4 || exp >= p_i {
        let s = exp_form(f, p - 1, upper);
        let (m, e) = s.split_at(s.find(['e', 'E']).unwrap_or(s.len()));
        format!("{}{e}", strip(m.to_string()))
    } else {
        let decimals = usize::try_from(p_i - 1 - exp).unwrap_or(0);
        strip(format!("{f:.decimals$}"))
    }
}

/// An argument of `%d` and friends, as Ruby's `Integer()` takes it.
fn int_of(arg: &Obj) -> Result<i64, RubyError> {
    match arg {
        Obj::Int(i) => Ok(*i),
        Obj::Float(f) if f.is_finite() => Ok(f.floor() as i64),
        Obj::Str(s) => super::interp::parse_integer_strict(s),
        Obj::Nil => Err(RubyError::new(
            "TypeError",
            "can't convert nil into Integer",
        )),
        other => Err(RubyError::new(
            "TypeError",
            format!(
                "can't convert {} into Integer",
                super::interp::class_of(other)
            ),
        )),
    }
}

/// An argument of `%f` and friends, as Ruby's `Float()` takes it.
fn float_of(arg: &Obj) -> Result<f64, RubyError> {
    match arg {
        Obj::Int(i) => Ok(*i as f64),
        Obj::Float(f) => Ok(*f),
        Obj::Str(s) => std::str::from_utf8(s)
            .ok()
            .map(|s| s.trim().replace('_', ""))
            .and_then(|s| s.parse::<f64>().ok())
            .ok_or_else(|| {
                RubyError::new(
                    "ArgumentError",
                    format!("invalid value for Float(): {}", inspect(arg)),
                )
            }),
        other => Err(RubyError::new(
            "TypeError",
            format!(
                "can't convert {} into Float",
                super::interp::class_of(other)
            ),
        )),
    }
}

#[cfg(test)]
#[allow(clippy::unwrap_used)]
mod tests {
    use super::*;

    fn f(fmt: &str, args: &[Obj]) -> String {
        String::from_utf8(sprintf(fmt.as_bytes(), args).unwrap()).unwrap()
    }

    fn s(text: &str) -> Obj {
        Obj::Str(text.as_bytes().to_vec())
    }

    /// Expected values are what `ruby -e 'puts format(...)'` prints.
    #[test]
    fn integers_pad_and_sign_as_ruby() {
        assert_eq!(f("%05d", &[Obj::Int(42)]), "00042");
        assert_eq!(f("%05d", &[Obj::Int(-42)]), "-0042");
        assert_eq!(f("%-5d|", &[Obj::Int(42)]), "42   |");
        assert_eq!(f("%+d %+d", &[Obj::Int(1), Obj::Int(-1)]), "+1 -1");
        assert_eq!(f("% d", &[Obj::Int(7)]), " 7");
        assert_eq!(f("%.3d", &[Obj::Int(7)]), "007");
        assert_eq!(f("%8.3d|", &[Obj::Int(7)]), "     007|");
        assert_eq!(
            f(
                "%x %X %o %b",
                &[Obj::Int(255), Obj::Int(255), Obj::Int(8), Obj::Int(5)]
            ),
            "ff FF 10 101"
        );
        assert_eq!(
            f("%#x %#o %#b", &[Obj::Int(255), Obj::Int(8), Obj::Int(5)]),
            "0xff 010 0b101"
        );
        assert_eq!(f("%08x", &[Obj::Int(48879)]), "0000beef");
        assert_eq!(f("%d", &[s("12")]), "12");
        assert_eq!(f("%d", &[Obj::Float(3.99)]), "3");
        assert_eq!(f("%*d", &[Obj::Int(4), Obj::Int(1)]), "   1");
        assert_eq!(f("100%%", &[]), "100%");
    }

    #[test]
    fn floats_strings_and_chars() {
        assert_eq!(f("%.2f", &[Obj::Float(1.23456)]), "1.23");
        assert_eq!(f("%f", &[Obj::Int(2)]), "2.000000");
        assert_eq!(f("%08.3f", &[Obj::Float(-1.23456)]), "-001.235");
        assert_eq!(f("%e", &[Obj::Float(12345.678)]), "1.234568e+04");
        assert_eq!(f("%.2E", &[Obj::Float(0.000123)]), "1.23E-04");
        assert_eq!(
            f(
                "%g %g %g",
                &[
                    Obj::Float(0.0001),
                    Obj::Float(123456.0),
                    Obj::Float(1234567.0)
                ]
            ),
            "0.0001 123456 1.23457e+06"
        );
        assert_eq!(f("%s-%s", &[s("a"), Obj::Int(1)]), "a-1");
        assert_eq!(f("%5s|%-5s|", &[s("ab"), s("cd")]), "   ab|cd   |");
        assert_eq!(f("%.2s", &[s("abcdef")]), "ab");
        assert_eq!(f("%p %p", &[s("a"), Obj::Nil]), "\"a\" nil");
        assert_eq!(f("%c%c", &[Obj::Int(65), s("bc")]), "Ab");
        assert_eq!(f("%s", &[Obj::Float(1.0)]), "1.0");
    }

    #[test]
    fn errors_are_rubys() {
        let e = sprintf(b"%d %d", &[Obj::Int(1)]).unwrap_err();
        assert_eq!(e.to_string(), "ArgumentError: too few arguments");
        let e = sprintf(b"%y", &[Obj::Int(1)]).unwrap_err();
        assert_eq!(e.to_string(), "ArgumentError: malformed format string - %y");
        let e = sprintf(b"%d", &[s("x")]).unwrap_err();
        assert_eq!(
            e.to_string(),
            "ArgumentError: invalid value for Integer(): \"x\""
        );
        let e = sprintf(b"%d", &[Obj::Nil]).unwrap_err();
        assert_eq!(e.to_string(), "TypeError: can't convert nil into Integer");
    }
}
