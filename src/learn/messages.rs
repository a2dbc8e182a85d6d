//! The turn's messages as hosts hold them, and what of them is learned from: the user's and
//! assistant's text, without the sections memcore injected (behaviour §8.6).

use super::prompt::TurnMessage;
use crate::profile::inject::MEMORY_SECTION_HEADING;
use serde::Deserialize;
use serde_json::Value;

/// One message of a turn as hosts hold them (OpenAI's chat shape): `{ "role", "content" }`,
/// `content` a string or a list of parts of which the `{ "type": "text", "text" }` ones are read.
/// Other fields (`name`, `tool_calls`, ids) are ignored.
#[derive(Debug, Clone, PartialEq, Deserialize)]
pub struct InputMessage {
    /// `user`, `assistant`, `system`, `developer`, `tool`, …: only `user` and `assistant` are
    /// learned from.
    #[serde(default)]
    pub role: Value,
    /// The text, or a list of content parts.
    #[serde(default)]
    pub content: Value,
}

/// The headings of the sections memcore injects into a prompt (behaviour §1.7, §8.2): a message
/// that carries one (a host that put the memory into the user message) is learned from without it.
pub const INJECTED_HEADINGS: [&str; 3] = [
    MEMORY_SECTION_HEADING,
    crate::entries::relevant::RELEVANT_HEADING,
    crate::entries::relevant::EPISODES_HEADING,
];

/// `text` without the sections memcore injected: from a line that is one of
/// [`INJECTED_HEADINGS`] up to the next level-1 heading that is not the profile's own title
/// (`# User Memory`) nor another injected heading — or, for the relevant-memories section, up to
/// the first line after it that is not a `• ` entry line — or the end of the text.
pub fn strip_injected(text: &str) -> String {
    let mut out: Vec<&str> = Vec::new();
    let mut inside: Option<&str> = None;
    for line in text.lines() {
        let trimmed = line.trim_end();
        if INJECTED_HEADINGS.contains(&trimmed) {
            inside = Some(if trimmed == MEMORY_SECTION_HEADING {
                "profile"
            } else {
                "relevant"
            });
            continue;
        }
        match inside {
            Some("profile") => {
                let ends = trimmed.starts_with("# ") && trimmed != "# User Memory";
                if !ends {
                    continue;
                }
                inside = None;
            }
            Some(_) => {
                if trimmed.starts_with("• ") {
                    continue;
                }
                inside = None;
                if trimmed.is_empty() {
                    continue;
                }
            }
            None => {}
        }
        out.push(line);
    }
    out.join("\n").trim().to_string()
}

/// The text of a message's `content`: a string, or the `text` of its text parts joined by
/// newlines.
fn content_text(content: &Value) -> String {
    match content {
        Value::String(s) => s.clone(),
        Value::Array(parts) => parts
            .iter()
            .filter_map(|part| match part {
                Value::String(s) => Some(s.as_str()),
                Value::Object(map) => match (map.get("type"), map.get("text")) {
                    (Some(Value::String(kind)), Some(Value::String(text))) if kind == "text" => {
                        Some(text.as_str())
                    }
                    _ => None,
                },
                _ => None,
            })
            .collect::<Vec<_>>()
            .join("\n"),
        _ => String::new(),
    }
}

/// The messages the extraction sees: `user` and `assistant` only, injected sections removed,
/// blank ones dropped.
pub fn turn_messages(messages: &[InputMessage]) -> Vec<TurnMessage> {
    messages
        .iter()
        .filter_map(|m| {
            let role = m.role.as_str()?;
            if role != "user" && role != "assistant" {
                return None;
            }
            let text = strip_injected(&content_text(&m.content));
            (!text.trim().is_empty()).then(|| TurnMessage {
                role: role.to_string(),
                text,
            })
        })
        .collect()
}
