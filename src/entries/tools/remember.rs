//! `rememberFact` (behaviour §2.5): the guardrail checks, the write target, capacity and eviction.

use super::args::{key_arg, text_arg, tool_args, TextArg};
use super::session::{
    failed, line, ToolAnswer, ToolSession, INVALID_ARGUMENTS, RESERVED, RESTRICTED, VALUE_EMPTY,
};
use crate::entries::capacity::{store_new, CapRefusal, CapScope, Known};
use crate::entries::config::Visibility;
use crate::entries::entry::{Entry, EntryWrite};
use crate::entries::history::Versioned;
use crate::entries::reserved::names_reserved_key;
use crate::entries::search::value_text;
use crate::entries::store::EntryStore;
use crate::entries::visibility::{resolve_write_target, write_scope};
use crate::host::{Clock, IdSource};
use crate::secrets::{guard_entry, value_refusal, EntryGuard, SecretField, KEY_REFUSAL};
use chrono::SecondsFormat;
use serde_json::Value;

fn now_text<C: Clock>(clock: &C) -> String {
    clock.now().to_rfc3339_opts(SecondsFormat::Millis, true)
}

/// What `rememberFact` answered, and the entry it wrote (to embed).
pub(crate) struct Remembered {
    pub(crate) answer: ToolAnswer,
    pub(crate) entry: Option<Entry>,
    /// The write changed an existing entry (its old state is a version), not a new one.
    pub(crate) updated: bool,
}

pub(crate) async fn remember_fact<S: EntryStore, C: Clock, I: IdSource>(
    session: &mut ToolSession,
    store: &Versioned<'_, S, C>,
    clock: &C,
    ids: &I,
    args: Option<&Value>,
) -> Remembered {
    let written = std::cell::RefCell::new(None);
    let updated = std::cell::Cell::new(false);
    let answer = remember(session, store, clock, ids, args, (&written, &updated)).await;
    let entry = if answer.wrote {
        written.into_inner()
    } else {
        None
    };
    Remembered {
        updated: answer.wrote && updated.get(),
        answer,
        entry,
    }
}

async fn remember<S: EntryStore, C: Clock, I: IdSource>(
    session: &mut ToolSession,
    store: &Versioned<'_, S, C>,
    clock: &C,
    ids: &I,
    args: Option<&Value>,
    (written, updated): (&std::cell::RefCell<Option<Entry>>, &std::cell::Cell<bool>),
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
    let mut value = match map.get("value") {
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
    if names_reserved_key(&key) {
        return ToolAnswer::say(RESERVED);
    }
    match guard_entry(session.config.secrets, &key, &value) {
        EntryGuard::Clean => {}
        EntryGuard::Redacted { value: clean, .. } => value = clean,
        EntryGuard::Refused(found) if found.field == SecretField::Key => {
            return ToolAnswer::say(KEY_REFUSAL)
        }
        EntryGuard::Refused(found) => return ToolAnswer::say(value_refusal(found.kind)),
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
        store.holding(existing);
        if let Err(e) = store.upsert(&entry).await {
            return failed("store", &e);
        }
        *written.borrow_mut() = Some(entry);
        updated.set(true);
    } else {
        // The id is allocated only once the write goes ahead.
        let new_entry = || {
            let entry = write.clone().apply(None, now_text(clock), || ids.new_id());
            *written.borrow_mut() = Some(entry.clone());
            entry
        };
        let scope = CapScope {
            user_id: &session.user_id,
            agent_id: Some(&session.agent_id),
            max: session.config.max_entries_per_user,
            on_cap: session.config.on_cap_reached,
            host_id: ids.host_made(),
        };
        match store_new(scope, store, known, new_entry).await {
            Ok(keys) => evicted = keys,
            Err(CapRefusal::Store(e)) => return failed("store", &e),
            Err(refusal) => return ToolAnswer::say(refusal.message()),
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
