//! Bindings for entry memory's pure rules (SPEC §2.2–2.4, §2.6) and long-term properties (§2.7).

use super::args;
use super::entry_store::EntryStoreRef;
use super::errors::{to_js, JsResult};
use super::host::{JsClock, JsIds};
use super::tools::{callback, config_arg};
use crate::entries::properties::{self, LongTermProperty, PropertyScope};
use crate::entries::visibility::{self, GroupAttestation};
use crate::entries::write_rules::{self, Surface};
use crate::entries::{config, search, Entry};
use crate::error::{Error, Result};
use serde::Serialize;
use serde_json::{Map, Value};
use wasm_bindgen::prelude::*;

fn js<T: Serialize>(value: &T) -> JsResult<JsValue> {
    args::to_js(value).map_err(to_js)
}

/// JSON data from JS for `name` (`E_ARGUMENT` when it is not JSON-like).
fn json_arg(function: &str, name: &str, value: &JsValue) -> Result<Value> {
    if value.is_undefined() {
        return Ok(Value::Null);
    }
    serde_wasm_bindgen::from_value(value.clone())
        .map_err(|e| Error::argument(function, name, &format!("JSON data ({e})")))
}

fn object_arg(function: &str, name: &str, value: &JsValue) -> Result<Map<String, Value>> {
    match json_arg(function, name, value)? {
        Value::Object(map) => Ok(map),
        _ => Err(Error::argument(function, name, "an object")),
    }
}

/// Parse and validate a `userMemoryConfig` block (defaults filled; `E_CONFIG` with the path).
#[wasm_bindgen(js_name = parseUserMemoryConfig)]
pub fn parse_user_memory_config(config: JsValue) -> JsResult<JsValue> {
    let json = json_arg("parseUserMemoryConfig", "config", &config).map_err(to_js)?;
    js(&config::parse_user_memory_config(&json).map_err(to_js)?)
}

/// Whether the four tools are attached (SPEC §2.3): `{ attached, warning }`.
#[wasm_bindgen(js_name = resolveMemoryTools)]
pub fn resolve_memory_tools(agent: JsValue, llm_task: JsValue) -> JsResult<JsValue> {
    const F: &str = "resolveMemoryTools";
    let agent = json_arg(F, "agentConfig", &agent).map_err(to_js)?;
    let task = json_arg(F, "llmTaskConfig", &llm_task).map_err(to_js)?;
    js(&config::resolve_memory_tools(&agent, &task))
}

/// The search terms of a query.
#[wasm_bindgen(js_name = searchTerms)]
pub fn search_terms(query: JsValue) -> JsResult<Vec<String>> {
    let query = args::string("searchTerms", "query", &query).map_err(to_js)?;
    Ok(search::search_terms(&query))
}

/// Whether an entry matches a search query.
#[wasm_bindgen(js_name = matchesQuery)]
pub fn matches_query(query: JsValue, entry: JsValue) -> JsResult<bool> {
    let query = args::string("matchesQuery", "query", &query).map_err(to_js)?;
    let entry: Entry = args::object("matchesQuery", "entry", &entry).map_err(to_js)?;
    Ok(search::matches_query(&query, &entry))
}

/// The visibility predicate of recall, search and forget.
#[wasm_bindgen(js_name = isVisible)]
pub fn is_visible(entry: JsValue, agent_id: JsValue, group: JsValue) -> JsResult<bool> {
    let entry: Entry = args::object("isVisible", "entry", &entry).map_err(to_js)?;
    let agent_id = args::string("isVisible", "agentId", &agent_id).map_err(to_js)?;
    let group = args::optional_string("isVisible", "group", &group).map_err(to_js)?;
    Ok(visibility::is_visible(&entry, &agent_id, group.as_deref()))
}

/// A client's request context without reserved keys (`groupId`, …).
#[wasm_bindgen(js_name = filterClientContext)]
pub fn filter_client_context(context: JsValue) -> JsResult<JsValue> {
    let map = object_arg("filterClientContext", "context", &context).map_err(to_js)?;
    js(&visibility::filter_client_context(&map))
}

/// The keys `filterClientContext` removes.
#[wasm_bindgen(js_name = reservedContextKeys)]
pub fn reserved_context_keys() -> Vec<String> {
    visibility::RESERVED_CONTEXT_KEYS
        .iter()
        .map(|k| k.to_string())
        .collect()
}

/// `resolveGroupContext({ injectedContext, earlierSteps, hostAttestation })` → group id or `null`.
#[wasm_bindgen(js_name = resolveGroupContext)]
pub fn resolve_group_context(inputs: JsValue) -> JsResult<Option<String>> {
    const F: &str = "resolveGroupContext";
    let inputs = object_arg(F, "inputs", &inputs).map_err(to_js)?;
    let text = |v: Option<&Value>| v.and_then(Value::as_str).map(str::to_string);
    let injected = text(inputs.get("injectedContext").and_then(|c| c.get("groupId")));
    // The most recent earlier step that names a group.
    let earlier = inputs
        .get("earlierSteps")
        .and_then(Value::as_array)
        .and_then(|steps| steps.iter().rev().find_map(|s| text(s.get("groupId"))));
    let attestation: Option<GroupAttestation> = match inputs.get("hostAttestation") {
        None | Some(Value::Null) => None,
        Some(value) => Some(serde_json::from_value(value.clone()).map_err(|e| {
            to_js(Error::argument(
                F,
                "inputs.hostAttestation",
                &format!(
                    "{{ discussionRunningHere, conversationIsMember, discussionGroupId }} ({e})"
                ),
            ))
        })?),
    };
    Ok(visibility::resolve_group_context(
        injected.as_deref(),
        earlier.as_deref(),
        attestation.as_ref(),
    ))
}

/// REST/MCP write rules: every violation `{ field, message }` (empty → valid).
#[wasm_bindgen(js_name = validateMemoryWrite)]
pub fn validate_memory_write(request: JsValue, options: JsValue) -> JsResult<JsValue> {
    const F: &str = "validateMemoryWrite";
    let request = json_arg(F, "request", &request).map_err(to_js)?;
    let surface =
        match args::optional_string(F, "options.surface", &args::field(&options, "surface"))
            .map_err(to_js)?
            .as_deref()
        {
            None | Some("rest") => Surface::Rest,
            Some("mcp") => Surface::Mcp,
            Some(_) => {
                return Err(to_js(Error::argument(
                    F,
                    "options.surface",
                    "\"rest\" or \"mcp\"",
                )))
            }
        };
    js(&write_rules::validate_memory_write(&request, surface))
}

/// Tool definitions `{ openai, anthropic, mcp }` for a config (defaults when absent).
#[wasm_bindgen(js_name = toolDefinitions)]
pub fn tool_definitions(config: JsValue) -> JsResult<JsValue> {
    let config = config_arg(&config).map_err(to_js)?;
    js(&crate::entries::tools::tool_definitions_for(&config))
}

/// `persistLongTermProperties(store, properties, { config, userId, agentId, group?, conversationId?, now?, newId? })`.
#[wasm_bindgen(js_name = persistLongTermProperties)]
pub async fn persist_long_term_properties(
    store: EntryStoreRef,
    properties: JsValue,
    options: JsValue,
) -> JsResult<JsValue> {
    const F: &str = "persistLongTermProperties";
    let list: Vec<LongTermProperty> = serde_wasm_bindgen::from_value(properties).map_err(|e| {
        to_js(Error::argument(
            F,
            "properties",
            &format!("an array of {{ name, value, visibility? }} ({e})"),
        ))
    })?;
    args::options_object(F, "options", &options).map_err(to_js)?;
    let config = config_arg(&args::field(&options, "config")).map_err(to_js)?;
    let scope = PropertyScope {
        user_id: args::string(F, "options.userId", &args::field(&options, "userId"))
            .map_err(to_js)?,
        agent_id: args::string(F, "options.agentId", &args::field(&options, "agentId"))
            .map_err(to_js)?,
        group: args::optional_string(F, "options.group", &args::field(&options, "group"))
            .map_err(to_js)?,
        conversation_id: args::optional_string(
            F,
            "options.conversationId",
            &args::field(&options, "conversationId"),
        )
        .map_err(to_js)?,
    };
    let clock = JsClock(callback(F, &options, "now").map_err(to_js)?);
    let ids = JsIds(callback(F, &options, "newId").map_err(to_js)?);
    let report = properties::persist_long_term_properties(
        &store.inner,
        &clock,
        &ids,
        &config,
        &scope,
        &list,
    )
    .await
    .map_err(to_js)?;
    js(&report)
}

/// The legacy flat view `{ key: value }` over the user's global entries.
#[wasm_bindgen(js_name = readProperties)]
pub async fn read_properties(store: EntryStoreRef, user_id: JsValue) -> JsResult<JsValue> {
    let user_id = args::string("readProperties", "userId", &user_id).map_err(to_js)?;
    js(&properties::read_properties(&store.inner, &user_id)
        .await
        .map_err(to_js)?)
}

/// Legacy merge of `{ key: value }` into global entries; resolves to the number written.
#[wasm_bindgen(js_name = mergeProperties)]
pub async fn merge_properties(
    store: EntryStoreRef,
    user_id: JsValue,
    properties: JsValue,
    options: JsValue,
) -> JsResult<u32> {
    const F: &str = "mergeProperties";
    let user_id = args::string(F, "userId", &user_id).map_err(to_js)?;
    let map = object_arg(F, "properties", &properties).map_err(to_js)?;
    let clock = JsClock(callback(F, &options, "now").map_err(to_js)?);
    let ids = JsIds(callback(F, &options, "newId").map_err(to_js)?);
    properties::merge_properties(&store.inner, &clock, &ids, &user_id, &map)
        .await
        .map(|n| n as u32)
        .map_err(to_js)
}

/// Legacy delete of the user's global (non-`_gdpr_`) entries; resolves to the number deleted.
#[wasm_bindgen(js_name = deleteProperties)]
pub async fn delete_properties(store: EntryStoreRef, user_id: JsValue) -> JsResult<u32> {
    let user_id = args::string("deleteProperties", "userId", &user_id).map_err(to_js)?;
    properties::delete_properties(&store.inner, &user_id)
        .await
        .map(|n| n as u32)
        .map_err(to_js)
}
