//! Shared by the token tests: the rank tables, vendored in `tests/data/tokenizer/` (zlib) so
//! `cargo test` needs neither node nor `node_modules`. The package suite checks that they are
//! byte for byte the tables the build writes (`tests/js/tokens.test.mjs`).
// Each test crate uses a different subset of these helpers.
#![allow(dead_code)]

use memcore::profile::tokens::{Encoding, Tokenizer};
use std::path::PathBuf;

/// The bytes of the rank table of `encoding`.
pub fn table_bytes(encoding: Encoding) -> Vec<u8> {
    let path = PathBuf::from(env!("CARGO_MANIFEST_DIR"))
        .join("tests/data/tokenizer")
        .join(format!("{}.bin.z", encoding.name()));
    let packed =
        std::fs::read(&path).unwrap_or_else(|e| panic!("cannot read {}: {e}", path.display()));
    miniz_oxide::inflate::decompress_to_vec_zlib(&packed)
        .unwrap_or_else(|e| panic!("{} does not inflate: {e:?}", path.display()))
}

/// A tokenizer for `encoding` from the vendored table.
pub fn tokenizer(encoding: Encoding) -> Tokenizer {
    Tokenizer::from_table(table_bytes(encoding)).expect("the vendored table loads")
}
