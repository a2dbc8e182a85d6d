//! Exact token counting (behaviour §1.4): `o200k_base` and `cl100k_base`. The tokenizer is its
//! own crate, `memcore-tokens` (sources in this folder, root `tokenizer.rs`), built at opt-level
//! "s" while the rest of the core is built for size: counting and cutting are the core's hottest
//! loops (docs/internals/measurements.md). What needs the core's types is here: the
//! [`TokenCounter`] implementation, the errors as the core reports them, and the [`registry`].

pub mod registry;

use crate::error::{Error, ErrorCode, Result};
use crate::host::TokenCounter;
pub use memcore_tokens::{Encoding, Tokenizer};

impl From<memcore_tokens::Error> for Error {
    fn from(error: memcore_tokens::Error) -> Error {
        Error::new(ErrorCode::Argument, error.0)
    }
}

impl TokenCounter for Tokenizer {
    fn count(&self, text: &str) -> Result<usize> {
        Ok(Tokenizer::count(self, text))
    }
    fn count_within(&self, text: &str, limit: usize) -> Result<Option<usize>> {
        Ok(self.count_up_to(text, limit))
    }
}
