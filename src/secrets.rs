//! Secrets never enter memory (behaviour §8.1): the credential detector of behaviour §4.2
//! ([`crate::migrate::credentials`]) guards every write, under a policy.
//!
//! - **Entries** (the tools, REST and MCP upserts, `longTerm` properties, the legacy merge,
//!   Dream's summaries): [`guard_entry`] looks at the key (a key that *is* a secret) and at the
//!   value stored under it (the field-name rule applies to the key: a non-empty value under
//!   `wifi_password` is a credential; one under `order_id` is exempt from the entropy rule).
//! - **The profile** (a consolidation's answer, a Settings edit): [`guard_profile`] scans the
//!   body as text.
//!
//! Policies: `refuse` (nothing is stored; the default for entries), `redact` (each secret is
//! replaced by [`MEMORY_REDACTED`], `[redacted]`; the default for the profile) and `allow`.
//! Decisions where the behaviour reference is silent:
//! - A secret **in an entry's key** cannot be redacted (the key is the entry's identity):
//!   under `redact` such a write is refused too ([`KEY_REFUSAL`] for the tools).
//! - The legacy migration keeps behaviour §4.2's rule whatever the policy: credentials are never
//!   migrated.
//! - Nothing here formats a secret: findings carry the field, a path made of field names and
//!   indexes, and the detector's kind.

use crate::error::Error;
use crate::migrate::credentials::{detect_field, redact_field, redact_text, text, CredentialKind};
use serde::Serialize;
use serde_json::Value;

pub use crate::migrate::credentials::MEMORY_REDACTED;

crate::names::stable_names! {
    /// What a write that holds a credential does. JSON: `"refuse" | "redact" | "allow"`.
    pub enum SecretPolicy {
        /// Nothing is stored; the caller is told why (the default for entries).
        Refuse = "refuse",
        /// Each secret is replaced by `[redacted]` and the rest is stored (the default for the
        /// profile).
        Redact = "redact",
        /// Stored as given (the host has its own controls).
        Allow = "allow",
    }
}

/// The tools' answer when a value holds a credential (behaviour §8.1, byte-exact). It counts as no
/// write.
pub fn value_refusal(kind: CredentialKind) -> String {
    format!(
        "⚠️ Value looks like a credential ({}); it was not stored.",
        kind.as_str()
    )
}

/// The tools' answer when the key itself holds a credential (a key cannot be redacted).
pub const KEY_REFUSAL: &str = "⚠️ Key looks like a credential; it was not stored.";

/// Which part of a write holds the secret.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "camelCase")]
pub enum SecretField {
    /// The entry's key (or a property's name).
    Key,
    /// The entry's value.
    Value,
    /// A profile body.
    Body,
}

impl SecretField {
    /// The field name as reports write it.
    pub fn as_str(self) -> &'static str {
        match self {
            SecretField::Key => "key",
            SecretField::Value => "value",
            SecretField::Body => "body",
        }
    }
}

/// Where a secret is, never what it is. JSON: `{ "field", "path", "kind" }`.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct SecretFinding {
    /// The part of the write.
    pub field: SecretField,
    /// Inside the value: `""` for the value itself, else like `a.b[2]` (field names and
    /// indexes only); for a body, `line N`.
    pub path: String,
    /// The detector's rule.
    pub kind: CredentialKind,
}

impl SecretFinding {
    /// The field path as REST and MCP name it: `value`, `value.a.b[2]`, `key`, `body`.
    pub fn field_path(&self) -> String {
        match self.field {
            SecretField::Value if !self.path.is_empty() => {
                if self.path.starts_with('[') {
                    format!("value{}", self.path)
                } else {
                    format!("value.{}", self.path)
                }
            }
            field => field.as_str().to_string(),
        }
    }

    /// A message naming the field and the kind, never the value.
    pub fn message(&self) -> String {
        format!(
            "{} looks like a credential ({}); it was not stored",
            self.field_path(),
            self.kind.as_str()
        )
    }
}

/// An error's message as logs and reports carry it: with every credential the detector finds
/// replaced by `[REDACTED]` (a host's or a model's error text may quote a request, a URL with a
/// key, a row it refused).
pub fn error_text(error: &Error) -> String {
    redact_text(&error.message)
}

/// The first secret of an entry write: in its key, else in its value read under that key.
pub fn find_entry_secret(key: &str, value: &Value) -> Option<SecretFinding> {
    if let Some(span) = text::scan(key, false).first() {
        return Some(SecretFinding {
            field: SecretField::Key,
            path: String::new(),
            kind: span.kind,
        });
    }
    let found = detect_field(key, value);
    Some(SecretFinding {
        field: SecretField::Value,
        path: found.path?,
        kind: found.kind?,
    })
}

/// What the policy makes of an entry write.
#[derive(Debug, Clone, PartialEq)]
pub enum EntryGuard {
    /// Store the value as given (no secret, or `allow`).
    Clean,
    /// Store this value instead: `count` secrets replaced by `[redacted]`.
    Redacted {
        /// The redacted value.
        value: Value,
        /// How many secrets were replaced.
        count: usize,
    },
    /// Store nothing.
    Refused(SecretFinding),
}

/// Apply `policy` to a write of `value` under `key`.
///
/// ```
/// use memcore::secrets::{guard_entry, EntryGuard, SecretPolicy};
/// use serde_json::json;
/// let key = format!("sk-{}", "Zq8vT2mPw9LkR4sY7bXc");
/// let refused = guard_entry(SecretPolicy::Refuse, "openai", &json!(key));
/// assert!(matches!(refused, EntryGuard::Refused(f) if f.kind.as_str() == "api-key"));
/// let redacted = guard_entry(SecretPolicy::Redact, "wifi_password", &json!("hunter2"));
/// assert_eq!(redacted, EntryGuard::Redacted { value: json!("[redacted]"), count: 1 });
/// assert_eq!(guard_entry(SecretPolicy::Refuse, "dog_name", &json!("Rex")), EntryGuard::Clean);
/// ```
pub fn guard_entry(policy: SecretPolicy, key: &str, value: &Value) -> EntryGuard {
    if policy == SecretPolicy::Allow {
        return EntryGuard::Clean;
    }
    let Some(finding) = find_entry_secret(key, value) else {
        return EntryGuard::Clean;
    };
    if policy == SecretPolicy::Refuse || finding.field == SecretField::Key {
        return EntryGuard::Refused(finding);
    }
    let (value, count) = redact_field(key, value, MEMORY_REDACTED);
    EntryGuard::Redacted { value, count }
}

/// What the policy makes of a profile body.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum ProfileGuard {
    /// Store the body as given (no secret, or `allow`).
    Clean,
    /// Store this body instead: `count` secrets replaced by `[redacted]`.
    Redacted {
        /// The redacted body.
        body: String,
        /// How many secrets were replaced.
        count: usize,
    },
    /// Store nothing.
    Refused(SecretFinding),
}

/// Apply `policy` to a profile body (Markdown text; scanned line by line so a finding names
/// its line, 1-based within the body).
pub fn guard_profile(policy: SecretPolicy, body: &str) -> ProfileGuard {
    if policy == SecretPolicy::Allow {
        return ProfileGuard::Clean;
    }
    match policy {
        SecretPolicy::Refuse => {
            let Some(span) = text::scan(body, false).into_iter().next() else {
                return ProfileGuard::Clean;
            };
            let line = body
                .get(..span.start)
                .map_or(0, |before| before.matches('\n').count())
                + 1;
            ProfileGuard::Refused(SecretFinding {
                field: SecretField::Body,
                path: format!("line {line}"),
                kind: span.kind,
            })
        }
        _ => match text::redact_with(body, false, MEMORY_REDACTED) {
            Some((body, count)) => ProfileGuard::Redacted { body, count },
            None => ProfileGuard::Clean,
        },
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn secret() -> String {
        format!("ghp_{}", "Zq8vT2mPw9LkR4sY7bXcQ1wE")
    }

    #[test]
    fn findings_name_the_field_and_never_the_value() {
        let value = json!({ "notes": ["ok", secret()] });
        let Some(found) = find_entry_secret("github", &value) else {
            panic!("not found");
        };
        assert_eq!(found.field_path(), "value.notes[1]");
        assert!(!found.message().contains(&secret()));
        let Some(found) = find_entry_secret(&secret(), &json!("x")) else {
            panic!("not found");
        };
        assert_eq!(found.field, SecretField::Key);
        let Some(found) = find_entry_secret("pin_token", &json!([1, 2])) else {
            panic!("not found");
        };
        assert_eq!(found.field_path(), "value");
    }

    #[test]
    fn redaction_leaves_nothing_and_counts() {
        let body = format!(
            "## Identity\n- key: {}\n- Bearer abcdefghij123456xyz\n",
            secret()
        );
        let ProfileGuard::Redacted { body, count } = guard_profile(SecretPolicy::Redact, &body)
        else {
            panic!("not redacted");
        };
        assert_eq!(count, 2);
        assert!(body.contains("[redacted]") && !body.contains(&secret()));
        assert_eq!(
            guard_profile(SecretPolicy::Redact, &body),
            ProfileGuard::Clean
        );
        let ProfileGuard::Refused(found) =
            guard_profile(SecretPolicy::Refuse, &format!("a\nb {}", secret()))
        else {
            panic!("not refused");
        };
        assert_eq!(found.path, "line 2");
    }

    #[test]
    fn a_secret_key_is_refused_even_under_redact() {
        assert!(matches!(
            guard_entry(SecretPolicy::Redact, &secret(), &json!("v")),
            EntryGuard::Refused(_)
        ));
        assert_eq!(
            guard_entry(SecretPolicy::Allow, &secret(), &json!("v")),
            EntryGuard::Clean
        );
    }
}
