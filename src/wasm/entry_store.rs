//! The bundled in-memory entry store as a handle (its entries live in the wasm instance, so recall
//! and search over thousands of entries never cross the boundary), and the store argument of
//! the entry functions: that handle, or a JS adapter over the host's own store.

use super::boundary::{json_out, Call};
use super::host::{Adapter, Js};
use memcore::boundary::adapter::Remote;
use memcore::boundary::handles::{Handles, Table};
use memcore::entries::episode::{Episode, EpisodeQuery};
use memcore::entries::history::{
    AuditQuery, AuditRecord, HistoryAppend, HistoryErasure, HistoryRenames, HistorySize, Version,
    VersionQuery,
};
use memcore::entries::search::vectors::from_base64;
use memcore::entries::store::{
    CapWrite, IdHolder, OwnQuery, RecallQuery, StoredVector, UnembeddedQuery, VectorWrite,
};
use memcore::entries::{Entry, EntrySet, EntryStore, InMemoryEntryStore};
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

impl EntryStore for StoreRef {
    async fn list(&self, user_id: &str) -> Result<Vec<Entry>> {
        match self {
            StoreRef::Native(s) => s.list(user_id).await,
            StoreRef::Host(s) => s.list(user_id).await,
        }
    }
    async fn get(&self, id: &str) -> Result<Option<Entry>> {
        match self {
            StoreRef::Native(s) => s.get(id).await,
            StoreRef::Host(s) => s.get(id).await,
        }
    }
    async fn upsert(&self, entry: &Entry) -> Result<()> {
        match self {
            StoreRef::Native(s) => s.upsert(entry).await,
            StoreRef::Host(s) => s.upsert(entry).await,
        }
    }
    async fn delete(&self, id: &str) -> Result<bool> {
        match self {
            StoreRef::Native(s) => s.delete(id).await,
            StoreRef::Host(s) => s.delete(id).await,
        }
    }
    async fn increment_access(&self, ids: &[String]) -> Result<()> {
        match self {
            StoreRef::Native(s) => s.increment_access(ids).await,
            StoreRef::Host(s) => s.increment_access(ids).await,
        }
    }
    async fn count_user(&self, user_id: &str) -> Result<Option<usize>> {
        match self {
            StoreRef::Native(s) => s.count_user(user_id).await,
            StoreRef::Host(s) => s.count_user(user_id).await,
        }
    }
    async fn search(&self, user_id: &str, query: &str) -> Result<Option<Vec<Entry>>> {
        match self {
            StoreRef::Native(s) => s.search(user_id, query).await,
            StoreRef::Host(s) => s.search(user_id, query).await,
        }
    }
    async fn recall(&self, query: &RecallQuery<'_>) -> Result<Option<Vec<Entry>>> {
        match self {
            StoreRef::Native(s) => s.recall(query).await,
            StoreRef::Host(s) => s.recall(query).await,
        }
    }
    async fn find_by_key(&self, user_id: &str, key: &str) -> Result<Option<Vec<Entry>>> {
        match self {
            StoreRef::Native(s) => s.find_by_key(user_id, key).await,
            StoreRef::Host(s) => s.find_by_key(user_id, key).await,
        }
    }
    async fn oldest_own(&self, query: &OwnQuery<'_>) -> Result<Option<Vec<Entry>>> {
        match self {
            StoreRef::Native(s) => s.oldest_own(query).await,
            StoreRef::Host(s) => s.oldest_own(query).await,
        }
    }
    async fn insert_within_cap(
        &self,
        entry: &Entry,
        max_entries: u64,
        evict: &[String],
    ) -> Result<Option<CapWrite>> {
        match self {
            StoreRef::Native(s) => s.insert_within_cap(entry, max_entries, evict).await,
            StoreRef::Host(s) => s.insert_within_cap(entry, max_entries, evict).await,
        }
    }
    async fn insert_all(
        &self,
        entries: &[Entry],
        profile: Option<memcore::entries::store::ProfileInsert<'_>>,
    ) -> Result<bool> {
        match self {
            StoreRef::Native(s) => s.insert_all(entries, profile).await,
            StoreRef::Host(s) => s.insert_all(entries, profile).await,
        }
    }
    async fn vectors(&self, user_id: &str, model: &str) -> Result<Option<Vec<StoredVector>>> {
        match self {
            StoreRef::Native(s) => s.vectors(user_id, model).await,
            StoreRef::Host(s) => s.vectors(user_id, model).await,
        }
    }
    async fn put_vectors(&self, rows: &[VectorWrite<'_>]) -> Result<Option<usize>> {
        match self {
            StoreRef::Native(s) => s.put_vectors(rows).await,
            StoreRef::Host(s) => s.put_vectors(rows).await,
        }
    }
    async fn unembedded(&self, query: &UnembeddedQuery<'_>) -> Result<Option<Vec<Entry>>> {
        match self {
            StoreRef::Native(s) => s.unembedded(query).await,
            StoreRef::Host(s) => s.unembedded(query).await,
        }
    }
    fn keeps_history(&self) -> bool {
        match self {
            StoreRef::Native(s) => s.keeps_history(),
            StoreRef::Host(s) => s.keeps_history(),
        }
    }
    async fn append_history(&self, append: &HistoryAppend<'_>) -> Result<bool> {
        match self {
            StoreRef::Native(s) => s.append_history(append).await,
            StoreRef::Host(s) => s.append_history(append).await,
        }
    }
    async fn audit_log(&self, query: &AuditQuery<'_>) -> Result<Option<Vec<AuditRecord>>> {
        match self {
            StoreRef::Native(s) => s.audit_log(query).await,
            StoreRef::Host(s) => s.audit_log(query).await,
        }
    }
    async fn erase_history(
        &self,
        user_id: &str,
        record: &AuditRecord,
        renames: &HistoryRenames,
    ) -> Result<Option<HistoryErasure>> {
        match self {
            StoreRef::Native(s) => s.erase_history(user_id, record, renames).await,
            StoreRef::Host(s) => s.erase_history(user_id, record, renames).await,
        }
    }
    async fn versions_by_author(&self, author_id: &str) -> Result<Option<Vec<Version>>> {
        match self {
            StoreRef::Native(s) => s.versions_by_author(author_id).await,
            StoreRef::Host(s) => s.versions_by_author(author_id).await,
        }
    }
    async fn history_size(&self, user_id: &str) -> Result<Option<HistorySize>> {
        match self {
            StoreRef::Native(s) => s.history_size(user_id).await,
            StoreRef::Host(s) => s.history_size(user_id).await,
        }
    }
    async fn versions(&self, query: &VersionQuery<'_>) -> Result<Option<Vec<Version>>> {
        match self {
            StoreRef::Native(s) => s.versions(query).await,
            StoreRef::Host(s) => s.versions(query).await,
        }
    }
    async fn id_holders(&self, ids: &[String]) -> Result<Option<Vec<IdHolder>>> {
        match self {
            StoreRef::Native(s) => s.id_holders(ids).await,
            StoreRef::Host(s) => s.id_holders(ids).await,
        }
    }
    async fn put_episodes(&self, episodes: &[Episode]) -> Result<Option<usize>> {
        match self {
            StoreRef::Native(s) => s.put_episodes(episodes).await,
            StoreRef::Host(s) => s.put_episodes(episodes).await,
        }
    }
    async fn episodes(&self, query: &EpisodeQuery<'_>) -> Result<Option<Vec<Episode>>> {
        match self {
            StoreRef::Native(s) => s.episodes(query).await,
            StoreRef::Host(s) => s.episodes(query).await,
        }
    }
    async fn delete_episodes(&self, user_id: &str, before: Option<&str>) -> Result<Option<usize>> {
        match self {
            StoreRef::Native(s) => s.delete_episodes(user_id, before).await,
            StoreRef::Host(s) => s.delete_episodes(user_id, before).await,
        }
    }
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
