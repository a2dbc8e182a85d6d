//! The Art. 20 import (behaviour §4.3): an export document restored into stores that hold nothing
//! of the user — all of it or nothing.
//!
//! Everything is checked before anything is written: the document ([`UserDataExport::check`]),
//! that every entry is the user's and no id appears twice, that its history is genuine (every
//! version the document's user's, its id the one its content gives it — [`Version::content_id`]
//! — no id twice, no unknown field, instants as the core writes them), that a store was given for
//! each part the document holds, that the entry store holds none of the user's entries and that
//! the user has no profile, and that no id the document names belongs to anyone else (an entry
//! id belongs to one user, [`crate::entries::ownership`]): an entry's id held by any current
//! entry, or a version's entry id held by another user's entry or history, is `E_CONFLICT`.
//! The history keeps what the configured retention keeps (`maxVersionsPerEntry` newest versions
//! of each entry, none that ended before `retainDays`); the report counts what it dropped.
//! Then the entries are written:
//! - through the store's [`EntryStore::insert_all`] when it has one: one transaction, all or none
//!   (an id already stored fails it, so nothing of another user is overwritten);
//! - else one upsert at a time, after checking that none of the ids is stored yet, for any user
//!   (an upsert would overwrite another user's entry, and undoing it would delete it). When an
//!   upsert fails, every id written so far **and the failing one** (a failed write may have taken
//!   effect: a timeout, an error after the row was stored) are deleted again.
//!
//! Then the profile, create-only. When that write fails, the entries are deleted again, and so is
//! the profile if the failed write stored it after all (what is stored is the imported text; a
//! version conflict means another writer's profile, which stays).
//!
//! The error returned is the original one, with `details.undo` = `{ entries, profileRemoved,
//! failed }`: how many ids were deleted again, whether a profile was, and what could not be undone
//! (`{ entryId | profile: true, code, message }`; then the message says so too). A failure of an
//! atomic `insert_all` wrote nothing and is returned as is. Once undone, the stores hold nothing of
//! the import, so a retry starts from where the first attempt did.
//!
//! Not covered: a write that times out here and lands in the store after its undo ran.
//!
//! Vectors: an export carries none (they belong to an embedding model, not to the user's data),
//! so the imported entries have none; the report says how many (`vectors.dropped`). With an
//! embedder the import embeds them itself after writing (`vectors.embedded`; a failure is
//! logged and never fails the import); `vectors.reindex` says whether `reindexEmbeddings` must
//! still run for hybrid search to find them by meaning.

use super::{ProfileRights, UserDataExport};
use crate::entries::config::HistoryConfig;
use crate::entries::embedding::store_vectors;
use crate::entries::history::{
    instant_text, not_before, AuditRecord, HistoryAppend, Operation, Version, Writer,
};
use crate::entries::ownership::{current, foreign, holders};
use crate::entries::search::modes::SearchHosts;
use crate::entries::store::{EntryStore, ProfileInsert};
use crate::entries::Entry;
use crate::error::{Error, ErrorCode, Result};
use crate::host::Clock;
use crate::host::{Embedder, Logger, NoEmbedder, NoTimer, Timer};
use serde::Serialize;
use serde_json::{json, Map, Value};

/// What [`import_user_data`] wrote. JSON: `{ "entries": n, "profile": bool, "secrets": [...],
/// "history": { "imported", "dropped" }, "vectors": { "dropped", "embedded", "reindex" } }`.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct ImportReport {
    /// Entries written.
    pub entries: u64,
    /// Whether a profile was written.
    pub profile: bool,
    /// What the default secrets policy would have refused (behaviour §8.1): an import restores the
    /// user's own data as it was exported, so it is written, and named here — by entry id (or
    /// `profile`), field, path and kind, never by value or key.
    pub secrets: Vec<ImportedSecret>,
    /// The document's versions restored, and those the retention dropped.
    pub history: ImportedHistory,
    /// The imported entries' vectors (an export carries none).
    pub vectors: ImportedVectors,
    /// Episodes (behaviour §8.6) written (those already stored are skipped: an episode's id is its
    /// content).
    pub episodes: u64,
}

/// The history side of an import. JSON: `{ "imported": 12, "dropped": 3 }`.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Serialize)]
pub struct ImportedHistory {
    /// Versions restored.
    pub imported: u64,
    /// Versions of the document the retention does not keep (`maxVersionsPerEntry`,
    /// `retainDays`).
    pub dropped: u64,
}

/// The vectors of an import. JSON: `{ "dropped": 40, "embedded": 40, "reindex": false }`.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Serialize)]
pub struct ImportedVectors {
    /// Imported entries that had no vector with them (every one but `_gdpr_` bookkeeping: an
    /// export carries no vectors).
    pub dropped: u64,
    /// Of those, embedded by the embedder the import was given.
    pub embedded: u64,
    /// Whether some are still without a vector: run `reindexEmbeddings` (hybrid search finds
    /// them by words only until then).
    pub reindex: bool,
}

/// A credential an import restored. JSON: `{ "entryId": "e1" | null, "field", "path", "kind" }`
/// (`entryId` is `null` for the profile, whose `field` is `body` and `path` its line).
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct ImportedSecret {
    /// The entry, `None` for the profile.
    pub entry_id: Option<String>,
    /// `key`, `value` or `body`.
    pub field: crate::secrets::SecretField,
    /// Inside the value (`""` for the value itself), or `line N` of the profile.
    pub path: String,
    /// The detector's kind.
    pub kind: crate::migrate::credentials::CredentialKind,
}

/// What the default policies would refuse in a document: `_gdpr_` entries (bookkeeping written by
/// the core) are not user facts and are skipped; the profile is scanned as its body.
fn secrets_in(document: &UserDataExport) -> Vec<ImportedSecret> {
    use crate::secrets::{find_entry_secret, guard_profile, ProfileGuard, SecretPolicy};
    let mut out: Vec<ImportedSecret> = document
        .entries
        .iter()
        .filter(|e| !crate::entries::visibility::is_reserved_key(&e.key))
        .filter_map(|e| {
            find_entry_secret(&e.key, &e.value).map(|found| ImportedSecret {
                entry_id: Some(e.id.clone()),
                field: found.field,
                path: found.path,
                kind: found.kind,
            })
        })
        .collect();
    if let Some(text) = &document.profile {
        let body = crate::profile::frontmatter::profile_body(text);
        if let ProfileGuard::Refused(found) = guard_profile(SecretPolicy::Refuse, &body) {
            out.push(ImportedSecret {
                entry_id: None,
                field: found.field,
                path: found.path,
                kind: found.kind,
            });
        }
    }
    out
}

/// Restore an export into stores that hold nothing of the user, all or nothing (see the module
/// documentation). Refused before anything is written: a bad document or entry (`E_ARGUMENT`), no
/// store for a part the document holds (`E_ARGUMENT`, argument `options.entries` or
/// `options.memory`), an entry store holding entries of the user or an id already stored
/// (`E_ARGUMENT`), a user who has a profile (`E_VERSION_CONFLICT`).
///
/// `together`: the entry store is also the profile storage (one SQL store): its atomic
/// `insert_all` then creates the profile in the same transaction, so not even a crash between two
/// writes can leave half an import behind. (A store whose `insertAll` does not know the profile
/// option is caught: the profile is read back, and written the usual way when it is missing.)
pub async fn import_user_data<S: EntryStore, P: ProfileRights>(
    document: &UserDataExport,
    entries: Option<&S>,
    profiles: Option<&P>,
    together: bool,
) -> Result<ImportReport> {
    import_user_data_by::<S, P, crate::entries::history::At, NoEmbedder, NoTimer, NoEmbedder>(
        document, entries, profiles, together, None, None,
    )
    .await
}

/// [`import_user_data`], the import an audit record by `writer`'s author (behaviour §8.3), its
/// history kept as `writer`'s history settings retain it, and the imported entries embedded
/// when `search` has an embedder. The document's history is restored after the entries, as it
/// was exported (every version of the document's user, its instants the core's millisecond UTC
/// text) less what the retention drops; a document with history and a store that keeps none is
/// refused (`E_ARGUMENT`) — an import never drops what it was given silently.
pub async fn import_user_data_by<S, P, C, E, T, L>(
    document: &UserDataExport,
    entries: Option<&S>,
    profiles: Option<&P>,
    together: bool,
    writer: Option<Writer<'_, C>>,
    search: Option<&SearchHosts<'_, E, T, L>>,
) -> Result<ImportReport>
where
    S: EntryStore,
    P: ProfileRights,
    C: Clock,
    E: Embedder,
    T: Timer,
    L: Logger,
{
    document.check()?;
    check_history(&document.user_id, &document.history)?;
    let user_id = document.user_id.as_str();
    check_entries(user_id, &document.entries)?;
    check_episodes(user_id, &document.episodes)?;
    let (history, dropped) = retained(&document.history, writer);
    let store = match entries {
        None if !document.entries.is_empty() => {
            return Err(missing(
                "the document has entries but no entry store was given",
                "options.entries",
            ))
        }
        store => store,
    };
    let profile = match (profiles, document.profile.as_deref()) {
        (Some(profiles), Some(text)) => Some((profiles, text)),
        (None, Some(_)) => {
            return Err(missing(
                "the document has a profile but neither a ContextMemory (options.memory) nor an entry store that holds profiles was given",
                "options.memory",
            ))
        }
        (_, None) => None,
    };
    if let Some(store) = store {
        ensure_no_entries(store, user_id).await?;
        ensure_ids_free(store, document).await?;
        if !document.episodes.is_empty()
            && store
                .episodes(&crate::entries::episode::EpisodeQuery {
                    user_id,
                    conversation_id: None,
                    not_before: None,
                })
                .await?
                .is_none()
        {
            return Err(refuse(
                format!("the document holds {} episodes but the entry store keeps none; import them into a store that does (every bundled store)", document.episodes.len()),
                json!({ "argument": "entries" }),
            ));
        }
        let kept = store.history_size(user_id).await?;
        if kept.is_none() && !document.history.is_empty() {
            return Err(refuse(
                format!("the document holds {} versions of history but the entry store keeps no history; import them into a store that does (every bundled store)", document.history.len()),
                json!({ "argument": "entries" }),
            ));
        }
    }
    if let Some((profiles, _)) = profile {
        if profiles.export_profile(user_id).await?.is_some() {
            return Err(Error::new(
                ErrorCode::VersionConflict,
                "importUserData: the user already has a profile; import restores into an empty store only",
            ));
        }
    }
    let mut profile_written = false;
    let written = match (store, profile) {
        (Some(store), Some((profiles, text))) if together => {
            let path = profiles.profile_path(user_id)?;
            let insert = ProfileInsert { path: &path, text };
            let count = u64::try_from(document.entries.len()).unwrap_or(u64::MAX);
            if store.insert_all(&document.entries, Some(insert)).await? {
                profile_written = profiles.export_profile(user_id).await?.as_deref() == Some(text);
                count
            } else {
                write_entries(store, &document.entries).await?
            }
        }
        (Some(store), _) => write_entries(store, &document.entries).await?,
        (None, _) => 0,
    };
    if let Some((profiles, text)) = profile.filter(|_| !profile_written) {
        if let Err(error) = profiles.import_profile(user_id, text).await {
            let mut undo = Undo::default();
            undo.profile(profiles, user_id, text, &error).await;
            if let Some(store) = store {
                let ids: Vec<&str> = document.entries.iter().map(|e| e.id.as_str()).collect();
                undo.entries(store, &ids).await;
            }
            return Err(undo.into_error(error));
        }
    }
    if let Some(store) = store {
        if let Err(error) = restore_history(store, user_id, &history, writer).await {
            let mut undo = Undo::default();
            if let Some((profiles, text)) = profile {
                undo.profile(profiles, user_id, text, &error).await;
            }
            let ids: Vec<&str> = document.entries.iter().map(|e| e.id.as_str()).collect();
            undo.entries(store, &ids).await;
            return Err(undo.into_error(error));
        }
    }
    let mut episodes = 0;
    if let Some(store) = store.filter(|_| !document.episodes.is_empty()) {
        episodes = store
            .put_episodes(&document.episodes)
            .await?
            .unwrap_or_default() as u64;
    }
    if let (Some(store), Some(writer)) = (store, writer) {
        let at = instant_text(writer.clock.now());
        let record =
            AuditRecord::new(&at, writer.author, Operation::Import, user_id).counting(written);
        writer.store(store).log(record).await?;
    }
    let mut vectors = ImportedVectors {
        dropped: document
            .entries
            .iter()
            .filter(|e| !crate::entries::visibility::is_reserved_key(&e.key))
            .count() as u64,
        ..ImportedVectors::default()
    };
    if let (Some(store), Some(hosts)) = (store, search) {
        if let Some(embedding) = hosts.embedding.as_ref().filter(|_| vectors.dropped > 0) {
            let done = store_vectors(store, embedding, hosts.log, &document.entries).await;
            vectors.embedded = done.embedded as u64;
        }
    }
    vectors.reindex = vectors.embedded < vectors.dropped;
    Ok(ImportReport {
        entries: written,
        profile: profile.is_some(),
        secrets: secrets_in(document),
        history: ImportedHistory {
            imported: history.len() as u64,
            dropped,
        },
        vectors,
        episodes,
    })
}

/// A document's episodes are the document user's, each id once, each time RFC 3339
/// (`E_ARGUMENT` otherwise, nothing written).
fn check_episodes(user_id: &str, episodes: &[crate::entries::episode::Episode]) -> Result<()> {
    let mut seen = std::collections::HashSet::new();
    for episode in episodes {
        let problem = if episode.user_id != user_id {
            Some("an episode of another user")
        } else if !seen.insert(episode.id.as_str()) {
            Some("an episode twice")
        } else if chrono::DateTime::parse_from_rfc3339(&episode.at).is_err() {
            Some("an episode whose `at` is not RFC 3339")
        } else {
            None
        };
        if let Some(problem) = problem {
            return Err(refuse(
                format!("the document holds {problem} ({})", episode.id),
                json!({ "argument": "document", "episode": episode.id }),
            ));
        }
    }
    Ok(())
}

/// The versions of an import the history settings keep (the newest `maxVersionsPerEntry` of
/// each entry by `validUntil` then id, none that ended before `retainDays` ago — the store's own
/// retention rule, [`crate::entries::history::HistoryAppend`]) and how many they drop. Without
/// a writer (no clock): the default settings, without the age limit.
fn retained<C: Clock>(history: &[Version], writer: Option<Writer<'_, C>>) -> (Vec<Version>, u64) {
    let defaults = HistoryConfig::default();
    let config = writer.map_or(&defaults, |w| w.history);
    let not_before = writer.map(|w| not_before(w.clock.now(), config.retain_days));
    let max = usize::try_from(config.max_versions_per_entry).unwrap_or(usize::MAX);
    let mut sorted: Vec<&Version> = history.iter().collect();
    crate::order::sort_by(&mut sorted, |a, b| {
        (&a.entry_id, &b.valid_until, &b.id).cmp(&(&b.entry_id, &a.valid_until, &a.id))
    });
    let mut kept = Vec::with_capacity(sorted.len());
    let mut run: (Option<&str>, usize) = (None, 0);
    for v in sorted {
        if run.0 != Some(v.entry_id.as_str()) {
            run = (Some(v.entry_id.as_str()), 0);
        }
        run.1 += 1;
        let expired = not_before
            .as_deref()
            .is_some_and(|limit| v.valid_until.as_str() < limit);
        if run.1 <= max && !expired {
            kept.push(v.clone());
        }
    }
    let dropped = (history.len() - kept.len()) as u64;
    (kept, dropped)
}

/// No id the document names belongs to anyone else: an entry's id is held by no current entry
/// and by no other user's history; a version's entry id, when it is not one of the document's
/// entries, likewise (`E_CONFLICT`, naming the id).
async fn ensure_ids_free<S: EntryStore>(store: &S, document: &UserDataExport) -> Result<()> {
    let user_id = document.user_id.as_str();
    let mut ids: Vec<String> = document.entries.iter().map(|e| e.id.clone()).collect();
    ids.extend(document.history.iter().map(|v| v.entry_id.clone()));
    crate::order::sort_by(&mut ids, |a, b| a.cmp(b));
    ids.dedup();
    let mut held = Vec::with_capacity(ids.len().min(1024));
    for chunk in ids.chunks(500) {
        held.extend(holders(store, chunk).await?);
    }
    for id in &ids {
        let taken = current(&held, id) || foreign(&held, id, user_id).is_some();
        if taken {
            return Err(Error::new(
                ErrorCode::Conflict,
                format!("importUserData: the id {id} the document names is held by another entry (or another user's history); an entry id names one user's entry, so nothing was imported"),
            )
            .with_details(json!({ "argument": "document", "entryId": id })));
        }
    }
    Ok(())
}

/// Every version of an import's history is the document's user's, dated as the core dates, its
/// id the one its content gives it, and no id appears twice.
fn check_history(user_id: &str, history: &[Version]) -> Result<()> {
    let mut seen = std::collections::HashSet::new();
    for (i, v) in history.iter().enumerate() {
        let canonical = crate::entries::recall::parsed(&v.valid_until)
            .and_then(|(s, n)| chrono::DateTime::from_timestamp(s, n))
            .is_some_and(|t| instant_text(t) == v.valid_until);
        let problem = if v.user_id != user_id {
            "belongs to another user than the document's"
        } else if !canonical {
            "has a validUntil that is not a millisecond UTC instant (YYYY-MM-DDTHH:MM:SS.sssZ)"
        } else if v.id != v.content_id() {
            "has an id its content does not give it (a version id is derived from the version: edited or forged)"
        } else if !seen.insert(v.id.as_str()) {
            "appears twice"
        } else {
            continue;
        };
        return Err(refuse(
            format!("history[{i}] (version {}) {problem}", v.id),
            json!({ "argument": "document", "versionId": v.id }),
        ));
    }
    Ok(())
}

/// Put an import's history back as it was exported, less what the retention does not keep
/// ([`retained`]: the same bounds go to the store, which applies them to what it held too).
async fn restore_history<S: EntryStore, C: Clock>(
    store: &S,
    user_id: &str,
    history: &[Version],
    writer: Option<Writer<'_, C>>,
) -> Result<()> {
    if history.is_empty() {
        return Ok(());
    }
    let defaults = HistoryConfig::default();
    let config = writer.map_or(&defaults, |w| w.history);
    let append = HistoryAppend {
        user_id,
        versions: history,
        audit: &[],
        max_versions_per_entry: config.max_versions_per_entry,
        not_before: writer.map_or_else(
            || "0001-01-01T00:00:00.000Z".to_string(),
            |w| not_before(w.clock.now(), config.retain_days),
        ),
    };
    store.append_history(&append).await?;
    Ok(())
}

/// Restore exported entries into a store that holds none of the user's, all or nothing; returns
/// how many were written. Refused before anything is written (`E_ARGUMENT`) when the store is not
/// empty for the user, when an entry belongs to another user, or when two entries share an id.
pub async fn import_entries<S: EntryStore>(
    store: &S,
    user_id: &str,
    entries: &[Entry],
) -> Result<u64> {
    check_entries(user_id, entries)?;
    ensure_no_entries(store, user_id).await?;
    write_entries(store, entries).await
}

fn refuse(message: String, details: Value) -> Error {
    Error::new(ErrorCode::Argument, format!("importUserData: {message}")).with_details(details)
}

fn missing(message: &str, argument: &str) -> Error {
    refuse(message.to_string(), json!({ "argument": argument }))
}

/// Every entry is the user's and no id appears twice.
fn check_entries(user_id: &str, entries: &[Entry]) -> Result<()> {
    if let Some(other) = entries.iter().find(|e| e.user_id != user_id) {
        return Err(refuse(
            format!(
                "entry {} belongs to another user than the document's",
                other.id
            ),
            json!({ "argument": "document", "entryId": other.id }),
        ));
    }
    let mut ids: Vec<&str> = entries.iter().map(|e| e.id.as_str()).collect();
    crate::order::sort_by(&mut ids, |a, b| a.cmp(b));
    if let Some(pair) = ids.windows(2).find(|w| w.first() == w.get(1)) {
        let id = pair.first().copied().unwrap_or_default();
        return Err(refuse(
            format!("two entries have the id {id}"),
            json!({ "argument": "document", "entryId": id }),
        ));
    }
    Ok(())
}

/// The store holds none of the user's entries.
async fn ensure_no_entries<S: EntryStore>(store: &S, user_id: &str) -> Result<()> {
    let held = store
        .list(user_id)
        .await?
        .into_iter()
        .filter(|e| e.user_id == user_id)
        .count();
    if held > 0 {
        return Err(refuse(
            format!("the entry store already holds {held} entries of the user; import restores into an empty store only"),
            json!({ "argument": "entries", "held": held }),
        ));
    }
    Ok(())
}

/// Write checked entries: atomically through `insert_all`, else one by one, undoing them when one
/// fails.
async fn write_entries<S: EntryStore>(store: &S, entries: &[Entry]) -> Result<u64> {
    if entries.is_empty() {
        return Ok(0);
    }
    let count = u64::try_from(entries.len()).unwrap_or(u64::MAX);
    if store.insert_all(entries, None).await? {
        return Ok(count);
    }
    for entry in entries {
        if store.get(&entry.id).await?.is_some() {
            return Err(refuse(
                format!("an entry with the id {} is already stored (another user's); import writes new ids only", entry.id),
                json!({ "argument": "document", "entryId": entry.id }),
            ));
        }
    }
    let mut written = Vec::with_capacity(entries.len());
    for entry in entries {
        // Before the write: a failed write may have taken effect, so its id is undone too.
        written.push(entry.id.as_str());
        if let Err(error) = store.upsert(entry).await {
            let mut undo = Undo::default();
            undo.entries(store, &written).await;
            return Err(undo.into_error(error));
        }
    }
    Ok(count)
}

/// What undoing a failed import did; it never fails itself: what it could not undo is reported.
#[derive(Default)]
struct Undo {
    entries: u64,
    profile_removed: bool,
    failed: Vec<Value>,
}

impl Undo {
    /// Delete these ids again.
    async fn entries<S: EntryStore>(&mut self, store: &S, ids: &[&str]) {
        for id in ids {
            match store.delete(id).await {
                Ok(_) => self.entries += 1,
                Err(error) => self.failed.push(json!({
                    "entryId": id, "code": error.code.as_str(), "message": crate::secrets::error_text(&error),
                })),
            }
        }
    }

    /// Remove the profile a failed create-only write stored after all (the text is the imported
    /// one); a version conflict is another writer's profile, never ours.
    async fn profile<P: ProfileRights>(
        &mut self,
        profiles: &P,
        user_id: &str,
        text: &str,
        error: &Error,
    ) {
        if error.code == ErrorCode::VersionConflict {
            return;
        }
        let removed = match profiles.export_profile(user_id).await {
            Ok(Some(stored)) if stored == text => profiles.erase_profile(user_id).await.map(drop),
            Ok(_) => return,
            Err(error) => Err(error),
        };
        match removed {
            Ok(()) => self.profile_removed = true,
            Err(error) => self.failed.push(json!({
                "profile": true, "code": error.code.as_str(), "message": crate::secrets::error_text(&error),
            })),
        }
    }

    /// The original error with `details.undo` (and, when something could not be undone, a
    /// message that says so).
    fn into_error(self, error: Error) -> Error {
        let mut details = match error.details {
            Some(Value::Object(details)) => details,
            Some(other) => {
                let mut details = Map::new();
                details.insert("cause".to_string(), other);
                details
            }
            None => Map::new(),
        };
        let message = if self.failed.is_empty() {
            error.message
        } else {
            format!(
                "{}; undoing the import failed for {} of what it wrote (details.undo.failed): erase the user's data before retrying",
                error.message,
                self.failed.len()
            )
        };
        details.insert(
            "undo".to_string(),
            json!({ "entries": self.entries, "profileRemoved": self.profile_removed, "failed": self.failed }),
        );
        Error {
            code: error.code,
            message,
            details: Some(Value::Object(details)),
        }
    }
}
