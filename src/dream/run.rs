//! One Dream run for one user and one firing agent (behaviour §3): check, list once, prune, reload
//! once if something was pruned, detect contradictions, summarise group by group, report.
//!
//! The run is generic over the host traits; every store call and every model call has its
//! deadline ([`Timed`]). Expected failures are data in the [`DreamReport`]; only misuse (an
//! invalid configuration, price or deadline; summarisation on without a model) is an `Err`.
//! A run keeps its own view of the user's entries after the first listing (plus the reload):
//! writes made concurrently by other processes during a run are not seen by it.

use super::answer::parse_dream_answer;
use super::apply::{apply_group, prune};
use super::cost::{charged_tokens, cost_usd, is_transient};
use super::input::{DreamInput, DreamRun};
use super::log::RunLog;
use super::metrics::DreamMetrics;
use super::plan::{contradictions, overwritten, scoped, stale_entries, summary_groups};
use super::report::{DreamError, DreamErrorCode, DreamReport, KeptOriginal, SkipReason};
use super::writes::{plan_group_writes, EntryView, GroupPlan};
use crate::entries::config::{DreamMode, HistoryConfig};
use crate::entries::history::{instant_text, At, Author, AuthorKind, VersionQuery, Versioned};
use crate::entries::store::HistoryStore;
use crate::entries::visibility::is_reserved_key;
use crate::entries::{Entry, EntryStore};
use crate::error::{Error, Result};
use crate::host::{Host, Hosts, LanguageModel, LogLevel, Timed};
use crate::migrate::credentials::CredentialKind;
use crate::rights::is_restricted;
use crate::secrets::{error_text, guard_entry, EntryGuard, SecretPolicy, MEMORY_REDACTED};
use crate::turn::context_memory::ms_between;
use chrono::{DateTime, SecondsFormat, Utc};
use serde_json::Value;

/// What the checked part of a run tells the metrics.
struct Outcome {
    processed: bool,
    model_failures: u64,
}

/// Run Dream once (behaviour §3). A refusal (no real user, no agent, Dream disabled), a store that
/// cannot list, a permanent model error: all in the report's `error`. Counted in `metrics`
/// when given. `Err` only for misuse: `E_CONFIG` (configuration, price, deadlines, or
/// `summarizeInteractions` without a model).
pub async fn dream<S, H, M>(
    hosts: &Hosts<'_, S, H, M>,
    input: &DreamInput,
    metrics: Option<&DreamMetrics>,
) -> Result<DreamReport>
where
    S: EntryStore,
    H: Host,
    M: LanguageModel,
{
    let started = hosts.host.now();
    let checked = input.check()?;
    let log = RunLog {
        logger: hosts.host,
        user_id: input.user_id.as_deref(),
    };
    let mut report = DreamReport::for_user(input.user_id.as_deref());
    let outcome = match checked {
        Err(refusal) => {
            log.error(
                "dream.refused",
                &[
                    ("code", refusal.code.as_str().into()),
                    ("message", refusal.message.as_str().into()),
                ],
            );
            report.error = Some(refusal);
            Outcome {
                processed: false,
                model_failures: 0,
            }
        }
        Ok(run) => {
            if run.config.dream.summarize_interactions && hosts.model.is_none() {
                return Err(Error::config(
                    "model",
                    "summarizeInteractions is on: pass the model that consolidates the groups",
                ));
            }
            maintain(hosts, &run, &log, &mut report).await
        }
    };
    report.duration_ms = ms_between(started, hosts.host.now());
    if let Some(metrics) = metrics {
        metrics.record(&report, outcome.processed, outcome.model_failures);
    }
    log.info(
        "dream.completed",
        &[
            ("pruned", report.pruned.into()),
            ("contradictions", report.contradictions.len().into()),
            ("summarized", report.summarized.into()),
            ("groupsSkipped", report.groups_skipped.len().into()),
            ("calls", report.calls.into()),
            ("estimatedCostUsd", report.estimated_cost_usd.into()),
            ("durationMs", report.duration_ms.into()),
            ("restricted", report.restricted.into()),
            (
                "error",
                report.error.as_ref().map(|e| e.code.as_str()).into(),
            ),
        ],
    );
    Ok(report)
}

fn store_failed(error: &Error) -> DreamError {
    DreamError {
        code: DreamErrorCode::StoreFailed,
        message: format!(
            "the entry store could not list the user's entries: {}",
            error.message
        ),
    }
}

async fn maintain<S, H, M>(
    hosts: &Hosts<'_, S, H, M>,
    run: &DreamRun,
    log: &RunLog<'_, H>,
    report: &mut DreamReport,
) -> Outcome
where
    S: EntryStore,
    H: Host,
    M: LanguageModel,
{
    let not_processed = Outcome {
        processed: false,
        model_failures: 0,
    };
    let store = Timed {
        host: hosts.entries,
        timer: hosts.host,
        ms: run.store_ms,
    };
    let dream = &run.config.dream;
    let (user, agent) = (run.user_id.as_str(), run.agent_id.as_str());
    // What the run changes is kept in the entries' history (behaviour §8.3), dated at the run's
    // instant — unless `dream.mode` is `delete` (behaviour §3 exactly: nothing kept).
    let (author, at) = (Author::new(AuthorKind::Dream, Some(agent)), At(run.now));
    let history = HistoryConfig {
        enabled: run.config.history.enabled && dream.mode == DreamMode::Supersede,
        ..run.config.history.clone()
    };
    let versioned = Versioned::new(&store, &at, &history, &author);
    // An unreadable flag counts as a restriction: nothing is done.
    let entries = match store.list(user).await {
        Ok(entries) => entries,
        Err(error) => {
            report.restricted = true;
            report.error = Some(store_failed(&error));
            return not_processed;
        }
    };
    if is_restricted(&entries) {
        report.restricted = true;
        log.info("dream.restricted", &[("agentId", agent.into())]);
        return not_processed;
    }
    let in_scope = scoped(&entries, user, agent, dream.cross_agent_maintenance);
    let maintainable = entries.iter().filter(|e| !is_reserved_key(&e.key)).count();
    log.info(
        "dream.started",
        &[
            ("agentId", agent.into()),
            ("entries", maintainable.into()),
            ("inScope", in_scope.len().into()),
            ("notOwned", (maintainable - in_scope.len()).into()),
            (
                "crossAgentMaintenance",
                dream.cross_agent_maintenance.into(),
            ),
        ],
    );
    let stale = stale_entries(&in_scope, run.now, dream.prune_stale_after_days);
    report.pruned = prune(&versioned, &stale, log).await;
    if report.pruned > 0 {
        log.info(
            "dream.pruned",
            &[
                ("count", report.pruned.into()),
                ("days", dream.prune_stale_after_days.into()),
            ],
        );
    }
    let entries = if report.pruned > 0 {
        match store.list(user).await {
            Ok(entries) => entries,
            Err(error) => {
                report.error = Some(store_failed(&error));
                return not_processed;
            }
        }
    } else {
        entries
    };
    if is_restricted(&entries) {
        report.restricted = true;
        log.info("dream.restricted", &[("agentId", agent.into())]);
        return Outcome {
            processed: true,
            model_failures: 0,
        };
    }
    if dream.detect_contradictions {
        report.contradictions = contradictions(&entries, user, agent);
        if run.config.history.enabled {
            // Overwrites by another agent within the retention window (behaviour §8.3): an
            // unreadable history is logged and leaves the report to the entries.
            let all = VersionQuery {
                user_id: user,
                entry_id: None,
                key: None,
            };
            match store.versions(&all).await {
                Ok(Some(versions)) => {
                    let days = i64::try_from(history.retain_days).unwrap_or(i64::MAX);
                    let window = chrono::Duration::try_days(days).unwrap_or(chrono::Duration::MAX);
                    let since = run
                        .now
                        .checked_sub_signed(window)
                        .unwrap_or(DateTime::<Utc>::MIN_UTC);
                    report.contradictions.extend(overwritten(
                        &entries,
                        &versions,
                        (user, agent),
                        dream.cross_agent_maintenance,
                        &instant_text(since),
                    ))
                }
                Ok(None) => {}
                Err(error) => log.failed(
                    LogLevel::Warn,
                    "dream.history.unreadable",
                    ("userId", user),
                    &error,
                ),
            }
        }
        for found in &report.contradictions {
            log.info(
                "dream.contradiction",
                &[
                    ("key", found.key.as_str().into()),
                    ("agents", found.agents.clone().into()),
                    ("entryIds", found.entry_ids.clone().into()),
                ],
            );
            let values: Vec<Value> = entries
                .iter()
                .filter(|e| e.key == found.key)
                .map(|e| Value::Array(vec![e.id.as_str().into(), e.value.clone()]))
                .collect();
            log.debug(
                "dream.contradiction.values",
                &[
                    ("key", found.key.as_str().into()),
                    ("values", values.into()),
                ],
            );
        }
    }
    let mut model_failures = 0;
    if dream.summarize_interactions {
        if let Some(model) = hosts.model {
            model_failures = summarize(hosts, model, &versioned, run, entries, log, report).await;
        }
    }
    // Retention is enforced by every write and by each run (behaviour §8.3): versions past
    // `retainDays` go even when nothing changes any more.
    if let Err(error) = versioned.apply_retention(user).await {
        log.failed(
            LogLevel::Warn,
            "dream.history.retention-failed",
            ("userId", user),
            &error,
        );
    }
    Outcome {
        processed: true,
        model_failures,
    }
}

/// Summarise group by group; returns the number of failed model calls.
async fn summarize<S, H, M>(
    hosts: &Hosts<'_, S, H, M>,
    model: &M,
    store: &Versioned<'_, Timed<'_, S, H>, At>,
    run: &DreamRun,
    entries: Vec<Entry>,
    log: &RunLog<'_, H>,
    report: &mut DreamReport,
) -> u64
where
    S: EntryStore,
    H: Host,
    M: LanguageModel,
{
    let dream = &run.config.dream;
    let guardrails = &run.config.guardrails;
    let (user, agent) = (run.user_id.as_str(), run.agent_id.as_str());
    let groups = {
        let in_scope = scoped(&entries, user, agent, dream.cross_agent_maintenance);
        summary_groups(&in_scope, dream, guardrails, agent)
    };
    let mut view = EntryView::new(entries);
    let model = Timed {
        host: model,
        timer: hosts.host,
        ms: run.model_ms,
    };
    let now = run.now.to_rfc3339_opts(SecondsFormat::Millis, true);
    let target = usize::try_from(dream.summarize_target_entries).unwrap_or(usize::MAX);
    let mut failures = 0;
    let mut stopped = false;
    let eligible = groups
        .iter()
        .filter(|g| g.members.len() as u64 >= dream.summarize_min_entries);
    for group in eligible {
        let name = group.name.as_str();
        if stopped {
            report.skip(name, SkipReason::Stopped);
            continue;
        }
        if report.estimated_cost_usd >= dream.max_cost_per_run {
            log.info(
                "dream.cost-limit",
                &[
                    ("group", name.into()),
                    ("spentUsd", report.estimated_cost_usd.into()),
                    ("maxCostPerRun", dream.max_cost_per_run.into()),
                ],
            );
            report.skip(name, SkipReason::CostLimit);
            continue;
        }
        report.calls += 1;
        let completion = match model.complete(&group.request).await {
            Ok(completion) => completion,
            Err(error) => {
                failures += 1;
                let transient = is_transient(&error);
                let fields = [
                    ("group", name.into()),
                    ("code", error.code.as_str().into()),
                    ("message", error_text(&error).into()),
                ];
                if transient {
                    log.warn("dream.model.transient", &fields);
                    report.skip(name, SkipReason::ModelTransient);
                } else {
                    log.error("dream.model.failed", &fields);
                    report.skip(name, SkipReason::ModelError);
                    report.error = Some(DreamError {
                        code: DreamErrorCode::ModelFailed,
                        message: format!("the summarisation model failed; originals kept, summarisation stopped for this run: {}", error_text(&error)),
                    });
                    stopped = true;
                }
                continue;
            }
        };
        let tokens = charged_tokens(completion.usage, &group.request, &completion.text);
        report.estimated_cost_usd += cost_usd(tokens, run.price);
        let Some(mut items) = parse_dream_answer(&completion.text, guardrails) else {
            log.warn("dream.answer.invalid", &[("group", name.into())]);
            report.skip(name, SkipReason::InvalidAnswer);
            continue;
        };
        if items.len() >= group.members.len() {
            log.warn(
                "dream.answer.not-smaller",
                &[
                    ("group", name.into()),
                    ("answered", items.len().into()),
                    ("members", group.members.len().into()),
                ],
            );
            report.skip(name, SkipReason::NotSmaller);
            continue;
        }
        items.truncate(target);
        if let Err(kind) = guard_items(run.config.secrets, &mut items) {
            log.warn(
                "dream.answer.secret",
                &[("group", name.into()), ("kind", kind.as_str().into())],
            );
            report.skip(name, SkipReason::Secret);
            continue;
        }
        let writes = match plan_group_writes(group, &items, &view, user, &now, hosts.host) {
            GroupPlan::Skip(reason) => {
                log.warn(
                    "dream.group.skipped",
                    &[("group", name.into()), ("reason", reason.as_str().into())],
                );
                report.skip(name, reason);
                continue;
            }
            GroupPlan::Write(writes) => writes,
        };
        // New entries under the host's ids take only ids nobody holds (an entry id belongs to
        // one user): a held one skips the group before anything is written.
        if hosts.host.host_made() && !writes.inserts.is_empty() {
            let asked: Vec<String> = writes.inserts.iter().map(|e| e.id.clone()).collect();
            let held = match crate::entries::ownership::holders(store, &asked).await {
                Ok(held) => held,
                Err(error) => {
                    log.failed(
                        LogLevel::Warn,
                        "dream.group.failed",
                        ("group", name),
                        &error,
                    );
                    report.skip(name, SkipReason::WriteFailed);
                    continue;
                }
            };
            if !held.is_empty() {
                log.warn(
                    "dream.group.skipped",
                    &[
                        ("group", name.into()),
                        ("reason", SkipReason::IdCollision.as_str().into()),
                    ],
                );
                report.skip(name, SkipReason::IdCollision);
                continue;
            }
        }
        let ids = |list: &mut dyn Iterator<Item = &Entry>| {
            list.map(|e| Value::from(e.id.as_str())).collect::<Vec<_>>()
        };
        log.debug(
            "dream.group.writes",
            &[
                ("group", name.into()),
                ("members", ids(&mut group.members.iter()).into()),
                ("inserts", ids(&mut writes.inserts.iter()).into()),
                (
                    "updates",
                    ids(&mut writes.updates.iter().map(|(o, _)| o)).into(),
                ),
                ("deletes", writes.deletes.clone().into()),
            ],
        );
        match apply_group(store, &writes, &mut view, log).await {
            Ok(applied) => {
                let reduced = applied.deleted.saturating_sub(applied.inserted);
                report.summarized += reduced;
                for (entry_id, error) in &applied.kept {
                    report.originals_kept.push(KeptOriginal {
                        group: name.to_string(),
                        entry_id: entry_id.clone(),
                        code: error.code.as_str().to_string(),
                        message: error_text(error),
                    });
                }
                log.info(
                    "dream.group.consolidated",
                    &[
                        ("group", name.into()),
                        ("inserted", applied.inserted.into()),
                        ("updated", writes.updates.len().into()),
                        ("deleted", applied.deleted.into()),
                        ("reduced", reduced.into()),
                    ],
                );
            }
            Err(error) => {
                log.failed(
                    LogLevel::Warn,
                    "dream.group.write-failed",
                    ("group", name),
                    &error,
                );
                report.skip(name, SkipReason::WriteFailed);
            }
        }
    }
    failures
}

/// Apply the secrets policy to a summary's items (behaviour §8.1): redacted in place, or the first
/// refused item's kind (the whole group is then skipped, its originals untouched).
fn guard_items(
    policy: SecretPolicy,
    items: &mut [crate::dream::answer::AnswerItem],
) -> std::result::Result<(), CredentialKind> {
    let mut clean = Vec::with_capacity(items.len());
    for item in items.iter() {
        match guard_entry(policy, &item.key, &Value::from(item.value.as_str())) {
            EntryGuard::Clean => clean.push(None),
            EntryGuard::Redacted { value, .. } => {
                clean.push(Some(value.as_str().unwrap_or(MEMORY_REDACTED).to_string()))
            }
            EntryGuard::Refused(found) => return Err(found.kind),
        }
    }
    for (item, value) in items.iter_mut().zip(clean) {
        if let Some(value) = value {
            item.value = value;
        }
    }
    Ok(())
}
