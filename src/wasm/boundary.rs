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
pub(crate) use crate::json::decode;
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
        struct CountVisitor;
        impl Visitor<'_> for CountVisitor {
            type Value = Count;
            fn expecting(&self, f: &mut std::fmt::Formatter) -> std::fmt::Result {
                f.write_str("a non-negative integer")
            }
            fn visit_u64<E: de::Error>(self, n: u64) -> std::result::Result<Count, E> {
                if n <= 9_007_199_254_740_991 {
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
                if n.fract() == 0.0 && (0.0..=9_007_199_254_740_991.0).contains(&n) {
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
