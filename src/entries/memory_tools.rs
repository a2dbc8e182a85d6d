//! The four tools of one agent turn as one object (behaviour §2.5), for hosts that hand them to a
//! model loop: calls run **one at a time, in call order**, so `maxWritesPerTurn` holds even when
//! the loop fires tool calls in parallel; every store call has a deadline, so a store that never
//! answers cannot hold the queue (the call answers `❌ Failed to … memory: store.list did not
//! answer within N ms`).

use super::config::UserMemoryConfig;
use super::embedding::EmbedderSpec;
use super::tools::{call_tool, tool_definitions_for, ToolAnswer, ToolSession};
use super::EntryStore;
use crate::host::{Host, Hosts, NoModel, Timed};
use crate::lock::UserLocks;
use crate::turn::config::MAX_TIMEOUT_MS;
use serde_json::Value;
use std::cell::{Cell, RefCell};

/// The default deadline of one entry-store call, in milliseconds.
pub const DEFAULT_STORE_TIMEOUT_MS: u64 = 10_000;

/// The deadline of each entry-store call from the `storeTimeoutMs` option: absent →
/// [`DEFAULT_STORE_TIMEOUT_MS`]; outside 1 ms – 1 h → `E_CONFIG` naming `storeTimeoutMs`.
pub fn store_timeout_ms(ms: Option<u64>) -> crate::error::Result<u64> {
    let ms = ms.unwrap_or(DEFAULT_STORE_TIMEOUT_MS);
    if (1..=MAX_TIMEOUT_MS).contains(&ms) {
        Ok(ms)
    } else {
        Err(crate::Error::config(
            "storeTimeoutMs",
            format!("must be between 1 and {MAX_TIMEOUT_MS} milliseconds; got {ms}"),
        ))
    }
}

/// The tools of one user, agent and turn, over one entry store and one [`Host`].
pub struct MemoryTools<S, H> {
    session: RefCell<ToolSession>,
    store: S,
    host: H,
    /// The embedder's configuration; `None` → no embeddings (hybrid search ranks lexically).
    embedder: Option<EmbedderSpec>,
    /// The deadline of each store call (1 ms – 1 h, [`store_timeout_ms`]).
    store_timeout_ms: u64,
    queue: UserLocks,
    /// Bumped by [`MemoryTools::new_turn`]: a call that started in an earlier turn does not write
    /// its count into the new one.
    turn: Cell<u64>,
}

impl<S: EntryStore, H: Host> MemoryTools<S, H> {
    /// Tools over a session (see [`ToolSession::new`]), the user's entry store and the host; each
    /// store call has `store_timeout_ms` ([`store_timeout_ms`]).
    pub fn new(
        session: ToolSession,
        store: S,
        host: H,
        embedder: Option<EmbedderSpec>,
        store_timeout_ms: u64,
    ) -> Self {
        MemoryTools {
            session: RefCell::new(session),
            store,
            host,
            embedder,
            store_timeout_ms,
            queue: UserLocks::default(),
            turn: Cell::new(0),
        }
    }

    /// Run one tool after every earlier call has finished. Never fails: every problem is an
    /// answer. `args`: see [`call_tool`].
    pub async fn call(&self, name: &str, args: Option<&Value>) -> ToolAnswer {
        let _queue = self.queue.lock("").await;
        let turn = self.turn.get();
        let Some(mut session) = self.session.try_borrow().ok().map(|s| s.clone()) else {
            return ToolAnswer {
                text: "❌ Failed to store memory: the tools are busy".to_string(),
                wrote: false,
            };
        };
        let store = Timed {
            host: &self.store,
            timer: &self.host,
            ms: self.store_timeout_ms,
        };
        let hosts = Hosts {
            entries: &store,
            host: &self.host,
            model: None::<&NoModel>,
            embedder: self.embedder.as_ref(),
        };
        let answer = call_tool(&mut session, &hosts, name, args).await;
        if self.turn.get() == turn {
            if let Ok(mut current) = self.session.try_borrow_mut() {
                current.writes_this_turn = session.writes_this_turn;
            }
        }
        answer
    }

    /// Start the next turn: `maxWritesPerTurn` counts from zero again.
    pub fn new_turn(&self) {
        self.turn.set(self.turn.get().wrapping_add(1));
        if let Ok(mut session) = self.session.try_borrow_mut() {
            session.writes_this_turn = 0;
        }
    }

    /// Successful writes in this turn.
    pub fn writes_this_turn(&self) -> u32 {
        self.session
            .try_borrow()
            .map_or(0, |session| session.writes_this_turn)
    }

    /// The JSON-schema definitions for this configuration (`{ openai, anthropic, mcp }`).
    pub fn definitions(&self) -> Value {
        self.session.try_borrow().map_or_else(
            |_| tool_definitions_for(&UserMemoryConfig::default()),
            |session| tool_definitions_for(&session.config),
        )
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::entries::InMemoryEntryStore;
    use crate::host::{Clock, IdSource, NoEmbedder, NoLogger, NoTimer, Parts};
    use std::sync::Arc;
    use std::task::{Context, Poll, Wake, Waker};

    struct Noop;
    impl Wake for Noop {
        fn wake(self: Arc<Self>) {}
    }
    struct Fixed;
    impl Clock for Fixed {
        fn now(&self) -> chrono::DateTime<chrono::Utc> {
            chrono::DateTime::from_timestamp_millis(0).unwrap_or_default()
        }
    }
    struct Counter(Cell<u32>);
    impl IdSource for Counter {
        fn new_id(&self) -> String {
            self.0.set(self.0.get() + 1);
            format!("id{}", self.0.get())
        }
    }

    fn now<F: std::future::Future>(future: F) -> F::Output {
        let waker = Waker::from(Arc::new(Noop));
        let mut future = std::pin::pin!(future);
        match future.as_mut().poll(&mut Context::from_waker(&waker)) {
            Poll::Ready(value) => value,
            Poll::Pending => unreachable!("in-memory calls are ready at once"),
        }
    }

    #[test]
    fn store_timeouts_default_to_ten_seconds_and_stay_within_an_hour() {
        assert_eq!(store_timeout_ms(None).ok(), Some(DEFAULT_STORE_TIMEOUT_MS));
        assert_eq!(store_timeout_ms(Some(1)).ok(), Some(1));
        assert_eq!(
            store_timeout_ms(Some(MAX_TIMEOUT_MS)).ok(),
            Some(MAX_TIMEOUT_MS)
        );
        for bad in [0, MAX_TIMEOUT_MS + 1] {
            let error = store_timeout_ms(Some(bad)).unwrap_err();
            assert_eq!(error.code, crate::ErrorCode::Config);
            assert!(
                error.message.starts_with("storeTimeoutMs: "),
                "{}",
                error.message
            );
        }
    }

    #[test]
    fn writes_are_counted_across_calls_and_reset_by_a_new_turn() {
        let session = ToolSession::new(UserMemoryConfig::default(), "u", "a").unwrap();
        let host = Parts {
            clock: Fixed,
            ids: Counter(Cell::new(0)),
            timer: NoTimer,
            logger: NoLogger,
            embedder: NoEmbedder,
        };
        let tools = MemoryTools::new(session, InMemoryEntryStore::new(), host, None, 10);
        let args = serde_json::json!({"key": "k", "value": "v", "category": "fact"});
        let answer = now(tools.call("rememberFact", Some(&args)));
        assert_eq!(answer.text, "✅ Remembered: k = v [fact, self]");
        assert_eq!(tools.writes_this_turn(), 1);
        tools.new_turn();
        assert_eq!(tools.writes_this_turn(), 0);
    }
}
