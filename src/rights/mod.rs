//! Data-subject rights (behaviour §4.3): the Art. 18 processing restriction, Art. 17 erasure of
//! every entry, and the Art. 15/20 export document with its lossless, all-or-nothing import
//! ([`import`]). The profile side of erasure, export and import is [`ProfileRights`]
//! ([`profile`]): a [`crate::turn::ContextMemory`] over its storage, or [`StoredProfiles`] over
//! any profile store (a SQL store is entry store and profile storage in one object); the package
//! runs both sides for every store it is given.
//!
//! Decisions where the behaviour reference is silent:
//! - The restriction flag is the global entry `_gdpr_processing_restricted` with the value
//!   `{ "restricted": true, "since": <now> }`, category `fact`, no agent. Lifting it deletes every
//!   global entry with that key. Setting it twice keeps the first `since` (`changed: false`).
//! - Erasure deletes every entry the store lists for the user, `_gdpr_` ones included, and checks
//!   by listing again that none is left (a store that answers "deleted" and keeps rows is an
//!   `E_HOST` error, not a silent success).
//! - Import restores into an **empty** store only (for that user): a store that already holds
//!   entries of the user is refused with `E_ARGUMENT`, so an import never merges or overwrites.
//!   Every imported entry must belong to the document's user. It writes all or nothing (see
//!   [`import`]).

pub mod import;
pub mod profile;

pub use import::{import_entries, import_user_data, ImportReport};
pub use profile::{ProfileErasure, ProfileRights, StoredProfiles};

use crate::entries::history::{
    instant_text, AuditRecord, HistoryErasure, HistoryRenames, HistorySize, Operation, Version,
    VersionQuery, VersionRename, Writer,
};
use crate::entries::store::{with_key, EntryStore};
use crate::entries::Entry;
use crate::error::{Error, ErrorCode, Result};
use crate::host::{Clock, IdSource};
use chrono::SecondsFormat;
use serde::{Deserialize, Serialize};

/// The global key that marks an Art. 18 processing restriction (behaviour §4.3).
pub const RESTRICTION_KEY: &str = "_gdpr_processing_restricted";

/// Whether the user's processing is restricted (behaviour §4.3).
pub fn is_restricted(entries: &[Entry]) -> bool {
    entries
        .iter()
        .any(|e| e.key == RESTRICTION_KEY && e.visibility == "global")
}

/// `format` of an export document.
pub const EXPORT_FORMAT: &str = "memcore.user-data";
/// `version` of the export document this code writes and reads.
pub const EXPORT_VERSION: u64 = 1;

/// The Art. 15/20 export (behaviour §4.3): every entry, the profile text and the restriction state.
/// JSON: `{ "format": "memcore.user-data", "version": 1, "userId", "exportedAt", "restricted",
/// "entries": [...], "profile": "…" | null }`.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub struct UserDataExport {
    /// Always [`EXPORT_FORMAT`].
    pub format: String,
    /// The document version ([`EXPORT_VERSION`]).
    pub version: u64,
    /// Whose data this is.
    pub user_id: String,
    /// When it was exported (RFC 3339, from the host clock).
    pub exported_at: String,
    /// Whether processing was restricted at export (the flag itself is among the entries).
    pub restricted: bool,
    /// Every entry, `_gdpr_` ones included, in id order.
    pub entries: Vec<Entry>,
    /// The stored profile text byte for byte, `None` without a profile.
    pub profile: Option<String>,
    /// The user's history (behaviour §8.3): every version kept, by entry id, then `validUntil`,
    /// then id. An import restores it. Absent in an export of a store without history (and in
    /// exports made before history existed).
    #[serde(default)]
    pub history: Vec<Version>,
    /// How much history the store kept of the user at export (versions, audit records); `null`
    /// when it keeps none. Reported, not imported.
    #[serde(default)]
    pub history_size: Option<HistorySize>,
    /// The user's episodes (behaviour §8.6): the messages of the turns memory learned from, oldest
    /// first. An import restores them. Absent in an export of a store without episodes (and in
    /// exports made before episodes existed).
    #[serde(default)]
    pub episodes: Vec<crate::entries::episode::Episode>,
}

impl UserDataExport {
    /// The document for what was read.
    pub fn new<C: Clock>(
        clock: &C,
        user_id: &str,
        entries: Vec<Entry>,
        profile: Option<String>,
    ) -> Self {
        UserDataExport {
            format: EXPORT_FORMAT.to_string(),
            version: EXPORT_VERSION,
            user_id: user_id.to_string(),
            exported_at: clock.now().to_rfc3339_opts(SecondsFormat::Millis, true),
            restricted: is_restricted(&entries),
            entries,
            profile,
            history: Vec::new(),
            history_size: None,
            episodes: Vec::new(),
        }
    }

    /// Check a document before anything of it is imported (`E_ARGUMENT` naming what is wrong).
    pub fn check(&self) -> Result<()> {
        let refuse = |message: &str| {
            Err(
                Error::new(ErrorCode::Argument, format!("importUserData: {message}"))
                    .with_details(serde_json::json!({ "argument": "document" })),
            )
        };
        if self.format != EXPORT_FORMAT {
            return refuse("not a memcore export (format must be \"memcore.user-data\")");
        }
        if self.version != EXPORT_VERSION {
            return refuse("an export of another version; this memcore reads version 1");
        }
        crate::profile::paths::validate_user_id(&self.user_id)?;
        if self.restricted != is_restricted(&self.entries) {
            return refuse(
                "`restricted` disagrees with the entries (the flag entry was edited out or in)",
            );
        }
        Ok(())
    }
}

/// What [`erase_user_data`] removed from one entry store and one profile storage. JSON:
/// `{ "userId", "entries": n | null, "profile": { "removed", "folderRemoved" } | null }` (`null`:
/// that kind of store was not given).
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct ErasureReport {
    /// Whose data was erased.
    pub user_id: String,
    /// Entries deleted, `_gdpr_` ones included.
    pub entries: Option<u64>,
    /// What the profile storage removed.
    pub profile: Option<ProfileErasure>,
    /// The versions and audit records removed with the entries (behaviour §8.3), and the other
    /// users' records and versions whose actor was the user, renamed to the erasure's pseudonym;
    /// `null` when the store keeps no history. One record of the erasure itself stays in the
    /// audit log.
    pub history: Option<HistoryErasure>,
    /// Episodes deleted (behaviour §8.6); `null` when the store keeps no episodes.
    pub episodes: Option<u64>,
}

/// Art. 17 (behaviour §4.3): every entry of the user (`_gdpr_` ones included), the user's history —
/// every version and audit record (behaviour §8.3) — and the profile with its folder. Idempotent.
/// The entries go first: a failure there leaves the profile, and the report of a retry is
/// complete. The history goes in one store call that also appends the one record that stays:
/// the erasure itself (when, by whom — `writer`'s author — and how many items: entries,
/// versions and audit records removed), as accountability requires. That record names the user
/// by [`erased_name`] (the SHA-256 of the id), so no row of any table names the user afterwards.
pub async fn erase_user_data<S: EntryStore, P: ProfileRights, C: Clock>(
    user_id: &str,
    entries: Option<&S>,
    profiles: Option<&P>,
    writer: Writer<'_, C>,
) -> Result<ErasureReport> {
    crate::profile::paths::validate_user_id(user_id)?;
    let (entries, history, episodes) = match entries {
        Some(store) => {
            let erased = erase_entries(store, user_id).await?;
            let episodes = store.delete_episodes(user_id, None).await?;
            (
                Some(erased),
                erase_history(store, user_id, erased, writer).await?,
                episodes.map(|n| n as u64),
            )
        }
        None => (None, None, None),
    };
    let profile = match profiles {
        Some(memory) => Some(memory.erase_profile(user_id).await?),
        None => None,
    };
    Ok(ErasureReport {
        user_id: user_id.to_string(),
        entries,
        profile,
        history,
        episodes,
    })
}

/// The one-off repair of data stored under a user id the one user-id rule now refuses (`a/b`,
/// `../x`, `a\0b`, over 255 bytes: written before every write checked it): such data cannot be
/// reached by [`erase_user_data`], which refuses the id. This erases the entries and history of
/// exactly such an id — as an erasure does, with the same record and renames — and refuses an id
/// the rule accepts (`E_ARGUMENT`: that is [`erase_user_data`]'s job). There is no profile to
/// erase: a profile path was never built from a refused id.
pub async fn erase_invalid_user_data<S: EntryStore, C: Clock>(
    user_id: &str,
    store: &S,
    writer: Writer<'_, C>,
) -> Result<ErasureReport> {
    if crate::profile::paths::validate_user_id(user_id).is_ok() {
        return Err(Error::new(
            ErrorCode::Argument,
            "eraseInvalidUserData is for user ids memcore refuses; erase this one with eraseUserData",
        )
        .with_details(serde_json::json!({ "argument": "userId" })));
    }
    let erased = erase_entries(store, user_id).await?;
    let episodes = store.delete_episodes(user_id, None).await?;
    Ok(ErasureReport {
        user_id: user_id.to_string(),
        entries: Some(erased),
        profile: None,
        history: erase_history(store, user_id, erased, writer).await?,
        episodes: episodes.map(|n| n as u64),
    })
}

/// The name an erasure's audit record gives the erased user: `sha256:<hex of its id>`.
pub fn erased_name(user_id: &str) -> String {
    crate::digest::sha256_name(user_id)
}

/// The history side of an erasure: how much there is, then every version and audit record of
/// the user removed with the erasure's own record appended, in one store call. `None` when the
/// store keeps no history. The user's id is renamed to that name wherever it says who acted in
/// the rest of the history (other users' audit records and versions), so no row names the
/// erased user afterwards.
async fn erase_history<S: EntryStore, C: Clock>(
    store: &S,
    user_id: &str,
    entries: u64,
    writer: Writer<'_, C>,
) -> Result<Option<HistoryErasure>> {
    let Some(size) = store.history_size(user_id).await? else {
        return Ok(None);
    };
    let items = entries
        .saturating_add(size.versions)
        .saturating_add(size.audit);
    let at = instant_text(writer.clock.now());
    // The record names the user by the SHA-256 of its id: afterwards no row names the user,
    // yet an auditor who holds the id finds the record (`auditLog` looks under both names).
    let erased = erased_name(user_id);
    let mut actor = writer.author.clone();
    if actor.id.as_deref() == Some(user_id) {
        actor.id = Some(erased.clone());
    }
    let record = AuditRecord::new(&at, &actor, Operation::Erase, &erased).counting(items);
    // Other users' versions the user ended keep their state under the pseudonym (a new id: a
    // version's id is derived from its content).
    let authored = store.versions_by_author(user_id).await?.unwrap_or_default();
    let versions = authored
        .into_iter()
        .filter(|v| v.user_id != user_id && v.author.id.as_deref() == Some(user_id))
        .map(|old| {
            let mut version = old.clone();
            version.author.id = Some(erased.clone());
            version.id = version.content_id();
            VersionRename {
                replaces: old.id,
                version,
            }
        })
        .collect();
    let renames = HistoryRenames {
        pseudonym: erased.clone(),
        versions,
    };
    store.erase_history(user_id, &record, &renames).await
}

/// Art. 15/20: the export document of one entry store and one profile storage, with the user's
/// history (behaviour §8.3). The export is an audit record (by `writer`'s author), appended once
/// the document is read.
pub async fn export_user_data<S: EntryStore, P: ProfileRights, C: Clock>(
    writer: Writer<'_, C>,
    user_id: &str,
    entries: Option<&S>,
    profiles: Option<&P>,
) -> Result<UserDataExport> {
    crate::profile::paths::validate_user_id(user_id)?;
    let list = match entries {
        Some(store) => export_entries(store, user_id).await?,
        None => Vec::new(),
    };
    let profile = match profiles {
        Some(memory) => memory.export_profile(user_id).await?,
        None => None,
    };
    let mut document = UserDataExport::new(writer.clock, user_id, list, profile);
    if let Some(store) = entries {
        document.history = export_history(store, user_id).await?;
        document.history_size = store.history_size(user_id).await?;
        document.episodes = export_episodes(store, user_id).await?;
        let items = u64::try_from(
            document.entries.len() + document.history.len() + document.episodes.len(),
        )
        .unwrap_or(u64::MAX);
        let record = AuditRecord::new(
            &document.exported_at,
            writer.author,
            Operation::Export,
            user_id,
        )
        .counting(items);
        writer.store(store).log(record).await?;
    }
    Ok(document)
}

/// Every episode the store keeps of the user, oldest first, ties by id (empty when the store
/// keeps no episodes).
pub async fn export_episodes<S: EntryStore>(
    store: &S,
    user_id: &str,
) -> Result<Vec<crate::entries::episode::Episode>> {
    let query = crate::entries::episode::EpisodeQuery {
        user_id,
        conversation_id: None,
        not_before: None,
    };
    let mut episodes: Vec<_> = store
        .episodes(&query)
        .await?
        .unwrap_or_default()
        .into_iter()
        .filter(|e| e.user_id == user_id)
        .collect();
    crate::order::sort_by(&mut episodes, |a, b| (&a.at, &a.id).cmp(&(&b.at, &b.id)));
    episodes.dedup_by(|a, b| a.id == b.id);
    Ok(episodes)
}

/// Every version the store keeps of the user, by entry id, then `validUntil`, then id (empty
/// when the store keeps no history).
pub async fn export_history<S: EntryStore>(store: &S, user_id: &str) -> Result<Vec<Version>> {
    let query = VersionQuery {
        user_id,
        entry_id: None,
        key: None,
    };
    let mut versions: Vec<Version> = store
        .versions(&query)
        .await?
        .unwrap_or_default()
        .into_iter()
        .filter(|v| v.user_id == user_id)
        .collect();
    crate::order::sort_by(&mut versions, |a, b| {
        (&a.entry_id, &a.valid_until, &a.id).cmp(&(&b.entry_id, &b.valid_until, &b.id))
    });
    versions.dedup_by(|a, b| a.id == b.id);
    Ok(versions)
}

/// What [`set_processing_restriction`] did.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct RestrictionChange {
    /// The state now.
    pub restricted: bool,
    /// Whether anything was written or deleted.
    pub changed: bool,
}

/// Whether the user's processing is restricted. A store error is returned as is: callers that
/// must fail safe (the tools, `afterTurn`, Dream) treat it as restricted.
pub async fn processing_restricted<S: EntryStore>(store: &S, user_id: &str) -> Result<bool> {
    Ok(is_restricted(
        &with_key(store, user_id, RESTRICTION_KEY).await?,
    ))
}

/// Set or lift the Art. 18 restriction (behaviour §4.3). Admin only: `admin` says the host checked
/// that an administrator asks; without it nothing is touched (`E_ARGUMENT`, argument
/// `options.admin`).
///
/// A change is an audit record (`restrict`, `unrestrict`) by `writer`'s author (behaviour §8.3);
/// the flag entry itself keeps no version (bookkeeping, never shown).
pub async fn set_processing_restriction<S: EntryStore, C: Clock, I: IdSource>(
    store: &S,
    writer: Writer<'_, C>,
    ids: &I,
    user_id: &str,
    restricted: bool,
    admin: bool,
) -> Result<RestrictionChange> {
    let clock = writer.clock;
    if !admin {
        return Err(Error::new(
            ErrorCode::Argument,
            "setProcessingRestriction is for administrators: pass { admin: true } once the host has checked the caller is one",
        )
        .with_details(serde_json::json!({ "argument": "options.admin" })));
    }
    crate::profile::paths::validate_user_id(user_id)?;
    let flags: Vec<Entry> = with_key(store, user_id, RESTRICTION_KEY)
        .await?
        .into_iter()
        .filter(|e| e.visibility == "global")
        .collect();
    if restricted {
        if !flags.is_empty() {
            return Ok(RestrictionChange {
                restricted,
                changed: false,
            });
        }
        let now = clock.now().to_rfc3339_opts(SecondsFormat::Millis, true);
        let value = serde_json::json!({ "restricted": true, "since": now });
        let flag = Entry::new_global(ids.new_id(), user_id, RESTRICTION_KEY, value, "fact", now)
            .by(writer.author);
        if flag.id.is_empty() {
            return Err(Error::new(
                ErrorCode::Host,
                "setProcessingRestriction: newId returned no id for the restriction flag",
            ));
        }
        crate::entries::ownership::check_new_id(store, ids.host_made(), &flag).await?;
        let record = AuditRecord::new(
            &flag.created_at,
            writer.author,
            Operation::Restrict,
            user_id,
        );
        writer.store(store).log(record).await?;
        store.upsert(&flag).await?;
        return Ok(RestrictionChange {
            restricted,
            changed: true,
        });
    }
    if !flags.is_empty() {
        let at = instant_text(clock.now());
        let record = AuditRecord::new(&at, writer.author, Operation::Unrestrict, user_id);
        writer.store(store).log(record).await?;
    }
    let mut changed = false;
    for flag in &flags {
        changed |= store.delete(&flag.id).await?;
    }
    Ok(RestrictionChange {
        restricted,
        changed,
    })
}

/// Art. 17: delete every entry of the user, `_gdpr_` ones included; returns how many were
/// deleted. Idempotent (a second call deletes 0).
pub async fn erase_entries<S: EntryStore>(store: &S, user_id: &str) -> Result<u64> {
    let mut deleted = 0;
    for entry in store.list(user_id).await? {
        if entry.user_id == user_id && store.delete(&entry.id).await? {
            deleted += 1;
        }
    }
    let left = store
        .list(user_id)
        .await?
        .into_iter()
        .filter(|e| e.user_id == user_id)
        .count();
    if left > 0 {
        return Err(Error::new(
            ErrorCode::Host,
            format!("eraseUserData: the entry store still holds {left} entries of the user after deleting them"),
        )
        .with_details(serde_json::json!({ "left": left })));
    }
    Ok(deleted)
}

/// Art. 15/20: every entry of the user, `_gdpr_` ones included, in id order.
pub async fn export_entries<S: EntryStore>(store: &S, user_id: &str) -> Result<Vec<Entry>> {
    let mut entries: Vec<Entry> = store
        .list(user_id)
        .await?
        .into_iter()
        .filter(|e| e.user_id == user_id)
        .collect();
    crate::order::sort_by(&mut entries, |a, b| a.id.cmp(&b.id));
    entries.dedup_by(|a, b| a.id == b.id);
    Ok(entries)
}
