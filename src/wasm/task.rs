//! The JS side of the core's executor ([`memcore::boundary::executor`]) and of the table registry: JS
//! installs its `wake`, `cancel` and `table` hooks, polls tasks inside its own `try`, and settles
//! host calls.

use memcore::boundary::executor::{self, Hooks};
use memcore::error::{Error, Result};
use memcore::profile::tokens::registry;
use wasm_bindgen::prelude::*;

pub(crate) use executor::spawn;

struct JsHooks {
    wake: js_sys::Function,
    cancel: js_sys::Function,
}

impl Hooks for JsHooks {
    fn wake(&self, task: u32) {
        let _ = self.wake.call1(&JsValue::NULL, &JsValue::from(task));
    }
    fn cancel(&self, call: u32) {
        let _ = self.cancel.call1(&JsValue::NULL, &JsValue::from(call));
    }
}

/// Install `wake(taskId)` (schedules a poll), `cancel(callId)` (abandons a host call) and
/// `table(encoding)` (loads a rank table now if it can: `true`, else `false`).
#[wasm_bindgen(js_name = installHooks)]
pub fn install_hooks(wake: js_sys::Function, cancel: js_sys::Function, table: js_sys::Function) {
    executor::install(Box::new(JsHooks { wake, cancel }));
    registry::set_provider(Box::new(move |encoding| {
        table
            .call1(&JsValue::NULL, &JsValue::from_str(encoding.name()))
            .ok()
            .and_then(|answer| answer.as_bool())
            .unwrap_or(false)
    }));
}

/// Poll a task: `undefined` while it waits, its JSON result when done; its error is thrown.
#[wasm_bindgen(js_name = taskPoll)]
pub fn task_poll(id: u32) -> Result<Option<String>> {
    executor::poll(id)
}

/// Drop a task that is no longer wanted (its pending host calls are cancelled).
#[wasm_bindgen(js_name = taskDrop)]
pub fn task_drop(id: u32) {
    executor::drop_task(id);
}

/// Report a host call's outcome: `ok` with the JSON payload, or the error as JSON text.
#[wasm_bindgen(js_name = settleHostCall)]
pub fn settle_host_call(id: u32, ok: bool, payload: String) {
    executor::settle(
        id,
        if ok {
            Ok(payload)
        } else {
            Err(Error::from_json(&payload))
        },
    );
}
