//! The four LLM tools (SPEC §2.5): `rememberFact`, `recallMemories`, `searchMemory`,
//! `forgetFact`. Answers are byte-exact SPEC strings; [`call_tool`] never fails — expected
//! problems and store failures are tool answers, so nothing throws into the model loop.
//!
//! Answers the SPEC does not define (exact wording):
//! - unknown tool: [`unknown_tool_answer`] →
//!   `⚠️ Unknown memory tool 'X'. Available tools: rememberFact, recallMemories, searchMemory, forgetFact.`
//! - arguments that are neither an object, `null`, nor a JSON string holding an object:
//!   [`INVALID_ARGUMENTS`] → `⚠️ Invalid arguments: expected a JSON object with the tool's parameters.`
//! - key given as a JSON object or array: [`KEY_NOT_TEXT`] → `⚠️ Key must be text.`
//! - value missing, `null`, or a blank string: [`VALUE_EMPTY`] → `⚠️ Value must not be empty.`
//! - cap reached under `evict_oldest` when the agent's own entries are not enough:
//!   `⚠️ Memory capacity reached (C/M). Cannot store more facts: only K of this agent's own memories can be evicted, N needed.`
//! - processing restricted (SPEC §4.3, global `_gdpr_processing_restricted` present):
//!   [`RESTRICTED`] → `⚠️ Memory processing is restricted for this user. Nothing new is stored.`
//!
//! Argument leniency (model output is messy): a JSON *string* holding an object is parsed; a
//! number or boolean key/category/visibility/query is used as its JSON text (`42`, `true`);
//! category and visibility are trimmed and matched case-insensitively (a category is stored in
//! the configured spelling); a missing category is `fact`, a missing visibility is `self`;
//! extra arguments are ignored; values may be any JSON (strings are stored untrimmed).
//! `recallMemories` ignores its arguments entirely.
//!
//! Further decisions: `_gdpr_` entries are never listed by recall/search; `forgetFact` is not a
//! write for `maxWritesPerTurn` (it is erasure, which SPEC §4.3 keeps available even under a
//! restriction); search results use recall ordering `most_recent` and at most
//! `maxRecallEntries` lines and do not increment access counts; the capacity count is taken from
//! the `list` the write resolves against.

use super::config::{OnCapReached, UserMemoryConfig, Visibility};
use super::model::{Entry, EntryWrite};
use super::recall::{format_entry, order_for_recall, staleness_cmp};
use super::search::{matches_terms, search_terms, value_text};
use super::visibility::{effective_visibility, is_reserved_key, is_visible, resolve_write_target};
use crate::host::{Clock, EntryStore, IdSource};
use chrono::SecondsFormat;
use serde::{Deserialize, Serialize};
use serde_json::{json, Map, Value};

/// The tool names, in definition order.
pub const TOOL_NAMES: [&str; 4] = [
    "rememberFact",
    "recallMemories",
    "searchMemory",
    "forgetFact",
];
/// Answer for unusable arguments.
pub const INVALID_ARGUMENTS: &str =
    "⚠️ Invalid arguments: expected a JSON object with the tool's parameters.";
/// Answer for a key that is an object or array.
pub const KEY_NOT_TEXT: &str = "⚠️ Key must be text.";
/// Answer for an empty key (SPEC).
pub const KEY_EMPTY: &str = "⚠️ Key must not be empty.";
/// Answer for a missing or blank value.
pub const VALUE_EMPTY: &str = "⚠️ Value must not be empty.";
/// Answer for a reserved key (SPEC).
pub const RESERVED: &str = "⚠️ Keys starting with '_gdpr_' are reserved.";
/// Answer while the user's processing is restricted (SPEC §4.3).
pub const RESTRICTED: &str =
    "⚠️ Memory processing is restricted for this user. Nothing new is stored.";
/// Answer of a recall with nothing visible (SPEC).
pub const NO_MEMORIES: &str = "No memories found for this user.";
/// The global key that marks an Art. 18 processing restriction (SPEC §4.3).
pub const RESTRICTION_KEY: &str = "_gdpr_processing_restricted";

/// Per-turn state of one agent talking to one user. The host builds one per turn (or keeps it
/// across the tool calls of a turn): `writes_this_turn` counts successful `rememberFact` writes.
#[derive(Debug, Clone, PartialEq)]
pub struct ToolSession {
    /// The agent's memory configuration.
    pub config: UserMemoryConfig,
    /// The authenticated user.
    pub user_id: String,
    /// The agent calling the tools.
    pub agent_id: String,
    /// The turn's group, from [`super::visibility::resolve_group_context`] only.
    pub group: Option<String>,
    /// Stamped on written entries.
    pub conversation_id: Option<String>,
    /// Successful writes so far in this turn.
    pub writes_this_turn: u32,
}

impl ToolSession {
    /// A fresh self-scoped session with no writes. `E_ARGUMENT` when the user or the agent id is
    /// blank: every write is stamped with both, and a blank one would scope memories to nobody.
    pub fn new(
        config: UserMemoryConfig,
        user_id: &str,
        agent_id: &str,
    ) -> crate::error::Result<Self> {
        for (name, id) in [("userId", user_id), ("agentId", agent_id)] {
            if id.trim().is_empty() {
                return Err(crate::Error::new(
                    crate::ErrorCode::Argument,
                    format!("{name} must be a non-empty id"),
                ));
            }
        }
        Ok(ToolSession {
            config,
            user_id: user_id.to_string(),
            agent_id: agent_id.to_string(),
            group: None,
            conversation_id: None,
            writes_this_turn: 0,
        })
    }
}

/// A tool's answer for the model, and whether the store was written.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct ToolAnswer {
    /// The exact text returned to the model.
    pub text: String,
    /// `true` when an entry was created, changed or deleted (access counts do not count).
    pub wrote: bool,
}

impl ToolAnswer {
    fn say(text: impl Into<String>) -> Self {
        ToolAnswer {
            text: text.into(),
            wrote: false,
        }
    }
    fn wrote(text: impl Into<String>) -> Self {
        ToolAnswer {
            text: text.into(),
            wrote: true,
        }
    }
}

/// The answer for a tool name that is not one of [`TOOL_NAMES`].
pub fn unknown_tool_answer(name: &str) -> String {
    format!(
        "⚠️ Unknown memory tool '{name}'. Available tools: {}.",
        TOOL_NAMES.join(", ")
    )
}

/// Run one tool call. Never fails: every problem is an answer (SPEC §2.5, §6). `args` is `None`
/// when the host could not read the model's arguments as JSON at all (a cycle, a getter that
/// throws): the tools that need arguments answer [`INVALID_ARGUMENTS`].
pub async fn call_tool<S: EntryStore, C: Clock, I: IdSource>(
    session: &mut ToolSession,
    store: &S,
    clock: &C,
    ids: &I,
    name: &str,
    args: Option<&Value>,
) -> ToolAnswer {
    match name {
        "rememberFact" => remember_fact(session, store, clock, ids, args).await,
        "recallMemories" => recall_memories(session, store).await,
        "searchMemory" => match tool_args(args) {
            Some(map) => search_memory(session, store, &map).await,
            None => ToolAnswer::say(INVALID_ARGUMENTS),
        },
        "forgetFact" => match tool_args(args) {
            Some(map) => forget_fact(session, store, &map).await,
            None => ToolAnswer::say(INVALID_ARGUMENTS),
        },
        other => ToolAnswer::say(unknown_tool_answer(other)),
    }
}

/// Arguments as an object: `null` → empty, an object as is, a string holding a JSON object (or
/// blank) parsed; anything else (or unreadable arguments) `None`.
fn tool_args(args: Option<&Value>) -> Option<Map<String, Value>> {
    match args? {
        Value::Null => Some(Map::new()),
        Value::Object(map) => Some(map.clone()),
        Value::String(text) if text.trim().is_empty() => Some(Map::new()),
        Value::String(text) => match serde_json::from_str::<Value>(text) {
            Ok(Value::Object(map)) => Some(map),
            _ => None,
        },
        _ => None,
    }
}

/// A scalar argument as text.
enum TextArg {
    Missing,
    Text(String),
    NotText(String),
}

fn text_arg(map: &Map<String, Value>, name: &str) -> TextArg {
    match map.get(name) {
        None | Some(Value::Null) => TextArg::Missing,
        Some(Value::String(s)) => TextArg::Text(s.clone()),
        Some(v @ (Value::Number(_) | Value::Bool(_))) => TextArg::Text(v.to_string()),
        Some(v) => TextArg::NotText(v.to_string()),
    }
}

fn key_arg(map: &Map<String, Value>) -> Result<String, &'static str> {
    match text_arg(map, "key") {
        TextArg::Missing => Err(KEY_EMPTY),
        TextArg::NotText(_) => Err(KEY_NOT_TEXT),
        TextArg::Text(t) if t.trim().is_empty() => Err(KEY_EMPTY),
        TextArg::Text(t) => Ok(t.trim().to_string()),
    }
}

fn failed(action: &str, error: &crate::Error) -> ToolAnswer {
    ToolAnswer::say(format!("❌ Failed to {action} memory: {}", error.message))
}

/// The answer of a tool call that failed outside the tool itself (the host's instance failed):
/// `❌ Failed to <store|recall|search|forget> memory: <reason>`, the action named after the tool.
pub fn failure_answer(tool: &str, reason: &str) -> String {
    let action = match tool {
        "recallMemories" => "recall",
        "searchMemory" => "search",
        "forgetFact" => "forget",
        _ => "store",
    };
    format!("❌ Failed to {action} memory: {reason}")
}

fn line(prefix: &str, key: &str, value: &Value, category: &str, visibility: &str) -> String {
    format!(
        "{prefix}{key} = {} [{category}, {visibility}]",
        value_text(value)
    )
}

fn now_text<C: Clock>(clock: &C) -> String {
    clock.now().to_rfc3339_opts(SecondsFormat::Millis, true)
}

async fn remember_fact<S: EntryStore, C: Clock, I: IdSource>(
    session: &mut ToolSession,
    store: &S,
    clock: &C,
    ids: &I,
    args: Option<&Value>,
) -> ToolAnswer {
    let g = &session.config.guardrails;
    if u64::from(session.writes_this_turn) >= g.max_writes_per_turn {
        return ToolAnswer::say(format!(
            "⚠️ Maximum writes per turn ({}) reached. Try again in the next turn.",
            g.max_writes_per_turn
        ));
    }
    let Some(map) = tool_args(args) else {
        return ToolAnswer::say(INVALID_ARGUMENTS);
    };
    let key = match key_arg(&map) {
        Ok(k) => k,
        Err(answer) => return ToolAnswer::say(answer),
    };
    if key.chars().count() as u64 > g.max_key_length {
        return ToolAnswer::say(format!(
            "⚠️ Key too long. Maximum {} characters.",
            g.max_key_length
        ));
    }
    let value = match map.get("value") {
        None | Some(Value::Null) => return ToolAnswer::say(VALUE_EMPTY),
        Some(Value::String(s)) if s.trim().is_empty() => return ToolAnswer::say(VALUE_EMPTY),
        Some(v) => v.clone(),
    };
    if value_text(&value).chars().count() as u64 > g.max_value_length {
        return ToolAnswer::say(format!(
            "⚠️ Value too long. Maximum {} characters.",
            g.max_value_length
        ));
    }
    let category = match text_arg(&map, "category") {
        TextArg::Missing => "fact".to_string(),
        TextArg::Text(t) if t.trim().is_empty() => "fact".to_string(),
        TextArg::Text(t) | TextArg::NotText(t) => t,
    };
    let Some(category) = g
        .allowed_categories
        .iter()
        .find(|c| c.to_lowercase() == category.trim().to_lowercase())
        .cloned()
    else {
        return ToolAnswer::say(format!(
            "⚠️ Category '{category}' not allowed. Allowed: {}",
            g.allowed_categories.join(", ")
        ));
    };
    let requested = match text_arg(&map, "visibility") {
        TextArg::Missing => Ok(Visibility::SelfOnly),
        TextArg::Text(t) if t.trim().is_empty() => Ok(Visibility::SelfOnly),
        TextArg::Text(t) | TextArg::NotText(t) => {
            Visibility::parse(&t.trim().to_lowercase()).ok_or(t)
        }
    };
    let requested = match requested {
        Ok(v) => v,
        Err(t) => {
            return ToolAnswer::say(format!(
                "⚠️ Visibility '{t}' is not one of: self, group, global."
            ))
        }
    };
    if is_reserved_key(&key) {
        return ToolAnswer::say(RESERVED);
    }

    let entries = match store.list(&session.user_id).await {
        Ok(e) => e,
        Err(e) => return failed("store", &e),
    };
    if is_restricted(&entries) {
        return ToolAnswer::say(RESTRICTED);
    }
    let group = session.group.as_deref().filter(|g| !g.is_empty());
    let visibility = effective_visibility(requested, group);
    let group_ids: Vec<String> = match visibility {
        Visibility::Group => group.map(|g| vec![g.to_string()]).unwrap_or_default(),
        _ => Vec::new(),
    };
    let target = resolve_write_target(
        &entries,
        &session.user_id,
        &key,
        &session.agent_id,
        visibility,
    );

    let mut evicted = Vec::new();
    if let Some(existing) = target {
        let unchanged = existing.value == value
            && existing.category == category
            && existing.visibility == visibility.as_str()
            && group_ids.iter().all(|g| existing.group_ids.contains(g));
        if unchanged {
            return ToolAnswer::say(line(
                "✅ Already remembered (unchanged): ",
                &existing.key,
                &existing.value,
                &existing.category,
                &existing.visibility,
            ));
        }
    } else {
        match make_room(session, store, &entries).await {
            Ok(keys) => evicted = keys,
            Err(answer) => return answer,
        }
    }

    let now = now_text(clock);
    let entry = EntryWrite {
        user_id: session.user_id.clone(),
        key: key.clone(),
        value: value.clone(),
        category: category.clone(),
        visibility: visibility.as_str().to_string(),
        source_agent_id: Some(session.agent_id.clone()),
        group_ids,
        source_conversation_id: session.conversation_id.clone(),
    }
    .apply(target, now, || ids.new_id());
    if let Err(e) = store.upsert(&entry).await {
        return failed("store", &e);
    }
    session.writes_this_turn = session.writes_this_turn.saturating_add(1);
    let remembered = line(
        "✅ Remembered: ",
        &key,
        &value,
        &category,
        visibility.as_str(),
    );
    if evicted.len() > 1 {
        return ToolAnswer::wrote(format!(
            "{remembered} (evicted {} older memories of this agent to stay within {}: {})",
            evicted.len(),
            session.config.max_entries_per_user,
            evicted.join(", ")
        ));
    }
    ToolAnswer::wrote(remembered)
}

/// Whether the user's processing is restricted (SPEC §4.3).
pub fn is_restricted(entries: &[Entry]) -> bool {
    entries
        .iter()
        .any(|e| e.key == RESTRICTION_KEY && e.visibility == "global")
}

/// Capacity for one new entry (SPEC §2.5). `Ok` → go ahead, with the keys evicted to make room
/// (at the cap, one; after the cap was lowered, as many as it takes); `Err` → the answer refusing
/// the write. Eviction takes this agent's own entries — every visibility it wrote, global ones
/// included (SPEC: "this agent's own") — least recently updated first, never `_gdpr_` ones.
async fn make_room<S: EntryStore>(
    session: &ToolSession,
    store: &S,
    entries: &[Entry],
) -> Result<Vec<String>, ToolAnswer> {
    let max = session.config.max_entries_per_user;
    let counted = entries.iter().filter(|e| !is_reserved_key(&e.key)).count() as u64;
    if counted < max {
        return Ok(Vec::new());
    }
    let full = format!("⚠️ Memory capacity reached ({counted}/{max}). Cannot store more facts");
    if session.config.on_cap_reached == OnCapReached::Reject {
        return Err(ToolAnswer::say(format!("{full}.")));
    }
    let needed = usize::try_from(counted - max + 1).unwrap_or(usize::MAX);
    let mut own: Vec<&Entry> = entries
        .iter()
        .filter(|e| {
            e.source_agent_id.as_deref() == Some(session.agent_id.as_str())
                && !is_reserved_key(&e.key)
        })
        .collect();
    if own.len() < needed {
        return Err(ToolAnswer::say(format!(
            "{full}: only {} of this agent's own memories can be evicted, {needed} needed.",
            own.len()
        )));
    }
    own.sort_by(|a, b| staleness_cmp(a, b));
    let mut evicted = Vec::with_capacity(needed);
    for victim in own.into_iter().take(needed) {
        if let Err(e) = store.delete(&victim.id).await {
            return Err(failed("store", &e));
        }
        evicted.push(victim.key.clone());
    }
    Ok(evicted)
}

/// The entries a tool may show: visible to the session and not `_gdpr_` bookkeeping.
fn shown(session: &ToolSession, entries: Vec<Entry>) -> Vec<Entry> {
    entries
        .into_iter()
        .filter(|e| is_shown(session, e))
        .collect()
}

fn limit(session: &ToolSession) -> usize {
    usize::try_from(session.config.max_recall_entries).unwrap_or(usize::MAX)
}

/// Whether a tool may show this entry (see [`shown`]).
fn is_shown(session: &ToolSession, entry: &Entry) -> bool {
    entry.user_id == session.user_id
        && !is_reserved_key(&entry.key)
        && is_visible(entry, &session.agent_id, session.group.as_deref())
}

async fn recall_memories<S: EntryStore>(session: &ToolSession, store: &S) -> ToolAnswer {
    let (order, max) = (session.config.recall_order, limit(session));
    let in_place = store.with_entries(&session.user_id, |set| {
        set.recall(|e| is_shown(session, e), order, max)
            .into_iter()
            .cloned()
            .collect::<Vec<Entry>>()
    });
    let ordered = match in_place {
        Some(ordered) => ordered,
        None => match store.list(&session.user_id).await {
            Ok(entries) => order_for_recall(shown(session, entries), order, max),
            Err(e) => return failed("recall", &e),
        },
    };
    if ordered.is_empty() {
        return ToolAnswer::say(NO_MEMORIES);
    }
    let ids: Vec<String> = ordered.iter().map(|e| e.id.clone()).collect();
    if let Err(e) = store.increment_access(&ids).await {
        return failed("recall", &e);
    }
    ToolAnswer::say(listing(&ordered))
}

async fn search_memory<S: EntryStore>(
    session: &ToolSession,
    store: &S,
    map: &Map<String, Value>,
) -> ToolAnswer {
    let query = match text_arg(map, "query") {
        TextArg::Missing => String::new(),
        TextArg::Text(t) | TextArg::NotText(t) => t,
    };
    let none = ToolAnswer::say(format!("No memories matching '{query}' found."));
    let terms = search_terms(&query);
    if terms.is_empty() {
        return none;
    }
    let in_place = store.with_entries(&session.user_id, |set| {
        set.search(&terms, |e| is_shown(session, e), limit(session))
            .into_iter()
            .cloned()
            .collect::<Vec<Entry>>()
    });
    let ordered = match in_place {
        Some(ordered) => ordered,
        None => {
            let candidates = match store.search(&session.user_id, &query).await {
                Ok(Some(found)) => found,
                Ok(None) => match store.list(&session.user_id).await {
                    Ok(all) => all,
                    Err(e) => return failed("search", &e),
                },
                Err(e) => return failed("search", &e),
            };
            let matching: Vec<Entry> = shown(session, candidates)
                .into_iter()
                .filter(|e| matches_terms(&terms, e))
                .collect();
            order_for_recall(
                matching,
                super::config::RecallOrder::MostRecent,
                limit(session),
            )
        }
    };
    if ordered.is_empty() {
        return none;
    }
    ToolAnswer::say(listing(&ordered))
}

/// The recall/search answer: one `• key = value [category, visibility]` line per entry.
fn listing(entries: &[Entry]) -> String {
    let lines: Vec<String> = entries.iter().map(format_entry).collect();
    lines.join("\n")
}

async fn forget_fact<S: EntryStore>(
    session: &ToolSession,
    store: &S,
    map: &Map<String, Value>,
) -> ToolAnswer {
    let key = match key_arg(map) {
        Ok(k) => k,
        Err(answer) => return ToolAnswer::say(answer),
    };
    if is_reserved_key(&key) {
        return ToolAnswer::say(RESERVED);
    }
    let entries = match store.list(&session.user_id).await {
        Ok(e) => e,
        Err(e) => return failed("forget", &e),
    };
    let visible: Vec<Entry> = shown(session, entries)
        .into_iter()
        .filter(|e| e.key == key)
        .collect();
    let own = visible.iter().find(|e| {
        e.visibility != "global" && e.source_agent_id.as_deref() == Some(session.agent_id.as_str())
    });
    let target = own.or_else(|| visible.iter().find(|e| e.visibility == "global"));
    let not_found = ToolAnswer::say(format!("No memory with key '{key}' found."));
    let Some(target) = target else {
        return not_found;
    };
    match store.delete(&target.id).await {
        Ok(true) => ToolAnswer::wrote(format!("✅ Forgotten: {key}")),
        Ok(false) => not_found,
        Err(e) => failed("forget", &e),
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
        super::config::Guardrails::default().allowed_categories
    } else {
        config.guardrails.allowed_categories.clone()
    };
    let tools = [
        (
            "rememberFact",
            "Store a fact about the user so it is available in later conversations.",
            json!({
                "type": "object",
                "properties": {
                    "key": {"type": "string", "description": "Short key name, e.g. \"favorite_color\" or \"dietary_restriction\""},
                    "value": {"description": "The value to remember (text, number, boolean, list or object)"},
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
            "Search the user's memories by keywords; every word must occur in a memory's key or value.",
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
