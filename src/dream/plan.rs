//! The pure half of a run (SPEC §3 items 1–3): which entries the firing agent maintains, which of
//! them are stale, which keys contradict each other, and the summarisation groups with their
//! model requests. Nothing here touches a store or a model.
//!
//! Decisions where SPEC is silent:
//! - `_gdpr_` entries are never in scope, never pruned, never grouped, never reported.
//! - An entry whose `visibility` is not `self`, `group` or `global` (visible to nobody) may be
//!   pruned, but is never summarised: no consolidated visibility could be derived for it.
//! - Group members are ordered oldest update first (the prompt says so), ties by id; groups are
//!   ordered by name.
//! - With `summarizeGroupBy: "all"` and several categories, consolidated entries take the most
//!   frequent category (ties: the alphabetically first).
//! - A consolidated entry is attributed to the group's one agent; a group or global group that
//!   spans several agents (only with `crossAgentMaintenance`) is attributed to the firing agent,
//!   which did the maintenance.

use super::prompt::build_dream_prompt;
use crate::entries::config::{DreamConfig, Guardrails, SummarizeGroupBy, Visibility};
use crate::entries::recall::{parsed, Instant};
use crate::entries::visibility::is_reserved_key;
use crate::entries::Entry;
use crate::host::CompletionRequest;
use chrono::{DateTime, Utc};
use std::collections::{BTreeMap, BTreeSet};

use super::report::Contradiction;

/// The entries a run may maintain: the user's non-`_gdpr_` entries written by the firing agent,
/// or every agent's with `crossAgentMaintenance`.
pub fn scoped<'a>(
    entries: &'a [Entry],
    user_id: &str,
    agent_id: &str,
    cross_agent: bool,
) -> Vec<&'a Entry> {
    entries
        .iter()
        .filter(|e| e.user_id == user_id && !is_reserved_key(&e.key))
        .filter(|e| cross_agent || e.source_agent_id.as_deref() == Some(agent_id))
        .collect()
}

/// Scoped entries whose `updatedAt` is strictly older than `days` days before `now`
/// (`days == 0` → none). An `updatedAt` that is not RFC 3339 is never stale.
pub fn stale_entries<'a>(scoped: &[&'a Entry], now: DateTime<Utc>, days: u64) -> Vec<&'a Entry> {
    if days == 0 {
        return Vec::new();
    }
    let seconds = i64::try_from(days)
        .unwrap_or(i64::MAX)
        .saturating_mul(86_400);
    let cutoff: Instant = (
        now.timestamp().saturating_sub(seconds),
        now.timestamp_subsec_nanos(),
    );
    scoped
        .iter()
        .copied()
        .filter(|e| parsed(&e.updated_at).is_some_and(|at| at < cutoff))
        .collect()
}

/// Every key the firing agent holds whose entries — any agent's — carry distinct values. Keys
/// are sorted; `_gdpr_` keys are never considered.
pub fn contradictions(entries: &[Entry], user_id: &str, agent_id: &str) -> Vec<Contradiction> {
    let mine: BTreeSet<&str> = entries
        .iter()
        .filter(|e| e.user_id == user_id && !is_reserved_key(&e.key))
        .filter(|e| e.source_agent_id.as_deref() == Some(agent_id))
        .map(|e| e.key.as_str())
        .collect();
    let mut by_key: BTreeMap<&str, Vec<&Entry>> = BTreeMap::new();
    for entry in entries.iter().filter(|e| e.user_id == user_id) {
        if mine.contains(entry.key.as_str()) {
            by_key.entry(entry.key.as_str()).or_default().push(entry);
        }
    }
    by_key
        .into_iter()
        .filter(|(_, list)| {
            list.split_first()
                .is_some_and(|(first, rest)| rest.iter().any(|e| e.value != first.value))
        })
        .map(|(key, list)| {
            let agents: BTreeSet<String> = list
                .iter()
                .filter_map(|e| e.source_agent_id.clone())
                .collect();
            let ids: BTreeSet<String> = list.iter().map(|e| e.id.clone()).collect();
            Contradiction {
                key: key.to_string(),
                agents: agents.into_iter().collect(),
                entry_ids: ids.into_iter().collect(),
            }
        })
        .collect()
}

/// One summarisation group and what its consolidated entries get (SPEC §3 item 3).
#[derive(Debug, Clone, PartialEq)]
pub struct Group {
    /// `fact`, `all`, `fact:agent-a` (per agent), `unknown` standing for no agent.
    pub name: String,
    /// The originals, oldest update first.
    pub members: Vec<Entry>,
    /// The most restrictive visibility of the members (`self` > `group` > `global`).
    pub visibility: Visibility,
    /// The consolidated entries' category.
    pub category: String,
    /// The consolidated entries' agent.
    pub source_agent_id: Option<String>,
    /// The union of the members' `groupIds`, in first-seen order.
    pub group_ids: Vec<String>,
    /// The earliest `createdAt` among the members (as written), if any parses.
    pub created_at: Option<String>,
    /// The model request for this group.
    pub request: CompletionRequest,
}

/// The most restrictive visibility: `self` if any, else `group` if any, else `global`.
pub fn most_restrictive(members: &[&Entry]) -> Visibility {
    let has = |v: Visibility| {
        members
            .iter()
            .any(|e| Visibility::parse(&e.visibility) == Some(v))
    };
    if has(Visibility::SelfOnly) {
        Visibility::SelfOnly
    } else if has(Visibility::Group) {
        Visibility::Group
    } else {
        Visibility::Global
    }
}

fn agent_name(agent: Option<&str>) -> &str {
    agent.unwrap_or("unknown")
}

/// The summarisation groups of the scoped entries, each with its request: by category
/// (`summarizeGroupBy: "category"`) or all together, per agent with `preserveAgentProvenance`,
/// and a group whose most restrictive visibility is `self` split per agent, so no private
/// memory is ever merged with another agent's. Every group is returned (the caller applies
/// `summarizeMinEntries`).
pub fn summary_groups(
    scoped: &[&Entry],
    dream: &DreamConfig,
    guardrails: &Guardrails,
    firing_agent: &str,
) -> Vec<Group> {
    type Bucket<'a> = BTreeMap<(String, Option<Option<String>>), Vec<&'a Entry>>;
    let mut buckets: Bucket = BTreeMap::new();
    for &entry in scoped {
        if Visibility::parse(&entry.visibility).is_none() {
            continue;
        }
        let base = match dream.summarize_group_by {
            SummarizeGroupBy::All => "all".to_string(),
            SummarizeGroupBy::Category => entry.category.clone(),
        };
        let provenance = dream
            .preserve_agent_provenance
            .then(|| entry.source_agent_id.clone());
        buckets.entry((base, provenance)).or_default().push(entry);
    }
    let mut groups = Vec::new();
    for ((base, provenance), members) in buckets {
        let name = match &provenance {
            Some(agent) => format!("{base}:{}", agent_name(agent.as_deref())),
            None => base,
        };
        let agents: BTreeSet<Option<&str>> = members
            .iter()
            .map(|e| e.source_agent_id.as_deref())
            .collect();
        if most_restrictive(&members) == Visibility::SelfOnly && agents.len() > 1 {
            let mut per_agent: BTreeMap<Option<&str>, Vec<&Entry>> = BTreeMap::new();
            for entry in members {
                per_agent
                    .entry(entry.source_agent_id.as_deref())
                    .or_default()
                    .push(entry);
            }
            for (agent, members) in per_agent {
                let named = format!("{name}:{}", agent_name(agent));
                groups.push(group(named, members, firing_agent, guardrails, dream));
            }
        } else {
            groups.push(group(name, members, firing_agent, guardrails, dream));
        }
    }
    groups.sort_by(|a, b| a.name.cmp(&b.name));
    groups
}

fn group(
    name: String,
    mut members: Vec<&Entry>,
    firing_agent: &str,
    guardrails: &Guardrails,
    dream: &DreamConfig,
) -> Group {
    members.sort_by(|a, b| {
        let (x, y) = (parsed(&a.updated_at), parsed(&b.updated_at));
        // Unparsable timestamps last; then by id.
        x.is_none()
            .cmp(&y.is_none())
            .then(x.cmp(&y))
            .then_with(|| a.id.cmp(&b.id))
    });
    let visibility = most_restrictive(&members);
    let agents: BTreeSet<Option<&str>> = members
        .iter()
        .map(|e| e.source_agent_id.as_deref())
        .collect();
    let source_agent_id = match agents.iter().next() {
        Some(only) if agents.len() == 1 => only.map(str::to_string),
        _ => Some(firing_agent.to_string()),
    };
    let mut group_ids: Vec<String> = Vec::new();
    for id in members.iter().flat_map(|e| e.group_ids.iter()) {
        if !group_ids.contains(id) {
            group_ids.push(id.clone());
        }
    }
    let created_at = members
        .iter()
        .filter_map(|e| parsed(&e.created_at).map(|at| (at, &e.created_at)))
        .min()
        .map(|(_, raw)| raw.clone());
    let request = build_dream_prompt(&members, dream.summarize_target_entries, guardrails);
    Group {
        name,
        category: category_of(&members),
        members: members.into_iter().cloned().collect(),
        visibility,
        source_agent_id,
        group_ids,
        created_at,
        request,
    }
}

/// The most frequent category (ties: the alphabetically first).
fn category_of(members: &[&Entry]) -> String {
    let mut counts: BTreeMap<&str, usize> = BTreeMap::new();
    for e in members {
        *counts.entry(e.category.as_str()).or_default() += 1;
    }
    let mut best: Option<(&str, usize)> = None;
    for (category, n) in counts {
        if best.map_or(true, |(_, m)| n > m) {
            best = Some((category, n));
        }
    }
    best.map_or_else(|| "fact".to_string(), |(c, _)| c.to_string())
}
