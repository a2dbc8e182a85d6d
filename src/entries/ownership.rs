//! Entry ids and their owners (docs/reference/behaviour.md §8.3, "Entry ids"): an entry id
//! belongs to one user. A store holds an id while a current entry has it or while kept versions
//! carry it (a deleted entry's history); every write that names an id — a restore, an import, a
//! REST/MCP upsert with an `id`, a new entry under an id the host's `newId` made — is checked
//! here, where the write happens, and refused as a conflict when another user holds the id.
//! The same user may reuse an id of their own deleted entry: the new state continues that
//! entry's history.
//!
//! The store answers [`EntryStore::id_holders`] when it can (every bundled store does: the
//! in-memory store from an index, the SQL stores with one statement); otherwise the core asks
//! [`EntryStore::get`], which sees current entries only. Whatever a store answers is re-checked
//! against the ids asked.

use super::entry::Entry;
use super::store::{EntryStore, HistoryStore, IdHolder};
use crate::error::{Error, ErrorCode, Result};
use std::collections::HashSet;
use std::future::Future;
use std::pin::Pin;

/// Why a write by id was refused: the id is another user's.
pub const FOREIGN_ID: &str =
    "the id belongs to another user's entry (or its kept history); an entry id names one user's entry: leave the id out so a new one is made";

/// A store's answer to one of the two calls an ownership lookup makes.
type Answer<'a, T> = Pin<Box<dyn Future<Output = Result<T>> + 'a>>;

/// The two store calls of an ownership lookup behind one vtable, so the lookup is compiled once
/// for every kind of store (each store type the core writes through would otherwise get its own
/// copy of it in the wasm).
trait Lookup {
    fn id_holders<'a>(&'a self, ids: &'a [String]) -> Answer<'a, Option<Vec<IdHolder>>>;
    fn get<'a>(&'a self, id: &'a str) -> Answer<'a, Option<Entry>>;
}

impl<S: EntryStore> Lookup for S {
    fn id_holders<'a>(&'a self, ids: &'a [String]) -> Answer<'a, Option<Vec<IdHolder>>> {
        Box::pin(HistoryStore::id_holders(self, ids))
    }
    fn get<'a>(&'a self, id: &'a str) -> Answer<'a, Option<Entry>> {
        Box::pin(EntryStore::get(self, id))
    }
}

/// Who holds each of `ids` (see the module documentation): one [`IdHolder`] per id, user and
/// kind the store reports, limited to the ids asked.
pub async fn holders<S: EntryStore>(store: &S, ids: &[String]) -> Result<Vec<IdHolder>> {
    holders_in(store, ids).await
}

async fn holders_in(store: &dyn Lookup, ids: &[String]) -> Result<Vec<IdHolder>> {
    if ids.is_empty() {
        return Ok(Vec::new());
    }
    if let Some(found) = store.id_holders(ids).await? {
        let asked: HashSet<&str> = ids.iter().map(String::as_str).collect();
        return Ok(found
            .into_iter()
            .filter(|h| asked.contains(h.id.as_str()))
            .collect());
    }
    let mut out = Vec::new();
    for id in ids {
        if let Some(entry) = store.get(id).await?.filter(|e| &e.id == id) {
            out.push(IdHolder {
                id: id.clone(),
                user_id: entry.user_id,
                current: true,
            });
        }
    }
    Ok(out)
}

/// A holder of `id` that is not `user_id`, if any.
pub fn foreign<'a>(holders: &'a [IdHolder], id: &str, user_id: &str) -> Option<&'a IdHolder> {
    holders.iter().find(|h| h.id == id && h.user_id != user_id)
}

/// Whether a current entry holds `id` (any user's).
pub fn current(holders: &[IdHolder], id: &str) -> bool {
    holders.iter().any(|h| h.id == id && h.current)
}

/// Whether `user_id` may write a new entry under `id`: no current entry holds it and no other
/// user's history carries it.
pub async fn free_for<S: EntryStore>(store: &S, user_id: &str, id: &str) -> Result<bool> {
    free_in(store, user_id, id).await
}

async fn free_in(store: &dyn Lookup, user_id: &str, id: &str) -> Result<bool> {
    let held = holders_in(store, &[id.to_string()]).await?;
    Ok(!current(&held, id) && foreign(&held, id, user_id).is_none())
}

/// Refuse a new entry whose id the host made (`newId`) when that id is held already — by a
/// current entry of anyone, or by another user's kept history: `E_CONFLICT` (nothing written).
/// The core's own random ids are not looked up (`host_made` false).
pub async fn check_new_id<S: EntryStore>(store: &S, host_made: bool, entry: &Entry) -> Result<()> {
    if !host_made {
        return Ok(());
    }
    new_id_in(store, entry).await
}

async fn new_id_in(store: &dyn Lookup, entry: &Entry) -> Result<()> {
    if free_in(store, &entry.user_id, &entry.id).await? {
        return Ok(());
    }
    Err(Error::new(
        ErrorCode::Conflict,
        "newId returned an id another entry (or another user's kept history) holds; ids must be unique across the store — nothing was written",
    )
    .with_details(serde_json::json!({ "entryId": entry.id })))
}
