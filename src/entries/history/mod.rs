//! Entry history and the audit trail (behaviour §8.3; docs/reference/history.md): every change to an entry
//! keeps the state it replaced as a [`Version`] — its value, category, visibility, groups and
//! writer, when it was current (`validFrom` inclusive, `validUntil` exclusive), who ended it and
//! why, and the entry that holds the state after it — and every operation is an
//! [`AuditRecord`] (never a value). Reads of the current state are unchanged; [`entry_history`],
//! [`as_of`] and [`read_audit`] read the past.
//!
//! One rule decides what is kept, [`Versioned`]: a store wrapper that every write path of the
//! core goes through (tools, REST and MCP, properties, Dream, the legacy migration). Before it
//! changes or deletes an entry it reads the entry's current state and appends that state as a
//! version, with the audit record, in one store call ([`EntryStore::append_history`](crate::entries::store::EntryStore::append_history)), then makes
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
use crate::error::Result;
use crate::host::Clock;
use chrono::{Duration, SecondsFormat};
use serde::{Deserialize, Serialize};
use serde_json::Value;

pub use crate::entries::author::{Author, AuthorKind};

mod as_of;
mod ids;
mod read;
mod versioned;

pub use as_of::*;
pub use ids::*;
pub use read::*;
pub use versioned::*;

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

/// One append to a user's history ([`EntryStore::append_history`](crate::entries::store::EntryStore::append_history)): versions and audit records,
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

/// Which audit records [`EntryStore::audit_log`](crate::entries::store::EntryStore::audit_log) answers: of one user or of all, from `since`
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

/// How much history a store keeps of a user ([`EntryStore::history_size`](crate::entries::store::EntryStore::history_size)). JSON:
/// `{ "versions": 12, "audit": 40 }`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, Serialize, Deserialize)]
pub struct HistorySize {
    /// Versions kept.
    pub versions: u64,
    /// Audit records kept.
    pub audit: u64,
}

/// What an erasure renames in the rest of the history ([`EntryStore::erase_history`](crate::entries::store::EntryStore::erase_history)): the
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

/// What [`EntryStore::erase_history`](crate::entries::store::EntryStore::erase_history) did: the erased user's versions and audit records removed,
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

/// Which versions [`EntryStore::versions`](crate::entries::store::EntryStore::versions) answers: the user's, narrowed to one entry or to the
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
