//! The entry type (SPEC §2.1).

use serde::{Deserialize, Serialize};

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
    /// `preference`, `fact`, `context`, `legacy` or `property`.
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
}
