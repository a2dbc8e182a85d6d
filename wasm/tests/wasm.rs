//! The core compiled to wasm32 and run in Node by wasm-bindgen-test: the bindings reject bad
//! arguments with E_ARGUMENT instead of trapping, and keep working afterwards.
#![cfg(target_arch = "wasm32")]

use wasm_bindgen::JsValue;
use wasm_bindgen_test::*;

fn code_of(error: memcore::Error) -> String {
    let thrown = JsValue::from(error);
    let text = thrown.as_string().unwrap_or_default();
    let wire: serde_json::Value = serde_json::from_str(&text).unwrap_or_default();
    wire["code"].as_str().unwrap_or_default().to_string()
}

#[wasm_bindgen_test]
fn version_matches_the_crate() {
    assert_eq!(memcore_wasm::version(), env!("CARGO_PKG_VERSION"));
}

#[wasm_bindgen_test]
fn a_wrong_shape_is_e_argument_naming_the_field_and_the_instance_keeps_working() {
    for bad in [
        "42",
        "null",
        "[]",
        "{}",
        r#"{"userId":"u","turnCount":"x","now":0}"#,
    ] {
        let error = memcore_wasm::assemble_profile("## Identity\n".into(), bad.into()).unwrap_err();
        assert_eq!(code_of(error), "E_ARGUMENT", "{bad}");
        let parsed = memcore_wasm::parse_profile("## Identity\n- ok\n".into()).unwrap();
        assert!(parsed.starts_with('{'));
    }
}

#[wasm_bindgen_test]
fn core_errors_cross_as_json_with_their_code() {
    let error = memcore_wasm::memory_path("../x".into(), None).unwrap_err();
    assert_eq!(code_of(error), "E_INVALID_USER_ID");
    let error = memcore_wasm::count_tokens("x".into(), None, None).unwrap_err();
    assert_eq!(code_of(error), "E_NO_TOKENIZER");
    assert_eq!(
        memcore_wasm::memory_path("u1".into(), None).unwrap(),
        "user-memory/u1/memory.md"
    );
}

#[wasm_bindgen_test]
fn a_large_profile_parses_and_renders_in_wasm() {
    let text = format!(
        "## Identity\n{}",
        "- Works in Zurich with the risk team.\n".repeat(100_000)
    );
    let parsed = memcore::profile::parse_profile(&text);
    let rendered = memcore::profile::render_profile(&parsed.profile);
    assert!(rendered.len() > 3_000_000);
}

#[wasm_bindgen_test]
fn entry_recall_and_search_run_in_wasm() {
    use memcore::entries::config::RecallOrder;
    use memcore::entries::Entry;
    use memcore::entries::EntrySet;
    let mut set = EntrySet::new();
    for i in 0..100 {
        set.upsert(Entry {
            id: format!("e{i:03}"),
            user_id: "u".into(),
            key: format!("dog_name_{i}"),
            value: serde_json::json!("Rex"),
            category: "fact".into(),
            visibility: "global".into(),
            source_agent_id: None,
            group_ids: vec![],
            source_conversation_id: None,
            conflicted: false,
            access_count: 0,
            created_at: "2026-01-01T00:00:00Z".into(),
            updated_at: format!("2026-01-01T00:{:02}:00Z", i % 60),
            written_by: None,
        });
    }
    let viewer = memcore::entries::visibility::Viewer {
        user_id: "u",
        agent_id: "a",
        group: None,
    };
    let recalled = set.recall(&viewer, RecallOrder::MostRecent, 5);
    assert_eq!(recalled.len(), 5);
    assert_eq!(recalled[0].updated_at, "2026-01-01T00:59:00Z");
    let found = set.search(&["dog".into(), "rex".into()], &viewer, 50);
    assert_eq!(found.len(), 50);
}

/// Fixed-seed xorshift bytes: the same pseudo-random vectors on every run.
fn pseudo_random_i8(state: &mut u64, len: usize) -> Vec<i8> {
    (0..len)
        .map(|_| {
            *state ^= *state << 13;
            *state ^= *state >> 7;
            *state ^= *state << 17;
            (*state >> 56) as u8 as i8
        })
        .collect()
}

/// With `-C target-feature=+simd128` this runs the SIMD kernel (16 lanes, i8 → i16 widening,
/// `i32x4.dot_i16x8_s`); without it the scalar one. Either way the answers must be those of a
/// plain loop, bit for bit, at every length (the 16-lane blocks and the tail) and when the i32
/// sum wraps.
#[wasm_bindgen_test]
fn vector_dot_and_cosine_equal_a_plain_scalar_loop() {
    use memcore::entries::search::vectors::{cosine, dot, norm2, rank_normed, rank_vectors};
    let plain = |a: &[i8], b: &[i8]| {
        let mut sum = 0i32;
        for i in 0..a.len().min(b.len()) {
            sum = sum.wrapping_add(i32::from(a[i]) * i32::from(b[i]));
        }
        sum
    };
    let mut state = 0x2021_0021_u64;
    let mut lengths: Vec<usize> = (0..=70).collect();
    lengths.extend([127, 128, 129, 384, 768, 1024, 1536]);
    for &len in &lengths {
        for _ in 0..8 {
            let a = pseudo_random_i8(&mut state, len);
            let b = pseudo_random_i8(&mut state, len);
            assert_eq!(dot(&a, &b), plain(&a, &b), "len {len}");
            assert_eq!(dot(&a, &a) as i64, norm2(&a), "len {len}");
        }
    }
    let extreme = vec![-128i8; 131_072 + 17];
    assert_eq!(dot(&extreme, &extreme), plain(&extreme, &extreme));
    let query = pseudo_random_i8(&mut state, 384);
    let candidates: Vec<Vec<i8>> = (0..200)
        .map(|_| pseudo_random_i8(&mut state, 384))
        .collect();
    let refs: Vec<&[i8]> = candidates.iter().map(|c| c.as_slice()).collect();
    let ranked = rank_vectors(&query, &refs, -1.0);
    assert_eq!(ranked.len(), 200);
    for scored in &ranked {
        let v = refs[scored.index];
        let expected = f64::from(plain(&query, v))
            / ((norm2(&query) as f64) * (f64::from(plain(v, v)))).sqrt();
        assert_eq!(scored.score, expected);
        assert_eq!(scored.score, cosine(&query, v));
    }
    // With the norms known (as an index keeps them) the query is widened once and each
    // candidate read for its dot product alone: the same scores, at every length.
    for &len in &lengths {
        let q = pseudo_random_i8(&mut state, len);
        let vs: Vec<Vec<i8>> = (0..6).map(|_| pseudo_random_i8(&mut state, len)).collect();
        let normed: Vec<(&[i8], Option<i64>)> =
            vs.iter().map(|v| (v.as_slice(), Some(norm2(v)))).collect();
        let refs: Vec<&[i8]> = vs.iter().map(|v| v.as_slice()).collect();
        assert_eq!(
            rank_normed(&q, &normed, -1.0),
            rank_vectors(&q, &refs, -1.0),
            "len {len}"
        );
    }
}

/// `line_break` runs sixteen bytes at a time with wasm `simd128` (eight natively): a break at
/// every offset of the first three blocks, of each kind, is found by the parser and by the
/// canonical-lines check alike.
#[wasm_bindgen_test]
fn line_breaks_are_found_at_every_offset_of_a_sixteen_byte_block() {
    for len in 1..50 {
        let line: String = (0..len)
            .map(|i| if i % 3 == 0 { 'b' } else { 'a' })
            .collect();
        assert!(memcore::profile::lines_are_canonical(&[line.as_str()]));
        let text = format!("## Identity\n{line}\n");
        assert_eq!(
            memcore::profile::parse_profile_lines(&text).sections[0],
            [line.as_str()]
        );
        for at in 0..len {
            for brk in ["\n", "\r", "\r\n"] {
                let (head, tail) = line.split_at(at);
                let tail = &tail[1..];
                let broken = format!("{head}{brk}{tail}");
                assert!(!memcore::profile::lines_are_canonical(&[broken.as_str()]));
                let text = format!("## Identity\n{broken}\n");
                let expected: Vec<&str> =
                    [head, tail].into_iter().filter(|s| !s.is_empty()).collect();
                assert_eq!(
                    memcore::profile::parse_profile_lines(&text).sections[0],
                    expected,
                    "{broken:?}"
                );
            }
        }
    }
}
