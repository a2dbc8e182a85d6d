//! The legacy (v5) properties migration (behaviour §4.1) and the cleanup of a store that ran an
//! older migration (§4.3, last point). Plan (pure) → apply (through the entry store).
//!
//! A v5 document is flat — `{ _id, userId, <key>: <value>, … }`, every field but `_id` and
//! `userId` a key. [`plan_properties_migration`] decides per key: insert (a global entry,
//! category `legacy`), or skip with a reason — by name and count, never by value. Decisions:
//! - a key is skipped by rule when it is in `skipKeys`, holds a credential at any depth, is
//!   empty, or is reserved (`_gdpr_…`): it stays in the renamed backup, and is not a failure;
//! - a key the user already has (any entry with that key, any visibility) keeps its value
//!   (`exists`); a key a previous document of the same user already gave is `duplicate`
//!   (the first document wins, in input order);
//! - a document without a usable `userId` (absent, not a string, blank) or that is not an object
//!   is skipped, not a failure; so is one whose `userId` the one user-id rule of every write
//!   refuses (`invalid-user-id`: such data could never be erased) — in the plan, and again when
//!   a hand-edited plan is applied (`refused`);
//! - the plan's `mayRename` is true only when it has nothing left to insert; the report of
//!   [`apply_properties_migration`] says whether every insert made it across.
//!
//! [`apply_properties_migration`] re-checks every insert against the store (an entry with the
//! key written since the plan wins; a credential in a hand-edited plan is refused), skips a user
//! whose processing is restricted (behaviour §4.3: nothing new is stored; the next run retries),
//! and goes on after a failed write so the report names every outcome.

use super::credentials::{redact_text, text, CredentialKind, REDACTED};
use crate::entries::config::HistoryConfig;
use crate::entries::history::{Author, AuthorKind, Versioned};
use crate::entries::reserved::names_reserved_key;
use crate::entries::store::with_key;
use crate::entries::{Entry, EntryStore};
use crate::error::Result;
use crate::host::{Clock, IdSource};
use crate::rights::{is_restricted, RESTRICTION_KEY};
use chrono::SecondsFormat;
use serde::{Deserialize, Serialize};
use serde_json::Value;
use std::collections::{BTreeMap, HashMap, HashSet};

/// The collection a complete migration renames the legacy one to.
pub const BACKUP_COLLECTION: &str = "properties_migrated_v6";

/// The category of migrated entries.
pub const LEGACY_CATEGORY: &str = "legacy";

fn default_skip_keys() -> Vec<String> {
    vec!["userInfo".to_string()]
}

/// `{ skipKeys = ["userInfo"] }`: keys never migrated (v5's `userInfo` held the caller's
/// per-request identity, a platform bearer token among it — not a memory).
#[derive(Debug, Clone, PartialEq, Eq, Deserialize)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub struct MigrationOptions {
    /// Exact key names (after trimming) to leave behind.
    #[serde(default = "default_skip_keys")]
    pub skip_keys: Vec<String>,
}

impl Default for MigrationOptions {
    fn default() -> Self {
        MigrationOptions {
            skip_keys: default_skip_keys(),
        }
    }
}

crate::names::stable_names! {
    /// Why a legacy key was not inserted. JSON: `"skip-key" | "credential" | …`.
    pub enum KeySkipReason {
        /// The key is in `skipKeys`.
        SkipKey = "skip-key",
        /// Its value holds a credential at some depth.
        Credential = "credential",
        /// Empty after trimming.
        EmptyKey = "empty-key",
        /// Starts with `_gdpr_` (reserved, behaviour §2.4).
        ReservedKey = "reserved-key",
        /// The user already has an entry with this key: it keeps its value.
        Exists = "exists",
        /// An earlier document of the same user already gave this key.
        Duplicate = "duplicate",
    }
}

crate::names::stable_names! {
    /// Why a legacy document was skipped. JSON: `"no-user-id" | "invalid-user-id" |
    /// "not-an-object"`.
    pub enum DocumentSkipReason {
        /// No `userId`, or not a non-blank string.
        NoUserId = "no-user-id",
        /// A `userId` the one user-id rule refuses (`/`, `\`, `..`, a control character,
        /// over 255 bytes, …: [`crate::profile::paths::validate_user_id`]): its data could
        /// never be erased, so none of it is migrated.
        InvalidUserId = "invalid-user-id",
        /// Not a JSON object.
        NotAnObject = "not-an-object",
    }
}

/// One entry to insert: global, category `legacy`.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub struct LegacyInsert {
    /// The owner.
    pub user_id: String,
    /// The key (trimmed).
    pub key: String,
    /// The v5 value, unchanged.
    pub value: Value,
}

/// Keys skipped for one reason, by name and count (never by value).
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct KeySkip {
    /// The key name.
    pub key: String,
    /// Why.
    pub reason: KeySkipReason,
    /// For `credential`: the rule that found it.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub kind: Option<CredentialKind>,
    /// In how many documents (or entries).
    pub count: usize,
}

/// A skipped document: its position in the input, its `_id` when that is a string (or a
/// `{ "$oid": … }`), and why.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct DocumentSkip {
    /// Index in `legacyDocuments`.
    pub index: usize,
    /// The document's `_id`, when readable as text.
    pub id: Option<String>,
    /// Why.
    pub reason: DocumentSkipReason,
}

/// What [`plan_properties_migration`] decided.
#[derive(Debug, Clone, PartialEq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct MigrationPlan {
    /// Entries to insert, in document and key order.
    pub inserts: Vec<LegacyInsert>,
    /// Keys left behind, grouped by key, reason and kind, in first-seen order.
    pub skipped_keys: Vec<KeySkip>,
    /// Documents left behind.
    pub skipped_documents: Vec<DocumentSkip>,
    /// Whether the legacy collection may be renamed to `properties_migrated_v6` now: nothing is
    /// left to insert (every key is in the store or skipped by rule).
    pub may_rename: bool,
}

fn document_id(doc: &serde_json::Map<String, Value>) -> Option<String> {
    match doc.get("_id") {
        Some(Value::String(s)) => Some(s.clone()),
        Some(Value::Object(o)) => o.get("$oid").and_then(Value::as_str).map(str::to_string),
        Some(Value::Number(n)) => Some(n.to_string()),
        _ => None,
    }
}

/// Counts skipped keys by `(key, reason, kind)` in first-seen order.
#[derive(Default)]
struct SkipTally {
    list: Vec<KeySkip>,
    at: HashMap<String, usize>,
}

/// One text for a pair of texts (a set of `String`s is already in the wasm; a set of tuples
/// would be another copy of the hash table).
fn pair(a: &str, b: &str) -> String {
    format!("{a}\u{0}{b}")
}

impl SkipTally {
    fn add(&mut self, key: &str, reason: KeySkipReason, kind: Option<CredentialKind>) {
        let kind_name = kind.map_or("", CredentialKind::as_str);
        let slot = pair(key, &pair(reason.as_str(), kind_name));
        match self.at.get(&slot) {
            Some(i) => {
                if let Some(skip) = self.list.get_mut(*i) {
                    skip.count += 1;
                }
            }
            None => {
                self.at.insert(slot, self.list.len());
                self.list.push(KeySkip {
                    key: key.to_string(),
                    reason,
                    kind,
                    count: 1,
                });
            }
        }
    }
}

/// A key as reports name it: `[REDACTED]` when the key itself holds a credential (reports name
/// keys, never values — and such a key is a value).
fn shown_key(key: &str) -> std::borrow::Cow<'_, str> {
    if text::scan(key, false).is_empty() {
        std::borrow::Cow::Borrowed(key)
    } else {
        std::borrow::Cow::Borrowed(REDACTED)
    }
}

/// Why a key must stay behind whatever the store holds: `skipKeys`, empty, reserved, or a
/// credential.
fn rule_skip(
    key: &str,
    value: &Value,
    skip_keys: &[String],
) -> Option<(KeySkipReason, Option<CredentialKind>)> {
    if key.is_empty() {
        return Some((KeySkipReason::EmptyKey, None));
    }
    if skip_keys.iter().any(|k| k.trim() == key) {
        return Some((KeySkipReason::SkipKey, None));
    }
    if names_reserved_key(key) {
        return Some((KeySkipReason::ReservedKey, None));
    }
    // The key is the value's field name in the v5 document (`{ "password": "…" }` is one), and
    // a key may itself be a secret: the rule of every entry write (behaviour §8.1).
    crate::secrets::find_entry_secret(key, value)
        .map(|found| (KeySkipReason::Credential, Some(found.kind)))
}

/// Plan the migration of v5 property documents (behaviour §4.1). `existing_keys_by_user`: the keys
/// each user already has (any visibility). Pure and idempotent: planning again with the keys the
/// first plan inserted added to `existing_keys_by_user` inserts nothing.
pub fn plan_properties_migration(
    documents: &[Value],
    existing_keys_by_user: &BTreeMap<String, Vec<String>>,
    options: &MigrationOptions,
) -> MigrationPlan {
    let existing: HashSet<String> = existing_keys_by_user
        .iter()
        .flat_map(|(user, keys)| keys.iter().map(move |k| pair(user, k.trim())))
        .collect();
    let mut planned: HashSet<String> = HashSet::new();
    let mut inserts = Vec::new();
    let mut skipped = SkipTally::default();
    let mut skipped_documents = Vec::new();
    for (index, document) in documents.iter().enumerate() {
        let Some(doc) = document.as_object() else {
            skipped_documents.push(DocumentSkip {
                index,
                id: None,
                reason: DocumentSkipReason::NotAnObject,
            });
            continue;
        };
        let user = doc.get("userId").and_then(Value::as_str).map(str::trim);
        let Some(user) = user.filter(|u| !u.is_empty()) else {
            skipped_documents.push(DocumentSkip {
                index,
                id: document_id(doc),
                reason: DocumentSkipReason::NoUserId,
            });
            continue;
        };
        if crate::profile::paths::validate_user_id(user).is_err() {
            skipped_documents.push(DocumentSkip {
                index,
                id: document_id(doc),
                reason: DocumentSkipReason::InvalidUserId,
            });
            continue;
        }
        for (raw_key, value) in doc {
            if raw_key == "_id" || raw_key == "userId" {
                continue;
            }
            let key = raw_key.trim();
            if let Some((reason, kind)) = rule_skip(key, value, &options.skip_keys) {
                skipped.add(&shown_key(key), reason, kind);
            } else if existing.contains(&pair(user, key)) {
                skipped.add(key, KeySkipReason::Exists, None);
            } else if !planned.insert(pair(user, key)) {
                skipped.add(key, KeySkipReason::Duplicate, None);
            } else {
                inserts.push(LegacyInsert {
                    user_id: user.to_string(),
                    key: key.to_string(),
                    value: value.clone(),
                });
            }
        }
    }
    MigrationPlan {
        may_rename: inserts.is_empty(),
        inserts,
        skipped_keys: skipped.list,
        skipped_documents,
    }
}

crate::names::stable_names! {
    /// What became of one planned insert. JSON: `"inserted" | "exists" | …`.
    pub enum InsertOutcome {
        /// Written as a new global `legacy` entry.
        Inserted = "inserted",
        /// The user has an entry with this key (written since the plan, or by an earlier run):
        /// it keeps its value.
        Exists = "exists",
        /// The user's processing is restricted (behaviour §4.3): nothing stored; a later run
        /// retries.
        Restricted = "restricted",
        /// The insert breaks a rule the plan applies (empty or reserved key, a credential): a
        /// hand-edited plan. Nothing stored.
        Refused = "refused",
        /// The store failed; `error` says how.
        Failed = "failed",
    }
}

/// The error of a failed insert (its message passed through the redactor).
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct InsertError {
    /// The stable error code (`E_HOST`, …).
    pub code: String,
    /// What went wrong.
    pub message: String,
}

/// One insert's outcome.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct InsertReport {
    /// The owner.
    pub user_id: String,
    /// The key.
    pub key: String,
    /// What happened.
    pub outcome: InsertOutcome,
    /// The entry id, when inserted.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub id: Option<String>,
    /// For `failed`.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub error: Option<InsertError>,
}

/// What [`apply_properties_migration`] did.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct MigrationReport {
    /// Per insert, in plan order.
    pub outcomes: Vec<InsertReport>,
    /// How many were inserted.
    pub inserted: usize,
    /// How many were already there.
    pub existing: usize,
    /// How many were not stored because the user's processing is restricted.
    pub restricted: usize,
    /// How many a rule refused.
    pub refused: usize,
    /// How many writes failed.
    pub failed: usize,
    /// Whether the legacy collection may now be renamed to `properties_migrated_v6`: every
    /// insert is in the store (inserted or already there) or was refused by rule. After a
    /// failure, or for a restricted user, the collection stays and the next run retries.
    pub may_rename: bool,
}

fn insert_error(error: &crate::Error) -> InsertError {
    InsertError {
        code: error.code.as_str().to_string(),
        message: redact_text(&error.message),
    }
}

/// Apply a plan's `inserts` ([`MigrationPlan::inserts`]) through the entry store: per insert, re-check the rules and the store
/// (`findByKey` when the store has it), then insert a global `legacy` entry with an id from
/// `ids` and `createdAt = updatedAt = clock.now()`. Store failures become `failed` outcomes;
/// the other inserts still run. Never fails as a whole.
pub async fn apply_properties_migration<S: EntryStore, C: Clock, I: IdSource>(
    inserts: &[LegacyInsert],
    store: &S,
    clock: &C,
    ids: &I,
) -> MigrationReport {
    // Each insert is an audit record by the migration (behaviour §8.3); it replaces no state, so it
    // keeps no version.
    let (history, author) = (
        HistoryConfig::default(),
        Author::new(AuthorKind::Migration, None),
    );
    let store = &Versioned::new(store, clock, &history, &author);
    let mut report = MigrationReport::default();
    // The restriction flag of the previous insert's user (a plan lists a user's keys together).
    let mut last: Option<(String, std::result::Result<bool, InsertError>)> = None;
    for insert in inserts {
        let user_id = insert.user_id.trim();
        let key = insert.key.trim();
        let mut outcome = InsertReport {
            user_id: user_id.to_string(),
            key: shown_key(key).into_owned(),
            outcome: InsertOutcome::Inserted,
            id: None,
            error: None,
        };
        let rule = rule_skip(key, &insert.value, &[]);
        let flag = match &last {
            Some((user, known)) if user == user_id => known.clone(),
            _ => {
                let read = with_key(store, user_id, RESTRICTION_KEY)
                    .await
                    .map(|flags| is_restricted(&flags))
                    .map_err(|e| insert_error(&e));
                last = Some((user_id.to_string(), read.clone()));
                read
            }
        };
        let invalid_user = crate::profile::paths::validate_user_id(user_id).is_err();
        let result: Result<InsertOutcome> = if invalid_user || rule.is_some() {
            Ok(InsertOutcome::Refused)
        } else {
            match flag {
                Ok(true) => Ok(InsertOutcome::Restricted),
                // An unreadable flag counts as restricted (behaviour §4.3), reported as the
                // failure.
                Err(error) => {
                    outcome.error = Some(error);
                    Ok(InsertOutcome::Failed)
                }
                Ok(false) => insert_one(store, clock, ids, user_id, key, &insert.value)
                    .await
                    .map(|id| match id {
                        Some(id) => {
                            outcome.id = Some(id);
                            InsertOutcome::Inserted
                        }
                        None => InsertOutcome::Exists,
                    }),
            }
        };
        outcome.outcome = result.unwrap_or_else(|error| {
            outcome.error = Some(insert_error(&error));
            InsertOutcome::Failed
        });
        match outcome.outcome {
            InsertOutcome::Inserted => report.inserted += 1,
            InsertOutcome::Exists => report.existing += 1,
            InsertOutcome::Restricted => report.restricted += 1,
            InsertOutcome::Refused => report.refused += 1,
            InsertOutcome::Failed => report.failed += 1,
        }
        report.outcomes.push(outcome);
    }
    report.may_rename = report.failed == 0 && report.restricted == 0;
    report
}

/// Insert one legacy entry unless the user has the key; `Some(id)` when inserted.
async fn insert_one<S: EntryStore, C: Clock, I: IdSource>(
    store: &S,
    clock: &C,
    ids: &I,
    user_id: &str,
    key: &str,
    value: &Value,
) -> Result<Option<String>> {
    if !with_key(store, user_id, key).await?.is_empty() {
        return Ok(None);
    }
    let now = clock.now().to_rfc3339_opts(SecondsFormat::Millis, true);
    let entry = Entry::new_global(
        ids.new_id(),
        user_id,
        key,
        value.clone(),
        LEGACY_CATEGORY,
        now,
    );
    crate::entries::ownership::check_new_id(store, ids.host_made(), &entry).await?;
    store.upsert(&entry).await?;
    Ok(Some(entry.id))
}

/// What [`plan_legacy_cleanup`] found: the ids to delete and, by name and count, why.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct CleanupPlan {
    /// Ids of `legacy` entries to delete.
    pub ids: Vec<String>,
    /// Their keys grouped by key, reason (`skip-key` or `credential`) and kind.
    pub keys: Vec<KeySkip>,
}

/// For a store that ran an older migration which copied `userInfo` (behaviour §4.3): the ids of
/// `legacy` entries whose key is in `skipKeys` or whose value holds a credential. Entries of
/// other categories are never listed.
pub fn plan_legacy_cleanup(entries: &[Entry], options: &MigrationOptions) -> CleanupPlan {
    let mut tally = SkipTally::default();
    let mut ids = Vec::new();
    for entry in entries.iter().filter(|e| e.category == LEGACY_CATEGORY) {
        let key = entry.key.trim();
        let why = if options.skip_keys.iter().any(|k| k.trim() == key) {
            Some((KeySkipReason::SkipKey, None))
        } else {
            crate::secrets::find_entry_secret(key, &entry.value)
                .map(|found| (KeySkipReason::Credential, Some(found.kind)))
        };
        if let Some((reason, kind)) = why {
            tally.add(&shown_key(key), reason, kind);
            ids.push(entry.id.clone());
        }
    }
    CleanupPlan {
        ids,
        keys: tally.list,
    }
}
