//! Entry storage (behaviour §2, §5): the [`EntryStore`] host trait, the indexed [`EntrySet`] that
//! in-process stores lend to recall and search, and the bundled [`InMemoryEntryStore`].

pub mod entry_set;
pub mod memory;

pub use entry_set::EntrySet;
pub use memory::InMemoryEntryStore;

use super::entry::Entry;
use super::episode::{Episode, EpisodeQuery};
use super::history::{
    AuditQuery, AuditRecord, HistoryAppend, HistoryErasure, HistoryRenames, HistorySize, Version,
    VersionQuery,
};
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

/// Entry storage (behaviour §2, §5). Async without a `Send` bound, like the other host traits: in
/// wasm everything runs on one thread and JS-backed futures are not `Send`.
#[allow(async_fn_in_trait)]
pub trait EntryStore {
    /// Every entry of one user.
    async fn list(&self, user_id: &str) -> Result<Vec<Entry>>;
    /// One entry by id.
    async fn get(&self, id: &str) -> Result<Option<Entry>>;
    /// Insert or replace the entry with this id.
    async fn upsert(&self, entry: &Entry) -> Result<()>;
    /// Delete by id; `true` when something was deleted.
    async fn delete(&self, id: &str) -> Result<bool>;
    /// Add one to the access count of each id.
    async fn increment_access(&self, ids: &[String]) -> Result<()>;
    /// Optional pushed-down count of a user's entries excluding `_gdpr_` keys; `None` → the core
    /// counts from `list`.
    async fn count_user(&self, _user_id: &str) -> Result<Option<usize>> {
        Ok(None)
    }
    /// Optional pushed-down search: a *superset* of the user's entries that may match `query`
    /// (e.g. a SQL `ILIKE` prefilter); `None` → the core searches the result of `list`. The core
    /// always re-applies its own matching and visibility to what is returned, so an adapter may
    /// over-approximate but must not drop a match.
    async fn search(&self, _user_id: &str, _query: &str) -> Result<Option<Vec<Entry>>> {
        Ok(None)
    }
    /// Optional pushed-down recall: the entries the query's agent may see, in its order, at most
    /// `limit` (`most_accessed`: the union of the top `limit` by access and by recency); `None`
    /// → the core recalls from `list`. A superset is safe: the core re-applies visibility, order
    /// and limit.
    async fn recall(&self, _query: &RecallQuery<'_>) -> Result<Option<Vec<Entry>>> {
        Ok(None)
    }
    /// Optional pushed-down identity lookup: every entry of the user with exactly this key (any
    /// agent, any visibility); `None` → the core looks in `list`. The core keeps only the user's
    /// entries with that key from what is returned.
    async fn find_by_key(&self, _user_id: &str, _key: &str) -> Result<Option<Vec<Entry>>> {
        Ok(None)
    }
    /// Optional pushed-down eviction candidates: the agent's own non-`_gdpr_` entries, least
    /// recently updated first, at most `limit`; `None` → the core picks from `list`. The core
    /// re-checks ownership and order.
    async fn oldest_own(&self, _query: &OwnQuery<'_>) -> Result<Option<Vec<Entry>>> {
        Ok(None)
    }
    /// Optional atomic capped insert of a new entry (one transaction: delete `evict`, then write
    /// unless the user holds `max_entries` non-`_gdpr_` entries); `None` → the core deletes and
    /// upserts itself (not atomic across processes).
    async fn insert_within_cap(
        &self,
        _entry: &Entry,
        _max_entries: u64,
        _evict: &[String],
    ) -> Result<Option<CapWrite>> {
        Ok(None)
    }
    /// Optional atomic insert of new entries (an import, behaviour §4.3): every entry written in
    /// one transaction, or none — an id already stored fails the whole call. With `profile` (the
    /// store is also the profile storage the import writes to) the profile is created in the
    /// same transaction, create-only. `Ok(false)` → the store has no such operation; the core
    /// checks the ids, upserts one at a time and deletes what it wrote when one fails (not atomic
    /// across processes).
    async fn insert_all(
        &self,
        _entries: &[Entry],
        _profile: Option<ProfileInsert<'_>>,
    ) -> Result<bool> {
        Ok(false)
    }
    /// Optional vectors (behaviour §8.2): the user's stored vectors made by `model`; `None` → the
    /// store keeps no vectors (hybrid search then ranks lexically). A store that keeps vectors
    /// clears an entry's vector when its key or value changes and deletes it with the entry.
    async fn vectors(&self, _user_id: &str, _model: &str) -> Result<Option<Vec<StoredVector>>> {
        Ok(None)
    }
    /// Optional: store vectors, each only while its entry still has the key and value it was
    /// made from; the number written, or `None` when the store keeps no vectors.
    async fn put_vectors(&self, _rows: &[VectorWrite<'_>]) -> Result<Option<usize>> {
        Ok(None)
    }
    /// Optional: entries with no vector of `query.model` (none, or another model's), ids
    /// ascending after `query.after`, at most `query.limit`; `None` → the store cannot say (the
    /// core compares `list` with `vectors` for one user).
    async fn unembedded(&self, _query: &UnembeddedQuery<'_>) -> Result<Option<Vec<Entry>>> {
        Ok(None)
    }
    /// Optional history (behaviour §8.3): in one transaction where the store can, append the
    /// versions (one whose id is already stored is skipped) and the audit records (numbered by
    /// the store, ascending), then apply the retention ([`HistoryAppend`]). Called before the
    /// change it records, and with nothing to append to apply the retention alone. `false`: the
    /// store keeps no history (writes then behave as before history existed).
    async fn append_history(&self, _append: &HistoryAppend<'_>) -> Result<bool> {
        Ok(false)
    }
    /// Whether the store keeps history (has [`EntryStore::append_history`]): a write over a store
    /// that does not reads nothing more than before history existed.
    fn keeps_history(&self) -> bool {
        false
    }
    /// Optional history: the versions of `query.user_id` (of one entry, or whose key was
    /// `query.key`), any order; `None` when the store keeps no history. The core re-checks the
    /// owner, entry and key of what is returned.
    async fn versions(&self, _query: &VersionQuery<'_>) -> Result<Option<Vec<Version>>> {
        Ok(None)
    }
    /// Optional audit log (behaviour §8.3): the records the query names, in `seq` order; `None`
    /// when the store keeps none.
    async fn audit_log(&self, _query: &AuditQuery<'_>) -> Result<Option<Vec<AuditRecord>>> {
        Ok(None)
    }
    /// Optional: erase the user's history (Art. 17) in one transaction — every version and
    /// every audit record of `user_id` — rename what names the user in the rest of the history
    /// ([`HistoryRenames`]: `actor.id` of other users' audit records, and the versions given),
    /// and append `record` (the erasure's own record, the one that stays, under its own
    /// `userId`: the erased user's `sha256:` name). Answers what was removed and renamed; `None`
    /// when the store keeps no history.
    async fn erase_history(
        &self,
        _user_id: &str,
        _record: &AuditRecord,
        _renames: &HistoryRenames,
    ) -> Result<Option<HistoryErasure>> {
        Ok(None)
    }
    /// Optional: the versions of any user whose `author.id` is `author_id` (an erasure renames
    /// them, [`HistoryRenames`]); `None` when the store cannot say. The core re-checks the author.
    async fn versions_by_author(&self, _author_id: &str) -> Result<Option<Vec<Version>>> {
        Ok(None)
    }
    /// Optional: how many versions and audit records the store keeps of the user.
    async fn history_size(&self, _user_id: &str) -> Result<Option<HistorySize>> {
        Ok(None)
    }
    /// Optional ownership lookup (an entry id belongs to one user, docs/reference/behaviour.md
    /// §8.3): for each of `ids` the store holds — as a current entry, or as the entry of kept
    /// versions — who holds it, one [`IdHolder`] per (id, user, current) pair, any order;
    /// `None` → the core asks [`EntryStore::get`] for each id (current entries only, so another
    /// user's deleted entry's id is then not seen).
    async fn id_holders(&self, _ids: &[String]) -> Result<Option<Vec<IdHolder>>> {
        Ok(None)
    }
    /// Optional episodes (behaviour §8.6): store those whose id is not stored yet (an episode's id
    /// is its content); the number written, or `None` when the store keeps no episodes.
    async fn put_episodes(&self, _episodes: &[Episode]) -> Result<Option<usize>> {
        Ok(None)
    }
    /// Optional episodes: the ones [`EpisodeQuery`] names, any order; `None` when the store keeps
    /// no episodes. The core re-checks the user, conversation and time.
    async fn episodes(&self, _query: &EpisodeQuery<'_>) -> Result<Option<Vec<Episode>>> {
        Ok(None)
    }
    /// Optional episodes: delete the user's episodes from before `before` (retention), or all of
    /// them (`None`: erasure); the number deleted, or `None` when the store keeps no episodes.
    async fn delete_episodes(
        &self,
        _user_id: &str,
        _before: Option<&str>,
    ) -> Result<Option<usize>> {
        Ok(None)
    }
    /// Optional zero-copy access for in-process stores: run `f` over the user's indexed entries
    /// in place and return its result; `None` → the core falls back to `list`. Recall and search
    /// use it so that they parse and copy nothing but what they return.
    fn with_entries<R>(&self, _user_id: &str, _f: impl FnOnce(&EntrySet) -> R) -> Option<R> {
        None
    }
    /// Optional search index of a store that lives outside the process (behaviour §8.2): run `f`
    /// over an in-process mirror of the user's entries — with their vectors of `model` when one is
    /// given — that the store keeps current (the SQL adapters validate theirs by a revision the
    /// database bumps on every change). `Ok(None)` → the core lists the entries. The ranked
    /// search reads the entries it returns again with `get`, so a mirror that lags in
    /// `accessCount` (which no ranking reads) never shows a stale entry, and the core re-checks
    /// visibility on what `get` answers.
    async fn with_search_index<R>(
        &self,
        _user_id: &str,
        _model: Option<&str>,
        _f: impl FnOnce(&EntrySet) -> R,
    ) -> Result<Option<R>> {
        Ok(None)
    }
}

impl<H: EntryStore, T: Timer> EntryStore for Timed<'_, H, T> {
    async fn list(&self, user_id: &str) -> Result<Vec<Entry>> {
        self.run("store.list", self.host.list(user_id)).await
    }
    async fn get(&self, id: &str) -> Result<Option<Entry>> {
        self.run("store.get", self.host.get(id)).await
    }
    async fn upsert(&self, entry: &Entry) -> Result<()> {
        self.run("store.upsert", self.host.upsert(entry)).await
    }
    async fn delete(&self, id: &str) -> Result<bool> {
        self.run("store.delete", self.host.delete(id)).await
    }
    async fn increment_access(&self, ids: &[String]) -> Result<()> {
        self.run("store.incrementAccess", self.host.increment_access(ids))
            .await
    }
    async fn count_user(&self, user_id: &str) -> Result<Option<usize>> {
        self.run("store.countUser", self.host.count_user(user_id))
            .await
    }
    async fn search(&self, user_id: &str, query: &str) -> Result<Option<Vec<Entry>>> {
        self.run("store.search", self.host.search(user_id, query))
            .await
    }
    async fn recall(&self, query: &RecallQuery<'_>) -> Result<Option<Vec<Entry>>> {
        self.run("store.recall", self.host.recall(query)).await
    }
    async fn find_by_key(&self, user_id: &str, key: &str) -> Result<Option<Vec<Entry>>> {
        self.run("store.findByKey", self.host.find_by_key(user_id, key))
            .await
    }
    async fn oldest_own(&self, query: &OwnQuery<'_>) -> Result<Option<Vec<Entry>>> {
        self.run("store.oldestOwn", self.host.oldest_own(query))
            .await
    }
    async fn insert_within_cap(
        &self,
        entry: &Entry,
        max_entries: u64,
        evict: &[String],
    ) -> Result<Option<CapWrite>> {
        let insert = self.host.insert_within_cap(entry, max_entries, evict);
        self.run("store.insertWithinCap", insert).await
    }
    async fn insert_all(
        &self,
        entries: &[Entry],
        profile: Option<ProfileInsert<'_>>,
    ) -> Result<bool> {
        self.run("store.insertAll", self.host.insert_all(entries, profile))
            .await
    }
    async fn vectors(&self, user_id: &str, model: &str) -> Result<Option<Vec<StoredVector>>> {
        self.run("store.vectors", self.host.vectors(user_id, model))
            .await
    }
    async fn put_vectors(&self, rows: &[VectorWrite<'_>]) -> Result<Option<usize>> {
        self.run("store.putVectors", self.host.put_vectors(rows))
            .await
    }
    async fn unembedded(&self, query: &UnembeddedQuery<'_>) -> Result<Option<Vec<Entry>>> {
        self.run("store.unembedded", self.host.unembedded(query))
            .await
    }
    async fn append_history(&self, append: &HistoryAppend<'_>) -> Result<bool> {
        self.run("store.appendHistory", self.host.append_history(append))
            .await
    }
    fn keeps_history(&self) -> bool {
        self.host.keeps_history()
    }
    async fn audit_log(&self, query: &AuditQuery<'_>) -> Result<Option<Vec<AuditRecord>>> {
        self.run("store.auditLog", self.host.audit_log(query)).await
    }
    async fn erase_history(
        &self,
        user_id: &str,
        record: &AuditRecord,
        renames: &HistoryRenames,
    ) -> Result<Option<HistoryErasure>> {
        let erase = self.host.erase_history(user_id, record, renames);
        self.run("store.eraseHistory", erase).await
    }
    async fn versions_by_author(&self, author_id: &str) -> Result<Option<Vec<Version>>> {
        let read = self.host.versions_by_author(author_id);
        self.run("store.versionsByAuthor", read).await
    }
    async fn history_size(&self, user_id: &str) -> Result<Option<HistorySize>> {
        self.run("store.historySize", self.host.history_size(user_id))
            .await
    }
    async fn id_holders(&self, ids: &[String]) -> Result<Option<Vec<IdHolder>>> {
        self.run("store.idHolders", self.host.id_holders(ids)).await
    }
    async fn versions(&self, query: &VersionQuery<'_>) -> Result<Option<Vec<Version>>> {
        self.run("store.versions", self.host.versions(query)).await
    }
    async fn put_episodes(&self, episodes: &[Episode]) -> Result<Option<usize>> {
        self.run("store.putEpisodes", self.host.put_episodes(episodes))
            .await
    }
    async fn episodes(&self, query: &EpisodeQuery<'_>) -> Result<Option<Vec<Episode>>> {
        self.run("store.episodes", self.host.episodes(query)).await
    }
    async fn delete_episodes(&self, user_id: &str, before: Option<&str>) -> Result<Option<usize>> {
        let delete = self.host.delete_episodes(user_id, before);
        self.run("store.deleteEpisodes", delete).await
    }
    fn with_entries<R>(&self, user_id: &str, f: impl FnOnce(&EntrySet) -> R) -> Option<R> {
        self.host.with_entries(user_id, f)
    }
    async fn with_search_index<R>(
        &self,
        user_id: &str,
        model: Option<&str>,
        f: impl FnOnce(&EntrySet) -> R,
    ) -> Result<Option<R>> {
        self.run(
            "store.searchIndex",
            self.host.with_search_index(user_id, model, f),
        )
        .await
    }
}

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
