//! A group's answer → the exact writes that consolidate it (behaviour §3 item 3), decided before
//! anything is written. Pure: it reads the run's view of the user's entries and allocates ids.
//!
//! - Each consolidated entry lands on the identity a write of its key would (behaviour §2.4:
//!   `global` → `(user, key)`, `self`/`group` → `(user, key, agent)`). When that identity
//!   belongs to an original of the group, the original is **updated in place** (its id, access
//!   count and `conflicted` kept) and not deleted; when it belongs to any entry outside the
//!   group, the **whole group is skipped** untouched.
//! - An answer whose every item repeats an original verbatim (same key, same value text)
//!   merged nothing: it may only drop originals that duplicate a kept value; with none, the
//!   group is skipped.
//! - New ids come from the host; one that already names an entry (or repeats) skips the group.

use super::answer::AnswerItem;
use super::plan::Group;
use super::report::SkipReason;
use crate::entries::recall::recency_cmp;
use crate::entries::search::value_text;
use crate::entries::visibility::has_identity;
use crate::entries::Entry;
use crate::host::IdSource;
use serde_json::Value;
use std::collections::{HashMap, HashSet};

/// `sourceConversationId` of every consolidated entry.
pub const DREAM_CONVERSATION_ID: &str = "dream-consolidation";

/// The run's view of the user's entries, kept up to date with every write the run makes, so a
/// later group sees what an earlier one wrote.
#[derive(Debug, Clone, Default)]
pub struct EntryView {
    by_id: HashMap<String, Entry>,
}

impl EntryView {
    /// A view of a listed set.
    pub fn new(entries: Vec<Entry>) -> Self {
        EntryView {
            by_id: entries.into_iter().map(|e| (e.id.clone(), e)).collect(),
        }
    }
    /// Whether an entry has this id.
    pub fn contains(&self, id: &str) -> bool {
        self.by_id.contains_key(id)
    }
    /// Every entry (no order).
    pub fn entries(&self) -> impl Iterator<Item = &Entry> {
        self.by_id.values()
    }
    pub(crate) fn put(&mut self, entry: Entry) {
        self.by_id.insert(entry.id.clone(), entry);
    }
    pub(crate) fn remove(&mut self, id: &str) {
        self.by_id.remove(id);
    }
}

/// The writes of one group, in the order they are applied: inserts, then in-place updates,
/// then deletes.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct GroupWrites {
    /// New consolidated entries (fresh ids).
    pub inserts: Vec<Entry>,
    /// `(original, consolidated)`: an original whose key the model reused, updated in place.
    pub updates: Vec<(Entry, Entry)>,
    /// Ids of the originals to delete once every write above succeeded.
    pub deletes: Vec<String>,
}

/// What to do with a group.
#[derive(Debug, Clone, PartialEq)]
pub enum GroupPlan {
    /// Apply these writes.
    Write(GroupWrites),
    /// Leave the group untouched.
    Skip(SkipReason),
}

fn trimmed_text(entry: &Entry) -> String {
    value_text(&entry.value).trim().to_string()
}

/// The writes that consolidate `group` into `items` (already checked: fewer than the members,
/// at most the target), stamped with `now`, against the run's `view`.
pub fn plan_group_writes(
    group: &Group,
    items: &[AnswerItem],
    view: &EntryView,
    user_id: &str,
    now: &str,
    ids: &impl IdSource,
) -> GroupPlan {
    let verbatim = items.iter().all(|item| {
        group
            .members
            .iter()
            .any(|m| m.key == item.key && trimmed_text(m) == item.value)
    });
    if verbatim {
        return verbatim_plan(group, items);
    }
    let members: HashSet<&str> = group.members.iter().map(|m| m.id.as_str()).collect();
    let agent = group.source_agent_id.as_deref();
    let mut writes = GroupWrites::default();
    // At most `summarizeTargetEntries` each: plain vectors.
    let mut reused: Vec<String> = Vec::new();
    let mut fresh: Vec<String> = Vec::new();
    for item in items {
        let mut inside: Vec<&Entry> = Vec::new();
        for entry in view.entries() {
            if has_identity(entry, user_id, &item.key, agent, group.visibility) {
                if !members.contains(entry.id.as_str()) {
                    return GroupPlan::Skip(SkipReason::KeyCollision);
                }
                inside.push(entry);
            }
        }
        let target = inside.into_iter().min_by(|a, b| recency_cmp(a, b));
        let consolidated = consolidated(group, item, user_id, now);
        match target {
            Some(original) => {
                reused.push(original.id.clone());
                writes.updates.push((
                    original.clone(),
                    Entry {
                        id: original.id.clone(),
                        access_count: original.access_count,
                        conflicted: original.conflicted,
                        ..consolidated
                    },
                ));
            }
            None => {
                let id = ids.new_id();
                if id.is_empty() || view.contains(&id) || fresh.contains(&id) {
                    return GroupPlan::Skip(SkipReason::IdCollision);
                }
                fresh.push(id.clone());
                writes.inserts.push(Entry { id, ..consolidated });
            }
        }
    }
    writes.deletes = group
        .members
        .iter()
        .filter(|m| !reused.contains(&m.id))
        .map(|m| m.id.clone())
        .collect();
    GroupPlan::Write(writes)
}

/// A verbatim-only answer: keep the originals it repeats, drop only those that duplicate a kept
/// value.
fn verbatim_plan(group: &Group, items: &[AnswerItem]) -> GroupPlan {
    let mut kept: Vec<&str> = Vec::new();
    for item in items {
        let same = group
            .members
            .iter()
            .filter(|m| m.key == item.key && trimmed_text(m) == item.value);
        if let Some(keep) = same.min_by(|a, b| recency_cmp(a, b)) {
            kept.push(keep.id.as_str());
        }
    }
    let kept_values: Vec<&str> = items.iter().map(|i| i.value.as_str()).collect();
    let deletes: Vec<String> = group
        .members
        .iter()
        .filter(|m| {
            !kept.contains(&m.id.as_str()) && kept_values.contains(&trimmed_text(m).as_str())
        })
        .map(|m| m.id.clone())
        .collect();
    if deletes.is_empty() {
        GroupPlan::Skip(SkipReason::Verbatim)
    } else {
        GroupPlan::Write(GroupWrites {
            deletes,
            ..GroupWrites::default()
        })
    }
}

/// A consolidated entry of `group` (its id still to be set).
fn consolidated(group: &Group, item: &AnswerItem, user_id: &str, now: &str) -> Entry {
    Entry {
        id: String::new(),
        user_id: user_id.to_string(),
        key: item.key.clone(),
        value: Value::String(item.value.clone()),
        category: group.category.clone(),
        visibility: group.visibility.as_str().to_string(),
        source_agent_id: group.source_agent_id.clone(),
        group_ids: group.group_ids.clone(),
        source_conversation_id: Some(DREAM_CONVERSATION_ID.to_string()),
        conflicted: false,
        access_count: 0,
        created_at: group.created_at.clone().unwrap_or_else(|| now.to_string()),
        updated_at: now.to_string(),
        written_by: None,
    }
}
