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
#[cfg(test)]
pub(super) fn class_of(c: char) -> CharClass {
    class_of_code_point(u32::from(c))
}

/// [`class_of`] by code point, for the byte scanner that decodes UTF-8 itself.
#[inline(always)]
pub(super) fn class_of_code_point(cp: u32) -> CharClass {
    match ASCII_CLASSES.get(cp as usize) {
        Some(&class) => class,
        None => class_beyond_ascii(cp),
    }
}

/// The class of a code point ≥ 128: binary search over the generated ranges (kept out of line:
/// the ASCII path is the hot one and `opt-level = "z"` would not inline a bigger function).
#[inline(never)]
fn class_beyond_ascii(cp: u32) -> CharClass {
    let idx = RANGE_STARTS.partition_point(|&start| start <= cp);
    let code = idx
        .checked_sub(1)
        .and_then(|i| RANGE_CLASSES.get(i))
        .copied()
        .unwrap_or(0);
    CharClass::from_code(code)
}

/// The class of every ASCII byte, indexed directly: one load instead of a match per character.
/// (Evaluated at compile time, so the indexing below cannot fail at run time.)
pub(super) static ASCII_CLASSES: [CharClass; 128] = {
    let mut table = [CharClass::Other; 128];
    let mut b = 0;
    while b < 128 {
        // Compile-time evaluation: an out-of-bounds index here fails the build, never a run.
        #[allow(clippy::indexing_slicing)]
        {
            table[b] = ascii_class(b as u8);
        }
        b += 1;
    }
    table
};

const fn ascii_class(b: u8) -> CharClass {
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
            assert_eq!(ASCII_CLASSES[usize::from(b)], ascii_class(b), "byte {b}");
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
