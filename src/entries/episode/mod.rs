//! Episodes (behaviour §8.6): the messages of a conversation turn, kept as searchable memory beside
//! the facts learned from them.
//!
//! An episode's id derives from its content — user, conversation, role, text, time and place in
//! the turn — so learning the same turn twice stores nothing twice. A turn learned again without
//! `at` takes a new time (now), so a host that retries a turn passes the turn's `at`.

use serde::{Deserialize, Serialize};

mod search;

pub use search::{search_episodes, EpisodeHit, EpisodeSearch};

/// One stored message. JSON: `{ "id", "userId", "conversationId", "role", "text", "at",
/// "vector"?: { "model", "values": [i8…] } }`.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub struct Episode {
    /// `ep-` and 16 hex digits of its content ([`episode_id`]).
    pub id: String,
    /// The user.
    pub user_id: String,
    /// The conversation.
    pub conversation_id: String,
    /// `user` or `assistant`.
    pub role: String,
    /// The message (secrets handled by the `secrets` policy).
    pub text: String,
    /// When the turn happened (RFC 3339, `YYYY-MM-DDTHH:MM:SS.sssZ`).
    pub at: String,
    /// Its embedding of the embedder's model, quantized like an entry's, when one was made.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub vector: Option<EpisodeVector>,
}

/// An episode's vector: the model it belongs to and its quantized components.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub struct EpisodeVector {
    /// The embedder's model id.
    pub model: String,
    /// The components (i8, as entries' vectors).
    pub values: Vec<i8>,
}

/// Which episodes a store returns ([`super::EntryStore::episodes`]): the user's, of one
/// conversation when given, from `not_before` (inclusive) when given. The core re-checks all
/// three.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct EpisodeQuery<'a> {
    /// The user.
    pub user_id: &'a str,
    /// Only this conversation.
    pub conversation_id: Option<&'a str>,
    /// Only episodes at or after this instant (RFC 3339).
    pub not_before: Option<&'a str>,
}

/// The content id of an episode: `ep-` and the first 16 hex digits of the SHA-256 of its user,
/// conversation, role, time, place in the turn and text (length-prefixed, so no two contents
/// share an encoding).
pub fn episode_id(
    user_id: &str,
    conversation_id: &str,
    role: &str,
    at: &str,
    index: usize,
    text: &str,
) -> String {
    let mut data = Vec::with_capacity(text.len() + 128);
    for part in [user_id, conversation_id, role, at, &index.to_string(), text] {
        data.extend_from_slice(&(part.len() as u64).to_be_bytes());
        data.extend_from_slice(part.as_bytes());
    }
    let digest = crate::digest::sha256(&data);
    let hex: String = digest.iter().take(8).map(|b| format!("{b:02x}")).collect();
    format!("ep-{hex}")
}

/// Whether an episode belongs to the query (the core's re-check of what a store returned).
pub fn matches(episode: &Episode, query: &EpisodeQuery<'_>) -> bool {
    episode.user_id == query.user_id
        && query
            .conversation_id
            .map_or(true, |c| episode.conversation_id == c)
        && query.not_before.map_or(true, |t| {
            crate::entries::recall::instant_at_or_after(&episode.at, t)
        })
}
