//! What a summarisation call costs, and whether a model failure is transient (behaviour §3 item 3).
//!
//! **Cost rule.** Tokens are the model's reported usage (`inputTokens`, `outputTokens`); when
//! it reports none (or zero of both) they are estimated at one token per 4 characters (Unicode
//! scalar values) of the prompt (system + user) and of the answer, each rounded up. The price is
//! the host's `price: { inputPerMTok, outputPerMTok }` (USD per million tokens); without one,
//! **$10 per million tokens** for input and output alike — EDDI's conservative upper bound of
//! $0.01 per 1,000 tokens, so an unconfigured run overestimates rather than overspends. The
//! budget `maxCostPerRun` is checked before each call: no call starts once it is reached, so the
//! last call may pass it (its cost is known only after it).
//!
//! **Transient failures** resolve on their own and only skip their group: the error's
//! `details.transient` when it is a boolean; else its `details.status` (408, 429 and 500–599 —
//! 529 "overloaded" included — are transient, any other status is not); else its message, as
//! EDDI reads it: `timeout`, `timed out`, `rate limit`, `too many requests`, `429`, `502`, `503`,
//! `504`, `529`, `overloaded`, `temporarily unavailable`, and network failures (`connection
//! refused`, `connection reset`, `ECONNRESET`, `ECONNREFUSED`, `ETIMEDOUT`, `socket hang up`,
//! `network error`), case-insensitively. An unresolvable host (`ENOTFOUND`) is a wrong endpoint:
//! not transient. Everything else (401, a wrong model name, an unusable answer) stops
//! summarisation for the run.

use super::input::Price;
use crate::error::Error;
use crate::host::{CompletionRequest, Usage};

/// USD per million tokens when no price is configured (EDDI's $0.01 per 1,000 tokens).
pub const ESTIMATE_USD_PER_M_TOK: f64 = 10.0;
/// Characters per token of the estimate when the model reports no usage.
pub const CHARS_PER_TOKEN: usize = 4;

/// The tokens a call is charged for: reported usage, else the estimate.
pub fn charged_tokens(usage: Option<Usage>, request: &CompletionRequest, answer: &str) -> Usage {
    match usage {
        Some(u) if u.input_tokens > 0 || u.output_tokens > 0 => u,
        _ => {
            let chars = request.system.chars().count() + request.user.chars().count();
            Usage {
                input_tokens: chars.div_ceil(CHARS_PER_TOKEN) as u64,
                output_tokens: answer.chars().count().div_ceil(CHARS_PER_TOKEN) as u64,
            }
        }
    }
}

/// The cost in USD of `tokens` at `price` (or the estimate rate).
pub fn cost_usd(tokens: Usage, price: Option<Price>) -> f64 {
    let (input, output) = price.map_or((ESTIMATE_USD_PER_M_TOK, ESTIMATE_USD_PER_M_TOK), |p| {
        (p.input_per_m_tok, p.output_per_m_tok)
    });
    (tokens.input_tokens as f64 * input + tokens.output_tokens as f64 * output) / 1_000_000.0
}

const TRANSIENT_WORDS: &[&str] = &[
    "timeout",
    "timed out",
    "rate limit",
    "too many requests",
    "429",
    "502",
    "503",
    "504",
    "529",
    "overloaded",
    "temporarily unavailable",
    "connection refused",
    "connection reset",
    "econnreset",
    "econnrefused",
    "etimedout",
    "socket hang up",
    "network error",
];

/// Whether a model failure is transient (see the module documentation).
pub fn is_transient(error: &Error) -> bool {
    let details = error.details.as_ref();
    if let Some(flag) = details
        .and_then(|d| d.get("transient"))
        .and_then(|v| v.as_bool())
    {
        return flag;
    }
    if let Some(status) = details
        .and_then(|d| d.get("status"))
        .and_then(|v| v.as_f64())
    {
        return status == 408.0 || status == 429.0 || (500.0..600.0).contains(&status);
    }
    let message = error.message.to_lowercase();
    TRANSIENT_WORDS.iter().any(|word| message.contains(word))
}
