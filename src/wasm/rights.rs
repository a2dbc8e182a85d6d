//! Bindings for the data-subject rights (SPEC §4.3): restriction, erasure, export and import over
//! an entry store (handle or adapter, optional) and a `ContextMemory` handle (optional).

use super::boundary::{json_out, Call};
use super::context_memory::{pipelines, JsPipeline};
use super::entry_store::StoreRef;
use super::host::Adapter;
use super::task::spawn;
use crate::entries::memory_tools::DEFAULT_STORE_TIMEOUT_MS;
use crate::error::Result;
use crate::host::{Remote, Timed};
use crate::rights::{self, UserDataExport};
use std::rc::Rc;
use wasm_bindgen::prelude::*;

/// The optional stores of a rights call: `undefined` → not given.
fn stores(
    entries: JsValue,
    memory: Option<u32>,
) -> Result<(Option<StoreRef>, Option<Rc<JsPipeline>>)> {
    let entries = if entries.is_undefined() {
        None
    } else {
        Some(StoreRef::from_js(entries)?)
    };
    let memory = memory.map(|id| pipelines().get(id)).transpose()?;
    Ok((entries, memory))
}

/// `setProcessingRestriction(store, userId, restricted, { admin })` → task of `{ restricted, changed }`.
#[wasm_bindgen(js_name = setProcessingRestriction)]
pub fn set_processing_restriction(
    store: JsValue,
    user_id: String,
    restricted: bool,
    admin: bool,
    hosts: JsValue,
) -> Result<u32> {
    let store = StoreRef::from_js(store)?;
    let hosts = Adapter::new(hosts);
    spawn(async move {
        let timer = Remote(hosts.clone());
        let timed = Timed {
            host: &store,
            timer: &timer,
            ms: DEFAULT_STORE_TIMEOUT_MS,
        };
        let (clock, ids) = (Remote(hosts.clone()), Remote(hosts));
        json_out(
            &rights::set_processing_restriction(&timed, &clock, &ids, &user_id, restricted, admin)
                .await?,
        )
    })
}

/// `isProcessingRestricted(store, userId)` → task of a boolean.
#[wasm_bindgen(js_name = isProcessingRestricted)]
pub fn is_processing_restricted(store: JsValue, user_id: String, hosts: JsValue) -> Result<u32> {
    let store = StoreRef::from_js(store)?;
    let hosts = Adapter::new(hosts);
    spawn(async move {
        let timer = Remote(hosts);
        let timed = Timed {
            host: &store,
            timer: &timer,
            ms: DEFAULT_STORE_TIMEOUT_MS,
        };
        json_out(&rights::processing_restricted(&timed, &user_id).await?)
    })
}

/// `eraseUserData(userId, { entries?, memory? })` → task of the erasure report.
#[wasm_bindgen(js_name = eraseUserData)]
pub fn erase_user_data(
    user_id: String,
    entries: JsValue,
    memory: Option<u32>,
    hosts: JsValue,
) -> Result<u32> {
    let (entries, memory) = stores(entries, memory)?;
    let hosts = Adapter::new(hosts);
    spawn(async move {
        let timer = Remote(hosts);
        let timed = entries.as_ref().map(|host| Timed {
            host,
            timer: &timer,
            ms: DEFAULT_STORE_TIMEOUT_MS,
        });
        json_out(&rights::erase_user_data(&user_id, timed.as_ref(), memory.as_deref()).await?)
    })
}

/// `exportUserData(userId, { entries?, memory? })` → task of the export document.
#[wasm_bindgen(js_name = exportUserData)]
pub fn export_user_data(
    user_id: String,
    entries: JsValue,
    memory: Option<u32>,
    hosts: JsValue,
) -> Result<u32> {
    let (entries, memory) = stores(entries, memory)?;
    let hosts = Adapter::new(hosts);
    spawn(async move {
        let timer = Remote(hosts.clone());
        let clock = Remote(hosts);
        let timed = entries.as_ref().map(|host| Timed {
            host,
            timer: &timer,
            ms: DEFAULT_STORE_TIMEOUT_MS,
        });
        json_out(
            &rights::export_user_data(&clock, &user_id, timed.as_ref(), memory.as_deref()).await?,
        )
    })
}

/// `importUserData(document, { entries?, memory? })` → task of `{ entries, profile }`.
#[wasm_bindgen(js_name = importUserData)]
pub fn import_user_data(
    document: String,
    entries: JsValue,
    memory: Option<u32>,
    hosts: JsValue,
) -> Result<u32> {
    let document: UserDataExport = Call("importUserData").json("document", &document)?;
    let (entries, memory) = stores(entries, memory)?;
    let hosts = Adapter::new(hosts);
    spawn(async move {
        let timer = Remote(hosts);
        let timed = entries.as_ref().map(|host| Timed {
            host,
            timer: &timer,
            ms: DEFAULT_STORE_TIMEOUT_MS,
        });
        json_out(&rights::import_user_data(&document, timed.as_ref(), memory.as_deref()).await?)
    })
}
