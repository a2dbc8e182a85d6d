//! The memory operations behind the HTTP and MCP surfaces (behaviour §2.8, §2.6, §4.3): one
//! implementation each, shared by REST (`memcore/server`) and the eight MCP tools, so the two
//! surfaces cannot disagree on ordering, visibility, search, identity, write rules or the cap.
//!
//! Each reuses the rule of the LLM tools: visible entries are the recall rule
//! ([`crate::entries::visibility::Viewer`], [`select_for_recall`]), search is the search rule
//! ([`search_terms`], [`matches_terms`]), writes are [`normalize_memory_write`] then identity
//! resolution ([`resolve_write_target`]) then the cap ([`store_new`], the code `rememberFact`
//! runs). Pushed-down store methods are used where the store has them, with the tools' fallbacks.
//!
//! Decisions where the behaviour reference is silent:
//! - Reads (list, visible, search, by key, count) never show `_gdpr_` entries (bookkeeping, like
//!   the tools), and never change `accessCount` (a REST `GET` is safe; a surface read is not a
//!   model's recall).
//! - Listing and search return the user's entries of **every** visibility (the caller is the
//!   user, or an admin), most recently updated first; `visible` is what one agent sees.
//! - `visible`: `agentId` is required; `order` defaults to `recallOrder`, `limit` to
//!   `maxRecallEntries`; `limit` is a whole number 1–[`MAX_VISIBLE_LIMIT`] (a number or its
//!   decimal text).
//! - By key: with an agent, that agent's own `self`/`group` entry first, else the global one
//!   (the `forgetFact` rule); without one, the global entry.
//! - Upsert: an unchanged value is not rewritten; a request `id` must be the id of the entry the
//!   write resolves to, or a fresh id when it creates one (never another entry's id: `invalid`;
//!   never an id another user's entry or kept history holds: `conflict`,
//!   [`super::ownership`]); while the user's processing is restricted (behaviour §4.3) nothing is
//!   stored.
//! - Delete by id refuses `_gdpr_` entries and, given an owner, another user's entry.

use super::capacity::{store_new, CapRefusal, CapScope, Known};
use super::config::{RecallOrder, SearchConfig, SearchMode, UserMemoryConfig, Visibility};
use super::embedding::store_vectors;
use super::entry::{Entry, EntryWrite};
use super::history::{Reason, Writer};
use super::ownership::{current, foreign, holders, FOREIGN_ID};
use super::recall::{recency_cmp, select_for_recall};
use super::reserved::names_reserved_key;
use super::search::modes::{ranked_search, SearchHosts};
use super::search::{matches_terms, search_terms};
use super::store::{with_key, EntryStore, RecallQuery};
use super::visibility::{is_reserved_key, resolve_write_target, Audience, Viewer};
use super::write_rules::{normalize_memory_write, Surface, Violation};
use crate::error::Result;
use crate::host::{Clock, Embedder, IdSource, Logger, Timer};
use crate::lock::UserLocks;
use crate::migrate::credentials::CredentialKind;
use crate::secrets::{guard_entry, EntryGuard};
use chrono::SecondsFormat;
use serde::Serialize;
use serde_json::Value;

/// The largest `limit` of a visible-entries query.
pub const MAX_VISIBLE_LIMIT: usize = super::limit::Limit::MAX as usize;

/// The user's entries as a surface shows them: theirs, not `_gdpr_`, each id once, most
/// recently updated first.
fn shown_to_owner(entries: Vec<Entry>, user_id: &str) -> Vec<Entry> {
    let mut seen = std::collections::HashSet::new();
    let mut out: Vec<Entry> = entries
        .into_iter()
        .filter(|e| e.user_id == user_id && !is_reserved_key(&e.key) && seen.insert(e.id.clone()))
        .collect();
    crate::order::sort_by(&mut out, recency_cmp);
    out
}

/// Every entry of the user (`GET /{userId}`, `list_user_memories`).
pub async fn list_user_memories<S: EntryStore>(store: &S, user_id: &str) -> Result<Vec<Entry>> {
    Ok(shown_to_owner(store.list(user_id).await?, user_id))
}

/// A checked visible-entries query (`GET /{userId}/visible`, `get_visible_memories`).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct VisibleQuery {
    /// The user.
    pub user_id: String,
    /// The agent that looks.
    pub agent_id: String,
    /// Its group, if any.
    pub group_id: Option<String>,
    /// The order.
    pub order: RecallOrder,
    /// At most this many.
    pub limit: usize,
}

fn violation(field: &str, message: impl Into<String>) -> Violation {
    Violation {
        field: field.to_string(),
        message: message.into(),
    }
}

fn text_field<'a>(map: &'a serde_json::Map<String, Value>, name: &str) -> Option<&'a str> {
    map.get(name)
        .and_then(Value::as_str)
        .map(str::trim)
        .filter(|s| !s.is_empty())
}

impl VisibleQuery {
    /// Check `{ userId, agentId, groupId?, order?, limit? }`; `Err` carries every violation.
    /// Absent `order`/`limit` come from `config`.
    pub fn parse(
        request: &Value,
        config: &UserMemoryConfig,
    ) -> std::result::Result<Self, Vec<Violation>> {
        let Some(map) = request.as_object() else {
            return Err(vec![violation("", "the query must be a JSON object")]);
        };
        let mut out = Vec::new();
        let user_id = text_field(map, "userId");
        if user_id.is_none() {
            out.push(violation(
                "userId",
                "userId is required (a non-empty string)",
            ));
        }
        let agent_id = text_field(map, "agentId");
        if agent_id.is_none() {
            out.push(violation(
                "agentId",
                "agentId is required: visibility is what one agent sees",
            ));
        }
        let group_id = match map.get("groupId") {
            None | Some(Value::Null) => None,
            Some(Value::String(g)) => Some(g.trim().to_string()).filter(|g| !g.is_empty()),
            Some(_) => {
                out.push(violation("groupId", "groupId must be a string"));
                None
            }
        };
        let order = match map.get("order") {
            None | Some(Value::Null) => Some(config.recall_order),
            Some(Value::String(o)) if o.is_empty() => Some(config.recall_order),
            Some(Value::String(o)) if o == "most_recent" => Some(RecallOrder::MostRecent),
            Some(Value::String(o)) if o == "most_accessed" => Some(RecallOrder::MostAccessed),
            Some(_) => {
                out.push(violation(
                    "order",
                    "order must be most_recent or most_accessed",
                ));
                None
            }
        };
        let default_limit = usize::try_from(config.max_recall_entries)
            .unwrap_or(MAX_VISIBLE_LIMIT)
            .clamp(1, MAX_VISIBLE_LIMIT);
        let limit = match map.get("limit") {
            None | Some(Value::Null) => Some(default_limit),
            Some(Value::String(t)) if t.is_empty() => Some(default_limit),
            Some(v) => {
                let n = match v {
                    Value::Number(n) => n.as_u64(),
                    Value::String(t) if t.bytes().all(|b| b.is_ascii_digit()) && t.len() <= 19 => {
                        t.parse::<u64>().ok()
                    }
                    _ => None,
                };
                match n.and_then(|n| usize::try_from(n).ok()) {
                    Some(n) if (1..=MAX_VISIBLE_LIMIT).contains(&n) => Some(n),
                    _ => {
                        out.push(violation(
                            "limit",
                            format!("limit must be a whole number from 1 to {MAX_VISIBLE_LIMIT}"),
                        ));
                        None
                    }
                }
            }
        };
        match (user_id, agent_id, order, limit) {
            (Some(u), Some(a), Some(order), Some(limit)) if out.is_empty() => Ok(VisibleQuery {
                user_id: u.to_string(),
                agent_id: a.to_string(),
                group_id,
                order,
                limit,
            }),
            _ => Err(out),
        }
    }
}

/// The entries one agent sees, in recall order, at most `limit` (the recall rule of behaviour §2.5,
/// without counting an access).
pub async fn visible_memories<S: EntryStore>(
    store: &S,
    query: &VisibleQuery,
) -> Result<Vec<Entry>> {
    let viewer = Viewer {
        user_id: &query.user_id,
        agent_id: &query.agent_id,
        group: query.group_id.as_deref(),
    };
    let in_place = store.with_entries(&query.user_id, |set| {
        set.recall(&viewer, query.order, query.limit)
            .into_iter()
            .cloned()
            .collect::<Vec<Entry>>()
    });
    if let Some(found) = in_place {
        return Ok(found);
    }
    let pushed = RecallQuery {
        user_id: &query.user_id,
        agent_id: &query.agent_id,
        group_id: query.group_id.as_deref(),
        order: query.order,
        limit: query.limit,
    };
    let candidates = match store.recall(&pushed).await? {
        Some(found) => found,
        None => store.list(&query.user_id).await?,
    };
    let shown: Vec<Entry> = super::store::unique(candidates)
        .into_iter()
        .filter(|e| viewer.shows(e))
        .collect();
    Ok(select_for_recall(&shown, query.order, query.limit)
        .into_iter()
        .cloned()
        .collect())
}

/// The user's entries matching every term of `query` (the search rule of behaviour §2.5, over every
/// visibility), most recently updated first; a query without terms matches nothing.
pub async fn search_user_memories<S: EntryStore>(
    store: &S,
    user_id: &str,
    query: &str,
) -> Result<Vec<Entry>> {
    let terms = search_terms(query);
    if terms.is_empty() {
        return Ok(Vec::new());
    }
    // In place in an in-process store: only the matches are copied.
    let in_place = store.with_entries(user_id, |set| {
        set.entries()
            .filter(|e| matches_terms(&terms, e))
            .cloned()
            .collect::<Vec<Entry>>()
    });
    if let Some(found) = in_place {
        return Ok(shown_to_owner(found, user_id));
    }
    let candidates = match store.search(user_id, query).await? {
        Some(found) => found,
        None => store.list(user_id).await?,
    };
    Ok(shown_to_owner(candidates, user_id)
        .into_iter()
        .filter(|e| matches_terms(&terms, e))
        .collect())
}

/// [`search_user_memories`] in the configured mode (behaviour §8.2): `terms` is that function,
/// cut to `limit` when given; `ranked` and `hybrid` rank every visibility of the user's entries
/// ([`ranked_search`]), at most `limit` (default `search.limit`), best first.
pub async fn search_user_memories_in<S, E, T, L>(
    store: &S,
    hosts: &SearchHosts<'_, E, T, L>,
    user_id: &str,
    query: &str,
    config: &SearchConfig,
    limit: Option<u64>,
) -> Result<Vec<Entry>>
where
    S: EntryStore,
    E: Embedder,
    T: Timer,
    L: Logger,
{
    let limit = limit.map(|n| usize::try_from(n).unwrap_or(usize::MAX));
    if config.mode == SearchMode::Terms {
        let mut found = search_user_memories(store, user_id, query).await?;
        if let Some(limit) = limit {
            found.truncate(limit);
        }
        return Ok(found);
    }
    let limit = limit.unwrap_or_else(|| usize::try_from(config.limit).unwrap_or(usize::MAX));
    ranked_search(
        store,
        hosts,
        user_id,
        query,
        config,
        limit,
        Audience::Owner(user_id),
    )
    .await
}

/// The entry with `key`: the agent's own `self`/`group` entry when an agent is given and has
/// one, else the global entry; `None` for a `_gdpr_` key or when there is none.
pub async fn memory_by_key<S: EntryStore>(
    store: &S,
    user_id: &str,
    key: &str,
    agent_id: Option<&str>,
) -> Result<Option<Entry>> {
    let key = key.trim();
    if key.is_empty() || names_reserved_key(key) {
        return Ok(None);
    }
    let same_key = with_key(store, user_id, key).await?;
    let own = agent_id
        .filter(|a| !a.trim().is_empty())
        .and_then(|a| resolve_write_target(&same_key, user_id, key, a, Visibility::SelfOnly));
    let found =
        own.or_else(|| resolve_write_target(&same_key, user_id, key, "", Visibility::Global));
    Ok(found.cloned())
}

/// The user's entries that count toward `maxEntriesPerUser` (all but `_gdpr_`).
pub async fn count_user_memories<S: EntryStore>(store: &S, user_id: &str) -> Result<u64> {
    super::capacity::count(store, None, user_id).await
}

/// What [`upsert_user_memory`] did. Expected refusals are outcomes, not errors.
#[derive(Debug, Clone, PartialEq, Serialize)]
#[serde(tag = "outcome", rename_all = "camelCase")]
pub enum UpsertOutcome {
    /// Written: created, or the entry at the write's identity updated.
    #[serde(rename_all = "camelCase")]
    Stored {
        /// The entry as stored.
        entry: Entry,
        /// `true` when a new entry was created.
        created: bool,
        /// Keys evicted to stay within `maxEntriesPerUser`.
        evicted: Vec<String>,
    },
    /// The entry at the write's identity already holds this content: nothing written.
    Unchanged {
        /// The stored entry.
        entry: Entry,
    },
    /// The request breaks the write rules (behaviour §2.6): every violation, nothing stored.
    Invalid {
        /// Every violation.
        violations: Vec<Violation>,
    },
    /// The request's `id` belongs to another user's entry or kept history (an entry id names
    /// one user's entry): nothing written. REST answers 409 `E_CONFLICT`, MCP a tool error.
    Conflict {
        /// Why, in words.
        message: String,
    },
    /// A new entry at the cap, and nothing could be evicted for it.
    Full {
        /// The tools' capacity answer.
        message: String,
    },
    /// The user's processing is restricted (behaviour §4.3): nothing new is stored.
    Restricted {
        /// The refusal.
        message: String,
    },
    /// The write holds a credential and the secrets policy refuses it (behaviour §8.1): nothing
    /// stored. REST answers 400 `E_SECRET`, MCP a tool error.
    Secret {
        /// The field path: `key`, `value` or `value.a.b[2]`.
        field: String,
        /// The detector's kind (`api-key`, `field-name`, …).
        kind: CredentialKind,
        /// Names the field and the kind, never the value.
        message: String,
    },
}

/// Insert or update one entry for REST `PUT` and MCP `upsert_user_memory`: the write rules
/// ([`normalize_memory_write`]), identity resolution (behaviour §2.4) and the cap with eviction
/// (behaviour §2.5, the code `rememberFact` runs). Store failures are errors.
///
/// The change is kept in the entry's history (behaviour §8.3) as `writer` says.
pub async fn upsert_user_memory<S: EntryStore, C: Clock, I: IdSource>(
    store: &S,
    writer: Writer<'_, C>,
    ids: &I,
    config: &UserMemoryConfig,
    request: &Value,
    surface: Surface,
) -> Result<UpsertOutcome> {
    let clock = writer.clock;
    let store = &writer.store(store);
    let mut write = match normalize_memory_write(request, surface) {
        Ok(write) => write,
        Err(violations) => return Ok(UpsertOutcome::Invalid { violations }),
    };
    match guard_entry(config.secrets, &write.key, &write.value) {
        EntryGuard::Clean => {}
        EntryGuard::Redacted { value, .. } => write.value = value,
        EntryGuard::Refused(found) => {
            return Ok(UpsertOutcome::Secret {
                field: found.field_path(),
                kind: found.kind,
                message: found.message(),
            })
        }
    }
    let known = Known::fetch(store, &write.user_id, &write.key).await?;
    if known.restricted {
        return Ok(UpsertOutcome::Restricted {
            message: super::tools::RESTRICTED.to_string(),
        });
    }
    let agent = write.source_agent_id.clone();
    let target = resolve_write_target(
        &known.same_key,
        &write.user_id,
        &write.key,
        agent.as_deref().unwrap_or(""),
        write.visibility,
    )
    .cloned();
    let requested_id = write.id.clone();
    let id_taken = || UpsertOutcome::Invalid {
        violations: vec![violation(
            "id",
            "id names another entry: leave it out, or give the id of the entry this write updates",
        )],
    };
    if let Some(id) = requested_id.as_deref() {
        if target.as_ref().map_or(true, |existing| existing.id != id) {
            let held = holders(store, &[id.to_string()]).await?;
            if foreign(&held, id, &write.user_id).is_some() {
                return Ok(UpsertOutcome::Conflict {
                    message: FOREIGN_ID.to_string(),
                });
            }
            if target.is_some() || current(&held, id) {
                return Ok(id_taken());
            }
        }
    }
    let change = EntryWrite {
        user_id: write.user_id.clone(),
        key: write.key.clone(),
        value: write.value,
        category: write.category,
        visibility: write.visibility.as_str().to_string(),
        source_agent_id: agent.clone(),
        group_ids: write.group_ids,
        source_conversation_id: write.source_conversation_id,
    };
    let now = clock.now().to_rfc3339_opts(SecondsFormat::Millis, true);
    if let Some(existing) = target {
        if change.is_unchanged_on(&existing) {
            return Ok(UpsertOutcome::Unchanged { entry: existing });
        }
        let entry = change
            .apply(Some(&existing), now, String::new)
            .by(writer.author);
        store.holding(&existing);
        store.upsert(&entry).await?;
        return Ok(UpsertOutcome::Stored {
            entry,
            created: false,
            evicted: Vec::new(),
        });
    }
    let requested_id_was_none = requested_id.is_none();
    let entry = change
        .apply(None, now, || requested_id.unwrap_or_else(|| ids.new_id()))
        .by(writer.author);
    let scope = CapScope {
        user_id: &write.user_id,
        agent_id: agent.as_deref(),
        max: config.max_entries_per_user,
        on_cap: config.on_cap_reached,
        host_id: requested_id_was_none && ids.host_made(),
    };
    let stored = entry.clone();
    match store_new(scope, store, known, move || entry).await {
        Ok(evicted) => Ok(UpsertOutcome::Stored {
            entry: stored,
            created: true,
            evicted,
        }),
        Err(CapRefusal::Store(e)) => Err(e),
        Err(refusal) => Ok(UpsertOutcome::Full {
            message: refusal.message(),
        }),
    }
}

impl UpsertOutcome {
    /// The entry written, when the outcome wrote one.
    pub fn written(&self) -> Option<&Entry> {
        match self {
            UpsertOutcome::Stored { entry, .. } => Some(entry),
            _ => None,
        }
    }
}

/// After a write: store the vector of the entry `outcome` wrote, when an embedder is given
/// (behaviour §8.2; a failure is logged and leaves the entry without a vector, never fails the
/// write).
pub async fn embed_written<S: EntryStore, E: Embedder, T: Timer, L: Logger>(
    store: &S,
    hosts: &SearchHosts<'_, E, T, L>,
    outcome: &UpsertOutcome,
) {
    if let (Some(entry), Some(embedding)) = (outcome.written(), &hosts.embedding) {
        store_vectors(store, embedding, hosts.log, std::slice::from_ref(entry)).await;
    }
}

/// What [`delete_user_memory`] did.
#[derive(Debug, Clone, PartialEq, Serialize)]
#[serde(tag = "outcome", rename_all = "camelCase")]
pub enum DeleteOutcome {
    /// Deleted.
    Deleted {
        /// The entry as it was.
        entry: Box<Entry>,
    },
    /// No entry has this id.
    NotFound,
    /// A `_gdpr_` entry: never deleted here.
    Reserved,
    /// The entry belongs to another user than the given owner: nothing deleted.
    Foreign,
}

/// Delete one entry by id (`DELETE /entry/{entryId}`, `delete_user_memory`). Given `owner`,
/// only that user's entry is deleted. Its last state is kept in its history (reason `deleted`,
/// by `writer`).
pub async fn delete_user_memory<S: EntryStore, C: Clock>(
    store: &S,
    writer: Writer<'_, C>,
    entry_id: &str,
    owner: Option<&str>,
) -> Result<DeleteOutcome> {
    let store = &writer.store(store);
    let Some(entry) = store.get(entry_id).await?.filter(|e| e.id == entry_id) else {
        return Ok(DeleteOutcome::NotFound);
    };
    if owner.is_some_and(|owner| owner != entry.user_id) {
        return Ok(DeleteOutcome::Foreign);
    }
    if is_reserved_key(&entry.key) {
        return Ok(DeleteOutcome::Reserved);
    }
    store.holding(&entry);
    Ok(if store.delete(entry_id).await? {
        DeleteOutcome::Deleted {
            entry: Box::new(entry),
        }
    } else {
        DeleteOutcome::NotFound
    })
}

/// Delete every entry of the user except `_gdpr_` ones (behaviour §4.3 `deleteAllUserMemories`);
/// returns how many were deleted. Their last states are kept in their history (reason
/// `deleted_all`, by `writer`).
pub async fn delete_all_user_memories<S: EntryStore, C: Clock>(
    store: &S,
    writer: Writer<'_, C>,
    user_id: &str,
) -> Result<u64> {
    let store = &writer.store(store).because(Reason::DeletedAll);
    let mut deleted = 0;
    for entry in shown_to_owner(store.list(user_id).await?, user_id) {
        store.holding(&entry);
        if store.delete(&entry.id).await? {
            deleted += 1;
        }
    }
    Ok(deleted)
}

/// The writes of the memory operations, one user at a time: an upsert's identity lookup, count,
/// eviction and insert, and a delete-all, never interleave with another write of the same user
/// through the same `MemoryWrites`, so the cap and the identity rule hold for concurrent
/// requests even over a store without `insertWithinCap` (which is what keeps them across
/// processes). FIFO: writes of one user run in the order they were made.
#[derive(Default)]
pub struct MemoryWrites {
    locks: UserLocks,
}

impl MemoryWrites {
    /// [`upsert_user_memory`] under the lock of the request's user (its `userId`, trimmed as the
    /// write rules trim it; a request without one shares the lock of the empty user id, and is
    /// refused by the write rules).
    pub async fn upsert<S: EntryStore, C: Clock, I: IdSource>(
        &self,
        store: &S,
        writer: Writer<'_, C>,
        ids: &I,
        config: &UserMemoryConfig,
        request: &Value,
        surface: Surface,
    ) -> Result<UpsertOutcome> {
        let user = request
            .get("userId")
            .and_then(Value::as_str)
            .map(str::trim)
            .unwrap_or_default();
        let _turn = self.locks.lock(user).await;
        upsert_user_memory(store, writer, ids, config, request, surface).await
    }

    /// [`crate::entries::restore::restore_version`] under the lock of `user_id`.
    pub async fn restore<S: EntryStore, C: Clock>(
        &self,
        store: &S,
        writer: Writer<'_, C>,
        config: &UserMemoryConfig,
        user_id: &str,
        version_id: &str,
    ) -> Result<super::restore::RestoreOutcome> {
        let _turn = self.locks.lock(user_id).await;
        super::restore::restore_version(store, writer, config, user_id, version_id).await
    }

    /// [`delete_all_user_memories`] under the lock of `user_id`.
    pub async fn delete_all<S: EntryStore, C: Clock>(
        &self,
        store: &S,
        writer: Writer<'_, C>,
        user_id: &str,
    ) -> Result<u64> {
        let _turn = self.locks.lock(user_id).await;
        delete_all_user_memories(store, writer, user_id).await
    }
}
