//! Decoding the model's tool arguments (lenient: model output is messy; see [`super`]).

use serde_json::{Map, Value};

use super::session::{KEY_EMPTY, KEY_NOT_TEXT};

/// Arguments as an object: `null` → empty, an object as is, a string holding a JSON object (or
/// blank) parsed; anything else (or unreadable arguments) `None`.
pub(crate) fn tool_args(args: Option<&Value>) -> Option<Map<String, Value>> {
    match args? {
        Value::Null => Some(Map::new()),
        Value::Object(map) => Some(map.clone()),
        Value::String(text) if text.trim().is_empty() => Some(Map::new()),
        Value::String(text) => match crate::json::from_str::<Value>(text) {
            Ok(Value::Object(map)) => Some(map),
            _ => None,
        },
        _ => None,
    }
}

/// A scalar argument as text.
pub(crate) enum TextArg {
    Missing,
    Text(String),
    NotText(String),
}

pub(crate) fn text_arg(map: &Map<String, Value>, name: &str) -> TextArg {
    match map.get(name) {
        None | Some(Value::Null) => TextArg::Missing,
        Some(Value::String(s)) => TextArg::Text(s.clone()),
        Some(v @ (Value::Number(_) | Value::Bool(_))) => TextArg::Text(v.to_string()),
        Some(v) => TextArg::NotText(v.to_string()),
    }
}

/// The key of a tool that reads or deletes by key (`forgetFact`, `memoryHistory`): [`key_arg`]'s
/// rules, then the reserved `_gdpr_` keys refused; the refusal is the tool's answer.
pub(crate) fn unreserved_key(map: &Map<String, Value>) -> Result<String, &'static str> {
    let key = key_arg(map)?;
    if crate::entries::reserved::names_reserved_key(&key) {
        return Err(super::session::RESERVED);
    }
    Ok(key)
}

pub(crate) fn key_arg(map: &Map<String, Value>) -> Result<String, &'static str> {
    match text_arg(map, "key") {
        TextArg::Missing => Err(KEY_EMPTY),
        TextArg::NotText(_) => Err(KEY_NOT_TEXT),
        TextArg::Text(t) if t.trim().is_empty() => Err(KEY_EMPTY),
        TextArg::Text(t) => Ok(t.trim().to_string()),
    }
}
