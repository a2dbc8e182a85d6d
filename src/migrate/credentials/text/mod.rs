//! The credential shapes inside one text (behaviour §4.2): every rule finds the byte ranges of the
//! secret part only (the token after `Bearer`, the password of `user:password@`, the value of
//! `api_key=`), so redaction keeps the context a log reader needs. Hand-written scanners over
//! bytes, each linear in the text: no regex engine in the wasm.
//!
//! The scanners of the shapes are in [`scanners`], the high-entropy rule in [`entropy`]; this
//! module merges their spans, redacts, and holds the byte classes they share. Each scanner counts
//! its work ([`step`]) so a test asserts that a scan is linear in the text — work, not time.

mod entropy;
mod scanners;

use entropy::high_entropy;
use scanners::{authorization, parameters, private_keys, tokens, url_passwords};

pub use entropy::entropy;

use super::CredentialKind;

/// A secret inside a text: `text[start..end]`.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Span {
    /// First byte of the secret.
    pub start: usize,
    /// One past its last byte.
    pub end: usize,
    /// Which rule found it.
    pub kind: CredentialKind,
}

/// Every secret in `text`, ordered by start (a span found by a specific rule before an
/// overlapping high-entropy one). `structural`: the text is an id or timestamp field, where the
/// high-entropy rule does not apply (the shapes still do).
pub fn scan(text: &str, structural: bool) -> Vec<Span> {
    let bytes = text.as_bytes();
    // Each rule finds its spans in text order; merging the lists (ties: the earlier rule first)
    // costs less code than a sort.
    let mut lists: [Vec<Span>; 6] = Default::default();
    let [pem, auth, token, url, parameter, entropy] = &mut lists;
    private_keys(text, pem);
    authorization(bytes, auth);
    tokens(bytes, token);
    url_passwords(bytes, url);
    parameters(bytes, parameter);
    if !structural {
        high_entropy(bytes, entropy);
    }
    let mut queues: Vec<_> = lists
        .into_iter()
        .map(|l| l.into_iter().peekable())
        .collect();
    let mut spans = Vec::new();
    while let Some((_, n)) = queues
        .iter_mut()
        .enumerate()
        .filter_map(|(n, q)| q.peek().map(|s| (s.start, n)))
        .min()
    {
        step(1);
        spans.extend(queues.get_mut(n).and_then(Iterator::next));
    }
    spans
}

/// `text` with every secret replaced by [`super::REDACTED`] (overlapping spans merged).
///
/// Replacing a secret can join what surrounded it into a new shape (a quote inside a PEM block
/// that ended a quoted value, say), so redaction repeats until a scan finds nothing — at most
/// [`REDACTION_ROUNDS`] times, after which the whole text is the marker. What it returns never
/// holds a credential by this detector.
pub fn redact(text: &str, structural: bool) -> Option<String> {
    redact_with(text, structural, super::REDACTED).map(|(out, _)| out)
}

/// [`redact`] with another marker (`[redacted]` for memory, behaviour §8.1), also answering how
/// many secrets were replaced (merged neighbours count once; a text given up on counts its spans).
pub fn redact_with(text: &str, structural: bool, marker: &str) -> Option<(String, usize)> {
    let mut spans = scan(text, structural);
    if spans.is_empty() {
        return None;
    }
    let mut out = text.to_string();
    let mut count = 0;
    for _ in 0..REDACTION_ROUNDS {
        let (next, replaced) = replace_spans(&out, spans, marker);
        out = next;
        count += replaced;
        spans = scan(&out, structural);
        if spans.is_empty() {
            return Some((out, count));
        }
    }
    Some((marker.to_string(), count + spans.len()))
}

/// Rounds of [`redact`] before it gives up on keeping context.
pub const REDACTION_ROUNDS: usize = 4;

/// `text` with `spans` (in text order) replaced by `marker`, and how many ranges were replaced.
fn replace_spans(text: &str, spans: Vec<Span>, marker: &str) -> (String, usize) {
    // Each secret grows to whole runs of the entropy alphabet on both sides: what is left next
    // to the marker is then never a shorter — and so more random-looking — piece of a run.
    let bytes = text.as_bytes();
    let mut merged: Vec<(usize, usize)> = Vec::new();
    for span in spans {
        // Never back over what is already merged, never forward over it again: linear.
        let floor = merged.last().map_or(0, |last| last.1);
        let mut start = span.start;
        while start > floor && is_entropy_byte(at(bytes, start - 1)) {
            start -= 1;
        }
        let end = run_end(bytes, span.end.max(floor), is_entropy_byte);
        match merged.last_mut() {
            Some(last) if start <= last.1 => last.1 = last.1.max(end),
            _ => merged.push((start, end)),
        }
    }
    let mut out = String::with_capacity(text.len());
    let mut at = 0;
    let replaced = merged.len();
    for (start, end) in merged {
        step(end.saturating_sub(at));
        out.push_str(text.get(at..start).unwrap_or(""));
        out.push_str(marker);
        // A secret that ended inside a run (a PEM block, a value cut at a space) must not join
        // the marker with what follows into a new run: redacting again would find it.
        if text
            .as_bytes()
            .get(end)
            .is_some_and(|b| is_b64token_byte(*b))
        {
            out.push(' ');
        }
        at = end;
    }
    out.push_str(text.get(at..).unwrap_or(""));
    (out, replaced)
}

// Steps the scanners took on this thread: a byte read, or the bytes a search or a check went
// over. Counted in tests only, where a scan of a text four times as long must take at most about
// four times the steps (quadratic work would take sixteen).
#[cfg(test)]
thread_local! {
    static STEPS: std::cell::Cell<usize> = const { std::cell::Cell::new(0) };
}

/// Count `n` steps of a scan (nothing outside tests).
#[inline(always)]
fn step(n: usize) {
    #[cfg(test)]
    STEPS.with(|steps| steps.set(steps.get().saturating_add(n)));
    #[cfg(not(test))]
    let _ = n;
}

#[inline(always)]
fn at(bytes: &[u8], i: usize) -> u8 {
    step(1);
    bytes.get(i).copied().unwrap_or(0)
}

/// The first position from `from` holding byte `a` or `b` (`bytes.len()` when none), eight bytes
/// a step: the rules that start on a rare byte (`:`, `=`, the `b` of `Bearer`) skip prose this
/// way instead of testing it byte by byte.
fn find_either(bytes: &[u8], from: usize, a: u8, b: u8) -> usize {
    const LOW: u64 = 0x0101_0101_0101_0101;
    const HIGH: u64 = 0x8080_8080_8080_8080;
    let (fill_a, fill_b) = (LOW * u64::from(a), LOW * u64::from(b));
    let mut at = from;
    while let Some(word) = bytes.get(at..).and_then(<[u8]>::first_chunk::<8>) {
        let word = u64::from_le_bytes(*word);
        let (xa, xb) = (word ^ fill_a, word ^ fill_b);
        // A zero byte of `xa` or `xb` is a match; the lowest flagged byte is the first match
        // (the borrow can only flag bytes above a real zero).
        let found = ((xa.wrapping_sub(LOW) & !xa) | (xb.wrapping_sub(LOW) & !xb)) & HIGH;
        if found != 0 {
            at += (found.trailing_zeros() / 8) as usize;
            step(at - from);
            return at;
        }
        at += 8;
    }
    let end = bytes
        .iter()
        .skip(at)
        .position(|&c| c == a || c == b)
        .map_or(bytes.len(), |i| at + i);
    step(end.saturating_sub(from));
    end
}

/// The end of the run of bytes satisfying `class` that starts at `from`.
#[inline(always)]
fn run_end(bytes: &[u8], from: usize, class: impl Fn(u8) -> bool) -> usize {
    let mut end = from;
    while end < bytes.len() && class(at(bytes, end)) {
        end += 1;
    }
    end
}

// The byte classes the scanners test on every byte, as one table load each (a chain of range
// comparisons per byte was a third of a scan). These and the byte reads are inlined always: with
// the core built for size each was a call per byte (docs/internals/measurements.md).
const ALNUM: u8 = 1;
const TOKEN: u8 = 2;
const ENTROPY: u8 = 4;
const B64TOKEN: u8 = 8;

const fn class_of(b: u8) -> u8 {
    let alnum = b.is_ascii_alphanumeric();
    let mut class = 0;
    if alnum {
        class |= ALNUM;
    }
    if alnum || b == b'_' || b == b'-' {
        class |= TOKEN;
    }
    if alnum || matches!(b, b'_' | b'.' | b'+' | b'/' | b'~' | b'$' | b'-') {
        class |= ENTROPY;
    }
    if alnum || matches!(b, b'-' | b'.' | b'_' | b'~' | b'+' | b'/' | b'=') {
        class |= B64TOKEN;
    }
    class
}

// A const block cannot call `get_mut`; `b` runs over exactly the table's 256 indices.
#[allow(clippy::indexing_slicing)]
static CLASSES: [u8; 256] = {
    let mut table = [0u8; 256];
    let mut b = 0;
    while b < 256 {
        table[b] = class_of(b as u8);
        b += 1;
    }
    table
};

#[inline(always)]
fn has_class(b: u8, class: u8) -> bool {
    // A `u8` index into 256 entries: always present (the check compiles away).
    CLASSES.get(usize::from(b)).is_some_and(|c| c & class != 0)
}

#[inline(always)]
fn is_alnum(b: u8) -> bool {
    has_class(b, ALNUM)
}

/// Characters of API tokens: letters, digits, `_` and `-`.
#[inline(always)]
fn is_token_byte(b: u8) -> bool {
    has_class(b, TOKEN)
}

/// behaviour §4.2's alphabet of high-entropy strings: `[A-Za-z0-9_.+/~$-]`.
#[inline(always)]
pub(super) fn is_entropy_byte(b: u8) -> bool {
    has_class(b, ENTROPY)
}

/// The bytes a token after `Bearer ` / `Basic ` may have (RFC 6750's b64token).
#[inline(always)]
fn is_b64token_byte(b: u8) -> bool {
    has_class(b, B64TOKEN)
}

fn starts_with_ignore_case(bytes: &[u8], from: usize, word: &[u8]) -> bool {
    step(word.len());
    bytes
        .get(from..from + word.len())
        .is_some_and(|b| b.eq_ignore_ascii_case(word))
}

fn push(spans: &mut Vec<Span>, start: usize, end: usize, kind: CredentialKind) {
    spans.push(Span { start, end, kind });
}

/// Whether a value has anything a secret is made of once `[REDACTED]` markers are taken out: a
/// letter, a digit or a non-ASCII character (`***`, `:=` and `--` are not secrets, and what
/// redaction leaves next to its marker must not read as one).
fn holds_secret_characters(value: &[u8]) -> bool {
    step(value.len());
    let text = without_markers(&String::from_utf8_lossy(value));
    !is_placeholder(text.as_bytes())
        && text
            .bytes()
            .any(|b| b.is_ascii_alphanumeric() || !b.is_ascii())
}

/// `text` without the markers redaction writes ([`super::MARKERS`]).
fn without_markers(text: &str) -> String {
    super::MARKERS
        .iter()
        .fold(text.to_string(), |rest, marker| rest.replace(marker, ""))
}

/// A masked or already-redacted value: `[REDACTED]` or `[redacted]` (once or more), `***`,
/// `••••`.
pub(super) fn is_placeholder(value: &[u8]) -> bool {
    step(value.len());
    let text = std::str::from_utf8(value).unwrap_or("").trim();
    let rest = without_markers(text);
    (!text.is_empty() && rest.trim().is_empty())
        || (!rest.is_empty() && rest.chars().all(|c| matches!(c, '*' | '•' | 'x' | 'X')))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn kinds(text: &str) -> Vec<CredentialKind> {
        scan(text, false).into_iter().map(|s| s.kind).collect()
    }

    #[test]
    fn prose_compound_words_and_paths_are_not_high_entropy() {
        for text in [
            "Donaudampfschifffahrtsgesellschaftskapitän",
            "Kraftfahrzeug-Haftpflichtversicherung",
            "see https://example.com/docs/getting-started/installation?page=2",
            "/home/user/projects/memcore-2024/README.md",
            "550e8400-e29b-41d4-a716-446655440000",
            "SGVsbG8gd29ybGQsIGhvdyBhcmUgeW91Pw==",
            "2026-06-17T12:00:00.000Z",
            "getElementById and querySelectorAll",
        ] {
            assert_eq!(kinds(text), vec![], "{text}");
        }
    }

    #[test]
    fn random_keys_are_high_entropy() {
        assert_eq!(
            kinds("x Zq8vT2mPw9LkR4sY7b y"),
            vec![CredentialKind::HighEntropy]
        );
        assert_eq!(
            kinds("da39a3ee5e6b4b0d3255bfef95601890afd80709"),
            vec![CredentialKind::HighEntropy]
        );
    }

    #[test]
    fn provider_keys_are_found_at_their_shortest_among_words() {
        // `sk-` and 16 characters (19 bytes): the shortest key the prefix rule takes, after words
        // that start like a prefix and are too short to be one; 15 characters are not a key by
        // that rule. A JWT after a sentence's last word (`.` ends the word before it), and one
        // followed by a word.
        let key = "sk-Zq8vT2mPw9LkR4sY";
        let text = format!("so sk sky skim {key} then");
        let keys: Vec<Span> = scan(&text, false)
            .into_iter()
            .filter(|s| s.kind == CredentialKind::ApiKey)
            .collect();
        assert_eq!(keys.len(), 1);
        assert!(text.get(keys[0].start..keys[0].end) == Some(key));
        assert!(!kinds("sk-Zq8vT2mPw9LkR4s").contains(&CredentialKind::ApiKey));
        let jwt = "eyJhbGciOiJIUzI1NiJ9.eyJzdWIiOiIxIn0.c2lnbmF0dXJlX2hlcmU";
        for text in [format!("Done. {jwt}"), format!("token {jwt} here")] {
            assert_eq!(kinds(&text).first(), Some(&CredentialKind::Jwt), "{text}");
        }
    }

    #[test]
    fn secret_spans_cover_only_the_secret() {
        // Compared with `==`: a failing test must not print a secret either.
        let text = "postgres://app:s3cr3t@db:5432/x";
        let spans = scan(text, false);
        assert_eq!(spans.len(), 1);
        assert!(&text[spans[0].start..spans[0].end] == "s3cr3t");
        assert!(redact(text, false).unwrap() == "postgres://app:[REDACTED]@db:5432/x");
        assert!(
            redact("GET /x?page=2&api_key=abc123 HTTP/1.1", false).unwrap()
                == "GET /x?page=2&api_key=[REDACTED] HTTP/1.1"
        );
    }

    /// The steps of one scan and one redaction of `text`.
    fn work(text: &str) -> usize {
        STEPS.with(|steps| steps.set(0));
        let _ = scan(text, false);
        let _ = redact(text, false);
        STEPS.with(std::cell::Cell::get)
    }

    #[test]
    fn hostile_texts_are_scanned_in_linear_work() {
        // The units every rule starts on, repeated: four times the text is at most about four
        // times the work (a quadratic scan would take sixteen), and the work per byte is bounded.
        for unit in [
            "password=",
            "a=",
            "eyJa.",
            "bearer ",
            "Bearer x",
            "basic",
            "-----BEGIN RSA PRIVATE KEY-----",
            "-----BEGIN ",
            "://",
            "://a:b@",
            "\"token\":\"",
            "sk-",
            "12345678:",
            "Zq8vT2mPw9LkR4sY7bXc/",
            // base64 of prose, of an API key, and of base64: opened and scanned again.
            "SGVsbG8gd29ybGQsIHRoaXMgaXMgcGxhaW4gcHJvc2Uu",
            "c2stcHJvai1acTh2VDJtUHc5TGtSNHNZN2JYYzAxMjM",
            "WXpKemRHTklTblpoYVRGaFkxUm9NbFpFU25SVlNHTTFWRWQwVTA1SVRscE9Na3BaV1hwQmVFMXFUVDA9",
        ] {
            let small = unit.repeat(10_000 / unit.len());
            let large = unit.repeat(40_000 / unit.len());
            let (w_small, w_large) = (work(&small), work(&large));
            assert!(
                w_large <= w_small * 9 / 2,
                "{unit:?}: {w_small} steps for {} bytes, {w_large} for {}",
                small.len(),
                large.len()
            );
            assert!(
                w_large <= 200 * large.len(),
                "{unit:?}: {w_large} steps for {} bytes",
                large.len()
            );
        }
    }

    #[test]
    fn a_credential_wrapped_in_base64_is_found_under_its_own_kind() {
        // base64 of an API key, of an `api_key=` parameter, and base64 of base64 of the key.
        assert_eq!(
            kinds("token c2stcHJvai1acTh2VDJtUHc5TGtSNHNZN2JYYzAxMjM= here"),
            vec![CredentialKind::ApiKey]
        );
        assert_eq!(
            kinds("YXBpX2tleT1acTh2VDJtUHc5TGtSNHNZN2JYYw=="),
            vec![CredentialKind::Parameter]
        );
        assert_eq!(
            kinds("YzJzdGNISnZhaTFhY1RoMlZESnRVSGM1VEd0U05ITlpOMkpZWXpBeE1qTT0="),
            vec![CredentialKind::ApiKey]
        );
        // Encoded prose stays prose.
        assert_eq!(
            kinds("SGVsbG8gd29ybGQsIHRoaXMgaXMgcGxhaW4gcHJvc2Uu"),
            vec![]
        );
        let redacted = redact("k c2stcHJvai1acTh2VDJtUHc5TGtSNHNZN2JYYzAxMjM= end", false);
        assert!(redacted.is_some_and(|r| !r.contains("c2stcHJvai1")));
    }

    #[test]
    fn authorization_needs_a_token_not_a_word() {
        assert_eq!(kinds("Basic knowledge of Rust"), vec![]);
        assert_eq!(kinds("Bearer of bad news"), vec![]);
        assert_eq!(
            kinds("Basic dXNlcjpwYXNz"),
            vec![CredentialKind::AuthorizationHeader]
        );
    }
}
