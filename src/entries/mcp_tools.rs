//! The MCP tools of behaviour §2.8 (the eight memory tools, then the GDPR tool `delete_user_data`
//! of §4.3): each tool's name, description and the JSON schema of its arguments, and the two rules
//! a call meets before it runs — administrators only, and the confirmation word of the destructive
//! tools. The server (`memcore/server`) maps these onto the MCP SDK and applies both rules in one
//! place; it writes none of them itself, as the four LLM tools' definitions come from
//! [`super::tools::tool_definitions_for`].
//!
//! The schemas are exact (`additionalProperties: false`: an argument a tool does not know, a typo
//! or REST's `sourceAgentId`, is an error) and list their properties in definition order, which
//! is the order MCP clients see; integers are JSON-safe integers. What a valid call means is the
//! operations' business (write rules, recall limits, the cap): a schema checks only types.

use serde::ser::{SerializeMap, Serializer};
use serde::Serialize;
use serde_json::Value;

/// The word `delete_all_user_memories` and `delete_user_data` need as their `confirmation`.
pub const CONFIRMATION_WORD: &str = "CONFIRM";

/// The JSON-schema dialect of every input schema.
const SCHEMA_DIALECT: &str = "http://json-schema.org/draft-07/schema#";

/// One MCP tool: what a client lists (`name`, `description`, `inputSchema`) and the rules the
/// server applies before the tool runs.
#[derive(Debug, Clone, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct McpToolDefinition {
    /// The tool's name (`snake_case`, behaviour §2.8).
    pub name: &'static str,
    /// What the tool does, for the client's model.
    pub description: String,
    /// The JSON schema of the arguments (an exact object).
    pub input_schema: InputSchema,
    /// `Some`: only an administrator may call the tool; anyone else gets this refusal.
    pub admin_only: Option<Refusal>,
    /// `Some`: the call runs only when the named argument is exactly the word.
    pub confirmation: Option<Confirmation>,
}

/// A tool error a rule answers with: `{ error: { code, message } }`.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct Refusal {
    /// The stable error code.
    pub code: &'static str,
    /// The message, byte for byte.
    pub message: String,
}

/// The confirmation a destructive tool needs: `argument` must be the string `word`, exactly (no
/// trimming, no case folding; a missing or non-string argument is refused). The server compares
/// once, for every tool that has one, before the tool runs.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct Confirmation {
    /// The argument that carries the word.
    pub argument: &'static str,
    /// The word, compared exactly (no trimming, no case folding).
    pub word: &'static str,
    /// The tool error of a call without the word.
    pub refusal: Refusal,
}

/// An exact object schema whose properties keep their definition order when written as JSON.
#[derive(Debug, Clone)]
pub struct InputSchema {
    /// `(name, schema, required)` in definition order.
    pub properties: Vec<(&'static str, Value, bool)>,
}

impl Serialize for InputSchema {
    fn serialize<S: Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        struct Properties<'a>(&'a [(&'static str, Value, bool)]);
        impl Serialize for Properties<'_> {
            fn serialize<S: Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
                let mut map = serializer.serialize_map(Some(self.0.len()))?;
                for (name, schema, _) in self.0 {
                    map.serialize_entry(name, schema)?;
                }
                map.end()
            }
        }
        let required: Vec<&str> = self
            .properties
            .iter()
            .filter(|(_, _, required)| *required)
            .map(|(name, _, _)| *name)
            .collect();
        let mut map = serializer.serialize_map(Some(5))?;
        map.serialize_entry("$schema", SCHEMA_DIALECT)?;
        map.serialize_entry("type", "object")?;
        map.serialize_entry("properties", &Properties(&self.properties))?;
        map.serialize_entry("required", &required)?;
        map.serialize_entry("additionalProperties", &false)?;
        map.end()
    }
}

/// The confirmation refusal (`E_BAD_REQUEST`).
fn confirmation() -> Option<Confirmation> {
    Some(Confirmation {
        argument: "confirmation",
        word: CONFIRMATION_WORD,
        refusal: Refusal {
            code: "E_BAD_REQUEST",
            message: format!("confirmation must be exactly \"{CONFIRMATION_WORD}\""),
        },
    })
}

fn text(description: Option<&str>) -> Value {
    with_description(schema(r#"{"type": "string"}"#), description)
}

/// A schema written as JSON text: far smaller in the wasm than the same value built by `json!`.
fn schema(json: &str) -> Value {
    serde_json::from_str(json).unwrap_or_default()
}

/// A non-empty string (an id or a key that names something).
fn id(description: &str) -> Value {
    with_description(
        schema(r#"{"type": "string", "minLength": 1}"#),
        Some(description),
    )
}

fn with_description(mut schema: Value, description: Option<&str>) -> Value {
    if let (Some(d), Some(map)) = (description, schema.as_object_mut()) {
        map.insert("description".into(), Value::from(d));
    }
    schema
}

fn user_id() -> (&'static str, Value, bool) {
    ("userId", id("The user whose memories these are."), true)
}

fn confirmation_argument() -> (&'static str, Value, bool) {
    let description = format!("Must be exactly \"{CONFIRMATION_WORD}\".");
    ("confirmation", text(Some(&description)), false)
}

fn tool(
    name: &'static str,
    description: &str,
    properties: Vec<(&'static str, Value, bool)>,
) -> McpToolDefinition {
    McpToolDefinition {
        name,
        description: description.to_string(),
        input_schema: InputSchema { properties },
        admin_only: None,
        confirmation: None,
    }
}

/// A `limit` argument: any JSON-safe integer (the core answers one outside 1–1000 with its own
/// error, so the schema does not refuse it first).
fn limit() -> Value {
    schema(
        r#"{"type": "integer", "minimum": -9007199254740991, "maximum": 9007199254740991,
            "description": "At most this many (1-1000)."}"#,
    )
}

/// An `asOf` argument of a read (behaviour §8.3).
fn as_of() -> (&'static str, Value, bool) {
    (
        "asOf",
        text(Some(
            "Read the state as it was at this time (RFC 3339, e.g. 2026-05-01T12:00:00Z); default: now.",
        )),
        false,
    )
}

/// The ten MCP tools, in definition order (the order clients list them in).
pub fn mcp_tool_definitions() -> Vec<McpToolDefinition> {
    let requires = format!("Requires confirmation: \"{CONFIRMATION_WORD}\".");
    vec![
        tool(
            "list_user_memories",
            "Every memory entry of a user, all visibilities, most recently updated first.",
            vec![user_id(), as_of()],
        ),
        tool(
            "get_visible_memories",
            "The entries one agent sees (global, its own self entries, group entries of its group), in recall order.",
            vec![
                user_id(),
                ("agentId", id("The agent that looks."), true),
                ("groupId", text(Some("The group the agent is in, if any.")), false),
                ("order", schema(r#"{"type": "string", "enum": ["most_recent", "most_accessed"]}"#), false),
                ("limit", limit(), false),
                as_of(),
            ],
        ),
        tool(
            "search_user_memories",
            "A user's entries for a query. mode auto (the default): hybrid when the server has an embedder, else ranked; terms: entries whose key or value contains every word (case-insensitive), newest first; ranked: any word in any of its forms, best match first; hybrid: by meaning and words, best match first.",
            vec![
                user_id(),
                ("query", text(Some("Words to find, or a question in plain words.")), true),
                ("mode", schema(r#"{"type": "string", "enum": ["auto", "terms", "ranked", "hybrid"]}"#), false),
                ("limit", limit(), false),
                as_of(),
            ],
        ),
        tool(
            "get_memory_by_key",
            "The entry with a key: the agent's own self/group entry when agentId is given and has one, else the global entry.",
            vec![
                user_id(),
                ("key", id("The key."), true),
                ("agentId", text(None), false),
                as_of(),
            ],
        ),
        tool(
            "count_user_memories",
            "How many entries count toward the user's cap (all but _gdpr_ entries).",
            vec![user_id(), as_of()],
        ),
        tool(
            "upsert_user_memory",
            "Create or update one entry (write rules, identity and the per-user cap apply).",
            vec![
                user_id(),
                ("key", text(Some("At most 255 characters; _gdpr_ keys are reserved.")), true),
                ("value", schema(r#"{"description": "Any JSON value (at most 64 KiB as JSON)."}"#), false),
                (
                    "category",
                    text(Some("preference, fact, context, legacy or property (default fact).")),
                    false,
                ),
                ("visibility", schema(r#"{"type": "string", "enum": ["self", "group", "global"]}"#), true),
                ("agentId", text(Some("Required for self and group entries.")), false),
                (
                    "groupIds",
                    schema(
                        r#"{"type": "array", "items": {"type": "string"},
                            "description": "Required (non-empty) for group entries."}"#,
                    ),
                    false,
                ),
                ("sourceConversationId", text(None), false),
            ],
        ),
        tool(
            "delete_user_memory",
            "Delete one entry by id.",
            vec![("entryId", id("The entry id."), true)],
        ),
        McpToolDefinition {
            confirmation: confirmation(),
            ..tool(
                "delete_all_user_memories",
                &format!("Delete every entry of a user except _gdpr_ entries. {requires}"),
                vec![user_id(), confirmation_argument()],
            )
        },
        McpToolDefinition {
            admin_only: Some(Refusal {
                code: "E_FORBIDDEN",
                message: "delete_user_data is for administrators".into(),
            }),
            confirmation: confirmation(),
            ..tool(
                "delete_user_data",
                &format!("GDPR Art. 17 (administrators only): erase everything of a user — every entry, _gdpr_ ones included, and the profile. {requires}"),
                vec![user_id(), confirmation_argument()],
            )
        },
        tool(
            "get_memory_history",
            "The history of one entry (entryId) or of a key (key; give exactly one): its current state and every past state kept, newest first, each with when it held (validFrom, validUntil), who changed it (author) and why (reason).",
            vec![
                user_id(),
                ("key", text(Some("Every entry of the user that has or had this key.")), false),
                ("entryId", text(Some("One entry.")), false),
            ],
        ),
        tool(
            "search_user_episodes",
            "A user's episodes (the messages of the conversations memory learned from) for a query, best first: mode auto (the default: hybrid with the server's embedder, else ranked), terms, ranked or hybrid. Each: id, conversationId, role, text, at, score.",
            vec![
                user_id(),
                ("query", text(Some("Words to find, or a question in plain words.")), true),
                ("mode", schema(r#"{"type": "string", "enum": ["auto", "terms", "ranked", "hybrid"]}"#), false),
                ("limit", limit(), false),
                ("conversationId", text(Some("Only this conversation.")), false),
                ("asOf", text(Some("Only what was said by this time (RFC 3339).")), false),
            ],
        ),
    ]
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn by_name(name: &str) -> McpToolDefinition {
        mcp_tool_definitions()
            .into_iter()
            .find(|t| t.name == name)
            .unwrap()
    }

    #[test]
    fn ten_tools_in_spec_order() {
        let names: Vec<&str> = mcp_tool_definitions().iter().map(|t| t.name).collect();
        assert_eq!(
            names,
            [
                "list_user_memories",
                "get_visible_memories",
                "search_user_memories",
                "get_memory_by_key",
                "count_user_memories",
                "upsert_user_memory",
                "delete_user_memory",
                "delete_all_user_memories",
                "delete_user_data",
                "get_memory_history",
                "search_user_episodes",
            ]
        );
    }

    #[test]
    fn schemas_are_exact_objects_listing_properties_in_definition_order() {
        let json = serde_json::to_string(&by_name("get_memory_by_key").input_schema).unwrap();
        assert_eq!(
            json,
            r#"{"$schema":"http://json-schema.org/draft-07/schema#","type":"object","properties":{"userId":{"description":"The user whose memories these are.","minLength":1,"type":"string"},"key":{"description":"The key.","minLength":1,"type":"string"},"agentId":{"type":"string"},"asOf":{"description":"Read the state as it was at this time (RFC 3339, e.g. 2026-05-01T12:00:00Z); default: now.","type":"string"}},"required":["userId","key"],"additionalProperties":false}"#
        );
    }

    #[test]
    fn only_the_destructive_tools_need_the_exact_word() {
        let needing: Vec<&str> = mcp_tool_definitions()
            .iter()
            .filter(|t| t.confirmation.is_some())
            .map(|t| t.name)
            .collect();
        assert_eq!(needing, ["delete_all_user_memories", "delete_user_data"]);
        let rule = by_name("delete_user_data").confirmation.unwrap();
        assert_eq!([rule.argument, rule.word], ["confirmation", "CONFIRM"]);
        assert_eq!(
            serde_json::to_value(&rule.refusal).unwrap(),
            json!({"code": "E_BAD_REQUEST", "message": "confirmation must be exactly \"CONFIRM\""})
        );
        let argument = &by_name("delete_all_user_memories").input_schema.properties[1];
        assert_eq!((argument.0, argument.2), ("confirmation", false));
    }

    #[test]
    fn only_the_gdpr_tool_is_for_administrators() {
        let admin: Vec<&str> = mcp_tool_definitions()
            .iter()
            .filter(|t| t.admin_only.is_some())
            .map(|t| t.name)
            .collect();
        assert_eq!(admin, ["delete_user_data"]);
    }
}
