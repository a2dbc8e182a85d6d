//! The text analysis of the `ranked` and `hybrid` search modes (issue 21): §2.5's splitting and
//! folding ([`super::search_terms`]), the language's stop words dropped, then its Snowball stemmer.
//!
//! Stemming is what lets `running` find `run` and `Hunde` find `Hund`; stop words keep `what is
//! my` from ranking every entry that happens to contain `is`. A text made only of stop words
//! (`"who am I"`) keeps them, stemmed, rather than answering nothing.

use super::search_terms;
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

/// Stop words per language. Each list is a subset of the Snowball project's stop list for the
/// language (snowballstem.org, `algorithms/<language>/stop.txt`, BSD-3-Clause): the pronouns,
/// articles, prepositions, conjunctions and auxiliary forms, trimmed to ~100-200 words. English
/// contractions are given as the pieces §2.5 splitting leaves (`don't` → `don`, `t`); Spanish and
/// Portuguese add the accented question words (`dónde`, `onde`), which their lists lack.
mod stop_words {
    pub(super) const EN: &[&str] = &[
        "a",
        "about",
        "above",
        "after",
        "again",
        "against",
        "all",
        "am",
        "an",
        "and",
        "any",
        "are",
        "aren",
        "as",
        "at",
        "be",
        "because",
        "been",
        "before",
        "being",
        "below",
        "between",
        "both",
        "but",
        "by",
        "could",
        "couldn",
        "d",
        "did",
        "didn",
        "do",
        "does",
        "doesn",
        "doing",
        "don",
        "down",
        "during",
        "each",
        "few",
        "for",
        "from",
        "further",
        "had",
        "hadn",
        "has",
        "hasn",
        "have",
        "haven",
        "having",
        "he",
        "her",
        "here",
        "hers",
        "herself",
        "him",
        "himself",
        "his",
        "how",
        "i",
        "if",
        "in",
        "into",
        "is",
        "isn",
        "it",
        "its",
        "itself",
        "ll",
        "m",
        "me",
        "more",
        "most",
        "mustn",
        "my",
        "myself",
        "no",
        "nor",
        "not",
        "of",
        "off",
        "on",
        "once",
        "only",
        "or",
        "other",
        "ought",
        "our",
        "ours",
        "ourselves",
        "out",
        "over",
        "own",
        "re",
        "s",
        "same",
        "shan",
        "she",
        "should",
        "shouldn",
        "so",
        "some",
        "such",
        "t",
        "than",
        "that",
        "the",
        "their",
        "theirs",
        "them",
        "themselves",
        "then",
        "there",
        "these",
        "they",
        "this",
        "those",
        "through",
        "to",
        "too",
        "under",
        "until",
        "up",
        "ve",
        "very",
        "was",
        "wasn",
        "we",
        "were",
        "weren",
        "what",
        "when",
        "where",
        "which",
        "while",
        "who",
        "whom",
        "why",
        "with",
        "would",
        "wouldn",
        "you",
        "your",
        "yours",
        "yourself",
        "yourselves",
    ];

    pub(super) const DE: &[&str] = &[
        "aber", "alle", "allem", "allen", "aller", "alles", "als", "also", "am", "an", "ander",
        "andere", "anderem", "anderen", "anderer", "anderes", "anders", "auch", "auf", "aus",
        "bei", "bin", "bis", "bist", "da", "damit", "dann", "das", "dass", "dazu", "daß", "dein",
        "deine", "deinem", "deinen", "deiner", "deines", "dem", "den", "denn", "der", "derer",
        "des", "dessen", "dich", "die", "dies", "diese", "diesem", "diesen", "dieser", "dieses",
        "dir", "doch", "dort", "du", "durch", "ein", "eine", "einem", "einen", "einer", "eines",
        "einmal", "er", "es", "etwas", "euch", "euer", "eure", "eurem", "euren", "eurer", "eures",
        "für", "gegen", "gewesen", "hab", "habe", "haben", "hat", "hatte", "hatten", "hier", "hin",
        "hinter", "ich", "ihm", "ihn", "ihnen", "ihr", "ihre", "ihrem", "ihren", "ihrer", "ihres",
        "im", "in", "indem", "ins", "ist", "jede", "jedem", "jeden", "jeder", "jedes", "jene",
        "jenem", "jenen", "jener", "jenes", "jetzt", "kann", "kein", "keine", "keinem", "keinen",
        "keiner", "keines", "können", "könnte", "man", "mein", "meine", "meinem", "meinen",
        "meiner", "meines", "mich", "mir", "mit", "muss", "musste", "nach", "nicht", "nichts",
        "noch", "nun", "nur", "ob", "oder", "ohne", "sehr", "sein", "seine", "seinem", "seinen",
        "seiner", "seines", "selbst", "sich", "sie", "sind", "so", "solche", "solchem", "solchen",
        "solcher", "solches", "soll", "sollte", "sondern", "sonst", "um", "und", "uns", "unser",
        "unsere", "unserem", "unseren", "unseres", "unter", "viel", "vom", "von", "vor", "war",
        "waren", "warst", "was", "weg", "weil", "weiter", "welche", "welchem", "welchen",
        "welcher", "welches", "wenn", "werde", "werden", "wie", "wieder", "will", "wir", "wird",
        "wirst", "wo", "wollen", "wollte", "während", "würde", "würden", "zu", "zum", "zur",
        "zwar", "zwischen", "über",
    ];

    pub(super) const FR: &[&str] = &[
        "ai", "aie", "aient", "aies", "ait", "as", "au", "aura", "aurai", "auraient", "aurais",
        "aurait", "auras", "aurez", "auriez", "aurions", "aurons", "auront", "aux", "avaient",
        "avais", "avait", "avec", "avez", "aviez", "avions", "avons", "ayant", "ayez", "ayons",
        "c", "ce", "ceci", "cela", "ces", "cet", "cette", "d", "dans", "de", "des", "du", "elle",
        "en", "es", "est", "et", "eu", "eue", "eues", "eurent", "eus", "eusse", "eussent",
        "eusses", "eussiez", "eussions", "eut", "eux", "eûmes", "eût", "eûtes", "furent", "fus",
        "fusse", "fussent", "fusses", "fussiez", "fussions", "fut", "fûmes", "fût", "fûtes", "ici",
        "il", "ils", "j", "je", "l", "la", "le", "les", "leur", "leurs", "lui", "m", "ma", "mais",
        "me", "mes", "moi", "mon", "même", "n", "ne", "nos", "notre", "nous", "on", "ont", "ou",
        "où", "par", "pas", "pour", "qu", "que", "quel", "quelle", "quelles", "quels", "qui", "s",
        "sa", "sans", "se", "sera", "serai", "seraient", "serais", "serait", "seras", "serez",
        "seriez", "serions", "serons", "seront", "ses", "soi", "soient", "sois", "soit", "sommes",
        "son", "sont", "soyez", "soyons", "suis", "sur", "t", "ta", "te", "tes", "toi", "ton",
        "tu", "un", "une", "vos", "votre", "vous", "y", "à", "étaient", "étais", "était", "étant",
        "étiez", "étions", "été", "étée", "étées", "étés", "êtes",
    ];

    pub(super) const ES: &[&str] = &[
        "a",
        "al",
        "algo",
        "algunas",
        "algunos",
        "ante",
        "antes",
        "como",
        "con",
        "contra",
        "cual",
        "cuando",
        "cuál",
        "cuándo",
        "cómo",
        "de",
        "del",
        "desde",
        "donde",
        "durante",
        "dónde",
        "e",
        "el",
        "ella",
        "ellas",
        "ellos",
        "en",
        "entre",
        "era",
        "eran",
        "eras",
        "eres",
        "es",
        "esa",
        "esas",
        "ese",
        "eso",
        "esos",
        "esta",
        "estaba",
        "estaban",
        "estabas",
        "estamos",
        "estar",
        "estas",
        "este",
        "estemos",
        "esto",
        "estos",
        "estoy",
        "estuve",
        "estuvo",
        "está",
        "estábamos",
        "estáis",
        "están",
        "estás",
        "esté",
        "estéis",
        "estén",
        "estés",
        "fue",
        "fueron",
        "fui",
        "fuimos",
        "ha",
        "habéis",
        "había",
        "habían",
        "han",
        "has",
        "hasta",
        "hay",
        "haya",
        "hayamos",
        "hayan",
        "hayas",
        "he",
        "hemos",
        "hube",
        "hubo",
        "la",
        "las",
        "le",
        "les",
        "lo",
        "los",
        "me",
        "mi",
        "mis",
        "mucho",
        "muchos",
        "muy",
        "más",
        "mí",
        "mía",
        "mías",
        "mío",
        "míos",
        "nada",
        "ni",
        "no",
        "nos",
        "nosotras",
        "nosotros",
        "nuestra",
        "nuestras",
        "nuestro",
        "nuestros",
        "o",
        "os",
        "otra",
        "otras",
        "otro",
        "otros",
        "para",
        "pero",
        "poco",
        "por",
        "porque",
        "que",
        "quien",
        "quienes",
        "quién",
        "qué",
        "se",
        "sea",
        "seamos",
        "sean",
        "seas",
        "será",
        "sería",
        "sin",
        "sobre",
        "sois",
        "somos",
        "son",
        "soy",
        "su",
        "sus",
        "suya",
        "suyas",
        "suyo",
        "suyos",
        "sí",
        "también",
        "tanto",
        "te",
        "tenemos",
        "tenga",
        "tengo",
        "tenéis",
        "tenía",
        "ti",
        "tiene",
        "tienen",
        "tienes",
        "todo",
        "todos",
        "tu",
        "tus",
        "tuve",
        "tuvo",
        "tuya",
        "tuyas",
        "tuyo",
        "tuyos",
        "tú",
        "un",
        "una",
        "uno",
        "unos",
        "vosotras",
        "vosotros",
        "vuestra",
        "vuestras",
        "vuestro",
        "vuestros",
        "y",
        "ya",
        "yo",
        "él",
        "éramos",
    ];

    pub(super) const PT: &[&str] = &[
        "a",
        "ao",
        "aos",
        "aquela",
        "aquelas",
        "aquele",
        "aqueles",
        "aquilo",
        "as",
        "até",
        "com",
        "como",
        "da",
        "das",
        "de",
        "dela",
        "delas",
        "dele",
        "deles",
        "depois",
        "do",
        "dos",
        "e",
        "ela",
        "elas",
        "ele",
        "eles",
        "em",
        "entre",
        "era",
        "eram",
        "essa",
        "essas",
        "esse",
        "esses",
        "esta",
        "estamos",
        "estas",
        "estava",
        "estavam",
        "este",
        "estes",
        "esteve",
        "estive",
        "estivemos",
        "estiveram",
        "estou",
        "está",
        "estávamos",
        "estão",
        "eu",
        "foi",
        "fomos",
        "foram",
        "fui",
        "havemos",
        "hei",
        "houve",
        "houvemos",
        "houveram",
        "há",
        "hão",
        "isso",
        "isto",
        "já",
        "lhe",
        "lhes",
        "mais",
        "mas",
        "me",
        "mesmo",
        "meu",
        "meus",
        "minha",
        "minhas",
        "muito",
        "na",
        "nas",
        "nem",
        "no",
        "nos",
        "nossa",
        "nossas",
        "nosso",
        "nossos",
        "num",
        "numa",
        "não",
        "nós",
        "o",
        "onde",
        "os",
        "ou",
        "para",
        "pela",
        "pelas",
        "pelo",
        "pelos",
        "por",
        "qual",
        "quando",
        "que",
        "quem",
        "se",
        "seja",
        "sejam",
        "sem",
        "ser",
        "seria",
        "será",
        "seu",
        "seus",
        "somos",
        "sou",
        "sua",
        "suas",
        "são",
        "só",
        "também",
        "te",
        "tem",
        "temos",
        "tenho",
        "teria",
        "terá",
        "teu",
        "teus",
        "teve",
        "tinha",
        "tinham",
        "tive",
        "tivemos",
        "tiveram",
        "tu",
        "tua",
        "tuas",
        "têm",
        "tínhamos",
        "um",
        "uma",
        "você",
        "vocês",
        "vos",
        "à",
        "às",
        "é",
        "éramos",
    ];

    pub(super) const IT: &[&str] = &[
        "a", "abbia", "abbiamo", "ad", "agl", "agli", "ai", "al", "all", "alla", "alle", "allo",
        "anche", "avete", "aveva", "avevano", "avevo", "c", "che", "chi", "ci", "coi", "col",
        "come", "con", "contro", "cui", "da", "dagl", "dagli", "dai", "dal", "dall", "dalla",
        "dalle", "dallo", "degl", "degli", "dei", "del", "dell", "della", "delle", "dello", "di",
        "dov", "dove", "e", "ed", "era", "erano", "ero", "fu", "fui", "furono", "gli", "ha", "hai",
        "hanno", "ho", "i", "il", "in", "io", "l", "la", "le", "lei", "li", "lo", "loro", "lui",
        "ma", "mi", "mia", "mie", "miei", "mio", "ne", "negl", "negli", "nei", "nel", "nell",
        "nella", "nelle", "nello", "noi", "non", "nostra", "nostre", "nostri", "nostro", "o",
        "per", "perché", "più", "quale", "quanta", "quante", "quanti", "quanto", "quella",
        "quelle", "quelli", "quello", "questa", "queste", "questi", "questo", "sarebbe", "sarà",
        "se", "sei", "si", "sia", "siamo", "siete", "sono", "su", "sua", "sue", "sugl", "sugli",
        "sui", "sul", "sull", "sulla", "sulle", "sullo", "suo", "suoi", "ti", "tra", "tu", "tua",
        "tue", "tuo", "tuoi", "tutti", "tutto", "un", "una", "uno", "vi", "voi", "vostra",
        "vostre", "vostri", "vostro", "è",
    ];

    pub(super) const NL: &[&str] = &[
        "aan", "al", "alles", "als", "altijd", "andere", "ben", "bij", "daar", "dan", "dat", "de",
        "der", "deze", "die", "dit", "doch", "doen", "door", "dus", "een", "eens", "en", "er",
        "ge", "geen", "geweest", "haar", "had", "heb", "hebben", "heeft", "hem", "het", "hier",
        "hij", "hoe", "hun", "iemand", "iets", "ik", "in", "is", "ja", "je", "kan", "kon",
        "kunnen", "maar", "me", "meer", "men", "met", "mij", "mijn", "moet", "na", "naar", "niet",
        "niets", "nog", "nu", "of", "om", "omdat", "onder", "ons", "ook", "op", "over", "reeds",
        "te", "tegen", "toch", "toen", "tot", "u", "uit", "uw", "van", "veel", "voor", "want",
        "waren", "was", "wat", "werd", "wezen", "wie", "wil", "worden", "wordt", "zal", "ze",
        "zelf", "zich", "zij", "zijn", "zo", "zonder", "zou",
    ];

    pub(super) const SV: &[&str] = &[
        "alla", "allt", "att", "av", "blev", "bli", "blir", "blivit", "de", "dem", "den", "denna",
        "deras", "dess", "dessa", "det", "detta", "dig", "din", "dina", "ditt", "du", "där", "då",
        "efter", "ej", "eller", "en", "er", "era", "ert", "ett", "från", "för", "ha", "hade",
        "han", "hans", "har", "henne", "hennes", "hon", "honom", "hur", "här", "i", "icke",
        "ingen", "inom", "inte", "jag", "ju", "kan", "kunde", "man", "med", "mellan", "men", "mig",
        "min", "mina", "mitt", "mot", "mycket", "ni", "nu", "när", "någon", "något", "några",
        "och", "om", "oss", "på", "samma", "sedan", "sig", "sin", "sina", "själv", "skulle", "som",
        "så", "sådan", "sådana", "sådant", "till", "under", "upp", "ut", "utan", "vad", "var",
        "vara", "varför", "varit", "varje", "vars", "vart", "vem", "vi", "vid", "vilka", "vilkas",
        "vilken", "vilket", "vår", "våra", "vårt", "än", "är", "åt", "över",
    ];
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
