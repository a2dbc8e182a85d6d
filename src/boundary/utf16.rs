//! Positions in the JavaScript string a text came from.
//!
//! A text crosses from JS as UTF-8; an answer made of slices of it can go back as UTF-16
//! `[start, end)` positions that JS turns into `text.slice(start, end)`, instead of as the same
//! characters copied and decoded again (decoding non-ASCII UTF-8 is the dearest part of a large
//! answer: 7 µs for a 6 KB profile on Node 20, against under 1 µs for the slices). Conversion
//! only: which slices an answer holds is the core's business.

/// U+FFFD in UTF-8.
const REPLACEMENT: [u8; 3] = [0xef, 0xbf, 0xbd];

/// Whether `text` holds U+FFFD — where JS may have held a lone surrogate, which its encoder
/// replaces. Eight bytes at a time (`str::contains` runs a general substring search).
pub fn holds_replacement_character(text: &str) -> bool {
    const ONES: u64 = 0x0101_0101_0101_0101;
    const HIGHS: u64 = 0x8080_8080_8080_8080;
    let bytes = text.as_bytes();
    let mut at = 0;
    while at < bytes.len() {
        if let Some(word) = bytes
            .get(at..at + 8)
            .and_then(|chunk| <[u8; 8]>::try_from(chunk).ok())
        {
            let lead = u64::from_le_bytes(word) ^ (ONES * 0xef);
            if (lead.wrapping_sub(ONES) & !lead) & HIGHS == 0 {
                at += 8;
                continue;
            }
        }
        if bytes.get(at..at + 3) == Some(&REPLACEMENT[..]) {
            return true;
        }
        at += 1;
    }
    false
}

/// The first byte at or after `at` that is not ASCII (`bytes.len()` when there is none). With
/// wasm `simd128` sixteen bytes at a time (the high bits of a block are one `i8x16.bitmask`),
/// then eight at a time.
#[cfg(all(target_arch = "wasm32", target_feature = "simd128"))]
fn next_non_ascii(bytes: &[u8], mut at: usize) -> usize {
    use core::arch::wasm32::{u8x16_bitmask, v128};
    while let Some(chunk) = bytes.get(at..at + 16) {
        let Ok(block) = bytemuck::try_pod_read_unaligned::<v128>(chunk) else {
            break;
        };
        let high = u8x16_bitmask(block);
        if high != 0 {
            return at + high.trailing_zeros() as usize;
        }
        at += 16;
    }
    next_non_ascii_swar(bytes, at)
}

/// [`next_non_ascii`] without wasm `simd128`.
#[cfg(not(all(target_arch = "wasm32", target_feature = "simd128")))]
fn next_non_ascii(bytes: &[u8], at: usize) -> usize {
    next_non_ascii_swar(bytes, at)
}

/// [`next_non_ascii`] eight bytes at a time in a `u64`.
fn next_non_ascii_swar(bytes: &[u8], mut at: usize) -> usize {
    while let Some(word) = bytes
        .get(at..at + 8)
        .and_then(|chunk| <[u8; 8]>::try_from(chunk).ok())
    {
        let high = u64::from_le_bytes(word) & 0x8080_8080_8080_8080;
        if high != 0 {
            return at + (high.trailing_zeros() / 8) as usize;
        }
        at += 8;
    }
    bytes
        .iter()
        .skip(at)
        .position(|b| !b.is_ascii())
        .map_or(bytes.len(), |i| at + i)
}

/// How long `text` is in JS (`text.length`, UTF-16 code units): ASCII runs a block at a time,
/// then one unit per non-ASCII character, two for one above U+FFFF. For an answer that carries
/// texts as they are, one after the other, and says where each ends.
pub fn utf16_len(text: &str) -> usize {
    let bytes = text.as_bytes();
    let (mut units, mut at) = (0, 0);
    loop {
        let next = next_non_ascii(bytes, at);
        units += next - at;
        // `next` starts a character, so this is a UTF-8 lead byte.
        let Some(&lead) = bytes.get(next) else {
            return units;
        };
        let (len, n) = match lead {
            0xc0..=0xdf => (2, 1),
            0xe0..=0xef => (3, 1),
            _ => (4, 2),
        };
        units += n;
        at = next + len;
    }
}

/// The UTF-16 positions of a UTF-8 text received from JS.
#[derive(Debug)]
pub struct Utf16Positions<'a> {
    text: &'a str,
    /// After each non-ASCII character: its end (in bytes) and how many more UTF-8 bytes than
    /// UTF-16 units the text holds up to there.
    marks: Vec<(usize, usize)>,
}

impl<'a> Utf16Positions<'a> {
    /// Positions in `text`, or `None` when it holds U+FFFD: the encoder JS uses puts U+FFFD for
    /// a lone surrogate, so there a position would not name the character JS holds.
    pub fn new(text: &'a str) -> Option<Self> {
        let bytes = text.as_bytes();
        let mut marks = Vec::new();
        let mut extra = 0;
        let mut at = 0;
        loop {
            at = next_non_ascii(bytes, at);
            // `at` starts a character (ASCII runs and whole characters are skipped), so a
            // byte here is a UTF-8 lead byte.
            let Some(&lead) = bytes.get(at) else {
                break;
            };
            let (len, units) = match lead {
                0xc0..=0xdf => (2, 1),
                0xe0..=0xef => (3, 1),
                _ => (4, 2),
            };
            if len == 3 && bytes.get(at..at + 3) == Some(&REPLACEMENT[..]) {
                return None;
            }
            at += len;
            extra += len - units;
            marks.push((at, extra));
        }
        Some(Utf16Positions { text, marks })
    }

    /// The UTF-16 `[start, end)` of `slice` in the text (what the tests pin: [`Self::byte_range`]
    /// then [`Self::unit`], as the wasm layer uses them).
    #[cfg(test)]
    pub fn of(&self, slice: &str) -> Option<(u32, u32)> {
        let (start, end) = self.byte_range(slice)?;
        Some((self.unit(start)?, self.unit(end)?))
    }

    /// The byte `[start, end)` of `slice` in the text, or `None` when `slice` is not a slice of
    /// it (an owned string, whatever its content; an empty one may map anywhere, which still
    /// names the same empty text).
    pub fn byte_range(&self, slice: &str) -> Option<(usize, usize)> {
        let start = (slice.as_ptr() as usize).checked_sub(self.text.as_ptr() as usize)?;
        let end = start.checked_add(slice.len())?;
        (end <= self.text.len()).then_some((start, end))
    }

    /// The UTF-16 position of a byte offset (a character boundary) of the text.
    pub fn unit(&self, byte: usize) -> Option<u32> {
        let before = self.marks.partition_point(|(end, _)| *end <= byte);
        let extra = match before.checked_sub(1) {
            Some(index) => self.marks.get(index).map_or(0, |(_, extra)| *extra),
            None => 0,
        };
        u32::try_from(byte.checked_sub(extra)?).ok()
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;

    fn units(text: &str) -> u32 {
        text.encode_utf16().count() as u32
    }

    proptest! {
        /// Every slice at character boundaries maps to its UTF-16 range.
        #[test]
        fn slices_map_to_their_utf16_range(text in "[a-z \\n\u{e9}\u{4e2d}\u{1f600}\u{2028}]{0,40}", a in 0usize..41, b in 0usize..41) {
            let positions = Utf16Positions::new(&text).unwrap();
            let bounds: Vec<usize> = text.char_indices().map(|(i, _)| i).chain([text.len()]).collect();
            let (a, b) = (bounds[a % bounds.len()], bounds[b % bounds.len()]);
            let (a, b) = (a.min(b), a.max(b));
            let slice = &text[a..b];
            prop_assert_eq!(positions.of(slice), Some((units(&text[..a]), units(&text[..b]))));
        }

        /// A text's JS length, whatever it holds and however long its ASCII runs are.
        #[test]
        fn the_js_length_is_the_count_of_utf16_units(text in "([a-z ]{0,20}[\u{80}-\u{7ff}\u{800}-\u{ffff}\u{10000}-\u{10ffff}]?){0,6}") {
            prop_assert_eq!(utf16_len(&text) as u32, units(&text));
        }
    }

    #[test]
    fn the_first_non_ascii_byte_is_found_at_every_offset() {
        for len in 0..40 {
            for at in 0..=len {
                let mut bytes = vec![b'a'; len];
                if at < len {
                    bytes[at] = 0xc3;
                }
                for from in 0..=len {
                    let expected = if at < len && at >= from { at } else { len };
                    assert_eq!(next_non_ascii(&bytes, from), expected, "{len} {at} {from}");
                    assert_eq!(next_non_ascii_swar(&bytes, from), expected);
                }
            }
        }
    }

    #[test]
    fn owned_strings_and_replacement_characters_have_no_position() {
        let text = "- caf\u{e9} one\n- two".to_string();
        let positions = Utf16Positions::new(&text).unwrap();
        let owned = String::from("- two");
        assert_eq!(positions.of(&owned), None);
        assert_eq!(positions.of(&text[text.len() - 5..]), Some((11, 16)));
        assert!(Utf16Positions::new("a \u{fffd} b").is_none());
        for (text, holds) in [
            ("", false),
            ("plain ascii text, long enough", false),
            ("\u{fffd}", true),
            ("1234567\u{fffd}", true),
            ("\u{ff5e}\u{fffd}x", true),
            ("\u{ff5e}\u{fffe}\u{efff}", false),
        ] {
            assert_eq!(holds_replacement_character(text), holds, "{text:?}");
        }
    }
}
