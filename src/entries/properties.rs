//! Long-term conversation properties as entries, and the legacy flat property view (behaviour
//! §2.7).
//!
//! `longTerm` properties persist as entries with category `property` and visibility
//! `property.visibility ?? config.defaultVisibility`; a `group` property without a group is
//! stored as `self`. They land on the same identity as a tool write (so a self property never
//! touches the global entry with its name). Decisions: properties are not subject to the tool
//! guardrails or the entry cap (guardrails belong to the tools, behaviour §2.3); an unchanged value
//! is not rewritten; `_gdpr_` names are refused per property (reported, the others still persist);
//! a property holding a credential follows `config.secrets` (behaviour §8.1: refused — reported,
//! the others still persist — redacted or allowed); while processing is restricted (behaviour §4.3)
//! nothing is persisted.
//!
//! The legacy flat view (`readProperties`, `mergeProperties`, `deleteProperties`) works on the
//! user's **global** entries only and never shows or touches `_gdpr_` entries; a merge naming a
//! `_gdpr_` key is refused as a whole before anything is written.

use super::config::{UserMemoryConfig, Visibility};
use super::entry::{Entry, EntryWrite};
use super::history::{Author, AuthorKind, Reason, Versioned, Writer};
use super::ownership::check_new_id;
use super::reserved::names_reserved_key;
use super::visibility::{is_reserved_key, resolve_write_target, write_scope};
use super::EntryStore;
use crate::error::{Error, ErrorCode, Result};
use crate::host::{Clock, IdSource};
use crate::migrate::credentials::REDACTED;
use crate::rights::is_restricted;
use crate::secrets::{guard_entry, EntryGuard, SecretField, SecretPolicy};
use chrono::SecondsFormat;
use serde::{Deserialize, Serialize};
use serde_json::{Map, Value};

/// One `longTerm` conversation property to persist.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct LongTermProperty {
    /// Property name, stored as the entry key (trimmed).
    pub name: String,
    /// Any JSON value.
    pub value: Value,
    /// Requested visibility; `None` → `config.defaultVisibility`.
    #[serde(default)]
    pub visibility: Option<Visibility>,
}

/// Who persists the properties, and where.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct PropertyScope {
    /// The user.
    pub user_id: String,
    /// The agent running the conversation.
    pub agent_id: String,
    /// The turn's group (from `resolve_group_context` only).
    pub group: Option<String>,
    /// The conversation, stamped on the entries.
    pub conversation_id: Option<String>,
}

/// What [`persist_long_term_properties`] did.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct PersistReport {
    /// Keys written (created or changed).
    pub stored: Vec<String>,
    /// Keys whose stored value was already equal.
    pub unchanged: Vec<String>,
    /// Keys refused, with the reason.
    pub refused: Vec<(String, String)>,
    /// `true` when nothing was persisted because processing is restricted.
    pub restricted: bool,
}

const RESERVED_REASON: &str = "keys starting with '_gdpr_' are reserved";

fn now_text<C: Clock>(clock: &C) -> String {
    clock.now().to_rfc3339_opts(SecondsFormat::Millis, true)
}

/// Persist `longTerm` properties as `property` entries (behaviour §2.7). Store failures are errors
/// (`E_HOST` from the adapter); properties written before a failure stay written.
pub async fn persist_long_term_properties<S: EntryStore, C: Clock, I: IdSource>(
    store: &S,
    clock: &C,
    ids: &I,
    config: &UserMemoryConfig,
    scope: &PropertyScope,
    properties: &[LongTermProperty],
) -> Result<PersistReport> {
    crate::profile::paths::validate_user_id(&scope.user_id)?;
    // Each change is kept in the entry's history (behaviour §8.3), by the agent.
    let author = Author::new(AuthorKind::Agent, Some(&scope.agent_id));
    let store = &Versioned::new(store, clock, &config.history, &author);
    let mut report = PersistReport::default();
    let mut entries = store.list(&scope.user_id).await?;
    if is_restricted(&entries) {
        report.restricted = true;
        return Ok(report);
    }
    for property in properties {
        let key = property.name.trim().to_string();
        if key.is_empty() {
            report
                .refused
                .push((property.name.clone(), "the name is empty".into()));
            continue;
        }
        if names_reserved_key(&key) {
            report.refused.push((key, RESERVED_REASON.into()));
            continue;
        }
        let value = match guard_entry(config.secrets, &key, &property.value) {
            EntryGuard::Clean => property.value.clone(),
            EntryGuard::Redacted { value, .. } => value,
            EntryGuard::Refused(found) => {
                // A name that is itself a secret is not repeated in the report.
                let name = match found.field {
                    SecretField::Key => REDACTED.to_string(),
                    _ => key,
                };
                report.refused.push((name, found.message()));
                continue;
            }
        };
        let requested = property.visibility.unwrap_or(config.default_visibility);
        let (visibility, group_ids) = write_scope(requested, scope.group.as_deref());
        let target =
            resolve_write_target(&entries, &scope.user_id, &key, &scope.agent_id, visibility);
        let write = EntryWrite {
            user_id: scope.user_id.clone(),
            key: key.clone(),
            value,
            category: "property".into(),
            visibility: visibility.as_str().into(),
            source_agent_id: Some(scope.agent_id.clone()),
            group_ids,
            source_conversation_id: scope.conversation_id.clone(),
        };
        if target.is_some_and(|existing| write.is_unchanged_on(existing)) {
            report.unchanged.push(key);
            continue;
        }
        let created = target.is_none();
        let entry = write.apply(target, now_text(clock), || ids.new_id());
        if created {
            check_new_id(store, ids.host_made(), &entry).await?;
        }
        store.upsert(&entry).await?;
        entries.retain(|e| e.id != entry.id);
        entries.push(entry);
        report.stored.push(key);
    }
    Ok(report)
}

fn legacy_visible(entry: &Entry, user_id: &str) -> bool {
    entry.user_id == user_id && entry.visibility == "global" && !is_reserved_key(&entry.key)
}

/// The legacy flat view: `{ key: value }` over the user's global, non-`_gdpr_` entries. Should
/// two global entries share a key, the most recently updated wins.
pub async fn read_properties<S: EntryStore>(
    store: &S,
    user_id: &str,
) -> Result<Map<String, Value>> {
    let mut entries: Vec<Entry> = store
        .list(user_id)
        .await?
        .into_iter()
        .filter(|e| legacy_visible(e, user_id))
        .collect();
    crate::order::sort_by(&mut entries, super::recall::staleness_cmp);
    // Inserted one by one (the later wins), not collected: a collected map sorts its pairs with
    // another copy of the standard sort in the wasm.
    let mut properties = Map::new();
    for entry in entries {
        properties.insert(entry.key, entry.value);
    }
    Ok(properties)
}

/// Legacy merge: upsert each `{ key: value }` as a global entry (new ones with category
/// `property`, existing ones keep their category). Refused before any write: with `E_ARGUMENT`
/// when a key is empty or reserved, with `E_SECRET` when a pair holds a credential and `policy`
/// refuses it (details: `key` unless the key is the secret, `field`, `kind`). Under `redact`
/// each secret is stored as `[redacted]`. Returns the number of entries written (unchanged
/// values are not rewritten).
///
/// Each change is kept in the entry's history as `writer` says (behaviour §8.3).
pub async fn merge_properties<S: EntryStore, C: Clock, I: IdSource>(
    store: &S,
    writer: Writer<'_, C>,
    ids: &I,
    user_id: &str,
    properties: &Map<String, Value>,
    policy: SecretPolicy,
) -> Result<usize> {
    crate::profile::paths::validate_user_id(user_id)?;
    let mut clean = Vec::with_capacity(properties.len());
    for (key, value) in properties {
        if key.trim().is_empty() || names_reserved_key(key) {
            return Err(Error::new(
                ErrorCode::Argument,
                format!("mergeProperties: key '{key}' is not allowed: keys must be non-empty and {RESERVED_REASON}"),
            )
            .with_details(serde_json::json!({ "key": key })));
        }
        match guard_entry(policy, key.trim(), value) {
            EntryGuard::Clean => clean.push((key, value.clone())),
            EntryGuard::Redacted { value, .. } => clean.push((key, value)),
            EntryGuard::Refused(found) => {
                let mut details = Map::new();
                let shown = if found.field == SecretField::Key {
                    "a key".to_string()
                } else {
                    details.insert("key".into(), Value::from(key.as_str()));
                    format!("key '{key}'")
                };
                details.insert("field".into(), Value::from(found.field_path()));
                details.insert("kind".into(), Value::from(found.kind.as_str()));
                let details = Value::Object(details);
                return Err(Error::new(
                    ErrorCode::Secret,
                    format!(
                        "mergeProperties: {shown}: {}; nothing was merged",
                        found.message()
                    ),
                )
                .with_details(details));
            }
        }
    }
    let clock = writer.clock;
    let store = &writer.store(store);
    let entries = store.list(user_id).await?;
    let mut written = 0;
    for (raw_key, value) in clean {
        let value = &value;
        let key = raw_key.trim();
        let existing = resolve_write_target(&entries, user_id, key, "", Visibility::Global);
        let now = now_text(clock);
        let entry = match existing {
            Some(e) if &e.value == value => continue,
            Some(e) => Entry {
                value: value.clone(),
                updated_at: now,
                ..e.clone()
            },
            None => {
                let entry =
                    Entry::new_global(ids.new_id(), user_id, key, value.clone(), "property", now);
                check_new_id(store, ids.host_made(), &entry).await?;
                entry
            }
        };
        store.upsert(&entry).await?;
        written += 1;
    }
    Ok(written)
}

/// Legacy delete: remove every global, non-`_gdpr_` entry of the user. Returns how many were
/// deleted. Their last states are kept in their history as `writer` says (behaviour §8.3).
pub async fn delete_properties<S: EntryStore, C: Clock>(
    store: &S,
    writer: Writer<'_, C>,
    user_id: &str,
) -> Result<usize> {
    let store = &writer.store(store).because(Reason::DeletedAll);
    let mut deleted = 0;
    for entry in store.list(user_id).await? {
        if legacy_visible(&entry, user_id) && store.delete(&entry.id).await? {
            deleted += 1;
        }
    }
    Ok(deleted)
}
