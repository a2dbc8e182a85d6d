//! The entry type (behaviour §2.1) and what a write sets on one.

use crate::entries::author::{Author, AuthorKind};
use serde::{Deserialize, Serialize};
use serde_json::Value;

/// One memory entry. `value` is any JSON value; timestamps are RFC 3339 UTC strings.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct Entry {
    /// Entry id (host-supplied or generated).
    pub id: String,
    /// Owner.
    pub user_id: String,
    /// Key (trimmed).
    pub key: String,
    /// Any JSON value.
    pub value: serde_json::Value,
    /// `preference`, `fact`, `context`, `legacy` or `property`. Read as `fact` when a store
    /// answers `null` or leaves it out (legacy entries; behaviour §2.6: an absent category is
    /// `fact`).
    #[serde(default = "fact", deserialize_with = "category_or_fact")]
    pub category: String,
    /// `self`, `group` or `global`.
    pub visibility: String,
    /// The agent that wrote it.
    #[serde(default)]
    pub source_agent_id: Option<String>,
    /// Groups a `group` entry is visible to.
    #[serde(default)]
    pub group_ids: Vec<String>,
    /// The conversation it was written in.
    #[serde(default)]
    pub source_conversation_id: Option<String>,
    /// Marked by Dream contradiction detection.
    #[serde(default)]
    pub conflicted: bool,
    /// How often it was recalled.
    #[serde(default)]
    pub access_count: u64,
    /// RFC 3339 UTC.
    pub created_at: String,
    /// RFC 3339 UTC.
    pub updated_at: String,
    /// The kind of writer of the entry's current state: `learned` for a fact learned from a
    /// turn, `agent`/`rest`/`mcp`/`dream`/`migration` for the others (as in the audit log, whose
    /// record also names the writer's id — the entry keeps only the kind, so no principal's id
    /// is stored on another user's entry). Set by every core write; absent (`null` from a
    /// store) for an entry written before schema 11 whose writer the audit log no longer
    /// named. Not serialized when absent, so such an entry keeps its old shape.
    #[serde(
        default,
        skip_serializing_if = "Option::is_none",
        deserialize_with = "kind_or_none"
    )]
    pub written_by: Option<AuthorKind>,
}

fn fact() -> String {
    "fact".to_string()
}

/// A stored category; `null` is `fact`, like an absent one.
fn category_or_fact<'de, D: serde::Deserializer<'de>>(d: D) -> Result<String, D::Error> {
    Ok(Option::<String>::deserialize(d)?.unwrap_or_else(fact))
}

/// A stored writer kind; one this version does not know (a host's own text) reads as unknown,
/// so the entry stays readable.
fn kind_or_none<'de, D: serde::Deserializer<'de>>(d: D) -> Result<Option<AuthorKind>, D::Error> {
    let text = Option::<Value>::deserialize(d)?;
    Ok(text.and_then(|kind| serde_json::from_value(kind).ok()))
}

/// What a write (a tool, a long-term property) sets on an entry.
#[derive(Debug, Clone, PartialEq)]
pub struct EntryWrite {
    /// Owner.
    pub user_id: String,
    /// Key (trimmed).
    pub key: String,
    /// The new value.
    pub value: serde_json::Value,
    /// The category.
    pub category: String,
    /// The effective visibility.
    pub visibility: String,
    /// The writing agent.
    pub source_agent_id: Option<String>,
    /// Groups of a `group` entry.
    pub group_ids: Vec<String>,
    /// The conversation it was written in.
    pub source_conversation_id: Option<String>,
}

impl Entry {
    /// A new global entry with no agent, group or conversation, created and updated at `now`:
    /// what the legacy properties view, the migration and the restriction flag write.
    pub fn new_global(
        id: String,
        user_id: &str,
        key: &str,
        value: Value,
        category: &str,
        now: String,
    ) -> Entry {
        Entry {
            id,
            user_id: user_id.to_string(),
            key: key.to_string(),
            value,
            category: category.to_string(),
            visibility: "global".to_string(),
            source_agent_id: None,
            group_ids: Vec::new(),
            source_conversation_id: None,
            conflicted: false,
            access_count: 0,
            created_at: now.clone(),
            updated_at: now,
            written_by: None,
        }
    }

    /// The same entry, its current state written by `author`.
    pub fn by(self, author: &Author) -> Entry {
        Entry {
            written_by: Some(author.kind),
            ..self
        }
    }
}

impl EntryWrite {
    /// Whether this write would change nothing on `existing`, the entry it resolves to: what
    /// [`EntryWrite::apply`] sets that a reader sees — value, category, visibility and
    /// `groupIds` — is already identical. `apply` *replaces* `groupIds`, so they must be equal
    /// (not merely contain the write's group). An unchanged write is not stored: no new
    /// `updatedAt`, no write counted (the tools' `✅ Already remembered (unchanged)`, the
    /// properties' `unchanged`). Pinned by `tests/vectors/entries/unchanged.json`.
    pub fn is_unchanged_on(&self, existing: &Entry) -> bool {
        existing.value == self.value
            && existing.category == self.category
            && existing.visibility == self.visibility
            && existing.group_ids == self.group_ids
    }

    /// The entry to store: the resolved `target` updated in place (its id, `createdAt`,
    /// `accessCount` and `conflicted` kept), or a new entry with a fresh id.
    pub fn apply(
        self,
        target: Option<&Entry>,
        now: String,
        new_id: impl FnOnce() -> String,
    ) -> Entry {
        match target {
            Some(existing) => Entry {
                value: self.value,
                category: self.category,
                visibility: self.visibility,
                source_agent_id: self.source_agent_id,
                group_ids: self.group_ids,
                source_conversation_id: self.source_conversation_id,
                updated_at: now,
                ..existing.clone()
            },
            None => Entry {
                id: new_id(),
                user_id: self.user_id,
                key: self.key,
                value: self.value,
                category: self.category,
                visibility: self.visibility,
                source_agent_id: self.source_agent_id,
                group_ids: self.group_ids,
                source_conversation_id: self.source_conversation_id,
                conflicted: false,
                access_count: 0,
                created_at: now.clone(),
                updated_at: now,
                written_by: None,
            },
        }
    }
}
