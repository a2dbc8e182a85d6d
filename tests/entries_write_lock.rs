//! The per-user write lock of the memory operations (SPEC §2.8): a delete-all and an upsert of
//! one user never interleave. Driven deterministically: every store call parks until the test
//! polls its caller again, and the test polls the two operations in turns, so without the lock
//! their store calls would alternate.

mod common;

use common::*;
use memcore::entries::config::UserMemoryConfig;
use memcore::entries::memories::{
    delete_all_user_memories, upsert_user_memory, MemoryWrites, UpsertOutcome,
};
use memcore::entries::store::{
    AtomicWrites, EpisodeStore, HistoryStore, InProcess, PushDown, VectorStore,
};
use memcore::entries::write_rules::Surface;
use memcore::entries::{Entry, EntryStore};
use serde_json::{json, Value};
use std::cell::RefCell;
use std::future::Future;
use std::pin::{pin, Pin};
use std::sync::Arc;
use std::task::{Context, Poll, Wake, Waker};

/// A store whose every call is logged when made and parks once before it answers.
struct Parking {
    inner: MemStore,
    log: RefCell<Vec<String>>,
}

/// Pending on the first poll, ready on the next: the caller is parked until polled again.
struct Park(bool);

impl Future for Park {
    type Output = ();
    fn poll(mut self: Pin<&mut Self>, _: &mut Context<'_>) -> Poll<()> {
        if self.0 {
            Poll::Ready(())
        } else {
            self.0 = true;
            Poll::Pending
        }
    }
}

impl Parking {
    fn seeded() -> Parking {
        Parking {
            inner: MemStore::with(vec![
                entry_from(&json!({"id": "e1", "key": "city", "value": "Lisbon"})),
                entry_from(&json!({"id": "e2", "key": "team", "value": "blue"})),
                entry_from(&json!({"id": "o1", "userId": "u2", "key": "city", "value": "Oslo"})),
            ]),
            log: RefCell::new(Vec::new()),
        }
    }
    async fn call(&self, what: String) {
        self.log.borrow_mut().push(what);
        Park(false).await;
    }
    fn log(&self) -> Vec<String> {
        self.log.borrow().clone()
    }
}

impl EntryStore for Parking {
    async fn list(&self, user_id: &str) -> memcore::error::Result<Vec<Entry>> {
        self.call(format!("list {user_id}")).await;
        self.inner.list(user_id).await
    }
    async fn get(&self, id: &str) -> memcore::error::Result<Option<Entry>> {
        self.call(format!("get {id}")).await;
        self.inner.get(id).await
    }
    async fn upsert(&self, entry: &Entry) -> memcore::error::Result<()> {
        self.call(format!("upsert {}", entry.key)).await;
        self.inner.upsert(entry).await
    }
    async fn delete(&self, id: &str) -> memcore::error::Result<bool> {
        self.call(format!("delete {id}")).await;
        self.inner.delete(id).await
    }
    async fn increment_access(&self, ids: &[String]) -> memcore::error::Result<()> {
        self.call("incrementAccess".to_string()).await;
        self.inner.increment_access(ids).await
    }
}

impl PushDown for Parking {}

impl AtomicWrites for Parking {}

impl VectorStore for Parking {}

impl HistoryStore for Parking {}

impl EpisodeStore for Parking {}

impl InProcess for Parking {}

struct NoWake;
impl Wake for NoWake {
    fn wake(self: Arc<Self>) {}
}

/// Poll `a` then `b`, in turns, until both are done.
fn in_turns<A: Future, B: Future>(a: A, b: B) -> (A::Output, B::Output) {
    let waker = Waker::from(Arc::new(NoWake));
    let mut cx = Context::from_waker(&waker);
    let (mut a, mut b) = (pin!(a), pin!(b));
    let (mut done_a, mut done_b) = (None, None);
    for _ in 0..1000 {
        if done_a.is_none() {
            if let Poll::Ready(out) = a.as_mut().poll(&mut cx) {
                done_a = Some(out);
            }
        }
        if done_b.is_none() {
            if let Poll::Ready(out) = b.as_mut().poll(&mut cx) {
                done_b = Some(out);
            }
        }
        if let (Some(_), Some(_)) = (&done_a, &done_b) {
            return (done_a.unwrap(), done_b.unwrap());
        }
    }
    panic!("the two operations did not finish");
}

fn request() -> Value {
    json!({"userId": "u1", "key": "city", "value": "Lyon", "visibility": "global"})
}

async fn upsert(
    writes: Option<&MemoryWrites>,
    store: &Parking,
    clock: &TestClock,
    ids: &CounterIds,
    config: &UserMemoryConfig,
    request: &Value,
) -> UpsertOutcome {
    let writing = Writing::default();
    let writer = writing.writer(clock);
    let outcome = match writes {
        Some(writes) => {
            let rest = Surface::Rest;
            writes
                .upsert(store, writer, ids, config, request, rest)
                .await
        }
        None => upsert_user_memory(store, writer, ids, config, request, Surface::Rest).await,
    };
    outcome.unwrap()
}

async fn delete_all(writes: Option<&MemoryWrites>, store: &Parking) -> u64 {
    let (writing, clock) = (Writing::default(), TestClock::at("2026-02-01T00:00:00Z"));
    let writer = writing.writer(&clock);
    match writes {
        Some(writes) => writes.delete_all(store, writer, "u1").await,
        None => delete_all_user_memories(store, writer, "u1").await,
    }
    .unwrap()
}

/// The store calls of each operation run alone on a fresh store: (delete-all's, upsert's).
fn alone() -> (Vec<String>, Vec<String>) {
    let (clock, ids) = (TestClock::at("2026-02-01T00:00:00Z"), CounterIds::default());
    let (config, request) = (UserMemoryConfig::default(), request());
    let store = Parking::seeded();
    in_turns(delete_all(None, &store), async {});
    let deletes = store.log();
    let store = Parking::seeded();
    in_turns(
        upsert(None, &store, &clock, &ids, &config, &request),
        async {},
    );
    (deletes, store.log())
}

#[test]
fn delete_all_and_upsert_of_one_user_never_interleave() {
    let (deletes, upserts) = alone();
    assert_eq!(deletes, ["list u1", "delete e1", "delete e2"]);
    assert_eq!(upserts, ["list u1", "upsert city"]);
    let (clock, ids) = (TestClock::at("2026-02-01T00:00:00Z"), CounterIds::default());
    let (config, request) = (UserMemoryConfig::default(), request());

    // Delete-all first: every one of its calls, then the upsert's, which finds no entry and inserts.
    let writes = MemoryWrites::default();
    let store = Parking::seeded();
    let (deleted, outcome) = in_turns(
        delete_all(Some(&writes), &store),
        upsert(Some(&writes), &store, &clock, &ids, &config, &request),
    );
    assert_eq!(deleted, 2);
    assert!(
        matches!(outcome, UpsertOutcome::Stored { created: true, .. }),
        "{outcome:?}"
    );
    // The upsert now creates the entry: the id the host made is checked free first (an entry id
    // belongs to one user).
    let creating = ["list u1", "get id-001", "upsert city"]
        .map(String::from)
        .to_vec();
    assert_eq!(store.log(), [deletes.clone(), creating].concat());
    let left: Vec<_> = store
        .inner
        .snapshot()
        .into_iter()
        .filter(|e| e.user_id == "u1")
        .collect();
    assert_eq!(left.len(), 1);
    assert_eq!(left[0].value, json!("Lyon"));

    // The upsert first: its calls, then delete-all's, which deletes what it wrote too.
    let writes = MemoryWrites::default();
    let store = Parking::seeded();
    let (outcome, deleted) = in_turns(
        upsert(Some(&writes), &store, &clock, &ids, &config, &request),
        delete_all(Some(&writes), &store),
    );
    assert!(
        matches!(outcome, UpsertOutcome::Stored { created: false, .. }),
        "{outcome:?}"
    );
    assert_eq!(deleted, 2);
    assert_eq!(&store.log()[..upserts.len()], &upserts[..]);
    assert_eq!(
        store.log()[upserts.len()..],
        ["list u1", "delete e1", "delete e2"]
    );
    assert!(store.inner.snapshot().iter().all(|e| e.user_id != "u1"));
}

#[test]
fn without_the_lock_the_same_two_operations_interleave() {
    // What the lock prevents: the same driving, the plain functions, and the calls alternate.
    let (deletes, upserts) = alone();
    let (clock, ids) = (TestClock::at("2026-02-01T00:00:00Z"), CounterIds::default());
    let (config, request) = (UserMemoryConfig::default(), request());
    let store = Parking::seeded();
    in_turns(
        delete_all(None, &store),
        upsert(None, &store, &clock, &ids, &config, &request),
    );
    assert_ne!(store.log(), [deletes, upserts.clone()].concat());
    assert_eq!(
        store.log()[..2],
        ["list u1".to_string(), upserts[0].clone()]
    );
}

#[test]
fn writes_of_different_users_do_not_wait_for_each_other() {
    let (clock, ids) = (TestClock::at("2026-02-01T00:00:00Z"), CounterIds::default());
    let config = UserMemoryConfig::default();
    let other = json!({"userId": "u2", "key": "team", "value": "red", "visibility": "global"});
    let writes = MemoryWrites::default();
    let store = Parking::seeded();
    in_turns(
        delete_all(Some(&writes), &store),
        upsert(Some(&writes), &store, &clock, &ids, &config, &other),
    );
    assert_eq!(
        store.log()[..2],
        ["list u1".to_string(), store.log()[1].clone()]
    );
    assert_ne!(
        store.log()[1],
        "delete e1",
        "u2's upsert ran beside u1's delete-all"
    );
}
