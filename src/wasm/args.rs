//! Argument conversion with `E_ARGUMENT` errors that name the function and the argument.

use crate::error::{Error, ErrorCode};
use serde::de::DeserializeOwned;
use serde::Serialize;
use wasm_bindgen::{JsCast, JsValue};

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

/// A point in time from JS: a `Date`, an RFC 3339 string, or milliseconds since the epoch.
pub(crate) fn time(
    function: &str,
    name: &str,
    value: &JsValue,
) -> Result<chrono::DateTime<chrono::Utc>, Error> {
    let expected = "a Date, an RFC 3339 string or milliseconds since the epoch";
    let millis = if let Some(date) = value.dyn_ref::<js_sys::Date>() {
        Some(date.get_time())
    } else if let Some(number) = value.as_f64() {
        Some(number)
    } else if let Some(text) = value.as_string() {
        return chrono::DateTime::parse_from_rfc3339(text.trim())
            .map(|t| t.with_timezone(&chrono::Utc))
            .map_err(|_| Error::argument(function, name, &format!("{expected}, got {text:?}")));
    } else {
        None
    };
    millis
        .filter(|m| m.is_finite())
        .and_then(|m| chrono::DateTime::from_timestamp_millis(m as i64))
        .ok_or_else(|| {
            Error::argument(
                function,
                name,
                &format!("{expected}, got {}", describe(value)),
            )
        })
}

/// An optional boolean (`undefined`/`null` → `None`).
pub(crate) fn optional_bool(
    function: &str,
    name: &str,
    value: &JsValue,
) -> Result<Option<bool>, Error> {
    if value.is_undefined() || value.is_null() {
        return Ok(None);
    }
    value.as_bool().map(Some).ok_or_else(|| {
        Error::argument(
            function,
            name,
            &format!("a boolean, got {}", describe(value)),
        )
    })
}

/// A property of an options object (`undefined` when absent or when `options` is not an object).
pub(crate) fn field(options: &JsValue, name: &str) -> JsValue {
    if options.is_object() {
        js_sys::Reflect::get(options, &JsValue::from_str(name)).unwrap_or(JsValue::UNDEFINED)
    } else {
        JsValue::UNDEFINED
    }
}

/// Require `options` to be a plain object (not `undefined`, `null`, an array or a primitive).
pub(crate) fn options_object(function: &str, name: &str, value: &JsValue) -> Result<(), Error> {
    if value.is_object() && !js_sys::Array::is_array(value) {
        Ok(())
    } else {
        Err(Error::argument(
            function,
            name,
            &format!("an object, got {}", describe(value)),
        ))
    }
}
