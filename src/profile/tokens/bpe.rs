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
    /// Long pieces: `(next part start, rank of the pair starting here)` per byte position, the
    /// previous part's start, and the pending pairs as a min-heap on `(rank, start)`.
    links: Vec<(u32, u32)>,
    prev: Vec<u32>,
    heap: BinaryHeap<Reverse<u64>>,
}

/// Pieces longer than this merge through a heap in O(n log n); the rescanning loop is O(n²)
/// but faster on the short pieces that are nearly all of them. A run of 3,000 `x` took ~5 ms
/// in wasm with the loop alone (most of a count of the exactness corpus).
const HEAP_MERGE_MIN_LEN: usize = 64;

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
    if piece.len() >= HEAP_MERGE_MIN_LEN {
        if let Some(count) = merge_with_heap(table, piece, scratch) {
            return count;
        }
    }
    merge_by_scanning(table, piece, scratch)
}

/// The same merge order as [`merge_by_scanning`] (lowest rank, then leftmost): the heap pops
/// `rank << 32 | start` in exactly that order, and entries made stale by a merge are skipped
/// because a pair's rank changes whenever its bytes do (ranks are unique per byte string). The
/// state is kept in 32-bit words and the heap is built in one O(n) pass, so a long piece stays
/// cache-friendly. `None` on an internal inconsistency or a piece of 4 GiB or more (then the
/// caller falls back to the scanning merge).
fn merge_with_heap(table: &RankTable, piece: &[u8], scratch: &mut Scratch) -> Option<usize> {
    let n = u32::try_from(piece.len()).ok()?;
    let Scratch {
        parts,
        links,
        prev,
        heap,
        ..
    } = scratch;
    links.clear();
    prev.clear();
    let mut initial = std::mem::take(heap).into_vec();
    initial.clear();
    for i in 0..n {
        let at = i as usize;
        let rank = piece
            .get(at..at + 2)
            .and_then(|pair| table.rank(pair))
            .unwrap_or(NONE);
        links.push((i + 1, rank));
        prev.push(i.wrapping_sub(1));
        if rank != NONE {
            initial.push(Reverse(key(rank, i)));
        }
    }
    *heap = BinaryHeap::from(initial);
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
    while let Some(Reverse(entry)) = heap.pop() {
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
            heap.push(Reverse(key(right, i)));
        }
        if i > 0 {
            let p = *prev.get(i as usize)?;
            let left = pair_rank(links, p)?;
            links.get_mut(p as usize)?.1 = left;
            if left != NONE {
                heap.push(Reverse(key(left, p)));
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

/// A heap key ordered by rank, then by start: `rank << 32 | start`.
fn key(rank: u32, start: u32) -> u64 {
    u64::from(rank) << 32 | u64::from(start)
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
