//! Bindings for embeddings and relevance (behaviour §8.2): `reindexEmbeddings` and
//! `relevantMemories`.

use super::boundary::{config_arg, json_out, Call};
use super::entry_store::StoreRef;
use super::op::Op;
use super::task::spawn;
use super::tokens::counter;
use memcore::entries::config::SearchMode;
use memcore::entries::embedding::{reindex, EmbedderSpec, Embedding};
use memcore::entries::limit::Limit;
use memcore::entries::relevant::{relevant_memories, RelevantRequest};
use memcore::error::Result;
use serde::Deserialize;
use serde_json::Value;
use wasm_bindgen::prelude::*;

#[derive(Deserialize)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
struct ReindexOptions {
    embedder: EmbedderSpec,
    #[serde(default)]
    user_id: Option<String>,
    #[serde(default)]
    store_timeout_ms: Option<u64>,
}

/// `reindexEmbeddings(store, embedder, { userId?, storeTimeoutMs? })` → task of
/// `{ embedded, missing, error? }` (JSON). `hosts` carries the embedder's `embed` and `log`.
#[wasm_bindgen(js_name = reindexEmbeddings)]
pub fn reindex_embeddings(store: JsValue, options: String, hosts: JsValue) -> Result<u32> {
    let call = Call("reindexEmbeddings");
    let options: ReindexOptions = call.json("options", &options)?;
    let spec = options.embedder.checked()?;
    let op = Op::new(options.store_timeout_ms, || StoreRef::from_js(store), hosts)?;
    let user_id = options.user_id.filter(|u| !u.trim().is_empty());
    spawn(async move {
        let embedding = Embedding {
            host: &op.hosts,
            spec: &spec,
            timer: &op.hosts,
        };
        let done = reindex(&op.store(), &embedding, &op.hosts, user_id.as_deref()).await?;
        json_out(&done)
    })
}

#[derive(Deserialize)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
struct RelevantOptions {
    user_id: String,
    agent_id: String,
    #[serde(default)]
    group: Option<String>,
    query: String,
    max_tokens: u64,
    #[serde(default)]
    limit: Option<Limit>,
    #[serde(default)]
    mode: Option<SearchMode>,
    #[serde(default)]
    config: Option<Value>,
    #[serde(default)]
    embedder: Option<EmbedderSpec>,
    #[serde(default)]
    encoding: Option<String>,
    #[serde(default)]
    store_timeout_ms: Option<u64>,
    #[serde(default)]
    episodes: bool,
}

/// `relevantMemories({ store, userId, agentId, group?, query, maxTokens, limit?, mode?, config?,
/// embedder?, encoding?, countTokens? })` → task of `{ section, tokens, entries }` (JSON).
#[wasm_bindgen(js_name = relevantMemories)]
pub fn relevant(
    store: JsValue,
    options: String,
    hosts: JsValue,
    host_counter: Option<JsValue>,
) -> Result<u32> {
    let call = Call("relevantMemories");
    let o: RelevantOptions = call.json("options", &options)?;
    let config = config_arg(o.config.map(|c| c.to_string()))?;
    let spec = o.embedder.map(EmbedderSpec::checked).transpose()?;
    let counter = counter(&call, o.encoding.as_deref(), host_counter)?;
    let op = Op::new(o.store_timeout_ms, || StoreRef::from_js(store), hosts)?;
    spawn(async move {
        let hosts = op.hosts(&op.store, spec.as_ref()).search();
        let request = RelevantRequest {
            query: o.query,
            max_tokens: o.max_tokens,
            agent_id: o.agent_id,
            group: o.group,
            limit: o.limit,
            mode: o.mode,
            episodes: o.episodes,
        };
        let query = request.query(&o.user_id, config.search);
        let found = relevant_memories(&op.store(), &hosts, &counter, &query).await?;
        json_out(&found)
    })
}
