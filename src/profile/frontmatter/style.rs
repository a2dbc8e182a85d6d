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
    // Only these can start a finite float; the check keeps `parse` off ordinary words.
    unsigned.starts_with(|c: char| c.is_ascii_digit() || c == '.' || c == '-')
        && unsigned.parse::<f64>().is_ok_and(f64::is_finite)
}
