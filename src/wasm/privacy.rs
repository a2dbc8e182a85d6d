//! Bindings for credential detection and the legacy migration (SPEC §4.1, §4.2).
//!
//! These functions read values that may hold credentials, so their argument errors never quote a
//! value: serde's `invalid type: string "…"` loses the quoted part ([`unquoted`]).

use super::boundary::{json_out, Call};
use super::entry_store::StoreRef;
use super::op::{Op, StoreOptions};
use super::task::spawn;
use crate::entries::Entry;
use crate::error::{Error, Result};
use crate::migrate::legacy::LegacyInsert;
use crate::migrate::{self, MigrationOptions};
use serde::de::DeserializeOwned;
use serde_json::Value;
use std::collections::BTreeMap;
use wasm_bindgen::prelude::*;

/// An error without the text between its first and last `"` (a value serde quoted).
fn unquoted(mut error: Error) -> Error {
    if let (Some(first), Some(last)) = (error.message.find('"'), error.message.rfind('"')) {
        if first < last {
            error.message.replace_range(first..=last, "…");
        }
    }
    error
}

fn arg<T: DeserializeOwned>(call: Call, name: &str, json: &str) -> Result<T> {
    call.json(name, json).map_err(unquoted)
}

fn options(call: Call, json: Option<String>) -> Result<MigrationOptions> {
    call.options("options", json).map_err(unquoted)
}

/// `detectCredential(value)` → `{ found, path, kind }` (JSON).
#[wasm_bindgen(js_name = detectCredential)]
pub fn detect_credential(value: String) -> Result<String> {
    let value: Value = arg(Call("detectCredential"), "value", &value)?;
    json_out(&migrate::detect_credential(&value))
}

/// `redactSecrets(value)` → the value (a text stays a text) with every credential redacted.
#[wasm_bindgen(js_name = redactSecrets)]
pub fn redact_secrets(value: String) -> Result<String> {
    let value: Value = arg(Call("redactSecrets"), "value", &value)?;
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
    let documents: Vec<Value> = arg(call, "legacyDocuments", &documents)?;
    let existing: BTreeMap<String, Vec<String>> = match existing.as_deref() {
        None | Some("null") => BTreeMap::new(),
        Some(json) => arg(call, "existingKeysByUser", json)?,
    };
    let options = options(call, options_json)?;
    json_out(&migrate::plan_properties_migration(
        &documents, &existing, &options,
    ))
}

/// `planLegacyCleanup(entries, options)` → `{ ids, keys }` (JSON).
#[wasm_bindgen(js_name = planLegacyCleanup)]
pub fn plan_legacy_cleanup(entries: String, options_json: Option<String>) -> Result<String> {
    let call = Call("planLegacyCleanup");
    let entries: Vec<Entry> = arg(call, "entries", &entries)?;
    let options = options(call, options_json)?;
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
    let plan: PlanInserts = arg(call, "plan", &plan)?;
    let options = StoreOptions::decode(call, options).map_err(unquoted)?;
    let op = Op::new(options.store_timeout_ms, || StoreRef::from_js(store), hosts)?;
    spawn(async move {
        let report =
            migrate::apply_properties_migration(&plan.inserts, &op.store(), &op.hosts, &op.hosts)
                .await;
        json_out(&report)
    })
}
