//! Concurrent turns of one user (SPEC §1.7): no lost update within one `ContextMemory` (per-user
//! lock) nor across two instances sharing a versioned store (conditional writes + bounded
//! re-consolidation), and conflict exhaustion.

mod common;

use common::turn_fakes::*;
use common::{block_on, WordCounter};
use memcore::host::{CompletionRequest, NoTimer, Purpose};
use memcore::turn::*;

const PATH: &str = "user-memory/u1/memory.md";
const EMPTY_BODY: &str = "# User Memory\n\n## Identity\n_(empty)_\n\n## Communication Preferences\n_(empty)_\n\n## Work Context\n_(empty)_\n\n## Skills & Expertise\n_(empty)_\n\n## Recent Topics\n_(empty)_\n\n## Follow-ups\n_(empty)_\n";

type Memory = ContextMemory<FakeHosts>;

fn block(text: &str, tag: &str) -> String {
    let open = format!("<{tag}>\n");
    let close = format!("\n</{tag}>");
    let start = text.find(&open).unwrap() + open.len();
    let end = start + text[start..].find(&close).unwrap();
    text[start..end].to_string()
}

/// A model that says UPDATE and adds the user message as one Work Context bullet to the body it
/// is shown.
fn fact_adding_model() -> FnModel {
    let model = FnModel::new(|request: &CompletionRequest| {
        if request.purpose == Purpose::Gate {
            return Ok("UPDATE".into());
        }
        let current = block(&request.user, "current_profile");
        let fact = block(&request.user, "user_message");
        let body = if current.trim().is_empty() {
            EMPTY_BODY.to_string()
        } else {
            current
        };
        let mut out = Vec::new();
        let mut in_work = false;
        for line in body.lines() {
            if line.starts_with("## ") {
                in_work = line == "## Work Context";
            }
            if in_work && line == "_(empty)_" {
                continue;
            }
            out.push(line.to_string());
            if line == "## Work Context" {
                out.push(format!("- {fact}"));
            }
        }
        Ok(out.join("\n") + "\n")
    });
    model.pend.set(true);
    model
}

fn memory(store: VersionedStore, retries: u32) -> Memory {
    ContextMemory::new(
        ContextMemoryConfig {
            max_conflict_retries: retries,
            ..Default::default()
        },
        FakeHosts {
            store,
            model: Some(fact_adding_model()),
            counter: WordCounter,
            notifier: RecordingNotifier::default(),
            host: test_host(StepClock::at("2026-06-17T12:00:00Z", 1), NoTimer),
        },
    )
    .unwrap()
}

fn turn(fact: String) -> TurnInput {
    TurnInput {
        user_id: "u1".into(),
        enabled: Some(true),
        user_message: fact,
        assistant_message: "ok".into(),
        conversation_id: None,
        at: None,
        group_id: None,
    }
}

fn facts_in(text: &str) -> usize {
    text.lines().filter(|l| l.starts_with("- fact-")).count()
}

#[test]
fn sixteen_concurrent_turns_of_one_user_lose_no_update() {
    let store = VersionedStore::default();
    store.pend.set(true);
    let m = memory(store, 0);
    let inputs: Vec<TurnInput> = (0..16).map(|i| turn(format!("fact-{i}"))).collect();
    let reports = join_all(inputs.iter().map(|input| m.after_turn(input)).collect())
        .into_iter()
        .map(Result::unwrap)
        .collect::<Vec<_>>();
    for report in &reports {
        assert_eq!(report.outcome, TurnOutcome::Updated, "{report:?}");
        assert_eq!(report.attempts, 1, "serialised turns never conflict");
    }
    let text = m.hosts().store.text(PATH).unwrap();
    for i in 0..16 {
        assert!(
            text.contains(&format!("- fact-{i}\n")),
            "fact-{i} lost:\n{text}"
        );
    }
    assert_eq!(facts_in(&text), 16);
    assert!(text.contains("turn_count: 16\n"));
    let mut counts: Vec<u64> = reports.iter().map(|r| r.turn_count.unwrap()).collect();
    counts.sort();
    assert_eq!(counts, (1..=16).collect::<Vec<u64>>());
    assert!(!m
        .hosts()
        .host
        .logger
        .names()
        .contains(&"memory.write.conflict".to_string()));
}

#[test]
fn two_instances_over_one_versioned_store_lose_no_update() {
    let store = VersionedStore::default();
    store.pend.set(true);
    let a = memory(store.clone(), 20);
    let b = memory(store.clone(), 20);
    let inputs: Vec<TurnInput> = (0..16).map(|i| turn(format!("fact-{i}"))).collect();
    let futures: Vec<_> = inputs
        .iter()
        .enumerate()
        .map(|(i, input)| {
            let m = if i % 2 == 0 { &a } else { &b };
            Box::pin(m.after_turn(input))
        })
        .collect();
    let reports: Vec<TurnReport> = join_all(futures).into_iter().map(Result::unwrap).collect();
    for report in &reports {
        assert_eq!(report.outcome, TurnOutcome::Updated, "{report:?}");
    }
    let retries: u32 = reports.iter().map(|r| r.attempts - 1).sum();
    assert!(retries > 0, "the two instances really raced");
    let text = store.text(PATH).unwrap();
    assert_eq!(facts_in(&text), 16, "{text}");
    assert!(text.contains("turn_count: 16\n"));
    let conflicts = a
        .hosts()
        .host
        .logger
        .names()
        .into_iter()
        .chain(b.hosts().host.logger.names())
        .filter(|n| n == "memory.write.conflict")
        .count();
    assert_eq!(conflicts as u32, retries);
}

#[test]
fn a_conflict_rereads_and_reconsolidates_on_the_fresh_profile() {
    let store = VersionedStore::default();
    let m = memory(store.clone(), 3);
    store.inject_conflicts.set(1);
    let report = block_on(m.after_turn(&turn("fact-a".into()))).unwrap();
    assert_eq!(report.outcome, TurnOutcome::Updated);
    assert_eq!(report.attempts, 2);
    // One gate, two consolidations; the notice shown and cleared around each.
    assert_eq!(
        m.hosts().model.as_ref().unwrap().purposes(),
        vec![Purpose::Gate, Purpose::Consolidate, Purpose::Consolidate]
    );
    assert_eq!(m.hosts().notifier.notices.borrow().len(), 4);
    assert_eq!(store.state.borrow().reads, 2);
    assert_eq!(report.usage.consolidate.unwrap().input_tokens, 20);
}

#[test]
fn conflicts_beyond_the_retries_are_write_failed() {
    let store = VersionedStore::default();
    store.put(
        PATH,
        &format!("---\nuser_id: u1\nturn_count: 2\n---\n\n{EMPTY_BODY}"),
    );
    let before = store.text(PATH);
    let m = memory(store.clone(), 2);
    store.inject_conflicts.set(10);
    let report = block_on(m.after_turn(&turn("fact-a".into()))).unwrap();
    assert_eq!(report.outcome, TurnOutcome::WriteFailed);
    assert_eq!(report.reason.as_deref(), Some("version-conflict"));
    assert_eq!(report.attempts, 3);
    assert_eq!(report.turn_count, Some(2));
    assert_eq!(store.text(PATH), before);
}

#[test]
fn zero_retries_fail_on_the_first_conflict() {
    let store = VersionedStore::default();
    let m = memory(store.clone(), 0);
    store.inject_conflicts.set(1);
    let report = block_on(m.after_turn(&turn("fact-a".into()))).unwrap();
    assert_eq!(report.outcome, TurnOutcome::WriteFailed);
    assert_eq!(report.attempts, 1);
}

#[test]
fn different_users_do_not_wait_for_each_other() {
    let store = VersionedStore::default();
    store.pend.set(true);
    let m = memory(store.clone(), 0);
    let inputs: Vec<TurnInput> = (0..4)
        .map(|i| TurnInput {
            user_id: format!("user{i}"),
            ..turn(format!("fact-{i}"))
        })
        .collect();
    let reports = join_all(inputs.iter().map(|input| m.after_turn(input)).collect())
        .into_iter()
        .map(Result::unwrap)
        .collect::<Vec<_>>();
    assert!(reports.iter().all(|r| r.outcome == TurnOutcome::Updated));
    for i in 0..4 {
        let text = store
            .text(&format!("user-memory/user{i}/memory.md"))
            .unwrap();
        assert!(text.contains(&format!("- fact-{i}\n")));
        assert!(text.contains(&format!("user_id: user{i}\n")));
    }
}

#[test]
fn a_cancelled_waiter_does_not_block_the_next_turn() {
    use std::future::Future;
    use std::pin::pin;
    use std::sync::Arc;
    use std::task::{Context, Wake, Waker};
    struct Noop;
    impl Wake for Noop {
        fn wake(self: Arc<Self>) {}
    }
    let store = VersionedStore::default();
    store.pend.set(true);
    let m = memory(store.clone(), 0);
    let first = turn("fact-1".into());
    let second = turn("fact-2".into());
    let waker = Waker::from(Arc::new(Noop));
    let mut cx = Context::from_waker(&waker);
    {
        let mut holder = pin!(m.after_turn(&first));
        assert!(holder.as_mut().poll(&mut cx).is_pending());
        {
            let mut waiter = pin!(m.after_turn(&second));
            assert!(waiter.as_mut().poll(&mut cx).is_pending());
        } // the waiter is dropped while queued
    } // the holder is dropped mid-turn
    let report = block_on(m.after_turn(&turn("fact-3".into()))).unwrap();
    assert_eq!(report.outcome, TurnOutcome::Updated);
    assert_eq!(facts_in(&store.text(PATH).unwrap()), 1);
}
