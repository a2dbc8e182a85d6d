//! `rememberFact` (SPEC §2.5): the guardrail checks, the write target, capacity and eviction.

use super::args::{key_arg, text_arg, tool_args, TextArg};
use super::session::{
    failed, line, ToolAnswer, ToolSession, INVALID_ARGUMENTS, RESERVED, RESTRICTED, VALUE_EMPTY,
};
use crate::entries::config::{OnCapReached, Visibility};
use crate::entries::entry::{Entry, EntryWrite};
use crate::entries::recall::sort_stalest_first;
use crate::entries::search::value_text;
use crate::entries::store::EntryStore;
use crate::entries::visibility::{is_reserved_key, resolve_write_target, write_scope};
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

    let entries = match store.list(&session.user_id).await {
        Ok(e) => e,
        Err(e) => return failed("store", &e),
    };
    if is_restricted(&entries) {
        return ToolAnswer::say(RESTRICTED);
    }
    let (visibility, group_ids) = write_scope(requested, session.group.as_deref());
    let target = resolve_write_target(
        &entries,
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
    } else {
        match make_room(session, store, &entries).await {
            Ok(keys) => evicted = keys,
            Err(answer) => return answer,
        }
    }

    let entry = write.apply(target, now_text(clock), || ids.new_id());
    if let Err(e) = store.upsert(&entry).await {
        return failed("store", &e);
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

/// Whether the user's processing is restricted (SPEC §4.3).
pub fn is_restricted(entries: &[Entry]) -> bool {
    entries
        .iter()
        .any(|e| e.key == RESTRICTION_KEY && e.visibility == "global")
}

/// Capacity for one new entry (SPEC §2.5). `Ok` → go ahead, with the keys evicted to make room
/// (at the cap, one; after the cap was lowered, as many as it takes); `Err` → the answer refusing
/// the write. Eviction takes this agent's own entries — every visibility it wrote, global ones
/// included (SPEC: "this agent's own") — least recently updated first, never `_gdpr_` ones.
async fn make_room<S: EntryStore>(
    session: &ToolSession,
    store: &S,
    entries: &[Entry],
) -> Result<Vec<String>, ToolAnswer> {
    let max = session.config.max_entries_per_user;
    let counted = entries.iter().filter(|e| !is_reserved_key(&e.key)).count() as u64;
    if counted < max {
        return Ok(Vec::new());
    }
    let full = format!("⚠️ Memory capacity reached ({counted}/{max}). Cannot store more facts");
    if session.config.on_cap_reached == OnCapReached::Reject {
        return Err(ToolAnswer::say(format!("{full}.")));
    }
    let needed = usize::try_from(counted - max + 1).unwrap_or(usize::MAX);
    let mut own: Vec<&Entry> = entries
        .iter()
        .filter(|e| {
            e.source_agent_id.as_deref() == Some(session.agent_id.as_str())
                && !is_reserved_key(&e.key)
        })
        .collect();
    if own.len() < needed {
        return Err(ToolAnswer::say(format!(
            "{full}: only {} of this agent's own memories can be evicted, {needed} needed.",
            own.len()
        )));
    }
    sort_stalest_first(&mut own);
    let mut evicted = Vec::with_capacity(needed);
    for victim in own.into_iter().take(needed) {
        if let Err(e) = store.delete(&victim.id).await {
            return Err(failed("store", &e));
        }
        evicted.push(victim.key.clone());
    }
    Ok(evicted)
}
