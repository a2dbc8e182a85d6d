//! Binding for `ContextMemory` (SPEC §1.7, §1.9, §1.10): a handle over the core pipeline with the
//! host callbacks behind one JS adapter. Each method returns a task that owns an `Rc` of the
//! pipeline, so no borrow lives across an await.

use super::boundary::{json_out, Call};
use super::host::{Adapter, Js};
use super::task::spawn;
use super::tokens::{counter, Counter};
use crate::error::Result;
use crate::handles::{Handles, Table};
use crate::host::{Remote, Transport};
use crate::turn::{ContextMemory, ContextMemoryConfig, TurnHosts, TurnInput};
use serde::Deserialize;
use std::cell::RefCell;
use wasm_bindgen::prelude::*;

type JsPipeline = ContextMemory<Js, Js, Counter, Js, Js, Js, Js>;

thread_local! {
    static PIPELINES: RefCell<Handles<JsPipeline>> = RefCell::default();
}

fn pipelines() -> Table<JsPipeline> {
    Table {
        kind: "ContextMemory",
        cell: &PIPELINES,
    }
}

/// `new ContextMemory(hosts, config?)` → its handle. `hosts` is the JS adapter over the user's
/// storage, model (optional), countTokens (optional), clock, notices, log and the timer.
#[wasm_bindgen(js_name = contextMemoryNew)]
pub fn context_memory_new(hosts: JsValue, config: Option<String>) -> Result<u32> {
    let call = Call("ContextMemory");
    let config: ContextMemoryConfig = call.config(config)?;
    config.validate()?;
    let adapter = Adapter::new(hosts);
    let counter = if adapter.has("countTokens") {
        counter(&call, None, Some(adapter_value(&adapter)))?
    } else {
        counter(&call, Some(&config.encoding), None)?
    };
    let hosts = TurnHosts {
        store: Remote(adapter.clone()),
        model: adapter.has("complete").then(|| Remote(adapter.clone())),
        counter,
        clock: Remote(adapter.clone()),
        notifier: Remote(adapter.clone()),
        logger: Remote(adapter.clone()),
        timer: Remote(adapter),
    };
    pipelines().insert(ContextMemory::new(config, hosts)?)
}

fn adapter_value(adapter: &Adapter) -> JsValue {
    adapter.value()
}

/// Free the handle (running tasks keep their pipeline until they end).
#[wasm_bindgen(js_name = contextMemoryFree)]
pub fn context_memory_free(memory: u32) {
    pipelines().remove(memory);
}

#[derive(Deserialize)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
struct LoadArgs {
    user_id: String,
    /// Absent means disabled (SPEC §1.8: a payload without the flag is off).
    #[serde(default)]
    enabled: Option<bool>,
}

/// `load({ userId, enabled })` → task of the fitted profile and its section (JSON).
#[wasm_bindgen(js_name = contextMemoryLoad)]
pub fn context_memory_load(memory: u32, input: String) -> Result<u32> {
    let args: LoadArgs = Call("ContextMemory.load").json("input", &input)?;
    let pipeline = pipelines().get(memory)?;
    spawn(async move {
        json_out(
            &pipeline
                .load(&args.user_id, args.enabled.unwrap_or(false))
                .await,
        )
    })
}

#[derive(Deserialize)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
struct TurnArgs {
    user_id: String,
    #[serde(default)]
    enabled: Option<bool>,
    #[serde(default)]
    user_message: Option<String>,
    #[serde(default)]
    assistant_message: Option<String>,
}

/// `afterTurn({ userId, enabled, userMessage, assistantMessage })` → task of the turn report.
#[wasm_bindgen(js_name = contextMemoryAfterTurn)]
pub fn context_memory_after_turn(memory: u32, input: String) -> Result<u32> {
    let args: TurnArgs = Call("ContextMemory.afterTurn").json("input", &input)?;
    let pipeline = pipelines().get(memory)?;
    let turn = TurnInput {
        user_id: args.user_id,
        enabled: args.enabled.unwrap_or(false),
        user_message: args.user_message.unwrap_or_default(),
        assistant_message: args.assistant_message.unwrap_or_default(),
    };
    spawn(async move { json_out(&pipeline.after_turn(&turn).await?) })
}

/// `getMyContextMemory(userId)` → task of `{ exists, body, lastUpdated, turnCount }`.
#[wasm_bindgen(js_name = contextMemoryGet)]
pub fn context_memory_get(memory: u32, user_id: String) -> Result<u32> {
    let pipeline = pipelines().get(memory)?;
    spawn(async move { json_out(&pipeline.get_my_context_memory(&user_id).await?) })
}

/// `updateMyContextMemory(userId, body)` → task of `{ text, diagnostics }`.
#[wasm_bindgen(js_name = contextMemoryUpdate)]
pub fn context_memory_update(memory: u32, user_id: String, body: String) -> Result<u32> {
    let pipeline = pipelines().get(memory)?;
    spawn(async move { json_out(&pipeline.update_my_context_memory(&user_id, &body).await?) })
}

/// `deleteContextMemory(userId)` → task of whether a profile existed.
#[wasm_bindgen(js_name = contextMemoryDelete)]
pub fn context_memory_delete(memory: u32, user_id: String) -> Result<u32> {
    let pipeline = pipelines().get(memory)?;
    spawn(async move { json_out(&pipeline.delete_context_memory(&user_id).await?) })
}
