//! Shared by the token tests: loading the built tables (building them with node when missing).
// Each test crate uses a different subset of these helpers.
#![allow(dead_code)]

use memcore::profile::tokens::{Encoding, Tokenizer};
use std::path::PathBuf;
use std::process::Command;

/// Bytes of `target/tokenizer/<encoding>.bin`, running the build script first when it is missing.
pub fn table_bytes(encoding: Encoding) -> Vec<u8> {
    let root = PathBuf::from(env!("CARGO_MANIFEST_DIR"));
    let path = root
        .join("target/tokenizer")
        .join(format!("{}.bin", encoding.name()));
    if !path.exists() {
        let status = Command::new("node")
            .arg("scripts/tokens/build-tables.mjs")
            .current_dir(&root)
            .status();
        assert!(
            matches!(status, Ok(s) if s.success()),
            "missing {}: run `npm ci && node scripts/tokens/build-tables.mjs`",
            path.display()
        );
    }
    std::fs::read(&path).unwrap_or_else(|e| panic!("cannot read {}: {e}", path.display()))
}

/// A tokenizer for `encoding` from the built table.
pub fn tokenizer(encoding: Encoding) -> Tokenizer {
    Tokenizer::from_table(table_bytes(encoding)).expect("built table loads")
}
