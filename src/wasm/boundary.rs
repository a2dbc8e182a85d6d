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

use memcore::boundary::json::{decode, without_value};
pub(crate) use memcore::boundary::json::{to_json as json_out, Count, Time};
#[cfg(feature = "entry-memory")]
use memcore::entries::{config, UserMemoryConfig};
use memcore::error::{Error, ErrorCode, Result};
use serde::de::DeserializeOwned;

/// The argument context of one export: every decoding error names this function.
#[derive(Debug, Clone, Copy)]
pub(crate) struct Call(pub(crate) &'static str);

impl Call {
    /// A required structured argument. The error never quotes the caller's value
    /// ([`without_value`]).
    pub(crate) fn json<T: DeserializeOwned>(&self, name: &str, json: &str) -> Result<T> {
        decode(json).map_err(|error| self.decode_error(name, error))
    }

    /// [`Call::json`]'s error (not generic: one copy in the wasm).
    fn decode_error(&self, name: &str, (path, message): (String, String)) -> Error {
        self.argument_error(name, &path, &without_value(&message))
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

/// A `userMemoryConfig` as JSON text: absent or `null` → defaults; otherwise validated
/// (`E_CONFIG` with the field path).
#[cfg(feature = "entry-memory")]
pub(crate) fn config_arg(json: Option<String>) -> Result<UserMemoryConfig> {
    let value: serde_json::Value = Call("userMemoryConfig").config(json)?;
    if value.is_null() {
        return Ok(UserMemoryConfig::default());
    }
    config::parse_user_memory_config(&value)
}
