//! The JSON-text backend: JSON `bytes`/`str` in, JSON out, without building a tree.

pub mod parse;
pub mod read;
pub mod write;

pub use read::{read_records, utf8, Raw, ReadOpts};
pub use write::{write_records, write_str};
