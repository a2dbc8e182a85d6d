//! Bindings for the memory operations of the HTTP and MCP surfaces (behaviour §2.8): each a free
//! async function over owned inputs, run as a task.

use super::boundary::{config_arg, json_out, Call};
use super::entry_store::StoreRef;
use super::host::Js;
use super::op::Op;
use super::task::spawn;
use memcore::entries::config::{SearchMode, UserMemoryConfig};
use memcore::entries::embedding::{EmbedderSpec, Embedding};
use memcore::entries::history::{self, Author, Writer};
use memcore::entries::memories::{self, MemoryWrites, VisibleQuery};
use memcore::entries::search::modes::SearchHosts;
use memcore::entries::write_rules::Surface;
use memcore::error::Result;
use memcore::host::Timed;
use serde::Deserialize;
use serde_json::{json, Value};
use std::rc::Rc;
use wasm_bindgen::prelude::*;

thread_local! {
    /// The writes of one user in this instance run one after the other (the core's rule).
    static WRITES: Rc<MemoryWrites> = Rc::default();
}

fn writes() -> Rc<MemoryWrites> {
    WRITES.with(Rc::clone)
}

#[derive(Deserialize, Default)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
struct MemoryOptions {
    #[serde(default)]
    config: Option<Value>,
    #[serde(default)]
    store_timeout_ms: Option<u64>,
    #[serde(default)]
    surface: Option<Surface>,
    #[serde(default)]
    embedder: Option<EmbedderSpec>,
    #[serde(default)]
    mode: Option<SearchMode>,
    #[serde(default)]
    limit: Option<u64>,
    #[serde(default)]
    principal: Option<String>,
    #[serde(default)]
    as_of: Option<String>,
}

/// A memory operation: the context every store-using export has ([`Op`]) and the options only
/// these have.
struct MemoryOp {
    op: Op,
    config: UserMemoryConfig,
    surface: Surface,
    embedder: Option<EmbedderSpec>,
    limit: Option<u64>,
    author: Author,
    as_of: Option<String>,
    call: Call,
}

impl MemoryOp {
    fn new(
        call: Call,
        store: JsValue,
        options: Option<String>,
        hosts: JsValue,
    ) -> Result<MemoryOp> {
        let options: MemoryOptions = call.options("options", options)?;
        let mut config = config_arg(options.config.map(|c| c.to_string()))?;
        if let Some(mode) = options.mode {
            config.search.mode = mode;
        }
        if options.limit.is_some_and(|n| !(1..=1000).contains(&n)) {
            return Err(call.argument_error("options", "limit", "must be between 1 and 1000"));
        }
        Ok(MemoryOp {
            config,
            op: Op::new(options.store_timeout_ms, || StoreRef::from_js(store), hosts)?,
            surface: options.surface.unwrap_or(Surface::Rest),
            embedder: options.embedder.map(EmbedderSpec::checked).transpose()?,
            limit: options.limit,
            author: Author::of_surface(
                options.surface.unwrap_or(Surface::Rest),
                options.principal.as_deref(),
            ),
            as_of: options.as_of,
            call,
        })
    }

    fn store(&self) -> Timed<'_, StoreRef, Js> {
        self.op.store()
    }

    /// With `asOf`: a store holding `user_id`'s entries as they were then, which the read runs on
    /// instead of the store ([`history::snapshot_as_of`]).
    async fn past(&self, user_id: &str) -> Result<Option<StoreRef>> {
        let Some(at) = &self.as_of else {
            return Ok(None);
        };
        let snapshot = history::snapshot_as_of(&self.store(), self.call.0, user_id, at).await?;
        Ok(Some(StoreRef::Native(Rc::new(snapshot))))
    }

    /// `E_ARGUMENT` when a write was given `asOf` (the past is read, never written).
    fn present(self) -> Result<MemoryOp> {
        match self.as_of {
            Some(_) => Err(self.call.argument_error(
                "options",
                "asOf",
                "is for reads: a write always changes the current state",
            )),
            None => Ok(self),
        }
    }

    /// Who makes this operation's changes, and the history they are kept in.
    fn writer(&self) -> Writer<'_, Js> {
        Writer {
            clock: &self.op.hosts,
            history: &self.config.history,
            author: &self.author,
        }
    }

    /// The embedder (when configured) and the log, both the operation's hosts.
    fn search(&self) -> SearchHosts<'_, Js, Js, Js> {
        SearchHosts {
            embedding: self.embedder.as_ref().map(|spec| Embedding {
                host: &self.op.hosts,
                spec,
                timer: &self.op.hosts,
            }),
            log: &self.op.hosts,
        }
    }
}

/// `listUserMemories` → task of the user's entries (JSON array).
#[wasm_bindgen(js_name = listUserMemories)]
pub fn list_user_memories(
    store: JsValue,
    user_id: String,
    options: Option<String>,
    hosts: JsValue,
) -> Result<u32> {
    let op = MemoryOp::new(Call("listUserMemories"), store, options, hosts)?;
    spawn(async move {
        let past = op.past(&user_id).await?;
        let store = past.as_ref().map_or_else(|| op.store(), |p| op.op.timed(p));
        json_out(&memories::list_user_memories(&store, &user_id).await?)
    })
}

/// `getVisibleMemories` → task of `{ entries }` or `{ violations }` (JSON).
#[wasm_bindgen(js_name = getVisibleMemories)]
pub fn get_visible_memories(
    store: JsValue,
    query: String,
    options: Option<String>,
    hosts: JsValue,
) -> Result<u32> {
    let call = Call("getVisibleMemories");
    let query: Value = call.json("query", &query)?;
    let op = MemoryOp::new(call, store, options, hosts)?;
    spawn(async move {
        match VisibleQuery::parse(&query, &op.config) {
            Ok(query) => {
                let past = op.past(&query.user_id).await?;
                let store = past.as_ref().map_or_else(|| op.store(), |p| op.op.timed(p));
                let entries = memories::visible_memories(&store, &query).await?;
                json_out(&json!({ "entries": entries }))
            }
            Err(violations) => json_out(&json!({ "violations": violations })),
        }
    })
}

/// `searchUserMemories` → task of the matching entries (JSON array).
#[wasm_bindgen(js_name = searchUserMemories)]
pub fn search_user_memories(
    store: JsValue,
    user_id: String,
    query: String,
    options: Option<String>,
    hosts: JsValue,
) -> Result<u32> {
    let op = MemoryOp::new(Call("searchUserMemories"), store, options, hosts)?;
    spawn(async move {
        let past = op.past(&user_id).await?;
        let store = past.as_ref().map_or_else(|| op.store(), |p| op.op.timed(p));
        let found = memories::search_user_memories_in(
            &store,
            &op.search(),
            &user_id,
            &query,
            &op.config.search,
            op.limit,
        )
        .await?;
        json_out(&found)
    })
}

/// `getMemoryByKey` → task of the entry or `null` (JSON).
#[wasm_bindgen(js_name = getMemoryByKey)]
pub fn get_memory_by_key(
    store: JsValue,
    user_id: String,
    key: String,
    agent_id: Option<String>,
    options: Option<String>,
    hosts: JsValue,
) -> Result<u32> {
    let op = MemoryOp::new(Call("getMemoryByKey"), store, options, hosts)?;
    spawn(async move {
        let past = op.past(&user_id).await?;
        let store = past.as_ref().map_or_else(|| op.store(), |p| op.op.timed(p));
        let found = memories::memory_by_key(&store, &user_id, &key, agent_id.as_deref()).await?;
        json_out(&found)
    })
}

/// `countUserMemories` → task of the count (all but `_gdpr_` entries).
#[wasm_bindgen(js_name = countUserMemories)]
pub fn count_user_memories(
    store: JsValue,
    user_id: String,
    options: Option<String>,
    hosts: JsValue,
) -> Result<u32> {
    let op = MemoryOp::new(Call("countUserMemories"), store, options, hosts)?;
    spawn(async move {
        let past = op.past(&user_id).await?;
        let store = past.as_ref().map_or_else(|| op.store(), |p| op.op.timed(p));
        json_out(&memories::count_user_memories(&store, &user_id).await?)
    })
}

/// `upsertUserMemory` → task of the outcome (JSON, tagged by `outcome`).
#[wasm_bindgen(js_name = upsertUserMemory)]
pub fn upsert_user_memory(
    store: JsValue,
    request: String,
    options: Option<String>,
    hosts: JsValue,
) -> Result<u32> {
    let call = Call("upsertUserMemory");
    let request: Value = call.json("request", &request)?;
    let op = MemoryOp::new(call, store, options, hosts)?.present()?;
    let writes = writes();
    spawn(async move {
        let outcome = writes
            .upsert(
                &op.store(),
                op.writer(),
                &op.op.hosts,
                &op.config,
                &request,
                op.surface,
            )
            .await?;
        memories::embed_written(&op.store(), &op.search(), &outcome).await;
        json_out(&outcome)
    })
}

/// `deleteUserMemory` → task of the outcome (JSON, tagged by `outcome`).
#[wasm_bindgen(js_name = deleteUserMemory)]
pub fn delete_user_memory(
    store: JsValue,
    entry_id: String,
    owner: Option<String>,
    options: Option<String>,
    hosts: JsValue,
) -> Result<u32> {
    let op = MemoryOp::new(Call("deleteUserMemory"), store, options, hosts)?.present()?;
    spawn(async move {
        let outcome =
            memories::delete_user_memory(&op.store(), op.writer(), &entry_id, owner.as_deref())
                .await?;
        json_out(&outcome)
    })
}

/// `deleteAllUserMemories` → task of how many entries were deleted.
#[wasm_bindgen(js_name = deleteAllUserMemories)]
pub fn delete_all_user_memories(
    store: JsValue,
    user_id: String,
    options: Option<String>,
    hosts: JsValue,
) -> Result<u32> {
    let op = MemoryOp::new(Call("deleteAllUserMemories"), store, options, hosts)?.present()?;
    let writes = writes();
    spawn(async move {
        json_out(
            &writes
                .delete_all(&op.store(), op.writer(), &user_id)
                .await?,
        )
    })
}

/// `entryHistory` request: the user and one of an entry id or a key.
#[derive(Deserialize)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
struct HistoryRequest {
    user_id: String,
    #[serde(default)]
    entry_id: Option<String>,
    #[serde(default)]
    key: Option<String>,
}

/// `entryHistory` → task of `{ current, versions }` (JSON).
#[wasm_bindgen(js_name = entryHistory)]
pub fn entry_history(
    store: JsValue,
    request: String,
    options: Option<String>,
    hosts: JsValue,
) -> Result<u32> {
    let call = Call("entryHistory");
    let request: HistoryRequest = call.json("request", &request)?;
    let op = MemoryOp::new(call, store, options, hosts)?.present()?;
    spawn(async move {
        let (entry, key) = (request.entry_id.as_deref(), request.key.as_deref());
        let found = history::read_history(&op.store(), &request.user_id, entry, key).await?;
        json_out(&found)
    })
}

/// `auditLog` request: whose records, from when, after which `seq`, how many.
#[derive(Deserialize)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
struct AuditRequest {
    #[serde(default)]
    user_id: Option<String>,
    #[serde(default)]
    since: Option<String>,
    #[serde(default)]
    after_seq: Option<u64>,
    #[serde(default)]
    limit: Option<u64>,
}

/// `auditLog` → task of the records (JSON array, `seq` order).
#[wasm_bindgen(js_name = auditLog)]
pub fn audit_log(
    store: JsValue,
    request: String,
    options: Option<String>,
    hosts: JsValue,
) -> Result<u32> {
    let call = Call("auditLog");
    let r: AuditRequest = call.json("request", &request)?;
    let op = MemoryOp::new(call, store, options, hosts)?.present()?;
    spawn(async move {
        let (user, since) = (r.user_id.as_deref(), r.since.as_deref());
        let found = history::read_audit(&op.store(), user, since, r.after_seq, r.limit).await?;
        json_out(&found)
    })
}

/// `restoreVersion` request: the user and the version to restore.
#[derive(Deserialize)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
struct RestoreRequest {
    user_id: String,
    version_id: String,
}

/// `restoreVersion` → task of the outcome (JSON, tagged by `outcome`).
#[wasm_bindgen(js_name = restoreVersion)]
pub fn restore_version(
    store: JsValue,
    request: String,
    options: Option<String>,
    hosts: JsValue,
) -> Result<u32> {
    let call = Call("restoreVersion");
    let r: RestoreRequest = call.json("request", &request)?;
    let op = MemoryOp::new(call, store, options, hosts)?.present()?;
    let writes = writes();
    spawn(async move {
        let (user, version) = (r.user_id.as_str(), r.version_id.as_str());
        let outcome = writes
            .restore(&op.store(), op.writer(), &op.config, user, version)
            .await?;
        json_out(&outcome)
    })
}
