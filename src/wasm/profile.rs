//! Bindings for the profile format, injection, paths, enablement and editing (behaviour §1).

use super::boundary::{json_out, Call, Count, Time};
use memcore::boundary::utf16::{holds_replacement_character, Utf16Positions};
use memcore::error::Result;
use memcore::profile::{
    self, BodyPiece, Diagnostic, Frontmatter, FrontmatterField, KnownLines, Profile,
    RenderedProfile, RootInfo, SectionView,
};
use serde::ser::{SerializeSeq, Serializer};
use serde::{Deserialize, Serialize};
use std::borrow::Cow;
use wasm_bindgen::prelude::*;

/// `parseProfile`'s answer: the profile fields and the diagnostics side by side, and for each
/// of the six sections (in [`profile::SECTION_HEADINGS`] order, which JS has as `SECTION_HEADINGS`) its
/// lines as strings (new text) and runs: `[start, end)` in the text JS sent (two numbers) of
/// consecutive lines, one `\n` apart — JS splits the slice on `\n`. `canonical` has bit `i` set
/// when section `i`'s lines are canonical ([`profile::lines_are_canonical`]): JS remembers
/// which line arrays it built for those, and `renderProfileLines` then needs only their count.
#[derive(Serialize)]
#[serde(rename_all = "camelCase")]
struct ParsedOut<'a> {
    frontmatter: &'a Frontmatter,
    title: &'a Option<String>,
    lines: Vec<WireLines<'a>>,
    canonical: u32,
    diagnostics: &'a [Diagnostic],
}

struct WireLines<'a> {
    text: &'a str,
    lines: &'a [Cow<'a, str>],
    positions: Option<&'a Utf16Positions<'a>>,
}

impl Serialize for WireLines<'_> {
    fn serialize<S: Serializer>(&self, serializer: S) -> std::result::Result<S::Ok, S::Error> {
        let mut seq = serializer.serialize_seq(None)?;
        // A run: consecutive lines of the text, one `\n` apart, sent as one [start, end).
        let mut run: Option<(usize, usize)> = None;
        for line in self.lines {
            let range = self.positions.and_then(|p| p.byte_range(line));
            if let (Some((start, end)), Some((run_start, run_end))) = (range, run) {
                if start == run_end + 1 && self.text.as_bytes().get(run_end) == Some(&b'\n') {
                    run = Some((run_start, end));
                    continue;
                }
            }
            if let Some(done) = run.take() {
                self.run(&mut seq, done)?;
            }
            match range {
                Some(range) => run = Some(range),
                None => seq.serialize_element(line.as_ref())?,
            }
        }
        if let Some(done) = run {
            self.run(&mut seq, done)?;
        }
        seq.end()
    }
}

impl WireLines<'_> {
    fn run<S: SerializeSeq>(
        &self,
        seq: &mut S,
        (start, end): (usize, usize),
    ) -> std::result::Result<(), S::Error> {
        let units = |byte| self.positions.and_then(|p| p.unit(byte)).unwrap_or(0);
        seq.serialize_element(&units(start))?;
        seq.serialize_element(&units(end))
    }
}

/// Lenient, total parse of a `memory.md` text (JSON; lines as positions in `text`, see
/// [`ParsedOut`]; `js/wire.js` `profileFromWire` rebuilds the strings).
#[wasm_bindgen(js_name = parseProfile)]
pub fn parse_profile(text: String) -> Result<String> {
    let parsed = profile::parse_profile_lines(&text);
    let positions = Utf16Positions::new(&text);
    let lines = parsed
        .sections
        .iter()
        .map(|lines| WireLines {
            text: &text,
            lines,
            positions: positions.as_ref(),
        })
        .collect();
    let canonical = parsed
        .sections
        .iter()
        .take(32)
        .enumerate()
        .filter(|(_, lines)| profile::unbroken_lines_are_canonical(lines))
        .fold(0, |bits, (index, _)| bits | 1 << index);
    json_out(&ParsedOut {
        frontmatter: &parsed.frontmatter,
        title: &parsed.title,
        lines,
        canonical,
        diagnostics: &parsed.diagnostics,
    })
}

/// The canonical rendering of a profile object (JSON).
#[wasm_bindgen(js_name = renderProfile)]
pub fn render_profile(profile: String) -> Result<String> {
    let profile: Profile = Call("renderProfile").json("profile", &profile)?;
    Ok(profile::render_profile(&profile))
}

/// `renderProfile` for a profile sent as its head (JSON), `text` — each section's heading and
/// then its lines, each followed by `\n` — and `counts`, each section's number of lines. A
/// section whose bit is set in `known` has only its heading in `text`: its lines are ones
/// `parseProfile` answered as canonical, unchanged since (JS checks that), so their count is
/// all the layout needs. The answer is a JSON array of pieces: strings, and numbers naming a
/// section whose lines JS writes from the text it holds. It is `""` when `text` does not split
/// into exactly those lines (a heading or line held a newline) or holds U+FFFD (JS may have
/// held a lone surrogate there): JS then sends the profile as JSON (`renderProfile`); and it
/// is `"1"` when some section is known but the sections need canonicalising, which reads every
/// line: JS then sends them all.
#[wasm_bindgen(js_name = renderProfileLines)]
pub fn render_profile_lines(
    head: String,
    text: String,
    counts: Vec<u32>,
    known: u32,
) -> Result<String> {
    // `frontmatter` and `title` only: read as a `Profile` (no sections), whose reader exists.
    let head: Profile = Call("renderProfile").json("profile", &head)?;
    if holds_replacement_character(&text) {
        return Ok(String::new());
    }
    let mut rest = text.as_str();
    let mut split: Vec<(&str, Vec<&str>, Option<usize>)> = Vec::with_capacity(counts.len());
    for (index, count) in counts.into_iter().enumerate() {
        let Some((heading, after)) = rest.split_once('\n') else {
            return Ok(String::new());
        };
        rest = after;
        let count = usize::try_from(count).unwrap_or(usize::MAX);
        let is_known = u32::try_from(index)
            .ok()
            .and_then(|index| known.checked_shr(index))
            .is_some_and(|bits| bits & 1 == 1);
        if is_known {
            split.push((heading, Vec::new(), Some(count)));
            continue;
        }
        let mut lines = Vec::with_capacity(count.min(rest.len()));
        for _ in 0..count {
            let Some((line, after)) = rest.split_once('\n') else {
                return Ok(String::new());
            };
            lines.push(line);
            rest = after;
        }
        split.push((heading, lines, None));
    }
    if !rest.is_empty() {
        return Ok(String::new());
    }
    if known != 0 {
        let sections: Vec<(&str, KnownLines<'_>)> = split
            .iter()
            .map(|(heading, lines, known)| {
                let lines = match known {
                    Some(count) => KnownLines::Canonical(*count),
                    None => KnownLines::Given(lines.as_slice()),
                };
                (*heading, lines)
            })
            .collect();
        return match profile::render_known_pieces(&head.frontmatter, &sections) {
            Some(pieces) => json_out(&WirePieces(&pieces)),
            None => Ok("1".to_string()),
        };
    }
    let views: Vec<SectionView<'_>> = split
        .iter()
        .map(|(heading, lines, _)| (*heading, lines.as_slice()))
        .collect();
    match profile::render_profile_pieces(&head.frontmatter, &views) {
        RenderedProfile::Pieces(pieces) => json_out(&WirePieces(&pieces)),
        RenderedProfile::Text(text) => json_out(&[text]),
    }
}

/// The pieces as one flat JSON array: text as strings, sections as their index.
struct WirePieces<'a>(&'a [BodyPiece]);

impl Serialize for WirePieces<'_> {
    fn serialize<S: Serializer>(&self, serializer: S) -> std::result::Result<S::Ok, S::Error> {
        let mut seq = serializer.serialize_seq(Some(self.0.len()))?;
        for piece in self.0 {
            match piece {
                BodyPiece::Text(text) => seq.serialize_element(text)?,
                BodyPiece::Lines(index) => seq.serialize_element(index)?,
            }
        }
        seq.end()
    }
}

/// A new, empty profile for a user (JSON).
#[wasm_bindgen(js_name = emptyProfile)]
pub fn empty_profile(user_id: String, now: String) -> Result<String> {
    let now: Time = Call("emptyProfile").json("now", &now)?;
    json_out(&profile::empty_profile(&user_id, now.0)?)
}

/// The text without its frontmatter.
#[wasm_bindgen(js_name = profileBody)]
pub fn profile_body(text: String) -> String {
    profile::profile_body(&text)
}

/// behaviour §1.6 normalisation of a model answer.
#[wasm_bindgen(js_name = normaliseModelBody)]
pub fn normalise_model_body(text: String) -> String {
    profile::normalise_model_body(&text)
}

/// The strict well-formedness check for model output (after normalisation).
#[wasm_bindgen(js_name = isWellFormedBody)]
pub fn is_well_formed_body(text: String) -> bool {
    profile::is_well_formed_body(&text)
}

#[derive(Deserialize)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
struct AssembleArgs {
    user_id: String,
    turn_count: Count,
    now: Time,
    #[serde(default)]
    extra: Option<Vec<FrontmatterField>>,
}

/// `assembleProfile(body, { userId, turnCount, now, extra? })`.
#[wasm_bindgen(js_name = assembleProfile)]
pub fn assemble_profile(body: String, options: String) -> Result<String> {
    let options: AssembleArgs = Call("assembleProfile").json("options", &options)?;
    profile::assemble_profile(
        &body,
        &profile::AssembleOptions {
            user_id: options.user_id,
            turn_count: options.turn_count.0,
            now: options.now.0,
            extra: options.extra.unwrap_or_default(),
        },
    )
}

/// The system-prompt section (`# What I know about you` …), or `""`.
#[wasm_bindgen(js_name = memorySystemPromptSection)]
pub fn memory_system_prompt_section(text: Option<String>) -> String {
    text.map(|t| profile::memory_system_prompt_section(&t))
        .unwrap_or_default()
}

/// The one user-id rule (behaviour §1.1): nothing for an id every write and erasure accept, else
/// `E_INVALID_USER_ID` saying what is wrong.
#[wasm_bindgen(js_name = checkUserId)]
pub fn check_user_id(user_id: String) -> Result<()> {
    profile::validate_user_id(&user_id)
}

/// `<rootFolder>/<userId>/memory.md` for a validated id.
#[wasm_bindgen(js_name = memoryPath)]
pub fn memory_path(user_id: String, root_folder: Option<String>) -> Result<String> {
    profile::memory_path(&user_id, root_folder.as_deref())
}

/// Duplicate active roots → a warning; otherwise `null`.
#[wasm_bindgen(js_name = checkMemoryRoots)]
pub fn check_memory_roots(
    roots: String,
    configured_name: Option<String>,
) -> Result<Option<String>> {
    let roots: Vec<RootInfo> = Call("checkMemoryRoots").json("roots", &roots)?;
    Ok(profile::check_memory_roots(
        &roots,
        configured_name.as_deref(),
    ))
}

/// behaviour §1.8 effective enablement (JSON).
#[wasm_bindgen(js_name = resolveEnablement)]
pub fn resolve_enablement(inputs: String) -> Result<String> {
    let inputs: profile::EnablementInputs = Call("resolveEnablement").json("inputs", &inputs)?;
    json_out(&profile::resolve_enablement(&inputs))
}

/// The orchestrator rule: an absent `allowUserMemory` means disabled.
#[wasm_bindgen(js_name = orchestratorMemoryEnabled)]
pub fn orchestrator_memory_enabled(payload_value: Option<String>) -> Result<bool> {
    let value: Option<bool> =
        Call("orchestratorMemoryEnabled").optional("payloadValue", payload_value)?;
    Ok(profile::orchestrator_memory_enabled(value))
}

/// The body the Settings editor shows (frontmatter hidden).
#[wasm_bindgen(js_name = editableBody)]
pub fn editable_body(text: String) -> String {
    profile::editable_body(&text)
}

/// `getMyContextMemory`'s view of a stored text (`null` → no profile), JSON.
#[wasm_bindgen(js_name = memoryView)]
pub fn memory_view(stored: Option<String>) -> Result<String> {
    json_out(&profile::memory_view(stored.as_deref()))
}

#[derive(Deserialize)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
struct EditArgs {
    user_id: String,
    now: Time,
}

/// Apply a user's edit: `{ text, diagnostics }` (JSON).
#[wasm_bindgen(js_name = applyUserEdit)]
pub fn apply_user_edit(existing: Option<String>, body: String, options: String) -> Result<String> {
    let options: EditArgs = Call("applyUserEdit").json("options", &options)?;
    json_out(&profile::apply_user_edit(
        existing.as_deref(),
        &body,
        &profile::EditOptions {
            user_id: options.user_id,
            now: options.now.0,
        },
    )?)
}
