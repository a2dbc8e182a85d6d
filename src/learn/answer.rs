//! Reading the extraction's answer (behaviour §8.6): JSON `{"facts": [...]}`, each fact
//! `{"key", "value", "category"}` or `{"key", "forget": true}`.
//!
//! Lenient where models are messy, strict where it matters:
//! - a code fence around the JSON, or prose before the first `{` and after the last `}`, is
//!   ignored; a bare array `[...]` is read as the list of facts;
//! - an answer over [`MAX_ANSWER_BYTES`], one that is not JSON, or one whose `facts` is not a list
//!   is **unusable**: no fact is written (the turn's report says `failed`);
//! - each item is applied on its own: one that is not an object is refused alone
//!   (`not-an-object`), and the key and value rules are the tools' (the apply step).

use serde_json::{Map, Value};

/// The longest answer read (1 MiB): ten facts of 1,000 characters fit a hundred times over, and a
/// runaway answer of thousands of facts is still read (and cut to `maxFactsPerTurn`).
pub const MAX_ANSWER_BYTES: usize = 1024 * 1024;

/// What one answer item asks for.
#[derive(Debug, Clone, PartialEq)]
pub enum FactRequest {
    /// Remember `args` (`key`, `value`, `category` as the model gave them).
    Remember(Map<String, Value>),
    /// Forget the key in `args`.
    Forget(Map<String, Value>),
    /// An item that is not an object (its JSON type).
    NotAnObject(&'static str),
}

impl FactRequest {
    /// The key the item names, as text (for the report; empty when it has none).
    pub fn key(&self) -> String {
        let args = match self {
            FactRequest::Remember(args) | FactRequest::Forget(args) => args,
            FactRequest::NotAnObject(_) => return String::new(),
        };
        match args.get("key") {
            Some(Value::String(s)) => s.trim().to_string(),
            Some(Value::Number(n)) => n.to_string(),
            Some(Value::Bool(b)) => b.to_string(),
            _ => String::new(),
        }
    }
}

/// Read an answer: the facts it asks for, or why it is unusable.
pub fn parse_extraction(answer: &str) -> Result<Vec<FactRequest>, String> {
    if answer.len() > MAX_ANSWER_BYTES {
        return Err(format!(
            "the answer is over {MAX_ANSWER_BYTES} bytes; no fact was written"
        ));
    }
    let text = answer.trim();
    let start = text.find(['{', '[']);
    let end = text.rfind(['}', ']']);
    let json = match (start, end) {
        (Some(s), Some(e)) if e >= s => text.get(s..=e).unwrap_or(""),
        _ => return Err("the answer holds no JSON; no fact was written".to_string()),
    };
    let value: Value = serde_json::from_str(json)
        .map_err(|_| "the answer is not valid JSON; no fact was written".to_string())?;
    let items = match value {
        Value::Array(items) => items,
        Value::Object(mut map) => match map.remove("facts") {
            Some(Value::Array(items)) => items,
            Some(Value::Null) | None => {
                return Err("the answer has no \"facts\" list; no fact was written".to_string())
            }
            Some(_) => {
                return Err("the answer's \"facts\" is not a list; no fact was written".to_string())
            }
        },
        _ => return Err("the answer is not a JSON object; no fact was written".to_string()),
    };
    Ok(items
        .into_iter()
        .map(|item| match item {
            Value::Object(map) => {
                if map.get("forget") == Some(&Value::Bool(true)) {
                    FactRequest::Forget(map)
                } else {
                    FactRequest::Remember(map)
                }
            }
            Value::Array(_) => FactRequest::NotAnObject("array"),
            Value::String(_) => FactRequest::NotAnObject("string"),
            Value::Number(_) => FactRequest::NotAnObject("number"),
            Value::Bool(_) => FactRequest::NotAnObject("boolean"),
            Value::Null => FactRequest::NotAnObject("null"),
        })
        .collect())
}
