//! Fitting a profile to its token budget (behaviour §1.4, §1.5): [`condense_profile`]
//! (deterministic), one optional model condensing call ([`build_condense_prompt`]), then
//! [`enforce_token_cap`] (hard truncation). [`fit_profile`] runs the three; its result is always
//! within `maxTokens`.
//!
//! The whole file, frontmatter included, is counted. The frontmatter is kept byte for byte by
//! every step; a fit is never written back on its own (behaviour §1.3) — that is the caller's rule.
//!
//! **The cost is bounded by the budget, not by the stored file** (behaviour §1.7). No token can
//! cover more than [`MAX_TOKEN_BYTES`] bytes, so a text of more than `maxTokens × 128` bytes cannot
//! fit and need not be counted; fitting looks only at its [`fit_window`]: the first
//! `maxTokens × 128 + 64 KiB` bytes (whole lines; the 64 KiB leave room for the largest
//! frontmatter that is read). What lies beyond the window is dropped as the hard cut would drop
//! it, and the result carries the truncation marker. Budget checks use
//! [`TokenCounter::count_within`], which the built-in tables answer without reading past the
//! budget. Reports say `tokensBefore: null` for an input longer than its window (not counted).

mod body;
mod condense;
mod prompt;
mod truncate;

pub use condense::{condense_profile, CondenseOutcome};
pub use prompt::{build_condense_prompt, build_condense_prompt_at, prompt_time, sanitise_block};
pub use truncate::{enforce_token_cap, TruncateOutcome, TRUNCATION_MARKER};

use crate::error::{Error, Result};
use crate::host::{LanguageModel, TokenCounter, Usage};
use crate::profile::frontmatter::{profile_body, split_frontmatter, MAX_FRONTMATTER_BYTES};
use crate::profile::normalise::{is_well_formed_body, normalise_model_body};
use chrono::{DateTime, Utc};
use serde::{Deserialize, Serialize};

/// The default budget `maxTokens` (behaviour §1.4).
pub const DEFAULT_MAX_TOKENS: usize = 2000;
/// The smallest accepted `maxTokens`.
pub const MIN_MAX_TOKENS: usize = 500;
/// The largest accepted `maxTokens`.
pub const MAX_MAX_TOKENS: usize = 8000;

/// Check a configured budget: 500–8000 inclusive, otherwise `E_CONFIG` naming `maxTokens`.
pub fn validate_max_tokens(max_tokens: usize) -> Result<usize> {
    if (MIN_MAX_TOKENS..=MAX_MAX_TOKENS).contains(&max_tokens) {
        Ok(max_tokens)
    } else {
        Err(Error::config(
            "maxTokens",
            format!(
                "must be between {MIN_MAX_TOKENS} and {MAX_MAX_TOKENS} tokens (default \
                 {DEFAULT_MAX_TOKENS}); got {max_tokens}"
            ),
        ))
    }
}

/// A budget as JS passes it: absent or `null` → [`DEFAULT_MAX_TOKENS`]; otherwise an integer
/// in 500–8000, else `E_CONFIG` naming `maxTokens`.
pub fn budget(value: Option<&serde_json::Value>) -> Result<usize> {
    let Some(value) = value.filter(|v| !v.is_null()) else {
        return Ok(DEFAULT_MAX_TOKENS);
    };
    let n = value
        .as_u64()
        .and_then(|n| usize::try_from(n).ok())
        .ok_or_else(|| Error::config("maxTokens", "must be an integer between 500 and 8000"))?;
    validate_max_tokens(n)
}

/// The most UTF-8 bytes one token covers, for every counter fitting is used with: the longest
/// token of `o200k_base` and of `cl100k_base` (a run of 128 spaces). A host counter is assumed to
/// give at least one token per 128 bytes too.
pub const MAX_TOKEN_BYTES: usize = 128;

/// The part of `text` that fitting to `max_tokens` looks at, and whether anything was left out:
/// the text itself when it has at most `max_tokens × 128 + 64 KiB` bytes, otherwise its longest
/// prefix of whole lines within that size (a cut inside the first line when it alone is longer).
pub fn fit_window(text: &str, max_tokens: usize) -> (&str, bool) {
    let limit = max_tokens
        .saturating_mul(MAX_TOKEN_BYTES)
        .saturating_add(MAX_FRONTMATTER_BYTES);
    if text.len() <= limit {
        return (text, false);
    }
    let head = text
        .get(..truncate::floor_boundary(text, limit))
        .unwrap_or("");
    let end = match head.rfind('\n').or_else(|| head.rfind('\r')) {
        Some(at) => at + 1,
        None => head.len(),
    };
    (text.get(..end).unwrap_or(head), true)
}

/// The count of `text` when it is within `max_tokens`, else `None`. A text longer than its
/// [`fit_window`] is over budget without being counted (for any counter: no token covers more
/// than [`MAX_TOKEN_BYTES`]), so the check costs O(budget) with every counter.
pub(crate) fn within_budget(
    text: &str,
    max_tokens: usize,
    counter: &impl TokenCounter,
) -> Result<Option<usize>> {
    if fit_window(text, max_tokens).1 {
        return Ok(None);
    }
    counter.count_within(text, max_tokens)
}

/// The exact count of an input for a report, or `None` when it is longer than its window (a
/// bounded operation does not count it).
pub(crate) fn tokens_of_input(
    text: &str,
    max_tokens: usize,
    counter: &impl TokenCounter,
) -> Result<Option<usize>> {
    if fit_window(text, max_tokens).1 {
        Ok(None)
    } else {
        counter.count(text).map(Some)
    }
}

/// The size condensing aims for: `floor(0.9 × max_tokens)`, leaving room for the next turns.
pub fn condense_target(max_tokens: usize) -> usize {
    max_tokens / 10 * 9 + max_tokens % 10 * 9 / 10
}

/// Options of [`fit_profile`]. JSON: `{ "maxTokens": 2000, "useModel": true, "now": null }`,
/// every field optional.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase", default)]
pub struct FitOptions {
    /// The budget; validated (500–8000).
    pub max_tokens: usize,
    /// Whether step 2 (model condensing) may run when a model is given.
    pub use_model: bool,
    /// The current UTC time as `YYYY-MM-DD HH:MM UTC`, shown to the model so it can judge what
    /// is stale. The core has no clock; `None` leaves it out of the prompt.
    pub now: Option<String>,
}

impl FitOptions {
    /// The options of `fitProfile`: the budget, whether a model may condense, and the time the
    /// prompt shows ([`prompt_time`]; `None` leaves it out).
    pub fn at(max_tokens: usize, use_model: bool, now: Option<DateTime<Utc>>) -> Self {
        FitOptions {
            max_tokens,
            use_model,
            now: now.map(prompt_time),
        }
    }
}

impl Default for FitOptions {
    fn default() -> Self {
        FitOptions {
            max_tokens: DEFAULT_MAX_TOKENS,
            use_model: true,
            now: None,
        }
    }
}

/// What [`fit_profile`] did. `text` is always within `maxTokens`.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct FitReport {
    /// The fitted text.
    pub text: String,
    /// Step 1 removed something.
    pub condensed: bool,
    /// Step 2's answer replaced the body.
    pub model_condensed: bool,
    /// Step 3 cut the text.
    pub truncated: bool,
    /// Tokens of the input; `None` when it is longer than its [`fit_window`] (not counted).
    pub tokens_before: Option<usize>,
    /// Tokens of `text`.
    pub tokens_after: usize,
    /// Duplicate bullets removed by step 1.
    pub removed_duplicates: usize,
    /// Dated Recent Topics entries dropped by step 1.
    pub removed_topics: usize,
    /// Usage of the model call, when one was made and reported usage.
    pub model_usage: Option<Usage>,
    /// Why a model call made did not replace the body (error, malformed or not smaller answer).
    pub model_error: Option<String>,
}

/// Fit a profile text to `options.max_tokens` (behaviour §1.4): deterministic condensing; then, if
/// still over budget and `model` is given and `options.use_model`, one `Purpose::Condense` call
/// whose well-formed, smaller answer replaces the body; then hard truncation. A model failure
/// never fails the fit (it is reported in `model_error`); a counter failure does, and an invalid
/// budget is `E_CONFIG`.
pub async fn fit_profile<M: LanguageModel>(
    text: &str,
    options: &FitOptions,
    counter: &impl TokenCounter,
    model: Option<&M>,
) -> Result<FitReport> {
    let max_tokens = validate_max_tokens(options.max_tokens)?;
    let mut report = FitReport {
        text: text.to_string(),
        condensed: false,
        model_condensed: false,
        truncated: false,
        tokens_before: None,
        tokens_after: 0,
        removed_duplicates: 0,
        removed_topics: 0,
        model_usage: None,
        model_error: None,
    };
    if let Some(tokens) = within_budget(text, max_tokens, counter)? {
        report.tokens_before = Some(tokens);
        report.tokens_after = tokens;
        return Ok(report);
    }
    report.tokens_before = tokens_of_input(text, max_tokens, counter)?;
    let (window, cut_off) = fit_window(text, max_tokens);
    let condensed = condense::condense_over_budget(window, max_tokens, counter)?;
    report.text = condensed.text;
    report.condensed = condensed.changed;
    report.removed_duplicates = condensed.removed_duplicates;
    report.removed_topics = condensed.removed_topics;
    let mut tokens = counter.count_within(&report.text, max_tokens)?;
    if tokens.is_none() && options.use_model {
        if let Some(model) = model {
            tokens = model_condense(
                &mut report,
                max_tokens,
                options.now.as_deref(),
                counter,
                model,
            )
            .await?;
        }
    }
    match tokens {
        Some(tokens) if !cut_off => report.tokens_after = tokens,
        _ => {
            let (text, tokens) = truncate::cut(&report.text, max_tokens, counter)?;
            report.truncated = true;
            report.text = text;
            report.tokens_after = tokens;
        }
    }
    Ok(report)
}

/// Step 2: ask the model once; keep its answer only when it is well formed and smaller. The
/// count of the kept text when it is within budget.
async fn model_condense<M: LanguageModel>(
    report: &mut FitReport,
    max_tokens: usize,
    now: Option<&str>,
    counter: &impl TokenCounter,
    model: &M,
) -> Result<Option<usize>> {
    let request = build_condense_prompt(
        &profile_body(&report.text),
        condense_target(max_tokens),
        max_tokens,
        now,
    );
    let completion = match model.complete(&request).await {
        Ok(completion) => completion,
        Err(error) => {
            report.model_error = Some(format!("model call failed: {error}"));
            return Ok(None);
        }
    };
    report.model_usage = completion.usage;
    let body = normalise_model_body(&completion.text);
    if !is_well_formed_body(&body) {
        report.model_error = Some(
            "model answer is not a well-formed profile body (six `##` sections in order); ignored"
                .to_string(),
        );
        return Ok(None);
    }
    let candidate = with_body(&report.text, &body);
    let current = counter.count(&report.text)?;
    let tokens = counter.count(&candidate)?;
    if tokens >= current {
        report.model_error = Some(format!(
            "model answer is not smaller ({tokens} tokens, was {current}); ignored"
        ));
        return Ok(None);
    }
    report.text = candidate;
    report.model_condensed = true;
    Ok((tokens <= max_tokens).then_some(tokens))
}

/// `text` with its body replaced: the frontmatter (and a BOM before it) byte for byte, a blank
/// line, the new body.
fn with_body(text: &str, body: &str) -> String {
    let split = split_frontmatter(text);
    let prefix = text
        .get(..text.len() - split.body.len())
        .unwrap_or_default();
    if split.block.is_some() {
        format!("{prefix}\n{body}")
    } else {
        format!("{prefix}{body}")
    }
}
