//! The entries relevant to a message, ready for the prompt (behaviour §8.2 `relevantMemories`): the
//! visible entries a ranked search ([`ranked_search`]) puts first, in recall format under the
//! heading [`RELEVANT_HEADING`], as many as fit in `maxTokens` counted exactly.
//!
//! The section is `# Relevant memories` then one `• key = value [category, visibility]` line per
//! entry, best first, joined by newlines. Entries are added in rank order while the whole section
//! stays within the budget; an entry whose line does not fit is skipped and the next, shorter one
//! may still fit. Nothing fits (or nothing is relevant) → an empty section of 0 tokens.
//! Relevant entries are not counted as accessed (a prompt section is not a recall).

use super::config::{SearchConfig, SearchMode};
use super::entry::Entry;
use super::limit::Limit;
use super::recall::format_entry;
use super::search::modes::{ranked_search, SearchHosts};
use super::store::EntryStore;
use super::visibility::{Audience, Viewer};
use crate::error::{Error, Result};
use crate::host::{Embedder, Logger, Timer, TokenCounter};
use serde::Serialize;

/// The heading of the relevant-memories section (behaviour §8.2, exact).
pub const RELEVANT_HEADING: &str = "# Relevant memories";

/// The default number of entries considered for the section.
pub const DEFAULT_RELEVANT_LIMIT: usize = 10;

/// What a relevant-memories lookup asks for.
#[derive(Debug, Clone, PartialEq)]
pub struct RelevantQuery<'a> {
    /// Whose memories.
    pub user_id: &'a str,
    /// The agent that will see them (its own `self`/`group` entries and the global ones).
    pub agent_id: &'a str,
    /// The turn's group, if any.
    pub group: Option<&'a str>,
    /// The message the entries should be relevant to.
    pub query: &'a str,
    /// The budget of the whole section, in tokens.
    pub max_tokens: usize,
    /// At most this many entries.
    pub limit: usize,
    /// How to rank (`terms` is treated as `ranked`: a prompt section wants the best matches).
    pub search: SearchConfig,
    /// Also the user's most relevant episodes (behaviour §8.6), under [`EPISODES_HEADING`], sharing
    /// the budget ([`relevant_memories`]).
    pub episodes: bool,
}

/// A relevant-memories request as a caller sends it (JSON, camelCase): `{ query, maxTokens,
/// agentId, group?, limit?, mode?, episodes? }` — `relevantMemories`' options and a load's
/// `entries`. Its defaults are decided here, once: `mode` hybrid (by words alone without an
/// embedder), `limit` [`DEFAULT_RELEVANT_LIMIT`]; a `limit` outside 1–1000 is refused
/// ([`Limit`]).
#[derive(Debug, Clone, PartialEq, Eq, serde::Deserialize)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub struct RelevantRequest {
    /// The message the entries should be relevant to.
    pub query: String,
    /// The budget of the section, in tokens.
    pub max_tokens: u64,
    /// The agent that will see them.
    pub agent_id: String,
    /// The turn's group, if any.
    #[serde(default)]
    pub group: Option<String>,
    /// At most this many entries (default [`DEFAULT_RELEVANT_LIMIT`]).
    #[serde(default)]
    pub limit: Option<Limit>,
    /// How to rank (default `hybrid`).
    #[serde(default)]
    pub mode: Option<SearchMode>,
    /// Also the most relevant episodes (behaviour §8.6), sharing `maxTokens` with the entries.
    #[serde(default)]
    pub episodes: bool,
}

impl RelevantRequest {
    /// The query for `user_id`, ranking with `search` (its language; its mode is the request's).
    pub fn query<'a>(&'a self, user_id: &'a str, mut search: SearchConfig) -> RelevantQuery<'a> {
        search.mode = self.mode.unwrap_or(SearchMode::Hybrid);
        RelevantQuery {
            user_id,
            agent_id: &self.agent_id,
            group: self.group.as_deref(),
            query: &self.query,
            max_tokens: usize::try_from(self.max_tokens).unwrap_or(usize::MAX),
            limit: self.limit.map_or(DEFAULT_RELEVANT_LIMIT, Limit::get),
            search,
            episodes: self.episodes,
        }
    }
}

/// The heading of the relevant-episodes part of the section (memcore's; the learning never
/// learns from it).
pub const EPISODES_HEADING: &str = "# Relevant conversation";

/// The section and what is in it.
#[derive(Debug, Clone, PartialEq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct Relevant {
    /// The text to inject (empty when nothing fits or nothing is relevant).
    pub section: String,
    /// Its exact token count.
    pub tokens: usize,
    /// The entries in it, best first.
    pub entries: Vec<Entry>,
    /// The episodes in it, best first (asked for with `episodes`).
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub episodes: Vec<crate::entries::episode::EpisodeHit>,
}

impl Relevant {
    /// No section.
    pub fn empty() -> Relevant {
        Relevant {
            section: String::new(),
            tokens: 0,
            entries: Vec::new(),
            episodes: Vec::new(),
        }
    }
}

/// Find and format the relevant entries (see the module documentation). Store failures are
/// errors; embedding failures degrade to lexical ranking (logged).
pub async fn relevant_memories<S, E, T, L, C>(
    store: &S,
    hosts: &SearchHosts<'_, E, T, L>,
    counter: &C,
    query: &RelevantQuery<'_>,
) -> Result<Relevant>
where
    S: EntryStore,
    E: Embedder,
    T: Timer,
    L: Logger,
    C: TokenCounter + ?Sized,
{
    if query.user_id.trim().is_empty() || query.agent_id.trim().is_empty() {
        return Err(Error::new(
            crate::ErrorCode::Argument,
            "relevantMemories: userId and agentId must be non-empty ids",
        ));
    }
    let mut search = query.search.clone();
    if search.mode == SearchMode::Terms {
        search.mode = SearchMode::Ranked;
    }
    let viewer = Viewer {
        user_id: query.user_id,
        agent_id: query.agent_id,
        group: query.group.filter(|g| !g.is_empty()),
    };
    let found = ranked_search(
        store,
        hosts,
        query.user_id,
        query.query,
        &search,
        query.limit,
        Audience::Viewer(viewer),
    )
    .await?;
    #[cfg(feature = "entry-memory")]
    if query.episodes {
        let options = crate::entries::episode::EpisodeSearch {
            mode: search.mode,
            limit: query.limit,
            conversation_id: None,
            as_of: None,
            language: search.language,
        };
        let hits = crate::entries::episode::search_episodes(
            store,
            hosts,
            query.user_id,
            query.query,
            &options,
        )
        .await?;
        if !hits.is_empty() {
            return share_budget(found, hits, query.max_tokens, counter);
        }
    }
    fit_section(found, query.max_tokens, counter)
}

/// Facts and episodes in one budget (behaviour §8.6): the facts' part may take half of it first,
/// the episodes the rest, then the facts take what the episodes left — so each gets at least
/// half when both have more than fits, and neither wastes what the other does not need. The two
/// parts are joined by a blank line and the whole is counted again; an episode that pushes it
/// over (tokens merge across the join) is dropped, last first.
#[cfg(feature = "entry-memory")]
fn share_budget<C: TokenCounter + ?Sized>(
    facts: Vec<Entry>,
    hits: Vec<crate::entries::episode::EpisodeHit>,
    max_tokens: usize,
    counter: &C,
) -> Result<Relevant> {
    let first = fit_section(facts.clone(), max_tokens / 2, counter)?;
    let mut episodes = fit_episodes(hits, max_tokens.saturating_sub(first.tokens + 2), counter)?;
    let mut relevant = fit_section(
        facts,
        max_tokens.saturating_sub(episodes.1 + usize::from(episodes.1 > 0) * 2),
        counter,
    )?;
    loop {
        let section = match (relevant.section.is_empty(), episodes.0.is_empty()) {
            (_, true) => relevant.section.clone(),
            (true, false) => episodes.0.clone(),
            (false, false) => format!("{}\n\n{}", relevant.section, episodes.0),
        };
        if let Some(n) = counter.count_within(&section, max_tokens)? {
            relevant.section = section;
            relevant.tokens = n;
            relevant.episodes = episodes.2;
            return Ok(relevant);
        }
        episodes.2.pop();
        episodes = fit_episodes(episodes.2, max_tokens, counter)?;
    }
}

/// The episodes' part: [`EPISODES_HEADING`] then `• (YYYY-MM-DD, role) text` per episode (its
/// line breaks as spaces), best first, as many as fit in `max_tokens`; `(text, tokens, kept)`.
#[cfg(feature = "entry-memory")]
fn fit_episodes<C: TokenCounter + ?Sized>(
    hits: Vec<crate::entries::episode::EpisodeHit>,
    max_tokens: usize,
    counter: &C,
) -> Result<(String, usize, Vec<crate::entries::episode::EpisodeHit>)> {
    let mut section = String::new();
    let mut tokens = 0;
    let mut kept = Vec::new();
    for hit in hits {
        let date = super::recall::since_date(&hit.at).unwrap_or_default();
        let text: String = hit.text.split_whitespace().collect::<Vec<_>>().join(" ");
        let line = format!("• ({date}, {}) {text}", hit.role);
        let candidate = if section.is_empty() {
            format!("{EPISODES_HEADING}\n{line}")
        } else {
            format!("{section}\n{line}")
        };
        if let Some(n) = counter.count_within(&candidate, max_tokens)? {
            section = candidate;
            tokens = n;
            kept.push(hit);
        }
    }
    Ok((section, tokens, kept))
}

/// The section of `entries` (best first) within `max_tokens`, counted with `counter`.
pub fn fit_section<C: TokenCounter + ?Sized>(
    entries: Vec<Entry>,
    max_tokens: usize,
    counter: &C,
) -> Result<Relevant> {
    let mut section = String::new();
    let mut tokens = 0;
    let mut kept = Vec::new();
    for entry in entries {
        let candidate = if section.is_empty() {
            format!("{RELEVANT_HEADING}\n{}", format_entry(&entry))
        } else {
            format!("{section}\n{}", format_entry(&entry))
        };
        if let Some(n) = counter.count_within(&candidate, max_tokens)? {
            section = candidate;
            tokens = n;
            kept.push(entry);
        }
    }
    Ok(Relevant {
        section,
        tokens,
        entries: kept,
        episodes: Vec::new(),
    })
}
