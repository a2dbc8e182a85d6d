//! The run's structured log events (`dream.*`): codes, counts, keys, agents and ids. Values of
//! entries appear only in `debug` events (the contradictions' values, behaviour §3 item 2).

use crate::error::Error;
use crate::host::{LogEvent, LogLevel, Logger};
use serde_json::{Map, Value};

/// The host's logger, bound to the run's user.
pub struct RunLog<'a, L> {
    /// The host's logger.
    pub logger: &'a L,
    /// The user the run is for.
    pub user_id: Option<&'a str>,
}

impl<L: Logger> RunLog<'_, L> {
    /// Log one event with its fields.
    pub fn event(&self, level: LogLevel, event: &str, fields: &[(&str, Value)]) {
        let mut map = Map::new();
        for (k, v) in fields {
            map.insert((*k).to_string(), v.clone());
        }
        let fields = map;
        self.logger.log(&LogEvent {
            level,
            event: event.to_string(),
            user_id: self.user_id.map(str::to_string),
            fields,
        });
    }
    /// A `debug` event.
    pub fn debug(&self, event: &str, fields: &[(&str, Value)]) {
        self.event(LogLevel::Debug, event, fields);
    }
    /// An `info` event.
    pub fn info(&self, event: &str, fields: &[(&str, Value)]) {
        self.event(LogLevel::Info, event, fields);
    }
    /// A `warn` event.
    pub fn warn(&self, event: &str, fields: &[(&str, Value)]) {
        self.event(LogLevel::Warn, event, fields);
    }
    /// An `error` event.
    pub fn error(&self, event: &str, fields: &[(&str, Value)]) {
        self.event(LogLevel::Error, event, fields);
    }
    /// An event about a failed host call: what it was about (`about` = its name and value),
    /// the error's code and message.
    pub fn failed(&self, level: LogLevel, event: &str, about: (&str, &str), error: &Error) {
        self.event(
            level,
            event,
            &[
                (about.0, about.1.into()),
                ("code", error.code.as_str().into()),
                ("message", crate::secrets::error_text(error).into()),
            ],
        );
    }
}
