//! Bindings for the four LLM tools (SPEC §2.5): a `MemoryTools` object per agent turn.

use super::args;
use super::entry_store::{EntryStoreRef, StoreRef};
use super::errors::{to_js, JsResult};
use super::host::{JsClock, JsIds};
use crate::entries::config::parse_user_memory_config;
use crate::entries::tools::{
    call_tool, tool_definitions_for, unknown_tool_answer, ToolAnswer, ToolSession,
};
use crate::entries::UserMemoryConfig;
use crate::error::{Error, Result};
use serde_json::Value;
use std::cell::Cell;
use std::rc::Rc;
use wasm_bindgen::prelude::*;
use wasm_bindgen::JsCast;

struct ToolsState {
    store: StoreRef,
    session: ToolSession,
    writes: Cell<u32>,
    clock: JsClock,
    ids: JsIds,
}

/// The four memory tools bound to one user, one agent and one turn.
#[wasm_bindgen]
pub struct MemoryTools {
    state: Rc<ToolsState>,
}

/// A user memory config from JS: `undefined` → defaults; otherwise validated (`E_CONFIG`).
pub(crate) fn config_arg(value: &JsValue) -> Result<UserMemoryConfig> {
    if value.is_undefined() || value.is_null() {
        return Ok(UserMemoryConfig::default());
    }
    let json: Value = serde_wasm_bindgen::from_value(value.clone())
        .map_err(|e| Error::config("", format!("the config is not JSON data ({e})")))?;
    parse_user_memory_config(&json)
}

/// An optional callback option.
pub(crate) fn callback(
    function: &str,
    options: &JsValue,
    name: &str,
) -> Result<Option<js_sys::Function>> {
    let value = args::field(options, name);
    if value.is_undefined() || value.is_null() {
        return Ok(None);
    }
    value
        .dyn_into::<js_sys::Function>()
        .map(Some)
        .map_err(|_| Error::argument(function, &format!("options.{name}"), "a function"))
}

fn build(function: &str, store: StoreRef, options: &JsValue) -> Result<MemoryTools> {
    args::options_object(function, "options", options)?;
    let config = config_arg(&args::field(options, "config"))?;
    let user_id = args::string(function, "options.userId", &args::field(options, "userId"))?;
    let agent_id = args::string(
        function,
        "options.agentId",
        &args::field(options, "agentId"),
    )?;
    if user_id.trim().is_empty() || agent_id.trim().is_empty() {
        return Err(Error::argument(
            function,
            "options.userId/agentId",
            "non-empty strings",
        ));
    }
    let mut session = ToolSession::new(config, &user_id, &agent_id);
    session.group =
        args::optional_string(function, "options.group", &args::field(options, "group"))?
            .filter(|g| !g.is_empty());
    session.conversation_id = args::optional_string(
        function,
        "options.conversationId",
        &args::field(options, "conversationId"),
    )?;
    Ok(MemoryTools {
        state: Rc::new(ToolsState {
            store,
            session,
            writes: Cell::new(0),
            clock: JsClock(callback(function, options, "now")?),
            ids: JsIds(callback(function, options, "newId")?),
        }),
    })
}

/// The four tools for one user, agent and turn (`createMemoryTools` in JS).
#[wasm_bindgen(js_name = createMemoryTools)]
pub fn create_memory_tools(store: EntryStoreRef, options: JsValue) -> JsResult<MemoryTools> {
    build("createMemoryTools", store.inner, &options).map_err(to_js)
}

/// Tool arguments as JSON: an object, a JSON string, or nothing. Values JSON cannot hold
/// (functions, symbols, BigInt) make the arguments unusable: the tool answers so.
fn tool_args(value: &JsValue) -> Value {
    if value.is_undefined() || value.is_null() {
        return Value::Null;
    }
    if let Some(text) = value.as_string() {
        return Value::String(text);
    }
    serde_wasm_bindgen::from_value(value.clone()).unwrap_or(Value::Array(Vec::new()))
}

#[wasm_bindgen]
impl MemoryTools {
    /// Run one tool; resolves to `{ text, wrote }`. Never rejects: every problem is an answer.
    pub fn call(&self, name: JsValue, args: JsValue) -> js_sys::Promise {
        let state = self.state.clone();
        let args = tool_args(&args);
        wasm_bindgen_futures::future_to_promise(async move {
            let Some(name) = name.as_string() else {
                let shown = if name.is_undefined() {
                    "undefined".to_string()
                } else {
                    format!("{name:?}")
                };
                let answer = ToolAnswer {
                    text: unknown_tool_answer(&shown),
                    wrote: false,
                };
                return args::to_js(&answer).map_err(to_js);
            };
            // Each call works on a copy of the session (no borrow lives across an await); the
            // JS wrapper runs one call at a time, so the write count stays exact.
            let mut session = state.session.clone();
            session.writes_this_turn = state.writes.get();
            let answer = call_tool(
                &mut session,
                &state.store,
                &state.clock,
                &state.ids,
                &name,
                &args,
            )
            .await;
            state.writes.set(session.writes_this_turn);
            args::to_js(&answer).map_err(to_js)
        })
    }

    /// Start a new turn: the `maxWritesPerTurn` count starts again from zero.
    #[wasm_bindgen(js_name = newTurn)]
    pub fn new_turn(&self) {
        self.state.writes.set(0);
    }

    /// Successful writes in this turn.
    #[wasm_bindgen(getter, js_name = writesThisTurn)]
    pub fn writes_this_turn(&self) -> u32 {
        self.state.writes.get()
    }

    /// JSON-schema definitions `{ openai, anthropic, mcp }` for this configuration.
    #[wasm_bindgen(getter)]
    pub fn definitions(&self) -> JsResult<JsValue> {
        args::to_js(&tool_definitions_for(&self.state.session.config)).map_err(to_js)
    }
}
