//! BM25 ranking of the `ranked` search mode (issue 21): one field made of the key's and the
//! value's terms ([`super::analyzer`]), `k1` = [`K1`], `b` = [`B`], and the IDF that is never
//! negative, `ln(1 + (N − df + 0.5) / (df + 0.5))` (Lucene's), over the documents ranked.
//!
//! A document is analysed once into an [`AnalyzedDoc`] (term ids with their counts, and its
//! length), so an in-process index can keep it and a search only looks terms up. Term ids are
//! 64-bit FNV-1a hashes of the stemmed terms: the inner loop compares integers, and two distinct
//! terms of one user's entries sharing an id is a 1-in-10^11 event even at 10^4 distinct terms.

use super::analyzer::Analyzer;
use super::{sort_scored, Scored};

/// BM25's term-frequency saturation.
pub const K1: f64 = 1.2;
/// BM25's length normalisation (0 none, 1 full).
pub const B: f64 = 0.75;

/// The relevance floor: a document scoring below `relative × best score` is dropped, so a weak
/// match on one common term does not trail behind strong matches. `relative` is taken in
/// `[0, 1]` (values outside are clamped, a non-finite one counts as 0: no floor).
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Floor {
    /// The fraction of the best score a document must reach to be kept.
    pub relative: f64,
}

impl Floor {
    /// The default: keep what scores at least a quarter of the best. A document that matches
    /// only one of two equally rare query terms scores about half the best and is kept; one
    /// that matches only a term present in most entries (IDF near its floor of `ln 1.x`) is
    /// dropped next to a match on a rare term. A starting point, tuned on the recall benchmark.
    pub const DEFAULT: Floor = Floor { relative: 0.25 };
    /// No floor: every document matching a query term is kept.
    pub const NONE: Floor = Floor { relative: 0.0 };

    fn fraction(self) -> f64 {
        if self.relative.is_finite() {
            self.relative.clamp(0.0, 1.0)
        } else {
            0.0
        }
    }
}

impl Default for Floor {
    fn default() -> Self {
        Floor::DEFAULT
    }
}

/// The id of a term (64-bit FNV-1a of its UTF-8 bytes): the same on every platform and run.
pub fn term_id(term: &str) -> u64 {
    term.bytes().fold(0xcbf2_9ce4_8422_2325, |hash, byte| {
        (hash ^ u64::from(byte)).wrapping_mul(0x0100_0000_01b3)
    })
}

/// A document analysed for BM25: each distinct term id with its count, and the number of terms.
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub struct AnalyzedDoc {
    /// Sorted by id, ids distinct.
    terms: Vec<(u64, u32)>,
    len: u32,
    /// One bit per term id ([`signature`]): a document whose mask shares no bit with the
    /// query's contains none of its terms, and is passed over without a lookup.
    mask: u64,
}

/// The bit of a term id in a document's mask (the id's top 6 bits: FNV-1a mixes them well).
fn signature(id: u64) -> u64 {
    1 << (id >> 58)
}

impl AnalyzedDoc {
    /// The document of an entry: the terms of its key and of its value text (strings raw, other
    /// values compact JSON: [`super::value_text`]) as one field.
    pub fn new(analyzer: &Analyzer, key: &str, value_text: &str) -> AnalyzedDoc {
        let mut ids = Vec::new();
        analyzer.for_each_term(&[key, value_text], |t| ids.push(term_id(t)));
        AnalyzedDoc::from_ids(ids)
    }

    /// The document made of these (already analysed) terms.
    pub fn from_terms(terms: &[String]) -> AnalyzedDoc {
        AnalyzedDoc::from_ids(terms.iter().map(|t| term_id(t)).collect())
    }

    fn from_ids(mut ids: Vec<u64>) -> AnalyzedDoc {
        let len = u32::try_from(ids.len()).unwrap_or(u32::MAX);
        // The crate's one sort (a document has a few dozen terms; no sort instance of its own).
        crate::order::sort_by(&mut ids, u64::cmp);
        let mut counted: Vec<(u64, u32)> = Vec::with_capacity(ids.len());
        for id in ids {
            match counted.last_mut() {
                Some((last, count)) if *last == id => *count = count.saturating_add(1),
                _ => counted.push((id, 1)),
            }
        }
        counted.shrink_to_fit();
        let mask = counted.iter().fold(0, |m, &(id, _)| m | signature(id));
        AnalyzedDoc {
            terms: counted,
            len,
            mask,
        }
    }

    /// The number of terms (BM25's document length).
    pub fn len(&self) -> usize {
        self.len as usize
    }

    /// Whether the document has no term (it never matches).
    pub fn is_empty(&self) -> bool {
        self.len == 0
    }

    /// How many times the (analysed) term occurs.
    pub fn term_frequency(&self, term: &str) -> u32 {
        self.count_of(term_id(term))
    }

    fn count_of(&self, id: u64) -> u32 {
        match self.terms.binary_search_by_key(&id, |&(t, _)| t) {
            Ok(at) => self.terms.get(at).map_or(0, |&(_, count)| count),
            Err(_) => 0,
        }
    }
}

/// Ranks `docs` for the (analysed) `query_terms`: every document containing at least one of
/// them, by BM25 score descending, ties by ascending index (callers pass documents sorted by id,
/// so ties go by id), then those below `floor` dropped. `N` and the average length are those of
/// `docs`. A term repeated in the query counts once. Cost: one binary search per document and
/// distinct query term.
pub fn rank(query_terms: &[String], docs: &[&AnalyzedDoc], floor: Floor) -> Vec<Scored> {
    let mut scored = scores(query_terms, docs, floor);
    sort_scored(&mut scored);
    scored
}

/// [`rank`] unsorted: the documents kept, in index order (a caller that orders them its own way
/// sorts once).
pub(crate) fn scores(query_terms: &[String], docs: &[&AnalyzedDoc], floor: Floor) -> Vec<Scored> {
    let mut query: Vec<u64> = query_terms.iter().map(|t| term_id(t)).collect();
    crate::order::sort_by(&mut query, u64::cmp);
    query.dedup();
    if query.is_empty() || docs.is_empty() {
        return Vec::new();
    }
    let mut df = vec![0u32; query.len()];
    let mut matched: Vec<usize> = Vec::new();
    // The counts of each matched document, `query.len()` per document, in `matched` order.
    let mut counts: Vec<u32> = Vec::new();
    let mut total_len = 0u64;
    let mut row = vec![0u32; query.len()];
    let query_mask = query.iter().fold(0, |m, &id| m | signature(id));
    for (index, doc) in docs.iter().enumerate() {
        total_len += u64::from(doc.len);
        if doc.mask & query_mask == 0 {
            continue;
        }
        let mut any = false;
        for ((slot, &id), seen) in row.iter_mut().zip(&query).zip(df.iter_mut()) {
            let count = doc.count_of(id);
            *slot = count;
            if count > 0 {
                any = true;
                *seen += 1;
            }
        }
        if any {
            matched.push(index);
            counts.extend_from_slice(&row);
        }
    }
    let n = docs.len() as f64;
    let average_len = total_len as f64 / n;
    let idf: Vec<f64> = df
        .iter()
        .map(|&df| {
            let df = f64::from(df);
            (1.0 + (n - df + 0.5) / (df + 0.5)).ln()
        })
        .collect();
    let mut scored: Vec<Scored> = matched
        .iter()
        .zip(counts.chunks_exact(query.len()))
        .map(|(&index, tfs)| {
            let len = docs.get(index).map_or(0.0, |d| f64::from(d.len));
            // `average_len` > 0 here: a matched document has at least one term.
            let norm = K1 * (1.0 - B + B * len / average_len);
            let score = tfs
                .iter()
                .zip(&idf)
                .filter(|(&tf, _)| tf > 0)
                .map(|(&tf, &idf)| {
                    let tf = f64::from(tf);
                    idf * tf * (K1 + 1.0) / (tf + norm)
                })
                .sum();
            Scored { index, score }
        })
        .collect();
    let best = scored.iter().map(|s| s.score).fold(0.0, f64::max);
    let cut = floor.fraction() * best;
    scored.retain(|s| s.score >= cut);
    scored
}

/// [`rank`] from texts: `query` analysed with `analyzer`, each document `(key, value text)` made
/// into an [`AnalyzedDoc`] first. For one-off searches and tests; an index keeps the documents.
pub fn rank_texts(
    analyzer: &Analyzer,
    query: &str,
    docs: &[(&str, &str)],
    floor: Floor,
) -> Vec<Scored> {
    let analyzed: Vec<AnalyzedDoc> = docs
        .iter()
        .map(|(key, value)| AnalyzedDoc::new(analyzer, key, value))
        .collect();
    let refs: Vec<&AnalyzedDoc> = analyzed.iter().collect();
    rank(&analyzer.terms(query), &refs, floor)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::entries::search::analyzer::Language;

    fn terms(words: &[&str]) -> Vec<String> {
        words.iter().map(|w| w.to_string()).collect()
    }

    #[test]
    fn a_doc_counts_each_term_and_its_length() {
        let doc = AnalyzedDoc::from_terms(&terms(&["dog", "name", "dog"]));
        assert_eq!(doc.len(), 3);
        assert_eq!(doc.term_frequency("dog"), 2);
        assert_eq!(doc.term_frequency("name"), 1);
        assert_eq!(doc.term_frequency("cat"), 0);
        assert!(AnalyzedDoc::from_terms(&[]).is_empty());
    }

    #[test]
    fn term_ids_are_fnv1a() {
        // Published FNV-1a 64 test values.
        assert_eq!(term_id(""), 0xcbf2_9ce4_8422_2325);
        assert_eq!(term_id("a"), 0xaf63_dc4c_8601_ec8c);
        assert_eq!(term_id("foobar"), 0x8594_4171_f739_67e8);
    }

    #[test]
    fn one_doc_one_term_scores_the_textbook_value() {
        let doc = AnalyzedDoc::from_terms(&terms(&["dog"]));
        let ranked = rank(&terms(&["dog"]), &[&doc], Floor::NONE);
        // N = 1, df = 1: idf = ln(1 + 0.5/1.5); tf = 1, len = avg: 2.2 / 2.2 = 1.
        let expected = (1.0f64 + 0.5 / 1.5).ln();
        assert_eq!(ranked.len(), 1);
        assert!((ranked[0].score - expected).abs() < 1e-12);
    }

    #[test]
    fn repeated_query_terms_count_once() {
        let a = AnalyzedDoc::from_terms(&terms(&["dog", "cat"]));
        let b = AnalyzedDoc::from_terms(&terms(&["cat"]));
        let once = rank(&terms(&["dog"]), &[&a, &b], Floor::NONE);
        let twice = rank(&terms(&["dog", "dog"]), &[&a, &b], Floor::NONE);
        assert_eq!(once, twice);
    }

    #[test]
    fn a_floor_outside_zero_to_one_is_clamped() {
        let a = AnalyzedDoc::from_terms(&terms(&["dog", "dog"]));
        let b = AnalyzedDoc::from_terms(&terms(&["dog", "cat", "cat", "cat"]));
        let docs = [&a, &b];
        let q = terms(&["dog"]);
        assert_eq!(rank(&q, &docs, Floor { relative: -3.0 }).len(), 2);
        assert_eq!(rank(&q, &docs, Floor { relative: f64::NAN }).len(), 2);
        assert_eq!(rank(&q, &docs, Floor { relative: 7.0 }).len(), 1);
    }

    #[test]
    fn rank_texts_analyses_key_and_value_as_one_field() {
        let analyzer = Analyzer::new(Language::English);
        let ranked = rank_texts(
            &analyzer,
            "where am I living",
            &[("home_city", "Lisbon, living there"), ("pet", "a dog")],
            Floor::DEFAULT,
        );
        assert_eq!(ranked.iter().map(|s| s.index).collect::<Vec<_>>(), [0]);
    }
}
