//! The pure half of a run (behaviour §3 items 1–3): which entries the firing agent maintains, which
//! of them are stale, which keys contradict each other, and the summarisation groups with their
//! model requests. Nothing here touches a store or a model.
//!
//! Decisions where the behaviour reference is silent:
//! - `_gdpr_` entries are never in scope, never pruned, never grouped, never reported.
//! - An entry whose `visibility` is not `self`, `group` or `global` (visible to nobody) may be
//!   pruned, but is never summarised: no consolidated visibility could be derived for it.
//! - Group members are ordered least recently updated first (the prompt says so; an `updatedAt`
//!   that does not parse counts as the oldest), ties by id; groups are ordered by category (or
//!   `all`), then agent.
//! - With `summarizeGroupBy: "all"` and several categories, consolidated entries take the most
//!   frequent category (ties: the alphabetically first).
//! - A consolidated entry is attributed to the group's one agent; a group or global group that
//!   spans several agents (only with `crossAgentMaintenance`) is attributed to the firing agent,
//!   which did the maintenance.

use super::prompt::build_dream_prompt;
use crate::entries::config::{DreamConfig, Guardrails, SummarizeGroupBy, Visibility};
use crate::entries::recall::{parsed, sort_stalest_first, Instant};
use crate::entries::visibility::is_reserved_key;
use crate::entries::Entry;
use crate::host::CompletionRequest;
use chrono::{DateTime, Utc};
use std::collections::{BTreeMap, HashMap, HashSet};

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

/// Global entries whose value another agent changed (behaviour §8.3, from the history): for each of
/// the user's current global entries, each kept version it replaced as an overwrite (another
/// writer) with another value at or after `since` (the retention window's start, millisecond
/// UTC text), where the firing agent is one of the two writers — or any writers under
/// `cross_agent`. One report per overwrite, oldest first per key.
pub fn overwritten(
    entries: &[Entry],
    versions: &[crate::entries::history::Version],
    (user_id, agent_id): (&str, &str),
    cross_agent: bool,
    since: &str,
) -> Vec<Contradiction> {
    use crate::entries::history::Reason;
    let current: HashMap<&str, &Entry> = entries
        .iter()
        .filter(|e| e.user_id == user_id && e.visibility == "global" && !is_reserved_key(&e.key))
        .map(|e| (e.id.as_str(), e))
        .collect();
    let mut found: Vec<(String, String, Contradiction)> = Vec::new();
    let recent = |v: &&crate::entries::history::Version| {
        v.reason == Reason::Overwritten && v.user_id == user_id && v.valid_until.as_str() >= since
    };
    for v in versions.iter().filter(recent) {
        let Some(now) = current.get(v.entry_id.as_str()) else {
            continue;
        };
        let agents = [v.source_agent_id.clone(), now.source_agent_id.clone()];
        let mine = agents.iter().any(|a| a.as_deref() == Some(agent_id));
        if v.value == now.value || v.key != now.key || !(mine || cross_agent) {
            continue;
        }
        found.push((
            now.key.clone(),
            v.valid_until.clone(),
            Contradiction {
                key: now.key.clone(),
                agents: sorted_unique(agents.into_iter().flatten().collect()),
                entry_ids: vec![now.id.clone()],
                overwritten_at: Some(v.valid_until.clone()),
            },
        ));
    }
    crate::order::sort_by(&mut found, |a, b| (&a.0, &a.1).cmp(&(&b.0, &b.1)));
    found.into_iter().map(|(_, _, c)| c).collect()
}

/// Every key the firing agent holds whose entries — any agent's — carry distinct values. Keys
/// are sorted; `_gdpr_` keys are never considered.
pub fn contradictions(entries: &[Entry], user_id: &str, agent_id: &str) -> Vec<Contradiction> {
    let mine: HashSet<&str> = entries
        .iter()
        .filter(|e| e.user_id == user_id && !is_reserved_key(&e.key))
        .filter(|e| e.source_agent_id.as_deref() == Some(agent_id))
        .map(|e| e.key.as_str())
        .collect();
    // Only keys held more than once can disagree: bucket just those.
    let mut seen: HashSet<&str> = HashSet::new();
    let mut repeated: HashSet<&str> = HashSet::new();
    for entry in entries.iter().filter(|e| e.user_id == user_id) {
        if !seen.insert(entry.key.as_str()) {
            repeated.insert(entry.key.as_str());
        }
    }
    let mut by_key: Buckets = BTreeMap::new();
    for entry in entries.iter().filter(|e| e.user_id == user_id) {
        let key = entry.key.as_str();
        if repeated.contains(key) && mine.contains(key) {
            by_key.entry(entry.key.clone()).or_default().push(entry);
        }
    }
    let mut found = Vec::new();
    for (key, list) in by_key {
        let distinct = list
            .split_first()
            .is_some_and(|(first, rest)| rest.iter().any(|e| e.value != first.value));
        if distinct {
            found.push(Contradiction {
                key,
                agents: sorted_unique(
                    list.iter()
                        .filter_map(|e| e.source_agent_id.clone())
                        .collect(),
                ),
                entry_ids: sorted_unique(list.iter().map(|e| e.id.clone()).collect()),
                overwritten_at: None,
            });
        }
    }
    found
}

/// Entries bucketed by a text key (one map type for every grouping, so the wasm holds one copy).
type Buckets<'a> = BTreeMap<String, Vec<&'a Entry>>;

fn sorted_unique(mut list: Vec<String>) -> Vec<String> {
    crate::order::sort_by(&mut list, |a, b| a.cmp(b));
    list.dedup();
    list
}

/// One summarisation group and what its consolidated entries get (behaviour §3 item 3).
#[derive(Debug, Clone, PartialEq)]
pub struct Group {
    /// `fact`, `all`, `fact:agent-a` (per agent), `unknown` standing for no agent.
    pub name: String,
    /// The originals, least recently updated first.
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

/// An entry's agent as a bucket key (`\u{0}`, shown as `unknown`, for none).
fn agent_key(entry: &Entry) -> &str {
    entry.source_agent_id.as_deref().unwrap_or("\u{0}")
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
    // `\u{1}` separates category and agent: it sorts before every printable character, so
    // `fact` with its agents comes before `fact_x`.
    let mut buckets: Buckets = BTreeMap::new();
    let mut key = String::new();
    for &entry in scoped {
        if Visibility::parse(&entry.visibility).is_none() {
            continue;
        }
        key.clear();
        key.push_str(match dream.summarize_group_by {
            SummarizeGroupBy::All => "all",
            SummarizeGroupBy::Category => &entry.category,
        });
        if dream.preserve_agent_provenance {
            key.push('\u{1}');
            key.push_str(agent_key(entry));
        }
        match buckets.get_mut(key.as_str()) {
            Some(list) => list.push(entry),
            None => {
                buckets.insert(key.clone(), vec![entry]);
            }
        }
    }
    let shown = |key: &str| key.replace('\u{1}', ":").replace('\u{0}', "unknown");
    let mut groups = Vec::new();
    for (key, members) in buckets {
        let first = members.first().map(|e| agent_key(e));
        let one_agent = members.iter().all(|e| Some(agent_key(e)) == first);
        if most_restrictive(&members) == Visibility::SelfOnly && !one_agent {
            let mut per_agent: Buckets = BTreeMap::new();
            for entry in members {
                per_agent
                    .entry(agent_key(entry).to_string())
                    .or_default()
                    .push(entry);
            }
            for (agent, members) in per_agent {
                let name = shown(&format!("{key}\u{1}{agent}"));
                groups.push(group(name, members, firing_agent, guardrails, dream));
            }
        } else {
            groups.push(group(shown(&key), members, firing_agent, guardrails, dream));
        }
    }
    groups
}

fn group(
    name: String,
    mut members: Vec<&Entry>,
    firing_agent: &str,
    guardrails: &Guardrails,
    dream: &DreamConfig,
) -> Group {
    sort_stalest_first(&mut members);
    let visibility = most_restrictive(&members);
    let first_agent = members.first().and_then(|e| e.source_agent_id.clone());
    let source_agent_id = if members.iter().all(|e| e.source_agent_id == first_agent) {
        first_agent
    } else {
        Some(firing_agent.to_string())
    };
    let mut group_ids: Vec<String> = Vec::new();
    for id in members.iter().flat_map(|e| e.group_ids.iter()) {
        if !group_ids.contains(id) {
            group_ids.push(id.clone());
        }
    }
    let mut earliest: Option<(Instant, &String)> = None;
    for e in &members {
        if let Some(at) = parsed(&e.created_at) {
            if earliest.map_or(true, |(seen, _)| at < seen) {
                earliest = Some((at, &e.created_at));
            }
        }
    }
    let created_at = earliest.map(|(_, raw)| raw.clone());
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
    let mut counts: Buckets = BTreeMap::new();
    for &e in members {
        counts.entry(e.category.clone()).or_default().push(e);
    }
    let mut best: Option<(String, usize)> = None;
    for (category, list) in counts {
        if best.as_ref().map_or(true, |(_, n)| list.len() > *n) {
            best = Some((category, list.len()));
        }
    }
    best.map_or_else(|| "fact".to_string(), |(c, _)| c)
}
