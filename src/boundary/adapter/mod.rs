//! The host traits over memcore's own JS host adapters (`js/host.js`): the protocol — method
//! names, JSON arguments, how each answer is read — lives here, in the boundary, and the wasm layer
//! only carries calls ([`Transport`]). An adapter calls the user's callback inside a `try` and
//! answers with JSON text (the synchronous callbacks: a plain string or number); what the user's
//! callback returned is decoded here with shape checks, and an unusable answer is `E_HOST`
//! naming the callback and the field.

use crate::boundary::json::{decode, to_json, Time, MAX_SAFE_INTEGER};
use crate::entries::search::vectors::from_base64;
use crate::error::{Error, ErrorCode, Result};
use crate::host::{
    Clock, Completion, CompletionRequest, EmbedPurpose, Embedder, IdSource, LanguageModel,
    LogEvent, Logger, Notice, Notifier, ProfileStore, StoredText, Timer, TokenCounter, Usage,
    WriteOptions,
};
use chrono::{DateTime, Utc};
use serde::de::DeserializeOwned;
use serde::{Deserialize, Serialize};
use std::cell::Cell;

mod entry_store;

/// One argument of an adapter call.
#[derive(Debug, Clone, Copy, PartialEq)]
pub enum Arg<'a> {
    /// A text (paths, JSON).
    Text(&'a str),
    /// A number (milliseconds).
    Number(f64),
}

/// What a synchronous adapter method answered.
#[derive(Debug, Clone, PartialEq)]
pub enum SyncAnswer {
    /// A string.
    Text(String),
    /// A number.
    Number(f64),
}

/// How calls reach an adapter object. The wasm layer implements it over a JS object of
/// `js/host.js`; native tests over a fake.
#[allow(async_fn_in_trait)]
pub trait Transport {
    /// Whether the adapter has this method (the user supplied that callback).
    fn has(&self, method: &str) -> bool;
    /// An async call; resolves to the adapter's JSON text, or the error it reported.
    async fn call(&self, method: &str, args: &[Arg<'_>]) -> Result<String>;
    /// A synchronous call; `None` when the method is missing or the call itself failed.
    fn call_sync(&self, method: &str, args: &[Arg<'_>]) -> Option<SyncAnswer>;
    /// The embedder's wall clock, in milliseconds since the epoch (the clock's fallback).
    fn system_time_ms(&self) -> f64;
    /// Fill `bytes` from a CSPRNG; `false` when there is none.
    fn fill_random(&self, bytes: &mut [u8]) -> bool;
}

/// A host over an adapter: implements every host trait by the protocol of `js/host.js`.
#[derive(Debug, Clone)]
pub struct Remote<T>(pub T);

/// Decode what a host callback answered; a wrong shape is `E_HOST` naming it and the field.
pub fn answer<T: DeserializeOwned>(callback: &str, json: &str) -> Result<T> {
    decode(json).map_err(|(path, message)| unusable(callback, path, &message))
}

/// The error of a host answer of the wrong shape (not generic: one copy in the wasm).
fn unusable(callback: &str, path: String, message: &str) -> Error {
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

/// `storage.read`: `null` (nothing stored), or `{ text, version? }`.
#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct ReadAnswer {
    text: String,
    #[serde(default)]
    version: Option<Version>,
}

/// What frames a text answer (see [`framed`]); JSON text never holds it unescaped.
pub const TEXT_FRAME: char = '\u{1}';

/// A text answer sent as a frame: `\u{1}` + the other fields as JSON + `\u{1}` + the text as it
/// is. `js/host.js` sends a profile read and a model answer so when the text is a string: the
/// profile then crosses without being escaped into JSON in JS and unescaped here. `None` when
/// `json` is plain JSON (what every other answer, and a native fake, sends).
fn framed(json: &str) -> Option<(&str, &str)> {
    json.strip_prefix(TEXT_FRAME)?.split_once(TEXT_FRAME)
}

/// `model.complete`'s request on the wire, but for its two prompts, which follow it as texts.
#[derive(Serialize)]
#[serde(rename_all = "camelCase")]
struct RequestFields {
    purpose: crate::host::Purpose,
    max_output_tokens: u32,
}

/// A framed read answer's other fields.
#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct ReadFields {
    #[serde(default)]
    version: Option<Version>,
}

/// A framed model answer's other fields.
#[derive(Deserialize)]
struct ModelFields {
    #[serde(default)]
    usage: Option<AnswerUsage>,
}

/// `storage.write`: nothing, a version string, or `{ version }`.
#[derive(Deserialize)]
#[serde(untagged)]
enum WriteAnswer {
    Version { version: Option<Version> },
    Text(String),
}

impl<T: Transport> ProfileStore for Remote<T> {
    async fn read(&self, path: &str) -> Result<Option<StoredText>> {
        let json = self.0.call("read", &[Arg::Text(path)]).await?;
        if let Some((fields, text)) = framed(&json) {
            let fields: ReadFields = answer("storage.read", fields)?;
            return Ok(Some(StoredText {
                text: text.to_string(),
                version: fields.version.map(|v| v.0),
            }));
        }
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
        let options = to_json(options)?;
        let args = [Arg::Text(path), Arg::Text(text), Arg::Text(&options)];
        let json = self.0.call("write", &args).await?;
        Ok(
            match answer::<Option<WriteAnswer>>("storage.write", &json)? {
                Some(WriteAnswer::Version { version }) => version.map(|v| v.0),
                Some(WriteAnswer::Text(version)) => Some(version),
                None => None,
            },
        )
    }

    async fn remove(&self, path: &str) -> Result<()> {
        self.0.call("remove", &[Arg::Text(path)]).await.map(drop)
    }

    async fn ensure_root(&self, root_folder: &str) -> Result<()> {
        let args = [Arg::Text(root_folder)];
        self.0.call("ensureRoot", &args).await.map(drop)
    }

    /// Missing method → no folders. The storage answers whether it removed one (`true`/`false`;
    /// nothing counts as removed).
    async fn remove_folder(&self, folder: &str) -> Result<bool> {
        if !self.0.has("removeFolder") {
            return Ok(false);
        }
        let json = self.0.call("removeFolder", &[Arg::Text(folder)]).await?;
        let value: serde_json::Value = answer("storage.removeFolder", &json)?;
        Ok(!matches!(value, serde_json::Value::Bool(false)))
    }
}

/// `model.complete`: `{ text, usage? }` (the adapter turns a plain string into `{ text }`).
#[derive(Deserialize)]
struct ModelAnswer {
    text: String,
    #[serde(default)]
    usage: Option<AnswerUsage>,
}

#[derive(Deserialize)]
#[serde(rename_all = "camelCase")]
struct AnswerUsage {
    #[serde(default)]
    input_tokens: Option<f64>,
    #[serde(default)]
    output_tokens: Option<f64>,
}

/// A reported token count: negative, non-finite or missing counts are 0; at most 2^53 − 1.
fn tokens(value: Option<f64>) -> u64 {
    value
        .filter(|n| n.is_finite() && *n >= 0.0)
        .map_or(0, |n| n.min(MAX_SAFE_INTEGER as f64) as u64)
}

impl<T: Transport> LanguageModel for Remote<T> {
    async fn complete(&self, request: &CompletionRequest) -> Result<Completion> {
        // The prompts cross as texts of their own: a profile in the prompt is neither escaped
        // into JSON here nor parsed out of it in JS (`js/host.js`, `completeAdapter`).
        let fields = to_json(&RequestFields {
            purpose: request.purpose,
            max_output_tokens: request.max_output_tokens,
        })?;
        let json = self
            .0
            .call(
                "complete",
                &[
                    Arg::Text(&fields),
                    Arg::Text(&request.system),
                    Arg::Text(&request.user),
                ],
            )
            .await?;
        let answer: ModelAnswer = match framed(&json) {
            Some((fields, text)) => {
                let fields: ModelFields = answer("model.complete", fields)?;
                ModelAnswer {
                    text: text.to_string(),
                    usage: fields.usage,
                }
            }
            None => answer("model.complete", &json)?,
        };
        Ok(Completion {
            text: answer.text,
            usage: answer.usage.map(|u| Usage {
                input_tokens: tokens(u.input_tokens),
                output_tokens: tokens(u.output_tokens),
            }),
        })
    }
}

/// `embedder.embed`'s answer on the wire (`js/host.js`): `{ f32: string[] }`, each vector the
/// base64 of its little-endian f32 bytes, when every component of every vector is a finite f32
/// (the common answer: no number is printed and parsed); else `{ vectors: number[][] }`
/// (typed arrays as arrays; a `NaN` or `Infinity` arrives as `null`), so every bad answer is
/// read and reported one way.
#[derive(Deserialize)]
struct EmbedAnswer {
    #[serde(default)]
    vectors: Vec<Vec<Option<f64>>>,
    #[serde(default)]
    f32: Option<Vec<String>>,
}

impl EmbedAnswer {
    /// The vectors as numbers (`None` for a component that is not one), whichever form came.
    fn components(self) -> Result<Vec<Vec<Option<f64>>>> {
        let Some(packed) = self.f32 else {
            return Ok(self.vectors);
        };
        packed
            .iter()
            .enumerate()
            .map(|(v, text)| {
                let bytes = from_base64(text)
                    .filter(|b| b.len() % 4 == 0)
                    .ok_or_else(|| {
                        Error::new(
                            ErrorCode::Host,
                            format!("embedder.embed answered vector {v} in an unreadable form"),
                        )
                        .with_details(serde_json::json!({ "operation": "embedder.embed", "path": format!("vectors[{v}]"), "transient": false }))
                    })?;
                Ok(bytes
                    .chunks_exact(4)
                    .map(|c| match c {
                        &[a, b, c, d] => Some(f64::from(f32::from_le_bytes([
                            a as u8, b as u8, c as u8, d as u8,
                        ]))),
                        _ => None,
                    })
                    .collect())
            })
            .collect()
    }
}

/// The largest answer of one embed call, per text (8,192 dimensions of 25 characters each):
/// anything longer is refused before it is parsed.
const EMBED_ANSWER_BYTES_PER_TEXT: usize = 8_192 * 25;

/// The request travels as `{ texts, purpose }`.
impl<T: Transport> Embedder for Remote<T> {
    async fn embed(&self, texts: &[String], purpose: EmbedPurpose) -> Result<Vec<Vec<f32>>> {
        let request = to_json(&serde_json::json!({ "texts": texts, "purpose": purpose }))?;
        let json = self.0.call("embed", &[Arg::Text(&request)]).await?;
        let limit = EMBED_ANSWER_BYTES_PER_TEXT.saturating_mul(texts.len()) + 1024;
        if json.len() > limit {
            return Err(Error::new(
                ErrorCode::Host,
                format!(
                    "embedder.embed answered {} bytes for {} texts; at most {limit} are read",
                    json.len(),
                    texts.len()
                ),
            )
            .with_details(
                serde_json::json!({ "operation": "embedder.embed", "transient": false }),
            ));
        }
        let answer: EmbedAnswer = answer("embedder.embed", &json)?;
        let components = answer.components()?;
        let mut vectors = Vec::with_capacity(components.len());
        for (v, vector) in components.into_iter().enumerate() {
            let mut out = Vec::with_capacity(vector.len());
            for (i, x) in vector.into_iter().enumerate() {
                match x {
                    Some(x) if x.is_finite() && x.abs() <= f64::from(f32::MAX) => {
                        out.push(x as f32)
                    }
                    _ => {
                        return Err(Error::new(
                            ErrorCode::Host,
                            format!("embedder.embed answered a vector whose component {i} of vector {v} is not a finite number"),
                        )
                        .with_details(serde_json::json!({ "operation": "embedder.embed", "path": format!("vectors[{v}][{i}]"), "transient": false })));
                    }
                }
            }
            vectors.push(out);
        }
        Ok(vectors)
    }
}

impl<T: Transport> Notifier for Remote<T> {
    async fn on_notice(&self, notice: &Notice) -> Result<()> {
        let notice = to_json(notice)?;
        self.0.call("notice", &[Arg::Text(&notice)]).await.map(drop)
    }
}

/// Synchronous; a failing `log` is ignored.
impl<T: Transport> Logger for Remote<T> {
    fn log(&self, event: &LogEvent) {
        if !self.enabled() {
            return;
        }
        if let Ok(event) = to_json(event) {
            let _ = self.0.call_sync("log", &[Arg::Text(&event)]);
        }
    }

    /// `js/host.js` gives the adapter a `log` only when the host gave one.
    fn enabled(&self) -> bool {
        self.0.has("log")
    }
}

/// The host timer (`setTimeout`; the adapter clears it when the sleep is dropped).
impl<T: Transport> Timer for Remote<T> {
    async fn sleep(&self, ms: u64) {
        let _ = self.0.call("sleep", &[Arg::Number(ms as f64)]).await;
    }
}

/// The adapter's `now()` (the JSON text of what the user's `now` returned), or the embedder's
/// wall clock when there is none or it answered something unusable — time never stops a write.
impl<T: Transport> Clock for Remote<T> {
    fn now(&self) -> DateTime<Utc> {
        match self.0.call_sync("now", &[]) {
            Some(SyncAnswer::Text(json)) => decode::<Time>(&json).ok().map(|t| t.0),
            _ => None,
        }
        .unwrap_or_else(|| {
            DateTime::from_timestamp_millis(self.0.system_time_ms() as i64).unwrap_or_default()
        })
    }
}

thread_local! {
    static COUNTER: Cell<u64> = const { Cell::new(0) };
}

/// The adapter's `newId()` when it answers a non-empty string, else 128 random bits as 32 hex
/// digits (without a CSPRNG — never seen in Node, browsers or workerd — the wall clock and a
/// counter, unique within this instance).
impl<T: Transport> IdSource for Remote<T> {
    fn host_made(&self) -> bool {
        self.0.has("newId")
    }
    fn new_id(&self) -> String {
        if let Some(SyncAnswer::Text(id)) = self.0.call_sync("newId", &[]) {
            if !id.is_empty() {
                return id;
            }
        }
        let mut bytes = [0u8; 16];
        if !self.0.fill_random(&mut bytes) {
            let n = COUNTER.with(|c| {
                c.set(c.get().wrapping_add(1));
                c.get()
            });
            let (high, low) = bytes.split_at_mut(8);
            high.copy_from_slice(&(self.0.system_time_ms() as u64).to_be_bytes());
            low.copy_from_slice(&n.to_be_bytes());
        }
        bytes.iter().map(|b| format!("{b:02x}")).collect()
    }
}

/// A host `countTokens(text) → number`, synchronous: the adapter answers the count, or the
/// error as JSON text.
impl<T: Transport> TokenCounter for Remote<T> {
    fn count(&self, text: &str) -> Result<usize> {
        match self.0.call_sync("countTokens", &[Arg::Text(text)]) {
            Some(SyncAnswer::Number(n)) => Ok(n as usize),
            Some(SyncAnswer::Text(json)) => Err(Error::from_json(&json)),
            None => Err(Error::internal("the countTokens adapter failed")),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::entries::store::PushDown;
    use crate::entries::EntryStore;
    use std::cell::RefCell;
    use std::collections::HashMap;

    /// Answers by method name; records the calls.
    #[derive(Default)]
    struct Fake {
        answers: HashMap<&'static str, Result<String>>,
        sync: HashMap<&'static str, SyncAnswer>,
        calls: RefCell<Vec<(String, Vec<String>)>>,
    }

    impl Transport for Fake {
        fn has(&self, method: &str) -> bool {
            self.answers.contains_key(method) || self.sync.contains_key(method)
        }
        async fn call(&self, method: &str, args: &[Arg<'_>]) -> Result<String> {
            let args = args
                .iter()
                .map(|a| match a {
                    Arg::Text(t) => (*t).to_string(),
                    Arg::Number(n) => n.to_string(),
                })
                .collect();
            self.calls.borrow_mut().push((method.to_string(), args));
            self.answers
                .get(method)
                .cloned()
                .unwrap_or_else(|| Ok("null".into()))
        }
        fn call_sync(&self, method: &str, _args: &[Arg<'_>]) -> Option<SyncAnswer> {
            self.sync.get(method).cloned()
        }
        fn system_time_ms(&self) -> f64 {
            1_790_000_000_000.0
        }
        fn fill_random(&self, _bytes: &mut [u8]) -> bool {
            false
        }
    }

    fn remote(answers: &[(&'static str, &str)]) -> Remote<Fake> {
        Remote(Fake {
            answers: answers
                .iter()
                .map(|(m, a)| (*m, Ok((*a).to_string())))
                .collect(),
            ..Fake::default()
        })
    }

    /// The fake never pends: one poll finishes every call.
    fn run<F: std::future::Future>(future: F) -> F::Output {
        struct Noop;
        impl std::task::Wake for Noop {
            fn wake(self: std::sync::Arc<Self>) {}
        }
        let waker = std::task::Waker::from(std::sync::Arc::new(Noop));
        let mut future = std::pin::pin!(future);
        let mut cx = std::task::Context::from_waker(&waker);
        match future.as_mut().poll(&mut cx) {
            std::task::Poll::Ready(out) => out,
            std::task::Poll::Pending => panic!("the fake transport never pends"),
        }
    }

    #[test]
    fn framed_text_answers_carry_the_text_as_it_is() {
        let host = remote(&[
            (
                "read",
                "\u{1}{\"version\":7}\u{1}a \u{1}{\"x\":1}\u{1} \\\" b",
            ),
            (
                "complete",
                "\u{1}{\"usage\":{\"inputTokens\":5}}\u{1}answer\u{1}",
            ),
        ]);
        let read = run(host.read("p")).unwrap().unwrap();
        assert_eq!(read.text, "a \u{1}{\"x\":1}\u{1} \\\" b");
        assert_eq!(read.version.as_deref(), Some("7"));
        let request = CompletionRequest {
            system: String::new(),
            user: String::new(),
            max_output_tokens: 1,
            purpose: crate::host::Purpose::Gate,
        };
        let done = run(host.complete(&request)).unwrap();
        assert_eq!(done.text, "answer\u{1}");
        assert_eq!(
            done.usage.map(|u| (u.input_tokens, u.output_tokens)),
            Some((5, 0))
        );
        // The other fields are still checked: an unknown one, or a bad version, is E_HOST.
        for bad in [
            "\u{1}{\"text\":\"x\"}\u{1}t",
            "\u{1}{\"version\":{}}\u{1}t",
            "\u{1}nope\u{1}t",
        ] {
            let error = run(remote(&[("read", bad)]).read("p")).unwrap_err();
            assert_eq!(error.code, ErrorCode::Host, "{bad:?}");
        }
        // A frame that never closes is not a frame: it is read as JSON, and refused.
        assert!(run(remote(&[("read", "\u{1}{}")]).read("p")).is_err());
    }

    #[test]
    fn storage_answers_are_read_by_shape_and_a_wrong_one_names_the_field() {
        let host = remote(&[
            ("read", r#"{"text":"t","version":7}"#),
            ("write", r#""v2""#),
        ]);
        let read = run(host.read("p")).unwrap().unwrap();
        assert_eq!(
            (read.text.as_str(), read.version.as_deref()),
            ("t", Some("7"))
        );
        let written = run(host.write("p", "x", &WriteOptions::create_only())).unwrap();
        assert_eq!(written.as_deref(), Some("v2"));
        let (method, args) = host.0.calls.borrow()[1].clone();
        assert_eq!(method, "write");
        assert!(args[2].contains(r#""ifAbsent":true"#), "{}", args[2]);

        let bad = remote(&[("read", r#"{"text":3}"#)]);
        let error = run(bad.read("p")).unwrap_err();
        assert_eq!(error.code, ErrorCode::Host);
        assert!(
            error
                .message
                .starts_with("storage.read returned an unusable value at `text`"),
            "{}",
            error.message
        );
        let extra = remote(&[("read", r#"{"text":"t","etag":"x"}"#)]);
        assert_eq!(run(extra.read("p")).unwrap_err().code, ErrorCode::Host);
    }

    #[test]
    fn deletions_counts_and_usage_follow_the_documented_readings() {
        for (answer, deleted) in [
            ("null", true),
            ("1", true),
            ("true", true),
            ("false", false),
            ("0", false),
        ] {
            assert_eq!(
                run(remote(&[("delete", answer)]).delete("e")).unwrap(),
                deleted,
                "{answer}"
            );
        }
        assert_eq!(
            run(remote(&[]).count_user("u")).unwrap(),
            None,
            "no countUser → the core counts"
        );
        assert_eq!(
            run(remote(&[("countUser", "-1")]).count_user("u")).unwrap(),
            None
        );
        assert_eq!(
            run(remote(&[("countUser", "4")]).count_user("u")).unwrap(),
            Some(4)
        );
        let model = remote(&[(
            "complete",
            r#"{"text":"a","usage":{"inputTokens":-3,"outputTokens":1e300}}"#,
        )]);
        let request = CompletionRequest {
            purpose: crate::host::Purpose::Gate,
            system: "s".into(),
            user: "ü".into(),
            max_output_tokens: 5,
        };
        let usage = run(model.complete(&request)).unwrap().usage.unwrap();
        assert_eq!(
            (usage.input_tokens, usage.output_tokens),
            (0, MAX_SAFE_INTEGER)
        );
        // The fields as JSON, then the two prompts as they are.
        let calls = model.0.calls.borrow();
        assert_eq!(
            calls[0].1,
            vec![
                r#"{"purpose":"gate","maxOutputTokens":5}"#.to_string(),
                "s".to_string(),
                "ü".to_string()
            ]
        );
    }

    #[test]
    fn clock_ids_and_counter_fall_back_or_report() {
        let mut fake = Fake::default();
        fake.sync
            .insert("now", SyncAnswer::Text(r#""not a time""#.into()));
        fake.sync.insert("newId", SyncAnswer::Text(String::new()));
        fake.sync.insert(
            "countTokens",
            SyncAnswer::Text(r#"{"code":"E_HOST","message":"down"}"#.into()),
        );
        let host = Remote(fake);
        assert_eq!(host.now().timestamp_millis(), 1_790_000_000_000);
        let (a, b) = (host.new_id(), host.new_id());
        assert_eq!(a.len(), 32);
        assert_ne!(a, b);
        let error = host.count("x").unwrap_err();
        assert_eq!(
            (error.code, error.message.as_str()),
            (ErrorCode::Host, "down")
        );
        let mut fake = Fake::default();
        fake.sync.insert("now", SyncAnswer::Text("1000".into()));
        fake.sync.insert("countTokens", SyncAnswer::Number(12.0));
        let host = Remote(fake);
        assert_eq!(host.now().timestamp_millis(), 1000);
        assert_eq!(host.count("x").unwrap(), 12);
    }
}
