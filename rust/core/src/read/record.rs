//! SPEC §1: one record read from any [`Source`], written once. Fields are
//! taken in whatever order the source gives them; what they must be is judged
//! once the object is read, in one order (type, uuid, message, then the
//! kind's own fields), so every source reports the same first error.

use super::cost::{block_cost, BlockCostFields, Tally};
use super::error::{Invalid, ReadError, Within};
use super::source::{
    BlockKey, KeySet, Mask, MessageKey, ProviderDataKey, RecordKey, Source, SourceKey, ValueKind,
};
use super::MAX_BLOCK_DEPTH;
use super::{bad_message, check_block, has_message, msg, pick_id, uuid_required, Seen};
use crate::model::{
    AttValue, Block, BlockKind, Content, Cost, ImageCost, Kind, Links, MessageId, Record, Str,
};
use crate::tokens::{media, Family};
use std::borrow::Cow;
use std::marker::PhantomData;

/// What to read besides what every step needs.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct ReadOpts {
    /// Fill the token-count ingredients (§6).
    pub count: bool,
    /// Fill [`Record::links`], the session-tree fields (§8).
    pub links: bool,
    /// Keep each record's `timestamp` (the records the pipeline makes copy it, §4).
    pub timestamps: bool,
    /// With `count`: also count the characters by class (the calibrated
    /// estimates, §6.2); the §6 formula ("chars") needs only their number.
    pub classes: bool,
}

impl ReadOpts {
    /// For token counting (§6, §7), by any tokenizer.
    pub const COUNT: ReadOpts = ReadOpts {
        count: true,
        links: false,
        timestamps: false,
        classes: true,
    };

    /// For token counting with `p`: the classes only where its tokenizer
    /// reads them.
    pub fn counting(p: &crate::tokens::CountParams) -> ReadOpts {
        ReadOpts {
            classes: p.tokenizer != crate::tokens::Tokenizer::Chars,
            ..ReadOpts::COUNT
        }
    }
}

type RR<T, E> = Result<T, ReadError<E>>;

/// The object `v` is, or the error `not` (at `v`).
#[inline]
fn object<'a, S: Source<'a>>(src: &mut S, v: &S::Value, not: &'static str) -> RR<S::Obj, S::Error> {
    match src.object(v)? {
        Some(o) => Ok(o),
        None => Invalid::new(not).err(),
    }
}

#[inline]
fn bits<K: KeySet>(keys: &[K]) -> Mask {
    keys.iter().fold(0, |m, k| m | k.bit())
}

/// Reads record `index` at `v`. Its errors are located below the record
/// ([`ReadError::record`] names it).
pub fn read_record<'a, S: Source<'a>>(
    src: &mut S,
    v: S::Value,
    index: usize,
    opts: ReadOpts,
) -> RR<Record<'a, S::Handle>, S::Error> {
    let o = object(src, &v, msg::RECORD_NOT_OBJECT)?;
    // The record is built in place and moved once, into the caller's result.
    let mut rec = Record::new(index, Kind::Entry, None);
    let mut st = RecordState::<'a, S> {
        opts,
        seen: Found::default(),
        top_content: None,
        message: None,
        message_parsed: false,
        message_err: None,
        content_span: None,
        api_error: false,
        synthetic_model: false,
        links: opts.links.then(Box::<Links<'a>>::default),
        mask: RecordKey::Type.bit(),
    };
    let whole = src.fields(o, RecordKey::Type.bit(), |src, k: RecordKey, v| {
        st.field(&mut rec, src, k, v).key(k.name())
    })?;
    st.finish(&mut rec, src, whole)?;
    Ok(rec)
}

/// How the record fields §1 judges were found.
#[derive(Default)]
struct Found {
    ty: Seen,
    uuid: Seen,
    subtype: Seen,
    content: Seen,
    attachment: Seen,
}

struct RecordState<'a, S: Source<'a>> {
    opts: ReadOpts,
    seen: Found,
    /// A top-level `content` string: the content of a system record only (a
    /// user or assistant record may carry one too, as an extra field to keep).
    top_content: Option<Str<'a>>,
    /// `message` met before `type`: read once the type is known.
    message: Option<S::Value>,
    message_parsed: bool,
    /// Raised after the fields SPEC checks first (A2: uuid).
    message_err: Option<Invalid>,
    content_span: Option<S::Span>,
    api_error: bool,
    synthetic_model: bool,
    links: Option<Box<Links<'a>>>,
    /// The keys still wanted ([`RecordState::wanted`], once the type is known).
    mask: Mask,
}

impl<'a, S: Source<'a>> RecordState<'a, S> {
    /// The keys a record of `kind` still needs (for a source that looks keys up).
    fn wanted(&self, rec: &Record<'a, S::Handle>) -> Mask {
        use RecordKey as K;
        let mut m = K::IsMeta.bit();
        if self.opts.timestamps {
            m |= K::Timestamp.bit();
        }
        if self.opts.links {
            m |= bits(&[
                K::Timestamp,
                K::ParentUuid,
                K::LogicalParentUuid,
                K::TeamName,
                K::AgentId,
                K::SessionId,
                K::SourceToolAssistantUuid,
                K::IsSidechain,
                K::IsCompactSummary,
                K::Subtype,
            ]);
        }
        m | match rec.kind {
            Kind::Entry => return 0,
            Kind::User | Kind::Assistant => {
                bits(&[K::Uuid, K::IsVirtual, K::IsApiErrorMessage, K::Message])
            }
            // `content` is read only for a local command and a system prompt
            // (§4 step 3 drops a blank one).
            Kind::System
                if self.seen.subtype == Seen::Ok && (rec.local_command || rec.system_prompt) =>
            {
                bits(&[K::Uuid, K::Subtype, K::Content])
            }
            Kind::System => bits(&[K::Uuid, K::Subtype]),
            Kind::Attachment => bits(&[K::Uuid, K::Attachment]),
            Kind::Tombstone => K::Message.bit(),
            Kind::Progress | Kind::ToolUseSummary => K::Uuid.bit(),
        }
    }

    fn str(src: &mut S, v: S::Value, seen: &mut Seen) -> RR<Option<Str<'a>>, S::Error> {
        Ok(match src.string(v, false)? {
            Some((s, _)) => {
                *seen = Seen::Ok;
                Some(s)
            }
            None => {
                *seen = Seen::Bad;
                None
            }
        })
    }

    fn field(
        &mut self,
        rec: &mut Record<'a, S::Handle>,
        src: &mut S,
        k: RecordKey,
        v: S::Value,
    ) -> RR<Mask, S::Error> {
        match k {
            RecordKey::Type => {
                match src.peek_str(v, Kind::from_type)? {
                    Some(kind) => {
                        rec.kind = kind;
                        self.seen.ty = Seen::Ok;
                    }
                    None => self.seen.ty = Seen::Bad,
                }
                self.mask = self.wanted(rec);
            }
            RecordKey::Uuid => rec.uuid = Self::str(src, v, &mut self.seen.uuid)?,
            RecordKey::Timestamp => {
                let h = src.keep(v)?;
                if let Some(l) = self.links.as_mut() {
                    l.timestamp = S::plain_str(&h);
                }
                rec.timestamp = Some(h);
            }
            RecordKey::IsMeta => rec.is_meta = src.is_true(v)?,
            RecordKey::IsVirtual => rec.is_virtual = src.is_true(v)?,
            RecordKey::IsApiErrorMessage => self.api_error = src.is_true(v)?,
            RecordKey::Subtype => {
                let sub = src.peek_str(v, |s| {
                    (
                        s == "local_command",
                        s == "compact_boundary",
                        s == "system_prompt",
                    )
                })?;
                self.seen.subtype = if sub.is_some() { Seen::Ok } else { Seen::Bad };
                if let Some((local, boundary, prompt)) = sub {
                    rec.local_command = local;
                    rec.system_prompt = prompt;
                    if let Some(l) = self.links.as_mut() {
                        l.compact_boundary = boundary;
                    }
                }
                self.mask = self.wanted(rec);
            }
            RecordKey::Content => self.top_content = Self::str(src, v, &mut self.seen.content)?,
            RecordKey::Attachment => match src.attachment(v)? {
                Some(fields) => {
                    rec.attachment = Some(Box::new(fields));
                    self.seen.attachment = Seen::Ok;
                }
                None => self.seen.attachment = Seen::Bad,
            },
            RecordKey::Message if has_message(rec.kind) && self.seen.ty == Seen::Ok => {
                match read_message(src, v.clone(), rec, self.opts, self.api_error) {
                    Ok((synth, span)) => {
                        self.synthetic_model = synth;
                        self.content_span = span;
                    }
                    Err(ReadError::Invalid(e)) => {
                        src.skip(v)?;
                        self.message_err = Some(e);
                    }
                    Err(e) => return Err(e),
                }
                self.message_parsed = true;
            }
            RecordKey::Message => {
                self.message = Some(v.clone());
                src.skip(v)?;
            }
            RecordKey::ParentUuid
            | RecordKey::LogicalParentUuid
            | RecordKey::TeamName
            | RecordKey::AgentId
            | RecordKey::SessionId
            | RecordKey::SourceToolAssistantUuid => {
                if let Some(l) = self.links.as_mut() {
                    let s = Self::str(src, v, &mut Seen::Absent)?;
                    let slot = match k {
                        RecordKey::ParentUuid => &mut l.parent,
                        RecordKey::LogicalParentUuid => &mut l.logical_parent,
                        RecordKey::TeamName => &mut l.team,
                        RecordKey::AgentId => &mut l.agent_id,
                        RecordKey::SessionId => &mut l.session_id,
                        _ => &mut l.source_assistant,
                    };
                    *slot = s;
                }
            }
            RecordKey::IsSidechain | RecordKey::IsCompactSummary => {
                if let Some(l) = self.links.as_mut() {
                    let on = src.is_true(v)?;
                    if k == RecordKey::IsSidechain {
                        l.sidechain = on;
                    } else {
                        l.compact_summary = on;
                    }
                }
            }
        }
        Ok(self.mask)
    }

    fn finish(
        &mut self,
        rec: &mut Record<'a, S::Handle>,
        src: &mut S,
        whole: S::Whole,
    ) -> RR<(), S::Error> {
        let kind = rec.kind;
        if kind == Kind::System {
            // Only a system record's top-level `content` is its content: a
            // string (or nothing, read as ""), else (a system prompt's list of
            // blocks, written back as it came) no blocks of ours.
            rec.content = match self.top_content.take() {
                Some(s) => Content::Str(s),
                None if self.seen.content == Seen::Bad => Content::Blocks(Vec::new()),
                None => Content::Str(Cow::Borrowed("")),
            };
        } else if !matches!(kind, Kind::User | Kind::Assistant) || !self.message_parsed {
            rec.content = Content::Str(Cow::Borrowed(""));
        }
        self.seen.ty.require_str("type")?;
        // §1: a field is required only where a step reads it.
        if uuid_required(kind) {
            self.seen.uuid.require_str("uuid")?;
        }
        if let Some(e) = self.message_err.take() {
            return e.key("message").err();
        }
        match kind {
            k if has_message(k) && !self.message_parsed => {
                let Some(v) = self.message.take() else {
                    return Invalid::at("message", msg::MISSING).err();
                };
                let mut q = src.fork();
                let (synth, span) = read_message(&mut q, v, rec, self.opts, true).key("message")?;
                self.synthetic_model = synth;
                self.content_span = span;
            }
            Kind::System => {
                self.seen.subtype.require_str("subtype")?;
                if rec.local_command {
                    self.seen.uuid.require_str("uuid")?;
                    self.seen.content.require_str("content")?;
                }
            }
            Kind::Attachment => {
                self.seen
                    .attachment
                    .require("attachment", msg::NOT_OBJECT)?;
                let ty = rec.attachment_fields().iter().find(|(k, _)| k == "type");
                match ty {
                    Some((_, AttValue::Str(_))) => {}
                    Some(_) => return Invalid::at("type", msg::NOT_STRING).key("attachment").err(),
                    None => return Invalid::at("type", msg::MISSING).key("attachment").err(),
                }
            }
            _ => {}
        }
        rec.synthetic_error = self.api_error && self.synthetic_model;
        rec.orig = Some(src.handle(whole, self.content_span));
        if kind == Kind::System {
            rec.cost = Cost::default();
        }
        rec.links = self.links.take();
        Ok(())
    }
}

/// `message` of a user/assistant record (or a tombstone's `message.uuid`):
/// whether `message.model` is `<synthetic>`, and where its `content` lies.
/// `model`: the model is needed (`isApiErrorMessage` is true, or not yet known).
fn read_message<'a, S: Source<'a>>(
    src: &mut S,
    v: S::Value,
    rec: &mut Record<'a, S::Handle>,
    opts: ReadOpts,
    model: bool,
) -> RR<(bool, Option<S::Span>), S::Error> {
    let o = object(src, &v, bad_message(rec.kind))?;
    let tombstone = rec.kind == Kind::Tombstone;
    let mask = if tombstone {
        MessageKey::Uuid.bit()
    } else {
        let m = bits(&[MessageKey::Role, MessageKey::Content, MessageKey::Id]);
        if model || opts.count {
            m | MessageKey::Model.bit()
        } else {
            m
        }
    };
    let (mut role, mut content, mut uuid) = (Seen::Absent, Seen::Absent, Seen::Absent);
    let mut synthetic_model = false;
    let mut content_span = None;
    src.fields(o, mask, |src, k: MessageKey, v| {
        match (tombstone, k) {
            (true, MessageKey::Uuid) => {
                rec.tombstone_of = RecordState::<S>::str(src, v, &mut uuid).key("uuid")?
            }
            (true, _) => {}
            (false, MessageKey::Role) => {
                role = if src.is_str(v).key("role")? {
                    Seen::Ok
                } else {
                    Seen::Bad
                };
            }
            (false, MessageKey::Content) => {
                match read_content(src, v.clone(), 0, opts).key("content")? {
                    Some((c, cost)) => {
                        rec.content = c;
                        rec.cost = cost;
                        content = Seen::Ok;
                        content_span = Some(src.span(&v));
                    }
                    None => content = Seen::Bad,
                }
            }
            (false, MessageKey::Id) => {
                if let Some((id, _)) = src.string(v, false).key("id")? {
                    rec.message_id = Some(MessageId::new(id));
                }
            }
            (false, MessageKey::Model) => {
                if let Some((synth, family)) = src
                    .peek_str(v, |m| (m == "<synthetic>", Family::of_model(m)))
                    .key("model")?
                {
                    synthetic_model = synth;
                    if opts.count {
                        rec.family = family;
                    }
                }
            }
            (false, MessageKey::Uuid) => {}
        }
        Ok(mask)
    })?;
    if tombstone {
        uuid.require_str("uuid")?;
        return Ok((false, None));
    }
    role.require_str("role")?;
    content.require("content", msg::BAD_CONTENT)?;
    Ok((synthetic_model, content_span))
}

/// A content value (its errors located at it): `None` when it is neither
/// string, list nor null.
#[allow(clippy::type_complexity)]
fn read_content<'a, S: Source<'a>>(
    src: &mut S,
    v: S::Value,
    depth: usize,
    opts: ReadOpts,
) -> RR<Option<(Content<'a, S::Handle>, Cost)>, S::Error> {
    match src.kind(&v)? {
        ValueKind::Str => {
            let (s, t) = src.string(v, opts.count)?.unwrap_or_default();
            let cost = Cost {
                chars: t.n,
                cls: t.cls.text(),
                ..Cost::default()
            };
            Ok(Some((Content::Str(s), cost)))
        }
        ValueKind::Null => {
            src.skip(v)?;
            Ok(Some((Content::Str(Cow::Borrowed("")), Cost::default())))
        }
        ValueKind::Array => {
            // Sized to the list where the source knows it, else to one block
            // (a first push would reserve four: at a million records the
            // blocks' unused room was more fresh memory than the records).
            let mut blocks = Vec::with_capacity(src.len_hint(&v));
            let mut cost = Cost::default();
            src.array(v, |src, j, b| {
                // Matched, not mapped: the block is moved once, into the list.
                let b = match read_block(src, b, depth, opts) {
                    Ok(b) => b,
                    Err(e) => return Err(e).index(j),
                };
                cost.add(b.cost);
                blocks.push(b);
                Ok(())
            })?;
            Ok(Some((Content::Blocks(blocks), cost)))
        }
        ValueKind::Other => {
            src.skip(v)?;
            Ok(None)
        }
    }
}

/// A tool_result's content (errors located at the block).
#[allow(clippy::type_complexity)]
fn tool_result_content<'a, S: Source<'a>>(
    src: &mut S,
    v: S::Value,
    depth: usize,
    opts: ReadOpts,
) -> RR<(Content<'a, S::Handle>, Cost), S::Error> {
    match read_content(src, v, depth + 1, opts).key("content")? {
        Some(x) => Ok(x),
        None => Invalid::at("content", msg::BAD_CONTENT).err(),
    }
}

/// The keys a block of `kind` needs (for a source that looks keys up).
fn block_wanted(kind: Option<BlockKind>, count: bool) -> Mask {
    use BlockKey as K;
    let c = |m: Mask| if count { m } else { 0 };
    match kind {
        None => 0,
        Some(BlockKind::Text) => K::Text.bit(),
        Some(BlockKind::ToolUse | BlockKind::ServerToolUse) => {
            K::Id.bit() | c(bits(&[K::Name, K::Input]))
        }
        Some(BlockKind::McpToolUse) => K::Id.bit(),
        Some(BlockKind::ToolResult) => bits(&[K::ToolUseId, K::IsError, K::Content]),
        Some(BlockKind::ServerResult) => K::ToolUseId.bit(),
        Some(BlockKind::Thinking) => c(K::Thinking.bit()),
        Some(BlockKind::RedactedThinking) => c(K::Data.bit()),
        Some(BlockKind::Document) => c(K::Source.bit()),
        Some(BlockKind::Image) => c(bits(&[K::Source, K::ProviderData])),
        Some(BlockKind::Other) => 0,
    }
}

/// A block (its errors located at the block).
fn read_block<'a, S: Source<'a>>(
    src: &mut S,
    v: S::Value,
    depth: usize,
    opts: ReadOpts,
) -> RR<Block<'a, S::Handle>, S::Error> {
    let o = object(src, &v, msg::BLOCK_NOT_OBJECT)?;
    if depth >= MAX_BLOCK_DEPTH {
        return Invalid::new(msg::BLOCKS_TOO_DEEP).err();
    }
    let count = opts.count;
    let mut kind: Option<BlockKind> = None;
    let mut type_seen = Seen::Absent;
    let (mut id, mut id_seen) = (None::<Str<'a>>, Seen::Absent);
    let (mut tuid, mut tuid_seen) = (None::<Str<'a>>, Seen::Absent);
    let (mut text, mut text_seen) = (None::<Str<'a>>, Seen::Absent);
    let mut text_chars = Tally::default();
    let mut is_error = false;
    let mut inner: Option<Content<'a, S::Handle>> = None;
    let mut inner_cost = Cost::default();
    // `content` met before `type`: read once the type is known.
    let mut deferred: Option<S::Value> = None;
    let mut text_span = None;
    let mut content_span = None;
    let (mut name, mut input, mut thinking, mut data) = Default::default();
    let mut source = Media::default();
    let mut low_detail = false;
    // Raised after the block's id is checked (A2).
    let mut content_err: Option<ReadError<S::Error>> = None;
    let mut mask = BlockKey::Type.bit();
    let str_of = |src: &mut S, v, seen: &mut Seen, chars| -> RR<_, S::Error> {
        Ok(match src.string(v, chars)? {
            Some(x) => {
                *seen = Seen::Ok;
                Some(x)
            }
            None => {
                *seen = Seen::Bad;
                None
            }
        })
    };
    let whole = src.fields(o, BlockKey::Type.bit(), |src, k: BlockKey, v| {
        let r: RR<(), S::Error> = (|| {
            match k {
                BlockKey::Type => {
                    kind = src.peek_str(v, BlockKind::from_type)?;
                    type_seen = if kind.is_some() { Seen::Ok } else { Seen::Bad };
                    mask = block_wanted(kind, count);
                }
                BlockKey::Text => {
                    if let Some((t, n)) = str_of(src, v.clone(), &mut text_seen, count)? {
                        text = Some(t);
                        text_chars = n;
                    }
                    text_span = Some(src.span(&v));
                }
                BlockKey::Id => id = str_of(src, v, &mut id_seen, false)?.map(|x| x.0),
                BlockKey::ToolUseId => tuid = str_of(src, v, &mut tuid_seen, false)?.map(|x| x.0),
                BlockKey::IsError => is_error = src.is_true(v)?,
                BlockKey::Content => match kind {
                    Some(BlockKind::ToolResult) => {
                        match tool_result_content(src, v.clone(), depth, opts) {
                            Ok((c, cost)) => {
                                inner = Some(c);
                                inner_cost = cost;
                                content_span = Some(src.span(&v));
                            }
                            Err(e @ ReadError::Invalid(_)) => {
                                src.skip(v)?;
                                content_err = Some(e);
                            }
                            Err(e) => return Err(e),
                        }
                    }
                    Some(_) => {}
                    None => deferred = Some(v),
                },
                BlockKey::Name if count => name = src.j(v)?,
                BlockKey::Input if count => input = src.j(v)?,
                BlockKey::Thinking if count => thinking = src.j(v)?,
                BlockKey::Data if count => data = src.j(v)?,
                BlockKey::Source if count => source = read_source(src, v)?,
                BlockKey::ProviderData if count => low_detail = read_low_detail(src, v)?,
                BlockKey::Name
                | BlockKey::Input
                | BlockKey::Thinking
                | BlockKey::Data
                | BlockKey::Source
                | BlockKey::ProviderData => {}
            }
            Ok(())
        })();
        // J() of a field that cannot be measured is an error of the block.
        match k {
            BlockKey::Name | BlockKey::Input | BlockKey::Thinking | BlockKey::Data => r?,
            _ => r.key(k.name())?,
        }
        Ok(mask)
    })?;
    let Some(kind) = kind.filter(|_| type_seen == Seen::Ok) else {
        let m = if type_seen == Seen::Absent {
            msg::MISSING
        } else {
            msg::NOT_STRING
        };
        return Invalid::at("type", m).err();
    };
    if kind == BlockKind::ToolResult {
        if let Some(v) = deferred {
            let mut q = src.fork();
            match tool_result_content(&mut q, v.clone(), depth, opts) {
                Ok((c, cost)) => {
                    inner = Some(c);
                    inner_cost = cost;
                }
                Err(e) => content_err = Some(e),
            }
            content_span = Some(q.span(&v));
        }
    }
    let id_seen = if kind.id_field() == Some("id") {
        id_seen
    } else {
        tuid_seen
    };
    check_block(kind, text_seen, id_seen)?;
    if let Some(e) = content_err {
        return Err(e);
    }
    let cost = if count {
        let mut g = Parts {
            src,
            whole: &whole,
            _strs: PhantomData,
            text_chars,
            name,
            input,
            thinking,
            data,
            source_text: source.text,
            image: source
                .size
                .map(|(w, h)| crate::tokens::media::image_cost(w, h, low_detail)),
        };
        block_cost(kind, inner_cost, &mut g)?
    } else {
        Cost::default()
    };
    let hole = match kind {
        BlockKind::Text => text_span,
        BlockKind::ToolResult => content_span,
        _ => None,
    };
    Ok(Block {
        kind,
        orig: Some(src.handle(whole, hole)),
        id: pick_id(kind, id, tuid),
        text: if kind == BlockKind::Text { text } else { None },
        is_error,
        inner,
        dirty: false,
        cost,
    })
}

/// What §6 reads of a block, as its fields were read.
struct Parts<'a, 's, 'w, S: Source<'a>> {
    src: &'s mut S,
    whole: &'w S::Whole,
    _strs: PhantomData<&'a ()>,
    text_chars: Tally,
    /// J() of `name`, `input`, `thinking`, `data`.
    name: Tally,
    input: Tally,
    thinking: Tally,
    data: Tally,
    source_text: Option<Tally>,
    image: Option<ImageCost>,
}

impl<'a, S: Source<'a>> BlockCostFields for Parts<'a, '_, '_, S> {
    type Error = ReadError<S::Error>;
    fn text_chars(&mut self) -> Result<Tally, Self::Error> {
        Ok(self.text_chars)
    }
    fn field_j(&mut self, key: &'static str) -> Result<Tally, Self::Error> {
        Ok(match key {
            "name" => self.name,
            "input" => self.input,
            "thinking" => self.thinking,
            "data" => self.data,
            _ => Tally::default(),
        })
    }
    fn text_document_chars(&mut self) -> Result<Option<Tally>, Self::Error> {
        Ok(self.source_text)
    }
    fn image_cost(&mut self) -> Result<Option<ImageCost>, Self::Error> {
        Ok(self.image)
    }
    fn block_j(&mut self) -> Result<Tally, Self::Error> {
        self.src.j_whole(self.whole)
    }
}

/// What §6 reads of a `source`: the code points of `data` when `type ==
/// "text"` (a document), else the size in the header of its base64 `data`.
#[derive(Default)]
struct Media {
    text: Option<Tally>,
    size: Option<(u32, u32)>,
}

fn read_source<'a, S: Source<'a>>(src: &mut S, v: S::Value) -> RR<Media, S::Error> {
    let mut out = Media::default();
    let Some(o) = src.object(&v)? else {
        src.skip(v)?;
        return Ok(out);
    };
    let mut is_text = None;
    // `data` met before `type`: read once the type is known
    let mut later = None;
    let all = bits(SourceKey::ALL);
    src.fields(o, all, |src, k: SourceKey, v| {
        match k {
            SourceKey::Type => {
                is_text = Some(src.peek_str(v, |t| t == "text").key("type")? == Some(true));
            }
            SourceKey::Data => match is_text {
                Some(true) => out.text = src.str_chars(v)?,
                Some(false) => out.size = src.peek_str(v, media::image_size)?.flatten(),
                None => later = Some(v),
            },
        }
        Ok(all)
    })?;
    if let Some(v) = later {
        let mut q = src.fork();
        if is_text == Some(true) {
            out.text = q.str_chars(v)?;
        } else {
            out.size = q.peek_str(v, media::image_size)?.flatten();
        }
    }
    // a size is a base64 image's (not a text document's, nor a URL's)
    if is_text == Some(true) {
        out.size = None;
    }
    Ok(out)
}

/// Whether a block's `provider_data` says `detail: "low"` (OpenAI's low-resolution image).
fn read_low_detail<'a, S: Source<'a>>(src: &mut S, v: S::Value) -> RR<bool, S::Error> {
    let Some(o) = src.object(&v)? else {
        src.skip(v)?;
        return Ok(false);
    };
    let mut low = false;
    let all = bits(ProviderDataKey::ALL);
    src.fields(o, all, |src, k: ProviderDataKey, v| {
        match k {
            ProviderDataKey::Detail => low = src.peek_str(v, |d| d == "low")? == Some(true),
        }
        Ok(all)
    })?;
    Ok(low)
}
