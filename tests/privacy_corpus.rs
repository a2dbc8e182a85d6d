//! The credential corpus (tests/vectors/privacy/corpus.json): thousands of fake credentials of
//! every kind SPEC §4.2 names, nested at depths 1–50, and prose-like negatives, generated at test
//! time from templates with a fixed seed — the JS suite (tests/js/privacy.test.mjs) generates
//! the same corpus. Prints the detection and false-positive rates; pins them.

use memcore::migrate::credentials::{detect_credential, holds_credential, redact_value};
use serde_json::{json, Value};
use std::collections::BTreeMap;

fn vectors() -> Value {
    let text = std::fs::read_to_string("tests/vectors/privacy/corpus.json").unwrap();
    serde_json::from_str(&text).unwrap()
}

/// xorshift32, as in the JS suite.
struct Rng(u32);

impl Rng {
    fn next(&mut self) -> u32 {
        let mut x = self.0;
        x ^= x << 13;
        x ^= x >> 17;
        x ^= x << 5;
        self.0 = x;
        x
    }
    fn below(&mut self, n: usize) -> usize {
        (self.next() % n as u32) as usize
    }
    fn pick<'a>(&mut self, list: &'a [Value]) -> &'a str {
        list[self.below(list.len())].as_str().unwrap()
    }
    fn chars(&mut self, alphabet: &str, n: usize) -> String {
        let bytes = alphabet.as_bytes();
        (0..n)
            .map(|_| bytes[self.below(bytes.len())] as char)
            .collect()
    }
}

const UPPER: &str = "ABCDEFGHIJKLMNOPQRSTUVWXYZ";
const LOWER: &str = "abcdefghijklmnopqrstuvwxyz";
const DIGITS: &str = "0123456789";

fn base64(bytes: &[u8]) -> String {
    const A: &[u8] = b"ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";
    let mut out = String::new();
    for chunk in bytes.chunks(3) {
        let b = [
            chunk[0],
            *chunk.get(1).unwrap_or(&0),
            *chunk.get(2).unwrap_or(&0),
        ];
        let n = (u32::from(b[0]) << 16) | (u32::from(b[1]) << 8) | u32::from(b[2]);
        for i in 0..4 {
            if i <= chunk.len() {
                out.push(A[((n >> (18 - 6 * i)) & 63) as usize] as char);
            } else {
                out.push('=');
            }
        }
    }
    out
}

fn piece(rng: &mut Rng, piece: &str, v: &Value) -> String {
    let Some(spec) = piece.strip_prefix('{').and_then(|p| p.strip_suffix('}')) else {
        return piece.replace('¦', "");
    };
    let (name, arg) = spec.split_once(':').unwrap_or((spec, ""));
    let n: usize = arg.parse().unwrap_or(0);
    let alnum = format!("{UPPER}{LOWER}{DIGITS}");
    match name {
        "upperdigit" => rng.chars(&format!("{UPPER}{DIGITS}"), n),
        "b64url" => rng.chars(&format!("{alnum}-_"), n),
        "b64" => rng.chars(&format!("{alnum}+/"), n),
        "alnum" => rng.chars(&alnum, n),
        "digits" => rng.chars(DIGITS, n),
        "lower" => rng.chars(LOWER, n),
        "hex" => rng.chars("0123456789abcdef", n),
        "basic" => {
            let user = rng.chars(LOWER, 6);
            let pass = rng.chars(&alnum, 12);
            base64(format!("{user}:{pass}").as_bytes())
        }
        "b64text" => base64(rng.pick(v["phrases"].as_array().unwrap()).as_bytes()),
        "word" | "name" | "compound" => {
            let list = format!("{name}s");
            rng.pick(v[list.as_str()].as_array().unwrap()).to_string()
        }
        other => panic!("unknown generator {other}"),
    }
}

/// One corpus item: the value and the path where its string sits.
fn item(rng: &mut Rng, class: &Value, v: &Value) -> (Value, String) {
    let text: String = class["template"]
        .as_array()
        .unwrap()
        .iter()
        .map(|p| piece(rng, p.as_str().unwrap(), v))
        .collect();
    let field = match class.get("field") {
        Some(Value::Array(fields)) => rng.pick(fields).to_string(),
        _ => "note".to_string(),
    };
    let depth = 1 + rng.below(v["maxDepth"].as_u64().unwrap() as usize);
    let mut value = json!({ field.clone(): text });
    let mut segments = vec![field];
    let mut strings = 0;
    for _ in 1..depth {
        let r = rng.below(10);
        if r == 9 && strings < 2 {
            strings += 1;
            value = Value::String(serde_json::to_string(&value).unwrap());
            value = json!({ "raw": value });
            segments.insert(0, "raw".into());
        } else if r >= 6 {
            let filler = rng.pick(v["filler"].as_array().unwrap()).to_string();
            value = json!([filler, value]);
            segments.insert(0, "[1]".into());
        } else {
            let key = rng.pick(v["containerKeys"].as_array().unwrap()).to_string();
            value = json!({ key.clone(): value });
            segments.insert(0, key);
        }
    }
    let mut path = String::new();
    for s in segments {
        if s.contains('.') {
            path.push_str(&format!("[{}]", serde_json::to_string(&s).unwrap()));
            continue;
        }
        if !s.starts_with('[') && !path.is_empty() {
            path.push('.');
        }
        path.push_str(&s);
    }
    (value, path)
}

#[test]
fn credential_corpus_detection_and_false_positive_rates() {
    let v = vectors();
    let mut rng = Rng(v["seed"].as_u64().unwrap() as u32);
    let per_class = v["perClass"].as_u64().unwrap() as usize;
    let (mut positives, mut detected, mut exact) = (0, 0, 0);
    let mut missed: BTreeMap<String, usize> = BTreeMap::new();
    for class in v["positives"].as_array().unwrap() {
        let name = class["class"].as_str().unwrap();
        for _ in 0..per_class {
            let (value, path) = item(&mut rng, class, &v);
            let found = detect_credential(&value);
            positives += 1;
            if found.found {
                detected += 1;
            } else {
                *missed.entry(name.to_string()).or_default() += 1;
            }
            if found.kind.map(|k| k.as_str()) == class["kind"].as_str()
                && found.path.as_deref() == Some(path.as_str())
            {
                exact += 1;
            } else if found.found {
                // Never the value: the class, and the kind and path the detector reported.
                eprintln!(
                    "{name}: got {:?} at {:?}, expected at {path}",
                    found.kind, found.path
                );
            }
            assert!(
                !holds_credential(&redact_value(&value)),
                "{name}: redaction left a credential"
            );
        }
    }
    let (mut negatives, mut flagged) = (0, 0);
    let mut flagged_by_class: BTreeMap<String, usize> = BTreeMap::new();
    for class in v["negatives"].as_array().unwrap() {
        let name = class["class"].as_str().unwrap();
        for _ in 0..per_class {
            let (value, _) = item(&mut rng, class, &v);
            negatives += 1;
            let found = detect_credential(&value);
            if found.found {
                flagged += 1;
                *flagged_by_class.entry(name.to_string()).or_default() += 1;
            } else {
                assert_eq!(
                    redact_value(&value),
                    value,
                    "{name}: redaction changed a negative"
                );
            }
        }
    }
    let mut known: BTreeMap<String, usize> = BTreeMap::new();
    for class in v["knownFlagged"].as_array().unwrap() {
        let name = class["class"].as_str().unwrap();
        for _ in 0..per_class {
            let (value, _) = item(&mut rng, class, &v);
            *known.entry(name.to_string()).or_default() += usize::from(holds_credential(&value));
        }
    }
    println!("credential corpus, known-flagged negatives (of {per_class} each): {known:?}");
    println!(
        "credential corpus: {positives} positives, {detected} detected ({:.2} %), {exact} with the expected kind and path; {negatives} negatives, {flagged} flagged ({:.2} % false positives) {flagged_by_class:?}; missed {missed:?}",
        100.0 * detected as f64 / positives as f64,
        100.0 * flagged as f64 / negatives as f64,
    );
    let expect = &v["expect"];
    assert_eq!(positives, expect["positives"].as_u64().unwrap() as usize);
    assert_eq!(
        detected,
        expect["detected"].as_u64().unwrap() as usize,
        "missed {missed:?}"
    );
    assert_eq!(
        exact,
        expect["kindAndPathAsExpected"].as_u64().unwrap() as usize
    );
    assert_eq!(negatives, expect["negatives"].as_u64().unwrap() as usize);
    let pinned: BTreeMap<String, usize> =
        serde_json::from_value(expect["flaggedByClass"].clone()).unwrap();
    assert_eq!(flagged_by_class, pinned);
    let pinned: BTreeMap<String, usize> =
        serde_json::from_value(expect["knownFlaggedByClass"].clone()).unwrap();
    assert_eq!(known, pinned);
}
