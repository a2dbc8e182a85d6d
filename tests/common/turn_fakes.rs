//! Fakes for the turn pipeline: a versioned in-memory `ProfileStore` with fault and conflict
//! injection, a model driven by a closure that records requests, a recording notifier that can
//! be told to fail, a recording logger, a stepping clock, and a join-all executor over futures
//! that really interleave (every fake can pend once before it completes).

use chrono::{DateTime, Duration, Utc};
use memcore::error::Result;
use memcore::host::{
    Clock, Completion, CompletionRequest, LanguageModel, LogEvent, Logger, Notice, Notifier,
    ProfileStore, StoredText, Usage, WriteOptions,
};
use memcore::{Error, ErrorCode};
use std::cell::{Cell, RefCell};
use std::collections::HashMap;
use std::future::Future;
use std::pin::Pin;
use std::rc::Rc;
use std::sync::Arc;
use std::task::{Context, Poll, Wake, Waker};

/// A future that is `Pending` once (waking itself) and then ready: makes the fakes yield, so
/// concurrently driven turns interleave at every host call.
pub struct YieldOnce(bool);

impl Future for YieldOnce {
    type Output = ();
    fn poll(mut self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<()> {
        if self.0 {
            Poll::Ready(())
        } else {
            self.0 = true;
            cx.waker().wake_by_ref();
            Poll::Pending
        }
    }
}

/// Yield once when `pend` is set.
pub async fn maybe_yield(pend: bool) {
    if pend {
        YieldOnce(false).await;
    }
}

struct NoopWake;
impl Wake for NoopWake {
    fn wake(self: Arc<Self>) {}
}

/// Drive every future round-robin until all are done; panics after `limit` rounds (a hang).
pub fn join_all<F: Future>(futures: Vec<F>) -> Vec<F::Output> {
    let waker = Waker::from(Arc::new(NoopWake));
    let mut cx = Context::from_waker(&waker);
    let mut pinned: Vec<Pin<Box<F>>> = futures.into_iter().map(Box::pin).collect();
    let mut outputs: Vec<Option<F::Output>> = pinned.iter().map(|_| None).collect();
    for _ in 0..100_000 {
        let mut pending = false;
        for (future, output) in pinned.iter_mut().zip(outputs.iter_mut()) {
            if output.is_some() {
                continue;
            }
            match future.as_mut().poll(&mut cx) {
                Poll::Ready(out) => *output = Some(out),
                Poll::Pending => pending = true,
            }
        }
        if !pending {
            return outputs.into_iter().map(|o| o.unwrap()).collect();
        }
    }
    panic!("join_all: futures did not finish (deadlock?)");
}

#[derive(Default)]
pub struct StoreState {
    pub files: HashMap<String, (String, u64)>,
    pub next_version: u64,
    pub writes: Vec<(String, String, WriteOptions)>,
    pub reads: u32,
    pub roots: Vec<String>,
    pub removed: Vec<String>,
}

/// A versioned in-memory profile store, shared by clones (two `ContextMemory` instances over one
/// store stand for two processes).
#[derive(Clone, Default)]
pub struct VersionedStore {
    pub state: Rc<RefCell<StoreState>>,
    /// Fail these operations (`read`, `write`, `remove`, `ensureRoot`) with `E_HOST`.
    pub fail: Rc<RefCell<Vec<&'static str>>>,
    /// The next this many writes fail with `E_VERSION_CONFLICT` (and bump the stored version, as
    /// if another process had written the same text).
    pub inject_conflicts: Rc<Cell<u32>>,
    /// Answer `version: None` and ignore `ifVersion` (a host without versions).
    pub unversioned: Rc<Cell<bool>>,
    /// Every operation pends once.
    pub pend: Rc<Cell<bool>>,
    /// These operations never settle (a hung host callback).
    pub hang: Rc<RefCell<Vec<&'static str>>>,
}

impl VersionedStore {
    pub fn with(path: &str, text: &str) -> Self {
        let store = VersionedStore::default();
        store.put(path, text);
        store
    }
    /// Set a file directly (bumps the version).
    pub fn put(&self, path: &str, text: &str) {
        let mut state = self.state.borrow_mut();
        state.next_version += 1;
        let version = state.next_version;
        state
            .files
            .insert(path.to_string(), (text.to_string(), version));
    }
    pub fn text(&self, path: &str) -> Option<String> {
        self.state.borrow().files.get(path).map(|(t, _)| t.clone())
    }
    pub fn write_count(&self) -> usize {
        self.state.borrow().writes.len()
    }
    async fn hang_if(&self, op: &str) {
        if self.hang.borrow().contains(&op) {
            std::future::pending::<()>().await;
        }
    }
    fn check(&self, op: &str) -> Result<()> {
        if self.fail.borrow().contains(&op) {
            return Err(Error::new(
                ErrorCode::Host,
                format!("storage {op} unavailable"),
            ));
        }
        Ok(())
    }
}

impl ProfileStore for VersionedStore {
    async fn read(&self, path: &str) -> Result<Option<StoredText>> {
        maybe_yield(self.pend.get()).await;
        self.hang_if("read").await;
        self.check("read")?;
        let mut state = self.state.borrow_mut();
        state.reads += 1;
        Ok(state.files.get(path).map(|(text, version)| StoredText {
            text: text.clone(),
            version: if self.unversioned.get() {
                None
            } else {
                Some(format!("v{version}"))
            },
        }))
    }
    async fn write(
        &self,
        path: &str,
        text: &str,
        options: &WriteOptions,
    ) -> Result<Option<String>> {
        maybe_yield(self.pend.get()).await;
        self.hang_if("write").await;
        self.check("write")?;
        let mut state = self.state.borrow_mut();
        if self.inject_conflicts.get() > 0 {
            self.inject_conflicts.set(self.inject_conflicts.get() - 1);
            state.next_version += 1;
            let version = state.next_version;
            if let Some(file) = state.files.get_mut(path) {
                file.1 = version;
            }
            return Err(Error::new(ErrorCode::VersionConflict, "version conflict"));
        }
        // Like the bundled adapters: `ifAbsent` → nothing may exist; `ifVersion` → the version
        // must still match; neither → unconditional.
        let current = state.files.get(path).map(|(_, v)| format!("v{v}"));
        if options.if_absent && current.is_some() {
            return Err(Error::new(ErrorCode::VersionConflict, "already exists"));
        }
        if !self.unversioned.get() && options.if_version.is_some() && options.if_version != current
        {
            return Err(Error::new(ErrorCode::VersionConflict, "version conflict"));
        }
        state.next_version += 1;
        let version = state.next_version;
        state
            .files
            .insert(path.to_string(), (text.to_string(), version));
        state
            .writes
            .push((path.to_string(), text.to_string(), options.clone()));
        Ok(if self.unversioned.get() {
            None
        } else {
            Some(format!("v{version}"))
        })
    }
    async fn remove(&self, path: &str) -> Result<()> {
        maybe_yield(self.pend.get()).await;
        self.hang_if("remove").await;
        self.check("remove")?;
        let mut state = self.state.borrow_mut();
        state.files.remove(path);
        state.removed.push(path.to_string());
        Ok(())
    }
    async fn ensure_root(&self, root_folder: &str) -> Result<()> {
        maybe_yield(self.pend.get()).await;
        self.hang_if("ensureRoot").await;
        self.check("ensureRoot")?;
        self.state.borrow_mut().roots.push(root_folder.to_string());
        Ok(())
    }
}

type Answer = Box<dyn Fn(&CompletionRequest) -> Result<String>>;

/// A model answering through a closure, recording every request; usage 10 in / 2 out.
pub struct FnModel {
    pub answer: Answer,
    pub requests: RefCell<Vec<CompletionRequest>>,
    pub pend: Cell<bool>,
    /// While set, every call waits (re-polled); a call that is never released never settles.
    pub held: Rc<Cell<bool>>,
}

impl FnModel {
    pub fn new(answer: impl Fn(&CompletionRequest) -> Result<String> + 'static) -> Self {
        FnModel {
            answer: Box::new(answer),
            requests: RefCell::new(Vec::new()),
            pend: Cell::new(false),
            held: Rc::new(Cell::new(false)),
        }
    }
    /// Fixed answers for the gate and the consolidation (condense answers like consolidate).
    pub fn scripted(gate: &str, consolidate: &str) -> Self {
        let gate = gate.to_string();
        let consolidate = consolidate.to_string();
        FnModel::new(move |request| {
            Ok(match request.purpose {
                memcore::host::Purpose::Gate => gate.clone(),
                _ => consolidate.clone(),
            })
        })
    }
    pub fn purposes(&self) -> Vec<memcore::host::Purpose> {
        self.requests.borrow().iter().map(|r| r.purpose).collect()
    }
}

impl LanguageModel for FnModel {
    async fn complete(&self, request: &CompletionRequest) -> Result<Completion> {
        self.requests.borrow_mut().push(request.clone());
        maybe_yield(self.pend.get()).await;
        while self.held.get() {
            YieldOnce(false).await;
        }
        let text = (self.answer)(request)?;
        Ok(Completion {
            text,
            usage: Some(Usage {
                input_tokens: 10,
                output_tokens: 2,
            }),
        })
    }
}

/// Records notices; fails every call (after recording it) when `fail` is set; never settles
/// when `hang` is set.
#[derive(Default)]
pub struct RecordingNotifier {
    pub notices: RefCell<Vec<Notice>>,
    pub fail: Cell<bool>,
    pub hang: Cell<bool>,
}

impl Notifier for RecordingNotifier {
    async fn on_notice(&self, notice: &Notice) -> Result<()> {
        self.notices.borrow_mut().push(notice.clone());
        if self.hang.get() {
            std::future::pending::<()>().await;
        }
        if self.fail.get() {
            return Err(Error::new(ErrorCode::Host, "notice sink broke"));
        }
        Ok(())
    }
}

/// Records log events.
#[derive(Default)]
pub struct RecordingLogger {
    pub events: RefCell<Vec<LogEvent>>,
}

impl RecordingLogger {
    pub fn names(&self) -> Vec<String> {
        self.events
            .borrow()
            .iter()
            .map(|e| e.event.clone())
            .collect()
    }
}

impl Logger for RecordingLogger {
    fn log(&self, event: &LogEvent) {
        self.events.borrow_mut().push(event.clone());
    }
}

/// A clock that starts at a fixed instant and advances `step_ms` on every read.
pub struct StepClock {
    pub now: Cell<DateTime<Utc>>,
    pub step_ms: i64,
}

impl StepClock {
    pub fn at(rfc3339: &str, step_ms: i64) -> Self {
        StepClock {
            now: Cell::new(super::parse_time(rfc3339)),
            step_ms,
        }
    }
}

impl Clock for StepClock {
    fn now(&self) -> DateTime<Utc> {
        let now = self.now.get();
        self.now.set(now + Duration::milliseconds(self.step_ms));
        now
    }
}

/// A timer whose deadline has always passed: a host call that is not ready when first polled
/// times out at once (deterministic timeouts without a clock).
pub struct ExpiredTimer;

impl memcore::host::Timer for ExpiredTimer {
    async fn sleep(&self, _ms: u64) {}
}

/// A timer that fires only once `fired` is set.
#[derive(Clone, Default)]
pub struct ManualTimer {
    pub fired: Rc<Cell<bool>>,
}

impl memcore::host::Timer for ManualTimer {
    async fn sleep(&self, _ms: u64) {
        while !self.fired.get() {
            YieldOnce(false).await;
        }
    }

    /// Deadlines fire by hand; the core's own waits (the conflict backoff) pass at once.
    async fn pause(&self, _ms: u64) {}
}

/// The ids of a test `ContextMemory`: it has no entry store, so it never learns an entry.
pub struct SeqIds;

impl memcore::host::IdSource for SeqIds {
    fn new_id(&self) -> String {
        "learned-id".to_string()
    }
}

/// The clock, ids, timer and log of a test `ContextMemory` ([`memcore::host::Parts`]).
pub type TestHost<Ti = memcore::host::NoTimer> =
    memcore::host::Parts<StepClock, SeqIds, Ti, RecordingLogger>;

/// The [`TestHost`] of a test: `clock` and `timer`, ids that never run out, a recording log.
pub fn test_host<Ti>(clock: StepClock, timer: Ti) -> TestHost<Ti> {
    memcore::host::Parts {
        clock,
        ids: SeqIds,
        timer,
        logger: RecordingLogger::default(),
        embedder: memcore::host::NoEmbedder,
    }
}

/// The hosts of a test `ContextMemory`: the fakes above, with the counter and the timer of the
/// test's choice, and no entry store.
pub struct FakeHosts<T = super::WordCounter, Ti = memcore::host::NoTimer> {
    pub store: VersionedStore,
    pub model: Option<FnModel>,
    pub counter: T,
    pub notifier: RecordingNotifier,
    pub host: TestHost<Ti>,
}

impl<T: memcore::host::TokenCounter, Ti: memcore::host::Timer> memcore::turn::TurnHost
    for FakeHosts<T, Ti>
{
    type Store = VersionedStore;
    type Model = FnModel;
    type Counter = T;
    type Notifier = RecordingNotifier;
    type Entries = memcore::turn::NoEntries;
    type Host = TestHost<Ti>;

    fn store(&self) -> &VersionedStore {
        &self.store
    }
    fn entries(&self) -> Option<&memcore::turn::NoEntries> {
        None
    }
    fn embedder(&self) -> Option<&memcore::entries::embedding::EmbedderSpec> {
        None
    }
    fn model(&self) -> Option<&FnModel> {
        self.model.as_ref()
    }
    fn counter(&self) -> &T {
        &self.counter
    }
    fn notifier(&self) -> &RecordingNotifier {
        &self.notifier
    }
    fn host(&self) -> &TestHost<Ti> {
        &self.host
    }
}
