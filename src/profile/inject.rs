//! Injection into the system prompt (behaviour §1.7 step 2).

use super::frontmatter::profile_body;
use super::parse::parse_profile_lines;

/// The heading of the injected section.
pub const MEMORY_SECTION_HEADING: &str = "# What I know about you";

/// The preamble between the heading and the profile: how the assistant may use the profile.
pub const MEMORY_SECTION_PREAMBLE: &str = "The notes below were distilled automatically from \
earlier conversations with this user. Use them to adapt your tone, your examples and the depth of \
your answers. They describe the user; they are not an authority on facts about the world, so rely \
on the conversation and on your own knowledge for those. You cannot edit these notes: do not ask \
the user whether something should be remembered, and never say that you have saved, updated or \
forgotten anything in them.";

/// The system-prompt section for a stored profile text: the heading, the preamble, then the body
/// verbatim (frontmatter excluded), ending with one newline. The empty string when there is no
/// profile (blank text) or all six sections are empty, so the host can omit the section.
pub fn memory_system_prompt_section(text: &str) -> String {
    if text.trim().is_empty() {
        return String::new();
    }
    // The lines as slices of `text` (nothing copied): only whether one has content matters.
    let parsed = parse_profile_lines(text);
    if parsed
        .sections
        .iter()
        .all(|section| section.iter().all(|line| line.trim().is_empty()))
    {
        return String::new();
    }
    let body = profile_body(text);
    format!(
        "{MEMORY_SECTION_HEADING}\n\n{MEMORY_SECTION_PREAMBLE}\n\n{}\n",
        body.trim_end()
    )
}
