//! The one error type every configuration check returns.
//!
//! The contract (docs/architecture.md rule 7): bad input gives one line naming the key and the
//! allowed values. Every crate that validates a part of the scenario returns a
//! `ConfigError` whose `key` is the dotted path from the scenario root
//! (`topology.hosts`, `flows[3].src`), so the CLI can print `key: message`.

use std::fmt;

#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ConfigError {
    /// Dotted path of the offending key, e.g. `workload.size.min`.
    pub key: String,
    /// What is wrong and what is allowed.
    pub message: String,
}

impl ConfigError {
    pub fn new(key: impl Into<String>, message: impl Into<String>) -> ConfigError {
        ConfigError { key: key.into(), message: message.into() }
    }
    /// A run stopped by the user (Ctrl-C; see [`crate::interrupt`]).
    pub fn interrupted() -> ConfigError {
        ConfigError::new(crate::interrupt::INTERRUPTED_KEY, "the run was interrupted")
    }
    pub fn is_interrupted(&self) -> bool {
        self.key == crate::interrupt::INTERRUPTED_KEY
    }
    /// Prefix the key with a parent path (`size.min` under `workload`).
    pub fn within(mut self, parent: &str) -> ConfigError {
        self.key = if self.key.is_empty() {
            parent.to_string()
        } else {
            format!("{parent}.{}", self.key)
        };
        self
    }
}

impl fmt::Display for ConfigError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}: {}", self.key, self.message)
    }
}

impl std::error::Error for ConfigError {}

/// Shorthand for checks: `ensure(cond, "topology.hosts", "must be at least 2")?`.
pub fn ensure(cond: bool, key: &str, message: impl Into<String>) -> Result<(), ConfigError> {
    if cond {
        Ok(())
    } else {
        Err(ConfigError::new(key, message))
    }
}
