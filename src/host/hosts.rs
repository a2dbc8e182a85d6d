//! How every operation holds its hosts: one [`Hosts`] value, the same for the turn's learning,
//! Dream, `learnFromTurn`, the memory tools and the REST/MCP memory operations.
//!
//! An operation reaches the host through three kinds of object, because they vary
//! independently:
//! - **the entry store** it works on (the live store, a snapshot for `asOf`, or the store with a
//!   deadline on each call);
//! - **the language model**, when the operation has one (Dream without summarisation and the
//!   tools have none);
//! - **everything else** (the clock, ids, the timer, the log and the embedder): one [`Host`]
//!   value. In wasm it is the JS adapter; native hosts and tests build one from separate parts
//!   with [`Parts`].
//!
//! The embedder's configuration travels beside them: without one, nothing is embedded.

use super::{Clock, EmbedPurpose, Embedder, IdSource, LanguageModel, LogEvent, Logger, Timer};
use super::{Completion, CompletionRequest};
use crate::entries::embedding::{EmbedderSpec, Embedding};
use crate::entries::search::modes::SearchHosts;
use crate::error::Result;
use chrono::{DateTime, Utc};

/// Everything an operation calls on the host beside its stores and the model: the clock, ids,
/// the timer, the log and the embedder. Implemented by every type that has all five.
pub trait Host: Clock + IdSource + Timer + Logger + Embedder {}

impl<T: Clock + IdSource + Timer + Logger + Embedder> Host for T {}

/// One operation's hosts (see the module documentation).
pub struct Hosts<'a, S, H, M = NoModel> {
    /// The entry store the operation works on.
    pub entries: &'a S,
    /// The clock, ids, the timer, the log and the embedder.
    pub host: &'a H,
    /// The language model, when the operation has one.
    pub model: Option<&'a M>,
    /// The embedder's configuration; `None` → nothing is embedded (hybrid search ranks
    /// lexically).
    pub embedder: Option<&'a EmbedderSpec>,
}

impl<S, H, M> Clone for Hosts<'_, S, H, M> {
    fn clone(&self) -> Self {
        *self
    }
}

impl<S, H, M> Copy for Hosts<'_, S, H, M> {}

impl<'a, S, H: Host, M> Hosts<'a, S, H, M> {
    /// The same hosts over another entry store (a snapshot, a store with deadlines).
    pub fn with_entries<'b, S2>(&self, entries: &'b S2) -> Hosts<'b, S2, H, M>
    where
        'a: 'b,
    {
        Hosts {
            entries,
            host: self.host,
            model: self.model,
            embedder: self.embedder,
        }
    }

    /// The same hosts with another model (the model with its deadline).
    pub fn with_model<'b, M2>(&self, model: Option<&'b M2>) -> Hosts<'b, S, H, M2>
    where
        'a: 'b,
    {
        Hosts {
            entries: self.entries,
            host: self.host,
            model,
            embedder: self.embedder,
        }
    }

    /// The embedder with its configuration and deadlines, when one is configured.
    pub fn embedding(&self) -> Option<Embedding<'a, H, H>> {
        self.embedder.map(|spec| Embedding {
            host: self.host,
            spec,
            timer: self.host,
        })
    }

    /// What a ranked search needs of these hosts.
    pub fn search(&self) -> SearchHosts<'a, H, H, H> {
        SearchHosts {
            embedding: self.embedding(),
            log: self.host,
        }
    }
}

/// A model for operations that have none. It is never called: an operation checks
/// [`Hosts::model`] first.
#[derive(Debug, Clone, Copy, Default)]
pub struct NoModel;

impl LanguageModel for NoModel {
    async fn complete(&self, _request: &CompletionRequest) -> Result<Completion> {
        Err(crate::Error::config(
            "model",
            "no language model is configured",
        ))
    }
}

/// A [`Host`] from separate parts: a native host's (or a test's) clock, ids, timer, log and
/// embedder. Every method, defaults included, is the part's own.
#[derive(Debug, Clone, Default)]
pub struct Parts<C, I, T, L, E = super::NoEmbedder> {
    /// The clock.
    pub clock: C,
    /// The id source.
    pub ids: I,
    /// The timer.
    pub timer: T,
    /// The log.
    pub logger: L,
    /// The embedder.
    pub embedder: E,
}

impl<C: Clock, I, T, L, E> Clock for Parts<C, I, T, L, E> {
    fn now(&self) -> DateTime<Utc> {
        self.clock.now()
    }
}

impl<C, I: IdSource, T, L, E> IdSource for Parts<C, I, T, L, E> {
    fn new_id(&self) -> String {
        self.ids.new_id()
    }
    fn host_made(&self) -> bool {
        self.ids.host_made()
    }
}

impl<C, I, T: Timer, L, E> Timer for Parts<C, I, T, L, E> {
    async fn sleep(&self, ms: u64) {
        self.timer.sleep(ms).await
    }
    async fn pause(&self, ms: u64) {
        self.timer.pause(ms).await
    }
}

impl<C, I, T, L: Logger, E> Logger for Parts<C, I, T, L, E> {
    fn log(&self, event: &LogEvent) {
        self.logger.log(event)
    }
    fn enabled(&self) -> bool {
        self.logger.enabled()
    }
}

impl<C, I, T, L, E: Embedder> Embedder for Parts<C, I, T, L, E> {
    async fn embed(&self, texts: &[String], purpose: EmbedPurpose) -> Result<Vec<Vec<f32>>> {
        self.embedder.embed(texts, purpose).await
    }
}
