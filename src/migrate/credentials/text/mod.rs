//! The credential shapes inside one text (SPEC §4.2): every rule finds the byte ranges of the
//! secret part only (the token after `Bearer`, the password of `user:password@`, the value of
//! `api_key=`), so redaction keeps the context a log reader needs. Hand-written scanners over
//! bytes, each linear in the text: no regex engine in the wasm.

use super::names::{is_credential_name, is_query_credential_name};
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

/// [`redact`] with another marker (`[redacted]` for memory, SPEC §8.1), also answering how many
/// secrets were replaced (merged neighbours count once; a text given up on counts its spans).
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

fn at(bytes: &[u8], i: usize) -> u8 {
    bytes.get(i).copied().unwrap_or(0)
}

/// The end of the run of bytes satisfying `class` that starts at `from`.
fn run_end(bytes: &[u8], from: usize, class: impl Fn(u8) -> bool) -> usize {
    let mut end = from;
    while end < bytes.len() && class(at(bytes, end)) {
        end += 1;
    }
    end
}

fn is_alnum(b: u8) -> bool {
    b.is_ascii_alphanumeric()
}

/// Characters of API tokens: letters, digits, `_` and `-`.
fn is_token_byte(b: u8) -> bool {
    b.is_ascii_alphanumeric() || b == b'_' || b == b'-'
}

/// SPEC §4.2's alphabet of high-entropy strings: `[A-Za-z0-9_.+/~$-]`.
pub(super) fn is_entropy_byte(b: u8) -> bool {
    b.is_ascii_alphanumeric() || matches!(b, b'_' | b'.' | b'+' | b'/' | b'~' | b'$' | b'-')
}

/// The bytes a token after `Bearer ` / `Basic ` may have (RFC 6750's b64token).
fn is_b64token_byte(b: u8) -> bool {
    b.is_ascii_alphanumeric() || matches!(b, b'-' | b'.' | b'_' | b'~' | b'+' | b'/' | b'=')
}

fn starts_with_ignore_case(bytes: &[u8], from: usize, word: &[u8]) -> bool {
    bytes
        .get(from..from + word.len())
        .is_some_and(|b| b.eq_ignore_ascii_case(word))
}

fn push(spans: &mut Vec<Span>, start: usize, end: usize, kind: CredentialKind) {
    spans.push(Span { start, end, kind });
}

/// PEM private keys: from `-----BEGIN … PRIVATE KEY…-----` to the end of the matching
/// `-----END …-----` line (or the end of the text when it was cut off).
fn private_keys(text: &str, spans: &mut Vec<Span>) {
    const BEGIN: &str = "-----BEGIN ";
    let mut from = 0;
    while let Some(found) = text.get(from..).and_then(|rest| rest.find(BEGIN)) {
        let start = from + found;
        let header_from = start + BEGIN.len();
        let rest = text.get(header_from..).unwrap_or("");
        let window = rest.as_bytes().get(..80).unwrap_or(rest.as_bytes());
        let header_len = window
            .windows(5)
            .position(|w| w == b"-----")
            .unwrap_or(window.len());
        let header = rest.as_bytes().get(..header_len).unwrap_or(&[]);
        let header = std::str::from_utf8(header).unwrap_or("");
        from = header_from;
        if !header.contains("PRIVATE KEY") {
            continue;
        }
        let end = match rest.find("-----END ") {
            Some(end_at) => {
                let after = header_from + end_at + "-----END ".len();
                let tail = text.get(after..).unwrap_or("");
                tail.find("-----")
                    .map_or(text.len(), |close| after + close + "-----".len())
            }
            None => text.len(),
        };
        push(spans, start, end, CredentialKind::PrivateKey);
        from = end.max(header_from);
    }
}

/// `Bearer <token>` and `Basic <base64 of user:password>` (case-insensitive, anywhere).
fn authorization(bytes: &[u8], spans: &mut Vec<Span>) {
    let mut i = 0;
    while i < bytes.len() {
        let scheme = if starts_with_ignore_case(bytes, i, b"bearer") {
            6
        } else if starts_with_ignore_case(bytes, i, b"basic") {
            5
        } else {
            i += 1;
            continue;
        };
        let boundary = i == 0 || !is_alnum(at(bytes, i - 1));
        let gap = run_end(bytes, i + scheme, |b| b == b' ' || b == b'\t');
        if !boundary || gap == i + scheme {
            i += scheme;
            continue;
        }
        let start = gap;
        let end = run_end(bytes, start, is_b64token_byte);
        let token = bytes.get(start..end).unwrap_or(&[]);
        let secret = if scheme == 6 {
            token.len() >= 12 && !is_word_like(token)
        } else {
            decodes_to_user_password(token) || (token.len() >= 12 && !is_word_like(token))
        };
        if secret {
            push(spans, start, end, CredentialKind::AuthorizationHeader);
            i = end;
        } else {
            i += scheme;
        }
    }
}

/// Provider-prefixed keys (OpenAI-style `sk-`, payment-provider `sk_live_`/`rk_live_`, chat
/// platforms' `xoxb-` and Telegram's `<bot id>:<secret>`, source hosts' `ghp_`, `glpat-`, Google's
/// `AIza`), AWS access key ids and JWTs — each a whole token.
fn tokens(bytes: &[u8], spans: &mut Vec<Span>) {
    const PREFIXES: &[&[u8]] = &[
        b"sk-",
        b"sk_live_",
        b"sk_test_",
        b"rk_live_",
        b"rk_test_",
        b"whsec_",
        b"xoxb-",
        b"xoxp-",
        b"xoxa-",
        b"xoxr-",
        b"xoxs-",
        b"xapp-",
        b"ghp_",
        b"gho_",
        b"ghu_",
        b"ghs_",
        b"ghr_",
        b"github_pat_",
        b"glpat-",
        b"AIza",
        b"npm_",
    ];
    const AWS: &[&[u8]] = &[b"AKIA", b"ASIA", b"ABIA", b"ACCA"];
    let mut i = 0;
    while i < bytes.len() {
        if !is_token_byte(at(bytes, i)) || (i > 0 && is_token_byte(at(bytes, i - 1))) {
            i += 1;
            continue;
        }
        let end = run_end(bytes, i, is_token_byte);
        let token = bytes.get(i..end).unwrap_or(&[]);
        // A JWT: three (JWS) or five (JWE) base64url parts, the header a JSON object (`eyJ`).
        if token.starts_with(b"eyJ") && at(bytes, end) == b'.' {
            let jwt_end = run_end(bytes, i, |b| is_token_byte(b) || b == b'.');
            let parts: Vec<&[u8]> = bytes
                .get(i..jwt_end)
                .unwrap_or(&[])
                .split(|b| *b == b'.')
                .collect();
            let well_formed = matches!(parts.len(), 3 | 5)
                && parts.first().is_some_and(|h| h.len() >= 10)
                && parts.get(1).is_some_and(|p| p.len() >= 2);
            if well_formed {
                push(spans, i, jwt_end, CredentialKind::Jwt);
            }
            // A dotted run is read once (`eyJa.eyJa.…` stays linear).
            i = jwt_end;
            continue;
        }
        let keyed = PREFIXES.iter().find_map(|p| token.strip_prefix(*p));
        if keyed.is_some_and(|rest| rest.len() >= 16 && !is_word_like(rest)) {
            push(spans, i, end, CredentialKind::ApiKey);
        } else if token.len() >= 8
            && token.len() <= 10
            && token.iter().all(u8::is_ascii_digit)
            && at(bytes, end) == b':'
        {
            let secret_end = run_end(bytes, end + 1, is_token_byte);
            if secret_end - (end + 1) >= 30 {
                push(spans, i, secret_end, CredentialKind::ApiKey);
                i = secret_end;
                continue;
            }
        } else if token.len() == 20
            && AWS.iter().any(|p| token.starts_with(p))
            && token
                .iter()
                .all(|b| b.is_ascii_uppercase() || b.is_ascii_digit())
        {
            push(spans, i, end, CredentialKind::AwsAccessKey);
        }
        i = end;
    }
}

/// The password of `scheme://user:password@host` (connection strings, URLs).
fn url_passwords(bytes: &[u8], spans: &mut Vec<Span>) {
    let mut i = 0;
    while i + 3 <= bytes.len() {
        if bytes.get(i..i + 3) != Some(b"://") {
            i += 1;
            continue;
        }
        let from = i + 3;
        let end = run_end(bytes, from, |b| {
            !matches!(b, b'/' | b'?' | b'#' | b'"' | b'\'' | b'<' | b'>' | b'\\')
                && !b.is_ascii_whitespace()
        });
        let authority = bytes.get(from..end).unwrap_or(&[]);
        if let Some(at_sign) = authority.iter().rposition(|b| *b == b'@') {
            let userinfo = authority.get(..at_sign).unwrap_or(&[]);
            if let Some(colon) = userinfo.iter().position(|b| *b == b':') {
                let (start, stop) = (from + colon + 1, from + at_sign);
                let password = bytes.get(start..stop).unwrap_or(&[]);
                if !password.is_empty() && !is_placeholder(password) {
                    push(spans, start, stop, CredentialKind::UrlPassword);
                }
            }
        }
        i = end.max(from);
    }
}

/// A credential-named parameter and its value: `?api_key=…`/`&token=…` in a URL query,
/// `Password=…;` in a connection string, `password: …` in a log line.
fn parameters(bytes: &[u8], spans: &mut Vec<Span>) {
    // A value is read once: scanning resumes after it (so `a=a=a=…` stays linear).
    let mut resume = 0;
    for (i, b) in bytes.iter().enumerate() {
        if (*b != b'=' && *b != b':') || i < resume {
            continue;
        }
        // `password=…`, `"password": …` (JSON or YAML in a log line).
        let quote_before = matches!(i.checked_sub(1).map(|j| at(bytes, j)), Some(b'"' | b'\''));
        let name_end = if quote_before { i - 1 } else { i };
        let mut name_start = name_end;
        while name_start > 0 && {
            let c = at(bytes, name_start - 1);
            c.is_ascii_alphanumeric() || matches!(c, b'_' | b'-' | b'.')
        } {
            name_start -= 1;
        }
        let name = bytes.get(name_start..name_end).unwrap_or(&[]);
        let Ok(name) = std::str::from_utf8(name) else {
            continue;
        };
        let opening = name_start.checked_sub(1).map(|j| at(bytes, j));
        if quote_before && opening != Some(at(bytes, i - 1)) {
            continue;
        }
        let name_start = if quote_before {
            name_start - 1
        } else {
            name_start
        };
        let before = name_start.checked_sub(1).map(|j| at(bytes, j));
        let in_query = *b == b'=' && matches!(before, Some(b'?' | b'&'));
        let named = is_credential_name(name) || (in_query && is_query_credential_name(name));
        if name.is_empty() || !named {
            continue;
        }
        let mut start = run_end(bytes, i + 1, |c| c == b' ' || c == b'\t');
        if *b == b':' && start == i + 1 && at(bytes, start) == b'/' {
            continue; // `scheme://`
        }
        let quote = at(bytes, start);
        let end = if quote == b'"' || quote == b'\'' {
            start += 1;
            let mut end = start;
            while end < bytes.len() && at(bytes, end) != quote && at(bytes, end) != b'\n' {
                end += if at(bytes, end) == b'\\' { 2 } else { 1 };
            }
            end.min(bytes.len())
        } else {
            run_end(bytes, start, |c| {
                !matches!(c, b'&' | b';' | b'#' | b'"' | b'\'' | b',' | b'}' | b')')
                    && !c.is_ascii_whitespace()
            })
        };
        resume = end;
        let value = bytes.get(start..end).unwrap_or(&[]);
        // Flags, and the scheme of an `Authorization:` header (its own rule finds the token).
        let flag = value.len() <= 9
            && matches!(
                value.to_ascii_lowercase().as_slice(),
                b"true"
                    | b"false"
                    | b"null"
                    | b"none"
                    | b"yes"
                    | b"no"
                    | b"undefined"
                    | b"bearer"
                    | b"basic"
            );
        if !flag && holds_secret_characters(value) {
            push(spans, start, end, CredentialKind::Parameter);
        }
    }
}

/// Runs of `[A-Za-z0-9_.+/~$-]` of at least 14 characters whose Shannon entropy exceeds 3.5
/// bits per character — except runs that read as words (prose, compound words, paths of words,
/// numbers), canonical UUIDs, and base64 that decodes to text.
fn high_entropy(bytes: &[u8], spans: &mut Vec<Span>) {
    let mut i = 0;
    while i < bytes.len() {
        if !is_entropy_byte(at(bytes, i)) {
            i += 1;
            continue;
        }
        let end = run_end(bytes, i, is_entropy_byte);
        let run = bytes.get(i..end).unwrap_or(&[]);
        if is_high_entropy(run, at(bytes, end) == b'=') && !is_named_digest(bytes, i, run) {
            push(spans, i, end, CredentialKind::HighEntropy);
        }
        i = end;
    }
}

/// SPEC §4.2's high-entropy rule with the exemptions that keep prose out (README, "Privacy and
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
fn is_word_like(run: &[u8]) -> bool {
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
    match base64_decode(run) {
        Some(decoded) if padded || run.len() % 4 == 0 => std::str::from_utf8(&decoded)
            .is_ok_and(|t| !t.is_empty() && !t.chars().any(|c| c.is_control() && c != '\n')),
        _ => false,
    }
}

fn base64_decode(run: &[u8]) -> Option<Vec<u8>> {
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

/// A `Basic` token: base64 of `user:password`.
fn decodes_to_user_password(token: &[u8]) -> bool {
    let trimmed = token
        .strip_suffix(b"==")
        .or_else(|| token.strip_suffix(b"="));
    base64_decode(trimmed.unwrap_or(token)).is_some_and(|d| {
        d.contains(&b':')
            && d.len() >= 3
            && std::str::from_utf8(&d).is_ok_and(|t| !t.chars().any(char::is_control))
    })
}

/// Whether a value has anything a secret is made of once `[REDACTED]` markers are taken out: a
/// letter, a digit or a non-ASCII character (`***`, `:=` and `--` are not secrets, and what
/// redaction leaves next to its marker must not read as one).
fn holds_secret_characters(value: &[u8]) -> bool {
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
