//! The search modes (behaviour §2.5, §8.2) over one set of candidates: `terms` is [`super`]'s rule;
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
use super::fusion::fuse;
use super::vectors::{self, DEFAULT_COSINE_FLOOR};
use super::{best_ranked, id_prefix, value_text, Scored, TieKey};
use crate::entries::config::{SearchConfig, SearchMode};
use crate::entries::embedding::Embedding;
use crate::entries::entry::Entry;
use crate::entries::store::{get_each, unique};
use crate::entries::store::{EntrySet, EntryStore};
use crate::entries::visibility::Audience;
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
    /// Its analysed form in the search's language, when the store keeps it ready (else it is
    /// analysed here).
    pub doc: Option<&'a AnalyzedDoc>,
    /// Its id's [`super::id_prefix`].
    pub id_prefix: u128,
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
/// given): their entries, best first, at most `limit`. The candidates are walked once (an
/// index lends them without copying them out first; `expected` is how many to make room for)
/// and should be unique by id; ties are broken by id whatever their order. `terms` mode is not
/// ranked here (see [`super::matches_terms`]); it is treated as `ranked`.
pub fn rank<'a>(
    candidates: impl Iterator<Item = Candidate<'a>>,
    expected: usize,
    query: &str,
    query_vector: Option<&[i8]>,
    config: &SearchConfig,
    limit: usize,
) -> Vec<&'a Entry> {
    let analyzer = Analyzer::new(config.language);
    let terms = query_terms(&analyzer, query);
    let scorer = match query_vector {
        Some(q) if config.mode.uses_embedder() => vectors::Scorer::new(q, DEFAULT_COSINE_FLOOR),
        _ => None,
    };
    // One walk: each candidate's entry, tie key and document, and its vector's score. Every
    // list below indexes these; ties are put in id order on the (short) lists of hits, never
    // by sorting every candidate.
    // (A candidate that comes without its analysis is analysed into `fresh`, its place in
    // `docs` held by `empty` until the walk is over.)
    let empty = AnalyzedDoc::default();
    let mut fresh: Vec<(usize, AnalyzedDoc)> = Vec::new();
    let mut entries: Vec<&Entry> = Vec::with_capacity(expected);
    let mut ids: Vec<TieKey> = Vec::with_capacity(expected);
    let mut docs: Vec<&AnalyzedDoc> = Vec::with_capacity(expected);
    let mut semantic: Vec<Scored> = Vec::with_capacity(if scorer.is_some() { expected } else { 0 });
    for (index, c) in candidates.enumerate() {
        entries.push(c.entry);
        ids.push(TieKey::with_prefix(&c.entry.id, c.id_prefix));
        docs.push(c.doc.unwrap_or_else(|| {
            let text = value_text(&c.entry.value);
            fresh.push((index, AnalyzedDoc::new(&analyzer, &c.entry.key, &text)));
            &empty
        }));
        if let (Some(scorer), Some((v, norm))) = (&scorer, c.vector) {
            if let Some(score) = scorer.score(v, norm) {
                semantic.push(Scored { index, score });
            }
        }
    }
    for (index, doc) in &fresh {
        if let Some(slot) = docs.get_mut(*index) {
            *slot = doc;
        }
    }
    let mut lexical = bm25::scores(&terms, &docs, Floor::DEFAULT);
    let order = if semantic.is_empty() {
        best_ranked(&mut lexical, &ids, limit);
        lexical.into_iter().map(|s| s.index).collect()
    } else {
        fuse(&[lexical, semantic], &ids, limit)
    };
    order
        .into_iter()
        .filter_map(|i| entries.get(i).copied())
        .collect()
}

/// The embedder a hybrid search embeds its query with, and where it reports degradations.
pub struct SearchHosts<'a, E, T, L> {
    /// The embedder, when one is configured.
    pub embedding: Option<Embedding<'a, E, T>>,
    /// The log of degradations (`memory.search.lexical-only`).
    pub log: &'a L,
}

/// Search one user's entries in a ranked mode: the entries `audience` is shown, ranked by [`rank`],
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
    audience: Audience<'_>,
) -> Result<Vec<Entry>>
where
    S: EntryStore,
    E: Embedder,
    T: Timer,
    L: Logger,
{
    // A query without terms (empty, punctuation only) matches nothing in every mode (behaviour
    // §2.5), and is not embedded.
    if super::search_terms(query).is_empty() {
        return Ok(Vec::new());
    }
    let query_vector = match (config.mode, &hosts.embedding) {
        (SearchMode::Hybrid | SearchMode::Auto, Some(embedding)) => {
            match embedding.query(query).await {
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
            }
        }
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
        let candidates =
            set.ranked(model, &analyzer, audience)
                .map(|(entry, vector, doc, prefix)| Candidate {
                    entry,
                    vector: vector.map(|(v, n)| (v, Some(n))),
                    doc,
                    id_prefix: prefix,
                });
        rank(candidates, set.len(), query, q, config, limit)
            .into_iter()
            .cloned()
            .collect::<Vec<Entry>>()
    };
    if let Some(found) = store.with_entries(user_id, over) {
        return Ok(found);
    }
    if let Some(ranked) = store.with_search_index(user_id, model, over).await? {
        // A mirror: what it ranked is read again, as the store holds it now (all at once), and
        // shown only when it still belongs to the user and passes the caller's visibility.
        let ids: Vec<&str> = ranked.iter().map(|e| e.id.as_str()).collect();
        let now = get_each(store, &ids).await?;
        return Ok(now
            .into_iter()
            .flatten()
            .filter(|now| now.user_id == user_id && audience.shows(now))
            .collect());
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
    let shown: Vec<&Entry> = entries
        .iter()
        .filter(|e| e.user_id == user_id && audience.shows(e))
        .collect();
    let candidates = shown.iter().map(|&entry| Candidate {
        entry,
        vector: by_id.get(entry.id.as_str()).map(|&v| (v, None)),
        doc: None,
        id_prefix: id_prefix(&entry.id),
    });
    Ok(rank(candidates, shown.len(), query, q, config, limit)
        .into_iter()
        .cloned()
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
