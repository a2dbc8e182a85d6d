//! Binding for `ContextMemory` (SPEC §1.7, §1.9, §1.10): a JS class over the core pipeline with
//! duck-typed host objects. Methods return Promises; each future owns an `Rc` of the pipeline, so
//! no borrow of the JS object lives across an await.

use super::args;
use super::errors::{to_js, JsResult};
use super::host::{call, JsClock, JsModel};
use super::profile_store::JsProfileStore;
use super::tokens::{counter_from_options, Counter};
use super::tools::callback;
use crate::error::{Error, Result};
use crate::host::{LogEvent, Logger, Notice, Notifier};
use crate::turn::{ContextMemory as Pipeline, ContextMemoryConfig, TurnHosts, TurnInput};
use std::rc::Rc;
use wasm_bindgen::prelude::*;

/// The host's `onNotice(notice)`; may be async; its failures are the core's to log and ignore.
pub(crate) struct JsNotifier(Option<js_sys::Function>);

impl Notifier for JsNotifier {
    async fn on_notice(&self, notice: &Notice) -> Result<()> {
        let Some(function) = &self.0 else {
            return Ok(());
        };
        let value = args::to_js(notice)?;
        call("onNotice", function, &JsValue::NULL, &[value])
            .await
            .map(|_| ())
    }
}

/// The host's `log(event)`; synchronous, its failures are ignored (logging never breaks a turn).
pub(crate) struct JsLogger(Option<js_sys::Function>);

impl Logger for JsLogger {
    fn log(&self, event: &LogEvent) {
        if let (Some(function), Ok(value)) = (&self.0, args::to_js(event)) {
            let _ = function.call1(&JsValue::NULL, &value);
        }
    }
}

type JsPipeline = Pipeline<JsProfileStore, JsModel, Counter, JsClock, JsNotifier, JsLogger>;

/// Profile memory for one host setup (`new ContextMemory(hosts, config)`).
#[wasm_bindgen(js_name = ContextMemory)]
pub struct ContextMemoryHandle {
    inner: Rc<JsPipeline>,
}

fn config_from(value: &JsValue) -> Result<ContextMemoryConfig> {
    if value.is_undefined() || value.is_null() {
        return Ok(ContextMemoryConfig::default());
    }
    if !value.is_object() || js_sys::Array::is_array(value) {
        return Err(Error::config("", "the configuration must be an object"));
    }
    serde_wasm_bindgen::from_value(value.clone()).map_err(|e| {
        let message = e.to_string();
        // serde names the offending field in its message; surface it as the path.
        let path = message
            .split('`')
            .nth(1)
            .filter(|p| !p.is_empty())
            .unwrap_or("")
            .to_string();
        Error::config(&path, message)
    })
}

/// `{ userId, enabled }`-style inputs: the id as a string, `enabled` absent → `false` (SPEC §1.8:
/// a payload without the flag means disabled).
fn user_and_enabled(function: &str, input: &JsValue) -> Result<(String, bool)> {
    args::options_object(function, "input", input)?;
    let user_id = args::string(function, "input.userId", &args::field(input, "userId"))?;
    let enabled = args::optional_bool(function, "input.enabled", &args::field(input, "enabled"))?
        .unwrap_or(false);
    Ok((user_id, enabled))
}

fn promise<F>(future: F) -> js_sys::Promise
where
    F: std::future::Future<Output = Result<JsValue>> + 'static,
{
    wasm_bindgen_futures::future_to_promise(async move { future.await.map_err(to_js) })
}

#[wasm_bindgen(js_class = ContextMemory)]
impl ContextMemoryHandle {
    /// `new ContextMemory({ storage, model, countTokens?, now?, log?, onNotice? }, config?)`.
    #[wasm_bindgen(constructor)]
    pub fn new(hosts: JsValue, config: JsValue) -> JsResult<ContextMemoryHandle> {
        const F: &str = "ContextMemory";
        let build = || -> Result<ContextMemoryHandle> {
            args::options_object(F, "hosts", &hosts)?;
            let config = config_from(&config)?;
            config.validate()?;
            let store = JsProfileStore::from_js(F, &args::field(&hosts, "storage"))?;
            let model = JsModel::from_js(&args::field(&hosts, "model")).ok_or_else(|| {
                Error::argument(
                    F,
                    "hosts.model",
                    "an object with complete(request), or a function",
                )
            })?;
            let counter_options = js_sys::Object::new();
            let _ = js_sys::Reflect::set(
                &counter_options,
                &"encoding".into(),
                &config.encoding.as_str().into(),
            );
            let count = args::field(&hosts, "countTokens");
            if !(count.is_undefined() || count.is_null()) {
                let _ = js_sys::Reflect::set(&counter_options, &"countTokens".into(), &count);
            }
            let counter = counter_from_options(F, &counter_options.into())
                .map_err(|e| e.in_argument(F, "hosts.countTokens"))?;
            let hosts = TurnHosts {
                store,
                model,
                counter,
                clock: JsClock(callback(F, &hosts, "now")?),
                notifier: JsNotifier(callback(F, &hosts, "onNotice")?),
                logger: JsLogger(callback(F, &hosts, "log")?),
            };
            Ok(ContextMemoryHandle {
                inner: Rc::new(Pipeline::new(config, hosts)?),
            })
        };
        build().map_err(to_js)
    }

    /// `load({ userId, enabled })` → the fitted profile and its system-prompt section.
    pub fn load(&self, input: JsValue) -> js_sys::Promise {
        let inner = self.inner.clone();
        promise(async move {
            let (user_id, enabled) = user_and_enabled("ContextMemory.load", &input)?;
            args::to_js(&inner.load(&user_id, enabled).await)
        })
    }

    /// `afterTurn({ userId, enabled, userMessage, assistantMessage })` → the turn report.
    /// Resolves for every expected failure (the outcome says what happened).
    #[wasm_bindgen(js_name = afterTurn)]
    pub fn after_turn(&self, input: JsValue) -> js_sys::Promise {
        const F: &str = "ContextMemory.afterTurn";
        let inner = self.inner.clone();
        promise(async move {
            let (user_id, enabled) = user_and_enabled(F, &input)?;
            let message = |name: &str| -> Result<String> {
                let value = args::field(&input, name);
                if value.is_undefined() || value.is_null() {
                    return Ok(String::new());
                }
                args::string(F, &format!("input.{name}"), &value)
            };
            let turn = TurnInput {
                user_id,
                enabled,
                user_message: message("userMessage")?,
                assistant_message: message("assistantMessage")?,
            };
            args::to_js(&inner.after_turn(&turn).await)
        })
    }

    /// `getMyContextMemory(userId)` → `{ exists, body, lastUpdated, turnCount }` (read-only).
    #[wasm_bindgen(js_name = getMyContextMemory)]
    pub fn get_my_context_memory(&self, user_id: JsValue) -> js_sys::Promise {
        let inner = self.inner.clone();
        promise(async move {
            let user_id = args::string("getMyContextMemory", "userId", &user_id)?;
            args::to_js(&inner.get_my_context_memory(&user_id).await?)
        })
    }

    /// `updateMyContextMemory(userId, body)` → `{ text, diagnostics }` (≤ 1 MiB, frontmatter kept).
    #[wasm_bindgen(js_name = updateMyContextMemory)]
    pub fn update_my_context_memory(&self, user_id: JsValue, body: JsValue) -> js_sys::Promise {
        let inner = self.inner.clone();
        promise(async move {
            let user_id = args::string("updateMyContextMemory", "userId", &user_id)?;
            let body = args::string("updateMyContextMemory", "body", &body)?;
            args::to_js(&inner.update_my_context_memory(&user_id, &body).await?)
        })
    }

    /// `deleteContextMemory(userId)` → whether a profile existed.
    #[wasm_bindgen(js_name = deleteContextMemory)]
    pub fn delete_context_memory(&self, user_id: JsValue) -> js_sys::Promise {
        let inner = self.inner.clone();
        promise(async move {
            let user_id = args::string("deleteContextMemory", "userId", &user_id)?;
            Ok(JsValue::from_bool(
                inner.delete_context_memory(&user_id).await?,
            ))
        })
    }
}
