//! The rank tables of this instance (single-threaded: wasm), loaded on first use, and the counter
//! a budget function uses: a host counter when one is given, else the table of the encoding.
//!
//! A table is loaded when something first needs it: [`loaded`] asks the embedder's
//! [`set_provider`] hook, which may load it synchronously (Node reads the file) or start loading
//! it and answer "not yet" (a browser fetches it; `ready()` in JS waits for that). Nothing is
//! loaded at start, so a page that only parses profiles never downloads a table.

use super::{Encoding, Tokenizer};
use crate::error::{Error, ErrorCode, Result};
use crate::host::TokenCounter;
use std::cell::{OnceCell, RefCell};
use std::rc::Rc;

type Provider = Box<dyn Fn(Encoding) -> bool>;

thread_local! {
    static TABLES: RefCell<Vec<Rc<Tokenizer>>> = const { RefCell::new(Vec::new()) };
    static PROVIDER: RefCell<Option<Provider>> = const { RefCell::new(None) };
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

/// Install the embedder's hook: asked for a table that is not loaded, it loads it now (through
/// [`load`]) and answers `true`, or answers `false` (none, or not yet).
pub fn set_provider(provider: Provider) {
    PROVIDER.with(|p| {
        if let Ok(mut slot) = p.try_borrow_mut() {
            *slot = Some(provider);
        }
    });
}

fn find(encoding: Encoding) -> Option<Rc<Tokenizer>> {
    TABLES.with(|t| {
        t.try_borrow()
            .ok()?
            .iter()
            .find(|tk| tk.encoding() == encoding)
            .cloned()
    })
}

/// The tokenizer of an encoding: loaded already, or now through the provider.
pub fn loaded(encoding: Encoding) -> Option<Rc<Tokenizer>> {
    if let Some(tokenizer) = find(encoding) {
        return Some(tokenizer);
    }
    // No borrow of the tables is held here: the provider loads through `load`.
    let provided = PROVIDER.with(|p| {
        p.try_borrow()
            .ok()
            .and_then(|p| p.as_ref().map(|provide| provide(encoding)))
    });
    if provided == Some(true) {
        find(encoding)
    } else {
        None
    }
}

/// `E_NO_TOKENIZER` for `function`: the table of `encoding` is not loaded.
pub fn not_loaded(function: &str, encoding: Encoding) -> Error {
    let name = encoding.name();
    Error::new(
        ErrorCode::NoTokenizer,
        format!(
            "{function}: the `{name}` table is not loaded. Tables load on first use: in browsers and \
             edge runtimes `await ready('{name}')` before counting synchronously (async functions \
             load it themselves); in Workers `import 'memcore/tokenizer/{name}'`; with \
             'memcore/slim' call loadTokenizer(bytes); or pass options.countTokens"
        ),
    )
    .with_details(serde_json::json!({ "function": function, "encoding": name }))
}

/// Either a built-in table (resolved on first use) or the host's counter.
pub enum Counter<H> {
    /// The table of an encoding, looked up when first counted with.
    Builtin {
        /// The function the counter serves (named in `E_NO_TOKENIZER`).
        function: String,
        /// The encoding.
        encoding: Encoding,
        /// The table, once found.
        table: OnceCell<Rc<Tokenizer>>,
    },
    /// The host's `countTokens`.
    Host(H),
}

impl<H: TokenCounter> Counter<H> {
    /// The counter for a call of `function`: `host` when given, else the table of `encoding`
    /// (looked up when first needed; `E_NO_TOKENIZER` then if it cannot be loaded — never a
    /// silent estimate, behaviour §1.4).
    pub fn for_call(function: &str, encoding: Encoding, host: Option<H>) -> Self {
        match host {
            Some(host) => Counter::Host(host),
            None => Counter::Builtin {
                function: function.to_string(),
                encoding,
                table: OnceCell::new(),
            },
        }
    }

    /// The built-in tokenizer, when this counter uses one and its table can be loaded.
    pub fn tokenizer(&self) -> Result<Option<Rc<Tokenizer>>> {
        let Counter::Builtin {
            function,
            encoding,
            table,
        } = self
        else {
            return Ok(None);
        };
        if let Some(tokenizer) = table.get() {
            return Ok(Some(tokenizer.clone()));
        }
        let tokenizer = loaded(*encoding).ok_or_else(|| not_loaded(function, *encoding))?;
        Ok(Some(table.get_or_init(|| tokenizer).clone()))
    }
}

impl<H: TokenCounter> TokenCounter for Counter<H> {
    fn count(&self, text: &str) -> Result<usize> {
        match self {
            Counter::Host(h) => h.count(text),
            Counter::Builtin { .. } => match self.tokenizer()? {
                Some(t) => Ok(t.count(text)),
                None => Err(Error::internal("a built-in counter without a table")),
            },
        }
    }
    fn count_within(&self, text: &str, limit: usize) -> Result<Option<usize>> {
        match self {
            Counter::Host(h) => h.count_within(text, limit),
            Counter::Builtin { .. } => match self.tokenizer()? {
                Some(t) => Ok(t.count_up_to(text, limit)),
                None => Err(Error::internal("a built-in counter without a table")),
            },
        }
    }
}
