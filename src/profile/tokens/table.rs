//! The binary rank table built by `scripts/tokens/build-tables.mjs`, read in place.
//!
//! Layout (little-endian; the script's header comment is the reference):
//! `magic "MEMCTOK\0" | u32 version=2 | name[16] | u32 n_tokens | u32 suffix_len |
//! u32 max_token_len | u32 total_len | u32 blob_len | shared[n] u8 | suffix_lens[n] u8 |
//! rank_hi[n] u8 | rank_lo[n] u16 | block_base[blocks + 1] u32 | suffixes`. Tokens are sorted by
//! their bytes and front-coded in blocks of [`BLOCK`]: token `i` is the first `shared[i]` bytes of
//! token `i - 1` followed by its own next `suffix_lens[i]` bytes of `suffixes`, and the first
//! token of every block is whole (its suffixes start at `block_base[b]`). That is what makes the
//! file small: o200k_base is 841 KB gzip (1,254 KB as version 1, which stored every token whole
//! with u16 offsets and u24 ranks); the ranks, a random permutation, are half of it and cannot
//! shrink much (their entropy is ~16 bits a token; gzip keeps the high byte plane to ~2 bits).
//!
//! Loading checks the header and section bounds (constant work) and finds the 256 single-byte
//! tokens (which makes byte-pair merging total); nothing is decoded, so the first count after
//! start costs microseconds (decoding the 1.4 MB of tokens up front cost ~12 ms in wasm: a
//! function that runs once runs in V8's baseline tier). Every later read is bounds-checked, so a
//! corrupted body can give wrong ranks but never a panic.
//!
//! A lookup finds the block by binary search over the blocks' whole first tokens, then walks the
//! block comparing only what differs (the classic front-coded search: the length the key shares
//! with the current token decides most steps without reading a byte). Lookups are most of the time
//! of a count, so after [`SEARCHES_BEFORE_INDEX`] of them a hash index is built over the decoded
//! tokens (~20 ms in wasm for o200k) — deferred like a rent-or-buy decision: the searches before
//! it cost about as much in all as building does, so a process that counts a lot pays at most
//! twice what knowing the future would have cost, and one that counts a little never builds it.

use super::Encoding;
use super::{Error, Result};
use std::cell::{Cell, OnceCell};
use std::cmp::Ordering;

const MAGIC: &[u8; 8] = b"MEMCTOK\0";
const VERSION: u32 = 2;
const HEADER_LEN: usize = 48;
/// Tokens per front-coded block (the first of each is stored whole).
const BLOCK: usize = 64;
/// Lookups answered by the block search before the hash index is built (see the module docs).
const SEARCHES_BEFORE_INDEX: u32 = 1 << 15;

/// A validated table: the file bytes plus the section offsets computed from its header.
#[derive(Debug, Clone)]
pub(super) struct RankTable {
    bytes: Vec<u8>,
    encoding: Encoding,
    n_tokens: usize,
    max_token_len: usize,
    blob_len: usize,
    blocks: usize,
    lens_at: usize,
    hi_at: usize,
    lo_at: usize,
    base_at: usize,
    suffix_at: usize,
    byte_ranks: [u32; 256],
    index: OnceCell<Index>,
    /// Lookups answered by the block search so far (until the index is built).
    searched: Cell<u32>,
    /// Per byte `b`, the length of the longest token made only of `b` (`b`, `bb`, …): a run of
    /// `n` copies of `b` has at least `ceil(n / run_max[b])` tokens. Found on first use per byte
    /// (0: not yet; a long run of one byte needs only its own, ~127 lookups).
    run_max: [Cell<u8>; 256],
}

/// Open-addressing (linear probing) hash index over the decoded tokens. A slot packs
/// `rank (24 bits) | token length (8 bits) << 24 | offset in blob << 32`; 0 is empty (no token is
/// empty). At least twice as many slots as tokens keeps probe runs short (load factor ≤ 0.5) at
/// 8 bytes a slot: 4 MiB for o200k, 2 MiB for cl100k, built in a few milliseconds.
#[derive(Debug, Clone)]
struct Index {
    slots: Vec<u64>,
    shift: u32,
    /// Every token's bytes, end to end, in sorted order.
    blob: Vec<u8>,
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

/// Slack at the end of the decoded tokens, for copies eight bytes at a time.
const WIDE: usize = 8;

/// Copies `len` bytes of `blob` from `from` to `to` (`from + len <= to`), eight at a time: it may
/// write up to 7 bytes past `to + len`, which the caller overwrites or cuts off (the slack). A
/// read past `to` only ever lands past `to + len`.
fn copy_wide(blob: &mut [u8], from: usize, to: usize, len: usize) {
    let mut k = 0;
    while k < len {
        let chunk: Option<[u8; 8]> = blob
            .get(from + k..from + k + 8)
            .and_then(|c| c.try_into().ok());
        if let (Some(chunk), Some(dst)) = (chunk, blob.get_mut(to + k..to + k + 8)) {
            dst.copy_from_slice(&chunk);
        }
        k += 8;
    }
}

/// Copies `bytes[from..from + len]` to `blob[to..]`, eight bytes at a time where both sides have
/// them (the same slack as [`copy_wide`]), the rest at once at the file's end.
fn copy_suffix(blob: &mut [u8], to: usize, bytes: &[u8], from: usize, len: usize) {
    let mut k = 0;
    while k < len {
        let chunk: Option<[u8; 8]> = bytes
            .get(from + k..from + k + 8)
            .and_then(|c| c.try_into().ok());
        match (chunk, blob.get_mut(to + k..to + k + 8)) {
            (Some(chunk), Some(dst)) => dst.copy_from_slice(&chunk),
            _ => {
                let (src, dst) = (
                    bytes.get(from + k..from + len),
                    blob.get_mut(to + k..to + len),
                );
                if let (Some(src), Some(dst)) = (src, dst) {
                    dst.copy_from_slice(src);
                }
                return;
            }
        }
        k += 8;
    }
}

/// How many leading bytes `a` and `b` share.
fn common_prefix(a: &[u8], b: &[u8]) -> usize {
    a.iter().zip(b).take_while(|(x, y)| x == y).count()
}

fn corrupt(what: &str) -> Error {
    Error(format!(
        "tokenizer table is invalid ({what}): load the .bin file shipped with this version of memcore (memcore/tokenizer/<encoding>.bin; its format changes between versions)"
    ))
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
        let suffix_len = field(32)?;
        let max_token_len = field(36)?;
        let total_len = field(40)?;
        let blob_len = field(44)?;
        // Token lengths fit the hash index's 8 bits; the decoded tokens are at most every token
        // at its longest, so a garbled header cannot make the index ask for more than that.
        if !(256..1 << 24).contains(&n_tokens)
            || !(1..256).contains(&max_token_len)
            || blob_len > n_tokens * max_token_len
        {
            return Err(corrupt("counts out of range"));
        }
        let n = n_tokens;
        let blocks = n.div_ceil(BLOCK);
        let (lens_at, hi_at, lo_at, base_at) = (
            HEADER_LEN + n,
            HEADER_LEN + 2 * n,
            HEADER_LEN + 3 * n,
            HEADER_LEN + 5 * n,
        );
        let suffix_at = base_at + 4 * (blocks + 1);
        let end = suffix_at
            .checked_add(suffix_len)
            .ok_or_else(|| corrupt("section sizes overflow"))?;
        if end != total_len || total_len != bytes.len() {
            return Err(corrupt("truncated or wrong length"));
        }
        let mut table = RankTable {
            bytes,
            encoding,
            n_tokens,
            max_token_len,
            blob_len,
            blocks,
            lens_at,
            hi_at,
            lo_at,
            base_at,
            suffix_at,
            byte_ranks: [0; 256],
            index: OnceCell::new(),
            searched: Cell::new(0),
            run_max: std::array::from_fn(|_| Cell::new(0)),
        };
        if table.block_base(0) != Some(0) || table.block_base(blocks) != Some(suffix_len) {
            return Err(corrupt("block offsets"));
        }
        for b in 0..=255u8 {
            let rank = table.rank_searched(&[b]);
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
                usize::from(self.run_max(first)).max(1)
            }
            Some(_) => self.max_token_len.max(1),
        };
        piece.len().div_ceil(longest)
    }

    /// The longest token made only of `b` (see the field).
    fn run_max(&self, b: u8) -> u8 {
        let Some(known) = self.run_max.get(usize::from(b)) else {
            return 1;
        };
        if known.get() == 0 {
            let mut longest = 1u8;
            let mut run = vec![b];
            for len in 2..=self.max_token_len.min(255) {
                run.push(b);
                if self.rank(&run).is_some() {
                    longest = u8::try_from(len).unwrap_or(u8::MAX);
                }
            }
            known.set(longest);
        }
        known.get()
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
                        let start = (slot >> 32) as usize;
                        if index
                            .blob
                            .get(start..start + len)
                            .is_some_and(|t| same(t, key))
                        {
                            return Some((slot & 0xff_ffff) as u32);
                        }
                    }
                    at = (at + 1) & mask;
                }
                None
            }
        }
    }

    /// Decodes every token once and indexes it. A corrupted body only makes tokens unreadable
    /// (skipped) or wrong, never a panic: every read is checked and the slot count exceeds the
    /// token count.
    fn build_index(&self) -> Index {
        let bits = (2 * self.n_tokens)
            .next_power_of_two()
            .trailing_zeros()
            .max(1);
        let mut slots = vec![0u64; 1 << bits];
        let mask = slots.len() - 1;
        let shift = 64 - bits;
        // Decoded into a buffer with `WIDE` bytes of slack, eight bytes a copy (most tokens are a
        // copy or two); what a copy writes past a token's end the next token overwrites.
        let mut blob = vec![0u8; self.blob_len + WIDE];
        let mut start = 0;
        for block in 0..self.blocks {
            let Some(mut from) = self.block_start(block) else {
                continue;
            };
            let mut previous = start;
            for i in block * BLOCK..((block + 1) * BLOCK).min(self.n_tokens) {
                let shared = match i % BLOCK {
                    0 => 0,
                    _ => self.shared(i).min(start - previous),
                };
                let len = self.suffix_len(i);
                let end = start + shared + len;
                match from.checked_add(len) {
                    Some(to) if to <= self.bytes.len() && end <= self.blob_len => {}
                    _ => break,
                }
                copy_wide(&mut blob, previous, start, shared);
                copy_suffix(&mut blob, start + shared, &self.bytes, from, len);
                from += len;
                let token_start = start;
                (previous, start) = (start, end);
                let (Some(key), Some(rank)) = (blob.get(token_start..end), self.rank_of(i)) else {
                    continue;
                };
                if !(1..256).contains(&key.len()) {
                    continue;
                }
                let slot = u64::from(rank) | (key.len() as u64) << 24 | (token_start as u64) << 32;
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
        }
        blob.truncate(start);
        Index { slots, shift, blob }
    }

    /// The rank of `key` (one byte or more) by binary search over the blocks' first tokens,
    /// then a walk of the block. The walk keeps only `matched`, how many bytes the current token
    /// shares with the key (the current token is below the key): a token sharing more with its
    /// predecessor is below the key too, one sharing less is above it (and so is every later
    /// one), and only one sharing exactly `matched` has its own bytes compared.
    fn rank_searched(&self, key: &[u8]) -> Option<u32> {
        let (mut lo, mut hi) = (0, self.blocks);
        while lo < hi {
            let mid = lo + (hi - lo) / 2;
            match self.head(mid)?.cmp(key) {
                Ordering::Less => lo = mid + 1,
                Ordering::Greater => hi = mid,
                Ordering::Equal => return self.rank_of(mid * BLOCK),
            }
        }
        let block = lo.checked_sub(1)?;
        let first = block * BLOCK;
        let last = (first + BLOCK).min(self.n_tokens);
        let head = self.head(block)?;
        let mut matched = common_prefix(head, key);
        // The head was read from the file, so this is within it.
        let mut at = self.block_start(block)? + head.len();
        let shared = self.bytes.get(HEADER_LEN + first + 1..HEADER_LEN + last)?;
        let lens = self
            .bytes
            .get(self.lens_at + first + 1..self.lens_at + last)?;
        for (i, (&shared, &len)) in (first + 1..).zip(shared.iter().zip(lens)) {
            let (shared, len) = (usize::from(shared), usize::from(len));
            let from = at;
            at += len;
            match shared.cmp(&matched) {
                Ordering::Greater => continue,
                Ordering::Less => return None,
                Ordering::Equal => {}
            }
            let suffix = self.bytes.get(from..at)?;
            let rest = key.get(matched..)?;
            let common = common_prefix(suffix, rest);
            match (suffix.get(common), rest.get(common)) {
                (None, None) => return self.rank_of(i),
                (Some(_), None) => return None,
                (Some(t), Some(k)) if t > k => return None,
                _ => matched += common,
            }
        }
        None
    }

    /// The first token of `block`, stored whole.
    fn head(&self, block: usize) -> Option<&[u8]> {
        let at = self.block_start(block)?;
        self.bytes
            .get(at..at.checked_add(self.suffix_len(block * BLOCK))?)
    }

    /// Where `block`'s first suffix is in the file (checked: a garbled offset can be anything,
    /// and `usize` is 32 bits in wasm).
    fn block_start(&self, block: usize) -> Option<usize> {
        self.suffix_at.checked_add(self.block_base(block)?)
    }

    /// Where `block`'s suffixes start in the suffixes section (`block == blocks`: its end).
    fn block_base(&self, block: usize) -> Option<usize> {
        read_u32(&self.bytes, self.base_at + 4 * block).map(|v| v as usize)
    }

    /// The bytes token `i` shares with token `i - 1` (a corrupted file: whatever it says).
    fn shared(&self, i: usize) -> usize {
        usize::from(self.bytes.get(HEADER_LEN + i).copied().unwrap_or(0))
    }

    /// Token `i`'s own bytes after the shared ones.
    fn suffix_len(&self, i: usize) -> usize {
        usize::from(self.bytes.get(self.lens_at + i).copied().unwrap_or(0))
    }

    fn rank_of(&self, i: usize) -> Option<u32> {
        let hi = *self.bytes.get(self.hi_at + i)?;
        let lo = self.bytes.get(self.lo_at + 2 * i..self.lo_at + 2 * i + 2)?;
        let lo = u16::from_le_bytes(lo.try_into().ok()?);
        // A rank is below the token count in every real table; a corrupted one that is not is
        // no token (so the merge's per-rank queue is never larger than the table's own ranks).
        Some(u32::from(hi) << 16 | u32::from(lo)).filter(|&rank| (rank as usize) < self.n_tokens)
    }

    /// One more than the largest rank a lookup can return (ranks are below the token count).
    pub(super) fn rank_bound(&self) -> usize {
        self.n_tokens
    }
}

/// The file `scripts/tokens/build-tables.mjs` writes, for `tokens` (bytes, rank) in any order: the
/// synthetic tables of the unit tests go through the same reader as the real ones.
/// `a == b` for the byte strings of tokens and remembered texts, eight bytes a compare: the slice equality calls
/// `memcmp`, which in wasm is a byte loop behind a call — a sixth of a count's time once rank
/// lookups were hashed (profiled on profiles of real text).
#[inline(always)]
pub(super) fn same(a: &[u8], b: &[u8]) -> bool {
    if a.len() != b.len() {
        return false;
    }
    // Index loops: with the core built for size, `chunks_exact`, `Iterator::all` and the
    // `Option` compare each stayed a call (docs/internals/measurements.md).
    let mut at = 0;
    while let (Some(x), Some(y)) = (a.get(at..at + 8), b.get(at..at + 8)) {
        let (Ok(x), Ok(y)) = (<[u8; 8]>::try_from(x), <[u8; 8]>::try_from(y)) else {
            break;
        };
        if u64::from_ne_bytes(x) != u64::from_ne_bytes(y) {
            return false;
        }
        at += 8;
    }
    while let (Some(x), Some(y)) = (a.get(at), b.get(at)) {
        if x != y {
            return false;
        }
        at += 1;
    }
    true
}

#[cfg(test)]
pub(super) fn encode(name: &str, tokens: &[(Vec<u8>, u32)]) -> Vec<u8> {
    let mut sorted: Vec<&(Vec<u8>, u32)> = tokens.iter().collect();
    sorted.sort();
    let n = sorted.len();
    let (mut shared, mut lens, mut his, mut los, mut bases, mut suffixes) = (
        Vec::new(),
        Vec::new(),
        Vec::new(),
        Vec::new(),
        Vec::new(),
        Vec::new(),
    );
    let mut previous: &[u8] = &[];
    for (i, (token, rank)) in sorted.iter().map(|(t, r)| (t.as_slice(), *r)).enumerate() {
        let k = if i % BLOCK == 0 {
            bases.extend_from_slice(&(suffixes.len() as u32).to_le_bytes());
            0
        } else {
            common_prefix(previous, token)
        };
        shared.push(k as u8);
        lens.push((token.len() - k) as u8);
        suffixes.extend_from_slice(token.get(k..).unwrap_or_default());
        his.push((rank >> 16) as u8);
        los.extend_from_slice(&(rank as u16).to_le_bytes());
        previous = token;
    }
    bases.extend_from_slice(&(suffixes.len() as u32).to_le_bytes());
    let blob_len: usize = sorted.iter().map(|(t, _)| t.len()).sum();
    let max_len = sorted.iter().map(|(t, _)| t.len()).max().unwrap_or(1);
    let mut out = MAGIC.to_vec();
    out.extend_from_slice(&VERSION.to_le_bytes());
    let mut field = name.as_bytes().to_vec();
    field.resize(16, 0);
    out.extend_from_slice(&field);
    let total = HEADER_LEN + 5 * n + bases.len() + suffixes.len();
    for v in [n, suffixes.len(), max_len, total, blob_len] {
        out.extend_from_slice(&(v as u32).to_le_bytes());
    }
    for section in [shared, lens, his, los, bases, suffixes] {
        out.extend_from_slice(&section);
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn same_compares_every_byte_at_every_length() {
        for len in 0usize..26 {
            let a: Vec<u8> = (0..len)
                .map(|i: usize| (i as u8).wrapping_mul(37))
                .collect();
            assert!(same(&a, &a.clone()));
            assert!(!same(&a, &a[..len.saturating_sub(1)]) || len == 0);
            for at in 0..len {
                let mut b = a.clone();
                b[at] ^= 0x40;
                assert!(!same(&a, &b), "{len} {at}");
            }
        }
    }
    use proptest::prelude::*;
    use std::collections::BTreeMap;

    /// Tokens over a small alphabet (so they share long prefixes and blocks are full of
    /// front coding), plus the 256 single bytes, with ranks in any order.
    fn tokens() -> impl Strategy<Value = BTreeMap<Vec<u8>, u32>> {
        prop::collection::btree_set(prop::collection::vec(b'a'..=b'e', 2..12), 0..600)
            .prop_flat_map(|set| {
                let n = set.len() as u32;
                (
                    Just(set),
                    Just((256..256 + n).collect::<Vec<_>>()).prop_shuffle(),
                )
            })
            .prop_map(|(set, ranks)| {
                (0..=255u8)
                    .map(|b| (vec![b], u32::from(b)))
                    .chain(set.into_iter().zip(ranks))
                    .collect()
            })
    }

    proptest! {
        #![proptest_config(ProptestConfig::with_cases(64))]

        /// Every token is found with its rank by the block search and by the index, and keys
        /// that are not tokens (prefixes, extensions, neighbours) by neither.
        #[test]
        fn block_search_and_index_find_exactly_the_tokens(
            tokens in tokens(),
            probes in prop::collection::vec(prop::collection::vec(b'a'..=b'f', 1..14), 0..200),
        ) {
            let list: Vec<(Vec<u8>, u32)> = tokens.iter().map(|(t, &r)| (t.clone(), r)).collect();
            let table = RankTable::parse(encode("cl100k_base", &list)).expect("loads");
            let index = table.build_index();
            let indexed = |key: &[u8]| {
                let mask = index.slots.len() - 1;
                let mut at = (hash_key(key) >> index.shift) as usize & mask;
                loop {
                    let slot = index.slots[at];
                    if slot == 0 {
                        return None;
                    }
                    let (len, start) = ((slot >> 24 & 0xff) as usize, (slot >> 32) as usize);
                    if index.blob.get(start..start + len) == Some(key) {
                        return Some((slot & 0xff_ffff) as u32);
                    }
                    at = (at + 1) & mask;
                }
            };
            for (token, &rank) in &tokens {
                prop_assert_eq!(table.rank_searched(token), Some(rank));
                prop_assert_eq!(indexed(token), Some(rank));
            }
            for probe in probes {
                let expected = tokens.get(&probe).copied();
                prop_assert_eq!(table.rank_searched(&probe), expected);
                prop_assert_eq!(indexed(&probe), expected);
            }
        }
    }
}
