//! PLACEHOLDER (replaced by helper/rank at merge).
use serde::{Deserialize, Serialize};
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum Language {
    En,
    De,
}
impl Language {
    pub const ALL: &'static [Language] = &[Language::En, Language::De];
    pub fn parse(code: &str) -> Option<Language> {
        match code {
            "en" => Some(Language::En),
            "de" => Some(Language::De),
            _ => None,
        }
    }
    pub fn code(self) -> &'static str {
        match self {
            Language::En => "en",
            Language::De => "de",
        }
    }
}
pub struct Analyzer;
impl Analyzer {
    pub fn new(_l: Language) -> Analyzer {
        Analyzer
    }
    pub fn terms(&self, text: &str) -> Vec<String> {
        super::search_terms(text)
    }
}
