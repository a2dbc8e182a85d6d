//! Bindings for the data-subject rights (behaviour §4.3): restriction, erasure, export and import
//! over an entry store (handle or adapter, optional) and a profile side (optional): a
//! `ContextMemory` handle, or an adapter over a plain profile storage with its root folder.

use super::boundary::{config_arg, json_out, Call};
use super::context_memory::{pipelines, JsPipeline};
use super::entry_store::StoreRef;
use super::host::{Adapter, Js};
use super::op::{Op, StoreOptions};
use super::task::spawn;
use memcore::boundary::adapter::Remote;
use memcore::entries::config::HistoryConfig;
use memcore::entries::embedding::EmbedderSpec;
use memcore::entries::history::{Author, Writer};
use memcore::entries::write_rules::Surface;
use memcore::error::{Error, ErrorCode, Result};
use memcore::host::Timed;
use memcore::rights::{self, ProfileErasure, ProfileRights, StoredProfiles, UserDataExport};
use serde::Deserialize;
use std::rc::Rc;
use wasm_bindgen::prelude::*;

/// The entry store of a rights call: `undefined` → not given.
fn entry_store(entries: JsValue) -> Result<Option<StoreRef>> {
    if entries.is_undefined() {
        return Ok(None);
    }
    StoreRef::from_js(entries).map(Some)
}

/// The profile side as JS sends it: `undefined` (none), a `ContextMemory` handle (number), or a
/// profile-storage adapter (`js/host.js` `profileStorageAdapter`).
enum Profiles {
    Memory(Rc<JsPipeline>),
    Storage(Js),
}

impl Profiles {
    fn from_js(profiles: JsValue) -> Result<Option<Profiles>> {
        if profiles.is_undefined() {
            return Ok(None);
        }
        match profiles.as_f64() {
            Some(id) if id >= 0.0 && id <= f64::from(u32::MAX) => {
                Ok(Some(Profiles::Memory(pipelines().get(id as u32)?)))
            }
            Some(_) => Err(Error::internal("a ContextMemory handle out of range")),
            None => Ok(Some(Profiles::Storage(Remote(Adapter::new(profiles))))),
        }
    }
}

/// The profile side while a call runs; a storage's calls have the entry store's deadline
/// (`storeTimeoutMs`).
enum ProfileSide<'a> {
    Memory(&'a JsPipeline),
    Storage(StoredProfiles<Timed<'a, Js, Js>>),
}

impl<'a> ProfileSide<'a> {
    fn new<S>(profiles: &'a Profiles, root_folder: Option<&str>, op: &'a Op<S>) -> Result<Self> {
        Ok(match profiles {
            Profiles::Memory(memory) => ProfileSide::Memory(memory),
            Profiles::Storage(storage) => {
                ProfileSide::Storage(StoredProfiles::new(op.timed(storage), root_folder)?)
            }
        })
    }
}

impl ProfileRights for ProfileSide<'_> {
    async fn erase_profile(&self, user_id: &str) -> Result<ProfileErasure> {
        match self {
            ProfileSide::Memory(memory) => memory.erase_profile(user_id).await,
            ProfileSide::Storage(storage) => storage.erase_profile(user_id).await,
        }
    }
    async fn export_profile(&self, user_id: &str) -> Result<Option<String>> {
        match self {
            ProfileSide::Memory(memory) => memory.export_profile(user_id).await,
            ProfileSide::Storage(storage) => storage.export_profile(user_id).await,
        }
    }
    async fn import_profile(&self, user_id: &str, text: &str) -> Result<()> {
        match self {
            ProfileSide::Memory(memory) => memory.import_profile(user_id, text).await,
            ProfileSide::Storage(storage) => storage.import_profile(user_id, text).await,
        }
    }
    fn profile_path(&self, user_id: &str) -> Result<String> {
        match self {
            ProfileSide::Memory(memory) => ProfileRights::profile_path(*memory, user_id),
            ProfileSide::Storage(storage) => storage.profile_path(user_id),
        }
    }
}

/// `options.rootFolder` by the core's root-folder rule, checked when the call is made
/// (`E_ARGUMENT` naming it).
fn root_folder(function: &str, root_folder: &Option<String>) -> Result<()> {
    match root_folder {
        Some(root) => memcore::profile::paths::validate_root_folder(root)
            .map(drop)
            .map_err(|error| {
                Error::new(
                    ErrorCode::Argument,
                    format!("{function}: options.{}", error.message),
                )
                .with_details(
                    serde_json::json!({ "function": function, "argument": "options.rootFolder" }),
                )
            }),
        None => Ok(()),
    }
}

/// The options of a rights call: the deadline, who acts (`principal`: the author of the audit
/// record, behaviour §8.3) and the `userMemoryConfig` whose `history` applies.
#[derive(Deserialize, Default)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
struct RightsOptions {
    #[serde(default)]
    store_timeout_ms: Option<u64>,
    #[serde(default)]
    principal: Option<String>,
    #[serde(default)]
    config: Option<serde_json::Value>,
    /// The import's embedder (its vectors of the imported entries).
    #[serde(default)]
    embedder: Option<EmbedderSpec>,
    /// An erasure of an id the user-id rule refuses (`eraseInvalidUserData`).
    #[serde(default)]
    repair: bool,
}

/// Who acts in a rights call, the history settings its records follow, and the embedder of an
/// import.
struct Acting {
    author: Author,
    history: HistoryConfig,
    embedder: Option<EmbedderSpec>,
    repair: bool,
}

impl Acting {
    fn of(options: &RightsOptions) -> Result<Acting> {
        let config = config_arg(options.config.as_ref().map(|c| c.to_string()))?;
        Ok(Acting {
            author: Author::of_surface(Surface::Rest, options.principal.as_deref()),
            history: config.history,
            embedder: options
                .embedder
                .clone()
                .map(EmbedderSpec::checked)
                .transpose()?,
            repair: options.repair,
        })
    }

    fn writer<'a>(&'a self, clock: &'a Js) -> Writer<'a, Js> {
        Writer {
            clock,
            history: &self.history,
            author: &self.author,
        }
    }
}

/// `setProcessingRestriction(store, userId, restricted, { admin, storeTimeoutMs })` → task of
/// `{ restricted, changed }`.
#[wasm_bindgen(js_name = setProcessingRestriction)]
pub fn set_processing_restriction(
    store: JsValue,
    user_id: String,
    restricted: bool,
    admin: bool,
    options: Option<String>,
    hosts: JsValue,
) -> Result<u32> {
    let options: RightsOptions = Call("setProcessingRestriction").options("options", options)?;
    let acting = Acting::of(&options)?;
    let op = Op::new(options.store_timeout_ms, || StoreRef::from_js(store), hosts)?;
    spawn(async move {
        let (store, hosts) = (op.store(), &op.hosts);
        let writer = acting.writer(hosts);
        let change =
            rights::set_processing_restriction(&store, writer, hosts, &user_id, restricted, admin);
        json_out(&change.await?)
    })
}

/// `isProcessingRestricted(store, userId, { storeTimeoutMs })` → task of a boolean.
#[wasm_bindgen(js_name = isProcessingRestricted)]
pub fn is_processing_restricted(
    store: JsValue,
    user_id: String,
    options: Option<String>,
    hosts: JsValue,
) -> Result<u32> {
    let options = StoreOptions::decode(Call("isProcessingRestricted"), options)?;
    let op = Op::new(options.store_timeout_ms, || StoreRef::from_js(store), hosts)?;
    spawn(async move { json_out(&rights::processing_restricted(&op.store(), &user_id).await?) })
}

/// The context of a rights call over an optional entry store and an optional profile side, after
/// `options.rootFolder` is checked.
fn rights_op(
    call: Call,
    root: &Option<String>,
    entries: JsValue,
    profiles: JsValue,
    options: Option<String>,
    hosts: JsValue,
) -> Result<(Op<Option<StoreRef>>, Option<Profiles>, Acting)> {
    root_folder(call.0, root)?;
    let options: RightsOptions = call.options("options", options)?;
    let acting = Acting::of(&options)?;
    let op = Op::new(options.store_timeout_ms, || entry_store(entries), hosts)?;
    Ok((op, Profiles::from_js(profiles)?, acting))
}

/// `eraseUserData(userId, …)` for one entry store and/or one profile side → task of the
/// erasure report.
#[wasm_bindgen(js_name = eraseUserData)]
pub fn erase_user_data(
    user_id: String,
    entries: JsValue,
    profiles: JsValue,
    root: Option<String>,
    options: Option<String>,
    hosts: JsValue,
) -> Result<u32> {
    let call = Call("eraseUserData");
    let (op, profiles, acting) = rights_op(call, &root, entries, profiles, options, hosts)?;
    spawn(async move {
        let side = profiles
            .as_ref()
            .map(|p| ProfileSide::new(p, root.as_deref(), &op))
            .transpose()?;
        let (store, writer) = (op.store(), acting.writer(&op.hosts));
        // `repair`: the one-off erasure of an id the user-id rule refuses (its entries and history).
        let report = match (acting.repair, store.as_ref()) {
            (true, Some(store)) => rights::erase_invalid_user_data(&user_id, store, writer).await?,
            _ => rights::erase_user_data(&user_id, store.as_ref(), side.as_ref(), writer).await?,
        };
        json_out(&report)
    })
}

/// `exportUserData(userId, …)` of one entry store and/or one profile side → task of the export
/// document.
#[wasm_bindgen(js_name = exportUserData)]
pub fn export_user_data(
    user_id: String,
    entries: JsValue,
    profiles: JsValue,
    root: Option<String>,
    options: Option<String>,
    hosts: JsValue,
) -> Result<u32> {
    let call = Call("exportUserData");
    let (op, profiles, acting) = rights_op(call, &root, entries, profiles, options, hosts)?;
    spawn(async move {
        let side = profiles
            .as_ref()
            .map(|p| ProfileSide::new(p, root.as_deref(), &op))
            .transpose()?;
        let (store, writer) = (op.store(), acting.writer(&op.hosts));
        let document =
            rights::export_user_data(writer, &user_id, store.as_ref(), side.as_ref()).await?;
        json_out(&document)
    })
}

/// `importUserData(document, …)` into one entry store and/or one profile side → task of
/// `{ entries, profile, secrets }`; `together`: the entry store is the profile side's storage.
#[wasm_bindgen(js_name = importUserData)]
pub fn import_user_data(
    document: String,
    entries: JsValue,
    profiles: JsValue,
    root: Option<String>,
    together: bool,
    options: Option<String>,
    hosts: JsValue,
) -> Result<u32> {
    let call = Call("importUserData");
    let document: UserDataExport = call.json("document", &document)?;
    let (op, profiles, acting) = rights_op(call, &root, entries, profiles, options, hosts)?;
    spawn(async move {
        let side = profiles
            .as_ref()
            .map(|p| ProfileSide::new(p, root.as_deref(), &op))
            .transpose()?;
        let (store, writer) = (op.store(), acting.writer(&op.hosts));
        let (entries, side) = (store.as_ref(), side.as_ref());
        let search = op.hosts(&store, acting.embedder.as_ref()).search();
        let report = rights::import::import_user_data_by(
            &document,
            entries,
            side,
            together,
            Some(writer),
            Some(&search),
        );
        json_out(&report.await?)
    })
}
