//! Bindings for the four LLM tools (behaviour §2.5): a `MemoryTools` handle per agent turn, whose
//! calls the core runs one at a time.

use super::boundary::{config_arg, json_out, Call};
use super::entry_store::StoreRef;
use super::host::{Adapter, Js};
use super::task::spawn;
use memcore::boundary::adapter::Remote;
use memcore::boundary::handles::{Handles, Table};
use memcore::entries::embedding::EmbedderSpec;
use memcore::entries::memory_tools::store_timeout_ms;
use memcore::entries::tools::ToolSession;
use memcore::entries::MemoryTools;
use memcore::error::Result;
use serde::Deserialize;
use serde_json::Value;
use std::cell::RefCell;
use wasm_bindgen::prelude::*;

type JsTools = MemoryTools<StoreRef, Js>;

thread_local! {
    static TOOLS: RefCell<Handles<JsTools>> = RefCell::default();
}

fn tools() -> Table<JsTools> {
    Table {
        kind: "MemoryTools",
        cell: &TOOLS,
    }
}

#[derive(Deserialize)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
struct ToolsArgs {
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
    #[serde(default)]
    embedder: Option<EmbedderSpec>,
}

/// `createMemoryTools(options)` → the tools' handle. `store` is a store handle or an adapter;
/// `hosts` the adapter for `now`, `newId` and the timer.
#[wasm_bindgen(js_name = createMemoryTools)]
pub fn create_memory_tools(store: JsValue, options: String, hosts: JsValue) -> Result<u32> {
    let call = Call("createMemoryTools");
    let args: ToolsArgs = call.json("options", &options)?;
    let config = config_arg(args.config.map(|c| c.to_string()))?;
    let mut session = ToolSession::new(config, &args.user_id, &args.agent_id).map_err(|e| {
        let field = e.details.as_ref().and_then(|d| d.get("field")?.as_str());
        let argument = format!("options.{}", field.unwrap_or_default());
        call.in_argument(&argument, e)
    })?;
    session.scope(args.group, args.conversation_id);
    let store = StoreRef::from_js(store)?;
    let store_timeout_ms = store_timeout_ms(args.store_timeout_ms)?;
    let embedder = args.embedder.map(EmbedderSpec::checked).transpose()?;
    tools().insert(MemoryTools::new(
        session,
        store,
        Remote(Adapter::new(hosts)),
        embedder,
        store_timeout_ms,
    ))
}

/// Run one tool → task of `{ text, wrote }` (JSON). Never fails: every problem is an answer.
/// `args` is the JSON of the model's arguments, or absent when JS could not write them as JSON.
#[wasm_bindgen(js_name = toolsCall)]
pub fn tools_call(tools_id: u32, name: String, args: Option<String>) -> Result<u32> {
    let tools = tools().get(tools_id)?;
    let args: Option<Value> = match args {
        None => None,
        Some(json) => memcore::boundary::json::from_str(&json).ok(),
    };
    spawn(async move { json_out(&tools.call(&name, args.as_ref()).await) })
}

/// Start a new turn: the `maxWritesPerTurn` count starts again from zero.
#[wasm_bindgen(js_name = toolsNewTurn)]
pub fn tools_new_turn(tools_id: u32) -> Result<()> {
    tools().get(tools_id)?.new_turn();
    Ok(())
}

/// Successful writes in this turn.
#[wasm_bindgen(js_name = toolsWritesThisTurn)]
pub fn tools_writes_this_turn(tools_id: u32) -> Result<u32> {
    Ok(tools().get(tools_id)?.writes_this_turn())
}

/// JSON-schema definitions `{ openai, anthropic, mcp }` for this configuration (JSON).
#[wasm_bindgen(js_name = toolsDefinitions)]
pub fn tools_definitions(tools_id: u32) -> Result<String> {
    json_out(&tools().get(tools_id)?.definitions())
}

/// The answer of a tool call whose task failed (a replaced instance): names the tool's action.
#[wasm_bindgen(js_name = toolFailure)]
pub fn tool_failure(name: String, reason: String) -> String {
    memcore::entries::tools::failure_answer(&name, &reason)
}

/// Free the tools' handle.
#[wasm_bindgen(js_name = toolsFree)]
pub fn tools_free(tools_id: u32) {
    tools().remove(tools_id);
}
