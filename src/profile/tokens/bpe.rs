//! tiktoken's byte-pair merge over one piece: repeatedly merge the adjacent pair whose
//! concatenation has the lowest rank (leftmost on ties) until no pair is a token.

use super::table::{hash_key, RankTable};
use std::cmp::Reverse;
use std::collections::BinaryHeap;

/// Reusable scratch space so encoding a text allocates once, not once per piece.
#[derive(Debug, Default)]
pub(super) struct Scratch {
    /// `(start byte, rank of the pair starting here)`; the last entry marks the piece end.
    parts: Vec<(usize, u32)>,
    /// Token counts of multi-token pieces already merged (for `count_piece`).
    cache: PieceCache,
    /// Long pieces: `(next part start, rank of the pair starting here)` per byte position, and
    /// the previous part's start.
    links: Vec<(u32, u32)>,
    prev: Vec<u32>,
    /// Long pieces: the pending pairs, by rank then start.
    queue: RankQueue,
    /// Merge steps taken so far (see [`Scratch::steps`]).
    steps: u64,
}

impl Scratch {
    /// The work done by merges so far, in steps: one per pair a short piece's scan looks at,
    /// and for a long piece one per pair queued, taken, sorted or skipped, and per bitmap word
    /// looked at. Every step is O(1), so this is the cost model the linearity tests assert on.
    pub(super) fn steps(&self) -> u64 {
        self.steps
    }

    /// Adds `n` steps of work done outside the merge (pre-tokenizing `n` bytes).
    pub(super) fn add_steps(&mut self, n: usize) {
        self.steps = self.steps.saturating_add(n as u64);
    }
}

/// Pieces this long or longer merge through the [`RankQueue`] in O(n); the rescanning loop is
/// O(n²) but has no setup, and is faster on the short pieces that are nearly all of them.
const QUEUE_MERGE_MIN_LEN: usize = 64;

/// Slots of the piece cache. Pieces that are whole tokens never enter it (one index probe
/// answers them), so it holds only the multi-token pieces, which repeat heavily in a profile
/// (dates, names, compound words) but number in the hundreds: 4096 slots (32 KiB) at load
/// ≤ 0.5 hold a whole profile and stay in cache; a bigger text just resets it now and then.
const CACHE_SLOTS: usize = 4096;
/// Entries before a reset (load factor 0.5 keeps linear-probe runs short).
const CACHE_MAX_ENTRIES: usize = CACHE_SLOTS / 2;
/// Longer pieces (long space runs, base64) rarely repeat and would crowd the key bytes.
const CACHE_MAX_PIECE_LEN: usize = 64;

/// Open-addressing map from piece bytes to token count, keyed by the full bytes (so a hash
/// collision can never change a count) and reset wholesale when full instead of evicting: a
/// reset costs one 32 KiB fill, an LRU would cost bookkeeping on every hit.
#[derive(Debug, Default)]
struct PieceCache {
    /// `count (16 bits) | len (16 bits) << 16 | key offset << 32`; 0 is empty (len ≥ 2).
    slots: Vec<u64>,
    /// The key bytes of all entries, back to back.
    keys: Vec<u8>,
    entries: usize,
}

impl PieceCache {
    fn start(hash: u64) -> usize {
        // Top bits: the multiplicative hash mixes upward.
        (hash >> (64 - CACHE_SLOTS.trailing_zeros())) as usize
    }

    fn get(&self, piece: &[u8], hash: u64) -> Option<usize> {
        let mut at = Self::start(hash);
        for _ in 0..self.slots.len() {
            let slot = *self.slots.get(at)?;
            if slot == 0 {
                return None;
            }
            let len = (slot >> 16 & 0xffff) as usize;
            let offset = (slot >> 32) as usize;
            if len == piece.len() && self.keys.get(offset..offset + len) == Some(piece) {
                return Some((slot & 0xffff) as usize);
            }
            at = (at + 1) % CACHE_SLOTS;
        }
        None
    }

    fn insert(&mut self, piece: &[u8], hash: u64, count: usize) {
        if !(2..=CACHE_MAX_PIECE_LEN).contains(&piece.len()) || count > 0xffff {
            return;
        }
        if self.entries >= CACHE_MAX_ENTRIES || self.slots.len() != CACHE_SLOTS {
            self.slots.clear();
            self.slots.resize(CACHE_SLOTS, 0);
            self.keys.clear();
            self.entries = 0;
        }
        let slot = count as u64 | (piece.len() as u64) << 16 | (self.keys.len() as u64) << 32;
        let mut at = Self::start(hash);
        for _ in 0..CACHE_SLOTS {
            match self.slots.get_mut(at) {
                Some(free) if *free == 0 => {
                    *free = slot;
                    self.keys.extend_from_slice(piece);
                    self.entries += 1;
                    return;
                }
                _ => at = (at + 1) % CACHE_SLOTS,
            }
        }
    }
}

const NONE: u32 = u32::MAX;

/// Merges `piece` and leaves the part boundaries in `scratch.parts`; returns the number of tokens.
fn merge(table: &RankTable, piece: &[u8], scratch: &mut Scratch) -> usize {
    if piece.len() >= QUEUE_MERGE_MIN_LEN {
        if let Some(count) = merge_with_queue(table, piece, scratch) {
            return count;
        }
    }
    merge_by_scanning(table, piece, scratch)
}

/// The same merges in the same order as [`merge_by_scanning`] (lowest rank, then leftmost), in
/// O(n) steps: the parts are a linked list over byte positions (32-bit words, so a long piece
/// stays cache-friendly) and the pending pairs wait in a [`RankQueue`]. Entries made stale by a
/// merge are skipped when taken, because a pair's rank changes whenever its bytes do (ranks are
/// unique per byte string). `None` on an internal inconsistency or a piece of 4 GiB or more
/// (then the caller falls back to the scanning merge).
fn merge_with_queue(table: &RankTable, piece: &[u8], scratch: &mut Scratch) -> Option<usize> {
    let n = u32::try_from(piece.len()).ok()?;
    let Scratch {
        parts,
        links,
        prev,
        queue,
        steps,
        ..
    } = scratch;
    queue.reset(table.rank_bound());
    links.clear();
    prev.clear();
    for i in 0..n {
        let at = i as usize;
        let rank = piece
            .get(at..at + 2)
            .and_then(|pair| table.rank(pair))
            .unwrap_or(NONE);
        links.push((i + 1, rank));
        prev.push(i.wrapping_sub(1));
        if rank != NONE {
            queue.push(rank, i, steps)?;
        }
    }
    // The rank of the pair starting at part `i`, given the links.
    let pair_rank = |links: &[(u32, u32)], i: u32| -> Option<u32> {
        let next = links.get(i as usize)?.0;
        let end = match links.get(next as usize) {
            Some(&(end, _)) => end,
            None => return Some(NONE),
        };
        Some(
            piece
                .get(i as usize..end as usize)
                .and_then(|b| table.rank(b))
                .unwrap_or(NONE),
        )
    };
    let mut count = piece.len();
    while let Some(entry) = queue.pop(steps) {
        let (rank, i) = ((entry >> 32) as u32, entry as u32);
        if links.get(i as usize)?.1 != rank {
            continue;
        }
        // Part i absorbs the next part j; only the pairs starting at i and before i change.
        let j = links.get(i as usize)?.0;
        let after = links.get(j as usize)?.0;
        if let Some(link) = links.get_mut(j as usize) {
            link.1 = NONE;
        }
        if let Some(p) = prev.get_mut(after as usize) {
            *p = i;
        }
        links.get_mut(i as usize)?.0 = after;
        count -= 1;
        let right = pair_rank(links, i)?;
        links.get_mut(i as usize)?.1 = right;
        if right != NONE {
            queue.push(right, i, steps)?;
        }
        if i > 0 {
            let p = *prev.get(i as usize)?;
            let left = pair_rank(links, p)?;
            links.get_mut(p as usize)?.1 = left;
            if left != NONE {
                queue.push(left, p, steps)?;
            }
        }
    }
    parts.clear();
    let mut at = 0;
    while at < n {
        parts.push((at as usize, NONE));
        at = links.get(at as usize)?.0;
    }
    parts.push((piece.len(), NONE));
    Some(count)
}

/// A queue key ordered by rank, then by start: `rank << 32 | start`.
fn key(rank: u32, start: u32) -> u64 {
    u64::from(rank) << 32 | u64::from(start)
}

/// The pending pairs of a long piece, taken in the plain algorithm's order (lowest rank, then
/// leftmost) in O(1) amortised steps per pair, where a binary heap costs O(log n):
///
/// - a bucket per rank (a linked list of starts in `nodes`, its head in `heads`) and a two-level
///   bitmap of the non-empty buckets, so finding the next rank costs a few word scans — and the
///   ranks taken only ever increase, so all the scans of one piece cost at most one pass over
///   the bitmap's summary (a few dozen words) beyond one word per rank taken;
/// - the bucket of the next rank is taken out whole and sorted by start (`current`). A merge
///   makes a longer token, whose pairs have other ranks, so a bucket is complete when its rank
///   comes up; its starts arrive as a few ascending runs (one per lower rank whose merges, taken
///   left to right, added to it), which the run-adaptive sort merges in near-linear time;
/// - a pair whose rank is at or below the rank being taken appears only when a merged token and
///   its neighbour form a token of lower rank than the merged one (rare in trained tables): it
///   waits in the small heap `late`, and the smaller of the two heads is taken, so the order
///   stays exact.
#[derive(Debug, Default)]
struct RankQueue {
    heads: Vec<u32>,
    nodes: Vec<(u32, u32)>,
    /// Bit `r` set when the bucket of rank `r` is not empty.
    words: Vec<u64>,
    /// Bit `w` set when `words[w]` is not zero.
    summary: Vec<u64>,
    /// The starts of the rank being taken, ascending, and how many have been taken.
    current: Vec<u32>,
    at: usize,
    rank: Option<u32>,
    late: BinaryHeap<Reverse<u64>>,
    /// Set while a merge runs: a merge abandoned half way leaves buckets behind to clear.
    dirty: bool,
    #[cfg(test)]
    late_pushes: u64,
}

impl RankQueue {
    /// Empties the queue for ranks below `bound` (the per-rank arrays are kept between pieces:
    /// a drained queue has every bucket empty already).
    fn reset(&mut self, bound: usize) {
        if self.heads.len() != bound || self.dirty {
            self.heads.clear();
            self.heads.resize(bound, NONE);
            let words = bound.div_ceil(64);
            self.words.clear();
            self.words.resize(words, 0);
            self.summary.clear();
            self.summary.resize(words.div_ceil(64), 0);
        }
        self.nodes.clear();
        self.current.clear();
        self.at = 0;
        self.rank = None;
        self.late.clear();
        self.dirty = true;
    }

    fn push(&mut self, rank: u32, start: u32, steps: &mut u64) -> Option<()> {
        *steps += 1;
        if self.rank.is_some_and(|taking| rank <= taking) {
            *steps += u64::from(self.late.len().max(1).ilog2());
            self.late.push(Reverse(key(rank, start)));
            #[cfg(test)]
            {
                self.late_pushes += 1;
            }
            return Some(());
        }
        let head = self.heads.get_mut(rank as usize)?;
        let node = u32::try_from(self.nodes.len()).ok()?;
        self.nodes.push((start, *head));
        *head = node;
        let word = rank as usize / 64;
        *self.words.get_mut(word)? |= 1 << (rank % 64);
        *self.summary.get_mut(word / 64)? |= 1 << (word % 64);
        Some(())
    }

    /// The next key, or `None` when the queue is empty.
    fn pop(&mut self, steps: &mut u64) -> Option<u64> {
        loop {
            *steps += 1;
            let head = self
                .rank
                .and_then(|rank| self.current.get(self.at).map(|&start| key(rank, start)));
            let late = self.late.peek().map(|&Reverse(k)| k);
            match (head, late) {
                (Some(head), Some(late)) if late < head => return self.pop_late(steps),
                (Some(head), _) => {
                    self.at += 1;
                    return Some(head);
                }
                (None, Some(_)) => return self.pop_late(steps),
                (None, None) => {
                    let from = self.rank.map_or(0, |rank| rank as usize + 1);
                    let Some(rank) = self.next_rank(from, steps) else {
                        self.dirty = false;
                        return None;
                    };
                    self.take(rank, steps)?;
                }
            }
        }
    }

    fn pop_late(&mut self, steps: &mut u64) -> Option<u64> {
        *steps += u64::from(self.late.len().max(1).ilog2());
        self.late.pop().map(|Reverse(k)| k)
    }

    /// The lowest rank `>= from` whose bucket is not empty.
    fn next_rank(&self, from: usize, steps: &mut u64) -> Option<u32> {
        let mut word_at = from / 64;
        let mut word = self.words.get(word_at)? & (u64::MAX << (from % 64));
        loop {
            *steps += 1;
            if word != 0 {
                return u32::try_from(word_at * 64 + word.trailing_zeros() as usize).ok();
            }
            // The next non-empty word, through the summary.
            let next = word_at + 1;
            let mut summary_at = next / 64;
            let mut bits = self.summary.get(summary_at)? & (u64::MAX << (next % 64));
            while bits == 0 {
                *steps += 1;
                summary_at += 1;
                bits = *self.summary.get(summary_at)?;
            }
            word_at = summary_at * 64 + bits.trailing_zeros() as usize;
            word = *self.words.get(word_at)?;
        }
    }

    /// Takes the bucket of `rank` out as the sorted `current`.
    fn take(&mut self, rank: u32, steps: &mut u64) -> Option<()> {
        self.current.clear();
        self.at = 0;
        self.rank = Some(rank);
        let mut node = std::mem::replace(self.heads.get_mut(rank as usize)?, NONE);
        while let Some(&(start, next)) = self.nodes.get(node as usize) {
            *steps += 1;
            self.current.push(start);
            node = next;
        }
        let word_at = rank as usize / 64;
        let word = self.words.get_mut(word_at)?;
        *word &= !(1 << (rank % 64));
        if *word == 0 {
            *self.summary.get_mut(word_at / 64)? &= !(1 << (word_at % 64));
        }
        // The list is newest first.
        self.current.reverse();
        if self
            .current
            .windows(2)
            .any(|pair| matches!(pair, [a, b] if a > b))
        {
            let mut compared = 0u64;
            self.current.sort_by(|a, b| {
                compared += 1;
                a.cmp(b)
            });
            *steps += compared;
        }
        Some(())
    }
}

/// Rescans all pairs for the lowest rank after every merge: quadratic, but with no setup.
fn merge_by_scanning(table: &RankTable, piece: &[u8], scratch: &mut Scratch) -> usize {
    let parts = &mut scratch.parts;
    parts.clear();
    parts.extend((0..=piece.len()).map(|i| (i, NONE)));
    let pair_rank = |parts: &[(usize, u32)], i: usize| -> u32 {
        match (parts.get(i), parts.get(i + 2)) {
            (Some(&(start, _)), Some(&(end, _))) => piece
                .get(start..end)
                .and_then(|bytes| table.rank(bytes))
                .unwrap_or(NONE),
            _ => NONE,
        }
    };
    for i in 0..piece.len().saturating_sub(1) {
        let rank = pair_rank(parts, i);
        if let Some(part) = parts.get_mut(i) {
            part.1 = rank;
        }
    }
    while parts.len() > 2 {
        scratch.steps += parts.len() as u64;
        let mut best = (NONE, 0);
        for (i, &(_, rank)) in parts.iter().enumerate().take(parts.len() - 1) {
            if rank < best.0 {
                best = (rank, i);
            }
        }
        let (rank, i) = best;
        if rank == NONE {
            break;
        }
        // Part i absorbs part i+1; only the pairs touching it change.
        parts.remove(i + 1);
        let right = pair_rank(parts, i);
        if let Some(part) = parts.get_mut(i) {
            part.1 = right;
        }
        if i > 0 {
            let left = pair_rank(parts, i - 1);
            if let Some(part) = parts.get_mut(i - 1) {
                part.1 = left;
            }
        }
    }
    parts.len().saturating_sub(1)
}

/// Appends the ranks of `piece` to `out`.
pub(super) fn encode_piece(
    table: &RankTable,
    piece: &[u8],
    scratch: &mut Scratch,
    out: &mut Vec<u32>,
) {
    if let Some(rank) = table.rank(piece) {
        out.push(rank);
        return;
    }
    merge(table, piece, scratch);
    for pair in scratch.parts.windows(2) {
        if let [(start, _), (end, _)] = pair {
            // Every part is a single byte or a merge that was found, so the lookup succeeds.
            if let Some(rank) = piece.get(*start..*end).and_then(|bytes| table.rank(bytes)) {
                out.push(rank);
            }
        }
    }
}

/// The number of tokens of `piece`, without materialising them. One hash serves both the
/// whole-piece lookup and the cache of merged pieces.
pub(super) fn count_piece(table: &RankTable, piece: &[u8], scratch: &mut Scratch) -> usize {
    if piece.is_empty() {
        return 0;
    }
    let hash = hash_key(piece);
    if table.rank_hashed(piece, hash).is_some() {
        return 1;
    }
    if let Some(count) = scratch.cache.get(piece, hash) {
        return count;
    }
    let count = merge(table, piece, scratch);
    scratch.cache.insert(piece, hash, count);
    count
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;

    fn table(name: &str) -> RankTable {
        let path = format!(
            "{}/../tests/data/tokenizer/{name}.bin.z",
            env!("CARGO_MANIFEST_DIR")
        );
        let packed = std::fs::read(path).expect("the vendored table");
        let bytes = miniz_oxide::inflate::decompress_to_vec_zlib(&packed).expect("inflates");
        RankTable::parse(bytes).expect("loads")
    }

    thread_local! {
        static TABLES: [RankTable; 2] = [table("o200k_base"), table("cl100k_base")];
    }

    /// The queue merge's parts equal the scanning merge's, part for part.
    fn same_merge(piece: &[u8]) {
        TABLES.with(|tables| {
            for table in tables {
                let mut scratch = Scratch::default();
                let queued = merge_with_queue(table, piece, &mut scratch).expect("merges");
                let queued_parts = scratch.parts.clone();
                let scanned = merge_by_scanning(table, piece, &mut scratch);
                assert_eq!(queued, scanned);
                let starts = |parts: &[(usize, u32)]| -> Vec<usize> {
                    parts.iter().map(|&(start, _)| start).collect()
                };
                assert_eq!(starts(&queued_parts), starts(&scratch.parts));
                // A drained queue leaves nothing behind for the next piece.
                assert!(!scratch.queue.dirty);
                assert!(scratch.queue.words.iter().all(|&w| w == 0));
            }
        });
    }

    #[test]
    fn runs_and_repeats_merge_as_the_plain_algorithm() {
        for unit in [
            "x",
            " ",
            "ab",
            "aab",
            "漢",
            "\u{1f9e0}",
            "0",
            "Aa",
            "\n",
            "ééé",
        ] {
            for len in [1, 2, 3, 63, 64, 65, 200, 1000] {
                same_merge(unit.repeat(len).as_bytes());
            }
        }
    }

    /// A table file of the 256 single bytes (ranks 0..=255) plus `extra` tokens with the given
    /// ranks (from 256 on, below the token count), in the layout of
    /// `scripts/tokens/build-tables.mjs`.
    fn synthetic(extra: &[(&[u8], u32)]) -> RankTable {
        let mut tokens: Vec<(Vec<u8>, u32)> =
            (0..=255u8).map(|b| (vec![b], u32::from(b))).collect();
        tokens.extend(extra.iter().map(|&(t, r)| (t.to_vec(), r)));
        tokens.sort();
        RankTable::parse(super::super::table::encode("o200k_base", &tokens))
            .expect("the synthetic table loads")
    }

    #[test]
    fn a_merge_that_makes_a_lower_ranked_pair_is_taken_in_order() {
        // "bc" (rank 259) merges first; "a" + "bc" is "abc", rank 256 — below the rank being
        // taken, so it waits in `late` and must still come before the other "bc"s and "cd"s.
        let table = synthetic(&[
            (b"ab", 262),
            (b"bc", 259),
            (b"abc", 256),
            (b"cd", 260),
            (b"abcd", 257),
            (b"da", 261),
            (b"abcda", 258),
        ]);
        for text in ["abcd", "abcda", "abcdabcd", "dabcdabcdab", "bcbcabcd"] {
            for repeat in [1, 20, 70] {
                let piece = text.repeat(repeat);
                let mut scratch = Scratch::default();
                let queued =
                    merge_with_queue(&table, piece.as_bytes(), &mut scratch).expect("merges");
                let queued_parts = scratch.parts.clone();
                let late_used = scratch.queue.late_pushes;
                let scanned = merge_by_scanning(&table, piece.as_bytes(), &mut scratch);
                assert_eq!(queued, scanned, "{piece}");
                assert_eq!(queued_parts, scratch.parts, "{piece}");
                assert!(late_used > 0, "the late path ran for {piece}");
            }
        }
    }

    /// Random tables over four letters, with ranks in any order (so merged tokens often form
    /// lower-ranked pairs, which trained tables rarely do): the queue follows the plain order.
    fn random_table() -> impl Strategy<Value = Vec<(Vec<u8>, u32)>> {
        prop::collection::btree_set("[abcd]{2,5}", 1..40).prop_flat_map(|tokens| {
            let n = tokens.len();
            (
                Just(tokens),
                Just((256..256 + n as u32).collect::<Vec<_>>()).prop_shuffle(),
            )
                .prop_map(|(tokens, ranks)| {
                    tokens
                        .into_iter()
                        .map(String::into_bytes)
                        .zip(ranks)
                        .collect::<Vec<_>>()
                })
        })
    }

    #[test]
    fn a_corrupted_rank_beyond_the_table_is_no_token_and_never_indexes_out() {
        // A rank ≥ the token count (possible only in a corrupted file) reads as "not a token",
        // so the per-rank queue (sized by the token count) is never indexed past its end.
        let table = synthetic(&[(b"ab", 0xff_ffff), (b"bc", 256)]);
        assert_eq!(table.rank(b"ab"), None);
        let piece = "abc".repeat(40);
        let mut scratch = Scratch::default();
        let queued = merge_with_queue(&table, piece.as_bytes(), &mut scratch).expect("merges");
        let scanned = merge_by_scanning(&table, piece.as_bytes(), &mut scratch);
        assert_eq!(queued, scanned);
        assert_eq!(queued, 80, "a + bc per repeat");
    }

    proptest! {
        #![proptest_config(ProptestConfig::with_cases(100))]

        #[test]
        fn queue_merge_follows_the_plain_order_on_any_table(
            tokens in random_table(),
            piece in "[abcd]{64,300}",
        ) {
            let extra: Vec<(&[u8], u32)> = tokens.iter().map(|(t, r)| (t.as_slice(), *r)).collect();
            let table = synthetic(&extra);
            let mut scratch = Scratch::default();
            let queued = merge_with_queue(&table, piece.as_bytes(), &mut scratch).expect("merges");
            let queued_parts = scratch.parts.clone();
            let scanned = merge_by_scanning(&table, piece.as_bytes(), &mut scratch);
            prop_assert_eq!(queued, scanned);
            prop_assert_eq!(queued_parts, scratch.parts.clone());
            prop_assert!(!scratch.queue.dirty);
        }
    }

    proptest! {
        #![proptest_config(ProptestConfig::with_cases(300))]

        #[test]
        fn queue_merge_equals_scanning_merge(piece in prop_oneof![
            "[ab]{1,400}",
            "[a-z]{1,400}",
            "[a-zA-Z0-9+/=]{1,400}",
            "[ \t]{1,300}",
            "[東京データé ]{1,120}",
            "\\PC{1,120}",
        ]) {
            same_merge(piece.as_bytes());
        }

        #[test]
        fn queue_merge_equals_scanning_merge_on_bytes(piece in prop::collection::vec(any::<u8>(), 1..300)) {
            same_merge(&piece);
        }
    }
}
