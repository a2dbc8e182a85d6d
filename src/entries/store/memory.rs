//! The bundled in-memory entry store (behaviour §5): for tests, previews and single-process hosts.
//! Entries are grouped by user so a user's recall never scans other users, and it lends its
//! entries in place ([`EntryStore::with_entries`]) so recall and search copy only what they return.

use super::{EntrySet, EntryStore, IdHolder, OwnQuery, StoredVector, UnembeddedQuery, VectorWrite};
use crate::entries::entry::Entry;
use crate::entries::episode::{matches as episode_matches, Episode, EpisodeQuery};
use crate::entries::history::{
    AuditQuery, AuditRecord, HistoryAppend, HistoryErasure, HistoryRenames, HistorySize, Operation,
    Renamed, Version, VersionQuery,
};
use crate::entries::recall::sort_stalest_first;
use crate::entries::store::{
    AtomicWrites, EpisodeStore, HistoryStore, InProcess, PushDown, VectorStore,
};
use crate::entries::visibility::is_reserved_key;
use crate::error::{Error, ErrorCode, Result};
use std::cell::RefCell;
use std::collections::HashMap;

/// An in-memory [`EntryStore`]. Single-threaded (wasm); every method is synchronous underneath.
#[derive(Debug, Default)]
pub struct InMemoryEntryStore {
    users: RefCell<HashMap<String, EntrySet>>,
    owner: RefCell<HashMap<String, String>>,
    /// Each user's versions (behaviour §8.3), in the order they were appended.
    history: RefCell<HashMap<String, UserHistory>>,
    /// Entry id → the users whose kept versions carry it (the ownership lookup,
    /// [`EntryStore::id_holders`], without scanning every user's history).
    versioned_ids: RefCell<HashMap<String, Vec<String>>>,
    /// The last audit record's number.
    audit_seq: std::cell::Cell<u64>,
    /// Each user's episodes (behaviour §8.6), sorted by id (a sorted `Vec`, not a `BTreeMap`: the
    /// crate's wasm holds no B-tree of episodes, ~9 KB less code).
    episodes: RefCell<HashMap<String, Vec<Episode>>>,
}

fn busy() -> Error {
    Error::new(
        ErrorCode::Internal,
        "the in-memory entry store is busy (re-entrant call)",
    )
}

impl InMemoryEntryStore {
    /// An empty store.
    pub fn new() -> Self {
        Self::default()
    }

    /// Every entry of one user (copies).
    pub fn list_now(&self, user_id: &str) -> Result<Vec<Entry>> {
        let users = self.users.try_borrow().map_err(|_| busy())?;
        Ok(users
            .get(user_id)
            .map(|set| set.entries().cloned().collect())
            .unwrap_or_default())
    }

    /// One entry by id.
    pub fn get_now(&self, id: &str) -> Result<Option<Entry>> {
        let owner = self.owner.try_borrow().map_err(|_| busy())?;
        let users = self.users.try_borrow().map_err(|_| busy())?;
        Ok(owner
            .get(id)
            .and_then(|user| users.get(user))
            .and_then(|set| set.get(id))
            .cloned())
    }

    /// Insert or replace by id (an entry moved to another user moves with it).
    pub fn upsert_now(&self, entry: &Entry) -> Result<()> {
        self.upsert_owned(entry.clone())
    }

    /// [`InMemoryEntryStore::upsert_now`] of an entry the caller gives up (not copied).
    fn upsert_owned(&self, entry: Entry) -> Result<()> {
        let mut owner = self.owner.try_borrow_mut().map_err(|_| busy())?;
        let mut users = self.users.try_borrow_mut().map_err(|_| busy())?;
        if let Some(previous) = owner.get(&entry.id).filter(|u| **u != entry.user_id) {
            if let Some(set) = users.get_mut(previous) {
                set.remove(&entry.id);
            }
        }
        owner.insert(entry.id.clone(), entry.user_id.clone());
        users
            .entry(entry.user_id.clone())
            .or_default()
            .upsert(entry);
        Ok(())
    }

    /// Delete by id; `true` when something was deleted.
    pub fn delete_now(&self, id: &str) -> Result<bool> {
        let mut owner = self.owner.try_borrow_mut().map_err(|_| busy())?;
        let Some(user) = owner.remove(id) else {
            return Ok(false);
        };
        let mut users = self.users.try_borrow_mut().map_err(|_| busy())?;
        let removed = users
            .get_mut(&user)
            .and_then(|set| set.remove(id))
            .is_some();
        if users.get(&user).is_some_and(EntrySet::is_empty) {
            users.remove(&user);
        }
        Ok(removed)
    }

    /// Add one to the access count of each id (unknown ids are ignored).
    pub fn increment_access_now(&self, ids: &[String]) -> Result<()> {
        let owner = self.owner.try_borrow().map_err(|_| busy())?;
        let mut users = self.users.try_borrow_mut().map_err(|_| busy())?;
        for id in ids {
            if let Some(set) = owner.get(id).and_then(|user| users.get_mut(user)) {
                set.increment_access(id);
            }
        }
        Ok(())
    }

    /// A user's entries excluding `_gdpr_` bookkeeping (what counts toward `maxEntriesPerUser`).
    pub fn count_user_now(&self, user_id: &str) -> Result<usize> {
        let users = self.users.try_borrow().map_err(|_| busy())?;
        Ok(users.get(user_id).map_or(0, EntrySet::counted))
    }

    /// The user's entries with exactly this key (copies of those only).
    pub fn find_by_key_now(&self, user_id: &str, key: &str) -> Result<Vec<Entry>> {
        let users = self.users.try_borrow().map_err(|_| busy())?;
        Ok(users
            .get(user_id)
            .map_or_else(Vec::new, |set| set.with_key(key).cloned().collect()))
    }

    /// The agent's own non-`_gdpr_` entries, least recently updated first, at most `limit`.
    pub fn oldest_own_now(&self, query: &OwnQuery<'_>) -> Result<Vec<Entry>> {
        let users = self.users.try_borrow().map_err(|_| busy())?;
        let Some(set) = users.get(query.user_id) else {
            return Ok(Vec::new());
        };
        let mut own: Vec<&Entry> = set
            .entries()
            .filter(|e| {
                e.source_agent_id.as_deref() == Some(query.agent_id) && !is_reserved_key(&e.key)
            })
            .collect();
        sort_stalest_first(&mut own);
        Ok(own.into_iter().take(query.limit).cloned().collect())
    }

    /// Number of entries of every user.
    pub fn len(&self) -> usize {
        self.owner.try_borrow().map_or(0, |owner| owner.len())
    }

    /// Whether the store holds no entry.
    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }
}

impl InMemoryEntryStore {
    /// The user's vectors of `model`.
    pub fn vectors_now(&self, user_id: &str, model: &str) -> Result<Vec<StoredVector>> {
        let users = self.users.try_borrow().map_err(|_| busy())?;
        Ok(users
            .get(user_id)
            .map(|set| {
                set.with_vectors(model)
                    .filter_map(|(entry, vector)| {
                        Some(StoredVector {
                            id: entry.id.clone(),
                            vector: vector?.to_vec(),
                        })
                    })
                    .collect()
            })
            .unwrap_or_default())
    }

    /// Store vectors, each while its entry still has the key and value it was made from.
    pub fn put_vectors_now(&self, rows: &[VectorWrite<'_>]) -> Result<usize> {
        let owner = self.owner.try_borrow().map_err(|_| busy())?;
        let mut users = self.users.try_borrow_mut().map_err(|_| busy())?;
        let mut written = 0;
        for row in rows {
            let set = owner.get(row.id).and_then(|user| users.get_mut(user));
            if set.is_some_and(|set| set.put_vector(row)) {
                written += 1;
            }
        }
        Ok(written)
    }

    /// Insert or replace `entries` (as [`InMemoryEntryStore::upsert_now`] each), then store each
    /// of `vectors` for `model` on its entry as that entry now is (a row whose entry is not
    /// here is skipped); the number of vectors stored. How a search mirror of another store
    /// is built in one call ([`super::EntryStore::with_search_index`]).
    pub fn load_now(
        &self,
        entries: Vec<Entry>,
        model: &str,
        vectors: &[StoredVector],
    ) -> Result<usize> {
        for entry in entries {
            self.upsert_owned(entry)?;
        }
        let owner = self.owner.try_borrow().map_err(|_| busy())?;
        let mut users = self.users.try_borrow_mut().map_err(|_| busy())?;
        let mut written = 0;
        for row in vectors {
            let Some(set) = owner.get(&row.id).and_then(|user| users.get_mut(user)) else {
                continue;
            };
            written += usize::from(set.put_current_vector(&row.id, model, &row.vector));
        }
        Ok(written)
    }

    /// Entries without a vector of `query.model`, ids ascending after `query.after`.
    pub fn unembedded_now(&self, query: &UnembeddedQuery<'_>) -> Result<Vec<Entry>> {
        let users = self.users.try_borrow().map_err(|_| busy())?;
        let mut found: Vec<&Entry> = users
            .iter()
            .filter(|(user, _)| query.user_id.map_or(true, |u| u == user.as_str()))
            .flat_map(|(_, set)| set.with_vectors(query.model))
            .filter(|(entry, vector)| {
                vector.is_none() && query.after.map_or(true, |after| entry.id.as_str() > after)
            })
            .map(|(entry, _)| entry)
            .collect();
        // Ids are distinct: the crate's one sort gives the same order (and no sort of its own).
        crate::order::sort_by(&mut found, |a, b| a.id.cmp(&b.id));
        Ok(found.into_iter().take(query.limit).cloned().collect())
    }
}

impl InMemoryEntryStore {
    /// Append versions (an id already kept is skipped) and audit records (numbered), then
    /// apply the retention ([`EntryStore::append_history`]).
    pub fn append_history_now(&self, append: &HistoryAppend<'_>) -> Result<()> {
        let mut history = self.history.try_borrow_mut().map_err(|_| busy())?;
        let mut index = self.versioned_ids.try_borrow_mut().map_err(|_| busy())?;
        let mut seq = self.audit_seq.get();
        let user = history.entry(append.user_id.to_string()).or_default();
        let max = usize::try_from(append.max_versions_per_entry).unwrap_or(usize::MAX);
        let mut emptied = false;
        for version in append.versions {
            let users = index.entry(version.entry_id.clone()).or_default();
            if !users.iter().any(|u| u == append.user_id) {
                users.push(append.user_id.to_string());
            }
            let kept = user.by_entry.entry(version.entry_id.clone()).or_default();
            if kept.iter().any(|v| v.id == version.id) {
                continue;
            }
            kept.push(version.clone());
            // Oldest first by (`validUntil`, id): the core's millisecond UTC text, whose text
            // order is time order.
            crate::order::sort_by(kept, |a, b| {
                (a.valid_until.as_str(), a.id.as_str())
                    .cmp(&(b.valid_until.as_str(), b.id.as_str()))
            });
            let excess = kept.len().saturating_sub(max);
            kept.drain(..excess);
            // Kept none (`max` 0): the sweep below drops the entry.
            emptied |= kept.is_empty();
            lower_oldest(&mut user.oldest, &version.valid_until);
        }
        for record in append.audit {
            seq += 1;
            user.audit.push(AuditRecord {
                seq: Some(seq),
                ..record.clone()
            });
        }
        self.audit_seq.set(seq);
        let not_before = append.not_before.as_str();
        // No kept version ends before `oldest`: while that is not before `not_before`, none has
        // expired and no entry is read (an append costs the same at 10 versioned entries or
        // 10,000). Otherwise every entry drops its expired versions and `oldest` is exact again.
        if emptied || user.oldest.as_deref().is_some_and(|o| o < not_before) {
            let expired = |v: &Version| v.valid_until.as_str() < not_before;
            user.by_entry.retain(|entry_id, kept| {
                kept.retain(|v| !expired(v));
                if kept.is_empty() {
                    forget_versioned(&mut index, entry_id, append.user_id);
                }
                !kept.is_empty()
            });
            user.oldest = user
                .by_entry
                .values()
                .filter_map(|kept| kept.first())
                .map(|v| &v.valid_until)
                .min()
                .cloned();
        }
        // Records are appended in time order (as the core dates them): the oldest that may expire
        // (an erasure's record never does) decides whether any has, so an append scans no log.
        let lasting = |r: &AuditRecord| r.operation == Operation::Erase;
        let stale = |r: &AuditRecord| !lasting(r) && r.at.as_str() < not_before;
        if user.audit.iter().find(|r| !lasting(r)).is_some_and(stale) {
            user.audit.retain(|r| !stale(r));
        }
        if user.by_entry.is_empty() && user.audit.is_empty() {
            history.remove(append.user_id);
        }
        Ok(())
    }

    /// The audit records the query names, in `seq` order ([`EntryStore::audit_log`]).
    pub fn audit_log_now(&self, query: &AuditQuery<'_>) -> Result<Vec<AuditRecord>> {
        let history = self.history.try_borrow().map_err(|_| busy())?;
        let mut found: Vec<&AuditRecord> = history
            .iter()
            .filter(|(user, _)| query.user_id.map_or(true, |u| u == user.as_str()))
            .flat_map(|(_, h)| h.audit.iter())
            .filter(|r| query.since.map_or(true, |since| r.at.as_str() >= since))
            .filter(|r| {
                query
                    .after_seq
                    .map_or(true, |after| r.seq.unwrap_or(0) > after)
            })
            .collect();
        crate::order::sort_by(&mut found, |a, b| a.seq.cmp(&b.seq));
        let limit = usize::try_from(query.limit).unwrap_or(usize::MAX);
        Ok(found.into_iter().take(limit).cloned().collect())
    }

    /// Remove every version and audit record of the user, rename what names the user in the
    /// rest of the history, and append `record` ([`EntryStore::erase_history`]).
    pub fn erase_history_now(
        &self,
        user_id: &str,
        record: &AuditRecord,
        renames: &HistoryRenames,
    ) -> Result<HistoryErasure> {
        let mut history = self.history.try_borrow_mut().map_err(|_| busy())?;
        let mut index = self.versioned_ids.try_borrow_mut().map_err(|_| busy())?;
        if let Some(h) = history.get(user_id) {
            for entry_id in h.by_entry.keys() {
                forget_versioned(&mut index, entry_id, user_id);
            }
        }
        let mut erased = history
            .remove(user_id)
            .map_or_else(HistoryErasure::default, |h| HistoryErasure {
                versions: h.by_entry.values().map(Vec::len).sum::<usize>() as u64,
                audit: h.audit.len() as u64,
                renamed: None,
            });
        let mut renamed = Renamed::default();
        for user in history.values_mut() {
            for r in user.audit.iter_mut() {
                if r.actor.id.as_deref() == Some(user_id) {
                    r.actor.id = Some(renames.pseudonym.clone());
                    renamed.audit += 1;
                }
            }
        }
        for rename in &renames.versions {
            let v = &rename.version;
            let Some(owner) = history.get_mut(&v.user_id) else {
                continue;
            };
            let Some(kept) = owner.by_entry.get_mut(&v.entry_id) else {
                continue;
            };
            if let Some(slot) = kept.iter_mut().find(|k| k.id == rename.replaces) {
                *slot = v.clone();
                // A renamed state ends when the state it replaces did (only `author` changes),
                // so `oldest` stays a bound; lowered anyway for a host's own renames.
                lower_oldest(&mut owner.oldest, &v.valid_until);
                renamed.versions += 1;
                crate::order::sort_by(kept, |a, b| {
                    (a.valid_until.as_str(), a.id.as_str())
                        .cmp(&(b.valid_until.as_str(), b.id.as_str()))
                });
            }
        }
        erased.renamed = Some(renamed);
        let seq = self.audit_seq.get() + 1;
        self.audit_seq.set(seq);
        // Kept under the record's own user id (the pseudonym): nothing is kept under the erased id.
        history
            .entry(record.user_id.clone())
            .or_default()
            .audit
            .push(AuditRecord {
                seq: Some(seq),
                ..record.clone()
            });
        Ok(erased)
    }

    /// Every user id the store holds entries or history of (its own tenant's).
    pub fn stored_user_ids_now(&self) -> Result<Vec<String>> {
        let users = self.users.try_borrow().map_err(|_| busy())?;
        let history = self.history.try_borrow().map_err(|_| busy())?;
        let mut ids: Vec<String> = users.keys().cloned().collect();
        for (user, h) in history.iter() {
            let only_erasures =
                h.by_entry.is_empty() && h.audit.iter().all(|r| r.operation == Operation::Erase);
            if !only_erasures {
                ids.push(user.clone());
            }
        }
        crate::order::sort_by(&mut ids, |a, b| a.cmp(b));
        ids.dedup();
        Ok(ids)
    }

    /// Every user's versions the user `author_id` ended ([`EntryStore::versions_by_author`]).
    pub fn versions_by_author_now(&self, author_id: &str) -> Result<Vec<Version>> {
        let history = self.history.try_borrow().map_err(|_| busy())?;
        Ok(history
            .values()
            .flat_map(|u| u.by_entry.values().flatten())
            .filter(|v| v.author.id.as_deref() == Some(author_id))
            .cloned()
            .collect())
    }

    /// How many versions and audit records the store keeps of the user.
    pub fn history_size_now(&self, user_id: &str) -> Result<HistorySize> {
        let history = self.history.try_borrow().map_err(|_| busy())?;
        Ok(history
            .get(user_id)
            .map_or_else(HistorySize::default, |h| HistorySize {
                versions: h.by_entry.values().map(Vec::len).sum::<usize>() as u64,
                audit: h.audit.len() as u64,
            }))
    }

    /// The user's versions the query names ([`EntryStore::versions`]).
    pub fn versions_now(&self, query: &VersionQuery<'_>) -> Result<Vec<Version>> {
        let history = self.history.try_borrow().map_err(|_| busy())?;
        let Some(user) = history.get(query.user_id) else {
            return Ok(Vec::new());
        };
        let of_entry = |kept: &Vec<Version>| -> Vec<Version> {
            kept.iter()
                .filter(|v| query.key.map_or(true, |key| v.key == key))
                .cloned()
                .collect()
        };
        Ok(match query.entry_id {
            Some(id) => user.by_entry.get(id).map(of_entry).unwrap_or_default(),
            None => user.by_entry.values().flat_map(of_entry).collect(),
        })
    }

    /// Who holds each of `ids`: the user of its current entry and the users whose versions
    /// carry it ([`EntryStore::id_holders`]).
    pub fn id_holders_now(&self, ids: &[String]) -> Result<Vec<IdHolder>> {
        let owner = self.owner.try_borrow().map_err(|_| busy())?;
        let index = self.versioned_ids.try_borrow().map_err(|_| busy())?;
        let mut out = Vec::new();
        for id in ids {
            if let Some(user) = owner.get(id) {
                out.push(IdHolder {
                    id: id.clone(),
                    user_id: user.clone(),
                    current: true,
                });
            }
            for user in index.get(id).into_iter().flatten() {
                out.push(IdHolder {
                    id: id.clone(),
                    user_id: user.clone(),
                    current: false,
                });
            }
        }
        Ok(out)
    }

    /// How many versions the store keeps for `user_id`.
    pub fn version_count(&self, user_id: &str) -> usize {
        self.history.try_borrow().map_or(0, |history| {
            history
                .get(user_id)
                .map_or(0, |u| u.by_entry.values().map(Vec::len).sum())
        })
    }
}

/// `user_id` keeps no version of `entry_id` any more.
fn forget_versioned(index: &mut HashMap<String, Vec<String>>, entry_id: &str, user_id: &str) {
    if let Some(users) = index.get_mut(entry_id) {
        users.retain(|u| u != user_id);
        if users.is_empty() {
            index.remove(entry_id);
        }
    }
}

/// One user's versions, by entry, each entry's oldest first, and audit records in `seq` order.
#[derive(Debug, Default)]
struct UserHistory {
    by_entry: HashMap<String, Vec<Version>>,
    audit: Vec<AuditRecord>,
    /// No kept version's `validUntil` is before this (a bound: dropping versions never lowers
    /// it); `None` when none was kept since the last expiry.
    oldest: Option<String>,
}

/// Lower `oldest` to `valid_until` when that is earlier (or nothing was kept).
fn lower_oldest(oldest: &mut Option<String>, valid_until: &str) {
    if oldest.as_deref().map_or(true, |o| valid_until < o) {
        *oldest = Some(valid_until.to_string());
    }
}

impl EntryStore for InMemoryEntryStore {
    async fn list(&self, user_id: &str) -> Result<Vec<Entry>> {
        self.list_now(user_id)
    }
    async fn get(&self, id: &str) -> Result<Option<Entry>> {
        self.get_now(id)
    }
    async fn upsert(&self, entry: &Entry) -> Result<()> {
        self.upsert_now(entry)
    }
    async fn delete(&self, id: &str) -> Result<bool> {
        self.delete_now(id)
    }
    async fn increment_access(&self, ids: &[String]) -> Result<()> {
        self.increment_access_now(ids)
    }
}

impl PushDown for InMemoryEntryStore {
    async fn count_user(&self, user_id: &str) -> Result<Option<usize>> {
        self.count_user_now(user_id).map(Some)
    }
    async fn find_by_key(&self, user_id: &str, key: &str) -> Result<Option<Vec<Entry>>> {
        self.find_by_key_now(user_id, key).map(Some)
    }
    async fn oldest_own(&self, query: &OwnQuery<'_>) -> Result<Option<Vec<Entry>>> {
        self.oldest_own_now(query).map(Some)
    }
}

impl AtomicWrites for InMemoryEntryStore {}

impl VectorStore for InMemoryEntryStore {
    async fn vectors(&self, user_id: &str, model: &str) -> Result<Option<Vec<StoredVector>>> {
        self.vectors_now(user_id, model).map(Some)
    }
    async fn put_vectors(&self, rows: &[VectorWrite<'_>]) -> Result<Option<usize>> {
        self.put_vectors_now(rows).map(Some)
    }
    async fn unembedded(&self, query: &UnembeddedQuery<'_>) -> Result<Option<Vec<Entry>>> {
        self.unembedded_now(query).map(Some)
    }
}

impl HistoryStore for InMemoryEntryStore {
    async fn append_history(&self, append: &HistoryAppend<'_>) -> Result<bool> {
        self.append_history_now(append).map(|()| true)
    }
    fn keeps_history(&self) -> bool {
        true
    }
    async fn audit_log(&self, query: &AuditQuery<'_>) -> Result<Option<Vec<AuditRecord>>> {
        self.audit_log_now(query).map(Some)
    }
    async fn erase_history(
        &self,
        user_id: &str,
        record: &AuditRecord,
        renames: &HistoryRenames,
    ) -> Result<Option<HistoryErasure>> {
        self.erase_history_now(user_id, record, renames).map(Some)
    }
    async fn versions_by_author(&self, author_id: &str) -> Result<Option<Vec<Version>>> {
        self.versions_by_author_now(author_id).map(Some)
    }
    async fn id_holders(&self, ids: &[String]) -> Result<Option<Vec<IdHolder>>> {
        self.id_holders_now(ids).map(Some)
    }
    async fn history_size(&self, user_id: &str) -> Result<Option<HistorySize>> {
        self.history_size_now(user_id).map(Some)
    }
    async fn versions(&self, query: &VersionQuery<'_>) -> Result<Option<Vec<Version>>> {
        self.versions_now(query).map(Some)
    }
}

impl EpisodeStore for InMemoryEntryStore {
    async fn put_episodes(&self, episodes: &[Episode]) -> Result<Option<usize>> {
        let mut all = self.episodes.try_borrow_mut().map_err(|_| busy())?;
        let mut written = 0;
        for episode in episodes {
            let user = all.entry(episode.user_id.clone()).or_default();
            if let Err(at) = user.binary_search_by(|e| e.id.cmp(&episode.id)) {
                user.insert(at, episode.clone());
                written += 1;
            }
        }
        Ok(Some(written))
    }
    async fn episodes(&self, query: &EpisodeQuery<'_>) -> Result<Option<Vec<Episode>>> {
        let all = self.episodes.try_borrow().map_err(|_| busy())?;
        Ok(Some(
            all.get(query.user_id)
                .map(|user| {
                    user.iter()
                        .filter(|e| episode_matches(e, query))
                        .cloned()
                        .collect()
                })
                .unwrap_or_default(),
        ))
    }
    async fn delete_episodes(&self, user_id: &str, before: Option<&str>) -> Result<Option<usize>> {
        let mut all = self.episodes.try_borrow_mut().map_err(|_| busy())?;
        let Some(user) = all.get_mut(user_id) else {
            return Ok(Some(0));
        };
        let count = user.len();
        match before {
            None => user.clear(),
            Some(before) => {
                user.retain(|e| crate::entries::recall::instant_at_or_after(&e.at, before))
            }
        }
        let deleted = count - user.len();
        if user.is_empty() {
            all.remove(user_id);
        }
        Ok(Some(deleted))
    }
}

impl InProcess for InMemoryEntryStore {
    fn with_entries<R>(&self, user_id: &str, f: impl FnOnce(&EntrySet) -> R) -> Option<R> {
        let users = self.users.try_borrow().ok()?;
        let empty = EntrySet::new();
        Some(f(users.get(user_id).unwrap_or(&empty)))
    }
}
