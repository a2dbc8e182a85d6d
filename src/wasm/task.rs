//! Async work without an executor in wasm: JS drives it.
//!
//! An async export returns a task handle. JS calls [`task_poll`] inside its own `try` (so a trap
//! in async code reaches JS as an exception it catches, never as an uncaught error in a
//! microtask); when the task is waiting, the core's waker calls the JS `wake(taskId)` hook, and
//! JS polls again in a microtask.
//!
//! A host callback is a **host call**: Rust calls a method of a JS adapter with a fresh call id
//! and returns a future; the adapter runs the user's callback in its own `try` and reports the
//! outcome through [`settle_host_call`] (synchronously for a synchronous callback, later for a
//! Promise). Dropping a pending host call — a timeout won, or the task was dropped — calls the
//! JS `cancel(callId)` hook, which aborts a model request's `AbortSignal` or clears a timer.

use super::boundary::error_from_json;
use super::handles::{Handles, Table};
use crate::error::{Error, Result};
use std::cell::{Cell, RefCell};
use std::collections::HashMap;
use std::future::Future;
use std::pin::Pin;
use std::sync::Arc;
use std::task::{Context, Poll, Wake, Waker};
use wasm_bindgen::prelude::*;

type Job = RefCell<Option<Pin<Box<dyn Future<Output = Result<String>>>>>>;

thread_local! {
    static HOOKS: RefCell<Option<Hooks>> = const { RefCell::new(None) };
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

struct Hooks {
    wake: js_sys::Function,
    cancel: js_sys::Function,
}

/// Install the JS side of the executor: `wake(taskId)` schedules a poll, `cancel(callId)`
/// abandons a host call. Called once after the module is instantiated.
#[wasm_bindgen(js_name = installHooks)]
pub fn install_hooks(wake: js_sys::Function, cancel: js_sys::Function) {
    HOOKS.with(|h| {
        if let Ok(mut hooks) = h.try_borrow_mut() {
            *hooks = Some(Hooks { wake, cancel });
        }
    });
}

fn hook(call: impl FnOnce(&Hooks)) {
    HOOKS.with(|h| {
        if let Ok(hooks) = h.try_borrow() {
            if let Some(hooks) = hooks.as_ref() {
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
        hook(|h| {
            let _ = h.wake.call1(&JsValue::NULL, &JsValue::from(id));
        });
    }
}

/// Start a task; JS polls it by the returned handle.
pub(crate) fn spawn(future: impl Future<Output = Result<String>> + 'static) -> Result<u32> {
    tasks().insert(RefCell::new(Some(Box::pin(future))))
}

/// Poll a task: `undefined` while it waits, its JSON result when done; its error is thrown.
#[wasm_bindgen(js_name = taskPoll)]
pub fn task_poll(id: u32) -> Result<Option<String>> {
    let job = tasks().get(id)?;
    // Taken out for the poll, so no borrow is held while the future runs (and calls JS).
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
#[wasm_bindgen(js_name = taskDrop)]
pub fn task_drop(id: u32) {
    tasks().remove(id);
}

#[derive(Default)]
struct Slot {
    result: Option<Result<String>>,
    waker: Option<Waker>,
}

/// Report the outcome of a host call: `ok` with the JSON payload, or the error as JSON text.
/// A call that was cancelled or is unknown is ignored.
#[wasm_bindgen(js_name = settleHostCall)]
pub fn settle_host_call(id: u32, ok: bool, payload: String) {
    let result = if ok {
        Ok(payload)
    } else {
        Err(error_from_json(&payload))
    };
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

/// A pending host call.
pub(crate) struct HostCall {
    id: u32,
    done: bool,
}

/// Call `method` of the JS adapter `this` with a fresh call id followed by `args`.
pub(crate) fn host_call(method: &js_sys::Function, this: &JsValue, args: &[JsValue]) -> HostCall {
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
    let array = js_sys::Array::new();
    array.push(&JsValue::from(id));
    for arg in args {
        array.push(arg);
    }
    if method.apply(this, &array).is_err() {
        settle_host_call(
            id,
            false,
            Error::internal("a memcore host adapter threw")
                .to_json()
                .to_string(),
        );
    }
    HostCall { id, done: false }
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

impl HostCall {
    fn is_known(&self) -> bool {
        CALLS.with(|calls| {
            calls
                .try_borrow()
                .map_or(true, |c| c.contains_key(&self.id))
        })
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
        hook(|h| {
            let _ = h.cancel.call1(&JsValue::NULL, &JsValue::from(id));
        });
    }
}
