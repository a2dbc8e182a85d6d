//! Capacity (behaviour §2.5 "Capacity", §2.4): a new entry within `maxEntriesPerUser`, evicting the
//! writing agent's own stalest entries under `evict_oldest`. One implementation for every write
//! path that creates entries under the cap: the `rememberFact` tool and the REST/MCP upsert
//! ([`crate::entries::memories::upsert_user_memory`]).

use super::config::OnCapReached;
use super::entry::Entry;
use super::recall::sort_stalest_first;
use super::store::{keep_key, with_key, CapWrite, EntryStore, OwnQuery};
use super::visibility::is_reserved_key;
use crate::error::Error;
use crate::rights::{is_restricted, RESTRICTION_KEY};

/// What a write needs to know of the user's stored entries before it decides anything.
pub(crate) struct Known {
    /// Whether the user's processing is restricted (behaviour §4.3).
    pub(crate) restricted: bool,
    /// The user's entries with the written key (the write target is among them).
    pub(crate) same_key: Vec<Entry>,
    /// Every entry of the user, when the store could not look keys up (then counting and
    /// eviction use this list instead of asking again).
    pub(crate) all: Option<Vec<Entry>>,
}

impl Known {
    /// Two identity lookups when the store has [`EntryStore::find_by_key`], else one `list`.
    pub(crate) async fn fetch<S: EntryStore>(
        store: &S,
        user_id: &str,
        key: &str,
    ) -> Result<Known, Error> {
        if let Some(found) = store.find_by_key(user_id, key).await? {
            let same_key = keep_key(found, user_id, key);
            let flags = with_key(store, user_id, RESTRICTION_KEY).await?;
            return Ok(Known {
                restricted: is_restricted(&flags),
                same_key,
                all: None,
            });
        }
        let all: Vec<Entry> = store
            .list(user_id)
            .await?
            .into_iter()
            .filter(|e| e.user_id == user_id)
            .collect();
        Ok(Known {
            restricted: is_restricted(&all),
            same_key: all.iter().filter(|e| e.key == key).cloned().collect(),
            all: Some(all),
        })
    }
}

/// Who writes a new entry under which cap.
#[derive(Debug, Clone, Copy)]
pub(crate) struct CapScope<'a> {
    /// The user the entry belongs to.
    pub(crate) user_id: &'a str,
    /// The writing agent: only its own entries may be evicted (none when absent).
    pub(crate) agent_id: Option<&'a str>,
    /// `maxEntriesPerUser`.
    pub(crate) max: u64,
    /// `onCapReached`.
    pub(crate) on_cap: OnCapReached,
    /// Whether the new entry's id is the host's (`newId`): checked free before the first insert
    /// ([`super::ownership::check_new_id`]).
    pub(crate) host_id: bool,
}

/// Why a new entry was not stored.
#[derive(Debug, Clone, PartialEq)]
pub(crate) enum CapRefusal {
    /// The user holds `counted` of `max` entries and the write may not evict (`reject`).
    Full {
        /// Entries counted toward the cap.
        counted: u64,
        /// The cap.
        max: u64,
    },
    /// `evict_oldest`, but the agent owns fewer evictable entries than needed.
    TooFewOwn {
        /// Entries counted toward the cap.
        counted: u64,
        /// The cap.
        max: u64,
        /// The agent's evictable entries.
        own: usize,
        /// How many would have to go.
        needed: usize,
    },
    /// The store failed.
    Store(Error),
}

impl CapRefusal {
    /// The refusal in the tools' words (behaviour §2.5), without a trailing period for
    /// [`CapRefusal::Store`] (which callers word themselves).
    pub(crate) fn message(&self) -> String {
        let full = |counted: u64, max: u64| {
            format!("⚠️ Memory capacity reached ({counted}/{max}). Cannot store more facts")
        };
        match self {
            CapRefusal::Full { counted, max } => format!("{}.", full(*counted, *max)),
            CapRefusal::TooFewOwn {
                counted,
                max,
                own,
                needed,
            } => format!(
                "{}: only {own} of this agent's own memories can be evicted, {needed} needed.",
                full(*counted, *max)
            ),
            CapRefusal::Store(e) => e.message.clone(),
        }
    }
}

/// How many attempts a new entry gets when a concurrent writer takes the last free slot between
/// the count and an atomic capped insert ([`EntryStore::insert_within_cap`]).
const CAP_ATTEMPTS: usize = 3;

/// Store a new entry within `maxEntriesPerUser` (behaviour §2.5). `Ok` → written, with the keys
/// evicted to make room (at the cap, one; after the cap was lowered, as many as it takes);
/// `Err` → why not. Eviction takes this agent's own entries — every visibility it wrote, global
/// ones included (behaviour reference: "this agent's own") — least recently updated first, never
/// `_gdpr_` ones. A store with [`EntryStore::insert_within_cap`] checks the cap and inserts in one
/// transaction, so concurrent writers never exceed it; the core re-plans and retries when the store
/// finds the user full after all.
pub(crate) async fn store_new<S: EntryStore>(
    scope: CapScope<'_>,
    store: &S,
    known: Known,
    new_entry: impl FnOnce() -> Entry,
) -> Result<Vec<String>, CapRefusal> {
    let mut new_entry = Some(new_entry);
    let mut entry: Option<Entry> = None;
    let max = scope.max;
    let reject = scope.on_cap == OnCapReached::Reject;
    let mut all = known.all;
    let mut counted = 0;
    for _ in 0..CAP_ATTEMPTS {
        counted = count(store, all.as_deref(), scope.user_id)
            .await
            .map_err(CapRefusal::Store)?;
        let victims = if counted < max {
            Vec::new()
        } else if reject {
            return Err(CapRefusal::Full { counted, max });
        } else {
            let needed = usize::try_from(counted - max + 1).unwrap_or(usize::MAX);
            let own = stalest_own(store, all.as_deref(), scope, needed)
                .await
                .map_err(CapRefusal::Store)?;
            if own.len() < needed {
                return Err(CapRefusal::TooFewOwn {
                    counted,
                    max,
                    own: own.len(),
                    needed,
                });
            }
            own.into_iter().take(needed).collect()
        };
        let evict: Vec<String> = victims.iter().map(|v| v.id.clone()).collect();
        let keys = || victims.iter().map(|v| v.key.clone()).collect();
        let entry: &Entry = match (&mut entry, new_entry.take()) {
            (Some(built), _) => built,
            (slot, Some(build)) => {
                let built = slot.insert(build());
                super::ownership::check_new_id(store, scope.host_id, built)
                    .await
                    .map_err(CapRefusal::Store)?;
                built
            }
            (None, None) => return Err(CapRefusal::Store(Error::internal("no entry to write"))),
        };
        match store.insert_within_cap(entry, max, &evict).await {
            Ok(Some(CapWrite { written: true, .. })) => return Ok(keys()),
            Ok(Some(CapWrite { count, .. })) => {
                let seen = count.filter(|n| n.is_finite() && *n >= 0.0);
                counted = seen.map_or(counted.max(max), |n| n as u64);
                if reject {
                    return Err(CapRefusal::Full { counted, max });
                }
                all = None; // stale now: count and pick again
            }
            Ok(None) => {
                for id in &evict {
                    store.delete(id).await.map_err(CapRefusal::Store)?;
                }
                store.upsert(entry).await.map_err(CapRefusal::Store)?;
                return Ok(keys());
            }
            Err(e) => return Err(CapRefusal::Store(e)),
        }
    }
    Err(CapRefusal::Full { counted, max })
}

/// The user's entries that count toward the cap (not `_gdpr_`): from the list when there is
/// one, else [`EntryStore::count_user`], else a fresh list.
pub(crate) async fn count<S: EntryStore>(
    store: &S,
    all: Option<&[Entry]>,
    user_id: &str,
) -> Result<u64, Error> {
    let counted = |entries: &[Entry]| {
        entries
            .iter()
            .filter(|e| e.user_id == user_id && !is_reserved_key(&e.key))
            .count()
    };
    let n = match all {
        Some(all) => counted(all),
        None => match store.count_user(user_id).await? {
            Some(n) => n,
            None => counted(&store.list(user_id).await?),
        },
    };
    Ok(n as u64)
}

/// Up to `needed` of the agent's own non-`_gdpr_` entries, stalest first: from the list when
/// there is one, else [`EntryStore::oldest_own`] (re-checked and re-sorted here), else a fresh
/// list. A write without an agent owns nothing.
async fn stalest_own<S: EntryStore>(
    store: &S,
    all: Option<&[Entry]>,
    scope: CapScope<'_>,
    needed: usize,
) -> Result<Vec<Entry>, Error> {
    let Some(agent_id) = scope.agent_id else {
        return Ok(Vec::new());
    };
    let fetched;
    let candidates: &[Entry] = match all {
        Some(all) => all,
        None => {
            let query = OwnQuery {
                user_id: scope.user_id,
                agent_id,
                limit: needed,
            };
            fetched = match store.oldest_own(&query).await? {
                Some(found) => found,
                None => store.list(scope.user_id).await?,
            };
            &fetched
        }
    };
    let mut seen = std::collections::HashSet::new();
    let mut own: Vec<&Entry> = candidates
        .iter()
        .filter(|e| {
            e.user_id == scope.user_id
                && e.source_agent_id.as_deref() == Some(agent_id)
                && !is_reserved_key(&e.key)
                && seen.insert(e.id.as_str())
        })
        .collect();
    sort_stalest_first(&mut own);
    Ok(own.into_iter().take(needed).cloned().collect())
}
