//! One write rule set for REST `PUT` and MCP `upsert_user_memory` (behaviour §2.6).
//!
//! [`validate_memory_write`] reports **every** violation (field + message) so a caller can fix a
//! request in one round trip; [`normalize_memory_write`] turns a valid request into a
//! [`MemoryWrite`] (category default `fact`, key trimmed, missing value → `null`).
//!
//! Decisions where the behaviour reference is silent: the key is trimmed before its checks (as in
//! the tools); "≤ 255 characters" counts Unicode scalar values; "64 KiB" is 65,536 bytes of the
//! value's compact JSON (UTF-8); `value` is not required (absent → `null`); `groupIds` must be an
//! array of non-empty strings; a present `sourceConversationId`/`id` must be a string.

use super::config::Visibility;
use super::entry::Entry;
use super::reserved::names_reserved_key;
use crate::entries::author::{Author, AuthorKind};
use serde::{Deserialize, Serialize};
use serde_json::{Map, Value};

/// Which surface a write came through; only the agent field name differs.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum Surface {
    /// REST `PUT /usermemorystore/memories`: agent field `sourceAgentId`.
    Rest,
    /// MCP `upsert_user_memory`: agent field `agentId`.
    Mcp,
}

impl Surface {
    /// The name of the agent field on this surface.
    pub fn agent_field(self) -> &'static str {
        match self {
            Surface::Rest => "sourceAgentId",
            Surface::Mcp => "agentId",
        }
    }
}

/// One broken rule.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Violation {
    /// The request field (`""` for the request itself).
    pub field: String,
    /// What is wrong and how to fix it.
    pub message: String,
}

/// Longest key, in Unicode scalar values.
pub const MAX_KEY_CHARS: usize = 255;
/// Largest value, in bytes of compact JSON.
pub const MAX_VALUE_BYTES: usize = 64 * 1024;
/// Categories a REST/MCP write may use.
pub const WRITE_CATEGORIES: [&str; 5] = ["preference", "fact", "context", "legacy", "property"];

/// A validated write, ready to become an [`Entry`].
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct MemoryWrite {
    /// Host-supplied id, if any.
    pub id: Option<String>,
    /// Owner.
    pub user_id: String,
    /// Trimmed key.
    pub key: String,
    /// Any JSON value.
    pub value: Value,
    /// Category (`fact` when absent).
    pub category: String,
    /// Visibility.
    pub visibility: Visibility,
    /// Writing agent (required for self/group).
    pub source_agent_id: Option<String>,
    /// Groups (required, non-empty, for group).
    pub group_ids: Vec<String>,
    /// Conversation it came from.
    pub source_conversation_id: Option<String>,
}

impl MemoryWrite {
    /// A new entry with this content; `id` is used when the request carried none.
    pub fn into_entry(self, id: String, now_rfc3339: &str) -> Entry {
        Entry {
            id: self.id.unwrap_or(id),
            user_id: self.user_id,
            key: self.key,
            value: self.value,
            category: self.category,
            visibility: self.visibility.as_str().to_string(),
            source_agent_id: self.source_agent_id,
            group_ids: self.group_ids,
            source_conversation_id: self.source_conversation_id,
            conflicted: false,
            access_count: 0,
            created_at: now_rfc3339.to_string(),
            updated_at: now_rfc3339.to_string(),
            written_by: None,
        }
    }
}

fn violation(field: &str, message: impl Into<String>) -> Violation {
    Violation {
        field: field.to_string(),
        message: message.into(),
    }
}

fn non_empty_string<'a>(map: &'a Map<String, Value>, name: &str) -> Option<&'a str> {
    map.get(name)
        .and_then(Value::as_str)
        .map(str::trim)
        .filter(|s| !s.is_empty())
}

/// Every violation of behaviour §2.6 in `request`; empty when it may be stored.
pub fn validate_memory_write(request: &Value, surface: Surface) -> Vec<Violation> {
    match normalize_memory_write(request, surface) {
        Ok(_) => Vec::new(),
        Err(v) => v,
    }
}

/// Validate and normalise a write request (behaviour §2.6); `Err` carries every violation.
pub fn normalize_memory_write(
    request: &Value,
    surface: Surface,
) -> Result<MemoryWrite, Vec<Violation>> {
    let Some(map) = request.as_object() else {
        return Err(vec![violation("", "the request must be a JSON object")]);
    };
    let mut out = Vec::new();

    let user_id = non_empty_string(map, "userId");
    match user_id.map(crate::profile::paths::validate_user_id) {
        None => out.push(violation(
            "userId",
            "userId is required (a non-empty string)",
        )),
        // The one user-id rule of every write and of erasure: data stored under an id erasure
        // refuses could never be erased.
        Some(Err(refused)) => out.push(violation("userId", refused.message)),
        Some(Ok(())) => {}
    }

    let key = non_empty_string(map, "key");
    match key {
        None => out.push(violation("key", "key is required (a non-empty string)")),
        Some(k) if k.chars().count() > MAX_KEY_CHARS => out.push(violation(
            "key",
            format!("key must be at most {MAX_KEY_CHARS} characters"),
        )),
        Some(k) if names_reserved_key(k) => out.push(violation(
            "key",
            "keys starting with '_gdpr_' are reserved and cannot be written here",
        )),
        Some(_) => {}
    }

    let value = map.get("value").cloned().unwrap_or(Value::Null);
    let size = value.to_string().len();
    if size > MAX_VALUE_BYTES {
        out.push(violation(
            "value",
            format!("value must be at most {MAX_VALUE_BYTES} bytes as JSON (got {size})"),
        ));
    }

    let visibility = match map.get("visibility") {
        None | Some(Value::Null) => {
            out.push(violation(
                "visibility",
                "visibility is required: self, group or global",
            ));
            None
        }
        Some(v) => {
            let parsed = v.as_str().and_then(Visibility::parse);
            if parsed.is_none() {
                out.push(violation(
                    "visibility",
                    "visibility must be one of: self, group, global",
                ));
            }
            parsed
        }
    };

    let agent_field = surface.agent_field();
    let agent = non_empty_string(map, agent_field);
    if matches!(visibility, Some(Visibility::SelfOnly | Visibility::Group)) && agent.is_none() {
        out.push(violation(
            agent_field,
            format!("{agent_field} is required for self and group entries"),
        ));
    }

    let mut group_ids = Vec::new();
    match map.get("groupIds") {
        None | Some(Value::Null) => {}
        Some(Value::Array(items)) => {
            for item in items {
                match item.as_str().map(str::trim).filter(|s| !s.is_empty()) {
                    Some(g) => group_ids.push(g.to_string()),
                    None => {
                        out.push(violation(
                            "groupIds",
                            "groupIds must contain only non-empty strings",
                        ));
                        break;
                    }
                }
            }
        }
        Some(_) => out.push(violation(
            "groupIds",
            "groupIds must be an array of strings",
        )),
    }
    if visibility == Some(Visibility::Group) && group_ids.is_empty() {
        out.push(violation(
            "groupIds",
            "group entries need a non-empty groupIds",
        ));
    }

    let category = match map.get("category") {
        None | Some(Value::Null) => Some("fact".to_string()),
        Some(Value::String(c)) if WRITE_CATEGORIES.contains(&c.as_str()) => Some(c.clone()),
        Some(_) => {
            out.push(violation(
                "category",
                format!("category must be one of: {}", WRITE_CATEGORIES.join(", ")),
            ));
            None
        }
    };

    let optional_string = |name: &str, out: &mut Vec<Violation>| match map.get(name) {
        None | Some(Value::Null) => None,
        Some(Value::String(s)) => Some(s.clone()),
        Some(_) => {
            out.push(violation(name, format!("{name} must be a string")));
            None
        }
    };
    let id = optional_string("id", &mut out);
    let conversation = optional_string("sourceConversationId", &mut out);

    match (user_id, key, visibility, category) {
        (Some(user_id), Some(key), Some(visibility), Some(category)) if out.is_empty() => {
            Ok(MemoryWrite {
                id,
                user_id: user_id.to_string(),
                key: key.to_string(),
                value,
                category,
                visibility,
                source_agent_id: agent.map(str::to_string),
                group_ids,
                source_conversation_id: conversation,
            })
        }
        _ if out.is_empty() => Err(vec![violation(
            "",
            "the request is not a valid memory write",
        )]),
        _ => Err(out),
    }
}

impl Author {
    /// The author of a REST request or an MCP tool call (`principal`: who the host
    /// authenticated, when known).
    pub fn of_surface(surface: Surface, principal: Option<&str>) -> Author {
        let kind = match surface {
            Surface::Rest => AuthorKind::Rest,
            Surface::Mcp => AuthorKind::Mcp,
        };
        Author::new(kind, principal)
    }
}
