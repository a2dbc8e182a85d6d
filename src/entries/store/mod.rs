//! Entry storage (behaviour §2, §5): the store protocol ([`protocol`]: [`EntryStore`] and its
//! capability traits), the indexed [`EntrySet`] that
//! in-process stores lend to recall and search, and the bundled [`InMemoryEntryStore`].

pub mod entry_set;
pub mod memory;
pub mod protocol;

pub use entry_set::EntrySet;
pub use memory::InMemoryEntryStore;
pub use protocol::{
    AtomicWrites, EntryStore, EpisodeStore, HistoryStore, InProcess, PushDown, VectorStore,
    OPTIONAL_METHODS, REQUIRED_METHODS,
};

use super::entry::Entry;
use crate::entries::config::RecallOrder;
use crate::error::Result;
use crate::host::{Timed, Timer};
use serde::{Deserialize, Serialize};

/// What a pushed-down recall asks a store for ([`EntryStore::recall`]).
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct RecallQuery<'a> {
    /// The user whose entries these are.
    pub user_id: &'a str,
    /// The agent calling the tools.
    pub agent_id: &'a str,
    /// The turn's group, if any.
    pub group_id: Option<&'a str>,
    /// The recall order.
    pub order: RecallOrder,
    /// At most this many are shown.
    pub limit: usize,
}

/// What a pushed-down eviction lookup asks for ([`EntryStore::oldest_own`]).
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct OwnQuery<'a> {
    /// The user whose entries these are.
    pub user_id: &'a str,
    /// The agent whose own entries may be evicted.
    pub agent_id: &'a str,
    /// How many are needed.
    pub limit: usize,
}

/// What an atomic capped insert answered ([`EntryStore::insert_within_cap`]).
#[derive(Debug, Clone, Copy, PartialEq, Deserialize)]
pub struct CapWrite {
    /// `true`: the entry was written (inserted, or it updated the entry a concurrent writer had
    /// just created at its identity); `false`: the user was full, nothing changed.
    pub written: bool,
    /// The user's count of non-`_gdpr_` entries the store saw (for the capacity answer).
    #[serde(default)]
    pub count: Option<f64>,
}

/// One stored vector of an entry ([`EntryStore::vectors`]): the entry's id and its quantized
/// components (one `i8` per dimension, [`crate::entries::search::vectors`]).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct StoredVector {
    /// The entry's id.
    pub id: String,
    /// The components.
    pub vector: Vec<i8>,
}

/// A vector to store for an entry ([`EntryStore::put_vectors`]): written only while the entry
/// `id` still has exactly this key and value (the text the vector was made from).
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct VectorWrite<'a> {
    /// The entry's id.
    pub id: &'a str,
    /// The key the vector was made from.
    pub key: &'a str,
    /// The value the vector was made from.
    pub value: &'a serde_json::Value,
    /// The model id that made it.
    pub model: &'a str,
    /// The quantized components.
    pub vector: &'a [i8],
}

/// What [`EntryStore::unembedded`] asks for: entries without a vector of `model`.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct UnembeddedQuery<'a> {
    /// The model whose vectors are wanted.
    pub model: &'a str,
    /// Only this user's entries; `None` → every user's.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub user_id: Option<&'a str>,
    /// Only ids after this one (paging, ids ascending).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub after: Option<&'a str>,
    /// At most this many.
    pub limit: usize,
}

/// Who holds an entry id ([`EntryStore::id_holders`]): the user of the current entry with that
/// id (`current: true`), or a user whose kept versions carry it (`current: false`). JSON:
/// `{ "id": "e1", "userId": "u1", "current": true }`.
#[derive(Debug, Clone, PartialEq, Eq, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct IdHolder {
    /// The entry id.
    pub id: String,
    /// The user holding it.
    pub user_id: String,
    /// A current entry (`true`) or kept versions only (`false`).
    pub current: bool,
}

crate::forward_store!(timed [H: EntryStore, T: Timer] Timed<'_, H, T>, host:
    EntryStore, PushDown, AtomicWrites, VectorStore, HistoryStore, EpisodeStore, InProcess);

/// A profile an atomic import creates with its entries (`insertAll(entries, { profile })`).
/// JSON: `{ "path": "user-memory/u1/memory.md", "text": "…" }`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, serde::Serialize)]
pub struct ProfileInsert<'a> {
    /// The profile's storage path.
    pub path: &'a str,
    /// The text, written create-only.
    pub text: &'a str,
}

/// The user's entries with exactly `key`: [`EntryStore::find_by_key`] when the store has it,
/// else from [`EntryStore::list`]; either way only the user's entries with that key are kept.
pub async fn with_key<S: EntryStore>(store: &S, user_id: &str, key: &str) -> Result<Vec<Entry>> {
    let found = match store.find_by_key(user_id, key).await? {
        Some(found) => found,
        None => store.list(user_id).await?,
    };
    Ok(keep_key(found, user_id, key))
}

/// The user's entries with exactly `key` among what a store returned, each id once.
pub fn keep_key(found: Vec<Entry>, user_id: &str, key: &str) -> Vec<Entry> {
    let mut seen = std::collections::HashSet::new();
    found
        .into_iter()
        .filter(|e| e.user_id == user_id && e.key == key && seen.insert(e.id.clone()))
        .collect()
}

/// What a store returned, each id once (a pushed-down query may answer a union with repeats).
pub(crate) fn unique(mut entries: Vec<Entry>) -> Vec<Entry> {
    let mut seen = std::collections::HashSet::with_capacity(entries.len());
    entries.retain(|e| seen.insert(e.id.clone()));
    entries
}

/// [`EntryStore::get`] of each id with the calls in flight together — a store may answer them
/// with one read (the bundled SQL stores do: one statement for the calls of one tick) — in the
/// order of `ids`. Every call is awaited; the first failure in `ids` order is the answer.
pub(crate) async fn get_each<S: EntryStore>(store: &S, ids: &[&str]) -> Result<Vec<Option<Entry>>> {
    use std::future::Future;
    use std::task::Poll;
    let mut calls: Vec<_> = ids.iter().map(|id| Box::pin(store.get(id))).collect();
    let mut answers: Vec<Option<Result<Option<Entry>>>> = ids.iter().map(|_| None).collect();
    std::future::poll_fn(|cx| {
        let mut waiting = false;
        for (call, answer) in calls.iter_mut().zip(answers.iter_mut()) {
            if answer.is_none() {
                match call.as_mut().poll(cx) {
                    Poll::Ready(got) => *answer = Some(got),
                    Poll::Pending => waiting = true,
                }
            }
        }
        if waiting {
            Poll::Pending
        } else {
            Poll::Ready(())
        }
    })
    .await;
    answers.into_iter().map(|a| a.unwrap_or(Ok(None))).collect()
}
