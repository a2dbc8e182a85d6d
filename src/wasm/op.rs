//! The one context of every store-using async export: its entry store, the host callbacks
//! (`now`, `newId`, the timer) and the deadline of each store call (`storeTimeoutMs`, behaviour
//! §5), decoded before the task starts. Every such export takes `storeTimeoutMs` the same way, so
//! none can hard-code the default.

use super::boundary::Call;
use super::entry_store::StoreRef;
use super::host::{Adapter, Js};
use memcore::boundary::adapter::Remote;
use memcore::entries::embedding::EmbedderSpec;
use memcore::entries::memory_tools::store_timeout_ms;
use memcore::error::Result;
use memcore::host::{Hosts, Timed};
use serde::Deserialize;
use wasm_bindgen::JsValue;

/// `{ storeTimeoutMs? }`: the options of an export that decodes no other option in Rust.
#[derive(Deserialize, Default)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub(crate) struct StoreOptions {
    #[serde(default)]
    pub(crate) store_timeout_ms: Option<u64>,
}

impl StoreOptions {
    /// The options argument named `options` of `call`: absent or `null` → defaults.
    pub(crate) fn decode(call: Call, options: Option<String>) -> Result<StoreOptions> {
        call.options("options", options)
    }
}

/// One operation's store (`StoreRef`, or `Option<StoreRef>` where the store is optional), its
/// hosts and the deadline of each store call.
pub(crate) struct Op<S = StoreRef> {
    pub(crate) store: S,
    pub(crate) hosts: Js,
    pub(crate) ms: u64,
}

impl<S> Op<S> {
    /// The context of an export: `store_timeout` is its `storeTimeoutMs` option (absent → the
    /// default; out of range → `E_CONFIG`, reported before the store argument's error).
    pub(crate) fn new(
        store_timeout: Option<u64>,
        store: impl FnOnce() -> Result<S>,
        hosts: JsValue,
    ) -> Result<Op<S>> {
        let ms = store_timeout_ms(store_timeout)?;
        Ok(Op {
            ms,
            store: store()?,
            hosts: Remote(Adapter::new(hosts)),
        })
    }

    /// The core's [`Hosts`] of this export over `entries` (no model): the adapter is the clock,
    /// ids, timer, log and embedder.
    pub(crate) fn hosts<'a, E>(
        &'a self,
        entries: &'a E,
        embedder: Option<&'a EmbedderSpec>,
    ) -> Hosts<'a, E, Js> {
        Hosts {
            entries,
            host: &self.hosts,
            model: None,
            embedder,
        }
    }

    /// `host` with this operation's deadline on each call.
    pub(crate) fn timed<'a, H>(&'a self, host: &'a H) -> Timed<'a, H, Js> {
        Timed {
            host,
            timer: &self.hosts,
            ms: self.ms,
        }
    }
}

impl Op {
    /// The entry store, each call with the deadline.
    pub(crate) fn store(&self) -> Timed<'_, StoreRef, Js> {
        self.timed(&self.store)
    }
}

impl Op<Option<StoreRef>> {
    /// The entry store when one was given, each call with the deadline.
    pub(crate) fn store(&self) -> Option<Timed<'_, StoreRef, Js>> {
        self.store.as_ref().map(|store| self.timed(store))
    }
}
