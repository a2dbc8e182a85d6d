//! `rememberFact` (SPEC §2.5): the guardrail checks, the write target, capacity and eviction.

use super::args::{key_arg, text_arg, tool_args, TextArg};
use super::session::{
    failed, line, ToolAnswer, ToolSession, INVALID_ARGUMENTS, RESERVED, RESTRICTED, VALUE_EMPTY,
};
use crate::entries::config::{OnCapReached, Visibility};
use crate::entries::entry::{Entry, EntryWrite};
use crate::entries::recall::sort_stalest_first;
use crate::entries::search::value_text;
use crate::entries::store::{keep_key, with_key, CapWrite, EntryStore, OwnQuery};
use crate::entries::visibility::{is_reserved_key, resolve_write_target, write_scope};
use crate::error::Error;
use crate::host::{Clock, IdSource};
use chrono::SecondsFormat;
use serde_json::Value;

/// The global key that marks an Art. 18 processing restriction (SPEC §4.3).
pub const RESTRICTION_KEY: &str = "_gdpr_processing_restricted";

fn now_text<C: Clock>(clock: &C) -> String {
    clock.now().to_rfc3339_opts(SecondsFormat::Millis, true)
}

pub(crate) async fn remember_fact<S: EntryStore, C: Clock, I: IdSource>(
    session: &mut ToolSession,
    store: &S,
    clock: &C,
    ids: &I,
    args: Option<&Value>,
) -> ToolAnswer {
    let g = &session.config.guardrails;
    if u64::from(session.writes_this_turn) >= g.max_writes_per_turn {
        return ToolAnswer::say(format!(
            "⚠️ Maximum writes per turn ({}) reached. Try again in the next turn.",
            g.max_writes_per_turn
        ));
    }
    let Some(map) = tool_args(args) else {
        return ToolAnswer::say(INVALID_ARGUMENTS);
    };
    let key = match key_arg(&map) {
        Ok(k) => k,
        Err(answer) => return ToolAnswer::say(answer),
    };
    if key.chars().count() as u64 > g.max_key_length {
        return ToolAnswer::say(format!(
            "⚠️ Key too long. Maximum {} characters.",
            g.max_key_length
        ));
    }
    let value = match map.get("value") {
        None | Some(Value::Null) => return ToolAnswer::say(VALUE_EMPTY),
        Some(Value::String(s)) if s.trim().is_empty() => return ToolAnswer::say(VALUE_EMPTY),
        Some(v) => v.clone(),
    };
    if value_text(&value).chars().count() as u64 > g.max_value_length {
        return ToolAnswer::say(format!(
            "⚠️ Value too long. Maximum {} characters.",
            g.max_value_length
        ));
    }
    let category = match text_arg(&map, "category") {
        TextArg::Missing => "fact".to_string(),
        TextArg::Text(t) if t.trim().is_empty() => "fact".to_string(),
        TextArg::Text(t) | TextArg::NotText(t) => t,
    };
    let Some(category) = g
        .allowed_categories
        .iter()
        .find(|c| c.to_lowercase() == category.trim().to_lowercase())
        .cloned()
    else {
        return ToolAnswer::say(format!(
            "⚠️ Category '{category}' not allowed. Allowed: {}",
            g.allowed_categories.join(", ")
        ));
    };
    let requested = match text_arg(&map, "visibility") {
        TextArg::Missing => Ok(Visibility::SelfOnly),
        TextArg::Text(t) if t.trim().is_empty() => Ok(Visibility::SelfOnly),
        TextArg::Text(t) | TextArg::NotText(t) => {
            Visibility::parse(&t.trim().to_lowercase()).ok_or(t)
        }
    };
    let requested = match requested {
        Ok(v) => v,
        Err(t) => {
            return ToolAnswer::say(format!(
                "⚠️ Visibility '{t}' is not one of: self, group, global."
            ))
        }
    };
    if is_reserved_key(&key) {
        return ToolAnswer::say(RESERVED);
    }

    let known = match Known::fetch(store, &session.user_id, &key).await {
        Ok(known) => known,
        Err(e) => return failed("store", &e),
    };
    if known.restricted {
        return ToolAnswer::say(RESTRICTED);
    }
    let (visibility, group_ids) = write_scope(requested, session.group.as_deref());
    let target = resolve_write_target(
        &known.same_key,
        &session.user_id,
        &key,
        &session.agent_id,
        visibility,
    );
    let write = EntryWrite {
        user_id: session.user_id.clone(),
        key: key.clone(),
        value: value.clone(),
        category: category.clone(),
        visibility: visibility.as_str().to_string(),
        source_agent_id: Some(session.agent_id.clone()),
        group_ids,
        source_conversation_id: session.conversation_id.clone(),
    };

    let mut evicted = Vec::new();
    if let Some(existing) = target {
        if write.is_unchanged_on(existing) {
            return ToolAnswer::say(line(
                "✅ Already remembered (unchanged): ",
                &existing.key,
                &existing.value,
                &existing.category,
                &existing.visibility,
            ));
        }
        let entry = write.apply(Some(existing), now_text(clock), || ids.new_id());
        if let Err(e) = store.upsert(&entry).await {
            return failed("store", &e);
        }
    } else {
        // The id is allocated only once the write goes ahead.
        let new_entry = || write.clone().apply(None, now_text(clock), || ids.new_id());
        match store_new(session, store, known, new_entry).await {
            Ok(keys) => evicted = keys,
            Err(answer) => return answer,
        }
    }
    session.writes_this_turn = session.writes_this_turn.saturating_add(1);
    let remembered = line(
        "✅ Remembered: ",
        &key,
        &value,
        &category,
        visibility.as_str(),
    );
    if evicted.len() > 1 {
        return ToolAnswer::wrote(format!(
            "{remembered} (evicted {} older memories of this agent to stay within {}: {})",
            evicted.len(),
            session.config.max_entries_per_user,
            evicted.join(", ")
        ));
    }
    ToolAnswer::wrote(remembered)
}

/// What a write needs to know of the user's stored entries before it decides anything.
struct Known {
    /// Whether the user's processing is restricted (SPEC §4.3).
    restricted: bool,
    /// The user's entries with the written key (the write target is among them).
    same_key: Vec<Entry>,
    /// Every entry of the user, when the store could not look keys up (then counting and
    /// eviction use this list instead of asking again).
    all: Option<Vec<Entry>>,
}

impl Known {
    /// Two identity lookups when the store has [`EntryStore::find_by_key`], else one `list`.
    async fn fetch<S: EntryStore>(store: &S, user_id: &str, key: &str) -> Result<Known, Error> {
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

/// How many attempts a new entry gets when a concurrent writer takes the last free slot between
/// the count and an atomic capped insert ([`EntryStore::insert_within_cap`]).
const CAP_ATTEMPTS: usize = 3;

/// Store a new entry within `maxEntriesPerUser` (SPEC §2.5). `Ok` → written, with the keys
/// evicted to make room (at the cap, one; after the cap was lowered, as many as it takes);
/// `Err` → the answer refusing the write. Eviction takes this agent's own entries — every
/// visibility it wrote, global ones included (SPEC: "this agent's own") — least recently updated
/// first, never `_gdpr_` ones. A store with [`EntryStore::insert_within_cap`] checks the cap and
/// inserts in one transaction, so concurrent writers never exceed it; the core re-plans and
/// retries when the store finds the user full after all.
async fn store_new<S: EntryStore>(
    session: &ToolSession,
    store: &S,
    known: Known,
    new_entry: impl FnOnce() -> Entry,
) -> Result<Vec<String>, ToolAnswer> {
    let mut new_entry = Some(new_entry);
    let mut entry: Option<Entry> = None;
    let max = session.config.max_entries_per_user;
    let reject = session.config.on_cap_reached == OnCapReached::Reject;
    let full = |counted: u64| {
        format!("⚠️ Memory capacity reached ({counted}/{max}). Cannot store more facts")
    };
    let mut all = known.all;
    let mut counted = 0;
    for _ in 0..CAP_ATTEMPTS {
        counted = count(store, all.as_deref(), &session.user_id)
            .await
            .map_err(|e| failed("store", &e))?;
        let victims = if counted < max {
            Vec::new()
        } else if reject {
            return Err(ToolAnswer::say(format!("{}.", full(counted))));
        } else {
            let needed = usize::try_from(counted - max + 1).unwrap_or(usize::MAX);
            let own = stalest_own(store, all.as_deref(), session, needed)
                .await
                .map_err(|e| failed("store", &e))?;
            if own.len() < needed {
                return Err(ToolAnswer::say(format!(
                    "{}: only {} of this agent's own memories can be evicted, {needed} needed.",
                    full(counted),
                    own.len()
                )));
            }
            own.into_iter().take(needed).collect()
        };
        let evict: Vec<String> = victims.iter().map(|v| v.id.clone()).collect();
        let keys = || victims.iter().map(|v| v.key.clone()).collect();
        let entry: &Entry = match (&mut entry, new_entry.take()) {
            (Some(built), _) => built,
            (slot, Some(build)) => slot.insert(build()),
            (None, None) => return Err(failed("store", &Error::internal("no entry to write"))),
        };
        match store.insert_within_cap(entry, max, &evict).await {
            Ok(Some(CapWrite { written: true, .. })) => return Ok(keys()),
            Ok(Some(CapWrite { count, .. })) => {
                let seen = count.filter(|n| n.is_finite() && *n >= 0.0);
                counted = seen.map_or(counted.max(max), |n| n as u64);
                if reject {
                    return Err(ToolAnswer::say(format!("{}.", full(counted))));
                }
                all = None; // stale now: count and pick again
            }
            Ok(None) => {
                for id in &evict {
                    store.delete(id).await.map_err(|e| failed("store", &e))?;
                }
                store.upsert(entry).await.map_err(|e| failed("store", &e))?;
                return Ok(keys());
            }
            Err(e) => return Err(failed("store", &e)),
        }
    }
    Err(ToolAnswer::say(format!("{}.", full(counted))))
}

/// The user's entries that count toward the cap (not `_gdpr_`): from the list when there is
/// one, else [`EntryStore::count_user`], else a fresh list.
async fn count<S: EntryStore>(
    store: &S,
    all: Option<&[Entry]>,
    user_id: &str,
) -> Result<u64, Error> {
    let counted = |entries: &[Entry]| entries.iter().filter(|e| !is_reserved_key(&e.key)).count();
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
/// list.
async fn stalest_own<S: EntryStore>(
    store: &S,
    all: Option<&[Entry]>,
    session: &ToolSession,
    needed: usize,
) -> Result<Vec<Entry>, Error> {
    let fetched;
    let candidates: &[Entry] = match all {
        Some(all) => all,
        None => {
            let query = OwnQuery {
                user_id: &session.user_id,
                agent_id: &session.agent_id,
                limit: needed,
            };
            fetched = match store.oldest_own(&query).await? {
                Some(found) => found,
                None => store.list(&session.user_id).await?,
            };
            &fetched
        }
    };
    let mut seen = std::collections::HashSet::new();
    let mut own: Vec<&Entry> = candidates
        .iter()
        .filter(|e| {
            e.user_id == session.user_id
                && e.source_agent_id.as_deref() == Some(session.agent_id.as_str())
                && !is_reserved_key(&e.key)
                && seen.insert(e.id.as_str())
        })
        .collect();
    sort_stalest_first(&mut own);
    Ok(own.into_iter().take(needed).cloned().collect())
}

/// Whether the user's processing is restricted (SPEC §4.3).
pub fn is_restricted(entries: &[Entry]) -> bool {
    entries
        .iter()
        .any(|e| e.key == RESTRICTION_KEY && e.visibility == "global")
}
