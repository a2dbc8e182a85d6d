//! Who writes memory: the kinds of writer ([`AuthorKind`]) and an author with its id
//! ([`Author`]), named by every version, audit record and entry (`writtenBy`). A leaf module.

use serde::{Deserialize, Serialize};

/// Who made a change: the kind of writer and, where there is one, its id.
///
/// JSON: `{ "kind": "agent", "id": "agent-b" }`, `{ "kind": "dream", "id": "agent-a" }` (the
/// agent whose schedule ran it), `{ "kind": "rest", "id": "alice" }` (the principal, `null` when
/// the host named none), `{ "kind": "mcp", … }`, `{ "kind": "migration", "id": null }`.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Author {
    /// What kind of writer.
    pub kind: AuthorKind,
    /// The agent, the principal, or `null`.
    pub id: Option<String>,
}

/// The kinds of [`Author`].
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum AuthorKind {
    /// An agent through the LLM tools or a `longTerm` property (`id`: the agent).
    Agent,
    /// A Dream run (`id`: the agent whose schedule fired it).
    Dream,
    /// A REST request or a direct library call (`id`: the principal, when known).
    Rest,
    /// An MCP tool call (`id`: the principal).
    Mcp,
    /// The legacy migration.
    Migration,
    /// Learned from a conversation turn (`learnFromTurn`, behaviour §8.6; `id`: the agent).
    Learned,
}

impl Author {
    /// An author of `kind` with `id`.
    pub fn new(kind: AuthorKind, id: Option<&str>) -> Author {
        Author {
            kind,
            id: id.map(str::to_string),
        }
    }
}
