//! The [`Transport`] of the host traits: calls to a JS adapter object of `js/host.js`. The
//! protocol (methods, JSON arguments, how answers are read) is the core's
//! ([`memcore::boundary::adapter`]); this only carries calls.

use memcore::boundary::adapter::{Arg, Remote, SyncAnswer, Transport};
use memcore::boundary::executor;
use memcore::error::{Error, Result};
use wasm_bindgen::{JsCast, JsValue};

/// A JS adapter object: each async method takes a host-call id first.
#[derive(Clone)]
pub(crate) struct Adapter(JsValue);

/// Every host trait over one adapter.
pub(crate) type Js = Remote<Adapter>;

impl Adapter {
    pub(crate) fn new(object: JsValue) -> Adapter {
        Adapter(object)
    }

    /// The adapter object itself.
    pub(crate) fn value(&self) -> JsValue {
        self.0.clone()
    }

    fn method(&self, name: &str) -> Option<js_sys::Function> {
        js_sys::Reflect::get(&self.0, &JsValue::from_str(name))
            .ok()
            .and_then(|f| f.dyn_into::<js_sys::Function>().ok())
    }

    fn apply(
        &self,
        method: &js_sys::Function,
        first: Option<u32>,
        args: &[Arg<'_>],
    ) -> Option<JsValue> {
        let array = js_sys::Array::new();
        if let Some(id) = first {
            array.push(&JsValue::from(id));
        }
        for arg in args {
            array.push(&match arg {
                Arg::Text(text) => JsValue::from_str(text),
                Arg::Number(n) => JsValue::from(*n),
            });
        }
        method.apply(&self.0, &array).ok()
    }
}

impl Transport for Adapter {
    fn has(&self, method: &str) -> bool {
        self.method(method).is_some()
    }

    async fn call(&self, method: &str, args: &[Arg<'_>]) -> Result<String> {
        let function = self
            .method(method)
            .ok_or_else(|| Error::internal(format!("the host adapter has no `{method}`")))?;
        let call = executor::begin_call();
        if self.apply(&function, Some(call.id()), args).is_none() {
            executor::settle(
                call.id(),
                Err(Error::internal("a memcore host adapter threw")),
            );
        }
        call.await
    }

    fn call_sync(&self, method: &str, args: &[Arg<'_>]) -> Option<SyncAnswer> {
        let value = self.apply(&self.method(method)?, None, args)?;
        match value.as_f64() {
            Some(n) => Some(SyncAnswer::Number(n)),
            None => value.as_string().map(SyncAnswer::Text),
        }
    }

    fn system_time_ms(&self) -> f64 {
        js_sys::Date::now()
    }

    fn fill_random(&self, bytes: &mut [u8]) -> bool {
        getrandom::fill(bytes).is_ok()
    }
}
