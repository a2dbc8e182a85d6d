//! Bindings for credential detection and the legacy migration (behaviour §4.1, §4.2).
//!
//! These functions read values that may hold credentials; like every export's, their argument
//! errors never quote a value (`Call::json`).

use super::boundary::{json_out, Call};
use super::entry_store::StoreRef;
use super::op::{Op, StoreOptions};
use super::task::spawn;
use memcore::entries::Entry;
use memcore::error::Result;
use memcore::migrate::legacy::LegacyInsert;
use memcore::migrate::{self, MigrationOptions};
use serde_json::Value;
use std::collections::BTreeMap;
use wasm_bindgen::prelude::*;

/// `detectCredential(value)` → `{ found, path, kind }` (JSON).
#[wasm_bindgen(js_name = detectCredential)]
pub fn detect_credential(value: String) -> Result<String> {
    let value: Value = Call("detectCredential").json("value", &value)?;
    json_out(&migrate::detect_credential(&value))
}

/// `redactSecrets(value)` → the value (a text stays a text) with every credential redacted.
#[wasm_bindgen(js_name = redactSecrets)]
pub fn redact_secrets(value: String) -> Result<String> {
    let value: Value = Call("redactSecrets").json("value", &value)?;
    json_out(&migrate::redact_value(&value))
}

/// `planPropertiesMigration(legacyDocuments, existingKeysByUser, options)` → the plan (JSON).
#[wasm_bindgen(js_name = planPropertiesMigration)]
pub fn plan_properties_migration(
    documents: String,
    existing: Option<String>,
    options_json: Option<String>,
) -> Result<String> {
    let call = Call("planPropertiesMigration");
    let documents: Vec<Value> = call.json("legacyDocuments", &documents)?;
    let existing: BTreeMap<String, Vec<String>> = match existing.as_deref() {
        None | Some("null") => BTreeMap::new(),
        Some(json) => call.json("existingKeysByUser", json)?,
    };
    let options: MigrationOptions = call.options("options", options_json)?;
    json_out(&migrate::plan_properties_migration(
        &documents, &existing, &options,
    ))
}

/// `planLegacyCleanup(entries, options)` → `{ ids, keys }` (JSON).
#[wasm_bindgen(js_name = planLegacyCleanup)]
pub fn plan_legacy_cleanup(entries: String, options_json: Option<String>) -> Result<String> {
    let call = Call("planLegacyCleanup");
    let entries: Vec<Entry> = call.json("entries", &entries)?;
    let options: MigrationOptions = call.options("options", options_json)?;
    json_out(&migrate::plan_legacy_cleanup(&entries, &options))
}

/// What apply reads of a plan: its inserts (the rest of the plan is the host's to log).
#[derive(serde::Deserialize)]
struct PlanInserts {
    inserts: Vec<LegacyInsert>,
}

/// `applyPropertiesMigration(plan, store, { now, newId })` → task of the report (JSON).
#[wasm_bindgen(js_name = applyPropertiesMigration)]
pub fn apply_properties_migration(
    plan: String,
    store: JsValue,
    options: Option<String>,
    hosts: JsValue,
) -> Result<u32> {
    let call = Call("applyPropertiesMigration");
    let plan: PlanInserts = call.json("plan", &plan)?;
    let options = StoreOptions::decode(call, options)?;
    let op = Op::new(options.store_timeout_ms, || StoreRef::from_js(store), hosts)?;
    spawn(async move {
        let report =
            migrate::apply_properties_migration(&plan.inserts, &op.store(), &op.hosts, &op.hosts)
                .await;
        json_out(&report)
    })
}
