//! Learning from conversations (behaviour §8.6): `learnFromTurn` turns what a user said in one turn
//! into entries, without the agent choosing to call `rememberFact`, and without ever losing one.
//!
//! One model call (`purpose: "extract"`, [`prompt::build_extraction_prompt`]) sees the turn's
//! `user` and `assistant` messages — never `system` (or `developer`, `tool`) messages, and never
//! a section memcore injected ([`strip_injected`]) — the event time, and the user's existing
//! entries most relevant to the turn (behaviour §8.2's search, at most `learn.candidates`), so a
//! known fact keeps its key. Its answer ([`answer::parse_extraction`]) is applied fact by fact
//! through `rememberFact`'s and `forgetFact`'s own rules (guardrails, caps, secrets, reserved keys,
//! the restriction), with author `{ kind: "learned", id: agentId }`:
//!
//! | the answer says | what happens | `action` |
//! | --- | --- | --- |
//! | a new key | a new entry | `added` |
//! | a known key, the same value and category | nothing | `unchanged` |
//! | a known key, another value | the entry changes; its old state is a version (a contradiction supersedes, it never deletes) | `updated` |
//! | `forget: true` | the entry is deleted and kept as a version (restorable) | `forgotten` |
//! | a key with nothing to forget | nothing | `unchanged` (reason `nothing to forget`) |
//! | anything a rule refuses | nothing | `refused` (reason: the rule's answer) |
//!
//! Decisions where the behaviour reference is silent:
//! - **Visibility** is not the model's to choose: a learned fact takes `defaultVisibility` (the
//!   rule `longTerm` properties follow; default `self`, this agent's), `group` in a turn with a
//!   group. Other fields of an answer item are ignored.
//! - Facts beyond `learn.maxFactsPerTurn` are not applied and are counted in `ignored`, not
//!   listed one by one (a hostile answer of 10,000 facts makes a report of ten).
//! - The apply step holds a per-user lock of this instance (one wasm instance, one lock table),
//!   so two concurrent turns of one user learning the same key write one entry and keep the
//!   other value as a version: no lost update, no duplicate. Across processes the stores'
//!   identity constraints decide (behaviour §2.4).
//! - A failing, hung (the host's deadline) or unusable extraction writes no fact; the report says
//!   `failed` with the reason. `learnFromTurn` itself fails only on misuse (`E_ARGUMENT`: a
//!   blank or invalid id, a bad `at`, messages that are not a list).
//! - While the user's processing is restricted (behaviour §4.3) the turn is not sent to the model
//!   and nothing is stored: `restricted`.

pub mod answer;
mod messages;
pub mod prompt;

pub use messages::{strip_injected, turn_messages, InputMessage, INJECTED_HEADINGS};

use crate::entries::config::{SearchMode, UserMemoryConfig};
use crate::entries::embedding::store_vectors;
use crate::entries::history::{AuditRecord, Author, AuthorKind, Operation, Source, Versioned};
use crate::entries::search::modes::ranked_search;
use crate::entries::store::with_key;
use crate::entries::tools::{forget_fact_of, remember_fact_of, ToolSession};
use crate::entries::visibility::Audience;
use crate::entries::{Entry, EntryStore};
use crate::error::{Error, ErrorCode, Result};
use crate::host::{Host, Hosts, LanguageModel, LogEvent, LogLevel, NoModel, Usage};
use crate::profile::fit::prompt_time;
use crate::rights::{is_restricted, RESTRICTION_KEY};
use answer::{parse_extraction, FactRequest};
use prompt::{build_extraction_prompt, TurnMessage};
use serde::{Deserialize, Serialize};
use serde_json::{Map, Value};

/// What `learnFromTurn` learns from. JSON: `{ "userId", "agentId", "groupId"?, "conversationId",
/// "messages": [{ "role", "content" }], "at"? }`. `at` (RFC 3339) is when the turn happened;
/// default: now.
#[derive(Debug, Clone, PartialEq, Deserialize)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub struct LearnInput {
    /// The user.
    pub user_id: String,
    /// The agent the learned entries are written as (author `learned`, `sourceAgentId`).
    pub agent_id: String,
    /// The turn's group (from the host's context only, behaviour §2.4).
    #[serde(default)]
    pub group_id: Option<String>,
    /// The conversation, stamped on learned entries.
    pub conversation_id: String,
    /// The turn's messages.
    pub messages: Vec<InputMessage>,
    /// When the turn happened (RFC 3339); default now.
    #[serde(default)]
    pub at: Option<String>,
}

/// How a learning ended.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum LearnOutcome {
    /// At least one fact was added, updated or forgotten (or an episode stored).
    Learned,
    /// The turn held nothing new (or nothing to learn from).
    Nothing,
    /// The extraction failed or answered nothing usable: no fact was written.
    Failed,
    /// The user's processing is restricted: nothing was sent or stored.
    Restricted,
    /// Learning is off (`learn.facts` and `learn.episodes` both false).
    Disabled,
}

/// What happened to one fact of the answer.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum FactAction {
    /// A new entry.
    Added,
    /// An entry changed; its old state is a version.
    Updated,
    /// Already so; nothing written.
    Unchanged,
    /// Deleted, kept as a version.
    Forgotten,
    /// A rule refused it; nothing written.
    Refused,
}

/// One fact of the report. JSON: `{ "key", "action", "entryId"?, "reason"? }`.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct LearnedFact {
    /// The key as the answer gave it (trimmed).
    pub key: String,
    /// What happened.
    pub action: FactAction,
    /// The entry written (`added`, `updated`).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub entry_id: Option<String>,
    /// Why (`refused`: the rule's answer, never the value; `unchanged`: when there was nothing
    /// to forget).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub reason: Option<String>,
}

/// The report of one learning. JSON: `{ "outcome", "reason"?, "facts": [...], "ignored",
/// "episodes": [ids], "usage"? }`.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct LearnReport {
    /// How it ended.
    pub outcome: LearnOutcome,
    /// Why it failed (`failed`), or why nothing was learned.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub reason: Option<String>,
    /// Every fact of the answer that was applied, in answer order.
    pub facts: Vec<LearnedFact>,
    /// Facts of the answer beyond `learn.maxFactsPerTurn`, not applied.
    pub ignored: u64,
    /// The episodes stored for this turn.
    pub episodes: Vec<String>,
    /// The extraction call's usage, when the model reports it.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub usage: Option<Usage>,
}

impl LearnReport {
    fn new(outcome: LearnOutcome) -> Self {
        LearnReport {
            outcome,
            reason: None,
            facts: Vec::new(),
            ignored: 0,
            episodes: Vec::new(),
            usage: None,
        }
    }

    /// A `failed` report with `reason` (a turn whose input could not be learned from).
    pub fn failed_with(reason: impl Into<String>) -> Self {
        LearnReport::failed(reason)
    }

    /// This report as `failed` with `reason` (the episodes it stored stay listed).
    fn failing(mut self, reason: impl Into<String>) -> Self {
        self.outcome = LearnOutcome::Failed;
        self.reason = Some(reason.into());
        self
    }

    fn failed(reason: impl Into<String>) -> Self {
        let mut report = LearnReport::new(LearnOutcome::Failed);
        report.reason = Some(reason.into());
        report
    }
}

/// The per-user locks of the apply step, one table per instance (wasm has one thread).
fn locks() -> &'static crate::lock::UserLocks {
    thread_local! {
        static LOCKS: &'static crate::lock::UserLocks =
            Box::leak(Box::default());
    }
    LOCKS.with(|l| *l)
}

/// Check the ids and read `at` (`None`: the caller takes now).
fn check_input(input: &LearnInput) -> Result<Option<chrono::DateTime<chrono::Utc>>> {
    for (name, id) in [
        ("agentId", &input.agent_id),
        ("conversationId", &input.conversation_id),
    ] {
        if id.trim().is_empty() {
            return Err(Error::new(
                ErrorCode::Argument,
                format!("learnFromTurn: {name} must be a non-empty id"),
            )
            .with_details(serde_json::json!({ "field": name })));
        }
    }
    crate::profile::paths::validate_user_id(&input.user_id)?;
    match &input.at {
        None => Ok(None),
        Some(at) => chrono::DateTime::parse_from_rfc3339(at)
            .map(|t| Some(t.with_timezone(&chrono::Utc)))
            .map_err(|_| {
                Error::argument(
                    "learnFromTurn",
                    "at",
                    "an RFC 3339 timestamp, e.g. 2026-05-01T10:00:00Z",
                )
            }),
    }
}

/// Learn from one turn (see the module documentation). Errors only on misuse; every other
/// problem is in the report.
pub async fn learn_from_turn<S, H, M>(
    hosts: &Hosts<'_, S, H, M>,
    config: &UserMemoryConfig,
    input: &LearnInput,
) -> Result<LearnReport>
where
    S: EntryStore,
    H: Host,
    M: LanguageModel,
{
    let at = check_input(input)?.unwrap_or_else(|| hosts.host.now());
    let report = learn(hosts, config, input, at).await;
    let log = hosts.host;
    if log.enabled() {
        let mut fields = Map::new();
        fields.insert(
            "outcome".to_string(),
            serde_json::to_value(report.outcome).unwrap_or(Value::Null),
        );
        for action in [
            FactAction::Added,
            FactAction::Updated,
            FactAction::Unchanged,
            FactAction::Forgotten,
            FactAction::Refused,
        ] {
            let name = serde_json::to_value(action)
                .ok()
                .and_then(|v| v.as_str().map(str::to_string))
                .unwrap_or_default();
            let n = report.facts.iter().filter(|f| f.action == action).count();
            fields.insert(name, Value::from(n));
        }
        fields.insert("ignored".to_string(), Value::from(report.ignored));
        log.log(&LogEvent {
            level: if report.outcome == LearnOutcome::Failed {
                LogLevel::Warn
            } else {
                LogLevel::Info
            },
            event: "memory.learn".to_string(),
            user_id: Some(input.user_id.clone()),
            fields,
        });
    }
    Ok(report)
}

async fn learn<S, H, M>(
    hosts: &Hosts<'_, S, H, M>,
    config: &UserMemoryConfig,
    input: &LearnInput,
    at: chrono::DateTime<chrono::Utc>,
) -> LearnReport
where
    S: EntryStore,
    H: Host,
    M: LanguageModel,
{
    if !config.learn.facts && !config.learn.episodes {
        return LearnReport::new(LearnOutcome::Disabled);
    }
    match with_key(hosts.entries, &input.user_id, RESTRICTION_KEY).await {
        Ok(flags) if !is_restricted(&flags) => {}
        Ok(_) => return LearnReport::new(LearnOutcome::Restricted),
        Err(error) => {
            let mut report = LearnReport::new(LearnOutcome::Restricted);
            report.reason = Some(format!(
                "the restriction flag could not be read: {}",
                crate::secrets::error_text(&error)
            ));
            return report;
        }
    }
    let messages = turn_messages(&input.messages);
    if messages.is_empty() {
        let mut report = LearnReport::new(LearnOutcome::Nothing);
        report.reason = Some("no user or assistant text".to_string());
        return report;
    }
    let mut report = LearnReport::new(LearnOutcome::Nothing);
    let author = Author::new(AuthorKind::Learned, Some(&input.agent_id));
    let mut source = Source {
        conversation_id: input.conversation_id.clone(),
        episode_ids: Vec::new(),
        at: crate::entries::history::instant_text(at),
    };
    if config.learn.episodes {
        match store_episodes(hosts, config, input, at, &messages).await {
            Ok(Some((ids, written))) => {
                report.episodes = ids;
                source.episode_ids = report.episodes.clone();
                if written > 0 {
                    report.outcome = LearnOutcome::Learned;
                    // The audit log names every learning that kept episodes (behaviour §8.3, §8.6).
                    let now = crate::entries::history::instant_text(hosts.host.now());
                    let record = AuditRecord::new(&now, &author, Operation::Learn, &input.user_id)
                        .counting(written as u64)
                        .from_source(Some(&source));
                    let writer =
                        Versioned::new(hosts.entries, hosts.host, &config.history, &author);
                    if let Err(error) = writer.log(record).await {
                        report.reason = Some(format!(
                            "the audit record could not be written: {}",
                            crate::secrets::error_text(&error)
                        ));
                    }
                }
            }
            Ok(None) => {}
            Err(error) => {
                report.reason = Some(format!(
                    "the episodes could not be stored: {}",
                    crate::secrets::error_text(&error)
                ));
            }
        }
    }
    if !config.learn.facts {
        return report;
    }
    let group = input.group_id.clone().filter(|g| !g.trim().is_empty());
    let mut session = match ToolSession::new(config.clone(), &input.user_id, &input.agent_id) {
        Ok(session) => session,
        Err(error) => return LearnReport::failed(crate::secrets::error_text(&error)),
    };
    // `maxFactsPerTurn` bounds a learning, not the tools' per-turn write budget.
    session.config.guardrails.max_writes_per_turn = u64::MAX;
    session.scope(group, Some(input.conversation_id.clone()));

    // The stored facts most like the turn, so a known fact keeps its key.
    let known = if config.learn.candidates == 0 {
        Vec::new()
    } else {
        let mut search = config.search.clone();
        if search.mode == SearchMode::Terms {
            search.mode = SearchMode::Ranked;
        }
        let query: Vec<&str> = messages.iter().map(|m| m.text.as_str()).collect();
        let limit = usize::try_from(config.learn.candidates).unwrap_or(usize::MAX);
        match ranked_search(
            hosts.entries,
            &hosts.search(),
            &input.user_id,
            &query.join("\n"),
            &search,
            limit,
            Audience::Viewer(session.viewer()),
        )
        .await
        {
            Ok(found) => found,
            Err(error) => {
                return report.failing(format!(
                    "the stored facts could not be read: {}",
                    crate::secrets::error_text(&error)
                ))
            }
        }
    };

    let request = build_extraction_prompt(
        &messages,
        &prompt_time(at),
        &known,
        config.learn.max_facts_per_turn,
    );
    // Without a model the extraction fails like a model that refuses (`E_CONFIG`).
    let answer = match hosts.model {
        Some(model) => model.complete(&request).await,
        None => NoModel.complete(&request).await,
    };
    let completion = match answer {
        Ok(completion) => completion,
        Err(error) => {
            return report.failing(format!(
                "the extraction failed: {}: {}",
                error.code,
                crate::secrets::error_text(&error)
            ))
        }
    };
    report.usage = completion.usage;
    let requests = match parse_extraction(&completion.text) {
        Ok(requests) => requests,
        Err(reason) => {
            report.outcome = LearnOutcome::Failed;
            report.reason = Some(reason);
            return report;
        }
    };
    let max = usize::try_from(config.learn.max_facts_per_turn).unwrap_or(usize::MAX);
    report.ignored = requests.len().saturating_sub(max) as u64;

    // Every learned fact's audit record names the turn it came from.
    let versioned =
        Versioned::new(hosts.entries, hosts.host, &config.history, &author).from_source(&source);
    let visibility = Value::from(config.default_visibility.as_str());
    let mut written: Vec<Entry> = Vec::new();
    {
        let _guard = locks().lock(&input.user_id).await;
        for request in requests.into_iter().take(max) {
            let key = request.key();
            let fact = match request {
                FactRequest::NotAnObject(kind) => LearnedFact {
                    key,
                    action: FactAction::Refused,
                    entry_id: None,
                    reason: Some(format!("not-an-object: the item is a {kind}")),
                },
                FactRequest::Remember(item) => {
                    let mut args = Map::new();
                    for name in ["key", "value", "category"] {
                        if let Some(v) = item.get(name) {
                            args.insert(name.to_string(), v.clone());
                        }
                    }
                    args.insert("visibility".to_string(), visibility.clone());
                    let args = Value::Object(args);
                    let done = remember_fact_of(
                        &mut session,
                        &versioned,
                        hosts.host,
                        hosts.host,
                        Some(&args),
                    )
                    .await;
                    match done.entry {
                        Some(entry) => {
                            let fact = LearnedFact {
                                key,
                                action: if done.updated {
                                    FactAction::Updated
                                } else {
                                    FactAction::Added
                                },
                                entry_id: Some(entry.id.clone()),
                                reason: None,
                            };
                            written.push(entry);
                            fact
                        }
                        None if done.answer.text.starts_with("✅ Already remembered") => {
                            LearnedFact {
                                key,
                                action: FactAction::Unchanged,
                                entry_id: None,
                                reason: None,
                            }
                        }
                        None => LearnedFact {
                            key,
                            action: FactAction::Refused,
                            entry_id: None,
                            reason: Some(done.answer.text),
                        },
                    }
                }
                FactRequest::Forget(item) => {
                    let answer = forget_fact_of(&session, &versioned, &item).await;
                    let (action, reason) = if answer.wrote {
                        (FactAction::Forgotten, None)
                    } else if answer.text.starts_with("No memory with key") {
                        (FactAction::Unchanged, Some("nothing to forget".to_string()))
                    } else {
                        (FactAction::Refused, Some(answer.text))
                    };
                    LearnedFact {
                        key,
                        action,
                        entry_id: None,
                        reason,
                    }
                }
            };
            report.facts.push(fact);
        }
    }
    if let Some(embedding) = &hosts.embedding() {
        if !written.is_empty() {
            store_vectors(hosts.entries, embedding, hosts.host, &written).await;
        }
    }
    if report.facts.iter().any(|f| {
        matches!(
            f.action,
            FactAction::Added | FactAction::Updated | FactAction::Forgotten
        )
    }) {
        report.outcome = LearnOutcome::Learned;
    }
    report
}

/// Store the turn's messages as episodes (behaviour §8.6): content ids, secrets by the `secrets`
/// policy (`refuse`: a message holding one is not kept; `redact`: kept with `[redacted]`),
/// vectors when an embedder is given (a failure is logged; the episode is kept without), then
/// the retention (`learn.episodeRetainDays`; a turn older than it is not kept at all). `None` when
/// the store keeps no episodes; else the turn's episode ids and how many were new.
async fn store_episodes<S, H, M>(
    hosts: &Hosts<'_, S, H, M>,
    config: &UserMemoryConfig,
    input: &LearnInput,
    at: chrono::DateTime<chrono::Utc>,
    messages: &[TurnMessage],
) -> Result<Option<(Vec<String>, usize)>>
where
    S: EntryStore,
    H: Host,
    M: LanguageModel,
{
    use crate::entries::episode::{episode_id, Episode, EpisodeVector};
    use crate::secrets::{guard_profile, ProfileGuard};
    let mut episodes: Vec<Episode> = Vec::new();
    for (index, message) in messages.iter().enumerate() {
        // The turn's time plus the message's place in the turn, in milliseconds: the messages
        // of a turn keep their order in every listing.
        let offset = chrono::Duration::milliseconds(i64::try_from(index).unwrap_or(i64::MAX));
        let at_text =
            crate::entries::history::instant_text(at.checked_add_signed(offset).unwrap_or(at));
        let text = match guard_profile(config.secrets, &message.text) {
            ProfileGuard::Clean => message.text.clone(),
            ProfileGuard::Redacted { body, .. } => body,
            ProfileGuard::Refused(_) => continue,
        };
        episodes.push(Episode {
            id: episode_id(
                &input.user_id,
                &input.conversation_id,
                &message.role,
                &at_text,
                index,
                &text,
            ),
            user_id: input.user_id.clone(),
            conversation_id: input.conversation_id.clone(),
            role: message.role.clone(),
            text,
            at: at_text,
            vector: None,
        });
    }
    if let Some(embedding) = &hosts.embedding() {
        let texts: Vec<String> = episodes.iter().map(|e| e.text.clone()).collect();
        match embedding.documents(&texts).await {
            Ok(vectors) if vectors.len() == episodes.len() => {
                for (episode, values) in episodes.iter_mut().zip(vectors) {
                    episode.vector = Some(EpisodeVector {
                        model: embedding.spec.model.clone(),
                        values,
                    });
                }
            }
            Ok(_) | Err(_) => {
                let log = hosts.host;
                if log.enabled() {
                    log.log(&LogEvent {
                        level: LogLevel::Warn,
                        event: "memory.embedding.failed".to_string(),
                        user_id: Some(input.user_id.clone()),
                        fields: Map::from_iter([("what".to_string(), Value::from("episodes"))]),
                    });
                }
            }
        }
    }
    // A turn already older than the retention is not kept at all (it would go at once).
    let cutoff =
        crate::entries::history::not_before(hosts.host.now(), config.learn.episode_retain_days);
    episodes.retain(|e| crate::entries::recall::instant_at_or_after(&e.at, &cutoff));
    let ids: Vec<String> = episodes.iter().map(|e| e.id.clone()).collect();
    let Some(written) = hosts.entries.put_episodes(&episodes).await? else {
        return Ok(None);
    };
    hosts
        .entries
        .delete_episodes(&input.user_id, Some(&cutoff))
        .await?;
    Ok(Some((ids, written)))
}
