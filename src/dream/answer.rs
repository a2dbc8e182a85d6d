//! Reading the model's summarisation answer (behaviour §3 item 3): a JSON array
//! `[{"key", "value"}]`, tolerating a code fence and prose around it.
//!
//! Rules (EDDI's, plus what the behaviour reference leaves open, decided here):
//! - The array is the first JSON array that parses starting at a `[` of the answer (so a code
//!   fence, prose before it and prose after it — brackets included — are tolerated; at most the
//!   first 64 `[` are tried); `[1]` or `["a"]` in prose is passed over. No such array: an
//!   invalid answer.
//! - An item needs both a key and a value. A key is a string (numbers and booleans count as
//!   their JSON text); a value is a string, or any other non-null JSON, kept as its compact JSON
//!   text: **consolidated values are text**. Both are trimmed; a blank one drops the item, and
//!   so does a `_gdpr_` key (Dream never creates reserved entries).
//! - Keys are cut to `maxKeyLength` and values to `maxValueLength` Unicode scalar values, the
//!   last kept one replaced by `…`.
//! - Items with the same key (after cutting) are merged into one: their distinct values joined
//!   with `; ` in answer order, cut again.

use crate::entries::config::Guardrails;
use crate::entries::reserved::names_reserved_key;
use serde_json::Value;

/// One consolidated entry the model proposed.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct AnswerItem {
    /// The key (trimmed, cut).
    pub key: String,
    /// The value text (trimmed, cut).
    pub value: String,
}

/// The usable items of an answer, duplicates merged; `None` when the answer holds no JSON array
/// of objects or no item survives.
pub fn parse_dream_answer(text: &str, guardrails: &Guardrails) -> Option<Vec<AnswerItem>> {
    let items = first_array(text)?;
    let max_key = usize::try_from(guardrails.max_key_length).unwrap_or(usize::MAX);
    let max_value = usize::try_from(guardrails.max_value_length).unwrap_or(usize::MAX);
    let mut merged: Vec<(String, Vec<String>)> = Vec::new();
    for object in items.iter().filter_map(Value::as_object) {
        let (Some(key), Some(value)) = (
            object.get("key").and_then(key_text),
            object.get("value").and_then(value_text),
        ) else {
            continue;
        };
        let key = cut(&key, max_key).trim().to_string();
        let value = cut(&value, max_value);
        if key.is_empty() || value.trim().is_empty() || names_reserved_key(&key) {
            continue;
        }
        match merged.iter_mut().find(|(k, _)| *k == key) {
            Some((_, values)) => {
                if !values.contains(&value) {
                    values.push(value);
                }
            }
            None => merged.push((key, vec![value])),
        }
    }
    let out: Vec<AnswerItem> = merged
        .into_iter()
        .map(|(key, values)| AnswerItem {
            key,
            value: cut(&values.join("; "), max_value),
        })
        .collect();
    (!out.is_empty()).then_some(out)
}

/// Opening brackets tried before an answer is given up on.
const MAX_ARRAY_STARTS: usize = 64;

/// The first JSON array of objects that parses at one of the answer's `[` (what follows it is
/// ignored).
fn first_array(text: &str) -> Option<Vec<Value>> {
    let text = crate::json::well_formed_escapes(text);
    text.match_indices('[')
        .take(MAX_ARRAY_STARTS)
        .find_map(|(at, _)| {
            let rest = text.get(at..)?;
            let mut values = serde_json::Deserializer::from_str(rest).into_iter::<Vec<Value>>();
            values
                .next()?
                .ok()
                .filter(|items| !items.is_empty() && items.iter().all(Value::is_object))
        })
}

fn key_text(value: &Value) -> Option<String> {
    match value {
        Value::String(s) => Some(s.trim().to_string()),
        Value::Number(_) | Value::Bool(_) => Some(value.to_string()),
        _ => None,
    }
}

fn value_text(value: &Value) -> Option<String> {
    match value {
        Value::Null => None,
        Value::String(s) => Some(s.trim().to_string()),
        other => Some(other.to_string()),
    }
}

/// `text` cut to `max` Unicode scalar values, the last kept one replaced by `…` when cut.
pub fn cut(text: &str, max: usize) -> String {
    if text.chars().count() <= max {
        return text.to_string();
    }
    if max == 0 {
        return String::new();
    }
    let mut out: String = text.chars().take(max - 1).collect();
    out.push('…');
    out
}
