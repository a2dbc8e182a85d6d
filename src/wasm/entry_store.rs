//! The bundled in-memory entry store as a handle (its entries live in the wasm instance, so recall
//! and search over thousands of entries never cross the boundary), and the store argument of
//! the entry functions: that handle, or a JS adapter over the host's own store.

use super::boundary::{json_out, Call};
use super::host::{Adapter, Js};
use memcore::boundary::adapter::Remote;
use memcore::boundary::handles::{Handles, Table};
use memcore::entries::search::vectors::from_base64;
use memcore::entries::store::InProcess;
use memcore::entries::store::StoredVector;
use memcore::entries::{Entry, EntrySet, InMemoryEntryStore};
use memcore::error::{Error, Result};
use std::cell::RefCell;
use std::rc::Rc;
use wasm_bindgen::prelude::*;

thread_local! {
    static STORES: RefCell<Handles<InMemoryEntryStore>> = RefCell::default();
}

fn stores() -> Table<InMemoryEntryStore> {
    Table {
        kind: "InMemoryEntryStore",
        cell: &STORES,
    }
}

/// `new InMemoryEntryStore()` → its handle.
#[wasm_bindgen(js_name = entryStoreNew)]
pub fn entry_store_new() -> Result<u32> {
    stores().insert(InMemoryEntryStore::new())
}

/// Free a store handle.
#[wasm_bindgen(js_name = entryStoreFree)]
pub fn entry_store_free(store: u32) {
    stores().remove(store);
}

/// Every entry of a user (JSON array).
#[wasm_bindgen(js_name = entryStoreList)]
pub fn entry_store_list(store: u32, user_id: String) -> Result<String> {
    json_out(&stores().get(store)?.list_now(&user_id)?)
}

/// One entry by id (JSON), or `null`.
#[wasm_bindgen(js_name = entryStoreGet)]
pub fn entry_store_get(store: u32, id: String) -> Result<String> {
    json_out(&stores().get(store)?.get_now(&id)?)
}

/// Insert or replace an entry (by id).
#[wasm_bindgen(js_name = entryStoreUpsert)]
pub fn entry_store_upsert(store: u32, entry: String) -> Result<()> {
    let entry: Entry = Call("InMemoryEntryStore.upsert").json("entry", &entry)?;
    stores().get(store)?.upsert_now(&entry)
}

/// Delete by id; `true` when something was deleted.
#[wasm_bindgen(js_name = entryStoreDelete)]
pub fn entry_store_delete(store: u32, id: String) -> Result<bool> {
    stores().get(store)?.delete_now(&id)
}

/// Add one to the access count of each id.
#[wasm_bindgen(js_name = entryStoreIncrementAccess)]
pub fn entry_store_increment_access(store: u32, ids: String) -> Result<()> {
    let ids: Vec<String> = Call("InMemoryEntryStore.incrementAccess").json("ids", &ids)?;
    stores().get(store)?.increment_access_now(&ids)
}

/// The entries of a user that count toward `maxEntriesPerUser` (`_gdpr_` keys excluded).
#[wasm_bindgen(js_name = entryStoreCountUser)]
pub fn entry_store_count_user(store: u32, user_id: String) -> Result<u32> {
    let count = stores().get(store)?.count_user_now(&user_id)?;
    Ok(u32::try_from(count).unwrap_or(u32::MAX))
}

/// Insert or replace many entries (JSON array), then store vectors of `model` given as JSON
/// `[id, base64, id, base64, …]` on those entries; the number of vectors stored.
#[wasm_bindgen(js_name = entryStoreLoad)]
pub fn entry_store_load(
    store: u32,
    entries: String,
    model: String,
    vectors: String,
) -> Result<u32> {
    let call = Call("InMemoryEntryStore.load");
    let entries: Vec<Entry> = call.json("entries", &entries)?;
    // `[id, base64, id, base64, …]`: a flat list of strings (no deserializer of its own).
    let flat: Vec<String> = call.json("vectors", &vectors)?;
    let mut decoded = Vec::with_capacity(flat.len() / 2);
    for (i, pair) in flat.chunks(2).enumerate() {
        let vector = match pair {
            [_, base64] => from_base64(base64),
            _ => None,
        }
        .ok_or_else(|| {
            Error::argument(
                "InMemoryEntryStore.load",
                &format!("vectors.rows[{i}].vector"),
                "the bytes of a vector",
            )
        })?;
        let id = pair.first().cloned().unwrap_or_default();
        decoded.push(StoredVector { id, vector });
    }
    let written = stores().get(store)?.load_now(entries, &model, &decoded)?;
    Ok(u32::try_from(written).unwrap_or(u32::MAX))
}

/// Number of entries of all users.
#[wasm_bindgen(js_name = entryStoreSize)]
pub fn entry_store_size(store: u32) -> Result<u32> {
    Ok(u32::try_from(stores().get(store)?.len()).unwrap_or(u32::MAX))
}

/// Either store, as the core sees it.
pub(crate) enum StoreRef {
    /// The wasm-resident in-memory store.
    Native(Rc<InMemoryEntryStore>),
    /// The host's store through a JS adapter.
    Host(Js),
}

impl StoreRef {
    /// The store argument as JS sends it: a store handle (number) or an adapter object.
    pub(crate) fn from_js(store: JsValue) -> Result<StoreRef> {
        match store.as_f64() {
            Some(id) if id >= 0.0 && id <= f64::from(u32::MAX) => {
                Ok(StoreRef::Native(stores().get(id as u32)?))
            }
            Some(_) => Err(Error::internal("an entry-store handle out of range")),
            None => Ok(StoreRef::Host(Remote(Adapter::new(store)))),
        }
    }
}

memcore::forward_store!(variants [] StoreRef, [StoreRef::Native, StoreRef::Host]:
    EntryStore, PushDown, AtomicWrites, VectorStore, HistoryStore, EpisodeStore);

/// The bundled store lends its entries in place; the host's store lends the mirror its
/// `searchIndex` names (an in-memory store handle).
impl InProcess for StoreRef {
    fn with_entries<R>(&self, user_id: &str, f: impl FnOnce(&EntrySet) -> R) -> Option<R> {
        match self {
            StoreRef::Native(s) => s.with_entries(user_id, f),
            StoreRef::Host(_) => None,
        }
    }
    async fn with_search_index<R>(
        &self,
        user_id: &str,
        model: Option<&str>,
        f: impl FnOnce(&EntrySet) -> R,
    ) -> Result<Option<R>> {
        let StoreRef::Host(s) = self else {
            return Ok(None);
        };
        match s.search_index(user_id, model).await? {
            Some(handle) => Ok(stores().get(handle)?.with_entries(user_id, f)),
            None => Ok(None),
        }
    }
}
