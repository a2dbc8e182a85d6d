//! Bindings for the memory operations of the HTTP and MCP surfaces (behaviour §2.8): each decodes
//! its arguments, calls one method of the core's operation (`entries::operations`, where every
//! option is decided) in a task, and encodes the answer.

use super::boundary::{json_out, Call};
use super::entry_store::StoreRef;
use super::host::{Adapter, Js};
use super::task::spawn;
use memcore::boundary::adapter::Remote;
use memcore::entries::memories::MemoryWrites;
use memcore::entries::operations::{
    AuditRequest, FromSnapshot, HistoryRequest, MemoryOperation, MemoryOptions, Operation,
    RestoreRequest,
};
use memcore::entries::InMemoryEntryStore;
use memcore::error::Result;
use serde_json::Value;
use std::rc::Rc;
use wasm_bindgen::prelude::*;

thread_local! {
    /// The writes of one user in this instance run one after the other (the core's rule).
    static WRITES: Rc<MemoryWrites> = Rc::default();
}

/// A read `asOf` a past time runs on the snapshot as a bundled store.
impl FromSnapshot for StoreRef {
    fn from_snapshot(snapshot: InMemoryEntryStore) -> StoreRef {
        StoreRef::Native(Rc::new(snapshot))
    }
}

/// One call's operation, store, hosts and the instance's writes, decoded before its task starts.
struct Bound {
    spec: MemoryOperation,
    store: StoreRef,
    hosts: Js,
    writes: Rc<MemoryWrites>,
}

impl Bound {
    /// The operation `call` with its `options`: checked (`E_CONFIG`, `E_ARGUMENT`) before the
    /// store argument.
    fn new(call: Call, store: JsValue, options: Option<String>, hosts: JsValue) -> Result<Bound> {
        let options: MemoryOptions = call.options("options", options)?;
        Ok(Bound {
            spec: MemoryOperation::new(call.0, options)?,
            store: StoreRef::from_js(store)?,
            hosts: Remote(Adapter::new(hosts)),
            writes: WRITES.with(Rc::clone),
        })
    }

    /// The operation over its store and hosts.
    fn op(&self) -> Operation<'_, StoreRef, Js> {
        self.spec.on(&self.store, &self.hosts, &self.writes)
    }

    /// The same, for an operation on the current state only (`asOf` refused: a write, or the
    /// history, which carries its own times).
    fn present(
        call: Call,
        store: JsValue,
        options: Option<String>,
        hosts: JsValue,
    ) -> Result<Bound> {
        let bound = Bound::new(call, store, options, hosts)?;
        Ok(Bound {
            spec: bound.spec.present_only()?,
            ..bound
        })
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
    let b = Bound::new(Call("listUserMemories"), store, options, hosts)?;
    spawn(async move { json_out(&b.op().list(&user_id).await?) })
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
    let b = Bound::new(call, store, options, hosts)?;
    spawn(async move { json_out(&b.op().visible(&query).await?) })
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
    let b = Bound::new(Call("searchUserMemories"), store, options, hosts)?;
    spawn(async move { json_out(&b.op().search(&user_id, &query).await?) })
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
    let b = Bound::new(Call("getMemoryByKey"), store, options, hosts)?;
    spawn(async move { json_out(&b.op().by_key(&user_id, &key, agent_id.as_deref()).await?) })
}

/// `countUserMemories` → task of the count (all but `_gdpr_` entries).
#[wasm_bindgen(js_name = countUserMemories)]
pub fn count_user_memories(
    store: JsValue,
    user_id: String,
    options: Option<String>,
    hosts: JsValue,
) -> Result<u32> {
    let b = Bound::new(Call("countUserMemories"), store, options, hosts)?;
    spawn(async move { json_out(&b.op().count(&user_id).await?) })
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
    let b = Bound::present(call, store, options, hosts)?;
    spawn(async move { json_out(&b.op().upsert(&request).await?) })
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
    let b = Bound::present(Call("deleteUserMemory"), store, options, hosts)?;
    spawn(async move { json_out(&b.op().delete(&entry_id, owner.as_deref()).await?) })
}

/// `deleteAllUserMemories` → task of how many entries were deleted.
#[wasm_bindgen(js_name = deleteAllUserMemories)]
pub fn delete_all_user_memories(
    store: JsValue,
    user_id: String,
    options: Option<String>,
    hosts: JsValue,
) -> Result<u32> {
    let b = Bound::present(Call("deleteAllUserMemories"), store, options, hosts)?;
    spawn(async move { json_out(&b.op().delete_all(&user_id).await?) })
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
    let b = Bound::present(call, store, options, hosts)?;
    spawn(async move { json_out(&b.op().history(&request).await?) })
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
    let request: AuditRequest = call.json("request", &request)?;
    let b = Bound::present(call, store, options, hosts)?;
    spawn(async move { json_out(&b.op().audit(&request).await?) })
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
    let request: RestoreRequest = call.json("request", &request)?;
    let b = Bound::present(call, store, options, hosts)?;
    spawn(async move { json_out(&b.op().restore(&request).await?) })
}
