//! Fakes for Dream: a counting, fault-injecting wrapper over any `EntryStore` (per-operation
//! failures for the vectors; "the k-th operation fails" or "stops after the k-th operation"
//! for fault injection), a scripted model that records its requests, an id source, and a
//! driver that gives up on a future that stopped making progress (a crash).

use memcore::entries::store::{
    AtomicWrites, EpisodeStore, HistoryStore, InProcess, PushDown, VectorStore,
};
use memcore::entries::{Entry, EntryStore};
use memcore::error::Result;
use memcore::host::{Completion, CompletionRequest, IdSource, LanguageModel};
use memcore::{Error, ErrorCode};
use std::cell::{Cell, RefCell};
use std::collections::HashMap;
use std::future::Future;
use std::pin::pin;
use std::sync::Arc;
use std::task::{Context, Poll, Wake, Waker};

/// Which calls of one operation fail.
#[derive(Debug, Clone, PartialEq)]
pub enum FailOn {
    /// Every call.
    All,
    /// These calls (1-based).
    Nth(Vec<usize>),
}

/// A fault at one operation of the whole run (counted across operations, 1-based).
#[derive(Debug, Clone, Copy, PartialEq)]
pub enum Fault {
    /// Nothing fails.
    None,
    /// Operation `k` fails; with `applied`, after taking effect (a write that happened but
    /// whose answer was lost).
    FailAt { k: usize, applied: bool },
    /// Operation `k` completes, then nothing ever answers again (the process died).
    CrashAfter { k: usize },
}

/// Counts and fails operations of an inner store.
pub struct Faulty<S> {
    pub inner: S,
    /// `(operation, argument)` of every call, in order.
    pub ops: RefCell<Vec<(String, String)>>,
    pub fails: RefCell<HashMap<String, FailOn>>,
    pub fault: Cell<Fault>,
    per_op: RefCell<HashMap<String, usize>>,
}

impl<S> Faulty<S> {
    pub fn new(inner: S) -> Self {
        Faulty {
            inner,
            ops: RefCell::new(Vec::new()),
            fails: RefCell::new(HashMap::new()),
            fault: Cell::new(Fault::None),
            per_op: RefCell::new(HashMap::new()),
        }
    }

    /// Calls of one operation.
    pub fn count(&self, op: &str) -> usize {
        self.ops.borrow().iter().filter(|(o, _)| o == op).count()
    }

    /// Operations so far.
    pub fn total(&self) -> usize {
        self.ops.borrow().len()
    }

    /// Record a call; what it must do.
    fn enter(&self, op: &str, arg: &str) -> Step {
        let k = {
            let mut ops = self.ops.borrow_mut();
            ops.push((op.to_string(), arg.to_string()));
            ops.len()
        };
        let nth = {
            let mut per = self.per_op.borrow_mut();
            let n = per.entry(op.to_string()).or_insert(0);
            *n += 1;
            *n
        };
        let listed = match self.fails.borrow().get(op) {
            Some(FailOn::All) => true,
            Some(FailOn::Nth(list)) => list.contains(&nth),
            None => false,
        };
        match self.fault.get() {
            Fault::CrashAfter { k: last } if k > last => Step::Hang,
            Fault::FailAt { k: at, applied } if k == at => {
                if applied {
                    Step::ApplyThenFail
                } else {
                    Step::Fail
                }
            }
            _ if listed => Step::Fail,
            _ => Step::Run,
        }
    }
}

enum Step {
    Run,
    Fail,
    ApplyThenFail,
    Hang,
}

fn unavailable() -> Error {
    Error::new(ErrorCode::Host, "database unavailable")
}

impl<S: EntryStore> Faulty<S> {
    async fn run<R>(
        &self,
        op: &str,
        arg: &str,
        call: impl Future<Output = Result<R>>,
    ) -> Result<R> {
        match self.enter(op, arg) {
            Step::Run => call.await,
            Step::Fail => Err(unavailable()),
            Step::ApplyThenFail => {
                let _ = call.await;
                Err(unavailable())
            }
            Step::Hang => std::future::pending().await,
        }
    }
}

impl<S: EntryStore> EntryStore for Faulty<S> {
    async fn list(&self, user_id: &str) -> Result<Vec<Entry>> {
        self.run("list", user_id, self.inner.list(user_id)).await
    }
    async fn get(&self, id: &str) -> Result<Option<Entry>> {
        self.run("get", id, self.inner.get(id)).await
    }
    async fn upsert(&self, entry: &Entry) -> Result<()> {
        self.run("upsert", &entry.id, self.inner.upsert(entry))
            .await
    }
    async fn delete(&self, id: &str) -> Result<bool> {
        self.run("delete", id, self.inner.delete(id)).await
    }
    async fn increment_access(&self, ids: &[String]) -> Result<()> {
        self.run("incrementAccess", "", self.inner.increment_access(ids))
            .await
    }
}

impl<S: EntryStore> PushDown for Faulty<S> {}

impl<S: EntryStore> AtomicWrites for Faulty<S> {}

impl<S: EntryStore> VectorStore for Faulty<S> {}

impl<S: EntryStore> HistoryStore for Faulty<S> {
    fn keeps_history(&self) -> bool {
        self.inner.keeps_history()
    }
    async fn append_history(
        &self,
        append: &memcore::entries::history::HistoryAppend<'_>,
    ) -> Result<bool> {
        self.run(
            "appendHistory",
            append.user_id,
            self.inner.append_history(append),
        )
        .await
    }
    async fn versions(
        &self,
        query: &memcore::entries::history::VersionQuery<'_>,
    ) -> Result<Option<Vec<memcore::entries::history::Version>>> {
        self.run("versions", query.user_id, self.inner.versions(query))
            .await
    }
}

impl<S: EntryStore> EpisodeStore for Faulty<S> {}

impl<S: EntryStore> InProcess for Faulty<S> {}

/// A model's answer as a function of the request.
pub type AnswerFn = Box<dyn Fn(&CompletionRequest) -> Result<Completion>>;

/// A model answering from a script (the last answer repeats) or a function of the request.
pub struct ScriptModel {
    pub answers: Vec<Result<Completion>>,
    pub by_request: Option<AnswerFn>,
    pub requests: RefCell<Vec<CompletionRequest>>,
}

impl ScriptModel {
    pub fn new(answers: Vec<Result<Completion>>) -> Self {
        ScriptModel {
            answers,
            by_request: None,
            requests: RefCell::new(Vec::new()),
        }
    }
    pub fn from_fn(answer: impl Fn(&CompletionRequest) -> Result<Completion> + 'static) -> Self {
        ScriptModel {
            answers: Vec::new(),
            by_request: Some(Box::new(answer)),
            requests: RefCell::new(Vec::new()),
        }
    }
}

impl LanguageModel for ScriptModel {
    async fn complete(&self, request: &CompletionRequest) -> Result<Completion> {
        let n = {
            let mut requests = self.requests.borrow_mut();
            requests.push(request.clone());
            requests.len()
        };
        if let Some(answer) = &self.by_request {
            return answer(request);
        }
        self.answers
            .get(n - 1)
            .or(self.answers.last())
            .cloned()
            .unwrap_or_else(|| Err(Error::new(ErrorCode::Host, "no scripted answer")))
    }
}

/// Ids from a list, then `new-N`.
#[derive(Default)]
pub struct ListIds {
    pub list: Vec<String>,
    pub n: Cell<usize>,
}

impl IdSource for ListIds {
    fn new_id(&self) -> String {
        let n = self.n.get();
        self.n.set(n + 1);
        self.list
            .get(n)
            .cloned()
            .unwrap_or_else(|| format!("new-{}", n + 1))
    }
}

struct NoopWake;
impl Wake for NoopWake {
    fn wake(self: Arc<Self>) {}
}

/// Poll `future` until it is done, or give up (`None`) once a poll makes no progress — the fakes
/// only pend when a crash made them hang. Dropping the future is the crash.
pub fn until_stuck<F: Future>(future: F) -> Option<F::Output> {
    let waker = Waker::from(Arc::new(NoopWake));
    let mut cx = Context::from_waker(&waker);
    let mut future = pin!(future);
    for _ in 0..4 {
        if let Poll::Ready(out) = future.as_mut().poll(&mut cx) {
            return Some(out);
        }
    }
    None
}

/// A Dream test's hosts, owned by the test: the store, the model and the host's parts.
/// [`DreamSetup::hosts`] lends them as the core's `Hosts`, the way every operation takes them.
pub struct DreamSetup<S, M, C, I, T> {
    pub store: S,
    pub model: Option<M>,
    pub host: memcore::host::Parts<C, I, T, super::turn_fakes::RecordingLogger>,
}

impl<S, M, C, I, T> DreamSetup<S, M, C, I, T> {
    /// The hosts of one run (no embedder).
    pub fn hosts(
        &self,
    ) -> memcore::host::Hosts<
        '_,
        S,
        memcore::host::Parts<C, I, T, super::turn_fakes::RecordingLogger>,
        M,
    > {
        memcore::host::Hosts {
            entries: &self.store,
            host: &self.host,
            model: self.model.as_ref(),
            embedder: None,
        }
    }

    /// The run's log.
    pub fn logger(&self) -> &super::turn_fakes::RecordingLogger {
        &self.host.logger
    }
}
