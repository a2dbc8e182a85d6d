//! The JSON-schema definitions of the four tools, for OpenAI-style function calling, Anthropic
//! tools and MCP (behaviour §2.5).

use crate::entries::config::{Guardrails, SearchMode, UserMemoryConfig};
use serde_json::{json, Value};

/// What `searchMemory` says it does, per search mode (behaviour §8.2).
pub fn search_description(mode: SearchMode) -> &'static str {
    match mode {
        SearchMode::Auto => "Search the user's memories: ask in plain words (e.g. \"what is my dog called\"); the best matching memories are returned first.",
        SearchMode::Terms => "Search the user's memories by keywords; every word must occur in a memory's key or value.",
        SearchMode::Ranked => "Search the user's memories by keywords; memories holding any of the words, in any of their forms, are returned best match first.",
        SearchMode::Hybrid => "Search the user's memories by meaning: ask in plain words (e.g. \"what is my dog called\"); the closest memories are returned best match first.",
    }
}

/// JSON-schema definitions of the four tools for the default configuration:
/// `{ "openai": [...], "anthropic": [...], "mcp": [...] }`.
pub fn tool_definitions() -> Value {
    tool_definitions_for(&UserMemoryConfig::default())
}

/// JSON-schema definitions with the configured category list in the `category` enum.
///
/// Shapes: OpenAI `{type:"function", function:{name, description, parameters}}`, Anthropic
/// `{name, description, input_schema}`, MCP `{name, description, inputSchema}`.
pub fn tool_definitions_for(config: &UserMemoryConfig) -> Value {
    let categories = if config.guardrails.allowed_categories.is_empty() {
        Guardrails::default().allowed_categories
    } else {
        config.guardrails.allowed_categories.clone()
    };
    let mut tools = vec![
        (
            "rememberFact",
            "Store a fact about the user so it is available in later conversations.",
            json!({
                "type": "object",
                "properties": {
                    "key": {"type": "string", "description": "Short key name, e.g. \"favorite_color\" or \"dietary_restriction\""},
                    "value": {"description": "The value to remember (text, number, boolean, list or object)",
                        "anyOf": [{"type": "string"}, {"type": "number"}, {"type": "boolean"},
                            {"type": "array", "items": {}}, {"type": "object"}]},
                    "category": {"type": "string", "enum": categories, "description": "Kind of memory"},
                    "visibility": {"type": "string", "enum": ["self", "group", "global"], "default": "self",
                        "description": "self: only this agent; group: agents of this group conversation; global: every agent of the user"}
                },
                "required": ["key", "value", "category"]
            }),
        ),
        (
            "recallMemories",
            "Retrieve the memories about the current user that this agent may see.",
            json!({"type": "object", "properties": {}}),
        ),
        (
            "searchMemory",
            search_description(config.search.mode),
            json!({
                "type": "object",
                "properties": {"query": {"type": "string", "description": "Search words, e.g. \"color\""}},
                "required": ["query"]
            }),
        ),
        (
            "forgetFact",
            "Delete one memory by its exact key.",
            json!({
                "type": "object",
                "properties": {"key": {"type": "string", "description": "The key to forget, e.g. \"favorite_color\""}},
                "required": ["key"]
            }),
        ),
    ];
    if super::offers_history(config) {
        tools.push((
            super::HISTORY_TOOL,
            "Show how one memory changed over time: its current value and its earlier values, each with its dates, newest first.",
            json!({
                "type": "object",
                "properties": {"key": {"type": "string", "description": "The exact key, e.g. \"home_city\""}},
                "required": ["key"]
            }),
        ));
    }
    let openai: Vec<Value> = tools
        .iter()
        .map(|(n, d, s)| json!({"type": "function", "function": {"name": n, "description": d, "parameters": s}}))
        .collect();
    let anthropic: Vec<Value> = tools
        .iter()
        .map(|(n, d, s)| json!({"name": n, "description": d, "input_schema": s}))
        .collect();
    let mcp: Vec<Value> = tools
        .iter()
        .map(|(n, d, s)| json!({"name": n, "description": d, "inputSchema": s}))
        .collect();
    json!({"openai": openai, "anthropic": anthropic, "mcp": mcp})
}
