//! Hand-written pre-tokenizers equal to the two tiktoken patterns as JS evaluates them (the
//! oracle is js-tiktoken): alternatives are tried left to right at each position and the first
//! that matches wins (leftmost-first, not longest), with the backtracking each quantifier implies.
//!
//! cl100k: `('s|'S|'t|'T|'re|…|'d|'D)|[^\r\n\p{L}\p{N}]?\p{L}+|\p{N}{1,3}| ?[^\s\p{L}\p{N}]+[\r\n]*|\s*[\r\n]+|\s+(?!\S)|\s+`
//! o200k:  `[^\r\n\p{L}\p{N}]?[\p{Lu}\p{Lt}\p{Lm}\p{Lo}\p{M}]*[\p{Ll}\p{Lm}\p{Lo}\p{M}]+(contraction)?|
//!          [^\r\n\p{L}\p{N}]?[\p{Lu}\p{Lt}\p{Lm}\p{Lo}\p{M}]+[\p{Ll}\p{Lm}\p{Lo}\p{M}]*(contraction)?|
//!          \p{N}{1,3}| ?[^\s\p{L}\p{N}]+[\r\n/]*|\s*[\r\n]+|\s+(?!\S)|\s+`
//! Positions are byte offsets into the `&str`; every returned end is a char boundary. The scanner
//! reads bytes and decodes UTF-8 itself (ASCII: one table load per character): going through
//! `str::get(pos..)` + `chars()` per character was ~60 % of a count in wasm once rank lookups
//! were hashed.

use super::unicode::{class_of_code_point, CharClass};
use super::Encoding;

/// Iterator over the pieces (byte ranges) of a text, in order, covering it completely.
pub(super) struct Pieces<'a> {
    text: &'a str,
    pos: usize,
    encoding: Encoding,
}

impl<'a> Pieces<'a> {
    /// Pieces of `text` under `encoding`'s pattern.
    pub(super) fn new(text: &'a str, encoding: Encoding) -> Self {
        Pieces {
            text,
            pos: 0,
            encoding,
        }
    }
}

impl Pieces<'_> {
    /// The same pieces from `pos` on, which must be a piece boundary of the text (the pieces
    /// from a boundary depend on the text after it only).
    pub(super) fn from(mut self, pos: usize) -> Self {
        self.pos = pos;
        self
    }
}

impl<'a> Iterator for Pieces<'a> {
    type Item = &'a str;

    fn next(&mut self) -> Option<&'a str> {
        let s = self.text.as_bytes();
        loop {
            let start = self.pos;
            if start >= s.len() {
                return None;
            }
            let matched = match self.encoding {
                Encoding::O200kBase => o200k_piece(s, start),
                Encoding::Cl100kBase => cl100k_piece(s, start),
            };
            // A position where no alternative matches is skipped, as `matchAll` does; every
            // character class is covered by some alternative, so this is only a safety net.
            match matched.filter(|&e| e > start) {
                Some(end) => {
                    self.pos = end;
                    return self.text.get(start..end);
                }
                None => self.pos = class_at(s, start).map_or(s.len(), |(_, _, next)| next),
            }
        }
    }
}

/// The class and code point of the character at `pos`, and the position after it. `s` is the
/// UTF-8 of a `&str` and `pos` a char boundary, so the sequence is well formed; the checked
/// reads only keep a logic error from panicking.
#[inline(always)]
fn class_at(s: &[u8], pos: usize) -> Option<(CharClass, u32, usize)> {
    let first = *s.get(pos)?;
    if first < 0x80 {
        let cp = u32::from(first);
        return Some((class_of_code_point(cp), cp, pos + 1));
    }
    class_at_multibyte(s, pos, first)
}

#[inline(never)]
fn class_at_multibyte(s: &[u8], pos: usize, first: u8) -> Option<(CharClass, u32, usize)> {
    let (len, lead) = match first {
        0xc0..=0xdf => (2, first & 0x1f),
        0xe0..=0xef => (3, first & 0x0f),
        _ => (4, first & 0x07),
    };
    let tail = s.get(pos + 1..pos + len)?;
    let cp = tail
        .iter()
        .fold(u32::from(lead), |cp, &b| cp << 6 | u32::from(b & 0x3f));
    Some((class_of_code_point(cp), cp, pos + len))
}

/// End of the longest run from `pos` of characters whose class satisfies `pred`.
#[inline(always)]
fn run(s: &[u8], mut pos: usize, pred: fn(CharClass) -> bool) -> usize {
    while let Some((class, _, next)) = class_at(s, pos) {
        if !pred(class) {
            break;
        }
        pos = next;
    }
    pos
}

/// `[^\r\n\p{L}\p{N}]`.
#[inline(always)]
fn is_prefix(class: CharClass, c: u32) -> bool {
    c != u32::from(b'\r')
        && c != u32::from(b'\n')
        && !class.is_letter()
        && class != CharClass::Number
}

/// The contraction group `'s|'S|'t|'T|'re|…|'ll|…|'d|'D` at `pos`; its end when it matches.
fn contraction(b: &[u8], pos: usize) -> Option<usize> {
    if b.get(pos) != Some(&b'\'') {
        return None;
    }
    let first = b.get(pos + 1)?.to_ascii_lowercase();
    let second = b.get(pos + 2).map(u8::to_ascii_lowercase);
    match (first, second) {
        (b's' | b't' | b'm' | b'd', _) => Some(pos + 2),
        (b'r' | b'v', Some(b'e')) | (b'l', Some(b'l')) => Some(pos + 3),
        _ => None,
    }
}

/// Tries `body` after an optional `[^\r\n\p{L}\p{N}]`: first with it consumed (greedy `?`), then
/// without, because a mark can be both the prefix and the first letter-class character.
#[inline(always)]
fn with_optional_prefix(
    s: &[u8],
    pos: usize,
    body: fn(&[u8], usize) -> Option<usize>,
) -> Option<usize> {
    if let Some((class, c, next)) = class_at(s, pos) {
        if is_prefix(class, c) {
            if let Some(end) = body(s, next) {
                return Some(end);
            }
        }
    }
    body(s, pos)
}

/// `[upperish]*[lowerish]+(contraction)?`: the greedy star gives back characters until one that
/// is also lowerish can start the plus.
fn o200k_lower_word(s: &[u8], start: usize) -> Option<usize> {
    let mut pos = start;
    let mut last_lowerish_end = None;
    while let Some((class, _, next)) = class_at(s, pos) {
        if !class.is_upperish() {
            break;
        }
        if class.is_lowerish() {
            last_lowerish_end = Some(next);
        }
        pos = next;
    }
    let end = match class_at(s, pos) {
        Some((CharClass::Lower, _, _)) => run(s, pos, CharClass::is_lowerish),
        _ => last_lowerish_end?,
    };
    Some(contraction(s, end).unwrap_or(end))
}

/// `[upperish]+[lowerish]*(contraction)?`.
fn o200k_upper_word(s: &[u8], start: usize) -> Option<usize> {
    let upper_end = run(s, start, CharClass::is_upperish);
    if upper_end == start {
        return None;
    }
    let end = run(s, upper_end, CharClass::is_lowerish);
    Some(contraction(s, end).unwrap_or(end))
}

/// `\p{L}+`, the body of cl100k's `[^\r\n\p{L}\p{N}]?\p{L}+`.
fn cl100k_word(s: &[u8], start: usize) -> Option<usize> {
    let end = run(s, start, CharClass::is_letter);
    (end > start).then_some(end)
}

/// `\p{N}{1,3}`.
fn numbers(s: &[u8], pos: usize) -> Option<usize> {
    let mut end = pos;
    for _ in 0..3 {
        match class_at(s, end) {
            Some((CharClass::Number, _, next)) => end = next,
            _ => break,
        }
    }
    (end > pos).then_some(end)
}

/// ` ?[^\s\p{L}\p{N}]+[trail]*`.
fn punctuation(s: &[u8], pos: usize, trail: fn(u8) -> bool) -> Option<usize> {
    let is_punct_at = |p: usize| class_at(s, p).filter(|(class, _, _)| class.is_punct());
    let first = match s.get(pos) {
        Some(b' ') => is_punct_at(pos + 1).or_else(|| is_punct_at(pos)),
        _ => is_punct_at(pos),
    }?;
    let mut end = run(s, first.2, CharClass::is_punct);
    // The trailing characters are all ASCII.
    while s.get(end).is_some_and(|&b| trail(b)) {
        end += 1;
    }
    Some(end)
}

/// `\s*[\r\n]+|\s+(?!\S)|\s+`, in that order.
fn whitespace(s: &[u8], pos: usize) -> Option<usize> {
    let mut end = pos;
    let mut last_newline_end = None;
    let mut last_char_start = pos;
    while let Some((CharClass::Space, c, next)) = class_at(s, end) {
        if c == u32::from(b'\r') || c == u32::from(b'\n') {
            last_newline_end = Some(next);
        }
        last_char_start = end;
        end = next;
    }
    if end == pos {
        return None;
    }
    // `\s*[\r\n]+` backtracks the star to the last newline of the run.
    if let Some(newline_end) = last_newline_end {
        return Some(newline_end);
    }
    // `\s+(?!\S)`: the whole run at the end of the text, else all but its last character.
    if end == s.len() || last_char_start > pos {
        return Some(if end == s.len() { end } else { last_char_start });
    }
    Some(end)
}

fn o200k_piece(s: &[u8], pos: usize) -> Option<usize> {
    with_optional_prefix(s, pos, o200k_lower_word)
        .or_else(|| with_optional_prefix(s, pos, o200k_upper_word))
        .or_else(|| numbers(s, pos))
        .or_else(|| punctuation(s, pos, |b| matches!(b, b'\r' | b'\n' | b'/')))
        .or_else(|| whitespace(s, pos))
}

fn cl100k_piece(s: &[u8], pos: usize) -> Option<usize> {
    contraction(s, pos)
        .or_else(|| with_optional_prefix(s, pos, cl100k_word))
        .or_else(|| numbers(s, pos))
        .or_else(|| punctuation(s, pos, |b| matches!(b, b'\r' | b'\n')))
        .or_else(|| whitespace(s, pos))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn split(text: &str, encoding: Encoding) -> Vec<&str> {
        Pieces::new(text, encoding).collect()
    }

    #[test]
    fn trailing_space_run_leaves_one_space_for_the_next_word() {
        assert_eq!(split("a   b", Encoding::Cl100kBase), ["a", "  ", " b"]);
        assert_eq!(split("a   ", Encoding::O200kBase), ["a", "   "]);
    }

    #[test]
    fn newline_runs_end_at_the_last_newline() {
        assert_eq!(
            split("x \n\n  y", Encoding::Cl100kBase),
            ["x", " \n\n", " ", " y"]
        );
    }

    #[test]
    fn o200k_keeps_contractions_on_the_word_and_splits_camel_case() {
        assert_eq!(split("don't", Encoding::O200kBase), ["don't"]);
        assert_eq!(split("don't", Encoding::Cl100kBase), ["don", "'t"]);
        assert_eq!(split("HelloWorld", Encoding::O200kBase), ["Hello", "World"]);
        assert_eq!(split("ABCdef", Encoding::O200kBase), ["ABCdef"]);
    }

    #[test]
    fn digits_group_by_three_and_punctuation_takes_slashes_in_o200k() {
        assert_eq!(split("12345", Encoding::O200kBase), ["123", "45"]);
        assert_eq!(split(" ://\n/x", Encoding::O200kBase), [" ://\n/", "x"]);
    }
}
