//! Bindings for Dream (behaviour §3): one run as a task, the metrics object the host keeps across
//! runs (a handle), and schedule validation.

use super::boundary::{json_out, Call};
use super::entry_store::StoreRef;
use super::host::Adapter;
use super::task::spawn;
use memcore::boundary::adapter::{Remote, Transport};
use memcore::boundary::handles::{Handles, Table};
use memcore::dream::{self, DreamInput, DreamMetrics};
use memcore::error::Result;
use memcore::host::Hosts;
use serde_json::Value;
use std::cell::RefCell;
use wasm_bindgen::prelude::*;

thread_local! {
    static METRICS: RefCell<Handles<DreamMetrics>> = RefCell::default();
}

fn metrics() -> Table<DreamMetrics> {
    Table {
        kind: "DreamMetrics",
        cell: &METRICS,
    }
}

/// `new DreamMetrics({ prefix })` → its handle (no prefix: `memcore_`).
#[wasm_bindgen(js_name = dreamMetricsNew)]
pub fn dream_metrics_new(prefix: Option<String>) -> Result<u32> {
    let made = match prefix {
        Some(prefix) => DreamMetrics::with_prefix(&prefix)?,
        None => DreamMetrics::new(),
    };
    metrics().insert(made)
}

/// Free a metrics handle.
#[wasm_bindgen(js_name = dreamMetricsFree)]
pub fn dream_metrics_free(id: u32) {
    metrics().remove(id);
}

/// The Prometheus text of a metrics object.
#[wasm_bindgen(js_name = dreamMetricsPrometheus)]
pub fn dream_metrics_prometheus(id: u32) -> Result<String> {
    Ok(metrics().get(id)?.prometheus())
}

/// The counters of a metrics object (JSON).
#[wasm_bindgen(js_name = dreamMetricsSnapshot)]
pub fn dream_metrics_snapshot(id: u32) -> Result<String> {
    json_out(&metrics().get(id)?.snapshot())
}

/// `dream(options)` → task of the report (JSON). `store` is a store handle or an adapter;
/// `hosts` the adapter for the model (optional), `newId`, `log` and the timer; `metrics` a
/// metrics handle.
#[wasm_bindgen(js_name = dream)]
pub fn dream_run(
    store: JsValue,
    options: String,
    hosts: JsValue,
    metrics_id: Option<u32>,
) -> Result<u32> {
    let input: DreamInput = Call("dream").json("options", &options)?;
    let store = StoreRef::from_js(store)?;
    let metrics = metrics_id.map(|id| metrics().get(id)).transpose()?;
    let adapter = Adapter::new(hosts);
    spawn(async move {
        let has_model = adapter.has("complete");
        let host = Remote(adapter);
        let hosts = Hosts {
            entries: &store,
            host: &host,
            model: has_model.then_some(&host),
            embedder: None,
        };
        json_out(&dream::dream(&hosts, &input, metrics.as_deref()).await?)
    })
}

/// Every problem of a Dream schedule `{ field, message }` (empty → valid), JSON.
#[wasm_bindgen(js_name = validateDreamSchedule)]
pub fn validate_dream_schedule(schedule: Option<String>) -> Result<String> {
    let schedule: Value = Call("validateDreamSchedule")
        .optional("schedule", schedule)?
        .unwrap_or_default();
    json_out(&dream::validate_dream_schedule(&schedule))
}
