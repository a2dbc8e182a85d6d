//! The binary rank table built by `scripts/tokens/build-tables.mjs`, read in place.
//!
//! Layout (little-endian; the script's header comment is the reference):
//! `magic "MEMCTOK\0" | u32 version=1 | name[16] | u32 n_tokens | u32 blob_len | u32 max_token_len |
//! u32 total_len | u32 reserved | bucket[65537] u32 | block_base[(n>>6)+1] u32 | rel[n+1] u16 |
//! rank[n] u24 | blob`. Tokens are sorted by bytes (that is what makes the file gzip well).
//! Loading checks the header and section bounds once (constant work) and the 256 single-byte
//! tokens (which makes byte-pair merging total); every later read is bounds-checked, so a
//! corrupted body can give wrong ranks but never a panic.
//!
//! Lookups go through a hash index built from the file: a bucket + binary search costs ~12 probes
//! of two offset decodes and a byte comparison each, and lookups are most of the time of a count
//! (profiled in wasm: ~55 % before the index). Building the index (~10 ms in wasm for o200k) is
//! deferred like a rent-or-buy decision: the first [`SEARCHES_BEFORE_INDEX`] lookups use the
//! bucket search (about as much time in all as building costs), and only then is the index built.
//! So a first small count after start costs microseconds, not the index, and a process that
//! counts a lot pays at most twice what knowing the future would have cost.

use super::Encoding;
use crate::error::{Error, ErrorCode, Result};
use std::cell::{Cell, OnceCell};
use std::cmp::Ordering;

const MAGIC: &[u8; 8] = b"MEMCTOK\0";
const VERSION: u32 = 1;
const HEADER_LEN: usize = 48;
const BUCKETS: usize = 65536;
const BLOCK_SHIFT: usize = 6;
/// Lookups answered by bucket search before the hash index is built (see the module docs).
const SEARCHES_BEFORE_INDEX: u32 = 1 << 16;

/// A validated table: the file bytes plus the section offsets computed from its header.
#[derive(Debug, Clone)]
pub(super) struct RankTable {
    bytes: Vec<u8>,
    encoding: Encoding,
    n_tokens: usize,
    max_token_len: usize,
    block_base_at: usize,
    rel_at: usize,
    rank_at: usize,
    blob_at: usize,
    byte_ranks: [u32; 256],
    index: OnceCell<Index>,
    /// Lookups answered by bucket search so far (until the index is built).
    searched: Cell<u32>,
    /// Per byte `b`, the length of the longest token made only of `b` (`b`, `bb`, …): a run of
    /// `n` copies of `b` has at least `ceil(n / run_max[b])` tokens. Built on first use.
    run_max: OnceCell<[u8; 256]>,
}

/// Open-addressing (linear probing) hash index over the tokens. A slot packs
/// `rank (24 bits) | token length (8 bits) << 24 | blob offset << 32`; 0 is empty (no token is
/// empty). At least twice as many slots as tokens keeps probe runs short (load factor ≤ 0.5) at
/// 8 bytes a slot: 4 MiB for o200k, 2 MiB for cl100k, built in a few milliseconds.
#[derive(Debug, Clone)]
struct Index {
    slots: Vec<u64>,
    shift: u32,
}

/// Multiplicative byte hash (FxHash-style: rotate, xor, multiply); the index uses its top bits.
/// Written inline because the crate adds no dependencies, and it is all a lookup hashes: tokens
/// average ~6 bytes, so a per-byte loop beats anything wider after `opt-level = "z"`.
pub(super) fn hash_key(key: &[u8]) -> u64 {
    let mut h: u64 = 0;
    for &b in key {
        h = (h.rotate_left(5) ^ u64::from(b)).wrapping_mul(0x517c_c1b7_2722_0a95);
    }
    h
}

fn corrupt(what: &str) -> Error {
    Error::new(
        ErrorCode::Argument,
        format!("tokenizer table is invalid ({what}); rebuild it with `node scripts/tokens/build-tables.mjs`"),
    )
}

fn read_u32(bytes: &[u8], at: usize) -> Option<u32> {
    let slice: [u8; 4] = bytes.get(at..at.checked_add(4)?)?.try_into().ok()?;
    Some(u32::from_le_bytes(slice))
}

impl RankTable {
    /// Validates the header and section bounds; see the module comment.
    pub(super) fn parse(bytes: Vec<u8>) -> Result<RankTable> {
        if bytes.len() < HEADER_LEN {
            return Err(corrupt("shorter than its header"));
        }
        if bytes.get(..8) != Some(&MAGIC[..]) {
            return Err(corrupt("bad magic"));
        }
        let field = |at: usize| {
            read_u32(&bytes, at)
                .map(|v| v as usize)
                .ok_or_else(|| corrupt("header"))
        };
        if field(8)? != VERSION as usize {
            return Err(corrupt("unsupported format version"));
        }
        let name_field = bytes.get(12..28).ok_or_else(|| corrupt("header"))?;
        let name_len = name_field
            .iter()
            .position(|&b| b == 0)
            .unwrap_or(name_field.len());
        let name = std::str::from_utf8(name_field.get(..name_len).unwrap_or_default())
            .map_err(|_| corrupt("encoding name"))?;
        let encoding = Encoding::parse(name).map_err(|_| corrupt("unknown encoding name"))?;
        let n_tokens = field(28)?;
        let blob_len = field(32)?;
        let max_token_len = field(36)?;
        let total_len = field(40)?;
        if !(256..1 << 24).contains(&n_tokens) || max_token_len == 0 || max_token_len > blob_len {
            return Err(corrupt("counts out of range"));
        }
        let section = |start: usize, len: Option<usize>| -> Result<usize> {
            len.and_then(|l| start.checked_add(l))
                .ok_or_else(|| corrupt("section sizes overflow"))
        };
        let bucket_at = HEADER_LEN;
        let block_base_at = section(bucket_at, Some(4 * (BUCKETS + 1)))?;
        let rel_at = section(
            block_base_at,
            ((n_tokens >> BLOCK_SHIFT) + 1).checked_mul(4),
        )?;
        let rank_at = section(rel_at, (n_tokens + 1).checked_mul(2))?;
        let blob_at = section(rank_at, n_tokens.checked_mul(3))?;
        let end = section(blob_at, Some(blob_len))?;
        if end != total_len || total_len != bytes.len() {
            return Err(corrupt("truncated or wrong length"));
        }
        let mut table = RankTable {
            bytes,
            encoding,
            n_tokens,
            max_token_len,
            block_base_at,
            rel_at,
            rank_at,
            blob_at,
            byte_ranks: [0; 256],
            index: OnceCell::new(),
            searched: Cell::new(0),
            run_max: OnceCell::new(),
        };
        if table.offset(0) != Some(0) || table.offset(n_tokens) != Some(blob_len) {
            return Err(corrupt("token offsets"));
        }
        for b in 0..=255u8 {
            let rank = table
                .search(0, n_tokens, &[b])
                .filter(|&r| (r as usize) < n_tokens);
            let rank = rank.ok_or_else(|| corrupt("a single byte has no rank"))?;
            if let Some(slot) = table.byte_ranks.get_mut(usize::from(b)) {
                *slot = rank;
            }
        }
        Ok(table)
    }

    /// The encoding named in the header.
    pub(super) fn encoding(&self) -> Encoding {
        self.encoding
    }

    /// The longest token in bytes (128 for both built-in encodings).
    pub(super) fn max_token_len(&self) -> usize {
        self.max_token_len
    }

    /// The fewest tokens `piece` can be split into: `ceil(len / L)`, where `L` is the longest
    /// token that can occur in it — for a run of one byte the longest token of that byte alone
    /// (8 for `x`, 128 for spaces), otherwise the longest token of all. A lower bound, never a
    /// guess: any split of the piece uses tokens that are substrings of it.
    pub(super) fn min_tokens(&self, piece: &[u8]) -> usize {
        let longest = match piece.split_first() {
            None => return 0,
            Some((&first, rest)) if rest.len() >= 64 && rest.iter().all(|&b| b == first) => {
                let runs = self.run_max.get_or_init(|| self.build_run_max());
                usize::from(runs.get(usize::from(first)).copied().unwrap_or(1)).max(1)
            }
            Some(_) => self.max_token_len.max(1),
        };
        piece.len().div_ceil(longest)
    }

    fn build_run_max(&self) -> [u8; 256] {
        let mut runs = [1u8; 256];
        let mut run = Vec::with_capacity(self.max_token_len);
        for (b, slot) in (0..=255u8).zip(runs.iter_mut()) {
            run.clear();
            run.push(b);
            for len in 2..=self.max_token_len.min(255) {
                run.push(b);
                if self.rank(&run).is_some() {
                    *slot = u8::try_from(len).unwrap_or(u8::MAX);
                }
            }
        }
        runs
    }

    /// The rank of a single byte (always present: checked at load).
    pub(super) fn byte_rank(&self, b: u8) -> u32 {
        // 256 slots indexed by a byte: always present.
        self.byte_ranks.get(usize::from(b)).copied().unwrap_or(0)
    }

    /// The rank of `key`, if it is a token.
    pub(super) fn rank(&self, key: &[u8]) -> Option<u32> {
        self.rank_hashed(key, hash_key(key))
    }

    /// [`RankTable::rank`] with `hash_key(key)` already computed (the piece cache shares it).
    pub(super) fn rank_hashed(&self, key: &[u8], hash: u64) -> Option<u32> {
        match key {
            [] => None,
            [b] => Some(self.byte_rank(*b)),
            _ => {
                if key.len() > self.max_token_len {
                    return None;
                }
                let index = match self.index.get() {
                    Some(index) => index,
                    None if self.searched.get() < SEARCHES_BEFORE_INDEX => {
                        self.searched.set(self.searched.get() + 1);
                        return self.rank_searched(key);
                    }
                    None => self.index.get_or_init(|| self.build_index()),
                };
                let mask = index.slots.len().wrapping_sub(1);
                let mut at = (hash >> index.shift) as usize & mask;
                // Bounded by the slot count: terminates even if the index were full.
                for _ in 0..index.slots.len() {
                    let slot = *index.slots.get(at)?;
                    if slot == 0 {
                        return None;
                    }
                    let len = (slot >> 24 & 0xff) as usize;
                    if len == key.len() {
                        let start = self.blob_at + (slot >> 32) as usize;
                        if self.bytes.get(start..start + len) == Some(key) {
                            return Some((slot & 0xff_ffff) as u32);
                        }
                    }
                    at = (at + 1) & mask;
                }
                None
            }
        }
    }

    /// One pass over the sorted tokens. A corrupted body only makes tokens unreadable (skipped)
    /// or wrong, never a panic: every read is checked and the slot count exceeds the token count.
    fn build_index(&self) -> Index {
        let bits = (2 * self.n_tokens)
            .next_power_of_two()
            .trailing_zeros()
            .max(1);
        let mut slots = vec![0u64; 1 << bits];
        let mask = slots.len() - 1;
        let shift = 64 - bits;
        // Token i ends where token i + 1 starts: decode each offset once.
        let mut next_start = self.offset(0);
        for i in 0..self.n_tokens {
            let start = next_start;
            next_start = self.offset(i + 1);
            let (Some(start), Some(end), Some(rank)) = (start, next_start, self.rank_of(i)) else {
                continue;
            };
            let Some(key) = end
                .checked_sub(start)
                .filter(|len| (1..256).contains(len))
                .and_then(|_| {
                    let at = self.blob_at.checked_add(start)?;
                    self.bytes.get(at..at.checked_add(end - start)?)
                })
            else {
                continue;
            };
            let slot = u64::from(rank) | (key.len() as u64) << 24 | (start as u64) << 32;
            let mut at = (hash_key(key) >> shift) as usize & mask;
            for _ in 0..slots.len() {
                match slots.get_mut(at) {
                    Some(free) if *free == 0 => {
                        *free = slot;
                        break;
                    }
                    _ => at = (at + 1) & mask,
                }
            }
        }
        Index { slots, shift }
    }

    /// The rank of a key of two or more bytes by bucket (its first two bytes) and binary search.
    fn rank_searched(&self, key: &[u8]) -> Option<u32> {
        let (&b0, &b1) = (key.first()?, key.get(1)?);
        let bucket = usize::from(b0) << 8 | usize::from(b1);
        let lo = self.u32_at(HEADER_LEN + 4 * bucket)? as usize;
        let hi = (self.u32_at(HEADER_LEN + 4 * (bucket + 1))? as usize).min(self.n_tokens);
        self.search(lo.min(hi), hi, key)
    }

    fn search(&self, mut lo: usize, mut hi: usize, key: &[u8]) -> Option<u32> {
        while lo < hi {
            let mid = lo + (hi - lo) / 2;
            match self.token(mid)?.cmp(key) {
                Ordering::Less => lo = mid + 1,
                Ordering::Greater => hi = mid,
                Ordering::Equal => return self.rank_of(mid),
            }
        }
        None
    }

    fn u32_at(&self, at: usize) -> Option<u32> {
        read_u32(&self.bytes, at)
    }

    fn offset(&self, i: usize) -> Option<usize> {
        let base = self.u32_at(self.block_base_at + 4 * (i >> BLOCK_SHIFT))? as usize;
        let rel: [u8; 2] = self
            .bytes
            .get(self.rel_at + 2 * i..self.rel_at + 2 * i + 2)?
            .try_into()
            .ok()?;
        base.checked_add(usize::from(u16::from_le_bytes(rel)))
    }

    fn token(&self, i: usize) -> Option<&[u8]> {
        let start = self.blob_at.checked_add(self.offset(i)?)?;
        let end = self.blob_at.checked_add(self.offset(i + 1)?)?;
        self.bytes.get(start..end)
    }

    fn rank_of(&self, i: usize) -> Option<u32> {
        let at = self.rank_at + 3 * i;
        let [b0, b1, b2]: [u8; 3] = self.bytes.get(at..at + 3)?.try_into().ok()?;
        // A rank is below the token count in every real table; a corrupted one that is not is
        // no token (so the merge's per-rank queue is never larger than the table's own ranks).
        Some(u32::from(b0) | u32::from(b1) << 8 | u32::from(b2) << 16)
            .filter(|&rank| (rank as usize) < self.n_tokens)
    }

    /// One more than the largest rank a lookup can return (ranks are below the token count).
    pub(super) fn rank_bound(&self) -> usize {
        self.n_tokens
    }
}
