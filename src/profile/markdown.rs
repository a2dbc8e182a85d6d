//! The little Markdown the profile format needs: ATX headings and fenced code blocks (a `##`
//! inside a code fence is content, not a section).

/// An ATX heading: its level (1–6) and its text (trimmed, closing `#`s removed).
#[inline]
pub(crate) fn atx_heading(line: &str) -> Option<(usize, &str)> {
    if !matches!(line.as_bytes().first(), Some(b' ' | b'#')) {
        return None;
    }
    atx_heading_closely(line)
}

fn atx_heading_closely(line: &str) -> Option<(usize, &str)> {
    if !first_after_spaces_is(line, b'#') {
        return None;
    }
    let indent = line.len() - line.trim_start_matches(' ').len();
    if indent > 3 {
        return None;
    }
    let rest = line.trim_start_matches(' ');
    let level = rest.len() - rest.trim_start_matches('#').len();
    if level == 0 || level > 6 {
        return None;
    }
    let after = rest.trim_start_matches('#');
    if !(after.is_empty() || after.starts_with(' ') || after.starts_with('\t')) {
        return None;
    }
    let mut text = after.trim();
    // A closing sequence of `#`s counts only when separated by whitespace (CommonMark).
    let without_closing = text.trim_end_matches('#');
    if without_closing.is_empty() {
        text = "";
    } else if without_closing.ends_with(' ') || without_closing.ends_with('\t') {
        text = without_closing.trim_end();
    }
    Some((level, text))
}

/// Whether the first byte after at most three leading spaces is `byte` (the cheap test that
/// rules out most lines before the heading and fence rules run).
fn first_after_spaces_is(line: &str, byte: u8) -> bool {
    let bytes = line.as_bytes();
    let start = bytes.iter().take(3).take_while(|&&b| b == b' ').count();
    bytes.get(start) == Some(&byte)
}

/// An open fenced code block: the fence character and its length.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) struct Fence {
    ch: char,
    len: usize,
}

impl Fence {
    /// The line that closes this fence.
    pub(crate) fn closing_line(self) -> String {
        std::iter::repeat(self.ch).take(self.len).collect()
    }

    /// Does `line` close this fence?
    pub(crate) fn is_closed_by(self, line: &str) -> bool {
        let indent = line.len() - line.trim_start_matches(' ').len();
        if indent > 3 {
            return false;
        }
        let rest = line.trim_start_matches(' ');
        let run = rest.len() - rest.trim_start_matches(self.ch).len();
        run >= self.len && rest.trim_start_matches(self.ch).trim().is_empty()
    }
}

/// Does `line` open a fenced code block (```` ``` ```` or `~~~`, at most 3 spaces indent)?
pub(crate) fn fence_opening(line: &str) -> Option<Fence> {
    if !matches!(line.as_bytes().first(), Some(b' ' | b'`' | b'~'))
        || !(first_after_spaces_is(line, b'`') || first_after_spaces_is(line, b'~'))
    {
        return None;
    }
    let indent = line.len() - line.trim_start_matches(' ').len();
    if indent > 3 {
        return None;
    }
    let rest = line.trim_start_matches(' ');
    let ch = rest.chars().next()?;
    if ch != '`' && ch != '~' {
        return None;
    }
    let len = rest.len() - rest.trim_start_matches(ch).len();
    if len < 3 {
        return None;
    }
    // A backtick fence's info string may not contain a backtick (then it is inline code).
    if ch == '`' && rest.trim_start_matches(ch).contains('`') {
        return None;
    }
    Some(Fence { ch, len })
}

/// Tracks fenced code blocks line by line.
#[derive(Debug, Default)]
pub(crate) struct FenceTracker {
    open: Option<Fence>,
}

impl FenceTracker {
    /// Feed one line; returns `true` when the line is inside (or opens or closes) a code block,
    /// i.e. it must not be read as a heading.
    #[inline]
    pub(crate) fn feed(&mut self, line: &str) -> bool {
        // Outside a block only a line starting with a space or a fence character can open one.
        if self.open.is_none() && !matches!(line.as_bytes().first(), Some(b' ' | b'`' | b'~')) {
            return false;
        }
        self.feed_closely(line)
    }

    fn feed_closely(&mut self, line: &str) -> bool {
        match self.open {
            Some(fence) => {
                if fence.is_closed_by(line) {
                    self.open = None;
                }
                true
            }
            None => match fence_opening(line) {
                Some(fence) => {
                    self.open = Some(fence);
                    true
                }
                None => false,
            },
        }
    }

    /// The fence still open, if any.
    pub(crate) fn open(&self) -> Option<Fence> {
        self.open
    }
}

/// The lines of `text`, each **with** its line end. A line ends at `\r\n`, `\n` or a lone `\r`
/// (old Mac files, and what YAML and CommonMark accept too); the last line may have none.
pub(crate) fn lines_with_ends(text: &str) -> impl Iterator<Item = &str> {
    let mut rest = text;
    std::iter::from_fn(move || {
        if rest.is_empty() {
            return None;
        }
        let (content, end) = first_line(rest);
        let (line, after) = rest.split_at(content.len() + end);
        rest = after;
        Some(line)
    })
}

/// The first line of a non-empty `rest`: its content, and the length of its line end (`\r\n`,
/// `\n`, a lone `\r`, or 0 at the end of the text).
fn first_line(rest: &str) -> (&str, usize) {
    let bytes = rest.as_bytes();
    match line_break(bytes) {
        None => (rest, 0),
        Some(i) => {
            let crlf = bytes.get(i) == Some(&b'\r') && bytes.get(i + 1) == Some(&b'\n');
            (rest.get(..i).unwrap_or_default(), if crlf { 2 } else { 1 })
        }
    }
}

/// The first `\n` or `\r` in `bytes`: one pass finds either, where `memchr` would need a pass
/// for each (or a whole-text pass for `\r` first). With wasm `simd128` sixteen bytes at a time
/// (two `i8x16.eq` and a bitmask), then eight at a time ([`line_break_swar`]) for the rest.
#[cfg(all(target_arch = "wasm32", target_feature = "simd128"))]
pub(crate) fn line_break(bytes: &[u8]) -> Option<usize> {
    use core::arch::wasm32::{u8x16_bitmask, u8x16_eq, u8x16_splat, v128, v128_or};
    let (lf, cr) = (u8x16_splat(b'\n'), u8x16_splat(b'\r'));
    // Index loops, not `chunks_exact`: with the core built for size its iterator's `next` stays
    // a call per block (docs/internals/measurements.md).
    let mut at = 0;
    while let Some(chunk) = bytes.get(at..at + 16) {
        // A safe unaligned `v128.load` (the core forbids `unsafe`); the chunk is 16 bytes.
        let Ok(block) = bytemuck::try_pod_read_unaligned::<v128>(chunk) else {
            break;
        };
        let hits = u8x16_bitmask(v128_or(u8x16_eq(block, lf), u8x16_eq(block, cr)));
        if hits != 0 {
            return Some(at + hits.trailing_zeros() as usize);
        }
        at += 16;
    }
    line_break_swar(bytes.get(at..)?).map(|i| at + i)
}

/// [`line_break`] without wasm `simd128`.
#[cfg(not(all(target_arch = "wasm32", target_feature = "simd128")))]
pub(crate) fn line_break(bytes: &[u8]) -> Option<usize> {
    line_break_swar(bytes)
}

/// The first `\n` or `\r` in `bytes`, eight bytes at a time in a `u64`.
fn line_break_swar(bytes: &[u8]) -> Option<usize> {
    const ONES: u64 = 0x0101_0101_0101_0101;
    const HIGHS: u64 = 0x8080_8080_8080_8080;
    let mut at = 0;
    while let Some(word) = bytes
        .get(at..at + 8)
        .and_then(|chunk| <[u8; 8]>::try_from(chunk).ok())
    {
        let word = u64::from_le_bytes(word);
        let (lf, cr) = (word ^ (ONES * 0x0a), word ^ (ONES * 0x0d));
        // The high bit of each zero byte of `lf` or `cr` (a `\n` or `\r`); exact up to and
        // including the first one, so its position is the lowest bit set.
        let hits = ((lf.wrapping_sub(ONES) & !lf) | (cr.wrapping_sub(ONES) & !cr)) & HIGHS;
        if hits != 0 {
            return Some(at + (hits.trailing_zeros() / 8) as usize);
        }
        at += 8;
    }
    while let Some(&b) = bytes.get(at) {
        if b == b'\n' || b == b'\r' {
            return Some(at);
        }
        at += 1;
    }
    None
}

/// A line without its line end (`\r\n`, `\n` or `\r`).
pub(crate) fn without_line_end(line: &str) -> &str {
    line.strip_suffix("\r\n")
        .or_else(|| line.strip_suffix(['\n', '\r']))
        .unwrap_or(line)
}

/// `text` with every line end written as `\n` (borrowed when there is no `\r`).
pub(crate) fn normalize_line_ends(text: &str) -> std::borrow::Cow<'_, str> {
    if !text.contains('\r') {
        return std::borrow::Cow::Borrowed(text);
    }
    std::borrow::Cow::Owned(text.replace("\r\n", "\n").replace('\r', "\n"))
}

/// Lines of `text` without their line ends, with the 1-based line number; `\r\n`, `\n` and a
/// lone `\r` each end a line. A text ending with a line end has a last, empty line (as
/// `str::split` gives it).
pub(crate) fn numbered_lines(text: &str, first_line: usize) -> impl Iterator<Item = (usize, &str)> {
    let trailing_empty = text.is_empty() || text.ends_with(['\n', '\r']);
    let mut rest = text;
    std::iter::from_fn(move || {
        if rest.is_empty() {
            return None;
        }
        let (content, end) = self::first_line(rest);
        rest = rest.get(content.len() + end..).unwrap_or_default();
        Some(content)
    })
    .chain(trailing_empty.then_some(""))
    .enumerate()
    .map(move |(i, line)| (first_line + i, line))
}

#[cfg(test)]
mod tests {
    use super::{line_break, line_break_swar};

    #[test]
    fn line_break_finds_the_first_newline_or_carriage_return() {
        for len in 0..40 {
            for at in 0..=len {
                for (ch, other) in [(b'\n', b'\r'), (b'\r', b'\n')] {
                    let mut bytes = vec![b'a'; len];
                    for (i, b) in bytes.iter_mut().enumerate() {
                        *b = [b'a', 0x0b, 0x8d, 0x0c, 0xff, 0x09][i % 6];
                    }
                    if at < len {
                        bytes[at] = ch;
                        if at + 3 < len {
                            bytes[at + 3] = other;
                        }
                    }
                    let expected = bytes.iter().position(|&b| b == b'\n' || b == b'\r');
                    assert_eq!(line_break(&bytes), expected, "{bytes:?}");
                    assert_eq!(line_break_swar(&bytes), expected, "{bytes:?}");
                }
            }
        }
    }
}
