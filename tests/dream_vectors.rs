//! Replays `tests/vectors/dream/*.json` — EDDI's Dream cases and ours, which the JS suite replays
//! through the package too — over the list-based test store and over the bundled
//! `InMemoryEntryStore`, both behind a counting, fault-injecting wrapper.

mod common;

use common::dream_fakes::DreamSetup;
use common::dream_fakes::{FailOn, Faulty, ListIds, ScriptModel};
use common::turn_fakes::RecordingLogger;
use common::*;
use memcore::dream::{dream, DreamInput, DreamMetrics};
use memcore::entries::{Entry, EntryStore, InMemoryEntryStore};
use memcore::host::{Completion, NoTimer, Usage};
use memcore::{Error, ErrorCode};
use serde_json::{json, Map, Value};

/// `patch` merged into `base`, objects recursively.
fn merged(base: &Value, patch: &Value) -> Value {
    match (base, patch) {
        (Value::Object(b), Value::Object(p)) => {
            let mut out = b.clone();
            for (k, v) in p {
                let next = out.get(k).map_or_else(|| v.clone(), |old| merged(old, v));
                out.insert(k.clone(), next);
            }
            Value::Object(out)
        }
        (_, p) => p.clone(),
    }
}

/// The case's entries: `entries` and `make` expanded over the defaults.
pub fn case_entries(case: &Value, defaults: &Value) -> Vec<Entry> {
    let base = &defaults["entry"];
    let mut out = Vec::new();
    for spec in case["make"].as_array().into_iter().flatten() {
        let text = |k: &str, d: &str| spec[k].as_str().unwrap_or(d).to_string();
        let (id, key, value) = (
            text("idPrefix", "id-"),
            text("keyPrefix", "key-"),
            text("valuePrefix", "value-"),
        );
        let mut fields: Map<String, Value> = spec.as_object().unwrap().clone();
        for k in ["count", "idPrefix", "keyPrefix", "valuePrefix"] {
            fields.remove(k);
        }
        for i in 0..spec["count"].as_u64().unwrap() {
            let mut partial = fields.clone();
            partial.insert("id".into(), json!(format!("{id}{i}")));
            partial.insert("key".into(), json!(format!("{key}{i}")));
            partial.insert("value".into(), json!(format!("{value}{i}")));
            out.push(serde_json::from_value(merged(base, &Value::Object(partial))).unwrap());
        }
    }
    for partial in case["entries"].as_array().into_iter().flatten() {
        out.push(serde_json::from_value(merged(base, partial)).unwrap());
    }
    out
}

fn answer(value: &Value) -> memcore::error::Result<Completion> {
    match value {
        Value::String(text) => Ok(Completion {
            text: text.clone(),
            usage: None,
        }),
        Value::Object(o) if o.contains_key("error") => {
            let e = &o["error"];
            let error = Error::new(ErrorCode::Host, e["message"].as_str().unwrap());
            Err(match e.get("details") {
                Some(d) => error.with_details(d.clone()),
                None => error,
            })
        }
        Value::Object(o) => Ok(Completion {
            text: o["text"].as_str().unwrap().to_string(),
            usage: o.get("usage").map(|u| Usage {
                input_tokens: u["inputTokens"].as_u64().unwrap(),
                output_tokens: u["outputTokens"].as_u64().unwrap(),
            }),
        }),
        other => panic!("unusable answer {other}"),
    }
}

/// The run's input JSON (as the JS layer would send it).
pub fn case_input(case: &Value, defaults: &Value) -> Value {
    let pick = |k: &str| case.get(k).unwrap_or(&defaults[k]).clone();
    let mut input = json!({
        "userId": pick("userId"), "agentId": pick("agentId"), "now": defaults["now"],
        "config": merged(&defaults["config"], case.get("config").unwrap_or(&json!({}))),
    });
    if let Some(price) = case.get("price") {
        input["price"] = price.clone();
    }
    input
}

fn same(actual: &Value, expected: &Value) -> bool {
    match (actual, expected) {
        (Value::Number(a), Value::Number(e)) => {
            (a.as_f64().unwrap() - e.as_f64().unwrap()).abs() < 1e-12
        }
        (Value::Object(a), Value::Object(e)) => {
            e.iter().all(|(k, v)| a.get(k).is_some_and(|x| same(x, v)))
        }
        (Value::Array(a), Value::Array(e)) => {
            a.len() == e.len() && a.iter().zip(e).all(|(x, y)| same(x, y))
        }
        _ => actual == expected,
    }
}

fn replay<S: EntryStore>(file: &str, case: &Value, defaults: &Value, inner: S, kind: &str) {
    let name = format!("{file}: {} [{kind}]", case["name"].as_str().unwrap());
    let user = defaults["userId"].as_str().unwrap();
    let store = Faulty::new(inner);
    for entry in case_entries(case, defaults) {
        block_on(store.inner.upsert(&entry)).unwrap();
    }
    for (op, spec) in case["storeFails"].as_object().into_iter().flatten() {
        let fail = match spec {
            Value::String(all) if all == "all" => FailOn::All,
            list => FailOn::Nth(
                list.as_array()
                    .unwrap()
                    .iter()
                    .map(|n| n.as_u64().unwrap() as usize)
                    .collect(),
            ),
        };
        store.fails.borrow_mut().insert(op.clone(), fail);
    }
    let answers = case["answers"]
        .as_array()
        .into_iter()
        .flatten()
        .map(answer)
        .collect();
    let ids = case["newIds"]
        .as_array()
        .into_iter()
        .flatten()
        .map(|v| v.as_str().unwrap().to_string());
    let hosts = DreamSetup {
        store,
        model: Some(ScriptModel::new(answers)),
        host: memcore::host::Parts {
            clock: TestClock::at(defaults["now"].as_str().unwrap()),
            ids: ListIds {
                list: ids.collect(),
                ..ListIds::default()
            },
            timer: NoTimer,
            logger: RecordingLogger::default(),
            embedder: memcore::host::NoEmbedder,
        },
    };
    let input: DreamInput = serde_json::from_value(case_input(case, defaults)).unwrap();
    let metrics = DreamMetrics::new();
    let report = block_on(dream(&hosts.hosts(), &input, Some(&metrics)))
        .unwrap_or_else(|e| panic!("{name}: {e}"));
    let json = serde_json::to_value(&report).unwrap();
    let expect = &case["expect"];
    for (field, want) in expect["report"].as_object().into_iter().flatten() {
        assert!(
            same(&json[field], want),
            "{name}: report.{field} is {}, expected {want}\n{json:#}",
            json[field]
        );
    }
    if expect["noError"] == true {
        assert!(json.get("error").is_none(), "{name}: {json:#}");
    }
    if let Some(text) = expect["errorContains"].as_str() {
        assert!(
            report
                .error
                .as_ref()
                .is_some_and(|e| e.message.contains(text)),
            "{name}: {json:#}"
        );
    }
    for (op, n) in expect["ops"].as_object().into_iter().flatten() {
        assert_eq!(
            hosts.store.count(op) as u64,
            n.as_u64().unwrap(),
            "{name}: {op} calls; {:?}",
            hosts.store.ops.borrow()
        );
    }
    let stored = block_on(hosts.store.inner.list(user)).unwrap();
    let shown = || serde_json::to_string_pretty(&stored).unwrap();
    if let Some(expected) = expect["store"].as_array() {
        assert_eq!(stored.len(), expected.len(), "{name}: {}", shown());
        for want in expected {
            assert!(
                stored.iter().any(|e| entry_matches(e, want)),
                "{name}: nothing matches {want}\n{}",
                shown()
            );
        }
    }
    if let Some(n) = expect["storeCount"].as_u64() {
        assert_eq!(stored.len() as u64, n, "{name}: {}", shown());
    }
    for want in expect["store_has"].as_array().into_iter().flatten() {
        assert!(
            stored.iter().any(|e| entry_matches(e, want)),
            "{name}: nothing matches {want}\n{}",
            shown()
        );
    }
    if let Some(other) = expect.get("otherUser") {
        let theirs = block_on(hosts.store.inner.list(other["userId"].as_str().unwrap())).unwrap();
        let ids: Vec<&str> = theirs.iter().map(|e| e.id.as_str()).collect();
        assert_eq!(json!(ids), other["ids"], "{name}");
        assert!(!hosts.store.ops.borrow().iter().any(
            |(_, arg)| ids.contains(&arg.as_str()) || arg == other["userId"].as_str().unwrap()
        ));
    }
    let requests = hosts.model.as_ref().unwrap().requests.borrow();
    if let Some(prompts) = expect.get("prompts") {
        if let Some(n) = prompts["count"].as_u64() {
            assert_eq!(requests.len() as u64, n, "{name}: model calls");
        }
        for text in prompts["contain"].as_array().into_iter().flatten() {
            let text = text.as_str().unwrap();
            assert!(
                requests.iter().all(|r| r.user.contains(text)),
                "{name}: a prompt lacks {text}"
            );
        }
        for text in prompts["lack"].as_array().into_iter().flatten() {
            let text = text.as_str().unwrap();
            assert!(
                requests
                    .iter()
                    .all(|r| !r.user.contains(text) && !r.system.contains(text)),
                "{name}: a prompt holds {text}"
            );
        }
    }
    assert_eq!(
        report.calls as usize,
        requests.len(),
        "{name}: calls = model requests"
    );
    let counted = metrics.snapshot();
    assert_eq!(
        (counted.entries_pruned, counted.entries_summarized),
        (report.pruned, report.summarized),
        "{name}"
    );
    assert_eq!(
        counted.cycles_failed,
        u64::from(report.error.is_some()),
        "{name}"
    );
}

#[test]
fn dream_vectors_replay_over_both_stores() {
    let mut ran = 0;
    for (file, doc) in vector_files("dream") {
        for case in doc["cases"].as_array().unwrap() {
            replay(
                &file,
                case,
                &doc["defaults"],
                MemStore::default(),
                "list store",
            );
            replay(
                &file,
                case,
                &doc["defaults"],
                InMemoryEntryStore::new(),
                "InMemoryEntryStore",
            );
            ran += 1;
        }
    }
    println!("{ran} dream vectors, each over two stores");
    assert!(ran >= 70, "{ran} cases");
}
