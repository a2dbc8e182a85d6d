//! `searchMemory` matching (behaviour §2.5).
//!
//! The query is split into terms on every character that is not [`char::is_alphanumeric`]
//! (Unicode letters and digits), each term is lowercased with [`str::to_lowercase`] ([`fold`]), and
//! an entry matches when **every** term occurs in its lowercased key or in its lowercased value
//! (strings raw, other values as compact JSON, [`value_text`]). A query without terms matches
//! nothing. [`matches_folded`] is that rule; the list-based search and the indexed
//! [`super::EntrySet`] both call it.
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
//!
//! The `ranked` and `hybrid` modes of issue 21 live in the submodules: [`analyzer`] (stop words
//! and stemming over this module's splitting and folding), [`bm25`], [`vectors`] (i8 embeddings,
//! cosine) and [`fusion`] (reciprocal rank fusion).

pub mod analyzer;
pub mod bm25;
pub mod fusion;
pub mod modes;
mod stop_words;
pub mod vectors;

use super::entry::Entry;
use serde_json::Value;
use std::borrow::Cow;

/// One ranked result: `index` into the slice that was ranked, and its score (higher is better).
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Scored {
    /// The position of the ranked item in the slice given to the ranking function.
    pub index: usize,
    /// Its score: BM25 for [`bm25::rank`], cosine similarity for [`vectors::rank_vectors`].
    pub score: f64,
}

/// Sorts by score descending, ties by ascending index (the callers' order, by id).
pub(crate) fn sort_scored(scored: &mut [Scored]) {
    sort_ranked(scored, &[]);
}

/// Sorts by score descending, ties by the id of `ids[index]` (when `ids` has it), then by
/// ascending index (a store may repeat an id). A total order (indexes are distinct), so the
/// unstable sort gives the one answer; every ranking shares this one instance of it in wasm.
pub(crate) fn sort_ranked(scored: &mut [Scored], ids: &[TieKey<'_>]) {
    scored.sort_unstable_by(|a, b| ranked_order(a, b, ids));
}

/// The best `n` of `scored` in [`sort_ranked`]'s order (all of them when there are fewer): a
/// selection, then a sort of those `n` only.
pub(crate) fn best_ranked(scored: &mut Vec<Scored>, ids: &[TieKey<'_>], n: usize) {
    if n == 0 {
        scored.clear();
        return;
    }
    if scored.len() > n {
        scored.select_nth_unstable_by(n - 1, |a, b| ranked_order(a, b, ids));
        scored.truncate(n);
    }
    sort_ranked(scored, ids);
}

/// [`sort_ranked`]'s order.
pub(crate) fn ranked_order(a: &Scored, b: &Scored, ids: &[TieKey<'_>]) -> std::cmp::Ordering {
    let by_id = || match (ids.get(a.index), ids.get(b.index)) {
        (Some(x), Some(y)) => x.cmp(y),
        _ => std::cmp::Ordering::Equal,
    };
    b.score
        .total_cmp(&a.score)
        .then_with(by_id)
        .then(a.index.cmp(&b.index))
}

/// An id as the ties of a ranking compare it: its first 16 bytes as one big-endian integer
/// (zero-padded; most ids differ there, and an index keeps it ready), then the whole text — the
/// order of `str::cmp`.
#[derive(Debug, Clone, Copy)]
pub struct TieKey<'a> {
    prefix: u128,
    /// The id (a reference to the `String`, not to its text: making a key reads nothing of
    /// the entry; only a tie of prefixes does).
    id: &'a String,
}

impl<'a> TieKey<'a> {
    /// The key of `id`, its prefix computed here.
    pub fn of(id: &'a String) -> Self {
        TieKey {
            prefix: id_prefix(id),
            id,
        }
    }

    /// The key of `id` with its prefix already computed ([`id_prefix`]).
    pub fn with_prefix(id: &'a String, prefix: u128) -> Self {
        TieKey { prefix, id }
    }

    fn cmp(&self, other: &Self) -> std::cmp::Ordering {
        // Zero padding keeps byte order: a shorter id with an equal prefix is decided by the
        // whole texts (where the shorter sorts first, as `str::cmp` does).
        self.prefix
            .cmp(&other.prefix)
            .then_with(|| self.id.as_str().cmp(other.id.as_str()))
    }
}

/// The first 16 bytes of `id` as one big-endian integer, zero-padded ([`TieKey`]).
pub fn id_prefix(id: &str) -> u128 {
    let mut bytes = [0u8; 16];
    let text = id.as_bytes();
    let n = text.len().min(16);
    if let (Some(to), Some(from)) = (bytes.get_mut(..n), text.get(..n)) {
        to.copy_from_slice(from);
    }
    u128::from_be_bytes(bytes)
}

/// The lowercased search terms of a query, in order, duplicates kept.
pub fn search_terms(query: &str) -> Vec<String> {
    query
        .split(|c: char| !c.is_alphanumeric())
        .filter(|t| !t.is_empty())
        .map(|t| fold(t).into_owned())
        .collect()
}

/// The text a value prints as: strings raw, other values compact JSON (behaviour §2.5).
pub fn value_text(value: &Value) -> Cow<'_, str> {
    match value {
        Value::String(s) => Cow::Borrowed(s),
        other => Cow::Owned(other.to_string()),
    }
}

/// The case folding of search, for terms and for the texts searched alike: [`str::to_lowercase`]
/// (borrowed when there is nothing to lower, the common case for keys).
pub fn fold(text: &str) -> Cow<'_, str> {
    if text
        .bytes()
        .all(|b| b.is_ascii() && !b.is_ascii_uppercase())
    {
        Cow::Borrowed(text)
    } else {
        Cow::Owned(text.to_lowercase())
    }
}

/// Whether every term of `query` occurs, case-insensitively, in the entry's key or value.
pub fn matches_query(query: &str, entry: &Entry) -> bool {
    matches_terms(&search_terms(query), entry)
}

/// [`matches_query`] with pre-split terms (split once per search, not once per entry).
pub fn matches_terms(terms: &[String], entry: &Entry) -> bool {
    !terms.is_empty() && matches_folded(terms, &fold(&entry.key), &fold(&value_text(&entry.value)))
}

/// The match rule itself, on texts already [`fold`]ed (an
/// [`super::EntrySet`] keeps them): there is at least one term, and every term occurs in the key
/// or in the value.
pub fn matches_folded(terms: &[String], key: &str, value: &str) -> bool {
    !terms.is_empty() && terms.iter().all(|t| contains(key, t) || contains(value, t))
}

/// Substring test for the short texts of entries. `str::contains` builds a Two-Way searcher per
/// call, which costs more than the search itself on a 20-byte key; scanning for the first byte
/// and comparing is faster here and gives the same answer (UTF-8 is self-synchronising, so a
/// byte match of a whole UTF-8 needle is a character match).
fn contains(hay: &str, needle: &str) -> bool {
    let (hay, needle) = (hay.as_bytes(), needle.as_bytes());
    let Some((&first, rest)) = needle.split_first() else {
        return true;
    };
    let mut from = 0;
    while let Some(offset) = hay
        .get(from..)
        .and_then(|h| h.iter().position(|&b| b == first))
    {
        let at = from + offset + 1;
        if hay.get(at..at + rest.len()) == Some(rest) {
            return true;
        }
        from = at;
    }
    false
}

#[cfg(test)]
mod tests {
    use super::{contains, fold};

    #[test]
    fn contains_agrees_with_str_contains() {
        let hays = [
            "",
            "a",
            "dog_name",
            "ddog",
            "straße",
            "東京の支店",
            "aaab",
            "abab",
            "xyz",
        ];
        let needles = [
            "", "a", "dog", "og_", "ß", "東京", "支店", "aab", "bab", "zz", "京の",
        ];
        for hay in hays {
            for needle in needles {
                assert_eq!(
                    contains(hay, needle),
                    hay.contains(needle),
                    "{hay:?} ⊇ {needle:?}"
                );
            }
        }
    }

    #[test]
    fn id_order_is_str_cmp() {
        let ids = [
            "",
            "a",
            "ab",
            "ab\u{0}",
            "ab\u{0}x",
            "e1",
            "e10",
            "e2",
            "entry-0000-0000-000001",
            "entry-0000-0000-000002",
            "entry-0000-0000-00000",
            "entry-0000-0000-",
            "Zürich",
            "zz",
            "東京",
        ];
        let owned: Vec<String> = ids.iter().map(|s| s.to_string()).collect();
        for a in &owned {
            for b in &owned {
                let (x, y) = (super::TieKey::of(a), super::TieKey::of(b));
                assert_eq!(x.cmp(&y), a.cmp(b), "{a:?} vs {b:?}");
            }
        }
    }

    #[test]
    fn fold_is_to_lowercase() {
        for text in [
            "",
            "dog_name",
            "Dog",
            "STRASSE",
            "Straße",
            "ΟΔΟΣ",
            "İstanbul",
            "東京",
            "a\u{301}",
        ] {
            assert_eq!(fold(text), text.to_lowercase(), "{text:?}");
        }
    }
}
