//! The reserved-key check on keys that come in (behaviour §8.1): a key *names* a reserved `_gdpr_`
//! key when it reads as one — in any case (`_GDPR_x`), in compatibility forms (fullwidth
//! `＿ｇｄｐｒ＿x`, mathematical `𝐠`, circled `ⓖ`, …: what NFKC turns into those letters) and
//! with format characters anywhere (a zero-width space, a BOM, a soft hyphen, bidi controls).
//!
//! Decision: this is the rule for every key a caller **sends** — the tools, REST and MCP
//! writes, properties, the legacy merge, Dream's answers, the migration, `forgetFact` and the
//! by-key read — so none of them can create or reach a look-alike of a bookkeeping entry.
//! Stored entries are classified by their key as stored ([`super::visibility::is_reserved_key`]:
//! the exact prefix after trimming), which the SQL stores index; a look-alike key written before
//! this check existed stays an ordinary entry (listed, counted, deletable by id), so no user
//! data is hidden by the change and no stored column needs recomputing.
//!
//! The fold is exact for the prefix without NFKC tables in the wasm: no precomposed character
//! decomposes into plain ASCII letters, so NFKC can only turn a character *into* one of the
//! letters of `_gdpr_` through its own compatibility mapping — the generated
//! [`super::reserved_folding::FOLDS`] table (150 characters, Unicode 17) — and a combining mark
//! after a letter changes the NFKC result exactly as it fails the comparison here.

use super::reserved_folding::{FOLDS, FORMATS};
use super::visibility::GDPR_PREFIX;

/// Whether `key` reads as a reserved `_gdpr_` key: format characters ignored, leading and
/// trailing whitespace trimmed, then its first characters folded by NFKC and lowercased.
///
/// ```
/// use memcore::entries::names_reserved_key;
/// assert!(names_reserved_key("_gdpr_processing_restricted"));
/// assert!(names_reserved_key("_GDPR_x"));
/// assert!(names_reserved_key("\u{200b}_gdpr_x"));
/// assert!(names_reserved_key("\u{ff3f}\u{ff47}\u{ff44}\u{ff50}\u{ff52}\u{ff3f}x"));
/// assert!(!names_reserved_key("gdpr_notes"));
/// ```
pub fn names_reserved_key(key: &str) -> bool {
    let mut folded = String::with_capacity(GDPR_PREFIX.len());
    let visible = key.chars().filter(|c| !is_format(*c));
    let mut started = false;
    for c in visible {
        if !started && c.is_whitespace() {
            continue;
        }
        started = true;
        if c.is_ascii() {
            folded.push(c.to_ascii_lowercase());
        } else {
            match FOLDS.binary_search_by_key(&u32::from(c), |(cp, _)| *cp) {
                Ok(at) => folded.push_str(FOLDS.get(at).map_or("", |(_, to)| *to)),
                Err(_) => return false,
            }
        }
        if folded.len() >= GDPR_PREFIX.len() {
            return folded.starts_with(GDPR_PREFIX);
        }
        if !GDPR_PREFIX.starts_with(folded.as_str()) {
            return false;
        }
    }
    false
}

/// A format character (general category Cf): invisible, ignored by the check.
fn is_format(c: char) -> bool {
    let cp = u32::from(c);
    if cp < 0xAD {
        return false;
    }
    FORMATS
        .binary_search_by(|(start, end)| {
            if *end < cp {
                std::cmp::Ordering::Less
            } else if *start > cp {
                std::cmp::Ordering::Greater
            } else {
                std::cmp::Ordering::Equal
            }
        })
        .is_ok()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn look_alikes_of_the_prefix_are_reserved() {
        for key in [
            "_gdpr_x",
            "  _gdpr_x",
            "_GDPR_x",
            "_Gdpr_",
            "\u{feff}_gdpr_x",
            "_g\u{200d}dpr_x",
            "_gd\u{ad}pr_x",
            "\u{ff3f}gdpr\u{ff3f}x",
            "_\u{1d420}dpr_x",
            "_\u{24d6}\u{24d3}\u{24df}\u{24e1}_",
            "_gd\u{33da}_x",
            "\u{fe4d}gdpr_",
        ] {
            assert!(names_reserved_key(key), "{key:?}");
        }
    }

    #[test]
    fn other_keys_are_not_reserved() {
        for key in [
            "",
            "_gdpr",
            "gdpr_x",
            "_ gdpr_x",
            "_gdp\u{155}_x",
            "_gdpr\u{301}x",
            "x_gdpr_",
            "\u{2017}gdpr_",
            "_g\u{0261}dpr_",
        ] {
            assert!(!names_reserved_key(key), "{key:?}");
        }
    }

    #[test]
    fn the_tables_are_sorted() {
        assert!(FOLDS.windows(2).all(|w| w[0].0 < w[1].0));
        assert!(FORMATS.windows(2).all(|w| w[0].1 < w[1].0));
    }
}
