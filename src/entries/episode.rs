//! Episodes (behaviour §8.6): the messages of a conversation turn, kept as searchable memory beside
//! the facts learned from them.
//!
//! An episode's id derives from its content — user, conversation, role, text, time and place in
//! the turn — so learning the same turn twice stores nothing twice. A turn learned again without
//! `at` takes a new time (now), so a host that retries a turn passes the turn's `at`.

use serde::{Deserialize, Serialize};

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

/// `searchEpisodes`' options (behaviour §8.6). JSON: `{ "mode"?, "limit"?, "conversationId"?,
/// "asOf"?, "language"? }`.
#[derive(Debug, Clone, PartialEq)]
pub struct EpisodeSearch<'a> {
    /// How to find them (behaviour §8.2): `auto`, `terms`, `ranked`, `hybrid`.
    pub mode: crate::entries::config::SearchMode,
    /// At most this many.
    pub limit: usize,
    /// Only this conversation.
    pub conversation_id: Option<&'a str>,
    /// Only episodes at or before this instant (what was said by then).
    pub as_of: Option<&'a str>,
    /// Stop words and stemming of the ranked modes.
    pub language: crate::entries::config::Language,
}

/// One episode found, with its score: BM25 (`ranked`), the reciprocal-rank-fusion score
/// (`hybrid`), or 1 (`terms`, newest first).
#[derive(Debug, Clone, PartialEq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct EpisodeHit {
    /// The episode.
    pub id: String,
    /// Its conversation.
    pub conversation_id: String,
    /// `user` or `assistant`.
    pub role: String,
    /// The message.
    pub text: String,
    /// When.
    pub at: String,
    /// How well it matched (higher is better).
    pub score: f64,
}

/// Search the user's episodes (behaviour §8.6) with the §8.2 modes: `terms` — every term occurs in
/// the text, newest first; `ranked` — BM25 over the text (stop words, stemming), best first;
/// `hybrid` — `ranked` fused with the cosine similarity of the episodes' vectors of the
/// embedder's model (RRF, k = 60); `auto` — `hybrid` with an embedder, else `ranked`. Ties by
/// id. A query without terms finds nothing. A store that keeps no episodes finds nothing.
pub async fn search_episodes<S, E, T, L>(
    store: &S,
    hosts: &crate::entries::search::modes::SearchHosts<'_, E, T, L>,
    user_id: &str,
    query: &str,
    options: &EpisodeSearch<'_>,
) -> crate::error::Result<Vec<EpisodeHit>>
where
    S: super::EntryStore,
    E: crate::host::Embedder,
    T: crate::host::Timer,
    L: crate::host::Logger,
{
    use crate::entries::config::SearchMode;
    use crate::entries::search::analyzer::Analyzer;
    use crate::entries::search::bm25::{self, AnalyzedDoc, Floor};
    use crate::entries::search::modes::query_terms;
    use crate::entries::search::{fold, fusion, matches_folded, search_terms, sort_ranked, TieKey};
    let terms = search_terms(query);
    if terms.is_empty() || options.limit == 0 {
        return Ok(Vec::new());
    }
    let selection = EpisodeQuery {
        user_id,
        conversation_id: options.conversation_id,
        not_before: None,
    };
    let Some(found) = store.episodes(&selection).await? else {
        return Ok(Vec::new());
    };
    let mut episodes: Vec<Episode> = found
        .into_iter()
        .filter(|e| matches(e, &selection))
        .filter(|e| {
            options.as_of.map_or(true, |t| {
                crate::entries::recall::instant_at_or_after(t, &e.at)
            })
        })
        .collect();
    crate::order::sort_by(&mut episodes, |a, b| a.id.cmp(&b.id));
    episodes.dedup_by(|a, b| a.id == b.id);
    let hit = |e: &Episode, score: f64| EpisodeHit {
        id: e.id.clone(),
        conversation_id: e.conversation_id.clone(),
        role: e.role.clone(),
        text: e.text.clone(),
        at: e.at.clone(),
        score,
    };
    if options.mode == SearchMode::Terms {
        let mut hits: Vec<&Episode> = episodes
            .iter()
            .filter(|e| matches_folded(&terms, "", &fold(&e.text)))
            .collect();
        crate::order::sort_by(&mut hits, |a, b| {
            let (x, y) = (
                crate::entries::recall::parsed(&a.at),
                crate::entries::recall::parsed(&b.at),
            );
            y.cmp(&x).then_with(|| a.id.cmp(&b.id))
        });
        return Ok(hits
            .into_iter()
            .take(options.limit)
            .map(|e| hit(e, 1.0))
            .collect());
    }
    let analyzer = Analyzer::new(options.language);
    let analyzed = query_terms(&analyzer, query);
    let docs: Vec<AnalyzedDoc> = episodes
        .iter()
        .map(|e| AnalyzedDoc::new(&analyzer, "", &e.text))
        .collect();
    let doc_refs: Vec<&AnalyzedDoc> = docs.iter().collect();
    let ids: Vec<TieKey> = episodes.iter().map(|e| TieKey::of(&e.id)).collect();
    let mut lexical = bm25::scores(&analyzed, &doc_refs, Floor::DEFAULT);
    sort_ranked(&mut lexical, &ids);
    let query_vector = match (&hosts.embedding, options.mode.uses_embedder()) {
        (Some(embedding), true) => match embedding.query(query).await {
            Ok(v) => Some((v, embedding.spec.model.clone())),
            Err(_) => None,
        },
        _ => None,
    };
    let mut semantic = Vec::new();
    if let Some((q, model)) = &query_vector {
        if let Some(scorer) = crate::entries::search::vectors::Scorer::new(
            q,
            crate::entries::search::vectors::DEFAULT_COSINE_FLOOR,
        ) {
            for (index, e) in episodes.iter().enumerate() {
                if let Some(v) = e.vector.as_ref().filter(|v| &v.model == model) {
                    if let Some(score) = scorer.score(&v.values, None) {
                        semantic.push(crate::entries::search::Scored { index, score });
                    }
                }
            }
            sort_ranked(&mut semantic, &ids);
        }
    }
    let ranked: Vec<(usize, f64)> = if semantic.is_empty() {
        lexical.iter().map(|s| (s.index, s.score)).collect()
    } else {
        let a: Vec<usize> = lexical.iter().map(|s| s.index).collect();
        let b: Vec<usize> = semantic.iter().map(|s| s.index).collect();
        let mut fused: Vec<crate::entries::search::Scored> = fusion::rrf(&[&a, &b], fusion::RRF_K)
            .into_iter()
            .map(|(index, score)| crate::entries::search::Scored { index, score })
            .collect();
        sort_ranked(&mut fused, &ids);
        fused.into_iter().map(|s| (s.index, s.score)).collect()
    };
    Ok(ranked
        .into_iter()
        .take(options.limit)
        .filter_map(|(i, score)| episodes.get(i).map(|e| hit(e, score)))
        .collect())
}
