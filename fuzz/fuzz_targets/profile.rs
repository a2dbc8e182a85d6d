//! The profile parser and renderer, and the frontmatter reader, on any text a `memory.md` can
//! hold (a user's edit, another tool's file, a model's answer).
//!
//! Properties, besides no panic and linear work: the frontmatter split gives back the text
//! (`block + body` is the text without its BOM); every diagnostic points at a line of the text;
//! `render∘parse` is idempotent (the rendering of the parse of a rendered profile is that
//! rendering again); the canonical rendering has `\n` line ends only and ends with one.
#![no_main]

use memcore::profile::frontmatter::read_frontmatter_of;
use memcore::profile::{
    is_well_formed_body, normalise_model_body, parse_profile, parse_profile_lines, profile_body,
    render_profile, split_frontmatter,
};
use memcore::turn::{parse_consolidation, parse_gate_decision};
use memcore_fuzz::{check, text_of, Bound};

/// Measured peaks (hostile inputs, corpora, the long run): ~140 bytes per input byte (a
/// line of ``` per 4 bytes: each a fence of its own) and ~2.8 allocations per input byte (a
/// duplicate section heading per 11 bytes); see docs/internals/fuzzing.md.
const BOUND: Bound = Bound {
    bytes_per_byte: 640,
    bytes_base: 256 * 1024,
    allocations_per_byte: 12,
    allocations_base: 4096,
};

/// Lines of `text` as the parser counts them: `\r\n`, `\n` and a lone `\r` each end one.
fn line_count(text: &str) -> usize {
    let bytes = text.as_bytes();
    let mut lines = 1;
    let mut at = 0;
    while let Some(&byte) = bytes.get(at) {
        if byte == b'\n' || (byte == b'\r' && bytes.get(at + 1) != Some(&b'\n')) {
            lines += 1;
        }
        at += 1;
    }
    lines
}

libfuzzer_sys::fuzz_target!(|data: &[u8]| {
    check("profile", data, &BOUND, |data| {
        let text = text_of(data);
        let unmarked = text.strip_prefix('\u{feff}').unwrap_or(&text);
        let split = split_frontmatter(&text);
        match split.block {
            Some(block) => {
                assert_eq!(
                    format!("{block}{}", split.body),
                    unmarked,
                    "split loses text"
                );
                assert!(
                    block.contains(split.yaml),
                    "the yaml is not inside its block"
                );
            }
            None => assert_eq!(
                split.body, unmarked,
                "split without a block changes the body"
            ),
        }
        let _ = read_frontmatter_of(&text);
        let _ = profile_body(&text);

        let parsed = parse_profile(&text);
        assert_eq!(
            parse_profile_lines(&text).into_owned(),
            parsed,
            "parse_profile_lines differs from parse_profile"
        );
        let lines = line_count(unmarked);
        for diagnostic in &parsed.diagnostics {
            assert!(
                (1..=lines + 1).contains(&diagnostic.line),
                "diagnostic {:?} points at line {} of {lines}",
                diagnostic.code,
                diagnostic.line
            );
        }
        let once = render_profile(&parsed.profile);
        assert!(
            once.ends_with('\n') && !once.ends_with("\n\n"),
            "not one trailing newline"
        );
        assert!(!once.contains('\r'), "the canonical rendering holds a \\r");
        let twice = render_profile(&parse_profile(&once).profile);
        assert_eq!(once, twice, "render∘parse is not idempotent");

        // What a model answers goes through the same reading.
        let body = normalise_model_body(&text);
        let _ = is_well_formed_body(&body);
        let _ = parse_gate_decision(&text);
        let _ = parse_consolidation(&text);
    });
});
