//! `searchMemory` matching (SPEC §2.5).
//!
//! The query is split into terms on every character that is not [`char::is_alphanumeric`]
//! (Unicode letters and digits), each term is lowercased with [`str::to_lowercase`], and an entry
//! matches when **every** term occurs in its lowercased key or in its lowercased value (strings
//! raw, other values as compact JSON). A query without terms matches nothing.
//!
//! Case folding is Unicode *simple lowercasing as implemented by Rust*, applied to both sides;
//! there is no full case folding or normalisation. Consequences, pinned by tests:
//! - `Straße` and `STRASSE` do **not** match each other (`ß` lowercases to itself; `SS` to `ss`).
//!   A query `strasse` finds `STRASSE` and `Strasse`, `straße` finds `Straße` and `STRAßE`.
//! - Greek: `to_lowercase` maps a word-final `Σ` to `ς`, so `ΟΔΟΣ` becomes `οδος` with a final
//!   `ς`. A query `ΟΔΟΣ` or `οδος` (typed with `ς`) finds it; `οδοσ` (medial `σ` at the end)
//!   does not.
//! - Turkish: `İ` lowercases to `i` + U+0307 (combining dot). The query `İstanbul` finds
//!   `İSTANBUL`, but `istanbul` does not find `İstanbul` (the combining dot sits between `i` and
//!   `s`). Dotless `ı` only matches `ı`, since `I` lowercases to `i`, not `ı`.
//! - Combining marks are not alphanumeric, so they split a query: a decomposed `cafe\u{301}`
//!   becomes the term `cafe`.
//! - CJK text has no spaces: `猫の名前` is a single term and must occur as one substring.

use super::model::Entry;
use serde_json::Value;

/// The lowercased search terms of a query, in order, duplicates kept.
pub fn search_terms(query: &str) -> Vec<String> {
    query
        .split(|c: char| !c.is_alphanumeric())
        .filter(|t| !t.is_empty())
        .map(str::to_lowercase)
        .collect()
}

/// The text a value prints as: strings raw, other values compact JSON (SPEC §2.5).
pub fn value_text(value: &Value) -> String {
    match value {
        Value::String(s) => s.clone(),
        other => other.to_string(),
    }
}

/// Whether every term of `query` occurs, case-insensitively, in the entry's key or value.
pub fn matches_query(query: &str, entry: &Entry) -> bool {
    matches_terms(&search_terms(query), entry)
}

/// [`matches_query`] with pre-split terms (split once per search, not once per entry).
pub fn matches_terms(terms: &[String], entry: &Entry) -> bool {
    if terms.is_empty() {
        return false;
    }
    let key = entry.key.to_lowercase();
    let value = value_text(&entry.value).to_lowercase();
    terms
        .iter()
        .all(|t| key.contains(t.as_str()) || value.contains(t.as_str()))
}
