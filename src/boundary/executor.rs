//! Async work without an executor of our own: the embedder drives it.
//!
//! An async operation runs as a **task** ([`spawn`]); the embedder polls it by its handle
//! ([`poll`]) — in wasm, JS polls inside its own `try`, so even a trap in async code reaches JS as
//! an exception it catches. When a task waits, its waker calls the embedder's [`Hooks::wake`], and
//! the embedder polls again later (JS: in a microtask).
//!
//! A host callback is a **host call** ([`begin_call`]): a fresh call id, a future that resolves
//! when the embedder reports the outcome with [`settle`] (synchronously for a synchronous callback,
//! later for a Promise). Dropping a pending call — a timeout won, or its task was dropped —
//! forgets it and calls [`Hooks::cancel`], which in JS aborts a model request's `AbortSignal` or
//! clears a timer. An outcome for a forgotten or unknown call is ignored.

use crate::boundary::handles::{Handles, Table};
use crate::error::{Error, Result};
use std::cell::{Cell, RefCell};
use std::collections::HashMap;
use std::future::Future;
use std::pin::Pin;
use std::sync::Arc;
use std::task::{Context, Poll, Wake, Waker};

/// What the embedder does when a task can make progress or a host call is abandoned.
pub trait Hooks {
    /// Task `task` can make progress: poll it again (not from inside this call).
    fn wake(&self, task: u32);
    /// Host call `call` is no longer awaited: abandon it.
    fn cancel(&self, call: u32);
}

type Job = RefCell<Option<Pin<Box<dyn Future<Output = Result<String>>>>>>;

#[derive(Default)]
struct Slot {
    result: Option<Result<String>>,
    waker: Option<Waker>,
}

thread_local! {
    static HOOKS: RefCell<Option<Box<dyn Hooks>>> = const { RefCell::new(None) };
    static TASKS: RefCell<Handles<Job>> = RefCell::default();
    static CALLS: RefCell<HashMap<u32, Slot>> = RefCell::default();
    static NEXT_CALL: Cell<u32> = const { Cell::new(1) };
}

fn tasks() -> Table<Job> {
    Table {
        kind: "task",
        cell: &TASKS,
    }
}

/// Install the embedder's hooks (once, after start; a later call replaces them).
pub fn install(hooks: Box<dyn Hooks>) {
    HOOKS.with(|h| {
        if let Ok(mut slot) = h.try_borrow_mut() {
            *slot = Some(hooks);
        }
    });
}

fn hook(call: impl FnOnce(&dyn Hooks)) {
    HOOKS.with(|h| {
        if let Ok(hooks) = h.try_borrow() {
            if let Some(hooks) = hooks.as_deref() {
                call(hooks);
            }
        }
    });
}

struct TaskWaker(u32);

impl Wake for TaskWaker {
    fn wake(self: Arc<Self>) {
        self.wake_by_ref();
    }
    fn wake_by_ref(self: &Arc<Self>) {
        let id = self.0;
        hook(|h| h.wake(id));
    }
}

/// Start a task; its handle for [`poll`] and [`drop_task`].
pub fn spawn(future: impl Future<Output = Result<String>> + 'static) -> Result<u32> {
    tasks().insert(RefCell::new(Some(Box::pin(future))))
}

/// Poll a task: `None` while it waits, its result once done (the task is then gone).
pub fn poll(id: u32) -> Result<Option<String>> {
    let job = tasks().get(id)?;
    // Taken out for the poll, so no borrow is held while the future runs (and calls the host).
    let Some(mut future) = job.try_borrow_mut().ok().and_then(|mut slot| slot.take()) else {
        return Ok(None);
    };
    let waker = Waker::from(Arc::new(TaskWaker(id)));
    match future.as_mut().poll(&mut Context::from_waker(&waker)) {
        Poll::Pending => {
            if let Ok(mut slot) = job.try_borrow_mut() {
                *slot = Some(future);
            }
            Ok(None)
        }
        Poll::Ready(result) => {
            tasks().remove(id);
            result.map(Some)
        }
    }
}

/// Drop a task that is no longer wanted (its pending host calls are cancelled).
pub fn drop_task(id: u32) {
    tasks().remove(id);
}

/// Report the outcome of a host call. A cancelled or unknown call is ignored.
pub fn settle(id: u32, result: Result<String>) {
    let waker = CALLS.with(|calls| {
        let mut calls = calls.try_borrow_mut().ok()?;
        let slot = calls.get_mut(&id)?;
        slot.result = Some(result);
        slot.waker.take()
    });
    if let Some(waker) = waker {
        waker.wake();
    }
}

/// A pending host call: its id (to pass to the host) and the future of its outcome.
pub struct HostCall {
    id: u32,
    done: bool,
}

/// Register a new host call. Start the host's work with [`HostCall::id`], then await the call.
pub fn begin_call() -> HostCall {
    let id = NEXT_CALL.with(|n| {
        let id = n.get();
        n.set(id.wrapping_add(1).max(1));
        id
    });
    CALLS.with(|calls| {
        if let Ok(mut calls) = calls.try_borrow_mut() {
            calls.insert(id, Slot::default());
        }
    });
    HostCall { id, done: false }
}

impl HostCall {
    /// The id the host reports the outcome under.
    pub fn id(&self) -> u32 {
        self.id
    }

    fn is_known(&self) -> bool {
        CALLS.with(|calls| {
            calls
                .try_borrow()
                .map_or(true, |c| c.contains_key(&self.id))
        })
    }
}

impl Future for HostCall {
    type Output = Result<String>;

    fn poll(mut self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<Result<String>> {
        let id = self.id;
        let ready = CALLS.with(|calls| {
            let mut calls = calls.try_borrow_mut().ok()?;
            let slot = calls.get_mut(&id)?;
            match slot.result.take() {
                Some(result) => {
                    calls.remove(&id);
                    Some(result)
                }
                None => {
                    slot.waker = Some(cx.waker().clone());
                    None
                }
            }
        });
        match ready {
            Some(result) => {
                self.done = true;
                Poll::Ready(result)
            }
            None if self.is_known() => Poll::Pending,
            None => {
                self.done = true;
                Poll::Ready(Err(Error::internal("a host call was lost")))
            }
        }
    }
}

impl Drop for HostCall {
    fn drop(&mut self) {
        if self.done {
            return;
        }
        let id = self.id;
        CALLS.with(|calls| {
            if let Ok(mut calls) = calls.try_borrow_mut() {
                calls.remove(&id);
            }
        });
        hook(|h| h.cancel(id));
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::rc::Rc;

    #[derive(Default)]
    struct Log {
        woken: RefCell<Vec<u32>>,
        cancelled: RefCell<Vec<u32>>,
    }
    struct Recorder(Rc<Log>);
    impl Hooks for Recorder {
        fn wake(&self, task: u32) {
            self.0.woken.borrow_mut().push(task);
        }
        fn cancel(&self, call: u32) {
            self.0.cancelled.borrow_mut().push(call);
        }
    }

    fn installed() -> Rc<Log> {
        let log = Rc::new(Log::default());
        install(Box::new(Recorder(log.clone())));
        log
    }

    #[test]
    fn a_task_waits_for_its_host_call_and_is_woken_when_it_settles() {
        let log = installed();
        let call = begin_call();
        let id = call.id();
        let task = spawn(async move { Ok(format!("got {}", call.await?)) }).unwrap();
        assert_eq!(poll(task).unwrap(), None);
        settle(id, Ok("x".into()));
        assert_eq!(*log.woken.borrow(), vec![task]);
        assert_eq!(poll(task).unwrap().as_deref(), Some("got x"));
        // Done tasks are gone; late outcomes are ignored.
        assert!(poll(task).is_err());
        settle(id, Ok("late".into()));
        assert!(log.cancelled.borrow().is_empty());
    }

    #[test]
    fn a_failed_call_fails_its_task_and_a_dropped_task_cancels_its_call() {
        let log = installed();
        let call = begin_call();
        let id = call.id();
        let task = spawn(call).unwrap();
        assert_eq!(poll(task).unwrap(), None);
        settle(id, Err(Error::new(crate::ErrorCode::Host, "down")));
        assert_eq!(poll(task).unwrap_err().message, "down");

        let call = begin_call();
        let id = call.id();
        let task = spawn(call).unwrap();
        assert_eq!(poll(task).unwrap(), None);
        drop_task(task);
        assert_eq!(*log.cancelled.borrow(), vec![id]);
        settle(id, Ok("ignored".into()));
    }

    #[test]
    fn a_call_settled_before_it_is_awaited_resolves_at_once() {
        installed();
        let call = begin_call();
        settle(call.id(), Ok("now".into()));
        let task = spawn(call).unwrap();
        assert_eq!(poll(task).unwrap().as_deref(), Some("now"));
    }
}
