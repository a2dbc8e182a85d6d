//! Embedding vectors of the `hybrid` search mode (issue 21): quantized to i8, stored as bytes,
//! carried as base64, compared by cosine similarity in exact integer arithmetic.
//!
//! `quantize` maps a host's f32 vector to `round(x[i] / max|x| × 127)` (symmetric, per vector;
//! the scale is dropped because cosine does not need it). The dot product and the norms are
//! integers, and a score is one `f64` division of them, so every platform, with or without wasm
//! SIMD, ranks the same vectors the same way.

use super::{sort_scored, Scored};
use std::fmt;

/// The cosine similarity below which [`rank_vectors`] drops a candidate by default. With
/// all-MiniLM-L6-v2 a related fact scores about 0.3-0.6 against a question and an unrelated one
/// about 0.0-0.15; 0.2 keeps the first and drops the second. Tuned on the recall benchmark.
pub const DEFAULT_COSINE_FLOOR: f64 = 0.2;

/// Why a vector cannot be quantized.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum VectorError {
    /// The vector has no component.
    Empty,
    /// A component is NaN or ±Infinity.
    NotFinite {
        /// The position of the first such component.
        index: usize,
    },
    /// Every component is zero (the vector has no direction).
    AllZero,
}

impl fmt::Display for VectorError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            VectorError::Empty => write!(
                f,
                "the vector is empty: it must have at least one component"
            ),
            VectorError::NotFinite { index } => write!(
                f,
                "component {index} of the vector is not a finite number (NaN or Infinity)"
            ),
            VectorError::AllZero => write!(
                f,
                "every component of the vector is zero: it has no direction to compare"
            ),
        }
    }
}

impl std::error::Error for VectorError {}

/// The i8 form of a vector: `q[i] = round(x[i] / max|x| × 127)`, computed in `f64` and rounded
/// half away from zero (`f64::round`), so each `q[i]` is in `-127..=127` and the largest
/// component is ±127. Errors for an empty vector, a non-finite component (the first one is
/// named) and an all-zero vector.
pub fn quantize(v: &[f32]) -> Result<Vec<i8>, VectorError> {
    if v.is_empty() {
        return Err(VectorError::Empty);
    }
    if let Some(index) = v.iter().position(|x| !x.is_finite()) {
        return Err(VectorError::NotFinite { index });
    }
    let max = v.iter().fold(0.0f64, |m, &x| m.max(f64::from(x).abs()));
    if max == 0.0 {
        return Err(VectorError::AllZero);
    }
    Ok(v.iter()
        .map(|&x| {
            let q = (f64::from(x) / max * 127.0).round();
            // |q| ≤ 127 by construction; the clamp only states it.
            q.clamp(-127.0, 127.0) as i8
        })
        .collect())
}

const ALPHABET: &[u8; 64] = b"ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";

/// The vector bytes (each i8 as its two's-complement byte) in standard base64 with padding.
pub fn to_base64(v: &[i8]) -> String {
    let mut out = String::with_capacity(v.len().div_ceil(3) * 4);
    let sextet = |n: u32, shift: u32| {
        char::from(
            ALPHABET
                .get(((n >> shift) & 63) as usize)
                .copied()
                .unwrap_or(b'A'),
        )
    };
    for chunk in v.chunks(3) {
        let b = |i: usize| chunk.get(i).map_or(0, |&x| u32::from(x as u8));
        let n = (b(0) << 16) | (b(1) << 8) | b(2);
        out.push(sextet(n, 18));
        out.push(sextet(n, 12));
        out.push(if chunk.len() > 1 { sextet(n, 6) } else { '=' });
        out.push(if chunk.len() > 2 { sextet(n, 0) } else { '=' });
    }
    out
}

/// The vector bytes of standard base64 with padding; `None` unless the text is canonical
/// base64: length a multiple of 4, only the standard alphabet, `=` only as the last one or two
/// characters, and the unused bits of the last group zero (so each vector has one encoding).
/// Every group but the last is decoded by table (a search mirror decodes 3.8 MB of vectors at
/// 10,000 entries); the last one checks the padding.
pub fn from_base64(text: &str) -> Option<Vec<i8>> {
    let bytes = text.as_bytes();
    if bytes.len() % 4 != 0 {
        return None;
    }
    let (body, last) = bytes.split_at(bytes.len().saturating_sub(4));
    let mut out = vec![0i8; body.len() / 4 * 3];
    out.reserve_exact(3);
    for (group, to) in body.chunks_exact(4).zip(out.chunks_exact_mut(3)) {
        let n = group.iter().try_fold(0u32, |n, &c| {
            let sextet = DECODE.get(usize::from(c)).copied().unwrap_or(INVALID);
            (sextet != INVALID).then_some((n << 6) | u32::from(sextet))
        })?;
        if let [a, b, c] = to {
            (*a, *b, *c) = ((n >> 16) as u8 as i8, (n >> 8) as u8 as i8, n as u8 as i8);
        }
    }
    if !last.is_empty() {
        last_group(last, &mut out)?;
    }
    Some(out)
}

/// The base64 alphabet's values by byte ([`INVALID`] for any other byte).
// Indexing in a const block: an index out of bounds fails the build, it cannot panic at run time.
#[allow(clippy::indexing_slicing)]
const DECODE: [u8; 256] = {
    let mut table = [INVALID; 256];
    let mut i = 0;
    while i < 64 {
        table[ALPHABET[i] as usize] = i as u8;
        i += 1;
    }
    table
};
const INVALID: u8 = 0xff;

/// The last group of a base64 text, with its padding rules ([`from_base64`]).
fn last_group(group: &[u8], out: &mut Vec<i8>) -> Option<()> {
    let pad = group.iter().rev().take_while(|&&c| c == b'=').count();
    if pad > 2 {
        return None;
    }
    let mut n = 0u32;
    for &c in group.iter().take(4 - pad) {
        n = (n << 6) | u32::from(sextet_of(c)?);
    }
    n <<= 6 * pad as u32;
    let decoded = [(n >> 16) as u8, (n >> 8) as u8, n as u8];
    let keep = 3 - pad;
    if decoded.iter().skip(keep).any(|&b| b != 0) {
        return None;
    }
    out.extend(decoded.iter().take(keep).map(|&b| b as i8));
    Some(())
}

fn sextet_of(c: u8) -> Option<u8> {
    match c {
        b'A'..=b'Z' => Some(c - b'A'),
        b'a'..=b'z' => Some(c - b'a' + 26),
        b'0'..=b'9' => Some(c - b'0' + 52),
        b'+' => Some(62),
        b'/' => Some(63),
        _ => None,
    }
}

/// The dot product over the common length of `a` and `b` (callers compare equal lengths). Exact
/// while `len × 128²` fits an i32, i.e. up to 131,072 components (quantized vectors are far
/// shorter); past that it wraps, identically on every path. With wasm `simd128` it runs 16
/// lanes at a time (i8 → i16 widening, `i32x4.dot_i16x8_s`) and gives the scalar path's result.
pub fn dot(a: &[i8], b: &[i8]) -> i32 {
    let n = a.len().min(b.len());
    let (a, b) = (
        a.get(..n).unwrap_or_default(),
        b.get(..n).unwrap_or_default(),
    );
    kernel::dot(a, b)
}

/// The scalar dot product, the reference the SIMD path is tested against.
pub fn dot_scalar(a: &[i8], b: &[i8]) -> i32 {
    a.iter().zip(b).fold(0i32, |s, (&x, &y)| {
        s.wrapping_add(i32::from(x) * i32::from(y))
    })
}

/// The squared Euclidean norm, `Σ x²`, exact.
pub fn norm2(v: &[i8]) -> i64 {
    v.iter().map(|&x| i64::from(x) * i64::from(x)).sum()
}

/// Cosine similarity of two i8 vectors: `dot / sqrt(norm2(q) × norm2(v))`, the integers exact and
/// then IEEE `f64` operations only (correctly rounded, so the same everywhere). 0 when the
/// lengths differ or either vector is all zero.
pub fn cosine(q: &[i8], v: &[i8]) -> f64 {
    if q.len() != v.len() {
        return 0.0;
    }
    cosine_of(dot(q, v), norm2(q), norm2(v))
}

fn cosine_of(dot: i32, qn: i64, vn: i64) -> f64 {
    if qn == 0 || vn == 0 {
        return 0.0;
    }
    f64::from(dot) / (qn as f64 * vn as f64).sqrt()
}

/// Ranks `candidates` against `query` by cosine similarity descending, ties by ascending index;
/// a candidate of another length than the query (another model's, or corrupt) or all zero is
/// skipped, one scoring below `floor` ([`DEFAULT_COSINE_FLOOR`] by default) dropped. A NaN floor
/// drops nothing. Each candidate is read once: its dot product and norm in one pass.
pub fn rank_vectors(query: &[i8], candidates: &[&[i8]], floor: f64) -> Vec<Scored> {
    let normed: Vec<Normed<'_>> = candidates.iter().map(|&v| (v, None)).collect();
    rank_normed(query, &normed, floor)
}

/// A candidate vector with its squared norm when known ([`rank_normed`]).
pub type Normed<'a> = (&'a [i8], Option<i64>);

/// [`rank_vectors`] over candidates that may come with their squared norm ([`norm2`]) ready, as
/// an index keeps it: such a candidate is read for its dot product alone; one without is read
/// once for both.
pub fn rank_normed(query: &[i8], candidates: &[Normed<'_>], floor: f64) -> Vec<Scored> {
    let mut scored = scores_normed(query, candidates, floor);
    sort_scored(&mut scored);
    scored
}

/// [`rank_normed`] unsorted: the candidates kept, in index order.
pub(crate) fn scores_normed(query: &[i8], candidates: &[Normed<'_>], floor: f64) -> Vec<Scored> {
    let Some(scorer) = Scorer::new(query, floor) else {
        return Vec::new();
    };
    candidates
        .iter()
        .enumerate()
        .filter_map(|(index, &(v, norm))| {
            scorer.score(v, norm).map(|score| Scored { index, score })
        })
        .collect()
}

/// One query scored against candidates one at a time ([`scores_normed`]'s rule, for a caller
/// that walks its candidates once for several things).
pub(crate) struct Scorer<'q> {
    query: &'q [i8],
    prepared: kernel::Query<'q>,
    qn: i64,
    floor: f64,
}

impl<'q> Scorer<'q> {
    /// `None` for an empty or all-zero query (nothing scores).
    pub(crate) fn new(query: &'q [i8], floor: f64) -> Option<Self> {
        let qn = norm2(query);
        if query.is_empty() || qn == 0 {
            return None;
        }
        Some(Scorer {
            query,
            prepared: kernel::Query::new(query),
            qn,
            floor,
        })
    }

    /// The cosine of `v` (its squared norm given when known), or `None` when it is another
    /// length than the query, all zero, or below the floor (a NaN floor drops nothing).
    #[inline]
    pub(crate) fn score(&self, v: &[i8], norm: Option<i64>) -> Option<f64> {
        if v.len() != self.query.len() {
            return None;
        }
        let (d, vn) = match norm {
            Some(n) => (self.prepared.dot(v), n),
            None => {
                let (d, n) = kernel::dot_and_norm(self.query, v);
                (d, i64::from(n))
            }
        };
        let score = cosine_of(d, self.qn, vn);
        (vn != 0 && (self.floor.is_nan() || score >= self.floor)).then_some(score)
    }
}

#[cfg(not(all(target_arch = "wasm32", target_feature = "simd128")))]
mod kernel {
    pub(super) fn dot(a: &[i8], b: &[i8]) -> i32 {
        super::dot_scalar(a, b)
    }

    /// A query scored against many vectors.
    pub(super) struct Query<'a>(&'a [i8]);

    impl<'a> Query<'a> {
        pub(super) fn new(q: &'a [i8]) -> Self {
            Query(q)
        }

        /// `q · v` over the common length.
        pub(super) fn dot(&self, v: &[i8]) -> i32 {
            super::dot_scalar(self.0, v)
        }
    }

    /// `(q · v, v · v)`: exact while the length is at most 131,072 (see [`super::dot`]).
    pub(super) fn dot_and_norm(q: &[i8], v: &[i8]) -> (i32, i32) {
        q.iter().zip(v).fold((0i32, 0i32), |(d, n), (&x, &y)| {
            let (x, y) = (i32::from(x), i32::from(y));
            (d.wrapping_add(x * y), n.wrapping_add(y * y))
        })
    }
}

#[cfg(all(target_arch = "wasm32", target_feature = "simd128"))]
mod kernel {
    use core::arch::wasm32::{
        i16x8_extend_high_i8x16, i16x8_extend_low_i8x16, i32x4_add, i32x4_dot_i16x8,
        i32x4_extract_lane, i32x4_splat, v128,
    };

    /// `a · b` of one 16-lane block, added into `acc` (i32x4 lanes wrap like the scalar sum).
    #[inline(always)]
    fn step(acc: v128, a: v128, b: v128) -> v128 {
        let lo = i32x4_dot_i16x8(i16x8_extend_low_i8x16(a), i16x8_extend_low_i8x16(b));
        let hi = i32x4_dot_i16x8(i16x8_extend_high_i8x16(a), i16x8_extend_high_i8x16(b));
        i32x4_add(acc, i32x4_add(lo, hi))
    }

    fn lanes(v: v128) -> i32 {
        i32x4_extract_lane::<0>(v)
            .wrapping_add(i32x4_extract_lane::<1>(v))
            .wrapping_add(i32x4_extract_lane::<2>(v))
            .wrapping_add(i32x4_extract_lane::<3>(v))
    }

    /// The 16-lane block at `at` (callers keep `at + 16 ≤ len`): one unaligned `v128.load`
    /// through bytemuck (the core forbids `unsafe`; `i8` and `u8` have one layout).
    #[inline(always)]
    fn block(v: &[i8], at: usize) -> v128 {
        let bytes: &[u8] = bytemuck::cast_slice(v);
        bytes
            .get(at..at + 16)
            .and_then(|c| bytemuck::try_pod_read_unaligned::<v128>(c).ok())
            .unwrap_or(i32x4_splat(0))
    }

    /// A query scored against many vectors: its 16-lane blocks widened to i16 once, so each
    /// candidate block costs one load, two widenings and two `i32x4.dot_i16x8_s`.
    pub(super) struct Query<'a> {
        widened: Vec<(v128, v128)>,
        rest: &'a [i8],
    }

    impl<'a> Query<'a> {
        pub(super) fn new(q: &'a [i8]) -> Self {
            let full = q.len() / 16 * 16;
            let widened = (0..full)
                .step_by(16)
                .map(|at| {
                    let x = block(q, at);
                    (i16x8_extend_low_i8x16(x), i16x8_extend_high_i8x16(x))
                })
                .collect();
            Query {
                widened,
                rest: q.get(full..).unwrap_or_default(),
            }
        }

        /// `q · v` over the common length (the scalar path's result: i32 lanes wrap alike).
        pub(super) fn dot(&self, v: &[i8]) -> i32 {
            let mut acc = i32x4_splat(0);
            let bytes: &[u8] = bytemuck::cast_slice(v);
            let mut blocks = bytes.chunks_exact(16);
            for ((lo, hi), chunk) in self.widened.iter().zip(&mut blocks) {
                let y = bytemuck::try_pod_read_unaligned::<v128>(chunk).unwrap_or(i32x4_splat(0));
                acc = i32x4_add(
                    acc,
                    i32x4_add(
                        i32x4_dot_i16x8(*lo, i16x8_extend_low_i8x16(y)),
                        i32x4_dot_i16x8(*hi, i16x8_extend_high_i8x16(y)),
                    ),
                );
            }
            let full = self.widened.len() * 16;
            lanes(acc).wrapping_add(super::dot_scalar(
                self.rest,
                v.get(full..).unwrap_or_default(),
            ))
        }
    }

    pub(super) fn dot(a: &[i8], b: &[i8]) -> i32 {
        let full = a.len().min(b.len()) / 16 * 16;
        let mut acc = i32x4_splat(0);
        let mut at = 0;
        while at < full {
            acc = step(acc, block(a, at), block(b, at));
            at += 16;
        }
        let (ra, rb) = (
            a.get(full..).unwrap_or_default(),
            b.get(full..).unwrap_or_default(),
        );
        lanes(acc).wrapping_add(super::dot_scalar(ra, rb))
    }

    pub(super) fn dot_and_norm(q: &[i8], v: &[i8]) -> (i32, i32) {
        let full = q.len().min(v.len()) / 16 * 16;
        let (mut d, mut n) = (i32x4_splat(0), i32x4_splat(0));
        let mut at = 0;
        while at < full {
            let (x, y) = (block(q, at), block(v, at));
            d = step(d, x, y);
            n = step(n, y, y);
            at += 16;
        }
        let (rq, rv) = (
            q.get(full..).unwrap_or_default(),
            v.get(full..).unwrap_or_default(),
        );
        (
            lanes(d).wrapping_add(super::dot_scalar(rq, rv)),
            lanes(n).wrapping_add(super::dot_scalar(rv, rv)),
        )
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn quantize_scales_the_largest_component_to_127() {
        assert_eq!(quantize(&[0.5, -1.0, 0.25]).unwrap(), [64, -127, 32]);
        assert_eq!(quantize(&[2.0, 0.0]).unwrap(), [127, 0]);
        assert_eq!(quantize(&[-3.0]).unwrap(), [-127]);
    }

    #[test]
    fn quantize_rounds_half_away_from_zero() {
        // With max 127 the ratios are exact: x / 127 × 127 = x, so ±0.5 and ±1.5 are true ties.
        assert_eq!(quantize(&[127.0, 0.5, -0.5]).unwrap(), [127, 1, -1]);
        assert_eq!(quantize(&[127.0, 1.5, -1.5]).unwrap(), [127, 2, -2]);
    }

    #[test]
    fn quantize_names_the_problem() {
        assert_eq!(quantize(&[]), Err(VectorError::Empty));
        assert_eq!(
            quantize(&[1.0, f32::NAN, f32::INFINITY]),
            Err(VectorError::NotFinite { index: 1 })
        );
        assert_eq!(
            quantize(&[1.0, 2.0, f32::NEG_INFINITY]),
            Err(VectorError::NotFinite { index: 2 })
        );
        assert_eq!(quantize(&[0.0, -0.0]), Err(VectorError::AllZero));
        assert!(VectorError::NotFinite { index: 7 }
            .to_string()
            .contains("component 7"));
    }

    #[test]
    fn base64_matches_rfc_4648_examples() {
        let b = |s: &str| s.bytes().map(|x| x as i8).collect::<Vec<_>>();
        for (raw, encoded) in [
            ("", ""),
            ("f", "Zg=="),
            ("fo", "Zm8="),
            ("foo", "Zm9v"),
            ("foob", "Zm9vYg=="),
            ("fooba", "Zm9vYmE="),
            ("foobar", "Zm9vYmFy"),
        ] {
            assert_eq!(to_base64(&b(raw)), encoded);
            assert_eq!(from_base64(encoded), Some(b(raw)));
        }
        assert_eq!(to_base64(&[-1, -128, 127]), "/4B/");
    }

    /// The first, group-by-group decoder: the oracle of [`from_base64`].
    /// The vector bytes of standard base64 with padding; `None` unless the text is canonical
    /// base64: length a multiple of 4, only the standard alphabet, `=` only as the last one or two
    /// characters, and the unused bits of the last group zero (so each vector has one encoding).
    fn from_base64_reference(text: &str) -> Option<Vec<i8>> {
        let bytes = text.as_bytes();
        if bytes.len() % 4 != 0 {
            return None;
        }
        let mut out = Vec::with_capacity(bytes.len() / 4 * 3);
        let groups = bytes.len() / 4;
        for (g, group) in bytes.chunks_exact(4).enumerate() {
            let last = g + 1 == groups;
            let pad = group.iter().rev().take_while(|&&c| c == b'=').count();
            if pad > 2 || (pad > 0 && !last) {
                return None;
            }
            let mut n = 0u32;
            for &c in group.iter().take(4 - pad) {
                n = (n << 6) | u32::from(sextet_of(c)?);
            }
            n <<= 6 * pad as u32;
            let decoded = [(n >> 16) as u8, (n >> 8) as u8, n as u8];
            let keep = 3 - pad;
            if decoded.iter().skip(keep).any(|&b| b != 0) {
                return None;
            }
            out.extend(decoded.iter().take(keep).map(|&b| b as i8));
        }
        Some(out)
    }

    #[test]
    fn base64_decodes_as_the_group_by_group_reference() {
        // Every text of one and two groups over an alphabet with each kind of character, and
        // long texts of pseudo-random characters.
        let chars = b"AZaz09+/=-\n\x00\xff";
        let chars: Vec<u8> = chars.to_vec();
        let mut texts: Vec<Vec<u8>> = vec![Vec::new()];
        for _ in 0..4 {
            texts = texts
                .iter()
                .flat_map(|t| {
                    chars.iter().map(move |&c| {
                        let mut t = t.clone();
                        t.push(c);
                        t
                    })
                })
                .collect();
            for t in &texts {
                // Alone, after a valid group (the last of two) and before one (not the last).
                for (prefix, suffix) in [(&b""[..], &b""[..]), (b"QUJD", b""), (b"", b"QUJD")] {
                    let text: Vec<u8> = prefix.iter().chain(t).chain(suffix).copied().collect();
                    if let Ok(text) = std::str::from_utf8(&text) {
                        assert_eq!(from_base64(text), from_base64_reference(text), "{text:?}");
                    }
                }
            }
        }
        let mut seed = 0x2545_f491_4f6c_dd1d_u64;
        for len in 0..200usize {
            let bytes: Vec<i8> = (0..len)
                .map(|_| {
                    seed ^= seed << 13;
                    seed ^= seed >> 7;
                    seed ^= seed << 17;
                    seed as i8
                })
                .collect();
            let text = to_base64(&bytes);
            assert_eq!(from_base64(&text), Some(bytes.clone()), "{len}");
            let mut broken = text.clone().into_bytes();
            if let Some(c) = broken.get_mut(len % text.len().max(1)) {
                *c = b'.';
                let broken = String::from_utf8(broken).unwrap_or_default();
                assert_eq!(from_base64(&broken), from_base64_reference(&broken));
            }
        }
    }

    #[test]
    fn base64_rejects_non_canonical_text() {
        for bad in [
            "Zg=", "Zg", "Z===", "Zh==", "Zm9=", "Zg==Zg==", "Zm-v", "Zm9v\n", "====", "Zm=v",
        ] {
            assert_eq!(from_base64(bad), None, "{bad:?}");
        }
    }

    #[test]
    fn cosine_is_exact_integer_arithmetic_then_one_division() {
        assert_eq!(dot(&[1, 2, 3], &[4, -5, 6]), 12);
        assert_eq!(norm2(&[3, 4]), 25);
        assert_eq!(cosine(&[3, 4], &[3, 4]), 1.0);
        assert_eq!(cosine(&[3, 4], &[-3, -4]), -1.0);
        assert_eq!(cosine(&[1, 0], &[0, 1]), 0.0);
        assert_eq!(cosine(&[1, 0], &[1, 0, 0]), 0.0);
        assert_eq!(cosine(&[0, 0], &[1, 0]), 0.0);
        assert_eq!(cosine(&[3, 4], &[4, 3]), 24.0 / 25.0);
    }

    #[test]
    fn rank_vectors_skips_other_lengths_and_zero_vectors_and_breaks_ties_by_index() {
        let q: &[i8] = &[10, 0];
        let candidates: [&[i8]; 6] = [&[0, 10], &[5, 5], &[1, 0], &[10, 0, 0], &[0, 0], &[7, 0]];
        let ranked = rank_vectors(q, &candidates, 0.0);
        let order: Vec<usize> = ranked.iter().map(|s| s.index).collect();
        assert_eq!(order, [2, 5, 1, 0]);
        assert_eq!(ranked[0].score, 1.0);
        let floored = rank_vectors(q, &candidates, 0.8);
        assert_eq!(floored.iter().map(|s| s.index).collect::<Vec<_>>(), [2, 5]);
        assert!(rank_vectors(&[0, 0], &candidates, 0.0).is_empty());
    }
}
