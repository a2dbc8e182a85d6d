//! Decoding JSON text into typed values with errors that name the field: `(path, message)`, the
//! path like `maxTokens`, `guardrails.maxKeyLength` or `[3].key`. The JSON is compact (one line,
//! as `JSON.stringify` writes it), so serde's error column is a byte offset into it and the path
//! is read off the text up to there.

use serde::de::DeserializeOwned;

/// Decode JSON text into `T`, or `(field path, message)`. The JSON was written by our JS layer
/// on one line, so the error's column is a byte offset: the path is read off the text up to it
/// ([`json_path_at`]), and the message is serde's without the position (which means nothing to
/// the caller). One monomorphic decoder per type keeps the wasm small.
pub fn decode<T: DeserializeOwned>(json: &str) -> std::result::Result<T, (String, String)> {
    serde_json::from_str(json).map_err(|error| describe(json, &error))
}

/// `(field path, message)` of a decoding error (not generic: one copy in the wasm). Errors of
/// serde's own scalar, sequence and map handling carry the exact position; a type with its own
/// `Deserialize` should reject through a `Visitor` (not by inspecting a decoded value), so its
/// errors are positioned too.
fn describe(json: &str, error: &serde_json::Error) -> (String, String) {
    let message = error.to_string();
    let position = format!(" at line {} column {}", error.line(), error.column());
    let message = message.strip_suffix(&position).unwrap_or(&message);
    if message.contains("recursion limit") {
        return (
            String::new(),
            "is nested too deeply (at most 128 levels)".to_string(),
        );
    }
    let offset = if error.line() == 1 { error.column() } else { 0 };
    let mut path = json_path_at(json, offset);
    // serde reports a missing field at the end of its object: name the field in the path.
    if let Some(field) = message
        .strip_prefix("missing field `")
        .and_then(|rest| rest.strip_suffix('`'))
    {
        if !path.is_empty() {
            path.push('.');
        }
        path.push_str(field);
    }
    (path, message.to_string())
}

/// The path (`maxTokens`, `guardrails.maxKeyLength`, `[3].key`) of the value that the JSON text
/// `json` is inside of, or was just reading, at byte `offset`.
pub fn json_path_at(json: &str, offset: usize) -> String {
    enum Frame {
        Object(Option<String>),
        Array(usize),
    }
    let bytes = json.as_bytes();
    let end = offset.min(bytes.len());
    let mut stack: Vec<Frame> = Vec::new();
    let mut at = 0;
    while at < end {
        match bytes.get(at) {
            Some(b'{') => stack.push(Frame::Object(None)),
            Some(b'[') => stack.push(Frame::Array(0)),
            Some(b'}' | b']') => {
                stack.pop();
            }
            Some(b',') => match stack.last_mut() {
                Some(Frame::Object(key)) => *key = None,
                Some(Frame::Array(index)) => *index += 1,
                None => {}
            },
            Some(b'"') => {
                let start = at + 1;
                at += 1;
                while at < bytes.len() && bytes.get(at) != Some(&b'"') {
                    at += if bytes.get(at) == Some(&b'\\') { 2 } else { 1 };
                }
                if let Some(Frame::Object(key @ None)) = stack.last_mut() {
                    let raw = json.get(start..at.min(json.len())).unwrap_or("");
                    *key = Some(
                        serde_json::from_str::<String>(&format!("\"{raw}\"")).unwrap_or_default(),
                    );
                }
            }
            _ => {}
        }
        at += 1;
    }
    let mut path = String::new();
    for frame in &stack {
        match frame {
            Frame::Object(Some(key)) => {
                if !path.is_empty() {
                    path.push('.');
                }
                path.push_str(key);
            }
            Frame::Object(None) => {}
            Frame::Array(index) => path.push_str(&format!("[{index}]")),
        }
    }
    path
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde::Deserialize;

    #[derive(Debug, Deserialize)]
    #[serde(rename_all = "camelCase", deny_unknown_fields)]
    #[allow(dead_code)]
    struct Args {
        user_id: String,
        turn_count: u64,
        #[serde(default)]
        extra: Option<Vec<Field>>,
        #[serde(default)]
        version: Option<Version>,
    }

    #[derive(Debug, Deserialize)]
    #[serde(deny_unknown_fields)]
    #[allow(dead_code)]
    struct Field {
        key: String,
        value: String,
    }

    #[derive(Debug)]
    struct Version;
    impl<'de> Deserialize<'de> for Version {
        fn deserialize<D: serde::Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
            struct V;
            impl serde::de::Visitor<'_> for V {
                type Value = Version;
                fn expecting(&self, f: &mut std::fmt::Formatter) -> std::fmt::Result {
                    f.write_str("a version string")
                }
                fn visit_str<E>(self, _: &str) -> Result<Version, E> {
                    Ok(Version)
                }
            }
            d.deserialize_any(V)
        }
    }

    fn error(json: &str) -> (String, String) {
        decode::<Args>(json).unwrap_err()
    }

    #[test]
    fn errors_name_the_field_path_without_a_position() {
        assert_eq!(
            error(r#"{"userId":"u","turnCount":"x"}"#),
            (
                "turnCount".into(),
                "invalid type: string \"x\", expected u64".into()
            )
        );
        assert_eq!(error(r#"{"userId":"u"}"#).0, "turnCount");
        assert_eq!(error(r#"{"userId":"u","turncount":1}"#).0, "turncount");
        assert_eq!(
            error(r#"{"userId":"ü","turnCount":1,"extra":[{"key":"a","value":"b"},{"key":"a","value":3}]}"#).0,
            "extra[1].value"
        );
        assert_eq!(
            error(r#"{"userId":"u","turnCount":1,"version":{}}"#),
            (
                "version".into(),
                "invalid type: map, expected a version string".into()
            )
        );
        assert_eq!(error(r#"{"userId":"a\"b","turnCount":-1}"#).0, "turnCount");
        let deep = format!("{}1{}", "[".repeat(200), "]".repeat(200));
        assert_eq!(
            decode::<serde_json::Value>(&deep).unwrap_err(),
            (
                String::new(),
                "is nested too deeply (at most 128 levels)".into()
            )
        );
    }
}
