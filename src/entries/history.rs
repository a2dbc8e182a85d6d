//! Entry history and the audit trail (behaviour §8.3; docs/history.md): every change to an entry
//! keeps the state it replaced as a [`Version`] — its value, category, visibility, groups and
//! writer, when it was current (`validFrom` inclusive, `validUntil` exclusive), who ended it and
//! why, and the entry that holds the state after it — and every operation is an
//! [`AuditRecord`] (never a value). Reads of the current state are unchanged; [`entry_history`],
//! [`as_of`] and [`read_audit`] read the past.
//!
//! One rule decides what is kept, [`Versioned`]: a store wrapper that every write path of the
//! core goes through (tools, REST and MCP, properties, Dream, the legacy migration). Before it
//! changes or deletes an entry it reads the entry's current state and appends that state as a
//! version, with the audit record, in one store call ([`EntryStore::append_history`]), then makes
//! the change. The append comes *before* its change, so a change that then fails leaves a version
//! whose state is still the current one: history may show a state twice, it never misses one; a
//! failed append refuses the change. A version's id is derived from its content (entry, instants,
//! state, author, reason), so appending the same version twice stores it once.
//!
//! Retention ([`HistoryConfig`]) is applied by the store on every append: the changed entries
//! keep their newest `maxVersionsPerEntry` versions, and the user's versions and audit records
//! older than `now − retainDays` are dropped (an erasure's record stays). A store that keeps no
//! history (a host store without `appendHistory`) makes every write behave as before history
//! existed.

use super::config::HistoryConfig;
use super::entry::Entry;
use super::recall::{parsed, Instant};
use super::store::{
    CapWrite, EntrySet, EntryStore, IdHolder, OwnQuery, ProfileInsert, RecallQuery, StoredVector,
    UnembeddedQuery, VectorWrite,
};
use crate::error::Result;
use crate::host::Clock;
use chrono::{Duration, SecondsFormat};
use serde::{Deserialize, Serialize};
use serde_json::Value;

/// Who made a change: the kind of writer and, where there is one, its id.
///
/// JSON: `{ "kind": "agent", "id": "agent-b" }`, `{ "kind": "dream", "id": "agent-a" }` (the
/// agent whose schedule ran it), `{ "kind": "rest", "id": "alice" }` (the principal, `null` when
/// the host named none), `{ "kind": "mcp", … }`, `{ "kind": "migration", "id": null }`.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Author {
    /// What kind of writer.
    pub kind: AuthorKind,
    /// The agent, the principal, or `null`.
    pub id: Option<String>,
}

/// The kinds of [`Author`].
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum AuthorKind {
    /// An agent through the LLM tools or a `longTerm` property (`id`: the agent).
    Agent,
    /// A Dream run (`id`: the agent whose schedule fired it).
    Dream,
    /// A REST request or a direct library call (`id`: the principal, when known).
    Rest,
    /// An MCP tool call (`id`: the principal).
    Mcp,
    /// The legacy migration.
    Migration,
    /// Learned from a conversation turn (`learnFromTurn`, behaviour §8.6; `id`: the agent).
    Learned,
}

impl Author {
    /// The author of a REST request or an MCP tool call (`principal`: who the host
    /// authenticated, when known).
    pub fn of_surface(
        surface: crate::entries::write_rules::Surface,
        principal: Option<&str>,
    ) -> Author {
        let kind = match surface {
            crate::entries::write_rules::Surface::Rest => AuthorKind::Rest,
            crate::entries::write_rules::Surface::Mcp => AuthorKind::Mcp,
        };
        Author::new(kind, principal)
    }

    /// An author of `kind` with `id`.
    pub fn new(kind: AuthorKind, id: Option<&str>) -> Author {
        Author {
            kind,
            id: id.map(str::to_string),
        }
    }
}

/// Why a state ended.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Reason {
    /// The entry was given a new value, category, visibility or groups by its own writer.
    Updated,
    /// A global entry was replaced by another writer (cross-agent overwrite).
    Overwritten,
    /// The entry was deleted (`forgetFact`, REST/MCP delete).
    Deleted,
    /// Deleted by a delete-all of the user's entries.
    DeletedAll,
    /// Evicted to make room for a new entry at the cap.
    Evicted,
    /// Deleted by Dream as stale.
    Pruned,
    /// Replaced or deleted by a Dream summary (`supersededBy`: the summary).
    Summarised,
    /// Dream put an original back after a failed consolidation.
    RolledBack,
    /// Replaced by a restored version.
    Restored,
    /// Replaced by the legacy migration.
    Migrated,
}

/// A past state of an entry (behaviour §8.3). JSON (camelCase):
///
/// ```json
/// { "id": "e1~3f2a…", "entryId": "e1", "userId": "u1", "key": "city", "value": "Porto",
///   "category": "fact", "visibility": "global", "sourceAgentId": "agent-a", "groupIds": [],
///   "sourceConversationId": null, "createdAt": "…", "validFrom": "2026-01-01T00:00:00.000Z",
///   "validUntil": "2026-01-02T00:00:00.000Z", "author": { "kind": "agent", "id": "agent-b" },
///   "reason": "overwritten", "supersededBy": "e1" }
/// ```
///
/// `validFrom` is the state's `updatedAt` (inclusive), `validUntil` the instant of the change
/// that ended it (exclusive; always `YYYY-MM-DDTHH:MM:SS.sssZ`, so text order is time order),
/// `author` who made that change, `supersededBy` the id of the entry holding the next state (the
/// same entry after an update, the summary after a Dream summary, `null` after a delete). The
/// state's own writer is `sourceAgentId`. An unknown field is refused wherever a version is read
/// (an import, a store's answer): a version is exactly what the core wrote.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub struct Version {
    /// This version's id: `<entryId>~<16 hex digits of its content>`.
    pub id: String,
    /// The entry.
    pub entry_id: String,
    /// Its owner.
    pub user_id: String,
    /// The key then.
    pub key: String,
    /// The value then.
    pub value: Value,
    /// The category then.
    pub category: String,
    /// The visibility then.
    pub visibility: String,
    /// Who wrote that state.
    pub source_agent_id: Option<String>,
    /// Its groups then.
    pub group_ids: Vec<String>,
    /// The conversation that state was written in.
    pub source_conversation_id: Option<String>,
    /// When the entry was created.
    pub created_at: String,
    /// When this state became current (inclusive).
    pub valid_from: String,
    /// When it ended (exclusive).
    pub valid_until: String,
    /// Who ended it.
    pub author: Author,
    /// Why.
    pub reason: Reason,
    /// The entry that holds the next state, if any.
    pub superseded_by: Option<String>,
}

/// One append to a user's history ([`EntryStore::append_history`]): versions and audit records,
/// all of `userId`, then the retention — every version of the entries just versioned beyond the
/// newest `maxVersionsPerEntry` (by `validUntil`, then id) is dropped, and so is every version of
/// the user whose `validUntil` is before `notBefore` and every audit record of the user whose
/// `at` is before it (an `erase` record excepted). JSON: `{ "userId": "u1", "versions": […],
/// "audit": […], "maxVersionsPerEntry": 10, "notBefore": "2026-01-01T00:00:00.000Z" }`.
#[derive(Debug, Clone, PartialEq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct HistoryAppend<'a> {
    /// The user every version and record is of.
    pub user_id: &'a str,
    /// Versions to keep (an id already kept is skipped).
    pub versions: &'a [Version],
    /// Audit records to append (the store numbers them: `seq`).
    pub audit: &'a [AuditRecord],
    /// Versions kept per entry.
    pub max_versions_per_entry: u64,
    /// What ended (versions) or happened (audit records) before this instant is dropped.
    pub not_before: String,
}

/// What an audit record says happened (behaviour §8.3).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Operation {
    /// An entry was written (created or changed).
    Write,
    /// An entry was deleted.
    Delete,
    /// An entry was given a past state again ([`restore_version`]).
    Restore,
    /// Everything of the user was erased (Art. 17): the one record of the user that erasure
    /// leaves, with how many items went.
    Erase,
    /// Processing was restricted (Art. 18).
    Restrict,
    /// The restriction was lifted.
    Unrestrict,
    /// The user's data was imported (`items`: entries).
    Import,
    /// The user's data was exported (Art. 15/20).
    Export,
    /// A turn was learned from (`learnFromTurn`, behaviour §8.6): `items` is how many of its
    /// messages were newly kept as episodes, `source` the conversation, the turn's episode ids and
    /// its time. Each fact the turn wrote has its own `write`/`delete` record with the same
    /// `source`.
    Learn,
}

/// Where a learned change came from (behaviour §8.6): the conversation, the episodes of the turn
/// (its messages as `learnFromTurn` kept them; empty when episodes are off or none was kept) and
/// the turn's time. JSON: `{ "conversationId": "c1", "episodeIds": ["ep-…"], "at": "2026-…Z" }`.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct Source {
    /// The conversation.
    pub conversation_id: String,
    /// The turn's episodes.
    #[serde(default)]
    pub episode_ids: Vec<String>,
    /// When the turn happened (millisecond UTC text).
    pub at: String,
}

/// One audit record: what happened, when, by whom, to which user, entry and key — never a
/// value. JSON: `{ "seq": 7, "at": "2026-05-01T10:00:00.000Z", "actor": { "kind": "rest", "id":
/// "alice" }, "operation": "write", "userId": "u1", "entryId": "e1", "key": "city", "items":
/// null }` (`seq`: the store's number, ascending in append order; absent on an append).
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct AuditRecord {
    /// The store's number of the record.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub seq: Option<u64>,
    /// When (millisecond UTC text).
    pub at: String,
    /// Who.
    pub actor: Author,
    /// What.
    pub operation: Operation,
    /// Whose data.
    pub user_id: String,
    /// The entry, for an entry's operation.
    #[serde(default)]
    pub entry_id: Option<String>,
    /// Its key.
    #[serde(default)]
    pub key: Option<String>,
    /// How many items (an erasure, an import, an export, a learning's new episodes).
    #[serde(default)]
    pub items: Option<u64>,
    /// Where a learned change came from (`learn`, and the `write`/`delete` records of learned
    /// facts); absent otherwise.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub source: Option<Source>,
}

impl AuditRecord {
    /// A record of `operation` on `user_id` by `actor` at `at`.
    pub fn new(at: &str, actor: &Author, operation: Operation, user_id: &str) -> AuditRecord {
        AuditRecord {
            seq: None,
            at: at.to_string(),
            actor: actor.clone(),
            operation,
            user_id: user_id.to_string(),
            entry_id: None,
            key: None,
            items: None,
            source: None,
        }
    }

    /// The record about one entry.
    pub fn of_entry(mut self, entry: &Entry) -> AuditRecord {
        self.entry_id = Some(entry.id.clone());
        self.key = Some(entry.key.clone());
        self
    }

    /// The record counting `items`.
    pub fn counting(mut self, items: u64) -> AuditRecord {
        self.items = Some(items);
        self
    }

    /// The record of a learned change from `source`.
    pub fn from_source(mut self, source: Option<&Source>) -> AuditRecord {
        self.source = source.cloned();
        self
    }
}

/// Which audit records [`EntryStore::audit_log`] answers: of one user or of all, from `since`
/// (inclusive), the first `limit` in `seq` order after `afterSeq`. JSON: `{ "userId": "u1",
/// "since": "…", "afterSeq": 0, "limit": 100 }` (absent: any user, any time, from the start).
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct AuditQuery<'a> {
    /// Only this user's records.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub user_id: Option<&'a str>,
    /// Only records at or after this instant (millisecond UTC text).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub since: Option<&'a str>,
    /// Only records numbered above this (paging).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub after_seq: Option<u64>,
    /// At most this many.
    pub limit: u64,
}

/// How much history a store keeps of a user ([`EntryStore::history_size`]). JSON:
/// `{ "versions": 12, "audit": 40 }`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, Serialize, Deserialize)]
pub struct HistorySize {
    /// Versions kept.
    pub versions: u64,
    /// Audit records kept.
    pub audit: u64,
}

/// What an erasure renames in the rest of the history ([`EntryStore::erase_history`]): the
/// erased user's id, where it names who acted in another user's audit record (`actor.id`),
/// becomes `pseudonym` (the erasure record's own name of the user); and each other user's
/// version the erased user ended (`author.id`) is replaced by the same state under the pseudonym
/// — a new version id, since a version's id is derived from its content. JSON: `{ "pseudonym":
/// "sha256:…", "versions": [{ "replaces": "e1~…", "version": { … } }] }`.
#[derive(Debug, Clone, PartialEq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct HistoryRenames {
    /// The name that replaces the erased user's id.
    pub pseudonym: String,
    /// Versions to replace (the old id goes, the renamed version comes, in the erasure's
    /// transaction).
    pub versions: Vec<VersionRename>,
}

/// One version an erasure renames ([`HistoryRenames`]).
#[derive(Debug, Clone, PartialEq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct VersionRename {
    /// The id of the version replaced.
    pub replaces: String,
    /// The same state with the pseudonym as its author, under its own content id.
    pub version: Version,
}

/// What [`EntryStore::erase_history`] did: the erased user's versions and audit records removed,
/// and what it renamed in other users' history (`null`: a store that does not rename). JSON:
/// `{ "versions": 3, "audit": 9, "renamed": { "audit": 2, "versions": 1 } }`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, Serialize, Deserialize)]
pub struct HistoryErasure {
    /// The user's versions removed.
    pub versions: u64,
    /// The user's audit records removed.
    pub audit: u64,
    /// Other users' audit records and versions that named the user and now name the pseudonym.
    #[serde(default)]
    pub renamed: Option<Renamed>,
}

/// Counts of [`HistoryErasure::renamed`]. JSON: `{ "audit": 2, "versions": 1 }`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, Serialize, Deserialize)]
pub struct Renamed {
    /// Other users' audit records whose actor was the user.
    pub audit: u64,
    /// Other users' versions the user had ended.
    pub versions: u64,
}

/// Which versions [`EntryStore::versions`] answers: the user's, narrowed to one entry or to the
/// states that had one key. JSON: `{ "userId": "u1", "entryId": "e1" }` or
/// `{ "userId": "u1", "key": "city" }` or `{ "userId": "u1" }`.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct VersionQuery<'a> {
    /// The owner.
    pub user_id: &'a str,
    /// Only this entry's versions.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub entry_id: Option<&'a str>,
    /// Only versions whose key was this.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub key: Option<&'a str>,
}

/// The start of the retention window of `days` ending at `now` (millisecond UTC text).
pub fn not_before(now: chrono::DateTime<chrono::Utc>, days: u64) -> String {
    let days = i64::try_from(days).unwrap_or(i64::MAX);
    let start = now
        .checked_sub_signed(Duration::try_days(days).unwrap_or(Duration::MAX))
        .unwrap_or(chrono::DateTime::<chrono::Utc>::MIN_UTC);
    instant_text(start)
}

/// A millisecond UTC instant as history writes it.
pub fn instant_text(at: chrono::DateTime<chrono::Utc>) -> String {
    at.to_rfc3339_opts(SecondsFormat::Millis, true)
}

/// Whether replacing `old` by `new` ends `old`'s state (so history keeps it): a reader sees
/// another key, value, category, visibility, groups, writer or owner, or the state is dated
/// anew (`updatedAt` moved: without the version, `asOf` between the two instants would find
/// nothing). Access counts and the `conflicted` mark alone are not a new state.
pub fn is_new_state(old: &Entry, new: &Entry) -> bool {
    old.updated_at != new.updated_at
        || old.key != new.key
        || old.value != new.value
        || old.category != new.category
        || old.visibility != new.visibility
        || old.group_ids != new.group_ids
        || old.source_agent_id != new.source_agent_id
        || old.user_id != new.user_id
}

/// 64-bit FNV-1a, fed field by field (each field followed by a 0xFF byte, which UTF-8 never
/// holds, so field boundaries cannot shift).
struct Fnv(u64);

impl Fnv {
    fn feed(&mut self, text: &str) {
        for byte in text.bytes().chain(std::iter::once(0xFF)) {
            self.0 ^= u64::from(byte);
            self.0 = self.0.wrapping_mul(0x0100_0000_01b3);
        }
    }
}

impl Version {
    /// The version of `old`, ended at `until` by `author` for `reason`, its next state in
    /// `superseded_by`.
    pub fn of(
        old: &Entry,
        until: String,
        author: &Author,
        reason: Reason,
        superseded_by: Option<&str>,
    ) -> Version {
        let mut v = Version {
            id: String::new(),
            entry_id: old.id.clone(),
            user_id: old.user_id.clone(),
            key: old.key.clone(),
            value: old.value.clone(),
            category: old.category.clone(),
            visibility: old.visibility.clone(),
            source_agent_id: old.source_agent_id.clone(),
            group_ids: old.group_ids.clone(),
            source_conversation_id: old.source_conversation_id.clone(),
            created_at: old.created_at.clone(),
            valid_from: old.updated_at.clone(),
            valid_until: until,
            author: author.clone(),
            reason,
            superseded_by: superseded_by.map(str::to_string),
        };
        v.id = v.content_id();
        v
    }

    /// The id this version's content gives it: `<entryId>~<16 hex digits>` of a hash over every
    /// field but the id. A version read back (an import) is genuine only when its id is this.
    pub fn content_id(&self) -> String {
        format!("{}~{:016x}", self.entry_id, self.content_hash())
    }

    fn content_hash(&self) -> u64 {
        fn json<T: Serialize>(value: &T) -> String {
            serde_json::to_string(value).unwrap_or_default()
        }
        let mut h = Fnv(0xcbf2_9ce4_8422_2325);
        for part in [
            self.entry_id.clone(),
            self.user_id.clone(),
            self.key.clone(),
            json(&self.value),
            self.category.clone(),
            self.visibility.clone(),
            json(&self.source_agent_id),
            json(&self.group_ids),
            json(&self.source_conversation_id),
            self.created_at.clone(),
            self.valid_from.clone(),
            self.valid_until.clone(),
            json(&self.author),
            json(&self.reason),
            json(&self.superseded_by),
        ] {
            h.feed(&part);
        }
        h.0
    }

    /// The entry this version was: its state, created and updated as then (access count 0, not
    /// marked conflicted).
    pub fn as_entry(&self) -> Entry {
        Entry {
            id: self.entry_id.clone(),
            user_id: self.user_id.clone(),
            key: self.key.clone(),
            value: self.value.clone(),
            category: self.category.clone(),
            visibility: self.visibility.clone(),
            source_agent_id: self.source_agent_id.clone(),
            group_ids: self.group_ids.clone(),
            source_conversation_id: self.source_conversation_id.clone(),
            conflicted: false,
            access_count: 0,
            created_at: self.created_at.clone(),
            updated_at: self.valid_from.clone(),
            written_by: None,
        }
    }
}

/// Newest first: `validUntil` descending, then id descending (ties are broken by id).
pub fn newest_first(versions: &mut [Version]) {
    crate::order::sort_by(versions, |a, b| {
        let at = |v: &Version| parsed(&v.valid_until);
        at(b)
            .cmp(&at(a))
            .then_with(|| b.valid_until.cmp(&a.valid_until))
            .then_with(|| b.id.cmp(&a.id))
    });
}

/// The user's entries as they were at `at` (behaviour §8.3, `asOf`): for each entry id, among its
/// current state (valid from its `updatedAt` on) and its versions (valid from `validFrom`
/// inclusive to `validUntil` exclusive), the state that holds `at` — the latest `validFrom`
/// when several do (a clock that went back), then the current state, then the greatest version
/// id. An entry with no state at `at` (created later, or deleted before) is absent. A past state
/// carries its entry's current access count (counts are not versioned) and is never marked
/// conflicted. A timestamp that is not RFC 3339 counts as the beginning of time. Entries come
/// back in id order.
pub fn as_of(current: Vec<Entry>, versions: Vec<Version>, at: &str) -> Vec<Entry> {
    let Some(at) = parsed(at) else {
        return Vec::new();
    };
    let start = |text: &str| parsed(text).unwrap_or((i64::MIN, 0));
    // Per entry id: (validFrom, rank, version id) of the best state so far, and the state.
    // Rank 1 is the current state, 0 a version: the current one wins a tie on validFrom.
    type Best = ((Instant, u8, String), Entry);
    let mut best: std::collections::BTreeMap<String, Best> = std::collections::BTreeMap::new();
    let mut counts = std::collections::HashMap::new();
    let mut offer = |id: String, rank: (Instant, u8, String), state: Entry| {
        if best.get(&id).map_or(true, |(held, _)| rank > *held) {
            best.insert(id, (rank, state));
        }
    };
    for entry in current {
        counts.insert(entry.id.clone(), entry.access_count);
        let from = start(&entry.updated_at);
        if from <= at {
            offer(entry.id.clone(), (from, 1, String::new()), entry);
        }
    }
    for version in versions {
        let (from, until) = (start(&version.valid_from), start(&version.valid_until));
        if from <= at && at < until {
            let rank = (from, 0, version.id.clone());
            offer(version.entry_id.clone(), rank, version.as_entry());
        }
    }
    best.into_values()
        .map(|(_, mut state)| {
            state.access_count = counts.get(&state.id).copied().unwrap_or(0);
            state
        })
        .collect()
}

/// The user's entries as they were at `at` ([`as_of`]) read from the store: its current entries
/// and every version it keeps of the user. `None` when the store keeps no history.
pub async fn entries_as_of<S: EntryStore>(
    store: &S,
    user_id: &str,
    at: &str,
) -> Result<Option<Vec<Entry>>> {
    let query = VersionQuery {
        user_id,
        entry_id: None,
        key: None,
    };
    let Some(versions) = store.versions(&query).await? else {
        return Ok(None);
    };
    let versions = versions
        .into_iter()
        .filter(|v| v.user_id == user_id)
        .collect();
    let current = store.list(user_id).await?;
    let current = current
        .into_iter()
        .filter(|e| e.user_id == user_id)
        .collect();
    Ok(Some(as_of(current, versions, at)))
}

/// `asOf` of a read: an RFC 3339 time, else `E_ARGUMENT` naming `argument` of `function`.
pub fn check_as_of(function: &str, argument: &str, at: &str) -> Result<()> {
    match parsed(at) {
        Some(_) => Ok(()),
        None => Err(crate::error::Error::argument(
            function,
            argument,
            "an RFC 3339 time like 2026-05-01T12:00:00Z",
        )),
    }
}

/// A store holding the user's entries as they were at `at` ([`entries_as_of`]), for a read with
/// `asOf` to run the same rules on as on the current state. Its entries have no vectors (a past
/// state's vector is not kept): a `hybrid` search of the past ranks lexically. `E_ARGUMENT` when
/// the store keeps no history.
pub async fn snapshot_as_of<S: EntryStore>(
    store: &S,
    function: &str,
    user_id: &str,
    at: &str,
) -> Result<super::store::InMemoryEntryStore> {
    check_as_of(function, "options.asOf", at)?;
    let entries = entries_as_of(store, user_id, at).await?.ok_or_else(|| {
        crate::error::Error::argument(
            function,
            "options.asOf",
            "used with a store that keeps history (with appendHistory and versions)",
        )
    })?;
    let snapshot = super::store::InMemoryEntryStore::new();
    snapshot.load_now(entries, "", &[])?;
    Ok(snapshot)
}

/// The history of an entry or a key ([`entry_history`]).
#[derive(Debug, Clone, PartialEq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct History {
    /// The current entries it is about (the entry, or every entry of the user with the key).
    pub current: Vec<Entry>,
    /// Their past states, newest first.
    pub versions: Vec<Version>,
}

/// What [`entry_history`] reads: one entry by id, or every entry of the user with a key.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum HistorySelector<'a> {
    /// The entry with this id.
    Entry(&'a str),
    /// Every entry of the user whose key is (or was) this.
    Key(&'a str),
}

/// The history of one of the user's entries, or of a key: the current state(s) and every version
/// kept, newest first. `None` when the store keeps no history. Reserved (`_gdpr_`) keys are
/// bookkeeping: their history is not shown, as their current state is not.
pub async fn entry_history<S: EntryStore>(
    store: &S,
    user_id: &str,
    selector: HistorySelector<'_>,
) -> Result<Option<History>> {
    let query = match selector {
        HistorySelector::Entry(id) => VersionQuery {
            user_id,
            entry_id: Some(id),
            key: None,
        },
        HistorySelector::Key(key) => VersionQuery {
            user_id,
            entry_id: None,
            key: Some(key),
        },
    };
    let Some(found) = store.versions(&query).await? else {
        return Ok(None);
    };
    let shown = |key: &str, user: &str| user == user_id && !super::visibility::is_reserved_key(key);
    let mut versions: Vec<Version> = found
        .into_iter()
        .filter(|v| shown(&v.key, &v.user_id))
        .filter(|v| match selector {
            HistorySelector::Entry(id) => v.entry_id == id,
            HistorySelector::Key(key) => v.key == key,
        })
        .collect();
    let mut seen = std::collections::HashSet::new();
    versions.retain(|v| seen.insert(v.id.clone()));
    newest_first(&mut versions);
    let current = match selector {
        HistorySelector::Entry(id) => store
            .get(id)
            .await?
            .filter(|e| e.id == id && shown(&e.key, &e.user_id))
            .into_iter()
            .collect(),
        HistorySelector::Key(key) => super::store::with_key(store, user_id, key)
            .await?
            .into_iter()
            .filter(|e| shown(&e.key, &e.user_id))
            .collect(),
    };
    Ok(Some(History { current, versions }))
}

/// A clock that always answers one instant: what dates the changes of an operation that has its
/// own instant (a Dream run's `now`).
#[derive(Debug, Clone, Copy)]
pub struct At(pub chrono::DateTime<chrono::Utc>);

impl Clock for At {
    fn now(&self) -> chrono::DateTime<chrono::Utc> {
        self.0
    }
}

/// Who makes an operation's changes and the history they are kept in: what the write functions
/// that have no configuration of their own take ([`Writer::store`]).
pub struct Writer<'a, C> {
    /// The clock that dates the changes.
    pub clock: &'a C,
    /// The history settings.
    pub history: &'a HistoryConfig,
    /// Who makes the changes.
    pub author: &'a Author,
}

impl<C> Clone for Writer<'_, C> {
    fn clone(&self) -> Self {
        *self
    }
}

impl<C> Copy for Writer<'_, C> {}

impl<'a, C: Clock> Writer<'a, C> {
    /// `store` as this writer changes it.
    pub fn store<S: EntryStore>(self, store: &'a S) -> Versioned<'a, S, C> {
        Versioned::new(store, self.clock, self.history, self.author)
    }
}

/// `entryHistory` (behaviour §8.3): the history of the entry `entry_id` or of the key `key` of
/// `user_id` — exactly one of the two. `E_ARGUMENT` when both or neither is given, or when the
/// store keeps no history (it has no `versions`).
pub async fn read_history<S: EntryStore>(
    store: &S,
    user_id: &str,
    entry_id: Option<&str>,
    key: Option<&str>,
) -> Result<History> {
    const FN: &str = "entryHistory";
    let selector = match (entry_id, key) {
        (Some(id), None) => HistorySelector::Entry(id),
        (None, Some(key)) => HistorySelector::Key(key),
        _ => {
            return Err(crate::error::Error::argument(
                FN,
                "request",
                "{ userId, entryId } or { userId, key } (exactly one of entryId and key)",
            ))
        }
    };
    entry_history(store, user_id, selector).await?.ok_or_else(|| {
        crate::error::Error::argument(
            FN,
            "store",
            "a store that keeps history (with appendHistory and versions, as every bundled store has)",
        )
    })
}

/// The default and the largest `limit` of [`read_audit`].
pub const AUDIT_LIMIT: (u64, u64) = (100, 1000);

/// `auditLog` (behaviour §8.3): the audit records of one user (or of all), from `since` (RFC 3339,
/// inclusive), after `after_seq` (paging), at most `limit` (1–1000, default 100), in `seq`
/// order. `E_ARGUMENT` for a bad `since` or `limit`, or a store that keeps no audit log.
pub async fn read_audit<S: EntryStore>(
    store: &S,
    user_id: Option<&str>,
    since: Option<&str>,
    after_seq: Option<u64>,
    limit: Option<u64>,
) -> Result<Vec<AuditRecord>> {
    const FN: &str = "auditLog";
    let since = match since {
        Some(text) => {
            let (s, n) = parsed(text).ok_or_else(|| {
                crate::error::Error::argument(FN, "request.since", "an RFC 3339 time")
            })?;
            let at = chrono::DateTime::from_timestamp(s, n).ok_or_else(|| {
                crate::error::Error::argument(FN, "request.since", "a time within years 1–9999")
            })?;
            Some(instant_text(at))
        }
        None => None,
    };
    let limit = limit.unwrap_or(AUDIT_LIMIT.0);
    if !(1..=AUDIT_LIMIT.1).contains(&limit) {
        return Err(crate::error::Error::argument(
            FN,
            "request.limit",
            "between 1 and 1000",
        ));
    }
    let query = AuditQuery {
        user_id,
        since: since.as_deref(),
        after_seq,
        limit,
    };
    let mut records = store.audit_log(&query).await?.ok_or_else(|| {
        crate::error::Error::argument(
            FN,
            "request.store",
            "a store that keeps an audit log (with auditLog, as every bundled store has)",
        )
    })?;
    // The record of an erasure names the user by its SHA-256 (behaviour §8.3): looked up too.
    let erased = user_id.map(crate::rights::erased_name);
    if let Some(name) = &erased {
        let query = AuditQuery {
            user_id: Some(name),
            ..query
        };
        records.extend(store.audit_log(&query).await?.unwrap_or_default());
    }
    records.retain(|r| {
        user_id.map_or(true, |u| r.user_id == u) || erased.as_ref() == Some(&r.user_id)
    });
    crate::order::sort_by(&mut records, |a, b| a.seq.cmp(&b.seq));
    records.truncate(usize::try_from(limit).unwrap_or(usize::MAX));
    Ok(records)
}

/// The entry store every write of the core goes through: reads pass through; a write that
/// replaces or deletes an entry's state first appends that state as a [`Version`] (see the
/// module documentation). Built per operation with its author; [`Versioned::because`] and
/// [`Versioned::superseded_by`] name the reason and the next state where the write itself does
/// not say (a Dream prune, a summary).
pub struct Versioned<'a, S, C> {
    store: &'a S,
    clock: &'a C,
    config: &'a HistoryConfig,
    author: &'a Author,
    reason: Option<Reason>,
    superseded_by: Option<&'a str>,
    /// Where the changes come from (learned facts), stamped on their audit records.
    source: Option<&'a Source>,
    /// Ids whose eviction is already kept: a store without `insertWithinCap` has the core delete
    /// them next, and that delete is not a second version.
    evicted: std::cell::RefCell<Vec<String>>,
    /// The id of a capped write already audited, which the core then writes itself.
    written: std::cell::RefCell<Option<String>>,
}

impl<S, C> Clone for Versioned<'_, S, C> {
    fn clone(&self) -> Self {
        Versioned {
            store: self.store,
            clock: self.clock,
            config: self.config,
            author: self.author,
            reason: self.reason,
            superseded_by: self.superseded_by,
            source: self.source,
            evicted: std::cell::RefCell::default(),
            written: std::cell::RefCell::default(),
        }
    }
}

impl<'a, S: EntryStore, C: Clock> Versioned<'a, S, C> {
    /// `store` with history kept as `config` says, every change made by `author`.
    pub fn new(store: &'a S, clock: &'a C, config: &'a HistoryConfig, author: &'a Author) -> Self {
        Versioned {
            store,
            clock,
            config,
            author,
            reason: None,
            superseded_by: None,
            source: None,
            evicted: std::cell::RefCell::default(),
            written: std::cell::RefCell::default(),
        }
    }

    /// The same store, every change's audit record naming `source` (learned facts).
    pub fn from_source(&self, source: &'a Source) -> Self {
        let mut next = self.clone();
        next.source = Some(source);
        next
    }

    /// The same store, every change recorded with `reason`.
    pub fn because(&self, reason: Reason) -> Self {
        let mut next = self.clone();
        next.reason = Some(reason);
        next
    }

    /// The same store, every deleted or replaced state superseded by entry `id`.
    pub fn superseded_by(&self, id: &'a str) -> Self {
        let mut next = self.clone();
        next.superseded_by = Some(id);
        next
    }

    /// Append `versions` and `audit` (all of `user_id`) with the retention of now. A store
    /// without history takes nothing.
    async fn record(
        &self,
        user_id: &str,
        versions: &[Version],
        audit: &[AuditRecord],
        now: chrono::DateTime<chrono::Utc>,
    ) -> Result<()> {
        let append = HistoryAppend {
            user_id,
            versions,
            audit,
            max_versions_per_entry: self.config.max_versions_per_entry,
            not_before: not_before(now, self.config.retain_days),
        };
        self.store.append_history(&append).await?;
        Ok(())
    }

    /// The audit record of `operation` on `entry` now, by this store's author.
    fn audit(&self, at: &str, operation: Operation, entry: &Entry) -> AuditRecord {
        AuditRecord::new(at, self.author, operation, &entry.user_id)
            .of_entry(entry)
            .from_source(self.source)
    }

    /// The version of `old` ended now (by this store's author and reason).
    fn version(&self, old: &Entry, now: &str, default: Reason, next: Option<&str>) -> Version {
        Version::of(
            old,
            now.to_string(),
            self.author,
            self.reason.unwrap_or(default),
            self.superseded_by.or(next),
        )
    }

    /// `entry` written by this store's author, unless it already is or this is a rollback
    /// (which restores an entry as it was, author included).
    fn stamped(&self, entry: &Entry) -> Option<Entry> {
        let rollback = self.reason == Some(Reason::RolledBack);
        (!rollback && entry.written_by != Some(self.author.kind))
            .then(|| entry.clone().by(self.author))
    }

    /// Whether changes are kept: history is on and the store keeps it.
    fn keeping(&self) -> bool {
        self.config.enabled && self.store.keeps_history()
    }

    /// Apply the retention to `user_id`'s history now (what Dream runs): nothing is appended.
    pub async fn apply_retention(&self, user_id: &str) -> Result<()> {
        if !self.keeping() {
            return Ok(());
        }
        self.record(user_id, &[], &[], self.clock.now()).await
    }

    /// Append one audit record now (an operation that is not an entry write: a restriction, an
    /// import, an export), with the retention of now.
    pub async fn log(&self, record: AuditRecord) -> Result<()> {
        if !self.keeping() {
            return Ok(());
        }
        let user = record.user_id.clone();
        self.record(&user, &[], &[record], self.clock.now()).await
    }
}

/// The reason a replacement of `old` by `new` has when the writer names none: another writer
/// replacing a global entry overwrites it; anything else updates it.
fn replacement_reason(old: &Entry, new: &Entry) -> Reason {
    if old.visibility == "global" && old.source_agent_id != new.source_agent_id {
        Reason::Overwritten
    } else {
        Reason::Updated
    }
}

impl<S: EntryStore, C: Clock> EntryStore for Versioned<'_, S, C> {
    async fn list(&self, user_id: &str) -> Result<Vec<Entry>> {
        self.store.list(user_id).await
    }
    async fn get(&self, id: &str) -> Result<Option<Entry>> {
        self.store.get(id).await
    }
    /// A replaced state is kept as a version; every write is an audit record. The entry is stored
    /// written by this store's author (a rollback puts the original back as it was).
    async fn upsert(&self, entry: &Entry) -> Result<()> {
        let stamped = self.stamped(entry);
        let entry = stamped.as_ref().unwrap_or(entry);
        let audited = self
            .written
            .borrow_mut()
            .take_if(|id| *id == entry.id)
            .is_some();
        if self.keeping() && !audited {
            let old = self
                .store
                .get(&entry.id)
                .await?
                .filter(|e| e.id == entry.id);
            let now = self.clock.now();
            let at = instant_text(now);
            let mut versions = Vec::new();
            if let Some(old) = old.filter(|old| is_new_state(old, entry)) {
                let reason = replacement_reason(&old, entry);
                versions.push(self.version(&old, &at, reason, Some(&entry.id)));
            }
            let operation = match self.reason {
                Some(Reason::Restored) => Operation::Restore,
                _ => Operation::Write,
            };
            let audit = [self.audit(&at, operation, entry)];
            self.record(&entry.user_id, &versions, &audit, now).await?;
        }
        self.store.upsert(entry).await
    }
    /// The deleted state is kept as a version, and the delete is an audit record.
    async fn delete(&self, id: &str) -> Result<bool> {
        let already = {
            let mut evicted = self.evicted.borrow_mut();
            let at = evicted.iter().position(|e| e == id);
            at.map(|at| evicted.swap_remove(at)).is_some()
        };
        if self.keeping() && !already {
            if let Some(old) = self.store.get(id).await?.filter(|e| e.id == id) {
                let now = self.clock.now();
                let at = instant_text(now);
                let version = self.version(&old, &at, Reason::Deleted, None);
                let audit = [self.audit(&at, Operation::Delete, &old)];
                self.record(&old.user_id, &[version], &audit, now).await?;
            }
        }
        self.store.delete(id).await
    }
    async fn increment_access(&self, ids: &[String]) -> Result<()> {
        self.store.increment_access(ids).await
    }
    async fn count_user(&self, user_id: &str) -> Result<Option<usize>> {
        self.store.count_user(user_id).await
    }
    async fn search(&self, user_id: &str, query: &str) -> Result<Option<Vec<Entry>>> {
        self.store.search(user_id, query).await
    }
    async fn recall(&self, query: &RecallQuery<'_>) -> Result<Option<Vec<Entry>>> {
        self.store.recall(query).await
    }
    async fn find_by_key(&self, user_id: &str, key: &str) -> Result<Option<Vec<Entry>>> {
        self.store.find_by_key(user_id, key).await
    }
    async fn oldest_own(&self, query: &OwnQuery<'_>) -> Result<Option<Vec<Entry>>> {
        self.store.oldest_own(query).await
    }
    /// The evicted entries' states are versioned (reason `evicted`) and audited as deletes, and
    /// the write audited, before the capped insert.
    async fn insert_within_cap(
        &self,
        entry: &Entry,
        max_entries: u64,
        evict: &[String],
    ) -> Result<Option<CapWrite>> {
        let stamped = self.stamped(entry);
        let entry = stamped.as_ref().unwrap_or(entry);
        if !self.keeping() {
            return self
                .store
                .insert_within_cap(entry, max_entries, evict)
                .await;
        }
        let now = self.clock.now();
        let at = instant_text(now);
        let mut versions = Vec::new();
        let mut audit = Vec::new();
        for id in evict {
            if let Some(old) = self.store.get(id).await?.filter(|e| &e.id == id) {
                if old.user_id == entry.user_id {
                    versions.push(self.version(&old, &at, Reason::Evicted, None));
                    audit.push(self.audit(&at, Operation::Delete, &old));
                }
            }
        }
        let operation = match self.reason {
            Some(Reason::Restored) => Operation::Restore,
            _ => Operation::Write,
        };
        audit.push(self.audit(&at, operation, entry));
        self.record(&entry.user_id, &versions, &audit, now).await?;
        let written = self
            .store
            .insert_within_cap(entry, max_entries, evict)
            .await?;
        if written.is_none() {
            // The core deletes and writes them itself next: their versions and records are kept
            // already.
            *self.evicted.borrow_mut() = evict.to_vec();
            *self.written.borrow_mut() = Some(entry.id.clone());
        }
        Ok(written)
    }
    async fn insert_all(
        &self,
        entries: &[Entry],
        profile: Option<ProfileInsert<'_>>,
    ) -> Result<bool> {
        self.store.insert_all(entries, profile).await
    }
    async fn vectors(&self, user_id: &str, model: &str) -> Result<Option<Vec<StoredVector>>> {
        self.store.vectors(user_id, model).await
    }
    async fn put_vectors(&self, rows: &[VectorWrite<'_>]) -> Result<Option<usize>> {
        self.store.put_vectors(rows).await
    }
    async fn unembedded(&self, query: &UnembeddedQuery<'_>) -> Result<Option<Vec<Entry>>> {
        self.store.unembedded(query).await
    }
    fn with_entries<R>(&self, user_id: &str, f: impl FnOnce(&EntrySet) -> R) -> Option<R> {
        self.store.with_entries(user_id, f)
    }
    async fn with_search_index<R>(
        &self,
        user_id: &str,
        model: Option<&str>,
        f: impl FnOnce(&EntrySet) -> R,
    ) -> Result<Option<R>> {
        self.store.with_search_index(user_id, model, f).await
    }
    async fn append_history(&self, append: &HistoryAppend<'_>) -> Result<bool> {
        self.store.append_history(append).await
    }
    fn keeps_history(&self) -> bool {
        self.store.keeps_history()
    }
    async fn audit_log(&self, query: &AuditQuery<'_>) -> Result<Option<Vec<AuditRecord>>> {
        self.store.audit_log(query).await
    }
    async fn erase_history(
        &self,
        user_id: &str,
        record: &AuditRecord,
        renames: &HistoryRenames,
    ) -> Result<Option<HistoryErasure>> {
        self.store.erase_history(user_id, record, renames).await
    }
    async fn versions_by_author(&self, author_id: &str) -> Result<Option<Vec<Version>>> {
        self.store.versions_by_author(author_id).await
    }
    async fn history_size(&self, user_id: &str) -> Result<Option<HistorySize>> {
        self.store.history_size(user_id).await
    }
    async fn id_holders(&self, ids: &[String]) -> Result<Option<Vec<IdHolder>>> {
        self.store.id_holders(ids).await
    }
    async fn versions(&self, query: &VersionQuery<'_>) -> Result<Option<Vec<Version>>> {
        self.store.versions(query).await
    }
    async fn put_episodes(
        &self,
        episodes: &[crate::entries::episode::Episode],
    ) -> Result<Option<usize>> {
        self.store.put_episodes(episodes).await
    }
    async fn episodes(
        &self,
        query: &crate::entries::episode::EpisodeQuery<'_>,
    ) -> Result<Option<Vec<crate::entries::episode::Episode>>> {
        self.store.episodes(query).await
    }
    async fn delete_episodes(&self, user_id: &str, before: Option<&str>) -> Result<Option<usize>> {
        self.store.delete_episodes(user_id, before).await
    }
}
