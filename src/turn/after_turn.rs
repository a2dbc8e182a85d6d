//! The post-answer turn (behaviour §1.7 steps 4–7): gate, notice, consolidation, frontmatter, fit,
//! conditional write, bounded re-consolidation on version conflicts.
//!
//! Decisions where the behaviour reference is silent:
//! - A **blank turn** (both messages blank after trimming) ends as `unchanged` with reason
//!   `blank-turn`, before any storage or model call.
//! - The **gate runs once per turn**; after a version conflict only the consolidation is re-run,
//!   on the freshly read profile (the gate judged the exchange, which has not changed).
//! - "Body equal to the current body" compares canonical renderings, so an answer that only
//!   differs in whitespace or blank lines is `unchanged` (reason `same-body`) and does not count
//!   as a rewrite.
//! - The notice is shown before **each** consolidation call and cleared right after it (also on
//!   failure); it does not cover the optional condensing call. If the host drops the turn's
//!   future between the two (cancellation), no clear can be sent from Rust — `Drop` cannot await —
//!   so a host that cancels turns clears its own notice.
//! - After a rewrite, fitting may make one model condensing call when the deterministic steps
//!   are not enough (usage reported as `condense`); its failure never fails the turn.
//! - A token-counter failure before the consolidation is `no-memory`; after it, `write-failed`.
//! - The first write of a profile that did not exist is **create-only** (`ifAbsent`), so two first
//!   turns of a new user cannot both succeed blindly: the loser re-reads and re-consolidates.
//! - **Without versions** (`read` returns `version: None` for an existing profile) the write is
//!   unconditional: the last writer wins across processes. Within one `ContextMemory`, turns of the
//!   same user are serialised, so they never race each other.
//! - A profile **deleted while the turn ran** is not re-created: a deletion started in this
//!   instance, or a re-read after a lost conditional write that finds the profile gone, ends the
//!   turn as `write-failed` with reason `profile-deleted`.
//! - `turn_count` saturates at 2^53 − 1 (the largest integer JS reads exactly); it never wraps.

use super::answers::{parse_consolidation, parse_gate_decision, Consolidation, GateDecision};
use super::config::backoff_ms;
use super::context_memory::{ms_between, prompt_time, ContextMemory, TurnHost, ENABLED_MISSING};
use super::prompts::{build_consolidation_prompt, build_gate_prompt};
use super::report::{TurnOutcome, TurnReport};
use crate::entries::store::with_key;
use crate::error::ErrorCode;
use crate::error::{Error, Result};
use crate::host::{
    Clock, LanguageModel, LogLevel, Logger, Notice, Notifier, ProfileStore, Timer, TokenCounter,
    Usage, WriteOptions,
};
use crate::profile::fit::fit_window;
use crate::profile::fit::{enforce_token_cap, fit_profile, FitOptions};
use crate::profile::format::MAX_TURN_COUNT;
use crate::profile::frontmatter::{profile_body, read_frontmatter_of};
use crate::profile::parse::parse_profile;
use crate::profile::paths::memory_path;
use crate::profile::render::{assemble_parsed, render_body, AssembleOptions};
use crate::rights::{is_restricted, RESTRICTION_KEY};
use crate::secrets::{error_text, guard_profile, ProfileGuard};
use serde::Deserialize;
use serde_json::{Map, Value};

/// The notice shown while the profile is rewritten. Byte-exact contract (behaviour §1.7 step 6).
pub const UPDATING_NOTICE: &str = "🧠 Updating context memory…";

/// One finished exchange. JSON: `{ "userId", "enabled", "userMessage", "assistantMessage" }`;
/// an absent `enabled` is off (behaviour §1.8: a payload without the flag is off), reported as
/// `disabled` with reason `enabled-missing`; absent messages are empty.
#[derive(Debug, Clone, PartialEq, Eq, Deserialize)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub struct TurnInput {
    /// The authenticated user's id (untrusted: validated before any path is built).
    pub user_id: String,
    /// Whether memory is effectively enabled for this turn (behaviour §1.8, §1.9); `None` when the
    /// caller left it out.
    #[serde(default)]
    pub enabled: Option<bool>,
    /// The user's message.
    #[serde(default, deserialize_with = "crate::json::or_default")]
    pub user_message: String,
    /// The assistant's answer (never altered).
    #[serde(default, deserialize_with = "crate::json::or_default")]
    pub assistant_message: String,
    /// The conversation (learned entries are stamped with it; behaviour §8.6). Default: `turn`.
    #[serde(default)]
    pub conversation_id: Option<String>,
    /// When the turn happened (RFC 3339; the extraction resolves relative dates against it).
    /// Default: now.
    #[serde(default)]
    pub at: Option<String>,
    /// The turn's group (from the host's context only).
    #[serde(default)]
    pub group_id: Option<String>,
}

/// What one read of the store gives a consolidation attempt.
struct Current {
    stored: Option<String>,
    version: Option<String>,
    body: String,
    turn_count: u64,
    extra: Vec<crate::profile::format::FrontmatterField>,
}

impl<H: TurnHost> ContextMemory<H> {
    /// Steps 4–7 of behaviour §1.7 after the answer. Every expected failure is an outcome in the
    /// report (see [`TurnOutcome`]), with per-call usage and clock timings; the only error is
    /// misuse: no model in the hosts (`E_CONFIG`, path `hosts.model`).
    pub async fn after_turn(&self, input: &TurnInput) -> Result<TurnReport> {
        if self.hosts.model().is_none() {
            return Err(Error::config(
                "hosts.model",
                "afterTurn needs a language model (gate and consolidation); pass hosts.model",
            ));
        }
        let started = self.hosts.host().now();
        let mut report = TurnReport::new(TurnOutcome::Unchanged);
        self.run_turn(input, &mut report).await;
        #[cfg(feature = "entry-memory")]
        if self.learns_after(&report) {
            report.learned = self.learn(input).await;
        }
        report.timings.total_ms = ms_between(started, self.hosts.host().now());
        if !self.hosts.host().enabled() {
            return Ok(report);
        }
        let mut fields = Map::new();
        fields.insert(
            "outcome".to_string(),
            serde_json::to_value(report.outcome).unwrap_or(Value::Null),
        );
        fields.insert(
            "reason".to_string(),
            report.reason.clone().map_or(Value::Null, Value::from),
        );
        fields.insert("attempts".to_string(), Value::from(report.attempts));
        fields.insert(
            "tokens".to_string(),
            report.tokens.map_or(Value::Null, Value::from),
        );
        fields.insert("totalMs".to_string(), Value::from(report.timings.total_ms));
        self.log(LogLevel::Info, "memory.turn", &input.user_id, fields);
        Ok(report)
    }

    async fn run_turn(&self, input: &TurnInput, report: &mut TurnReport) {
        match input.enabled {
            Some(true) => {}
            Some(false) => {
                report.outcome = TurnOutcome::Disabled;
                return;
            }
            None => {
                report.outcome = TurnOutcome::Disabled;
                report.reason = Some(ENABLED_MISSING.to_string());
                return;
            }
        }
        let path = match memory_path(&input.user_id, Some(&self.config.root_folder)) {
            Ok(path) => path,
            Err(error) => {
                report.outcome = TurnOutcome::NoMemory;
                report.reason = Some(error.to_string());
                return;
            }
        };
        if input.user_message.trim().is_empty() && input.assistant_message.trim().is_empty() {
            report.outcome = TurnOutcome::Unchanged;
            report.reason = Some("blank-turn".to_string());
            return;
        }
        // Art. 18 (behaviour §4.3): while processing is restricted nothing new is stored, and the
        // exchange is not sent to the model either. An unreadable flag counts as set. Without
        // an entry store the flag cannot be read: said once per instance, loudly.
        if self.entries().is_none() && !self.warned_unchecked.replace(true) {
            let mut fields = Map::new();
            fields.insert(
                "message".to_string(),
                Value::from("no entry store was given: the Art. 18 processing restriction cannot be checked, so a restricted user's turns are still consolidated; pass hosts.entries (or a storage that is also an entry store)"),
            );
            self.log(
                LogLevel::Warn,
                "memory.restriction.unchecked",
                &input.user_id,
                fields,
            );
        }
        if let Some(entries) = self.entries() {
            match with_key(&entries, &input.user_id, RESTRICTION_KEY).await {
                Ok(flags) if !is_restricted(&flags) => {}
                Ok(_) => {
                    report.outcome = TurnOutcome::Restricted;
                    return;
                }
                Err(error) => {
                    report.outcome = TurnOutcome::Restricted;
                    report.reason = Some(format!(
                        "the restriction flag could not be read: {}",
                        error_line(&error)
                    ));
                    return;
                }
            }
        }
        let _guard = self.locks.lock(&input.user_id).await;
        let deletions = self.deletion_count(&input.user_id);
        let mut conflicts = 0;
        let mut had_profile = None;
        loop {
            let attempt_start = self.hosts.host().now();
            let Some(current) = self.read_current(&path, input, report).await else {
                return;
            };
            let exists = current.stored.is_some();
            if *had_profile.get_or_insert(exists) && !exists {
                report.outcome = TurnOutcome::WriteFailed;
                report.reason = Some("profile-deleted".to_string());
                return;
            }
            if report.gate.is_none() && self.config.gate_enabled {
                let decision = self.gate(&current.body, input, report).await;
                if decision == GateDecision::Noop {
                    report.outcome = TurnOutcome::GateNoop;
                    return;
                }
            }
            let Some(text) = self.consolidate(&current, input, report).await else {
                return;
            };
            if current.stored.as_deref() == Some(text.as_str()) {
                report.outcome = TurnOutcome::Unchanged;
                report.reason = Some("same-text".to_string());
                return;
            }
            if self.deletion_count(&input.user_id) != deletions {
                report.outcome = TurnOutcome::WriteFailed;
                report.reason = Some("profile-deleted".to_string());
                return;
            }
            let write_start = self.hosts.host().now();
            let written = self.write(&path, &text, &current).await;
            report.timings.write_ms += ms_between(write_start, self.hosts.host().now());
            match written {
                Ok(()) => {
                    report.outcome = TurnOutcome::Updated;
                    report.reason = None;
                    report.turn_count = Some(next_turn_count(current.turn_count));
                    return;
                }
                Err(error) if error.code == ErrorCode::VersionConflict => {
                    let mut fields = Map::new();
                    fields.insert("attempt".to_string(), Value::from(report.attempts));
                    self.log(
                        LogLevel::Warn,
                        "memory.write.conflict",
                        &input.user_id,
                        fields,
                    );
                    if conflicts >= self.config.max_conflict_retries {
                        report.outcome = TurnOutcome::WriteFailed;
                        report.reason = Some("version-conflict".to_string());
                        return;
                    }
                    conflicts += 1;
                    let lost_ms = ms_between(attempt_start, self.hosts.host().now());
                    let base = match self.config.conflict_backoff_ms {
                        0 => 0,
                        least => least.max(lost_ms.saturating_mul(4)),
                    };
                    let wait = backoff_ms(base, conflicts, self.next_jitter());
                    if wait > 0 {
                        self.hosts.host().pause(wait).await;
                    }
                }
                Err(error) => {
                    self.log_error(
                        LogLevel::Error,
                        "memory.write.failed",
                        &input.user_id,
                        &error,
                    );
                    report.outcome = TurnOutcome::WriteFailed;
                    report.reason = Some(format!("storage write failed: {}", error_line(&error)));
                    return;
                }
            }
        }
    }

    /// Read the profile with its version and hard-truncate it to budget (behaviour §1.5). `None`
    /// (with the report filled) when memory cannot be used.
    async fn read_current(
        &self,
        path: &str,
        input: &TurnInput,
        report: &mut TurnReport,
    ) -> Option<Current> {
        let stored = match self.storage().read(path).await {
            Ok(stored) => stored,
            Err(error) => {
                self.log_error(LogLevel::Warn, "memory.read.failed", &input.user_id, &error);
                report.outcome = TurnOutcome::NoMemory;
                report.reason = Some(format!("storage read failed: {}", error_line(&error)));
                return None;
            }
        };
        let (stored, version) = match stored {
            Some(stored) => (Some(stored.text), stored.version),
            None => (None, None),
        };
        let text = stored.as_deref().unwrap_or_default();
        let capped = match enforce_token_cap(text, self.config.max_tokens, self.hosts.counter()) {
            Ok(capped) => capped,
            Err(error) => {
                report.outcome = TurnOutcome::NoMemory;
                report.reason = Some(format!("token counting failed: {error}"));
                return None;
            }
        };
        let window = fit_window(text, self.config.max_tokens).0;
        let frontmatter = read_frontmatter_of(window);
        if stored.is_some() {
            report.turn_count = Some(frontmatter.turn_count);
        }
        Some(Current {
            body: profile_body(&capped.text),
            stored,
            version,
            turn_count: frontmatter.turn_count,
            extra: frontmatter.extra,
        })
    }

    /// The gate (behaviour §1.7 step 4); any error fails open to UPDATE.
    async fn gate(&self, body: &str, input: &TurnInput, report: &mut TurnReport) -> GateDecision {
        let request = build_gate_prompt(
            body,
            &input.user_message,
            &input.assistant_message,
            self.config.reasoning_model,
        );
        let start = self.hosts.host().now();
        let answer = match self.model() {
            Some(model) => model.complete(&request).await,
            None => Err(no_model()),
        };
        report.timings.gate_ms = ms_between(start, self.hosts.host().now());
        let decision = match answer {
            Ok(completion) => {
                report.usage.gate = completion.usage;
                parse_gate_decision(&completion.text)
            }
            Err(error) => {
                self.log_error(
                    LogLevel::Warn,
                    "memory.gate.fail-open",
                    &input.user_id,
                    &error,
                );
                report.gate_error = Some(error_line(&error));
                GateDecision::Update
            }
        };
        report.gate = Some(decision);
        let mut fields = Map::new();
        fields.insert(
            "decision".to_string(),
            serde_json::to_value(decision).unwrap_or(Value::Null),
        );
        self.log(LogLevel::Info, "memory.gate", &input.user_id, fields);
        decision
    }

    /// Consolidate (behaviour §1.7 step 5, with the notice of step 6) and build the fitted text to
    /// store. `None` (with the report filled) when there is nothing to write.
    async fn consolidate(
        &self,
        current: &Current,
        input: &TurnInput,
        report: &mut TurnReport,
    ) -> Option<String> {
        let now = self.hosts.host().now();
        let now_text = prompt_time(now);
        let request = build_consolidation_prompt(
            &current.body,
            &input.user_message,
            &input.assistant_message,
            &now_text,
            self.config.max_tokens,
        );
        report.attempts += 1;
        self.notify(
            &input.user_id,
            &Notice::Show {
                text: UPDATING_NOTICE.to_string(),
            },
        )
        .await;
        let start = self.hosts.host().now();
        let answer = match self.model() {
            Some(model) => model.complete(&request).await,
            None => Err(no_model()),
        };
        report.timings.consolidate_ms += ms_between(start, self.hosts.host().now());
        self.notify(&input.user_id, &Notice::Clear).await;
        let completion = match answer {
            Ok(completion) => completion,
            Err(error) => {
                self.log_error(
                    LogLevel::Warn,
                    "memory.consolidate.failed",
                    &input.user_id,
                    &error,
                );
                report.outcome = TurnOutcome::ModelFailed;
                report.reason = Some(format!("model call failed: {}", error_line(&error)));
                return None;
            }
        };
        report.usage.consolidate = add_usage(report.usage.consolidate, completion.usage);
        if let Some(reason) = self.over_output_budget(
            &completion.text,
            usize::try_from(request.max_output_tokens).unwrap_or(usize::MAX),
        ) {
            report.outcome = TurnOutcome::InvalidOutput;
            report.reason = Some(reason);
            return None;
        }
        let body = match parse_consolidation(&completion.text) {
            Consolidation::Noop => {
                report.outcome = TurnOutcome::ModelNoop;
                return None;
            }
            Consolidation::Invalid { reason } => {
                report.outcome = TurnOutcome::InvalidOutput;
                report.reason = Some(reason);
                return None;
            }
            Consolidation::Body { body } => body,
        };
        let body = match guard_profile(self.config.secrets, &body) {
            ProfileGuard::Clean => body,
            ProfileGuard::Redacted { body, count } => {
                report.redacted_secrets = count;
                body
            }
            ProfileGuard::Refused(found) => {
                report.outcome = TurnOutcome::InvalidOutput;
                report.reason = Some(format!(
                    "the answer holds a credential ({}) at {}; the profile was kept",
                    found.kind.as_str(),
                    found.path
                ));
                return None;
            }
        };
        // Parsed once: for the unchanged check and for the file.
        let parsed = parse_profile(&body).profile;
        if render_body(&parsed) == canonical_body(&current.body) {
            report.outcome = TurnOutcome::Unchanged;
            report.reason = Some("same-body".to_string());
            return None;
        }
        let assembled = assemble_parsed(
            parsed,
            &AssembleOptions {
                user_id: input.user_id.clone(),
                turn_count: next_turn_count(current.turn_count),
                now,
                extra: current.extra.clone(),
            },
        );
        // The id named the storage path already, so it is valid; should that ever change, the
        // turn fails without writing.
        let Ok(text) = assembled else {
            report.outcome = TurnOutcome::WriteFailed;
            report.reason = Some("invalid-user-id".to_string());
            return None;
        };
        let options = FitOptions {
            max_tokens: self.config.max_tokens,
            use_model: true,
            now: Some(now_text),
        };
        match fit_profile(&text, &options, self.hosts.counter(), self.model().as_ref()).await {
            Ok(fit) => {
                report.usage.condense = add_usage(report.usage.condense, fit.model_usage);
                report.tokens = Some(fit.tokens_after);
                Some(fit.text)
            }
            Err(error) => {
                report.outcome = TurnOutcome::WriteFailed;
                report.reason = Some(format!("token counting failed: {error}"));
                None
            }
        }
    }

    /// Why a model answer is refused for its size: over twice the request's output budget (the
    /// model ignored it; a hard cut of such an answer would keep its first sections only). No
    /// token of the built-in encodings is longer than 128 bytes and none is shorter than one, so
    /// most answers are decided by their length; the rest are counted up to the limit.
    fn over_output_budget(&self, answer: &str, max_output_tokens: usize) -> Option<String> {
        let limit = max_output_tokens.saturating_mul(2);
        let over = if answer.len() <= limit {
            false
        } else if answer.len() > limit.saturating_mul(128) {
            true
        } else {
            matches!(self.hosts.counter().count_within(answer, limit), Ok(None))
        };
        over.then(|| {
            format!(
                "the answer is over twice its output budget ({limit} tokens, from maxOutputTokens {max_output_tokens}); the profile was kept"
            )
        })
    }

    /// Step 7's write, conditional on the version read (create-only for a new profile, which
    /// also provisions the root).
    async fn write(&self, path: &str, text: &str, current: &Current) -> Result<()> {
        let exists = current.stored.is_some();
        if !exists {
            self.storage().ensure_root(&self.config.root_folder).await?;
        }
        let options = WriteOptions::over(exists, current.version.clone());
        self.storage().write(path, text, &options).await.map(|_| ())
    }

    /// Send a notice; a failing or hanging notifier is logged and otherwise ignored.
    async fn notify(&self, user_id: &str, notice: &Notice) {
        if let Err(error) = self.notifier().on_notice(notice).await {
            self.log_error(LogLevel::Warn, "memory.notice.failed", user_id, &error);
        }
    }
}

/// An error as a report line (`E_CODE: message`), its message redacted as logs are.
pub(crate) fn error_line(error: &Error) -> String {
    format!("{}: {}", error.code, error_text(error))
}

/// The rewrite count after one more rewrite, saturating at [`MAX_TURN_COUNT`].
fn next_turn_count(count: u64) -> u64 {
    count.saturating_add(1).min(MAX_TURN_COUNT)
}

fn no_model() -> Error {
    Error::config("hosts.model", "no language model was given")
}

/// A body in canonical form, for the "unchanged" comparison.
fn canonical_body(body: &str) -> String {
    render_body(&parse_profile(body).profile)
}

fn add_usage(total: Option<Usage>, more: Option<Usage>) -> Option<Usage> {
    match (total, more) {
        (Some(a), Some(b)) => Some(Usage {
            input_tokens: a.input_tokens + b.input_tokens,
            output_tokens: a.output_tokens + b.output_tokens,
        }),
        (a, b) => a.or(b),
    }
}
