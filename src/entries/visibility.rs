//! Identity, visibility and the group context (behaviour §2.4).
//!
//! One predicate, [`is_visible`] (and [`Viewer::shows`], which adds the user and the `_gdpr_`
//! exclusion), governs recall, search and forget, so the three can never disagree about what an
//! agent may see. One resolver, [`resolve_write_target`], decides which
//! stored entry a write lands on, for the tools and for `longTerm` properties alike.

use super::entry::Entry;
use serde::{Deserialize, Serialize};
use serde_json::{Map, Value};

/// Entry visibility (behaviour §2.4).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize, Default)]
#[serde(rename_all = "lowercase")]
pub enum Visibility {
    /// Only the writing agent.
    #[default]
    #[serde(rename = "self")]
    SelfOnly,
    /// Agents of the groups in `groupIds`.
    Group,
    /// Every agent of the user.
    Global,
}

impl Visibility {
    /// The stored string form (`self`, `group`, `global`).
    pub fn as_str(self) -> &'static str {
        match self {
            Visibility::SelfOnly => "self",
            Visibility::Group => "group",
            Visibility::Global => "global",
        }
    }

    /// Parse the exact stored form; anything else is `None`.
    pub fn parse(text: &str) -> Option<Visibility> {
        match text {
            "self" => Some(Visibility::SelfOnly),
            "group" => Some(Visibility::Group),
            "global" => Some(Visibility::Global),
            _ => None,
        }
    }
}

/// Prefix of reserved GDPR bookkeeping keys (behaviour §2.4): no tool, property setter, REST or MCP
/// write or delete may touch them; they do not count toward `maxEntriesPerUser`.
pub const GDPR_PREFIX: &str = "_gdpr_";

/// Whether a **stored** entry is a reserved `_gdpr_` entry: its key as stored, trimmed, starts
/// with the prefix (the SQL stores index the same rule). Keys that come in — a tool's, a
/// request's, a property's, a model's — are checked with [`super::reserved::names_reserved_key`],
/// which also catches look-alikes.
pub fn is_reserved_key(key: &str) -> bool {
    match key.as_bytes().first() {
        // The common key: its first character is ASCII, neither `_` nor whitespace, so neither
        // it nor its trimmed form starts with the prefix (searches test every entry's key).
        Some(&b) if b.is_ascii() && b != b'_' && !char::from(b).is_whitespace() => false,
        _ => key.trim().starts_with(GDPR_PREFIX),
    }
}

/// Context keys a client may never supply: the host injects them from authenticated state.
/// `groupId` selects group visibility (behaviour §2.4); `userId`, `agentId` and `conversationId`
/// are identities the core only takes from the host, so a client copy of them is removed too.
pub const RESERVED_CONTEXT_KEYS: &[&str] = &["groupId", "userId", "agentId", "conversationId"];

/// Remove [`RESERVED_CONTEXT_KEYS`] from a client-supplied request context. Matching is exact
/// (JSON keys are case-sensitive and the core reads only the exact names).
pub fn filter_client_context(ctx: &Map<String, Value>) -> Map<String, Value> {
    let mut out = Map::new();
    for (k, v) in ctx {
        if !RESERVED_CONTEXT_KEYS.contains(&k.as_str()) {
            out.insert(k.clone(), v.clone());
        }
    }
    out
}

/// The host's confirmation about the discussion named on an earlier step of the conversation.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct GroupAttestation {
    /// The discussion named on that step is running on this instance.
    pub discussion_running_here: bool,
    /// This conversation is one of that discussion's members.
    pub conversation_is_member: bool,
    /// The group that discussion belongs to, as the host knows it.
    pub discussion_group_id: Option<String>,
}

/// The group a turn is scoped to (behaviour §2.4): the host-injected group wins; otherwise a group
/// found only on an earlier step counts when the host attests all three facts and names the same
/// group; otherwise the turn is self-scoped (`None`). Empty strings count as absent.
pub fn resolve_group_context(
    injected: Option<&str>,
    earlier_step_group: Option<&str>,
    host_attestation: Option<&GroupAttestation>,
) -> Option<String> {
    if let Some(group) = injected.filter(|g| !g.is_empty()) {
        return Some(group.to_string());
    }
    let earlier = earlier_step_group.filter(|g| !g.is_empty())?;
    let att = host_attestation?;
    let confirmed = att.discussion_running_here
        && att.conversation_is_member
        && att.discussion_group_id.as_deref() == Some(earlier);
    confirmed.then(|| earlier.to_string())
}

/// The inputs of a group resolution as the host has them (JSON, camelCase):
/// `{ "injectedContext": { "groupId": "G" }, "earlierSteps": [{ "groupId": "G" }, …],
///    "hostAttestation": { … } }`, every field optional. Other fields of the context and the
/// steps are ignored.
#[derive(Debug, Clone, Default, PartialEq, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct GroupContextInputs {
    /// The context the host injected for this turn (trusted).
    #[serde(default)]
    pub injected_context: Option<Map<String, Value>>,
    /// Earlier steps of the conversation, oldest first.
    #[serde(default)]
    pub earlier_steps: Option<Vec<Value>>,
    /// The host's confirmation about the discussion named on an earlier step.
    #[serde(default)]
    pub host_attestation: Option<GroupAttestation>,
}

/// [`resolve_group_context`] over the host's inputs: the injected `groupId`; otherwise the
/// `groupId` of the **most recent** earlier step that names one, when the host attests it.
pub fn resolve_group_context_from(inputs: &GroupContextInputs) -> Option<String> {
    let text = |v: Option<&Value>| v.and_then(Value::as_str).map(str::to_string);
    let injected = text(
        inputs
            .injected_context
            .as_ref()
            .and_then(|c| c.get("groupId")),
    );
    let earlier = inputs
        .earlier_steps
        .as_deref()
        .unwrap_or_default()
        .iter()
        .rev()
        .find_map(|step| text(step.get("groupId")));
    resolve_group_context(
        injected.as_deref(),
        earlier.as_deref(),
        inputs.host_attestation.as_ref(),
    )
}

/// Whether agent `agent_id`, in group `group` (if any), may see `entry`: global entries, its own
/// `self` entries, and `group` entries whose `groupIds` contain the group. An unknown visibility
/// string is visible to nobody (fail closed).
pub fn is_visible(entry: &Entry, agent_id: &str, group: Option<&str>) -> bool {
    visible_as(Visibility::parse(&entry.visibility), entry, agent_id, group)
}

/// [`is_visible`] with the entry's visibility already parsed ([`Visibility::parse`]; an
/// [`super::EntrySet`] keeps it): the predicate itself.
pub(crate) fn visible_as(
    visibility: Option<Visibility>,
    entry: &Entry,
    agent_id: &str,
    group: Option<&str>,
) -> bool {
    match visibility {
        Some(Visibility::Global) => true,
        Some(Visibility::SelfOnly) => entry.source_agent_id.as_deref() == Some(agent_id),
        Some(Visibility::Group) => {
            group.is_some_and(|g| !g.is_empty() && entry.group_ids.iter().any(|id| id == g))
        }
        None => false,
    }
}

/// Who looks at a user's entries through the tools: the user, the agent and the turn's group.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Viewer<'a> {
    /// The user whose entries these are.
    pub user_id: &'a str,
    /// The agent calling the tools.
    pub agent_id: &'a str,
    /// The turn's group, if any.
    pub group: Option<&'a str>,
}

impl Viewer<'_> {
    /// Whether recall, search and forget may show `entry`: it is the viewer's user's, it is not
    /// `_gdpr_` bookkeeping, and it [`is_visible`] to the agent in the group.
    pub fn shows(&self, entry: &Entry) -> bool {
        self.shows_parsed(
            entry,
            Visibility::parse(&entry.visibility),
            is_reserved_key(&entry.key),
        )
    }

    /// [`Viewer::shows`] with the entry's visibility parsed and its key's reservation known.
    pub(crate) fn shows_parsed(
        &self,
        entry: &Entry,
        visibility: Option<Visibility>,
        reserved: bool,
    ) -> bool {
        !reserved
            && visible_as(visibility, entry, self.agent_id, self.group)
            && entry.user_id == self.user_id
    }
}

/// Whom a ranked search shows a user's entries to.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Audience<'a> {
    /// The user (REST, MCP, `searchUserMemories`): every entry of the user (whatever its
    /// visibility) but `_gdpr_` bookkeeping.
    Owner(&'a str),
    /// An agent in a turn (the `searchMemory` tool, `relevantMemories`): what
    /// [`Viewer::shows`].
    Viewer(Viewer<'a>),
}

impl Audience<'_> {
    /// The user whose entries are searched.
    pub fn user_id(&self) -> &str {
        match self {
            Audience::Owner(user_id) => user_id,
            Audience::Viewer(viewer) => viewer.user_id,
        }
    }

    /// Whether `entry` is shown.
    pub fn shows(&self, entry: &Entry) -> bool {
        self.shows_parsed(
            entry,
            Visibility::parse(&entry.visibility),
            is_reserved_key(&entry.key),
        )
    }

    /// [`Audience::shows`] with the entry's visibility parsed and its key's reservation known.
    pub(crate) fn shows_parsed(
        &self,
        entry: &Entry,
        visibility: Option<Visibility>,
        reserved: bool,
    ) -> bool {
        match self {
            Audience::Owner(user_id) => !reserved && entry.user_id == *user_id,
            Audience::Viewer(viewer) => viewer.shows_parsed(entry, visibility, reserved),
        }
    }
}

/// The visibility a write actually gets: `group` without a group is stored as `self` (a group
/// entry nobody can match would be unreachable; `self` keeps it reachable without widening it).
pub fn effective_visibility(requested: Visibility, group: Option<&str>) -> Visibility {
    match (requested, group) {
        (Visibility::Group, None) => Visibility::SelfOnly,
        (Visibility::Group, Some("")) => Visibility::SelfOnly,
        (v, _) => v,
    }
}

/// The visibility a write by an agent in `group` gets, and the `groupIds` it is stamped with
/// (behaviour §2.4): a `group` write carries the turn's group; without one (absent or empty) it is
/// stored as `self`; other writes carry no group.
pub fn write_scope(requested: Visibility, group: Option<&str>) -> (Visibility, Vec<String>) {
    let group = group.filter(|g| !g.is_empty());
    let visibility = effective_visibility(requested, group);
    let group_ids = match (visibility, group) {
        (Visibility::Group, Some(g)) => vec![g.to_string()],
        _ => Vec::new(),
    };
    (visibility, group_ids)
}

/// Whether `entry` has the identity a write of `visibility` lands on: `global` →
/// `(userId, key)` among global entries; `self`/`group` → `(userId, key, sourceAgentId)` among
/// that agent's self and group entries. So a self write never touches the global entry. The
/// agent is `None` for Dream's consolidated write of a group whose entries name no agent (data
/// written by an older engine): it lands on the self and group entries without one.
pub fn has_identity(
    entry: &Entry,
    user_id: &str,
    key: &str,
    agent_id: Option<&str>,
    visibility: Visibility,
) -> bool {
    if entry.user_id != user_id || entry.key != key {
        return false;
    }
    match visibility {
        Visibility::Global => entry.visibility == "global",
        Visibility::SelfOnly | Visibility::Group => {
            (entry.visibility == "self" || entry.visibility == "group")
                && entry.source_agent_id.as_deref() == agent_id
        }
    }
}

/// The stored entry a write lands on, if any. Should the store hold several entries with one
/// identity (data written by an older engine), the most recently updated one (then the smallest
/// id) is the target, so the answer is deterministic.
pub fn resolve_write_target<'a>(
    entries: &'a [Entry],
    user_id: &str,
    key: &str,
    agent_id: &str,
    visibility: Visibility,
) -> Option<&'a Entry> {
    entries
        .iter()
        .filter(|e| has_identity(e, user_id, key, Some(agent_id), visibility))
        .min_by(|a, b| super::recall::recency_cmp(a, b))
}
