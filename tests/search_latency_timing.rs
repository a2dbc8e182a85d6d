//! Native timing of one ranked and one hybrid search over 10,000 entries of one user in the
//! bundled in-memory store, through the public search function (ignored: run with
//! `cargo test --release --test search_latency_timing -- --ignored --nocapture`). Nothing is
//! asserted about time; the wasm numbers are `node bench/recall/quick-latency.mjs`.

mod common;

use common::block_on;
use memcore::entries::config::parse_user_memory_config;
use memcore::entries::embedding::{EmbedderSpec, Embedding};
use memcore::entries::memories::search_user_memories_in;
use memcore::entries::search::modes::SearchHosts;
use memcore::entries::search::vectors::quantize;
use memcore::entries::store::VectorWrite;
use memcore::entries::{Entry, InMemoryEntryStore};
use memcore::host::{EmbedPurpose, Embedder, LogEvent, Logger, NoTimer};
use serde_json::json;
use std::hint::black_box;
use std::time::Instant;

const D: usize = 384;
const WORDS: [&str; 15] = [
    "dog", "cat", "city", "work", "coffee", "trip", "friend", "car", "book", "music", "food",
    "sister", "doctor", "garden", "phone",
];

struct Fixed(Vec<f32>);
impl Embedder for Fixed {
    async fn embed(
        &self,
        texts: &[String],
        _purpose: EmbedPurpose,
    ) -> memcore::error::Result<Vec<Vec<f32>>> {
        Ok(texts.iter().map(|_| self.0.clone()).collect())
    }
}
struct Quiet;
impl Logger for Quiet {
    fn log(&self, _event: &LogEvent) {}
}

#[test]
#[ignore]
fn search_latency() {
    let mut seed = 21u32;
    let mut rnd = move || {
        seed = seed.wrapping_mul(1_103_515_245).wrapping_add(12345);
        seed as f32 / 4_294_967_296.0 - 0.5
    };
    let store = InMemoryEntryStore::new();
    let n = 10_000;
    for i in 0..n {
        let entry: Entry = serde_json::from_value(json!({
            "id": format!("e{i:06}"), "userId": "u1",
            "key": format!("{}_{i}", WORDS[i % 15]),
            "value": format!("{} {} note {i}", WORDS[(i * 7) % 15], WORDS[(i * 3) % 15]),
            "category": "fact", "visibility": "global",
            "createdAt": "2026-12-01T10:00:00.000Z", "updatedAt": "2026-12-01T10:00:00.000Z",
        }))
        .unwrap();
        let v: Vec<f32> = (0..D).map(|_| rnd()).collect();
        store.upsert_now(&entry).unwrap();
        let q = quantize(&v).unwrap();
        store
            .put_vectors_now(&[VectorWrite {
                id: &entry.id,
                key: &entry.key,
                value: &entry.value,
                model: "r",
                vector: &q,
            }])
            .unwrap();
    }
    let q: Vec<f32> = (0..D).map(|_| rnd()).collect();
    let embedder = Fixed(q);
    let spec = EmbedderSpec {
        model: "r".into(),
        dimensions: Some(D),
        max_batch: 256,
        timeout_ms: 1000,
    };
    let hosts = SearchHosts {
        embedding: Some(Embedding {
            host: &embedder,
            spec: &spec,
            timer: &NoTimer,
        }),
        log: &Quiet,
    };
    for mode in ["ranked", "hybrid"] {
        let config = parse_user_memory_config(&json!({ "search": { "mode": mode } })).unwrap();
        let run = || {
            block_on(search_user_memories_in(
                &store,
                &hosts,
                "u1",
                "what is my dog called",
                &config.search,
                Some(10),
            ))
            .unwrap()
        };
        black_box(run());
        let t = Instant::now();
        for _ in 0..50 {
            black_box(run());
        }
        println!("{mode}: {:?} per search over {n} entries", t.elapsed() / 50);
    }
}
