//! Profile memory (SPEC §1): one Markdown `memory.md` per user.

pub mod tokens;
