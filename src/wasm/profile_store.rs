//! A JS profile storage object seen as the core's [`ProfileStore`] (SPEC §5): `read(path) →
//! { text, version } | null`, `write(path, text, options) → { version }`, `remove(path)`,
//! `ensureRoot(rootFolder)`. Each may be sync or async; a thrown error with
//! `code: "E_VERSION_CONFLICT"` is a version conflict.

use super::args;
use super::host::{call, method};
use crate::error::{Error, ErrorCode, Result};
use crate::host::{ProfileStore, StoredText, WriteOptions};
use wasm_bindgen::JsValue;

/// A host profile storage object.
pub(crate) struct JsProfileStore {
    object: JsValue,
}

impl JsProfileStore {
    /// Adapt a host object; `E_ARGUMENT` naming the first missing method.
    pub(crate) fn from_js(function: &str, object: &JsValue) -> Result<JsProfileStore> {
        if !object.is_object() {
            return Err(Error::argument(
                function,
                "storage",
                "a profile storage object",
            ));
        }
        for name in ["read", "write", "remove"] {
            if method(object, name).is_none() {
                return Err(Error::argument(
                    function,
                    "storage",
                    &format!("a profile storage with a `{name}` method (read, write, remove, ensureRoot?)"),
                ));
            }
        }
        Ok(JsProfileStore {
            object: object.clone(),
        })
    }

    async fn invoke(&self, name: &str, args: &[JsValue]) -> Result<JsValue> {
        let function = method(&self.object, name).ok_or_else(|| {
            Error::new(ErrorCode::Host, format!("storage.{name} is not a function"))
        })?;
        call(&format!("storage.{name}"), &function, &self.object, args).await
    }
}

/// A version token from JS: strings as they are, numbers as their decimal text.
fn version_of(value: &JsValue) -> Option<String> {
    let version = js_sys::Reflect::get(value, &"version".into()).ok()?;
    version.as_string().or_else(|| {
        version
            .as_f64()
            .filter(|n| n.is_finite())
            .map(|n| format!("{n}"))
    })
}

impl ProfileStore for JsProfileStore {
    async fn read(&self, path: &str) -> Result<Option<StoredText>> {
        let value = self.invoke("read", &[path.into()]).await?;
        if value.is_null() || value.is_undefined() {
            return Ok(None);
        }
        if let Some(text) = value.as_string() {
            return Ok(Some(StoredText {
                text,
                version: None,
            }));
        }
        let text = js_sys::Reflect::get(&value, &"text".into())
            .ok()
            .and_then(|t| t.as_string())
            .ok_or_else(|| {
                Error::new(
                    ErrorCode::Host,
                    "storage.read must return { text, version? }, a string or null",
                )
            })?;
        Ok(Some(StoredText {
            text,
            version: version_of(&value),
        }))
    }

    async fn write(
        &self,
        path: &str,
        text: &str,
        options: &WriteOptions,
    ) -> Result<Option<String>> {
        let js_options = args::to_js(options)?;
        let value = self
            .invoke("write", &[path.into(), text.into(), js_options])
            .await?;
        Ok(if value.is_object() {
            version_of(&value)
        } else {
            value.as_string()
        })
    }

    async fn remove(&self, path: &str) -> Result<()> {
        self.invoke("remove", &[path.into()]).await.map(|_| ())
    }

    async fn ensure_root(&self, root_folder: &str) -> Result<()> {
        if method(&self.object, "ensureRoot").is_none() {
            return Ok(());
        }
        self.invoke("ensureRoot", &[root_folder.into()])
            .await
            .map(|_| ())
    }
}
