//! Data-subject rights (SPEC §4.3): the Art. 18 processing restriction, Art. 17 erasure of every
//! entry, and the Art. 15/20 export document with its lossless import. The profile side of
//! erasure, export and import lives on [`crate::turn::ContextMemory`] (`erase_profile`,
//! `export_profile`, `import_profile`); the package runs both for every store it is given.
//!
//! Decisions where SPEC is silent:
//! - The restriction flag is the global entry `_gdpr_processing_restricted` with the value
//!   `{ "restricted": true, "since": <now> }`, category `fact`, no agent. Lifting it deletes every
//!   global entry with that key. Setting it twice keeps the first `since` (`changed: false`).
//! - Erasure deletes every entry the store lists for the user, `_gdpr_` ones included, and checks
//!   by listing again that none is left (a store that answers "deleted" and keeps rows is an
//!   `E_HOST` error, not a silent success).
//! - Import restores into an **empty** store only (for that user): a store that already holds
//!   entries of the user is refused with `E_ARGUMENT`, so an import never merges or overwrites.
//!   Every imported entry must belong to the document's user.

use crate::entries::store::{with_key, EntryStore};
use crate::entries::tools::{is_restricted, RESTRICTION_KEY};
use crate::entries::Entry;
use crate::error::{Error, ErrorCode, Result};
use crate::host::{Clock, IdSource};
use chrono::SecondsFormat;
use serde::{Deserialize, Serialize};
use serde_json::Value;

/// `format` of an export document.
pub const EXPORT_FORMAT: &str = "memcore.user-data";
/// `version` of the export document this code writes and reads.
pub const EXPORT_VERSION: u64 = 1;

/// The Art. 15/20 export (SPEC §4.3): every entry, the profile text and the restriction state.
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

/// The profile side of the rights, implemented by [`crate::turn::ContextMemory`].
#[allow(async_fn_in_trait)]
pub trait ProfileRights {
    /// Remove the profile and the user's folder.
    async fn erase_profile(&self, user_id: &str) -> Result<ProfileErasure>;
    /// The stored profile text, `None` without one.
    async fn export_profile(&self, user_id: &str) -> Result<Option<String>>;
    /// Write an exported text, create-only.
    async fn import_profile(&self, user_id: &str, text: &str) -> Result<()>;
}

/// What erasing a profile removed. JSON: `{ "removed", "folderRemoved" }`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct ProfileErasure {
    /// A profile existed and was removed.
    pub removed: bool,
    /// The storage removed the user's folder.
    pub folder_removed: bool,
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
}

/// What [`import_user_data`] wrote. JSON: `{ "entries": n, "profile": bool }`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct ImportReport {
    /// Entries written.
    pub entries: u64,
    /// Whether a profile was written.
    pub profile: bool,
}

/// Art. 17 (SPEC §4.3): every entry of the user (`_gdpr_` ones included) and the profile with
/// its folder. Idempotent. The entries go first: a failure there leaves the profile, and the
/// report of a retry is complete.
pub async fn erase_user_data<S: EntryStore, P: ProfileRights>(
    user_id: &str,
    entries: Option<&S>,
    profiles: Option<&P>,
) -> Result<ErasureReport> {
    crate::profile::paths::validate_user_id(user_id)?;
    let entries = match entries {
        Some(store) => Some(erase_entries(store, user_id).await?),
        None => None,
    };
    let profile = match profiles {
        Some(memory) => Some(memory.erase_profile(user_id).await?),
        None => None,
    };
    Ok(ErasureReport {
        user_id: user_id.to_string(),
        entries,
        profile,
    })
}

/// Art. 15/20: the export document of one entry store and one profile storage.
pub async fn export_user_data<S: EntryStore, P: ProfileRights, C: Clock>(
    clock: &C,
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
    Ok(UserDataExport::new(clock, user_id, list, profile))
}

/// Restore an export into empty stores. Everything is checked before anything is written: the
/// document ([`UserDataExport::check`]), that the entry store holds none of the user's entries
/// and that the user has no profile; then the entries, then the profile (create-only).
pub async fn import_user_data<S: EntryStore, P: ProfileRights>(
    document: &UserDataExport,
    entries: Option<&S>,
    profiles: Option<&P>,
) -> Result<ImportReport> {
    document.check()?;
    let user_id = document.user_id.as_str();
    if let (Some(memory), Some(_)) = (profiles, &document.profile) {
        if memory.export_profile(user_id).await?.is_some() {
            return Err(Error::new(
                ErrorCode::VersionConflict,
                "importUserData: the user already has a profile; import restores into an empty store only",
            ));
        }
    }
    let written = match entries {
        Some(store) => import_entries(store, user_id, &document.entries).await?,
        None if document.entries.is_empty() => 0,
        None => {
            return Err(Error::new(
                ErrorCode::Argument,
                "importUserData: the document has entries but no entry store was given",
            )
            .with_details(serde_json::json!({ "argument": "options.entries" })))
        }
    };
    let profile = match (profiles, &document.profile) {
        (Some(memory), Some(text)) => {
            memory.import_profile(user_id, text).await?;
            true
        }
        (None, Some(_)) => {
            return Err(Error::new(
                ErrorCode::Argument,
                "importUserData: the document has a profile but no ContextMemory was given (its entries were imported)",
            )
            .with_details(serde_json::json!({ "argument": "options.memory" })))
        }
        (_, None) => false,
    };
    Ok(ImportReport {
        entries: written,
        profile,
    })
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

/// Set or lift the Art. 18 restriction (SPEC §4.3). Admin only: `admin` says the host checked
/// that an administrator asks; without it nothing is touched (`E_ARGUMENT`, argument
/// `options.admin`).
pub async fn set_processing_restriction<S: EntryStore, C: Clock, I: IdSource>(
    store: &S,
    clock: &C,
    ids: &I,
    user_id: &str,
    restricted: bool,
    admin: bool,
) -> Result<RestrictionChange> {
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
        let flag = Entry::new_global(ids.new_id(), user_id, RESTRICTION_KEY, value, "fact", now);
        if flag.id.is_empty() {
            return Err(Error::new(
                ErrorCode::Host,
                "setProcessingRestriction: newId returned no id for the restriction flag",
            ));
        }
        store.upsert(&flag).await?;
        return Ok(RestrictionChange {
            restricted,
            changed: true,
        });
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
    entries.sort_by(|a, b| a.id.cmp(&b.id));
    entries.dedup_by(|a, b| a.id == b.id);
    Ok(entries)
}

/// Restore exported entries into a store that holds none of the user's; returns how many were
/// written. Refused before anything is written (`E_ARGUMENT`) when the store is not empty for the
/// user, when an entry belongs to another user, or when two entries share an id.
pub async fn import_entries<S: EntryStore>(
    store: &S,
    user_id: &str,
    entries: &[Entry],
) -> Result<u64> {
    let refuse = |message: String, details: Value| {
        Err(
            Error::new(ErrorCode::Argument, format!("importUserData: {message}"))
                .with_details(details),
        )
    };
    if let Some(other) = entries.iter().find(|e| e.user_id != user_id) {
        return refuse(
            format!(
                "entry {} belongs to another user than the document's",
                other.id
            ),
            serde_json::json!({ "argument": "document", "entryId": other.id }),
        );
    }
    let mut ids: Vec<&str> = entries.iter().map(|e| e.id.as_str()).collect();
    ids.sort_unstable();
    if let Some(pair) = ids.windows(2).find(|w| w.first() == w.get(1)) {
        let id = pair.first().copied().unwrap_or_default();
        return refuse(
            format!("two entries have the id {id}"),
            serde_json::json!({ "argument": "document", "entryId": id }),
        );
    }
    let held = store
        .list(user_id)
        .await?
        .into_iter()
        .filter(|e| e.user_id == user_id)
        .count();
    if held > 0 {
        return refuse(
            format!("the entry store already holds {held} entries of the user; import restores into an empty store only"),
            serde_json::json!({ "argument": "entries", "held": held }),
        );
    }
    let mut written = 0;
    for entry in entries {
        store.upsert(entry).await?;
        written += 1;
    }
    Ok(written)
}
