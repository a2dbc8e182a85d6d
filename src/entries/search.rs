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

use super::entry::Entry;
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
    let json;
    let value = match &entry.value {
        Value::String(s) => s.as_str(),
        other => {
            json = other.to_string();
            json.as_str()
        }
    };
    let key = Folded::new(&entry.key);
    let value = Folded::new(value);
    terms.iter().all(|t| key.contains(t) || value.contains(t))
}

/// A haystack searched case-insensitively. ASCII text (the common case) is searched in place
/// with `eq_ignore_ascii_case` — identical to `to_lowercase` on ASCII — so a search over 10,000
/// entries allocates nothing; other text is lowercased once, on first use.
struct Folded<'a> {
    raw: &'a str,
    lower: std::cell::OnceCell<String>,
}

impl<'a> Folded<'a> {
    fn new(raw: &'a str) -> Self {
        Folded {
            raw,
            lower: std::cell::OnceCell::new(),
        }
    }

    /// Whether the (already lowercased) term occurs.
    fn contains(&self, term: &str) -> bool {
        if self.raw.is_ascii() {
            // The lowercase of ASCII text is ASCII: a term with other characters cannot occur.
            let (hay, needle) = (self.raw.as_bytes(), term.as_bytes());
            return term.is_ascii()
                && (needle.is_empty()
                    || hay
                        .windows(needle.len())
                        .any(|w| w.eq_ignore_ascii_case(needle)));
        }
        self.lower
            .get_or_init(|| self.raw.to_lowercase())
            .contains(term)
    }
}
