//! The host traits over the JS adapters of `js/host.js`. An adapter is an object of **our** JS
//! code: it calls the user's callback inside a `try`, and answers with JSON text (or, for the
//! synchronous callbacks, a plain string or number). So the only JS values read here are our own;
//! what the user's callback returned is decoded from JSON with the shape checks below, and an
//! unusable answer is `E_HOST` naming the callback and the field.

use super::boundary::{decode, TimeArg};
use super::task::host_call;
use crate::entries::{Entry, EntryStore};
use crate::error::{Error, ErrorCode, Result};
use crate::host::{
    Clock, Completion, CompletionRequest, IdSource, LanguageModel, LogEvent, Logger, Notice,
    Notifier, ProfileStore, StoredText, Timer, TokenCounter, Usage, WriteOptions,
};
use serde::de::DeserializeOwned;
use serde::Deserialize;
use wasm_bindgen::{JsCast, JsValue};

/// A JS adapter object: each method takes a host-call id first (async) or runs synchronously.
#[derive(Clone)]
pub(crate) struct Adapter(JsValue);

impl Adapter {
    pub(crate) fn new(object: JsValue) -> Adapter {
        Adapter(object)
    }

    fn method(&self, name: &str) -> Option<js_sys::Function> {
        js_sys::Reflect::get(&self.0, &JsValue::from_str(name))
            .ok()
            .and_then(|f| f.dyn_into::<js_sys::Function>().ok())
    }

    /// The adapter object itself.
    pub(crate) fn value(&self) -> JsValue {
        self.0.clone()
    }

    /// Whether the adapter has this method (the user supplied that callback).
    pub(crate) fn has(&self, name: &str) -> bool {
        self.method(name).is_some()
    }

    /// An async host call; resolves to the adapter's JSON text.
    async fn call(&self, name: &str, args: &[JsValue]) -> Result<String> {
        let method = self
            .method(name)
            .ok_or_else(|| Error::internal(format!("the host adapter has no `{name}`")))?;
        host_call(&method, &self.0, args).await
    }

    /// A synchronous host call.
    fn call_sync(&self, name: &str, args: &[JsValue]) -> Option<JsValue> {
        let method = self.method(name)?;
        let array = js_sys::Array::new();
        for arg in args {
            array.push(arg);
        }
        method.apply(&self.0, &array).ok()
    }
}

/// Decode what a host callback answered; a wrong shape is `E_HOST` naming it and the field.
fn answer<T: DeserializeOwned>(callback: &str, json: &str) -> Result<T> {
    decode(json).map_err(|(path, message)| {
        let at = if path.is_empty() || path == "." {
            String::new()
        } else {
            format!(" at `{path}`")
        };
        Error::new(
            ErrorCode::Host,
            format!("{callback} returned an unusable value{at}: {message}"),
        )
        .with_details(serde_json::json!({ "operation": callback, "path": path }))
    })
}

/// A version token: a string, or a number written as its decimal text.
#[derive(Debug, Clone, PartialEq, Eq)]
struct Version(String);

impl<'de> Deserialize<'de> for Version {
    fn deserialize<D: serde::Deserializer<'de>>(d: D) -> std::result::Result<Self, D::Error> {
        struct Token;
        impl serde::de::Visitor<'_> for Token {
            type Value = Version;
            fn expecting(&self, f: &mut std::fmt::Formatter) -> std::fmt::Result {
                f.write_str("a version string or number (or null for storage without versions)")
            }
            fn visit_str<E>(self, text: &str) -> std::result::Result<Version, E> {
                Ok(Version(text.to_string()))
            }
            fn visit_u64<E>(self, n: u64) -> std::result::Result<Version, E> {
                Ok(Version(n.to_string()))
            }
            fn visit_i64<E>(self, n: i64) -> std::result::Result<Version, E> {
                Ok(Version(n.to_string()))
            }
            fn visit_f64<E>(self, n: f64) -> std::result::Result<Version, E> {
                Ok(Version(n.to_string()))
            }
        }
        d.deserialize_any(Token)
    }
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct ReadAnswer {
    text: String,
    #[serde(default)]
    version: Option<Version>,
}

#[derive(Deserialize)]
#[serde(untagged)]
enum WriteAnswer {
    Version { version: Option<Version> },
    Text(String),
}

/// Profile storage (SPEC §5) over a JS adapter.
pub(crate) struct JsStorage(pub(crate) Adapter);

impl ProfileStore for JsStorage {
    async fn read(&self, path: &str) -> Result<Option<StoredText>> {
        let json = self.0.call("read", &[path.into()]).await?;
        let answer: Option<ReadAnswer> = answer("storage.read", &json)?;
        Ok(answer.map(|a| StoredText {
            text: a.text,
            version: a.version.map(|v| v.0),
        }))
    }

    async fn write(
        &self,
        path: &str,
        text: &str,
        options: &WriteOptions,
    ) -> Result<Option<String>> {
        let options = serde_json::to_string(options)
            .map_err(|e| Error::internal(format!("write options: {e}")))?;
        let json = self
            .0
            .call("write", &[path.into(), text.into(), options.into()])
            .await?;
        let answer: Option<WriteAnswer> = answer("storage.write", &json)?;
        Ok(match answer {
            Some(WriteAnswer::Version { version }) => version.map(|v| v.0),
            Some(WriteAnswer::Text(version)) => Some(version),
            None => None,
        })
    }

    async fn remove(&self, path: &str) -> Result<()> {
        self.0.call("remove", &[path.into()]).await.map(|_| ())
    }

    async fn ensure_root(&self, root_folder: &str) -> Result<()> {
        self.0
            .call("ensureRoot", &[root_folder.into()])
            .await
            .map(|_| ())
    }
}

#[derive(Deserialize)]
#[serde(rename_all = "camelCase")]
struct AnswerUsage {
    #[serde(default)]
    input_tokens: Option<f64>,
    #[serde(default)]
    output_tokens: Option<f64>,
}

#[derive(Deserialize)]
struct ModelAnswer {
    text: String,
    #[serde(default)]
    usage: Option<AnswerUsage>,
}

fn tokens(value: Option<f64>) -> u64 {
    value
        .filter(|n| n.is_finite() && *n >= 0.0)
        .map_or(0, |n| n.min(9_007_199_254_740_991.0) as u64)
}

/// The language model over a JS adapter (the adapter aborts its `AbortSignal` when the call is
/// dropped).
pub(crate) struct JsModel(pub(crate) Adapter);

impl LanguageModel for JsModel {
    async fn complete(&self, request: &CompletionRequest) -> Result<Completion> {
        let request = serde_json::to_string(request)
            .map_err(|e| Error::internal(format!("model request: {e}")))?;
        let json = self.0.call("complete", &[request.into()]).await?;
        let answer: ModelAnswer = answer("model.complete", &json)?;
        Ok(Completion {
            text: answer.text,
            usage: answer.usage.map(|u| Usage {
                input_tokens: tokens(u.input_tokens),
                output_tokens: tokens(u.output_tokens),
            }),
        })
    }
}

/// `onNotice` over a JS adapter.
pub(crate) struct JsNotifier(pub(crate) Adapter);

impl Notifier for JsNotifier {
    async fn on_notice(&self, notice: &Notice) -> Result<()> {
        let notice =
            serde_json::to_string(notice).map_err(|e| Error::internal(format!("notice: {e}")))?;
        self.0.call("notice", &[notice.into()]).await.map(|_| ())
    }
}

/// `log(event)` over a JS adapter; synchronous, its failures ignored.
pub(crate) struct JsLogger(pub(crate) Adapter);

impl Logger for JsLogger {
    fn log(&self, event: &LogEvent) {
        if let Ok(event) = serde_json::to_string(event) {
            let _ = self.0.call_sync("log", &[event.into()]);
        }
    }
}

/// The host timer over a JS adapter (`setTimeout`; cleared when the sleep is dropped).
pub(crate) struct JsTimer(pub(crate) Adapter);

impl Timer for JsTimer {
    async fn sleep(&self, ms: u64) {
        let _ = self.0.call("sleep", &[JsValue::from(ms as f64)]).await;
    }
}

/// The host clock: the adapter's `now()` (JSON text of what the user's `now` returned), or
/// `Date.now()` when there is none or it answered something unusable — time never stops a
/// write.
pub(crate) struct JsClock(pub(crate) Adapter);

impl Clock for JsClock {
    fn now(&self) -> chrono::DateTime<chrono::Utc> {
        self.0
            .call_sync("now", &[])
            .and_then(|v| v.as_string())
            .and_then(|json| decode::<TimeArg>(&json).ok())
            .map(|t| t.0)
            .unwrap_or_else(|| {
                chrono::DateTime::from_timestamp_millis(js_sys::Date::now() as i64)
                    .unwrap_or_default()
            })
    }
}

/// The host id source: the adapter's `newId()`, or 128 random bits as 32 hex digits.
pub(crate) struct JsIds(pub(crate) Adapter);

impl IdSource for JsIds {
    fn new_id(&self) -> String {
        if let Some(id) = self
            .0
            .call_sync("newId", &[])
            .and_then(|v| v.as_string())
            .filter(|s| !s.is_empty())
        {
            return id;
        }
        random_id()
    }
}

fn random_id() -> String {
    let mut bytes = [0u8; 16];
    if getrandom::fill(&mut bytes).is_err() {
        // No CSPRNG (never seen in Node, browsers or workerd): time + a counter stay unique
        // within this instance.
        let n = COUNTER.with(|c| {
            let next = c.get().wrapping_add(1);
            c.set(next);
            next
        });
        let t = js_sys::Date::now() as u64;
        let (high, low) = bytes.split_at_mut(8);
        high.copy_from_slice(&t.to_be_bytes());
        low.copy_from_slice(&n.to_be_bytes());
    }
    bytes.iter().map(|b| format!("{b:02x}")).collect()
}

thread_local! {
    static COUNTER: std::cell::Cell<u64> = const { std::cell::Cell::new(0) };
}

/// A host `countTokens(text) → number`, synchronous: the adapter answers the count, or the
/// error as JSON text.
pub(crate) struct HostCounter(pub(crate) Adapter);

impl TokenCounter for HostCounter {
    fn count(&self, text: &str) -> Result<usize> {
        let value = self
            .0
            .call_sync("countTokens", &[text.into()])
            .ok_or_else(|| Error::internal("the countTokens adapter failed"))?;
        if let Some(n) = value.as_f64() {
            return Ok(n as usize);
        }
        Err(value
            .as_string()
            .map(|json| super::boundary::error_from_json(&json))
            .unwrap_or_else(|| Error::new(ErrorCode::Host, "countTokens failed")))
    }
}

/// An entry store over a JS adapter (SPEC §5; every method may be async on the user's side).
pub(crate) struct JsEntryStore(pub(crate) Adapter);

impl EntryStore for JsEntryStore {
    async fn list(&self, user_id: &str) -> Result<Vec<Entry>> {
        let json = self.0.call("list", &[user_id.into()]).await?;
        Ok(answer::<Option<Vec<Entry>>>("store.list", &json)?.unwrap_or_default())
    }
    async fn get(&self, id: &str) -> Result<Option<Entry>> {
        let json = self.0.call("get", &[id.into()]).await?;
        answer("store.get", &json)
    }
    async fn upsert(&self, entry: &Entry) -> Result<()> {
        let entry =
            serde_json::to_string(entry).map_err(|e| Error::internal(format!("entry: {e}")))?;
        self.0.call("upsert", &[entry.into()]).await.map(|_| ())
    }
    async fn delete(&self, id: &str) -> Result<bool> {
        let json = self.0.call("delete", &[id.into()]).await?;
        // A store that answers nothing is taken to have deleted (most SQL drivers return
        // counts); `false` and `0` mean nothing was there.
        let value: serde_json::Value = answer("store.delete", &json)?;
        Ok(!matches!(value, serde_json::Value::Bool(false)) && value.as_f64() != Some(0.0))
    }
    async fn increment_access(&self, ids: &[String]) -> Result<()> {
        let ids = serde_json::to_string(ids).map_err(|e| Error::internal(format!("ids: {e}")))?;
        self.0
            .call("incrementAccess", &[ids.into()])
            .await
            .map(|_| ())
    }
    async fn count_user(&self, user_id: &str) -> Result<Option<usize>> {
        if !self.0.has("countUser") {
            return Ok(None);
        }
        let json = self.0.call("countUser", &[user_id.into()]).await?;
        let count: Option<f64> = answer("store.countUser", &json)?;
        Ok(count
            .filter(|n| n.is_finite() && *n >= 0.0)
            .map(|n| n as usize))
    }
    async fn search(&self, user_id: &str, query: &str) -> Result<Option<Vec<Entry>>> {
        if !self.0.has("search") {
            return Ok(None);
        }
        let json = self
            .0
            .call("search", &[user_id.into(), query.into()])
            .await?;
        answer("store.search", &json)
    }
}
