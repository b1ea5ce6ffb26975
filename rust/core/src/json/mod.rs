//! The JSON-text backend: JSON `bytes`/`str` in, JSON out, without building a tree.

pub mod parse;
pub mod read;
pub mod write;

pub use read::{read_records, tool_use_info, utf8, Raw, ReadOpts};
pub use write::{records_len, write_records, write_records_into, write_str};
