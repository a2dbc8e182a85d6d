//! One error type with stable codes (behaviour §6).
//!
//! Expected failures are data (outcomes, diagnostics, tool answers); an [`Error`] is misuse or a
//! failure the caller must handle. Every error has a stable [`ErrorCode`] that JS sees as
//! `MemcoreError.code`, a message that says what to do, and optional structured details.

use std::fmt;

crate::names::stable_names! {
    /// Stable error codes. The string form (`E_…`) is a public contract: never rename one.
    pub enum ErrorCode {
        /// A function was called with an argument of the wrong type or shape.
        Argument = "E_ARGUMENT",
        /// The package was used before its WebAssembly module was initialised (`slim` entry).
        NotInitialized = "E_NOT_INITIALIZED",
        /// A user id that cannot name a storage folder (behaviour §1.1).
        InvalidUserId = "E_INVALID_USER_ID",
        /// Input over a documented size limit.
        TooLarge = "E_TOO_LARGE",
        /// Invalid configuration; the details name the field path.
        Config = "E_CONFIG",
        /// A budget function was called with neither built-in tables nor a host `countTokens`.
        NoTokenizer = "E_NO_TOKENIZER",
        /// A host callback failed or returned something unusable.
        Host = "E_HOST",
        /// A conditional write lost against a concurrent writer.
        VersionConflict = "E_VERSION_CONFLICT",
        /// A write named an entry id that another user's entry or kept history holds (an
        /// entry id belongs to one user: docs/reference/behaviour.md §8.3); nothing was
        /// written.
        Conflict = "E_CONFLICT",
        /// A write held a credential and the secrets policy refused it (behaviour §8.1); the
        /// details name the field and the detector's kind, never the value.
        Secret = "E_SECRET",
        /// An internal invariant failed; a bug in memcore. Reported, never a trap.
        Internal = "E_INTERNAL",
    }
}

/// A memcore error: a stable code, a human message, and optional JSON details
/// (for `E_CONFIG` the field path, for `E_ARGUMENT` the argument name, …).
#[derive(Debug, Clone, PartialEq)]
pub struct Error {
    /// The stable code.
    pub code: ErrorCode,
    /// What went wrong and what to do about it.
    pub message: String,
    /// Structured details, when there are any.
    pub details: Option<serde_json::Value>,
}

impl Error {
    /// An error with a code and a message.
    pub fn new(code: ErrorCode, message: impl Into<String>) -> Self {
        Error {
            code,
            message: message.into(),
            details: None,
        }
    }

    /// Attach structured details.
    pub fn with_details(mut self, details: serde_json::Value) -> Self {
        self.details = Some(details);
        self
    }

    /// `E_ARGUMENT` naming the argument.
    pub fn argument(function: &str, argument: &str, expected: &str) -> Self {
        Error::new(
            ErrorCode::Argument,
            format!("{function}: argument `{argument}` must be {expected}"),
        )
        .with_details(serde_json::json!({ "function": function, "argument": argument }))
    }

    /// Attribute an `E_ARGUMENT` error to a function argument (prefix and details), so every
    /// argument error names what to fix; other codes pass through unchanged.
    pub fn in_argument(self, function: &str, argument: &str) -> Self {
        if self.code != ErrorCode::Argument {
            return self;
        }
        Error::new(
            ErrorCode::Argument,
            format!("{function}: argument `{argument}`: {}", self.message),
        )
        .with_details(serde_json::json!({ "function": function, "argument": argument }))
    }

    /// `E_INTERNAL`: a memcore bug, reported instead of a trap.
    pub fn internal(message: impl Into<String>) -> Self {
        Error::new(ErrorCode::Internal, message)
    }

    /// The error as one JSON object `{ code, message, details? }` (how it crosses to JS).
    pub fn to_json(&self) -> serde_json::Value {
        let mut object = serde_json::Map::new();
        object.insert("code".into(), self.code.as_str().into());
        object.insert("message".into(), self.message.clone().into());
        if let Some(details) = &self.details {
            object.insert("details".into(), details.clone());
        }
        serde_json::Value::Object(object)
    }

    /// An error that crossed as the JSON text of [`Error::to_json`] (a host adapter's failure);
    /// anything unreadable is `E_HOST`.
    pub fn from_json(text: &str) -> Self {
        let value: serde_json::Value = crate::json::from_str(text).unwrap_or_default();
        let code = value
            .get("code")
            .and_then(serde_json::Value::as_str)
            .and_then(ErrorCode::parse)
            .unwrap_or(ErrorCode::Host);
        let message = value
            .get("message")
            .and_then(serde_json::Value::as_str)
            .unwrap_or("the host failed without a message")
            .to_string();
        let error = Error::new(code, message);
        match value.get("details") {
            Some(details) if !details.is_null() => error.with_details(details.clone()),
            _ => error,
        }
    }

    /// `E_CONFIG` naming the field path (e.g. `guardrails.maxKeyLength`).
    pub fn config(path: &str, message: impl Into<String>) -> Self {
        let message = message.into();
        Error::new(ErrorCode::Config, format!("{path}: {message}"))
            .with_details(serde_json::json!({ "path": path }))
    }
}

impl fmt::Display for Error {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}: {}", self.code, self.message)
    }
}

impl std::error::Error for Error {}

/// Result alias used throughout the core.
pub type Result<T> = std::result::Result<T, Error>;
