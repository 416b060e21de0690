//! The scenario file: parsing, defaults, validation with key paths.
