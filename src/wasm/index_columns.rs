//! Bindings for the derived columns and the search prefilter of the SQL stores
//! (`memcore::entries::index_columns`).

use super::boundary::{json_out, Call};
use memcore::entries::index_columns;
use memcore::error::Result;
use serde::Deserialize;

/// One entry as a SQL store writes it: its key, `updatedAt` and the value's JSON text.
#[derive(Deserialize)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
struct IndexedEntry {
    key: String,
    updated_at: String,
    value_json: String,
}

/// `indexColumns([{ key, updatedAt, valueJson }, …])` → `[{ updatedSort, reserved, searchText }, …]` (JSON).
#[wasm_bindgen::prelude::wasm_bindgen(js_name = indexColumns)]
pub fn index_columns(entries: String) -> Result<String> {
    let entries: Vec<IndexedEntry> = Call("indexColumns").json("entries", &entries)?;
    let columns: Vec<_> = entries
        .iter()
        .map(|e| index_columns::index_columns(&e.key, &e.updated_at, &e.value_json))
        .collect();
    json_out(&columns)
}

/// `searchPrefilter(query)` → `{ long, short }` (JSON).
#[wasm_bindgen::prelude::wasm_bindgen(js_name = searchPrefilter)]
pub fn search_prefilter(query: String) -> Result<String> {
    json_out(&index_columns::search_prefilter(&query))
}
