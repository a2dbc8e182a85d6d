//! The texts a tokenizer counted last, and what is known of their counts.
//!
//! A turn counts the same profile several times (at load, before the rewrite, after it — and the
//! next load reads what was written), and the profile it writes is the one it read with a line or
//! two changed. So a whole text counted before is found again by its length and a hash of its
//! bytes and compared once ([`Recent::answer`]); a text that ends with one counted a moment before
//! is counted from that count ([`Recent::inside`]); and a text that shares most of its bytes with
//! one counted before is counted between the two ends they share ([`Recent::around`]).
//!
//! Only texts of [`Recent::MIN_BYTES`]..=[`Recent::MAX_BYTES`] are kept: lines counted while
//! fitting are cheap and many, and a huge text is not copied. Up to [`Recent::SLOTS`] texts and
//! [`Recent::BUDGET_BYTES`] of them are kept, the oldest dropped first: a server whose users'
//! turns interleave counts a user's whole profile again only when more than about a hundred other
//! users (profiles of ~8 KB, each remembered with the answer it was made of) took turns since. The
//! 2 MiB stay in the wasm heap once filled. Each entry keeps its length and three hashes inline,
//! so a lookup reads the texts it may use and no other (walking 256 heap texts costs a cache miss
//! each).

use super::table::same;

/// An exact count and the text's last piece.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(super) struct Counted {
    pub(super) tokens: usize,
    pub(super) last: Last,
}

/// A counted text's last pre-tokenizer piece: where it starts (a byte offset) and its tokens. The
/// one piece whose extent can change when the text is followed by more text.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub(super) struct Last {
    pub(super) start: usize,
    pub(super) tokens: usize,
}

/// What is known of a remembered text's count.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(super) enum Known {
    /// The exact count, and the text's last piece.
    Exactly(usize, Last),
    /// More than this many tokens.
    Over(usize),
}

/// A line start of a counted text, and the tokens of the pieces before it: a piece boundary
/// `at` of the text whose byte is visible ASCII and follows a line feed ([`is_line_start`]). No
/// piece before it reads past `at`:
///
/// - every piece is made of runs of one class (letters, upper- or lowercase letters, digits,
///   punctuation, whitespace) that stop at the first character outside it, plus at most a
///   contraction's three bytes after a word. The line feed ends every run but whitespace and the
///   trailing `[\r\n/]*` of punctuation; the visible byte at `at` ends a whitespace run, and a
///   trailing run that went on past it would not have ended a piece there;
/// - a contraction starts with `'`, so a word ending at or before the line feed reads at most up
///   to `at`.
///
/// So a text that shares the bytes up to and including `at` with this one has the same pieces
/// before `at` — and `at` is a piece boundary of it too. And a text whose bytes from a piece
/// boundary on are this one's from `at` on has this one's pieces from there (a piece depends on
/// the text after its start only).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(super) struct Mark {
    pub(super) at: u32,
    pub(super) tokens: u32,
}

/// Whether the piece boundary `at` starts a line in the sense of [`Mark`].
#[inline]
pub(super) fn is_line_start(bytes: &[u8], at: usize) -> bool {
    at > 0 && bytes.get(at - 1) == Some(&b'\n') && bytes.get(at).is_some_and(u8::is_ascii_graphic)
}

/// Where a remembered text sits inside a longer one: it starts at `at`, ends at `end`, and the
/// longer text ends there or continues with line feeds only.
#[derive(Debug, Clone, Copy)]
pub(super) struct Inside {
    pub(super) at: usize,
    pub(super) end: usize,
    pub(super) counted: Counted,
}

/// How to count a text around a remembered one it shares both ends with: scanning starts at
/// `start` (a line start of both, or the text's start) with the tokens before it known, and when
/// the scan reaches a piece boundary inside the shared end that is a line start of the remembered
/// text, it jumps to the remembered text's last line start in that end (the pieces between are
/// the remembered text's) and scans the rest.
#[derive(Debug)]
pub(super) struct Around {
    /// Where counting starts in the new text.
    pub(super) start: usize,
    /// The tokens of the pieces before `start`.
    pub(super) tokens: usize,
    /// The new text's line starts up to `start`.
    pub(super) before: Vec<Mark>,
    /// The remembered text's line starts inside the shared end, in order.
    pub(super) after: Vec<Mark>,
    /// Where a byte of the shared end is in the new text minus where it is in the remembered one.
    pub(super) shift: isize,
    /// Where the shared end starts in the new text.
    pub(super) shared_from: usize,
}

/// One remembered text.
#[derive(Debug)]
struct Remembered {
    len: usize,
    hash: u64,
    /// Hashes of the first and of the last [`EDGE`] bytes, and of the last before its final
    /// line feeds.
    head: u64,
    tail: u64,
    tail_trimmed: u64,
    known: Known,
    /// Line starts, when the count was exact and made by scanning.
    marks: Vec<Mark>,
    text: String,
}

/// The bytes at each end of a text that [`Remembered::head`] and [`Remembered::tail`] hash.
const EDGE: usize = 64;

/// The texts counted last, oldest first.
#[derive(Debug, Default)]
pub(super) struct Recent {
    entries: Vec<Remembered>,
    /// The bytes held: the texts and their marks.
    bytes: usize,
}

/// The keys a text is looked up by, computed once per count.
#[derive(Debug, Clone, Copy)]
pub(super) struct Keys {
    hash: u64,
    head: u64,
    tail: u64,
    tail_trimmed: u64,
}

impl Keys {
    pub(super) fn of(text: &str) -> Keys {
        let bytes = text.as_bytes();
        Keys {
            hash: hash(bytes),
            head: hash(bytes.get(..EDGE).unwrap_or(bytes)),
            tail: hash(tail(bytes, EDGE)),
            tail_trimmed: hash(tail(trim_feeds(bytes), EDGE)),
        }
    }
}

impl Recent {
    pub(super) const MIN_BYTES: usize = 512;
    pub(super) const MAX_BYTES: usize = 256 * 1024;
    const SLOTS: usize = 256;
    const BUDGET_BYTES: usize = 2 * 1024 * 1024;

    pub(super) fn kept(text: &str) -> bool {
        (Self::MIN_BYTES..=Self::MAX_BYTES).contains(&text.len())
    }

    /// The answer to `count_up_to(text, limit)`, when what is known decides it.
    pub(super) fn answer(&self, text: &str, keys: Keys, limit: usize) -> Option<Option<usize>> {
        let found = self.entries.iter().find(|r| r.is(text, keys.hash))?;
        match found.known {
            Known::Exactly(n, _) => Some((n <= limit).then_some(n)),
            Known::Over(bound) if bound >= limit => Some(None),
            Known::Over(_) => None,
        }
    }

    /// A remembered text, exactly counted, that `text` ends with — or ends with followed by line
    /// feeds: a profile assembled around a body counted a moment before (the consolidation's
    /// answer is counted against its output budget, then the file made of it against the
    /// profile's; the file's body ends with a line feed the answer may not have). After line feeds
    /// the remembered text must end in a visible ASCII character, so that only its last piece can
    /// change (see `Tokenizer::count_inside`). Newest first: the text counted last is the likely one.
    pub(super) fn inside(&self, text: &str, keys: Keys) -> Option<Inside> {
        let bytes = text.as_bytes();
        let trimmed = text.trim_end_matches('\n').as_bytes();
        let trimmed_tail = (trimmed.len() < bytes.len()).then(|| hash(tail(trimmed, EDGE)));
        self.entries.iter().rev().find_map(|r| {
            let Known::Exactly(tokens, last) = r.known else {
                return None;
            };
            let counted = Counted { tokens, last };
            if r.len < bytes.len() && r.tail == keys.tail && ends_with(bytes, r.text.as_bytes()) {
                return Some(Inside {
                    at: bytes.len() - r.len,
                    end: bytes.len(),
                    counted,
                });
            }
            let visible_end = r.text.as_bytes().last().is_some_and(u8::is_ascii_graphic);
            (trimmed_tail == Some(r.tail) && visible_end && ends_with(trimmed, r.text.as_bytes()))
                .then(|| Inside {
                    at: trimmed.len() - r.len,
                    end: trimmed.len(),
                    counted,
                })
        })
    }

    /// The remembered text that shares the most of its two ends with `text`, when they cover at
    /// least a quarter of it (else the walk in step with its line starts buys little). The shared
    /// beginning is at the remembered text's start, or at one of its first line starts (a body
    /// counted as part of its file, after the frontmatter); the shared end is before both texts'
    /// final line feeds (the file has one its body may lack). Only texts whose first or last
    /// [`EDGE`] bytes equal `text`'s are read, newest first, and at most four times `text`'s
    /// length is compared in all: the work stays linear in the text whatever is remembered.
    pub(super) fn around(&self, text: &str, keys: Keys) -> Option<Around> {
        let bytes = text.as_bytes();
        let trimmed = trim_feeds(bytes);
        let mut budget = bytes.len().saturating_mul(4);
        let mut best: Option<(usize, &Remembered, Mark, usize, usize)> = None;
        for r in self.entries.iter().rev() {
            if !matches!(r.known, Known::Exactly(..))
                || r.marks.is_empty()
                || (r.head != keys.head && r.tail_trimmed != keys.tail_trimmed)
            {
                continue;
            }
            let old = r.text.as_bytes();
            let mut from = Mark { at: 0, tokens: 0 };
            let mut prefix = common_prefix(old, bytes);
            if prefix < EDGE {
                let first = word(bytes, 0);
                let line = r
                    .marks
                    .iter()
                    .take(16)
                    .find(|m| first.is_some() && word(old, m.at as usize) == first);
                if let Some(&line) = line {
                    let shared = common_prefix(old.get(line.at as usize..).unwrap_or(&[]), bytes);
                    if shared > prefix {
                        (from, prefix) = (line, shared);
                    }
                }
            }
            let suffix =
                common_suffix(trim_feeds(old), trimmed).min(trimmed.len().saturating_sub(prefix));
            let shared = prefix + suffix;
            if best.as_ref().map_or(true, |b| shared > b.0) {
                best = Some((shared, r, from, prefix, suffix));
            }
            budget = budget.saturating_sub(shared + 2 * EDGE);
            if budget == 0 || shared + 256 >= bytes.len() {
                break;
            }
        }
        let (shared, r, from, prefix, suffix) = best?;
        if shared * 4 < bytes.len() {
            return None;
        }
        // The shared beginning: the remembered text's line starts after `from` whose byte is
        // shared too; counting starts at the last of them.
        let at_from = from.at as usize;
        let inside: Vec<Mark> = r
            .marks
            .iter()
            .filter(|m| m.at > from.at && (m.at as usize) < at_from + prefix)
            .map(|m| Mark {
                at: m.at - from.at,
                tokens: m.tokens - from.tokens,
            })
            .collect();
        let start = inside.last().map_or(0, |m| m.at as usize);
        let tokens = inside.last().map_or(0, |m| m.tokens as usize);
        // The shared end, before the final line feeds: its line starts whose byte is shared.
        let old_trimmed = trim_feeds(r.text.as_bytes()).len();
        let shared_old = old_trimmed - suffix;
        let after = r
            .marks
            .iter()
            .filter(|m| (m.at as usize) >= shared_old && (m.at as usize) < old_trimmed)
            .copied()
            .collect();
        Some(Around {
            start,
            tokens,
            before: inside,
            after,
            shift: trimmed.len() as isize - old_trimmed as isize,
            shared_from: trimmed.len() - suffix,
        })
    }

    /// Remember what was learned of `text`'s count (and its line starts, for an exact count made
    /// by scanning).
    pub(super) fn remember(&mut self, text: &str, keys: Keys, known: Known, marks: Vec<Mark>) {
        if let Some(entry) = self.entries.iter_mut().find(|r| r.is(text, keys.hash)) {
            entry.known = known;
            if entry.marks.is_empty() {
                self.bytes += marks.len() * std::mem::size_of::<Mark>();
                entry.marks = marks;
            }
            return;
        }
        let size = text.len() + marks.len() * std::mem::size_of::<Mark>();
        while !self.entries.is_empty()
            && (self.entries.len() >= Self::SLOTS || self.bytes + size > Self::BUDGET_BYTES)
        {
            let oldest = self.entries.remove(0);
            self.bytes = self
                .bytes
                .saturating_sub(oldest.len + oldest.marks.len() * std::mem::size_of::<Mark>());
        }
        self.bytes += size;
        self.entries.push(Remembered {
            len: text.len(),
            hash: keys.hash,
            head: keys.head,
            tail: keys.tail,
            tail_trimmed: keys.tail_trimmed,
            known,
            marks,
            text: text.to_string(),
        });
    }
}

impl Remembered {
    fn is(&self, text: &str, hash: u64) -> bool {
        self.hash == hash && self.len == text.len() && same(self.text.as_bytes(), text.as_bytes())
    }
}

/// `bytes` without its final line feeds.
fn trim_feeds(bytes: &[u8]) -> &[u8] {
    let end = bytes.iter().rposition(|&b| b != b'\n').map_or(0, |i| i + 1);
    bytes.get(..end).unwrap_or(bytes)
}

/// The last `n` bytes of `bytes` (all of them when shorter).
fn tail(bytes: &[u8], n: usize) -> &[u8] {
    bytes.get(bytes.len().saturating_sub(n)..).unwrap_or(bytes)
}

/// Whether `text` ends with `end`, compared eight bytes at a time.
fn ends_with(text: &[u8], end: &[u8]) -> bool {
    text.len() >= end.len() && same(tail(text, end.len()), end)
}

/// A hash of bytes, eight at a time (the remembered texts' keys).
fn hash(bytes: &[u8]) -> u64 {
    let words = bytes.chunks_exact(8);
    let rest = words.remainder();
    let step = |h: u64, w: u64| (h.rotate_left(5) ^ w).wrapping_mul(0x517c_c1b7_2722_0a95);
    let h = words.fold(bytes.len() as u64, |h, w| {
        step(
            h,
            w.first_chunk::<8>().map_or(0, |w| u64::from_le_bytes(*w)),
        )
    });
    rest.iter().fold(h, |h, &b| step(h, u64::from(b)))
}

fn word(bytes: &[u8], at: usize) -> Option<u64> {
    bytes
        .get(at..at + 8)
        .and_then(<[u8]>::first_chunk::<8>)
        .map(|w| u64::from_le_bytes(*w))
}

/// How many bytes `a` and `b` share at their start, eight at a time.
fn common_prefix(a: &[u8], b: &[u8]) -> usize {
    let mut i = 0;
    while let (Some(x), Some(y)) = (word(a, i), word(b, i)) {
        if x != y {
            return i + ((x ^ y).trailing_zeros() / 8) as usize;
        }
        i += 8;
    }
    i + a
        .iter()
        .skip(i)
        .zip(b.iter().skip(i))
        .take_while(|(x, y)| x == y)
        .count()
}

/// How many bytes `a` and `b` share at their end, eight at a time.
fn common_suffix(a: &[u8], b: &[u8]) -> usize {
    let mut n = 0;
    while n + 8 <= a.len().min(b.len()) {
        let (Some(x), Some(y)) = (word(a, a.len() - n - 8), word(b, b.len() - n - 8)) else {
            break;
        };
        if x != y {
            return n + ((x ^ y).leading_zeros() / 8) as usize;
        }
        n += 8;
    }
    n + a
        .iter()
        .rev()
        .skip(n)
        .zip(b.iter().rev().skip(n))
        .take_while(|(x, y)| x == y)
        .count()
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;

    proptest! {
        /// The word-at-a-time prefix and suffix equal the byte-by-byte ones.
        #[test]
        fn common_ends_are_those_byte_by_byte(a in proptest::collection::vec(0u8..4, 0..40), b in proptest::collection::vec(0u8..4, 0..40)) {
            let prefix = a.iter().zip(&b).take_while(|(x, y)| x == y).count();
            let suffix = a.iter().rev().zip(b.iter().rev()).take_while(|(x, y)| x == y).count();
            prop_assert_eq!(common_prefix(&a, &b), prefix);
            prop_assert_eq!(common_suffix(&a, &b), suffix);
        }
    }
}
