//! `userMemoryConfig` (behaviour §2.2). Tool attachment (behaviour §2.3) is [`super::attachment`].
//!
//! Parsing is strict about what it knows and lenient about what it does not: a known field with a
//! wrong type, an out-of-range number or an unknown enum value is an `E_CONFIG` error naming the
//! field path (`guardrails.maxKeyLength`, `dream.summarizeGroupBy`, …); **unknown extra fields are
//! ignored**, because agent configurations are shared with other engine versions (the seed's
//! `dream.schedule` hint is one such field) and rejecting them would break those agents. A field
//! set to JSON `null` reads as absent (its default applies).

use crate::error::{Error, Result};
use crate::secrets::SecretPolicy;
use serde::{Deserialize, Serialize};
use serde_json::{Map, Value};

pub use super::recall::RecallOrder;

/// What a new write does when the user is at `maxEntriesPerUser`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize, Default)]
#[serde(rename_all = "snake_case")]
pub enum OnCapReached {
    /// Evict this agent's own least recently updated entries, then write.
    #[default]
    EvictOldest,
    /// Refuse the write.
    Reject,
}

/// How Dream groups entries for summarisation.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize, Default)]
#[serde(rename_all = "snake_case")]
pub enum SummarizeGroupBy {
    /// One group per category.
    #[default]
    Category,
    /// All scoped entries together.
    All,
}

/// What Dream does with the originals it prunes or summarises (behaviour §8.3).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize, Default)]
#[serde(rename_all = "snake_case")]
pub enum DreamMode {
    /// Kept as versions (reason `pruned` or `summarised`, a summary's originals superseded by
    /// it), restorable while the history retains them: nothing Dream removes is lost at once.
    #[default]
    Supersede,
    /// behaviour §3 exactly: deleted, no version kept (for deployments that must not retain a raw
    /// fact once it is summarised).
    Delete,
}

/// How `searchMemory` and the search operations find entries (behaviour §2.5, §8.2).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize, Default)]
#[serde(rename_all = "snake_case")]
pub enum SearchMode {
    /// `Hybrid` when an embedder is configured, `Ranked` otherwise (the default: a user's
    /// natural question finds the fact; behaviour §2.5's rule is one setting away, `Terms`).
    #[default]
    Auto,
    /// Every term must occur (behaviour §2.5 exactly): most recent first, at most
    /// `maxRecallEntries`.
    Terms,
    /// BM25 over key and value with stop words and stemming: any term, best first.
    Ranked,
    /// `Ranked` fused with the cosine similarity of host embeddings (reciprocal rank fusion).
    Hybrid,
}

impl SearchMode {
    /// The configuration names, in order.
    pub const NAMES: &'static [&'static str] = &["auto", "terms", "ranked", "hybrid"];

    /// The mode a configuration name selects.
    pub fn parse(name: &str) -> Option<SearchMode> {
        match name {
            "auto" => Some(SearchMode::Auto),
            "terms" => Some(SearchMode::Terms),
            "ranked" => Some(SearchMode::Ranked),
            "hybrid" => Some(SearchMode::Hybrid),
            _ => None,
        }
    }

    /// Whether the mode ranks by meaning when an embedder is there (`auto`, `hybrid`).
    pub fn uses_embedder(self) -> bool {
        matches!(self, SearchMode::Auto | SearchMode::Hybrid)
    }
}

/// `userMemoryConfig.search` (behaviour §8.2).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct SearchConfig {
    /// `auto` (default), `terms`, `ranked` or `hybrid`.
    pub mode: SearchMode,
    /// The language of stop words and stemming (`ranked`, `hybrid`).
    pub language: Language,
    /// Most entries a `ranked` or `hybrid` search returns (`terms` keeps `maxRecallEntries`).
    pub limit: u64,
}

/// The default of `search.limit`.
pub const DEFAULT_SEARCH_LIMIT: u64 = 10;

impl Default for SearchConfig {
    fn default() -> Self {
        SearchConfig {
            mode: SearchMode::Auto,
            language: Language::English,
            limit: DEFAULT_SEARCH_LIMIT,
        }
    }
}

pub use super::attachment::{resolve_memory_tools, ToolAttachment};
pub use super::search::analyzer::Language;
pub use super::visibility::Visibility;

/// Limits enforced by the LLM tools only (behaviour §2.3: `enableMemoryTools` gates them).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct Guardrails {
    /// Maximum key length in Unicode scalar values.
    pub max_key_length: u64,
    /// Maximum value length in Unicode scalar values (non-strings: of their compact JSON).
    pub max_value_length: u64,
    /// Successful `rememberFact` writes allowed per turn.
    pub max_writes_per_turn: u64,
    /// Categories `rememberFact` accepts.
    pub allowed_categories: Vec<String>,
}

impl Default for Guardrails {
    fn default() -> Self {
        Guardrails {
            max_key_length: 100,
            max_value_length: 1000,
            max_writes_per_turn: 10,
            allowed_categories: vec!["preference".into(), "fact".into(), "context".into()],
        }
    }
}

/// Dream maintenance settings (behaviour §3).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct DreamConfig {
    /// The per-agent veto checked when a dream schedule fires.
    pub enabled: bool,
    /// Prune entries not updated for this many days; 0 switches pruning off.
    pub prune_stale_after_days: u64,
    /// Report same-key entries with distinct values.
    pub detect_contradictions: bool,
    /// Summarise groups of entries with the model.
    pub summarize_interactions: bool,
    /// Smallest group that is summarised.
    pub summarize_min_entries: u64,
    /// Entries a group is distilled toward (≥ 1).
    pub summarize_target_entries: u64,
    /// Grouping for summarisation.
    pub summarize_group_by: SummarizeGroupBy,
    /// Also group per agent.
    pub preserve_agent_provenance: bool,
    /// Maintain every agent's entries, not only the firing agent's.
    pub cross_agent_maintenance: bool,
    /// No model call starts once this cost (USD) is reached.
    pub max_cost_per_run: f64,
    /// Free-form model parameters, passed through untouched.
    pub parameters: Map<String, Value>,
    /// `supersede` (default): pruned and summarised originals are kept as versions; `delete`:
    /// behaviour §3 exactly, nothing kept.
    pub mode: DreamMode,
}

impl Default for DreamConfig {
    fn default() -> Self {
        DreamConfig {
            enabled: false,
            prune_stale_after_days: 90,
            detect_contradictions: true,
            summarize_interactions: false,
            summarize_min_entries: 5,
            summarize_target_entries: 2,
            summarize_group_by: SummarizeGroupBy::Category,
            preserve_agent_provenance: false,
            cross_agent_maintenance: false,
            max_cost_per_run: 0.5,
            parameters: Map::new(),
            mode: DreamMode::Supersede,
        }
    }
}

/// The agent's `userMemoryConfig` block with behaviour §2.2 defaults.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct UserMemoryConfig {
    /// Entries per user, `_gdpr_` entries not counted.
    pub max_entries_per_user: u64,
    /// Most entries one recall returns.
    pub max_recall_entries: u64,
    /// Recall ordering.
    pub recall_order: RecallOrder,
    /// Behaviour at the cap.
    pub on_cap_reached: OnCapReached,
    /// Visibility of `longTerm` properties that name none.
    pub default_visibility: Visibility,
    /// Tool guardrails.
    pub guardrails: Guardrails,
    /// Dream settings.
    pub dream: DreamConfig,
    /// What a write that holds a credential does (behaviour §8.1): `refuse` (default), `redact` or
    /// `allow`. Applies to every entry write path: the tools, REST and MCP upserts, properties,
    /// the legacy merge and Dream's summaries.
    pub secrets: SecretPolicy,
    /// How search finds entries (behaviour §8.2).
    pub search: SearchConfig,
    /// What an entry's history keeps (behaviour §8.3).
    pub history: HistoryConfig,
    /// What the tool answers show besides the entries (behaviour §8.6).
    pub answers: AnswersConfig,
    /// What memory learns by itself from each turn (behaviour §8.6).
    pub learn: LearnConfig,
}

/// `userMemoryConfig.answers` (behaviour §8.6).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct AnswersConfig {
    /// Append ` (since YYYY-MM-DD)` — the entry's `updatedAt` date — to each recall/search line
    /// (default `false`: behaviour §2.5's lines byte for byte).
    pub dates: bool,
}

/// `userMemoryConfig.learn` (behaviour §8.6): what `learnFromTurn` and `ContextMemory`'s `learn`
/// option do with a turn.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct LearnConfig {
    /// Extract facts into entries (default `true`).
    pub facts: bool,
    /// Keep the turn's messages as episodes (default `true`).
    pub episodes: bool,
    /// Existing entries shown to the extraction so a known fact keeps its key (default 20,
    /// 0–100).
    pub candidates: u64,
    /// Facts applied from one turn at most (default 10, 1–100); the rest are reported as
    /// refused (`max-facts-per-turn`).
    pub max_facts_per_turn: u64,
    /// Episodes older than this many days are dropped (default 90, 1–36,500).
    pub episode_retain_days: u64,
}

impl Default for LearnConfig {
    fn default() -> Self {
        LearnConfig {
            facts: true,
            episodes: true,
            candidates: 20,
            max_facts_per_turn: 10,
            episode_retain_days: 90,
        }
    }
}

/// The most candidates an extraction is shown.
pub const MAX_LEARN_CANDIDATES: u64 = 100;
/// The largest `learn.maxFactsPerTurn`.
pub const MAX_FACTS_PER_TURN: u64 = 100;

fn parse_answers(value: &Value) -> Result<AnswersConfig> {
    let map = object("answers", value)?;
    let mut a = AnswersConfig::default();
    if let Some(v) = field(map, "dates") {
        a.dates = v
            .as_bool()
            .ok_or_else(|| Error::config("answers.dates", "must be true or false"))?;
    }
    Ok(a)
}

fn parse_learn(value: &Value) -> Result<LearnConfig> {
    let map = object("learn", value)?;
    let mut l = LearnConfig::default();
    for (name, slot) in [("facts", &mut l.facts), ("episodes", &mut l.episodes)] {
        if let Some(v) = field(map, name) {
            *slot = v
                .as_bool()
                .ok_or_else(|| Error::config(&format!("learn.{name}"), "must be true or false"))?;
        }
    }
    let ranges = [
        ("candidates", &mut l.candidates, 0, MAX_LEARN_CANDIDATES),
        (
            "maxFactsPerTurn",
            &mut l.max_facts_per_turn,
            1,
            MAX_FACTS_PER_TURN,
        ),
        (
            "episodeRetainDays",
            &mut l.episode_retain_days,
            1,
            MAX_RETAIN_DAYS,
        ),
    ];
    for (name, slot, least, most) in ranges {
        if let Some(v) = field(map, name) {
            let path = format!("learn.{name}");
            let n = count(&path, v)?;
            if !(least..=most).contains(&n) {
                return Err(Error::config(
                    &path,
                    format!("must be between {least} and {most}"),
                ));
            }
            *slot = n;
        }
    }
    Ok(l)
}

impl Default for UserMemoryConfig {
    fn default() -> Self {
        UserMemoryConfig {
            max_entries_per_user: 500,
            max_recall_entries: 50,
            recall_order: RecallOrder::MostRecent,
            on_cap_reached: OnCapReached::EvictOldest,
            default_visibility: Visibility::SelfOnly,
            guardrails: Guardrails::default(),
            dream: DreamConfig::default(),
            secrets: SecretPolicy::Refuse,
            search: SearchConfig::default(),
            history: HistoryConfig::default(),
            answers: AnswersConfig::default(),
            learn: LearnConfig::default(),
        }
    }
}

/// Parse a `userMemoryConfig` JSON block (behaviour §2.2). Absent or `null` fields take defaults;
/// unknown fields are ignored; every other problem is `E_CONFIG` with the field path.
pub fn parse_user_memory_config(value: &Value) -> Result<UserMemoryConfig> {
    let root = object("", value)?;
    let mut config = UserMemoryConfig::default();
    let d = &mut config;
    if let Some(v) = field(root, "maxEntriesPerUser") {
        d.max_entries_per_user = count("maxEntriesPerUser", v)?;
    }
    if let Some(v) = field(root, "maxRecallEntries") {
        d.max_recall_entries = count("maxRecallEntries", v)?;
    }
    if let Some(v) = field(root, "recallOrder") {
        d.recall_order = match one_of("recallOrder", v, &["most_recent", "most_accessed"])? {
            "most_accessed" => RecallOrder::MostAccessed,
            _ => RecallOrder::MostRecent,
        };
    }
    if let Some(v) = field(root, "onCapReached") {
        d.on_cap_reached = match one_of("onCapReached", v, &["evict_oldest", "reject"])? {
            "reject" => OnCapReached::Reject,
            _ => OnCapReached::EvictOldest,
        };
    }
    if let Some(v) = field(root, "defaultVisibility") {
        let text = one_of("defaultVisibility", v, &["self", "group", "global"])?;
        d.default_visibility = Visibility::parse(text).unwrap_or_default();
    }
    if let Some(v) = field(root, "guardrails") {
        d.guardrails = parse_guardrails(v)?;
    }
    if let Some(v) = field(root, "dream") {
        d.dream = parse_dream(v)?;
    }
    if let Some(v) = field(root, "secrets") {
        let text = one_of("secrets", v, SecretPolicy::NAMES)?;
        d.secrets = SecretPolicy::parse(text).unwrap_or(SecretPolicy::Refuse);
    }
    if let Some(v) = field(root, "search") {
        d.search = parse_search(v)?;
    }
    if let Some(v) = field(root, "history") {
        d.history = parse_history(v)?;
    }
    if let Some(v) = field(root, "answers") {
        d.answers = parse_answers(v)?;
    }
    if let Some(v) = field(root, "learn") {
        d.learn = parse_learn(v)?;
    }
    Ok(config)
}

/// `userMemoryConfig.history` (behaviour §8.3).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct HistoryConfig {
    /// Keep versions (default `true`); `false`: a change overwrites, as before history existed.
    pub enabled: bool,
    /// Versions that ended more than this many days ago are dropped (default 30, at least 1).
    pub retain_days: u64,
    /// At most this many versions of one entry are kept, the newest (default 10, at least 1).
    pub max_versions_per_entry: u64,
}

impl Default for HistoryConfig {
    fn default() -> Self {
        HistoryConfig {
            enabled: true,
            retain_days: 30,
            max_versions_per_entry: 10,
        }
    }
}

/// The longest retention: 100 years (a larger number would overflow the date arithmetic).
pub const MAX_RETAIN_DAYS: u64 = 36_500;
/// The most versions kept per entry.
pub const MAX_VERSIONS_PER_ENTRY: u64 = 1_000;

fn parse_history(value: &Value) -> Result<HistoryConfig> {
    let map = object("history", value)?;
    let mut h = HistoryConfig::default();
    if let Some(v) = field(map, "enabled") {
        h.enabled = v
            .as_bool()
            .ok_or_else(|| Error::config("history.enabled", "must be true or false"))?;
    }
    if let Some(v) = field(map, "retainDays") {
        h.retain_days = count("history.retainDays", v)?;
        if !(1..=MAX_RETAIN_DAYS).contains(&h.retain_days) {
            return Err(Error::config(
                "history.retainDays",
                format!("must be between 1 and {MAX_RETAIN_DAYS}"),
            ));
        }
    }
    if let Some(v) = field(map, "maxVersionsPerEntry") {
        h.max_versions_per_entry = count("history.maxVersionsPerEntry", v)?;
        if !(1..=MAX_VERSIONS_PER_ENTRY).contains(&h.max_versions_per_entry) {
            return Err(Error::config(
                "history.maxVersionsPerEntry",
                format!("must be between 1 and {MAX_VERSIONS_PER_ENTRY}"),
            ));
        }
    }
    Ok(h)
}

fn parse_search(value: &Value) -> Result<SearchConfig> {
    let map = object("search", value)?;
    let mut s = SearchConfig::default();
    if let Some(v) = field(map, "mode") {
        let text = one_of("search.mode", v, SearchMode::NAMES)?;
        s.mode = SearchMode::parse(text).unwrap_or_default();
    }
    if let Some(v) = field(map, "language") {
        let codes: Vec<&str> = Language::ALL.iter().map(|l| l.code()).collect();
        let text = one_of("search.language", v, &codes)?;
        s.language = Language::parse(text).unwrap_or(Language::English);
    }
    if let Some(v) = field(map, "limit") {
        let n = count("search.limit", v)?;
        if !(1..=MAX_SEARCH_LIMIT).contains(&n) {
            return Err(Error::config(
                "search.limit",
                format!("must be between 1 and {MAX_SEARCH_LIMIT}"),
            ));
        }
        s.limit = n;
    }
    Ok(s)
}

/// The largest `search.limit`.
pub const MAX_SEARCH_LIMIT: u64 = super::limit::Limit::MAX;

fn parse_guardrails(value: &Value) -> Result<Guardrails> {
    let map = object("guardrails", value)?;
    let mut g = Guardrails::default();
    if let Some(v) = field(map, "maxKeyLength") {
        g.max_key_length = count("guardrails.maxKeyLength", v)?;
    }
    if let Some(v) = field(map, "maxValueLength") {
        g.max_value_length = count("guardrails.maxValueLength", v)?;
    }
    if let Some(v) = field(map, "maxWritesPerTurn") {
        g.max_writes_per_turn = count("guardrails.maxWritesPerTurn", v)?;
    }
    if let Some(v) = field(map, "allowedCategories") {
        let path = "guardrails.allowedCategories";
        let items = v
            .as_array()
            .ok_or_else(|| Error::config(path, "must be an array of strings"))?;
        let mut categories = Vec::new();
        for item in items {
            match item.as_str().map(str::trim) {
                Some(text) if !text.is_empty() => categories.push(text.to_string()),
                _ => return Err(Error::config(path, "must contain only non-empty strings")),
            }
        }
        g.allowed_categories = categories;
    }
    Ok(g)
}

fn parse_dream(value: &Value) -> Result<DreamConfig> {
    let map = object("dream", value)?;
    let mut d = DreamConfig::default();
    let flags: [(&str, &mut bool); 5] = [
        ("enabled", &mut d.enabled),
        ("detectContradictions", &mut d.detect_contradictions),
        ("summarizeInteractions", &mut d.summarize_interactions),
        ("preserveAgentProvenance", &mut d.preserve_agent_provenance),
        ("crossAgentMaintenance", &mut d.cross_agent_maintenance),
    ];
    for (name, slot) in flags {
        if let Some(v) = field(map, name) {
            *slot = v
                .as_bool()
                .ok_or_else(|| Error::config(&format!("dream.{name}"), "must be true or false"))?;
        }
    }
    if let Some(v) = field(map, "pruneStaleAfterDays") {
        d.prune_stale_after_days = count("dream.pruneStaleAfterDays", v)?;
    }
    if let Some(v) = field(map, "summarizeMinEntries") {
        d.summarize_min_entries = count("dream.summarizeMinEntries", v)?;
    }
    if let Some(v) = field(map, "summarizeTargetEntries") {
        let n = count("dream.summarizeTargetEntries", v)?;
        if n < 1 {
            return Err(Error::config(
                "dream.summarizeTargetEntries",
                "must be at least 1",
            ));
        }
        d.summarize_target_entries = n;
    }
    if let Some(v) = field(map, "mode") {
        d.mode = match one_of("dream.mode", v, &["supersede", "delete"])? {
            "delete" => DreamMode::Delete,
            _ => DreamMode::Supersede,
        };
    }
    if let Some(v) = field(map, "summarizeGroupBy") {
        d.summarize_group_by = match one_of("dream.summarizeGroupBy", v, &["category", "all"])? {
            "all" => SummarizeGroupBy::All,
            _ => SummarizeGroupBy::Category,
        };
    }
    if let Some(v) = field(map, "maxCostPerRun") {
        let path = "dream.maxCostPerRun";
        match v.as_f64() {
            Some(n) if n.is_finite() && n >= 0.0 => d.max_cost_per_run = n,
            _ => return Err(Error::config(path, "must be a number ≥ 0 (USD)")),
        }
    }
    if let Some(v) = field(map, "parameters") {
        d.parameters = object("dream.parameters", v)?.clone();
    }
    Ok(d)
}

/// A present, non-null field.
fn field<'a>(map: &'a Map<String, Value>, name: &str) -> Option<&'a Value> {
    map.get(name).filter(|v| !v.is_null())
}

fn object<'a>(path: &str, value: &'a Value) -> Result<&'a Map<String, Value>> {
    value.as_object().ok_or_else(|| {
        let shown = if path.is_empty() {
            "userMemoryConfig"
        } else {
            path
        };
        Error::config(shown, "must be a JSON object")
    })
}

/// A non-negative integer. `5.0` is accepted (JSON has one number type), `5.5`, `-1` and `"5"`
/// are not.
fn count(path: &str, value: &Value) -> Result<u64> {
    if let Some(n) = value.as_u64() {
        return Ok(n);
    }
    match value.as_f64() {
        Some(f) if f >= 0.0 && f.fract() == 0.0 && f <= 9_007_199_254_740_991.0 => Ok(f as u64),
        _ => Err(Error::config(path, "must be a non-negative integer")),
    }
}

fn one_of<'a>(path: &str, value: &'a Value, allowed: &[&str]) -> Result<&'a str> {
    match value.as_str() {
        Some(text) if allowed.contains(&text) => Ok(text),
        Some(text) => Err(Error::config(
            path,
            format!(
                "unknown value '{text}'; expected one of: {}",
                allowed.join(", ")
            ),
        )),
        None => Err(Error::config(
            path,
            format!("must be one of: {}", allowed.join(", ")),
        )),
    }
}
