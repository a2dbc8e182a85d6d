//! The ranking algorithms of issue 21 through the public API (`memcore::entries::search::…`):
//! analysis per language, BM25 scores checked against values computed by hand, ties, the
//! relevance floor, i8 vectors and their base64 form, reciprocal rank fusion.

use memcore::entries::search::analyzer::{Analyzer, Language};
use memcore::entries::search::bm25::{rank, rank_texts, AnalyzedDoc, Floor, B, K1};
use memcore::entries::search::fusion::{rrf, RRF_K};
use memcore::entries::search::vectors::{
    cosine, dot, dot_scalar, from_base64, norm2, quantize, rank_vectors, to_base64, VectorError,
    DEFAULT_COSINE_FLOOR,
};
use memcore::entries::search::{search_terms, Scored};
use proptest::prelude::*;

fn strings(words: &[&str]) -> Vec<String> {
    words.iter().map(|w| w.to_string()).collect()
}

fn order(scored: &[Scored]) -> Vec<usize> {
    scored.iter().map(|s| s.index).collect()
}

fn close(a: f64, b: f64) -> bool {
    (a - b).abs() < 1e-12
}

#[test]
fn each_language_stems_its_plurals_and_inflections() {
    let cases: &[(Language, &str, &str)] = &[
        (Language::English, "running", "run"),
        (Language::English, "connections", "connect"),
        (Language::English, "cities", "citi"),
        (Language::German, "Hunde", "hund"),
        (Language::German, "Häuser", "haus"),
        (Language::German, "Wohnungen", "wohnung"),
        (Language::French, "chevaux", "cheval"),
        (Language::French, "continuellement", "continuel"),
        (Language::Spanish, "programación", "program"),
        (Language::Spanish, "gatos", "gat"),
        (Language::Portuguese, "cidades", "cidad"),
        (Language::Portuguese, "gatos", "gat"),
        (Language::Italian, "gatti", "gatt"),
        (Language::Italian, "abitazioni", "abit"),
        (Language::Dutch, "huizen", "huis"),
        (Language::Swedish, "hundarna", "hund"),
    ];
    for &(language, word, stem) in cases {
        assert_eq!(
            Analyzer::new(language).terms(word),
            [stem],
            "{language:?} {word}"
        );
    }
}

#[test]
fn each_language_drops_its_stop_words() {
    let cases: &[(Language, &str, &[&str])] = &[
        (
            Language::English,
            "What is the name of my dog?",
            &["name", "dog"],
        ),
        (
            Language::German,
            "Wie heißt mein Hund?",
            &["heisst", "hund"],
        ),
        (Language::French, "Où est-ce que j'habite ?", &["habit"]),
        (Language::Spanish, "¿Dónde vive mi gato?", &["viv", "gat"]),
        (
            Language::Portuguese,
            "Onde mora o meu gato?",
            &["mor", "gat"],
        ),
        (
            Language::Italian,
            "Dove abita il mio gatto?",
            &["abit", "gatt"],
        ),
        (
            Language::Dutch,
            "Waar woont mijn kat?",
            &["waar", "woont", "kat"],
        ),
        (Language::Swedish, "Var bor min katt?", &["bor", "katt"]),
    ];
    for &(language, text, terms) in cases {
        assert_eq!(
            Analyzer::new(language).terms(text),
            strings(terms),
            "{language:?} {text}"
        );
    }
}

#[test]
fn a_text_of_stop_words_only_keeps_them_stemmed() {
    let en = Analyzer::new(Language::English);
    assert_eq!(en.terms("Who are you?"), ["who", "are", "you"]);
    assert_eq!(
        Analyzer::new(Language::German).terms("und die"),
        ["und", "die"]
    );
    // The fallback looks at key and value together: here the key has content.
    assert_eq!(en.terms_of(&["pets", "they are"]), ["pet"]);
}

#[test]
fn analysis_splits_and_folds_as_section_2_5() {
    let en = Analyzer::new(Language::English);
    assert_eq!(en.terms("dog_name:REX"), ["dog", "name", "rex"]);
    assert_eq!(en.terms("東京の支店"), ["東京の支店"]);
    assert_eq!(
        en.terms("cafe\u{301}s"),
        ["cafe"],
        "`s` is an English stop word"
    );
}

proptest! {
    #[test]
    fn analysis_never_panics_and_has_terms_exactly_when_section_2_5_does(text in "\\PC{0,40}") {
        for language in Language::ALL {
            let terms = Analyzer::new(language).terms(&text);
            prop_assert_eq!(terms.is_empty(), search_terms(&text).is_empty());
        }
    }
}

/// Three documents worked by hand: N = 3, lengths 2, 3, 4, average 3.
fn three_docs() -> [AnalyzedDoc; 3] {
    [
        AnalyzedDoc::from_terms(&strings(&["dog", "name"])),
        AnalyzedDoc::from_terms(&strings(&["dog", "dog", "food"])),
        AnalyzedDoc::from_terms(&strings(&["cat", "name", "food", "bowl"])),
    ]
}

#[test]
fn bm25_scores_the_hand_computed_values() {
    assert_eq!((K1, B), (1.2, 0.75));
    let docs = three_docs();
    let refs: Vec<&AnalyzedDoc> = docs.iter().collect();
    // "dog": df = 2, idf = ln(1 + 1.5 / 2.5) = ln 1.6.
    // doc 0: tf 1, len 2: K = 1.2 × (0.25 + 0.75 × 2/3) = 0.9 → ln 1.6 × 2.2 / 1.9.
    // doc 1: tf 2, len 3: K = 1.2 → ln 1.6 × 4.4 / 3.2.
    let ranked = rank(&strings(&["dog"]), &refs, Floor::NONE);
    assert_eq!(order(&ranked), [1, 0]);
    assert!(close(ranked[0].score, 1.6f64.ln() * 4.4 / 3.2));
    assert!(close(ranked[1].score, 1.6f64.ln() * 2.2 / 1.9));
    // "name bowl": name df 2 (ln 1.6), bowl df 1 (ln(1 + 2.5 / 1.5) = ln 8/3).
    // doc 2: len 4: K = 1.2 × 1.25 = 1.5, each tf 1 → (ln 1.6 + ln 8/3) × 2.2 / 2.5.
    let ranked = rank(&strings(&["name", "bowl"]), &refs, Floor::NONE);
    assert_eq!(order(&ranked), [2, 0]);
    assert!(close(
        ranked[0].score,
        (1.6f64.ln() + (8.0f64 / 3.0).ln()) * 2.2 / 2.5
    ));
    assert!(close(ranked[1].score, 1.6f64.ln() * 2.2 / 1.9));
}

#[test]
fn the_floor_drops_weak_matches_relative_to_the_best() {
    let docs = three_docs();
    let refs: Vec<&AnalyzedDoc> = docs.iter().collect();
    let query = strings(&["name", "bowl"]);
    // doc 0 scores 0.544, doc 2 1.277: a ratio of 0.43.
    assert_eq!(order(&rank(&query, &refs, Floor::DEFAULT)), [2, 0]);
    assert_eq!(order(&rank(&query, &refs, Floor { relative: 0.5 })), [2]);
    assert_eq!(order(&rank(&query, &refs, Floor { relative: 1.0 })), [2]);
}

#[test]
fn equal_scores_keep_the_callers_order() {
    let a = AnalyzedDoc::from_terms(&strings(&["dog", "rex"]));
    let b = AnalyzedDoc::from_terms(&strings(&["cat", "tom"]));
    let ranked = rank(&strings(&["dog"]), &[&b, &a, &a, &b, &a], Floor::NONE);
    assert_eq!(order(&ranked), [1, 2, 4]);
    assert_eq!(ranked[0].score, ranked[2].score);
}

#[test]
fn no_query_term_or_no_match_ranks_nothing() {
    let docs = three_docs();
    let refs: Vec<&AnalyzedDoc> = docs.iter().collect();
    assert!(rank(&[], &refs, Floor::NONE).is_empty());
    assert!(rank(&strings(&["zebra"]), &refs, Floor::NONE).is_empty());
    assert!(rank(&strings(&["dog"]), &[], Floor::NONE).is_empty());
    let empty = AnalyzedDoc::from_terms(&[]);
    assert!(rank(&strings(&["dog"]), &[&empty], Floor::NONE).is_empty());
}

#[test]
fn ranked_search_finds_inflected_forms_in_key_and_value() {
    let en = Analyzer::new(Language::English);
    let entries = [
        ("home_city", "Lisbon"),
        ("pets", "two dogs, Rex and Tom"),
        ("running_shoes", "size 43"),
        ("favourite_food", "sushi"),
    ];
    assert_eq!(
        order(&rank_texts(
            &en,
            "Which city do I live in?",
            &entries,
            Floor::DEFAULT
        )),
        [0]
    );
    assert_eq!(
        order(&rank_texts(&en, "my dog", &entries, Floor::DEFAULT)),
        [1]
    );
    assert_eq!(
        order(&rank_texts(
            &en,
            "shoes for running",
            &entries,
            Floor::DEFAULT
        )),
        [2]
    );
    let de = Analyzer::new(Language::German);
    assert_eq!(
        order(&rank_texts(
            &de,
            "Wie heißen meine Hunde?",
            &[("haustier", "ein Hund namens Rex"), ("stadt", "Berlin")],
            Floor::DEFAULT
        )),
        [0]
    );
}

#[test]
fn quantize_is_symmetric_per_vector() {
    assert_eq!(quantize(&[0.1, -0.2, 0.05]).unwrap(), [64, -127, 32]);
    assert_eq!(quantize(&[1e-30, 0.0]).unwrap(), [127, 0]);
    assert_eq!(quantize(&[3.0; 4]).unwrap(), [127; 4]);
    let q = quantize(&[0.3, -0.7, 0.7, 0.0001]).unwrap();
    assert_eq!(q, [54, -127, 127, 0]);
}

#[test]
fn quantize_errors_name_the_problem_and_the_index() {
    assert_eq!(quantize(&[]), Err(VectorError::Empty));
    assert_eq!(quantize(&[0.0; 3]), Err(VectorError::AllZero));
    assert_eq!(
        quantize(&[0.5, 0.5, f32::NAN]),
        Err(VectorError::NotFinite { index: 2 })
    );
    let message = quantize(&[f32::INFINITY]).unwrap_err().to_string();
    assert!(message.contains("component 0"), "{message}");
    assert!(quantize(&[]).unwrap_err().to_string().contains("empty"));
    assert!(quantize(&[0.0]).unwrap_err().to_string().contains("zero"));
}

#[test]
fn base64_round_trips_every_byte_and_length() {
    let all: Vec<i8> = (i8::MIN..=i8::MAX).collect();
    for len in 0..=all.len() {
        let v = &all[..len];
        let text = to_base64(v);
        assert_eq!(text.len(), len.div_ceil(3) * 4);
        assert_eq!(from_base64(&text).as_deref(), Some(v), "{len}");
    }
    assert_eq!(from_base64("not base64!"), None);
    assert_eq!(from_base64("AAA"), None);
}

/// A fixed-seed xorshift: the same pseudo-random vectors on every run and platform.
fn vectors(seed: u64, count: usize, len: usize) -> Vec<Vec<i8>> {
    let mut state = seed;
    (0..count)
        .map(|_| {
            (0..len)
                .map(|_| {
                    state ^= state << 13;
                    state ^= state >> 7;
                    state ^= state << 17;
                    (state >> 56) as u8 as i8
                })
                .collect()
        })
        .collect()
}

#[test]
fn cosine_is_exact_and_rank_vectors_orders_by_it() {
    let set = vectors(21, 50, 384);
    let query = &set[0];
    let candidates: Vec<&[i8]> = set.iter().map(|v| v.as_slice()).collect();
    for v in &candidates {
        assert_eq!(dot(query, v), dot_scalar(query, v));
        let expected =
            f64::from(dot_scalar(query, v)) / ((norm2(query) as f64) * (norm2(v) as f64)).sqrt();
        assert_eq!(cosine(query, v), expected);
    }
    let ranked = rank_vectors(query, &candidates, -1.0);
    assert_eq!(ranked.len(), 50);
    assert_eq!(
        ranked[0],
        Scored {
            index: 0,
            score: cosine(query, query)
        }
    );
    for pair in ranked.windows(2) {
        assert!(pair[0].score >= pair[1].score);
    }
    let floored = rank_vectors(query, &candidates, DEFAULT_COSINE_FLOOR);
    assert!(floored.iter().all(|s| s.score >= DEFAULT_COSINE_FLOOR));
    assert_eq!(order(&floored), [0], "random vectors are near orthogonal");
}

#[test]
fn rrf_sums_reciprocal_ranks_and_breaks_ties_by_index() {
    let lexical: &[usize] = &[2, 0, 5];
    let semantic: &[usize] = &[0, 7, 2];
    let fused = rrf(&[lexical, semantic], RRF_K);
    let ids: Vec<usize> = fused.iter().map(|f| f.0).collect();
    assert_eq!(ids, [0, 2, 7, 5]);
    assert_eq!(fused[0].1, 1.0 / 62.0 + 1.0 / 61.0);
    assert_eq!(fused[1].1, 1.0 / 61.0 + 1.0 / 63.0);
    assert_eq!(fused[2], (7, 1.0 / 62.0));
    assert_eq!(fused[3], (5, 1.0 / 63.0));
    assert_eq!(
        rrf(&[&[4], &[3]], RRF_K),
        [(3, 1.0 / 61.0), (4, 1.0 / 61.0)]
    );
}
