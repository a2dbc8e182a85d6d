//! Search modes and embeddings (SPEC §8.2) through the core's public API: the `searchMemory`
//! tool in `ranked` and `hybrid` mode, vectors kept in step with writes, embedder failures that
//! never fail a write, model changes that never mix, `reindex`, and `relevant_memories` within
//! its budget. The embedder is a deterministic fake (hashed words), the store the bundled
//! in-memory one, or an over-returning wrapper that must not widen what an agent sees.

mod common;

use common::*;
use memcore::entries::config::parse_user_memory_config;
use memcore::entries::embedding::{reindex, store_vectors, EmbedderSpec, Embedding};
use memcore::entries::relevant::{fit_section, relevant_memories, RelevantQuery, RELEVANT_HEADING};
use memcore::entries::search::modes::SearchHosts;
use memcore::entries::store::{
    AtomicWrites, EpisodeStore, HistoryStore, InProcess, PushDown, VectorStore,
};
use memcore::entries::store::{StoredVector, UnembeddedQuery, VectorWrite};
use memcore::entries::tools::{call_tool, ToolSession};
use memcore::entries::{Entry, EntryStore, InMemoryEntryStore, UserMemoryConfig};
use memcore::host::{EmbedPurpose, Embedder, LogEvent, Logger, NoTimer};
use memcore::{Error, ErrorCode};
use serde_json::{json, Value};
use std::cell::{Cell, RefCell};

/// A deterministic embedder: each word (lowercased, split like search) adds 1 to one of 32
/// dimensions chosen by its hash, with a few synonyms mapped to the same dimension.
struct WordHash {
    calls: Cell<usize>,
    fail: Cell<Option<&'static str>>,
}

impl WordHash {
    fn new() -> Self {
        WordHash {
            calls: Cell::new(0),
            fail: Cell::new(None),
        }
    }
}

fn dim(word: &str) -> usize {
    let word = match word {
        "pet" | "pets" | "dogs" | "puppy" | "retriever" => "dog",
        "called" | "named" => "name",
        other => other,
    };
    word.bytes()
        .fold(7usize, |h, b| h.wrapping_mul(31).wrapping_add(b as usize))
        % 32
}

impl Embedder for WordHash {
    async fn embed(
        &self,
        texts: &[String],
        _purpose: EmbedPurpose,
    ) -> memcore::error::Result<Vec<Vec<f32>>> {
        self.calls.set(self.calls.get() + 1);
        match self.fail.get() {
            Some("throw") => return Err(Error::new(ErrorCode::Host, "embedder down")),
            Some("few") => return Ok(vec![vec![1.0; 32]; texts.len().saturating_sub(1)]),
            Some("nan") => return Ok(vec![vec![f32::NAN; 32]; texts.len()]),
            Some("short") => return Ok(vec![vec![1.0; 31]; texts.len()]),
            Some("zero") => return Ok(vec![vec![0.0; 32]; texts.len()]),
            _ => {}
        }
        Ok(texts
            .iter()
            .map(|t| {
                let mut v = vec![0.0f32; 32];
                for w in t
                    .split(|c: char| !c.is_alphanumeric())
                    .filter(|w| !w.is_empty())
                {
                    if let Some(x) = v.get_mut(dim(&w.to_lowercase())) {
                        *x += 1.0;
                    }
                }
                v
            })
            .collect())
    }
}

#[derive(Default)]
struct Log(RefCell<Vec<LogEvent>>);

impl Logger for Log {
    fn log(&self, event: &LogEvent) {
        self.0.borrow_mut().push(event.clone());
    }
}

impl Log {
    fn events(&self) -> Vec<String> {
        self.0.borrow().iter().map(|e| e.event.clone()).collect()
    }
}

fn spec(model: &str) -> EmbedderSpec {
    EmbedderSpec {
        model: model.to_string(),
        dimensions: Some(32),
        max_batch: 4,
        timeout_ms: 1000,
    }
}

fn config(mode: &str) -> UserMemoryConfig {
    parse_user_memory_config(&json!({ "search": { "mode": mode } })).unwrap()
}

fn session(mode: &str) -> ToolSession {
    ToolSession::new(config(mode), "u1", "a1").unwrap()
}

fn call(
    session: &mut ToolSession,
    store: &impl EntryStore,
    hosts: &SearchHosts<'_, WordHash, NoTimer, Log>,
    tool: &str,
    args: Value,
) -> String {
    let unused = WordHash::new();
    let embedding = hosts.embedding.as_ref();
    let host = memcore::host::Parts {
        clock: TestClock::at("2026-12-01T10:00:00Z"),
        ids: Ids(Cell::new(store_count(store))),
        timer: NoTimer,
        logger: hosts.log,
        embedder: embedding.map_or(&unused, |e| e.host),
    };
    let hosts: memcore::host::Hosts<'_, _, _> = memcore::host::Hosts {
        entries: store,
        host: &host,
        model: None,
        embedder: embedding.map(|e| e.spec),
    };
    block_on(call_tool(session, &hosts, tool, Some(&args))).text
}

/// Ids that never repeat across calls of one test: they continue from the store's size.
struct Ids(Cell<usize>);
impl memcore::host::IdSource for Ids {
    fn new_id(&self) -> String {
        self.0.set(self.0.get() + 1);
        format!("e{:03}", self.0.get())
    }
}

fn store_count(store: &impl EntryStore) -> usize {
    block_on(store.list("u1")).map(|l| l.len()).unwrap_or(0) + 100
}

fn remember(
    session: &mut ToolSession,
    store: &impl EntryStore,
    hosts: &SearchHosts<'_, WordHash, NoTimer, Log>,
    key: &str,
    value: &str,
) {
    let answer = call(
        session,
        store,
        hosts,
        "rememberFact",
        json!({"key": key, "value": value, "category": "fact", "visibility": "global"}),
    );
    assert!(answer.starts_with("✅ Remembered"), "{answer}");
    session.writes_this_turn = 0;
}

#[test]
fn config_reads_the_search_block_and_names_bad_fields() {
    let c = parse_user_memory_config(
        &json!({ "search": { "mode": "hybrid", "language": "de", "limit": 5 } }),
    )
    .unwrap();
    assert_eq!(
        serde_json::to_value(&c.search).unwrap(),
        json!({ "mode": "hybrid", "language": "de", "limit": 5 })
    );
    let d = UserMemoryConfig::default();
    assert_eq!(
        serde_json::to_value(&d.search).unwrap(),
        json!({ "mode": "auto", "language": "en", "limit": 10 })
    );
    for (bad, path) in [
        (json!({ "mode": "fuzzy" }), "search.mode"),
        (json!({ "language": "xx" }), "search.language"),
        (json!({ "limit": 0 }), "search.limit"),
        (json!({ "limit": 1001 }), "search.limit"),
        (json!("ranked"), "search"),
    ] {
        let e = parse_user_memory_config(&json!({ "search": bad })).unwrap_err();
        assert_eq!(e.code, ErrorCode::Config);
        assert!(e.message.starts_with(&format!("{path}:")), "{}", e.message);
    }
}

#[test]
fn hybrid_tools_store_vectors_in_step_with_writes() {
    let store = InMemoryEntryStore::new();
    let embedder = WordHash::new();
    let log = Log::default();
    let spec = spec("hash-32");
    let hosts = SearchHosts {
        embedding: Some(Embedding {
            host: &embedder,
            spec: &spec,
            timer: &NoTimer,
        }),
        log: &log,
    };
    let mut s = session("hybrid");
    remember(
        &mut s,
        &store,
        &hosts,
        "dog_name",
        "Rex, a golden retriever",
    );
    remember(&mut s, &store, &hosts, "favorite_color", "teal");
    let vectors = store.vectors_now("u1", "hash-32").unwrap();
    assert_eq!(vectors.len(), 2);
    assert!(store.vectors_now("u1", "other-model").unwrap().is_empty());
    // A changed value gets a new vector; an unchanged one keeps it.
    let id = store
        .list_now("u1")
        .unwrap()
        .into_iter()
        .find(|e| e.key == "favorite_color")
        .unwrap()
        .id;
    let before = vectors.iter().find(|v| v.id == id).unwrap().vector.clone();
    remember(&mut s, &store, &hosts, "favorite_color", "dark red");
    let after = store.vectors_now("u1", "hash-32").unwrap();
    let changed = after.iter().find(|v| v.id == id).unwrap();
    assert_ne!(changed.vector, before);
    // Forgetting removes the vector with the entry.
    let answer = call(
        &mut s,
        &store,
        &hosts,
        "forgetFact",
        json!({"key": "favorite_color"}),
    );
    assert_eq!(answer, "✅ Forgotten: favorite_color");
    assert_eq!(store.vectors_now("u1", "hash-32").unwrap().len(), 1);
    assert!(log.events().is_empty(), "{:?}", log.events());
}

#[test]
fn a_vector_is_kept_only_while_its_entry_has_the_text_it_was_made_from() {
    let store = InMemoryEntryStore::new();
    let mut e = Entry::new_global(
        "x1".into(),
        "u1",
        "k",
        json!("v"),
        "fact",
        "2026-12-01T10:00:00.000Z".into(),
    );
    store.upsert_now(&e).unwrap();
    let v = [1i8, 2, 3];
    fn write<'a>(value: &'a Value, v: &'a [i8]) -> VectorWrite<'a> {
        VectorWrite {
            id: "x1",
            key: "k",
            value,
            model: "m",
            vector: v,
        }
    }
    assert_eq!(
        store
            .put_vectors_now(&[write(&json!("other"), &v)])
            .unwrap(),
        0,
        "a stale vector is refused"
    );
    assert_eq!(store.put_vectors_now(&[write(&json!("v"), &v)]).unwrap(), 1);
    // A write that keeps key and value keeps the vector (a category change).
    e.category = "preference".into();
    store.upsert_now(&e).unwrap();
    assert_eq!(
        store.vectors_now("u1", "m").unwrap(),
        vec![StoredVector {
            id: "x1".into(),
            vector: v.to_vec()
        }]
    );
    // A new value clears it.
    e.value = json!("w");
    store.upsert_now(&e).unwrap();
    assert!(store.vectors_now("u1", "m").unwrap().is_empty());
    let q = UnembeddedQuery {
        model: "m",
        user_id: Some("u1"),
        after: None,
        limit: 10,
    };
    assert_eq!(store.unembedded_now(&q).unwrap().len(), 1);
}

#[test]
fn embedder_failures_never_fail_a_write_and_are_reported() {
    for failure in ["throw", "few", "nan", "short", "zero"] {
        let store = InMemoryEntryStore::new();
        let embedder = WordHash::new();
        embedder.fail.set(Some(failure));
        let log = Log::default();
        let spec = spec("hash-32");
        let hosts = SearchHosts {
            embedding: Some(Embedding {
                host: &embedder,
                spec: &spec,
                timer: &NoTimer,
            }),
            log: &log,
        };
        let mut s = session("hybrid");
        remember(&mut s, &store, &hosts, "dog_name", "Rex");
        assert_eq!(
            store.list_now("u1").unwrap().len(),
            1,
            "{failure}: the entry is stored"
        );
        assert!(
            store.vectors_now("u1", "hash-32").unwrap().is_empty(),
            "{failure}"
        );
        assert_eq!(log.events(), vec!["memory.embedding.failed"], "{failure}");
        // The search still finds it lexically, and says why it ranked without vectors.
        let found = call(
            &mut s,
            &store,
            &hosts,
            "searchMemory",
            json!({"query": "dog"}),
        );
        assert_eq!(found, "• dog_name = Rex [fact, global]", "{failure}");
        assert!(
            log.events()
                .contains(&"memory.search.lexical-only".to_string()),
            "{failure}"
        );
        // Later, a working embedder fills it in.
        embedder.fail.set(None);
        let embedding = Embedding {
            host: &embedder,
            spec: &spec,
            timer: &NoTimer,
        };
        let done = block_on(reindex(&store, &embedding, &log, Some("u1"))).unwrap();
        assert_eq!((done.embedded, done.missing), (1, 0), "{failure}");
        assert_eq!(store.vectors_now("u1", "hash-32").unwrap().len(), 1);
    }
}

#[test]
fn a_changed_model_never_mixes_vectors_and_reindex_replaces_them() {
    let store = InMemoryEntryStore::new();
    let embedder = WordHash::new();
    let log = Log::default();
    let old = spec("hash-32-v1");
    let hosts = SearchHosts {
        embedding: Some(Embedding {
            host: &embedder,
            spec: &old,
            timer: &NoTimer,
        }),
        log: &log,
    };
    let mut s = session("hybrid");
    remember(
        &mut s,
        &store,
        &hosts,
        "dog_name",
        "Rex, a golden retriever",
    );
    remember(&mut s, &store, &hosts, "home_city", "Lisbon");
    let new = spec("hash-32-v2");
    let hosts = SearchHosts {
        embedding: Some(Embedding {
            host: &embedder,
            spec: &new,
            timer: &NoTimer,
        }),
        log: &log,
    };
    // With the new model no old vector is scored: a query only the vectors would match finds nothing.
    assert_eq!(
        call(
            &mut s,
            &store,
            &hosts,
            "searchMemory",
            json!({"query": "puppy"})
        ),
        "No memories matching 'puppy' found."
    );
    let embedding = Embedding {
        host: &embedder,
        spec: &new,
        timer: &NoTimer,
    };
    let done = block_on(reindex(&store, &embedding, &log, None)).unwrap();
    assert_eq!(done.embedded, 2);
    assert_eq!(store.vectors_now("u1", "hash-32-v2").unwrap().len(), 2);
    assert!(
        store.vectors_now("u1", "hash-32-v1").unwrap().is_empty(),
        "replaced, not kept beside"
    );
    assert_eq!(
        call(
            &mut s,
            &store,
            &hosts,
            "searchMemory",
            json!({"query": "puppy"})
        ),
        "• dog_name = Rex, a golden retriever [fact, global]"
    );
}

#[test]
fn hybrid_without_an_embedder_ranks_by_words_and_terms_mode_is_unchanged() {
    let store = InMemoryEntryStore::new();
    let log = Log::default();
    let none: SearchHosts<WordHash, NoTimer, Log> = SearchHosts {
        embedding: None,
        log: &log,
    };
    let mut s = session("terms");
    remember(&mut s, &store, &none, "dog_name", "Rex");
    remember(&mut s, &store, &none, "cat_name", "Tom");
    assert_eq!(
        call(
            &mut s,
            &store,
            &none,
            "searchMemory",
            json!({"query": "dog name"})
        ),
        "• dog_name = Rex [fact, global]"
    );
    assert_eq!(
        call(
            &mut s,
            &store,
            &none,
            "searchMemory",
            json!({"query": "name dog cat"})
        ),
        "No memories matching 'name dog cat' found."
    );
    let mut h = session("hybrid");
    let found = call(
        &mut h,
        &store,
        &none,
        "searchMemory",
        json!({"query": "name dog cat"}),
    );
    assert_eq!(found.lines().count(), 2, "{found}");
    assert_eq!(
        call(
            &mut h,
            &store,
            &none,
            "searchMemory",
            json!({"query": "!!!"})
        ),
        "No memories matching '!!!' found."
    );
}

/// A store that answers every user's entries to every list, and vectors of them all.
struct OverReturning(InMemoryEntryStore);

impl EntryStore for OverReturning {
    async fn list(&self, _user_id: &str) -> memcore::error::Result<Vec<Entry>> {
        let mut all = self.0.list_now("u1")?;
        all.extend(self.0.list_now("u2")?);
        Ok(all)
    }
    async fn get(&self, id: &str) -> memcore::error::Result<Option<Entry>> {
        self.0.get_now(id)
    }
    async fn upsert(&self, entry: &Entry) -> memcore::error::Result<()> {
        self.0.upsert_now(entry)
    }
    async fn delete(&self, id: &str) -> memcore::error::Result<bool> {
        self.0.delete_now(id)
    }
    async fn increment_access(&self, ids: &[String]) -> memcore::error::Result<()> {
        self.0.increment_access_now(ids)
    }
}

impl PushDown for OverReturning {}

impl AtomicWrites for OverReturning {}

impl VectorStore for OverReturning {
    async fn vectors(
        &self,
        _user_id: &str,
        model: &str,
    ) -> memcore::error::Result<Option<Vec<StoredVector>>> {
        let mut all = self.0.vectors_now("u1", model)?;
        all.extend(self.0.vectors_now("u2", model)?);
        Ok(Some(all))
    }
    async fn put_vectors(&self, rows: &[VectorWrite<'_>]) -> memcore::error::Result<Option<usize>> {
        self.0.put_vectors_now(rows).map(Some)
    }
}

impl HistoryStore for OverReturning {}

impl EpisodeStore for OverReturning {}

impl InProcess for OverReturning {}

#[test]
fn a_store_that_over_returns_never_widens_what_an_agent_sees() {
    let inner = InMemoryEntryStore::new();
    let mut mine = Entry::new_global(
        "m1".into(),
        "u1",
        "dog_name",
        json!("Rex"),
        "fact",
        "2026-12-01T10:00:00.000Z".into(),
    );
    inner.upsert_now(&mine).unwrap();
    let mut other_user = mine.clone();
    other_user.id = "o1".into();
    other_user.user_id = "u2".into();
    other_user.value = json!("Fido");
    inner.upsert_now(&other_user).unwrap();
    mine.id = "s1".into();
    mine.visibility = "self".into();
    mine.source_agent_id = Some("a2".into());
    mine.value = json!("Bello");
    inner.upsert_now(&mine).unwrap();
    let store = OverReturning(inner);
    let embedder = WordHash::new();
    let log = Log::default();
    let spec = spec("hash-32");
    let embedding = Embedding {
        host: &embedder,
        spec: &spec,
        timer: &NoTimer,
    };
    let all: Vec<Entry> = block_on(store.list("u1")).unwrap();
    block_on(store_vectors(&store, &embedding, &log, &all));
    let hosts = SearchHosts {
        embedding: Some(embedding),
        log: &log,
    };
    for mode in ["ranked", "hybrid"] {
        let mut s = session(mode);
        let found = call(
            &mut s,
            &store,
            &hosts,
            "searchMemory",
            json!({"query": "what is my dog called"}),
        );
        assert_eq!(found, "• dog_name = Rex [fact, global]", "{mode}");
    }
}

#[test]
fn relevant_memories_fit_their_budget_exactly() {
    let store = InMemoryEntryStore::new();
    let embedder = WordHash::new();
    let log = Log::default();
    let spec = spec("hash-32");
    let hosts = SearchHosts {
        embedding: Some(Embedding {
            host: &embedder,
            spec: &spec,
            timer: &NoTimer,
        }),
        log: &log,
    };
    let mut s = session("hybrid");
    remember(
        &mut s,
        &store,
        &hosts,
        "dog_name",
        "Rex, a golden retriever",
    );
    remember(&mut s, &store, &hosts, "dog_age", "4 years");
    remember(&mut s, &store, &hosts, "home_city", "Lisbon");
    let query = |max_tokens| RelevantQuery {
        user_id: "u1",
        agent_id: "a1",
        group: None,
        query: "tell me about my dog",
        max_tokens,
        limit: 10,
        search: config("hybrid").search,
        episodes: false,
    };
    let all = block_on(relevant_memories(
        &store,
        &hosts,
        &CharCounter,
        &query(10_000),
    ))
    .unwrap();
    assert!(
        all.section
            .starts_with(&format!("{RELEVANT_HEADING}\n• dog_")),
        "{}",
        all.section
    );
    assert_eq!(all.tokens, all.section.chars().count());
    assert!(all.entries.iter().all(|e| e.key.starts_with("dog")) || all.entries.len() == 3);
    for budget in [0, 10, 40, 60, all.tokens] {
        let cut = block_on(relevant_memories(
            &store,
            &hosts,
            &CharCounter,
            &query(budget),
        ))
        .unwrap();
        assert!(cut.tokens <= budget, "{budget}: {}", cut.tokens);
        assert_eq!(cut.tokens, cut.section.chars().count());
        assert_eq!(cut.section.is_empty(), cut.entries.is_empty());
    }
    let none = fit_section(Vec::new(), 100, &CharCounter).unwrap();
    assert_eq!((none.section.as_str(), none.tokens), ("", 0));
}

/// A store outside the process with a search index that is deliberately stale: the mirror holds
/// the entries as they were, the store as they are now. The core must rank the mirror (never
/// list) and return the entries as `get` answers them, re-checked.
struct Mirrored {
    now: InMemoryEntryStore,
    mirror: InMemoryEntryStore,
    listed: Cell<usize>,
}

impl EntryStore for Mirrored {
    async fn list(&self, user_id: &str) -> memcore::error::Result<Vec<Entry>> {
        self.listed.set(self.listed.get() + 1);
        self.now.list_now(user_id)
    }
    async fn get(&self, id: &str) -> memcore::error::Result<Option<Entry>> {
        self.now.get_now(id)
    }
    async fn upsert(&self, entry: &Entry) -> memcore::error::Result<()> {
        self.now.upsert_now(entry)
    }
    async fn delete(&self, id: &str) -> memcore::error::Result<bool> {
        self.now.delete_now(id)
    }
    async fn increment_access(&self, ids: &[String]) -> memcore::error::Result<()> {
        self.now.increment_access_now(ids)
    }
}

impl PushDown for Mirrored {}

impl AtomicWrites for Mirrored {}

impl VectorStore for Mirrored {}

impl HistoryStore for Mirrored {}

impl EpisodeStore for Mirrored {}

impl InProcess for Mirrored {
    async fn with_search_index<R>(
        &self,
        user_id: &str,
        _model: Option<&str>,
        f: impl FnOnce(&memcore::entries::EntrySet) -> R,
    ) -> memcore::error::Result<Option<R>> {
        Ok(self.mirror.with_entries(user_id, f))
    }
}

#[test]
fn a_search_index_is_ranked_and_what_it_returns_is_read_again_and_re_checked() {
    let e = |id: &str, key: &str, value: &str, extra: Value| {
        let mut partial = json!({ "id": id, "key": key, "value": value, "sourceAgentId": "a1" });
        for (k, v) in extra.as_object().unwrap() {
            partial[k] = v.clone();
        }
        entry_from(&partial)
    };
    let store = Mirrored {
        now: InMemoryEntryStore::new(),
        mirror: InMemoryEntryStore::new(),
        listed: Cell::new(0),
    };
    let stale = [
        e("e1", "dog_name", "Rex the dog", json!({})),
        e("e2", "dog_food", "the dog eats kibble", json!({})),
        e("e3", "dog_walker", "Ana walks the dog", json!({})),
        e("e4", "cat_name", "Tom", json!({})),
    ];
    for entry in &stale {
        store.mirror.upsert_now(entry).unwrap();
        store.now.upsert_now(entry).unwrap();
    }
    // Since the mirror was made: e1 was recalled twice, e2 deleted, e3 made another agent's own.
    store
        .now
        .increment_access_now(&["e1".into(), "e1".into()])
        .unwrap();
    store.now.delete_now("e2").unwrap();
    store
        .now
        .upsert_now(&e(
            "e3",
            "dog_walker",
            "Ana walks the dog",
            json!({ "visibility": "self", "sourceAgentId": "a2" }),
        ))
        .unwrap();
    let log = Log::default();
    let hosts: SearchHosts<WordHash, NoTimer, Log> = SearchHosts {
        embedding: None,
        log: &log,
    };
    let mut s = session("ranked");
    let answer = call(
        &mut s,
        &store,
        &hosts,
        "searchMemory",
        json!({ "query": "dog" }),
    );
    assert_eq!(answer, "• dog_name = Rex the dog [fact, global]");
    // (The test's `call` lists once to number its ids.)
    assert_eq!(
        store.listed.get(),
        1,
        "the index is ranked, the store never listed"
    );
    let config = config("ranked");
    let found = block_on(memcore::entries::memories::search_user_memories_in(
        &store,
        &hosts,
        "u1",
        "dog",
        &config.search,
        None,
    ))
    .unwrap();
    let ids: Vec<&str> = found.iter().map(|e| e.id.as_str()).collect();
    assert_eq!(
        ids,
        ["e1", "e3"],
        "the deleted entry is gone; the owner sees every visibility"
    );
    assert_eq!(store.listed.get(), 1);
    assert_eq!(
        found[0].access_count, 2,
        "the entry as the store holds it now"
    );
    assert_eq!(found[1].visibility, "self");
}
