//! Field names (behaviour §4.2): which say "this holds a credential", and which are structural (ids
//! and timestamps, exempt from the high-entropy rule). Names compare case-insensitively with
//! `-`, `_` and `.` ignored, so `apiKey`, `api_key`, `API-KEY` and `api.key` are one name.

/// `name` lowercased without `-`, `_`, `.`.
fn normalised(name: &str) -> String {
    name.chars()
        .filter(|c| !matches!(c, '-' | '_' | '.'))
        .flat_map(char::to_lowercase)
        .collect()
}

/// The names the behaviour reference lists, normalised; a name *ending* in one of them counts too
/// (`refreshToken`, `botToken`, `stripeApiKey`, `dbPassword`, `oauthClientSecret`), as does any
/// name containing `secret` or `password` (`awsSecretAccessKey`, `passwordHash`).
const ENDINGS: &[&str] = &[
    "password",
    "passwd",
    "secret",
    "token",
    "apikey",
    "accesstoken",
    "authorization",
    "credential",
    "credentials",
    "privatekey",
    "clientsecret",
    "secretkey",
    "accesskey",
];

/// Whether a field (or parameter) name says its value is a credential. `auth` counts as the
/// whole name or its ending (`oauth`, `basicAuth`); `author` does not. Plural counts
/// (`maxTokens`, `tokens`) do not: they are numbers and lists, not secrets.
pub fn is_credential_name(name: &str) -> bool {
    // Normalising only removes characters, and the shortest name below is `auth`: a shorter name
    // is none of them (and costs no allocation — the scanners ask for every `word:`).
    if name.len() < 4 {
        return false;
    }
    let n = normalised(name);
    n.ends_with("auth")
        || n.contains("secret")
        || n.contains("password")
        || ENDINGS.iter().any(|e| n.ends_with(e))
}

/// URL query parameters that carry keys or signatures though their names are generic:
/// `key` (Google APIs), `sig` and `signature` (signed URLs), AWS's `X-Amz-Signature` and
/// `X-Amz-Security-Token` (the latter a `token` already).
pub fn is_query_credential_name(name: &str) -> bool {
    matches!(
        normalised(name).as_str(),
        "key" | "sig" | "signature" | "xamzsignature" | "xamzcredential" | "code"
    )
}

/// The last word of a field name: after the last `-`, `_` or `.`, and within that after the
/// last lowercase-to-uppercase step (`sourceAgentId` → `id`, `created_at` → `at`,
/// `USER_ID` → `id`, `groupIds` → `ids`).
fn last_word(name: &str) -> String {
    let segment = name
        .trim_end_matches(['-', '_', '.'])
        .rsplit(['-', '_', '.'])
        .next()
        .unwrap_or("");
    let chars: Vec<char> = segment.chars().collect();
    let mut start = 0;
    for (i, pair) in chars.windows(2).enumerate() {
        if let [a, b] = pair {
            if (a.is_lowercase() || a.is_ascii_digit()) && b.is_uppercase() {
                start = i + 1;
            }
        }
    }
    chars
        .get(start..)
        .unwrap_or(&[])
        .iter()
        .flat_map(|c| c.to_lowercase())
        .collect()
}

/// Structural fields hold identifiers and machine times — random-looking by construction, never
/// secrets: names whose last word is `id`/`ids`/`uuid`/`guid` (`_id`, `userId`,
/// `sourceConversationId`, `groupIds`), `at` (`createdAt`, `updated_at`), `timestamp`, `date`,
/// `time`, or that are `version`, `etag`, `rev`, `objectId`. The high-entropy rule skips their
/// values (an entry's or a v5 document's own ids would otherwise all be "secrets"); the value
/// shapes — a JWT, an AWS key, `Bearer …` — still apply to them.
pub fn is_structural_name(name: &str) -> bool {
    matches!(
        last_word(name).as_str(),
        "id" | "ids" | "uuid" | "uuids" | "guid" | "at" | "timestamp" | "date" | "time"
    ) || matches!(
        normalised(name).as_str(),
        "version" | "etag" | "rev" | "objectid" | "oid"
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn spec_names_match_in_every_spelling() {
        for name in [
            "password",
            "PASSWD",
            "secret",
            "token",
            "apiKey",
            "api_key",
            "API-KEY",
            "api.key",
            "accessToken",
            "authorization",
            "auth",
            "credential",
            "credentials",
            "privateKey",
            "clientSecret",
            "refresh_token",
            "botToken",
            "awsSecretAccessKey",
            "db.password",
            "basicAuth",
            "oauth",
            "passwordHash",
        ] {
            assert!(is_credential_name(name), "{name}");
        }
        for name in [
            "author",
            "maxTokens",
            "tokens",
            "tokenizer",
            "name",
            "keyboard",
            "passport",
        ] {
            assert!(!is_credential_name(name), "{name}");
        }
    }

    #[test]
    fn structural_names_are_ids_and_times() {
        for name in [
            "_id",
            "id",
            "userId",
            "user_id",
            "USER_ID",
            "sourceAgentId",
            "groupIds",
            "createdAt",
            "updated_at",
            "timestamp",
            "birthDate",
            "version",
            "uuid",
        ] {
            assert!(is_structural_name(name), "{name}");
        }
        for name in ["paid", "valid", "android", "note", "hat", "status", "token"] {
            assert!(!is_structural_name(name), "{name}");
        }
    }
}
