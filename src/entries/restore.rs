//! `restoreVersion` (behaviour §8.3): give an entry one of its past states again. The restore is a
//! new change like any other — the state it replaces is kept as a version (reason `restored`) and
//! the restore is an audit record — so a restore can itself be undone.
//!
//! Decisions where the behaviour reference is silent:
//! - The entry keeps its id; its state becomes the version's (key, value, category, visibility,
//!   groups, writer, conversation), dated now (`updatedAt`). A deleted entry comes back with its
//!   id and `createdAt`.
//! - Another current entry holding the identity the restored state lands on (behaviour §2.4: a
//!   global key, or the same agent's key) is not overwritten: `conflict`, naming it.
//! - An entry id belongs to one user ([`super::ownership`]): when another user's entry (or kept
//!   history) holds the version's entry id — that user created an entry under the id after this
//!   one was deleted — the restore is `conflict` without an entry (the other user's entry is not
//!   shown), and nothing is written or audited.
//! - The user id follows the one rule of every write ([`crate::profile::paths::validate_user_id`]).
//! - A restore of a deleted entry counts toward `maxEntriesPerUser` and never evicts: `full`.
//! - Refused while the user's processing is restricted (behaviour §4.3), like every write.
//! - A version whose state is already the current one: `unchanged`, nothing written.

use super::capacity::{store_new, CapRefusal, CapScope, Known};
use super::config::{OnCapReached, UserMemoryConfig, Visibility};
use super::entry::Entry;
use super::history::{instant_text, Reason, VersionQuery, Writer};
use super::ownership::{foreign, holders, FOREIGN_ID};
use super::store::EntryStore;
use super::visibility::{has_identity, is_reserved_key};
use crate::error::Result;
use crate::host::Clock;
use serde::Serialize;

/// What [`restore_version`] did. JSON, tagged by `outcome`: `{ "outcome": "restored", "entry" }`,
/// `{ "outcome": "unchanged", "entry" }`, `{ "outcome": "notFound" }`, `{ "outcome":
/// "conflict", "entry" }` (the current entry holding the identity), `{ "outcome": "full",
/// "message" }`, `{ "outcome": "restricted", "message" }`.
#[derive(Debug, Clone, PartialEq, Serialize)]
#[serde(tag = "outcome", rename_all = "camelCase")]
pub enum RestoreOutcome {
    /// The entry holds the version's state again.
    Restored {
        /// The entry as written.
        entry: Box<Entry>,
    },
    /// The entry already holds that state: nothing written.
    Unchanged {
        /// The entry.
        entry: Box<Entry>,
    },
    /// The user has no version with that id (or it is bookkeeping).
    NotFound,
    /// Another current entry of the user holds the identity the state lands on (`entry`), or
    /// another user holds the entry id (no `entry`: theirs is never shown).
    Conflict {
        /// The user's entry holding the identity; absent when the id is another user's.
        #[serde(skip_serializing_if = "Option::is_none")]
        entry: Option<Box<Entry>>,
        /// What holds it, in words.
        message: String,
    },
    /// A deleted entry cannot come back: the user is at the cap.
    Full {
        /// The capacity answer.
        message: String,
    },
    /// The user's processing is restricted.
    Restricted {
        /// The refusal.
        message: String,
    },
}

/// The message of a conflict on the identity.
pub const IDENTITY_HELD: &str = "another entry holds the key this state lands on";

/// The entry id of a version id (`<entryId>~<hash>`).
fn entry_of(version_id: &str) -> Option<&str> {
    version_id.rsplit_once('~').map(|(entry, _)| entry)
}

/// Give `user_id`'s entry the state of its version `version_id` again (see the module
/// documentation), as `writer` says: the replaced state is kept as a version (reason
/// `restored`) and the restore is an audit record. `E_ARGUMENT` when the store keeps no history.
pub async fn restore_version<S: EntryStore, C: Clock>(
    store: &S,
    writer: Writer<'_, C>,
    config: &UserMemoryConfig,
    user_id: &str,
    version_id: &str,
) -> Result<RestoreOutcome> {
    crate::profile::paths::validate_user_id(user_id)?;
    let Some(entry_id) = entry_of(version_id) else {
        return Ok(RestoreOutcome::NotFound);
    };
    let query = VersionQuery {
        user_id,
        entry_id: Some(entry_id),
        key: None,
    };
    let versions = store.versions(&query).await?.ok_or_else(|| {
        crate::error::Error::argument(
            "restoreVersion",
            "request.store",
            "a store that keeps history (with appendHistory and versions)",
        )
    })?;
    let Some(version) = versions
        .into_iter()
        .find(|v| v.id == version_id && v.user_id == user_id && v.entry_id == entry_id)
        .filter(|v| !is_reserved_key(&v.key))
    else {
        return Ok(RestoreOutcome::NotFound);
    };
    let held = holders(store, &[entry_id.to_string()]).await?;
    if foreign(&held, entry_id, user_id).is_some() {
        return Ok(RestoreOutcome::Conflict {
            entry: None,
            message: FOREIGN_ID.to_string(),
        });
    }
    let known = Known::fetch(store, user_id, &version.key).await?;
    if known.restricted {
        return Ok(RestoreOutcome::Restricted {
            message: super::tools::RESTRICTED.to_string(),
        });
    }
    let current = store
        .get(entry_id)
        .await?
        .filter(|e| e.id == entry_id && e.user_id == user_id);
    let visibility = Visibility::parse(&version.visibility).unwrap_or(Visibility::SelfOnly);
    let agent = version.source_agent_id.as_deref();
    if let Some(holder) = known
        .same_key
        .iter()
        .find(|e| e.id != entry_id && has_identity(e, user_id, &version.key, agent, visibility))
    {
        return Ok(RestoreOutcome::Conflict {
            entry: Some(Box::new(holder.clone())),
            message: IDENTITY_HELD.to_string(),
        });
    }
    let mut restored = version.as_entry().by(writer.author);
    restored.updated_at = instant_text(writer.clock.now());
    if let Some(current) = &current {
        let same = current.key == restored.key
            && current.value == restored.value
            && current.category == restored.category
            && current.visibility == restored.visibility
            && current.group_ids == restored.group_ids
            && current.source_agent_id == restored.source_agent_id;
        if same {
            return Ok(RestoreOutcome::Unchanged {
                entry: Box::new(current.clone()),
            });
        }
        restored.created_at = current.created_at.clone();
        restored.access_count = current.access_count;
    }
    let versioned = writer.store(store).because(Reason::Restored);
    if current.is_some() {
        versioned.upsert(&restored).await?;
    } else {
        let scope = CapScope {
            user_id,
            agent_id: agent,
            max: config.max_entries_per_user,
            on_cap: OnCapReached::Reject,
            host_id: false,
        };
        let entry = restored.clone();
        match store_new(scope, &versioned, known, move || entry).await {
            Ok(_) => {}
            Err(CapRefusal::Store(error)) => return Err(error),
            Err(refusal) => {
                return Ok(RestoreOutcome::Full {
                    message: refusal.message(),
                })
            }
        }
    }
    Ok(RestoreOutcome::Restored {
        entry: Box::new(restored),
    })
}
