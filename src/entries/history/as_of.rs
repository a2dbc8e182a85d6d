//! Reading the past (behaviour §8.3, `asOf`): the entries as they were at an instant, from the
//! current ones and their versions.

use super::*;
use crate::entries::store::EntryStore;

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
) -> Result<crate::entries::store::InMemoryEntryStore> {
    check_as_of(function, "options.asOf", at)?;
    let entries = entries_as_of(store, user_id, at).await?.ok_or_else(|| {
        crate::error::Error::argument(
            function,
            "options.asOf",
            "used with a store that keeps history (with appendHistory and versions)",
        )
    })?;
    let snapshot = crate::entries::store::InMemoryEntryStore::new();
    snapshot.load_now(entries, "", &[])?;
    Ok(snapshot)
}
