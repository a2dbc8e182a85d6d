//! Binding for `learnFromTurn` (behaviour §8.6): one learning as a task.

use super::boundary::{config_arg, json_out, Call};
use super::entry_store::StoreRef;
use super::op::Op;
use super::task::spawn;
use memcore::entries::embedding::EmbedderSpec;
use memcore::error::{Error, Result};
use memcore::host::Timed;
use memcore::learn::{learn_from_turn, InputMessage, LearnInput};
use memcore::turn::config::MAX_TIMEOUT_MS;
use serde::Deserialize;
use serde_json::Value;
use wasm_bindgen::prelude::*;

/// The default deadline of the extraction call.
const DEFAULT_MODEL_TIMEOUT_MS: u64 = memcore::dream::input::DEFAULT_MODEL_TIMEOUT_MS;

#[derive(Deserialize)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
struct LearnOptions {
    user_id: String,
    agent_id: String,
    #[serde(default)]
    group_id: Option<String>,
    conversation_id: String,
    messages: Vec<InputMessage>,
    #[serde(default)]
    at: Option<String>,
    #[serde(default)]
    config: Option<Value>,
    #[serde(default)]
    embedder: Option<EmbedderSpec>,
    #[serde(default)]
    store_timeout_ms: Option<u64>,
    #[serde(default)]
    model_timeout_ms: Option<u64>,
}

/// `learnFromTurn(options)` → task of the report (JSON). `store` is a store handle or an
/// adapter; `hosts` the adapter for `complete`, `embed`, `now`, `newId`, `log` and the timer.
#[wasm_bindgen(js_name = learnFromTurn)]
pub fn learn(store: JsValue, options: String, hosts: JsValue) -> Result<u32> {
    let call = Call("learnFromTurn");
    let o: LearnOptions = call.json("options", &options)?;
    let config = config_arg(o.config.map(|c| c.to_string()))?;
    let spec = o.embedder.map(EmbedderSpec::checked).transpose()?;
    let model_ms = o.model_timeout_ms.unwrap_or(DEFAULT_MODEL_TIMEOUT_MS);
    if !(1..=MAX_TIMEOUT_MS).contains(&model_ms) {
        return Err(Error::config(
            "modelTimeoutMs",
            format!("must be between 1 and {MAX_TIMEOUT_MS} milliseconds; got {model_ms}"),
        ));
    }
    let input = LearnInput {
        user_id: o.user_id,
        agent_id: o.agent_id,
        group_id: o.group_id,
        conversation_id: o.conversation_id,
        messages: o.messages,
        at: o.at,
    };
    let op = Op::new(o.store_timeout_ms, || StoreRef::from_js(store), hosts)?;
    spawn(async move {
        let store = op.store();
        let model = Timed {
            host: &op.hosts,
            timer: &op.hosts,
            ms: model_ms,
        };
        let hosts = op.hosts(&store, spec.as_ref()).with_model(Some(&model));
        json_out(&learn_from_turn(&hosts, &config, &input).await?)
    })
}

#[derive(Deserialize, Default)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
struct EpisodeSearchOptions {
    #[serde(default)]
    mode: Option<memcore::entries::config::SearchMode>,
    #[serde(default)]
    limit: Option<memcore::entries::limit::Limit>,
    #[serde(default)]
    conversation_id: Option<String>,
    #[serde(default)]
    as_of: Option<String>,
    #[serde(default)]
    config: Option<Value>,
    #[serde(default)]
    embedder: Option<EmbedderSpec>,
    #[serde(default)]
    store_timeout_ms: Option<u64>,
}

/// `searchEpisodes(store, userId, query, options?)` → task of `[{ id, conversationId, role, text,
/// at, score }]` (JSON). `mode` defaults to the config's (`auto`); `limit` 1–1000 (default the
/// config's `search.limit`).
#[wasm_bindgen(js_name = searchEpisodes)]
pub fn search_episodes(
    store: JsValue,
    user_id: String,
    query: String,
    options: Option<String>,
    hosts: JsValue,
) -> Result<u32> {
    let call = Call("searchEpisodes");
    let o: EpisodeSearchOptions = call.options("options", options)?;
    let config = config_arg(o.config.map(|c| c.to_string()))?;
    let limit = o.limit.map_or(
        usize::try_from(config.search.limit).unwrap_or(usize::MAX),
        memcore::entries::limit::Limit::get,
    );
    if let Some(at) = &o.as_of {
        memcore::entries::history::check_as_of("searchEpisodes", "options.asOf", at)?;
    }
    let spec = o.embedder.map(EmbedderSpec::checked).transpose()?;
    let op = Op::new(o.store_timeout_ms, || StoreRef::from_js(store), hosts)?;
    let mode = o.mode.unwrap_or(config.search.mode);
    spawn(async move {
        let search = op.hosts(&op.store, spec.as_ref()).search();
        let options = memcore::entries::episode::EpisodeSearch {
            mode,
            limit,
            conversation_id: o.conversation_id.as_deref(),
            as_of: o.as_of.as_deref(),
            language: config.search.language,
        };
        let found = memcore::entries::episode::search_episodes(
            &op.store(),
            &search,
            &user_id,
            &query,
            &options,
        )
        .await?;
        json_out(&found)
    })
}
