//! The text analysis of the `ranked` and `hybrid` search modes (issue 21): §2.5's splitting and
//! folding ([`super::search_terms`]), the language's stop words dropped, then its Snowball stemmer.
//!
//! Stemming is what lets `running` find `run` and `Hunde` find `Hund`; stop words keep `what is
//! my` from ranking every entry that happens to contain `is`. A text made only of stop words
//! (`"who am I"`) keeps them, stemmed, rather than answering nothing.

use super::search_terms;
use super::stop_words;
use frostem::{Algorithm, Stemmer};
use serde::{Deserialize, Serialize};

/// A language of the analyzer: its stop words and its Snowball stemmer. On the wire (config,
/// JSON) a language is its lowercase ISO 639-1 code (`"en"`, `"de"`, …).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Default, Serialize, Deserialize)]
pub enum Language {
    /// English (`en`), the default.
    #[default]
    #[serde(rename = "en")]
    English,
    /// German (`de`).
    #[serde(rename = "de")]
    German,
    /// French (`fr`).
    #[serde(rename = "fr")]
    French,
    /// Spanish (`es`).
    #[serde(rename = "es")]
    Spanish,
    /// Portuguese (`pt`).
    #[serde(rename = "pt")]
    Portuguese,
    /// Italian (`it`).
    #[serde(rename = "it")]
    Italian,
    /// Dutch (`nl`).
    #[serde(rename = "nl")]
    Dutch,
    /// Swedish (`sv`).
    #[serde(rename = "sv")]
    Swedish,
}

impl Language {
    /// Every language, in the order of their codes in the docs.
    pub const ALL: [Language; 8] = [
        Language::English,
        Language::German,
        Language::French,
        Language::Spanish,
        Language::Portuguese,
        Language::Italian,
        Language::Dutch,
        Language::Swedish,
    ];

    /// The language of a lowercase ISO 639-1 code (`"en"`, `"de"`, …); `None` for any other text
    /// (codes are exact: no upper case, no region suffix).
    pub fn parse(code: &str) -> Option<Language> {
        Language::ALL.into_iter().find(|l| l.code() == code)
    }

    /// The language's lowercase ISO 639-1 code, as on the wire.
    pub fn code(self) -> &'static str {
        match self {
            Language::English => "en",
            Language::German => "de",
            Language::French => "fr",
            Language::Spanish => "es",
            Language::Portuguese => "pt",
            Language::Italian => "it",
            Language::Dutch => "nl",
            Language::Swedish => "sv",
        }
    }

    fn algorithm(self) -> Algorithm {
        match self {
            Language::English => Algorithm::English,
            Language::German => Algorithm::German,
            Language::French => Algorithm::French,
            Language::Spanish => Algorithm::Spanish,
            Language::Portuguese => Algorithm::Portuguese,
            Language::Italian => Algorithm::Italian,
            Language::Dutch => Algorithm::Dutch,
            Language::Swedish => Algorithm::Swedish,
        }
    }

    /// The language's stop words: folded, sorted by byte order, no duplicates (a unit test holds
    /// every list to that, so lookup is a binary search).
    pub fn stop_words(self) -> &'static [&'static str] {
        match self {
            Language::English => stop_words::EN,
            Language::German => stop_words::DE,
            Language::French => stop_words::FR,
            Language::Spanish => stop_words::ES,
            Language::Portuguese => stop_words::PT,
            Language::Italian => stop_words::IT,
            Language::Dutch => stop_words::NL,
            Language::Swedish => stop_words::SV,
        }
    }
}

/// Turns a text into the terms BM25 ranks on, for one [`Language`]. Cheap to make (no tables are
/// built) and `Copy`; one per search is fine.
#[derive(Clone, Copy)]
pub struct Analyzer {
    language: Language,
    stemmer: Stemmer,
}

impl std::fmt::Debug for Analyzer {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Analyzer")
            .field("language", &self.language)
            .finish()
    }
}

impl Analyzer {
    /// The analyzer of `language`.
    pub fn new(language: Language) -> Analyzer {
        Analyzer {
            language,
            stemmer: Stemmer::new(language.algorithm()),
        }
    }

    /// The language this analyzer was made for.
    pub fn language(&self) -> Language {
        self.language
    }

    /// The terms of `text`, in order, duplicates kept: split and folded as §2.5 does
    /// ([`super::search_terms`]), stop words dropped, each term stemmed. When every term is a
    /// stop word they are all kept (stemmed), so a text has terms exactly when it has §2.5 terms.
    pub fn terms(&self, text: &str) -> Vec<String> {
        self.terms_of(&[text])
    }

    /// [`Analyzer::terms`] of several texts taken as one (a key and its value): the stop-word
    /// fallback looks at all of them together.
    pub fn terms_of(&self, texts: &[&str]) -> Vec<String> {
        let mut terms = Vec::new();
        self.for_each_term(texts, |t| terms.push(t.to_owned()));
        terms
    }

    /// [`Analyzer::terms_of`] handing each term to `visit` instead of collecting them (a
    /// document is hashed term by term, without a `String` per stem).
    pub(crate) fn for_each_term(&self, texts: &[&str], mut visit: impl FnMut(&str)) {
        let folded: Vec<String> = texts.iter().flat_map(|t| search_terms(t)).collect();
        let stops = self.language.stop_words();
        let is_stop = |t: &String| stops.binary_search(&t.as_str()).is_ok();
        let all_stop = folded.iter().all(is_stop);
        for term in folded.iter().filter(|t| all_stop || !is_stop(t)) {
            visit(&self.stemmer.stem(term));
        }
    }

    /// One folded term stemmed, with no stop-word test (for tests and diagnostics).
    pub fn stem(&self, term: &str) -> String {
        self.stemmer.stem(term).into_owned()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_stop_list_is_folded_sorted_and_distinct() {
        for language in Language::ALL {
            let list = language.stop_words();
            assert!(list.len() >= 100, "{language:?}");
            for pair in list.windows(2) {
                assert!(pair[0] < pair[1], "{language:?}: {pair:?}");
            }
            for word in list {
                assert_eq!(search_terms(word), [*word], "{language:?}: {word}");
            }
        }
    }

    #[test]
    fn codes_round_trip_and_are_the_serde_form() {
        for language in Language::ALL {
            assert_eq!(Language::parse(language.code()), Some(language));
            let json = serde_json::to_string(&language).unwrap();
            assert_eq!(json, format!("\"{}\"", language.code()));
            assert_eq!(serde_json::from_str::<Language>(&json).unwrap(), language);
        }
        assert_eq!(Language::parse("EN"), None);
        assert_eq!(Language::parse("en-GB"), None);
        assert_eq!(Language::default(), Language::English);
    }

    #[test]
    fn stop_words_go_unless_they_are_all_there_is() {
        let en = Analyzer::new(Language::English);
        assert_eq!(en.terms("What is my dog's name?"), ["dog", "name"]);
        assert_eq!(en.terms("who am I"), ["who", "am", "i"]);
        assert!(en.terms("  ,; ").is_empty());
        assert_eq!(en.terms_of(&["the", "The Dogs"]), ["dog"]);
    }
}
