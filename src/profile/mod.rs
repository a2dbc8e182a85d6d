//! Profile memory (behaviour §1): one Markdown `memory.md` per user.
//!
//! [`format`] holds the model, [`parse`] reads any text leniently, [`render`] writes the
//! canonical form, [`frontmatter`] handles the YAML block, [`normalise`] checks model output,
//! [`inject`] builds the system-prompt section, [`paths`] the storage layout, [`enablement`] the
//! on/off decision, and [`edit`] the Settings editor.

pub mod edit;
pub mod enablement;
pub mod fit;
pub mod format;
pub mod frontmatter;
pub mod inject;
mod markdown;
pub mod normalise;
pub mod parse;
pub mod paths;
pub mod render;
pub mod tokens;

pub use edit::{
    apply_user_edit, editable_body, memory_view, EditOptions, EditResult, MemoryView,
    MAX_EDIT_BODY_BYTES,
};
pub use enablement::{
    orchestrator_memory_enabled, resolve_enablement, AllowWithWebSearch, Enablement,
    EnablementInputs, EnablementReason, EnablementWarning, EnablementWarningCode,
    WEB_SEARCH_TOOLTIP,
};
pub use fit::{
    build_condense_prompt, condense_profile, enforce_token_cap, fit_profile, validate_max_tokens,
    CondenseOutcome, FitOptions, FitReport, TruncateOutcome, DEFAULT_MAX_TOKENS, TRUNCATION_MARKER,
};
pub use format::{
    Diagnostic, DiagnosticCode, Frontmatter, FrontmatterField, ParsedProfile, Profile, Section,
    Severity, SECTION_HEADINGS,
};
pub use frontmatter::{profile_body, split_frontmatter, FrontmatterSplit};
pub use inject::memory_system_prompt_section;
pub use normalise::{is_well_formed_body, normalise_model_body};
pub use parse::{parse_profile, parse_profile_lines, ParsedLines};
pub use paths::{check_memory_roots, memory_path, validate_user_id, RootInfo};
pub use render::{
    assemble_profile, empty_body, empty_profile, lines_are_canonical, render_body,
    render_known_pieces, render_profile, render_profile_pieces, unbroken_lines_are_canonical,
    AssembleOptions, BodyPiece, KnownLines, RenderedProfile, SectionView,
};
