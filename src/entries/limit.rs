//! The `limit` option of every function that returns a bounded list of entries or episodes.

use serde::Deserialize;

/// A `limit` option: a whole number from 1 to [`Limit::MAX`]. One rule for every function that
/// takes one (the memory operations, `relevantMemories`, `searchEpisodes`, a load's `entries`):
/// a value outside the range is refused with `E_ARGUMENT` naming the field, never clamped.
///
/// Decoded by its own visitor, so a value out of range is reported where it stands
/// (`options.limit`), as serde reports a wrong type there.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Limit(usize);

impl Limit {
    /// The largest limit.
    pub const MAX: u64 = 1000;

    /// The number of results.
    pub fn get(self) -> usize {
        self.0
    }
}

/// The message of a limit out of range.
const LIMIT_RANGE: &str = "must be between 1 and 1000";

impl<'de> Deserialize<'de> for Limit {
    fn deserialize<D: serde::Deserializer<'de>>(deserializer: D) -> Result<Limit, D::Error> {
        deserializer.deserialize_u64(LimitVisitor)
    }
}

struct LimitVisitor;

impl serde::de::Visitor<'_> for LimitVisitor {
    type Value = Limit;
    fn expecting(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str("a whole number from 1 to 1000")
    }
    fn visit_u64<E: serde::de::Error>(self, n: u64) -> Result<Limit, E> {
        match n {
            1..=Limit::MAX => Ok(Limit(n as usize)),
            _ => Err(E::custom(LIMIT_RANGE)),
        }
    }
    fn visit_i64<E: serde::de::Error>(self, n: i64) -> Result<Limit, E> {
        u64::try_from(n).map_or(Err(E::custom(LIMIT_RANGE)), |n| self.visit_u64(n))
    }
}

#[cfg(test)]
mod tests {
    use super::Limit;
    use crate::json::decode;
    use serde::Deserialize;

    #[derive(Debug, Deserialize)]
    #[serde(deny_unknown_fields)]
    struct Options {
        #[serde(default)]
        limit: Option<Limit>,
        #[serde(default)]
        #[allow(dead_code)]
        mode: Option<String>,
    }

    #[derive(Debug, Deserialize)]
    struct Outer {
        #[allow(dead_code)]
        entries: Options,
        #[allow(dead_code)]
        need: u8,
    }

    #[test]
    fn a_limit_is_one_to_a_thousand_and_an_error_names_its_field() {
        let ok: Options = decode(r#"{"limit":1000}"#).unwrap();
        assert_eq!(ok.limit.map(Limit::get), Some(1000));
        let ok: Options = decode(r#"{"limit":1}"#).unwrap();
        assert_eq!(ok.limit.map(Limit::get), Some(1));
        for (json, path) in [
            (r#"{"limit":5000}"#, "limit"),
            (r#"{"limit":0}"#, "limit"),
            (r#"{"limit":1001,"mode":"terms"}"#, "limit"),
            (r#"{"mode":"terms","limit":0}"#, "limit"),
            (r#"{"entries":{"limit":0},"need":1}"#, "entries.limit"),
            (r#"{"need":1,"entries":{"limit":0}}"#, "entries.limit"),
        ] {
            let error = if path == "limit" {
                decode::<Options>(json).unwrap_err()
            } else {
                decode::<Outer>(json).unwrap_err()
            };
            assert_eq!(
                error,
                (path.to_string(), "must be between 1 and 1000".to_string()),
                "{json}"
            );
        }
        // A missing field is still named from its object.
        let (path, _) = decode::<Outer>(r#"{"entries":{}}"#).unwrap_err();
        assert_eq!(path, "need");
    }
}
