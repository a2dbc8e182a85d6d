//! The model-condensing request (behaviour §1.4 step 2).

use super::condense_target;
use crate::host::{CompletionRequest, Purpose};
use crate::profile::format::{EMPTY_SECTION_MARKER, SECTION_HEADINGS};
use chrono::{DateTime, Utc};

/// The current time as the prompts show it: `YYYY-MM-DD HH:MM UTC`. Written by hand: chrono's
/// strftime machinery costs ~5 KiB of wasm for this one format.
pub fn prompt_time(now: DateTime<Utc>) -> String {
    use chrono::{Datelike, Timelike};
    format!(
        "{:04}-{:02}-{:02} {:02}:{:02} UTC",
        now.year(),
        now.month(),
        now.day(),
        now.hour(),
        now.minute()
    )
}

/// [`build_condense_prompt`] toward the condense target of `max_tokens`
/// ([`condense_target`]), with `now` written as the prompts show it ([`prompt_time`]): the
/// request `buildCondensePrompt` and `fitProfile` make.
pub fn build_condense_prompt_at(
    body: &str,
    max_tokens: usize,
    now: Option<DateTime<Utc>>,
) -> CompletionRequest {
    let now = now.map(prompt_time);
    build_condense_prompt(
        body,
        condense_target(max_tokens),
        max_tokens,
        now.as_deref(),
    )
}

/// Make text safe to place inside a tag-delimited block: it can never close the block
/// (`</` → `< /`, behaviour §1.7).
pub fn sanitise_block(text: &str) -> String {
    // `text.replace("</", "< /")` as a scan for `<` (memchr) instead of the substring searcher.
    let mut out = String::with_capacity(text.len() + 16);
    let mut copied = 0;
    for (at, _) in text.match_indices('<') {
        if text.as_bytes().get(at + 1) == Some(&b'/') {
            out.push_str(text.get(copied..at).unwrap_or(""));
            out.push_str("< ");
            copied = at + 1;
        }
    }
    out.push_str(text.get(copied..).unwrap_or(""));
    out
}

/// The one `Purpose::Condense` request that asks the model to shrink a profile body toward
/// `target_tokens` (normally `floor(0.9 × maxTokens)`). `body` is the profile without its
/// frontmatter; `now`, when given, is the current UTC time as `YYYY-MM-DD HH:MM UTC` so the model
/// can judge what is stale. The output cap is `max_tokens + 200`.
pub fn build_condense_prompt(
    body: &str,
    target_tokens: usize,
    max_tokens: usize,
    now: Option<&str>,
) -> CompletionRequest {
    let headings: Vec<String> = SECTION_HEADINGS
        .iter()
        .map(|heading| format!("## {heading}"))
        .collect();
    let words = target_tokens.saturating_mul(3) / 4;
    let system = format!(
        "You shorten a user's memory profile so that it fits a fixed size budget. The profile is \
         Markdown that an assistant reads at the start of every conversation.\n\
         \n\
         Rules:\n\
         - Aim for at most {target_tokens} tokens (about {words} words).\n\
         - Shorten by merging bullets that say the same thing and by removing material that is \
         stale or carries little signal: old Recent Topics first, then Follow-ups that are done or \
         out of date, then by folding Work Context and Skills & Expertise into fewer, denser \
         bullets.\n\
         - Never add anything that is not already in the profile. Do not guess, generalise into \
         new claims, or fill gaps.\n\
         - Keep every distinct fact in Identity and in Communication Preferences; you may only \
         merge exact repetitions there.\n\
         - Keep the title `# User Memory` and these six sections, in this order, each exactly once, \
         with no other `##` heading: {}.\n\
         - A section with nothing left contains only `{EMPTY_SECTION_MARKER}`.\n\
         - Keep bullets as `- ` lines, nested at most two levels; keep Recent Topics entries as \
         `- YYYY-MM-DD HH:MM UTC: topic`.\n\
         - No frontmatter, no code fence around the answer, no comments before or after it.\n\
         \n\
         Answer with the complete shortened profile and nothing else.",
        headings.join(", ")
    );
    let mut user = String::new();
    if let Some(now) = now {
        user.push_str(&format!("Current time: {now}\n\n"));
    }
    user.push_str(&format!(
        "Shorten this profile to at most {target_tokens} tokens.\n\n<profile>\n{}\n</profile>",
        sanitise_block(body.trim_end())
    ));
    CompletionRequest {
        purpose: Purpose::Condense,
        system,
        user,
        max_output_tokens: u32::try_from(max_tokens.saturating_add(200)).unwrap_or(u32::MAX),
    }
}

#[cfg(all(test, not(target_arch = "wasm32")))]
mod tests {
    use super::sanitise_block;
    use proptest::prelude::*;

    proptest! {
        /// The scan equals the plain replacement it stands for, on texts rich in `<` and `/`.
        #[test]
        fn sanitise_block_is_the_replacement(text in "[</ a-é🙂]{0,40}") {
            prop_assert_eq!(sanitise_block(&text), text.replace("</", "< /"));
        }
    }

    #[test]
    fn closing_tags_cannot_close_a_block() {
        assert_eq!(sanitise_block("a</b><</c></"), "a< /b><< /c>< /");
        assert_eq!(sanitise_block(""), "");
    }
}
