//! Test fakes shared by the entry tests: an in-memory, fault-injecting `EntryStore`, a settable
//! clock, a counter id source and a tiny executor for futures that never pend.
#![allow(dead_code)]

use chrono::{DateTime, Utc};
use memcore::entries::store::{
    AtomicWrites, EpisodeStore, HistoryStore, InProcess, PushDown, VectorStore,
};
use memcore::entries::{Entry, EntryStore};
use memcore::host::{Clock, IdSource};
use memcore::{Error, ErrorCode};
use serde_json::{json, Map, Value};
use std::cell::{Cell, RefCell};
use std::future::Future;
use std::pin::pin;
use std::sync::Arc;
use std::task::{Context, Poll, Wake, Waker};

pub mod dream_fakes;
pub mod turn_fakes;

struct NoopWake;
impl Wake for NoopWake {
    fn wake(self: Arc<Self>) {}
}

/// Drive a future whose awaits are all ready (the fakes never pend).
pub fn block_on<F: Future>(future: F) -> F::Output {
    let waker = Waker::from(Arc::new(NoopWake));
    let mut cx = Context::from_waker(&waker);
    let mut future = pin!(future);
    loop {
        if let Poll::Ready(out) = future.as_mut().poll(&mut cx) {
            return out;
        }
    }
}

/// In-memory store; operations named in `fail` answer `E_HOST: database unavailable`.
#[derive(Default)]
pub struct MemStore {
    pub entries: RefCell<Vec<Entry>>,
    pub fail: RefCell<Vec<String>>,
}

impl MemStore {
    pub fn with(entries: Vec<Entry>) -> Self {
        MemStore {
            entries: RefCell::new(entries),
            fail: RefCell::new(Vec::new()),
        }
    }
    fn check(&self, op: &str) -> memcore::error::Result<()> {
        if self.fail.borrow().iter().any(|f| f == op) {
            return Err(Error::new(ErrorCode::Host, "database unavailable"));
        }
        Ok(())
    }
    pub fn snapshot(&self) -> Vec<Entry> {
        self.entries.borrow().clone()
    }
}

impl EntryStore for MemStore {
    async fn list(&self, user_id: &str) -> memcore::error::Result<Vec<Entry>> {
        self.check("list")?;
        Ok(self
            .entries
            .borrow()
            .iter()
            .filter(|e| e.user_id == user_id)
            .cloned()
            .collect())
    }
    async fn get(&self, id: &str) -> memcore::error::Result<Option<Entry>> {
        self.check("get")?;
        Ok(self.entries.borrow().iter().find(|e| e.id == id).cloned())
    }
    async fn upsert(&self, entry: &Entry) -> memcore::error::Result<()> {
        self.check("upsert")?;
        let mut entries = self.entries.borrow_mut();
        match entries.iter_mut().find(|e| e.id == entry.id) {
            Some(slot) => *slot = entry.clone(),
            None => entries.push(entry.clone()),
        }
        Ok(())
    }
    async fn delete(&self, id: &str) -> memcore::error::Result<bool> {
        self.check("delete")?;
        let mut entries = self.entries.borrow_mut();
        let before = entries.len();
        entries.retain(|e| e.id != id);
        Ok(entries.len() != before)
    }
    async fn increment_access(&self, ids: &[String]) -> memcore::error::Result<()> {
        self.check("incrementAccess")?;
        for e in self.entries.borrow_mut().iter_mut() {
            if ids.contains(&e.id) {
                e.access_count += 1;
            }
        }
        Ok(())
    }
}

impl PushDown for MemStore {
    async fn search(
        &self,
        _user_id: &str,
        _query: &str,
    ) -> memcore::error::Result<Option<Vec<Entry>>> {
        self.check("search")?;
        Ok(None)
    }
}

impl AtomicWrites for MemStore {}

impl VectorStore for MemStore {}

impl HistoryStore for MemStore {}

impl EpisodeStore for MemStore {}

impl InProcess for MemStore {}

/// A clock the test sets.
pub struct TestClock(pub Cell<DateTime<Utc>>);

impl TestClock {
    pub fn at(rfc3339: &str) -> Self {
        TestClock(Cell::new(parse_time(rfc3339)))
    }
}

pub fn parse_time(rfc3339: &str) -> DateTime<Utc> {
    DateTime::parse_from_rfc3339(rfc3339)
        .map(|t| t.with_timezone(&Utc))
        .unwrap()
}

impl Clock for TestClock {
    fn now(&self) -> DateTime<Utc> {
        self.0.get()
    }
}

/// Ids `id-001`, `id-002`, …
#[derive(Default)]
pub struct CounterIds(pub Cell<u32>);

impl IdSource for CounterIds {
    fn new_id(&self) -> String {
        self.0.set(self.0.get() + 1);
        format!("id-{:03}", self.0.get())
    }
}

/// An entry from a partial JSON object: defaults fill what a vector leaves out.
pub fn entry_from(partial: &Value) -> Entry {
    let mut full: Map<String, Value> = json!({
        "userId": "u1",
        "category": "fact",
        "visibility": "global",
        "groupIds": [],
        "conflicted": false,
        "accessCount": 0,
        "createdAt": "2026-01-01T00:00:00Z",
        "updatedAt": "2026-01-01T00:00:00Z"
    })
    .as_object()
    .unwrap()
    .clone();
    for (k, v) in partial.as_object().unwrap() {
        full.insert(k.clone(), v.clone());
    }
    serde_json::from_value(Value::Object(full)).unwrap()
}

/// Whether every field of `partial` equals the entry's JSON field.
pub fn entry_matches(entry: &Entry, partial: &Value) -> bool {
    let full = serde_json::to_value(entry).unwrap();
    partial
        .as_object()
        .unwrap()
        .iter()
        .all(|(k, v)| full.get(k) == Some(v))
}

/// Load a vector file from `tests/vectors/entries/`.
pub fn vector(name: &str) -> Value {
    let path = format!(
        "{}/tests/vectors/entries/{name}",
        env!("CARGO_MANIFEST_DIR")
    );
    serde_json::from_str(&std::fs::read_to_string(&path).unwrap()).unwrap()
}

/// Every vector file of `tests/vectors/<dir>/`, by name.
pub fn vector_files(dir: &str) -> Vec<(String, Value)> {
    let path = format!("{}/tests/vectors/{dir}", env!("CARGO_MANIFEST_DIR"));
    let mut files: Vec<_> = std::fs::read_dir(&path)
        .unwrap()
        .map(|e| e.unwrap().path())
        .filter(|p| p.extension().is_some_and(|x| x == "json"))
        .collect();
    files.sort();
    files
        .into_iter()
        .map(|p| {
            let name = p.file_name().unwrap().to_string_lossy().to_string();
            (
                name,
                serde_json::from_str(&std::fs::read_to_string(&p).unwrap()).unwrap(),
            )
        })
        .collect()
}

/// One token per Unicode scalar value: the most fine-grained counter (budget fitting tests).
pub struct CharCounter;

impl memcore::host::TokenCounter for CharCounter {
    fn count(&self, text: &str) -> memcore::error::Result<usize> {
        Ok(text.chars().count())
    }
}

/// One token per whitespace-separated word: a counter where most cuts change nothing.
pub struct WordCounter;

impl memcore::host::TokenCounter for WordCounter {
    fn count(&self, text: &str) -> memcore::error::Result<usize> {
        Ok(text.split_whitespace().count())
    }
}

/// A model that gives one scripted answer to every request and records the requests.
pub struct ScriptedModel {
    pub answer: memcore::error::Result<memcore::host::Completion>,
    pub requests: RefCell<Vec<memcore::host::CompletionRequest>>,
}

impl ScriptedModel {
    /// Answers `text` with usage 100 in / 50 out.
    pub fn answering(text: &str) -> Self {
        ScriptedModel {
            answer: Ok(memcore::host::Completion {
                text: text.to_string(),
                usage: Some(memcore::host::Usage {
                    input_tokens: 100,
                    output_tokens: 50,
                }),
            }),
            requests: RefCell::new(Vec::new()),
        }
    }

    /// Fails every call with `E_HOST: model unavailable`.
    pub fn failing() -> Self {
        ScriptedModel {
            answer: Err(Error::new(ErrorCode::Host, "model unavailable")),
            requests: RefCell::new(Vec::new()),
        }
    }
}

impl memcore::host::LanguageModel for ScriptedModel {
    async fn complete(
        &self,
        request: &memcore::host::CompletionRequest,
    ) -> memcore::error::Result<memcore::host::Completion> {
        self.requests.borrow_mut().push(request.clone());
        self.answer.clone()
    }
}

/// The author and history settings of a test's REST-style writes ([`Writing::writer`]).
pub struct Writing {
    pub author: memcore::entries::history::Author,
    pub history: memcore::entries::config::HistoryConfig,
}

impl Default for Writing {
    fn default() -> Self {
        Writing {
            author: memcore::entries::history::Author::new(
                memcore::entries::history::AuthorKind::Rest,
                None,
            ),
            history: Default::default(),
        }
    }
}

impl Writing {
    /// The writer of these settings, dated by `clock`.
    pub fn writer<'a, C: memcore::host::Clock>(
        &'a self,
        clock: &'a C,
    ) -> memcore::entries::history::Writer<'a, C> {
        memcore::entries::history::Writer {
            clock,
            history: &self.history,
            author: &self.author,
        }
    }
}

/// The [`memcore::host::Host`] of a test without deadlines, log or embedder: `clock` and `ids`.
pub fn plain_host<C: Clock, I: IdSource>(
    clock: C,
    ids: I,
) -> memcore::host::Parts<C, I, memcore::host::NoTimer, memcore::host::NoLogger> {
    memcore::host::Parts {
        clock,
        ids,
        timer: memcore::host::NoTimer,
        logger: memcore::host::NoLogger,
        embedder: memcore::host::NoEmbedder,
    }
}

/// One tool call over `store` with `clock` and `ids` (no embedder, no deadline, no log).
pub async fn call_tool_on<S: EntryStore, C: Clock, I: IdSource>(
    session: &mut memcore::entries::tools::ToolSession,
    store: &S,
    clock: &C,
    ids: &I,
    name: &str,
    args: Option<&Value>,
) -> memcore::entries::tools::ToolAnswer {
    let host = plain_host(clock, ids);
    let hosts: memcore::host::Hosts<'_, S, _> = memcore::host::Hosts {
        entries: store,
        host: &host,
        model: None,
        embedder: None,
    };
    memcore::entries::tools::call_tool(session, &hosts, name, args).await
}
