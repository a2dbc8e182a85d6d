//! Binding for `ContextMemory` (behaviour §1.7, §1.9, §1.10): a handle over the core pipeline with
//! the host callbacks behind one JS adapter. Each method returns a task that owns an `Rc` of the
//! pipeline, so no borrow lives across an await.

use super::boundary::{json_out, Call};
use super::entry_store::StoreRef;
use super::host::{Adapter, Js};
use super::task::spawn;
use super::tokens::{counter, Counter};
use memcore::boundary::adapter::{Remote, Transport};
use memcore::boundary::handles::{Handles, Table};
use memcore::boundary::utf16::utf16_len;
use memcore::entries::embedding::EmbedderSpec;
use memcore::entries::relevant::Relevant;
use memcore::error::Result;
use memcore::profile::fit::FitReport;
use memcore::turn::{
    ContextMemory, ContextMemoryConfig, LoadInput, LoadOutcome, LoadResult, TurnHost, TurnInput,
};
use std::cell::RefCell;
use wasm_bindgen::prelude::*;

pub(crate) type JsPipeline = ContextMemory<JsTurnHost>;

/// The hosts of a JS `ContextMemory`: one adapter is the storage, the model (when it has
/// `complete`), the clock, the notice sink, the log and the timer; the counter and the entry
/// store are their own objects.
pub(crate) struct JsTurnHost {
    adapter: Js,
    has_model: bool,
    counter: Counter,
    entries: Option<StoreRef>,
    embedder: Option<EmbedderSpec>,
}

impl TurnHost for JsTurnHost {
    type Store = Js;
    type Model = Js;
    type Counter = Counter;
    type Notifier = Js;
    type Entries = StoreRef;
    type Host = Js;

    fn store(&self) -> &Js {
        &self.adapter
    }
    fn entries(&self) -> Option<&StoreRef> {
        self.entries.as_ref()
    }
    fn embedder(&self) -> Option<&EmbedderSpec> {
        self.embedder.as_ref()
    }
    fn model(&self) -> Option<&Js> {
        self.has_model.then_some(&self.adapter)
    }
    fn counter(&self) -> &Counter {
        &self.counter
    }
    fn notifier(&self) -> &Js {
        &self.adapter
    }
    fn host(&self) -> &Js {
        &self.adapter
    }
}

thread_local! {
    static PIPELINES: RefCell<Handles<JsPipeline>> = RefCell::default();
}

pub(crate) fn pipelines() -> Table<JsPipeline> {
    Table {
        kind: "ContextMemory",
        cell: &PIPELINES,
    }
}

/// `new ContextMemory(hosts, config?)` → its handle. `hosts` is the JS adapter over the user's
/// storage, model (optional), countTokens (optional), clock, notices, log and the timer;
/// `entries` the entry store (a store handle or adapter; `undefined` without one);
/// `jitterSeed` a random number from the host (`Math.random() * 2 ** 53`) for the conflict
/// backoff.
#[wasm_bindgen(js_name = contextMemoryNew)]
pub fn context_memory_new(
    hosts: JsValue,
    entries: JsValue,
    config: Option<String>,
    jitter_seed: f64,
    embedder: Option<String>,
) -> Result<u32> {
    let call = Call("ContextMemory");
    let config: ContextMemoryConfig = call.config(config)?;
    config.validate()?;
    let adapter = Adapter::new(hosts);
    let counter = if adapter.has("countTokens") {
        counter(&call, None, Some(adapter_value(&adapter)))?
    } else {
        counter(&call, Some(&config.encoding), None)?
    };
    let entries = if entries.is_undefined() {
        None
    } else {
        Some(StoreRef::from_js(entries)?)
    };
    let embedder = match embedder {
        Some(json) => Some(
            call.json::<EmbedderSpec>("hosts.embedder", &json)?
                .checked()?,
        ),
        None => None,
    };
    let hosts = JsTurnHost {
        has_model: adapter.has("complete"),
        adapter: Remote(adapter),
        counter,
        entries,
        embedder,
    };
    // A host random value (2^53 at most) spread over 64 bits; 0 keeps the core's default.
    let seed = (jitter_seed.abs() as u64).wrapping_mul(0x9E37_79B9_7F4A_7C15);
    pipelines().insert(ContextMemory::new(config, hosts)?.with_jitter_seed(seed))
}

fn adapter_value(adapter: &Adapter) -> JsValue {
    adapter.value()
}

/// Free the handle (running tasks keep their pipeline until they end).
#[wasm_bindgen(js_name = contextMemoryFree)]
pub fn context_memory_free(memory: u32) {
    pipelines().remove(memory);
}

/// `load({ userId, enabled })` → task of the fitted profile and its section (JSON).
#[wasm_bindgen(js_name = contextMemoryLoad)]
pub fn context_memory_load(memory: u32, input: String) -> Result<u32> {
    let input: LoadInput = Call("ContextMemory.load").json("input", &input)?;
    let pipeline = pipelines().get(memory)?;
    spawn(async move { load_json(pipeline.load_input(&input).await) })
}

/// The load result on the wire, a frame: `\u{1}` + the other fields as JSON + `\u{1}` + the
/// profile and the system-prompt section as they are, one after the other (`profileLength`, in
/// UTF-16 units, says where the profile ends; `null` without a profile). Escaping the two texts
/// into JSON was the dearest part of the result, and half of what a turn lost with the core
/// built for size (docs/internals/measurements.md). `fit.text` is the fitted profile, which is
/// `profile` itself: it is left out and `fitTextIsProfile` set. js/api/context-memory.js
/// (`loadResult`) builds the result object again.
fn load_json(mut result: LoadResult) -> Result<String> {
    #[derive(serde::Serialize)]
    #[serde(rename_all = "camelCase")]
    struct Fields<'a> {
        profile_length: Option<usize>,
        fit: Option<&'a FitReport>,
        version: Option<&'a str>,
        outcome: &'a LoadOutcome,
        reason: Option<&'a str>,
        #[serde(skip_serializing_if = "Option::is_none")]
        relevant: Option<&'a Relevant>,
        #[serde(skip_serializing_if = "std::ops::Not::not")]
        fit_text_is_profile: bool,
    }
    let same = matches!((&result.profile, &result.fit), (Some(profile), Some(fit)) if fit.text == *profile);
    if same {
        if let Some(fit) = result.fit.as_mut() {
            fit.text = String::new();
        }
    }
    let fields = json_out(&Fields {
        profile_length: result.profile.as_deref().map(utf16_len),
        fit: result.fit.as_ref(),
        version: result.version.as_deref(),
        outcome: &result.outcome,
        reason: result.reason.as_deref(),
        relevant: result.relevant.as_ref(),
        fit_text_is_profile: same,
    })?;
    let profile = result.profile.as_deref().unwrap_or_default();
    let section = &result.system_prompt_section;
    let mut out = String::with_capacity(fields.len() + profile.len() + section.len() + 2);
    for part in ["\u{1}", &fields, "\u{1}", profile, section] {
        out.push_str(part);
    }
    Ok(out)
}

/// `afterTurn({ userId, enabled, userMessage, assistantMessage })` → task of the turn report.
#[wasm_bindgen(js_name = contextMemoryAfterTurn)]
pub fn context_memory_after_turn(memory: u32, input: String) -> Result<u32> {
    let turn: TurnInput = Call("ContextMemory.afterTurn").json("input", &input)?;
    let pipeline = pipelines().get(memory)?;
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
