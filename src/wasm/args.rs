//! Argument conversion with `E_ARGUMENT` errors that name the function and the argument.

use crate::error::{Error, ErrorCode};
use serde::de::DeserializeOwned;
use serde::Serialize;
use wasm_bindgen::JsValue;

/// A short description of a JS value's type for error messages.
fn describe(value: &JsValue) -> String {
    if value.is_undefined() {
        "undefined".into()
    } else if value.is_null() {
        "null".into()
    } else if js_sys::Array::is_array(value) {
        "an array".into()
    } else {
        value
            .js_typeof()
            .as_string()
            .unwrap_or_else(|| "an unknown value".into())
    }
}

/// A required string argument.
pub(crate) fn string(function: &str, name: &str, value: &JsValue) -> Result<String, Error> {
    value.as_string().ok_or_else(|| {
        Error::argument(
            function,
            name,
            &format!("a string, got {}", describe(value)),
        )
    })
}

/// An optional string argument (`undefined`/`null` → `None`).
#[allow(dead_code)]
pub(crate) fn optional_string(
    function: &str,
    name: &str,
    value: &JsValue,
) -> Result<Option<String>, Error> {
    if value.is_undefined() || value.is_null() {
        return Ok(None);
    }
    string(function, name, value).map(Some)
}

/// A structured argument deserialised with serde; a shape error names the argument and the
/// offending field.
#[allow(dead_code)]
pub(crate) fn object<T: DeserializeOwned>(
    function: &str,
    name: &str,
    value: &JsValue,
) -> Result<T, Error> {
    if !value.is_object() || js_sys::Array::is_array(value) {
        return Err(Error::argument(
            function,
            name,
            &format!("an object, got {}", describe(value)),
        ));
    }
    serde_wasm_bindgen::from_value(value.clone()).map_err(|e| {
        Error::new(
            ErrorCode::Argument,
            format!("{function}: argument `{name}` is invalid: {e}"),
        )
        .with_details(serde_json::json!({ "function": function, "argument": name }))
    })
}

/// Serialise a result for JS: plain objects (not `Map`s), numbers for integers.
#[allow(dead_code)]
pub(crate) fn to_js<T: Serialize>(value: &T) -> Result<JsValue, Error> {
    let serializer = serde_wasm_bindgen::Serializer::json_compatible();
    value.serialize(&serializer).map_err(|e| {
        Error::new(
            ErrorCode::Internal,
            format!("could not convert a result: {e}"),
        )
    })
}
