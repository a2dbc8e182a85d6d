//! The scanners of credential shapes (behaviour §4.2): PEM private keys, `Bearer`/`Basic` tokens,
//! provider-prefixed keys and JWTs, URL passwords, credential-named parameters. Each reads the
//! text once, left to right, and finds the byte ranges of the secret part only.

use super::entropy::{base64_decode, is_word_like};
use super::{
    at, find_either, holds_secret_characters, is_alnum, is_b64token_byte, is_placeholder,
    is_token_byte, push, run_end, starts_with_ignore_case, step, Span,
};
use crate::migrate::credentials::names::{is_credential_name, is_query_credential_name};
use crate::migrate::credentials::CredentialKind;

/// PEM private keys: from `-----BEGIN … PRIVATE KEY…-----` to the end of the matching
/// `-----END …-----` line (or the end of the text when it was cut off).
pub(super) fn private_keys(text: &str, spans: &mut Vec<Span>) {
    const BEGIN: &str = "-----BEGIN ";
    let mut from = 0;
    while let Some(found) = text.get(from..).and_then(|rest| rest.find(BEGIN)) {
        step(found + BEGIN.len());
        let start = from + found;
        let header_from = start + BEGIN.len();
        let rest = text.get(header_from..).unwrap_or("");
        let window = rest.as_bytes().get(..80).unwrap_or(rest.as_bytes());
        let header_len = window
            .windows(5)
            .position(|w| w == b"-----")
            .unwrap_or(window.len());
        step(window.len() + header_len);
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
                step(end_at + tail.find("-----").unwrap_or(tail.len()));
                tail.find("-----")
                    .map_or(text.len(), |close| after + close + "-----".len())
            }
            None => {
                step(rest.len());
                text.len()
            }
        };
        push(spans, start, end, CredentialKind::PrivateKey);
        from = end.max(header_from);
    }
    step(text.len().saturating_sub(from));
}

/// `Bearer <token>` and `Basic <base64 of user:password>` (case-insensitive, anywhere).
pub(super) fn authorization(bytes: &[u8], spans: &mut Vec<Span>) {
    let mut i = 0;
    loop {
        // Both schemes start with `b`: found eight bytes a step before the word comparisons.
        i = find_either(bytes, i, b'b', b'B');
        if i >= bytes.len() {
            break;
        }
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
pub(super) fn tokens(bytes: &[u8], spans: &mut Vec<Span>) {
    // The prefixes by their first byte: a token is compared only with those it could start.
    fn prefixes(first: u8) -> &'static [&'static [u8]] {
        match first {
            b's' => &[b"sk-", b"sk_live_", b"sk_test_"],
            b'r' => &[b"rk_live_", b"rk_test_"],
            b'w' => &[b"whsec_"],
            b'x' => &[b"xoxb-", b"xoxp-", b"xoxa-", b"xoxr-", b"xoxs-", b"xapp-"],
            b'g' => &[
                b"ghp_",
                b"gho_",
                b"ghu_",
                b"ghs_",
                b"ghr_",
                b"github_pat_",
                b"glpat-",
            ],
            b'A' => &[b"AIza"],
            b'n' => &[b"npm_"],
            _ => &[],
        }
    }
    const AWS: &[&[u8]] = &[b"AKIA", b"ASIA", b"ABIA", b"ACCA"];
    let mut i = 0;
    // `i` is always at a token's first byte or outside any token: every jump below lands on a
    // byte that ends a token, so the byte before a token byte reached here is never one.
    while i < bytes.len() {
        if !is_token_byte(at(bytes, i)) {
            i += 1;
            continue;
        }
        let end = run_end(bytes, i, is_token_byte);
        let token = bytes.get(i..end).unwrap_or(&[]);
        // A JWT: three (JWS) or five (JWE) base64url parts, the header a JSON object (`eyJ`).
        // The `.` first: with the core built for size, `starts_with` is a call to `memcmp`.
        if at(bytes, end) == b'.' && token.starts_with(b"eyJ") {
            let jwt_end = run_end(bytes, i, |b| is_token_byte(b) || b == b'.');
            step(jwt_end - i);
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
        // The shortest prefix has three bytes and a key at least 16 more: most words are shorter,
        // and are compared with no prefix.
        let candidates = if token.len() >= 19 {
            prefixes(at(bytes, i))
        } else {
            &[]
        };
        step(candidates.len());
        let keyed = candidates.iter().find_map(|p| token.strip_prefix(*p));
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
pub(super) fn url_passwords(bytes: &[u8], spans: &mut Vec<Span>) {
    let mut i = 0;
    loop {
        i = find_either(bytes, i, b':', b':');
        if i + 3 > bytes.len() {
            break;
        }
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
        step(authority.len());
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
pub(super) fn parameters(bytes: &[u8], spans: &mut Vec<Span>) {
    // A value is read once: scanning resumes after it (so `a=a=a=…` stays linear).
    let mut resume = 0;
    let mut next = 0;
    loop {
        // Every value follows a `=` or a `:`: found eight bytes a step.
        let i = find_either(bytes, next, b'=', b':');
        let Some(b) = bytes.get(i) else {
            break;
        };
        next = i + 1;
        if i < resume {
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
        step(2 * name.len());
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

/// A `Basic` token: base64 of `user:password`.
fn decodes_to_user_password(token: &[u8]) -> bool {
    let trimmed = token
        .strip_suffix(b"==")
        .or_else(|| token.strip_suffix(b"="));
    base64_decode(trimmed.unwrap_or(token)).is_some_and(|d| {
        step(d.len());
        d.contains(&b':')
            && d.len() >= 3
            && std::str::from_utf8(&d).is_ok_and(|t| !t.chars().any(char::is_control))
    })
}
