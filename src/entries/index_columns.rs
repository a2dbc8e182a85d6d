//! The derived columns a SQL entry store indexes, and the search prefilter it runs on them
//! (docs/reference/storage.md, "Derived columns" and "Search"). The rules are the core's own — recency
//! ([`super::recall`]), the reserved-key test ([`super::visibility::is_reserved_key`]) and the
//! search folding ([`super::search`]) — so a SQL store orders, hides and prefilters exactly as
//! the core does and needs no copy of them in its own language.
//!
//! - `updated_sort`: a text whose byte order is the core's recency order on `updatedAt`.
//! - `reserved`: the stored key is a reserved `_gdpr_` key.
//! - `search_text`: the *skeleton* of the key and value (see [`skeleton`]): what a store can
//!   test with a literal substring match (FTS5 `trigram`, `pg_trgm`, `instr`, `strpos`) without
//!   folding text like Rust does. A substring of the core's folded text has its skeleton inside
//!   the text's skeleton, so the prefilter never drops a match; it may return more, and the core
//!   re-applies its matching to everything it gets.
//!
//! The values are part of the stored format: existing databases hold them, so any change here
//! is a schema migration (tests/vectors/sql/index-columns.json pins the bytes).

use super::recall::parsed;
use super::search::search_terms;
use super::visibility::is_reserved_key;
use serde::Serialize;

/// What a run of characters outside ASCII leaves in a skeleton: three characters, so a trigram
/// index holds it.
pub const NON_ASCII_MARK: &str = "\u{2}\u{2}\u{2}";

/// What a JSON number leaves in the skeleton of a non-string value: only characters a number
/// may print as (so no other term finds it by accident), and alphanumeric ones, so `pg_trgm`
/// indexes it. How the core prints a number is its own call, so a term that could lie inside a
/// number (only digits and `e`) also accepts this mark.
pub const NUMBER_MARK: &str = "\u{3}0e0\u{3}";

/// Between the key's skeleton and the value's in `search_text`.
const KEY_VALUE_SEPARATOR: char = '\u{1}';

/// Deeper values are not walked: their rows get no `search_text` (always candidates).
const MAX_SKELETON_DEPTH: usize = 64;

/// Terms a search prefilter tests; more only narrow the match, so dropping them keeps a superset.
pub const MAX_SEARCH_TERMS: usize = 8;

/// The shortest pattern a trigram index can look up: a shorter one holds no trigram, so it is
/// tested on the candidates the other terms give (or on each of the user's rows).
pub const TRIGRAM_LENGTH: usize = 3;

/// Seconds added to every instant of `updated_sort`, so every year 0000–9999 (± a day of
/// offset) is a positive 13-digit number.
const EPOCH_SHIFT: i64 = 1_000_000_000_000;

/// The derived columns of one stored entry.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct IndexColumns {
    /// [`updated_sort`] of `updatedAt`.
    pub updated_sort: String,
    /// [`is_reserved_key`] of the key.
    pub reserved: bool,
    /// [`search_text`] of the key and the value's JSON text; `None` → "always a candidate".
    pub search_text: Option<String>,
}

/// The derived columns of an entry from its key, `updatedAt` and value as the JSON text a store
/// keeps (`JSON.stringify`'s output: compact, object keys in the order they were written — the
/// order a parsed [`serde_json::Value`] would not keep).
///
/// ```
/// use memcore::entries::index_columns::index_columns;
/// let c = index_columns("Dog", "2026-01-01T00:00:00Z", "\"Rex\"");
/// assert_eq!(c.search_text.as_deref(), Some("dog\u{1}rex"));
/// assert!(!c.reserved);
/// ```
pub fn index_columns(key: &str, updated_at: &str, value_json: &str) -> IndexColumns {
    IndexColumns {
        updated_sort: updated_sort(updated_at),
        reserved: is_reserved_key(key),
        search_text: search_text(key, value_json),
    }
}

/// A text whose byte order is the core's recency order on `updatedAt` ([`super::recall`]): a
/// valid RFC 3339 instant as `1` + seconds since the epoch (shifted, 13 digits) + nanoseconds
/// (10 digits; a leap second adds 10⁹), so `Z` and `+00:00` spellings of one instant are equal;
/// a timestamp that does not parse as `0` + the raw text, so it sorts before every valid one
/// (older), and two such compare by raw text.
///
/// ```
/// use memcore::entries::index_columns::updated_sort;
/// assert_eq!(updated_sort("2026-01-01T00:00:00Z"), updated_sort("2026-01-01T00:00:00+00:00"));
/// assert_eq!(updated_sort("yesterday"), "0yesterday");
/// ```
pub fn updated_sort(updated_at: &str) -> String {
    match parsed(updated_at) {
        Some((seconds, nanos)) => format!("1{:013}{nanos:010}", seconds + EPOCH_SHIFT),
        None => format!("0{updated_at}"),
    }
}

/// The skeleton of a text: every character the core's folding ([`str::to_lowercase`]) turns
/// into ASCII stays, lowercased; every maximal run of other characters becomes
/// [`NON_ASCII_MARK`]. Outside ASCII only KELVIN SIGN (→ `k`) and U+0130 (→ `i` + U+0307) fold
/// to an ASCII character.
pub fn skeleton(text: &str) -> String {
    if text.is_ascii() {
        return text.to_ascii_lowercase();
    }
    let mut out = String::with_capacity(text.len());
    let mut in_run = false;
    for c in text.chars() {
        if c.is_ascii() {
            out.push(c.to_ascii_lowercase());
            in_run = false;
            continue;
        }
        for lower in c.to_lowercase() {
            if lower.is_ascii() {
                out.push(lower);
                in_run = false;
            } else if !in_run {
                out.push_str(NON_ASCII_MARK);
                in_run = true;
            }
        }
    }
    out
}

/// The `search_text` of an entry: `skeleton(key)` + U+0001 + the skeleton of its value — a
/// string's own, or for other values the compact JSON text with every number as
/// [`NUMBER_MARK`] — or `None` ("always a candidate") when the value holds a lone surrogate
/// (its folding is the core's call), nests deeper than 64 levels, or is not JSON.
pub fn search_text(key: &str, value_json: &str) -> Option<String> {
    let value = if value_json.starts_with('"') {
        skeleton(&json_string(value_json)?)
    } else {
        skeleton(&numbers_marked(value_json)?)
    };
    let mut out = skeleton(key);
    out.push(KEY_VALUE_SEPARATOR);
    out.push_str(&value);
    Some(out)
}

/// The string a JSON string literal (the whole text) stands for; `None` for a lone surrogate or
/// anything that is not one string literal.
fn json_string(json: &str) -> Option<String> {
    let inner = json.strip_prefix('"')?.strip_suffix('"')?;
    let mut out = String::with_capacity(inner.len());
    let mut chars = inner.chars();
    while let Some(c) = chars.next() {
        match c {
            '"' => return None,
            '\\' => match chars.next()? {
                'u' => {
                    let unit = hex_unit(&mut chars)?;
                    let code = if (0xD800..0xDC00).contains(&unit) {
                        if chars.next()? != '\\' || chars.next()? != 'u' {
                            return None;
                        }
                        let low = hex_unit(&mut chars)?;
                        if !(0xDC00..0xE000).contains(&low) {
                            return None;
                        }
                        0x10000 + ((unit - 0xD800) << 10) + (low - 0xDC00)
                    } else {
                        unit
                    };
                    out.push(char::from_u32(code)?);
                }
                '"' => out.push('"'),
                '\\' => out.push('\\'),
                '/' => out.push('/'),
                'b' => out.push('\u{8}'),
                'f' => out.push('\u{c}'),
                'n' => out.push('\n'),
                'r' => out.push('\r'),
                't' => out.push('\t'),
                _ => return None,
            },
            c => out.push(c),
        }
    }
    Some(out)
}

fn hex_unit(chars: &mut std::str::Chars) -> Option<u32> {
    let mut unit = 0;
    for _ in 0..4 {
        unit = unit * 16 + chars.next()?.to_digit(16)?;
    }
    Some(unit)
}

/// Compact JSON text (as `JSON.stringify` writes it) with every number as [`NUMBER_MARK`];
/// `None` when a string holds a lone surrogate, a value sits deeper than 64 levels, or the text
/// is not JSON of that shape. Strings are kept as written (their escapes included).
fn numbers_marked(json: &str) -> Option<String> {
    let bytes = json.as_bytes();
    let mut out = String::with_capacity(json.len());
    let mut open = 0usize;
    let mut at = 0;
    while let Some(&b) = bytes.get(at) {
        match b {
            b'[' | b'{' => {
                if open > MAX_SKELETON_DEPTH {
                    return None;
                }
                open += 1;
                out.push(char::from(b));
                at += 1;
            }
            b']' | b'}' => {
                open = open.checked_sub(1)?;
                out.push(char::from(b));
                at += 1;
            }
            b',' | b':' => {
                out.push(char::from(b));
                at += 1;
            }
            b'"' => {
                if open > MAX_SKELETON_DEPTH {
                    return None;
                }
                let end = string_end(bytes, at)?;
                let literal = json.get(at..end)?;
                // Validates escapes and refuses lone surrogates; the text itself is kept.
                json_string(literal)?;
                out.push_str(literal);
                at = end;
            }
            b'-' | b'0'..=b'9' => {
                if open > MAX_SKELETON_DEPTH {
                    return None;
                }
                while bytes
                    .get(at)
                    .is_some_and(|b| matches!(b, b'-' | b'+' | b'.' | b'e' | b'E' | b'0'..=b'9'))
                {
                    at += 1;
                }
                out.push_str(NUMBER_MARK);
            }
            b't' | b'f' | b'n' => {
                if open > MAX_SKELETON_DEPTH {
                    return None;
                }
                let word = ["true", "false", "null"]
                    .into_iter()
                    .find(|w| bytes.get(at..at + w.len()) == Some(w.as_bytes()))?;
                out.push_str(word);
                at += word.len();
            }
            _ => return None,
        }
    }
    (open == 0).then_some(out)
}

/// The index just past the string literal that starts at `start` (a `"`).
fn string_end(bytes: &[u8], start: usize) -> Option<usize> {
    let mut at = start + 1;
    loop {
        match bytes.get(at)? {
            b'"' => return Some(at + 1),
            b'\\' => at += 2,
            _ => at += 1,
        }
    }
}

/// One test of the search prefilter: a row is a candidate for it when its `search_text`
/// contains any of these patterns.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct PrefilterTest {
    /// The term's skeleton, then [`NUMBER_MARK`] for a term that could lie inside a number.
    pub any_of: Vec<String>,
}

/// How a SQL store prefilters `searchMemory` (behaviour §2.5) on `search_text`: a row is a
/// candidate when it passes every test, or when its `search_text` is NULL. `long` tests (every
/// pattern of [`TRIGRAM_LENGTH`] characters or more) can go through a trigram index; `short` ones
/// are tested on its candidates, or on each of the user's rows when there is no long test. No test
/// at all: the query has no terms and matches nothing.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Default)]
pub struct SearchPrefilter {
    /// Tests a trigram index can answer.
    pub long: Vec<PrefilterTest>,
    /// Tests of patterns shorter than a trigram.
    pub short: Vec<PrefilterTest>,
}

/// The prefilter of a query: its distinct folded terms ([`search_terms`], at most
/// [`MAX_SEARCH_TERMS`]), each as the skeleton it leaves in `search_text`.
///
/// ```
/// use memcore::entries::index_columns::search_prefilter;
/// let plan = search_prefilter("Dog 1e5 x");
/// assert_eq!(plan.long[0].any_of, ["dog"]);
/// assert_eq!(plan.long[1].any_of, ["1e5", "\u{3}0e0\u{3}"]);
/// assert_eq!(plan.short[0].any_of, ["x"]);
/// ```
pub fn search_prefilter(query: &str) -> SearchPrefilter {
    let mut terms: Vec<String> = Vec::new();
    for term in search_terms(query) {
        if terms.len() == MAX_SEARCH_TERMS {
            break;
        }
        if !terms.contains(&term) {
            terms.push(term);
        }
    }
    let mut plan = SearchPrefilter::default();
    for term in terms {
        let pattern = skeleton(&term);
        let long = pattern.len() >= TRIGRAM_LENGTH;
        let mut any_of = vec![pattern];
        if term.bytes().all(|b| b.is_ascii_digit() || b == b'e') {
            any_of.push(NUMBER_MARK.to_owned());
        }
        let test = PrefilterTest { any_of };
        if long {
            plan.long.push(test);
        } else {
            plan.short.push(test);
        }
    }
    plan
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn only_kelvin_and_dotted_capital_i_fold_into_ascii_outside_ascii() {
        let mut found = Vec::new();
        for c in (0x80..=0x10FFFF).filter_map(char::from_u32) {
            if c.to_lowercase().any(|l| l.is_ascii()) {
                found.push(c);
            }
        }
        assert_eq!(found, ['\u{130}', '\u{212a}']);
        assert_eq!(
            skeleton("x\u{212A}y\u{130}z"),
            format!("xkyi{NON_ASCII_MARK}z")
        );
        assert_eq!(
            skeleton("ÀB€"),
            format!("{NON_ASCII_MARK}b{NON_ASCII_MARK}")
        );
    }

    #[test]
    fn string_values_are_decoded_other_values_keep_their_json() {
        assert_eq!(
            search_text("k", r#""a\"b\\c\ud83d\ude00""#).as_deref(),
            Some(format!("k\u{1}a\"b\\c{NON_ASCII_MARK}").as_str())
        );
        assert_eq!(
            search_text("k", r#"["a\"b",1.5e-7]"#).as_deref(),
            Some(format!("k\u{1}[\"a\\\"b\",{NUMBER_MARK}]").as_str())
        );
        assert_eq!(search_text("k", r#""\ud800""#), None);
        assert_eq!(search_text("k", r#"{"\udc00":1}"#), None);
        assert_eq!(search_text("k", "[1,"), None);
        assert_eq!(search_text("k", "nope"), None);
    }
}
