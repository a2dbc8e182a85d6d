//! Character classes of the pre-tokenizer regexes, as Node's regex engine sees them.

use super::unicode_table::{RANGE_CLASSES, RANGE_STARTS};

/// One class per code point; the classes partition Unicode so one lookup answers every question
/// the two patterns ask (`\p{L}`, the o200k case classes, `\p{M}`, `\p{N}`, `\s`).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(super) enum CharClass {
    /// Anything else (punctuation, symbols, controls other than whitespace, unassigned).
    Other,
    /// `\p{Lu}` or `\p{Lt}`.
    Upper,
    /// `\p{Ll}`.
    Lower,
    /// `\p{Lm}` or `\p{Lo}`.
    LetterOther,
    /// `\p{M}`.
    Mark,
    /// `\p{N}`.
    Number,
    /// JS `\s`.
    Space,
}

impl CharClass {
    fn from_code(code: u8) -> CharClass {
        match code {
            1 => CharClass::Upper,
            2 => CharClass::Lower,
            3 => CharClass::LetterOther,
            4 => CharClass::Mark,
            5 => CharClass::Number,
            6 => CharClass::Space,
            _ => CharClass::Other,
        }
    }

    /// `\p{L}`.
    pub(super) fn is_letter(self) -> bool {
        matches!(
            self,
            CharClass::Upper | CharClass::Lower | CharClass::LetterOther
        )
    }

    /// o200k's `[\p{Lu}\p{Lt}\p{Lm}\p{Lo}\p{M}]`.
    pub(super) fn is_upperish(self) -> bool {
        matches!(
            self,
            CharClass::Upper | CharClass::LetterOther | CharClass::Mark
        )
    }

    /// o200k's `[\p{Ll}\p{Lm}\p{Lo}\p{M}]`.
    pub(super) fn is_lowerish(self) -> bool {
        matches!(
            self,
            CharClass::Lower | CharClass::LetterOther | CharClass::Mark
        )
    }

    /// `[^\s\p{L}\p{N}]`.
    pub(super) fn is_punct(self) -> bool {
        matches!(self, CharClass::Other | CharClass::Mark)
    }
}

/// The class of one character: a direct table for ASCII (most text), binary search otherwise.
pub(super) fn class_of(c: char) -> CharClass {
    let cp = u32::from(c);
    if cp < 128 {
        return ascii_class(cp as u8);
    }
    let idx = RANGE_STARTS.partition_point(|&start| start <= cp);
    let code = idx
        .checked_sub(1)
        .and_then(|i| RANGE_CLASSES.get(i))
        .copied()
        .unwrap_or(0);
    CharClass::from_code(code)
}

fn ascii_class(b: u8) -> CharClass {
    match b {
        b'a'..=b'z' => CharClass::Lower,
        b'A'..=b'Z' => CharClass::Upper,
        b'0'..=b'9' => CharClass::Number,
        b' ' | b'\t' | b'\n' | 0x0b | 0x0c | b'\r' => CharClass::Space,
        _ => CharClass::Other,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn ascii_fast_path_agrees_with_generated_table() {
        for b in 0u8..128 {
            let idx = RANGE_STARTS.partition_point(|&s| s <= u32::from(b));
            let code = RANGE_CLASSES[idx - 1];
            assert_eq!(ascii_class(b), CharClass::from_code(code), "byte {b}");
        }
    }

    #[test]
    fn js_whitespace_quirks_are_kept() {
        assert_eq!(class_of('\u{feff}'), CharClass::Space);
        assert_eq!(class_of('\u{85}'), CharClass::Other);
        assert_eq!(class_of('\u{301}'), CharClass::Mark);
        assert_eq!(class_of('é'), CharClass::Lower);
        assert_eq!(class_of('中'), CharClass::LetterOther);
        assert_eq!(class_of('٣'), CharClass::Number);
    }
}
