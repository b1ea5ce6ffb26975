//! What every reader of records shares, written once: the SPEC §1 rules and
//! error messages, the depth limits, the §6 cost rules and the J() walk, and
//! the error type whose location is built from the inside out.
//!
//! Two readers use it: [`crate::json::read`] streams JSON text (no tree), and
//! the Python binding reads dicts and msgspec Structs without copying their
//! strings. Each finds the fields its own way; what a field must be, what a
//! missing or wrong one is called, and what a block costs are decided here.

pub mod cost;
pub mod error;
pub mod record;
pub mod source;

pub use cost::{block_cost, j_leaf, BlockCostFields, Leaf, Tally, SCALAR_J};
pub use error::{Invalid, ReadError, Within};
pub use record::{read_record, ReadOpts};
pub use source::{
    BlockKey, KeySet, Mask, MessageKey, RecordKey, Source, SourceKey, ValueKind, KEY_SETS,
};

use crate::model::{BlockKind, Kind};

/// Blocks nested in `tool_result` content deeper than this are refused.
pub const MAX_BLOCK_DEPTH: usize = 32;

/// Nesting beyond this in a value whose J() is counted is refused (in Python
/// objects it also stops cyclic values).
pub const MAX_VALUE_DEPTH: usize = 100_000;

/// The §1 error messages (a reader adds nothing but the location and, for JSON
/// Lines, the line).
pub mod msg {
    /// A required field is absent.
    pub const MISSING: &str = "missing required field";
    /// A string field holds another kind of value.
    pub const NOT_STRING: &str = "must be a string";
    /// `attachment` is not an object.
    pub const NOT_OBJECT: &str = "must be an object";
    /// `content` (of a message or a tool_result) is not a string, list or null.
    pub const BAD_CONTENT: &str = "must be a string, a list of blocks or null";
    /// A user/assistant `message` is not an object.
    pub const BAD_MESSAGE: &str = "must be an object with `role` and `content`";
    /// A tombstone's `message` is not an object.
    pub const BAD_TOMBSTONE_MESSAGE: &str = "must be an object (the removed assistant record)";
    /// Blocks nested beyond [`super::MAX_BLOCK_DEPTH`].
    pub const BLOCKS_TOO_DEEP: &str = "blocks nested too deeply in tool_result content";
    /// A value nested beyond [`super::MAX_VALUE_DEPTH`] where J() is counted.
    pub const VALUE_TOO_DEEP: &str = "value nested too deeply (or cyclic)";
    /// A Python str that is not valid Unicode (JSON text cannot hold one).
    pub const SURROGATE: &str = "holds a lone surrogate, which is not valid Unicode text";
    /// A record that is not an object (a dict), in every input kind.
    pub const RECORD_NOT_OBJECT: &str = "a record must be a JSON object";
    /// A block that is not an object (a dict), in every input kind.
    pub const BLOCK_NOT_OBJECT: &str = "a block must be a JSON object";
}

/// How a field a rule reads was found: absent, of the right JSON kind, or not.
#[derive(Clone, Copy, PartialEq, Eq, Debug, Default)]
pub enum Seen {
    #[default]
    Absent,
    Ok,
    Bad,
}

impl Seen {
    /// §1: a required field; `bad` is the message for a value of the wrong kind.
    #[inline]
    pub fn require<E>(self, key: &'static str, bad: &'static str) -> Result<(), ReadError<E>> {
        match self {
            Seen::Ok => Ok(()),
            Seen::Absent => Invalid::at(key, msg::MISSING).err(),
            Seen::Bad => Invalid::at(key, bad).err(),
        }
    }
    /// §1: a required string field.
    #[inline]
    pub fn require_str<E>(self, key: &'static str) -> Result<(), ReadError<E>> {
        self.require(key, msg::NOT_STRING)
    }
}

/// §1: the record kinds whose `uuid` is required (a step reads it).
pub fn uuid_required(kind: Kind) -> bool {
    matches!(kind, Kind::User | Kind::Assistant | Kind::Attachment)
}

/// §1: the record kinds that carry a `message` object.
pub fn has_message(kind: Kind) -> bool {
    matches!(kind, Kind::User | Kind::Assistant | Kind::Tombstone)
}

/// What a record's `message` must be when it is not an object.
pub fn bad_message(kind: Kind) -> &'static str {
    if kind == Kind::Tombstone {
        msg::BAD_TOMBSTONE_MESSAGE
    } else {
        msg::BAD_MESSAGE
    }
}

/// §1: a block of `kind` must have its id field ([`BlockKind::id_field`]) as a
/// string, and a text block its `text`; `text`/`id` say how each was found.
pub fn check_block<E>(kind: BlockKind, text: Seen, id: Seen) -> Result<(), ReadError<E>> {
    if kind == BlockKind::Text {
        return text.require_str("text");
    }
    match kind.id_field() {
        Some(field) => id.require_str(field),
        None => Ok(()),
    }
}

/// The id a block of `kind` keeps: its `id` or `tool_use_id`, as
/// [`BlockKind::id_field`] names.
pub fn pick_id<T>(kind: BlockKind, id: Option<T>, tool_use_id: Option<T>) -> Option<T> {
    match kind.id_field() {
        Some("id") => id,
        Some(_) => tool_use_id,
        None => None,
    }
}
