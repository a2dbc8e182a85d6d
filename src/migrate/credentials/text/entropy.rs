//! behaviour §4.2's high-entropy rule: runs of the entropy alphabet whose Shannon entropy exceeds
//! 3.5 bits per character, with the exemptions that keep prose, digests in prose, UUIDs and encoded
//! text out — and encoded text scanned for what it encodes, so a credential wrapped in base64 is
//! found under its own kind.

use super::{at, is_alnum, is_entropy_byte, push, run_end, step, Span};
use crate::migrate::credentials::CredentialKind;

/// Runs of `[A-Za-z0-9_.+/~$-]` of at least 14 characters whose Shannon entropy exceeds 3.5
/// bits per character — except runs that read as words (prose, compound words, paths of words,
/// numbers), canonical UUIDs, and base64 that decodes to text.
pub(super) fn high_entropy(bytes: &[u8], spans: &mut Vec<Span>) {
    let mut i = 0;
    while i < bytes.len() {
        if !is_entropy_byte(at(bytes, i)) {
            i += 1;
            continue;
        }
        let end = run_end(bytes, i, is_entropy_byte);
        let run = bytes.get(i..end).unwrap_or(&[]);
        let padded = at(bytes, end) == b'=';
        if is_high_entropy(run, padded) && !is_named_digest(bytes, i, run) {
            push(spans, i, end, CredentialKind::HighEntropy);
        } else if let Some(kind) = encoded_secret(run, padded) {
            push(spans, i, end, kind);
        }
        i = end;
    }
}

/// behaviour §4.2's high-entropy rule with the exemptions that keep prose out (README, "Privacy and
/// data-subject rights", lists what is still flagged). `padded`: an `=` follows the run.
pub(super) fn is_high_entropy(run: &[u8], padded: bool) -> bool {
    run.len() >= 14
        && (entropy(run) > 3.5 || is_long_hex(run))
        && !is_word_like(run)
        && !is_uuid(run)
        && !is_base64_text(run, padded)
}

/// Shannon entropy in bits per character.
pub fn entropy(run: &[u8]) -> f64 {
    step(run.len());
    let mut counts = [0u32; 256];
    for b in run {
        if let Some(count) = counts.get_mut(usize::from(*b)) {
            *count += 1;
        }
    }
    let n = run.len() as f64;
    counts
        .iter()
        .filter(|c| **c > 0)
        .map(|c| {
            let p = f64::from(*c) / n;
            -p * p.log2()
        })
        .sum()
}

/// Whether every part between separators (`/ - _ . + ~ $`) reads as a word or a number: all
/// digits, all lowercase, Capitalised, ALL CAPS, camelCase with humps of ≥ 2 lowercase letters,
/// or at most three characters. Random keys mix digits, cases and letters within a part.
pub(super) fn is_word_like(run: &[u8]) -> bool {
    step(run.len());
    run.split(|b| matches!(b, b'/' | b'-' | b'_' | b'.' | b'+' | b'~' | b'$'))
        .all(is_word_part)
}

fn is_word_part(part: &[u8]) -> bool {
    if part.len() <= 3 || part.iter().all(u8::is_ascii_digit) {
        return true;
    }
    if !part.iter().all(u8::is_ascii_alphabetic) {
        return false;
    }
    if part.iter().all(u8::is_ascii_uppercase) {
        return true;
    }
    // Lowercase letters, each uppercase one (the first excepted) followed by ≥ 2 lowercase.
    let mut lower_run = usize::MAX;
    for (i, b) in part.iter().enumerate() {
        if b.is_ascii_uppercase() {
            if i > 0 && lower_run < 2 {
                return false;
            }
            lower_run = 0;
        } else {
            lower_run = lower_run.saturating_add(1);
        }
    }
    lower_run >= 2
}

/// At least 32 hex digits mixing digits and letters: a hex key or digest. Hex has at most 4 bits
/// per character, so the entropy of a short random sample often falls under 3.5 (measured: 7 %
/// of random 40-digit hex keys); this rule catches those.
fn is_long_hex(run: &[u8]) -> bool {
    step(run.len());
    run.len() >= 32
        && run.iter().all(u8::is_ascii_hexdigit)
        && run.iter().any(u8::is_ascii_digit)
        && run.iter().any(u8::is_ascii_alphabetic)
}

/// Words that name the hex digest after them in prose (`commit 9d48…`, `sha256: e3b0…`).
const DIGEST_NAMES: &[&[u8]] = &[
    b"commit",
    b"sha",
    b"sha1",
    b"sha-1",
    b"sha256",
    b"sha-256",
    b"sha512",
    b"sha-512",
    b"md5",
    b"hash",
    b"digest",
    b"checksum",
    b"rev",
    b"revision",
];

/// A run of hex digits right after a word that names it a digest — `commit 9d48…`,
/// `sha256: e3b0…`, `(md5 = 9e10…)`: a hash in prose, not a key. Only what lies just before the
/// run is read (at most three separators and a word of at most eight letters), so the scan
/// stays linear.
fn is_named_digest(bytes: &[u8], start: usize, run: &[u8]) -> bool {
    step(run.len());
    if !run.iter().all(u8::is_ascii_hexdigit) {
        return false;
    }
    let mut end = start;
    while end > 0
        && start - end < 3
        && matches!(
            at(bytes, end - 1),
            b' ' | b'\t' | b':' | b'=' | b'#' | b'(' | b'`' | b'"' | b'\''
        )
    {
        end -= 1;
    }
    if end == start {
        return false;
    }
    let mut from = end;
    while from > 0
        && end - from < 8
        && (is_alnum(at(bytes, from - 1)) || at(bytes, from - 1) == b'-')
    {
        from -= 1;
    }
    let starts_word = from == 0 || !is_alnum(at(bytes, from - 1));
    let word = bytes.get(from..end).unwrap_or(&[]).to_ascii_lowercase();
    starts_word && DIGEST_NAMES.contains(&word.as_slice())
}

/// `xxxxxxxx-xxxx-xxxx-xxxx-xxxxxxxxxxxx` in hex.
fn is_uuid(run: &[u8]) -> bool {
    run.len() == 36
        && run.iter().enumerate().all(|(i, b)| match i {
            8 | 13 | 18 | 23 => *b == b'-',
            _ => b.is_ascii_hexdigit(),
        })
}

/// Standard base64 (`padded`: an `=` followed) whose bytes are UTF-8 text without control
/// characters: encoded text, not a random key (random bytes are almost never such text).
fn is_base64_text(run: &[u8], padded: bool) -> bool {
    base64_text(run, padded).is_some()
}

/// The text a base64 run encodes ([`is_base64_text`]), if it is one.
fn base64_text(run: &[u8], padded: bool) -> Option<String> {
    match base64_decode(run) {
        Some(decoded) if padded || run.len() % 4 == 0 => String::from_utf8(decoded)
            .ok()
            .filter(|t| !t.is_empty() && !t.chars().any(|c| c.is_control() && c != '\n')),
        _ => None,
    }
}

/// How many times a text inside base64 inside base64 … is opened: each level is three quarters
/// of the one around it, so the work stays linear; the bound keeps the recursion shallow.
const MAX_ENCODED_DEPTH: u8 = 3;

thread_local! {
    static ENCODED_DEPTH: std::cell::Cell<u8> = const { std::cell::Cell::new(0) };
}

/// The kind of the credential a base64 run hides: encoded text is exempt from the entropy rule
/// as text, but what it encodes is scanned like any text (a base64-wrapped API key is still an
/// API key). `None` for a run that encodes no text, or text without a credential.
fn encoded_secret(run: &[u8], padded: bool) -> Option<CredentialKind> {
    if run.len() < 16 {
        return None;
    }
    let depth = ENCODED_DEPTH.with(std::cell::Cell::get);
    if depth >= MAX_ENCODED_DEPTH {
        return None;
    }
    let text = base64_text(run, padded)?;
    ENCODED_DEPTH.with(|d| d.set(depth + 1));
    let found = super::scan(&text, false).first().map(|span| span.kind);
    ENCODED_DEPTH.with(|d| d.set(depth));
    found
}

pub(super) fn base64_decode(run: &[u8]) -> Option<Vec<u8>> {
    step(run.len());
    if run.len() % 4 == 1 {
        return None;
    }
    let mut out = Vec::with_capacity(run.len() * 3 / 4);
    let (mut acc, mut bits) = (0u32, 0u32);
    for b in run {
        let v = match b {
            b'A'..=b'Z' => b - b'A',
            b'a'..=b'z' => b - b'a' + 26,
            b'0'..=b'9' => b - b'0' + 52,
            b'+' => 62,
            b'/' => 63,
            _ => return None,
        };
        acc = (acc << 6) | u32::from(v);
        bits += 6;
        if bits >= 8 {
            bits -= 8;
            out.push((acc >> bits) as u8);
            acc &= (1 << bits) - 1;
        }
    }
    Some(out)
}
