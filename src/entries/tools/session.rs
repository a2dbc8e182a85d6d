//! The per-turn tool session and the answers the tools give (behaviour §2.5; the answers the
//! behaviour reference does not define are listed in [`super`]).

use super::TOOL_NAMES;
use crate::entries::config::UserMemoryConfig;
use crate::entries::search::value_text;
use crate::entries::visibility::Viewer;
use serde::{Deserialize, Serialize};
use serde_json::Value;

/// Answer for unusable arguments.
pub const INVALID_ARGUMENTS: &str =
    "⚠️ Invalid arguments: expected a JSON object with the tool's parameters.";
/// Answer for a key that is an object or array.
pub const KEY_NOT_TEXT: &str = "⚠️ Key must be text.";
/// Answer for an empty key (behaviour reference).
pub const KEY_EMPTY: &str = "⚠️ Key must not be empty.";
/// Answer for a missing or blank value.
pub const VALUE_EMPTY: &str = "⚠️ Value must not be empty.";
/// Answer for a reserved key (behaviour reference).
pub const RESERVED: &str = "⚠️ Keys starting with '_gdpr_' are reserved.";
/// Answer while the user's processing is restricted (behaviour §4.3).
pub const RESTRICTED: &str =
    "⚠️ Memory processing is restricted for this user. Nothing new is stored.";

/// Per-turn state of one agent talking to one user. The host builds one per turn (or keeps it
/// across the tool calls of a turn): `writes_this_turn` counts successful `rememberFact` writes.
#[derive(Debug, Clone, PartialEq)]
pub struct ToolSession {
    /// The agent's memory configuration.
    pub config: UserMemoryConfig,
    /// The authenticated user.
    pub user_id: String,
    /// The agent calling the tools.
    pub agent_id: String,
    /// The turn's group, from [`crate::entries::visibility::resolve_group_context`] only.
    pub group: Option<String>,
    /// Stamped on written entries.
    pub conversation_id: Option<String>,
    /// Successful writes so far in this turn.
    pub writes_this_turn: u32,
}

impl ToolSession {
    /// A fresh self-scoped session with no writes. `E_ARGUMENT` when the user or the agent id is
    /// blank: every write is stamped with both, and a blank one would scope memories to nobody.
    /// The error's `details.field` names the blank one (`userId` first, then `agentId`). A user
    /// id the erasure would refuse is `E_INVALID_USER_ID`.
    pub fn new(
        config: UserMemoryConfig,
        user_id: &str,
        agent_id: &str,
    ) -> crate::error::Result<Self> {
        for (name, id) in [("userId", user_id), ("agentId", agent_id)] {
            if id.trim().is_empty() {
                return Err(crate::Error::new(
                    crate::ErrorCode::Argument,
                    format!("{name} must be a non-empty id"),
                )
                .with_details(serde_json::json!({ "field": name })));
            }
        }
        // The one user-id rule of every write and of erasure (data stored under an id erasure
        // refuses could never be erased): `E_INVALID_USER_ID`.
        crate::profile::paths::validate_user_id(user_id)?;
        Ok(ToolSession {
            config,
            user_id: user_id.to_string(),
            agent_id: agent_id.to_string(),
            group: None,
            conversation_id: None,
            writes_this_turn: 0,
        })
    }

    /// Scope the session to the turn's group (from
    /// [`crate::entries::visibility::resolve_group_context`] only; an empty group is none) and
    /// the conversation stamped on written entries.
    pub fn scope(&mut self, group: Option<String>, conversation_id: Option<String>) {
        self.group = group.filter(|g| !g.is_empty());
        self.conversation_id = conversation_id;
    }

    /// Who the tools show entries to: this user, this agent, this turn's group.
    pub fn viewer(&self) -> Viewer<'_> {
        Viewer {
            user_id: &self.user_id,
            agent_id: &self.agent_id,
            group: self.group.as_deref(),
        }
    }
}

/// A tool's answer for the model, and whether the store was written.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct ToolAnswer {
    /// The exact text returned to the model.
    pub text: String,
    /// `true` when an entry was created, changed or deleted (access counts do not count).
    pub wrote: bool,
}

impl ToolAnswer {
    pub(crate) fn say(text: impl Into<String>) -> Self {
        ToolAnswer {
            text: text.into(),
            wrote: false,
        }
    }
    pub(crate) fn wrote(text: impl Into<String>) -> Self {
        ToolAnswer {
            text: text.into(),
            wrote: true,
        }
    }
}

/// The answer for a tool name that is not one of [`TOOL_NAMES`].
pub fn unknown_tool_answer(name: &str) -> String {
    unknown_tool_answer_for(name, false)
}

/// [`unknown_tool_answer`] naming `memoryHistory` too when the session offers it
/// ([`super::offers_history`]).
pub fn unknown_tool_answer_for(name: &str, history: bool) -> String {
    let mut names = TOOL_NAMES.join(", ");
    if history {
        names.push_str(", ");
        names.push_str(super::HISTORY_TOOL);
    }
    format!("⚠️ Unknown memory tool '{name}'. Available tools: {names}.")
}

/// The answer of a store failure; the host's message is redacted as logs are (a store's error
/// may quote the row it refused, a value among it).
pub(crate) fn failed(action: &str, error: &crate::Error) -> ToolAnswer {
    ToolAnswer::say(format!(
        "❌ Failed to {action} memory: {}",
        crate::secrets::error_text(error)
    ))
}

/// The answer of a tool call that failed outside the tool itself (the host's instance failed):
/// `❌ Failed to <store|recall|search|forget> memory: <reason>`, the action named after the tool.
pub fn failure_answer(tool: &str, reason: &str) -> String {
    let action = match tool {
        "recallMemories" => "recall",
        "searchMemory" => "search",
        "forgetFact" => "forget",
        "memoryHistory" => "read",
        _ => "store",
    };
    format!("❌ Failed to {action} memory: {reason}")
}

pub(crate) fn line(
    prefix: &str,
    key: &str,
    value: &Value,
    category: &str,
    visibility: &str,
) -> String {
    format!(
        "{prefix}{key} = {} [{category}, {visibility}]",
        value_text(value)
    )
}
