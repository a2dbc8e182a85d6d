//! Searching episodes (behaviour §8.6): every search mode over a user's kept messages.

use super::*;

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
    S: crate::entries::EntryStore,
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
