//! Exact token counting (behaviour §1.4): `o200k_base` and `cl100k_base`.
//!
//! The rank tables are a separately loadable binary (built by `scripts/tokens/build-tables.mjs`)
//! so the core stays small; [`Tokenizer::from_table`] uses them in place. Pre-tokenization is a
//! hand-written scanner per pattern (no regex engine in the wasm) and the result is checked
//! token for token against js-tiktoken by `tests/tokens_exactness.rs`. Special-token strings such
//! as `<|endoftext|>` are plain text here: a profile never contains control tokens.
//!
//! Counting is linear in the text: the pre-tokenizers scan once, whole-token pieces are one
//! lookup, and byte-pair merging takes O(n) steps per piece — short pieces (< 64 bytes) by
//! rescanning, long ones (a run of one character, base64, long space runs) through a bucket
//! queue by rank (`bpe::RankQueue`) instead of a binary heap. [`Tokenizer::work_steps`] counts
//! the steps; `tests/tokens_linear.rs` asserts steps per byte stay flat from 4 KiB to 1 MiB.
//!
//! Its own crate, `memcore-tokens` (`tokens/Cargo.toml`), so that it keeps opt-level "s" while
//! the rest of the core is built for size; memcore re-exports it as `memcore::profile::tokens`.
#![forbid(unsafe_code)]
// As in the core (src/lib.rs): the library never unwraps, expects, panics or indexes.
#![cfg_attr(
    not(test),
    deny(
        clippy::unwrap_used,
        clippy::expect_used,
        clippy::panic,
        clippy::indexing_slicing
    )
)]
#![warn(missing_docs)]

mod bpe;
mod pieces;
mod recent;
mod table;
mod unicode;
#[rustfmt::skip]
mod unicode_table;

/// Why a name or a table file was refused: memcore reports it as `E_ARGUMENT` with this message.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Error(pub String);

impl std::fmt::Display for Error {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(&self.0)
    }
}

/// A tokenizer result.
pub type Result<T> = std::result::Result<T, Error>;

use recent::{Around, Counted, Inside, Keys, Known, Last, Mark, Recent};
use std::cell::RefCell;

/// A built-in BPE encoding.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Default)]
pub enum Encoding {
    /// `o200k_base` (GPT-4o family), the default.
    #[default]
    O200kBase,
    /// `cl100k_base` (GPT-4, GPT-3.5).
    Cl100kBase,
}

impl Encoding {
    /// Parses a tiktoken encoding name, e.g. `"o200k_base"`.
    pub fn parse(name: &str) -> Result<Encoding> {
        match name {
            "o200k_base" => Ok(Encoding::O200kBase),
            "cl100k_base" => Ok(Encoding::Cl100kBase),
            _ => Err(Error(format!(
                "unknown encoding `{name}`; expected `o200k_base` or `cl100k_base`"
            ))),
        }
    }

    /// The tiktoken name, e.g. `"o200k_base"`; also the table file stem.
    pub fn name(self) -> &'static str {
        match self {
            Encoding::O200kBase => "o200k_base",
            Encoding::Cl100kBase => "cl100k_base",
        }
    }
}

/// An exact tokenizer over a loaded rank table.
#[derive(Debug)]
pub struct Tokenizer {
    table: table::RankTable,
    // Merge scratch reused across calls: counting is hot (fitting counts line by line) and the
    // crate is single-threaded in wasm; `RefCell` keeps `count(&self)` allocation-free.
    scratch: RefCell<bpe::Scratch>,
    recent: RefCell<Recent>,
}

impl Tokenizer {
    /// Loads a table file produced by `scripts/tokens/build-tables.mjs` (`<encoding>.bin`).
    /// Constant-time validation; a bad, truncated or foreign file is an `E_ARGUMENT` error.
    pub fn from_table(bytes: Vec<u8>) -> Result<Tokenizer> {
        Ok(Tokenizer {
            table: table::RankTable::parse(bytes)?,
            scratch: RefCell::default(),
            recent: RefCell::default(),
        })
    }

    /// The encoding of the loaded table.
    pub fn encoding(&self) -> Encoding {
        self.table.encoding()
    }

    /// The token ids of `text`, as js-tiktoken's `encode(text, [], [])` gives them.
    pub fn encode(&self, text: &str) -> Vec<u32> {
        let mut out = Vec::with_capacity(text.len() / 3);
        let mut scratch = bpe::Scratch::default();
        for piece in pieces::Pieces::new(text, self.encoding()) {
            bpe::encode_piece(&self.table, piece.as_bytes(), &mut scratch, &mut out);
        }
        out
    }

    /// The number of tokens of `text`; equal to `encode(text).len()`, without building the ids.
    pub fn count(&self, text: &str) -> usize {
        self.count_up_to(text, usize::MAX).unwrap_or(usize::MAX)
    }

    /// The count of `text` when it is at most `limit`, else `None` — with work bounded by the
    /// limit, not by the text: a text longer than `limit × 128` bytes cannot fit and is not read,
    /// and counting stops at the first piece whose fewest possible tokens
    /// ([`table::RankTable::min_tokens`]) would pass the limit, before merging it.
    pub fn count_up_to(&self, text: &str, limit: usize) -> Option<usize> {
        if text.len() / self.table.max_token_len() > limit {
            return None;
        }
        if !Recent::kept(text) {
            return self.count_fresh(text, limit).map(|c| c.tokens);
        }
        let keys = Keys::of(text);
        if let Some(answer) = self
            .recent
            .try_borrow()
            .ok()
            .and_then(|r| r.answer(text, keys, limit))
        {
            return answer;
        }
        let inside = self
            .recent
            .try_borrow()
            .ok()
            .and_then(|r| r.inside(text, keys));
        let mut marks = Vec::new();
        let counted = match inside.and_then(|inside| self.count_inside(text, inside, limit)) {
            Some(counted) => counted,
            None => {
                let around = self
                    .recent
                    .try_borrow()
                    .ok()
                    .and_then(|r| r.around(text, keys));
                self.count_between(text, around.as_ref(), limit, Some(&mut marks))
            }
        };
        if let Ok(mut recent) = self.recent.try_borrow_mut() {
            let known = counted.map_or(Known::Over(limit), |c| Known::Exactly(c.tokens, c.last));
            if counted.is_none() {
                marks.clear();
            }
            recent.remember(text, keys, known, marks);
        }
        counted.map(|c| c.tokens)
    }

    /// The count of `text` around a remembered text inside it ([`Recent::inside`]): the pieces
    /// before it are counted, and when one ends exactly where it starts, its count is taken —
    /// whole when `text` ends with it (the pre-tokenizers only look ahead, so the pieces from a
    /// piece boundary on are those of the remembered text alone), and but for its last piece when
    /// line feeds follow it. Then that last piece and the line feeds are counted again: the
    /// remembered text ends in a visible ASCII character, so only its last piece can reach past
    /// its end (a punctuation piece takes the line feeds, `\s+(?!\S)` sees them); every earlier
    /// piece ends, and looks ahead at most one character, inside it — except the greedy run of
    /// `[upperish]*` that gives characters back, which treats a line feed as it treats the end.
    /// `None` when a piece spans the start — then the caller counts.
    fn count_inside(&self, text: &str, inside: Inside, limit: usize) -> Option<Option<Counted>> {
        let Inside { at, end, counted } = inside;
        let mut scratch = self.scratch.try_borrow_mut().ok()?;
        let mut total = 0usize;
        let mut reached = 0usize;
        let origin = text.as_ptr() as usize;
        for piece in pieces::Pieces::new(text, self.encoding()) {
            if reached >= at {
                break;
            }
            reached = piece.as_ptr() as usize - origin + piece.len();
            if reached > at {
                // A piece spans the start: give up before merging it, so the count the caller
                // falls back to is the only one (the work stays one count of `text`).
                return None;
            }
            scratch.add_steps(piece.len());
            total = total.saturating_add(bpe::count_piece(
                &self.table,
                piece.as_bytes(),
                &mut scratch,
            ));
            if total > limit {
                // These are pieces of `text` itself, so it is over already: the work stays
                // bounded by the limit, as a fresh count's does.
                return Some(None);
            }
        }
        if reached != at {
            return None;
        }
        if end == text.len() {
            let total = total.saturating_add(counted.tokens);
            let last = Last {
                start: at + counted.last.start,
                tokens: counted.last.tokens,
            };
            return Some((total <= limit).then_some(Counted {
                tokens: total,
                last,
            }));
        }
        // Line feeds follow: all but the last piece, then the rest of `text` from there (a
        // piece boundary: what follows it is counted as a text of its own).
        let from = at + counted.last.start;
        let total = total.saturating_add(counted.tokens.saturating_sub(counted.last.tokens));
        let Some(left) = limit.checked_sub(total) else {
            return Some(None);
        };
        drop(scratch);
        let rest = self.count_fresh(text.get(from..)?, left);
        Some(rest.map(|rest| Counted {
            tokens: total + rest.tokens,
            last: Last {
                start: from + rest.last.start,
                tokens: rest.last.tokens,
            },
        }))
    }

    fn count_fresh(&self, text: &str, limit: usize) -> Option<Counted> {
        self.count_between(text, None, limit, None)
    }

    /// Counts `text` by scanning its pieces — from the start, or `around` a remembered text it
    /// shares both ends with: from a line start inside the shared beginning, jumping from the
    /// first piece boundary inside the shared end that is a line start of the remembered text to
    /// the last one (see [`recent::Mark`] for why the pieces skipped are the remembered text's).
    /// `marks` receives the text's line starts, for a later count around it.
    fn count_between(
        &self,
        text: &str,
        around: Option<&Around>,
        limit: usize,
        mut marks: Option<&mut Vec<Mark>>,
    ) -> Option<Counted> {
        let mut fresh = bpe::Scratch::default();
        let mut borrowed = self.scratch.try_borrow_mut();
        let scratch = match borrowed.as_deref_mut() {
            Ok(scratch) => scratch,
            Err(_) => &mut fresh,
        };
        let bytes = text.as_bytes();
        let (start, mut total) = around.map_or((0, 0), |a| (a.start, a.tokens));
        if total > limit {
            return None;
        }
        if let (Some(marks), Some(around)) = (marks.as_deref_mut(), around) {
            marks.extend_from_slice(&around.before);
        }
        // The remembered text's line starts inside the shared end, walked in step with the scan.
        let mut after = around.map_or(&[][..], |a| &a.after[..]);
        let mut last = Last::default();
        let origin = text.as_ptr() as usize;
        let mut pieces = pieces::Pieces::new(text, self.encoding()).from(start);
        while let Some(piece) = pieces.next() {
            let piece_bytes = piece.as_bytes();
            scratch.add_steps(piece_bytes.len());
            if piece_bytes.len() > 64
                && total.saturating_add(self.table.min_tokens(piece_bytes)) > limit
            {
                return None;
            }
            let tokens = bpe::count_piece(&self.table, piece_bytes, scratch);
            let at = piece.as_ptr() as usize - origin;
            last = Last { start: at, tokens };
            total = total.saturating_add(tokens);
            if total > limit {
                return None;
            }
            let end = at + piece_bytes.len();
            let Ok(end32) = u32::try_from(end) else {
                continue;
            };
            if let Some(marks) = marks.as_deref_mut() {
                if recent::is_line_start(bytes, end) {
                    marks.push(Mark {
                        at: end32,
                        tokens: u32::try_from(total).unwrap_or(u32::MAX),
                    });
                }
            }
            let Some(around) = around else {
                continue;
            };
            if after.is_empty() || end < around.shared_from {
                continue;
            }
            // `end` in the remembered text; the scan is past every mark before it.
            let old_at = end as isize - around.shift;
            while after.first().is_some_and(|m| (m.at as isize) < old_at) {
                after = after.get(1..).unwrap_or(&[]);
            }
            let (Some(&from), Some(&to)) = (after.first(), after.last()) else {
                continue;
            };
            if from.at as isize != old_at {
                continue;
            }
            // The pieces up to the remembered text's last line start in the shared end are its.
            let here = total;
            total = total.saturating_add(to.tokens.saturating_sub(from.tokens) as usize);
            if total > limit {
                return None;
            }
            if let Some(marks) = marks.as_deref_mut() {
                marks.extend(after.get(1..).unwrap_or(&[]).iter().map(|m| {
                    Mark {
                        at: (m.at as isize + around.shift) as u32,
                        tokens: u32::try_from(here + m.tokens.saturating_sub(from.tokens) as usize)
                            .unwrap_or(u32::MAX),
                    }
                }));
            }
            pieces = pieces::Pieces::new(text, self.encoding())
                .from((to.at as isize + around.shift) as usize);
            after = &[];
        }
        Some(Counted {
            tokens: total,
            last,
        })
    }

    /// The work this tokenizer's counts have done so far, in steps: one per byte of every piece
    /// pre-tokenized, plus the merge's steps (see the module docs). A counter for tests that
    /// assert counting is linear in the text, and bounded by the limit for
    /// [`Tokenizer::count_up_to`], without measuring time. Not a stable unit.
    ///
    /// ```
    /// # fn demo(tokenizer: &memcore_tokens::Tokenizer) {
    /// let before = tokenizer.work_steps();
    /// tokenizer.count(&"x".repeat(1 << 16));
    /// assert!(tokenizer.work_steps() - before < 32 << 16);
    /// # }
    /// ```
    pub fn work_steps(&self) -> u64 {
        self.scratch.try_borrow().map_or(0, |s| s.steps())
    }

    /// The longest token in UTF-8 bytes.
    pub fn max_token_bytes(&self) -> usize {
        self.table.max_token_len()
    }

    /// The pieces the pre-tokenizer splits `text` into (for diagnosing a mismatch).
    pub fn pieces<'a>(&self, text: &'a str) -> Vec<&'a str> {
        pieces::Pieces::new(text, self.encoding()).collect()
    }
}
