"""Plain pure-Python reference implementation of SPEC §2–§7 (the test oracle).

Written for obvious correctness, not speed: every step of docs/SPEC.md
is one function that follows the SPEC's sentences literally, cites its §, and
works on plain JSON-shaped values (``dict``/``list``/``str``/``int``/...). The
input is never mutated: steps build new records and blocks instead of editing
them, and every public function returns a deep copy.

Errors are raised through the injectable namespace ``ERRORS`` (see
``use_errors``), so the very same code can raise ``msgnorm``'s exception classes.

Where the SPEC can be read more than one way, this module implements the
decisions A1-A26 written in docs/SPEC.md and cites them by number (the Rust core
follows the same decisions).
"""

from __future__ import annotations

import copy
import math
import uuid as _uuid
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any, NoReturn

Record = dict[str, Any]
Block = dict[str, Any]
# A record on its way through §4, with the input index it came from (A9).
Item = tuple[int, Record]


# --------------------------------------------------------------------------
# Errors (injectable)
# --------------------------------------------------------------------------


class InvalidRecordError(ValueError):
    """§1: a record is invalid. ``index`` is its position, ``path`` the bad field."""

    index: int
    path: str


class PairingError(ValueError):
    """§4.6 strict: record ``index`` would need a tool-pairing repair of ``ids``."""

    index: int
    ids: list[str]


class BudgetError(ValueError):
    """§7: no safe suffix fits the token budget."""


@dataclass
class ErrorNamespace:
    """The exception classes this module raises; swap it with ``use_errors``."""

    InvalidRecordError: type[ValueError]
    PairingError: type[ValueError]
    BudgetError: type[ValueError]


ERRORS = ErrorNamespace(InvalidRecordError, PairingError, BudgetError)


def use_errors(namespace: Any) -> ErrorNamespace:
    """Make this module raise ``namespace``'s three classes (e.g. ``msgnorm``).

    Returns the previous namespace so that callers can restore it.
    """
    global ERRORS
    previous = ERRORS
    ERRORS = ErrorNamespace(
        namespace.InvalidRecordError, namespace.PairingError, namespace.BudgetError
    )
    return previous


def _raise_invalid(index: int, path: str, message: str) -> NoReturn:
    exc = ERRORS.InvalidRecordError(f"{path}: {message}")
    exc.index = index  # type: ignore[attr-defined]
    exc.path = path  # type: ignore[attr-defined]
    raise exc


def _raise_pairing(index: int, ids: list[str], message: str) -> NoReturn:
    exc = ERRORS.PairingError(f"records[{index}]: {message}: {ids}")
    exc.index = index  # type: ignore[attr-defined]
    exc.ids = list(ids)  # type: ignore[attr-defined]
    raise exc


def _raise_budget(message: str) -> NoReturn:
    raise ERRORS.BudgetError(message)


# --------------------------------------------------------------------------
# Small helpers
# --------------------------------------------------------------------------

MESSAGE_TYPES = ("user", "assistant")
KNOWN_TYPES = (
    "user",
    "assistant",
    "system",
    "attachment",
    "progress",
    "tool_use_summary",
    "tombstone",
)
TOOL_USE_TYPES = ("tool_use", "server_tool_use", "mcp_tool_use")
THINKING_TYPES = ("thinking", "redacted_thinking")

# A5: the Unicode White_Space property (= Rust char::is_whitespace).
WHITESPACE = (
    "\t\n\x0b\x0c\r \x85\xa0\u1680"
    "\u2000\u2001\u2002\u2003\u2004\u2005\u2006\u2007\u2008\u2009\u200a"
    "\u2028\u2029\u202f\u205f\u3000"
)

TOOL_INTERRUPTED = "[Tool use interrupted]"
ORPHANED = "[Orphaned tool result removed due to conversation resume]"
MISSING_RESULT = "[Tool result missing due to internal error]"
NO_CONTENT = "(no content)"
NO_MESSAGE_CONTENT = "[No message content]"


def is_blank(s: str) -> bool:
    """A5: empty or made only of Unicode White_Space characters."""
    return all(c in WHITESPACE for c in s)


def rstrip_whitespace(s: str) -> str:
    """A5: ``s`` without trailing Unicode White_Space."""
    return s.rstrip(WHITESPACE)


def is_true(value: Any) -> bool:
    """A3: a flag is set only when it is JSON ``true``."""
    return value is True


def is_int(value: Any) -> bool:
    """A JSON integer (Python ``bool`` is not one)."""
    return isinstance(value, int) and not isinstance(value, bool)


def text_block(text: str) -> Block:
    return {"type": "text", "text": text}


def is_server_result(block: Block) -> bool:
    """§1: a ``*_tool_result`` block other than ``tool_result`` itself."""
    t: str = block["type"]
    return t != "tool_result" and t.endswith("_tool_result")


def is_meta(rec: Record) -> bool:
    return is_true(rec.get("isMeta"))


def content_of(rec: Record) -> Any:
    """The content of a user/assistant record (str, list or None); a kept
    system prompt record has none (no step looks into it)."""
    if rec["type"] == "system":
        return []
    return rec["message"]["content"]


def with_content(rec: Record, content: Any) -> Record:
    """A new record equal to ``rec`` but with ``message.content = content``."""
    new = dict(rec)
    new["message"] = dict(rec["message"])
    new["message"]["content"] = content
    return new


def blocks_of(rec: Record) -> list[Block]:
    """The list content of ``rec``, or ``[]`` when its content is not a list."""
    content = content_of(rec)
    return list(content) if isinstance(content, list) else []


def inserted_user(uuid: str, content: Any, *, source: Record | None, meta: bool) -> Record:
    """§4: a record that is *inserted* or *becomes a user record* has exactly
    ``type``, ``uuid``, ``message: {role, content}``, plus ``timestamp`` when
    its source had one and ``isMeta: true`` when it is meta."""
    rec: Record = {
        "type": "user",
        "uuid": uuid,
        "message": {"role": "user", "content": content},
    }
    if source is not None and "timestamp" in source:
        rec["timestamp"] = copy.deepcopy(source["timestamp"])
    if meta:
        rec["isMeta"] = True
    return rec


# --------------------------------------------------------------------------
# §1 Validation
# --------------------------------------------------------------------------


def _require_str(i: int, obj: Mapping[str, Any], key: str, path: str) -> None:
    if key not in obj:
        _raise_invalid(i, f"{path}.{key}", "missing required field")
    if not isinstance(obj[key], str):
        _raise_invalid(i, f"{path}.{key}", "must be a string")


def _require_obj(i: int, obj: Mapping[str, Any], key: str, path: str) -> None:
    if key not in obj:
        _raise_invalid(i, f"{path}.{key}", "missing required field")
    if not isinstance(obj[key], dict):
        _raise_invalid(i, f"{path}.{key}", "must be an object")


def validate_blocks(i: int, path: str, blocks: list[Any]) -> None:
    """§1 Blocks: objects with a string ``type`` and the id/text fields of A1."""
    for j, block in enumerate(blocks):
        bpath = f"{path}[{j}]"
        if not isinstance(block, dict):
            _raise_invalid(i, bpath, "a block must be an object")
        _require_str(i, block, "type", bpath)
        t = block["type"]
        if t == "text":
            _require_str(i, block, "text", bpath)
        elif t in TOOL_USE_TYPES:
            _require_str(i, block, "id", bpath)
        elif t == "tool_result":
            _require_str(i, block, "tool_use_id", bpath)
            inner = block.get("content")
            if isinstance(inner, list):
                validate_blocks(i, f"{bpath}.content", inner)
            elif inner is not None and not isinstance(inner, str):
                _raise_invalid(i, f"{bpath}.content", "must be a string, an array or null")
        elif t.endswith("_tool_result"):
            _require_str(i, block, "tool_use_id", bpath)


def validate_record(i: int, rec: Any) -> None:
    """§1: raise InvalidRecordError(index, path) for an invalid record (A1, A2)."""
    path = f"records[{i}]"
    if not isinstance(rec, dict):
        _raise_invalid(i, path, "a record must be an object")
    _require_str(i, rec, "type", path)
    t = rec["type"]
    if t in MESSAGE_TYPES:
        _require_str(i, rec, "uuid", path)
        _require_obj(i, rec, "message", path)
        message = rec["message"]
        mpath = f"{path}.message"
        _require_str(i, message, "role", mpath)
        if "content" not in message:
            _raise_invalid(i, f"{mpath}.content", "missing required field")
        content = message["content"]
        if isinstance(content, list):
            validate_blocks(i, f"{mpath}.content", content)
        elif content is not None and not isinstance(content, str):
            _raise_invalid(i, f"{mpath}.content", "must be a string, an array or null")
    elif t == "system":
        _require_str(i, rec, "subtype", path)
        if rec["subtype"] == "local_command":
            _require_str(i, rec, "uuid", path)
            _require_str(i, rec, "content", path)
    elif t == "attachment":
        _require_str(i, rec, "uuid", path)
        _require_obj(i, rec, "attachment", path)
        _require_str(i, rec["attachment"], "type", f"{path}.attachment")
    elif t == "tombstone":
        _require_obj(i, rec, "message", path)
        _require_str(i, rec["message"], "uuid", f"{path}.message")
    # any other type is an entry: a string type is all it needs


def validate_records(records: Sequence[Any]) -> None:
    """§1: validate every record, in index order (A2)."""
    if not isinstance(records, (list, tuple)):
        raise TypeError("records must be a list")
    for i, rec in enumerate(records):
        validate_record(i, rec)


# --------------------------------------------------------------------------
# §2 Ids
# --------------------------------------------------------------------------

_HEX_DIGITS = "0123456789abcdefABCDEF"
_BASE36 = "0123456789abcdefghijklmnopqrstuvwxyz"


def derive_uuid(parent: str, index: int) -> str:
    """§2: the first 24 characters of ``parent`` (all of it when shorter)
    followed by ``index`` as 12 lowercase hex digits, zero-padded (A22)."""
    if not isinstance(parent, str):
        raise TypeError("parent must be a string")
    if not is_int(index):
        raise TypeError("index must be an int")
    if not 0 <= index < 16**12:
        raise ValueError(f"index {index} is outside 0 <= index < 16**12")
    return parent[:24] + format(index, "012x")


def derive_short_message_id(uuid: str) -> str:
    """§2: remove the dashes, take the first 10 characters, read them as a
    hexadecimal integer, write it in lowercase base 36, keep the first 6."""
    if not isinstance(uuid, str):
        raise TypeError("uuid must be a string")
    head = uuid.replace("-", "")[:10]
    if not head:
        raise ValueError(f"no hexadecimal characters in {uuid!r}")
    if not all(c in _HEX_DIGITS for c in head):  # int(x, 16) would accept "0x", "_", " "
        raise ValueError(f"{head!r} (from {uuid!r}) is not hexadecimal")
    n = int(head, 16)
    digits = ""
    while True:
        n, r = divmod(n, 36)
        digits = _BASE36[r] + digits
        if n == 0:
            break
    return digits[:6]


# --------------------------------------------------------------------------
# §3 normalize_messages
# --------------------------------------------------------------------------


def split_content_blocks(content: Any) -> list[Block]:
    """§3: string content is one text block; empty content yields nothing (A22)."""
    if content is None or content == "":
        return []
    if isinstance(content, str):
        return [text_block(content)]
    return list(content)


def normalize_messages(records: Sequence[Any]) -> list[Any]:
    """§3: one output record per content block, in order, with the sticky
    uuid rule."""
    validate_records(records)
    out: list[Any] = []
    sticky = False
    for rec in records:
        if rec["type"] not in MESSAGE_TYPES:
            out.append(copy.deepcopy(rec))
            continue
        blocks = split_content_blocks(content_of(rec))
        if len(blocks) > 1:
            sticky = True
        for j, block in enumerate(blocks):
            piece = copy.deepcopy(with_content(rec, [block]))
            if sticky:
                piece["uuid"] = derive_uuid(rec["uuid"], j)
            out.append(piece)
    return out


# --------------------------------------------------------------------------
# §5 Attachment rendering
# --------------------------------------------------------------------------

BUILTIN_TEMPLATES: dict[str, str] = {
    "memory": "Contents of {path}:\n\n{content}",
    "nested_memory": "Contents of {path}:\n\n{content}",
    "edited_text_file": (
        "{filename} was modified by the user or a tool. The relevant changes:\n{snippet}"
    ),
    "date": "Today's date is {date}.",
    "queued_command": "{prompt}",
}

# A parsed template: a list of (is_field, text) pieces.
Template = list[tuple[bool, str]]


def parse_template(template: str) -> Template:
    """§5: ``{field}`` names a top-level field, ``{{``/``}}`` are literal braces (A17)."""
    if not isinstance(template, str):
        raise ValueError("a template must be a string or None")
    pieces: Template = []
    literal = ""
    i = 0
    while i < len(template):
        c = template[i]
        if c == "{" and template[i + 1 : i + 2] == "{":
            literal += "{"
            i += 2
        elif c == "}" and template[i + 1 : i + 2] == "}":
            literal += "}"
            i += 2
        elif c == "{":
            end = template.find("}", i + 1)
            if end < 0:
                raise ValueError(f"unclosed '{{' in template {template!r}")
            name = template[i + 1 : end]
            if "{" in name:
                raise ValueError(f"'{{' inside a field name in template {template!r}")
            if literal:
                pieces.append((False, literal))
                literal = ""
            pieces.append((True, name))
            i = end + 1
        elif c == "}":
            raise ValueError(f"single '}}' in template {template!r}")
        else:
            literal += c
            i += 1
    if literal:
        pieces.append((False, literal))
    return pieces


def check_templates(templates: Mapping[str, str | None] | None) -> None:
    """A17: every given template must parse (checked up front)."""
    if templates is None:
        return
    if not isinstance(templates, Mapping):
        raise ValueError("attachment_templates must be a mapping")
    for key, template in templates.items():
        if not isinstance(key, str):
            raise ValueError("attachment_templates keys must be strings")
        if template is not None:
            parse_template(template)


def template_for(att: Mapping[str, Any], templates: Mapping[str, str | None] | None) -> str | None:
    """§5: the caller's template for the type, else the built-in one, else
    ``{content}`` for any other type with a string ``content``; None = none."""
    t = att.get("type")
    if templates is not None and isinstance(t, str) and t in templates:
        return templates[t]
    if isinstance(t, str) and t in BUILTIN_TEMPLATES:
        return BUILTIN_TEMPLATES[t]
    if isinstance(att.get("content"), str):
        return "{content}"
    return None


def render_attachment(
    att: Mapping[str, Any], templates: Mapping[str, str | None] | None = None
) -> str | None:
    """§5: the attachment's text wrapped in <system-reminder>, or None when it
    renders to nothing (disabled/missing template, missing or non-str/int field)."""
    check_templates(templates)
    template = template_for(att, templates)
    if template is None:
        return None
    text = ""
    for is_field, piece in parse_template(template):
        if not is_field:
            text += piece
            continue
        if piece not in att:
            return None
        value = att[piece]
        if isinstance(value, str):
            text += value
        elif is_int(value):
            text += str(value)
        else:
            return None
    return "<system-reminder>\n" + text + "\n</system-reminder>"


# --------------------------------------------------------------------------
# §4 normalize_for_api
# --------------------------------------------------------------------------


def step1_tombstones(items: list[Item]) -> list[Item]:
    """§4.1: drop every tombstone and every record whose uuid equals a
    tombstone's message.uuid."""
    dead = {rec["message"]["uuid"] for _, rec in items if rec["type"] == "tombstone"}
    return [
        (i, rec)
        for i, rec in items
        if rec["type"] != "tombstone"
        and not (isinstance(rec.get("uuid"), str) and rec["uuid"] in dead)
    ]


def is_bubble_stop(rec: Record) -> bool:
    """§4.2: an assistant record, or a user record whose content is a list
    starting with a tool_result block (A24)."""
    if rec["type"] == "assistant":
        return True
    if rec["type"] == "user":
        content = content_of(rec)
        return isinstance(content, list) and bool(content) and content[0]["type"] == "tool_result"
    return False


def step2_bubble_attachments(items: list[Item]) -> list[Item]:
    """§4.2: every attachment moves up to directly after the nearest stop above
    it (attachments keep their order); with no stop above, to the top.

    Equivalently: cut the list into segments that each start at a stop (the
    first one may have none); each segment becomes stop + its attachments +
    its other records."""
    segments: list[tuple[list[Item], list[Item], list[Item]]] = [([], [], [])]
    for item in items:
        rec = item[1]
        if rec["type"] == "attachment":
            segments[-1][1].append(item)
        elif is_bubble_stop(rec):
            segments.append(([item], [], []))
        else:
            segments[-1][2].append(item)
    out: list[Item] = []
    for stop, attachments, others in segments:
        out += stop + attachments + others
    return out


def is_synthetic_error(rec: Record) -> bool:
    """§4.3: assistant with isApiErrorMessage and message.model == "<synthetic>"."""
    return (
        rec["type"] == "assistant"
        and is_true(rec.get("isApiErrorMessage"))
        and rec["message"].get("model") == "<synthetic>"
    )


def is_dropped_in_step3(rec: Record) -> bool:
    """§4.3: progress, tool_use_summary, entries, non-local_command system,
    isVirtual user/assistant, synthetic error replies."""
    t = rec["type"]
    if t in ("progress", "tool_use_summary"):
        return True
    if t not in KNOWN_TYPES:  # an entry
        return True
    if t == "system":
        # amended: a provider's system prompt (from_provider's records) is kept in
        # place, unless blank: no content, or a string of whitespace only
        if rec["subtype"] == "system_prompt":
            content = rec.get("content", "")
            return isinstance(content, str) and is_blank(content)
        return bool(rec["subtype"] != "local_command")
    if t in MESSAGE_TYPES and is_true(rec.get("isVirtual")):
        return True
    return is_synthetic_error(rec)


def step3_drop(items: list[Item]) -> list[Item]:
    """§4.3 Drop."""
    return [(i, rec) for i, rec in items if not is_dropped_in_step3(rec)]


def user_blocks_for_merge(content: Any) -> list[Block]:
    """§4.4 user merge: string contents become one text block (A6: null counts
    as the empty string, and "" becomes one empty text block)."""
    if content is None:
        return [text_block("")]
    if isinstance(content, str):
        return [text_block(content)]
    return list(content)


def user_merge(a: Record, b: Record, *, seam: bool = True) -> Record:
    """§4.4 *User merge* of ``a`` then ``b``.

    String contents become one text block; if ``a`` ends with a text block and
    ``b`` starts with one, "\\n" is appended to ``a``'s last text (the seam,
    skipped for attachments); the blocks are concatenated, then all
    tool_result blocks move to the front keeping relative order. The result
    has ``a``'s fields except ``uuid`` (``b``'s if ``a`` is meta, else
    ``a``'s) and ``isMeta`` (true if both were meta, else absent)."""
    a_blocks = user_blocks_for_merge(content_of(a))
    b_blocks = user_blocks_for_merge(content_of(b))
    if (
        seam
        and a_blocks
        and b_blocks
        and a_blocks[-1]["type"] == "text"
        and b_blocks[0]["type"] == "text"
    ):
        last = a_blocks[-1]
        a_blocks[-1] = {**last, "text": last["text"] + "\n"}
    blocks = a_blocks + b_blocks
    results = [blk for blk in blocks if blk["type"] == "tool_result"]
    others = [blk for blk in blocks if blk["type"] != "tool_result"]
    merged = with_content(a, results + others)
    merged["uuid"] = b["uuid"] if is_meta(a) else a["uuid"]
    merged.pop("isMeta", None)
    if is_meta(a) and is_meta(b):
        merged["isMeta"] = True
    return merged


def fold_user(result: list[Item], item: Item, *, seam: bool) -> None:
    """§4.4: a user record merges into the previous result record if that is a
    user record, else is appended."""
    if result and result[-1][1]["type"] == "user":
        result[-1] = merge_items(result[-1], item, seam=seam)
    else:
        result.append(item)


def merge_items(a: Item, b: Item, *, seam: bool) -> Item:
    """User merge of two items; the index follows the surviving uuid (A9)."""
    a_index, a_rec = a
    b_index, b_rec = b
    index = b_index if is_meta(a_rec) else a_index
    return index, user_merge(a_rec, b_rec, seam=seam)


def local_command_to_user(rec: Record) -> Record:
    """§4.4: a local_command system record becomes a user record with the same
    uuid and timestamp and its ``content`` string."""
    return inserted_user(rec["uuid"], rec["content"], source=rec, meta=False)


def attachment_to_user(rec: Record, templates: Mapping[str, str | None] | None) -> Record | None:
    """§4.4 + §5: the meta user record ``[{type: text, text}]`` an attachment
    becomes (its uuid and timestamp), or None if it renders to nothing."""
    text = render_attachment(rec["attachment"], templates)
    if text is None:
        return None
    return inserted_user(rec["uuid"], [text_block(text)], source=rec, meta=True)


def assistant_blocks(content: Any) -> list[Block]:
    """§4.4: an assistant's string content becomes a list of one text block
    (none if empty); null counts as the empty string."""
    if content is None or content == "":
        return []
    if isinstance(content, str):
        return [text_block(content)]
    return list(content)


def message_id(rec: Record) -> str | None:
    """A4: ``message.id`` when it is a string."""
    mid = rec["message"].get("id")
    return mid if isinstance(mid, str) else None


def holds_only_results_and_blank_text(rec: Record) -> bool:
    """§4.4: a user record holding nothing but tool_result blocks and empty or
    whitespace-only text (a string or null content counts as text; A7)."""
    content = content_of(rec)
    if content is None:
        return True
    if isinstance(content, str):
        return is_blank(content)
    return all(
        blk["type"] == "tool_result" or (blk["type"] == "text" and is_blank(blk["text"]))
        for blk in content
    )


def stops_the_walk(rec: Record) -> bool:
    """§4.4: the backward walk skips assistant records (with another id, A4)
    and tool-result-only user records, and stops at anything else."""
    if rec["type"] == "assistant":
        return False
    if rec["type"] == "user" and holds_only_results_and_blank_text(rec):
        return False
    return True


def step4_fold(items: list[Item], templates: Mapping[str, str | None] | None) -> list[Item]:
    """§4.4 Fold, one pass building the result.

    The assistant re-join is done in linear time but means exactly the SPEC's
    backward walk: the walk skips assistants with another id and
    tool-result-only users and stops at anything else, so it meets an
    assistant with the same ``message.id`` iff the latest such assistant lies
    after the latest result record that stops the walk. Only the last result
    record is ever replaced by a user merge and only assistants receive
    re-joined blocks, so "the latest record that stops the walk" only needs
    checking at the end of the result after each operation.
    """
    result: list[Item] = []
    latest_with_id: dict[str, int] = {}  # message.id -> position in result
    last_stop = -1  # position of the latest result record that stops the walk

    for index, rec in items:
        t = rec["type"]
        if t == "system" and rec["subtype"] == "system_prompt":
            # kept as it is; nothing joins across it
            result.append((index, rec))
            last_stop = len(result) - 1
        elif t == "system":  # only local_command records survive step 3
            fold_user(result, (index, local_command_to_user(rec)), seam=True)
        elif t == "user":
            fold_user(result, (index, rec), seam=True)
        elif t == "attachment":
            user = attachment_to_user(rec, templates)
            if user is None:
                continue
            fold_user(result, (index, user), seam=False)
        elif t == "assistant":
            rec = with_content(rec, assistant_blocks(content_of(rec)))
            mid = message_id(rec)
            target = latest_with_id.get(mid) if mid is not None else None
            if target is not None and target > last_stop:
                target_index, target_rec = result[target]
                joined = content_of(target_rec) + content_of(rec)
                result[target] = (target_index, with_content(target_rec, joined))
            else:
                result.append((index, rec))
                if mid is not None:
                    latest_with_id[mid] = len(result) - 1
        if result and stops_the_walk(result[-1][1]):
            last_stop = len(result) - 1
    return result


def merge_adjacent_users(items: list[Item]) -> list[Item]:
    """§4.5 end: user records made adjacent are user-merged."""
    out: list[Item] = []
    for item in items:
        if item[1]["type"] == "user" and out and out[-1][1]["type"] == "user":
            out[-1] = merge_items(out[-1], item, seam=True)
        else:
            out.append(item)
    return out


def is_thinking_only(blocks: list[Block]) -> bool:
    """§4.5: non-empty and nothing but thinking/redacted_thinking blocks and
    empty or whitespace-only text blocks."""
    return bool(blocks) and all(
        blk["type"] in THINKING_TYPES or (blk["type"] == "text" and is_blank(blk["text"]))
        for blk in blocks
    )


def step5_assistant_cleanup(items: list[Item], *, strict: bool) -> list[Item]:
    """§4.5 Assistant clean-up, record by record in order (A10 for strict)."""
    seen_tool_use_ids: set[str] = set()
    out: list[Item] = []
    end = last_turn(items)  # system_prompt records after the final turn do not count
    for position, (index, rec) in enumerate(items):
        if rec["type"] != "assistant":
            out.append((index, rec))
            continue
        blocks = content_of(rec)
        answered = {blk["tool_use_id"] for blk in blocks if is_server_result(blk)}
        # amended: the history's last record ending in unanswered server/mcp uses
        # is a paused turn (pause_turn) or a call in flight, which the API
        # resumes: those trailing uses are kept
        paused_from = len(blocks)
        # (not when the record also holds a client tool_use: step 6 inserts its
        # missing result after it, and a second pass would remove the uses)
        if position == end and not any(b["type"] == "tool_use" for b in blocks):
            while paused_from > 0 and (
                blocks[paused_from - 1]["type"] in ("server_tool_use", "mcp_tool_use")
                and blocks[paused_from - 1]["id"] not in answered
            ):
                paused_from -= 1
        kept: list[Block] = []
        removed_ids: list[str] = []
        for j, blk in enumerate(blocks):
            if j >= paused_from:
                kept.append(blk)
                continue
            if blk["type"] == "tool_use":
                # rule 1: a repeated tool_use id is removed, the first wins
                if blk["id"] in seen_tool_use_ids:
                    removed_ids.append(blk["id"])
                    continue
                seen_tool_use_ids.add(blk["id"])
            elif blk["type"] in ("server_tool_use", "mcp_tool_use") and blk["id"] not in answered:
                # rule 2: a server/mcp use with no *_tool_result in this record
                removed_ids.append(blk["id"])
                continue
            kept.append(blk)
        if removed_ids and strict:
            _raise_pairing(index, removed_ids, "tool use blocks would be removed")
        if removed_ids and not kept:
            # rule 3: emptied by the removals
            kept = [text_block(TOOL_INTERRUPTED)]
        if is_thinking_only(kept):
            # rule 4: dropped
            continue
        out.append((index, with_content(rec, kept) if removed_ids else rec))
    return merge_adjacent_users(out)


def tool_use_ids(rec: Record) -> list[str]:
    return [blk["id"] for blk in content_of(rec) if blk["type"] == "tool_use"]


def missing_result(tool_use_id: str) -> Block:
    """§4.6: the synthetic result for a missing id."""
    return {
        "type": "tool_result",
        "tool_use_id": tool_use_id,
        "content": MISSING_RESULT,
        "is_error": True,
    }


def answer_tool_uses(ids: list[str], user: Record) -> tuple[Record, list[str], list[str]]:
    """§4.6: fix the user record that follows an assistant whose tool_use ids
    are ``ids``. Returns (new record, missing ids, removed result ids)."""
    content = content_of(user)
    if isinstance(content, list):
        blocks = list(content)
    else:  # A11: string (or null) content becomes one text block
        blocks = [text_block(content if content is not None else "")]
    kept_results: list[Block] = []
    answered: set[str] = set()
    removed: list[str] = []
    for blk in blocks:
        if blk["type"] != "tool_result":
            continue
        if blk["tool_use_id"] in ids and blk["tool_use_id"] not in answered:
            kept_results.append(blk)
            answered.add(blk["tool_use_id"])
        else:  # a result for another id, or a repeat
            removed.append(blk["tool_use_id"])
    missing = [i for i in ids if i not in answered]
    others = [blk for blk in blocks if blk["type"] != "tool_result"]
    new_blocks = [missing_result(i) for i in missing] + kept_results + others
    if not new_blocks:
        fixed = with_content(user, [text_block(NO_CONTENT)])
        fixed["isMeta"] = True
        return fixed, missing, removed
    if isinstance(content, list) and new_blocks == content:
        return user, missing, removed
    return with_content(user, new_blocks), missing, removed


def synthetic_results_uuid(assistant_uuid: str) -> str:
    """§4.6: uuid5(NAMESPACE_URL, "msgnorm:tool-results:" + assistant uuid)."""
    return str(_uuid.uuid5(_uuid.NAMESPACE_URL, "msgnorm:tool-results:" + assistant_uuid))


def step6_tool_pairing(items: list[Item], *, strict: bool) -> list[Item]:
    """§4.6 Tool pairing: walk the result (A10, A11, A13)."""
    out: list[Item] = []
    i = 0
    while i < len(items):
        index, rec = items[i]
        if rec["type"] == "user":
            content = content_of(rec)
            previous_is_assistant = bool(out) and out[-1][1]["type"] == "assistant"
            if isinstance(content, list) and not previous_is_assistant:
                orphans = [blk["tool_use_id"] for blk in content if blk["type"] == "tool_result"]
                if orphans:
                    if strict:
                        _raise_pairing(index, orphans, "tool results without a tool use")
                    rest = [blk for blk in content if blk["type"] != "tool_result"]
                    if rest:
                        rec = with_content(rec, rest)
                    elif not out:
                        rec = with_content(rec, [text_block(ORPHANED)])
                    else:
                        i += 1  # dropped
                        continue
            out.append((index, rec))
            i += 1
            continue

        # an assistant record (only users and assistants are left)
        out.append((index, rec))
        ids = tool_use_ids(rec)
        nxt = items[i + 1] if i + 1 < len(items) else None
        if nxt is not None and nxt[1]["type"] == "user":
            next_index, user = nxt
            user_content = content_of(user)
            has_results = isinstance(user_content, list) and any(
                blk["type"] == "tool_result" for blk in user_content
            )
            if ids or has_results:
                fixed, missing, removed = answer_tool_uses(ids, user)
                if strict and fixed is not user:
                    bad = missing + removed or [
                        blk["tool_use_id"] for blk in user_content if blk["type"] == "tool_result"
                    ]
                    _raise_pairing(next_index, bad, "tool results would be repaired")
                out.append((next_index, fixed))
                i += 2
                continue
        elif ids:
            if strict:
                _raise_pairing(index, ids, "tool uses without results")
            synthetic = inserted_user(
                synthetic_results_uuid(rec["uuid"]),
                [missing_result(tool_id) for tool_id in ids],
                source=rec,
                meta=True,
            )
            out.append((index, synthetic))
        i += 1
    return out


def remove_blank_texts(rec: Record) -> Record:
    """§4.7 first rule (A14)."""
    content = content_of(rec)
    if rec["type"] == "user" and (content is None or isinstance(content, str)):
        if content is None or is_blank(content):
            return with_content(rec, NO_CONTENT)
        return rec
    if not isinstance(content, list):
        return rec
    kept = [
        without_blank_inner_texts(blk)
        for blk in content
        if not (blk["type"] == "text" and is_blank(blk["text"]))
    ]
    changed = len(kept) != len(content) or any(
        a is not b for a, b in zip(kept, content, strict=False)
    )
    if rec["type"] == "user" and not kept:
        return with_content(rec, [text_block(NO_CONTENT)])
    return with_content(rec, kept) if changed else rec


def without_blank_inner_texts(blk: Block) -> Block:
    """A tool_result's content list without its blank text blocks (A14)."""
    inner = blk.get("content") if blk["type"] == "tool_result" else None
    if not isinstance(inner, list):
        return blk
    kept = [b for b in inner if not (b["type"] == "text" and is_blank(b["text"]))]
    return blk if len(kept) == len(inner) else {**blk, "content": kept}


def join_error_result(blk: Block) -> Block:
    """§4.7: a tool_result with is_error: true whose list content holds
    anything but text blocks gets content = its texts joined with "\\n\\n"."""
    if blk["type"] != "tool_result" or not is_true(blk.get("is_error")):
        return blk
    inner = blk.get("content")
    if not isinstance(inner, list) or all(b["type"] == "text" for b in inner):
        return blk
    return {**blk, "content": "\n\n".join(b["text"] for b in inner if b["type"] == "text")}


def join_error_results(rec: Record) -> Record:
    content = content_of(rec)
    if not isinstance(content, list):
        return rec
    new = [join_error_result(blk) for blk in content]
    return rec if new == content else with_content(rec, new)


def media_placeholder(kind: str, limit: int) -> Block:
    return text_block(f"[{kind} omitted: over the media limit of {limit}]")


def apply_media_limit(recs: list[Record], max_media: int | None) -> list[Record]:
    """§4.7 media limit: image/document blocks (top level and inside
    tool_result lists) beyond the limit are replaced, oldest first (A15)."""
    if max_media is None:
        return recs

    def is_media(blk: Block) -> bool:
        return blk["type"] in ("image", "document")

    total = 0
    for rec in recs:
        for blk in blocks_of(rec):
            if is_media(blk):
                total += 1
            elif blk["type"] == "tool_result" and isinstance(blk.get("content"), list):
                total += sum(1 for inner in blk["content"] if is_media(inner))
    to_replace = max(0, total - max_media)
    if to_replace == 0:
        return recs

    def replace(blk: Block) -> Block:
        nonlocal to_replace
        if is_media(blk) and to_replace > 0:
            to_replace -= 1
            return media_placeholder(blk["type"], max_media)
        return blk

    out: list[Record] = []
    for rec in recs:
        content = content_of(rec)
        if not isinstance(content, list):
            out.append(rec)
            continue
        new: list[Block] = []
        for blk in content:
            if blk["type"] == "tool_result" and isinstance(blk.get("content"), list):
                blk = {**blk, "content": [replace(inner) for inner in blk["content"]]}
            else:
                blk = replace(blk)
            new.append(blk)
        out.append(with_content(rec, new))
    return out


def step7_hygiene(recs: list[Record], max_media: int | None) -> list[Record]:
    """§4.7 Content hygiene: blank texts, is_error joining, media limit."""
    recs = [remove_blank_texts(rec) for rec in recs]
    recs = [join_error_results(rec) for rec in recs]
    return apply_media_limit(recs, max_media)


def last_turn(recs: list[Any]) -> int:
    """The index of the record that ends the conversation (-1: none): the last
    that is not a ``system_prompt`` record, which goes to the system parameter."""
    for i in range(len(recs) - 1, -1, -1):
        rec = recs[i][1] if isinstance(recs[i], tuple) else recs[i]
        if not (rec["type"] == "system" and rec.get("subtype") == "system_prompt"):
            return i
    return -1


def step8_final_assistant(recs: list[Record]) -> list[Record]:
    """§4.8: if the last record is an assistant (system_prompt records after it
    do not count), repeatedly drop a trailing thinking/redacted_thinking block,
    strip trailing whitespace from a trailing text block and drop it if that
    empties it; nothing left -> [No message content] (A16)."""
    at = last_turn(recs)
    if at < 0 or recs[at]["type"] != "assistant":
        return recs
    blocks = list(content_of(recs[at]))
    while blocks:
        last = blocks[-1]
        if last["type"] in THINKING_TYPES:
            blocks.pop()
            continue
        if last["type"] == "text":
            stripped = rstrip_whitespace(last["text"])
            if stripped == "":
                blocks.pop()
                continue
            if stripped != last["text"]:
                blocks[-1] = {**last, "text": stripped}
        break
    if not blocks:
        blocks = [text_block(NO_MESSAGE_CONTENT)]
    if blocks == content_of(recs[at]):
        return recs
    return [*recs[:at], with_content(recs[at], blocks), *recs[at + 1 :]]


def step9_empty_content(recs: list[Record]) -> list[Record]:
    """§4.9: an assistant that is not last and has empty content gets (no content)."""
    out: list[Record] = []
    end = last_turn(recs)
    for position, rec in enumerate(recs):
        if rec["type"] == "assistant" and position < end and not content_of(rec):
            rec = with_content(rec, [text_block(NO_CONTENT)])
        out.append(rec)
    return out


def first_user_uuid(assistant_uuid: str) -> str:
    """§4.10: uuid5(NAMESPACE_URL, "msgnorm:first-user:" + assistant uuid)."""
    return str(_uuid.uuid5(_uuid.NAMESPACE_URL, "msgnorm:first-user:" + assistant_uuid))


def step10_user_first(recs: list[Record]) -> list[Record]:
    """§4.10: if the first record is an assistant, a meta user record
    (no content) is put before it (A12, A16)."""
    # system prompts kept by step 3 stay before the first turn
    at = 0
    while at < len(recs) and recs[at]["type"] == "system":
        at += 1
    if at == len(recs) or recs[at]["type"] != "assistant":
        return recs
    first = inserted_user(
        first_user_uuid(recs[at]["uuid"]), [text_block(NO_CONTENT)], source=recs[at], meta=True
    )
    return [*recs[:at], first, *recs[at:]]


def short_id_of(index: int, rec: Record) -> str:
    """§2 short id of a record's uuid; A18: a rejected uuid is an invalid record."""
    try:
        return derive_short_message_id(rec["uuid"])
    except ValueError as exc:
        _raise_invalid(index, f"records[{index}].uuid", f"short_ids: {exc}")


def step11_short_ids(items: list[Item]) -> list[Item]:
    """§4.11: every non-meta user record gets "\\n[id:" + short id + "]"
    appended to its last text block (or string content); no text, nothing (A18)."""
    out: list[Item] = []
    for index, rec in items:
        if rec["type"] != "user" or is_meta(rec):
            out.append((index, rec))
            continue
        content = content_of(rec)
        if isinstance(content, str):
            suffix = "\n[id:" + short_id_of(index, rec) + "]"
            out.append((index, with_content(rec, content + suffix)))
            continue
        text_positions = [j for j, blk in enumerate(content) if blk["type"] == "text"]
        if not text_positions:
            out.append((index, rec))
            continue
        suffix = "\n[id:" + short_id_of(index, rec) + "]"
        j = text_positions[-1]
        blocks = list(content)
        blocks[j] = {**blocks[j], "text": blocks[j]["text"] + suffix}
        out.append((index, with_content(rec, blocks)))
    return out


def check_max_media(max_media: int | None) -> None:
    if max_media is not None and not (is_int(max_media) and max_media >= 0):
        raise ValueError("max_media must be None or an int >= 0")


def normalize_for_api_shared(
    records: Sequence[Any],
    *,
    strict: bool = False,
    max_media: int | None = 100,
    short_ids: bool = False,
    ensure_user_first: bool = True,
    attachment_templates: Mapping[str, str | None] | None = None,
) -> list[Record]:
    """§4 steps 1-11 in order; records and blocks the steps do not change are
    the input's own (the fair baseline of the benchmarks)."""
    check_max_media(max_media)
    check_templates(attachment_templates)
    validate_records(records)
    items: list[Item] = list(enumerate(records))
    items = step1_tombstones(items)
    items = step2_bubble_attachments(items)
    items = step3_drop(items)
    items = step4_fold(items, attachment_templates)
    items = step5_assistant_cleanup(items, strict=strict)
    items = step6_tool_pairing(items, strict=strict)
    indices = [index for index, _ in items]
    recs = [rec for _, rec in items]
    recs = step7_hygiene(recs, max_media)
    recs = step8_final_assistant(recs)
    recs = step9_empty_content(recs)
    if ensure_user_first:
        inserted = step10_user_first(recs)
        if len(inserted) > len(recs):  # A9: an inserted record names its assistant
            indices = indices[:1] + indices
        recs = inserted
    if short_ids:
        recs = [rec for _, rec in step11_short_ids(list(zip(indices, recs, strict=True)))]
    return recs


def normalize_for_api(records: Sequence[Any], **options: Any) -> list[Record]:
    """§4: what is sent to the model. Steps 1-11 in order (``options`` as
    :func:`normalize_for_api_shared`'s), then a deep copy: the oracle's output
    shares nothing with its input."""
    return copy.deepcopy(normalize_for_api_shared(records, **options))


def to_anthropic(records: Sequence[Any]) -> list[dict[str, Any]]:
    """§4 end: each record -> {"role": type, "content": message.content} (A19)."""
    validate_records(records)
    out: list[dict[str, Any]] = []
    for i, rec in enumerate(records):
        if rec["type"] not in MESSAGE_TYPES:
            _raise_invalid(
                i, f"records[{i}].type", "to_anthropic takes only user and assistant records"
            )
        out.append({"role": rec["type"], "content": copy.deepcopy(content_of(rec))})
    return out


# --------------------------------------------------------------------------
# §6 Approximate token counting
# --------------------------------------------------------------------------


def json_chars(value: Any) -> int:
    """§6 J(value): a string counts its length, an object the sum of len(key) +
    J(value), an array the sum of its items, any other JSON value 4."""
    if isinstance(value, str):
        return len(value)
    if isinstance(value, dict):
        return sum(len(key) + json_chars(item) for key, item in value.items())
    if isinstance(value, list):
        return sum(json_chars(item) for item in value)
    return 4


def field_chars(block: Block, key: str) -> int:
    """A20: len() of a string field, J() of a non-string one, 0 when missing."""
    if key not in block:
        return 0
    return json_chars(block[key])


@dataclass
class CountParams:
    chars_per_token: float = 4.0
    tokens_per_message: int = 3
    tokens_per_image: int = 1600
    tokens_per_document: int = 3000


def block_cost(block: Block, params: CountParams) -> tuple[int, int]:
    """§6: (characters, fixed tokens) of one block."""
    t = block["type"]
    if t == "text":
        return len(block["text"]), 0
    if t == "thinking":
        return field_chars(block, "thinking"), 0
    if t == "redacted_thinking":
        return field_chars(block, "data"), 0
    if t in ("tool_use", "server_tool_use"):
        return field_chars(block, "name") + field_chars(block, "input"), 0
    if t == "tool_result":
        return content_cost(block.get("content"), params)
    if t == "image":
        return 0, params.tokens_per_image
    if t == "document":
        source = block.get("source")
        if (
            isinstance(source, dict)
            and source.get("type") == "text"
            and isinstance(source.get("data"), str)
        ):
            return len(source["data"]), 0
        return 0, params.tokens_per_document
    return json_chars(block), 0


def content_cost(content: Any, params: CountParams) -> tuple[int, int]:
    """§6: a string counts its length (null is empty), a list sums its blocks."""
    if content is None:
        return 0, 0
    if isinstance(content, str):
        return len(content), 0
    chars = fixed = 0
    for block in content:
        c, f = block_cost(block, params)
        chars += c
        fixed += f
    return chars, fixed


def make_count_params(
    chars_per_token: float = 4.0,
    tokens_per_message: int = 3,
    tokens_per_image: int = 1600,
    tokens_per_document: int = 3000,
) -> CountParams:
    """A20: check the counting parameters."""
    if isinstance(chars_per_token, bool) or not isinstance(chars_per_token, (int, float)):
        raise ValueError("chars_per_token must be a number")
    if not (math.isfinite(chars_per_token) and chars_per_token > 0):
        raise ValueError("chars_per_token must be finite and > 0")
    for name, value in (
        ("tokens_per_message", tokens_per_message),
        ("tokens_per_image", tokens_per_image),
        ("tokens_per_document", tokens_per_document),
    ):
        if not (is_int(value) and value >= 0):
            raise ValueError(f"{name} must be an int >= 0")
    return CountParams(
        float(chars_per_token), tokens_per_message, tokens_per_image, tokens_per_document
    )


def record_tokens(rec: Record, params: CountParams) -> int:
    """§6: 0 for records other than user/assistant, else
    ceil(chars / chars_per_token) + fixed + tokens_per_message (A20)."""
    if rec["type"] not in MESSAGE_TYPES:
        return 0
    chars, fixed = content_cost(content_of(rec), params)
    return math.ceil(chars / params.chars_per_token) + fixed + params.tokens_per_message


def count_tokens_per_record(
    records: Sequence[Any],
    *,
    chars_per_token: float = 4.0,
    tokens_per_message: int = 3,
    tokens_per_image: int = 1600,
    tokens_per_document: int = 3000,
) -> list[int]:
    """§6: the approximate token count of every record."""
    params = make_count_params(
        chars_per_token, tokens_per_message, tokens_per_image, tokens_per_document
    )
    validate_records(records)
    return [record_tokens(rec, params) for rec in records]


def count_tokens(records: Sequence[Any], **params: Any) -> int:
    """§6: the sum of count_tokens_per_record (which takes and checks the parameters)."""
    return sum(count_tokens_per_record(records, **params))


# --------------------------------------------------------------------------
# §7 Safe cut-off and trimming
# --------------------------------------------------------------------------


def is_turn_start(rec: Record) -> bool:
    """§7: a user record with no tool_result block (A21)."""
    if rec["type"] != "user":
        return False
    content = content_of(rec)
    return not (isinstance(content, list) and any(b["type"] == "tool_result" for b in content))


def find_cutoff(records: Sequence[Any], max_tokens: int, *, pin: int = 0, **count_kw: Any) -> int:
    """§7: the smallest k such that the first ``pin`` records plus records[k:]
    cost at most ``max_tokens``, where k == pin or records[k] is a turn start
    (A21). BudgetError if there is none. Linear: suffix sums."""
    if not (is_int(pin) and 0 <= pin <= len(records)):
        raise ValueError(f"pin must be an int with 0 <= pin <= {len(records)}")
    costs = count_tokens_per_record(records, **count_kw)
    n = len(records)
    pinned = sum(costs[:pin])
    suffix = [0] * (n + 1)
    for k in range(n - 1, -1, -1):
        suffix[k] = suffix[k + 1] + costs[k]
    for k in range(pin, n + 1):
        candidate = k == pin or (k < n and is_turn_start(records[k]))
        if candidate and pinned + suffix[k] <= max_tokens:
            return k
    _raise_budget(f"no safe cut-off keeps the history within {max_tokens} tokens")


def trim_to_budget(
    records: Sequence[Any], max_tokens: int, *, pin: int = 0, **count_kw: Any
) -> list[Any]:
    """§7: records[:pin] + records[k:], user-merging the two records at the
    joint if both are user records (A21)."""
    k = find_cutoff(records, max_tokens, pin=pin, **count_kw)
    head = list(records[:pin])
    tail = list(records[k:])
    if k > pin and head and tail and head[-1]["type"] == "user" and tail[0]["type"] == "user":
        head[-1] = user_merge(head[-1], tail[0], seam=True)
        tail = tail[1:]
    return copy.deepcopy(head + tail)


def split_for_summary(
    records: Sequence[Any], keep_tokens: int, *, pin: int = 0, **count_kw: Any
) -> tuple[list[Any], list[Any]]:
    """§7: (records[pin:k], records[k:]) with k = find_cutoff(records,
    keep_tokens, pin=pin): what to summarise and what to keep."""
    k = find_cutoff(records, keep_tokens, pin=pin, **count_kw)
    return copy.deepcopy(list(records[pin:k])), copy.deepcopy(list(records[k:]))


# --------------------------------------------------------------------------
# §4 guarantees (the checker used by the property tests)
# --------------------------------------------------------------------------


def check_guarantees(
    out: Sequence[Any],
    *,
    ensure_user_first: bool = True,
    max_media: int | None = None,
) -> None:
    """Assert every guarantee listed at the end of §4 on an output of
    normalize_for_api (A23 for the scope), plus properties the steps imply:
    only user/assistant records, no blank top-level text, media within limit."""
    for pos, rec in enumerate(out):
        assert isinstance(rec, dict), f"[{pos}] is not an object"
        assert rec.get("type") in MESSAGE_TYPES, f"[{pos}] is a {rec.get('type')!r} record"
    # the output starts with a user record
    if ensure_user_first and out:
        assert out[0]["type"] == "user", "the output does not start with a user record"
    # no two user records are adjacent
    for pos in range(1, len(out)):
        assert not (out[pos - 1]["type"] == "user" and out[pos]["type"] == "user"), (
            f"user records [{pos - 1}] and [{pos}] are adjacent"
        )
    # tool_use ids are unique
    all_ids = [
        blk["id"]
        for rec in out
        if rec["type"] == "assistant"
        for blk in blocks_of(rec)
        if blk["type"] == "tool_use"
    ]
    assert len(all_ids) == len(set(all_ids)), f"repeated tool_use ids: {all_ids}"
    for pos, rec in enumerate(out):
        content = content_of(rec)
        # no user or non-final assistant content is empty (nor is the final one)
        assert content is not None and content != "" and content != [], f"[{pos}] has empty content"
        if isinstance(content, str):
            assert rec["type"] == "user", f"[{pos}] assistant with string content"
            assert not is_blank(content), f"[{pos}] blank string content"
            continue
        for blk in content:
            if blk["type"] == "text":
                assert not is_blank(blk["text"]), f"[{pos}] has a blank text block"
        if rec["type"] == "assistant":
            ids = [blk["id"] for blk in content if blk["type"] == "tool_use"]
            if ids:
                # answered exactly once, in the next record, whose results come first
                assert pos + 1 < len(out), f"[{pos}] tool_use ids {ids} unanswered at the end"
                nxt = out[pos + 1]
                assert nxt["type"] == "user", f"[{pos}] tool_use not followed by a user record"
                nblocks = blocks_of(nxt)
                answers = [blk["tool_use_id"] for blk in nblocks if blk["type"] == "tool_result"]
                assert sorted(answers) == sorted(ids), (
                    f"[{pos + 1}] answers {answers} but [{pos}] asked {ids}"
                )
            # no other tool_result: assistant content has none (A23: none generated)
        else:
            results = [blk for blk in content if blk["type"] == "tool_result"]
            if results:
                # results come first
                n = len(results)
                assert all(blk["type"] == "tool_result" for blk in content[:n]), (
                    f"[{pos}] tool_result blocks are not first"
                )
                # no other tool_result: each answers a tool_use of the previous record
                assert pos > 0 and out[pos - 1]["type"] == "assistant", (
                    f"[{pos}] tool_result without a preceding assistant"
                )
                asked = [blk["id"] for blk in blocks_of(out[pos - 1]) if blk["type"] == "tool_use"]
                answered = [blk["tool_use_id"] for blk in results]
                assert sorted(answered) == sorted(asked), (
                    f"[{pos}] answers {answered} but [{pos - 1}] asked {asked}"
                )
    if max_media is not None:
        media = 0
        for rec in out:
            for blk in blocks_of(rec):
                if blk["type"] in ("image", "document"):
                    media += 1
                elif blk["type"] == "tool_result" and isinstance(blk.get("content"), list):
                    media += sum(1 for b in blk["content"] if b["type"] in ("image", "document"))
        assert media <= max_media, f"{media} media blocks over the limit {max_media}"
