//! The reads of history: an entry's or a key's versions (`entryHistory`) and the audit log
//! (`auditLog`).

use super::*;
use crate::entries::store::EntryStore;

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
    let shown = |key: &str, user: &str| {
        user == user_id && !crate::entries::visibility::is_reserved_key(key)
    };
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
        HistorySelector::Key(key) => crate::entries::store::with_key(store, user_id, key)
            .await?
            .into_iter()
            .filter(|e| shown(&e.key, &e.user_id))
            .collect(),
    };
    Ok(Some(History { current, versions }))
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
