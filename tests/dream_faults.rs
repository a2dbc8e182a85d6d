//! Fault injection at every step of a Dream run (SPEC §3 item 3: "tested with a store that fails
//! at every possible step"). For randomly generated users (proptest, `PROPTEST_RNG_SEED` fixed by
//! `make test`, 1,000 cases), a clean run counts its store operations N; then for every k in
//! 1..=N the k-th operation fails — once before it takes effect, once after (a write that
//! happened but whose answer was lost) — and for every k in 0..N the run "crashes" after the
//! k-th operation (nothing answers any more and the future is dropped). After each run an
//! invariant checker, which knows only the initial entries, the final store and the ids of
//! each group's planned writes (the `dream.group.writes` debug event), proves:
//! - every original fact is still there — the entry unchanged, or updated in place into a
//!   consolidated entry, or deleted only when every consolidated entry of its group exists;
//! - no `_gdpr_` entry changed, no other user's entry changed;
//! - no entry outside the processed groups changed (pruning aside, which only deletes the
//!   stale entries in scope); every new entry is a planned consolidated one;
//! - groups only hold entries in scope, and a self-visibility group never mixes agents;
//! - with one failure (not a crash) a group is all or nothing: consolidated (every new and
//!   updated entry written) or rolled back (no new entry left, every updated original restored).
//!
//! - over the in-memory store (which keeps history, SPEC §8.3), every original that is gone or
//!   changed is kept as a version holding its state, so it can be restored — the history appends
//!   are among the faulted operations.
//!
//! The number of faults survived is written to stderr (`cargo test` shows it).

mod common;

use common::dream_fakes::DreamSetup;
use common::dream_fakes::{until_stuck, Fault, Faulty, ScriptModel};
use common::turn_fakes::RecordingLogger;
use common::*;
use memcore::dream::{dream, DreamInput};
use memcore::entries::{Entry, EntryStore, InMemoryEntryStore};
use memcore::host::{Completion, CompletionRequest, IdSource, NoTimer};
use memcore::{Error, ErrorCode};
use proptest::prelude::*;
use proptest::test_runner::{Config, TestRunner};
use serde_json::{json, Value};
use std::cell::Cell;
use std::collections::{HashMap, HashSet};
use std::io::Write;

const NOW: &str = "2026-06-17T12:00:00Z";
const WRITTEN: &str = "2026-06-17T12:00:00.000Z";
const AGENTS: [Option<&str>; 5] = [
    Some("agent-1"),
    Some("agent-1"),
    Some("agent-1"),
    Some("agent-2"),
    None,
];
const VISIBILITIES: [&str; 5] = ["self", "global", "group", "self", "team"];
const CATEGORIES: [Option<&str>; 4] = [Some("fact"), Some("preference"), Some("fact"), None];
const KEYS: [&str; 25] = [
    "dog",
    "color",
    "city",
    "lang",
    "tz",
    "food",
    "job",
    "pet",
    "car",
    "team",
    "sport",
    "music",
    "book",
    "film",
    "drink",
    "diet",
    "shoe",
    "bike",
    "plant",
    "home",
    "work",
    "school",
    "band",
    "game",
    "_gdpr_note",
];
const VALUES: [&str; 5] = ["Rex", "blue", "Basel", "de", "CET"];
const STAMPS: [&str; 4] = [
    "2026-06-10T00:00:00Z",
    "2026-01-01T00:00:00Z",
    "2026-06-16T23:00:00+01:00",
    "soon",
];

/// One generated user: entries, a second user's entries, the configuration, the model's seed.
#[derive(Debug, Clone)]
struct User {
    entries: Vec<Entry>,
    config: Value,
    seed: u64,
    in_memory: bool,
}

fn arb_user() -> impl Strategy<Value = User> {
    let entry = (
        0..5usize,
        0..5usize,
        0..4usize,
        0..25usize,
        0..5usize,
        0..4usize,
        0..3usize,
    );
    let config = (
        prop_oneof![Just(0u64), Just(30u64)],
        any::<bool>(),
        any::<bool>(),
        any::<bool>(),
        2..4u64,
        1..3u64,
        any::<bool>(),
    );
    (proptest::collection::vec(entry, 8..36), 0..3usize, 0..20u8, config, any::<u64>(), any::<bool>()).prop_map(
        |(specs, others, restricted, (days, cross, all, provenance, min, target, detect), seed, in_memory)| {
            let mut entries: Vec<Entry> = specs
                .iter()
                .enumerate()
                .map(|(i, &(a, v, c, k, val, s, g))| {
                    let visibility = VISIBILITIES[v];
                    let group_ids = match (visibility, g) {
                        ("group", 0) => json!(["team-a"]),
                        ("group", 1) => json!(["team-b", "team-a"]),
                        ("group", _) => json!(["team-b"]),
                        _ => json!([]),
                    };
                    entry_from(&json!({
                        "id": format!("e-{i}"), "userId": "user-1", "key": KEYS[k], "value": VALUES[val],
                        "category": CATEGORIES[c], "visibility": visibility, "sourceAgentId": AGENTS[a],
                        "groupIds": group_ids, "sourceConversationId": "conv-1", "accessCount": i,
                        "createdAt": "2026-01-01T00:00:00Z", "updatedAt": STAMPS[s],
                    }))
                })
                .collect();
            for i in 0..others {
                entries.push(entry_from(&json!({
                    "id": format!("other-{i}"), "userId": "user-2", "key": "dog", "value": "Rex",
                    "visibility": "self", "sourceAgentId": "agent-1", "updatedAt": STAMPS[1],
                })));
            }
            if restricted == 0 {
                entries.push(entry_from(&json!({
                    "id": "restricted", "userId": "user-1", "key": "_gdpr_processing_restricted", "value": true,
                })));
            }
            let config = json!({ "dream": {
                "enabled": true, "pruneStaleAfterDays": days, "crossAgentMaintenance": cross,
                "summarizeGroupBy": if all { "all" } else { "category" }, "preserveAgentProvenance": provenance,
                "summarizeMinEntries": min, "summarizeTargetEntries": target, "detectContradictions": detect,
                "summarizeInteractions": true, "maxCostPerRun": 10.0,
            }});
            User { entries, config, seed, in_memory }
        },
    )
}

fn fnv(text: &str, seed: u64) -> u64 {
    text.bytes().fold(0xcbf2_9ce4_8422_2325 ^ seed, |h, b| {
        (h ^ u64::from(b)).wrapping_mul(0x0100_0000_01b3)
    })
}

/// The model: its behaviour for a group is a function of the prompt, so it answers the same
/// group the same way in every run.
fn answer(request: &CompletionRequest, seed: u64) -> memcore::error::Result<Completion> {
    let block = request
        .user
        .split("<memories>\n")
        .nth(1)
        .and_then(|r| r.split("\n</memories>").next())
        .unwrap();
    let members: Vec<Value> = serde_json::from_str(block).unwrap();
    let text_of = |v: &Value| v.as_str().map_or_else(|| v.to_string(), str::to_string);
    let n = members.len();
    let h = fnv(&request.user, seed);
    let item = |k: &str, v: &str| json!({ "key": k, "value": v });
    let reuse = |with_new: bool| {
        let mut out = vec![item(members[0]["key"].as_str().unwrap(), "merged in place")];
        if with_new && n > 2 {
            out.push(item("fresh", "new"));
        }
        out
    };
    let items: Vec<Value> = match h % 16 {
        0..=2 => (0..(n - 1).clamp(1, 2))
            .map(|i| item(&format!("sum-{:x}-{i}", h % 4096), "merged"))
            .collect(),
        3 | 4 => (0..(n - 1).clamp(1, 2))
            .map(|i| item(&format!("sum-{i}"), "merged"))
            .collect(),
        5 | 6 => reuse(true),
        7 => reuse(false),
        8 => vec![item(
            members[0]["key"].as_str().unwrap(),
            &text_of(&members[0]["value"]),
        )],
        9 => vec![item(KEYS[(h / 16 % 24) as usize], "collides?")],
        10 => vec![item("dup", "a"), item("dup", "b")],
        11 => {
            return Ok(Completion {
                text: "I can't do that".into(),
                usage: None,
            })
        }
        12 => return Err(Error::new(ErrorCode::Host, "429 Too Many Requests")),
        13 => return Err(Error::new(ErrorCode::Host, "401 Unauthorized")),
        14 => (0..=n).map(|i| item(&format!("many-{i}"), "x")).collect(),
        _ => vec![
            item(members[n - 1]["key"].as_str().unwrap(), "merged"),
            item(members[0]["key"].as_str().unwrap(), "merged too"),
        ],
    };
    Ok(Completion {
        text: Value::Array(items).to_string(),
        usage: None,
    })
}

#[derive(Default)]
struct Counter(Cell<u32>);
impl IdSource for Counter {
    fn new_id(&self) -> String {
        self.0.set(self.0.get() + 1);
        format!("dream-{}", self.0.get())
    }
}

/// The ids of one group's planned writes, from its `dream.group.writes` event.
struct Plan {
    members: Vec<String>,
    inserts: Vec<String>,
    updates: Vec<String>,
    deletes: Vec<String>,
}

fn plans(logger: &RecordingLogger) -> Vec<Plan> {
    let ids = |v: &Value| {
        v.as_array()
            .unwrap()
            .iter()
            .map(|i| i.as_str().unwrap().to_string())
            .collect()
    };
    logger
        .events
        .borrow()
        .iter()
        .filter(|e| e.event == "dream.group.writes")
        .map(|e| Plan {
            members: ids(&e.fields["members"]),
            inserts: ids(&e.fields["inserts"]),
            updates: ids(&e.fields["updates"]),
            deletes: ids(&e.fields["deletes"]),
        })
        .collect()
}

struct Outcome {
    report: Option<memcore::dream::DreamReport>,
    store_after: Vec<Entry>,
    logger: RecordingLogger,
    ops: usize,
    /// `user-1`'s versions after the run, when the store keeps history.
    versions: Option<Vec<memcore::entries::history::Version>>,
}

fn run_once<S: EntryStore>(user: &User, inner: S, fault: Fault) -> Option<Outcome> {
    let store = Faulty::new(inner);
    for e in &user.entries {
        block_on(store.inner.upsert(e)).unwrap();
    }
    store.fault.set(fault);
    let seed = user.seed;
    let hosts = DreamSetup {
        store,
        model: Some(ScriptModel::from_fn(move |r| answer(r, seed))),
        host: memcore::host::Parts {
            clock: TestClock::at(NOW),
            ids: Counter::default(),
            timer: NoTimer,
            logger: RecordingLogger::default(),
            embedder: memcore::host::NoEmbedder,
        },
    };
    let input: DreamInput = serde_json::from_value(
        json!({ "userId": "user-1", "agentId": "agent-1", "now": NOW, "config": user.config }),
    )
    .unwrap();
    let finished = until_stuck(dream(&hosts.hosts(), &input, None));
    if !matches!(fault, Fault::CrashAfter { .. }) {
        finished.as_ref()?.as_ref().ok()?;
    }
    let ops = hosts.store.total();
    hosts.store.fault.set(Fault::None);
    let mut store_after = block_on(hosts.store.inner.list("user-1")).unwrap();
    store_after.extend(block_on(hosts.store.inner.list("user-2")).unwrap());
    let report = finished.and_then(Result::ok);
    let all = memcore::entries::history::VersionQuery {
        user_id: "user-1",
        entry_id: None,
        key: None,
    };
    let versions = block_on(hosts.store.inner.versions(&all)).unwrap();
    Some(Outcome {
        report,
        store_after,
        logger: hosts.host.logger,
        ops,
        versions,
    })
}

fn is_marked(e: &Entry) -> bool {
    e.source_conversation_id.as_deref() == Some("dream-consolidation") && e.updated_at == WRITTEN
}

/// The history invariant of a non-destructive Dream (the default `dream.mode: 'supersede'`), over
/// a store that keeps history: every original of `user-1` that is gone or changed is kept as a
/// version holding its state (so it can be restored), whatever failed.
fn check_history(user: &User, outcome: &Outcome) -> Result<(), String> {
    let Some(versions) = &outcome.versions else {
        return Ok(());
    };
    let state = |key: &str,
                 value: &Value,
                 category: &str,
                 visibility: &str,
                 groups: &[String],
                 agent: &Option<String>| {
        json!([key, value, category, visibility, groups, agent])
    };
    for original in user
        .entries
        .iter()
        .filter(|e| e.user_id == "user-1" && !e.key.starts_with("_gdpr_"))
    {
        let now = outcome.store_after.iter().find(|e| e.id == original.id);
        if now == Some(original) {
            continue;
        }
        let want = state(
            &original.key,
            &original.value,
            &original.category,
            &original.visibility,
            &original.group_ids,
            &original.source_agent_id,
        );
        let kept = versions.iter().any(|v| {
            v.entry_id == original.id
                && v.valid_from == original.updated_at
                && state(
                    &v.key,
                    &v.value,
                    &v.category,
                    &v.visibility,
                    &v.group_ids,
                    &v.source_agent_id,
                ) == want
        });
        if !kept {
            return Err(format!(
                "{} is {} but no version keeps its state",
                original.id,
                if now.is_some() { "changed" } else { "gone" }
            ));
        }
    }
    Ok(())
}

/// The invariants (module documentation). `single_fault`: a failure, not a crash.
fn check(user: &User, outcome: &Outcome, single_fault: bool) -> Result<(), String> {
    check_history(user, outcome)?;
    let before: HashMap<&str, &Entry> = user.entries.iter().map(|e| (e.id.as_str(), e)).collect();
    let after: HashMap<&str, &Entry> = outcome
        .store_after
        .iter()
        .map(|e| (e.id.as_str(), e))
        .collect();
    let dream = &user.config["dream"];
    let cross = dream["crossAgentMaintenance"] == true;
    let in_scope = |e: &Entry| {
        e.user_id == "user-1"
            && !e.key.starts_with("_gdpr_")
            && (cross || e.source_agent_id.as_deref() == Some("agent-1"))
    };
    let days = dream["pruneStaleAfterDays"].as_i64().unwrap();
    let cutoff = parse_time(NOW) - chrono::Duration::days(days);
    let stale = |e: &Entry| {
        days > 0 && chrono::DateTime::parse_from_rfc3339(&e.updated_at).is_ok_and(|t| t < cutoff)
    };
    let plans = plans(&outcome.logger);
    let mut planned: HashMap<&str, &Plan> = HashMap::new();
    for plan in &plans {
        let members: Vec<&Entry> = plan
            .members
            .iter()
            .map(|id| {
                before
                    .get(id.as_str())
                    .copied()
                    .ok_or(format!("member {id} is no original"))
            })
            .collect::<Result<_, _>>()?;
        if let Some(bad) = members.iter().find(|e| !in_scope(e)) {
            return Err(format!("{} is not in scope", bad.id));
        }
        if members.iter().any(|e| e.visibility == "self") {
            let agents: HashSet<_> = members.iter().map(|e| &e.source_agent_id).collect();
            if agents.len() > 1 {
                return Err(format!("a self group mixes agents: {:?}", plan.members));
            }
        }
        for id in &plan.members {
            if planned.insert(id.as_str(), plan).is_some() {
                return Err(format!("{id} is in two groups"));
            }
        }
        if plan.updates.iter().any(|id| !plan.members.contains(id))
            || plan
                .inserts
                .iter()
                .any(|id| before.contains_key(id.as_str()))
        {
            return Err("an update of a non-member or an insert over an original".into());
        }
    }
    let committed = |plan: &Plan| {
        plan.inserts
            .iter()
            .all(|id| after.get(id.as_str()).is_some_and(|e| is_marked(e)))
            && plan
                .updates
                .iter()
                .all(|id| after.get(id.as_str()).is_some_and(|e| is_marked(e)))
    };
    let rolled_back = |plan: &Plan| {
        plan.inserts
            .iter()
            .all(|id| !after.contains_key(id.as_str()))
            && plan
                .updates
                .iter()
                .all(|id| after.get(id.as_str()) == before.get(id.as_str()))
    };
    for plan in &plans {
        if single_fault && !committed(plan) && !rolled_back(plan) {
            return Err(format!(
                "after one failure, a group is neither consolidated nor rolled back: {:?}",
                plan.members
            ));
        }
    }
    for original in &user.entries {
        let now = after.get(original.id.as_str()).copied();
        let unchanged = now == Some(original);
        if unchanged {
            continue;
        }
        let id = &original.id;
        if original.key.starts_with("_gdpr_") || original.user_id != "user-1" {
            return Err(format!("{id} (reserved or another user's) changed"));
        }
        let pruned = now.is_none() && in_scope(original) && stale(original);
        if pruned {
            // A prune delete that took effect but answered an error leaves it in the run's
            // list (no reload): it may then be planned too.
            continue;
        }
        if let Some(plan) = planned.get(id.as_str()) {
            let ok = match now {
                Some(e) => plan.updates.contains(id) && is_marked(e) && e.key == original.key,
                None => plan.deletes.contains(id) && committed(plan),
            };
            if !ok {
                return Err(format!(
                    "original {id} lost or changed outside its group's consolidation: now {now:?}"
                ));
            }
        } else {
            return Err(format!(
                "{id}, outside every processed group, changed: now {now:?}"
            ));
        }
    }
    for entry in &outcome.store_after {
        let planned_insert =
            plans.iter().any(|p| p.inserts.contains(&entry.id)) && is_marked(entry);
        if !before.contains_key(entry.id.as_str()) && !planned_insert {
            return Err(format!("a stray entry {}", entry.id));
        }
    }
    Ok(())
}

#[test]
fn every_fault_at_every_step_keeps_every_original_fact() {
    let mut runner = TestRunner::new(Config {
        cases: 1000,
        failure_persistence: None,
        ..Config::default()
    });
    let survived = Cell::new(0u64);
    let crashes = Cell::new(0u64);
    let consolidated = Cell::new(0u64);
    let users = Cell::new(0u64);
    let skipped = std::cell::RefCell::new(std::collections::BTreeMap::new());
    let result = runner.run(&arb_user(), |user| {
        users.set(users.get() + 1);
        let run = |fault| {
            if user.in_memory {
                run_once(&user, InMemoryEntryStore::new(), fault)
            } else {
                run_once(&user, MemStore::default(), fault)
            }
        };
        let clean = run(Fault::None).ok_or_else(|| TestCaseError::fail("the clean run failed"))?;
        check(&user, &clean, true).map_err(|e| TestCaseError::fail(format!("clean run: {e}")))?;
        consolidated.set(consolidated.get() + plans(&clean.logger).len() as u64);
        if let Some(report) = &clean.report {
            let mut reasons = skipped.borrow_mut();
            for s in &report.groups_skipped {
                *reasons.entry(s.reason.as_str()).or_insert(0u64) += 1;
            }
            if report.restricted {
                *reasons.entry("(restricted users)").or_insert(0) += 1;
            }
        }
        let n = clean.ops;
        for k in 1..=n {
            for applied in [false, true] {
                let outcome = run(Fault::FailAt { k, applied }).ok_or_else(|| {
                    TestCaseError::fail(format!("the run with op {k} failing did not finish"))
                })?;
                check(&user, &outcome, true).map_err(|e| {
                    TestCaseError::fail(format!("op {k} of {n} failed (applied: {applied}): {e}"))
                })?;
                survived.set(survived.get() + 1);
            }
        }
        for k in 0..n {
            let outcome =
                run(Fault::CrashAfter { k }).ok_or_else(|| TestCaseError::fail("crash run"))?;
            check(&user, &outcome, false)
                .map_err(|e| TestCaseError::fail(format!("crash after op {k} of {n}: {e}")))?;
            crashes.set(crashes.get() + 1);
        }
        Ok(())
    });
    if let Err(error) = result {
        panic!("{error}");
    }
    let line = format!(
        "dream fault injection: {} users, {} groups consolidated in clean runs (skipped: {:?}), {} injected store failures and {} crashes survived\n",
        users.get(), consolidated.get(), skipped.borrow(), survived.get(), crashes.get()
    );
    // Written past the test harness's capture, so every `cargo test` shows it.
    let _ = std::io::stderr().write_all(line.as_bytes());
    assert!(
        users.get() >= 1000 && survived.get() > 10_000 && consolidated.get() > 500,
        "{line}"
    );
}
