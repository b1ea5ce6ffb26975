//! The core's view of a history: only what the SPEC's rules read, plus a handle
//! `H` to the original object (a raw JSON slice, or a Python object) so that
//! everything else is carried through unchanged.
//!
//! Every record and block remembers whether the pipeline changed it (`dirty`
//! flags); a backend writes an unchanged one by copying its handle.

use crate::error::{Error, Result};
use std::borrow::Cow;

pub type Str<'a> = Cow<'a, str>;

/// SPEC §1 record types; `Entry` is any other type (`summary`, ...).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Kind {
    User,
    Assistant,
    System,
    Attachment,
    Progress,
    ToolUseSummary,
    Tombstone,
    Entry,
}

impl Kind {
    pub fn from_type(t: &str) -> Kind {
        match t {
            "user" => Kind::User,
            "assistant" => Kind::Assistant,
            "system" => Kind::System,
            "attachment" => Kind::Attachment,
            "progress" => Kind::Progress,
            "tool_use_summary" => Kind::ToolUseSummary,
            "tombstone" => Kind::Tombstone,
            _ => Kind::Entry,
        }
    }
    pub fn is_message(self) -> bool {
        matches!(self, Kind::User | Kind::Assistant)
    }

    /// The `role` (and `type`) a message record of this kind has; `user` for
    /// the records the pipeline makes from system and attachment records.
    pub fn role(self) -> &'static str {
        if self == Kind::Assistant {
            "assistant"
        } else {
            "user"
        }
    }
}

/// SPEC §1 block types. `ServerResult` is any `*_tool_result` other than `tool_result`.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum BlockKind {
    Text,
    Thinking,
    RedactedThinking,
    ToolUse,
    ToolResult,
    Image,
    Document,
    ServerToolUse,
    McpToolUse,
    ServerResult,
    Other,
}

impl BlockKind {
    pub fn from_type(t: &str) -> BlockKind {
        match t {
            "text" => BlockKind::Text,
            "thinking" => BlockKind::Thinking,
            "redacted_thinking" => BlockKind::RedactedThinking,
            "tool_use" => BlockKind::ToolUse,
            "tool_result" => BlockKind::ToolResult,
            "image" => BlockKind::Image,
            "document" => BlockKind::Document,
            "server_tool_use" => BlockKind::ServerToolUse,
            "mcp_tool_use" => BlockKind::McpToolUse,
            t if t.ends_with("_tool_result") => BlockKind::ServerResult,
            _ => BlockKind::Other,
        }
    }
    /// A thinking or redacted thinking block.
    #[inline]
    pub fn is_thinking(self) -> bool {
        matches!(self, BlockKind::Thinking | BlockKind::RedactedThinking)
    }
    /// The field that must hold the block's id, if any (SPEC §1).
    pub fn id_field(self) -> Option<&'static str> {
        match self {
            BlockKind::ToolUse | BlockKind::ServerToolUse | BlockKind::McpToolUse => Some("id"),
            BlockKind::ToolResult | BlockKind::ServerResult => Some("tool_use_id"),
            _ => None,
        }
    }
}

/// A tokenizer family an estimate is calibrated to (SPEC §6); which model
/// names belong to which is [`crate::tokens`]' business (`Family::of_model`).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Family {
    Claude,
    O200k,
    Gemini,
}

/// The characters of a text by class (SPEC §6, tokenizer families): what a
/// calibrated estimate reads. Counts saturate.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Classes {
    /// Letters (ASCII, and the 2-byte UTF-8 scripts: accented Latin, Greek,
    /// Cyrillic, Hebrew, Arabic), and the runs of them (words).
    pub letters: u32,
    pub words: u32,
    /// Digits, and the runs of them (numbers).
    pub digits: u32,
    pub numbers: u32,
    /// ASCII punctuation and symbols (JSON syntax included), and the runs of them.
    pub punct: u32,
    pub puncts: u32,
    /// Runs of spaces and tabs, and newlines.
    pub spaces: u32,
    pub newlines: u32,
    /// CJK characters: Han (and CJK symbols, full-width forms), kana and
    /// Hangul apart (o200k_base reads them very differently); other non-ASCII ones.
    pub cjk: u32,
    pub kana: u32,
    pub hangul: u32,
    pub other: u32,
    /// Leaves of structured values (a tool call's input): strings and scalars,
    /// and the scalars alone.
    pub leaves: u32,
    pub scalars: u32,
    /// The characters of those strings that compact JSON escapes (quotes,
    /// backslashes, control characters).
    pub escapes: u32,
    /// Han characters (counted in `cjk` too) that o200k_base has no token of
    /// their own for ([`crate::tokens::han`]): mostly traditional and rarer ones.
    pub rare_han: u32,
    /// Runs of two or more spaces and tabs (counted in `spaces` too):
    /// indentation and alignment, which no word absorbs.
    pub gaps: u32,
}

impl Classes {
    /// These classes as a text's: a text is not written as JSON, so its
    /// quotes, backslashes and control characters are not escapes.
    #[inline]
    pub fn text(self) -> Classes {
        Classes { escapes: 0, ..self }
    }
    #[inline]
    pub fn add(&mut self, o: &Classes) {
        self.each(o, u32::saturating_add);
    }
    #[inline]
    pub fn sub(&mut self, o: &Classes) {
        self.each(o, u32::saturating_sub);
    }
    /// Each count set to `f(this count, o's)`.
    #[inline(always)]
    fn each(&mut self, o: &Classes, f: impl Fn(u32, u32) -> u32) {
        macro_rules! each {
            ($($f:ident),*) => { $(self.$f = f(self.$f, o.$f);)* };
        }
        each!(
            letters, words, digits, numbers, punct, puncts, spaces, newlines, cjk, kana, hangul,
            other, leaves, scalars, escapes, rare_han, gaps
        );
    }
}

/// The images of a block or record whose size was read from their header
/// (SPEC §6.2), and their tokens in each family ([`Family`] order).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct ImageCost {
    pub sized: u32,
    pub tokens: [u32; 3],
}

impl ImageCost {
    #[inline]
    pub fn add(&mut self, o: &ImageCost) {
        self.sized = self.sized.saturating_add(o.sized);
        for (t, o) in self.tokens.iter_mut().zip(o.tokens) {
            *t = t.saturating_add(o);
        }
    }
    #[inline]
    pub fn sub(&mut self, o: &ImageCost) {
        self.sized = self.sized.saturating_sub(o.sized);
        for (t, o) in self.tokens.iter_mut().zip(o.tokens) {
            *t = t.saturating_sub(o);
        }
    }
    /// Tokens of these images in family `f`.
    #[inline]
    pub fn tokens(&self, f: Family) -> u64 {
        u64::from(self.tokens[f as usize])
    }
}

/// Token-count ingredients of a block or record (SPEC §6), filled by a backend
/// only when counting was asked for.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Cost {
    /// Unicode code points that count as characters.
    pub chars: u64,
    /// Images (all of them: §6's formula counts each at `tokens_per_image`).
    pub images: u64,
    /// Those of them whose size was read, and what they cost per family.
    pub media: ImageCost,
    pub documents: u64,
    /// The same characters by class (a calibrated estimate's input).
    pub cls: Classes,
    /// Blocks, and among them tool calls and tool results (the wrapping an API adds).
    pub blocks: u32,
    pub calls: u32,
    pub results: u32,
}

impl Cost {
    pub fn add(&mut self, o: Cost) {
        self.chars += o.chars;
        self.images += o.images;
        self.media.add(&o.media);
        self.documents += o.documents;
        self.cls.add(&o.cls);
        self.blocks = self.blocks.saturating_add(o.blocks);
        self.calls = self.calls.saturating_add(o.calls);
        self.results = self.results.saturating_add(o.results);
    }
    /// Takes off what `o` (a part of this cost) added.
    pub fn sub(&mut self, o: Cost) {
        self.chars = self.chars.saturating_sub(o.chars);
        self.images = self.images.saturating_sub(o.images);
        self.media.sub(&o.media);
        self.documents = self.documents.saturating_sub(o.documents);
        self.cls.sub(&o.cls);
        self.blocks = self.blocks.saturating_sub(o.blocks);
        self.calls = self.calls.saturating_sub(o.calls);
        self.results = self.results.saturating_sub(o.results);
    }
}

#[derive(Clone, Debug)]
pub struct Block<'a, H> {
    pub kind: BlockKind,
    /// The original block; `None` for a block the pipeline made.
    pub orig: Option<H>,
    /// `id` of tool_use/server_tool_use/mcp_tool_use, `tool_use_id` of results.
    pub id: Option<Str<'a>>,
    /// `text` of a text block.
    pub text: Option<Str<'a>>,
    /// `is_error: true` (tool_result).
    pub is_error: bool,
    /// A tool_result's content (`None` when absent or null).
    pub inner: Option<Content<'a, H>>,
    /// `text` (text block) or `content` (tool_result) differs from `orig`.
    pub dirty: bool,
    pub cost: Cost,
}

impl<'a, H> Block<'a, H> {
    pub fn new_text(text: impl Into<Str<'a>>) -> Self {
        Block {
            kind: BlockKind::Text,
            orig: None,
            id: None,
            text: Some(text.into()),
            is_error: false,
            inner: None,
            dirty: true,
            cost: Cost::default(),
        }
    }
    /// `{type: tool_result, tool_use_id, content: text, is_error: true}`.
    pub fn new_error_result(id: Str<'a>, text: &'static str) -> Self {
        Block {
            kind: BlockKind::ToolResult,
            orig: None,
            id: Some(id),
            text: None,
            is_error: true,
            inner: Some(Content::Str(Cow::Borrowed(text))),
            dirty: true,
            cost: Cost::default(),
        }
    }
    pub fn text_str(&self) -> &str {
        self.text.as_deref().unwrap_or("")
    }
    pub fn is_blank_text(&self) -> bool {
        self.kind == BlockKind::Text && is_blank(self.text_str())
    }
}

/// `content`: a string or a list of blocks (`null` is read as the empty string).
#[derive(Clone, Debug)]
pub enum Content<'a, H> {
    Str(Str<'a>),
    Blocks(Vec<Block<'a, H>>),
}

impl<'a, H> Content<'a, H> {
    pub fn blocks(&self) -> &[Block<'a, H>] {
        match self {
            Content::Blocks(b) => b,
            Content::Str(_) => &[],
        }
    }
    pub fn is_empty(&self) -> bool {
        match self {
            Content::Str(s) => s.is_empty(),
            Content::Blocks(b) => b.is_empty(),
        }
    }
    /// String content becomes a list of one text block (none if empty when `drop_empty`).
    pub fn into_blocks(self, drop_empty: bool) -> Vec<Block<'a, H>> {
        match self {
            Content::Blocks(b) => b,
            Content::Str(s) if drop_empty && s.is_empty() => Vec::new(),
            Content::Str(s) => vec![Block::new_text(s)],
        }
    }
    pub fn has_tool_result(&self) -> bool {
        self.blocks()
            .iter()
            .any(|b| b.kind == BlockKind::ToolResult)
    }
}

/// How `isMeta` is written for an output record.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Meta {
    /// As the original has it.
    Keep,
    /// `isMeta: true`.
    True,
    /// No `isMeta` key.
    Absent,
}

/// A top-level field of an attachment, as §5 templates see it.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum AttValue<'a> {
    Str(Str<'a>),
    /// An integer, as its decimal digits.
    Int(String),
    /// Any other JSON value: the attachment renders to nothing when a template names it.
    Other,
}

/// A `message.id` and its hash, computed once, where the id is read and its
/// text is in cache. The fold step keys its map on the hash: at a million
/// records, reading each id's text again, from wherever it lies in the input,
/// costs a cache miss per record. The hasher is keyed once per process
/// ([`ahash::RandomState::new`]), so the hash is the same for the same text in
/// every record of a call.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct MessageId<'a> {
    text: Str<'a>,
    hash: u64,
}

impl<'a> MessageId<'a> {
    pub fn new(text: Str<'a>) -> Self {
        static STATE: std::sync::OnceLock<ahash::RandomState> = std::sync::OnceLock::new();
        let hash = STATE.get_or_init(ahash::RandomState::new).hash_one(&*text);
        MessageId { text, hash }
    }

    /// The id's text.
    pub fn text(&self) -> &Str<'a> {
        &self.text
    }

    /// The id's hash (equal texts, equal hashes).
    pub fn hash(&self) -> u64 {
        self.hash
    }
}

impl std::ops::Deref for MessageId<'_> {
    type Target = str;
    fn deref(&self) -> &str {
        &self.text
    }
}

#[derive(Clone, Debug)]
pub struct Record<'a, H> {
    /// Index of the source record in the input.
    pub index: usize,
    /// The input records this one holds (a source map): `None` is `[index]`;
    /// records merged into it add theirs; a record the pipeline inserted holds none.
    pub sources: Option<Box<Vec<usize>>>,
    pub kind: Kind,
    /// The original record; `None` for a record the pipeline made (§4 "inserted").
    pub orig: Option<H>,
    pub uuid: Option<Str<'a>>,
    pub uuid_dirty: bool,
    /// Index of the input record the current `uuid` came from (a merge may take `b`'s).
    pub uuid_from: usize,
    /// The original `timestamp` value, copied into records made from this one.
    pub timestamp: Option<H>,
    /// Current meta-ness (`isMeta: true`).
    pub is_meta: bool,
    pub meta: Meta,
    pub is_virtual: bool,
    /// `isApiErrorMessage` and `message.model == "<synthetic>"`.
    pub synthetic_error: bool,
    /// `message.id`, with its hash.
    pub message_id: Option<MessageId<'a>>,
    /// `system` with `subtype == "local_command"`.
    pub local_command: bool,
    /// `system` with `subtype == "system_prompt"` (a provider's system prompt,
    /// as `from_provider` makes it): kept in place by `normalize_for_api`.
    pub system_prompt: bool,
    /// `tombstone`: `message.uuid`.
    pub tombstone_of: Option<Str<'a>>,
    /// `attachment`: its top-level fields (boxed: most records are not
    /// attachments, and every pass over the records reads this struct).
    pub attachment: Option<Box<Vec<(Str<'a>, AttValue<'a>)>>>,
    /// user/assistant `message.content`, system `content`.
    pub content: Content<'a, H>,
    pub content_dirty: bool,
    /// Token-count ingredients of the content (filled when counting).
    pub cost: Cost,
    /// The tokenizer family of `message.model` (filled when counting).
    pub family: Option<Family>,
    /// The session-tree fields (filled by the JSON reader when asked, for [`crate::session`]).
    pub links: Option<Box<Links<'a>>>,
}

/// What a session file's `parentUuid` tree needs of a record (SPEC §8).
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Links<'a> {
    /// `parentUuid` (a string; `null` or absent is `None`).
    pub parent: Option<Str<'a>>,
    /// `logicalParentUuid`: where a compaction boundary's history continues.
    pub logical_parent: Option<Str<'a>>,
    /// `isSidechain: true`: written by a subagent.
    pub sidechain: bool,
    /// A non-null `teamName`: written by a teammate.
    pub team: Option<Str<'a>>,
    pub agent_id: Option<Str<'a>>,
    pub session_id: Option<Str<'a>>,
    pub timestamp: Option<Str<'a>>,
    /// `sourceToolAssistantUUID` of a tool-result user record.
    pub source_assistant: Option<Str<'a>>,
    /// `isCompactSummary: true`.
    pub compact_summary: bool,
    /// A `system` record with `subtype == "compact_boundary"`.
    pub compact_boundary: bool,
}

impl<'a, H> Record<'a, H> {
    /// A provider's system prompt (`system` with `subtype: "system_prompt"`,
    /// as `from_provider` makes it), which `normalize_for_api` keeps in place.
    pub fn is_system_prompt(&self) -> bool {
        self.kind == Kind::System && self.system_prompt
    }

    pub fn new(index: usize, kind: Kind, orig: Option<H>) -> Self {
        Record {
            index,
            sources: None,
            kind,
            orig,
            uuid: None,
            uuid_dirty: false,
            uuid_from: index,
            timestamp: None,
            is_meta: false,
            meta: Meta::Keep,
            is_virtual: false,
            synthetic_error: false,
            message_id: None,
            local_command: false,
            system_prompt: false,
            tombstone_of: None,
            attachment: None,
            content: Content::Str(Cow::Borrowed("")),
            content_dirty: false,
            cost: Cost::default(),
            family: None,
            links: None,
        }
    }

    /// A user record the pipeline makes (§4): `type`, `uuid`, `message`, and
    /// `timestamp`/`isMeta` when given.
    pub fn new_user(
        index: usize,
        uuid: Option<Str<'a>>,
        timestamp: Option<H>,
        is_meta: bool,
        content: Content<'a, H>,
    ) -> Self {
        let mut r = Record::new(index, Kind::User, None);
        r.uuid = uuid;
        r.uuid_dirty = true;
        r.timestamp = timestamp;
        r.is_meta = is_meta;
        r.meta = if is_meta { Meta::True } else { Meta::Absent };
        r.content = content;
        r.content_dirty = true;
        r
    }

    /// The input records this one holds, in input order (SPEC §4, source map).
    pub fn source_list(&self) -> Vec<usize> {
        match &self.sources {
            None => vec![self.index],
            Some(v) => {
                let mut v = v.to_vec();
                v.sort_unstable();
                v.dedup();
                v
            }
        }
    }

    /// Adds the input records of `sources` (another record's, merged into this one).
    pub fn absorb(&mut self, index: usize, sources: Option<Box<Vec<usize>>>) {
        let own = self
            .sources
            .get_or_insert_with(|| Box::new(vec![self.index]));
        match sources {
            None => own.push(index),
            Some(v) => own.extend(v.iter()),
        }
    }

    /// Marks a record the pipeline made: it holds no input record.
    pub fn inserted(mut self) -> Self {
        self.sources = Some(Box::default());
        self
    }

    pub fn set_content(&mut self, c: Content<'a, H>) {
        self.content = c;
        self.content_dirty = true;
    }

    /// Mutable blocks, turning a string content into a list first.
    pub fn blocks_mut(&mut self) -> &mut Vec<Block<'a, H>> {
        if let Content::Str(s) = &mut self.content {
            let s = std::mem::take(s);
            self.content = Content::Blocks(Content::Str(s).into_blocks(false));
            self.content_dirty = true;
        }
        self.content_dirty = true;
        match &mut self.content {
            Content::Blocks(b) => b,
            Content::Str(_) => unreachable!("content was made a list above"),
        }
    }

    pub fn set_meta(&mut self, on: bool) {
        self.is_meta = on;
        self.meta = if on { Meta::True } else { Meta::Absent };
    }

    /// A user record whose content is a list starting with a `tool_result` block.
    pub fn starts_with_tool_result(&self) -> bool {
        self.kind == Kind::User
            && self
                .content
                .blocks()
                .first()
                .is_some_and(|b| b.kind == BlockKind::ToolResult)
    }

    /// The top-level fields of an `attachment` record (none for another record).
    pub fn attachment_fields(&self) -> &[(Str<'a>, AttValue<'a>)] {
        self.attachment.as_deref().map_or(&[], |v| v.as_slice())
    }

    pub fn uuid_str(&self) -> &str {
        self.uuid.as_deref().unwrap_or("")
    }
}

/// `to_anthropic`'s rule, for every backend's writer: user and assistant
/// records only (normalize_for_api's output); the first other record is named.
pub fn check_anthropic_messages<H>(recs: &[Record<'_, H>]) -> Result<()> {
    match recs.iter().find(|r| !r.kind.is_message()) {
        None => Ok(()),
        Some(r) if r.system_prompt => Err(Error::invalid(
            r.index,
            format!("records[{}].type", r.index),
            "a system prompt record is the request's system text, which to_anthropic does not write: use to_provider(records, \"anthropic\"), which writes it, or leave the record out",
        )),
        Some(r) => Err(Error::invalid(
            r.index,
            format!("records[{}].type", r.index),
            "to_anthropic takes user and assistant records only (run normalize_for_api first)",
        )),
    }
}

/// White space in a text (SPEC §4 steps 4, 5, 7 and 8; tests/reference.py A5):
/// the Unicode `White_Space` property, Rust's `char::is_whitespace`. It holds
/// form feed, vertical tab, U+0085 and U+00A0, and not U+001C..U+001F (which
/// Python's `str.isspace` holds). Not JSON's white space: that is
/// [`crate::json::is_ws`].
#[inline]
pub fn is_space(c: char) -> bool {
    c.is_whitespace()
}

/// A blank text: empty or [`is_space`] only. The one definition the steps,
/// the provider writers and readers, and `validate` use.
pub fn is_blank(s: &str) -> bool {
    s.chars().all(is_space)
}

/// `s` without trailing [`is_space`] characters (step 8).
pub fn trim_end_space(s: &str) -> &str {
    s.trim_end_matches(is_space)
}

#[cfg(test)]
mod tests {
    use super::{is_blank, is_space, trim_end_space, MessageId, Str};

    #[test]
    fn blank_is_unicode_white_space() {
        assert!(is_blank("") && is_blank(" \t\n\r\x0b\x0c\u{85}\u{a0}\u{2028}\u{3000}"));
        // U+001C..U+001F: Python's str.isspace, not White_Space
        assert!(!is_blank("\x1c") && !is_space('\x1f'));
        assert!(!is_blank(" a "));
        assert_eq!(trim_end_space("a \x0c\u{a0}\n"), "a");
        assert_eq!(trim_end_space("a\x1c"), "a\x1c");
    }

    #[test]
    fn a_message_id_hashes_its_text_alone() {
        // the same text, borrowed from the input or unescaped into a String,
        // in two records: one hash, so the fold joins them
        let a = MessageId::new(Str::Borrowed("msg_01"));
        let b = MessageId::new(Str::Owned("msg_01".to_owned()));
        assert_eq!(a.hash(), b.hash());
        assert_eq!(a, b);
        assert_eq!(&*a, "msg_01");
        let c = MessageId::new(Str::Borrowed("msg_02"));
        assert_ne!(a.hash(), c.hash());
        assert_ne!(a, c);
    }
}
