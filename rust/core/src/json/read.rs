//! JSON text (an array, or JSON Lines) → records, in one pass per record.

use super::parse::{count_chars, error_at, raw_string_len, Parser, Peek, Token};
use crate::error::{Error, Result};
use crate::model::{AttValue, Block, BlockKind, Content, Cost, Kind, Links, Record, Str};
use crate::read::{
    bad_message, block_cost, check_block, has_message, j_leaf, msg, pick_id, uuid_required,
    BlockCostFields, Invalid, Leaf, ReadError, Seen, Within, MAX_BLOCK_DEPTH,
};
use std::borrow::Cow;

/// A handle to an original JSON value: its raw text, and where in it the value
/// the pipeline may replace sits (`message.content` of a record, `text` of a
/// text block, `content` of a tool_result), so a change is a splice, not a rescan.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Raw<'a> {
    pub text: &'a str,
    pub hole: Option<(usize, usize)>,
}

impl<'a> Raw<'a> {
    pub fn plain(text: &'a str) -> Self {
        Raw { text, hole: None }
    }
    fn with_hole(text: &'a str, start: usize, hole: Option<(usize, usize)>) -> Self {
        Raw {
            text,
            hole: hole.map(|(s, e)| (s - start, e - start)),
        }
    }
}

#[derive(Clone, Copy, Debug, Default)]
pub struct ReadOpts {
    /// Fill the token-count ingredients (§6).
    pub count: bool,
    /// Fill [`Record::links`], the session-tree fields (§8).
    pub links: bool,
}

impl ReadOpts {
    /// For token counting (§6, §7).
    pub const COUNT: ReadOpts = ReadOpts {
        count: true,
        links: false,
    };
}

/// Checks UTF-8, reporting the line and column of the first bad byte.
pub fn utf8(data: &[u8]) -> Result<&str> {
    std::str::from_utf8(data).map_err(|e| {
        let ok = e.valid_up_to();
        // SAFETY-free: the prefix is valid UTF-8 by `valid_up_to`.
        let prefix = std::str::from_utf8(&data[..ok]).unwrap_or("");
        let mut err = error_at(prefix, ok, "invalid UTF-8");
        if let Error::Json { msg, .. } = &mut err {
            *msg = "invalid UTF-8 byte sequence".into();
        }
        err
    })
}

/// The records of a JSON array, or of JSON Lines (one value per non-blank line).
pub fn read_records<'a>(src: &'a str, opts: ReadOpts) -> Result<Vec<Record<'a, Raw<'a>>>> {
    let mut p = Parser::new(src);
    if p.at_end() {
        return Err(p.err("empty input: expected a JSON array or JSON Lines"));
    }
    if p.peek()? == Peek::Array {
        let mut recs = Vec::new();
        let mut bad = None;
        p.begin_array()?;
        let mut first = true;
        let mut i = 0;
        while p.next_elem(&mut first)? {
            if let Some(r) = record_or_defer(&mut p, i, opts, None, &mut bad)? {
                recs.push(r);
            }
            i += 1;
        }
        if p.at_end() {
            return match bad {
                Some(e) => Err(e),
                None => Ok(recs),
            };
        }
        // More after the array: the input is JSON Lines whose first line is an array.
    }
    read_lines(src, opts)
}

fn read_lines<'a>(src: &'a str, opts: ReadOpts) -> Result<Vec<Record<'a, Raw<'a>>>> {
    let mut recs = Vec::new();
    let mut start = 0;
    let mut line_no = 0;
    let mut i = 0;
    let mut bad = None;
    while start < src.len() {
        line_no += 1;
        let end = src[start..].find('\n').map_or(src.len(), |i| start + i);
        // Parse within the line only.
        let mut p = Parser::at(&src[..end], start);
        if !p.at_end() {
            if let Some(r) = record_or_defer(&mut p, i, opts, Some(line_no), &mut bad)? {
                recs.push(r);
            }
            i += 1;
            if !p.at_end() {
                return Err(p.err("unexpected data after the JSON value on this line"));
            }
        }
        start = end + 1;
    }
    if let Some(e) = bad {
        return Err(e);
    }
    Ok(recs)
}

/// Reads one record. An invalid record is skipped and remembered (the first one
/// is raised once the whole input is known to be valid JSON: JSON errors win).
fn record_or_defer<'a>(
    p: &mut Parser<'a>,
    i: usize,
    opts: ReadOpts,
    line: Option<usize>,
    bad: &mut Option<Error>,
) -> Result<Option<Record<'a, Raw<'a>>>> {
    p.ws();
    let start = p.pos;
    match read_record(p, i, opts, line) {
        Ok(r) if bad.is_none() => Ok(Some(r)),
        Ok(_) => Ok(None),
        Err(e @ Error::InvalidRecord { .. }) => {
            p.pos = start;
            p.skip_value()?;
            bad.get_or_insert(e);
            Ok(None)
        }
        Err(e) => Err(e),
    }
}

/// A reader's result: a JSON error, or a §1 violation located below the record.
type RR<T> = std::result::Result<T, ReadError<Error>>;

/// Reads the record at the parser's position (SPEC §1): a JSON error, or an
/// invalid record naming `records[index]` (and `line`, for JSON Lines).
pub(crate) fn read_record<'a>(
    p: &mut Parser<'a>,
    index: usize,
    opts: ReadOpts,
    line: Option<usize>,
) -> Result<Record<'a, Raw<'a>>> {
    record(p, index, opts).map_err(|e| e.record(index, line))
}

fn record<'a>(p: &mut Parser<'a>, index: usize, opts: ReadOpts) -> RR<Record<'a, Raw<'a>>> {
    if p.peek()? != Peek::Object {
        return Invalid::new(msg::RECORD_NOT_JSON_OBJECT).err();
    }
    let start = p.pos;
    let mut rec: Record<'a, Raw<'a>> = Record::new(index, Kind::Entry, None);
    let mut type_seen = Seen::Absent;
    let mut uuid = Seen::Absent;
    let mut subtype = Seen::Absent;
    let mut content = Seen::Absent;
    // A top-level `content` string: the content of a system record only (a user
    // or assistant record may carry one too, as an extra field to keep).
    let mut top_content: Option<Str<'a>> = None;
    let mut attachment = Seen::Absent;
    let mut message: Option<&'a str> = None;
    let mut content_span: Option<(usize, usize)> = None;
    let mut message_parsed = false;
    let mut api_error = false;
    let mut synthetic_model = false;
    let mut message_err: Option<Invalid> = None;
    let mut links = opts.links.then(Box::<Links<'a>>::default);
    p.begin_object()?;
    let mut first = true;
    while let Some((_, key)) = p.next_key(&mut first)? {
        match &*key {
            "type" => {
                if let Some(t) = read_str(p, &mut type_seen)? {
                    rec.kind = Kind::from_type(&t);
                }
            }
            "uuid" => rec.uuid = read_str(p, &mut uuid)?,
            "timestamp" => {
                let raw = p.skip_value()?;
                if let Some(l) = links.as_mut() {
                    l.timestamp = plain_string(raw);
                }
                rec.timestamp = Some(Raw::plain(raw));
            }
            "isMeta" => rec.is_meta = p.bool_or_skip()? == Some(true),
            "isVirtual" => rec.is_virtual = p.bool_or_skip()? == Some(true),
            "isApiErrorMessage" => api_error = p.bool_or_skip()? == Some(true),
            "subtype" => {
                if let Some(sub) = read_str(p, &mut subtype)? {
                    rec.local_command = sub == "local_command";
                    if let Some(l) = links.as_mut() {
                        l.compact_boundary = sub == "compact_boundary";
                    }
                }
            }
            "content" => top_content = read_str(p, &mut content)?,
            "attachment" => {
                if p.peek()? == Peek::Object {
                    rec.attachment = read_attachment(p)?;
                    attachment = Seen::Ok;
                } else {
                    p.skip_value()?;
                    attachment = Seen::Bad;
                }
            }
            "message" => match rec.kind {
                k if has_message(k) && type_seen == Seen::Ok => {
                    p.ws();
                    let save = p.pos;
                    match read_message(p, &mut rec, opts) {
                        Ok((synth, span)) => {
                            synthetic_model = synth;
                            content_span = span;
                        }
                        Err(ReadError::Invalid(e)) => {
                            // Raised after the fields SPEC checks first (A2: uuid).
                            p.pos = save;
                            p.skip_value()?;
                            message_err = Some(e);
                        }
                        Err(e) => return Err(e),
                    }
                    message_parsed = true;
                }
                _ => message = Some(p.skip_value()?),
            },
            "parentUuid"
            | "logicalParentUuid"
            | "teamName"
            | "agentId"
            | "sessionId"
            | "sourceToolAssistantUUID"
                if links.is_some() =>
            {
                let v = read_str(p, &mut Seen::Absent)?;
                if let Some(l) = links.as_mut() {
                    let slot = match &*key {
                        "parentUuid" => &mut l.parent,
                        "logicalParentUuid" => &mut l.logical_parent,
                        "teamName" => &mut l.team,
                        "agentId" => &mut l.agent_id,
                        "sessionId" => &mut l.session_id,
                        _ => &mut l.source_assistant,
                    };
                    *slot = v;
                }
            }
            "isSidechain" | "isCompactSummary" if links.is_some() => {
                let on = p.bool_or_skip()? == Some(true);
                if let Some(l) = links.as_mut() {
                    if key == "isSidechain" {
                        l.sidechain = on;
                    } else {
                        l.compact_summary = on;
                    }
                }
            }
            _ => {
                p.skip_value()?;
            }
        }
    }
    let end = p.pos;
    if rec.kind == Kind::System {
        // Only a system record's top-level `content` is its content.
        rec.content = Content::Str(top_content.unwrap_or(Cow::Borrowed("")));
    } else if !matches!(rec.kind, Kind::User | Kind::Assistant) || !message_parsed {
        rec.content = Content::Str(Cow::Borrowed(""));
    }
    type_seen.require_str("type")?;
    // §1: a field is required only where a step reads it.
    if uuid_required(rec.kind) {
        uuid.require_str("uuid")?;
    }
    if let Some(e) = message_err {
        return e.key("message").err();
    }
    match rec.kind {
        k if has_message(k) && !message_parsed => {
            let Some(raw) = message else {
                return Invalid::at("message", msg::MISSING).err();
            };
            let mut q = Parser::at(p.src, raw.as_ptr() as usize - p.src.as_ptr() as usize);
            let (synth, span) = read_message(&mut q, &mut rec, opts).key("message")?;
            synthetic_model = synth;
            content_span = span;
        }
        Kind::System => {
            subtype.require_str("subtype")?;
            if rec.local_command {
                uuid.require_str("uuid")?;
                content.require_str("content")?;
            }
        }
        Kind::Attachment => {
            attachment.require("attachment", msg::NOT_OBJECT)?;
            if !rec
                .attachment
                .iter()
                .any(|(k, v)| k == "type" && matches!(v, AttValue::Str(_)))
            {
                return Invalid::at("type", msg::NOT_STRING).key("attachment").err();
            }
        }
        _ => {}
    }
    rec.synthetic_error = api_error && synthetic_model;
    rec.orig = Some(Raw::with_hole(&p.src[start..end], start, content_span));
    if rec.kind == Kind::System {
        rec.cost = Cost::default();
    }
    rec.links = links;
    Ok(rec)
}

/// The text of a JSON string written without escapes (`"…"`), else `None`.
fn plain_string(raw: &str) -> Option<Str<'_>> {
    let inner = raw.strip_prefix('"')?.strip_suffix('"')?;
    (!inner.contains('\\')).then_some(Cow::Borrowed(inner))
}

fn read_attachment<'a>(p: &mut Parser<'a>) -> Result<Vec<(Str<'a>, AttValue<'a>)>> {
    let mut fields = Vec::new();
    p.begin_object()?;
    let mut first = true;
    while let Some((_, key)) = p.next_key(&mut first)? {
        let v = match p.peek()? {
            Peek::String => AttValue::Str(p.string()?),
            Peek::Number => match p.int_or_skip()? {
                Some(digits) => AttValue::Int(digits.to_string()),
                None => AttValue::Other,
            },
            _ => {
                p.skip_value()?;
                AttValue::Other
            }
        };
        fields.push((key, v));
    }
    Ok(fields)
}

/// `message` of a user/assistant record (or a tombstone's `message.uuid`);
/// whether `message.model` is `<synthetic>`, and where its `content` is.
fn read_message<'a>(
    p: &mut Parser<'a>,
    rec: &mut Record<'a, Raw<'a>>,
    opts: ReadOpts,
) -> RR<(bool, Option<(usize, usize)>)> {
    if p.peek()? != Peek::Object {
        return Invalid::new(bad_message(rec.kind)).err();
    }
    p.begin_object()?;
    let mut first = true;
    let mut role = Seen::Absent;
    let mut content = Seen::Absent;
    let mut uuid = Seen::Absent;
    let mut synthetic_model = false;
    let mut content_span = None;
    while let Some((_, key)) = p.next_key(&mut first)? {
        match (rec.kind, &*key) {
            (Kind::Tombstone, "uuid") => rec.tombstone_of = read_str(p, &mut uuid)?,
            (Kind::Tombstone, _) => {
                p.skip_value()?;
            }
            (_, "role") => {
                read_str(p, &mut role)?;
            }
            (_, "content") => {
                p.ws();
                let cstart = p.pos;
                let (c, cost) = read_content(p, 0, opts).key("content")?;
                match c {
                    Some(c) => {
                        rec.content = c;
                        rec.cost = cost;
                        content = Seen::Ok;
                        content_span = Some((cstart, p.pos));
                    }
                    None => content = Seen::Bad,
                }
            }
            (_, "id") if p.peek()? == Peek::String => {
                rec.message_id = Some(p.string()?);
            }
            (_, "model") if p.peek()? == Peek::String => {
                synthetic_model = p.string()? == "<synthetic>";
            }
            _ => {
                p.skip_value()?;
            }
        }
    }
    if rec.kind == Kind::Tombstone {
        uuid.require_str("uuid")?;
        return Ok((false, None));
    }
    role.require_str("role")?;
    content.require("content", msg::BAD_CONTENT)?;
    Ok((synthetic_model, content_span))
}

/// A content value: `None` when it is neither string, list nor null.
fn read_content<'a>(
    p: &mut Parser<'a>,
    depth: usize,
    opts: ReadOpts,
) -> RR<(Option<Content<'a, Raw<'a>>>, Cost)> {
    match p.peek()? {
        Peek::String => {
            let s = p.string()?;
            let cost = Cost {
                chars: if opts.count { count_chars(&s) } else { 0 },
                ..Cost::default()
            };
            Ok((Some(Content::Str(s)), cost))
        }
        Peek::Null => {
            p.skip_value()?;
            Ok((Some(Content::Str(Cow::Borrowed(""))), Cost::default()))
        }
        Peek::Array => {
            let mut blocks = Vec::new();
            let mut cost = Cost::default();
            p.begin_array()?;
            let mut first = true;
            while p.next_elem(&mut first)? {
                let b = read_block(p, depth, opts).index(blocks.len())?;
                cost.add(b.cost);
                blocks.push(b);
            }
            Ok((Some(Content::Blocks(blocks)), cost))
        }
        _ => {
            p.skip_value()?;
            Ok((None, Cost::default()))
        }
    }
}

/// A tool_result's content at the parser's position: `Err` (located at the
/// block) when it is not a valid content.
fn tool_result_content<'a>(
    p: &mut Parser<'a>,
    depth: usize,
    opts: ReadOpts,
) -> RR<(Content<'a, Raw<'a>>, Cost)> {
    match read_content(p, depth + 1, opts).key("content")? {
        (Some(c), cost) => Ok((c, cost)),
        (None, _) => Invalid::at("content", msg::BAD_CONTENT).err(),
    }
}

/// What §6 reads of a block, gathered in the one pass over it.
struct Gathered<'s, 'a> {
    src: &'a str,
    start: usize,
    text: Option<&'s str>,
    /// J() of `name`, `input`, `thinking`, `data`.
    name: u64,
    input: u64,
    thinking: u64,
    data: u64,
    source_text: Option<u64>,
}

impl BlockCostFields for Gathered<'_, '_> {
    type Error = Error;
    fn text_chars(&mut self) -> Result<u64> {
        Ok(self.text.map_or(0, count_chars))
    }
    fn field_j(&mut self, key: &'static str) -> Result<u64> {
        Ok(match key {
            "name" => self.name,
            "input" => self.input,
            "thinking" => self.thinking,
            "data" => self.data,
            _ => 0,
        })
    }
    fn text_document_chars(&mut self) -> Result<Option<u64>> {
        Ok(self.source_text)
    }
    fn block_j(&mut self) -> Result<u64> {
        j_of(&mut Parser::at(self.src, self.start))
    }
}

/// A block (its errors are located at the block: the caller adds its index).
fn read_block<'a>(p: &mut Parser<'a>, depth: usize, opts: ReadOpts) -> RR<Block<'a, Raw<'a>>> {
    if p.peek()? != Peek::Object {
        return Invalid::new(msg::BLOCK_NOT_JSON_OBJECT).err();
    }
    if depth >= MAX_BLOCK_DEPTH {
        return Invalid::new(msg::BLOCKS_TOO_DEEP).err();
    }
    let start = p.pos;
    let mut kind: Option<BlockKind> = None;
    let mut type_seen = Seen::Absent;
    let mut id: Option<Str<'a>> = None;
    let mut id_seen = Seen::Absent;
    let mut tuid: Option<Str<'a>> = None;
    let mut tuid_seen = Seen::Absent;
    let mut text: Option<Str<'a>> = None;
    let mut text_seen = Seen::Absent;
    let mut is_error = false;
    let mut inner: Option<Content<'a, Raw<'a>>> = None;
    let mut inner_cost = Cost::default();
    // `content` seen before `type`: parsed once the type is known.
    let mut deferred_content: Option<(usize, usize)> = None;
    let mut text_span: Option<(usize, usize)> = None;
    let mut content_span: Option<(usize, usize)> = None;
    let (mut name, mut input, mut thinking, mut data) = (0u64, 0u64, 0u64, 0u64);
    let mut source_text: Option<u64> = None;
    let mut content_err: Option<ReadError<Error>> = None;
    p.begin_object()?;
    let mut first = true;
    while let Some((_, key)) = p.next_key(&mut first)? {
        match &*key {
            "type" => {
                if let Some(t) = read_str(p, &mut type_seen)? {
                    kind = Some(BlockKind::from_type(&t));
                }
            }
            "text" => {
                p.ws();
                let s = p.pos;
                text = read_str(p, &mut text_seen)?;
                text_span = Some((s, p.pos));
            }
            "id" => id = read_str(p, &mut id_seen)?,
            "tool_use_id" => tuid = read_str(p, &mut tuid_seen)?,
            "is_error" => is_error = p.bool_or_skip()? == Some(true),
            "content" => match kind {
                Some(BlockKind::ToolResult) => {
                    p.ws();
                    let save = p.pos;
                    match tool_result_content(p, depth, opts) {
                        Ok((c, cost)) => {
                            inner = Some(c);
                            inner_cost = cost;
                            content_span = Some((save, p.pos));
                        }
                        Err(e @ ReadError::Invalid(_)) => {
                            // Raised after the block's id is checked (A2).
                            p.pos = save;
                            p.skip_value()?;
                            content_err = Some(e);
                        }
                        Err(e) => return Err(e),
                    }
                }
                Some(_) => {
                    p.skip_value()?;
                }
                None => {
                    p.ws();
                    let s = p.pos;
                    p.skip_value()?;
                    deferred_content = Some((s, p.pos));
                }
            },
            "name" if opts.count => name = j_of(p)?,
            "input" if opts.count => input = j_of(p)?,
            "thinking" if opts.count => thinking = j_of(p)?,
            "data" if opts.count => data = j_of(p)?,
            "source" if opts.count && p.peek()? == Peek::Object => {
                source_text = read_source(p)?;
            }
            _ => {
                p.skip_value()?;
            }
        }
    }
    let end = p.pos;
    let raw = &p.src[start..end];
    let Some(kind) = kind.filter(|_| type_seen == Seen::Ok) else {
        let m = if type_seen == Seen::Absent {
            msg::MISSING
        } else {
            msg::NOT_STRING
        };
        return Invalid::at("type", m).err();
    };
    if kind == BlockKind::ToolResult {
        if let Some((pos, pend)) = deferred_content {
            content_span = Some((pos, pend));
            match tool_result_content(&mut Parser::at(p.src, pos), depth, opts) {
                Ok((c, cost)) => {
                    inner = Some(c);
                    inner_cost = cost;
                }
                Err(e) => content_err = Some(e),
            }
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
    let cost = if opts.count {
        let mut g = Gathered {
            src: p.src,
            start,
            text: text.as_deref(),
            name,
            input,
            thinking,
            data,
            source_text,
        };
        block_cost(kind, inner_cost, &mut g)?
    } else {
        Cost::default()
    };
    Ok(Block {
        kind,
        orig: Some(Raw::with_hole(
            raw,
            start,
            match kind {
                BlockKind::Text => text_span,
                BlockKind::ToolResult => content_span,
                _ => None,
            },
        )),
        id: pick_id(kind, id, tuid),
        text: if kind == BlockKind::Text { text } else { None },
        is_error,
        inner,
        dirty: false,
        cost,
    })
}

/// A string field: its text when it is a string (`seen` becomes `Ok`), else
/// the value is skipped (`seen` becomes `Bad`).
fn read_str<'a>(p: &mut Parser<'a>, seen: &mut Seen) -> Result<Option<Str<'a>>> {
    if p.peek()? == Peek::String {
        *seen = Seen::Ok;
        Ok(Some(p.string()?))
    } else {
        p.skip_value()?;
        *seen = Seen::Bad;
        Ok(None)
    }
}

/// §6 J(value) of the value at the parser's position, skipping it.
pub fn j_of(p: &mut Parser<'_>) -> Result<u64> {
    let mut j = 0u64;
    p.walk_value(&mut |t| {
        j += j_leaf(match t {
            Token::Str(raw) => Leaf::Str(raw_string_len(raw)),
            Token::Scalar => Leaf::Scalar,
        })
    })?;
    Ok(j)
}

/// A document's `source`: the length of `data` when `type == "text"`.
fn read_source(p: &mut Parser<'_>) -> Result<Option<u64>> {
    let mut is_text = false;
    let mut data_len = None;
    p.begin_object()?;
    let mut first = true;
    while let Some((_, key)) = p.next_key(&mut first)? {
        match &*key {
            "type" if p.peek()? == Peek::String => is_text = p.string()? == "text",
            "data" if p.peek()? == Peek::String => {
                let raw = p.skip_value()?;
                data_len = Some(raw_string_len(raw));
            }
            _ => {
                p.skip_value()?;
            }
        }
    }
    Ok(if is_text { data_len } else { None })
}

/// A tool_use block's `name` (its §6 length) and whether its `input` is `{}`,
/// for context editing ([`crate::editing`]).
pub fn tool_use_info(raw: &Raw<'_>) -> Result<crate::editing::ToolUseInfo> {
    let mut info = crate::editing::ToolUseInfo::default();
    let mut p = Parser::new(raw.text);
    p.begin_object()?;
    let mut first = true;
    while let Some((_, key)) = p.next_key(&mut first)? {
        match &*key {
            "name" if p.peek()? == Peek::String => {
                let name = p.string()?;
                info.name_chars = count_chars(&name);
                info.name = name.into_owned();
            }
            "name" => info.name_chars = j_of(&mut p)?,
            "input" => {
                let v = p.skip_value()?;
                info.input_empty = v.bytes().filter(|c| !c.is_ascii_whitespace()).eq(*b"{}");
            }
            _ => {
                p.skip_value()?;
            }
        }
    }
    Ok(info)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::model::BlockKind;

    /// Fuzz regression (fuzz/regressions/normalize_for_api/top-level-content): a
    /// user record's top-level `content` key after `message` is an extra field, not
    /// its content; it used to replace `message.content`.
    #[test]
    fn top_level_content_of_a_user_record_is_not_its_content() {
        for src in [
            r#"[{"type":"user","uuid":"u","message":{"role":"user","content":[{"type":"tool_result","tool_use_id":"t1","content":"ok"}]},"content":"zz"}]"#,
            r#"[{"type":"user","uuid":"u","content":"zz","message":{"role":"user","content":[{"type":"tool_result","tool_use_id":"t1","content":"ok"}]}}]"#,
            r#"[{"message":{"role":"user","content":[{"type":"tool_result","tool_use_id":"t1","content":"ok"}]},"content":"zz","type":"user","uuid":"u"}]"#,
        ] {
            for count in [false, true] {
                let recs = read_records(
                    src,
                    ReadOpts {
                        count,
                        ..ReadOpts::default()
                    },
                )
                .unwrap();
                let blocks = recs[0].content.blocks();
                assert_eq!(blocks.len(), 1, "{src}");
                assert_eq!(blocks[0].kind, BlockKind::ToolResult, "{src}");
            }
        }
    }

    #[test]
    fn top_level_content_of_a_system_record_is_its_content() {
        for src in [
            r#"{"type":"system","uuid":"s","subtype":"local_command","content":"ls"}"#,
            r#"{"content":"ls","subtype":"local_command","uuid":"s","type":"system"}"#,
        ] {
            let recs = read_records(src, ReadOpts::default()).unwrap();
            assert!(
                matches!(&recs[0].content, Content::Str(s) if s == "ls"),
                "{src}"
            );
        }
    }
}
