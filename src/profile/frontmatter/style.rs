//! Strings written as YAML scalars the way `serde-yaml` 0.9 writes them wherever that is sound,
//! and what a plain scalar resolves to (a port of serde-yaml's rules).

/// Append `text` as a YAML scalar, choosing the style `serde-yaml` 0.9 (libyaml's emitter)
/// chooses for a string wherever that is sound:
/// - **plain** when libyaml would write it plain;
/// - **single-quoted** (`'` doubled) when plain would read back as something else — empty,
///   null, a boolean, an integer or a float as serde-yaml resolves them, digits with a leading
///   zero — or when it holds an indicator: it starts with one of ``# , [ ] { } & * ! | > ' " %
///   @ ` ``, with `---` or `...`, or with `-`, `?`, `:` followed by a space or nothing; it holds
///   `: ` or ` #`, ends with `:`, or starts or ends with a space;
/// - **double-quoted**, JSON-style escapes (`\"`, `\\`, `\n`, `\t`, `\r`, `\b`, `\f`) and
///   `\uXXXX` for the rest, when it holds a character libyaml does not print or YAML readers
///   treat as a line break or trim: a control, U+0085, U+2028, U+2029, U+FEFF, U+FFFE, U+FFFF,
///   or any Unicode white space other than U+0020 (serde-yaml writes some of these plain or
///   single-quoted and reads them back differently, e.g. a trailing U+00A0).
///
/// Where this differs from serde-yaml (each reads back to the same string): a string with a
/// line break is one double-quoted line (`"a\nb"`), where serde-yaml writes a `|-` block; the
/// escapes of controls are `\u0001` where libyaml writes `\x01`, `\a`, `\e`; a string with a
/// U+2028/U+2029 or a non-ASCII space is double-quoted where serde-yaml writes it plain or
/// single-quoted; serde-yaml writes a mapping key longer than 128 bytes as `? key`, this writes
/// `key:` (libyaml-based readers refuse implicit keys beyond 1,024 bytes).
pub(super) fn write_scalar(out: &mut String, text: &str) {
    if text.chars().any(needs_escape) {
        write_double(out, text);
    } else if resolves_to_non_string(text) || !plain_allowed(text) {
        write_single(out, text);
    } else {
        out.push_str(text);
    }
}

/// Append `text` as a quoted YAML string: single-quoted, or double-quoted when it holds a
/// character that needs an escape (see [`write_scalar`]).
pub(super) fn write_quoted(out: &mut String, text: &str) {
    if text.chars().any(needs_escape) {
        write_double(out, text);
    } else {
        write_single(out, text);
    }
}

fn write_single(out: &mut String, text: &str) {
    out.push('\'');
    for c in text.chars() {
        if c == '\'' {
            out.push('\'');
        }
        out.push(c);
    }
    out.push('\'');
}

/// A character written only as an escape (see [`write_scalar`]).
fn needs_escape(c: char) -> bool {
    c.is_control()
        || matches!(
            c,
            '\u{2028}' | '\u{2029}' | '\u{feff}' | '\u{fffe}' | '\u{ffff}'
        )
        || (c.is_whitespace() && c != ' ')
}

fn write_double(out: &mut String, text: &str) {
    out.push('"');
    for c in text.chars() {
        match c {
            '"' => out.push_str("\\\""),
            '\\' => out.push_str("\\\\"),
            '\n' => out.push_str("\\n"),
            '\t' => out.push_str("\\t"),
            '\r' => out.push_str("\\r"),
            '\u{8}' => out.push_str("\\b"),
            '\u{c}' => out.push_str("\\f"),
            _ if needs_escape(c) => {
                const HEX: &[u8; 16] = b"0123456789ABCDEF";
                out.push_str("\\u");
                let code = c as u32;
                for shift in [12, 8, 4, 0] {
                    let digit = HEX.get(((code >> shift) & 0xf) as usize).copied();
                    out.push(char::from(digit.unwrap_or(b'0')));
                }
            }
            _ => out.push(c),
        }
    }
    out.push('"');
}

/// libyaml's rule for a plain scalar in block context (its `analyze_scalar`, for a one-line
/// string of printable characters).
fn plain_allowed(text: &str) -> bool {
    if text.starts_with("---") || text.starts_with("...") {
        return false;
    }
    if text.starts_with(' ') || text.ends_with(' ') {
        return false;
    }
    let mut chars = text.chars().peekable();
    let mut previous: Option<char> = None;
    while let Some(c) = chars.next() {
        let followed_by_space = matches!(chars.peek(), None | Some(' '));
        let indicator = match previous {
            None => {
                matches!(
                    c,
                    '#' | ','
                        | '['
                        | ']'
                        | '{'
                        | '}'
                        | '&'
                        | '*'
                        | '!'
                        | '|'
                        | '>'
                        | '\''
                        | '"'
                        | '%'
                        | '@'
                        | '`'
                ) || (matches!(c, '?' | ':' | '-') && followed_by_space)
            }
            Some(before) => (c == ':' && followed_by_space) || (c == '#' && before == ' '),
        };
        if indicator {
            return false;
        }
        previous = Some(c);
    }
    true
}

/// Would serde-yaml read this plain scalar as something other than a string (null, a boolean,
/// an integer, a float, or digits with a leading zero, which it keeps as a string only when
/// quoted)? A port of its `visit_untagged_scalar`.
pub(super) fn resolves_to_non_string(text: &str) -> bool {
    matches!(
        text,
        "" | "~"
            | "null"
            | "Null"
            | "NULL"
            | "true"
            | "True"
            | "TRUE"
            | "false"
            | "False"
            | "FALSE"
    ) || integer(text).is_some()
        || digits_with_leading_zero(text)
        || is_float(text)
}

/// An integer as serde-yaml resolves a plain scalar (decimal, `0x`, `0o`, `0b`, signs), with
/// whether it fits 64 bits (serde-yaml cannot hold a wider one in a value).
pub(super) fn integer(text: &str) -> Option<bool> {
    if let Some(value) = unsigned_integer(text) {
        return Some(value <= u128::from(u64::MAX));
    }
    negative_integer(text).map(|magnitude| magnitude <= 1u128 << 63)
}

/// serde-yaml's `parse_unsigned_int` with `u128`.
fn unsigned_integer(text: &str) -> Option<u128> {
    let unsigned = text.strip_prefix('+').unwrap_or(text);
    for (prefix, radix) in [("0x", 16), ("0o", 8), ("0b", 2)] {
        if let Some(rest) = unsigned.strip_prefix(prefix) {
            if rest.starts_with(['+', '-']) {
                return None;
            }
            if let Ok(value) = u128::from_str_radix(rest, radix) {
                return Some(value);
            }
        }
    }
    if unsigned.starts_with(['+', '-']) || digits_with_leading_zero(text) {
        return None;
    }
    unsigned.parse::<u128>().ok()
}

/// serde-yaml's `parse_negative_int` with `i128`: the magnitude of a negative integer.
fn negative_integer(text: &str) -> Option<u128> {
    for (prefix, radix) in [("-0x", 16), ("-0o", 8), ("-0b", 2)] {
        if let Some(rest) = text.strip_prefix(prefix) {
            if !rest.starts_with(['+', '-']) {
                if let Some(magnitude) = u128::from_str_radix(rest, radix)
                    .ok()
                    .filter(|&m| m <= 1u128 << 127)
                {
                    return Some(magnitude);
                }
            }
        }
    }
    if digits_with_leading_zero(text) {
        return None;
    }
    text.parse::<i128>()
        .ok()
        .map(|value| value.unsigned_abs())
        .filter(|_| text.starts_with('-'))
}

/// serde-yaml's `digits_but_not_number`: `007`, `-01`.
fn digits_with_leading_zero(text: &str) -> bool {
    let digits = text.strip_prefix(['-', '+']).unwrap_or(text);
    digits.len() > 1 && digits.starts_with('0') && digits.bytes().all(|b| b.is_ascii_digit())
}

/// serde-yaml's `parse_f64`: `.inf`/`.nan` spellings, or what Rust parses as a finite float.
fn is_float(text: &str) -> bool {
    let unsigned = match text.strip_prefix('+') {
        Some(rest) if rest.starts_with(['+', '-']) => return false,
        Some(rest) => rest,
        None => text,
    };
    if matches!(unsigned, ".inf" | ".Inf" | ".INF")
        || matches!(text, "-.inf" | "-.Inf" | "-.INF" | ".nan" | ".NaN" | ".NAN")
    {
        return true;
    }
    // Only these can start a finite float; the check keeps ordinary words out quickly.
    unsigned.starts_with(|c: char| c.is_ascii_digit() || c == '.' || c == '-')
        && parses_as_finite_f64(unsigned)
}

/// The digits of the smallest decimal that Rust's `f64` parsing rounds to infinity:
/// 2^1024 − 2^970, halfway between `f64::MAX` and 2^1024 (a tie, which rounds to the even
/// significand, 2^1024). 309 digits, so it is `0.DIGITS × 10^309`.
const OVERFLOW_DIGITS: &[u8] = b"179769313486231580793728971405303415079934132710037826936173778980444968292764750946649017977587207096330286416692887910946555547851940402630657488671505820681908902000708383676273854845817711531764475730270069855571366959622842914819860834936475292719074168444365510704342711559699508093042880177904174497792";

/// `text.parse::<f64>().is_ok_and(f64::is_finite)`, without the parse. Rust's float parsing
/// (`core::num::dec2flt`: its 11 KB table of powers of five and its big-decimal fallback) was
/// 14 KiB of the gzipped full core for this one question. The grammar is `FromStr for f64`'s: an
/// optional sign, digits with at most one `.` and at least one digit, and an optional exponent
/// (`e`/`E`, an optional sign, at least one digit); `inf`/`nan` are not finite. Such a number is
/// finite unless it is at least [`OVERFLOW_DIGITS`] (tiny numbers become 0, which is finite).
fn parses_as_finite_f64(text: &str) -> bool {
    let bytes = text.as_bytes();
    let digits_at = |at: usize| -> &[u8] {
        let rest = bytes.get(at..).unwrap_or_default();
        rest.get(..rest.iter().take_while(|b| b.is_ascii_digit()).count())
            .unwrap_or_default()
    };
    let mut at = usize::from(matches!(bytes.first(), Some(b'+' | b'-')));
    let integer = digits_at(at);
    at += integer.len();
    let mut fraction: &[u8] = &[];
    if bytes.get(at) == Some(&b'.') {
        fraction = digits_at(at + 1);
        at += 1 + fraction.len();
    }
    if integer.is_empty() && fraction.is_empty() {
        return false;
    }
    // The exponent saturates (dec2flt stops growing it at 0x10000 too): past 10^309 either way,
    // only its sign matters.
    let mut exponent: i64 = 0;
    if matches!(bytes.get(at), Some(b'e' | b'E')) {
        let negative = bytes.get(at + 1) == Some(&b'-');
        at += 1 + usize::from(matches!(bytes.get(at + 1), Some(b'+' | b'-')));
        let digits = digits_at(at);
        if digits.is_empty() {
            return false;
        }
        at += digits.len();
        for d in digits {
            exponent = (exponent * 10 + i64::from(d - b'0')).min(1 << 20);
        }
        if negative {
            exponent = -exponent;
        }
    }
    if at != bytes.len() {
        return false;
    }
    // The value is 0.SIGNIFICANT × 10^scale, SIGNIFICANT starting with a non-zero digit.
    let leading = integer.iter().take_while(|b| **b == b'0').count();
    let (significant, scale): (Vec<u8>, i64) = match integer.get(leading..) {
        Some(whole) if !whole.is_empty() => (
            whole.iter().chain(fraction).copied().collect(),
            i64::try_from(whole.len()).unwrap_or(i64::MAX),
        ),
        _ => {
            let zeros = fraction.iter().take_while(|b| **b == b'0').count();
            match fraction.get(zeros..) {
                Some(rest) if !rest.is_empty() => {
                    (rest.to_vec(), -i64::try_from(zeros).unwrap_or(i64::MAX))
                }
                _ => return true, // zero
            }
        }
    };
    match scale.saturating_add(exponent).cmp(&309) {
        std::cmp::Ordering::Less => true,
        std::cmp::Ordering::Greater => false,
        // Below the threshold as digit strings; a shorter one reads as followed by zeros.
        std::cmp::Ordering::Equal => significant
            .iter()
            .chain(std::iter::repeat(&b'0'))
            .zip(OVERFLOW_DIGITS)
            .find(|(a, b)| a != b)
            .is_some_and(|(a, b)| a < b),
    }
}

#[cfg(test)]
mod tests {
    use super::parses_as_finite_f64;

    /// The question the function answers, asked of Rust's own parser.
    fn oracle(text: &str) -> bool {
        text.parse::<f64>().is_ok_and(f64::is_finite)
    }

    #[test]
    fn agrees_with_rusts_parser_at_the_edges() {
        let max = "179769313486231580793728971405303415079934132710037826936173778980444968292764750946649017977587207096330286416692887910946555547851940402630657488671505820681908902000708383676273854845817711531764475730270069855571366959622842914819860834936475292719074168444365510704342711559699508093042880177904174497791";
        let tie = format!("{}2", &max[..max.len() - 1]);
        let cases = [
            "0",
            "-0",
            "+0",
            "00",
            "0.",
            ".0",
            ".",
            "-.",
            "-",
            "+",
            "",
            "1e",
            "1e+",
            "1e-",
            "e5",
            ".e5",
            "1.5",
            "-1.5",
            "1_0",
            "1..2",
            "1.2.3",
            "1e5",
            "1E5",
            "1e+5",
            "1e-5",
            "1e5.0",
            "--1",
            "+-1",
            "1e308",
            "1.7976931348623157e308",
            "1.7976931348623158e308",
            "1.7976931348623159e308",
            "1e309",
            "0.1e310",
            "0.01e310",
            "1e-400",
            "1e-99999999999999999999",
            "1e99999999999999999999",
            "0e99999999999999999999",
            "0.000e400",
            "000123.456e306",
            "0.00017976931348623159e312",
            max,
            &tie,
            "inf",
            "-inf",
            "infinity",
            "nan",
            "NaN",
            "1 ",
            " 1",
            "1x",
            "0x10",
            "١",
        ];
        for text in cases {
            assert_eq!(parses_as_finite_f64(text), oracle(text), "{text:?}");
        }
        assert!(parses_as_finite_f64(max));
        assert!(!parses_as_finite_f64(&tie));
        assert!(parses_as_finite_f64(&format!("0.{max}e309")));
        assert!(!parses_as_finite_f64(&format!("{tie}0e-1")));
    }

    #[cfg(not(target_arch = "wasm32"))]
    proptest::proptest! {
        #[test]
        fn agrees_with_rusts_parser(text in "[-+]?[0-9]{0,3}[.]?[0-9]{0,3}([eE][-+]?[0-9]{0,4})?|[-+.eE0-9a]{0,8}") {
            proptest::prop_assert_eq!(parses_as_finite_f64(&text), oracle(&text), "{:?}", text);
        }

        #[test]
        fn agrees_with_rusts_parser_near_the_overflow(
            prefix in 0usize..309, digit in 0u8..10, zeros in 0usize..4, shift in -3i64..4,
        ) {
            // A number around 2^1024 − 2^970: its digits up to `prefix`, one changed digit, and
            // the decimal point moved by `shift`.
            let digits = super::OVERFLOW_DIGITS;
            let mut text: String = digits[..prefix].iter().map(|b| char::from(*b)).collect();
            text.push(char::from(b'0' + digit));
            text.push_str(&"0".repeat(zeros));
            let text = format!("0.{text}e{}", 309 + shift);
            proptest::prop_assert_eq!(parses_as_finite_f64(&text), oracle(&text), "{:?}", text);
        }
    }
}
