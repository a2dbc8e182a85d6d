//! Entry stores seen from the core: the bundled in-memory store (a wasm-resident handle, so
//! recall and search over thousands of entries never cross the boundary) or any JS object with
//! the SPEC §5 methods (each may be sync or async).

use super::args;
use super::errors::{to_js, JsResult};
use super::host::{call, method};
use crate::entries::{Entry, InMemoryEntryStore as CoreStore};
use crate::error::{Error, ErrorCode, Result};
use crate::host::EntryStore;
use serde::de::DeserializeOwned;
use std::rc::Rc;
use wasm_bindgen::prelude::*;

fn entry_arg(function: &str, value: &JsValue) -> Result<Entry> {
    args::object(function, "entry", value)
}

/// The bundled in-memory entry store. Implements the host interface itself (`list`, `get`,
/// `upsert`, `delete`, `incrementAccess`, `countUser`), synchronously.
#[wasm_bindgen(js_name = InMemoryEntryStore)]
pub struct InMemoryEntryStoreHandle {
    pub(crate) inner: Rc<CoreStore>,
}

#[wasm_bindgen(js_class = InMemoryEntryStore)]
impl InMemoryEntryStoreHandle {
    /// An empty store.
    #[wasm_bindgen(constructor)]
    pub fn new() -> InMemoryEntryStoreHandle {
        InMemoryEntryStoreHandle {
            inner: Rc::new(CoreStore::new()),
        }
    }

    /// Every entry of a user.
    pub fn list(&self, user_id: JsValue) -> JsResult<JsValue> {
        let user_id = args::string("InMemoryEntryStore.list", "userId", &user_id).map_err(to_js)?;
        args::to_js(&self.inner.list_now(&user_id).map_err(to_js)?).map_err(to_js)
    }

    /// One entry by id, or `null`.
    pub fn get(&self, id: JsValue) -> JsResult<JsValue> {
        let id = args::string("InMemoryEntryStore.get", "id", &id).map_err(to_js)?;
        match self.inner.get_now(&id).map_err(to_js)? {
            Some(entry) => args::to_js(&entry).map_err(to_js),
            None => Ok(JsValue::NULL),
        }
    }

    /// Insert or replace an entry (by id).
    pub fn upsert(&self, entry: JsValue) -> JsResult<()> {
        let entry = entry_arg("InMemoryEntryStore.upsert", &entry).map_err(to_js)?;
        self.inner.upsert_now(&entry).map_err(to_js)
    }

    /// Delete by id; `true` when something was deleted.
    pub fn delete(&self, id: JsValue) -> JsResult<bool> {
        let id = args::string("InMemoryEntryStore.delete", "id", &id).map_err(to_js)?;
        self.inner.delete_now(&id).map_err(to_js)
    }

    /// Add one to the access count of each id.
    #[wasm_bindgen(js_name = incrementAccess)]
    pub fn increment_access(&self, ids: JsValue) -> JsResult<()> {
        let ids: Vec<String> = serde_wasm_bindgen::from_value(ids).map_err(|_| {
            to_js(Error::argument(
                "InMemoryEntryStore.incrementAccess",
                "ids",
                "an array of strings",
            ))
        })?;
        self.inner.increment_access_now(&ids).map_err(to_js)
    }

    /// Entries of a user that count toward `maxEntriesPerUser` (`_gdpr_` keys excluded).
    #[wasm_bindgen(js_name = countUser)]
    pub fn count_user(&self, user_id: JsValue) -> JsResult<u32> {
        let user_id =
            args::string("InMemoryEntryStore.countUser", "userId", &user_id).map_err(to_js)?;
        self.inner
            .count_user_now(&user_id)
            .map(|n| n as u32)
            .map_err(to_js)
    }

    /// Number of entries of all users.
    #[wasm_bindgen(getter)]
    pub fn size(&self) -> u32 {
        self.inner.len() as u32
    }
}

impl Default for InMemoryEntryStoreHandle {
    fn default() -> Self {
        Self::new()
    }
}

/// A host object with the entry-store methods.
#[derive(Clone)]
pub(crate) struct JsEntryStore {
    object: JsValue,
}

impl JsEntryStore {
    /// Adapt a host object; `E_ARGUMENT` naming the first missing method.
    pub(crate) fn from_js(function: &str, object: &JsValue) -> Result<JsEntryStore> {
        if !object.is_object() {
            return Err(Error::argument(function, "store", "an entry store object"));
        }
        for name in ["list", "get", "upsert", "delete", "incrementAccess"] {
            if method(object, name).is_none() {
                return Err(Error::argument(
                    function,
                    "store",
                    &format!("an entry store with a `{name}` method (list, get, upsert, delete, incrementAccess)"),
                ));
            }
        }
        Ok(JsEntryStore {
            object: object.clone(),
        })
    }

    async fn invoke(&self, name: &str, args: &[JsValue]) -> Result<JsValue> {
        let function = method(&self.object, name).ok_or_else(|| {
            Error::new(ErrorCode::Host, format!("store.{name} is not a function"))
        })?;
        call(&format!("store.{name}"), &function, &self.object, args).await
    }
}

fn returned<T: DeserializeOwned>(what: &str, value: JsValue) -> Result<T> {
    serde_wasm_bindgen::from_value(value).map_err(|e| {
        Error::new(
            ErrorCode::Host,
            format!("{what} returned an unusable value: {e}"),
        )
    })
}

fn entry_js(entry: &Entry) -> Result<JsValue> {
    args::to_js(entry)
}

impl EntryStore for JsEntryStore {
    async fn list(&self, user_id: &str) -> Result<Vec<Entry>> {
        let value = self.invoke("list", &[user_id.into()]).await?;
        if value.is_null() || value.is_undefined() {
            return Ok(Vec::new());
        }
        returned("store.list", value)
    }
    async fn get(&self, id: &str) -> Result<Option<Entry>> {
        let value = self.invoke("get", &[id.into()]).await?;
        if value.is_null() || value.is_undefined() {
            return Ok(None);
        }
        returned("store.get", value).map(Some)
    }
    async fn upsert(&self, entry: &Entry) -> Result<()> {
        self.invoke("upsert", &[entry_js(entry)?]).await.map(|_| ())
    }
    async fn delete(&self, id: &str) -> Result<bool> {
        let value = self.invoke("delete", &[id.into()]).await?;
        // A store that answers nothing is taken to have deleted (most SQL drivers return counts).
        Ok(value.as_bool().unwrap_or(true) && value.as_f64() != Some(0.0))
    }
    async fn increment_access(&self, ids: &[String]) -> Result<()> {
        let array = js_sys::Array::new();
        for id in ids {
            array.push(&JsValue::from_str(id));
        }
        self.invoke("incrementAccess", &[array.into()])
            .await
            .map(|_| ())
    }
    async fn count_user(&self, user_id: &str) -> Result<Option<usize>> {
        if method(&self.object, "countUser").is_none() {
            return Ok(None);
        }
        let value = self.invoke("countUser", &[user_id.into()]).await?;
        Ok(value.as_f64().filter(|n| *n >= 0.0).map(|n| n as usize))
    }
    async fn search(&self, user_id: &str, query: &str) -> Result<Option<Vec<Entry>>> {
        if method(&self.object, "search").is_none() {
            return Ok(None);
        }
        let value = self
            .invoke("search", &[user_id.into(), query.into()])
            .await?;
        if value.is_null() || value.is_undefined() {
            return Ok(None);
        }
        returned("store.search", value).map(Some)
    }
}

/// Either store, as the core sees it.
pub(crate) enum StoreRef {
    /// The wasm-resident in-memory store.
    Native(Rc<CoreStore>),
    /// A host object.
    Host(JsEntryStore),
}

impl EntryStore for StoreRef {
    async fn list(&self, user_id: &str) -> Result<Vec<Entry>> {
        match self {
            StoreRef::Native(s) => s.list(user_id).await,
            StoreRef::Host(s) => s.list(user_id).await,
        }
    }
    async fn get(&self, id: &str) -> Result<Option<Entry>> {
        match self {
            StoreRef::Native(s) => s.get(id).await,
            StoreRef::Host(s) => s.get(id).await,
        }
    }
    async fn upsert(&self, entry: &Entry) -> Result<()> {
        match self {
            StoreRef::Native(s) => s.upsert(entry).await,
            StoreRef::Host(s) => s.upsert(entry).await,
        }
    }
    async fn delete(&self, id: &str) -> Result<bool> {
        match self {
            StoreRef::Native(s) => s.delete(id).await,
            StoreRef::Host(s) => s.delete(id).await,
        }
    }
    async fn increment_access(&self, ids: &[String]) -> Result<()> {
        match self {
            StoreRef::Native(s) => s.increment_access(ids).await,
            StoreRef::Host(s) => s.increment_access(ids).await,
        }
    }
    async fn count_user(&self, user_id: &str) -> Result<Option<usize>> {
        match self {
            StoreRef::Native(s) => s.count_user(user_id).await,
            StoreRef::Host(s) => s.count_user(user_id).await,
        }
    }
    async fn search(&self, user_id: &str, query: &str) -> Result<Option<Vec<Entry>>> {
        match self {
            StoreRef::Native(s) => s.search(user_id, query).await,
            StoreRef::Host(s) => s.search(user_id, query).await,
        }
    }
    fn with_entries<R>(
        &self,
        user_id: &str,
        f: impl FnOnce(&crate::entries::entry_set::EntrySet) -> R,
    ) -> Option<R> {
        match self {
            StoreRef::Native(s) => s.with_entries(user_id, f),
            StoreRef::Host(_) => None,
        }
    }
}

/// An entry store as a value the async bindings can own: made from the in-memory handle (shared)
/// or a host object. The JS layer makes one per call; users never see it.
#[wasm_bindgen]
pub struct EntryStoreRef {
    pub(crate) inner: StoreRef,
}

#[wasm_bindgen]
impl EntryStoreRef {
    /// Share the wasm-resident in-memory store.
    pub fn native(store: &InMemoryEntryStoreHandle) -> EntryStoreRef {
        EntryStoreRef {
            inner: StoreRef::Native(store.inner.clone()),
        }
    }

    /// Adapt a host object (`E_ARGUMENT` naming `function` when methods are missing).
    pub fn host(store: JsValue, function: &str) -> JsResult<EntryStoreRef> {
        let store = JsEntryStore::from_js(function, &store).map_err(to_js)?;
        Ok(EntryStoreRef {
            inner: StoreRef::Host(store),
        })
    }
}
