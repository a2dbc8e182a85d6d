//! Fitting a profile to its token budget (SPEC §1.4, §1.5): [`condense_profile`] (deterministic),
//! one optional model condensing call ([`build_condense_prompt`]), then [`enforce_token_cap`]
//! (hard truncation). [`fit_profile`] runs the three; its result is always within `maxTokens`.
//!
//! The whole file, frontmatter included, is counted. The frontmatter is kept byte for byte by
//! every step; a fit is never written back on its own (SPEC §1.3) — that is the caller's rule.

mod body;
mod condense;
mod prompt;
mod truncate;

pub use condense::{condense_profile, CondenseOutcome};
pub use prompt::{build_condense_prompt, sanitise_block};
pub use truncate::{enforce_token_cap, TruncateOutcome, TRUNCATION_MARKER};

use crate::error::{Error, Result};
use crate::host::{LanguageModel, TokenCounter, Usage};
use crate::profile::frontmatter::{profile_body, split_frontmatter};
use crate::profile::normalise::{is_well_formed_body, normalise_model_body};
use serde::{Deserialize, Serialize};

/// The default budget `maxTokens` (SPEC §1.4).
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
    /// Tokens of the input.
    pub tokens_before: usize,
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

/// Fit a profile text to `options.max_tokens` (SPEC §1.4): deterministic condensing; then, if
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
    let condensed = condense_profile(text, max_tokens, counter)?;
    let mut report = FitReport {
        text: condensed.text,
        condensed: condensed.changed,
        model_condensed: false,
        truncated: false,
        tokens_before: condensed.tokens_before,
        tokens_after: condensed.tokens_after,
        removed_duplicates: condensed.removed_duplicates,
        removed_topics: condensed.removed_topics,
        model_usage: None,
        model_error: None,
    };
    if report.tokens_after > max_tokens && options.use_model {
        if let Some(model) = model {
            model_condense(
                &mut report,
                max_tokens,
                options.now.as_deref(),
                counter,
                model,
            )
            .await?;
        }
    }
    if report.tokens_after > max_tokens {
        let cut = truncate::cap_counted(&report.text, report.tokens_after, max_tokens, counter)?;
        report.truncated = cut.truncated;
        report.text = cut.text;
        report.tokens_after = cut.tokens_after;
    }
    Ok(report)
}

/// Step 2: ask the model once; keep its answer only when it is well formed and smaller.
async fn model_condense<M: LanguageModel>(
    report: &mut FitReport,
    max_tokens: usize,
    now: Option<&str>,
    counter: &impl TokenCounter,
    model: &M,
) -> Result<()> {
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
            return Ok(());
        }
    };
    report.model_usage = completion.usage;
    let body = normalise_model_body(&completion.text);
    if !is_well_formed_body(&body) {
        report.model_error = Some(
            "model answer is not a well-formed profile body (six `##` sections in order); ignored"
                .to_string(),
        );
        return Ok(());
    }
    let candidate = with_body(&report.text, &body);
    let tokens = counter.count(&candidate)?;
    if tokens >= report.tokens_after {
        report.model_error = Some(format!(
            "model answer is not smaller ({tokens} tokens, was {}); ignored",
            report.tokens_after
        ));
        return Ok(());
    }
    report.text = candidate;
    report.tokens_after = tokens;
    report.model_condensed = true;
    Ok(())
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
