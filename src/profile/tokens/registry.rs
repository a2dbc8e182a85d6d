//! The loaded rank tables of this instance (single-threaded: wasm), and the counter a budget
//! function uses: a host counter when one is given, else the loaded table of the encoding.

use super::{Encoding, Tokenizer};
use crate::error::{Error, ErrorCode, Result};
use crate::host::TokenCounter;
use std::cell::RefCell;
use std::rc::Rc;

thread_local! {
    static TABLES: RefCell<Vec<Rc<Tokenizer>>> = const { RefCell::new(Vec::new()) };
}

/// Load a rank table (`tokenizer/<encoding>.bin` of the package), replacing an earlier table of
/// the same encoding; its encoding.
pub fn load(bytes: Vec<u8>) -> Result<Encoding> {
    let tokenizer = Tokenizer::from_table(bytes)?;
    let encoding = tokenizer.encoding();
    TABLES
        .with(|t| {
            let mut tables = t.try_borrow_mut().ok()?;
            tables.retain(|tk| tk.encoding() != encoding);
            tables.push(Rc::new(tokenizer));
            Some(encoding)
        })
        .ok_or_else(|| Error::internal("tokenizer registry busy"))
}

/// The tokenizer of an encoding, when its table is loaded.
pub fn loaded(encoding: Encoding) -> Option<Rc<Tokenizer>> {
    TABLES.with(|t| {
        t.try_borrow()
            .ok()?
            .iter()
            .find(|tk| tk.encoding() == encoding)
            .cloned()
    })
}

/// Either a built-in table or the host's counter.
pub enum Counter<H> {
    /// A loaded table.
    Builtin(Rc<Tokenizer>),
    /// The host's `countTokens`.
    Host(H),
}

impl<H: TokenCounter> Counter<H> {
    /// The counter for a call of `function`: `host` when given, else the loaded table of
    /// `encoding` — `E_NO_TOKENIZER` when it is not loaded (never a silent estimate, SPEC §1.4).
    pub fn for_call(function: &str, encoding: Encoding, host: Option<H>) -> Result<Self> {
        if let Some(host) = host {
            return Ok(Counter::Host(host));
        }
        loaded(encoding).map(Counter::Builtin).ok_or_else(|| {
            Error::new(
                ErrorCode::NoTokenizer,
                format!(
                    "{function}: no `{}` table is loaded and no countTokens callback was given; \
                     call loadTokenizer(bytes) (the default entries do it at start) or pass options.countTokens",
                    encoding.name()
                ),
            )
        })
    }
}

impl<H: TokenCounter> TokenCounter for Counter<H> {
    fn count(&self, text: &str) -> Result<usize> {
        match self {
            Counter::Builtin(t) => Ok(t.count(text)),
            Counter::Host(h) => h.count(text),
        }
    }
    fn count_within(&self, text: &str, limit: usize) -> Result<Option<usize>> {
        match self {
            Counter::Builtin(t) => Ok(t.count_up_to(text, limit)),
            Counter::Host(h) => h.count_within(text, limit),
        }
    }
}
