//! Credential detection (behaviour §4.2): whether a JSON value holds a credential at any depth,
//! where, and of which kind — and the same detector redacting values and log text.
//!
//! The walk reads objects, arrays and strings that hold JSON (a string starting with `{` or `[`
//! that parses is walked as its value, the path going on inside it). Three rules, deliberately
//! cautious:
//! - **field names** ([`names::is_credential_name`]): a non-empty string or a number under
//!   `password`, `token`, `apiKey`, … — or a container holding one;
//! - **value shapes** in any string ([`text`]): `Bearer …`/`Basic …`, provider keys (`sk-…`,
//!   `sk_live_…`, `xoxb-…`, Telegram bot tokens, `ghp_…`, `AIza…`), JWTs, PEM private keys, AWS
//!   access key ids, `user:password@` in URLs, credential-named parameters (`?api_key=`,
//!   `Password=…;`);
//! - **high entropy** in strings outside structural fields ([`names::is_structural_name`]).
//!
//! Nothing here ever formats a value: results carry paths (made of field names and indexes) and
//! kinds only.

pub mod names;
pub mod text;

use serde::Serialize;
use serde_json::Value;

/// What replaces a secret in [`redact_value`] and [`redact_text`] (logs, reports).
pub const REDACTED: &str = "[REDACTED]";

/// What replaces a secret in memory (behaviour §8.1: entries and profiles under the `redact`
/// policy), see [`crate::secrets`].
pub const MEMORY_REDACTED: &str = "[redacted]";

/// Every marker redaction writes: a value made of them is masked, not a secret, so redacting
/// twice changes nothing.
pub(crate) const MARKERS: [&str; 2] = [REDACTED, MEMORY_REDACTED];

/// Containers nested deeper than this (strings holding JSON included) are not read: the walk
/// reports them as [`CredentialKind::TooDeep`] — unchecked is treated as unsafe. 128 is the
/// depth every structured argument may have (`E_ARGUMENT` beyond).
pub const MAX_DEPTH: usize = 128;

crate::names::stable_names! {
    /// Which rule found a credential. JSON: `"field-name" | "authorization-header" | …`.
    pub enum CredentialKind {
        /// A non-empty value under a credential field name (`password`, `apiKey`, …).
        FieldName = "field-name",
        /// `Bearer <token>` or `Basic <base64 user:password>`.
        AuthorizationHeader = "authorization-header",
        /// A provider-prefixed key or bot token (`sk-…`, `sk_live_…`, `xoxb-…`, `ghp_…`,
        /// `AIza…`, Telegram's `<id>:<secret>`).
        ApiKey = "api-key",
        /// A JSON Web Token.
        Jwt = "jwt",
        /// A PEM private key block.
        PrivateKey = "private-key",
        /// An AWS access key id (`AKIA…`, `ASIA…`).
        AwsAccessKey = "aws-access-key",
        /// The password of `scheme://user:password@host`.
        UrlPassword = "url-password",
        /// A credential-named parameter: `?api_key=…`, `&token=…`, `Password=…;`.
        Parameter = "parameter",
        /// ≥ 14 characters of `[A-Za-z0-9_.+/~$-]` above 3.5 bits of entropy per character.
        HighEntropy = "high-entropy",
        /// Nested deeper than [`MAX_DEPTH`]: not read, so not known to be safe.
        TooDeep = "too-deep",
    }
}

/// The answer of [`detect_credential`]: `{ found, path, kind }` (`path` and `kind` are `null`
/// when nothing was found).
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct Detection {
    /// Whether the value holds a credential.
    pub found: bool,
    /// Where the first one is: `""` for the value itself, else like `a.b[2].c` (a name that is
    /// empty or holds `.`, `[`, `]` or `"` is written `["…"]`).
    pub path: Option<String>,
    /// The rule that found it.
    pub kind: Option<CredentialKind>,
}

impl Detection {
    fn none() -> Self {
        Detection {
            found: false,
            path: None,
            kind: None,
        }
    }
}

/// The first credential in `value` (objects in key order, arrays in order), or `found: false`.
///
/// ```
/// use memcore::migrate::credentials::{detect_credential, CredentialKind};
/// let value = serde_json::json!({ "profile": { "name": "Ada", "auth": { "token": "t0k3n" } } });
/// let found = detect_credential(&value);
/// assert_eq!(found.path.as_deref(), Some("profile.auth"));
/// assert_eq!(found.kind, Some(CredentialKind::FieldName));
/// ```
pub fn detect_credential(value: &Value) -> Detection {
    let mut path = String::new();
    find(value, &mut path, false, 0).map_or_else(Detection::none, |kind| Detection {
        found: true,
        path: Some(path),
        kind: Some(kind),
    })
}

/// The first credential in `value` stored under the field name `name` (an entry's key, a
/// property's name): the name rules apply to it as to an object field — a non-empty value
/// under `password` is one, and one under `orderId` is exempt from the high-entropy rule.
/// `path` is relative to the value (`""` for the value itself). The name itself is not scanned.
///
/// ```
/// use memcore::migrate::credentials::{detect_field, CredentialKind};
/// let found = detect_field("wifi_password", &serde_json::json!("hunter2"));
/// assert_eq!((found.path.as_deref(), found.kind), (Some(""), Some(CredentialKind::FieldName)));
/// assert!(!detect_field("order_id", &serde_json::json!("A7f3Kq9ZpL2mX8rT1vWq")).found);
/// ```
pub fn detect_field(name: &str, value: &Value) -> Detection {
    if names::is_credential_name(name) && bears_value(value, 1) {
        return Detection {
            found: true,
            path: Some(String::new()),
            kind: Some(CredentialKind::FieldName),
        };
    }
    let mut path = String::new();
    find(value, &mut path, names::is_structural_name(name), 1).map_or_else(
        Detection::none,
        |kind| Detection {
            found: true,
            path: Some(path),
            kind: Some(kind),
        },
    )
}

/// Whether `value` holds a credential anywhere.
pub fn holds_credential(value: &Value) -> bool {
    detect_credential(value).found
}

/// A string that holds JSON: starts with `{` or `[` and parses.
fn embedded_json(text: &str) -> Option<Value> {
    let trimmed = text.trim_start();
    if !(trimmed.starts_with('{') || trimmed.starts_with('[')) {
        return None;
    }
    crate::json::from_str(trimmed).ok()
}

fn is_container(value: &Value) -> bool {
    matches!(value, Value::Array(_) | Value::Object(_))
}

/// Append `.name` (or `["name"]`) to `path`.
fn push_key(path: &mut String, name: &str) {
    let plain = !name.is_empty() && !name.contains(['.', '[', ']', '"']);
    if plain {
        if !path.is_empty() {
            path.push('.');
        }
        path.push_str(name);
    } else {
        path.push('[');
        path.push_str(&serde_json::to_string(name).unwrap_or_default());
        path.push(']');
    }
}

/// A non-empty string or a number anywhere in `value` (what a credential field must hold).
fn bears_value(value: &Value, depth: usize) -> bool {
    match value {
        Value::String(s) => {
            let t = s.trim();
            !t.is_empty() && !text::is_placeholder(t.as_bytes())
        }
        Value::Number(_) => true,
        Value::Array(items) => depth < MAX_DEPTH && items.iter().any(|v| bears_value(v, depth + 1)),
        Value::Object(map) => depth < MAX_DEPTH && map.values().any(|v| bears_value(v, depth + 1)),
        Value::Null | Value::Bool(_) => false,
    }
}

/// The kind of the first credential in `value`; `path` is left pointing at it.
fn find(
    value: &Value,
    path: &mut String,
    structural: bool,
    depth: usize,
) -> Option<CredentialKind> {
    if depth >= MAX_DEPTH && is_container(value) {
        return Some(CredentialKind::TooDeep);
    }
    match value {
        Value::String(s) => {
            if let Some(inner) = embedded_json(s) {
                if depth >= MAX_DEPTH {
                    return Some(CredentialKind::TooDeep);
                }
                return find(&inner, path, structural, depth + 1);
            }
            text::scan(s, structural).first().map(|span| span.kind)
        }
        Value::Array(items) => {
            for (i, item) in items.iter().enumerate() {
                let len = path.len();
                path.push_str(&format!("[{i}]"));
                if let Some(kind) = find(item, path, structural, depth + 1) {
                    return Some(kind);
                }
                path.truncate(len);
            }
            None
        }
        Value::Object(map) => {
            for (name, item) in map {
                let len = path.len();
                push_key(path, name);
                if names::is_credential_name(name) && bears_value(item, depth + 1) {
                    return Some(CredentialKind::FieldName);
                }
                let structural = names::is_structural_name(name);
                if let Some(kind) = find(item, path, structural, depth + 1) {
                    return Some(kind);
                }
                path.truncate(len);
            }
            None
        }
        Value::Null | Value::Bool(_) | Value::Number(_) => None,
    }
}

/// `value` with every credential replaced by `"[REDACTED]"`: a credential field's whole value,
/// the secret part of a string (`"Bearer [REDACTED]"`), a too-deep subtree; a string holding
/// JSON is redacted inside and written back as compact JSON. For logs: what is left holds no
/// credential by the same detector.
///
/// ```
/// use memcore::migrate::credentials::redact_value;
/// let value = serde_json::json!({ "url": "postgres://app:hunter2@db/x", "password": "pw" });
/// assert_eq!(
///     redact_value(&value),
///     serde_json::json!({ "url": "postgres://app:[REDACTED]@db/x", "password": "[REDACTED]" })
/// );
/// ```
pub fn redact_value(value: &Value) -> Value {
    let mut redactor = Redactor::new(REDACTED);
    redactor.value(value, false, 0)
}

/// `text` with the secret part of every credential shape replaced by `[REDACTED]` (a text that
/// holds JSON is redacted as that value).
pub fn redact_text(text: &str) -> String {
    match redact_value(&Value::String(text.to_string())) {
        Value::String(s) => s,
        _ => REDACTED.to_string(),
    }
}

/// `value` stored under the field name `name` (see [`detect_field`]) with every secret replaced
/// by `marker`, and how many were replaced. What is left holds nothing [`detect_field`] finds.
pub fn redact_field(name: &str, value: &Value, marker: &str) -> (Value, usize) {
    let mut redactor = Redactor::new(marker);
    let clean = if names::is_credential_name(name) && bears_value(value, 1) {
        redactor.count += 1;
        Value::String(marker.to_string())
    } else {
        redactor.value(value, names::is_structural_name(name), 1)
    };
    (clean, redactor.count)
}

/// One redaction: the marker it writes and how many secrets it replaced.
struct Redactor<'a> {
    marker: &'a str,
    count: usize,
}

impl<'a> Redactor<'a> {
    fn new(marker: &'a str) -> Self {
        Redactor { marker, count: 0 }
    }

    fn marked(&mut self) -> Value {
        self.count += 1;
        Value::String(self.marker.to_string())
    }

    fn value(&mut self, value: &Value, structural: bool, depth: usize) -> Value {
        if depth >= MAX_DEPTH && is_container(value) {
            return self.marked();
        }
        match value {
            Value::String(s) => {
                if let Some(inner) = embedded_json(s) {
                    if depth >= MAX_DEPTH {
                        return self.marked();
                    }
                    let clean = self.value(&inner, structural, depth + 1);
                    if clean == inner {
                        return value.clone();
                    }
                    return Value::String(
                        serde_json::to_string(&clean).unwrap_or_else(|_| self.marker.into()),
                    );
                }
                match text::redact_with(s, structural, self.marker) {
                    Some((clean, replaced)) => {
                        self.count += replaced;
                        // Redacting a text that was not JSON can make it JSON (a control
                        // character inside a quoted secret made it invalid): what is stored is
                        // read as JSON next time, so it is redacted as JSON now (found by
                        // fuzzing: `fuzz/regressions/credentials/`).
                        if embedded_json(&clean).is_some() && depth + 1 < MAX_DEPTH {
                            return self.value(&Value::String(clean), structural, depth + 1);
                        }
                        Value::String(clean)
                    }
                    None => value.clone(),
                }
            }
            Value::Array(items) => Value::Array(
                items
                    .iter()
                    .map(|item| self.value(item, structural, depth + 1))
                    .collect(),
            ),
            Value::Object(map) => {
                // Inserted one by one: collecting into the map would sort (another sort in the wasm).
                let mut out = serde_json::Map::new();
                for (name, item) in map {
                    let clean = if names::is_credential_name(name) && bears_value(item, depth + 1) {
                        self.marked()
                    } else {
                        self.value(item, names::is_structural_name(name), depth + 1)
                    };
                    out.insert(name.clone(), clean);
                }
                Value::Object(out)
            }
            Value::Null | Value::Bool(_) | Value::Number(_) => value.clone(),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn finds_the_path_through_arrays_and_strings_holding_json() {
        let value = json!({ "a": [1, { "b": "{\"c\": [\"ok\", \"Bearer abcdefghij123456\"]}" }] });
        let found = detect_credential(&value);
        assert_eq!(found.path.as_deref(), Some("a[1].b.c[1]"));
        assert_eq!(found.kind, Some(CredentialKind::AuthorizationHeader));
    }

    #[test]
    fn structural_fields_skip_only_the_entropy_rule() {
        let id = "Zq8vT2mPw9LkR4sY7bXc";
        assert!(!holds_credential(&json!({ "userId": id, "createdAt": id })));
        assert!(holds_credential(&json!({ "note": id })));
        let jwt = format!("eyJhbGciOiJIUzI1NiJ9.{}.sig", "eyJzdWIiOiIxIn0");
        assert_eq!(
            detect_credential(&json!({ "id": jwt })).kind,
            Some(CredentialKind::Jwt)
        );
    }

    #[test]
    fn empty_and_masked_credential_fields_are_not_credentials() {
        assert!(!holds_credential(
            &json!({ "password": "", "token": null, "auth": true, "secret": "***", "apiKey": "[REDACTED]" })
        ));
        assert!(holds_credential(&json!({ "password": 123456 })));
        assert_eq!(
            detect_credential(&json!({ "credentials": { "user": "ada", "pass": "x" } }))
                .path
                .as_deref(),
            Some("credentials")
        );
    }

    #[test]
    fn unreadably_deep_values_count_as_credentials() {
        let mut value = json!("plain");
        for _ in 0..MAX_DEPTH + 2 {
            value = json!([value]);
        }
        assert_eq!(
            detect_credential(&value).kind,
            Some(CredentialKind::TooDeep)
        );
        assert!(!holds_credential(&redact_value(&value)));
    }

    #[test]
    fn odd_names_are_quoted_in_paths() {
        let found = detect_credential(&json!({ "a.b": { "": { "token": "t" } } }));
        assert_eq!(found.path.as_deref(), Some(r#"["a.b"][""].token"#));
    }

    #[test]
    fn redaction_keeps_context_and_leaves_nothing_to_find() {
        let value = json!({
            "log": "GET /v1?api_key=abcd1234efgh&page=2 Authorization: Bearer abcdefghij123456",
            "nested": "{\"token\":\"t0k3n\",\"ok\":1}",
            "n": 5,
        });
        let clean = redact_value(&value);
        // `==`, not `assert_eq!`: a failing test must not print a secret either.
        assert!(
            clean
                == json!({
                    "log": "GET /v1?api_key=[REDACTED]&page=2 Authorization: Bearer [REDACTED]",
                    "nested": "{\"ok\":1,\"token\":\"[REDACTED]\"}",
                    "n": 5,
                })
        );
        assert!(!holds_credential(&clean));
        assert_eq!(redact_text("plain words"), "plain words");
    }
}
