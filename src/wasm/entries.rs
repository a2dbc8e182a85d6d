//! Bindings for entry memory's pure rules (behaviour §2.2–2.4, §2.6) and long-term properties
//! (§2.7).

use super::boundary::{config_arg, json_out, Call};
use super::entry_store::StoreRef;
use super::op::{Op, StoreOptions};
use super::task::spawn;
use memcore::entries::history::{Author, Writer};
use memcore::entries::properties::{self, LongTermProperty, PropertyScope};
use memcore::entries::visibility::{self, GroupContextInputs};
use memcore::entries::write_rules::{self, Surface};
use memcore::entries::{config, search, Entry};
use memcore::error::Result;
use serde::Deserialize;
use serde_json::{Map, Value};
use wasm_bindgen::prelude::*;

/// Parse and validate a `userMemoryConfig` block (defaults filled; `E_CONFIG` with the path).
#[wasm_bindgen(js_name = parseUserMemoryConfig)]
pub fn parse_user_memory_config(config: Option<String>) -> Result<String> {
    json_out(&config_arg(config)?)
}

/// Whether the four tools are attached (behaviour §2.3): `{ attached, warning }`.
#[wasm_bindgen(js_name = resolveMemoryTools)]
pub fn resolve_memory_tools(agent: Option<String>, llm_task: Option<String>) -> Result<String> {
    let call = Call("resolveMemoryTools");
    let agent: Value = call.optional("agentConfig", agent)?.unwrap_or_default();
    let task: Value = call
        .optional("llmTaskConfig", llm_task)?
        .unwrap_or_default();
    json_out(&config::resolve_memory_tools(&agent, &task))
}

/// The search terms of a query (JSON array).
#[wasm_bindgen(js_name = searchTerms)]
pub fn search_terms(query: String) -> Result<String> {
    json_out(&search::search_terms(&query))
}

/// Whether an entry matches a search query.
#[wasm_bindgen(js_name = matchesQuery)]
pub fn matches_query(query: String, entry: String) -> Result<bool> {
    let entry: Entry = Call("matchesQuery").json("entry", &entry)?;
    Ok(search::matches_query(&query, &entry))
}

/// The visibility predicate of recall, search and forget.
#[wasm_bindgen(js_name = isVisible)]
pub fn is_visible(entry: String, agent_id: String, group: Option<String>) -> Result<bool> {
    let entry: Entry = Call("isVisible").json("entry", &entry)?;
    Ok(visibility::is_visible(&entry, &agent_id, group.as_deref()))
}

/// A client's request context without reserved keys (`groupId`, …), JSON.
#[wasm_bindgen(js_name = filterClientContext)]
pub fn filter_client_context(context: String) -> Result<String> {
    let map: Map<String, Value> = Call("filterClientContext").json("context", &context)?;
    json_out(&visibility::filter_client_context(&map))
}

/// The keys `filterClientContext` removes (JSON array).
#[wasm_bindgen(js_name = reservedContextKeys)]
pub fn reserved_context_keys() -> Result<String> {
    json_out(&visibility::RESERVED_CONTEXT_KEYS)
}

/// `resolveGroupContext({ injectedContext, earlierSteps, hostAttestation })` → group id or `null`.
#[wasm_bindgen(js_name = resolveGroupContext)]
pub fn resolve_group_context(inputs: String) -> Result<Option<String>> {
    let inputs: GroupContextInputs = Call("resolveGroupContext").json("inputs", &inputs)?;
    Ok(visibility::resolve_group_context_from(&inputs))
}

#[derive(Deserialize, Default)]
#[serde(deny_unknown_fields)]
struct ValidateArgs {
    #[serde(default)]
    surface: Option<Surface>,
}

/// REST/MCP write rules: every violation `{ field, message }` (empty → valid), JSON.
#[wasm_bindgen(js_name = validateMemoryWrite)]
pub fn validate_memory_write(request: Option<String>, options: Option<String>) -> Result<String> {
    let call = Call("validateMemoryWrite");
    let request: Value = call.optional("request", request)?.unwrap_or_default();
    let args: ValidateArgs = call.options("options", options)?;
    json_out(&write_rules::validate_memory_write(
        &request,
        args.surface.unwrap_or(Surface::Rest),
    ))
}

/// Tool definitions `{ openai, anthropic, mcp }` for a config (defaults when absent), JSON.
#[wasm_bindgen(js_name = toolDefinitions)]
pub fn tool_definitions(config: Option<String>) -> Result<String> {
    json_out(&memcore::entries::tools::tool_definitions_for(&config_arg(
        config,
    )?))
}

#[derive(Deserialize)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
struct PersistArgs {
    #[serde(default)]
    config: Option<Value>,
    user_id: String,
    agent_id: String,
    #[serde(default)]
    group: Option<String>,
    #[serde(default)]
    conversation_id: Option<String>,
    #[serde(default)]
    store_timeout_ms: Option<u64>,
}

/// `persistLongTermProperties(store, properties, options)` → task of the report (JSON).
#[wasm_bindgen(js_name = persistLongTermProperties)]
pub fn persist_long_term_properties(
    store: JsValue,
    properties: String,
    options: String,
    hosts: JsValue,
) -> Result<u32> {
    let call = Call("persistLongTermProperties");
    let list: Vec<LongTermProperty> = call.json("properties", &properties)?;
    let args: PersistArgs = call.json("options", &options)?;
    let config = config_arg(args.config.map(|c| c.to_string()))?;
    let scope = PropertyScope {
        user_id: args.user_id,
        agent_id: args.agent_id,
        group: args.group,
        conversation_id: args.conversation_id,
    };
    let op = Op::new(args.store_timeout_ms, || StoreRef::from_js(store), hosts)?;
    spawn(async move {
        let report = properties::persist_long_term_properties(
            &op.store(),
            &op.hosts,
            &op.hosts,
            &config,
            &scope,
            &list,
        )
        .await?;
        json_out(&report)
    })
}

/// The legacy flat view `{ key: value }` over the user's global entries → task (JSON).
#[wasm_bindgen(js_name = readProperties)]
pub fn read_properties(
    store: JsValue,
    user_id: String,
    options: Option<String>,
    hosts: JsValue,
) -> Result<u32> {
    let options = StoreOptions::decode(Call("readProperties"), options)?;
    let op = Op::new(options.store_timeout_ms, || StoreRef::from_js(store), hosts)?;
    spawn(async move { json_out(&properties::read_properties(&op.store(), &user_id).await?) })
}

/// `mergeProperties` and `deleteProperties` options (besides the host callbacks): the
/// `userMemoryConfig` whose `secrets` policy and `history` apply, and the principal.
#[derive(Deserialize, Default)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
struct MergeArgs {
    #[serde(default)]
    config: Option<Value>,
    #[serde(default)]
    store_timeout_ms: Option<u64>,
    /// Who the host authenticated: the author of the changes in the history.
    #[serde(default)]
    principal: Option<String>,
}

/// Legacy merge of `{ key: value }` into global entries → task of the number written.
#[wasm_bindgen(js_name = mergeProperties)]
pub fn merge_properties(
    store: JsValue,
    user_id: String,
    properties: String,
    options: Option<String>,
    hosts: JsValue,
) -> Result<u32> {
    let call = Call("mergeProperties");
    let map: Map<String, Value> = call.json("properties", &properties)?;
    let args: MergeArgs = match options {
        Some(options) => call.json("options", &options)?,
        None => MergeArgs::default(),
    };
    let config = config_arg(args.config.map(|c| c.to_string()))?;
    let author = Author::of_surface(Surface::Rest, args.principal.as_deref());
    let op = Op::new(args.store_timeout_ms, || StoreRef::from_js(store), hosts)?;
    spawn(async move {
        let writer = Writer {
            clock: &op.hosts,
            history: &config.history,
            author: &author,
        };
        let (s, ids, policy) = (&op.store(), &op.hosts, config.secrets);
        let written = properties::merge_properties(s, writer, ids, &user_id, &map, policy).await?;
        json_out(&written)
    })
}

/// Legacy delete of the user's global (non-`_gdpr_`) entries → task of the number deleted.
#[wasm_bindgen(js_name = deleteProperties)]
pub fn delete_properties(
    store: JsValue,
    user_id: String,
    options: Option<String>,
    hosts: JsValue,
) -> Result<u32> {
    let call = Call("deleteProperties");
    let args: MergeArgs = match options {
        Some(options) => call.json("options", &options)?,
        None => MergeArgs::default(),
    };
    let config = config_arg(args.config.map(|c| c.to_string()))?;
    let author = Author::of_surface(Surface::Rest, args.principal.as_deref());
    let op = Op::new(args.store_timeout_ms, || StoreRef::from_js(store), hosts)?;
    spawn(async move {
        let writer = Writer {
            clock: &op.hosts,
            history: &config.history,
            author: &author,
        };
        json_out(&properties::delete_properties(&op.store(), writer, &user_id).await?)
    })
}
