//! The small interface a reader of records reads through: a JSON text read in
//! one streaming pass ([`crate::json::read`]), or Python objects (the binding).
//!
//! A `Value` is a value not yet read: a position in the text, or an object.
//! The record reader ([`super::record`]) asks what kind it is, opens objects
//! and walks their fields, iterates arrays, borrows strings and measures J();
//! the source never decides what a field means.

use super::cost::Tally;
use super::error::ReadError;
use crate::model::{AttValue, Str};

/// What a value is, as far as `content` cares.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum ValueKind {
    Str,
    Null,
    Array,
    /// An object, a number or a boolean.
    Other,
}

/// A set of wanted keys, one bit per key of a [`KeySet`].
pub type Mask = u32;

/// The keys of one kind of object that the reader looks at, in the order a
/// source that looks keys up (rather than streaming them) should try them.
pub trait KeySet: Copy + Eq + 'static {
    /// A number of its own for each key set (0, 1, ...): a source may keep a
    /// table per set.
    const SET: usize;
    const ALL: &'static [Self];
    fn name(self) -> &'static str;
    /// The key named `s`, if the reader looks at it.
    fn parse(s: &str) -> Option<Self>;
    fn index(self) -> usize;
    #[inline]
    fn bit(self) -> Mask {
        1 << self.index()
    }
}

/// Where records are read from. `'a`: how long the strings it lends live.
pub trait Source<'a>: Sized {
    /// A value not yet read.
    type Value: Clone;
    /// An object, opened.
    type Obj;
    /// A whole object once its fields were walked (for [`Source::handle`]).
    type Whole;
    /// Where a value read lies in the source (for a handle's "hole").
    type Span: Copy;
    /// What the model keeps of an original value.
    type Handle;
    /// The source's own failure (invalid JSON, a Python exception).
    type Error;

    /// A source reading on its own from the same input (for a value the reader
    /// comes back to once it knows what it is).
    fn fork(&self) -> Self;
    fn kind(&mut self, v: &Self::Value) -> Result<ValueKind, ReadError<Self::Error>>;
    /// `v` as an object; `None` (nothing read) when it is not one.
    fn object(&mut self, v: &Self::Value) -> Result<Option<Self::Obj>, ReadError<Self::Error>>;
    /// Walks the fields of `o` whose keys are in `K`, calling `f` for each
    /// (a key the set does not name is passed over). A streaming source calls
    /// `f` for every such key in document order; a source that looks keys up
    /// tries only the keys in `mask`, in [`KeySet::ALL`] order, and `f`
    /// returns the keys still wanted. Either way the reader's result is the
    /// same: `mask` only spares a source the lookups the reader does not need.
    fn fields<K: KeySet, F>(
        &mut self,
        o: Self::Obj,
        mask: Mask,
        f: F,
    ) -> Result<Self::Whole, ReadError<Self::Error>>
    where
        F: FnMut(&mut Self, K, Self::Value) -> Result<Mask, ReadError<Self::Error>>;
    /// How many elements array `v` has, when the source knows without reading
    /// them; 1 otherwise. A list of blocks is allocated at this size: a
    /// source that reads JSON cannot know, and most contents hold one block.
    #[inline]
    fn len_hint(&self, _v: &Self::Value) -> usize {
        1
    }
    /// Calls `f` with each element of array `v` (its kind is [`ValueKind::Array`]).
    fn array<F>(&mut self, v: Self::Value, f: F) -> Result<(), ReadError<Self::Error>>
    where
        F: FnMut(&mut Self, usize, Self::Value) -> Result<(), ReadError<Self::Error>>;
    /// A string's text and (when `chars`) its code points and classes; `None` for any other value.
    fn string(
        &mut self,
        v: Self::Value,
        chars: bool,
    ) -> Result<Option<(Str<'a>, Tally)>, ReadError<Self::Error>>;
    /// `f` of a string's text, looked at but not kept; `None` for any other value.
    fn peek_str<T>(
        &mut self,
        v: Self::Value,
        f: impl FnOnce(&str) -> T,
    ) -> Result<Option<T>, ReadError<Self::Error>>;
    /// Whether `v` is a string (checked, not kept).
    fn is_str(&mut self, v: Self::Value) -> Result<bool, ReadError<Self::Error>>;
    /// A string's code points and classes, without keeping its text; `None` for any other value.
    fn str_chars(&mut self, v: Self::Value) -> Result<Option<Tally>, ReadError<Self::Error>>;
    /// Whether `v` is `true`.
    fn is_true(&mut self, v: Self::Value) -> Result<bool, ReadError<Self::Error>>;
    /// Passes over `v` (a streaming source still checks it).
    fn skip(&mut self, v: Self::Value) -> Result<(), ReadError<Self::Error>>;
    /// §6 J(v), and its characters by class.
    fn j(&mut self, v: Self::Value) -> Result<Tally, ReadError<Self::Error>>;
    /// §6 J() of a whole object, and its characters by class.
    fn j_whole(&mut self, w: &Self::Whole) -> Result<Tally, ReadError<Self::Error>>;
    /// Where `v` lay, just after it was read.
    fn span(&self, v: &Self::Value) -> Self::Span;
    /// The handle of a value kept as it is (`timestamp`).
    fn keep(&mut self, v: Self::Value) -> Result<Self::Handle, ReadError<Self::Error>>;
    /// The handle of an object, with the span of the value the pipeline may replace.
    fn handle(&self, w: Self::Whole, hole: Option<Self::Span>) -> Self::Handle;
    /// A kept value's text when it is a string written without escapes.
    fn plain_str(h: &Self::Handle) -> Option<Str<'a>>;
    /// An attachment's top-level fields (§5); `None` when `v` is not an object.
    #[allow(clippy::type_complexity)]
    fn attachment(
        &mut self,
        v: Self::Value,
    ) -> Result<Option<Vec<(Str<'a>, AttValue<'a>)>>, ReadError<Self::Error>>;
}

/// Defines a [`KeySet`]: `Name = "json key"`, in lookup order.
macro_rules! key_set {
    ($(#[$m:meta])* $name:ident = $set:literal { $($key:ident = $s:literal),* $(,)? }) => {
        $(#[$m])*
        #[derive(Clone, Copy, Debug, PartialEq, Eq)]
        pub enum $name { $($key),* }
        impl KeySet for $name {
            const SET: usize = $set;
            const ALL: &'static [Self] = &[$($name::$key),*];
            #[inline]
            fn name(self) -> &'static str {
                match self { $($name::$key => $s),* }
            }
            #[inline]
            fn parse(s: &str) -> Option<Self> {
                match s { $($s => Some($name::$key),)* _ => None }
            }
            #[inline]
            fn index(self) -> usize {
                self as usize
            }
        }
    };
}

// Several keys a line: the lookup order reads left to right, top to bottom.
key_set! {
    /// A record's keys.
    RecordKey = 0 {
        Type = "type", Uuid = "uuid", Timestamp = "timestamp", IsMeta = "isMeta",
        IsVirtual = "isVirtual", IsApiErrorMessage = "isApiErrorMessage", Subtype = "subtype",
        Message = "message", Content = "content", Attachment = "attachment",
        ParentUuid = "parentUuid", LogicalParentUuid = "logicalParentUuid",
        TeamName = "teamName", AgentId = "agentId", SessionId = "sessionId",
        SourceToolAssistantUuid = "sourceToolAssistantUUID", IsSidechain = "isSidechain",
        IsCompactSummary = "isCompactSummary",
    }
}

key_set! {
    /// A `message`'s keys.
    MessageKey = 1 { Role = "role", Content = "content", Id = "id", Model = "model", Uuid = "uuid" }
}

key_set! {
    /// A block's keys.
    BlockKey = 2 {
        Type = "type", Text = "text", Id = "id", ToolUseId = "tool_use_id", IsError = "is_error",
        Content = "content", Name = "name", Input = "input", Thinking = "thinking", Data = "data",
        Source = "source", ProviderData = "provider_data",
    }
}

key_set! {
    /// A document's `source` keys.
    SourceKey = 3 { Type = "type", Data = "data" }
}

key_set! {
    /// A block's `provider_data` keys (what a provider's own fields said).
    ProviderDataKey = 4 { Detail = "detail" }
}

/// How many key sets there are (a source's tables are this long).
pub const KEY_SETS: usize = 5;
