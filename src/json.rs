//! JSON as the core reads it: decoding text into typed values with errors that name the field
//! (`(path, message)`, the path like `maxTokens`, `guardrails.maxKeyLength` or `[3].key`), the one
//! rule for lone surrogates ([`well_formed_escapes`]), and the scalar shapes JS sends ([`Time`],
//! [`Count`]). The JSON is compact (one line, as `JSON.stringify` writes it), so serde's error
//! column is a byte offset into it and the path is read off the text up to there. A leaf module:
//! it uses nothing else of the crate (errors read it, the boundary re-exports it).

use chrono::{DateTime, Utc};
use serde::de::{self, DeserializeOwned, Deserializer, Visitor};
use serde::Deserialize;

/// Decode JSON text into `T`, or `(field path, message)`. The JSON was written by our JS layer
/// on one line, so the error's column is a byte offset: the path is read off the text up to it
/// ([`json_path_at`]), and the message is serde's without the position (which means nothing to
/// the caller). One monomorphic decoder per type keeps the wasm small.
pub fn decode<T: DeserializeOwned>(json: &str) -> std::result::Result<T, (String, String)> {
    let json = well_formed_escapes(json);
    serde_json::from_str(&json).map_err(|error| describe(&json, &error))
}

/// Parse JSON text that may come from anywhere (a host answer, a model's answer, a string that
/// holds JSON) with [`well_formed_escapes`]: the one rule for lone surrogates (behaviour §8.1).
pub fn from_str<T: DeserializeOwned>(json: &str) -> serde_json::Result<T> {
    serde_json::from_str(&well_formed_escapes(json))
}

/// `json` with every `\u` escape of a **lone surrogate** — a high one not followed by a low
/// escape, or a low one alone — written as `\ufffd` (behaviour §8.1: lone surrogates become U+FFFD,
/// the TextEncoder rule). `JSON.stringify` writes a string's lone surrogates as such escapes,
/// which serde refuses ("unexpected end of hex escape"), so one such character in an entry, a
/// tool argument or a host answer would refuse the whole value. The replacement has the same
/// length, so error positions still point into the text as sent. Borrowed when there is none
/// (escapes other than of control characters are rare in `JSON.stringify`'s output).
pub fn well_formed_escapes(json: &str) -> std::borrow::Cow<'_, str> {
    let bytes = json.as_bytes();
    // A byte loop: `match_indices("\\u")` ran the two-way substring searcher, a fifth of
    // decoding a profile-sized answer in wasm.
    let suspect = bytes.iter().enumerate().any(|(at, b)| {
        *b == b'\\'
            && bytes.get(at + 1) == Some(&b'u')
            && matches!(bytes.get(at + 2), Some(b'd' | b'D'))
    });
    if !suspect {
        return std::borrow::Cow::Borrowed(json);
    }
    let unit = |at: usize| -> Option<u16> {
        let hex = json.get(at..at + 4)?;
        if hex.bytes().all(|b| b.is_ascii_hexdigit()) {
            u16::from_str_radix(hex, 16).ok()
        } else {
            None
        }
    };
    let mut out = String::with_capacity(json.len());
    let (mut copied, mut at) = (0, 0);
    while at < bytes.len() {
        if bytes.get(at) != Some(&b'\\') {
            at += 1;
            continue;
        }
        if bytes.get(at + 1) != Some(&b'u') {
            at += 2; // `\\`, `\"`, `\n`, …: the escaped character is not a backslash
            continue;
        }
        let Some(code) = unit(at + 2) else {
            at += 2;
            continue;
        };
        let paired = (0xD800..0xDC00).contains(&code)
            && bytes.get(at + 6) == Some(&b'\\')
            && bytes.get(at + 7) == Some(&b'u')
            && unit(at + 8).is_some_and(|low| (0xDC00..0xE000).contains(&low));
        if paired {
            at += 12;
        } else if (0xD800..0xE000).contains(&code) {
            out.push_str(json.get(copied..at).unwrap_or(""));
            out.push_str("\\ufffd");
            at += 6;
            copied = at;
        } else {
            at += 6;
        }
    }
    if copied == 0 {
        return std::borrow::Cow::Borrowed(json);
    }
    out.push_str(json.get(copied..).unwrap_or(""));
    std::borrow::Cow::Owned(out)
}

/// `(field path, message)` of a decoding error (not generic: one copy in the wasm). Errors of
/// serde's own scalar, sequence and map handling carry the exact position; a type with its own
/// `Deserialize` should reject through a `Visitor` (not by inspecting a decoded value), so its
/// errors are positioned too.
fn describe(json: &str, error: &serde_json::Error) -> (String, String) {
    let message = error.to_string();
    let position = format!(" at line {} column {}", error.line(), error.column());
    let message = message.strip_suffix(&position).unwrap_or(&message);
    if message.contains("recursion limit") {
        return (
            String::new(),
            "is nested too deeply (at most 128 levels)".to_string(),
        );
    }
    let offset = if error.line() == 1 { error.column() } else { 0 };
    let mut path = json_path_at(json, offset);
    // serde reports a missing field at the end of its object: name the field in the path.
    if let Some(field) = message
        .strip_prefix("missing field `")
        .and_then(|rest| rest.strip_suffix('`'))
    {
        if !path.is_empty() {
            path.push('.');
        }
        path.push_str(field);
    }
    (path, message.to_string())
}

/// A decoding message without the value it quotes: serde's `invalid type: string "…"` keeps
/// the kind and loses the text between the first and the last `"`; `unknown variant `…``,
/// `integer `…`` and `floating point `…`` lose the text between their backticks (the variants a
/// message then lists as expected are ours, not the caller's). Argument errors never quote the
/// caller's value (it may hold a credential, and a message is logged).
pub fn without_value(message: &str) -> String {
    let mut out = match (message.find('"'), message.rfind('"')) {
        (Some(first), Some(last)) if first < last => {
            let mut out = message.to_string();
            out.replace_range(first..=last, "…");
            out
        }
        _ => message.to_string(),
    };
    for lead in ["unknown variant `", "integer `", "floating point `"] {
        if let Some(at) = out.find(lead) {
            let start = at + lead.len();
            if let Some(len) = out.get(start..).and_then(|rest| rest.find('`')) {
                out.replace_range(start..start + len, "…");
            }
        }
    }
    out
}

/// The path (`maxTokens`, `guardrails.maxKeyLength`, `[3].key`) of the value that the JSON text
/// `json` is inside of, or was just reading, at byte `offset`.
pub fn json_path_at(json: &str, offset: usize) -> String {
    enum Frame {
        Object(Option<String>),
        Array(usize),
    }
    let bytes = json.as_bytes();
    let end = offset.min(bytes.len());
    let mut stack: Vec<Frame> = Vec::new();
    let mut at = 0;
    while at < end {
        match bytes.get(at) {
            Some(b'{') => stack.push(Frame::Object(None)),
            Some(b'[') => stack.push(Frame::Array(0)),
            Some(b'}' | b']') => {
                stack.pop();
            }
            Some(b',') => match stack.last_mut() {
                Some(Frame::Object(key)) => *key = None,
                Some(Frame::Array(index)) => *index += 1,
                None => {}
            },
            Some(b'"') => {
                let start = at + 1;
                at += 1;
                while at < bytes.len() && bytes.get(at) != Some(&b'"') {
                    at += if bytes.get(at) == Some(&b'\\') { 2 } else { 1 };
                }
                if let Some(Frame::Object(key @ None)) = stack.last_mut() {
                    let raw = json.get(start..at.min(json.len())).unwrap_or("");
                    *key = Some(
                        serde_json::from_str::<String>(&format!("\"{raw}\"")).unwrap_or_default(),
                    );
                }
            }
            _ => {}
        }
        at += 1;
    }
    let mut path = String::new();
    for frame in &stack {
        match frame {
            Frame::Object(Some(key)) => {
                if !path.is_empty() {
                    path.push('.');
                }
                path.push_str(key);
            }
            Frame::Object(None) => {}
            Frame::Array(index) => path.push_str(&format!("[{index}]")),
        }
    }
    path
}

/// A point in time as JS sends it: milliseconds since the epoch, or an RFC 3339 string (a `Date`
/// arrives as its ISO string through `JSON.stringify`).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Time(pub DateTime<Utc>);

const TIME_EXPECTED: &str = "a Date, an RFC 3339 string or milliseconds since the epoch";

impl<'de> Deserialize<'de> for Time {
    fn deserialize<D: Deserializer<'de>>(deserializer: D) -> std::result::Result<Self, D::Error> {
        struct TimeVisitor;
        impl Visitor<'_> for TimeVisitor {
            type Value = Time;
            fn expecting(&self, f: &mut std::fmt::Formatter) -> std::fmt::Result {
                f.write_str(TIME_EXPECTED)
            }
            fn visit_f64<E: de::Error>(self, ms: f64) -> std::result::Result<Time, E> {
                let whole = ms.is_finite() && ms.abs() < 8.64e15;
                whole
                    .then(|| DateTime::from_timestamp_millis(ms as i64))
                    .flatten()
                    .map(Time)
                    .ok_or_else(|| E::custom(format!("{TIME_EXPECTED}; {ms} is out of range")))
            }
            fn visit_i64<E: de::Error>(self, ms: i64) -> std::result::Result<Time, E> {
                self.visit_f64(ms as f64)
            }
            fn visit_u64<E: de::Error>(self, ms: u64) -> std::result::Result<Time, E> {
                self.visit_f64(ms as f64)
            }
            fn visit_str<E: de::Error>(self, text: &str) -> std::result::Result<Time, E> {
                DateTime::parse_from_rfc3339(text.trim())
                    .map(|t| Time(t.with_timezone(&Utc)))
                    .map_err(|_| E::custom(format!("{TIME_EXPECTED}, got {text:?}")))
            }
            fn visit_unit<E: de::Error>(self) -> std::result::Result<Time, E> {
                Err(E::custom(format!(
                    "{TIME_EXPECTED}, got null (an invalid Date?)"
                )))
            }
        }
        deserializer.deserialize_any(TimeVisitor)
    }
}

/// `#[serde(default, deserialize_with = "crate::json::or_default")]`: `null` reads as the
/// default too, as an absent field does (JS callers pass `null` and `undefined` alike).
pub fn or_default<'de, D: Deserializer<'de>, T: Deserialize<'de> + Default>(
    deserializer: D,
) -> std::result::Result<T, D::Error> {
    Ok(Option::<T>::deserialize(deserializer)?.unwrap_or_default())
}

/// The largest integer JS holds exactly (2^53 − 1).
pub const MAX_SAFE_INTEGER: u64 = 9_007_199_254_740_991;

/// A non-negative integer that JS can hold exactly (at most 2^53 − 1).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub struct Count(pub u64);

impl<'de> Deserialize<'de> for Count {
    fn deserialize<D: Deserializer<'de>>(deserializer: D) -> std::result::Result<Self, D::Error> {
        struct CountVisitor;
        impl Visitor<'_> for CountVisitor {
            type Value = Count;
            fn expecting(&self, f: &mut std::fmt::Formatter) -> std::fmt::Result {
                f.write_str("a non-negative integer")
            }
            fn visit_u64<E: de::Error>(self, n: u64) -> std::result::Result<Count, E> {
                if n <= MAX_SAFE_INTEGER {
                    Ok(Count(n))
                } else {
                    Err(E::custom(format!("must be at most 2^53 - 1; got {n}")))
                }
            }
            fn visit_i64<E: de::Error>(self, n: i64) -> std::result::Result<Count, E> {
                u64::try_from(n)
                    .map_err(|_| E::custom(format!("must be a non-negative integer; got {n}")))
                    .and_then(|n| self.visit_u64(n))
            }
            fn visit_f64<E: de::Error>(self, n: f64) -> std::result::Result<Count, E> {
                if n.fract() == 0.0 && (0.0..=MAX_SAFE_INTEGER as f64).contains(&n) {
                    Ok(Count(n as u64))
                } else {
                    Err(E::custom(format!(
                        "must be a non-negative integer; got {n}"
                    )))
                }
            }
        }
        deserializer.deserialize_any(CountVisitor)
    }
}
