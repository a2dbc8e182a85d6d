//! The search modes (SPEC §2.5, §8.2) over one set of candidates: `terms` is [`super`]'s rule;
//! `ranked` is BM25 ([`super::bm25`]) over the analyzed key and value ([`super::analyzer`]);
//! `hybrid` fuses that list with the candidates' cosine similarity to the query's vector
//! ([`super::vectors`]) by reciprocal rank fusion ([`super::fusion`], k = 60).
//!
//! Every surface (the `searchMemory` tool, `searchUserMemories`, REST, MCP, `relevantMemories`)
//! ranks through [`rank`], after its own visibility filter: a store may over-return, the
//! candidates passed here are what the caller may show. Ties are broken by id. A query has at
//! most [`MAX_QUERY_TERMS`] distinct terms (the first ones), so a 1 MB query costs what a long
//! sentence does.

use super::analyzer::Analyzer;
use super::bm25::{self, AnalyzedDoc, Floor};
use super::fusion::{rrf, RRF_K};
use super::vectors::{self, DEFAULT_COSINE_FLOOR};
use super::{sort_ranked, value_text, IdKey, Scored};
use crate::entries::config::{SearchConfig, SearchMode};
use crate::entries::embedding::Embedding;
use crate::entries::entry::Entry;
use crate::entries::store::{EntrySet, EntryStore};
use crate::entries::tools::unique;
use crate::error::Result;
use crate::host::{Embedder, LogEvent, LogLevel, Logger, Timer};
use std::collections::HashMap;

/// The most distinct query terms a ranked search scores.
pub const MAX_QUERY_TERMS: usize = 64;

/// One entry a search may return, with its vector of the embedder's model when it has one.
#[derive(Debug, Clone, Copy)]
pub struct Candidate<'a> {
    /// The entry.
    pub entry: &'a Entry,
    /// Its vector (quantized), when stored for the embedder's model, with its squared norm when
    /// the store keeps it ready ([`vectors::norm2`]; else it is computed here).
    pub vector: Option<(&'a [i8], Option<i64>)>,
    /// Its analysed form, when the store keeps one ready (else it is analysed here).
    pub doc: Option<&'a AnalyzedDoc>,
}

/// The distinct analyzed terms of a query, at most [`MAX_QUERY_TERMS`].
pub fn query_terms(analyzer: &Analyzer, query: &str) -> Vec<String> {
    let mut seen = std::collections::HashSet::new();
    let mut terms = analyzer.terms(query);
    terms.retain(|t| seen.insert(t.clone()));
    terms.truncate(MAX_QUERY_TERMS);
    terms
}

/// Rank `candidates` for `query` in a ranked mode (`ranked`, or `hybrid` when `query_vector` is
/// given): the candidates' indexes, best first, at most `limit`. Candidates should be unique by
/// id; ties are broken by id whatever their order. `terms` mode is not ranked here (see
/// [`super::matches_terms`]); it is treated as `ranked`.
pub fn rank(
    candidates: &[Candidate<'_>],
    query: &str,
    query_vector: Option<&[i8]>,
    config: &SearchConfig,
    limit: usize,
) -> Vec<usize> {
    // Every list below indexes `candidates`; ties are put in id order on the (short) lists of
    // hits, never by sorting every candidate.
    let ids: Vec<IdKey> = candidates.iter().map(|c| IdKey::of(&c.entry.id)).collect();
    let analyzer = Analyzer::new(config.language);
    let terms = query_terms(&analyzer, query);
    let fresh: Vec<Option<AnalyzedDoc>> = candidates
        .iter()
        .map(|c| match c.doc {
            Some(_) => None,
            None => Some(AnalyzedDoc::new(
                &analyzer,
                &c.entry.key,
                &value_text(&c.entry.value),
            )),
        })
        .collect();
    let refs: Vec<&AnalyzedDoc> = candidates
        .iter()
        .zip(&fresh)
        .filter_map(|(c, f)| c.doc.or(f.as_ref()))
        .collect();
    // Each list is sorted by score and index first (plain float comparisons), so the sort by
    // score and id after it mostly meets sorted runs.
    let mut lexical = bm25::rank(&terms, &refs, Floor::DEFAULT);
    sort_ranked(&mut lexical, &ids);
    let lexical: Vec<usize> = lexical.into_iter().map(|s| s.index).collect();
    let semantic: Vec<usize> = match (config.mode, query_vector) {
        (SearchMode::Hybrid, Some(q)) => {
            let (positions, vecs): (Vec<usize>, Vec<vectors::Normed<'_>>) = candidates
                .iter()
                .enumerate()
                .filter_map(|(p, c)| c.vector.map(|v| (p, v)))
                .unzip();
            let mut scored: Vec<Scored> = vectors::rank_normed(q, &vecs, DEFAULT_COSINE_FLOOR)
                .into_iter()
                .filter_map(|s| {
                    positions.get(s.index).map(|&index| Scored {
                        index,
                        score: s.score,
                    })
                })
                .collect();
            sort_ranked(&mut scored, &ids);
            scored.into_iter().map(|s| s.index).collect()
        }
        _ => Vec::new(),
    };
    let ranked: Vec<usize> = if semantic.is_empty() {
        lexical
    } else {
        let mut fused: Vec<Scored> = rrf(&[&lexical, &semantic], RRF_K)
            .into_iter()
            .map(|(index, score)| Scored { index, score })
            .collect();
        sort_ranked(&mut fused, &ids);
        fused.into_iter().map(|s| s.index).collect()
    };
    ranked.into_iter().take(limit).collect()
}

/// The embedder a hybrid search embeds its query with, and where it reports degradations.
pub struct SearchHosts<'a, E, T, L> {
    /// The embedder, when one is configured.
    pub embedding: Option<Embedding<'a, E, T>>,
    /// The log of degradations (`memory.search.lexical-only`).
    pub log: &'a L,
}

/// Search one user's entries in a ranked mode: the entries `shown` accepts, ranked by [`rank`],
/// at most `limit`, best first; a query without terms finds nothing and is not embedded. In `hybrid` mode the query is embedded first; without an
/// embedder, a store that keeps no vectors, or a failed query embedding, the search ranks
/// lexically and says so in the log (`memory.search.lexical-only`: once per reason for the
/// first two, every time for a failure). A store failure is the error.
pub async fn ranked_search<S, E, T, L>(
    store: &S,
    hosts: &SearchHosts<'_, E, T, L>,
    user_id: &str,
    query: &str,
    config: &SearchConfig,
    limit: usize,
    shown: impl Fn(&Entry) -> bool,
) -> Result<Vec<Entry>>
where
    S: EntryStore,
    E: Embedder,
    T: Timer,
    L: Logger,
{
    // A query without terms (empty, punctuation only) matches nothing in every mode (SPEC
    // §2.5), and is not embedded.
    if super::search_terms(query).is_empty() {
        return Ok(Vec::new());
    }
    let query_vector = match (config.mode, &hosts.embedding) {
        (SearchMode::Hybrid, Some(embedding)) => match embedding.query(query).await {
            Ok(v) => Some((v, embedding.spec.model.as_str())),
            Err(error) => {
                lexical_only(
                    hosts.log,
                    user_id,
                    "the query embedding failed",
                    Some(&error),
                );
                None
            }
        },
        (SearchMode::Hybrid, None) => {
            once("no-embedder", || {
                lexical_only(hosts.log, user_id, "no embedder is configured", None)
            });
            None
        }
        _ => None,
    };
    let model = query_vector.as_ref().map(|(_, m)| *m);
    let q = query_vector.as_ref().map(|(v, _)| v.as_slice());
    let analyzer = Analyzer::new(config.language);
    let over = |set: &EntrySet| {
        let candidates: Vec<Candidate> = set
            .ranked(model, &analyzer)
            .filter(|(e, _, _)| shown(e))
            .map(|(entry, vector, doc)| Candidate {
                entry,
                vector: vector.map(|(v, n)| (v, Some(n))),
                doc,
            })
            .collect();
        rank(&candidates, query, q, config, limit)
            .into_iter()
            .filter_map(|i| candidates.get(i).map(|c| c.entry.clone()))
            .collect::<Vec<Entry>>()
    };
    if let Some(found) = store.with_entries(user_id, over) {
        return Ok(found);
    }
    if let Some(ranked) = store.with_search_index(user_id, model, over).await? {
        // A mirror: what it ranked is read again, as the store holds it now, and shown only
        // when it still belongs to the user and passes the caller's visibility.
        let mut found = Vec::with_capacity(ranked.len());
        for entry in ranked {
            if let Some(now) = store.get(&entry.id).await? {
                if now.user_id == user_id && shown(&now) {
                    found.push(now);
                }
            }
        }
        return Ok(found);
    }
    let entries = unique(store.list(user_id).await?);
    let stored = match model {
        Some(model) => match store.vectors(user_id, model).await {
            Ok(Some(stored)) => Some(stored),
            Ok(None) => {
                once("no-vectors", || {
                    lexical_only(hosts.log, user_id, "the store keeps no vectors", None)
                });
                None
            }
            Err(error) => {
                lexical_only(
                    hosts.log,
                    user_id,
                    "the store's vectors failed",
                    Some(&error),
                );
                None
            }
        },
        None => None,
    };
    let by_id: HashMap<&str, &[i8]> = stored
        .iter()
        .flatten()
        .map(|v| (v.id.as_str(), v.vector.as_slice()))
        .collect();
    let candidates: Vec<Candidate> = entries
        .iter()
        .filter(|e| e.user_id == user_id && shown(e))
        .map(|entry| Candidate {
            entry,
            vector: by_id.get(entry.id.as_str()).map(|&v| (v, None)),
            doc: None,
        })
        .collect();
    Ok(rank(&candidates, query, q, config, limit)
        .into_iter()
        .filter_map(|i| candidates.get(i).map(|c| c.entry.clone()))
        .collect())
}

thread_local! {
    static SAID: std::cell::RefCell<std::collections::HashSet<&'static str>> = Default::default();
}

/// Run `say` the first time `reason` comes up in this instance.
fn once(reason: &'static str, say: impl FnOnce()) {
    let first = SAID.with(|s| {
        s.try_borrow_mut()
            .map(|mut s| s.insert(reason))
            .unwrap_or(false)
    });
    if first {
        say();
    }
}

fn lexical_only<L: Logger>(log: &L, user_id: &str, reason: &str, error: Option<&crate::Error>) {
    let mut fields = serde_json::Map::new();
    fields.insert("reason".into(), reason.into());
    if let Some(error) = error {
        fields.insert("code".into(), error.code.as_str().into());
        fields.insert("message".into(), crate::secrets::error_text(error).into());
    }
    log.log(&LogEvent {
        level: if error.is_some() {
            LogLevel::Warn
        } else {
            LogLevel::Info
        },
        event: "memory.search.lexical-only".into(),
        user_id: Some(user_id.to_string()),
        fields,
    });
}
