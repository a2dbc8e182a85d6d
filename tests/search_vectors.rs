//! Exact ranks of a fixed corpus per search mode, with vectors made once by the real model
//! (`tests/vectors/search/embeddings.json`, all-MiniLM-L6-v2 int8): the expected ids per query and
//! mode are `tests/vectors/search/ranks.json`, which `tests/js/search-vectors.test.mjs` replays
//! through the package on every store. `BLESS=1 cargo test --test search_vectors` rewrites it
//! (review the diff: a rank that moves is a behaviour change).

mod common;

use common::block_on;
use memcore::entries::config::parse_user_memory_config;
use memcore::entries::embedding::{EmbedderSpec, Embedding};
use memcore::entries::memories::search_user_memories_in;
use memcore::entries::search::modes::SearchHosts;
use memcore::entries::search::vectors::quantize;
use memcore::entries::store::VectorWrite;
use memcore::entries::{Entry, InMemoryEntryStore};
use memcore::host::{EmbedPurpose, Embedder, NoLogger, NoTimer};
use serde_json::{json, Map, Value};
use std::collections::HashMap;

const DIR: &str = concat!(env!("CARGO_MANIFEST_DIR"), "/tests/vectors/search/");

/// The committed vectors as an embedder: each known text answers its vector.
struct Recorded(HashMap<String, Vec<f32>>);

impl Embedder for Recorded {
    async fn embed(
        &self,
        texts: &[String],
        _purpose: EmbedPurpose,
    ) -> memcore::error::Result<Vec<Vec<f32>>> {
        texts
            .iter()
            .map(|t| {
                self.0.get(t).cloned().ok_or_else(|| {
                    memcore::Error::new(memcore::ErrorCode::Host, format!("no vector for {t:?}"))
                })
            })
            .collect()
    }
}

fn floats(v: &Value) -> Vec<f32> {
    v.as_array()
        .unwrap()
        .iter()
        .map(|x| x.as_f64().unwrap() as f32)
        .collect()
}

/// The ranks of every query in every mode, for one language: `{ query: { mode: [ids] } }`.
fn ranks(corpus: &Value, language: &str) -> Value {
    let store = InMemoryEntryStore::new();
    let mut texts = HashMap::new();
    for e in corpus["entries"].as_array().unwrap() {
        let entry = Entry::new_global(
            e["id"].as_str().unwrap().into(),
            "u1",
            e["key"].as_str().unwrap(),
            e["value"].clone(),
            "fact",
            "2026-12-01T10:00:00.000Z".into(),
        );
        store.upsert_now(&entry).unwrap();
        let vector = quantize(&floats(&e["vector"])).unwrap();
        let write = VectorWrite {
            id: &entry.id,
            key: &entry.key,
            value: &entry.value,
            model: corpus["model"].as_str().unwrap(),
            vector: &vector,
        };
        assert_eq!(store.put_vectors_now(&[write]).unwrap(), 1);
    }
    for q in corpus["queries"].as_array().unwrap() {
        texts.insert(q["q"].as_str().unwrap().to_string(), floats(&q["vector"]));
    }
    let embedder = Recorded(texts);
    let spec = EmbedderSpec {
        model: corpus["model"].as_str().unwrap().into(),
        dimensions: Some(384),
        max_batch: 32,
        timeout_ms: 1000,
    };
    let hosts = SearchHosts {
        embedding: Some(Embedding {
            host: &embedder,
            spec: &spec,
            timer: &NoTimer,
        }),
        log: &NoLogger,
    };
    let mut out = Map::new();
    for q in corpus["queries"].as_array().unwrap() {
        let query = q["q"].as_str().unwrap();
        let mut modes = Map::new();
        for mode in ["terms", "ranked", "hybrid"] {
            let config = parse_user_memory_config(
                &json!({ "search": { "mode": mode, "language": language } }),
            )
            .unwrap();
            let found = block_on(search_user_memories_in(
                &store,
                &hosts,
                "u1",
                query,
                &config.search,
                Some(10),
            ))
            .unwrap();
            let ids: Vec<Value> = found.iter().map(|e| Value::from(e.id.as_str())).collect();
            modes.insert(mode.into(), Value::Array(ids));
        }
        out.insert(query.into(), Value::Object(modes));
    }
    Value::Object(out)
}

#[test]
fn the_committed_corpus_ranks_exactly_as_recorded_in_every_mode() {
    let corpus: Value =
        serde_json::from_str(&std::fs::read_to_string(format!("{DIR}embeddings.json")).unwrap())
            .unwrap();
    let mut all = Map::new();
    for language in ["en", "de", "fr"] {
        all.insert(language.into(), ranks(&corpus, language));
    }
    let got = json!({
        "about": "Expected ids per query, search mode and search.language over tests/vectors/search/embeddings.json (user u1, every entry global, limit 10). Written by BLESS=1 cargo test --test search_vectors; replayed by tests/js/search-vectors.test.mjs on every store.",
        "ranks": Value::Object(all),
    });
    let path = format!("{DIR}ranks.json");
    if std::env::var_os("BLESS").is_some() {
        std::fs::write(&path, serde_json::to_string_pretty(&got).unwrap() + "\n").unwrap();
    }
    let want: Value = serde_json::from_str(&std::fs::read_to_string(&path).unwrap()).unwrap();
    assert_eq!(got, want, "ranks changed: review and BLESS=1");
    // What the ranks say about quality, pinned: hybrid answers at least 19 of the 20 queries in
    // its top 5 (the miss: "What does the user drive?" is under the cosine floor for `car: …`),
    // and finds at least as many first as ranked does.
    let ranks = &got["ranks"]["en"];
    let mut first = HashMap::new();
    let mut top5_hits = 0;
    for q in corpus["queries"].as_array().unwrap() {
        let query = q["q"].as_str().unwrap();
        let answers: Vec<String> = q["answers"]
            .as_array()
            .unwrap()
            .iter()
            .map(|a| a.as_str().unwrap().to_string())
            .collect();
        let key_of = |id: &Value| {
            corpus["entries"]
                .as_array()
                .unwrap()
                .iter()
                .find(|e| &e["id"] == id)
                .map(|e| e["key"].as_str().unwrap().to_string())
        };
        for mode in ["ranked", "hybrid"] {
            let ids = ranks[query][mode].as_array().unwrap();
            let hit1 = ids
                .first()
                .and_then(key_of)
                .is_some_and(|k| answers.contains(&k));
            *first.entry(mode).or_insert(0) += usize::from(hit1);
            if mode == "hybrid" {
                let top5 = ids
                    .iter()
                    .take(5)
                    .filter_map(key_of)
                    .any(|k| answers.contains(&k));
                top5_hits += usize::from(top5);
            }
        }
    }
    assert!(
        top5_hits >= 19,
        "hybrid answers {top5_hits} of 20 in its top 5"
    );
    assert!(first["hybrid"] >= first["ranked"], "{first:?}");
}
