//! The one pattern of every export: arguments in, the core, a result out.
//!
//! ```ignore
//! #[wasm_bindgen(js_name = assembleProfile)]
//! pub fn assemble_profile(body: String, options: String) -> Result<String> {
//!     let call = Call("assembleProfile");
//!     let options: AssembleArgs = call.json("options", &options)?;
//!     Ok(profile::assemble_profile(&body, &options.into_core(&call)?))
//! }
//! ```
//!
//! The JS layer (`js/wire.js`) has already checked what only JS can check — that a text is a
//! `string`, that a structured value can be written as JSON at all — and sends JSON text. This
//! module turns that text into typed values with `serde` and reports a wrong shape as
//! `E_ARGUMENT` (or `E_CONFIG` for configuration) naming the function, the argument and the
//! field path (`options.now`, `guardrails.maxKeyLength`), never a trap.

use crate::error::{Error, ErrorCode, Result};
use chrono::{DateTime, Utc};
use serde::de::{self, DeserializeOwned, Deserializer, Visitor};
use serde::{Deserialize, Serialize};
use wasm_bindgen::JsValue;

/// Errors cross to JS as the JSON text `{ code, message, details? }`; `js/wire.js` turns it into
/// a `MemcoreError`.
impl From<Error> for JsValue {
    fn from(error: Error) -> JsValue {
        JsValue::from_str(&error.to_json().to_string())
    }
}

/// An error that crossed from JS as JSON text (a host adapter's failure), back as an [`Error`].
pub(crate) fn error_from_json(text: &str) -> Error {
    let value: serde_json::Value = serde_json::from_str(text).unwrap_or_default();
    let code = value
        .get("code")
        .and_then(serde_json::Value::as_str)
        .and_then(ErrorCode::parse)
        .unwrap_or(ErrorCode::Host);
    let message = value
        .get("message")
        .and_then(serde_json::Value::as_str)
        .unwrap_or("the host failed without a message")
        .to_string();
    let error = Error::new(code, message);
    match value.get("details") {
        Some(details) if !details.is_null() => error.with_details(details.clone()),
        _ => error,
    }
}

/// A result as JSON text for `JSON.parse` in JS.
pub(crate) fn json_out<T: Serialize>(value: &T) -> Result<String> {
    serde_json::to_string(value)
        .map_err(|e| Error::internal(format!("could not write a result as JSON: {e}")))
}

/// The argument context of one export: every decoding error names this function.
#[derive(Debug, Clone, Copy)]
pub(crate) struct Call(pub(crate) &'static str);

impl Call {
    /// A required structured argument.
    pub(crate) fn json<T: DeserializeOwned>(&self, name: &str, json: &str) -> Result<T> {
        decode(json).map_err(|(path, message)| self.argument_error(name, &path, &message))
    }

    /// An optional structured argument: absent (JS `undefined`) or `null` → `None`.
    pub(crate) fn optional<T: DeserializeOwned>(
        &self,
        name: &str,
        json: Option<String>,
    ) -> Result<Option<T>> {
        match json.as_deref() {
            None | Some("null") => Ok(None),
            Some(text) => self.json(name, text).map(Some),
        }
    }

    /// An optional options object: absent or `null` → `T::default()`.
    pub(crate) fn options<T: DeserializeOwned + Default>(
        &self,
        name: &str,
        json: Option<String>,
    ) -> Result<T> {
        Ok(self.optional(name, json)?.unwrap_or_default())
    }

    /// A configuration object: absent or `null` → defaults; a wrong shape is `E_CONFIG` with the
    /// field path in `details.path`.
    pub(crate) fn config<T: DeserializeOwned + Default>(&self, json: Option<String>) -> Result<T> {
        match json.as_deref() {
            None | Some("null") => Ok(T::default()),
            Some(text) => decode(text).map_err(|(path, message)| Error::config(&path, message)),
        }
    }

    /// `E_ARGUMENT` naming the argument (and the field inside it).
    pub(crate) fn argument_error(&self, name: &str, path: &str, message: &str) -> Error {
        let argument = match path {
            "" | "." => name.to_string(),
            _ if path.starts_with('[') => format!("{name}{path}"),
            _ => format!("{name}.{path}"),
        };
        Error::new(
            ErrorCode::Argument,
            format!("{}: argument `{argument}`: {message}", self.0),
        )
        .with_details(serde_json::json!({ "function": self.0, "argument": argument }))
    }

    /// Attribute a core `E_ARGUMENT` to an argument of this function; other codes pass.
    pub(crate) fn in_argument(&self, name: &str, error: Error) -> Error {
        error.in_argument(self.0, name)
    }
}

/// Decode JSON text into `T`, or `(field path, message)`. The JSON was written by our JS layer
/// on one line, so the error's column is a byte offset: the path is read off the text up to it
/// ([`json_path_at`]), and the message is serde's without the position (which means nothing to
/// the caller). One monomorphic decoder per type keeps the wasm small.
pub(crate) fn decode<T: DeserializeOwned>(json: &str) -> std::result::Result<T, (String, String)> {
    serde_json::from_str(json).map_err(|error| describe(json, &error))
}

/// `(field path, message)` of a decoding error (not generic: one copy in the wasm).
fn describe(json: &str, error: &serde_json::Error) -> (String, String) {
    let message = error.to_string();
    let position = format!(" at line {} column {}", error.line(), error.column());
    let message = message.strip_suffix(&position).unwrap_or(&message);
    let message = if message.contains("recursion limit") {
        "is nested too deeply (at most 128 levels)"
    } else {
        message
    };
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

/// The path (`maxTokens`, `guardrails.maxKeyLength`, `[3].key`) of the value that the JSON text
/// `json` is inside of, or was just reading, at byte `offset`.
pub(crate) fn json_path_at(json: &str, offset: usize) -> String {
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
pub(crate) struct TimeArg(pub(crate) DateTime<Utc>);

const TIME_EXPECTED: &str = "a Date, an RFC 3339 string or milliseconds since the epoch";

impl<'de> Deserialize<'de> for TimeArg {
    fn deserialize<D: Deserializer<'de>>(deserializer: D) -> std::result::Result<Self, D::Error> {
        struct TimeVisitor;
        impl Visitor<'_> for TimeVisitor {
            type Value = TimeArg;
            fn expecting(&self, f: &mut std::fmt::Formatter) -> std::fmt::Result {
                f.write_str(TIME_EXPECTED)
            }
            fn visit_f64<E: de::Error>(self, ms: f64) -> std::result::Result<TimeArg, E> {
                let whole = ms.is_finite() && ms.abs() < 8.64e15;
                whole
                    .then(|| DateTime::from_timestamp_millis(ms as i64))
                    .flatten()
                    .map(TimeArg)
                    .ok_or_else(|| E::custom(format!("{TIME_EXPECTED}; {ms} is out of range")))
            }
            fn visit_i64<E: de::Error>(self, ms: i64) -> std::result::Result<TimeArg, E> {
                self.visit_f64(ms as f64)
            }
            fn visit_u64<E: de::Error>(self, ms: u64) -> std::result::Result<TimeArg, E> {
                self.visit_f64(ms as f64)
            }
            fn visit_str<E: de::Error>(self, text: &str) -> std::result::Result<TimeArg, E> {
                DateTime::parse_from_rfc3339(text.trim())
                    .map(|t| TimeArg(t.with_timezone(&Utc)))
                    .map_err(|_| E::custom(format!("{TIME_EXPECTED}, got {text:?}")))
            }
            fn visit_unit<E: de::Error>(self) -> std::result::Result<TimeArg, E> {
                Err(E::custom(format!(
                    "{TIME_EXPECTED}, got null (an invalid Date?)"
                )))
            }
        }
        deserializer.deserialize_any(TimeVisitor)
    }
}

/// A non-negative integer that JS can hold exactly (at most 2^53 − 1).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) struct Count(pub(crate) u64);

impl<'de> Deserialize<'de> for Count {
    fn deserialize<D: Deserializer<'de>>(deserializer: D) -> std::result::Result<Self, D::Error> {
        let value = f64::deserialize(deserializer)?;
        let exact = value.is_finite()
            && value >= 0.0
            && value.fract() == 0.0
            && value <= 9_007_199_254_740_991.0;
        exact.then_some(Count(value as u64)).ok_or_else(|| {
            de::Error::custom(format!("must be a non-negative integer; got {value}"))
        })
    }
}
