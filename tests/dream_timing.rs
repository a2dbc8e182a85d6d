//! Native timing of one Dream run over 10,000 entries in 50 groups with an instant model
//! (ignored: `cargo test --release --test dream_timing -- --ignored --nocapture`). Nothing is
//! asserted about time; `make bench` measures the package.

mod common;

use common::dream_fakes::DreamSetup;
use common::dream_fakes::{ListIds, ScriptModel};
use common::turn_fakes::RecordingLogger;
use common::*;
use memcore::dream::{dream, DreamInput};
use memcore::entries::{Entry, InMemoryEntryStore};
use memcore::host::{Completion, NoTimer};
use serde_json::json;
use std::time::Instant;

fn entries() -> Vec<Entry> {
    (0..10_000)
        .map(|i| {
            entry_from(&json!({
                "id": format!("e{i:05}"), "userId": "u1", "key": format!("topic_{}_{i}", i % 50),
                "value": format!("note {i} about topic {}", i % 50), "category": format!("cat-{:02}", i % 50),
                "visibility": if i % 4 == 0 { "global" } else { "self" }, "sourceAgentId": "agent-a",
                "updatedAt": "2026-11-01T00:00:00Z",
            }))
        })
        .collect()
}

#[test]
#[ignore]
fn dream_timing() {
    let all = entries();
    for round in 0..3 {
        let store = InMemoryEntryStore::new();
        for e in &all {
            store.upsert_now(e).unwrap();
        }
        let n = std::cell::Cell::new(0);
        let hosts = DreamSetup {
            store,
            model: Some(ScriptModel::from_fn(move |_| {
                n.set(n.get() + 1);
                let k = n.get();
                Ok(Completion {
                    text: format!(
                        r#"[{{"key":"s{k}a","value":"a"}},{{"key":"s{k}b","value":"b"}}]"#
                    ),
                    usage: None,
                })
            })),
            host: memcore::host::Parts {
                clock: TestClock::at("2026-11-29T03:00:00Z"),
                ids: ListIds::default(),
                timer: NoTimer,
                logger: RecordingLogger::default(),
                embedder: memcore::host::NoEmbedder,
            },
        };
        let input: DreamInput = serde_json::from_value(json!({
            "userId": "u1", "agentId": "agent-a", "now": "2026-11-29T03:00:00Z",
            "config": {"dream": {"enabled": true, "summarizeInteractions": true, "maxCostPerRun": 100}},
        }))
        .unwrap();
        let t = Instant::now();
        let report = block_on(dream(&hosts.hosts(), &input, None)).unwrap();
        println!(
            "round {round}: {:?}, summarized {}, calls {}",
            t.elapsed(),
            report.summarized,
            report.calls
        );
    }
}
